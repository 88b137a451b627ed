"""Round 13, part s: NumPy functions a scientist's loss reaches for -- linalg (eigh, svd
values, inv, det, qr, pinv), einsum/tensordot/trace, flips and tiles, pad, repeat, ddof,
where=, ties of max along an axis -- each against JAX (x64) on the same program."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
rng = np.random.default_rng(31)
A = rng.normal(size=(3, 3))
S = A @ A.T + 3 * np.eye(3)
V = rng.normal(size=4)


def eigh_top(S):
    w, U = np.linalg.eigh(S)
    return w[-1] + np.sum(U[:, 0] ** 4)


def svd_vals(A):
    return np.sum(np.linalg.svd(A, compute_uv=False) ** 1.5)


def inv_det(A):
    return np.sum(np.linalg.inv(A) ** 2) + np.linalg.det(A) ** 2


def qr_r(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(R))) + Q[0, 1]


def pinv_wide(A):
    return np.sum(np.linalg.pinv(A[:2]) ** 2)


def einsum_mix(A, v):
    return np.einsum("ij,jk,k->", A, A.T, v[:3]) + np.einsum("ii", A) + np.tensordot(A, A, axes=([0, 1], [1, 0]))


def trace_diag_offsets(A):
    return np.trace(A, offset=1) * np.sum(np.diagonal(A, offset=-1) ** 2) + np.trace(A @ A)


def flips(A):
    B = np.flip(A, axis=0) * np.rot90(A) + np.fliplr(A) ** 2
    return np.sum(B * np.arange(9).reshape(3, 3))


def tiles(v):
    return np.sum(np.tile(v, 2) * np.arange(8)) + np.sum(np.repeat(v, 3) ** 2 * np.arange(12))


def pads(v):
    return np.sum(np.pad(v, 2, mode="edge") * np.arange(8)) + np.sum(np.pad(v, (1, 2), mode="reflect") ** 2)


def ddof_where(v):
    return np.var(v, ddof=1) + np.std(v) + np.mean(v, where=v > 0) ** 2


def max_axis_ties(A):
    B = np.round(A)
    return np.sum(np.max(B + 0.0 * A, axis=1)) + np.sum(np.max(A, axis=0) * np.array([1.0, 2.0, 3.0]))


def ties_max(v):
    w = np.array([v[0], v[0], v[1]])
    return np.max(w) + np.min(w)


def matmul_batch(A, v):
    T = np.stack([A, A.T, A @ A])
    return np.sum((T @ v[:3]) ** 2) + np.sum(np.matmul(T, T)[:, 0, :])


def arctan2_hypot(v):
    return np.sum(np.arctan2(v, v[::-1]) + np.hypot(v, 2 * v[::-1]))


def unique_like(v):
    s = np.sort(np.concatenate([v, v[:2]]))
    return np.sum(s * np.arange(1, 7))


def lstsq_solution(A, v):
    x, *_ = np.linalg.lstsq(A, v[:3], rcond=None)
    return np.sum(x ** 2)


def matrix_power_exp(A):
    return np.sum(np.linalg.matrix_power(A, 3)) + np.sum(np.kron(A[:2, :2], np.eye(2)))


def cumsum_reverse(v):
    return np.sum(np.cumsum(v[::-1])[::-1] ** 2) + np.sum(np.cumsum(np.outer(v, v), axis=1)[:, -1])


CASES_S = [
    ("r13_s_svd_values", svd_vals, (A,)),
    ("r13_s_inv_det", inv_det, (A,)),
    ("r13_s_qr", qr_r, (A,)),
    ("r13_s_pinv_wide", pinv_wide, (A,)),
    ("r13_s_einsum_tensordot", einsum_mix, (A, V)),
    ("r13_s_trace_diagonal_offsets", trace_diag_offsets, (A,)),
    ("r13_s_flip_rot90_fliplr", flips, (A,)),
    ("r13_s_tile_repeat", tiles, (V,)),
    ("r13_s_pad_edge_reflect", pads, (V,)),
    ("r13_s_var_ddof_std_mean_where", ddof_where, (V,)),
    ("r13_s_max_axis_ties_round", max_axis_ties, (A,)),
    ("r13_s_max_min_duplicate_ties", ties_max, (np.array([1.0, 0.5]),)),
    ("r13_s_matmul_batched_stack", matmul_batch, (A, V)),
    ("r13_s_arctan2_hypot", arctan2_hypot, (V,)),
    ("r13_s_sort_with_duplicates", unique_like, (V,)),
    ("r13_s_lstsq_square", lstsq_solution, (A, V)),
    ("r13_s_matrix_power_kron", matrix_power_exp, (A,)),
    ("r13_s_cumsum_reversed_axis", cumsum_reverse, (V,)),
]
for name, f, args in CASES_S:
    nums = tuple(range(len(args))) if len(args) > 1 else 0
    add(G(name, f, args, argnums=nums, ref="jax", tol=1e-9))
# np.linalg.eigh reads the lower triangle only: the gradient in all nine entries is lower
# triangular (central differences agree; JAX's symmetrised convention differs)
add(G("r13_s_eigh_top_and_vector", eigh_top, (S,), ref="fd"))
add(H("r13_s_inv_det_hessian", lambda a: inv_det(a.reshape(3, 3)), (A.ravel(),), ref="fd", tol=1e-5))
add(H("r13_s_eigh_value_hessian", lambda s: np.linalg.eigh(s.reshape(3, 3))[0][-1], (S.ravel(),), ref="fd", tol=1e-5))
