"""What the refusals of composed transformations say (issue 23): each names what is
not supported, with its code, at the user's line.

- revsrc.jit compiles scalar programs by design: an array descent loop feeding a
  derivative's outputs back in is E502, saying so;
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors


def _loss(x, a):
    return np.sum((x - a) ** 2) + np.sum(np.sin(x))


_vg = revsrc.value_and_grad(_loss)


def descend(x, a):
    for _ in range(5):
        v, g = _vg(x, a)
        x = x - 0.1 * g
    return x


X = np.array([0.5, -0.2, 1.0])
A = np.array([1.0, 0.0, -1.0])


def test_jit_of_an_array_descent_loop_says_it_compiles_scalars_by_design():
    with pytest.raises(errors.NotCompilable) as info:
        revsrc.jit(descend)(X, A)
    exc = info.value
    assert exc.code == "E502"
    assert "by design" in str(exc) and "argument 0 (x) is a ndarray" in str(exc)
    assert exc.lineno == descend.__code__.co_firstlineno
    assert "call descend itself" in exc.hint
    assert "revsrc/" not in str(exc).split("\n")[0]
    # the loop itself runs, and its derivative too
    want = X.copy()
    for _ in range(5):
        want = want - 0.1 * (2 * (want - A) + np.cos(want))
    np.testing.assert_allclose(descend(X, A), want, rtol=1e-15)


def test_the_scalar_descent_loop_still_compiles():
    def loss(x, a):
        return (x - a) ** 2 + math.sin(x)
    vg = revsrc.value_and_grad(loss)

    def scalar_descend(x, a):
        for _ in range(5):
            v, g = vg(x, a)
            x = x - 0.1 * g
        return x
    assert revsrc.jit(scalar_descend)(0.5, 1.0) == scalar_descend(0.5, 1.0)
