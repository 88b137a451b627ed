"""The short paths a small Jacobian, Hessian or Hessian-vector product takes on every
call (issue 25's per-call overhead): each gives what the long way gives, bit for bit.

- jacfwd / jacrev of float arrays by position (columns.at_once, columns.rows): against
  one forward program per direction, and the rows with batching off;
- the tangent of ``x * x`` computed once and added to itself (jvp);
- forward-mode programs without what nothing reads (prune.drop_unread);
- broadcast_like's view made at once (tensor.broadcast_view), and the matrix case of
  matmul_grad_a / matmul_grad_b.
"""
import numpy as np
import pytest

import revsrc
from revsrc.compose import forward as compose
from revsrc.runtime import batched, broadcast_like, tensor
from revsrc.runtime.grads import linalg

RNG = np.random.default_rng(25)
A = RNG.normal(size=(7, 5))


def outputs(x):
    return np.tanh(A @ x) * np.sum(x * x)


def matrix_in(M):
    return np.sin(M @ M.T).ravel() * M[0, 1]


def scalar_out(x):
    return np.sum(np.exp(x) * x[::-1])


def two_args(w, x):
    return np.tanh(A @ x + w[0]) * w


def _per_direction(f, args, a):
    """The forward-mode Jacobian in argument ``a``, one program run per direction."""
    fw = compose._forward(f)
    x = args[a]
    cols = []
    for e in np.eye(x.size):
        tangents = [None] * len(args)
        tangents[a] = e.reshape(x.shape)
        cols.append(np.asarray(fw(args, tangents)[1]))
    out = np.shape(f(*args))
    return np.stack(cols, axis=-1).reshape(out + x.shape)


CASES = [(outputs, (RNG.normal(size=5),), 0), (matrix_in, (RNG.normal(size=(3, 5)),), 0),
         (scalar_out, (RNG.normal(size=6),), 0),
         (two_args, (RNG.normal(size=7), RNG.normal(size=5)), 1),
         (two_args, (RNG.normal(size=7), RNG.normal(size=5)), 0)]


@pytest.mark.parametrize("f, args, a", CASES)
def test_jacfwd_at_once_is_every_direction_bit_for_bit(f, args, a):
    J = revsrc.jacfwd(f, argnums=a)(*args)
    want = _per_direction(f, args, a)
    assert type(J) is np.ndarray and J.shape == want.shape and J.dtype == np.float64
    assert J.tobytes() == want.tobytes()
    assert J.flags.c_contiguous and J.flags.writeable
    assert revsrc.jacfwd(f, argnums=a)(*args).tobytes() == J.tobytes()   # again, cached


@pytest.mark.parametrize("f, args, a", CASES)
def test_jacrev_rows_are_the_rows_without_batching(f, args, a, monkeypatch):
    first = revsrc.jacrev(f, argnums=a)(*args)
    again = revsrc.jacrev(f, argnums=a)(*args)     # the output's shape known: at once
    monkeypatch.setenv("REVSRC_BATCHED_COLUMNS", "0")
    row_by_row = revsrc.jacrev(f, argnums=a)(*args)
    assert first.shape == again.shape == row_by_row.shape
    np.testing.assert_allclose(first, row_by_row, rtol=1e-13, atol=1e-15)
    assert first.tobytes() == again.tobytes()
    np.testing.assert_allclose(first, _per_direction(f, args, a), rtol=1e-12, atol=1e-14)


def test_the_short_paths_leave_other_arguments_to_the_long_way():
    x32 = RNG.normal(size=5).astype(np.float32)
    J = revsrc.jacfwd(outputs)(x32)
    assert J.dtype == outputs(x32).dtype and J.shape == (7, 5)   # float64: A is
    Jb = revsrc.jacfwd(lambda x, k: outputs(x) * k)(RNG.normal(size=5), 2)   # an int
    assert Jb.shape == (7, 5)
    Jm, aux = revsrc.jacfwd(lambda x: (outputs(x), 1.0), has_aux=True)(RNG.normal(size=5))
    assert Jm.shape == (7, 5) and aux == 1.0


