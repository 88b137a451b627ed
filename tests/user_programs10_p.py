"""Round 10, library calls scientists reach for inside objectives: scipy.special
(gammaln, digamma, expit, logsumexp, erfc, xlogy), scipy.stats log densities,
math.lgamma/gamma/erfc, functools.lru_cache'd helpers, a seeded Generator drawing noise
inside the function, in-place sort of a local copy, astype and np.round (zero
gradients), complex square roots, np.array of differentiated scalars."""
import functools
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1013)
V = np.abs(rng.normal(size=5)) + 0.5


def dirichlet_logpdf(alpha, x):
    from scipy.special import gammaln
    return gammaln(np.sum(alpha)) - np.sum(gammaln(alpha)) + np.sum((alpha - 1) * np.log(x))


XD = np.array([0.2, 0.5, 0.3])
CASES.append(G("r10_scipy_gammaln_dirichlet", dirichlet_logpdf, (np.array([1.5, 2.0, 3.0]), XD), argnums=(0, 1)))


def digamma_mean(a):
    from scipy.special import digamma
    return np.sum(digamma(a))


CASES.append(G("r10_scipy_digamma", digamma_mean, (V,)))


def expit_logsumexp(z):
    from scipy.special import expit, logsumexp
    return np.sum(expit(z)) + logsumexp(z)


CASES.append(G("r10_scipy_expit_logsumexp", expit_logsumexp, (V - 1.0,)))


def erfc_tail(x):
    from scipy.special import erfc
    return np.sum(erfc(x / math.sqrt(2)))


CASES.append(G("r10_scipy_erfc", erfc_tail, (V,)))


def xlogy_entropy(p):
    from scipy.special import xlogy
    return -np.sum(xlogy(p, p))


CASES.append(G("r10_scipy_xlogy_entropy", xlogy_entropy, (np.array([0.2, 0.3, 0.5]),), ref=lambda: -(np.log([0.2, 0.3, 0.5]) + 1)))


def stats_norm_loglik(mu, sigma, x):
    from scipy import stats
    return np.sum(stats.norm.logpdf(x, loc=mu, scale=sigma))


CASES.append(G("r10_scipy_stats_norm_logpdf", stats_norm_loglik, (0.3, 1.4, V), argnums=(0, 1)))


def stats_gamma_cdf(a):
    from scipy import stats
    return stats.gamma.cdf(2.0, a)


CASES.append(G("r10_scipy_stats_gamma_cdf_shape", stats_gamma_cdf, (1.7,)))


def math_lgamma_beta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


CASES.append(G("r10_math_lgamma_log_beta", math_lgamma_beta, (2.5, 1.5), argnums=(0, 1)))


def math_gamma_erfc(x):
    return math.gamma(x) * math.erfc(x)


CASES.append(G("r10_math_gamma_erfc", math_gamma_erfc, (1.3,)))


@functools.lru_cache(maxsize=None)
def binom_coef(n, k):
    return math.comb(n, k)


def binomial_loglik(p, n=10, k=3):
    return math.log(binom_coef(n, k)) + k * math.log(p) + (n - k) * math.log(1 - p)


CASES.append(G("r10_lru_cache_int_helper", binomial_loglik, (0.35,), ref=lambda: 3 / 0.35 - 7 / 0.65))


@functools.lru_cache(maxsize=None)
def cached_sq(x):
    return x * x


def uses_cached_on_value(x):
    return cached_sq(x) + x


CASES.append(G("r10_lru_cache_on_differentiated", uses_cached_on_value, (1.5,), ref=lambda: 4.0))


def noisy_objective(x):
    g = np.random.default_rng(0)
    noise = g.normal(size=3)
    return np.sum((x + noise) ** 2)


CASES.append(G("r10_seeded_generator_inside", noisy_objective, (np.zeros(3),),
               ref=lambda: 2 * np.random.default_rng(0).normal(size=3)))


def sort_local_copy(x):
    y = x.copy()
    y.sort()
    return np.sum(y * np.arange(1.0, len(y) + 1))


CASES.append(G("r10_inplace_sort_local_copy", sort_local_copy, (rng.normal(size=5),), ref="jax" if False else "fd"))


def astype_round(x):
    return np.sum(x.astype(int) * x + np.round(x, 1) * x)


XR = np.array([1.23, 2.71, -0.44])
CASES.append(G("r10_astype_round_zero_grads", astype_round, (XR,), ref=lambda: XR.astype(int) + np.round(XR, 1)))


def complex_sqrt_negative(x):
    z = np.sqrt(x + 0j)
    return np.sum(np.abs(z) ** 2 + np.imag(z))


# |sqrt(x)|^2 = |x|, imag = sqrt(-x) for x < 0
XC = np.array([-2.0, 3.0, -0.5])
CASES.append(G("r10_complex_sqrt_of_negative", complex_sqrt_negative, (XC,),
               ref=lambda: np.sign(XC) + np.where(XC < 0, -0.5 / np.sqrt(-XC), 0.0)))


def array_of_scalars(a, b):
    v = np.array([a, b, a * b])
    return v @ v


CASES.append(G("r10_np_array_of_diff_scalars", array_of_scalars, (1.5, -0.5), argnums=(0, 1), ref="jax"))


def array_of_arrays(x):
    M = np.array([x, 2 * x, x ** 2])
    return np.linalg.det(M[:, :3])


CASES.append(G("r10_np_array_of_rows", array_of_arrays, (np.array([1.0, 0.5, -0.3]),), ref="jax"))


def float_cast(x):
    return float(np.sum(x ** 2)) * 2.0


CASES.append(G("r10_float_cast_of_sum", float_cast, (V,), ref=lambda: 4 * V))


def asarray_float32_inside(x):
    y = np.asarray(x, dtype=np.float32)
    return float(np.sum(y * y))


CASES.append(G("r10_asarray_float32_inside", asarray_float32_inside, (V,), ref=lambda: 2 * V, tol=1e-6))
