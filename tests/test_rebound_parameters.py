"""A parameter rebound to a new array can be written into (``u = u.copy(); u[0] = ...``).

The lowering used to refuse every write into a name that is a parameter, though the
hint it gave was the rewrite the user had already made. A parameter assigned anew
in the function is now followed by revsrc/passes/views.py, which tells the new
array from the caller's and still refuses a write that reaches the caller's.
"""
import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads

X = np.array([0.4, -1.3, 0.8, 2.1])


def copy_then_write(u):
    u = u.copy()
    u[0] = u[1] * 2.0
    return np.sum(u ** 2 * np.sin(u))


def product_then_slice(x):
    x = x * 1.5
    x[1:3] = x[0] * x[3]
    return np.sum(np.tanh(x) * x)


def heat(u):
    u = np.array(u)
    for _ in range(3):
        u[1:-1] = u[1:-1] + 0.3 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2)


@pytest.mark.parametrize("f", [copy_then_write, product_then_slice, heat])
@pytest.mark.parametrize("backend", ["python", None])
def test_writes_into_a_rebound_parameter_are_differentiated(f, backend):
    x = X.copy()
    check_grads(f, (x,))
    g = revsrc.grad(f, backend=backend)(x)
    np.testing.assert_array_equal(x, X)   # the caller's array is untouched
    np.testing.assert_array_equal(g, revsrc.grad(f, backend="python")(X))


def direct(x):
    x[0] = 1.0
    return np.sum(x ** 2)


def maybe_rebound(x, c):
    if c > 0:
        x = x * 1.0
    x[0] = 1.0
    return np.sum(x ** 2)


def alias_then_rebound(x):
    y = x
    x = x * 2.0
    y[0] = 5.0
    return np.sum(x ** 2)


def rebound_to_a_view(x):
    x = x[1:]
    x[0] = 5.0
    return np.sum(x ** 2)


@pytest.mark.parametrize("f,args,words", [
    (direct, (), "assigning into x[...] would change an array the caller owns"),
    (maybe_rebound, (1.0,), "this writes into x, which the caller owns"),
    (maybe_rebound, (-1.0,), "this writes into x, which the caller owns"),
    (alias_then_rebound, (), "this writes into x, which the caller owns (through y)"),
    (rebound_to_a_view, (), "this writes into x, which the caller owns (through a view of it)"),
])
def test_writes_that_reach_the_callers_array_are_still_refused(f, args, words):
    x = X.copy()
    with pytest.raises(errors.MutatesArgument, match="E403") as info:
        revsrc.grad(f)(x, *args)
    assert words in str(info.value)
    assert "@" not in str(info.value).splitlines()[0]    # no internal version names
    np.testing.assert_array_equal(x, X)
