"""Derivatives compose: each order is checked against central differences of the order
below (grad of grad, forward over reverse, Jacobians, Hessians, derivatives called
inside differentiated functions)."""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import compare_grads

from functions import CASES

SCALAR_CASES = [c for c in CASES if "scalar" in c.tags and isinstance(c.argnums, int)
                and all(isinstance(a, float) or type(a) is int for a in c.args)
                and isinstance(c.args[c.argnums], float)]


def _ids(cases):
    return [c.id for c in cases]


def _fd(g, x, h=1e-5):
    """Richardson-extrapolated central difference of the scalar function ``g`` at x."""
    d1 = (g(x + h) - g(x - h)) / (2 * h)
    d2 = (g(x + h / 2) - g(x - h / 2)) / h
    return (4 * d2 - d1) / 3


def _at(case, i, x):
    args = list(case.args)
    args[i] = x
    return tuple(args)


# ----- Scalar programs: second derivatives three ways -----

@pytest.mark.parametrize("backend", [None, "python"], ids=["auto", "python"])
@pytest.mark.parametrize("case", SCALAR_CASES, ids=_ids(SCALAR_CASES))
def test_second_derivative_of_the_corpus(case, backend):
    i = case.argnums
    df = revsrc.grad(case.fn, i, backend=backend)
    x = case.args[i]
    numeric = _fd(lambda t: df(*_at(case, i, t), **case.kwargs), x)
    tol = 1e-5 * max(1.0, abs(numeric))
    reverse_reverse = revsrc.grad(df, i, backend=backend)(*case.args, **case.kwargs)
    assert reverse_reverse == pytest.approx(numeric, abs=tol)
    if case.kwargs:
        return
    tangents = [None] * len(case.args)
    tangents[i] = 1.0
    _, forward_reverse = revsrc.jvp(df, case.args, tangents, backend=backend)
    assert forward_reverse == pytest.approx(numeric, abs=tol)


@pytest.mark.parametrize("case", SCALAR_CASES, ids=_ids(SCALAR_CASES))
def test_jvp_of_the_corpus(case):
    i = case.argnums
    if case.kwargs:
        pytest.skip("jvp takes positional primals")
    tangents = [None] * len(case.args)
    tangents[i] = 1.0
    out, t = revsrc.jvp(case.fn, case.args, tangents)
    assert out == pytest.approx(case.fn(*case.args))
    assert t == pytest.approx(revsrc.grad(case.fn, i)(*case.args), rel=1e-12, abs=1e-12)


def poly3(x):
    return x ** 5 - 2.0 * x ** 3 + math.sin(x)


def test_third_and_fourth_order():
    d1 = revsrc.grad(poly3)
    d2 = revsrc.grad(d1)
    d3 = revsrc.grad(d2)
    d4 = revsrc.grad(d3)
    for x in (0.3, -1.2, 2.0):
        assert d3(x) == pytest.approx(_fd(d2, x), rel=1e-6)
        assert d4(x) == pytest.approx(_fd(d3, x), rel=1e-6)
        assert d4(x) == pytest.approx(120.0 * x + math.sin(x), rel=1e-10)


def recurrence(x):
    for i in range(200):
        if x > 1.0:
            x = x - 0.002 * math.sin(x) * x
        else:
            x = x + 0.003 * math.cos(x) + 0.001 * x * x
    return x


def test_second_derivative_of_a_branchy_loop_runs_on_the_engine():
    d2 = revsrc.hessian(recurrence)
    numeric = _fd(revsrc.grad(recurrence), 0.3)
    assert d2(0.3) == pytest.approx(numeric, rel=1e-6)
    inner = revsrc.grad(recurrence)
    # forward over reverse keeps the engine's stacks: the program runs compiled
    from revsrc.compose import _forward
    entry = _forward(inner).entry((0.3,), (0,))
    assert entry.engine is not None


# ----- Arrays: Jacobians, Hessians, Hessian-vector products -----

def mlp(W, x, b):
    h = np.tanh(x @ W + b)
    return np.mean(h * h) + 0.1 * np.sum(W * W)


def vector_fn(x, A):
    return np.sin(A @ x) * x[0] + np.cumsum(x) ** 2


