"""Round 9's alternating series: ``(-1) ** k`` of a loop counter k (never negative)
is an int, so the sum it feeds has a known kind. revsrc.jit then compiles it with
the plain call's digits and backend="jax" differentiates it; a power whose exponent
may be negative (an int argument), or whose base may outgrow an int64 (3 ** k),
keeps its unknown kind and is refused or computed as Python does, never wrong."""
import math

import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads


def atan_series(x, n):
    t = 0.0
    for k in range(n):
        t += (-1) ** k * x ** (2 * k + 1) / (2 * k + 1)
    return t


def nested_counters(x, n):
    t = 0.0
    for i in range(1, n):
        for k in range(i, n, 2):    # a start that is another counter, a step of 2
            t += (-1) ** k * x ** k / (i + k)
    return t


def sign_of_argument(x, n):
    t = 0.0
    for k in range(3):
        t += (-1) ** n * x ** (k + 1)    # n may be negative: (-1) ** -1 is -1.0
    return t


def growing_base(x, n):
    t = 0.0
    for k in range(n):
        t += 3 ** k * x     # 3 ** 50 does not fit an int64
    return t


def counter_reassigned(x, n):
    t = 0.0
    for k in range(n):
        k = k - 3           # no longer a counter: (-1) ** -3 is -1.0
        t += (-1) ** k * x
    return t


def counting_down(x, n):
    t = 0.0
    for k in range(n, -3, -1):     # reaches -1 and -2
        t += (-1) ** k * x
    return t


@pytest.mark.parametrize("n", [0, 1, 2, 9, 30])
def test_jit_alternating_series_has_the_plain_digits(n):
    for x in (0.5, -0.3, 0.9):
        assert revsrc.jit(atan_series)(x, n) == atan_series(x, n)


def test_jit_nested_counters_have_the_plain_digits():
    for n in (2, 5, 8):
        assert revsrc.jit(nested_counters)(0.7, n) == nested_counters(0.7, n)


def test_grad_of_the_series_against_central_differences():
    check_grads(atan_series, (0.5, 9))
    check_grads(nested_counters, (0.7, 8))
    # the series of atan: its derivative tends to 1 / (1 + x^2)
    assert abs(revsrc.grad(atan_series)(0.3, 40) - 1.0 / 1.09) < 1e-12


def test_jax_backend_differentiates_the_series():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    with jax.enable_x64(True):
        def twin(x):
            return sum((-1) ** k * x ** (2 * k + 1) / (2 * k + 1) for k in range(9))
        want = float(jax.grad(twin)(jnp.float64(0.5)))
        got = float(revsrc.grad(atan_series, backend="jax")(0.5, 9))
    assert abs(got - want) <= 1e-12 * abs(want)
    for f, x, n in ((atan_series, 0.5, 9), (nested_counters, 0.7, 8)):
        got = float(revsrc.grad(f, backend="jax")(x, n))   # a 0-d jax.Array
        want = (f(x + 1e-6, n) - f(x - 1e-6, n)) / 2e-6
        assert math.isclose(got, want, rel_tol=1e-7), (f.__name__, got, want)


@pytest.mark.parametrize("f", [sign_of_argument, growing_base, counter_reassigned,
                               counting_down])
def test_jit_refuses_a_power_that_may_be_a_float_or_outgrow_an_int(f):
    with pytest.raises(errors.NotCompilable) as info:
        revsrc.jit(f)(0.5, 50 if f is growing_base else 3)
    assert info.value.code == "E502" and info.value.lineno is not None


@pytest.mark.parametrize("f, n", [(sign_of_argument, -1), (sign_of_argument, 2),
                                  (growing_base, 50), (counter_reassigned, 5),
                                  (counting_down, 3)])
def test_grad_of_those_powers_is_python_s(f, n):
    check_grads(f, (0.5, n))
    want = (f(0.5 + 1e-6, n) - f(0.5 - 1e-6, n)) / 2e-6
    assert math.isclose(revsrc.grad(f)(0.5, n), want, rel_tol=1e-6)


@pytest.mark.parametrize("n", [2, -1])
def test_jax_backend_refuses_an_unknown_kind_in_the_user_s_terms(n):
    # (-1) ** n of an int argument is an int or a float: t's kind is known only when
    # it runs, where every number is a JAX array; the refusal names no JAX class
    pytest.importorskip("jax")
    with pytest.raises(errors.UnfollowableWrite) as info:
        revsrc.grad(sign_of_argument, backend="jax")(0.5, n)
    message = str(info.value)
    assert info.value.code == "E404" and info.value.lineno is not None
    assert "number or array" in message and "t += (-1) ** n" in message
    assert "Tracer" not in message and "Array" not in message.split("hint")[0]


def test_lambdas_on_one_line_are_told_apart_by_their_code():
    import numpy as np
    xs = np.array([0.1, 0.5, -0.4])
    a, b = revsrc.vmap(lambda x: atan_series(x, 9))(xs), revsrc.vmap(lambda x: atan_series(x, 3) * 2.0)(xs)
    assert list(a) == [atan_series(x, 9) for x in xs]
    assert list(b) == [atan_series(x, 3) * 2.0 for x in xs]
    g2, g3 = revsrc.grad(lambda x: x * x), revsrc.grad(lambda x: x * x * x)
    assert (g2(2.0), g3(2.0)) == (4.0, 12.0)
    # the same lambda twice: either reading is the function
    c, d = revsrc.grad(lambda x: math.sin(x)), revsrc.grad(lambda x: math.sin(x))
    assert c(0.3) == d(0.3) == math.cos(0.3)


def log1p_series(x, n):
    s = 0.0
    for j in range(1, n):
        s += (-1) ** (j + 1) * x ** j / j     # a sum of a counter and 1: never negative
    return s


def shifted_down(x, n):
    s = 0.0
    for j in range(n):
        s += (-1) ** (j - 1) * x    # j - 1 is -1 first: (-1) ** -1 is -1.0
    return s


def test_a_sum_of_counters_keeps_the_power_an_int():
    for n in (1, 2, 30):
        assert revsrc.jit(log1p_series)(0.4, n) == log1p_series(0.4, n)
    check_grads(log1p_series, (0.4, 30))
    with pytest.raises(errors.NotCompilable):
        revsrc.jit(shifted_down)(0.4, 3)
    check_grads(shifted_down, (0.4, 3))
