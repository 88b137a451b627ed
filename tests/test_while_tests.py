"""A call in a ``while`` condition is treated as the same call in the loop's body.

A while loop's condition is computed by statements of its own (``While.test_body``).
Every rewrite used to skip them, so a revsrc derivative or a user's function with its
own rule (``revsrc.defvjp``) called there stayed a call the compiled engine cannot
make: refused (E501, E502) where the Python path ran. Each program here is checked on
the engine and under ``revsrc.jit`` against the Python path and central differences,
beside the same call made in the loop's body.
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc import primitives


def _fd(g, x, h=1e-5):
    """Richardson-extrapolated central difference of the scalar function ``g`` at x."""
    d1 = (g(x + h) - g(x - h)) / (2 * h)
    d2 = (g(x + h / 2) - g(x - h / 2)) / h
    return (4 * d2 - d1) / 3


def h(x):
    return math.sin(x) * x


dh = revsrc.grad(h)


def derivative_in_test(x):
    n = 0.0
    while dh(n) < x:
        n = n + 1.0
    return n * x


def derivative_in_body(x):
    n = 0.0
    y = x
    while n < 3.0:
        y = y + x * dh(n)
        n = n + 1.0
    return y * x


def newton(x):
    n = 0
    while dh(x) > 0.1 and n < 50:
        x, n = x - 0.1, n + 1
    return x


def newton_in_body(x):
    n = 0
    go = True
    while go:
        x, n = x - 0.1, n + 1
        go = dh(x) > 0.1 and n < 50
    return x


def _same_everywhere(f, x):
    """grad of ``f`` at ``x``: the engine, the Python path and central differences agree."""
    on_engine = revsrc.grad(f, backend="engine")(x)
    in_python = revsrc.grad(f, backend="python")(x)
    assert on_engine == in_python
    assert on_engine == pytest.approx(_fd(f, x), rel=1e-6, abs=1e-8)
    return on_engine


@pytest.mark.parametrize("x", [3.0, 0.5, 4.2])
def test_derivative_called_in_a_while_test(x):
    _same_everywhere(derivative_in_test, x)
    assert revsrc.grad(derivative_in_test, backend="engine")(3.0) == 6.0


@pytest.mark.parametrize("x", [0.3, 1.1])
def test_derivative_called_in_a_while_body(x):
    _same_everywhere(derivative_in_body, x)


@pytest.mark.parametrize("f", [newton, newton_in_body], ids=["in_test", "in_body"])
@pytest.mark.parametrize("x", [1.0, 7.25, 2.5])
def test_jit_of_a_loop_calling_a_derivative(f, x):
    assert revsrc.jit(f)(x) == f(x)
    _same_everywhere(f, x)


@pytest.mark.parametrize("f", [derivative_in_test, newton], ids=["grad", "newton"])
def test_vmap_of_a_loop_calling_a_derivative_in_its_test(f):
    xs = np.array([0.5, 1.0, 3.0, 7.25])
    assert revsrc.vmap(f)(xs).tolist() == [f(x) for x in xs]


# ----- A user's function with a rule of its own -----

def softplus(x):
    return math.log1p(math.exp(x))


def softplus_rule(g, ans, x):
    return g / (1.0 + math.exp(-x))


def user_in_test(x):
    n = 0.0
    while softplus(n * x) < 4.0:
        n = n + 1.0
    return n * softplus(x)


def user_in_body(x):
    n = 0.0
    y = 0.0
    while n < 3.0:
        y = y + softplus(x * n)
        n = n + 1.0
    return y


@pytest.fixture
def registered():
    saved = primitives.snapshot()
    revsrc.defvjp(softplus, softplus_rule)
    yield
    primitives.restore(saved)


@pytest.mark.parametrize("f", [user_in_test, user_in_body], ids=["in_test", "in_body"])
@pytest.mark.parametrize("x", [1.3, 0.4])
def test_users_rule_called_in_a_while_loop_on_the_engine(registered, f, x):
    _same_everywhere(f, x)


def h_loop(x):
    y = x
    for i in range(3):
        y = math.sin(y) * x
    return y


dh_loop = revsrc.grad(h_loop)      # its program saves values on stacks


def stacks_in_test(x):
    n = 0.0
    y = x
    while dh_loop(n * 0.25) < 0.4 and n < 20.0:
        y = y * x + math.sin(y)
        n = n + 1.0
    return y


def stacks_in_body(x):
    n = 0.0
    y = x
    while n < 3.0:
        y = y * x + dh_loop(n * 0.25)
        n = n + 1.0
    return y


@pytest.mark.parametrize("f", [stacks_in_test, stacks_in_body], ids=["in_test", "in_body"])
@pytest.mark.parametrize("x", [0.7, 1.2])
def test_derivative_with_stacks_called_in_a_while_loop(f, x):
    # its saves and restores run inside the loop, on stacks of their own, apart from
    # the ones the outer derivative saves the loop's values on (the engine has no
    # such stacks: backend=None runs it in Python, wherever the call is)
    df = revsrc.grad(f)
    assert df(x) == revsrc.grad(f, backend="python")(x)
    assert df(x) == pytest.approx(_fd(f, x), rel=1e-6)
    assert revsrc.jit(f)(x) == f(x)
