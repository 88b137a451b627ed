"""Round 8 user programs, batch e: in-place operations (+=, *=, slices, np.clip with
out=, boolean and integer masks), dtype mixing and edge inputs (zeros, ties, large and
small values), checked against closed forms, JAX x64 or self-checked central
differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(84)
XE = rng.normal(size=7)


def clip_out_inplace(x, lo, hi):
    y = x * 2.0
    np.clip(y, lo, hi, out=y)
    return np.sum(y ** 2)


add(G("r8_np_clip_out_same_local_array", clip_out_inplace, (XE, -1.0, 1.5), argnums=(0, 1, 2)))


def clip_method(x):
    return np.sum(np.sin(x).clip(-0.5, 0.5) * x)


add(G("r8_ndarray_clip_method", clip_method, (XE,), ref="jax"))


def bool_mask_write(x, thr):
    y = x.copy()
    y[y > thr] = thr
    y[y < -thr] *= 0.5
    return np.sum(y * x)


add(G("r8_bool_mask_assign_and_imul", bool_mask_write, (XE, 0.8), argnums=(0, 1)))


def int_index_scatter(x, idx):
    out = np.zeros(4)
    out[idx] += x
    return np.sum(out ** 2)


def _scatter_ref():
    idx = np.array([0, 2, 2, 3])
    x = np.array([1.0, 2.0, 3.0, 4.0])
    out = np.zeros(4)
    out[idx] += x  # NumPy: buffered, repeated index 2 keeps the last write
    g = np.zeros(4)
    for i, k in enumerate(idx):
        g[i] = 2 * out[k] if i != 1 else 0.0
    return g


add(pair("r8_fancy_iadd_repeated_index_numpy_semantics",
         lambda: revsrc.grad(int_index_scatter)(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 2, 2, 3])),
         _scatter_ref, tol=1e-12))


def add_at_histogram(x, idx):
    out = np.zeros(3)
    np.add.at(out, idx, x)
    return np.sum(out ** 2)


add(pair("r8_np_add_at_repeated_index",
         lambda: revsrc.grad(add_at_histogram)(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 2, 2, 1])),
         lambda: np.array([2.0, 10.0, 10.0, 8.0]), tol=1e-12))


def slice_imul_view(x):
    y = x.copy()
    v = y[1:5]
    v *= 3.0
    v[0] += y[-1]
    return np.sum(y * y)


add(G("r8_view_imul_and_item_iadd_writes_base", slice_imul_view, (XE,)))


def strided_slice_assign(x):
    y = np.zeros(8)
    y[::2] = x[:4] ** 2
    y[1::2] = np.cumsum(x[:4])
    return np.sum(y * np.arange(8))


add(G("r8_strided_slice_assign_cumsum", strided_slice_assign, (XE,), ref="fd"))


def int_array_arith(x, k):
    # k is int64, mixing dtypes in products and powers
    return np.sum(x[:3] ** k + k * x[:3] / 2)


add(G("r8_int_array_power_and_mul", int_array_arith, (XE, np.array([1, 2, 3])), ref="jax"))


def float32_input(x):
    return np.sum(np.tanh(x) * 2.0)


add(pair("r8_float32_argument_grad_dtype_and_value",
         lambda: (lambda g: (g.dtype == np.float32, g))(revsrc.grad(float32_input)(XE.astype(np.float32))),
         lambda: (True, (2 * (1 - np.tanh(XE.astype(np.float32)) ** 2)).astype(np.float32)), tol=1e-6))


def mixed_int_float_scalars(x, n):
    s = 0
    for i in range(n):
        s += i * x
    return s / n + n


add(pair("r8_int_accumulator_becomes_float", lambda: revsrc.grad(mixed_int_float_scalars)(0.3, 5), lambda: 10 / 5, tol=1e-12))


def abs_at_zero(x):
    return np.sum(np.abs(x)) + np.sum(np.maximum(x, 0.0))


def _subgradient_ok():
    # at the kink any subgradient is right (JAX: 1 + 0.5, PyTorch: 0 + 0): element 0 must
    # lie in [-1, 1] + [0, 1], the others are exact
    g = revsrc.grad(abs_at_zero)(np.array([0.0, 1.0, -1.0]))
    return bool(-1.0 <= g[0] <= 2.0), g[1:]


add(pair("r8_abs_and_relu_at_exact_zero_subgradient", _subgradient_ok,
         lambda: (True, np.array([2.0, -1.0])), tol=1e-12))


def max_with_ties(x):
    return np.max(x) + np.min(x)


add(pair("r8_max_min_ties_jax_convention",
         lambda: revsrc.grad(max_with_ties)(np.array([2.0, 2.0, -1.0, -1.0])),
         lambda: jax().grad(jaxify(max_with_ties))(np.array([2.0, 2.0, -1.0, -1.0])), tol=1e-12))


def sqrt_at_zero_guarded(x):
    r2 = np.sum(x ** 2)
    return np.where(r2 > 0, np.sqrt(np.where(r2 > 0, r2, 1.0)), 0.0)


add(pair("r8_double_where_sqrt_at_zero",
         lambda: revsrc.grad(sqrt_at_zero_guarded)(np.zeros(3)), lambda: np.zeros(3), tol=0.0))


def large_logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


XBIG = np.array([1000.0, 999.0, 998.5])
add(pair("r8_logsumexp_large_values", lambda: revsrc.grad(large_logsumexp)(XBIG),
         lambda: np.exp(XBIG - 1000) / np.sum(np.exp(XBIG - 1000)), tol=1e-12))


def tiny_values(x):
    return np.sum(np.log(x) * x)


add(pair("r8_tiny_values_log", lambda: revsrc.grad(tiny_values)(np.array([1e-300, 1e-10, 1.0])),
         lambda: np.log(np.array([1e-300, 1e-10, 1.0])) + 1, tol=1e-12))


def softplus_stable(x):
    return np.sum(np.where(x > 30, x, np.log1p(np.exp(np.minimum(x, 30)))))


add(pair("r8_softplus_where_large_input", lambda: revsrc.grad(softplus_stable)(np.array([-50.0, 0.0, 29.0, 500.0])),
         lambda: 1 / (1 + np.exp(-np.array([-50.0, 0.0, 29.0, 500.0]))), tol=1e-12))


def zeros_input(w, X):
    return np.sum(np.tanh(X @ w) ** 2) + np.linalg.norm(w)


def _norm_zero_ref():
    return jax().grad(jaxify(zeros_input))(np.zeros(3), np.ones((2, 3)))


def _norm_zero_check():
    # JAX gives nan for d norm at 0; 0 (the minimum-norm subgradient, PyTorch's) is right too
    g = revsrc.grad(zeros_input)(np.zeros(3), np.ones((2, 3)))
    return bool(np.all(np.isnan(g)) or np.all(np.abs(g) <= 1.0 / np.sqrt(3) + 1e-12))


add(pair("r8_norm_of_zero_vector_nan_or_subgradient", _norm_zero_check, lambda: True, tol=0.0))


def argsort_rank_loss(x):
    order = np.argsort(x)
    xs = x[order]
    w = np.arange(1, len(x) + 1)
    return np.sum(xs * w)


add(G("r8_argsort_gather_weighted", argsort_rank_loss, (XE,), ref="jax"))


def sort_ties(x):
    s = np.sort(x)
    return s[0] * 1.0 + s[-1] * 3.0


add(pair("r8_sort_with_ties_jax", lambda: revsrc.grad(sort_ties)(np.array([1.0, 1.0, 3.0, 3.0])),
         lambda: jax().grad(jaxify(sort_ties))(np.array([1.0, 1.0, 3.0, 3.0])), tol=1e-12))


def nonzero_gather(x):
    idx = np.nonzero(x > 0)[0]
    return np.sum(x[idx] ** 2) + len(idx)


add(G("r8_nonzero_index_gather", nonzero_gather, (XE,)))


def reshape_transpose_inplace(x):
    A = x[:6].reshape(2, 3).copy()
    A.T[0] += 1.0
    A[:, 1] *= A[:, 2]
    return np.sum(A ** 2)


add(G("r8_transpose_view_row_iadd", reshape_transpose_inplace, (XE,)))


def ravel_write(x):
    A = np.zeros((2, 3))
    flat = A.ravel()
    flat[:] = x[:6] * 2
    return np.sum(A * np.arange(6).reshape(2, 3))


add(pair("r8_ravel_view_write_through", lambda: revsrc.grad(ravel_write)(XE),
         lambda: np.concatenate([2 * np.arange(6.0), [0.0]]), tol=1e-12))


def reshape_view_write(x):
    A = np.zeros(6)
    B = A.reshape(2, 3)
    B[1] = x[:3]
    return np.sum(A * np.arange(6.0))


add(pair("r8_reshape_view_row_write", lambda: revsrc.grad(reshape_view_write)(XE),
         lambda: np.array([3.0, 4.0, 5.0, 0, 0, 0, 0]), tol=1e-12))


def where_int_cond(x, labels):
    return np.sum(np.where(labels, x ** 2, -x))


add(pair("r8_where_int_array_condition", lambda: revsrc.grad(where_int_cond)(np.array([1.0, 2.0, 3.0]), np.array([0, 2, 1])),
         lambda: np.array([-1.0, 4.0, 6.0]), tol=1e-12))


def bool_arith(x):
    pos = x > 0
    return np.sum(x * pos) + np.sum(pos) * np.sum(x) + np.mean(x[~pos])


add(G("r8_bool_times_float_and_invert_mask", bool_arith, (XE,), ref="jax"))


def scalar_numpy_types(x):
    a = np.float64(x) * 2
    b = np.float32(0.5)
    return float(a * b + np.int64(3) * x)


add(pair("r8_numpy_scalar_types_float32_constant", lambda: revsrc.grad(scalar_numpy_types)(1.25), lambda: 2 * 0.5 + 3.0, tol=1e-12))


def inf_in_mask(x):
    y = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -np.inf)
    return np.sum(np.exp(y))


add(pair("r8_log_minus_inf_masked_exp", lambda: revsrc.grad(inf_in_mask)(np.array([-1.0, 0.5, 2.0])),
         lambda: np.array([0.0, 1.0, 1.0]), tol=1e-12))


def matrix_ops_inplace(A):
    B = A.copy()
    B += B.T
    B /= 2
    B[np.diag_indices(3)] += 1.0
    return np.trace(B @ B)


AM = rng.normal(size=(3, 3))
add(G("r8_symmetrize_inplace_diag_indices", matrix_ops_inplace, (AM,)))


def outer_triu(x):
    M = np.outer(x, x)
    iu = np.triu_indices(len(x), k=1)
    return np.sum(M[iu] ** 2)


add(G("r8_triu_indices_gather", outer_triu, (XE[:4],), ref="jax"))


def setitem_tuple_index(x):
    M = np.zeros((3, 3))
    M[0, 1] = x[0]
    M[1, :] += x[1:4]
    M[:, 2] *= 2
    M[2, 2] = M[1, 2] * x[0]
    return np.sum(M ** 2)


add(G("r8_2d_item_row_col_writes", setitem_tuple_index, (XE,)))


def divide_by_zero_guard(x):
    d = x[0] - x[1]
    return x[2] if d == 0.0 else (x[2] / d)


add(pair("r8_branch_on_exact_zero_difference", lambda: revsrc.grad(divide_by_zero_guard)(np.array([1.0, 1.0, 5.0])),
         lambda: np.array([0.0, 0.0, 1.0]), tol=0.0))
