"""Round 12, part s: views and copies NumPy decides by memory layout -- ravel/reshape of a
transposed array (copies), flatten, fancy and boolean indexing (copies), squeeze/moveaxis/
expand_dims/[..., None] views, ndarray.view, np.atleast_2d, writes through each."""
import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked  # noqa: F401

CASES = []
add = CASES.append
A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
W = np.arange(1.0, 7.0).reshape(2, 3)


def C(name, f, x=A):
    add(pair(name, lambda: revsrc.grad(f)(x), lambda: fd_checked(f, (x,))[0], tol=1e-7))


def ravel_of_transpose_is_copy(A):
    B = A * 1.0
    r = B.T.ravel()          # a copy: B.T is not contiguous
    r[0] = 100.0
    return np.sum(B * W) + np.sum(r * r)


C("r12_ravel_of_transpose_copy_write", ravel_of_transpose_is_copy)


def reshape_of_transpose_is_copy(A):
    B = A * 1.0
    r = B.T.reshape(6)
    r *= 3.0
    return np.sum(B * W) + np.sum(r)


C("r12_reshape_of_transpose_copy_inplace", reshape_of_transpose_is_copy)


def reshape_contiguous_is_view(A):
    B = A * 1.0
    r = B.reshape(3, 2)
    r[0, 1] = r[2, 0] ** 2
    return np.sum(B * W)


C("r12_reshape_contiguous_view_write", reshape_contiguous_is_view)


def flatten_is_copy(A):
    B = A * 1.0
    f = B.flatten()
    f[:3] = 0.0
    return np.sum(B * W) + np.sum(f ** 2)


C("r12_flatten_copy_write", flatten_is_copy)


def fancy_index_is_copy(A):
    B = A * 1.0
    rows = B[[1, 0]]
    rows[0, 0] = -50.0
    return np.sum(B * W) + np.sum(rows * W)


C("r12_fancy_index_copy_write", fancy_index_is_copy)


def bool_index_is_copy(A):
    B = A * 1.0
    sel = B[B > 2.5]
    sel *= 10.0
    return np.sum(B * W) + np.sum(sel)


C("r12_boolean_index_copy_inplace", bool_index_is_copy)


def squeeze_view(A):
    B = (A * 1.0)[None]          # (1, 2, 3)
    s = np.squeeze(B, axis=0)
    s[1] = s[1] ** 2
    return np.sum(B[0] * W)


C("r12_squeeze_view_write", squeeze_view)


def moveaxis_view(A):
    B = A * 1.0
    m = np.moveaxis(B, 0, 1)     # (3, 2) view
    m[:, 0] = np.tanh(m[:, 0])
    return np.sum(B * W)


C("r12_moveaxis_view_write", moveaxis_view)


def newaxis_view(A):
    B = A * 1.0
    e = B[..., None]
    e[0, :, 0] += B[1] * 2.0
    return np.sum(B * W)


C("r12_ellipsis_newaxis_view_inplace", newaxis_view)


def expand_dims_view(A):
    B = A * 1.0
    e = np.expand_dims(B, 0)
    e[0, 1, 2] = e[0, 0, 0] * e[0, 1, 1]
    return np.sum(B * W)


C("r12_expand_dims_view_write", expand_dims_view)


def ndarray_view_method(A):
    B = A * 1.0
    v = B.view()
    v[1, :] = np.exp(v[1, :] * 0.1)
    return np.sum(B * W)


C("r12_ndarray_view_method_write", ndarray_view_method)


def atleast_2d_view(x):
    y = x * 1.0
    m = np.atleast_2d(y)
    m[0, 1] = m[0, 0] * 3.0
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


C("r12_atleast_2d_view_write", atleast_2d_view, np.array([0.5, 1.5, -1.0]))


def swapaxes_view_inplace(A):
    B = A * 1.0
    s = B.swapaxes(0, 1)
    s += s ** 2 * 0.1
    return np.sum(B * W)


C("r12_swapaxes_view_inplace", swapaxes_view_inplace)


def negative_stride_view(A):
    B = A * 1.0
    r = B[:, ::-1]
    r[:, 0] = r[:, 1] * r[:, 2]
    return np.sum(B * W)


C("r12_negative_stride_view_write", negative_stride_view)


def diag_of_copy_via_fill(A):
    B = A[:, :2] @ A[:, :2].T
    np.fill_diagonal(B, np.diag(B) + 1.0)
    return np.sum(B * np.array([[1.0, 2.0], [3.0, 4.0]]))


C("r12_fill_diagonal_computed", diag_of_copy_via_fill)


def transposed_copy_inplace(A):
    B = A.T.copy()
    B[0] += B[2]
    return np.sum(B * W.T)


C("r12_transpose_copy_inplace", transposed_copy_inplace)


def real_of_real_view(x):
    y = x * 1.0
    r = y.real              # a view for a real array too
    r[0] = 7.0 * r[1]
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


C("r12_real_attr_of_real_array_view_write", real_of_real_view, np.array([0.5, 1.5, -1.0]))


def imag_of_real_readonly(x):
    return np.sum(x.imag) + np.sum(x ** 2)


C("r12_imag_of_real_array_read", imag_of_real_readonly, np.array([0.5, 1.5, -1.0]))


# -- writes into the caller's array through aliases and views (E403/E404/E401, documented)
XA = np.array([1.0, 2.0, 3.0, 4.0])


def alias_iadd(x):
    b = x
    b += 1.0
    return np.sum(b * b)


def asarray_alias_write(x):
    y = np.asarray(x)
    y[0] = 5.0
    return np.sum(y * x)


def slice_alias_imul(x):
    y = x[:]
    y *= 2.0
    return np.sum(y ** 2)


def reshape_alias_write(x):
    y = x.reshape(2, 2)
    y[0, 0] = 0.0
    return np.sum(x ** 2)


def conditional_copy_or_alias(x):
    z = x.copy() if x[0] > 100 else x
    z[1] = 0.0
    return np.sum(z * z)


def ufunc_out_is_argument(x):
    np.negative(x, out=x)
    return np.sum(x)


def sort_in_place_argument(x):
    x.sort()
    return x[0] * 2 + x[-1]


for _n, _f in (("r12_alias_iadd_argument", alias_iadd), ("r12_asarray_alias_write_argument", asarray_alias_write),
               ("r12_slice_alias_imul_argument", slice_alias_imul), ("r12_reshape_alias_write_argument", reshape_alias_write),
               ("r12_conditional_copy_or_alias_write", conditional_copy_or_alias),
               ("r12_ufunc_out_is_argument", ufunc_out_is_argument), ("r12_sort_in_place_argument", sort_in_place_argument)):
    add(pair(_n, (lambda f: lambda: revsrc.grad(f)(XA.copy()))(_f), lambda: None, tol=0.0))