def test_the_tangent_of_a_square_is_computed_once():
    x, t = RNG.normal(size=4), RNG.normal(size=4)
    fw = compose._forward(lambda x: x * x)
    out, tangent = fw((x,), (t,))
    assert tangent.tobytes() == (t * x + t * x).tobytes()
    text = compose._forward_text(fw, (x,), (0,))
    assert text.count("x_dot * x") == 1, text


def test_a_gradients_forward_program_skips_the_value_tangent():
    X = RNG.normal(size=(6, 4))

    def loss(b):
        return np.mean((np.tanh(X + b) - 0.5) ** 2)
    b, v = RNG.normal(size=4), RNG.normal(size=4)
    g = compose._grad(loss, 0, None)
    text = compose._forward_text(compose._forward(g), (b,), (0,))
    assert "not computed, nothing reads it" in text
    H = revsrc.hessian(loss)(b)
    np.testing.assert_allclose(revsrc.hvp(loss, (b,), (v,)), H @ v, rtol=1e-12, atol=1e-14)
    eps = 1e-6
    fd = (revsrc.grad(loss)(b + eps * v) - revsrc.grad(loss)(b - eps * v)) / (2 * eps)
    np.testing.assert_allclose(revsrc.hvp(loss, (b,), (v,)), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("a, shape", [((4, 1), (4, 3)), ((1, 3), (5, 3)), ((2, 1, 3), (2, 4, 3)),
                                      ((3,), (3,)), ((), ()), ((1, 1), (0, 2))])
def test_broadcast_view_is_broadcast_to(a, shape):
    x = np.asarray(RNG.normal(size=a))
    got = tensor.broadcast_view(x, shape)
    want = np.broadcast_to(x, shape)
    assert got.shape == want.shape and got.strides == want.strides
    assert not got.flags.writeable and (got.size == 0 or np.shares_memory(got, x))
    np.testing.assert_array_equal(got, want)


def test_broadcast_view_refuses_as_broadcast_to_does():
    with pytest.raises(ValueError):
        tensor.broadcast_view(np.ones((3, 2)), (4, 2))
    with pytest.raises(ValueError):
        broadcast_like(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        batched.broadcast_like(np.ones((2, 3)), np.ones(4), True, False)
    # non-contiguous, integer: broadcast_to itself
    v = tensor.broadcast_view(np.arange(6.0)[::2].reshape(1, 3), (2, 3))
    np.testing.assert_array_equal(v, [[0, 2, 4], [0, 2, 4]])
    np.testing.assert_array_equal(broadcast_like(np.arange(3), np.ones((2, 3))),
                                  [[0, 1, 2], [0, 1, 2]])


def test_broadcast_like_per_example():
    t, ans = RNG.normal(size=5), RNG.normal(size=(3, 2))
    got = batched.broadcast_like(t, ans, True, False)
    assert got.shape == (5, 3, 2) and not got.flags.writeable
    for i in range(5):
        np.testing.assert_array_equal(got[i], np.broadcast_to(t[i], ans.shape))


def test_matmul_adjoints_of_matrices():
    g, a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 5)), RNG.normal(size=(5, 3))
    assert linalg.matmul_grad_a(g, a, b).tobytes() == np.matmul(g, np.swapaxes(b, -1, -2)).tobytes()
    assert linalg.matmul_grad_b(g, a, b).tobytes() == np.matmul(np.swapaxes(a, -1, -2), g).tobytes()
    # a broadcast operand is summed back, as before
    a1 = RNG.normal(size=(1, 5))
    np.testing.assert_allclose(linalg.matmul_grad_a(g, a1, b), (g @ b.T).sum(0, keepdims=True))
