"""Library calls programs make: SciPy's normal-distribution functions and matrix
factorizations, NumPy's quantiles, the math module's gamma functions and sums, map and
filter, logging and NumPy's global random state. Each is checked against central
differences, in forward mode where it has a rule of its own, and against JAX (x64)
where JAX has the function; a library function with no rule is refused at the user's
line with its name, never transformed from the library's own source.
"""
import logging
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads, check_jvp

sc = pytest.importorskip("scipy.special")
sl = pytest.importorskip("scipy.linalg")

try:
    import jax
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    import jax.scipy.linalg as jsl
    import jax.scipy.special as jsc
except ImportError:  # pragma: no cover
    jax = None

needs_jax = pytest.mark.skipif(jax is None, reason="JAX is not installed")
RNG = np.random.default_rng(7)
W3 = np.array([0.3, -1.2, 0.8])


def _spd(n, rng=RNG):
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def _both(f, args, **kw):
    check_grads(f, args, **kw)
    check_jvp(f, args, **kw)


def _like_jax(f, fj, args, argnums=0, rtol=1e-9, atol=1e-11, symmetric=()):
    """revsrc's gradient of ``f`` is JAX's of ``fj`` (the same function in jnp). For
    an argument in ``symmetric`` (SciPy reads one triangle, JAX the whole matrix) the
    gradients agree along symmetric changes: G + G^T."""
    ours = revsrc.grad(f, argnums=argnums)(*args)
    theirs = jax.grad(fj, argnums=argnums)(*args)
    if isinstance(argnums, int):
        ours, theirs = (ours,), (theirs,)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        b = np.asarray(b)
        if i in symmetric:
            a, b = a + a.T, b + b.T
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


# ----- scipy.special: the normal distribution -----

def normal_tails(x):
    return np.sum(sc.ndtr(x) * W3) + np.sum(sc.log_ndtr(x - 4.0)) + \
        np.sum(sc.ndtri(sc.ndtr(x) * 0.5 + 0.2))


def normal_tails_jax(x):
    return jnp.sum(jsc.ndtr(x) * W3) + jnp.sum(jsc.log_ndtr(x - 4.0)) + \
        jnp.sum(jsc.ndtri(jsc.ndtr(x) * 0.5 + 0.2))


def test_ndtr_ndtri_log_ndtr():
    x = np.array([-1.3, 0.2, 2.1])
    _both(normal_tails, (x,))

    def density(x):
        return sc.ndtr(x)
    assert revsrc.grad(density)(0.0) == pytest.approx(1.0 / math.sqrt(2.0 * math.pi),
                                                       rel=1e-15)


def test_log_ndtr_far_in_the_left_tail_is_finite():
    def f(x):
        return sc.log_ndtr(x)
    # d/dx log ndtr(x) ~ -x for x -> -inf: ndtr underflows, the rule does not
    assert np.isclose(revsrc.grad(f)(-40.0), 40.0, rtol=1e-3)


@needs_jax
def test_normal_functions_match_jax():
    _like_jax(normal_tails, normal_tails_jax, (np.array([-1.3, 0.2, 2.1]),))


# ----- scipy.linalg -----

def cho(a, b):
    c = sl.cho_factor(a)
    return np.sum(sl.cho_solve(c, b) ** 2)


def cho_jax(a, b):
    c = jsl.cho_factor(a)
    return jnp.sum(jsl.cho_solve(c, b) ** 2)


def cho_lower_matrix(a, b):
    c, lower = sl.cho_factor(a, lower=True)
    x = sl.cho_solve((c, lower), b)
    return np.sum(x * x) + np.sum(c[0] * 0.5)


def triangular(a, b):
    return (np.sum(sl.solve_triangular(a, b, lower=True) ** 2)
            + np.sum(sl.solve_triangular(a, b, trans=1) * 1.5)
            + np.sum(sl.solve_triangular(a, b, trans="T", lower=True,
                                         unit_diagonal=True) ** 3))


def triangular_jax(a, b):
    return (jnp.sum(jsl.solve_triangular(a, b, lower=True) ** 2)
            + jnp.sum(jsl.solve_triangular(a, b, trans=1) * 1.5)
            + jnp.sum(jsl.solve_triangular(a, b, trans="T", lower=True,
                                          unit_diagonal=True) ** 3))


