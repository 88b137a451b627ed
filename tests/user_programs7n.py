"""User programs, corpus 7n: which NumPy results are views and which are copies, as a
write into them shows -- reshape in C and F order, ascontiguousarray, astype(copy=False),
asarray, flip, rot90, np.real of a real array, atleast_2d, squeeze, .view(), [...],
[None], boolean-index copies, moveaxis, .T rows, np.diag of a vector; helpers that change
their array argument or return a view of it; closures reading an array changed later;
ping-pong buffers; row views collected in a list.  References: the plain call for the
value and self-checked central differences for the gradient."""
import numpy as np

import revsrc
from user_programs7_harness import fd_checked, pair

CASES = []
X3 = np.array([0.5, 1.5, -0.7])
W6 = np.arange(1.0, 7.0)


def VG(name, f, args=(X3,), tol=1e-7):
    return pair(name, lambda: revsrc.value_and_grad(f)(*args),
                lambda: (f(*args), fd_checked(f, args)[0]), tol=tol)


def reshape_F(x):
    A = np.outer(x[:2], x)
    r = A.reshape(-1, order="F")      # a copy
    r[0] = 100.0
    return np.sum(A * W6.reshape(2, 3)) + np.sum(r * W6)


def reshape_C(x):
    A = np.outer(x[:2], x)
    r = A.reshape(-1)                 # a view
    r[0] = 100.0
    return np.sum(A * W6.reshape(2, 3)) + np.sum(r * W6)


def ascontig_same(x):
    A = np.outer(x[:2], x)
    B = np.ascontiguousarray(A)       # A itself
    B[0, 0] = 0.0
    return np.sum(A * W6.reshape(2, 3))


def ascontig_copy(x):
    A = np.outer(x[:2], x)
    B = np.ascontiguousarray(A.T)     # a copy
    B[0, 0] = 0.0
    return np.sum(A * W6.reshape(2, 3)) + np.sum(B)


def astype_nocopy(x):
    y = x * 2.0
    z = y.astype(float, copy=False)   # y itself
    z[0] = 0.0
    return np.sum(y * x)


def asarray_same(x):
    y = x * 2.0
    z = np.asarray(y, dtype=np.float64)
    z[1] = 0.0
    return np.sum(y * x)


def flip_view(x):
    y = x * 1.0
    f = np.flip(y)
    f[0] = 10.0 * x[0]
    return np.sum(y * W6[:3])


def rot90_view(x):
    A = np.outer(x, x)
    R = np.rot90(A)
    R[0, 0] = 0.0
    return np.sum(A * np.arange(9.0).reshape(3, 3))


def real_view(x):
    y = x * 1.0
    r = np.real(y)
    r[0] = 5.0
    return np.sum(y * x)


def atleast_view(x):
    y = x * 1.0
    z = np.atleast_2d(y)
    z[0, 1] = 3.0
    return np.sum(y * x)


def squeeze_view(x):
    y = np.outer(x, np.ones(1))
    s = np.squeeze(y)
    s[2] = 0.0
    return np.sum(y[:, 0] * x)


def view_method(x):
    y = x * 1.0
    v = y.view()
    v[1] = 7.0
    return np.sum(y * x)


def none_view(x):
    y = x * 1.0
    v = y[None]
    v[0, 0] = 0.0
    return np.sum(y * x)


def bool_copy(x):
    y = x * 1.0
    v = y[np.array([True, False, True])]
    v[0] = 0.0
    return np.sum(y * x) + np.sum(v)


def moveaxis_view(x):
    A = np.outer(x, x).reshape(3, 3, 1)
    M = np.moveaxis(A, 2, 0)
    M[0, 0, 0] = 0.0
    return np.sum(A[:, :, 0] * np.arange(9.0).reshape(3, 3))


def T_row_write(x):
    A = np.outer(x, np.ones(2))
    A.T[0] = x * 3.0
    return np.sum(A * np.arange(6.0).reshape(3, 2))


def diag_vector_copy(x):
    D = np.diag(x * 1.0)
    D[0, 1] = 2.0 * x[0]
    return np.sum(D ** 2)


for nm, fn in (("reshape_order_F_is_copy", reshape_F), ("reshape_C_is_view", reshape_C),
               ("ascontiguousarray_same_object", ascontig_same), ("ascontiguousarray_of_T_copy", ascontig_copy),
               ("astype_copy_false_same_object", astype_nocopy), ("asarray_same_dtype_same_object", asarray_same),
               ("flip_view_write", flip_view), ("rot90_view_write", rot90_view),
               ("np_real_of_real_is_view", real_view), ("atleast_2d_view_write", atleast_view),
               ("squeeze_view_write", squeeze_view), ("view_method_write", view_method),
               ("none_index_view_write", none_view), ("bool_index_is_copy", bool_copy),
               ("moveaxis_view_write", moveaxis_view), ("transpose_row_write", T_row_write),
               ("diag_of_vector_is_copy", diag_vector_copy)):
    CASES.append(VG("r7_" + nm, fn))


def closure_after_iadd(x):
    a = x * 1.0

    def total():
        return np.sum(a * a)
    a += 1.0
    return total()


def helper_imul(x):
    def scale(arr, s):
        arr *= s
    a = x * 1.0
    scale(a, 3.0)
    return np.sum(a * x)


def helper_view(x):
    def head(arr):
        return arr[:2]
    a = x * 1.0
    h = head(a)
    h *= 2.0
    return np.sum(a * x)


def add_at_view(x):
    y = np.zeros(4)
    v = y[1:]
    np.add.at(v, np.array([0, 0, 2]), x)
    return np.sum(y * np.arange(1.0, 5.0))


def enumerate_rows_iadd(x):
    A = np.outer(x, np.ones(2))
    for i, row in enumerate(A):
        row += i * x[i]
    return np.sum(A * A)


def row_views_in_list(x):
    A = np.outer(x, np.ones(2))
    rows = [A[i] for i in range(3)]     # views of A's rows
    rows[1] *= 5.0
    return np.sum(A * A)


def ping_pong(x):
    cur = x * 1.0
    nxt = np.empty_like(cur)
    for _ in range(4):
        nxt[1:-1] = 0.5 * (cur[:-2] + cur[2:])
        nxt[0], nxt[-1] = cur[0], cur[-1]
        cur, nxt = nxt, cur
    return np.sum(cur * W6[:3])


GA = np.zeros(3)


def global_array_write(x):
    GA[0] = x[0]
    return np.sum(GA * x)


for nm, fn in (("closure_reads_array_after_iadd", closure_after_iadd), ("helper_imul_its_argument", helper_imul),
               ("helper_returns_view_then_imul", helper_view), ("add_at_into_a_view", add_at_view),
               ("enumerate_rows_iadd", enumerate_rows_iadd), ("row_views_in_list_imul", row_views_in_list),
               ("ping_pong_buffers_swap", ping_pong), ("global_array_item_write", global_array_write)):
    CASES.append(VG("r7_" + nm, fn))
