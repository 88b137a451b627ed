"""Round 12, part p: derivatives at special points -- zeros in products, ties in max/sort/
clip, removable singularities, -inf in log-sum-exp, NaN-aware reductions, knots of interp;
the references are closed forms (JAX's answers where they are defined)."""
import math

import numpy as np
try:
    from scipy.special import erfinv, logsumexp
except ImportError:      # SciPy is optional (an extra): its cases are left out
    erfinv = logsumexp = None

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401

CASES = []
add = CASES.append


def P(name, f, x, expect, tol=1e-14):
    add(pair(name, lambda: revsrc.grad(f)(x), lambda: expect, tol=tol))


def prod_(x):
    return np.prod(x)


P("r12_prod_one_zero", prod_, np.array([0.0, 2.0, 3.0]), np.array([6.0, 0.0, 0.0]))
P("r12_prod_two_zeros", prod_, np.array([0.0, 0.0, 3.0]), np.zeros(3))


def cumprod_(x):
    return np.sum(np.cumprod(x))


P("r12_cumprod_with_zero", cumprod_, np.array([2.0, 0.0, 3.0]), np.array([1.0, 8.0, 0.0]))


def zero_pow(x):
    return 0.0 ** x


P("r12_zero_to_the_x", zero_pow, 2.0, 0.0)


def pow0(x):
    return np.sum(np.power(x, 0.0))


P("r12_x_to_the_zero_at_zero", pow0, np.array([0.0, 1.0]), np.zeros(2), tol=0.0)


def median_(x):
    return np.median(x)


P("r12_median_even_length", median_, np.array([3.0, 1.0, 2.0, 4.0]), np.array([0.5, 0.0, 0.5, 0.0]))


def sort_w(x):
    return np.sum(np.sort(x) * np.arange(4.0))


P("r12_sort_with_ties", sort_w, np.array([1.0, 1.0, 2.0, 0.0]), np.array([1.0, 2.0, 3.0, 0.0]))


def max_(x):
    return np.max(x)


P("r12_np_max_ties_split", max_, np.array([1.0, 2.0, 2.0]), np.array([0.0, 0.5, 0.5]))


def clip_(x):
    return np.sum(np.clip(x, 0.0, 1.0))


P("r12_clip_at_bounds", clip_, np.array([0.0, 1.0, 0.5]), np.array([0.5, 0.5, 1.0]))


def pow15(x):
    return x ** 1.5


P("r12_pow_1p5_at_zero", pow15, 0.0, 0.0)


def lse_ninf(x):
    return np.log(np.sum(np.exp(x)))


P("r12_logsumexp_neg_inf_entry", lse_ninf, np.array([-np.inf, 0.0]), np.array([0.0, 1.0]))


def scipy_lse(x):
    return logsumexp(x)


if logsumexp is not None:
    P("r12_scipy_logsumexp_neg_inf", scipy_lse, np.array([-np.inf, 0.0, 1.0]),
      np.array([0.0, 1 / (1 + math.e), math.e / (1 + math.e)]))


def min_tie(x):
    return np.sum(np.minimum(x, 1.0))


P("r12_minimum_tie_half", min_tie, np.array([1.0, 0.5]), np.array([0.5, 1.0]))


def var_(x):
    return np.var(x)


P("r12_var_constant_input", var_, np.ones(3), np.zeros(3))


def removable(x):
    return math.sinh(x) / x if x != 0 else 1.0


P("r12_removable_singularity_branch", removable, 0.0, 0.0)
P("r12_removable_singularity_away", removable, 0.5, (0.5 * math.cosh(0.5) - math.sinh(0.5)) / 0.25, tol=1e-14)


def sinc_(x):
    return np.sum(np.sinc(x))


P("r12_sinc_at_zero", sinc_, np.array([0.0, 0.5]), np.array([0.0, -4 / math.pi]))


def round_trunc(x):
    return np.sum(np.round(x) + np.trunc(x) * x)


P("r12_round_trunc_piecewise", round_trunc, np.array([1.5, 2.7]), np.array([1.0, 2.0]))


def fmax_(x):
    return np.sum(np.fmax(x, 0.0))


P("r12_fmax_skips_nan", fmax_, np.array([np.nan, 2.0, -1.0]), np.array([0.0, 1.0, 0.0]), tol=0.0)


def float_power_(x):
    return np.sum(np.float_power(x, 3))


P("r12_float_power_int_exp_negative_base", float_power_, np.array([-1.0, 2.0]), np.array([3.0, 12.0]))


def cbrt_(x):
    return np.sum(np.cbrt(x))


