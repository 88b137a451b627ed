"""Round 12, part h: in-place NumPy writes and views as users write them -- slices,
einsum views, .real/.imag, reshape/ravel/diagonal/transposes, np.asarray, out=,
`s += x @ x`, `a[i] += ...` in loops, fancy indexing."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append
X6 = np.array([0.3, -1.2, 0.8, 2.0, -0.5, 1.1])
A33 = np.array([[2.0, 0.3, -0.1], [0.4, 1.5, 0.2], [-0.3, 0.1, 1.8]])


def write_through_reshape_view(x):
    y = x.copy()
    M = y.reshape(2, 3)
    M[1, :] *= 2.0
    M[:, 0] += M[:, 2] ** 2
    return np.sum(y ** 3)


def _wtrv_ref(x):
    y = x.copy()
    y[3:] *= 2.0
    y[0] += y[2] ** 2
    y[3] += y[5] ** 2
    return np.sum(y ** 3)


add(pair("r12_view_reshape_write", lambda: revsrc.grad(write_through_reshape_view)(X6),
         lambda: fd_checked(_wtrv_ref, (X6,))[0], tol=1e-7))
add(pair("r12_view_reshape_value", lambda: revsrc.value_and_grad(write_through_reshape_view)(X6)[0],
         lambda: write_through_reshape_view(X6), tol=0.0))


def transpose_view_write(A):
    B = A.copy()
    Bt = B.T
    Bt[0, :] = np.tanh(Bt[0, :])   # writes column 0 of B
    return np.sum(B * A)


add(G("r12_view_transpose_write", transpose_view_write, (A33,), ref="fd", tol=1e-7))


def ravel_write(A):
    B = np.array(A)          # a copy
    r = B.ravel()            # a view of the contiguous copy
    r[::2] = r[::2] ** 2
    return np.sum(B @ B)


add(G("r12_ravel_view_write", ravel_write, (A33,), ref="fd", tol=1e-7))


def diagonal_via_fill(A):
    B = A.copy()
    idx = np.arange(3)
    B[idx, idx] = np.exp(B[idx, idx])
    return np.sum(B @ B.T)


add(G("r12_fancy_diag_write", diagonal_via_fill, (A33,), ref="ag" if False else "fd", tol=1e-7))


def einsum_diag_read(A):
    d = np.einsum("ii->i", A)
    return np.sum(d ** 2) + np.einsum("ij,ij->", A, A)


add(pair("r12_einsum_diag_view_read", lambda: revsrc.grad(einsum_diag_read)(A33), lambda: 2 * A33 + 2 * np.diag(np.diag(A33)), tol=1e-12))


def einsum_diag_write_on_copy(A):
    B = A.copy()
    d = np.einsum("ii->i", B)
    d += 1.0
    d *= 2.0
    return np.sum(B ** 2)


add(G("r12_einsum_diag_view_write", einsum_diag_write_on_copy, (A33,), ref="fd", tol=1e-7))


def augassign_matmul(x):
    s = 0.0
    for k in range(3):
        s += x @ x
        x = x * 0.5
    return s


add(pair("r12_augassign_matmul_scalar", lambda: revsrc.grad(augassign_matmul)(X6),
         lambda: 2 * X6 * (1 + 0.25 + 0.0625), tol=1e-12))


def aug_index_loop(x):
    a = np.zeros(4)
    for i in range(len(x)):
        a[i % 4] += x[i] * x[(i + 1) % len(x)]
    return np.sum(np.sin(a))


add(G("r12_aug_index_in_loop", aug_index_loop, (X6,), ref="fd", tol=1e-7))


def fancy_scatter_add(x, idx):
    out = np.zeros(4)
    np.add.at(out, idx, x ** 2)
    return np.sum(out ** 2)


IDX6 = np.array([0, 2, 2, 1, 0, 3])
add(G("r12_np_add_at_scatter", fancy_scatter_add, (X6, IDX6), ref="fd", tol=1e-7))


def fancy_setitem_duplicates(x, idx):
    out = np.zeros(4)
    out[idx] += x         # duplicates: NumPy keeps only the last write per index
    return np.sum(out * np.arange(1.0, 5.0))


def _fsd_ref():
    g = np.zeros(6)
    for pos in range(6):
        # the last occurrence of each index wins in NumPy's out[idx] += x
        if pos == max(p for p in range(6) if IDX6[p] == IDX6[pos]):
            g[pos] = IDX6[pos] + 1.0
    return g


add(pair("r12_fancy_iadd_duplicate_indices", lambda: revsrc.grad(fancy_setitem_duplicates)(X6, IDX6), _fsd_ref, tol=0.0))


def real_imag_views(x):
    z = np.zeros(3, dtype=complex)
    z.real = x[:3]
    z.imag = x[3:]
    w = z * z
    return np.sum(w.real) + 2 * np.sum(w.imag)


add(G("r12_real_imag_setattr", real_imag_views, (X6,), ref="fd", tol=1e-7))


def real_imag_slice_write(x):
    z = np.zeros(3, dtype=complex)
    z.real[:] = x[:3]
    z.imag[:] = x[3:]
    w = z * z
    return np.sum(w.real) + 2 * np.sum(w.imag)


# w = (a + ib)^2: real a^2 - b^2, imag 2ab; d/da = 2a + 4b, d/db = -2b + 4a
add(pair("r12_real_imag_slice_write", lambda: revsrc.grad(real_imag_slice_write)(X6),
         lambda: np.concatenate([2 * X6[:3] + 4 * X6[3:], -2 * X6[3:] + 4 * X6[:3]]), tol=1e-12))


def complex_real_view_write(x):
    z = x[:3] + 1j * x[3:]
    zr = z.real                 # a view into z
    zr *= 2.0
    return np.sum(np.abs(z) ** 2)


add(pair("r12_complex_real_view_inplace", lambda: revsrc.grad(complex_real_view_write)(X6),
         lambda: np.concatenate([8 * X6[:3], 2 * X6[3:]]), tol=1e-12))


def asarray_no_copy(x):
    y = np.asarray(x)
    return np.sum(y * y)


add(pair("r12_asarray_passthrough", lambda: revsrc.grad(asarray_no_copy)(X6), lambda: 2 * X6, tol=0.0))


def array_copy_false(x):
    y = np.array(x, copy=False) if np.__version__ < "2" else np.asarray(x)
    z = np.array(y, copy=True)
    z[0] = 0.0
    return np.sum(z * y)


add(pair("r12_array_copy_true_then_write", lambda: revsrc.grad(array_copy_false)(X6),
         lambda: np.concatenate([[0.0], 2 * X6[1:]]), tol=0.0))


def out_kwarg(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    return np.sum(y)


add(G("r12_ufunc_out_kwarg_discarded", out_kwarg, (X6,), ref="fd", tol=1e-7))


def out_kwarg_assigned(x):
    y = np.empty_like(x)
    y = np.exp(x, out=y)
    return np.sum(y)


add(pair("r12_ufunc_out_kwarg_assigned", lambda: revsrc.grad(out_kwarg_assigned)(X6), lambda: np.exp(X6), tol=1e-12))


def slice_chain_views(x):
    y = x.copy()
    a = y[1:]
    b = a[::2]          # y[1], y[3], y[5]
    b[:] = b * b
    return np.sum(y * np.arange(6.0))


def _scv_ref(x):
    y = x.copy()
    y[1::2] = y[1::2] ** 2
    return np.sum(y * np.arange(6.0))


add(pair("r12_view_of_view_write", lambda: revsrc.grad(slice_chain_views)(X6), lambda: fd_checked(_scv_ref, (X6,))[0], tol=1e-7))


def matrix_row_loop_update(A, x):
    B = A.copy()
    for i in range(3):
        B[i] -= B[i] @ x * x[:3] if False else (B[i] @ x[:3]) * x[:3]
    return np.sum(B ** 2)


add(G("r12_row_update_loop", matrix_row_loop_update, (A33, X6), argnums=(0, 1), ref="fd", tol=1e-7))


def gram_schmidt_inplace(A):
    Q = A.copy()
    for j in range(Q.shape[1]):
        for k in range(j):
            Q[:, j] -= (Q[:, k] @ Q[:, j]) * Q[:, k]
        Q[:, j] /= np.linalg.norm(Q[:, j])
    return np.sum(Q * np.array([[1.0, 2.0, 3.0]]))


add(G("r12_gram_schmidt_columns_inplace", gram_schmidt_inplace, (A33,), ref="fd", tol=1e-7))


def boolean_mask_write(x):
    y = x.copy()
    y[y < 0] = 0.1 * y[y < 0]
    return np.sum(y ** 2)


add(pair("r12_boolean_mask_leaky", lambda: revsrc.grad(boolean_mask_write)(X6),
         lambda: np.where(X6 < 0, 0.02 * X6, 2 * X6), tol=1e-12))


def flat_iter_write(A):
    B = A.copy()
    B.flat[[0, 4, 8]] = 1.0
    return np.sum(B ** 2)


add(pair("r12_flat_fancy_write", lambda: revsrc.grad(flat_iter_write)(A33),
         lambda: 2 * A33 * (1 - np.eye(3)), tol=0.0))


def swap_rows_tuple(A):
    B = A.copy()
    B[[0, 2]] = B[[2, 0]]
    return np.sum(B * np.arange(9.0).reshape(3, 3))


add(pair("r12_swap_rows_fancy", lambda: revsrc.grad(swap_rows_tuple)(A33),
         lambda: np.arange(9.0).reshape(3, 3)[[2, 1, 0]], tol=0.0))


def cumulative_inplace(x):
    y = x.copy()
    for i in range(1, len(y)):
        y[i] += y[i - 1] * 0.5
    return y[-1] + y[2]


def _cum_ref():
    g = np.array([0.5 ** (5 - i) for i in range(6)])
    g[:3] += np.array([0.25, 0.5, 1.0])
    return g


add(pair("r12_cumulative_inplace_recurrence", lambda: revsrc.grad(cumulative_inplace)(X6), _cum_ref, tol=1e-15))


def np_put_like(x):
    y = np.zeros(6)
    y[np.argsort(x)] = np.linspace(0.0, 1.0, 6) * x[np.argsort(x)]
    return np.sum(y * x)


add(G("r12_argsort_scatter_gather", np_put_like, (X6,), ref="fd", tol=1e-7))
