"""Second derivatives of np.linalg.norm for every ord, axis and keepdims: forward over
reverse differentiates norm's gradient helper, whose tangent rule once held only for
the 2-norm (every other ord gave a wrong, even unsymmetric, Hessian). Each Hessian is
checked against central differences of revsrc.grad and, for a sample, jax.hessian."""
import warnings

import numpy as np
import pytest

import revsrc
from revsrc import errors

rng = np.random.default_rng(7)
VEC = rng.standard_normal(4)
MAT = rng.standard_normal((3, 4))
TEN = rng.standard_normal((2, 3, 4))

VECTOR_ORDS = [None, 2, 1, 3, 1.5, 0.5, -1, 0, np.inf, -np.inf]
MATRIX_ORDS = [None, "fro", 1, -1, 2, -2, np.inf, -np.inf, "nuc"]
COMBOS = ([("vec", VEC, o, None) for o in VECTOR_ORDS]
          + [("ten-axis1", TEN, o, 1) for o in VECTOR_ORDS]
          + [("mat-axis-1", MAT, o, -1) for o in VECTOR_ORDS]
          + [("mat", MAT, o, None) for o in MATRIX_ORDS]
          + [("ten-axes02", TEN, o, (0, 2)) for o in MATRIX_ORDS]
          + [("matT-axes10", MAT.T, o, (1, 0)) for o in MATRIX_ORDS])


def _weighted(ord, axis, keepdims, x):
    w = rng.standard_normal(np.shape(np.linalg.norm(x, ord=ord, axis=axis,
                                                    keepdims=keepdims)))

    def f(z):
        return np.sum(w * np.linalg.norm(z, ord=ord, axis=axis, keepdims=keepdims))
    return f


def _fd_hessian(f, x, h=1e-5):
    g = revsrc.grad(f)
    out = np.zeros(x.shape + x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        out[(Ellipsis,) + i] = (g(x + e) - g(x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name,x,ord,axis", COMBOS,
                         ids=[f"{n}-{o}" for n, _, o, _ in COMBOS])
def test_norm_hessian_matches_central_differences(name, x, ord, axis, keepdims):
    f = _weighted(ord, axis, keepdims, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hess = revsrc.hessian(f)(x)
        numeric = _fd_hessian(f, x)
    np.testing.assert_allclose(hess, numeric, atol=1e-5, rtol=1e-4)


def l1_vector(x):
    return np.linalg.norm(x, ord=1)


def nuclear(a):
    return np.linalg.norm(a, ord="nuc")


def loss_with_l1(x):
    return np.sum(np.sin(x) * x) + 0.3 * np.linalg.norm(x, ord=1)


def test_l1_has_zero_curvature_and_hvp_ignores_it():
    x = np.array([0.5, -1.2, 0.3])
    np.testing.assert_array_equal(revsrc.hessian(l1_vector)(x), np.zeros((3, 3)))
    v = np.array([1.0, -2.0, 0.5])
    _, hv = revsrc.jvp(revsrc.grad(loss_with_l1), (x,), (v,))
    want = (2 * np.cos(x) - x * np.sin(x)) * v
    np.testing.assert_allclose(hv, want, rtol=1e-12)


def test_nuclear_norm_hessian_is_symmetric_and_has_tied_singular_values():
    a = np.diag([2.0, 2.0, 1.0])   # a tie: U V^T stays differentiable
    hess = revsrc.hessian(nuclear)(a).reshape(9, 9)
    np.testing.assert_allclose(hess, hess.T, atol=1e-12)
    np.testing.assert_allclose(hess, _fd_hessian(nuclear, a).reshape(9, 9), atol=1e-6)


def cubic_norm(z):
    return np.linalg.norm(z, ord=3)


def test_complex_second_derivative_of_a_p_norm_is_refused():
    z = np.array([1.0 + 2.0j, -0.5 + 0.1j])
    with pytest.raises(errors.HigherOrderNotSupported) as info:
        revsrc.hessian(cubic_norm)(z)
    assert info.value.code == "E104"
    assert "np.linalg.norm" in str(info.value)


@pytest.mark.parametrize("ord,axis,shape", [
    (1, None, (4,)), (3, None, (4,)), ("nuc", None, (3, 4)), (2, None, (3, 4)),
    (-2, None, (4, 3)), (1, 1, (3, 4)), (None, None, (3, 4))])
def test_norm_hessian_on_jax_matches_jax_hessian(ord, axis, shape):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = rng.standard_normal(shape)

    def f(z):
        return np.sum(np.linalg.norm(z, ord=ord, axis=axis))
    mine = revsrc.hessian(f, backend="jax")(x)
    want = jax.hessian(lambda z: jnp.sum(jnp.linalg.norm(z, ord=ord, axis=axis)))(x)
    np.testing.assert_allclose(np.asarray(mine), np.asarray(want), atol=1e-10)


def two_norms(z):
    return np.linalg.norm(z.reshape(2, 2), axis=1)[0] + np.linalg.norm(z)


@pytest.mark.parametrize("fn", [two_norms, np.linalg.norm], ids=["axis", "flat"])
def test_complex_2_norm_second_derivative_along_a_complex_direction(fn):
    z = np.array([1 + 2j, -0.5 + 0.1j, 0.3 - 0.7j, 0.2 + 0.2j])
    t = np.array([0.3 - 1j, 0.2 + 0.5j, -1j, 0.4])

    def f(v):
        return fn(v)
    dg = revsrc.grad(f)
    _, got = revsrc.jvp(dg, (z,), (t,))
    h = 1e-6
    np.testing.assert_allclose(got, (dg(z + h * t) - dg(z - h * t)) / (2 * h), atol=1e-8)
