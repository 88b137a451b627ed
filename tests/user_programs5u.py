"""User programs, corpus 5u: one-line NumPy/SciPy losses in forward mode (jvp against central differences)."""
import numpy as np

from user_programs5_harness import case

try:
    import scipy.linalg as sl
    import scipy.special as ss
except ImportError:  # pragma: no cover
    sl = ss = None

CASES = []
X = np.array([0.35, 0.8, 0.55, 0.2])
V = np.array([0.3, -1.2, 0.7, 0.45])

def f_sin(v):
    return np.sum(np.sin(v) * v)

CASES.append(case("fwd_sin", f_sin, (X,), t="jvp", tangents=V, tol=1e-5))

def f_arcsin(v):
    return np.sum(np.arcsin(v))

CASES.append(case("fwd_arcsin", f_arcsin, (X,), t="jvp", tangents=V, tol=1e-5))

def f_arccos(v):
    return np.sum(np.arccos(v))

CASES.append(case("fwd_arccos", f_arccos, (X,), t="jvp", tangents=V, tol=1e-5))

def f_arctanh(v):
    return np.sum(np.arctanh(v))

CASES.append(case("fwd_arctanh", f_arctanh, (X,), t="jvp", tangents=V, tol=1e-5))

def f_arccosh(v):
    return np.sum(np.arccosh(v + 1.5))

CASES.append(case("fwd_arccosh", f_arccosh, (X,), t="jvp", tangents=V, tol=1e-5))

def f_tan(v):
    return np.sum(np.tan(v))

CASES.append(case("fwd_tan", f_tan, (X,), t="jvp", tangents=V, tol=1e-5))

def f_logaddexp(v):
    return np.sum(np.logaddexp(v, v[::-1] * 2))

CASES.append(case("fwd_logaddexp", f_logaddexp, (X,), t="jvp", tangents=V, tol=1e-5))

def f_logaddexp2(v):
    return np.sum(np.logaddexp2(v, 0.3))

CASES.append(case("fwd_logaddexp2", f_logaddexp2, (X,), t="jvp", tangents=V, tol=1e-5))

def f_arctan2(v):
    return np.sum(np.arctan2(v, v[::-1]))

CASES.append(case("fwd_arctan2", f_arctan2, (X,), t="jvp", tangents=V, tol=1e-5))

def f_hypot(v):
    return np.sum(np.hypot(v, v ** 2))

CASES.append(case("fwd_hypot", f_hypot, (X,), t="jvp", tangents=V, tol=1e-5))

def f_power(v):
    return np.sum(np.power(v, v))

CASES.append(case("fwd_power", f_power, (X,), t="jvp", tangents=V, tol=1e-5))

def f_float_power(v):
    return np.sum(np.float_power(v, 1.5))

CASES.append(case("fwd_float_power", f_float_power, (X,), t="jvp", tangents=V, tol=1e-5))

def f_cbrt(v):
    return np.sum(np.cbrt(v - 0.5))

CASES.append(case("fwd_cbrt", f_cbrt, (X,), t="jvp", tangents=V, tol=1e-5))

def f_sinc(v):
    return np.sum(np.sinc(v))

CASES.append(case("fwd_sinc", f_sinc, (X,), t="jvp", tangents=V, tol=1e-5))

def f_exp2(v):
    return np.sum(np.exp2(v))

CASES.append(case("fwd_exp2", f_exp2, (X,), t="jvp", tangents=V, tol=1e-5))

def f_log2(v):
    return np.sum(np.log2(v))

CASES.append(case("fwd_log2", f_log2, (X,), t="jvp", tangents=V, tol=1e-5))

def f_log10(v):
    return np.sum(np.log10(v))

CASES.append(case("fwd_log10", f_log10, (X,), t="jvp", tangents=V, tol=1e-5))

def f_expm1(v):
    return np.sum(np.expm1(v))

CASES.append(case("fwd_expm1", f_expm1, (X,), t="jvp", tangents=V, tol=1e-5))

def f_log1p(v):
    return np.sum(np.log1p(v))

