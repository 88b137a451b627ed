"""Round 9, NumPy idioms (2): np.linalg (cholesky, eigh, svd, norm with ord/axis, det,
inv, solve, slogdet, matrix_power, qr), float32 inputs, integer arguments next to
float ones, empty arrays, and edge values (0, negative, inf, nan, huge, tiny)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(123)
_A = _rng.normal(size=(4, 4))
_SPD = _A @ _A.T + 4 * np.eye(4)
_b = _rng.normal(size=4)


def chol_logdet(M):
    L = np.linalg.cholesky(M @ M.T + np.eye(4))
    return 2 * np.sum(np.log(np.diag(L)))


CASES.append(G("r9_cholesky_logdet_of_gram", chol_logdet, (_A,), ref="jax"))


def eigh_top(M):
    S = 0.5 * (M + M.T)
    w, V = np.linalg.eigh(S)
    return w[-1] + 0.1 * w[0]


CASES.append(G("r9_eigh_extreme_eigenvalues", eigh_top, (_SPD,), ref="jax"))


def eigh_vector(M):
    S = 0.5 * (M + M.T)
    w, V = np.linalg.eigh(S)
    v = V[:, -1]
    return (v @ np.array([1.0, 2.0, 3.0, 4.0])) ** 2


CASES.append(G("r9_eigh_top_eigenvector_sign_free", eigh_vector, (_SPD,), ref="jax", tol=1e-5))


def svd_nuclear(M):
    return np.sum(np.linalg.svd(M, compute_uv=False))


CASES.append(G("r9_svd_nuclear_norm", svd_nuclear, (_A,), ref="jax"))


def svd_lowrank(M):
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    R = (U[:, :2] * s[:2]) @ Vt[:2]
    return np.sum((M - R) ** 2)


CASES.append(G("r9_svd_low_rank_residual", svd_lowrank, (_A,), ref="jax", tol=1e-5))


def norms(x):
    return np.linalg.norm(x) + np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x, 3)


CASES.append(G("r9_norm_orders", norms, (_b,), ref="jax"))


def norm_axis(M):
    return np.sum(np.linalg.norm(M, axis=1) ** 3) + np.linalg.norm(M, "fro")


CASES.append(G("r9_norm_axis_and_fro", norm_axis, (_A,), ref="jax"))


def det_inv(M):
    return np.linalg.det(M) * np.sum(np.linalg.inv(M) @ np.ones(4))


CASES.append(G("r9_det_times_inverse_sum", det_inv, (_SPD,), ref="jax"))


def solve_multi_rhs(M):
    B = np.stack([_b, _b ** 2], axis=1)
    X = np.linalg.solve(M, B)
    return np.sum(X[:, 0] * X[:, 1])


CASES.append(G("r9_solve_two_rhs", solve_multi_rhs, (_SPD,), ref="jax"))
CASES.append(G("r9_solve_wrt_rhs", lambda b: np.sum(np.linalg.solve(_SPD, b) ** 2), (_b,),
               ref=lambda: 2 * np.linalg.solve(_SPD.T, np.linalg.solve(_SPD, _b))))


def slogdet_neg(M):
    sign, ld = np.linalg.slogdet(M - 6.0 * np.eye(4))
    return sign * ld


CASES.append(G("r9_slogdet_negative_det", slogdet_neg, (_SPD,), ref="jax"))


def matpow(M):
    return np.sum(np.linalg.matrix_power(0.3 * M, 3))


CASES.append(G("r9_matrix_power_3", matpow, (_A,), ref="jax"))


def qr_r_diag(M):
    Q, R = np.linalg.qr(M)
    return np.sum(np.log(np.abs(np.diag(R))))


CASES.append(G("r9_qr_logabsdet", qr_r_diag, (_A,), ref="jax"))


def f32_loss(x):
    return np.sum(np.tanh(x) ** 2)


_x32 = np.array([0.1, -0.5, 0.8], dtype=np.float32)


def _f32_check():
    g = revsrc.grad(f32_loss)(_x32)
    assert g.dtype == np.float32, g.dtype
    return g.astype(np.float64)


CASES.append(pair("r9_float32_input_float32_grad", _f32_check,
                  lambda: 2 * np.tanh(_x32.astype(float)) / np.cosh(_x32.astype(float)) ** 2, tol=1e-6))


def f32_mixed(x, w):
    return np.sum((x * w) ** 2)


CASES.append(pair("r9_float32_times_float64_weights",
                  lambda: revsrc.grad(f32_mixed, argnums=1)(_x32, np.array([1.0, 2.0, 3.0])),
                  lambda: 2 * np.array([1.0, 2.0, 3.0]) * _x32.astype(float) ** 2, tol=1e-6))


def int_arg(x, n):
    return x ** n + n * x


CASES.append(G("r9_int_exponent_argument", int_arg, (1.5, 4), ref=lambda: 4 * 1.5 ** 3 + 4, tol=1e-12))


def int_array_arg(w, labels):
    return np.sum(w[labels] ** 2)


CASES.append(G("r9_int_array_labels_argument", int_array_arg, (_b, np.array([0, 0, 3])),
               ref=lambda: np.array([4 * _b[0], 0.0, 0.0, 2 * _b[3]])))


def grad_wrt_int_value(x):
    return x * x


CASES.append(G("r9_grad_at_int_input", grad_wrt_int_value, (3,), ref=lambda: 6.0))


def empty_sum(x):
    e = x[:0]
    return np.sum(e ** 2) + np.sum(x) + (np.max(e) if e.size else 0.0)


CASES.append(G("r9_empty_slice_guarded_max", empty_sum, (_b,), ref=lambda: np.ones(4)))


def empty_arg(x, extra):
    return np.sum(x ** 2) + np.sum(extra)


CASES.append(pair("r9_empty_array_argument_grad",
                  lambda: revsrc.grad(empty_arg, argnums=(0, 1))(_b, np.zeros(0)),
                  lambda: (2 * _b, np.zeros(0))))


def at_zero_abs(x):
    return abs(x) + x


# at 0, abs has the subgradient 0 as autograd's (JAX takes 1): both are valid; this
# pins autograd's convention, which revsrc follows
CASES.append(G("r9_abs_at_zero_subgradient", at_zero_abs, (0.0,), ref="ag"))


def sqrt_at_zero_guarded(x):
    r2 = x * x
    return np.sqrt(r2) if r2 > 0 else 0.0


CASES.append(G("r9_guarded_sqrt_at_zero", sqrt_at_zero_guarded, (0.0,), ref=lambda: 0.0))


def inf_guard(x):
    y = np.array([x, np.inf, -np.inf])
    return np.sum(np.exp(-np.abs(y)))


CASES.append(G("r9_inf_constants_exp_zero", inf_guard, (0.7,), ref=lambda: -math.exp(-0.7)))


def nan_skip(x):
    data = np.array([1.0, np.nan, 3.0])
    return np.nansum(data * x) + np.nanmean(data * x ** 2)


CASES.append(G("r9_nansum_nanmean", nan_skip, (1.3,), ref=lambda: 4.0 + 2 * 1.3 * 2.0, tol=1e-12))


def huge_values(x):
    return np.log(np.exp(x - 800.0) + np.exp(-800.0)) + 800.0


CASES.append(G("r9_huge_shifted_exp", huge_values, (800.5,), ref="jax"))


def tiny_values(x):
    return np.log1p(x) / x if x != 0 else 1.0


CASES.append(G("r9_tiny_log1p_ratio", tiny_values, (1e-10,), ref=lambda: -0.5 + 2 * 1e-10 / 3, tol=1e-5))


def neg_power(x):
    return np.sum(np.cbrt(x) * np.sign(x))


CASES.append(G("r9_cbrt_negative_inputs", neg_power, (np.array([-2.0, 0.5, -0.1]),), ref="jax"))


def hypot_arrays(x):
    return np.sum(np.hypot(x, 2.0 * x[::-1]))


CASES.append(G("r9_np_hypot_reversed_view", hypot_arrays, (_b,), ref="jax"))
