"""User programs, corpus 7h: what NumPy's own semantics do to the numbers -- arrays held
in lists and dicts changed in place through the container (the other references see
it), floats written into int / bool / uint8 arrays (truncated: the derivative is 0),
complex values written into float arrays (the imaginary part dropped), 0-d arrays,
row swaps through views, live iteration over an array being written, overlapping
in-place updates.  References: the plain call for values, self-checked central
differences and closed forms for derivatives."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, JV, fd_checked, pair

CASES = []


def VG(name, f, args, tol=1e-7):
    """value_and_grad against (the plain value, central differences)."""
    return pair(name, lambda: revsrc.value_and_grad(f)(*args),
                lambda: (f(*args), fd_checked(f, args)[0]), tol=tol)


X2 = np.array([1.0, 2.0])
X3 = np.array([1.0, 2.0, 3.0])


# -- arrays shared through lists and dicts --------------------------------------------------

def list_alias_iadd(x):
    a = np.zeros(2)
    xs = [a, a]
    xs[0] += x                 # ndarray.__iadd__: a itself changes, so does xs[1]
    return np.sum(xs[1] * np.array([1.0, 3.0])) + np.sum(a)


CASES.append(VG("r7_list_of_same_array_iadd_through_item", list_alias_iadd, (X2,)))


def list_times_three_rows(x):
    rows = [np.zeros(2)] * 3   # three references to one array
    rows[0] += x
    return np.sum(np.stack(rows) * np.arange(6.0).reshape(3, 2))


CASES.append(VG("r7_list_mult_shared_array_iadd", list_times_three_rows, (X2,)))


def list_item_imul_seen_by_name(x):
    a = x * 1.0
    xs = [a]
    xs[0] *= 3.0
    return np.sum(a * x)


CASES.append(VG("r7_list_item_imul_seen_by_original_name", list_item_imul_seen_by_name, (X2,)))


def moving_buffers(x):
    bufs = [np.zeros(2) for _ in range(3)]
    for i in range(3):
        bufs[i] += x * (i + 1)          # distinct arrays, changed through the list
    return np.sum(bufs[0] * bufs[2])


CASES.append(VG("r7_list_of_distinct_buffers_iadd_in_loop", moving_buffers, (X2,)))


def state_list_update(x):
    pos, vel = x * 1.0, np.zeros(2)
    state = [pos, vel]
    for _ in range(3):
        state[1] += 0.1 * state[0]
        state[0] += 0.1 * state[1]
    return np.sum(pos ** 2) + np.sum(vel)


CASES.append(VG("r7_state_list_inplace_seen_by_names", state_list_update, (X2,)))


def dict_alias_iadd(x):
    a = x * 1.0
    d = {"p": a, "q": a}
    d["p"] += 1.0
    return np.sum(d["q"] * x)


CASES.append(VG("r7_dict_two_keys_same_array_iadd", dict_alias_iadd, (X2,)))


def loop_var_inplace(x):
    vs = [x * 1.0, x * 2.0]
    for v in vs:
        v *= 3.0
    return np.sum(vs[0] + vs[1] ** 2)


CASES.append(VG("r7_for_item_imul_changes_list_arrays", loop_var_inplace, (X2,)))


def tuple_of_arrays_inplace(x):
    a, b = x * 1.0, x * 2.0
    pair_ = (a, b)
    for arr in pair_:
        arr[0] = arr[1] * arr[0]
    return np.sum(a + b)


CASES.append(VG("r7_tuple_items_setitem_through_loop_var", tuple_of_arrays_inplace, (X2,)))

# -- dtypes of the destination ------------------------------------------------------------------


def int_array_truncation(x):
    y = np.zeros(3, dtype=int)
    y[0] = x * 10.0            # stored as int(3.7) = 3: no derivative
    return np.sum(y) * 1.0 + x


CASES.append(G("r7_float_into_int_array_truncates", int_array_truncation, (0.37,), ref=lambda: 1.0, tol=1e-12))


def int_array_truncation_vec(x):
    y = np.zeros(3, dtype=np.int64)
    y[:] = x * 10.0
    return np.sum(y * x)


CASES.append(G("r7_float_slice_into_int64_array", int_array_truncation_vec, (np.array([0.37, 0.52, 1.24]),),
               ref=lambda: np.array([3.0, 5.0, 12.0]), tol=1e-12))


def arange_write(x):
    y = np.arange(3)
    y[1] = x * 5
    return np.sum(y * 1.0) + x


CASES.append(G("r7_float_into_arange_int_array", arange_write, (0.33,), ref=lambda: 1.0, tol=1e-12))


def bool_store(x):
    y = np.zeros(2, dtype=bool)
    y[0] = x
    return np.sum(y) * x


CASES.append(G("r7_float_into_bool_array", bool_store, (0.3,), ref=lambda: 1.0, tol=1e-12))


def int_iadd_item(x):
    y = np.zeros(2, dtype=int)
    y += 1
    y[0] += x * 4          # y[0] = int(1 + 6.4)
    return np.sum(y) + x


CASES.append(G("r7_int_array_item_iadd_float", int_iadd_item, (1.6,), ref=lambda: 1.0, tol=1e-12))


def uint8_image(x):
    img = np.zeros(3, dtype=np.uint8)
    img[:] = np.array([0.5, 1.0, 2.0]) * 100.0 * x
    return np.sum(img / 255.0) + x


CASES.append(G("r7_float_into_uint8_image", uint8_image, (0.913,), ref=lambda: 1.0, tol=1e-12))


def int_list_then_array(x):
    y = [0, 0]
    y[0] = x
    return np.sum(np.array(y, dtype=int)) + x


CASES.append(G("r7_list_to_int_array_dtype", int_list_then_array, (1.5,), ref=lambda: 1.0, tol=1e-12))


def astype_int(x):
    return np.sum(x.astype(int) * x)


CASES.append(G("r7_astype_int_times_x", astype_int, (np.array([1.3, 2.7]),), ref=lambda: np.array([1.0, 2.0]),
               tol=1e-12))


def int_store_jvp(x):
    y = np.zeros(2, dtype=int)
    y[1] = 7.0 * x
    return y[1] * x


CASES.append(JV("r7_jvp_float_into_int_array", int_store_jvp, (0.5,), (1.0,), ref=lambda: (1.5, 3.0), tol=1e-12))


def f32_store(x):
    y = np.zeros(2, np.float32)
    y[0] = x
    return float(y[0]) * x


# the float32 rounding has derivative 1 (as JAX's convert_element_type): y0 + x
CASES.append(G("r7_float_into_float32_array", f32_store, (0.3,),
               ref=lambda: float(np.float32(0.3)) + 0.3, tol=1e-7))


def complex_store(x):
    y = np.zeros(2)
    y[0] = x * (1 + 1j)            # NumPy keeps the real part (ComplexWarning)
    return np.sum(y) * x


CASES.append(pair("r7_complex_into_float_array",
                  lambda: revsrc.value_and_grad(complex_store)(0.6),
                  lambda: (0.36, 1.2), tol=1e-12))


def zero_d_setitem(x):
    y = np.array(x)
    y[()] = y * 2.0
    return float(y) * x


CASES.append(G("r7_zero_d_array_setitem_empty_tuple", zero_d_setitem, (1.5,), ref=lambda: 4.0 * 1.5, tol=1e-12))


def zero_d_ellipsis(x):
    y = np.zeros(())
    y[...] = x ** 2
    return y * 3.0


CASES.append(G("r7_zero_d_array_setitem_ellipsis", zero_d_ellipsis, (1.5,), ref=lambda: 9.0, tol=1e-12))

# -- views that NumPy makes -------------------------------------------------------------------


def swap_rows_tuple(x):
    A = np.outer(x, np.array([1.0, 2.0]))
    A[0], A[1] = A[1], A[0]         # both rows end up the old row 1 (views)
    return np.sum(A * np.arange(1.0, 1.0 + A.size).reshape(A.shape))


CASES.append(VG("r7_swap_rows_tuple_assignment_views", swap_rows_tuple, (X3,)))


def swap_items_scalars(x):
    y = x * 1.0
    y[0], y[2] = y[2], y[0]         # scalars are copies: a real swap
    return np.sum(y * np.arange(1.0, 4.0))


CASES.append(VG("r7_swap_items_tuple_assignment", swap_items_scalars, (X3,)))


def iter_live_array(x):
    y = x * 1.0
    for i, v in enumerate(y):       # the iterator reads y as it is written
        if i + 1 < len(y):
            y[i + 1] = y[i + 1] + v
    return np.sum(y * np.arange(1.0, 5.0))


CASES.append(VG("r7_enumerate_live_array_prefix_sum", iter_live_array, (np.array([1.0, 2.0, 3.0, 4.0]),)))


def overlap_iadd(x):
    y = x * 1.0
    y[1:] += y[:-1]                 # NumPy buffers overlapping operands
    return np.sum(y * np.arange(1.0, 5.0))


CASES.append(VG("r7_overlapping_slice_iadd", overlap_iadd, (np.array([1.0, 2.0, 3.0, 4.0]),)))


def ravel_noncontig_write(x):
    A = np.outer(x, np.ones(2)).T
    r = A.ravel()                   # a copy here (not contiguous): A unchanged
    r[0] = 100.0 * x[2]
    return np.sum(A * np.arange(6.0).reshape(2, 3)) + np.sum(r)


CASES.append(VG("r7_ravel_copy_of_transpose_write", ravel_noncontig_write, (X3,)))


def ravel_contig_write(x):
    A = np.outer(x, np.ones(2))
    r = A.ravel()                   # a view here: A changes
    r[0] = 100.0 * x[2]
    return np.sum(A * np.arange(6.0).reshape(3, 2)) + np.sum(r)


CASES.append(VG("r7_ravel_view_write_through", ravel_contig_write, (X3,)))


def fill_method(x):
    y = np.empty(3)
    y.fill(x)
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


CASES.append(G("r7_ndarray_fill_method", fill_method, (0.5,), ref=lambda: 6.0, tol=1e-12))


def sort_method(x):
    y = x * 1.0
    y.sort()
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


CASES.append(G("r7_ndarray_sort_method_inplace", sort_method, (np.array([3.0, 1.0, 2.0]),),
               ref=lambda: np.array([3.0, 1.0, 2.0]), tol=1e-12))


def put_along(x):
    y = np.zeros((2, 3))
    np.put_along_axis(y, np.array([[2], [0]]), x[:, None], axis=1)
    return np.sum(y * np.arange(6.0).reshape(2, 3))


CASES.append(G("r7_put_along_axis", put_along, (X2,), ref=lambda: np.array([2.0, 3.0]), tol=1e-12))