CASES.append(case("fwd_log1p", f_log1p, (X,), t="jvp", tangents=V, tol=1e-5))

def f_reciprocal(v):
    return np.sum(np.reciprocal(v))

CASES.append(case("fwd_reciprocal", f_reciprocal, (X,), t="jvp", tangents=V, tol=1e-5))

def f_square(v):
    return np.sum(np.square(v))

CASES.append(case("fwd_square", f_square, (X,), t="jvp", tangents=V, tol=1e-5))

def f_maximum(v):
    return np.sum(np.maximum(v, 0.5))

CASES.append(case("fwd_maximum", f_maximum, (X,), t="jvp", tangents=V, tol=1e-5))

def f_minimum(v):
    return np.sum(np.minimum(v, v[::-1]))

CASES.append(case("fwd_minimum", f_minimum, (X,), t="jvp", tangents=V, tol=1e-5))

def f_clip(v):
    return np.sum(np.clip(v, 0.3, 0.6))

CASES.append(case("fwd_clip", f_clip, (X,), t="jvp", tangents=V, tol=1e-5))

def f_where(v):
    return np.sum(np.where(v > 0.5, v ** 2, -v))

CASES.append(case("fwd_where", f_where, (X,), t="jvp", tangents=V, tol=1e-5))

def f_abs(v):
    return np.sum(np.abs(v - 0.5))

CASES.append(case("fwd_abs", f_abs, (X,), t="jvp", tangents=V, tol=1e-5))

def f_mean(v):
    return np.mean(v ** 2)

CASES.append(case("fwd_mean", f_mean, (X,), t="jvp", tangents=V, tol=1e-5))

def f_var(v):
    return np.var(v)

CASES.append(case("fwd_var", f_var, (X,), t="jvp", tangents=V, tol=1e-5))

def f_std(v):
    return np.std(v)

CASES.append(case("fwd_std", f_std, (X,), t="jvp", tangents=V, tol=1e-5))

def f_median(v):
    return np.median(v)

CASES.append(case("fwd_median", f_median, (X,), t="jvp", tangents=V, tol=1e-5))

def f_quantile(v):
    return np.quantile(v, 0.3)

CASES.append(case("fwd_quantile", f_quantile, (X,), t="jvp", tangents=V, tol=1e-5))

def f_percentile(v):
    return np.percentile(v, 70)

CASES.append(case("fwd_percentile", f_percentile, (X,), t="jvp", tangents=V, tol=1e-5))

def f_max(v):
    return np.max(v) + np.min(v)

CASES.append(case("fwd_max", f_max, (X,), t="jvp", tangents=V, tol=1e-5))

def f_amax(v):
    return np.amax(v * v)

CASES.append(case("fwd_amax", f_amax, (X,), t="jvp", tangents=V, tol=1e-5))

def f_cumsum(v):
    return np.sum(np.cumsum(v) ** 2)

CASES.append(case("fwd_cumsum", f_cumsum, (X,), t="jvp", tangents=V, tol=1e-5))

def f_cumprod(v):
    return np.sum(np.cumprod(v))

CASES.append(case("fwd_cumprod", f_cumprod, (X,), t="jvp", tangents=V, tol=1e-5))

def f_prod(v):
    return np.prod(v)

CASES.append(case("fwd_prod", f_prod, (X,), t="jvp", tangents=V, tol=1e-5))

def f_diff(v):
    return np.sum(np.diff(v) ** 2)

CASES.append(case("fwd_diff", f_diff, (X,), t="jvp", tangents=V, tol=1e-5))

def f_sort(v):
    return np.sum(np.sort(v) * np.arange(4.0))

CASES.append(case("fwd_sort", f_sort, (X,), t="jvp", tangents=V, tol=1e-5))

def f_norm(v):
    return np.linalg.norm(v)

CASES.append(case("fwd_norm", f_norm, (X,), t="jvp", tangents=V, tol=1e-5))

def f_norm1(v):
    return np.linalg.norm(v, 1)

CASES.append(case("fwd_norm1", f_norm1, (X,), t="jvp", tangents=V, tol=1e-5))

