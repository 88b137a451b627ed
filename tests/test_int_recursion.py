"""Recursion whose depth ints decide is unrolled while transforming: a Legendre or
Chebyshev recurrence ``P(n, x)`` called with a constant ``n``, or with an int
argument ``n`` of the function transformed (made for each value given, as a tracer
would), becomes the recurrence written out for that ``n``. Recursion decided by
what is known only when the function runs (a differentiated value) is refused with
E103 at the recursive call.
"""
import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads, check_jvp

sc = pytest.importorskip("scipy.special")


def legendre(n, x):
    if n == 0:
        return 1.0 + 0.0 * x
    if n == 1:
        return x
    return ((2 * n - 1) * x * legendre(n - 1, x) - (n - 1) * legendre(n - 2, x)) / n


def chebyshev(n, x):
    if n == 0:
        return np.ones_like(x)
    elif n == 1:
        return x
    else:
        return 2.0 * x * chebyshev(n - 1, x) - chebyshev(n - 2, x)


def legendre_5(x):
    return legendre(5, x)


def chebyshev_series(x):
    return np.sum(chebyshev(0, x) + 0.5 * chebyshev(3, x) - 0.25 * chebyshev(6, x))


def two_degrees(x):
    # one derivative holds both unrollings; each call site lowers its own n
    return legendre(4, x) * legendre(7, x)


def factorial_power(n, x):
    if n <= 1:
        return x
    return n * x * factorial_power(n - 1, x)


def with_keywords(x):
    return factorial_power(x=x, n=4)


def nested_defs(x):
    def hermite(k, t):
        if k == 0:
            return 1.0 + 0.0 * t
        if k == 1:
            return 2.0 * t
        return 2.0 * t * hermite(k - 1, t) - 2.0 * (k - 1) * hermite(k - 2, t)
    return hermite(5, x)


def _legendre_derivative(n, x):
    return n * (x * sc.eval_legendre(n, x) - sc.eval_legendre(n - 1, x)) / (x * x - 1.0)


@pytest.mark.parametrize("x", [-0.7, 0.3, 0.9])
def test_legendre_recurrence_is_unrolled(x):
    assert revsrc.grad(legendre_5)(x) == pytest.approx(_legendre_derivative(5, x), rel=1e-12)
    check_grads(legendre_5, (x,))
    check_jvp(legendre_5, (x,))


def test_chebyshev_on_arrays_and_two_degrees():
    x = np.array([-0.6, 0.1, 0.8])
    check_grads(chebyshev_series, (x,))
    check_jvp(chebyshev_series, (x,))
    check_grads(two_degrees, (0.35,))
    # T_6'(cos t) = 6 sin(6t) / sin(t)
    t = np.arccos(x)
    g = revsrc.grad(chebyshev_series)(x)
    expect = 0.5 * 3 * np.sin(3 * t) / np.sin(t) - 0.25 * 6 * np.sin(6 * t) / np.sin(t)
    np.testing.assert_allclose(g, expect, rtol=1e-12)


def test_keywords_and_nested_defs():
    assert revsrc.grad(with_keywords)(1.5) == pytest.approx(24.0 * 4 * 1.5 ** 3)
    check_grads(nested_defs, (0.4,))
    check_jvp(nested_defs, (0.4,))


def test_jax_agrees_on_the_unrolled_recurrence():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)

    def legendre_jax(n, x):
        if n == 0:
            return 1.0 + 0.0 * x
        if n == 1:
            return x
        return ((2 * n - 1) * x * legendre_jax(n - 1, x)
                - (n - 1) * legendre_jax(n - 2, x)) / n
    assert revsrc.grad(legendre_5)(0.3) == pytest.approx(
        float(jax.grad(lambda x: legendre_jax(5, x))(0.3)), rel=1e-14)


# ----- refused: what decides the recursion is known only when the function runs -----