def lu(a, b):
    f = sl.lu_factor(a)
    return np.sum(sl.lu_solve(f, b) ** 2) + np.sum(sl.lu_solve(f, b, trans=1) * 1.3)


def lu_jax(a, b):
    f = jsl.lu_factor(a)
    return jnp.sum(jsl.lu_solve(f, b) ** 2) + jnp.sum(jsl.lu_solve(f, b, trans=1) * 1.3)


def lu_packed(a):
    f = sl.lu_factor(a)
    return np.sum(f[0] ** 2)


def exponential(a):
    return np.sum(sl.expm(a) * np.arange(9.0).reshape(3, 3))


def exponential_jax(a):
    return jnp.sum(jsl.expm(a) * jnp.arange(9.0).reshape(3, 3))


@pytest.mark.parametrize("f,args", [
    (cho, (_spd(3), RNG.standard_normal(3))),
    (cho, (_spd(4), RNG.standard_normal((4, 2)))),
    (cho_lower_matrix, (_spd(3), RNG.standard_normal((3, 2)))),
    (triangular, (_spd(3) + 0.3 * RNG.standard_normal((3, 3)), RNG.standard_normal(3))),
    (triangular, (_spd(3) + 0.3 * RNG.standard_normal((3, 3)), RNG.standard_normal((3, 2)))),
    (lu, (RNG.standard_normal((4, 4)), RNG.standard_normal(4))),
    (lu, (RNG.standard_normal((3, 3)), RNG.standard_normal((3, 2)))),
    (lu_packed, (RNG.standard_normal((4, 4)),)),
    (exponential, (0.5 * RNG.standard_normal((3, 3)),)),
], ids=["cho", "cho-matrix", "cho-lower", "triangular", "triangular-matrix", "lu",
        "lu-matrix", "lu-packed", "expm"])
def test_scipy_linalg_matches_finite_differences(f, args):
    _both(f, args, rtol=1e-5, atol=1e-7)


@needs_jax
@pytest.mark.parametrize("f,fj,args", [
    (cho, cho_jax, (_spd(3), RNG.standard_normal(3))),
    (triangular, triangular_jax, (_spd(3) + 0.3 * RNG.standard_normal((3, 3)),
                                  RNG.standard_normal((3, 2)))),
    (lu, lu_jax, (RNG.standard_normal((4, 4)), RNG.standard_normal(4))),
    (exponential, exponential_jax, (0.5 * RNG.standard_normal((3, 3)),)),
], ids=["cho", "triangular", "lu", "expm"])
def test_scipy_linalg_matches_jax(f, fj, args):
    _like_jax(f, fj, args, argnums=tuple(range(len(args))), rtol=1e-8, atol=1e-10,
              symmetric=(0,) if f is cho else ())


def test_expm_frechet_is_exact_on_a_nilpotent_matrix():
    # expm(t N) = I + t N for N^2 = 0: the derivative along N at 0 is N exactly
    def f(t):
        n = np.array([[0.0, 1.0], [0.0, 0.0]])
        return np.sum(sl.expm(t * n))
    assert revsrc.grad(f)(0.7) == 1.0


# ----- A library function without a rule: refused at the user's line, by name -----

def uses_sqrtm(a):
    r = sl.sqrtm(a)
    return np.sum(r)


def uses_statistics(x):
    import statistics
    return statistics.fmean([x, 2.0 * x])


def uses_funm_inside_helper(a):
    return _helper_calling_a_library(a) * 2.0


def _helper_calling_a_library(a):
    return np.sum(sl.logm(a))


@pytest.mark.parametrize("f,arg,where,name", [
    (uses_sqrtm, _spd(3), (uses_sqrtm, 1), "sqrtm"),
    (uses_statistics, 1.5, (uses_statistics, 2), "fmean"),
    (uses_funm_inside_helper, _spd(3), (_helper_calling_a_library, 1), "logm"),
])
def test_a_library_function_without_a_rule_is_refused_at_the_call(f, arg, where, name):
    with pytest.raises(errors.NoRule) as info:
        revsrc.grad(f)(arg)
    err = info.value
    assert err.code == "E202"
    assert err.filename == __file__
    assert err.lineno == where[0].__code__.co_firstlineno + where[1]
    assert name in err.message and "library's own source" in err.message
    assert f"revsrc.defvjp({name})" in err.hint
    # nothing of the library's source in the message: no path into site-packages
    assert "site-packages" not in err.message and "_util.py" not in err.message


