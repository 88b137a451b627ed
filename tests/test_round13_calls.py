"""Round 13: calls that were refused (E101) or cut short (E103) though Python runs them:

- a loop over a global tuple of functions (``for f in FT``, ``sum(f(x) for f in FT)``):
  each function is taken as fixed, as ``FT[i](x)``'s already was, and a rebound FT
  makes the program anew;
- an object called where it is made (``Layer(0.7)(x)``) and the pullback of
  ``revsrc.vjp`` called straight out of its result (``revsrc.vjp(f, q)[1](ct)``);
- a recursion on an int whose base case is a conditional expression
  (``x if n == 0 else ...``): decided while transforming, as an ``if`` statement is."""
import math

import numpy as np
import pytest

import revsrc


def _mk(k):
    return lambda x: k * x ** k


FT = (_mk(1), _mk(2), _mk(3))


def by_index(x):
    t = 0.0
    for i in range(3):
        t = t + FT[i](x)
    return t


def by_generator(x):
    return sum(f(x) for f in FT)


def by_loop(x):
    t = 0.0
    for f in FT:
        t = t + f(x)
    return t


def by_enumerate(x):
    t = 0.0
    for i, f in enumerate(FT):
        t = t + (i + 1.0) * f(x)
    return t


@pytest.mark.parametrize("f", [by_index, by_generator, by_loop, by_enumerate])
def test_loops_over_a_global_tuple_of_functions(f):
    x = 0.5
    h = 1e-6
    assert revsrc.grad(f)(x) == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-8)
    v, _ = revsrc.value_and_grad(f)(x)
    assert v == f(x)


def test_a_rebound_global_tuple_of_functions_makes_the_program_anew():
    global FT
    saved = FT
    g = revsrc.grad(by_loop)
    try:
        assert g(0.5) == pytest.approx(1 + 2 * 2 * 0.5 + 3 * 3 * 0.25, rel=1e-14)
        FT = (_mk(2),)
        assert g(0.5) == pytest.approx(2 * 2 * 0.5, rel=1e-14)
    finally:
        FT = saved


class Layer:
    def __init__(self, s):
        self.s = s

    def __call__(self, x):
        return self.s * x * x


def made_and_called(x):
    return Layer(0.7)(x) + Layer(x)(2.0)


def chain(q):
    a = np.cumsum(q)
    return np.array([np.sum(np.cos(a)), np.sum(np.sin(a))])


def pullback_called_at_once(q):
    return revsrc.vjp(chain, q)[1](np.array([1.0, 2.0]))[0][1]


def pullback_named(q):
    _, back = revsrc.vjp(chain, q)
    return back(np.array([1.0, 2.0]))[0][1]


def test_an_object_called_where_it_is_made():
    x = 0.5
    assert revsrc.grad(made_and_called)(x) == pytest.approx(2 * 0.7 * x + 4.0, rel=1e-14)


def test_a_pullback_called_straight_out_of_vjp():
    q = np.array([0.2, -0.4, 0.7])
    got = revsrc.grad(pullback_called_at_once)(q)
    np.testing.assert_array_equal(got, revsrc.grad(pullback_named)(q))
    h = 1e-6
    fd = [(pullback_named(q + h * e) - pullback_named(q - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(got, fd, rtol=1e-7, atol=1e-9)


def power_tower_expr(x, n):
    return x if n == 0 else math.exp(0.1 * power_tower_expr(x, n - 1)) * x


def power_tower_stmt(x, n):
    if n == 0:
        return x
    return math.exp(0.1 * power_tower_stmt(x, n - 1)) * x


@pytest.mark.parametrize("n", [0, 3, 6])
def test_recursion_decided_in_a_conditional_expression(n):
    x = 0.7
    got = revsrc.grad(power_tower_expr)(x, n)
    assert got == revsrc.grad(power_tower_stmt)(x, n)
    h = 1e-6
    fd = (power_tower_expr(x + h, n) - power_tower_expr(x - h, n)) / (2 * h)
    assert got == pytest.approx(fd, rel=1e-8)
    assert revsrc.grad(lambda x: power_tower_expr(x, 4))(x) == \
        revsrc.grad(lambda x: power_tower_stmt(x, 4))(x)
