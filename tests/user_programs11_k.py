"""Round 11, part k: in-place NumPy writes as signal-processing and simulation code does
them -- through views (ravel, .T, newaxis, squeeze, transpose, swapaxes, reversed slices),
overlapping slices, masks, permutations, fill_diagonal, and an array assigned into a
slice of itself."""
import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked  # noqa: F401

CASES = []
add = CASES.append

X = np.array([1.1, 2.3, 3.7, 0.4])
W = np.arange(4.0) + 1


def ravel_write(x):
    a = x * 1.0
    a.ravel()[1] = a[0] * 5.0
    return np.sum(a ** 2)


add(G("r11_ravel_view_write", ravel_write, (X,), ref="fd"))


def transpose_row_write(x):
    a = (x * 1.0).reshape(2, 2)
    a.T[0] = a[1] * 3.0
    return np.sum(a ** 2 * np.arange(4).reshape(2, 2))


add(G("r11_transpose_view_row_write", transpose_row_write, (X,), ref="fd"))


def fancy_copy_write(x):
    a = x * 1.0
    a[[0, 1]][0] = 100.0      # writes into a temporary copy: no effect on a
    return np.sum(a ** 2)


add(G("r11_fancy_index_copy_write", fancy_copy_write, (X,), ref=lambda: 2 * X))


def view_after_rebind(x):
    a = x * 1.0
    b = a[1:]
    a = a * 2.0
    b[0] = 7.0 * x[0]
    return np.sum(a ** 2) + np.sum(b ** 3)


add(G("r11_view_outlives_rebound_base", view_after_rebind, (X,), ref="fd"))


def overlapping_add(x):
    a = x * 1.0
    a[1:] += a[:-1]
    return np.sum(a ** 2)


add(G("r11_overlapping_slice_add", overlapping_add, (X,), ref="fd"))


def flat_write(x):
    a = x.copy()
    a.flat[2] = a[0] * a[1]
    return np.sum(a ** 2)


add(G("r11_flat_item_write", flat_write, (X,), ref="fd"))


def fill_diag(x):
    A = np.outer(x, x)
    np.fill_diagonal(A, x ** 3)
    return np.sum(A * A)


add(G("r11_fill_diagonal", fill_diag, (X,), ref="fd"))


def mask_scale(x):
    a = x * 1.0
    m = a > 2.5
    a[m] *= 3.0
    return np.sum(a ** 2)


add(G("r11_mask_inplace_scale", mask_scale, (X,), ref="fd"))


def mask_assign(x):
    a = x * 1.0
    a[a > 2.0] = a[a > 2.0] ** 2
    return np.sum(a)


add(G("r11_mask_assign_squared", mask_assign, (X,), ref="fd"))


def swap_slice_view(x):
    a = x * 1.0
    a[1:3] = a[2:0:-1]
    return np.sum(a * W)


add(G("r11_swap_via_reversed_view", swap_slice_view, (X,), ref=lambda: np.array([1.0, 3.0, 2.0, 4.0])))


def shift_right(x):
    a = x * 1.0
    a[1:] = a[:-1]
    return np.sum(a * W)


add(G("r11_shift_right_overlap", shift_right, (X,), ref=lambda: np.array([3.0, 3.0, 4.0, 0.0])))


def reverse_read(x):
    a = x * 1.0
    a[:] = a[::-1]
    return np.sum(a * W)


add(G("r11_reverse_in_place_read_view", reverse_read, (X,), ref=lambda: W[::-1].copy()))


def reverse_write(x):
    a = x * 1.0
    a[::-1] = a               # NumPy copies the overlapping right-hand side first
    return np.sum(a * W)


add(G("r11_reverse_in_place_write_view", reverse_write, (X,), ref=lambda: W[::-1].copy()))
add(G("r11_reverse_in_place_write_view_fd", reverse_write, (X,), ref="fd"))


def permute_write(x, perm=np.array([3, 2, 1, 0])):
    a = x * 1.0
    a[perm] = a
    return np.sum(a * W)


add(G("r11_permutation_scatter_self", permute_write, (X,), ref=lambda: W[::-1].copy()))


def self_assign_all(x):
    a = np.tanh(x)
    a[:] = a                  # a no-op a generic code path can produce
    return np.sum(a * W)


add(G("r11_self_assign_full_slice", self_assign_all, (X,), ref=lambda: W * (1 - np.tanh(X) ** 2)))


def flip_columns(x):
    A = np.outer(x, x[:2])
    A[:, ::-1] = A
    return np.sum(A * np.array([1.0, 2.0]))


add(G("r11_flip_columns_self", flip_columns, (X,), ref="fd"))


def reverse_add(x):
    a = x * 1.0
    a[::-1] += a
    return np.sum(a * W)


add(G("r11_reverse_in_place_add", reverse_add, (X,), ref=lambda: np.full(4, 5.0)))


def sym_add(x):
    A = (x * 1.0).reshape(2, 2)
    A += A.T
    return np.sum(A * W.reshape(2, 2))


add(G("r11_symmetrize_in_place", sym_add, (X,), ref=lambda: np.array([2.0, 5.0, 5.0, 8.0])))


def views_of_views(x):
    a = x * 1.0
    b = np.squeeze(a.reshape(1, 4))
    c = np.swapaxes(b.reshape(2, 2), 0, 1)
    c[0, 1] = 3 * x[1]
    return np.sum(a ** 2 * W)


add(G("r11_view_chain_squeeze_swapaxes", views_of_views, (X,), ref="fd"))


def newaxis_add(x):
    a = x * 1.0
    b = a[None]
    b[:, 2] += x[1]
    return np.sum(a ** 2)


add(G("r11_newaxis_view_add", newaxis_add, (X,), ref="fd"))


def prefix_loop(x):
    a = x * 1.0
    for i in range(1, 4):
        a[i] = a[i - 1] * 0.5 + a[i]
    return np.sum(a ** 2)


add(G("r11_prefix_recurrence_in_place", prefix_loop, (X,), ref="fd"))


def triu_fill(x):
    A = np.zeros((4, 4))
    A[np.arange(4), np.arange(4)] = x
    A[np.triu_indices(4, 1)] = x[0] * x[1]
    return np.sum(A @ A)


add(G("r11_triu_indices_fill", triu_fill, (X,), ref="fd"))


def strided_square(x):
    a = np.stack([x, x * 2])
    b = a[:, ::2]
    b[...] = b ** 2
    return np.sum(a)


add(G("r11_strided_view_ellipsis_write", strided_square, (X,), ref="fd"))


add(G("r11_reverse_in_place_write_backend_jax", reverse_write, (X,), ref=lambda: W[::-1].copy(), backend="jax"))
add(JV("r11_reverse_in_place_write_jvp", reverse_write, (X,), (np.array([1.0, 0.5, 0.0, -1.0]),), ref="fd"))
add(pair("r11_reverse_in_place_write_jacfwd", lambda: revsrc.jacfwd(reverse_write)(X), lambda: W[::-1].copy()))