def test_overwrite_arguments_are_refused():
    def f(a, b):
        return np.sum(sl.solve_triangular(a, b, overwrite_b=True))
    with pytest.raises(errors.NoRule, match="overwrite_b") as info:
        revsrc.grad(f)(np.eye(2) * 2.0, np.ones(2))
    assert info.value.code == "E202"


# ----- NumPy's quantiles -----

def quantiles(x, q):
    return (np.sum(np.quantile(x, q, axis=1) * np.arange(6.0).reshape(2, 3))
            + np.percentile(x, 37.0) + np.sum(np.nanquantile(x, 0.6, axis=0)))


def quantiles_jax(x, q):
    return (jnp.sum(jnp.quantile(x, q, axis=1) * jnp.arange(6.0).reshape(2, 3))
            + jnp.percentile(x, 37.0) + jnp.sum(jnp.nanquantile(x, 0.6, axis=0)))


def nan_quantiles(x):
    return np.nanquantile(x, 0.3) + np.sum(np.nanpercentile(x, [20.0, 90.0], axis=1) ** 2)


def nan_quantiles_jax(x):
    return jnp.nanquantile(x, 0.3) + jnp.sum(jnp.nanpercentile(x, jnp.array([20.0, 90.0]),
                                                                 axis=1) ** 2)


X35 = RNG.standard_normal((3, 5))
XNAN = X35.copy()
XNAN[1, 2] = XNAN[0, 4] = np.nan


def test_quantiles_match_finite_differences():
    _both(quantiles, (X35, np.array([0.15, 0.7])))
    _both(nan_quantiles, (X35,))


def test_nan_quantiles_skip_the_nans():
    g = revsrc.grad(nan_quantiles)(XNAN)
    assert g[1, 2] == 0.0 and g[0, 4] == 0.0 and np.all(np.isfinite(g))
    check_grads(nan_quantiles, (XNAN,))


@needs_jax
def test_quantiles_match_jax():
    _like_jax(quantiles, quantiles_jax, (X35, np.array([0.15, 0.7])), argnums=(0, 1))
    _like_jax(nan_quantiles, nan_quantiles_jax, (XNAN,))


def test_quantile_weights_go_to_the_two_order_statistics():
    def f(x):
        return np.quantile(x, 0.25)
    x = np.array([4.0, 1.0, 3.0, 2.0, 5.0])   # virtual index 1.0: the 2nd smallest
    assert list(revsrc.grad(f)(x)) == [0.0, 0.0, 0.0, 1.0, 0.0]
    y = np.array([4.0, 1.0, 3.0, 2.0])        # 0.75: a quarter to 1.0, 3/4 to 2.0
    assert np.allclose(revsrc.grad(f)(y), [0.0, 0.25, 0.0, 0.75])


def test_quantile_ties_share_the_weight():
    def f(x):
        return np.quantile(x, 0.5)
    g = revsrc.grad(f)(np.array([2.0, 1.0, 2.0, 3.0, 2.0]))
    assert np.allclose(g, [1 / 3, 0.0, 1 / 3, 0.0, 1 / 3])


def test_quantile_methods_other_than_linear_are_refused():
    def f(x):
        return np.quantile(x, 0.5, method="nearest")
    with pytest.raises(errors.NoRule, match="nearest") as info:
        revsrc.grad(f)(np.arange(4.0))
    assert info.value.code == "E202"


# ----- math: lgamma, gamma, fsum, prod -----

def gammas(x):
    return math.lgamma(x) * 2.0 + math.gamma(x / 2.0) + math.lgamma(-x - 0.5)


def gammas_jax(x):
    return jax.scipy.special.gammaln(x) * 2.0 + jax.scipy.special.gamma(x / 2.0) + \
        jnp.log(jnp.abs(jax.scipy.special.gamma(-x - 0.5)))


