"""Round 15, part u: aliasing and in-place NumPy semantics where a silent wrong number
could hide -- repeated fancy indices with += (no accumulation), views that see later
writes, b = a then a write through b, ravel / reshape / transpose views, boolean-mask
augmented assignment, np.put, sort in place on a copy, fill_diagonal, astype round trips."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append
X4 = np.array([0.5, -1.2, 2.0, 0.3])


def fancy_repeat_iadd(x):
    a = np.zeros(3)
    idx = np.array([0, 0, 2, 0])
    a[idx] += x          # NumPy: each place written once (the last), no accumulation
    return np.sum(a * np.array([1.0, 10.0, 100.0]))


add(G("r15_fancy_repeated_index_iadd_no_accumulate", fancy_repeat_iadd, (X4,), ref="fd", tol=1e-8))


def fancy_repeat_assign(x):
    a = np.zeros(3)
    a[np.array([1, 1, 2])] = x[:3] * 2.0
    return np.sum(a ** 2)


add(G("r15_fancy_repeated_index_assign_last_wins", fancy_repeat_assign, (X4,), ref="fd", tol=1e-8))


def view_sees_later_write(x):
    a = np.ones((2, 3))
    r = a[0]             # a view of row 0
    a[0, 1] = x[0] * 3.0
    a[:, 2] = x[1:3]
    return np.sum(r * np.array([1.0, 2.0, 4.0])) + a[1, 2]


add(G("r15_view_taken_before_writes", view_sees_later_write, (X4,), ref="fd", tol=1e-8))


def alias_write(x):
    a = x.copy()
    b = a
    b[1] = b[1] * b[2]
    return np.sum(a ** 2)


add(G("r15_alias_b_equals_a_write", alias_write, (X4,), ref="fd", tol=1e-8))


def ravel_view_write(x):
    A = np.outer(x[:2], x[2:])
    r = A.ravel()
    r[0] = 5.0 * x[0]
    T = A.T
    T[1, 0] = T[1, 0] ** 2
    return np.sum(A * np.arange(4.0).reshape(2, 2))


add(G("r15_ravel_and_transpose_view_writes", ravel_view_write, (X4,), ref="fd", tol=1e-8))


def slice_copy_vs_view(x):
    a = x.copy()
    s = a[1:3]          # view
    c = a[1:3].copy()   # copy
    a[1:3] = a[1:3] * 10.0
    return np.sum(s) + np.sum(c * c)


add(G("r15_slice_view_vs_copy", slice_copy_vs_view, (X4,), ref="fd", tol=1e-8))


def mask_iadd(x):
    a = x.copy()
    a[a > 0] *= 2.0
    a[a < -1.0] += a[a < -1.0] ** 2
    return np.sum(a * np.arange(1.0, 5.0))


add(G("r15_boolean_mask_augmented", mask_iadd, (X4,), ref="fd", tol=1e-8))


def put_fn(x):
    a = np.zeros(5)
    np.put(a, [0, 3], x[:2] ** 2)
    return np.sum(a * np.arange(5.0)) + a[0]


add(G("r15_np_put_local", put_fn, (X4,), ref=lambda: np.array([2 * 0.5, 3 * 2 * -1.2, 0.0, 0.0]), tol=1e-13))


def sort_copy(x):
    a = x.copy()
    a.sort()
    return np.sum(a * np.arange(4.0))


add(G("r15_ndarray_sort_in_place_copy", sort_copy, (X4,), ref=lambda: np.array([2.0, 0.0, 3.0, 1.0]), tol=1e-13))


def fill_diag(x):
    A = np.outer(x, x)
    np.fill_diagonal(A, x ** 3)
    return np.sum(A * np.tril(np.ones((4, 4))))


add(G("r15_fill_diagonal_local", fill_diag, (X4,), ref="fd", tol=1e-8))


def astype_roundtrip(x):
    y = x.astype(np.float32).astype(np.float64)
    return np.sum(y ** 2) + np.sum(np.round(x) * x) + np.sum(np.floor(x * 2) * x)


add(G("r15_astype_float32_roundtrip_round_floor", astype_roundtrip, (X4,), ref=lambda: 2 * X4.astype(np.float32).astype(float) + np.round(X4) + np.floor(X4 * 2), tol=1e-7))


def norm_at_zero(x):
    return np.linalg.norm(x - x) + np.sum(x)


add(G("r15_norm_of_zero_vector", norm_at_zero, (X4,), ref=lambda: np.ones(4), tol=1e-14))


def clip_at_bounds(x):
    return np.sum(np.clip(x, -1.2, 2.0) * np.array([1.0, 2.0, 3.0, 4.0]))


# at a bound a tie is split in half, as jax.grad of jnp.clip gives ([1, 1, 1.5, 4]); autograd gives 0
add(G("r15_clip_exactly_at_bounds", clip_at_bounds, (X4,), ref=lambda: np.array([1.0, 1.0, 1.5, 4.0]), tol=1e-14))


def maximum_tie(x):
    return np.sum(np.maximum(x, x[::-1]))


add(G("r15_maximum_ties_split", maximum_tie, (np.array([1.0, 2.0, 2.0, 1.0]),), ref=lambda: np.array([1.0, 1.0, 1.0, 1.0]), tol=1e-14))


def loop_view_row(x):
    A = np.zeros((3, 2))
    first = A[0]
    for i in range(3):
        A[i] = x[:2] * (i + 1) + first
    return np.sum(A)


add(G("r15_view_of_row_read_in_loop_after_write", loop_view_row, (X4,), ref="fd", tol=1e-8))


def broadcast_iadd(x):
    A = np.ones((3, 4))
    A += x
    A[1] -= x ** 2
    A *= x[None, :]
    return np.sum(A)


add(G("r15_broadcast_inplace_ops", broadcast_iadd, (X4,), ref="fd", tol=1e-8))


def list_of_views(x):
    A = np.stack([x, 2 * x])
    rows = [A[0], A[1]]
    A[0, 0] = 100.0 * x[3]
    return rows[0][0] + rows[1][1] * 3.0


add(G("r15_list_of_row_views_then_write", list_of_views, (X4,), ref="fd", tol=1e-8))


def diagonal_copy_write(x):
    A = np.outer(x, x)
    d = np.diagonal(A).copy()
    d[0] = 0.0
    return np.sum(d) + np.trace(A)


add(G("r15_diagonal_copy_then_write", diagonal_copy_write, (X4,), ref="fd", tol=1e-8))


def swap_rows(x):
    A = np.outer(x[:3], np.array([1.0, 2.0, 3.0]))
    A[[0, 2]] = A[[2, 0]]
    A[:, [0, 1]] = A[:, [1, 0]]
    return np.sum(A * np.arange(9.0).reshape(3, 3))


add(G("r15_swap_rows_and_columns_fancy", swap_rows, (X4,), ref="fd", tol=1e-8))


def self_shift(x):
    a = x.copy()
    a[1:] = a[:-1]
    a[:-1] += a[1:]
    return np.sum(a * np.arange(1.0, 5.0))


add(G("r15_overlapping_self_shift", self_shift, (X4,), ref="fd", tol=1e-8))


def def_in_loop_called(x):
    s = 0.0
    for k in range(3):
        def g(z):
            return z * k
        s = s + g(x)
    return s


add(G("r15_def_in_loop_called_at_once", def_in_loop_called, (1.5,), ref=lambda: 3.0, tol=0.0))


def overlap_iadd(x):
    a = x.copy()
    a[1:] += a[:-1]
    return np.sum(a * np.arange(1.0, 5.0))


XA = np.array([1.0, 2.0, 3.0, 4.0])
add(G("r15_overlapping_slices_iadd", overlap_iadd, (XA,), ref=lambda: np.array([3.0, 5.0, 7.0, 4.0]), tol=0.0))


def chained_alias(x):
    a = b = np.zeros(3)
    a[0] = x
    return b[0] * 3.0


add(G("r15_chained_assignment_alias", chained_alias, (1.5,), ref=lambda: 3.0, tol=0.0))


def targets_left_to_right(x):
    a = np.zeros(3)
    i = 0
    a[i], i = x[0], 2
    a[i] = x[1] * 5.0
    b = x.copy()
    b[0], b[1] = b[1] * 2.0, b[0]
    return a[0] + a[2] + b[0] * 10.0 + b[1]


add(G("r15_assignment_targets_left_to_right", targets_left_to_right, (XA,), ref=lambda: np.array([2.0, 25.0, 0.0, 0.0]), tol=0.0))


def strided_view_inplace(x):
    a = x.copy()
    b = a[::2]
    b += 1.0
    b *= a[1::2]
    return np.sum(a * np.arange(4.0))


add(G("r15_strided_view_inplace_ops", strided_view_inplace, (XA,), ref=lambda: np.array([0.0, 1.0, 8.0, 11.0]), tol=1e-14))


def closure_late_binding(x):
    k = 2

    def inner(z):
        return z * k
    k = 5
    return inner(x)


add(G("r15_closure_sees_later_rebinding", closure_late_binding, (1.5,), ref=lambda: 5.0, tol=0.0))


def alias_mix(x):
    d = {"a": x}
    e = d
    e["a"] = e["a"] * 3.0
    xs = [x]
    ys = xs
    ys.append(2 * x)
    a = np.array([x, 2 * x])
    b = a
    a *= 3.0
    c = np.array([x, 1.0])
    v = c[:]
    v[0] = 5.0 * x
    return d["a"] + sum(xs) + b[0] + c[0]


add(G("r15_aliases_dict_list_array_views", alias_mix, (1.5,), ref=lambda: 3.0 + 3.0 + 3.0 + 5.0, tol=0.0))
