"""User programs, corpus 7f: edge values -- zeros, infinities and NaNs in the inputs,
empty arrays, huge and subnormal magnitudes, exact ties in max/abs/sort/clip/median,
float32 / float64 / int mixes (and the dtype of the gradient), complex intermediates
with real outputs.  References: JAX x64 running the same source (its conventions at
ties and infinities), closed forms, self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, fd_checked, jax, jaxify, pair

CASES = []


def _dtype_of(thunk):
    """The dtype's name as bytes (the harness skips strings when it compares)."""
    return lambda: np.frombuffer(np.asarray(thunk()).dtype.name.encode(), dtype=np.uint8).copy()


def _name(s):
    return lambda: np.frombuffer(s.encode(), dtype=np.uint8).copy()


# -- huge and tiny magnitudes ----------------------------------------------------------------

def square_mul(x):
    return x * x


CASES.append(G("r7_square_value_overflows_grad_finite", square_mul, (1e200,), ref=lambda: 2e200, tol=1e-12))


def sqrt_subnormal(x):
    return math.sqrt(x)


CASES.append(G("r7_sqrt_at_subnormal", sqrt_subnormal, (1e-310,), ref=lambda: 0.5 / math.sqrt(1e-310), tol=1e-12))


def hand_logsumexp_huge(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


XH = np.array([1000.0, 1000.0, 999.0])
CASES.append(G("r7_logsumexp_huge_with_tie", hand_logsumexp_huge, (XH,), ref="jax", tol=1e-12))


def naive_logsumexp_overflow(x):
    return np.log(np.sum(np.exp(x)))


# exp overflows to inf: JAX gives nan (inf / inf)
CASES.append(G("r7_naive_logsumexp_overflow_vs_jax", naive_logsumexp_overflow, (XH,), ref="jax", tol=1e-12))


def exp_tiny_ratio(x):
    return np.exp(-x) / (np.exp(-x) + np.exp(-2 * x))


CASES.append(G("r7_exp_underflow_ratio_vs_jax", exp_tiny_ratio, (800.0,), ref="jax", tol=1e-12))


# np.float64 arithmetic divides by zero into inf / nan with a warning (Python floats raise
# ZeroDivisionError, NumPy scalars do not): the plain call returns a number
def recip_np_sin(x):
    return 1.0 / np.sin(x)


def np_ratio_same(x):
    return np.sqrt(x) / np.sqrt(x)


CASES.append(pair("r7_np_scalar_div_zero_value_and_grad", lambda: revsrc.value_and_grad(recip_np_sin)(0.0),
                  lambda: (math.inf, -math.inf), tol=0.0))
CASES.append(pair("r7_np_scalar_div_zero_nan_grad", lambda: revsrc.value_and_grad(np_ratio_same)(0.0),
                  lambda: (math.nan, math.nan), tol=0.0))
CASES.append(pair("r7_np_scalar_div_zero_python_backend",
                  lambda: revsrc.value_and_grad(recip_np_sin, backend="python")(0.0),
                  lambda: (math.inf, -math.inf), tol=0.0))
CASES.append(pair("r7_np_scalar_div_zero_jit", lambda: revsrc.jit(recip_np_sin)(0.0),
                  lambda: recip_np_sin(0.0), tol=0.0))
CASES.append(pair("r7_np_scalar_div_zero_vmap", lambda: revsrc.vmap(recip_np_sin)(np.array([0.0, 1.0])),
                  lambda: np.array([recip_np_sin(0.0), recip_np_sin(1.0)]), tol=0.0))
CASES.append(pair("r7_np_scalar_div_zero_jvp", lambda: revsrc.jvp(recip_np_sin, (0.0,), (1.0,)),
                  lambda: (math.inf, -math.inf), tol=0.0))

# -- infinities and NaNs in inputs ---------------------------------------------------------------


def exp_neg(x):
    return np.sum(np.exp(-x) * np.array([1.0, 2.0]))


CASES.append(G("r7_exp_neg_at_inf_input", exp_neg, (np.array([np.inf, 1.0]),), ref="jax", tol=1e-12))


def relu_branch(x):
    if x > 0.0:
        return x * x
    return 0.0 * x


CASES.append(G("r7_branch_on_nan_input", relu_branch, (math.nan,), ref=lambda: 0.0, tol=0.0))


def nan_aware(x):
    return np.nansum(x ** 2) + np.nanmean(x)


def nan_max(x):
    return np.nanmax(x) + np.nanmin(x)


XN = np.array([1.0, np.nan, 3.0, -2.0])
# the NaN entry is skipped whatever it is nudged to: gradient 0 (JAX gives nan there)
CASES.append(G("r7_nansum_nanmean_with_nan", nan_aware, (XN,),
               ref=lambda: np.where(np.isnan(XN), 0.0, 2 * XN + 1 / 3), tol=1e-12))
CASES.append(G("r7_nanmax_nanmin_with_nan", nan_max, (XN,), ref="jax", tol=1e-12))


def arctan_at_inf(x):
    return np.sum(np.arctan(x) + np.tanh(x))


CASES.append(G("r7_arctan_tanh_at_pm_inf", arctan_at_inf, (np.array([np.inf, -np.inf, 0.0]),), ref="jax", tol=1e-12))


def log_at_zero(x):
    return np.log(x)


CASES.append(G("r7_log_at_zero_grad_inf", log_at_zero, (0.0,), ref=lambda: math.inf, tol=0.0))


def xlogx_where(x):
    return np.sum(np.where(x > 0.0, x * np.log(np.where(x > 0.0, x, 1.0)), 0.0))


CASES.append(G("r7_xlogx_double_where_at_zero", xlogx_where, (np.array([0.0, 0.5, 2.0]),), ref="jax", tol=1e-12))

# -- empty arrays ---------------------------------------------------------------------------------


def empty_sum_sq(x):
    return np.sum(x ** 2) + 1.0


CASES.append(pair("r7_empty_vector_grad_shape", lambda: revsrc.grad(empty_sum_sq)(np.zeros(0)),
                  lambda: np.zeros(0), tol=0.0))


def empty_matmul(W, X):
    return np.sum(np.tanh(X @ W)) + np.sum(W)


CASES.append(pair("r7_empty_batch_matmul_grad", lambda: revsrc.grad(empty_matmul)(np.ones((3, 2)), np.zeros((0, 3))),
                  lambda: np.ones((3, 2)), tol=0.0))


def loop_over_empty_rows(X, w):
    s = 0.5 * np.sum(w)
    for row in X:
        s = s + np.dot(row, w) ** 2
    return s


CASES.append(pair("r7_loop_over_zero_rows", lambda: revsrc.grad(loop_over_empty_rows, argnums=1)(np.zeros((0, 2)),
                                                                                               np.ones(2)),
                  lambda: np.full(2, 0.5), tol=0.0))


def empty_mean(x):
    return np.mean(x) if x.size else 0.0 * np.sum(x)


CASES.append(pair("r7_empty_guarded_mean", lambda: revsrc.value_and_grad(empty_mean)(np.zeros(0)),
                  lambda: (0.0, np.zeros(0)), tol=0.0))


def empty_concat(x):
    y = np.concatenate([x[:0], x, np.zeros(0)])
    return np.sum(y ** 3)


CASES.append(G("r7_concat_with_empty_pieces", empty_concat, (np.array([1.0, -2.0]),), ref="jax", tol=1e-12))

# -- ties ------------------------------------------------------------------------------------


def max_ties(x):
    return np.max(x) + np.min(x) * 2.0


CASES.append(G("r7_max_min_all_tied_vs_jax", max_ties, (np.array([2.0, 2.0, 2.0, 2.0]),), ref="jax", tol=1e-12))


def maximum_tie(x, y):
    return np.sum(np.maximum(x, y) * np.array([1.0, 2.0]))


# at a tie any split (t, 1 - t) is a subgradient (JAX splits in half): check the sum over
# both arguments, which every convention fixes, and that each part lies in [0, weight]
def _tie_split(gx, gy, w):
    gx, gy = np.asarray(gx), np.asarray(gy)
    inside = bool(np.all((gx >= 0) & (gx <= w) & (gy >= 0) & (gy <= w)))
    return (gx + gy, inside)


W12 = np.array([1.0, 2.0])
CASES.append(pair("r7_maximum_elementwise_tie_split",
                  lambda: _tie_split(*revsrc.grad(maximum_tie, argnums=(0, 1))(np.array([1.0, 3.0]),
                                                                                 np.array([1.0, 3.0])), W12),
                  lambda: (W12, True), tol=1e-12))


def clip_at_bounds(x):
    return np.sum(np.clip(x, -1.0, 1.0) * np.array([1.0, 2.0, 3.0]))


# at a bound the one-sided slopes are 0 and 1: any value in [0, 1] times the weight
def _clip_ok():
    g = revsrc.grad(clip_at_bounds)(np.array([-1.0, 1.0, 0.0]))
    return (bool(0.0 <= g[0] <= 1.0 and 0.0 <= g[1] <= 2.0), g[2])


CASES.append(pair("r7_clip_exactly_at_bounds_subgradient", _clip_ok, lambda: (True, 3.0), tol=1e-12))


def abs_at_zero(x):
    return np.sum(np.abs(x)) + abs(x[0])


def _abs_ok():
    g = revsrc.grad(abs_at_zero)(np.array([0.0, -0.0, 1.0]))
    return (bool(-2.0 <= g[0] <= 2.0 and -1.0 <= g[1] <= 1.0), g[2])


CASES.append(pair("r7_abs_at_signed_zeros_subgradient", _abs_ok, lambda: (True, 1.0), tol=1e-12))


def median_ties(x):
    return np.median(x)


CASES.append(G("r7_median_even_with_tie", median_ties, (np.array([3.0, 1.0, 2.0, 2.0]),), ref="jax", tol=1e-12))


def sort_ties_weighted(x):
    return np.sum(np.sort(x) * np.array([1.0, 10.0, 100.0]))


# JAX's sort sends each tied output's cotangent to one input; the sum over the tie is fixed
def _sort_ties_ref():
    g = np.asarray(jax().grad(jaxify(sort_ties_weighted))(np.array([5.0, 5.0, 1.0])))
    return np.array([g[0] + g[1], g[2]])


CASES.append(pair("r7_sort_ties_total_over_tie",
                  lambda: (lambda g: np.array([g[0] + g[1], g[2]]))(
                      revsrc.grad(sort_ties_weighted)(np.array([5.0, 5.0, 1.0]))),
                  _sort_ties_ref, tol=1e-12))

# -- dtypes ----------------------------------------------------------------------------------


def f32_poly(x):
    return np.sum(x ** 3 - 2.0 * x)


X32 = np.array([0.5, -1.25, 2.0], dtype=np.float32)
CASES.append(pair("r7_float32_grad_keeps_dtype", _dtype_of(lambda: revsrc.grad(f32_poly)(X32)),
                  _name("float32"), tol=0.0))
CASES.append(G("r7_float32_grad_value", f32_poly, (X32,), ref=lambda: 3 * X32.astype(float) ** 2 - 2.0, tol=1e-6))


def f32_times_f64_scalar(x):
    return np.sum(x * np.float64(1.5) + x ** 2)


CASES.append(pair("r7_float32_with_np_float64_scalar_dtype",
                  _dtype_of(lambda: revsrc.grad(f32_times_f64_scalar)(X32)), _name("float32"), tol=0.0))


def int_array_mix(x):
    k = np.arange(3)
    return np.sum(x ** k) + np.sum(k // 2 * x)


CASES.append(G("r7_int_exponent_array_pow", int_array_mix, (np.array([2.0, 3.0, 0.5]),), ref="jax", tol=1e-12))


def float16_input(x):
    return np.sum(x.astype(np.float64) ** 2)


CASES.append(pair("r7_float16_argument",
                  lambda: revsrc.grad(float16_input)(np.array([1.0, 2.5], dtype=np.float16)).astype(float),
                  lambda: np.array([2.0, 5.0]), tol=0.0))

# -- complex intermediates, real outputs -------------------------------------------------------


def complex_phasor(w):
    z = np.exp(1j * w * np.arange(4.0))
    return np.abs(np.sum(z)) ** 2


CASES.append(G("r7_complex_phasor_abs_squared", complex_phasor, (0.3,), ref="jax", tol=1e-10))


def fft_power(x):
    F = np.fft.fft(x)
    return np.sum(np.abs(F[1:3]) ** 2)


CASES.append(G("r7_fft_power_spectrum", fft_power, (np.array([1.0, -0.5, 2.0, 0.3, 0.9]),), ref="jax", tol=1e-10))


def complex_conj_real(x, y):
    z = x + 1j * y
    w = z * np.conj(z) + (z ** 2).real + np.angle(z)
    return float(np.real(w))


CASES.append(G("r7_complex_conj_angle_real_out", complex_conj_real, (0.7, -0.4), argnums=(0, 1), ref="fd", tol=1e-8))


def cmath_like(x):
    z = complex(x, 1.0)
    return (z * z).imag + abs(z)


CASES.append(G("r7_builtin_complex_constructor", cmath_like, (0.6,), ref=lambda: 2.0 + 0.6 / math.hypot(0.6, 1.0),
               tol=1e-12))

# -- zero-derivative corners -----------------------------------------------------------------


def x_pow_x(x):
    return x ** x


CASES.append(G("r7_x_pow_x_small", x_pow_x, (1e-3,), ref=lambda: 1e-3 ** 1e-3 * (math.log(1e-3) + 1.0), tol=1e-12))


def pow_zero_exponent(x):
    return np.sum(x ** 0.0) + np.sum(np.power(x, 1.0))


# x ** 0.0 is the constant 1 (JAX gives 0 * inf = nan at 0); power(x, 1.0) is x
CASES.append(G("r7_pow_zero_and_one_exponent_at_zero", pow_zero_exponent, (np.array([0.0, 2.0]),),
               ref=lambda: np.array([1.0, 1.0]), tol=1e-12))


def cubic(x):
    return x ** 3 - np.sum(np.sign(x)) * 0.0


CASES.append(H("r7_hessian_cubic_sign_at_zero", cubic, (0.0,), ref=lambda: 0.0, tol=0.0))
CASES.append(JV("r7_jvp_at_inf_tangent_zero", exp_neg, (np.array([np.inf, 1.0]),), (np.array([0.0, 1.0]),),
                ref="jax", tol=1e-12))