def halve(x, k):
    if x < 1.0:
        return x * k
    return halve(x / 2.0, k)


def halves(x):
    return halve(x, 3)


def on_a_value(x):
    if x < 1.0:
        return x
    return on_a_value(x / 2.0)


def degree_at_run_time(x, n):
    return legendre(n, x)


@pytest.mark.parametrize("f,args,callee,line", [
    (halves, (5.0,), halve, 3),
    (on_a_value, (5.0,), on_a_value, 3),
    (halve, (5.0, 3), halve, 3),     # an int argument, but the recursion is on x
])
def test_recursion_on_run_time_values_is_refused(f, args, callee, line):
    with pytest.raises(errors.RecursionNotSupported) as info:
        revsrc.grad(f)(*args)
    assert info.value.code == "E103"
    assert info.value.lineno == callee.__code__.co_firstlineno + line
    assert "loop" in info.value.hint


def deep(x):
    return legendre(60, x)


def test_too_deep_an_unrolling_is_refused():
    with pytest.raises(errors.RecursionNotSupported, match="deeper than") as info:
        revsrc.grad(deep)(0.5)
    assert info.value.code == "E103"


# ----- the degree an int argument of the function transformed -----------------------

def series_at(x, n):
    return legendre(n, x) + 0.5 * legendre(3, x)


def array_series_at(x, n):
    return np.sum(chebyshev(n, x) * x)


@pytest.mark.parametrize("backend", [None, "python", "engine"])
def test_a_run_time_degree_is_unrolled_for_each_value(backend):
    d = revsrc.grad(degree_at_run_time, backend=backend)
    for n in (4, 2, 7, 4):
        assert d(0.3, n) == pytest.approx(_legendre_derivative(n, 0.3), rel=1e-12)
    # one program per degree: the same degree runs the program made for it
    assert len(d._revsrc_transformed.cache) == 3
    g = revsrc.grad(legendre, argnums=1, backend=backend)
    assert g(5, 0.6) == pytest.approx(_legendre_derivative(5, 0.6), rel=1e-12)
    assert g(np.int64(3), 0.6) == pytest.approx(_legendre_derivative(3, 0.6), rel=1e-12)


def test_a_run_time_degree_under_every_transformation():
    x = np.array([-0.6, 0.1, 0.8])
    for n in (3, 6):
        check_grads(series_at, (0.35, n), argnums=0)
        check_jvp(series_at, (0.35, n), argnums=0)
        check_grads(array_series_at, (x, n), argnums=0)
        check_jvp(array_series_at, (x, n), argnums=0)
        t = np.arccos(x)   # T_n(cos t) = cos(n t): d/dx (x T_n) = T_n + x n sin(nt)/sin(t)
        want = np.cos(n * t) + x * n * np.sin(n * t) / np.sin(t)
        np.testing.assert_allclose(revsrc.grad(array_series_at)(x, n), want, rtol=1e-12)
        np.testing.assert_allclose(revsrc.jacfwd(array_series_at)(x, n), want, rtol=1e-12)
        np.testing.assert_allclose(revsrc.jacrev(array_series_at)(x, n), want, rtol=1e-12)
        np.testing.assert_allclose(revsrc.vjp(array_series_at, x, n)[1](1.0)[0], want,
                                   rtol=1e-12)
        h = revsrc.hessian(array_series_at)(x, n)
        np.testing.assert_allclose(h, revsrc.jacfwd(revsrc.grad(array_series_at))(x, n),
                                   rtol=1e-12, atol=1e-12)
        d2 = revsrc.grad(revsrc.grad(series_at))(0.35, n)
        step = 1e-5
        d1 = revsrc.grad(series_at)
        assert d2 == pytest.approx((d1(0.35 + step, n) - d1(0.35 - step, n)) / (2 * step),
                                   rel=1e-6)
        np.testing.assert_allclose(
            revsrc.vmap(revsrc.grad(series_at), in_axes=(0, None))(x, n),
            [revsrc.grad(series_at)(float(v), n) for v in x], rtol=1e-14)


