"""User programs, corpus 7k: everyday NumPy shape and indexing code -- views kept in a
list and changed through it, vstack/column_stack/np.block, einsum with an ellipsis,
batched solve and inv, in-place @=, **=, %=, //=, np.interp at its knots (against
JAX's convention), searchsorted bins, argmax gathers, repeat with counts, norms with
axis/keepdims, list(x) and map(float, x), dict(zip(keys, x)), x.tolist(); and NaN
through min/max/fmax on the engine.  References: JAX x64, the plain call, closed
forms and self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, fd_checked, jax, jaxify, pair

CASES = []
X3 = np.array([0.5, 1.5, -0.7])


def view_in_list(x):
    y = x * 1.0
    xs = [y[0:2]]            # a view of y, kept in a list
    xs[0] += 1.0
    xs[0] *= x[2]
    return np.sum(y * x)


CASES.append(pair("r7_view_in_list_iadd_writes_base",
                  lambda: revsrc.value_and_grad(view_in_list)(X3),
                  lambda: (view_in_list(X3), fd_checked(view_in_list, (X3,))[0]), tol=1e-7))


def list_of_array(x):
    return sum(list(x)) * x[0] + max(list(x))


CASES.append(G("r7_list_of_array_sum_max", list_of_array, (X3,), ref="fd", tol=1e-7))


def map_float(x):
    return sum(map(float, x)) ** 2


CASES.append(G("r7_map_float_over_array", map_float, (X3,), ref=lambda: np.full(3, 2 * np.sum(X3)), tol=1e-12))


def dict_zip(x):
    d = dict(zip(["a", "b", "c"], x))
    return d["a"] * d["c"] + d["b"] ** 2


CASES.append(G("r7_dict_of_zip_keys_values", dict_zip, (X3,), ref=lambda: np.array([X3[2], 2 * X3[1], X3[0]]),
               tol=1e-12))


def tolist_fn(x):
    return sum(v * v for v in x.tolist()) + float(x[1]) ** 3


CASES.append(G("r7_tolist_then_generator", tolist_fn, (X3,), ref=lambda: 2 * X3 + np.array([0, 3 * X3[1] ** 2, 0]),
               tol=1e-12))


def stacks(x):
    A = np.vstack([x, x ** 2])
    B = np.column_stack([x, np.sin(x)])
    return np.sum(A @ B) + np.sum(np.hstack([x, x[:1]]) ** 3)


CASES.append(G("r7_vstack_column_stack_hstack", stacks, (X3,), ref="jax", tol=1e-10))


def block_fn(x):
    A = np.vstack([x, x ** 2])
    C = np.block([[A, A], [A, 2.0 * A]])
    return np.sum(C ** 2)


CASES.append(G("r7_np_block_2x2", block_fn, (X3,), ref="jax", tol=1e-10))


def einsum_ellipsis(x):
    A = np.outer(x, x).reshape(1, 3, 3) + np.eye(3)
    return np.sum(np.einsum("...ij,...jk->...ik", A, A)) + np.einsum("ii", A[0])


CASES.append(G("r7_einsum_ellipsis_and_trace", einsum_ellipsis, (X3,), ref="jax", tol=1e-10))


def solve_batched(x):
    A = np.stack([np.eye(3) * 2 + np.outer(x, x), np.eye(3) * 3])
    b = np.stack([x, x ** 2])[..., None]
    return np.sum(np.linalg.solve(A, b)) + np.sum(np.linalg.inv(A)[0])


CASES.append(G("r7_solve_inv_batched_stack", solve_batched, (X3,), ref="jax", tol=1e-10))


def imatmul(x):
    A = np.outer(x, x) + np.eye(3)
    A @= A
    return np.sum(A)


CASES.append(G("r7_inplace_matmul_operator", imatmul, (X3,), ref="fd", tol=1e-7))


def ipow_imod(x):
    y = x * 1.0
    y **= 2
    y %= 1.0
    y //= 0.1
    return np.sum(y) + np.sum(x ** 3)


CASES.append(G("r7_inplace_pow_mod_floordiv", ipow_imod, (np.array([0.5, 1.5, 0.7]),),
               ref=lambda: 3 * np.array([0.5, 1.5, 0.7]) ** 2, tol=1e-12))


def negative_out(x):
    y = x * 1.0
    np.negative(y, out=y)
    return np.sum(y * x)


CASES.append(G("r7_ufunc_out_same_array", negative_out, (X3,), ref=lambda: -2 * X3, tol=1e-12))


def interp_knots(x):
    xp = np.array([0.0, 1.0, 2.0])
    fp = np.array([0.0, 2.0, 1.0])
    return np.sum(np.interp(x, xp, fp * x[0]))


# x[1] sits on a knot: the slope there is a convention (JAX takes the right piece)
CASES.append(G("r7_interp_on_knot_vs_jax", interp_knots, (np.array([0.5, 1.0, 1.5]),), ref="jax", tol=1e-12))


def searchsorted_bins(x):
    edges = np.array([0.0, 1.0, 2.0])
    i = np.searchsorted(edges, x)
    return np.sum(x * i)


CASES.append(G("r7_searchsorted_bin_weights", searchsorted_bins, (np.array([0.5, 1.2, 1.7]),),
               ref=lambda: np.array([1.0, 2.0, 2.0]), tol=1e-12))


def argmax_gather(x):
    A = np.outer(x, np.arange(1.0, 4.0))
    i = np.argmax(A, axis=1)
    return np.sum(A[np.arange(3), i])


CASES.append(G("r7_argmax_rows_gather", argmax_gather, (X3,), ref="jax", tol=1e-12))


def repeat_tile(x):
    return np.sum(np.repeat(x, [1, 2, 3]) ** 2) + np.sum(np.tile(x, (2, 1)) * np.arange(6.0).reshape(2, 3))


CASES.append(G("r7_repeat_counts_and_tile", repeat_tile, (X3,), ref="fd", tol=1e-7))


def expand_squeeze(x):
    y = np.expand_dims(x, (0, 2))
    return np.sum(np.squeeze(y, axis=0) ** 2) + np.sum(np.atleast_2d(x) @ np.atleast_2d(x).T)


CASES.append(G("r7_expand_dims_tuple_squeeze_atleast_2d", expand_squeeze, (X3,), ref="jax", tol=1e-12))


def norm_keepdims(x):
    A = np.outer(x, x) + 1.0
    return np.sum(A / np.linalg.norm(A, axis=1, keepdims=True)) + np.sum(np.linalg.norm(A, ord=1, axis=0))


CASES.append(G("r7_row_normalize_keepdims_ord1_axis", norm_keepdims, (X3,), ref="jax", tol=1e-10))


def cumsum_axes(x):
    A = np.outer(x, x)
    return np.sum(np.cumsum(A, axis=0) * np.cumsum(A[::-1], axis=1)) + np.sum(np.diff(A, n=2, axis=1))


CASES.append(G("r7_cumsum_axes_reversed_diff_n2", cumsum_axes, (X3,), ref="jax", tol=1e-10))


def any_all_branch(x):
    if np.all(x < 2.0) and any(v > 1.0 for v in x):
        return np.sum(x ** 2)
    return np.sum(x)


CASES.append(G("r7_np_all_and_builtin_any_branch", any_all_branch, (X3,), ref=lambda: 2 * X3, tol=1e-12))


def clip_nan(x):
    return min(max(x, 0.0), 1.0)


def fmax_nan(x):
    return np.fmax(x, 1.0) + np.fmin(x, -1.0)


NAN = float("nan")
CASES.append(pair("r7_jit_builtin_clip_of_nan", lambda: revsrc.jit(clip_nan)(NAN), lambda: clip_nan(NAN), tol=0.0))
CASES.append(pair("r7_jit_np_fmax_fmin_of_nan", lambda: revsrc.jit(fmax_nan)(NAN), lambda: fmax_nan(NAN), tol=0.0))
CASES.append(pair("r7_grad_np_fmax_fmin_of_nan", lambda: revsrc.grad(fmax_nan)(NAN), lambda: 0.0, tol=0.0))
