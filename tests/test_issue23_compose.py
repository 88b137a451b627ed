"""Issue 23's last compositions, each by itself: reverse over reverse of an array
program, derivatives of a ``revsrc.jit`` taking arrays, Hessians with respect to
containers, recursion on a run-time int, and the refusals' wording.

Each is checked against central differences (revsrc.testing) or, where JAX is
installed, against JAX with x64.
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc import testing

X = np.array([0.4, -0.7, 1.1])


def array_f(x):
    return np.sum(np.sin(x) * x * x) + x[0] * x[1] - np.tanh(x[2]) * x[1]


def _hessian_fd(f, x, h=1e-4):
    """Central differences of central differences: f's Hessian at the array x."""
    n = x.size
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            out[i, j] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej)
                         + f(x - ei - ej)) / (4 * h * h)
    return out


# ----- Reverse over reverse on arrays: the printed program kept two variables apart
# that renumbering temporaries had given one name (`_t12_bar`) -----

def test_vjp_and_jacrev_of_grad_of_an_array_program():
    want = _hessian_fd(array_f, X)
    got = revsrc.jacrev(revsrc.grad(array_f))(X)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    _, back = revsrc.vjp(revsrc.grad(array_f), X)
    np.testing.assert_allclose(back(np.ones(3))[0], want.sum(axis=0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got, revsrc.hessian(array_f)(X), rtol=1e-12, atol=1e-12)


# ----- Derivatives of a revsrc.jit of a function of arrays: the jit compiles scalar
# functions (it refuses arrays itself), its derivatives read the function -----

@pytest.mark.parametrize("make", [
    lambda f: revsrc.vjp(f, X)[1](1.0)[0],
    lambda f: revsrc.jacrev(f)(X),
    lambda f: revsrc.jacfwd(f)(X),
    lambda f: revsrc.jvp(f, (X,), (np.ones(3),))[1],
    lambda f: revsrc.linearize(f, X)[1](np.ones(3)),
    lambda f: revsrc.grad(f)(X),
])
def test_derivatives_of_a_jit_taking_arrays_are_those_of_the_function(make):
    np.testing.assert_array_equal(make(revsrc.jit(array_f)), make(array_f))
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jit(array_f)(X)
    assert info.value.code == "E502"