def test_a_run_time_degree_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def cheb_jax(n, x):
        if n == 0:
            return jnp.ones_like(x)
        if n == 1:
            return x
        return 2.0 * x * cheb_jax(n - 1, x) - cheb_jax(n - 2, x)
    x = np.array([-0.6, 0.1, 0.8])
    for n in (2, 5):
        want = jax.grad(lambda v: jnp.sum(cheb_jax(n, v) * v))(x)
        np.testing.assert_allclose(revsrc.grad(array_series_at)(x, n), want, rtol=1e-13)
        np.testing.assert_allclose(revsrc.grad(array_series_at, backend="jax")(x, n), want,
                                   rtol=1e-13)
        np.testing.assert_allclose(revsrc.hessian(array_series_at)(x, n),
                                   jax.hessian(lambda v: jnp.sum(cheb_jax(n, v) * v))(x),
                                   rtol=1e-12, atol=1e-12)


def test_too_deep_a_run_time_degree_is_refused():
    for n in (60, -1):      # -1 never reaches a base case
        with pytest.raises(errors.RecursionNotSupported, match="deeper than") as info:
            revsrc.grad(degree_at_run_time)(0.5, n)
        assert info.value.code == "E103"
        assert info.value.lineno == legendre.__code__.co_firstlineno + 5
    assert revsrc.grad(degree_at_run_time)(0.5, 3) == pytest.approx(
        _legendre_derivative(3, 0.5), rel=1e-12)


_d_series_at = revsrc.grad(series_at)


def calls_a_derivative_with_a_constant(x):
    return _d_series_at(x, 4) * x


def calls_a_derivative_with_its_int(x, n):
    return _d_series_at(x, n) * x


def test_a_derivative_called_inside_with_an_int_degree():
    step = 1e-5
    for f, args in ((calls_a_derivative_with_a_constant, ()),
                    (calls_a_derivative_with_its_int, (4,)), (calls_a_derivative_with_its_int, (6,))):
        got = revsrc.grad(f)(0.4, *args)
        assert got == pytest.approx((f(0.4 + step, *args) - f(0.4 - step, *args)) / (2 * step),
                                    rel=1e-7)
        check_grads(f, (0.4,) + args, argnums=0)


def test_jit_of_a_run_time_degree_has_the_digits_of_python():
    j = revsrc.jit(series_at)
    for n in (5, 0, 1, 3, 5):
        assert j(0.4, n) == series_at(0.4, n)
    assert len(j._revsrc_jitted.cache) == 4


def sum_of_degrees(x, n):
    s = 0.0
    for k in range(n):           # a constant range once n is given: unrolled
        s = s + legendre(k, x) / (k + 1.0)
    return s


def hermite_sum(x):
    def hermite(k, t):
        if k == 0:
            return 1.0 + 0.0 * t
        if k == 1:
            return 2.0 * t
        return 2.0 * t * hermite(k - 1, t) - 2.0 * (k - 1) * hermite(k - 2, t)
    s = 0.0
    for k in range(5):
        s = s + hermite(k, x) / (k + 1.0)
    return s


def test_a_loop_over_degrees_is_unrolled():
    for n in (1, 4, 7):
        want = sum(_legendre_derivative(k, 0.3) / (k + 1.0) for k in range(1, n))
        assert revsrc.grad(sum_of_degrees)(0.3, n) == pytest.approx(want, rel=1e-12, abs=1e-15)
        check_jvp(sum_of_degrees, (0.3, n), argnums=0)
    want = sum(k * 2.0 * sc.eval_hermite(k - 1, 0.3) / (k + 1.0) for k in range(1, 5))
    assert revsrc.grad(hermite_sum)(0.3) == pytest.approx(want, rel=1e-12)
