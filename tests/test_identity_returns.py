"""NumPy calls that return their operand itself, not a copy, in some cases: a write
through the result reaches the operand, and the derivative must follow it (issue 22's
rule: a function is taken for a copy only where it always copies). ``a.conj()`` of an
array that is not complex is ``a``; ``np.linalg.matrix_power(a, 1)`` and
``np.diff(a, n=0)`` are ``a``. Also ``np.tril``/``np.triu`` of a 1-D array (a square
result, each row the vector): their adjoints sum the rows.
Each is checked against central differences and the plain call's value."""
import numpy as np
import pytest

import revsrc


def _fd(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = h
        out.flat[i] = (f(x + d) - f(x - d)) / (2 * h)
    return out


def conj_of_real(x):
    a = x * 1.0
    b = a.conj()
    b[1, 1] = 2.0
    return np.sum(a * x)


def conjugate_of_real(x):
    a = x * 1.0
    b = a.conjugate()
    b[0] *= 3.0
    return np.sum(a * x) + np.sum(b)


def conj_of_complex(x):
    z = x * (1.0 + 2.0j)
    w = z.conj()
    w[0, 0] = 0.0      # a copy: z keeps its value
    return np.sum(np.abs(z) ** 2) + np.sum(np.abs(w) ** 2)


def matrix_power_one(x):
    a = x * 1.0
    b = np.linalg.matrix_power(a, 1)
    b[0, 0] = 5.0
    return np.sum(a * x)


def matrix_power_two(x):
    a = x * 1.0
    b = np.linalg.matrix_power(a, 2)
    b[0, 0] = 5.0
    return np.sum(a * x) + np.sum(b)


def diff_zero(x):
    a = x * 1.0
    b = np.diff(a, n=0)
    b[0, 1] = 2.0
    return np.sum(a * x) + np.sum(b)


W = np.arange(16.0).reshape(4, 4)


def tril_of_vector(v):
    return np.sum(np.tril(v) * W)


def triu_of_vector(v):
    return np.sum(np.triu(v, 1) * W * v)


def tril_of_outer(v):
    return np.sum(np.tril(np.outer(v, v), -1) * W)


X = np.array([[0.3, -1.2], [0.7, 2.0]])
V = np.array([0.3, -1.2, 0.7, 2.0])


@pytest.mark.parametrize("f", [conj_of_real, conjugate_of_real, conj_of_complex,
                               matrix_power_one, matrix_power_two, diff_zero])
def test_writes_through_identity_results(f):
    value, grad = revsrc.value_and_grad(f)(X.copy())
    assert value == f(X.copy())
    np.testing.assert_allclose(grad, _fd(f, X), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f", [tril_of_vector, triu_of_vector, tril_of_outer])
def test_triangles_of_a_vector(f):
    np.testing.assert_allclose(revsrc.grad(f)(V), _fd(f, V), rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(revsrc.jacfwd(f)(V), _fd(f, V), rtol=1e-7, atol=1e-7)
    hess = np.array([_fd(lambda u, i=i: revsrc.grad(f)(u)[i], V) for i in range(V.size)])
    np.testing.assert_allclose(revsrc.hessian(f)(V), hess, rtol=1e-5, atol=1e-5)
