"""Hessians and forward-mode Jacobians with every basis direction through one
batched forward-mode program (revsrc/columns.py): the same numbers as one program
run per direction, to 1e-12, and central differences."""
import numpy as np
import pytest

import revsrc
from revsrc.compose import forward as compose

RNG = np.random.default_rng(3)
X = RNG.normal(size=(16, 8))
W1 = RNG.normal(size=(8, 12)) * 0.3
W2 = RNG.normal(size=(12, 3)) * 0.3
Y = RNG.normal(size=(16, 3))


def mlp_loss(b):
    h = np.tanh(X @ W1 + b)
    return np.mean((h @ W2 - Y) ** 2)


def vector_fn(x):
    return np.tanh(X[:, :6] @ x) * np.sum(x ** 2) + X[:, 0] * x[1]


def _by_columns(f, x):
    """The Jacobian one forward-mode program run per direction (as before)."""
    fw = compose._forward(f)
    return np.stack([fw((x,), (e,))[1] for e in np.eye(x.size)], axis=-1)


def _batched_was_used(f):
    kept = compose._forward(f).__dict__.get("_revsrc_batched", {})
    return bool(kept) and all(found for _, found in kept.values())


def test_hessian_of_an_mlp_loss_in_one_batched_program():
    b = RNG.normal(size=12) * 0.1
    H = revsrc.hessian(mlp_loss)(b)
    g = compose._grad(mlp_loss, 0, None)
    np.testing.assert_allclose(H, _by_columns(g, b), rtol=1e-12, atol=1e-12)
    assert _batched_was_used(g)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-14)
    grad = revsrc.grad(mlp_loss)
    h = 1e-6
    numeric = np.stack([(grad(b + h * e) - grad(b - h * e)) / (2 * h) for e in np.eye(12)],
                       axis=-1)
    np.testing.assert_allclose(H, numeric, rtol=1e-6, atol=1e-8)


def test_jacfwd_of_an_array_function_in_one_batched_program():
    x = RNG.normal(size=6)
    J = revsrc.jacfwd(vector_fn)(x)
    assert J.shape == (16, 6)
    np.testing.assert_allclose(J, _by_columns(vector_fn, x), rtol=1e-12, atol=1e-12)
    assert _batched_was_used(vector_fn)
    np.testing.assert_allclose(J, revsrc.jacrev(vector_fn)(x), rtol=1e-12, atol=1e-12)


def branch_on_value(x):
    if x[0] > 0:
        return np.sum(x ** 3)
    return np.sum(x ** 2)


def test_a_program_the_batch_cannot_take_runs_direction_by_direction():
    x = np.array([0.5, -1.0, 2.0])
    H = revsrc.hessian(branch_on_value)(x)
    np.testing.assert_allclose(H, np.diag(6 * x), rtol=1e-12)


@pytest.mark.parametrize("shape", [(2, 3), (4,)])
def test_matrix_arguments(shape):
    def f(w):
        return np.sum(np.tanh(w) ** 2) * np.sum(w)
    w = RNG.normal(size=shape)
    H = revsrc.hessian(f)(w)
    g = compose._grad(f, 0, None)
    fw = compose._forward(g)
    cols = np.stack([fw((w,), (e.reshape(shape),))[1] for e in np.eye(w.size)], axis=-1)
    np.testing.assert_allclose(H, cols.reshape(shape + shape), rtol=1e-12, atol=1e-12)


def soft_rank_loss(scores, target, tau=0.5):
    """The loss whose Hessian the batched columns once got wrong (an adjoint of a
    broadcast, unbatched, read as a batch: its length was the batch's)."""
    diff = (scores[:, None] - scores[None, :]) / tau
    P = 1.0 / (1.0 + np.exp(-diff))
    ranks = P.sum(axis=1) + 0.5
    ranks = ranks - ranks.mean()
    t = target - target.mean()
    corr = np.dot(ranks, t) / (np.linalg.norm(ranks) * np.linalg.norm(t))
    soft = np.exp(scores / tau)
    soft = soft / soft.sum()
    return -corr + 0.1 * np.sum(soft * np.log(soft))


def centred_cubes(s):
    """The smallest form of it: a mean subtracted from a reduction's result."""
    r = (s[:, None] * s[None, :]).sum(axis=1)
    r = r - r.mean()
    return np.sum(r ** 3)


@pytest.mark.parametrize("f", [soft_rank_loss, centred_cubes])
def test_a_broadcast_adjoint_the_same_for_every_direction(f):
    s = np.array([0.3, -1.2, 2.0, 0.9, -0.4])
    t = np.array([2.0, 0.0, 4.0, 3.0, 1.0])
    args = (s, t) if f is soft_rank_loss else (s,)
    H = revsrc.hessian(f)(*args)
    g = compose._grad(f, 0, None)
    np.testing.assert_allclose(H, _columns_of(g, args), rtol=1e-12, atol=1e-12)
    assert _batched_was_used(g)
    grad = revsrc.grad(f)
    h = 1e-6
    numeric = np.stack([(grad(s + h * e, *args[1:]) - grad(s - h * e, *args[1:])) / (2 * h)
                        for e in np.eye(s.size)], axis=-1)
    np.testing.assert_allclose(H, numeric, rtol=1e-5, atol=1e-7)


def _columns_of(g, args):
    """The Hessian one forward-mode program per direction of the first argument."""
    fw = compose._forward(g)
    zero = tuple(np.zeros_like(a) for a in args[1:])
    return np.stack([fw(args, (e,) + zero)[1] for e in np.eye(args[0].size)], axis=-1)


def test_the_off_switch(monkeypatch):
    monkeypatch.setenv("REVSRC_BATCHED_COLUMNS", "0")

    def f(w):
        return np.sum(np.sin(w) * w[::-1]) ** 2
    w = RNG.normal(size=4)
    H = revsrc.hessian(f)(w)
    assert not compose._forward(compose._grad(f, 0, None)).__dict__.get("_revsrc_batched")
    monkeypatch.setenv("REVSRC_BATCHED_COLUMNS", "1")
    g = compose._grad(f, 0, None)
    np.testing.assert_allclose(revsrc.hessian(f)(w), H, rtol=1e-12, atol=1e-12)
    assert _batched_was_used(g)
