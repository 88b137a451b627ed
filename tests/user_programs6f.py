"""User programs, corpus 6f: views and in-place writes (slices, reshapes, transposes,
fancy and boolean indices, augmented assignment, np.add.at, fill_diagonal), checked
against central differences of the plain program (JAX cannot run in-place writes)."""
import numpy as np

import revsrc
from user_programs6_harness import fd_grad, pair

CASES = []
RNG = np.random.default_rng(65)
X = np.array([0.4, -1.2, 0.9, 2.1, -0.3, 0.7])
M = np.array([[0.5, -0.2, 1.1], [0.3, 0.8, -0.6], [1.4, -0.9, 0.2]])


def fdcase(name, f, args, argnums=0, tol=1e-6, tr="grad"):
    if tr == "grad":
        got = lambda: revsrc.grad(f, argnums=argnums)(*args)  # noqa: E731
    else:
        got = lambda: revsrc.value_and_grad(f, argnums=argnums)(*args)[1]  # noqa: E731
    CASES.append(pair(name, got, lambda: fd_grad(f, args, {}, argnums), tol=tol))


def v_slice_view_imul(x):
    y = x * 1.0
    v = y[1:4]
    v *= 3.0
    v[0] = v[0] + y[5]
    return np.sum(y * y)


def v_reshape_view_write(x):
    y = x.copy()
    z = y.reshape(2, 3)
    z[1, :] = z[0, :] * z[1, :]
    return np.sum(np.sin(y))


def v_transpose_view_write(m):
    a = m.copy()
    t = a.T
    t[0, 1] = t[1, 0] ** 2
    return np.sum(a * m)


def v_ravel_write(m):
    a = m * 2.0
    r = a.ravel()
    r[::2] = r[::2] + 1.0
    return np.sum(a ** 2)


def v_step_slice_iadd(x):
    y = np.zeros(6)
    y[::2] += x[:3]
    y[1::2] += x[3:] ** 2
    return np.sum(y * np.arange(1.0, 7.0))


def v_fancy_repeated_iadd(x):
    y = np.zeros(3)
    idx = np.array([0, 2, 2, 1, 0, 0])
    y[idx] += x
    return np.sum(y ** 2)


def v_np_add_at_repeated(x):
    y = np.zeros(3)
    np.add.at(y, [0, 2, 2, 1, 0, 0], x)
    return np.sum(y ** 2)