def f_norminf(v):
    return np.linalg.norm(v, np.inf)

CASES.append(case("fwd_norminf", f_norminf, (X,), t="jvp", tangents=V, tol=1e-5))

def f_dot(v):
    return np.dot(v, v[::-1])

CASES.append(case("fwd_dot", f_dot, (X,), t="jvp", tangents=V, tol=1e-5))

def f_outer(v):
    return np.sum(np.outer(v, v) ** 2)

CASES.append(case("fwd_outer", f_outer, (X,), t="jvp", tangents=V, tol=1e-5))

def f_kron(v):
    return np.sum(np.kron(v, v) * np.arange(16.0))

CASES.append(case("fwd_kron", f_kron, (X,), t="jvp", tangents=V, tol=1e-5))

def f_convolve(v):
    return np.sum(np.convolve(v, v) ** 2)

CASES.append(case("fwd_convolve", f_convolve, (X,), t="jvp", tangents=V, tol=1e-5))

def f_convolve_same(v):
    return np.sum(np.convolve(v, np.array([1.0, 2.0]), mode='same') ** 2)

CASES.append(case("fwd_convolve_same", f_convolve_same, (X,), t="jvp", tangents=V, tol=1e-5))

def f_interp(v):
    return np.sum(np.interp(v, np.array([0.0, 0.5, 1.0]), np.array([0.0, 2.0, 1.0])))

CASES.append(case("fwd_interp", f_interp, (X,), t="jvp", tangents=V, tol=1e-5))

def f_interp_fp(v):
    return np.sum(np.interp(np.array([0.25, 0.75]), np.array([0.0, 0.5, 1.0, 1.5]), v))

CASES.append(case("fwd_interp_fp", f_interp_fp, (X,), t="jvp", tangents=V, tol=1e-5))

def f_gradient(v):
    return np.sum(np.gradient(v) ** 2)

CASES.append(case("fwd_gradient", f_gradient, (X,), t="jvp", tangents=V, tol=1e-5))

def f_trapz(v):
    return np.trapezoid(v ** 2)

CASES.append(case("fwd_trapz", f_trapz, (X,), t="jvp", tangents=V, tol=1e-5))

def f_polyval(v):
    return np.polyval(v, 0.7)

CASES.append(case("fwd_polyval", f_polyval, (X,), t="jvp", tangents=V, tol=1e-5))

def f_average(v):
    return np.average(v, weights=v ** 2)

CASES.append(case("fwd_average", f_average, (X,), t="jvp", tangents=V, tol=1e-5))

def f_cov(v):
    return np.sum(np.cov(v.reshape(2, 2)))

CASES.append(case("fwd_cov", f_cov, (X,), t="jvp", tangents=V, tol=1e-5))

def f_tile(v):
    return np.sum(np.tile(v, 2) * np.arange(8.0))

CASES.append(case("fwd_tile", f_tile, (X,), t="jvp", tangents=V, tol=1e-5))

def f_repeat(v):
    return np.sum(np.repeat(v, 2) * np.arange(8.0))

CASES.append(case("fwd_repeat", f_repeat, (X,), t="jvp", tangents=V, tol=1e-5))

def f_roll(v):
    return np.sum(np.roll(v, 1) * np.arange(4.0))

CASES.append(case("fwd_roll", f_roll, (X,), t="jvp", tangents=V, tol=1e-5))

def f_pad(v):
    return np.sum(np.pad(v, 1, mode='reflect') * np.arange(6.0))

CASES.append(case("fwd_pad", f_pad, (X,), t="jvp", tangents=V, tol=1e-5))

def f_flip(v):
    return np.sum(np.flip(v) * np.arange(4.0))

CASES.append(case("fwd_flip", f_flip, (X,), t="jvp", tangents=V, tol=1e-5))

def f_linspace(v):
    return np.sum(np.linspace(v[0], v[1], 5) ** 2)

CASES.append(case("fwd_linspace", f_linspace, (X,), t="jvp", tangents=V, tol=1e-5))

def f_concat(v):
    return np.sum(np.concatenate([v, v ** 2]) * np.arange(8.0))

