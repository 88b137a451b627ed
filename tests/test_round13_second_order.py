"""Round 13: second derivatives through np.cross and through tuple(array) / list(array).

np.cross's adjoint was one helper returning both adjoints, with no derivative of its
own: a Hessian (forward over reverse) through it was refused (E104). Its two adjoints
are now helpers linear in g and in the other operand. The adjoint of ``tuple(p)`` had
no record either; it is linear in the items' adjoints."""
import numpy as np
import pytest

import revsrc

C = np.array([0.3, -1.0, 2.0])


def _fd_hessian(f, x, h=1e-5):
    g = revsrc.grad(f)
    cols = []
    for e in np.eye(x.size):
        e = e.reshape(x.shape)
        cols.append(((g(x + h * e) - g(x - h * e)) / (2 * h)).ravel())
    return np.array(cols).T


def cross_sq(u):
    return np.sum(np.cross(u, C) ** 2)


def cross_mixed(u):
    return np.sum(np.cross(C, u) ** 2) + np.sum(np.cross(u, u * u))


def triangle_area(P):
    a = P[1] - P[0]
    b = P[2] - P[0]
    return 0.5 * np.linalg.norm(np.cross(a, b))


def test_hessian_through_cross_has_the_closed_form():
    u = np.array([1.0, 0.5, -0.2])
    # |u x C|^2 = |u|^2 |C|^2 - (u.C)^2
    expected = 2.0 * (C @ C * np.eye(3) - np.outer(C, C))
    np.testing.assert_allclose(revsrc.hessian(cross_sq)(u), expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("f, x", [
    (cross_mixed, np.array([1.0, 0.5, -0.2])),
    (triangle_area, np.array([[0.0, 0.0, 0.0], [1.0, 0.2, 0.1], [0.3, 1.0, 0.4]])),
])
def test_hessian_through_cross_matches_central_differences(f, x):
    H = revsrc.hessian(f)(x).reshape(x.size, x.size)
    np.testing.assert_allclose(H, _fd_hessian(f, x), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-13)


def test_jacobians_of_cross_agree():
    u = np.array([1.0, 0.5, -0.2])
    f = lambda u: np.cross(u, C * u)          # noqa: E731
    np.testing.assert_allclose(revsrc.jacfwd(f)(u), revsrc.jacrev(f)(u), rtol=1e-14)


def unpack_tuple(p):
    a, b = tuple(p)
    return a * a * b


def unpack_list(p):
    a, b, c = list(p)
    return np.sin(a) * b + c * c * a


@pytest.mark.parametrize("f, p", [(unpack_tuple, np.array([1.0, 2.0])),
                                  (unpack_list, np.array([0.3, -1.2, 0.7]))])
def test_hessian_through_tuple_and_list_of_an_array(f, p):
    H = revsrc.hessian(f)(p)
    np.testing.assert_allclose(H, _fd_hessian(f, p), rtol=1e-6, atol=1e-7)
    if f is unpack_tuple:
        a, b = p
        np.testing.assert_allclose(H, [[2 * b, 2 * a], [2 * a, 0.0]], rtol=1e-15)


S3 = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]])


def spectrum(s):
    w = np.linalg.eigvalsh(s.reshape(3, 3))
    wu = np.linalg.eigvalsh(s.reshape(3, 3), UPLO="U")
    return w[-1] + 0.3 * np.sum(wu ** 2)


def spectra(s):
    return np.sum(np.linalg.eigvalsh(s) ** 3)


def test_eigvalsh_has_a_gradient():
    # it had no rule (E202); the value is NumPy's own eigvalsh
    x = S3.ravel() + 0.01 * np.arange(9.0)     # not symmetric: one triangle is read
    value, g = revsrc.value_and_grad(spectrum)(x)
    assert value == spectrum(x)
    h = 1e-6
    fd = [(spectrum(x + h * e) - spectrum(x - h * e)) / (2 * h) for e in np.eye(9)]
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-8)


def test_eigvalsh_of_a_stack():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 3))
    a = a + np.swapaxes(a, 1, 2)
    g = revsrc.grad(spectra)(a)
    d = rng.standard_normal(a.shape)
    h = 1e-6
    fd = (spectra(a + h * d) - spectra(a - h * d)) / (2 * h)
    np.testing.assert_allclose(np.sum(g * d), fd, rtol=1e-6)


def test_eigvalsh_under_jax_matches():
    pytest.importorskip("jax")
    x = S3.ravel()
    np.testing.assert_allclose(revsrc.grad(spectrum, backend="jax")(x),
                               revsrc.grad(spectrum)(x), rtol=1e-12, atol=1e-13)