def v_boolean_mask_write(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[y > 1.0] *= 2.0
    return np.sum(y ** 2)


def v_boolean_mask_assign_values(x):
    y = x.copy()
    mask = x > 0.5
    y[mask] = np.sqrt(x[mask])
    return np.sum(y * x)


def v_fill_diagonal(m):
    a = m @ m
    np.fill_diagonal(a, np.diag(m) ** 2)
    return np.sum(np.tanh(a))


def v_column_write_loop(m):
    a = np.zeros((3, 3))
    for j in range(3):
        a[:, j] = m[:, j] * (j + 1.0) + a[:, j - 1]
    return np.sum(a * a)


def v_row_inplace_in_loop(m):
    a = m.copy()
    for i in range(1, 3):
        a[i] -= 0.5 * a[i - 1]
    return np.sum(a ** 3)


def v_gauss_elimination(m):
    a = m.copy() + 3.0 * np.eye(3)
    for k in range(3):
        for i in range(k + 1, 3):
            factor = a[i, k] / a[k, k]
            a[i, k:] = a[i, k:] - factor * a[k, k:]
    return np.prod(np.diag(a))


def v_swap_rows(m):
    a = m.copy()
    a[[0, 2]] = a[[2, 0]]
    return np.sum(a * np.arange(9.0).reshape(3, 3))


def v_tuple_swap_items(x):
    y = x.copy()
    y[0], y[1] = y[1] * 2.0, y[0]
    return np.sum(y * np.arange(6.0))


def v_ellipsis_newaxis(m):
    a = m[..., np.newaxis] * m[np.newaxis, ...]
    a[..., 0] = 0.0
    return np.sum(a)


def v_flat_write(m):
    a = m.copy()
    a.flat[4] = a.flat[0] ** 2
    return np.sum(a * m)


def v_view_of_view(x):
    y = x * 1.0
    a = y[1:]
    b = a[::2]
    b += 10.0 * x[:3]
    return np.sum(y ** 2)


def v_alias_name(x):
    y = x * 2.0
    z = y
    z[0] = x[1] * x[2]
    return np.sum(y ** 2)


def v_write_into_argument(x):
    x[0] = 2.0 * x[0]
    return np.sum(x ** 2)


def v_write_copy_argument(x):
    x = x.copy()
    x[0] = 2.0 * x[0]
    return np.sum(x ** 2)


def v_write_after_reassign(x):
    y = x * 1.0
    v = y[:3]
    y = y * 2.0
    v[0] = 100.0
    return np.sum(y) + np.sum(v)


def v_cumulative_inplace(x):
    y = x.copy()
    for i in range(1, y.shape[0]):
        y[i] += y[i - 1] * 0.5
    return np.sum(y ** 2)


def v_stencil_update(x):
    u = x.copy()
    for _ in range(3):
        u[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
    return np.sum(u ** 2)


def v_np_where_out_of_place(x):
    y = np.empty_like(x)
    y[:] = np.where(x > 0, x, 0.1 * x)
    return np.sum(y ** 2)


def v_einsum_diag_view_write(m):
    a = m * 1.0
    d = np.einsum("ii->i", a)
    d += 1.0
    return np.sum(a ** 2)


def v_diagonal_readonly_write(m):
    a = m * 1.0
    d = np.diagonal(a)
    d[0] = 1.0
    return np.sum(a)


def v_imaginary_view(x):
    z = x * (1.0 + 0.0j)
    z.imag[:] = x ** 2
    return np.sum(np.abs(z) ** 2)


def v_split_piece_write(x):
    y = x * 1.0
    for p in np.split(y, 3):
        p[:] = p * 2.0
    return np.sum(y ** 2)


def v_split_piece_imul(x):
    y = x * 1.0
    for p in np.split(y, 3):
        p *= 2.0
    return np.sum(y ** 2)


def v_list_of_rows_write(m):
    rows = [m[i].copy() for i in range(3)]
    rows[1][0] = rows[0][0] * rows[2][2]
    return np.sum(np.stack(rows) ** 2)


def v_setitem_negative_index(x):
    y = x * 1.0
    y[-1] = y[-2] * y[-3]
    y[-2:] *= 0.5
    return np.sum(y ** 2)


def v_2d_fancy_pairs(m):
    a = m.copy()
    a[[0, 1, 2], [2, 1, 0]] = a[[0, 1, 2], [0, 1, 2]] * 3.0
    return np.sum(a ** 2)


def v_block_write_matrix(m):
    big = np.zeros((5, 5))
    big[1:4, 1:4] = m
    big[0, :3] = m[0]
    big[:3, 4] += m[:, 2]
    return np.sum(big @ big)


def v_value_and_grad_inplace(x):
    y = np.ones(6)
    y[1:] = y[:-1] * x[1:]
    return np.sum(y)


PROGS = [v_slice_view_imul, v_reshape_view_write, v_transpose_view_write, v_ravel_write, v_step_slice_iadd,
         v_fancy_repeated_iadd, v_np_add_at_repeated, v_boolean_mask_write, v_boolean_mask_assign_values,
         v_fill_diagonal, v_column_write_loop, v_row_inplace_in_loop, v_gauss_elimination, v_swap_rows,
         v_tuple_swap_items, v_ellipsis_newaxis, v_flat_write, v_view_of_view, v_alias_name,
         v_write_copy_argument, v_write_after_reassign, v_cumulative_inplace, v_stencil_update,
         v_np_where_out_of_place, v_einsum_diag_view_write, v_imaginary_view, v_split_piece_write,
         v_split_piece_imul, v_list_of_rows_write, v_setitem_negative_index, v_2d_fancy_pairs,
         v_block_write_matrix]
for _f in PROGS:
    _arg = M if _f.__code__.co_varnames[0] == "m" else X
    fdcase("view_" + _f.__name__[2:], _f, (_arg,))

fdcase("view_value_and_grad_inplace", v_value_and_grad_inplace, (X,), tr="vag")


def _write_arg_case():
    x = X.copy()
    g = revsrc.grad(v_write_into_argument)(x)
    return [g, x]


CASES.append(pair("view_write_into_argument_E403", _write_arg_case,
                  lambda: [np.concatenate([[8.0 * X[0]], 2 * X[1:]]), X]))


def _readonly_case():
    return revsrc.grad(v_diagonal_readonly_write)(M)


CASES.append(pair("view_diagonal_readonly_write", _readonly_case, lambda: np.ones((3, 3))))


def hessian_of_inplace(x):
    y = np.zeros(3)
    y[0] = x[0] * x[1]
    y[1:] += x[1:] ** 2
    return np.sum(y * y)


def _hess_fd():
    from user_programs6_harness import fd_hess
    return fd_hess(hessian_of_inplace, (X[:3],), {}, 0, 1e-4)


CASES.append(pair("view_hessian_of_item_writes", lambda: revsrc.hessian(hessian_of_inplace)(X[:3]),
                  _hess_fd, tol=1e-5))
CASES.append(pair("view_jvp_of_item_writes",
                  lambda: revsrc.jvp(hessian_of_inplace, (X[:3],), (np.array([1.0, -1.0, 0.5]),))[1],
                  lambda: (hessian_of_inplace(X[:3] + 1e-6 * np.array([1.0, -1.0, 0.5]))
                           - hessian_of_inplace(X[:3] - 1e-6 * np.array([1.0, -1.0, 0.5]))) / 2e-6, tol=1e-6))


def v_swap_two_items(x):
    y = x.copy()
    y[0], y[1] = y[1], y[0]
    return y[0] + 10.0 * y[1]


CASES.append(pair("view_swap_two_items_value", lambda: revsrc.value_and_grad(v_swap_two_items)(X[:2]),
                  lambda: [v_swap_two_items(X[:2]), np.array([10.0, 1.0])]))


def v_swap_list_items(x):
    y = [x[0], x[1]]
    y[0], y[1] = y[1], y[0]
    return y[0] + 10.0 * y[1]


CASES.append(pair("view_swap_two_list_items_value", lambda: revsrc.value_and_grad(v_swap_list_items)(X[:2]),
                  lambda: [v_swap_list_items(X[:2]), np.array([10.0, 1.0])]))


def v_swap_rows_tuple(m):
    a = m.copy()
    a[0], a[2] = a[2].copy(), a[0].copy()
    return np.sum(a * np.arange(9.0).reshape(3, 3))


fdcase("view_swap_rows_tuple_of_copies", v_swap_rows_tuple, (M,))
