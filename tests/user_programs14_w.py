"""Round 14, part w: NumPy's view-or-copy rules a transformation must mirror -- rows of a
2-d array as loop variables written in place, chained indexing A[i][j] = v, writes into a
fancy-indexed or masked copy (no effect on A), reshape of a transposed array (a copy),
np.asarray aliasing, ravel, and generators read twice."""
import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

XM = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
WM = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def rows_inplace(X):
    A = X.copy()
    for row in A:
        row *= 2.0
        row[0] += row[1]
    return np.sum(A * WM)


add(G("r14_w_loop_rows_are_views", rows_inplace, (XM,), ref="fd", tol=1e-8))


def scalar_loop_var_no_effect(x):
    y = x.copy()
    for v in y:
        v += 10.0
    return np.sum(y ** 2)


add(G("r14_w_scalar_loop_var_no_write", scalar_loop_var_no_effect, (XM[0],), ref=lambda: 2 * XM[0], tol=0.0))


def chained_index_write(X):
    A = X.copy()
    A[1][2] = A[0][0] * 3.0
    A[:, 0][1] = A[0, 1] ** 2
    return np.sum(A * WM)


add(G("r14_w_chained_index_writes_through_views", chained_index_write, (XM,), ref="fd", tol=1e-8))


def fancy_copy_write(X):
    A = X.copy()
    A[[0, 1]][0] = 100.0         # a copy: A is unchanged
    A[A > 0][0] = -5.0           # a copy: A is unchanged
    A[:, [0, 2]][1, 1] = 7.0     # a copy: A is unchanged
    return np.sum(A * WM)


add(G("r14_w_write_into_fancy_copy_no_effect", fancy_copy_write, (XM,), ref=lambda: WM, tol=0.0))
add(pair("r14_w_write_into_fancy_copy_value", lambda: revsrc.value_and_grad(fancy_copy_write)(XM)[0], lambda: np.sum(XM * WM), tol=0.0))


def reshape_T_copy(X):
    A = X.copy()
    B = A.T.reshape(-1)          # not contiguous: a copy
    B[0] = 50.0
    C = A.reshape(-1)            # contiguous: a view
    C[1] = C[1] * 3.0
    return np.sum(A * WM) + B[0] * X[0, 0]


add(G("r14_w_reshape_transposed_copy_vs_view", reshape_T_copy, (XM,), ref=lambda: WM * np.array([[1, 3, 1], [1, 1, 1.0]]) + np.array([[50.0, 0, 0], [0, 0, 0]]), tol=0.0))


def asarray_alias(x):
    y = x * 1.0
    z = np.asarray(y)
    z[0] = 0.0
    w = np.array(y)
    w[1] = 0.0
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


add(G("r14_w_asarray_aliases_array_copies", asarray_alias, (XM[0],), ref=lambda: np.array([0.0, 2.0, 3.0]), tol=0.0))


def ravel_view(X):
    A = X * 1.0
    r = A.ravel()
    r[-1] = r[0] * 2.0
    f = A.flatten()
    f[0] = 0.0
    return np.sum(A * WM)


add(G("r14_w_ravel_view_flatten_copy", ravel_view, (XM,), ref=lambda: WM * np.array([[1.0, 1, 1], [1, 1, 0]]) + np.array([[12.0, 0, 0], [0, 0, 0]]), tol=0.0))


def generator_twice(x):
    g = (v * v for v in x)
    a = sum(g)
    b = sum(g)          # empty: the generator is spent
    return a + 10.0 * b


add(G("r14_w_generator_read_twice", generator_twice, (XM[0],), ref=lambda: 2 * XM[0], tol=0.0))


def zip_truncates(x, ws):
    return sum(a * b for a, b in zip(x, ws))


add(G("r14_w_zip_truncates", zip_truncates, (XM[0], [1.0, 2.0]), ref=lambda: np.array([1.0, 2.0, 0.0]), tol=0.0))


def iterate_2d(X):
    s = 0.0
    for i, row in enumerate(X, start=1):
        s += i * np.sum(row ** 2)
    for j in range(len(X)):
        s += X[j][0]
    return s


