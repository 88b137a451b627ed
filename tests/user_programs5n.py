"""User programs, corpus 5n: NumPy views and copies written through, dict aliases."""
import numpy as np

from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


C = np.arange(1.0, 7.0).reshape(2, 3)
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])


def fancy_copy(x):
    A = x * 1.0
    y = A[[0, 1]]
    y[0] = 5.0 * y[0]
    return np.sum(A * C) + np.sum(y)


add("view_fancy_copy", fancy_copy, (X,))


def mask_copy(x):
    A = x * 1.0
    y = A[A > -100]
    y[0] = 5.0 * y[0]
    return np.sum(A * C) + np.sum(y)


add("view_mask_copy", mask_copy, (X,))


def row_loop(x):
    A = x * 1.0
    for row in A:
        row *= 2.0
    return np.sum(A * C)


add("view_row_loop", row_loop, (X,))


def row_loop_set(x):
    A = x * 1.0
    for row in A:
        row[:] = row ** 2
    return np.sum(A * C)


add("view_row_loop_set", row_loop_set, (X,))


def unpack_rows(x):
    A = x * 1.0
    a, b = A
    a[0] = b[1] * 3.0
    return np.sum(A * C)


add("view_unpack_rows", unpack_rows, (X,))


def reverse_overlap(x):
    A = x * 1.0
    v = A[0]
    v[:] = v[::-1]
    return np.sum(A * C)


add("view_reverse_overlap", reverse_overlap, (X,))


def shift_overlap(x):
    A = x.ravel() * 1.0
    A[1:] = A[:-1]
    return np.sum(A * C.ravel())


add("view_shift_overlap", shift_overlap, (X,))


def chained_view(x):
    A = x * 1.0
    A[0][1] = 10.0 * A[1][2]
    return np.sum(A * C)


add("view_chained_view", chained_view, (X,))


def chained_fancy(x):
    A = x * 1.0
    A[[0]][0, 1] = 100.0
    return np.sum(A * C)


add("view_chained_fancy", chained_fancy, (X,))


def flatten_copy(x):
    A = x * 1.0
    f = A.flatten()
    f[0] = 100.0 * f[1]
    return np.sum(A * C) + np.sum(f)


add("view_flatten_copy", flatten_copy, (X,))


def expand_view(x):
    A = x * 1.0
    e = np.expand_dims(A, 0)
    e[0, 0, 0] = 3.0 * A[1, 1]
    m = np.moveaxis(A, 0, 1)
    m[2, 1] = 0.5
    return np.sum(A * C)


add("view_expand_view", expand_view, (X,))


def scalar_copy(x):
    A = x * 1.0
    s = A[0, 0]
    s *= 10.0
    return np.sum(A * C) + s


add("view_scalar_copy", scalar_copy, (X,))


def squeeze_view(x):
    A = (x * 1.0)[None]
    s = np.squeeze(A)
    s[1, 1] = s[0, 0] ** 2
    return np.sum(A[0] * C)


add("view_squeeze_view", squeeze_view, (X,))


def atleast(x):
    v = x.ravel() * 1.0
    M = np.atleast_2d(v)
    M[0, 0] = 9.0 * v[1]
    return np.sum(v * C.ravel())


add("view_atleast", atleast, (X,))


def dict_alias_write(x):
    d = {"a": x, "b": 2.0 * x}
    e = d
    e["a"] = 10.0 * x            # d sees it: the same dict
    return d["a"] + e["b"]


add("dict_alias_write", dict_alias_write, (1.5,))


def dict_copy_write(x):
    d = {"a": x, "b": 2.0 * x}
    e = dict(d)
    e["a"] = 10.0 * x
    f = d.copy()
    f["b"] = 0.0
    return d["a"] + e["a"] + d["b"] + f["b"]


add("dict_copy_write", dict_copy_write, (1.5,))


def dict_of_lists_inner_alias(x):
    d = {"h": [x]}
    h = d["h"]
    h.append(2.0 * x)
    return sum(d["h"])


add("dict_inner_list_alias_append", dict_of_lists_inner_alias, (1.5,))


def dict_comprehension_copy(x):
    d = {"a": x, "b": x * x}
    e = {k: v for k, v in d.items()}
    e["a"] = 3.0
    return d["a"] + e["b"]


add("dict_comprehension_copy_write", dict_comprehension_copy, (1.5,))
