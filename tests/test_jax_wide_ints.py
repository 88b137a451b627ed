"""backend="jax" computes ints in 64 bits and wraps; Python's ints have no limit
(issue 22: an int that does not fit takes the Python path, or is refused). A loop
long enough to run as a lax loop whose body grows a carried int (a product, a power,
a shift, or the sum of two carried ints) runs as Python's loop instead, its ints
exact; an int past 64 bits beside a float is converted as Python converts it. Each
value is the plain call's, each gradient checked against backend=None's and central
differences."""
import math

import numpy as np
import pytest

import revsrc

pytest.importorskip("jax")


def powers_of_three(x, n):
    p = 1
    for i in range(n):
        p = p * 3
    return x * (p % 1000)


def powers_in_a_float_loop(x):
    p = 1
    for i in range(60):
        p = p * 3
        x = x * 1.0001
    return x * (p % 1000)


def hash_mod(x, n):
    h = 0
    for k in range(n):
        h = (h * 31 + k) % (2 ** 61 - 1)
    return x * (h % 10)


def fibonacci_weights(x):
    a, b = 0, 1
    s = 0.0
    for k in range(100):
        a, b = b, a + b
        s = s + x * (a % 7)
    return s


def exp_series(x):
    s = 1.0
    fact = 1
    for k in range(1, 40):
        fact = fact * k          # 39! has 47 digits
        s = s + x ** k / fact
    return s


def counter(x):
    c = 0
    s = 0.0
    for k in range(50):
        c = c + 1                 # grows by steps: still a lax loop
        s = s + x * c
    return s


CASES = [(powers_of_three, (0.5, 60), 0), (powers_in_a_float_loop, (0.5,), 0),
         (hash_mod, (0.5, 50), 0), (fibonacci_weights, (0.3,), 0), (exp_series, (5.0,), 0),
         (counter, (0.7,), 0)]


@pytest.mark.parametrize("f,args,a", CASES, ids=[c[0].__name__ for c in CASES])
def test_ints_past_64_bits_under_jax(f, args, a):
    value, grad = revsrc.value_and_grad(f, argnums=a, backend="jax")(*args)
    plain = f(*args)
    assert value == pytest.approx(plain, rel=1e-13)
    ref = revsrc.grad(f, argnums=a)(*args)
    assert grad == pytest.approx(ref, rel=1e-12)
    h = 1e-6 * max(1.0, abs(args[a]))
    up, down = list(args), list(args)
    up[a] += h
    down[a] -= h
    assert grad == pytest.approx((f(*up) - f(*down)) / (2 * h), rel=1e-6)


def test_exp_series_is_exp():
    assert revsrc.grad(exp_series, backend="jax")(5.0) == pytest.approx(math.exp(5.0), rel=1e-12)


def branch_in_growing_loop(x, n):
    p = 1
    for k in range(n):
        if k % 2 == 0:
            p = p * 5
        else:
            p = p + 1
    return x * (p % 997)


def test_growth_inside_a_branch():
    value, grad = revsrc.value_and_grad(branch_in_growing_loop, backend="jax")(0.5, 70)
    assert value == branch_in_growing_loop(0.5, 70)
    assert grad == branch_in_growing_loop(1.0, 70)
