"""Round 8 user programs, batch k: aliasing as NumPy defines it, written the way users
write it by accident or on purpose (np.asarray of an array, reshape/ravel/T views,
a = b = np.zeros, views of views, copies made with np.array and [:] slices,
in-place writes after a view was taken, swapping rows with fancy indices), each
checked against what plain NumPy computes (value) and central differences, or a
coded refusal."""
import numpy as np

import revsrc
from user_programs7_harness import G, pair, fd_checked  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(90)
XW = rng.normal(size=6)


def vg(name, f, args, tol=1e-7, **kw):
    """value and gradient against plain NumPy (on copies: a write into an argument shows)
    and self-checked central differences."""
    def got():
        return revsrc.value_and_grad(f, **kw)(*[np.array(a) if isinstance(a, np.ndarray) else a for a in args])

    def ref():
        return (f(*[np.array(a) if isinstance(a, np.ndarray) else a for a in args]),
                fd_checked(lambda *a: f(*[np.array(v) if isinstance(v, np.ndarray) else v for v in a]), args))
    add(pair(name, got, ref, tol=tol))


def double_assign_zeros(x):
    a = b = np.zeros(3)
    a[0] = x[0]
    b[1] = x[1] * a[0]
    return np.sum(a * b) + np.sum(a)


vg("r8_chained_assignment_same_array", double_assign_zeros, (XW,))


def view_of_view(x):
    y = x.copy()
    v = y[1:5]
    w = v[::2]
    w *= 10.0
    return np.sum(y ** 2)


vg("r8_view_of_strided_view_imul", view_of_view, (XW,))


def view_taken_before_write(x):
    y = x * 1.0
    head = y[:3]
    y[0] = 100.0 * x[1]
    return np.sum(head * x[:3])


vg("r8_view_sees_later_base_write", view_taken_before_write, (XW,))


def reshape_view_then_base_write(x):
    y = x * 2.0
    M = y.reshape(2, 3)
    y[4] = x[0] ** 2
    return np.sum(M[1] * np.array([1.0, 2.0, 3.0]))


vg("r8_reshape_view_sees_base_item_write", reshape_view_then_base_write, (XW,))


def transpose_view_write(x):
    A = np.outer(x[:3], x[3:])
    B = A.T
    B[0, :] = 0.0
    return np.sum(A * A)


vg("r8_transpose_view_row_zeroed", transpose_view_write, (XW,))


def slice_copy_not_view(x):
    y = x.copy()
    c = np.array(y[:3])
    c[0] = 5.0
    d = y[3:].copy()
    d *= 2
    return np.sum(y * y) + np.sum(c) + np.sum(d)


vg("r8_np_array_copy_of_slice_is_independent", slice_copy_not_view, (XW,))


def fancy_index_is_copy(x):
    y = x.copy()
    z = y[[0, 2, 4]]
    z *= 3.0
    y[[1, 3]] = y[[3, 1]]
    return np.sum(y * np.arange(6)) + np.sum(z)


vg("r8_fancy_index_copy_and_row_swap", fancy_index_is_copy, (XW,))


def bool_index_copy_then_write(x):
    y = x.copy()
    pos = y[y > 0]
    pos *= 2.0
    y[y < 0] = 0.0
    return np.sum(y) + np.sum(pos ** 2)


vg("r8_bool_index_copy_independent", bool_index_copy_then_write, (XW,))


def asarray_of_arg_write(x):
    y = np.asarray(x)
    y[0] = 0.0
    return np.sum(y)


def _asarray_ref():
    try:
        revsrc.grad(asarray_of_arg_write)(XW.copy())
    except revsrc.RevsrcError as e:
        return e.code
    return "no refusal"


add(pair("r8_asarray_alias_of_argument_write_refused", _asarray_ref, lambda: "E403", tol=0.0))


def ravel_of_arg_write(x):
    M = x.reshape(2, 3)
    M[0, 0] = 0.0
    return np.sum(M)


def _ravel_ref():
    x = XW.copy()
    try:
        revsrc.grad(ravel_of_arg_write)(x)
    except revsrc.RevsrcError as e:
        return e.code, bool(np.all(x == XW))
    return "no refusal", bool(np.all(x == XW))


add(pair("r8_reshape_of_argument_write_refused", _ravel_ref, lambda: ("E403", True), tol=0.0))


def swap_rows_tuple(x):
    A = x.reshape(2, 3) * 1.0
    A[0], A[1] = A[1].copy(), A[0].copy()
    return np.sum(A * np.arange(6).reshape(2, 3))


vg("r8_swap_rows_with_copies", swap_rows_tuple, (XW,))


def swap_rows_no_copy(x):
    A = x.reshape(2, 3) * 1.0
    A[0], A[1] = A[1], A[0]  # NumPy: A[1] gets the already-overwritten row 0
    return np.sum(A * np.arange(6).reshape(2, 3))


vg("r8_swap_rows_views_numpy_semantics", swap_rows_no_copy, (XW,))


def diag_view_write(x):
    A = np.zeros((3, 3))
    d = np.einsum("ii->i", A)
    d[:] = x[:3]
    return np.sum(A @ x[3:])


vg("r8_einsum_diagonal_view_write_local", diag_view_write, (XW,))


def iadd_self_overlap(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y * np.arange(6))


vg("r8_overlapping_slice_iadd", iadd_self_overlap, (XW,))


def assign_self_overlap(x):
    y = x.copy()
    y[1:] = y[:-1]
    return np.sum(y * np.arange(6))


vg("r8_overlapping_slice_assign_shift", assign_self_overlap, (XW,))


def ellipsis_newaxis(x):
    A = x.reshape(2, 3).copy()
    A[..., 0] = A[..., 1] * A[..., 2]
    B = A[:, None, :] * A[None, :, :]
    return np.sum(B)


vg("r8_ellipsis_write_and_newaxis_product", ellipsis_newaxis, (XW,))


def loop_row_views(x):
    A = x.reshape(3, 2) * 1.0
    for row in A:
        row *= 2.0
        row[0] += row[1]
    return np.sum(A ** 2)


vg("r8_for_row_in_matrix_imul_writes_through", loop_row_views, (XW,))


def negative_step_view(x):
    y = x.copy()
    r = y[::-1]
    r[0] = -y[0]
    return np.sum(y * np.arange(6.0))


vg("r8_reversed_view_write", negative_step_view, (XW,))
