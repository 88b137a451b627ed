"""Round 15, part i: NumPy idioms -- np.piecewise, np.select, np.interp, np.polyval,
np.trapezoid, lstsq / pinv / qr / svd / matrix_power / norm, meshgrid, stack /
concatenate / split / array_split, tril / triu, pad, tile / repeat, np.ix_, boolean-mask
assignment, searchsorted, views written in place, np.add.at, out=."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(99)
XV = np.array([-1.5, -0.2, 0.4, 1.1, 2.5])


def piecewise_select(x):
    a = np.piecewise(x, [x < 0, x >= 0], [lambda t: t ** 2, lambda t: np.sin(t)])
    b = np.select([x < -1, x < 1], [x * 3.0, x ** 3], default=np.exp(-x))
    return np.sum(a * b)


add(VG("r15_piecewise_and_select", piecewise_select, (XV,), ref="fd", tol=1e-8))


def interp_curve(yp, x=np.array([0.1, 0.45, 0.8, 1.7, 2.2])):
    xp = np.array([0.0, 0.5, 1.0, 2.0, 3.0])
    return np.sum(np.interp(x, xp, yp) ** 2)


YP = np.array([1.0, 0.5, -0.2, 0.3, 2.0])
add(G("r15_interp_wrt_fp", interp_curve, (YP,), ref="fd", tol=1e-8))
add(G("r15_interp_wrt_x", interp_curve, (YP, np.array([0.1, 0.45, 0.8, 1.7, 2.2])), argnums=1, ref="fd", tol=1e-7))


def polyval_fit(c, x=np.linspace(-1, 1, 7)):
    y = np.polyval(c, x)
    return np.trapezoid(y ** 2, x)


add(VG("r15_polyval_trapezoid", polyval_fit, (np.array([0.5, -1.0, 2.0, 0.3]),), ref="fd", tol=1e-8))
add(H("r15_polyval_trapezoid_hessian", polyval_fit, (np.array([0.5, -1.0, 2.0, 0.3]),), ref="fd", tol=1e-5))


def lstsq_residual(A, b):
    x, *_ = np.linalg.lstsq(A, b, rcond=None)
    r = A @ x - b
    return r @ r + np.sum(x ** 2)


A52 = rng.normal(size=(5, 2))
B5 = rng.normal(size=5)
add(VG("r15_lstsq_star_unpack", lstsq_residual, (A52, B5), ref="fd", tol=1e-7))
add(G("r15_lstsq_wrt_rhs", lstsq_residual, (A52, B5), argnums=1, ref="fd", tol=1e-7))


def pinv_qr(A):
    P = np.linalg.pinv(A)
    Q, R = np.linalg.qr(A)
    return np.sum(P ** 2) + np.sum(np.abs(np.diag(R))) + Q[0, 0] ** 2


add(G("r15_pinv_and_qr", pinv_qr, (A52,), ref="fd", tol=1e-7))


def svd_nuclear(A):
    s = np.linalg.svd(A, compute_uv=False)
    return np.sum(s) + np.linalg.norm(A, 2) + np.linalg.norm(A, "fro") ** 2


add(G("r15_svd_singular_values_norm2", svd_nuclear, (A52,), ref="fd", tol=1e-7))


def matpow_norm(M):
    return np.linalg.norm(np.linalg.matrix_power(M, 5)) + np.linalg.norm(M @ M, ord=1)


M3 = 0.5 * rng.normal(size=(3, 3))
add(G("r15_matrix_power_norm_ord1", matpow_norm, (M3,), ref="fd", tol=1e-7))


def meshgrid_field(p):
    X, Y = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(0, 2, 3))
    Z = np.exp(-p[0] * X ** 2 - p[1] * (Y - 1) ** 2)
    return np.sum(Z[1:, :]) - np.mean(Z[:, ::2])


add(VG("r15_meshgrid_gaussian", meshgrid_field, (np.array([1.2, 0.7]),), ref="ag", tol=1e-10))


def stack_split(x):
    a, b, c = np.split(x, 3)
    parts = np.array_split(x, 4)
    S = np.stack([a, b * 2, c ** 2])
    T = np.concatenate([parts[0], parts[-1][::-1]])
    return np.sum(S @ np.ones(2)) + np.sum(T * np.arange(T.shape[0]))


X6 = np.array([0.5, -1.0, 2.0, 0.3, 1.5, -0.7])
add(G("r15_split_array_split_stack_concat", stack_split, (X6,), ref="ag", tol=1e-12))


def tril_triu_pad(v):
    M = np.outer(v, v)
    L = np.tril(M, -1)
    U = np.triu(M)
    P = np.pad(L + 2 * U, ((1, 0), (0, 2)), mode="constant")
    return np.sum(P * np.arange(P.size).reshape(P.shape))


add(G("r15_tril_triu_pad", tril_triu_pad, (np.array([1.0, -2.0, 0.5]),), ref="fd", tol=1e-8))


def tile_repeat(v):
    t = np.tile(v, 3)
    r = np.repeat(v, 2)
    rr = np.repeat(v[:, None], 2, axis=1)
    return np.sum(t ** 2 * np.arange(9)) + np.sum(r[::3]) + np.sum(rr ** 3)


add(G("r15_tile_repeat_axis", tile_repeat, (np.array([1.0, -2.0, 0.5]),), ref="fd", tol=1e-8))


def ix_block(M, rows=np.array([0, 2]), cols=np.array([1, 2])):
    B = M[np.ix_(rows, cols)]
    return np.linalg.det(B) + np.sum(M[:, None, :] * M[None, :, :] * 0.1)


add(G("r15_ix_block_det_none_axes", ix_block, (M3,), ref="fd", tol=1e-7))


def mask_assign(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[y > 1.5] = 1.5 + 0.1 * y[y > 1.5]
    return np.sum(y ** 2)


add(VG("r15_boolean_mask_assign_copy", mask_assign, (XV,), ref="fd", tol=1e-8))


def searchsorted_bins(w, x=np.array([0.1, 0.7, 1.4, 2.9, 2.2])):
    edges = np.array([0.0, 1.0, 2.0, 3.0])
    idx = np.searchsorted(edges, x) - 1
    return np.sum(w[idx] * x)


add(G("r15_searchsorted_gather", searchsorted_bins, (np.array([1.0, 2.0, 3.0]),), ref=lambda: np.array([0.8, 1.4, 5.1]), tol=1e-12))


def views_inplace(x):
    A = np.zeros((3, 3))
    A[:, 0] = x
    A.T[1] = 2 * x
    A[2] *= x[0]
    r = A.reshape(-1)
    r[8] = x[1] ** 2
    return np.sum(A ** 2)


add(G("r15_views_T_reshape_written", views_inplace, (np.array([1.0, -0.5, 2.0]),), ref="fd", tol=1e-8))


def diag_view_write(x):
    A = np.outer(x, x)
    A[np.diag_indices(3)] = x ** 3
    A[0, :] += 1.0
    return np.sum(np.tanh(A))


add(G("r15_diag_indices_assign", diag_view_write, (np.array([0.3, -0.5, 0.8]),), ref="fd", tol=1e-8))


def add_at_hist(w, idx=np.array([0, 2, 2, 1, 0, 2])):
    acc = np.zeros(3)
    np.add.at(acc, idx, w)
    return np.sum(acc ** 2)


W6 = np.array([0.5, 1.0, -0.3, 2.0, 0.1, 0.4])
add(G("r15_add_at_repeated_indices", add_at_hist, (W6,), ref="fd", tol=1e-8))


def out_kw(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    z = np.exp(y, out=np.empty_like(y))
    return np.sum(z)


add(G("r15_ufunc_out_used", out_kw, (np.array([0.1, 0.5, -0.4]),), ref="fd", tol=1e-8))


def cumsum_diff_clip(x):
    c = np.cumsum(x)
    d = np.diff(c, prepend=0.0)
    return np.sum(np.clip(c, -1.0, 1.0) * d)


add(G("r15_cumsum_diff_prepend_clip", cumsum_diff_clip, (X6,), ref="fd", tol=1e-8))


def argsort_take(x):
    o = np.argsort(x)
    return np.sum(np.take(x, o) * np.arange(x.shape[0])) + np.take_along_axis(x[None, :], o[None, :2], axis=1).sum()


add(G("r15_argsort_take_take_along_axis", argsort_take, (X6,), ref="fd", tol=1e-8))


def broadcast_outer_none(a, b):
    D = a[:, None] - b[None, :]
    return np.sum(np.exp(-D ** 2)) + np.sum(np.max(D, axis=0))


add(G("r15_none_axes_pairwise_max", broadcast_outer_none, (np.array([0.1, 0.9, 2.0]), np.array([0.5, 1.5])), argnums=(0, 1), ref="fd", tol=1e-8))


# -- a sweep of less common NumPy functions, each against central differences

XW = np.array([0.5, -1.2, 2.0, 0.3])
AW = np.array([[1.0, 2.0], [0.5, -1.0]])


def _kron(v):
    return np.sum(np.kron(v[:2], v[2:]) ** 2)


def _diff2_gradient_roll(v):
    return np.sum(np.diff(v, n=2) ** 2) + np.sum(np.gradient(v) ** 2) + np.sum(np.roll(v, 1) * np.arange(4.0))


def _rot90_tensordot(M):
    return np.sum(np.rot90(M) * np.arange(4.0).reshape(2, 2)) + np.inner(M[0], M[1]) + np.sum(np.tensordot(M, M, axes=1))


def _cross(v):
    return np.sum(np.cross(v[:3], np.array([1.0, 2.0, 3.0])) ** 2)


def _norms(v):
    return np.linalg.norm(v, np.inf) + np.linalg.norm(v, 1) + np.linalg.norm(v, 3)


def _matrix_norms(M):
    return np.linalg.norm(M, "nuc") + np.sum(np.linalg.norm(M, axis=0)) + np.trace(M, offset=1)


def _stats(v):
    return np.average(v, weights=np.array([1.0, 2.0, 3.0, 4.0])) + np.var(v, ddof=1) + np.std(v)


def _index_helpers(v):
    a = np.sum(v[np.nonzero(v > 0)] ** 2) + np.sum(v[np.flatnonzero(v < 1.0)] ** 3)
    b = np.sum(np.where(np.isin(np.arange(4), [1, 3]), v, 0.0) ** 2)
    return a + b + np.sum(np.floor_divide(v, 0.7) * v + np.mod(v, 0.7) * v)


def _axes_helpers(M):
    s = np.sum(np.swapaxes(np.moveaxis(M[None], 0, -1), 0, 1)[..., 0] * np.array([[1.0, 2.0], [3.0, 4.0]]))
    return s + np.sum(np.cumprod(M, axis=0)) + np.sum(np.take(M, [1, 0, 1], axis=1) ** 2) + np.sum(M[np.triu_indices(2)] ** 2)


def _multi_dot(M):
    return np.sum(np.linalg.multi_dot([M, M, M]))


def _ediff1d(v):
    return np.sum(np.ediff1d(v) ** 2)


def _ptp(v):
    return np.ptp(v)


def _heaviside(v):
    return np.sum(np.heaviside(v, 0.5) * v ** 2)


for _name, _f, _a in (("kron", _kron, XW), ("diff2_gradient_roll", _diff2_gradient_roll, XW),
                      ("rot90_inner_tensordot", _rot90_tensordot, AW), ("cross", _cross, XW),
                      ("vector_norm_orders", _norms, XW), ("matrix_nuc_axis_norms_trace_offset", _matrix_norms, AW),
                      ("average_weights_var_ddof_std", _stats, XW), ("nonzero_isin_floor_divide_mod", _index_helpers, XW),
                      ("moveaxis_swapaxes_cumprod_take_triu", _axes_helpers, AW), ("multi_dot", _multi_dot, AW),
                      ("ediff1d", _ediff1d, XW), ("ptp", _ptp, XW), ("heaviside", _heaviside, XW)):
    add(G("r15_np_sweep_" + _name, _f, (_a,), ref="fd", tol=1e-6))
