"""Round 10, NumPy idioms and edge values in new domains: np.add.at histograms and
scatter-adds, out= arguments, cumsum/cumprod/diff, clip, where with masks, boolean and
integer indexing, fancy assignment, broadcasting, reshape/transpose views, np.linalg
(cholesky, eigh, svd, norm, det, inv, solve, slogdet), float32 inputs, integer
arguments, empty arrays and edge values (zero, negative, inf, nan, huge), as numerical
Python users write them."""
import math

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1006)
W = rng.normal(size=6)
IDX = np.array([0, 2, 2, 1, 0, 3])


def scatter_add_histogram(w, idx):
    bins = np.zeros(4)
    np.add.at(bins, idx, w)
    return np.sum(bins ** 2)


CASES.append(G("r10_add_at_repeated_bins", scatter_add_histogram, (W, IDX), ref="jax"
               if False else (lambda: 2 * np.array([np.sum(W[IDX == i]) for i in range(4)])[IDX])))


def segment_mean_bincount(w, idx):
    s = np.bincount(idx, weights=w, minlength=4)
    c = np.bincount(idx, minlength=4)
    return np.sum((s / np.maximum(c, 1)) ** 2)


CASES.append(G("r10_bincount_weights_segment_mean", segment_mean_bincount, (W, IDX)))


