"""User programs, corpus 5s: NumPy functions at their corners (nan-ignoring max, axes, weights)."""
import numpy as np

from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


x = np.array([0.5, -1.0, 2.0, 1.5])
A = np.array([[1.0, 0.3], [-0.5, 2.0]])


def f_norm_neginf(v):
    return np.linalg.norm(v, -np.inf) + np.linalg.norm(v, 0)


add("np_norm_neginf", f_norm_neginf, (x,))


def f_mat_norm_neg(M):
    return np.linalg.norm(M, -1) + np.linalg.norm(M, -2)


add("np_mat_norm_neg", f_mat_norm_neg, (A,))


def f_average_w(w):
    return np.average(np.array([1.0, 2.0, 4.0, 3.0]), weights=w)


add("np_average_w", f_average_w, (np.abs(x),))


def f_cov(v):
    return np.sum(np.cov(v.reshape(2, 2)))


add("np_cov", f_cov, (x,))


def f_corrcoef(v):
    return np.corrcoef(v, v ** 2)[0, 1]


add("np_corrcoef", f_corrcoef, (x,))


def f_polyval(c):
    return np.polyval(c, 1.3)


add("np_polyval", f_polyval, (x,))


def f_polyfit(y):
    return np.sum(np.polyfit(np.arange(4.0), y, 1))


add("np_polyfit", f_polyfit, (x,))


def f_cumprod_axis(M):
    return np.sum(np.cumprod(M, axis=1))


add("np_cumprod_axis", f_cumprod_axis, (A,))


def f_nanmean(v):
    return np.nanmean(np.where(v > 1.8, np.nan, v)) + np.nansum(v)


add("np_nanmean", f_nanmean, (x,))


def f_nanmax(v):
    return np.nanmax(np.where(v > 1.8, np.nan, v))


add("np_nanmax", f_nanmax, (x,))


def f_ptp(v):
    return np.ptp(v)


add("np_ptp", f_ptp, (x,))


def f_logaddexp2(v):
    return np.sum(np.logaddexp2(v, 1.0))


add("np_logaddexp2", f_logaddexp2, (x,))


def f_arctan2(v):
    return np.sum(np.arctan2(v, v[::-1]))


add("np_arctan2", f_arctan2, (x,))


def f_fmax_nan(v):
    return np.sum(np.fmax(v, np.array([np.nan, 0.0, np.nan, 3.0])))


add("np_fmax_nan", f_fmax_nan, (x,))


def f_cbrt_neg(v):
    return np.sum(np.cbrt(v))


add("np_cbrt_neg", f_cbrt_neg, (x,))


def f_exp2_log2(v):
    return np.sum(np.exp2(v) + np.log2(np.abs(v)) + np.log10(np.abs(v)))


add("np_exp2_log2", f_exp2_log2, (x,))


def f_deg_rad(v):
    return np.sum(np.deg2rad(v) * np.rad2deg(v) + np.radians(v))


add("np_deg_rad", f_deg_rad, (x,))


def f_angle_real(v):
    return np.sum(np.angle(v) * v)


add("np_angle_real", f_angle_real, (x,))


def f_float_power(v):
    return np.sum(np.float_power(np.abs(v), 2.5))


add("np_float_power", f_float_power, (x,))


def f_reciprocal(v):
    return np.sum(np.reciprocal(v) + np.negative(v) + np.positive(v) + np.square(v) + np.fabs(v))


add("np_reciprocal", f_reciprocal, (x,))


def f_clip_arrays(v):
    return np.sum(np.clip(v, np.array([0.0, -2.0, 0.0, 0.0]), np.array([1.0, 0.0, 1.0, 2.0])))


add("np_clip_arrays", f_clip_arrays, (x,))


def f_trace_offset(M):
    return np.trace(M, offset=1) + np.sum(np.diag(M, k=-1)) + np.sum(np.diagflat(M[0]))


add("np_trace_offset", f_trace_offset, (A,))


def f_multi_dot(M):
    return np.sum(np.linalg.multi_dot([M, M.T, M]))


add("np_multi_dot", f_multi_dot, (A,))


def f_outer_2d(M):
    return np.sum(np.outer(M, M[0]))


add("np_outer_2d", f_outer_2d, (A,))


def f_matmul_1d2d(v):
    return np.sum(v[:2] @ A) + np.dot(2.0, v[0])


add("np_matmul_1d2d", f_matmul_1d2d, (x,))


def f_prod_axis_zero(M):
    return np.sum(np.prod(M * np.array([[0.0, 1.0], [1.0, 1.0]]), axis=0))


add("np_prod_axis_zero", f_prod_axis_zero, (A,))


def f_sinh_cosh(v):
    return np.sum(np.sinh(v) * np.cosh(v) + np.arcsinh(v) + np.arctan(v))


add("np_sinh_cosh", f_sinh_cosh, (x,))


def f_std_axis_keep(M):
    return np.sum(np.std(M, axis=0, keepdims=True) * np.var(M, axis=1, keepdims=True))


add("np_std_axis_keep", f_std_axis_keep, (A,))


def f_median_axis(M):
    return np.sum(np.median(M, axis=0) * np.array([1.0, 3.0]))


add("np_median_axis", f_median_axis, (A,))


def f_cumsum_axis0(M):
    return np.sum(np.cumsum(M, axis=0) ** 2)


add("np_cumsum_axis0", f_cumsum_axis0, (A,))


def f_expm1_log1p(v):
    return np.sum(np.log1p(np.abs(v)) * np.expm1(v))


add("np_expm1_log1p", f_expm1_log1p, (x,))


def f_linalg_inv_T(M):
    return np.sum(np.linalg.inv(M).T @ M)


add("np_linalg_inv_T", f_linalg_inv_T, (A,))


def f_tensordot_axes(M):
    return np.tensordot(M, M, axes=([0, 1], [1, 0]))


add("np_tensordot_axes", f_tensordot_axes, (A,))


def f_einsum_trace(M):
    return np.einsum('ii', M) + np.einsum('ij,ji->', M, M)


add("np_einsum_trace", f_einsum_trace, (A,))


def f_einsum_diag_out(M):
    return np.sum(np.einsum('ii->i', M) ** 2)


add("np_einsum_diag_out", f_einsum_diag_out, (A,))


N = np.array([np.nan, 0.0, np.nan, 3.0])


def fmax_nan_other(v):
    return np.sum(np.fmax(v, N))           # fmax ignores the nans: [0.5, 0, 2, 3]


add("np_fmax_with_nan", fmax_nan_other, (x,), ref=lambda: [np.array([1.0, 0.0, 1.0, 0.0])])


def fmin_nan_other(v):
    return np.sum(np.fmin(v, N))           # [0.5, -1, 2, 1.5]


add("np_fmin_with_nan", fmin_nan_other, (x,), ref=lambda: [np.ones(4)])


def fmax_nan_first(v):
    return np.sum(np.fmax(N, v))


add("np_fmax_nan_first_argument", fmax_nan_first, (x,), ref=lambda: [np.array([1.0, 0.0, 1.0, 0.0])])


def nan_robust_relu(v):
    clean = np.where(np.isnan(v), np.nan, v)
    return np.nansum(np.fmax(clean, 0.0) ** 2)


add("np_fmax_relu_on_clean_data", nan_robust_relu, (x,))


def sum_dtype32(v):
    return float(np.sum(v, dtype=np.float32))


add("np_sum_dtype_float32", sum_dtype32, (x,), ref=lambda: [np.ones(4)])
