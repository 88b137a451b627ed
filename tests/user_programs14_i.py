"""Round 14, part i: NumPy idioms -- views written in place (slices, .T, reshape, .real),
np.where with several branches, masks, fancy indexing with repeats, np.add.at, out=,
cumsum/diff, sort/argsort/take_along_axis, np.linalg.*, kron/outer."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

X6 = np.array([0.5, -1.2, 2.0, 0.3, -0.7, 1.4])
M3 = np.array([[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.8]])


def transpose_view_write(x):
    A = np.zeros((3, 2))
    At = A.T
    At[0, :] = x[:3]
    At[1] = x[3:] ** 2
    return np.sum(A * np.arange(6.0).reshape(3, 2))


add(G("r14_transpose_view_write", transpose_view_write, (X6,), ref="fd", tol=1e-8))


def reshape_view_write(x):
    y = np.zeros(6)
    m = y.reshape(2, 3)
    m[1, :] = x[:3] * 2.0
    m[0, 1] += x[4]
    return np.sum(y ** 2) + y[1] * x[5]


add(G("r14_reshape_view_write", reshape_view_write, (X6,), ref="fd", tol=1e-8))


def strided_slice_write(x):
    y = x.copy()
    y[::2] *= 3.0
    y[1::2] = np.sin(y[1::2])
    y[-1:] += y[:1]
    return np.sum(y * y)


add(G("r14_strided_slice_inplace", strided_slice_write, (X6,), ref="ag" if False else "fd", tol=1e-8))


def diag_einsum_view(A):
    B = A.copy()
    d = np.einsum("ii->i", B)
    return np.sum(d ** 3) + np.sum(B)


add(G("r14_einsum_diag_read", diag_einsum_view, (M3,), ref="fd", tol=1e-8))


def multi_where(x):
    return np.sum(np.where(x < -1.0, -x - 0.5, np.where(x < 0.0, 0.5 * x * x + 0.0, np.where(x < 1.0, x ** 3, 2.0 * x - 1.0))))


add(G("r14_nested_where_four_pieces", multi_where, (X6,), ref=lambda: np.where(X6 < -1, -1.0, np.where(X6 < 0, X6, np.where(X6 < 1, 3 * X6 ** 2, 2.0))), tol=1e-12))


def mask_assign(x):
    y = x.copy()
    m = y > 0.4
    y[m] = np.log(y[m])
    y[~m] *= 2.0
    return np.sum(y)


add(G("r14_bool_mask_assign", mask_assign, (X6,), ref=lambda: np.where(X6 > 0.4, 1 / X6, 2.0), tol=1e-12))


def fancy_repeats(x):
    idx = np.array([0, 2, 2, 5, 0, 0])
    return np.sum(x[idx] ** 2 * np.arange(1.0, 7.0))


add(G("r14_fancy_index_repeats_read", fancy_repeats, (X6,), ref="fd", tol=1e-8))


def fancy_setitem_repeats(x):
    y = np.zeros(4)
    y[[1, 1, 3]] = x[:3]   # the last write of a repeated index wins in NumPy
    return y @ np.array([1.0, 2.0, 3.0, 4.0])


add(G("r14_fancy_setitem_repeated_index_last_wins", fancy_setitem_repeats, (X6,),
      ref=lambda: np.array([0.0, 2.0, 4.0, 0.0, 0.0, 0.0]), tol=1e-12))


def add_at_hist(x, bins=np.array([0, 1, 1, 2, 0, 1])):
    h = np.zeros(3)
    np.add.at(h, bins, x ** 2)
    return np.sum(h ** 2)


def _add_at_ref(x, bins=np.array([0, 1, 1, 2, 0, 1])):
    h = np.bincount(bins, weights=x ** 2, minlength=3)
    return 4 * h[bins] * x


add(G("r14_add_at_histogram", add_at_hist, (X6,), ref=lambda: _add_at_ref(X6), tol=1e-12))


def ufunc_out_used(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    z = np.exp(x, out=np.empty_like(x))
    return np.sum(y) + np.sum(z)


add(G("r14_ufunc_out_returned_ignored", ufunc_out_used, (X6,), ref=lambda: 2 * X6 + np.exp(X6), tol=1e-12))


def cumsum_diff(x):
    c = np.cumsum(x)
    d = np.diff(c ** 2, prepend=0.0)
    return np.sum(d * np.arange(6.0))


add(G("r14_cumsum_diff_prepend", cumsum_diff, (X6,), ref="fd", tol=1e-8))


def sort_topk(x, k=3):
    s = np.sort(x)[::-1]
    return np.sum(s[:k] * np.array([3.0, 2.0, 1.0]))


add(G("r14_sort_descending_topk", sort_topk, (X6,), ref=lambda: np.array([0, 0, 3.0, 0, 0, 2.0]) + np.array([0, 0, 0, 0, 0, 0.0]) + 1.0 * (X6 == 0.5), tol=1e-12))


def argsort_take(X):
    idx = np.argsort(X, axis=1)
    Y = np.take_along_axis(X, idx, axis=1)
    return np.sum(Y * np.array([1.0, 10.0, 100.0]))


XX = np.array([[0.3, -0.2, 0.9], [1.5, 2.5, -1.0]])
add(G("r14_argsort_take_along_axis", argsort_take, (XX,),
      ref=lambda: np.take_along_axis(np.broadcast_to([1.0, 10.0, 100.0], (2, 3)), np.argsort(np.argsort(XX, axis=1), axis=1), axis=1), tol=1e-12))


def linalg_mix(A):
    sign, logdet = np.linalg.slogdet(A)
    L = np.linalg.cholesky(A)
    w = np.linalg.eigvalsh(A)
    return logdet + np.sum(np.diag(L)) + np.max(w) + np.linalg.norm(A, ord="fro") + np.linalg.norm(A, ord=2)


add(G("r14_linalg_slogdet_cholesky_eigvalsh_norm", linalg_mix, (M3,), ref="fd", tol=1e-6))


def norm_axis(X):
    return np.sum(np.linalg.norm(X, axis=0)) + np.sum(np.linalg.norm(X, ord=1, axis=1)) + np.linalg.norm(X, ord=np.inf)


add(G("r14_norm_ord_axis_mix", norm_axis, (XX,), ref="fd", tol=1e-8))


def eigh_vectors(A):
    w, V = np.linalg.eigh(A)
    return w[0] * V[0, 0] ** 2 + w[2] * V[1, 2] ** 2


add(G("r14_eigh_eigvectors", eigh_vectors, (M3,), ref="fd", tol=1e-6))


def kron_outer(a, b):
    K = np.kron(np.outer(a, a), np.eye(2))
    return b @ K @ b


A3 = np.array([0.5, -0.3, 1.2])
B6 = np.array([1.0, 0.5, -0.2, 0.3, 0.7, -1.0])
add(G("r14_kron_outer", kron_outer, (A3, B6), ref="ag", tol=1e-12))
add(G("r14_kron_outer_wrt_b", kron_outer, (A3, B6), argnums=1, ref="ag", tol=1e-12))


def real_view_write(x):
    z = np.zeros(3, dtype=complex)
    z.real[:] = x[:3]
    z.imag[:] = x[3:]
    return np.sum(np.abs(z * z))


add(G("r14_complex_real_imag_view_write", real_view_write, (X6,), ref="fd", tol=1e-8))


def inv_solve_det(A, b):
    x = np.linalg.solve(A, b)
    Ai = np.linalg.inv(A)
    return x @ Ai @ b + np.linalg.det(A)


add(VG("r14_inv_solve_det", inv_solve_det, (M3, A3), ref="ag", tol=1e-10))
add(G("r14_inv_solve_det_wrt_b", inv_solve_det, (M3, A3), argnums=1, ref="ag", tol=1e-10))


def clip_reductions(X):
    Y = np.clip(X, -0.5, 1.0)
    return np.sum(np.max(Y, axis=1)) + np.prod(np.min(X, axis=0)) + np.mean(np.abs(X), where=X > 0)


add(G("r14_clip_max_min_prod_mean_where", clip_reductions, (XX,), ref="fd", tol=1e-8))


def stack_split(x):
    a, b, c = np.split(x, 3)
    M = np.stack([a, b * 2, c ** 2])
    return np.sum(np.triu(M @ M.T)) + np.trace(np.vstack([M, M])[:2, :2])


add(G("r14_split_stack_triu_vstack", stack_split, (X6,), ref="fd", tol=1e-8))