def out_argument(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    np.add(y, 1.0, out=y)
    return np.sum(np.log(y))


CASES.append(G("r10_ufunc_out_in_place", out_argument, (W,), ref=lambda: 2 * W / (W * W + 1)))


def cumprod_survival(h):
    s = np.cumprod(1.0 - h)
    return np.sum(s)


CASES.append(G("r10_cumprod_survival_hazards", cumprod_survival, (np.array([0.1, 0.2, 0.05, 0.3, 0.15]),), ref="jax"))


def cumprod_with_zero(h):
    return np.sum(np.cumprod(h))


CASES.append(G("r10_cumprod_with_exact_zero", cumprod_with_zero, (np.array([0.5, 0.0, 2.0, 3.0]),), ref="jax"))


def diff_second_order(x):
    d2 = np.diff(x, n=2)
    return np.sum(d2 ** 2)


CASES.append(G("r10_diff_n2_smoothness", diff_second_order, (W,), ref="jax"))


def where_mask_huber(r, delta):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


CASES.append(G("r10_where_huber", where_mask_huber, (2 * W, 1.0), argnums=(0, 1), ref="jax"))


def where_log_safe(x):
    safe = np.where(x > 0, x, 1.0)
    return np.sum(np.where(x > 0, np.log(safe), 0.0))


CASES.append(G("r10_where_double_trick_log", where_log_safe, (W,), ref="jax"))


def where_log_unsafe(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(np.where(x > 0, np.log(x), 0.0))


# the textbook NaN trap: log(x) at negative x is nan, its derivative 1/x is finite and
# np.where's unselected branch gets a zero cotangent, so the gradient is 1/x or 0
CASES.append(G("r10_where_unsafe_log_errstate", where_log_unsafe, (W,), ref=lambda: np.where(W > 0, 1 / W, 0.0)))


def bool_mask_assign(x, thresh):
    y = x.copy()
    y[y < thresh] = thresh
    return np.sum(y ** 2)


CASES.append(G("r10_bool_mask_assign_floor", bool_mask_assign, (W, 0.0), argnums=(0, 1),
               ref=lambda: (np.where(W < 0, 0.0, 2 * W), 2 * 0.0 * np.sum(W < 0))))


def fancy_assign_rows(M, v):
    A = M.copy()
    A[[0, 2]] = v
    return np.sum(A @ A.T)


CASES.append(G("r10_fancy_assign_rows", fancy_assign_rows, (rng.normal(size=(3, 3)), rng.normal(size=3)), argnums=(0, 1), ref="fd"))


def fancy_add_repeated(x, v):
    y = x.copy()
    y[[1, 1, 3]] += v
    return np.sum(y * np.arange(1.0, 7.0))


# NumPy buffering: y[[1,1,3]] += v adds v once at index 1 (not twice)
CASES.append(G("r10_fancy_iadd_repeated_index", fancy_add_repeated, (W, 0.5), argnums=(0, 1),
               ref=lambda: (np.arange(1.0, 7.0), 2.0 + 4.0)))


def broadcast_pairwise(X):
    d = X[:, None, :] - X[None, :, :]
    r2 = np.sum(d * d, axis=-1) + np.eye(len(X))
    return np.sum(np.triu(1.0 / r2, 1))


CASES.append(G("r10_broadcast_pairwise_inverse", broadcast_pairwise, (rng.normal(size=(5, 2)),), ref="jax"))


def reshape_transpose(x):
    M = x.reshape(3, 4).T
    return np.sum(M[1:, :] * M[:-1, :]) + np.trace(M[:3] @ M[:3].T)


CASES.append(G("r10_reshape_transpose_view", reshape_transpose, (rng.normal(size=12),), ref="jax"))


def view_write_back(x):
    y = x.copy()
    v = y.reshape(2, 3)
    v[:, 0] *= 3.0
    return np.sum(y ** 2)


CASES.append(G("r10_write_through_reshape_view", view_write_back, (W,),
               ref=lambda: 2 * W * np.array([9.0, 1, 1, 9.0, 1, 1])))


def chol_logdet(A):
    L = np.linalg.cholesky(A @ A.T + np.eye(3))
    return 2 * np.sum(np.log(np.diag(L)))


CASES.append(G("r10_cholesky_logdet", chol_logdet, (rng.normal(size=(3, 3)),), ref="jax"))


def svd_nuclear(A):
    return np.sum(np.linalg.svd(A, compute_uv=False))


CASES.append(G("r10_svd_nuclear_norm", svd_nuclear, (rng.normal(size=(4, 3)),), ref="jax"))


def norm_variants(A):
    return np.linalg.norm(A) + np.linalg.norm(A, ord=1) + np.linalg.norm(A[0], ord=np.inf) + np.linalg.norm(A, axis=1).sum()


CASES.append(G("r10_norm_ords_axes", norm_variants, (rng.normal(size=(3, 4)),), ref="jax"))


def det_inv(A):
    return np.linalg.det(A) * np.sum(np.linalg.inv(A))


CASES.append(G("r10_det_times_inv_sum", det_inv, (rng.normal(size=(3, 3)) + 2 * np.eye(3),), ref="jax"))


def solve_multi_rhs(A, B):
    return np.sum(np.linalg.solve(A, B) ** 2)


CASES.append(G("r10_solve_matrix_rhs", solve_multi_rhs, (rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=(3, 2))),
               argnums=(0, 1), ref="jax"))


def float32_loss(w, x):
    return np.sum(np.tanh(x @ w))


X32 = rng.normal(size=(4, 3)).astype(np.float32)
W32 = rng.normal(size=3).astype(np.float32)
CASES.append(G("r10_float32_inputs", float32_loss, (W32, X32),
               ref=lambda: X32.astype(float).T @ (1 - np.tanh(X32.astype(float) @ W32.astype(float)) ** 2), tol=1e-5))


def float32_dtype_kept():
    import revsrc
    return str(np.asarray(revsrc.grad(float32_loss)(W32, X32)).dtype)


CASES.append(pair("r10_float32_grad_dtype", float32_dtype_kept, lambda: "float32", tol=0.0))


def int_power_arg(x, n):
    return x ** n + n * x


CASES.append(G("r10_integer_exponent_argument", int_power_arg, (1.3, 4), ref=lambda: 4 * 1.3 ** 3 + 4))


def int_input_promoted(x):
    return np.sum(x * 0.5) + 1.0


CASES.append(pair("r10_integer_array_refused_code",
                  lambda: __import__("revsrc").grad(int_input_promoted)(np.array([1, 2, 3])),
                  lambda: "should be refused E301", tol=0.0))


def empty_sum(x, extra):
    return np.sum(x ** 2) + extra * 2.0


CASES.append(G("r10_empty_array_argument", empty_sum, (np.zeros(0), 1.0), argnums=(0, 1), ref=lambda: (np.zeros(0), 2.0)))


def mean_of_empty_then_guard(x):
    if x.size == 0:
        return 0.0
    return np.mean(x ** 2)


CASES.append(G("r10_empty_guarded_mean", mean_of_empty_then_guard, (np.zeros(0),), ref=lambda: np.zeros(0)))


def relu_at_zero(x):
    return np.sum(np.maximum(x, 0.0))


CASES.append(pair("r10_maximum_at_tie_finite",
                  lambda: bool(np.all(np.isfinite(__import__("revsrc").grad(relu_at_zero)(np.zeros(3))))),
                  lambda: True, tol=0.0))


def abs_at_zero(x):
    return abs(x) + x


# JAX and autograd use sign(0) = 0: the gradient at 0 is 1
CASES.append(G("r10_abs_at_zero_convention", abs_at_zero, (0.0,), ref=lambda: 1.0))


def sqrt_at_zero(x):
    return math.sqrt(x)


CASES.append(pair("r10_sqrt_at_zero_inf",
                  lambda: __import__("revsrc").grad(sqrt_at_zero)(0.0),
                  lambda: math.inf, tol=0.0))


def inf_input_softplus(x):
    return np.sum(np.logaddexp(0.0, x))


CASES.append(G("r10_logaddexp_inf_inputs", inf_input_softplus, (np.array([-np.inf, 0.0, 800.0, -800.0]),),
               ref=lambda: np.array([0.0, 0.5, 1.0, 0.0])))


def nan_propagates(x):
    return x * 2.0 + 1.0


CASES.append(pair("r10_nan_input_gradient_is_two",
                  lambda: __import__("revsrc").grad(nan_propagates)(math.nan),
                  lambda: 2.0, tol=0.0))


def huge_exp_ratio(x):
    return math.exp(x) / (1.0 + math.exp(x))


def _raised(thunk):
    try:
        thunk()
    except Exception as err:  # noqa: BLE001 - the exception's class is the result
        return type(err).__name__
    return "no exception"


# math.exp(800.0) raises OverflowError in Python: the derivative must raise it too
CASES.append(pair("r10_overflowing_math_exp_raises",
                  lambda: _raised(lambda: __import__("revsrc").grad(huge_exp_ratio)(800.0)),
                  lambda: _raised(lambda: huge_exp_ratio(800.0)), tol=0.0))


def negative_zero_copysign(x):
    return math.copysign(1.0, x) * x * x


CASES.append(G("r10_copysign_negative_zero", negative_zero_copysign, (-0.0,), ref=lambda: 0.0))
CASES.append(G("r10_copysign_negative", negative_zero_copysign, (-1.5,), ref=lambda: 3.0))


def eigh_top_eigvec_quad(A):
    S = A + A.T
    w, V = np.linalg.eigh(S)
    v = V[:, -1]
    return (v[0] ** 2) * w[-1]


CASES.append(G("r10_eigh_eigenvector_component", eigh_top_eigvec_quad, (rng.normal(size=(3, 3)),), ref="jax"))


def slogdet_neg(A):
    s, ld = np.linalg.slogdet(A)
    return s * ld


CASES.append(G("r10_slogdet_negative_sign", slogdet_neg, (np.array([[0.0, 2.0], [1.5, 0.3]]),), ref="jax"))