def sums_and_products(x, y):
    return math.fsum([x, y * y, 3.0 * x]) + math.prod([x, y, x + y], start=y)


@pytest.mark.parametrize("x", [0.3, 2.7, 11.3])
def test_gamma_functions(x):
    _both(gammas, (x,))
    d = revsrc.grad(math.lgamma)(x)
    assert d == pytest.approx(sc.digamma(x), rel=4e-15)


@needs_jax
def test_gamma_functions_match_jax():
    _like_jax(gammas, gammas_jax, (2.7,), rtol=1e-13)


def test_fsum_and_prod():
    _both(sums_and_products, (1.3, -0.7))
    # a zero item: the others' product, exactly, not ans / x
    def with_zero(x, y):
        return math.prod([x, 0.0, y])
    assert revsrc.grad(with_zero, argnums=(0, 1))(2.0, 3.0) == (0.0, 0.0)

    def zero_item(x, y):
        return math.prod([x, y])
    assert revsrc.grad(zero_item, argnums=(0, 1))(0.0, 3.0) == (3.0, 0.0)


# ----- map and filter -----

def _square(v):
    return v * v


def map_lambda(x, w):
    return sum(map(lambda v: v * w, [x, 2.0 * x, x * x]))


def map_ufunc(xs):
    return np.sum(np.array(list(map(np.sin, xs))))


def map_and_filter(x, y):
    return math.fsum(map(_square, [x, y, x * y])) + \
        sum(filter(lambda v: v > 0.0, [x, -y, y]))


def map_two_sequences_in_a_loop(a, b):
    total = 0.0
    for p in map(lambda u, v: u * v, [a, b], [b, a + b]):
        total = total + p
    return total


def map_over_a_run_time_list(xs):
    ys = [v * 2.0 for v in xs]
    return sum(map(_square, ys)) + sum(filter(None, ys)) + \
        sum(filter(lambda t: t < 0.0, ys))


def map_keeps_the_outer_name(x):
    v = 3.0
    s = sum(map(lambda v: v * 2.0, [x, x * x]))
    return s * v


def map_stored(x):
    m = map(_square, [x, x])
    return sum(m)


@pytest.mark.parametrize("f,args", [
    (map_lambda, (1.3, 0.7)), (map_ufunc, (np.array([0.3, 1.2, -0.4]),)),
    (map_and_filter, (1.3, 0.4)), (map_and_filter, (-1.3, 0.4)),
    (map_two_sequences_in_a_loop, (0.5, 1.5)),
    (map_over_a_run_time_list, (np.array([0.3, 1.2, -0.4]),)),
    (map_keeps_the_outer_name, (0.8,)),
])
def test_map_and_filter_are_comprehensions(f, args):
    _both(f, args)
    g = revsrc.grad(f)(*args)
    assert f(*args) == revsrc.value_and_grad(f)(*args)[0]
    assert np.all(np.isfinite(g))


def test_a_map_stored_for_later_is_refused_with_the_fix():
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(map_stored)(0.5)
    assert info.value.code == "E101"
    assert info.value.lineno == map_stored.__code__.co_firstlineno + 1
    assert "list(map(...))" in info.value.hint


# ----- calls for their effect: logging, NumPy's global random state -----

LOG = logging.getLogger("revsrc.tests.library_calls")


def logs_as_it_goes(x):
    logging.info("x is %.3f", x)
    LOG.warning("twice x is %.3f", 2.0 * x)
    y = x * x
    LOG.log(logging.ERROR, "y is %.3f", y)
    logging.debug("done")
    return y


def test_logging_runs_in_the_forward_sweep_once(caplog):
    caplog.set_level(logging.DEBUG)
    assert revsrc.grad(logs_as_it_goes)(1.5) == 3.0
    assert [r.getMessage() for r in caplog.records] == [
        "x is 1.500", "twice x is 3.000", "y is 2.250", "done"]
    caplog.clear()
    check_jvp(logs_as_it_goes, (0.7,))
    assert "x is 0.700" in [r.getMessage() for r in caplog.records]