add(G("r14_w_iterate_2d_rows_enumerate_start", iterate_2d, (XM,), ref=lambda: 2 * XM * np.array([[1.0], [2.0]]) + np.array([[1.0, 0, 0], [1.0, 0, 0]]), tol=1e-15))


def slice_rebind_no_write(x):
    a = x[1:3]
    a = a * 2.0
    b = x[0:2]
    b += 0.0 * a[0]
    return np.sum(a) + np.sum(x)


def _slice_rebind():
    x = XM[0].copy()
    g = revsrc.grad(lambda v: slice_rebind_no_write(v.copy()))(x)
    return g


add(G("r14_w_slice_rebound_then_inplace_on_copy", lambda v: slice_rebind_no_write(v.copy()), (XM[0],), ref=lambda: np.array([1.0, 3.0, 3.0]), tol=0.0))


def diag_view_write(X):
    A = X[:, :2].copy() @ X[:, :2].T
    d = A.diagonal()          # a read-only view in NumPy
    return np.sum(d * np.array([1.0, 2.0])) + A[0, 1]


add(G("r14_w_diagonal_read", diag_view_write, (XM,), ref="fd", tol=1e-8))


def swap_rows_fancy(X):
    A = X.copy()
    A[[0, 1]] = A[[1, 0]]
    A[:, [0, 2]] = A[:, [2, 0]] * 2.0
    return np.sum(A * WM)


add(G("r14_w_swap_rows_cols_fancy_assign", swap_rows_fancy, (XM,), ref="fd", tol=1e-8))


def transposed_inplace(X):
    A = X.copy()
    A.T[0] *= 3.0            # first column of A
    A.T[:, 1] -= A[0]        # second row of A minus (new) first row (a copy: NumPy buffers overlap)
    return np.sum(A * WM)


add(G("r14_w_transpose_inplace_ops", transposed_inplace, (XM,), ref="fd", tol=1e-8))


def dflt_f(u, c=np.array([0.0, 1.0])):
    x = c + u
    x = np.array([x[1], x[0]])
    return x @ x


def dflt_g(u, c=np.array([0.0, 2.0])):
    x = c * u
    return np.sum(x ** 2)


def dflt_h(u, c=np.array([3.0, 1.0])):
    return np.sum(c * u ** 2)


U2 = np.array([1.0, 2.0])
add(pair("r14_w_grads_of_two_array_defaults_inside", lambda: revsrc.grad(lambda v: revsrc.grad(dflt_g)(v) @ revsrc.grad(dflt_h)(v))(U2),
         lambda: 8 * np.array([0.0, 4.0]) * np.array([3.0, 1.0]) * U2, tol=1e-14))
add(pair("r14_w_three_array_defaults_summed", lambda: revsrc.grad(lambda v: dflt_f(v) + dflt_g(v) + dflt_h(v))(U2),
         lambda: 2 * (np.array([0.0, 1.0]) + U2) + 2 * np.array([0.0, 4.0]) * U2 + 2 * np.array([3.0, 1.0]) * U2, tol=1e-14))
add(pair("r14_w_grad_of_inner_grad_item_ndarray_default", lambda: revsrc.grad(lambda v: revsrc.grad(dflt_f)(v)[0])(U2),
         lambda: np.array([2.0, 0.0]), tol=1e-14))
add(pair("r14_w_hessian_ndarray_default_with_array_literal", lambda: revsrc.hessian(dflt_f)(U2), lambda: 2 * np.eye(2), tol=1e-14))


def _default_changed_in_place():
    gg = revsrc.grad(dflt_h)
    a = gg(U2)
    dflt_h.__defaults__[0][0] = 10.0
    try:
        b = gg(U2)
    finally:
        dflt_h.__defaults__[0][0] = 3.0
    return a, b


add(pair("r14_w_array_default_changed_in_place", _default_changed_in_place,
         lambda: (2 * np.array([3.0, 1.0]) * U2, 2 * np.array([10.0, 1.0]) * U2), tol=0.0))
