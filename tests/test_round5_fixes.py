"""The rules behind the fixes of the fifth corpus of user programs
(tests/user_programs5*.py): each family of wrong numbers it found is tested here on
programs of its own, beyond the corpus's cases, against central differences and JAX
where JAX has the same function, on every path that could get it wrong."""
import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads

X = np.array([1.7, -2.2, 0.4])


def _fd(f, x, eps=1e-6):
    """Central differences of a scalar ``f`` in the float array (or float) ``x``."""
    if not isinstance(x, np.ndarray):
        return (f(x + eps) - f(x - eps)) / (2 * eps)
    out = np.zeros(x.shape)
    for j in np.ndindex(x.shape):
        p, m = x.copy(), x.copy()
        p[j] += eps
        m[j] -= eps
        out[j] = (f(p) - f(m)) / (2 * eps)
    return out


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax, jax.numpy


# ----- 1. a cast to an integer or bool dtype has a zero derivative -----

INT_DT = np.int32


def cast_keyword(x):
    return np.sum(x.astype(dtype=int) * x)


def cast_string_dtype(x):
    return np.sum(x.astype("int32") * x)


def cast_global_dtype(x):
    return np.sum(x.astype(INT_DT) * x)


def cast_local_dtype(x):
    dt = np.uint16
    return np.sum(np.abs(x).astype(dt) * x)


def cast_round_then_int(x):
    return np.sum(np.round(x).astype(np.int64) * x)


def cast_array_positional_dtype(x):
    return np.sum(np.array(x * 2.0, np.int8) * x)


def cast_asarray_bool(x):
    return np.sum(np.asarray(x, dtype=bool) * x ** 2)


def cast_then_back_to_float(x):
    y = (x * 3.0).astype(np.int16).astype(np.float64)
    return np.sum(y * x) + np.sum(x * 3.0)


def cast_cumsum_int_dtype(x):
    return np.sum(np.cumsum(x, dtype=int) * x)


def cast_float32_keeps_derivative(x):
    return np.sum(x.astype(np.float32).astype(np.float64) * x)


CASTS = [cast_keyword, cast_string_dtype, cast_global_dtype, cast_local_dtype,
         cast_round_then_int, cast_array_positional_dtype, cast_asarray_bool,
         cast_then_back_to_float, cast_cumsum_int_dtype]


@pytest.mark.parametrize("f", CASTS, ids=[f.__name__ for f in CASTS])
def test_int_cast_zero_derivative_reverse_and_forward(f):
    expect = _fd(f, X)
    np.testing.assert_allclose(revsrc.grad(f)(X), expect, atol=1e-6)
    np.testing.assert_allclose(revsrc.jacfwd(f)(X), expect, atol=1e-6)
    _, tan = revsrc.jvp(f, (X,), (np.ones(3),))
    np.testing.assert_allclose(tan, np.sum(expect), atol=1e-6)
    check_grads(f, (X,))


def test_float32_cast_keeps_its_derivative():
    g = revsrc.grad(cast_float32_keeps_derivative)(X)
    np.testing.assert_allclose(g, 2 * X, rtol=1e-6)


@pytest.mark.parametrize("f", [cast_keyword, cast_asarray_bool, cast_then_back_to_float],
                         ids=lambda f: f.__name__)
def test_int_cast_zero_derivative_jax_backend(f):
    np.testing.assert_allclose(revsrc.grad(f, backend="jax")(X), _fd(f, X), atol=1e-6)


def test_int_cast_against_jax():
    jax, jnp = _jax()
    got = revsrc.grad(cast_then_back_to_float)(X)
    ref = jax.grad(lambda x: jnp.sum((x * 3.0).astype(jnp.int16).astype(jnp.float64) * x)
                   + jnp.sum(x * 3.0))(X)
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_int_cast_hessian():
    def f(x):
        return np.sum(x.astype(int) * x ** 3)
    np.testing.assert_allclose(revsrc.hessian(f)(X), np.diag(6 * X.astype(int) * X))