def test_a_rebound_logger_is_the_one_used(caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    d = revsrc.grad(logs_as_it_goes)
    d(1.0)
    other = logging.getLogger("revsrc.tests.other")
    monkeypatch.setattr(__import__(__name__), "LOG", other)
    caplog.clear()
    d(1.0)
    assert {r.name for r in caplog.records if "twice" in r.getMessage()} == \
        {"revsrc.tests.other"}


def seeded_noise(x):
    np.random.seed(5)
    e = np.random.randn(x.size)
    s = 0.0
    for i in range(3):
        s = s + np.sum(x * np.random.normal(size=x.size)) * np.random.rand()
    return np.sum(x * e) + s


def test_seeded_draws_are_the_plain_calls_and_are_not_drawn_again():
    x = np.array([0.5, -1.0])
    np.random.seed(99)
    plain = seeded_noise(x)
    after_plain = np.random.rand()
    np.random.seed(99)
    value, g = revsrc.value_and_grad(seeded_noise)(x)
    after_grad = np.random.rand()
    assert value == plain and after_grad == after_plain
    # the function is linear in x: its gradient is the draws, as the plain call made them
    np.random.seed(5)
    e = np.random.randn(2)
    expect = e.copy()
    for i in range(3):
        n = np.random.normal(size=2)
        expect += n * np.random.rand()
    np.testing.assert_allclose(g, expect, rtol=1e-14)
    _both(seeded_noise, (x,))


# ----- np.vectorize of a scalar function -----

def _huber(r, d):
    if abs(r) < d:
        return 0.5 * r * r
    return d * (abs(r) - 0.5 * d)


def _branchy(v):
    return v * v if v > 0 else -v


def _int_first(v):
    return 1 if v > 0 else v * 2.0


HUBER = np.vectorize(_huber)
BRANCHY = np.vectorize(_branchy)


def vectorized_one(x):
    return np.sum(BRANCHY(x) * np.arange(1.0, 1.0 + x.size).reshape(x.shape))


def vectorized_broadcast(x, d):
    return np.sum(HUBER(x, d))


def vectorized_inline(x):
    return np.sum(np.vectorize(math.sin)(x) ** 2) + \
        np.sum(np.vectorize(_branchy, otypes=[float])(x))


def vectorized_int_first(x):
    return np.sum(np.vectorize(_int_first)(x))


@pytest.mark.parametrize("f,args", [
    (vectorized_one, (np.array([[1.0, -2.0, 0.5], [0.3, -0.1, 2.0]]),)),
    (vectorized_broadcast, (np.array([0.2, -3.0, 1.5]), np.array([[1.0], [2.0]]))),
    (vectorized_inline, (np.array([0.3, -1.2]),)),
], ids=["one", "broadcast", "inline"])
def test_vectorize_applies_the_scalar_function_per_element(f, args):
    _both(f, args)
    assert revsrc.value_and_grad(f)(*args)[0] == f(*args)


@needs_jax
def test_vectorize_matches_jax_vmap():
    def huber_jax(r, d):
        return jnp.where(jnp.abs(r) < d, 0.5 * r * r, d * (jnp.abs(r) - 0.5 * d))
    x, d = np.array([0.2, -3.0, 1.5]), np.array([[1.0], [2.0]])
    _like_jax(vectorized_broadcast, lambda x, d: jnp.sum(huber_jax(x, d)), (x, d),
              argnums=(0, 1))


def test_vectorize_refuses_results_it_would_cast():
    # the plain call makes every result an int (the first is 1): refused, not followed
    with pytest.raises(errors.UnsupportedValue) as info:
        revsrc.grad(vectorized_int_first)(np.array([1.0, -2.5]))
    assert info.value.code == "E305"
    assert info.value.lineno == vectorized_int_first.__code__.co_firstlineno + 1
    g = revsrc.grad(vectorized_int_first)(np.array([-1.0, 2.5]))
    assert list(g) == [2.0, 0.0]


def uses_a_library_object(x):
    import statistics
    return statistics.NormalDist(0.0, 1.0).pdf(x)


def test_a_library_method_is_refused_by_name_not_transformed():
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(uses_a_library_object)(0.3)
    err = info.value
    assert err.filename == __file__
    assert err.lineno == uses_a_library_object.__code__.co_firstlineno + 2
    assert "statistics.py" not in err.message