CASES.append(case("fwd_concat", f_concat, (X,), t="jvp", tangents=V, tol=1e-5))

def f_stack(v):
    return np.sum(np.stack([v, v ** 2]) ** 2)

CASES.append(case("fwd_stack", f_stack, (X,), t="jvp", tangents=V, tol=1e-5))

def f_split(v):
    return np.sum(np.split(v, 2)[1] ** 2)

CASES.append(case("fwd_split", f_split, (X,), t="jvp", tangents=V, tol=1e-5))

def f_einsum(v):
    return np.einsum('i,i->', v, v)

CASES.append(case("fwd_einsum", f_einsum, (X,), t="jvp", tangents=V, tol=1e-5))

def f_tensordot(v):
    return np.tensordot(v, v, axes=1)

CASES.append(case("fwd_tensordot", f_tensordot, (X,), t="jvp", tangents=V, tol=1e-5))

def f_vectorize(v):
    return np.sum(np.vectorize(np.sin)(v))

CASES.append(case("fwd_vectorize", f_vectorize, (X,), t="jvp", tangents=V, tol=1e-5))

def f_logsumexp(v):
    return ss.logsumexp(v)

CASES.append(case("fwd_logsumexp", f_logsumexp, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_expit(v):
    return np.sum(ss.expit(v))

CASES.append(case("fwd_expit", f_expit, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_logit(v):
    return np.sum(ss.logit(v))

CASES.append(case("fwd_logit", f_logit, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_gammaln(v):
    return np.sum(ss.gammaln(v + 1))

CASES.append(case("fwd_gammaln", f_gammaln, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_ndtr(v):
    return np.sum(ss.ndtr(v))

CASES.append(case("fwd_ndtr", f_ndtr, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_ndtri(v):
    return np.sum(ss.ndtri(v))

CASES.append(case("fwd_ndtri", f_ndtri, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_log_ndtr(v):
    return np.sum(ss.log_ndtr(v))

CASES.append(case("fwd_log_ndtr", f_log_ndtr, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_erf(v):
    return np.sum(ss.erf(v))

CASES.append(case("fwd_erf", f_erf, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_erfc(v):
    return np.sum(ss.erfc(v))

CASES.append(case("fwd_erfc", f_erfc, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_xlogy(v):
    return np.sum(ss.xlogy(v, v))

CASES.append(case("fwd_xlogy", f_xlogy, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_xlog1py(v):
    return np.sum(ss.xlog1py(v, v))

CASES.append(case("fwd_xlog1py", f_xlog1py, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_softmax(v):
    return np.sum(ss.softmax(v) * np.arange(4.0))

CASES.append(case("fwd_softmax", f_softmax, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_log_softmax(v):
    return np.sum(ss.log_softmax(v) * np.arange(4.0))

CASES.append(case("fwd_log_softmax", f_log_softmax, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_entr(v):
    return np.sum(ss.entr(v))

CASES.append(case("fwd_entr", f_entr, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_digamma(v):
    return np.sum(ss.digamma(v))

CASES.append(case("fwd_digamma", f_digamma, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_i0(v):
    return np.sum(np.i0(v))

CASES.append(case("fwd_i0", f_i0, (X,), t="jvp", tangents=V, tol=1e-5))

def f_fft(v):
    return np.sum(np.abs(np.fft.fft(v)) ** 2)

CASES.append(case("fwd_fft", f_fft, (X,), t="jvp", tangents=V, tol=1e-5))

def f_ifft(v):
    return np.sum(np.real(np.fft.ifft(v)) * np.arange(4.0))

CASES.append(case("fwd_ifft", f_ifft, (X,), t="jvp", tangents=V, tol=1e-5))

def f_irfft(v):
    return np.sum(np.fft.irfft(v) * np.arange(6.0))

CASES.append(case("fwd_irfft", f_irfft, (X,), t="jvp", tangents=V, tol=1e-5))

def f_quantile_nan(v):
    return np.nanquantile(v, 0.5)

CASES.append(case("fwd_quantile_nan", f_quantile_nan, (X,), t="jvp", tangents=V, tol=1e-5))

def f_nansum(v):
    return np.nansum(v ** 2)

CASES.append(case("fwd_nansum", f_nansum, (X,), t="jvp", tangents=V, tol=1e-5))

def f_cross(v):
    return np.sum(np.cross(v[:3], v[1:]) ** 2)

CASES.append(case("fwd_cross", f_cross, (X,), t="jvp", tangents=V, tol=1e-5))

def f_trace(v):
    return np.trace(np.outer(v, v))

CASES.append(case("fwd_trace", f_trace, (X,), t="jvp", tangents=V, tol=1e-5))

def f_triu(v):
    return np.sum(np.triu(np.outer(v, v)))

CASES.append(case("fwd_triu", f_triu, (X,), t="jvp", tangents=V, tol=1e-5))

def f_matpow(v):
    return np.sum(np.linalg.matrix_power(v.reshape(2, 2), 3))

CASES.append(case("fwd_matpow", f_matpow, (X,), t="jvp", tangents=V, tol=1e-5))

def f_inv(v):
    return np.sum(np.linalg.inv(v.reshape(2, 2) + 2 * np.eye(2)))

CASES.append(case("fwd_inv", f_inv, (X,), t="jvp", tangents=V, tol=1e-5))

def f_det(v):
    return np.linalg.det(v.reshape(2, 2))

CASES.append(case("fwd_det", f_det, (X,), t="jvp", tangents=V, tol=1e-5))

def f_slogdet(v):
    return np.linalg.slogdet(v.reshape(2, 2) + np.eye(2))[1]

CASES.append(case("fwd_slogdet", f_slogdet, (X,), t="jvp", tangents=V, tol=1e-5))

def f_solve(v):
    return np.sum(np.linalg.solve(v.reshape(2, 2) + np.eye(2), np.array([1.0, 2.0])))

CASES.append(case("fwd_solve", f_solve, (X,), t="jvp", tangents=V, tol=1e-5))

def f_cholesky(v):
    return np.sum(np.linalg.cholesky(np.outer(v[:2], v[:2]) + np.eye(2)))

CASES.append(case("fwd_cholesky", f_cholesky, (X,), t="jvp", tangents=V, tol=1e-5))

def f_eigh(v):
    return np.sum(np.linalg.eigh(np.outer(v[:2], v[2:]) + np.outer(v[2:], v[:2]) + np.diag([1.0, 3.0]))[0] ** 2)

CASES.append(case("fwd_eigh", f_eigh, (X,), t="jvp", tangents=V, tol=1e-5))

def f_svd(v):
    return np.sum(np.linalg.svd(v.reshape(2, 2), compute_uv=False))

CASES.append(case("fwd_svd", f_svd, (X,), t="jvp", tangents=V, tol=1e-5))

def f_pinv(v):
    return np.sum(np.linalg.pinv(v.reshape(2, 2)))

CASES.append(case("fwd_pinv", f_pinv, (X,), t="jvp", tangents=V, tol=1e-5))

def f_lstsq(v):
    return np.sum(np.linalg.lstsq(v.reshape(2, 2), np.array([1.0, 2.0]), rcond=None)[0])

CASES.append(case("fwd_lstsq", f_lstsq, (X,), t="jvp", tangents=V, tol=1e-5))

def f_expm(v):
    return np.sum(sl.expm(v.reshape(2, 2)))

CASES.append(case("fwd_expm", f_expm, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_cho(v):
    return np.sum(sl.cho_solve(sl.cho_factor(np.outer(v[:2], v[:2]) + np.eye(2)), np.array([1.0, 2.0])))

CASES.append(case("fwd_cho", f_cho, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_lu(v):
    return np.sum(sl.lu_solve(sl.lu_factor(v.reshape(2, 2) + np.eye(2)), np.array([1.0, 2.0])))

CASES.append(case("fwd_lu", f_lu, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

def f_soltri(v):
    return np.sum(sl.solve_triangular(np.triu(v.reshape(2, 2)) + np.eye(2), np.array([1.0, 2.0])))

CASES.append(case("fwd_soltri", f_soltri, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))

