"""Callables the frontend used to refuse (issue 22, task calls22): derivatives made
inside the differentiated function, ``super()`` in a bound method, builtins over zipped
or keyed data, ``functools.partial`` objects made in the function, and jit/vmap of
the callables grad accepts. Each is checked against central differences, a closed
form or JAX; what stays refused is checked for its code and the user's line."""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads


def _jax():
    return pytest.importorskip("jax")


# ----- 1. a derivative made inside the differentiated function -----

def sq(y):
    return y * y


def cube(y):
    return y * y * y


def newton_sqrt(x):
    y = x
    dsq = revsrc.grad(sq)
    for _ in range(30):
        y = y - (sq(y) - x) / dsq(y)
    return y


def inner_called_directly(x):
    return revsrc.grad(cube)(x) * math.sin(x)


def inner_value_and_grad(x, a):
    vg = revsrc.value_and_grad(lambda u, v: u * v * v, argnums=1)
    v, g = vg(a, x)
    return v + g * x


def inner_in_loop(x):
    s = 0.0
    for k in range(3):
        s = s + revsrc.grad(sq)(x * k)
    return s * x


def smooth(x):
    return np.sum(np.sin(x) * np.exp(0.3 * x))


def penalty(x):
    g = revsrc.grad(smooth)(x)
    return np.sum(g ** 2)


def test_grad_of_function_making_a_derivative():
    assert newton_sqrt(7.0) == pytest.approx(math.sqrt(7.0), rel=1e-14)
    assert revsrc.grad(newton_sqrt)(7.0) == pytest.approx(0.5 / math.sqrt(7.0), rel=1e-9)
    check_grads(inner_called_directly, (0.7,))
    check_grads(inner_value_and_grad, (0.7, 1.3), argnums=(0, 1))
    check_grads(inner_in_loop, (0.4,))


def test_jit_of_function_making_a_derivative():
    assert revsrc.jit(newton_sqrt)(7.0) == newton_sqrt(7.0)
    assert revsrc.jit(inner_called_directly)(0.7) == pytest.approx(
        inner_called_directly(0.7), rel=1e-15)


def test_made_inside_behaves_as_made_outside():
    D = revsrc.grad(cube)

    def outside(x):
        return D(x) * math.sin(x)
    for x in (0.3, -1.2):
        assert revsrc.grad(inner_called_directly)(x) == revsrc.grad(outside)(x)


def test_gradient_penalty_against_jax():
    jax = _jax()
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = np.array([0.3, -0.7, 1.1, 0.2])
    ref = jax.grad(lambda v: jnp.sum(jax.grad(
        lambda u: jnp.sum(jnp.sin(u) * jnp.exp(0.3 * u)))(v) ** 2))(x)
    np.testing.assert_allclose(revsrc.grad(penalty)(x), ref, rtol=1e-12, atol=1e-14)


HELPER = sq


def uses_global_helper(x):
    return revsrc.grad(HELPER)(x) * x


def test_rebinding_the_function_made_into_a_derivative_is_seen():
    global HELPER
    dg = revsrc.grad(uses_global_helper)
    try:
        assert dg(1.5) == pytest.approx(4 * 1.5)        # d/dx (2x * x)
        HELPER = cube
        assert dg(1.5) == pytest.approx(9 * 1.5 ** 2)   # d/dx (3x^2 * x)
    finally:
        HELPER = sq


def bad_argnums_inside(x):
    return revsrc.grad(sq, argnums=3)(x)


def test_refusal_of_the_inner_derivative_is_coded_and_located():
    # as for a derivative made at module level: E303 names the function it was made of
    with pytest.raises(errors.RevsrcError) as e:
        revsrc.grad(bad_argnums_inside)(1.0)
    assert e.value.code == "E303"
    assert e.value.filename == __file__ and e.value.line is not None
    assert "revsrc/" not in e.value.message


def hessian_inside(x):
    H = revsrc.hessian(lambda v: np.sum(v ** 3))
    return np.trace(H(x))


def test_hessian_made_inside_refused_as_made_outside():
    with pytest.raises(errors.RevsrcError) as e:
        revsrc.grad(hessian_inside)(np.array([1.0, 2.0]))
    assert e.value.code == "E104"
    assert "H(x)" in e.value.line
