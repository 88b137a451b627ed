"""User programs, corpus 5ab: NumPy functions given the differentiated array by keyword."""
import numpy as np

from user_programs5_harness import case

CASES = []
K = np.array([0.9, 0.2, 0.6, 1.3])
KM = np.array([[1.2, 0.3], [-0.4, 0.9]])
X = np.array([0.35, 0.8, 0.55, 0.2])
V = np.array([0.3, -1.2, 0.7, 0.45])


def q_linspace_start(v):
    return np.sum(np.linspace(start=v[0], stop=2.0, num=4) ** 2)


def q_full_fill(v):
    return np.sum(np.full(shape=3, fill_value=v[0]) * np.arange(3.0))


def q_trapezoid_y(v):
    return np.trapezoid(y=v ** 2, dx=0.1)


def q_polyval_p(v):
    return np.polyval(p=v, x=1.3)


def q_convolve_kw(v):
    return np.sum(np.convolve(a=K, v=v) ** 2)


def q_correlate_kw(v):
    return np.sum(np.correlate(a=v, v=K, mode='full') ** 2)


def q_outer_kw(v):
    return np.sum(np.outer(a=K, b=v) ** 2)


def q_kron_kw(v):
    return np.sum(np.kron(a=K, b=v) * np.arange(16.0))


def q_cross_kw(v):
    return np.sum(np.cross(a=K[:3], b=v[:3]) ** 2)


def q_tensordot_kw(v):
    return np.tensordot(a=K, b=v, axes=1)


def q_inner_kw(v):
    return np.inner(K, v)


def q_solve_kw(v):
    return np.sum(np.linalg.solve(a=KM, b=v[:2]))


def q_inv_kw(v):
    return np.sum(np.linalg.inv(a=v.reshape(2, 2) + 2 * np.eye(2)))


def q_det_kw(v):
    return np.linalg.det(a=v.reshape(2, 2))


def q_cumprod_kw(v):
    return np.sum(np.cumprod(a=v))


def q_diff_kw(v):
    return np.sum(np.diff(a=v) ** 2)


def q_sort_kw(v):
    return np.sum(np.sort(a=v) * np.arange(4.0))


def q_flip_kw(v):
    return np.sum(np.flip(m=v) * np.arange(4.0))


def q_roll_kw(v):
    return np.sum(np.roll(a=v, shift=1) * np.arange(4.0))


def q_tile_kw(v):
    return np.sum(np.tile(A=v, reps=2) * np.arange(8.0))


def q_repeat_kw(v):
    return np.sum(np.repeat(a=v, repeats=2) * np.arange(8.0))


def q_expand_kw(v):
    return np.sum(np.expand_dims(a=v, axis=0) * K)


def q_transpose_kw(v):
    return np.sum(np.transpose(a=v.reshape(2, 2)) * KM)


def q_trace_kw(v):
    return np.trace(a=v.reshape(2, 2))


def q_triu_kw(v):
    return np.sum(np.triu(m=v.reshape(2, 2)) * KM)


def q_var_kw(v):
    return np.var(a=v)


def q_std_kw(v):
    return np.std(a=v)


def q_median_kw(v):
    return np.median(a=v)


def q_quantile_kw(v):
    return np.quantile(a=v, q=0.3)


def q_percentile_kw(v):
    return np.percentile(a=v, q=30)


def q_nansum_kw(v):
    return np.nansum(a=v ** 2)


def q_min_kw(v):
    return np.min(a=v)


def q_take_kw(v):
    return np.sum(np.take(a=v, indices=[0, 2]))


def q_dot_a_kw(v):
    return np.dot(a=v, b=K)


def q_stack_kw(v):
    return np.sum(np.stack(arrays=[K, v]) ** 2)


def q_concat_kw(v):
    return np.sum(np.concatenate(arrays=(K, v)) ** 2) if False else np.sum(np.concatenate((K, v), axis=None) ** 2)


def q_einsum_kw(v):
    return np.einsum('i,i->', K, v ** 2, optimize=False)


def q_average_a_kw(v):
    return np.average(a=v, weights=K)


def q_cov_m_kw(v):
    return np.sum(np.cov(m=v.reshape(2, 2)))


def q_gradient_f(v):
    return np.sum(np.gradient(f=v) ** 2)


def q_pad_array_kw(v):
    return np.sum(np.pad(array=v, pad_width=1) * np.arange(6.0))


def q_where_cond(v):
    return np.sum(np.where(v > 0.5, v, 0.0))


def q_split_kw(v):
    return np.sum(np.split(ary=v, indices_or_sections=2)[1] ** 2)


def q_clip_a_kw(v):
    return np.sum(np.clip(a=v, a_min=0.3, a_max=0.6))


def q_round_kw(v):
    return np.sum(np.round(a=v, decimals=1) * v)


def q_abs_method(v):
    return np.sum(np.absolute(v) ** 2)


for _fn in [q_linspace_start, q_full_fill, q_trapezoid_y, q_polyval_p, q_convolve_kw, q_correlate_kw, q_outer_kw, q_kron_kw, q_cross_kw, q_tensordot_kw, q_inner_kw, q_solve_kw, q_inv_kw, q_det_kw, q_cumprod_kw, q_diff_kw, q_sort_kw, q_flip_kw, q_roll_kw, q_tile_kw, q_repeat_kw, q_expand_kw, q_transpose_kw, q_trace_kw, q_triu_kw, q_var_kw, q_std_kw, q_median_kw, q_quantile_kw, q_percentile_kw, q_nansum_kw, q_min_kw, q_take_kw, q_dot_a_kw, q_stack_kw, q_concat_kw, q_einsum_kw, q_average_a_kw, q_cov_m_kw, q_gradient_f, q_pad_array_kw, q_where_cond, q_split_kw, q_clip_a_kw, q_round_kw, q_abs_method]:
    CASES.append(case("kwa_grad_" + _fn.__name__[2:], _fn, (X,), tol=1e-5))
    CASES.append(case("kwa_jvp_" + _fn.__name__[2:], _fn, (X,), t="jvp", tangents=V, tol=1e-5))


# np.round is flat: its derivative is zero, so d/dv sum(round(v, 1) * v) = round(v, 1)
# (X[0] = 0.35 sits on a rounding boundary, which central differences see)
for _c in CASES:
    if _c["name"] == "kwa_grad_round_kw":
        _c["ref"] = lambda: [np.round(X, 1)]
    if _c["name"] == "kwa_jvp_round_kw":
        _c["ref"] = lambda: [float(np.sum(np.round(X, 1) * X)), float(np.sum(np.round(X, 1) * V))]
