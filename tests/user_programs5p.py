"""User programs, corpus 5p: indexing styles: unpacking, negative steps, windows, .flat, along-axis."""
import numpy as np

from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


C = np.arange(1.0, 7.0)
X = np.array([0.5, -1.0, 2.0, 1.5, 0.3, -0.7])


def unpack_arr(x):
    a, b, *rest = x
    return a * b + sum(rest) * a


add("index_unpack_arr", unpack_arr, (X,))


def rows_unpack(x):
    s = 0.0
    for a, b in x.reshape(3, 2):
        s = s + a * b
    return s


add("index_rows_unpack", rows_unpack, (X,))


def builtin_sum_2d(x):
    return np.sum(sum(x.reshape(3, 2)) ** 2)


add("index_builtin_sum_2d", builtin_sum_2d, (X,))


def neg_slices(x):
    return np.sum(x[4:0:-1] * C[:4]) + np.sum(x[:-1:2] ** 2) + x[-1] * x[-0]


add("index_neg_slices", neg_slices, (X,))


def window_loop(x):
    s = 0.0
    w = 3
    for i in range(len(x) - w + 1):
        s = s + np.prod(x[i:i + w])
    return s


add("index_window_loop", window_loop, (X,))


def np_int_index(x):
    return x[np.int64(1)] * x[np.argmax(x)] + x[None, :, None][0, 2, 0]


add("index_np_int_index", np_int_index, (X,))


def bool_list_index(x):
    return np.sum(x[[True, False, True, False, True, False]] ** 2)


add("index_bool_list_index", bool_list_index, (X,))


def tuple_idx_var(x):
    A = x.reshape(2, 3)
    idx = (0, slice(1, None))
    return np.sum(A[idx] ** 2) + np.sum(A[np.s_[:, ::2]])


add("index_tuple_idx_var", tuple_idx_var, (X,))


def flat_assign(x):
    A = (x * 1.0).reshape(2, 3)
    A.flat[4] = A.flat[0] ** 2
    return np.sum(A * C.reshape(2, 3))


add("index_flat_assign", flat_assign, (X,))


def flat_fancy(x):
    A = (x * 1.0).reshape(2, 3)
    return np.sum(A.flat[[0, 3, 3]] * np.array([1.0, 2.0, 3.0]))


add("index_flat_fancy", flat_fancy, (X,))


def take_along(x):
    A = x.reshape(2, 3)
    idx = np.argsort(A, axis=1)
    return np.sum(np.take_along_axis(A, idx, axis=1) * C.reshape(2, 3))


add("index_take_along", take_along, (X,))


def put_along(x):
    A = np.zeros((2, 3))
    np.put_along_axis(A, np.array([[2], [0]]), x[:2, None], axis=1)
    return np.sum(A * C.reshape(2, 3)) + np.sum(x)


add("index_put_along", put_along, (X,))


def fill_method(x):
    A = x * 1.0
    A.fill(2.0)
    return np.sum(A * x)


add("index_fill_method", fill_method, (X,))


def putmask_(x):
    A = x * 1.0
    np.putmask(A, A > 1.0, 0.0)
    return np.sum(A * x)


add("index_putmask_", putmask_, (X,))


def bcast_assign(x):
    A = np.zeros((3, 2))
    A[:] = x[:2]
    A[1:, :] = x[2:4, None] * 2
    return np.sum(A * C.reshape(3, 2))


add("index_bcast_assign", bcast_assign, (X,))
