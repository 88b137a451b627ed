"""Special methods that change their object, called by name (``y.__setitem__(0, v)``,
``y.__iadd__(x)``), are refused with E401 at the user's line: the call was taken for a
pure one and the write it made was not followed (a wrong gradient, found in review).
The statements they stand for are followed."""
import numpy as np
import pytest

import revsrc
from revsrc import errors

X = np.array([0.5, -1.2, 2.0])


def setitem_in_lambda(x):
    y = (lambda y: (y.__setitem__(0, y[1] * y[2]), y)[1])(x.copy())
    return np.sum(y * x)


def setitem_kept(x):
    y = x.copy()
    r = y.__setitem__(0, y[1] * y[2])
    return np.sum(y * x) + (0.0 if r is None else 1.0)


def iadd_kept(x):
    y = x * 1.0
    z = y.__iadd__(x)
    return np.sum(z * x)


def imul_kept(x):
    y = x * 1.0
    z = y.__imul__(2.0)
    return np.sum(z * x)


@pytest.mark.parametrize("f", [setitem_in_lambda, setitem_kept, iadd_kept, imul_kept])
def test_refused_at_the_line(f):
    with pytest.raises(errors.SideEffect) as info:
        revsrc.grad(f)(X)
    assert info.value.code == "E401"
    assert "__" in str(info.value) and "test_dunder_methods.py" in str(info.value)


def statements(x):
    y = x.copy()
    y[0] = y[1] * y[2]
    z = x * 1.0
    z += x
    return np.sum(y * x) + np.sum(z * x)


def test_the_statements_they_stand_for_are_followed():
    g = revsrc.grad(statements)(X)
    h = 1e-6
    fd = np.array([(statements(X + h * e) - statements(X - h * e)) / (2 * h)
                   for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9)