P("r12_cbrt_negative", cbrt_, np.array([-8.0, 1.0]), np.array([1 / 12, 1 / 3]))


def copysign_(x):
    return np.sum(np.copysign(x, -1.0))


P("r12_copysign", copysign_, np.array([2.0, -3.0]), np.array([-1.0, 1.0]))


def interp_fp(x):
    return np.sum(np.interp([0.5, 1.5], [0.0, 1.0, 2.0], x))


P("r12_interp_wrt_values", interp_fp, np.array([1.0, 3.0, 2.0]), np.array([0.5, 1.0, 0.5]))


def interp_x(x):
    return np.sum(np.interp(x, [0.0, 1.0, 2.0], [1.0, 3.0, 2.0]))


P("r12_interp_wrt_x_at_knot", interp_x, np.array([1.0, 0.5]), np.array([-1.0, 2.0]))


def diff2(x):
    return np.sum(np.diff(x, n=2) ** 2)


P("r12_diff_second_order", diff2, np.array([1.0, 4.0, 2.0, 8.0]), np.array([-10.0, 36.0, -42.0, 16.0]))


def kron_(x):
    return np.sum(np.kron(x, x) * np.array([1.0, 2.0, 3.0, 4.0]))


P("r12_kron_weighted", kron_, np.array([1.0, 2.0]), np.array([2 * 1 + (2 + 3) * 2, (2 + 3) * 1 + 2 * 4 * 2]))


def det_sing(A):
    return np.linalg.det(A)


P("r12_det_singular_matrix_adjugate", det_sing, np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[4.0, -2.0], [-2.0, 1.0]]))


def heaviside_(x):
    return np.sum(np.heaviside(x, 0.5) * x)


P("r12_heaviside_times_x", heaviside_, np.array([0.0, 2.0, -1.0]), np.array([0.5, 1.0, 0.0]))


def norm_zero(x):
    return np.linalg.norm(x)


# at the origin any vector of norm <= 1 is a subgradient (JAX: nan)
add(pair("r12_norm_at_zero_subgradient", lambda: bool(np.linalg.norm(revsrc.grad(norm_zero)(np.zeros(3))) <= 1.0),
         lambda: True, tol=0.0))


def hypot_zero(x):
    return np.sum(np.hypot(x, 0.0))


# np.hypot(x, 0) = |x|: a subgradient in [-1, 1] at 0, as np.linalg.norm gives (JAX says 0.5)
add(pair("r12_np_hypot_at_origin_subgradient", lambda: bool(abs(revsrc.grad(hypot_zero)(np.array([0.0, -3.0]))[0]) <= 1.0),
         lambda: True, tol=0.0))


def math_hypot_zero(x):
    return math.hypot(x, 0.0)


add(pair("r12_math_hypot_at_origin_subgradient", lambda: abs(revsrc.grad(math_hypot_zero)(0.0)) <= 1.0, lambda: True, tol=0.0))


def select_(x):
    return np.sum(np.select([x < 0, x > 1], [x ** 2, np.sqrt(np.abs(x))], default=x))


P("r12_np_select_three_way", select_, np.array([-0.5, 3.0, 0.4]), np.array([-1.0, 0.5 / math.sqrt(3.0), 1.0]))


def _no_rule(name, f, x):
    add(pair(name, lambda: revsrc.grad(f)(x), lambda: None, tol=0.0))


# library functions with no rule (E202, documented kind): the users' calls as written
_M = np.array([[0.3, 0.1], [-0.2, 0.4]])
if erfinv is not None:
    _no_rule("r12_norule_scipy_erfinv", lambda x: np.sum(erfinv(x)), np.array([0.1, 0.5]))
_no_rule("r12_norule_eigvals", lambda A: np.sum(np.linalg.eigvals(A).real), _M)
_no_rule("r12_norule_correlate", lambda x: np.sum(np.correlate(x, np.array([1.0, -2.0]), "valid") ** 2), np.array([0.5, 2.5, -1.0]))
_no_rule("r12_norule_corrcoef", lambda X: np.corrcoef(X)[0, 1], np.array([[0.5, 2.5, -1.0], [0.3, 0.1, 0.7]]))
_no_rule("r12_norule_ptp", lambda x: np.ptp(x), np.array([0.5, 2.5, -1.0]))
_no_rule("r12_norule_multi_dot", lambda A: np.sum(np.linalg.multi_dot([A, A, A])), _M)
_no_rule("r12_norule_block", lambda A: np.sum(np.block([[A, A], [A.T, np.eye(2)]]) ** 2), _M)
