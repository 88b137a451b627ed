"""User programs, corpus 5v: the differentiated value in a later argument (forward and reverse)."""
import numpy as np

from user_programs5_harness import case

try:
    import scipy.linalg as sl
    import scipy.special as ss
except ImportError:  # pragma: no cover
    sl = ss = None

CASES = []
K = np.array([0.9, 0.2, 0.6, 1.3])
KM = np.array([[1.2, 0.3], [-0.4, 0.9]])
KS = KM @ KM.T + np.eye(2)
X = np.array([0.35, 0.8, 0.55, 0.2])
V = np.array([0.3, -1.2, 0.7, 0.45])


def _add_at(v):
    y = np.zeros(4)
    np.add.at(y, [0, 0, 3], v[:3])
    return np.sum(y ** 2 * K)


def _setitem(v):
    y = K.copy()
    y[1:3] = v[:2] ** 2
    return np.sum(y * K)


def g_where(v):
    return np.sum(np.where(K > 0.5, K, v))


CASES.append(case("late_jvp_where", g_where, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_where", g_where, (X,), tol=1e-5))

def g_clip_lo(v):
    return np.sum(np.clip(K, v, 2.0))


CASES.append(case("late_jvp_clip_lo", g_clip_lo, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_clip_lo", g_clip_lo, (X,), tol=1e-5))

def g_clip_hi(v):
    return np.sum(np.clip(K, -1.0, v))


CASES.append(case("late_jvp_clip_hi", g_clip_hi, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_clip_hi", g_clip_hi, (X,), tol=1e-5))

def g_maximum(v):
    return np.sum(np.maximum(K, v))


CASES.append(case("late_jvp_maximum", g_maximum, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_maximum", g_maximum, (X,), tol=1e-5))

def g_minimum(v):
    return np.sum(np.minimum(K, v))


CASES.append(case("late_jvp_minimum", g_minimum, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_minimum", g_minimum, (X,), tol=1e-5))

def g_dot(v):
    return np.dot(K, v)


CASES.append(case("late_jvp_dot", g_dot, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_dot", g_dot, (X,), tol=1e-5))

def g_matmul(v):
    return np.sum(KM @ v[:2])


CASES.append(case("late_jvp_matmul", g_matmul, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_matmul", g_matmul, (X,), tol=1e-5))

def g_polyval(v):
    return np.sum(np.polyval(K, v))


CASES.append(case("late_jvp_polyval", g_polyval, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_polyval", g_polyval, (X,), tol=1e-5))

def g_convolve(v):
    return np.sum(np.convolve(K, v) ** 2)


CASES.append(case("late_jvp_convolve", g_convolve, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_convolve", g_convolve, (X,), tol=1e-5))

def g_einsum(v):
    return np.einsum('i,i->', K, v ** 2)


CASES.append(case("late_jvp_einsum", g_einsum, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_einsum", g_einsum, (X,), tol=1e-5))

def g_solve(v):
    return np.sum(np.linalg.solve(KM, v[:2]))


CASES.append(case("late_jvp_solve", g_solve, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_solve", g_solve, (X,), tol=1e-5))

def g_cross(v):
    return np.sum(np.cross(K[:3], v[:3]) ** 2)


CASES.append(case("late_jvp_cross", g_cross, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_cross", g_cross, (X,), tol=1e-5))

def g_kron(v):
    return np.sum(np.kron(K, v) * np.arange(16.0))


CASES.append(case("late_jvp_kron", g_kron, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_kron", g_kron, (X,), tol=1e-5))

def g_outer(v):
    return np.sum(np.outer(K, v) ** 2)


CASES.append(case("late_jvp_outer", g_outer, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_outer", g_outer, (X,), tol=1e-5))

def g_tensordot(v):
    return np.tensordot(K, v, axes=1)


CASES.append(case("late_jvp_tensordot", g_tensordot, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_tensordot", g_tensordot, (X,), tol=1e-5))

def g_power(v):
    return np.sum(np.power(K, v))


CASES.append(case("late_jvp_power", g_power, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_power", g_power, (X,), tol=1e-5))

def g_arctan2(v):
    return np.sum(np.arctan2(K, v))


CASES.append(case("late_jvp_arctan2", g_arctan2, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_arctan2", g_arctan2, (X,), tol=1e-5))

def g_hypot(v):
    return np.sum(np.hypot(K, v))


CASES.append(case("late_jvp_hypot", g_hypot, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_hypot", g_hypot, (X,), tol=1e-5))

def g_logaddexp(v):
    return np.sum(np.logaddexp(K, v))


CASES.append(case("late_jvp_logaddexp", g_logaddexp, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_logaddexp", g_logaddexp, (X,), tol=1e-5))

def g_trapezoid_x(v):
    return np.trapezoid(K, x=np.cumsum(v))


CASES.append(case("late_jvp_trapezoid_x", g_trapezoid_x, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_trapezoid_x", g_trapezoid_x, (X,), tol=1e-5))

def g_interp_xp(v):
    return np.sum(np.interp(np.array([0.3, 0.9]), np.cumsum(v), K))


CASES.append(case("late_jvp_interp_xp", g_interp_xp, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_interp_xp", g_interp_xp, (X,), tol=1e-5))

def g_xlogy(v):
    return np.sum(ss.xlogy(K, v))


CASES.append(case("late_jvp_xlogy", g_xlogy, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))
CASES.append(case("late_grad_xlogy", g_xlogy, (X,), tol=1e-5, needs=("scipy",)))

def g_fmax(v):
    return np.sum(np.fmax(K, v))


CASES.append(case("late_jvp_fmax", g_fmax, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_fmax", g_fmax, (X,), tol=1e-5))

def g_concat(v):
    return np.sum(np.concatenate([K, v]) ** 2)


CASES.append(case("late_jvp_concat", g_concat, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_concat", g_concat, (X,), tol=1e-5))

def g_stack(v):
    return np.sum(np.stack([K, v]) ** 3)


CASES.append(case("late_jvp_stack", g_stack, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_stack", g_stack, (X,), tol=1e-5))

def g_select(v):
    return np.sum(np.select([K > 0.5], [K], default=v))


CASES.append(case("late_jvp_select", g_select, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_select", g_select, (X,), tol=1e-5))

def g_linspace(v):
    return np.sum(np.linspace(0.0, v[0], 4) ** 2)


CASES.append(case("late_jvp_linspace", g_linspace, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_linspace", g_linspace, (X,), tol=1e-5))

def g_average_w(v):
    return np.average(K, weights=v)


CASES.append(case("late_jvp_average_w", g_average_w, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_average_w", g_average_w, (X,), tol=1e-5))

def g_cov_aw(v):
    return np.sum(np.cov(KM, aweights=v[:2]))


CASES.append(case("late_jvp_cov_aw", g_cov_aw, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_cov_aw", g_cov_aw, (X,), tol=1e-5))

def g_take(v):
    return np.sum(np.take(K, [0, 2]) * v[:2])


CASES.append(case("late_jvp_take", g_take, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_take", g_take, (X,), tol=1e-5))

def g_add_at(v):
    return _add_at(v)


CASES.append(case("late_jvp_add_at", g_add_at, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_add_at", g_add_at, (X,), tol=1e-5))

def g_setitem(v):
    return _setitem(v)


CASES.append(case("late_jvp_setitem", g_setitem, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_setitem", g_setitem, (X,), tol=1e-5))

def g_divide(v):
    return np.sum(np.divide(K, v))


CASES.append(case("late_jvp_divide", g_divide, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_divide", g_divide, (X,), tol=1e-5))

def g_true_div(v):
    return np.sum(K / v)


CASES.append(case("late_jvp_true_div", g_true_div, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_true_div", g_true_div, (X,), tol=1e-5))

def g_floor_div(v):
    return np.sum(K // v) + np.sum(v)


CASES.append(case("late_jvp_floor_div", g_floor_div, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_floor_div", g_floor_div, (X,), tol=1e-5))

def g_mod(v):
    return np.sum(np.mod(K, v))


CASES.append(case("late_jvp_mod", g_mod, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_mod", g_mod, (X,), tol=1e-5))

def g_fmod(v):
    return np.sum(np.fmod(K, v))


CASES.append(case("late_jvp_fmod", g_fmod, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_fmod", g_fmod, (X,), tol=1e-5))

def g_logaddexp2(v):
    return np.sum(np.logaddexp2(K, v))


CASES.append(case("late_jvp_logaddexp2", g_logaddexp2, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_logaddexp2", g_logaddexp2, (X,), tol=1e-5))

def g_copysign(v):
    return np.sum(np.copysign(K, v)) + np.sum(v)


CASES.append(case("late_jvp_copysign", g_copysign, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_copysign", g_copysign, (X,), tol=1e-5))

def g_ldexp(v):
    return np.sum(np.ldexp(v, 2))


CASES.append(case("late_jvp_ldexp", g_ldexp, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_ldexp", g_ldexp, (X,), tol=1e-5))

def g_heaviside(v):
    return np.sum(np.heaviside(K - 0.5, v))


CASES.append(case("late_jvp_heaviside", g_heaviside, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_heaviside", g_heaviside, (X,), tol=1e-5))

def g_quantile_w(v):
    return np.quantile(np.concatenate([K, v]), 0.4)


CASES.append(case("late_jvp_quantile_w", g_quantile_w, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_quantile_w", g_quantile_w, (X,), tol=1e-5))

def g_cho_solve(v):
    return np.sum(sl.cho_solve(sl.cho_factor(KS), v[:2]))


CASES.append(case("late_jvp_cho_solve", g_cho_solve, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))
CASES.append(case("late_grad_cho_solve", g_cho_solve, (X,), tol=1e-5, needs=("scipy",)))

def g_lu_solve(v):
    return np.sum(sl.lu_solve(sl.lu_factor(KM), v[:2]))


CASES.append(case("late_jvp_lu_solve", g_lu_solve, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))
CASES.append(case("late_grad_lu_solve", g_lu_solve, (X,), tol=1e-5, needs=("scipy",)))

def g_soltri(v):
    return np.sum(sl.solve_triangular(np.triu(KM), v[:2]))


CASES.append(case("late_jvp_soltri", g_soltri, (X,), t="jvp", tangents=V, tol=1e-5, needs=("scipy",)))
CASES.append(case("late_grad_soltri", g_soltri, (X,), tol=1e-5, needs=("scipy",)))

def g_lstsq_b(v):
    return np.sum(np.linalg.lstsq(KM, v[:2], rcond=None)[0])


CASES.append(case("late_jvp_lstsq_b", g_lstsq_b, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_lstsq_b", g_lstsq_b, (X,), tol=1e-5))

def g_vdot(v):
    return np.vdot(K, v)


CASES.append(case("late_jvp_vdot", g_vdot, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_vdot", g_vdot, (X,), tol=1e-5))

def g_inner(v):
    return np.inner(K, v)


CASES.append(case("late_jvp_inner", g_inner, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_inner", g_inner, (X,), tol=1e-5))

def g_np_sum_where(v):
    return np.sum(v, where=K > 0.5)


CASES.append(case("late_jvp_np_sum_where", g_np_sum_where, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_np_sum_where", g_np_sum_where, (X,), tol=1e-5))

def g_std_w(v):
    return np.std(np.concatenate([K, v]))


CASES.append(case("late_jvp_std_w", g_std_w, (X,), t="jvp", tangents=V, tol=1e-5))
CASES.append(case("late_grad_std_w", g_std_w, (X,), tol=1e-5))


# ---- the differentiated value passed by keyword -------------------------------------------

def k_clip_kw(v):
    return np.sum(np.clip(K, a_min=v, a_max=2.0))


def k_linspace_kw(v):
    return np.sum(np.linspace(start=0.0, stop=v[0], num=4) ** 2)


def k_pad_value(v):
    return np.sum(np.pad(K, 1, constant_values=v[0]) * np.arange(6.0))


def k_full(v):
    return np.sum(np.full(3, v[0]) * np.arange(3.0)) + np.sum(np.full_like(K, v[1]))


def k_nan_to_num(v):
    return np.sum(np.nan_to_num(np.array([np.nan, 1.0]), nan=v[0]))


def k_polyval_kw(v):
    return np.sum(np.polyval(p=K, x=v))


def k_dot_kw(v):
    return np.dot(b=v, a=K)


def k_interp_kw(v):
    return np.sum(np.interp(x=np.array([0.3, 0.9]), xp=np.array([0.0, 0.5, 1.0, 1.5]), fp=v))


def k_einsum_out_order(v):
    return np.einsum('j,i->', v, K)


def k_tensordot_kw(v):
    return np.tensordot(KM, v[:2], axes=([1], [0])).sum()


for _name, _fn in [("clip_kw", k_clip_kw), ("linspace_kw", k_linspace_kw), ("pad_value", k_pad_value),
                   ("full", k_full), ("nan_to_num", k_nan_to_num), ("polyval_kw", k_polyval_kw),
                   ("dot_kw", k_dot_kw), ("interp_kw", k_interp_kw),
                   ("einsum_out_order", k_einsum_out_order), ("tensordot_kw", k_tensordot_kw)]:
    CASES.append(case("kw_jvp_" + _name, _fn, (X,), t="jvp", tangents=V, tol=1e-5))
    CASES.append(case("kw_grad_" + _name, _fn, (X,), tol=1e-5))


def k_dot_both_kw(v):
    return np.dot(a=v, b=v ** 2)


def k_clip_hess(v):
    return np.sum(np.clip(K, a_min=v ** 2, a_max=5.0) ** 2)


# 3 v_i^2 on the diagonal: d2/dv2 = diag(6 v); clip: (v^2)^2 where v^2 > K, else K^2
CASES.append(case("kw_hessian_dot_kw", k_dot_both_kw, (X,), t="hessian", ref=lambda: [np.diag(6 * X)]))
CASES.append(case("kw_hessian_clip_kw", k_clip_hess, (np.array([1.0, 0.8, 0.9, 1.2]),), t="hessian", tol=1e-5))
