"""Round 15, part x: derivatives at singular and edge points, against JAX with x64 (the
docs promise JAX's IEEE numbers at the edges): det of a singular matrix, prod with one
and two zeros, powers at 0 in the exponent, sinc at 0, cumprod through a zero, eigvalsh
of repeated eigenvalues, logsumexp with -inf, arctan2 near the origin, expm1/log1p near 0."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


def det_fn(A):
    return np.linalg.det(A)


SING = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])
RANK1 = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 0.5])


def _adj_T(A):
    # gradient of det = cofactor matrix
    C = np.zeros_like(A)
    for i in range(3):
        for j in range(3):
            m = np.delete(np.delete(A, i, 0), j, 1)
            C[i, j] = (-1) ** (i + j) * (m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0])
    return C


add(G("r15_det_grad_singular_rank2", det_fn, (SING,), ref=lambda: _adj_T(SING), tol=1e-10))
add(G("r15_det_grad_singular_rank1_zero_cofactors", det_fn, (RANK1,), ref=lambda: _adj_T(RANK1), tol=1e-10))


def prod_fn(x):
    return np.prod(x)


add(G("r15_prod_one_zero", prod_fn, (np.array([2.0, 0.0, 3.0]),), ref=lambda: np.array([0.0, 6.0, 0.0]), tol=1e-14))
add(G("r15_prod_two_zeros", prod_fn, (np.array([2.0, 0.0, 0.0]),), ref=lambda: np.array([0.0, 0.0, 0.0]), tol=1e-14))


def pow_exp(y, x=0.0):
    return x ** y + np.power(x, y * 2.0)


# 0 ** y is 0 for y > 0: derivative 0 (JAX gives 0 too, not 0 * log 0 = nan)
add(G("r15_pow_zero_base_wrt_exponent", pow_exp, (2.5,), ref=lambda: 0.0, tol=0.0))


def sinc_fn(x):
    return np.sum(np.sinc(x))


add(G("r15_sinc_at_zero", sinc_fn, (np.array([0.0, 0.5]),), ref=lambda: jax().grad(jaxify(sinc_fn))(np.array([0.0, 0.5])), tol=1e-12))


def cumprod_fn(x):
    return np.sum(np.cumprod(x))


add(G("r15_cumprod_through_zero", cumprod_fn, (np.array([2.0, 0.0, 3.0, 4.0]),), ref=lambda: np.array([1.0, 2 + 6 + 24, 0.0, 0.0]), tol=1e-14))


def eigvalsh_fn(A):
    w = np.linalg.eigvalsh(A)
    return w[-1] + 2.0 * np.sum(w)


REP = np.diag([1.0, 2.0, 2.0])
add(G("r15_eigvalsh_repeated_top", eigvalsh_fn, (REP,), ref=lambda: jax().grad(jaxify(eigvalsh_fn))(REP), tol=1e-10))


def lse_inf(x):
    return np.log(np.sum(np.exp(x)))


add(G("r15_logsumexp_with_minus_inf", lse_inf, (np.array([-np.inf, 0.0, 1.0]),), ref=lambda: jax().grad(jaxify(lse_inf))(np.array([-np.inf, 0.0, 1.0])), tol=1e-14))


def atan2_fn(p):
    return np.arctan2(p[1], p[0])


add(G("r15_arctan2_near_origin", atan2_fn, (np.array([1e-200, 1e-200]),), ref=lambda: jax().grad(jaxify(atan2_fn))(np.array([1e-200, 1e-200])), tol=1e-12))
add(G("r15_arctan2_at_origin", atan2_fn, (np.array([0.0, 0.0]),), ref=lambda: jax().grad(jaxify(atan2_fn))(np.array([0.0, 0.0])), tol=0.0))


def small_expm1(x):
    return np.expm1(x) / x if x != 0 else 1.0 + 0.0 * x


add(G("r15_expm1_over_x_tiny", small_expm1, (1e-9,), ref=lambda: 0.5, tol=1e-6))


def sqrt_sq(x):
    return np.sqrt(x * x)


add(G("r15_sqrt_of_square_at_zero_nan", sqrt_sq, (0.0,), ref=lambda: jax().grad(jaxify(sqrt_sq))(0.0), tol=0.0))


def norm_zero(x):
    return np.linalg.norm(x)


# the subgradient 0 at the zero vector, documented in guide/api.md (JAX gives nan)
add(G("r15_norm_at_zero_vector", norm_zero, (np.zeros(3),), ref=lambda: np.zeros(3), tol=0.0))


def log_at_zero(x):
    return np.sum(np.log(x))


add(G("r15_log_at_zero_inf", log_at_zero, (np.array([0.0, 1.0]),), ref=lambda: np.array([np.inf, 1.0]), tol=0.0))


def max_nan(x):
    return np.max(x)


add(G("r15_max_with_nan", max_nan, (np.array([1.0, np.nan, 0.5]),), ref=lambda: jax().grad(jaxify(max_nan))(np.array([1.0, np.nan, 0.5])), tol=0.0))


def slogdet_neg(A):
    s, l = np.linalg.slogdet(A)
    return l * s


ANEG = np.array([[0.0, 2.0], [1.5, 0.3]])
add(G("r15_slogdet_negative_sign", slogdet_neg, (ANEG,), ref=lambda: -np.linalg.inv(ANEG).T, tol=1e-13))


def inv_ill(A):
    return np.sum(np.linalg.inv(A))


AILL = np.array([[1.0, 1.0], [1.0, 1.0 + 1e-8]])
add(G("r15_inv_ill_conditioned", inv_ill, (AILL,), ref=lambda: jax().grad(jaxify(inv_ill))(AILL), tol=1e-6))
