"""Round 9, aliasing and in-place corners a physicist's NumPy code runs into: chained
assignment of one array to two names, list aliases, fancy `+=` with repeated indices
(NumPy applies it once), in-place sort, writes through reshape and transpose views of
a local copy, tuple swaps of array items, mutable default arguments, masked
assignment from an array, negative indices."""
import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_v = np.array([0.5, -1.0, 2.0, 0.25])


def chained_alias(x):
    a = b = x * 2.0
    a[0] += x[1]
    return np.sum(b * np.arange(1.0, 5.0))


CASES.append(G("r9_chained_assignment_alias_write", chained_alias, (_v,), ref=lambda: np.array([2.0, 1.0 + 4.0, 6.0, 8.0])))


def list_alias(x):
    l1 = [x, 2 * x]
    l2 = l1
    l2[0] = x * x
    return l1[0] + l1[1]


CASES.append(G("r9_list_alias_item_write", list_alias, (1.5,), ref=lambda: 3.0 + 2.0, tol=1e-12))


def fancy_repeat_iadd(x):
    y = x.copy()
    y[[0, 0, 2]] += x[1]
    return np.sum(y * np.array([1.0, 10.0, 100.0, 1000.0]))


def _fancy_repeat_ref():
    # NumPy: y[0] = x0 + x1 once, y[2] = x2 + x1
    return np.array([1.0, 10.0 + 1.0 + 100.0, 100.0, 1000.0])


CASES.append(G("r9_fancy_iadd_repeated_index_once", fancy_repeat_iadd, (_v,), ref=_fancy_repeat_ref))


def fancy_repeat_set(x):
    y = np.zeros(3)
    y[[1, 1]] = x[:2]
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


CASES.append(G("r9_fancy_set_repeated_index_last_wins", fancy_repeat_set, (_v,), ref=lambda: np.array([0.0, 2.0, 0.0, 0.0])))


def inplace_sort(x):
    y = x.copy()
    y.sort()
    return y[0] * 1.0 + y[-1] * 3.0


CASES.append(G("r9_inplace_method_sort_copy", inplace_sort, (_v,), ref=lambda: np.array([0.0, 1.0, 3.0, 0.0])))


def reshape_view_write(x):
    y = x.copy()
    M = y.reshape(2, 2)
    M[1, 0] = M[0, 1] * 3
    return np.sum(y * np.array([1.0, 2.0, 3.0, 4.0]))


CASES.append(G("r9_write_through_reshape_of_copy", reshape_view_write, (_v,), ref=lambda: np.array([1.0, 2.0 + 9.0, 0.0, 4.0])))


def transpose_view_write(x):
    M = np.outer(x[:2], x[2:])
    T = M.T
    T[0, 1] = 0.0
    return np.sum(M)


CASES.append(G("r9_write_through_transpose_view", transpose_view_write, (_v,), ref="fd"))


def tuple_swap(x):
    y = x.copy()
    y[0], y[1] = y[1], y[0]
    return y[0] * 2.0 + y[1] * 5.0


CASES.append(G("r9_tuple_swap_array_items", tuple_swap, (_v,), ref=lambda: np.array([5.0, 2.0, 0.0, 0.0])))


def row_swap(M):
    A = M.copy()
    A[[0, 1]] = A[[1, 0]]
    return np.sum(A * np.arange(4.0).reshape(2, 2))


CASES.append(G("r9_row_swap_fancy", row_swap, (_v.reshape(2, 2),), ref=lambda: np.array([[2.0, 3.0], [0.0, 1.0]])))


def mutable_default(x, cache=[]):
    cache = list(cache)
    cache.append(x * x)
    return sum(cache)


CASES.append(G("r9_mutable_default_copied", mutable_default, (0.7,), ref=lambda: 1.4, tol=1e-12))


def masked_from_array(x):
    y = np.zeros(4)
    mask = x > 0
    y[mask] = x[mask] ** 2
    y[~mask] = -x[~mask]
    return np.sum(y)


CASES.append(G("r9_masked_assign_from_masked_array", masked_from_array, (_v,), ref=lambda: np.array([1.0, -1.0, 4.0, 0.5])))


def negative_indices(x):
    return x[-1] * x[-2] + x[-4] ** 2 + np.sum(x[-3:-1])


CASES.append(G("r9_negative_indices", negative_indices, (_v,), ref=lambda: np.array([1.0, 1.0, 0.25 + 1.0, 2.0])))


def slice_step_write(x):
    y = np.zeros(8)
    y[::2] = x
    y[1::2] = x[::-1] * 2
    return np.sum(y * np.arange(8.0))


CASES.append(G("r9_strided_slice_writes", slice_step_write, (_v,), ref=lambda: np.array([0.0 + 7 * 2, 2.0 + 5 * 2, 4.0 + 3 * 2, 6.0 + 1 * 2])))


def cumsum_reverse(x):
    return np.sum(np.cumsum(x[::-1])[::-1] * np.array([1.0, 0.0, 2.0, 0.0]))


CASES.append(G("r9_reverse_cumsum_reverse", cumsum_reverse, (_v,), ref=lambda: np.array([1.0, 1.0, 3.0, 3.0])))


def alias_then_rebind(x):
    a = x.copy()
    b = a
    a = a * 2.0
    b[0] = 10.0 * x[1]
    return np.sum(a) + np.sum(b)


CASES.append(G("r9_alias_rebound_then_old_written", alias_then_rebind, (_v,), ref=lambda: np.array([2.0, 3.0 + 10.0, 3.0, 3.0])))


def list_of_arrays_alias(x):
    row = np.zeros(2)
    grid = [row, row]
    grid[0][1] = x
    return grid[1][1] * 3.0


CASES.append(G("r9_list_holds_same_array_twice_write", list_of_arrays_alias, (0.5,), ref=lambda: 3.0, tol=1e-12))


def diag_write(x):
    A = np.zeros((3, 3))
    A[np.diag_indices(3)] = x[:3]
    A[0, 2] = x[3]
    return np.sum(A @ np.array([1.0, 2.0, 3.0]))


CASES.append(G("r9_diag_indices_write", diag_write, (_v,), ref=lambda: np.array([1.0, 2.0, 3.0, 3.0])))


def fill_diagonal(x):
    A = np.ones((3, 3)) * x[0]
    np.fill_diagonal(A, x[1])
    return np.sum(A ** 2)


CASES.append(G("r9_np_fill_diagonal", fill_diagonal, (_v,), ref=lambda: np.array([6 * 2 * 0.5, 3 * 2 * -1.0, 0.0, 0.0])))


def iadd_scalar_to_copy_slice(x):
    y = x.copy()
    z = y[1:3]
    z += 1.0
    z *= x[0]
    return np.sum(y)


CASES.append(G("r9_view_inplace_propagates_to_base", iadd_scalar_to_copy_slice, (_v,), ref=lambda: np.array([1.0 + (-1.0 + 1) + (2.0 + 1), 0.5, 0.5, 1.0])))


def put_along(x):
    y = np.zeros(4)
    np.put(y, [3, 0], x[:2])
    return np.sum(y * np.arange(1.0, 5.0))


CASES.append(G("r9_np_put", put_along, (_v,), ref=lambda: np.array([4.0, 1.0, 0.0, 0.0])))
