"""Round 10, writes through views and overlapping in-place updates that finite-element
and image codes do: ravel/reshape views written, a transposed view's row updated,
M.flat strided writes, np.fill_diagonal, diag_indices assignment, y[:] += y[::-1]
(overlap, reversed), a[...] = expression, a column view accumulated in a loop; each
against central differences of the same NumPy program."""
import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1015)
M = rng.normal(size=(3, 3))
V = rng.normal(size=6)


def ravel_view_write(A, x):
    B = A.copy()
    r = B.ravel()
    r[0] = x * 2.0
    r[4] += x
    return np.sum(B ** 2)


CASES.append(G("r10_ravel_view_write", ravel_view_write, (M, 0.7), argnums=(0, 1)))


def reshape_view_write(v, s):
    w = v.copy()
    m = w.reshape(2, 3)
    m[1, :] *= s
    return np.sum(w * np.arange(6.0))


CASES.append(G("r10_reshape_view_row_scaled", reshape_view_write, (V, 1.5), argnums=(0, 1)))


def transposed_view_row(A, c):
    B = A.copy()
    B.T[0] += c
    return np.sum(B ** 3)


CASES.append(G("r10_transposed_view_row_iadd", transposed_view_row, (M, np.array([0.1, 0.2, 0.3])), argnums=(0, 1)))


def flat_strided(A, x):
    B = A.copy()
    B.flat[::4] = x
    return np.sum(B * B.T)


CASES.append(G("r10_flat_strided_assign", flat_strided, (M, 0.9), argnums=(0, 1)))


def fill_diag(A, x):
    B = A.copy()
    np.fill_diagonal(B, x)
    return np.sum(np.tanh(B))


CASES.append(G("r10_fill_diagonal_scalar", fill_diag, (M, 0.4), argnums=(0, 1)))


def diag_indices_assign(A, d):
    B = A.copy()
    B[np.diag_indices(3)] = d ** 2
    return np.sum(B @ B)


CASES.append(G("r10_diag_indices_assign", diag_indices_assign, (M, np.array([0.5, -1.0, 2.0])), argnums=(0, 1)))


def reversed_overlap(v):
    y = v.copy()
    y[:] += y[::-1]
    return np.sum(y * np.arange(1.0, 7.0))


# NumPy copies the overlapping operand first: y_i = v_i + v_{5-i}
CASES.append(G("r10_iadd_reversed_self_overlap", reversed_overlap, (V,),
               ref=lambda: np.arange(1.0, 7.0) + np.arange(1.0, 7.0)[::-1]))


def ellipsis_assign(v):
    y = np.empty_like(v)
    y[...] = v ** 2 - v
    return np.sum(y * v)


CASES.append(G("r10_ellipsis_assign", ellipsis_assign, (V,), ref=lambda: 3 * V ** 2 - 2 * V))


def column_accumulate(A, w):
    out = np.zeros((3, 2))
    col = out[:, 1]
    for k in range(3):
        col += w[k] * A[:, k]
    return np.sum(out ** 2)


CASES.append(G("r10_column_view_accumulated_loop", column_accumulate, (M, np.array([1.0, -0.5, 2.0])), argnums=(0, 1)))


def shifted_overlap_loop(v):
    y = v.copy()
    for _ in range(3):
        y[1:] = 0.5 * (y[1:] + y[:-1])
    return np.sum(y ** 2)


CASES.append(G("r10_shifted_overlap_smoothing_loop", shifted_overlap_loop, (V,)))


def assemble_fem(k, n=5):
    # 1-D bar elements assembled with np.add.at into a global matrix, tip load
    K = np.zeros((n + 1, n + 1))
    for e in range(n):
        idx = np.array([e, e + 1])
        ke = k[e] * np.array([[1.0, -1.0], [-1.0, 1.0]])
        np.add.at(K, (idx[:, None], idx[None, :]), ke)
    f = np.zeros(n)
    f[-1] = 1.0
    u = np.linalg.solve(K[1:, 1:], f)
    return u[-1]


KE = np.array([2.0, 3.0, 1.5, 4.0, 2.5])
CASES.append(G("r10_fem_bar_add_at_assembly", assemble_fem, (KE,), ref=lambda: -1.0 / KE ** 2))


def swap_rows_fancy(A):
    B = A.copy()
    B[[0, 2]] = B[[2, 0]]
    return np.sum(B * np.arange(9.0).reshape(3, 3))


CASES.append(G("r10_swap_rows_fancy", swap_rows_fancy, (M,),
               ref=lambda: np.arange(9.0).reshape(3, 3)[[2, 1, 0]]))


def boolean_mask_iadd(v):
    y = v.copy()
    y[y > 0] *= 2.0
    y[y < -0.5] += 1.0
    return np.sum(y ** 2)


CASES.append(G("r10_boolean_mask_imul_iadd", boolean_mask_iadd, (V,)))


def tail_view(a):
    return a[1:]


def helper_returns_view(v):
    y = v.copy()
    t = tail_view(y)
    t *= 2.0
    return np.sum(y * np.arange(6.0))


CASES.append(G("r10_helper_returns_view_written", helper_returns_view, (V,),
               ref=lambda: np.arange(6.0) * np.array([1.0, 2, 2, 2, 2, 2])))


def asarray_alias(v):
    y = v.copy()
    z = np.asarray(y)
    z[0] = z[0] ** 2
    return np.sum(y ** 2)


CASES.append(G("r10_asarray_alias_written", asarray_alias, (V,), ref=lambda: np.concatenate([[4 * V[0] ** 3], 2 * V[1:]])))


def reshape_of_transpose_copies(A, x):
    B = A.copy()
    r = B.T.reshape(-1)      # B.T is not contiguous: reshape copies, B is unchanged
    r[0] = x
    return np.sum(B ** 2) + np.sum(r)


CASES.append(G("r10_reshape_of_transpose_is_copy", reshape_of_transpose_copies, (M, 0.5), argnums=(0, 1)))


def swapaxes_view_write(A, c):
    B = A.copy()
    S = np.swapaxes(B, 0, 1)
    S[0, :] = c
    return np.sum(B * np.arange(9.0).reshape(3, 3))


CASES.append(G("r10_swapaxes_view_write", swapaxes_view_write, (M, np.array([1.0, 2.0, 3.0])), argnums=(0, 1)))


def squeeze_newaxis_view(v, s):
    y = v.copy()[None, :]
    z = np.squeeze(y)
    z[2] = s
    return np.sum(y ** 2)


CASES.append(G("r10_squeeze_of_newaxis_view_write", squeeze_newaxis_view, (V, 0.3), argnums=(0, 1)))


def contiguous_copy(A, x):
    B = A.copy()
    C = np.ascontiguousarray(B.T)
    C[0, 0] = x
    return np.sum(B) + 10 * np.sum(C)


CASES.append(G("r10_ascontiguousarray_copy_not_view", contiguous_copy, (M, 0.5), argnums=(0, 1)))
