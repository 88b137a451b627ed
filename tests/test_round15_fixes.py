"""Round 15's findings (tests/user_programs15_*.py), fixed as rules:

- revsrc.vmap of a backend="jax" derivative with JAX's 64-bit mode off: jax.vmap traced
  the derivative in 32 bits, then it ran on float64 (JaxRuntimeError); traced with
  64-bit floats now, as the derivative itself runs;
- jacrev and hessian take holomorphic=True (TypeError before), as grad does and JAX's
  do; real arguments there are refused (E301);
- a cotangent or tangent of another shape, and vmap axes that do not fit, are refused
  with a code (E306, also a ValueError) rather than an internal ValueError."""
import numpy as np
import pytest

import revsrc

ZH = np.array([0.3 + 0.1j, -0.5 + 0.8j])


def holo_vec(z):
    return np.array([z[0] * z[1], np.exp(z[0]) + z[1] ** 2])


def holo_sum(z):
    return np.sum(z ** 3)


def sin_sq(x):
    return np.sum(np.sin(x) ** 2)


def test_vmap_of_a_jax_derivative_with_x64_off():
    jax = pytest.importorskip("jax")
    X = np.arange(6.0).reshape(3, 2) / 5
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", False)
    try:
        got = revsrc.vmap(revsrc.grad(sin_sq, backend="jax"))(X)
        vg = revsrc.vmap(revsrc.value_and_grad(sin_sq, backend="jax"))(X)
    finally:
        jax.config.update("jax_enable_x64", before)
    np.testing.assert_allclose(np.asarray(got), np.sin(2 * X), rtol=1e-14)
    assert np.asarray(got).dtype == np.float64
    np.testing.assert_allclose(np.asarray(vg[0]), [sin_sq(x) for x in X], rtol=1e-14)
    np.testing.assert_allclose(np.asarray(vg[1]), np.sin(2 * X), rtol=1e-14)


def test_jacrev_holomorphic_is_the_complex_jacobian():
    want = np.array([[ZH[1], ZH[0]], [np.exp(ZH[0]), 2 * ZH[1]]])
    np.testing.assert_allclose(revsrc.jacrev(holo_vec, holomorphic=True)(ZH), want,
                               rtol=1e-14)
    np.testing.assert_allclose(revsrc.jacfwd(holo_vec, holomorphic=True)(ZH), want,
                               rtol=1e-14)


def test_hessian_holomorphic_is_the_complex_second_derivative():
    H = revsrc.hessian(holo_sum, holomorphic=True)(ZH)
    np.testing.assert_allclose(H, np.diag(6 * ZH), rtol=1e-14, atol=1e-15)
    # along a complex direction: the complex derivative of the holomorphic gradient
    g = revsrc.grad(holo_sum, holomorphic=True)
    v = np.array([0.4 - 0.2j, 1.0 + 0.5j])
    h = 1e-6
    np.testing.assert_allclose(H @ v, (g(ZH + h * v) - g(ZH - h * v)) / (2 * h), rtol=1e-8)


@pytest.mark.parametrize("make", [
    lambda: revsrc.hessian(holo_sum, holomorphic=True),
    lambda: revsrc.jacrev(holo_vec, holomorphic=True),
    lambda: revsrc.jacfwd(holo_vec, holomorphic=True),
])
def test_holomorphic_refuses_real_arguments(make):
    with pytest.raises(revsrc.RevsrcError) as info:
        make()(ZH.real)
    assert info.value.code == "E301" and "complex" in info.value.message


def test_a_cotangent_of_another_shape_is_refused():
    out, back = revsrc.vjp(lambda x: x * 2.0, np.ones(3))
    np.testing.assert_array_equal(back(np.full(3, 0.5))[0], np.ones(3))
    for ct in (np.ones(4), 1.0, (np.ones(3),)):
        with pytest.raises(revsrc.RevsrcError) as info:
            back(ct)
        assert info.value.code == "E306" and isinstance(info.value, ValueError)
    out, back = revsrc.vjp(lambda x: (x * 2.0, np.sum(x)), np.ones(3))
    np.testing.assert_array_equal(back((np.ones(3), 1.0))[0], np.full(3, 3.0))
    with pytest.raises(revsrc.RevsrcError, match=r"shape \(2,\), the output \(\)"):
        back((np.ones(3), np.ones(2)))


def test_a_tangent_of_another_shape_is_refused():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jvp(lambda x: np.sum(x * x), (np.ones(3),), (np.ones(2),))
    assert info.value.code == "E306" and isinstance(info.value, ValueError)


@pytest.mark.parametrize("call", [
    lambda: revsrc.vmap(lambda x: x * 2.0, in_axes=None)(1.0),
    lambda: revsrc.vmap(lambda a, b: a * b)(np.ones(3), np.ones(4)),
    lambda: revsrc.vmap(lambda a, b: np.sum(a * b))(np.ones((3, 2)), np.ones((4, 2))),
    lambda: revsrc.vmap(lambda a: np.sum(a), in_axes=2)(np.ones((3, 2))),
    lambda: revsrc.vmap(lambda a, b: np.sum(a * b), in_axes=(0,))(np.ones((3, 2)),
                                                                  np.ones((3, 2))),
])
def test_vmap_axes_that_do_not_fit_are_refused(call):
    with pytest.raises(revsrc.RevsrcError) as info:
        call()
    assert info.value.code == "E306" and isinstance(info.value, ValueError)