rng = np.random.default_rng(7)
W0 = rng.standard_normal((3, 2)) * 0.5
X0 = rng.standard_normal((4, 3))
B0 = rng.standard_normal(2) * 0.1
A0 = rng.standard_normal((3, 3))
V0 = rng.standard_normal(3)


def test_jacfwd_and_jacrev_agree_with_finite_differences():
    jf = revsrc.jacfwd(vector_fn)(V0, A0)
    jr = revsrc.jacrev(vector_fn)(V0, A0)
    assert jf.shape == jr.shape == (3, 3)
    np.testing.assert_allclose(jf, jr, rtol=1e-12, atol=1e-12)
    numeric = np.stack([(vector_fn(V0 + 1e-6 * e, A0) - vector_fn(V0 - 1e-6 * e, A0)) / 2e-6
                        for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(jf, numeric, rtol=1e-6, atol=1e-8)
    assert revsrc.jacobian(vector_fn)(V0, A0).shape == (3, 3)


def test_jacobian_of_a_matrix_valued_function_has_both_shapes():
    def outer_sin(x):
        return np.outer(np.sin(x), x)
    j = revsrc.jacrev(outer_sin)(V0)
    assert j.shape == (3, 3, 3)
    np.testing.assert_allclose(j, revsrc.jacfwd(outer_sin)(V0), rtol=1e-12, atol=1e-14)


def test_vjp_with_any_cotangent():
    out, back = revsrc.vjp(vector_fn, V0, A0)
    np.testing.assert_array_equal(out, vector_fn(V0, A0))
    ct = rng.standard_normal(3)
    gx, gA = back(ct)
    jac = revsrc.jacfwd(vector_fn)(V0, A0)
    np.testing.assert_allclose(gx, ct @ jac, rtol=1e-12, atol=1e-12)
    assert gA.shape == A0.shape


def test_hessian_is_forward_over_reverse_and_symmetric():
    hess = revsrc.hessian(mlp, argnums=2)(W0, X0, B0)
    assert hess.shape == (2, 2)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-10, atol=1e-12)
    grad = revsrc.grad(mlp, argnums=2)
    numeric = np.stack([(grad(W0, X0, B0 + 1e-6 * e) - grad(W0, X0, B0 - 1e-6 * e)) / 2e-6
                        for e in np.eye(2)], axis=-1)
    np.testing.assert_allclose(hess, numeric, rtol=1e-6, atol=1e-8)
    hw = revsrc.hessian(mlp)(W0, X0, B0)
    assert hw.shape == (3, 2, 3, 2)


def _carried(x, w):
    s = 0.0
    for i in range(4):
        x = np.tanh(x * w[i]) + 0.3      # x has no tangent of its own, then w's
        s = s + x * (i + 1)
    return s


@pytest.mark.parametrize("backend", [None, "python"], ids=["auto", "python"])
def test_hessian_wrt_one_argument_of_a_loop_carrying_another(backend):
    """jvp of the gradient with respect to w: the loop makes the argument x depend on
    w, so x gets a zero tangent before the loop (it was read unassigned)."""
    w = np.array([0.5, 1.1, 0.8, 1.4])
    hess = revsrc.hessian(_carried, argnums=1, backend=backend)(0.4, w)
    grad = revsrc.grad(_carried, argnums=1)
    numeric = np.stack([(grad(0.4, w + 1e-6 * e) - grad(0.4, w - 1e-6 * e)) / 2e-6
                        for e in np.eye(4)], axis=-1)
    np.testing.assert_allclose(hess, numeric, rtol=1e-6, atol=1e-8)


def test_hvp_without_forming_the_hessian():
    v = rng.standard_normal(W0.shape)
    hv = revsrc.hvp(mlp, (W0, X0, B0), (v, None, None))
    full = revsrc.hessian(mlp)(W0, X0, B0).reshape(6, 6)
    np.testing.assert_allclose(hv.ravel(), full @ v.ravel(), rtol=1e-10, atol=1e-12)


def test_linearize():
    out, f_jvp = revsrc.linearize(mlp, W0, X0, B0)
    assert out == mlp(W0, X0, B0)
    v = rng.standard_normal(W0.shape)
    assert f_jvp(v, None, None) == pytest.approx(
        np.sum(revsrc.grad(mlp)(W0, X0, B0) * v), rel=1e-12)


# ----- Derivatives called inside differentiated functions -----

def energy(x, y):
    return math.sin(x * y) * x + y * y * x


d_energy = revsrc.grad(energy, argnums=(0, 1))


def gradient_penalty(x, y):
    gx, gy = d_energy(x, y)
    return energy(x, y) + 0.5 * (gx * gx + gy * gy)


def loss_arrays(W, x):
    return np.sum(np.tanh(x @ W) ** 2)


d_loss = revsrc.grad(loss_arrays)


def penalized(W, x):
    g = d_loss(W, x)
    return loss_arrays(W, x) + 0.1 * np.sum(g * g)


dg_scalar = revsrc.grad(poly3)


def newton_inside(x):
    z = x
    for i in range(3):
        if z > 0.0:
            z = z - poly3(z) / dg_scalar(z) * 0.1
        else:
            z = z + 0.01 * dg_scalar(z)
    return z * x


def feature(x, w):
    return w * dg_scalar(x) + x * x


@pytest.mark.parametrize("backend", [None, "python"], ids=["auto", "python"])
def test_derivatives_inside_differentiated_functions(backend):
    compare_grads(gradient_penalty, revsrc.grad(gradient_penalty, (0, 1), backend=backend),
                  (0.4, 0.7), argnums=(0, 1), rtol=1e-6)
    compare_grads(newton_inside, revsrc.grad(newton_inside, backend=backend), (0.8,),
                  rtol=1e-6)
    compare_grads(newton_inside, revsrc.grad(newton_inside, backend=backend), (-0.5,),
                  rtol=1e-6)
    compare_grads(feature, revsrc.grad(feature, (0, 1), backend=backend), (0.3, 1.5),
                  argnums=(0, 1))


def test_gradient_penalty_on_arrays():
    compare_grads(penalized, revsrc.grad(penalized), (W0, X0), rtol=1e-6)


def test_a_derivative_of_a_derivative_is_a_derivative_again():
    d2 = revsrc.grad(revsrc.grad(energy, 1), 0)    # d/dx d/dy
    d2b = revsrc.grad(revsrc.grad(energy, 0), 1)   # d/dy d/dx
    assert d2(0.4, 0.7) == pytest.approx(d2b(0.4, 0.7), rel=1e-12)
    v_and_g = revsrc.value_and_grad(revsrc.grad(energy))
    value, slope = v_and_g(0.4, 0.7)
    assert value == revsrc.grad(energy)(0.4, 0.7)
    assert slope == pytest.approx(_fd(lambda t: revsrc.grad(energy)(t, 0.7), 0.4), rel=1e-6)


def test_refusals_name_the_line():
    def uses_object(x, cfg):
        return dg_scalar(cfg) * x
    with pytest.raises(errors.HigherOrderNotSupported) as info:
        revsrc.grad(uses_object)(1.0, object())
    assert info.value.code == "E104" and "dg_scalar(cfg)" in info.value.line


def test_jvp_checks_its_arguments():
    with pytest.raises(ValueError, match="shape"):
        revsrc.jvp(mlp, (W0, X0, B0), (np.ones(3), None, None))
    with pytest.raises(TypeError):
        revsrc.jvp(mlp, W0, W0)


def uses_prod(x):
    return np.prod(x) * 2.0


def uses_norm(x):
    return np.linalg.norm(x) ** 3


d_prod = revsrc.grad(uses_prod)
d_norm = revsrc.grad(uses_norm)


def sum_d_prod(v):
    return np.sum(d_prod(v))


def sum_d_norm(v):
    return np.sum(d_norm(v))


def test_second_derivatives_not_written_yet_are_refused():
    x = np.array([0.5, 1.5, 2.0])
    with pytest.raises(errors.HigherOrderNotSupported) as info:
        revsrc.hessian(uses_prod)(x)
    assert info.value.code == "E104"
    for f in (sum_d_prod, sum_d_norm):
        with pytest.raises(errors.HigherOrderNotSupported) as info:
            revsrc.grad(f)(x)
        assert info.value.code == "E104"
    # forward over reverse has norm's second derivative
    hess = revsrc.hessian(uses_norm)(x)
    grad = revsrc.grad(uses_norm)
    numeric = np.stack([(grad(x + 1e-6 * e) - grad(x - 1e-6 * e)) / 2e-6 for e in np.eye(3)],
                       axis=-1)
    np.testing.assert_allclose(hess, numeric, rtol=1e-6)
