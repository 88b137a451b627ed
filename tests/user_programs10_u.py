"""Round 10, linear algebra at the awkward points structural and statistical models
reach: det of a singular stiffness matrix (its gradient is the adjugate), prod with a
single zero factor (reliability of a series system with a failed part), spectral and
nuclear norms, singular values of a wide matrix, trace and diagonal with offsets,
einsum diagonals, reversed cumsums, a 1x1 inverse and Cholesky, as in engineering and
statistics code."""
import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1014)


def det_singular(A):
    return np.linalg.det(A)


AS = np.array([[1.0, 2.0], [2.0, 4.0]])
# d det / dA = adj(A)^T = [[d, -c], [-b, a]]
CASES.append(G("r10_det_of_singular_adjugate", det_singular, (AS,), ref=lambda: np.array([[4.0, -2.0], [-2.0, 1.0]])))


def det_3x3_singular(A):
    return np.linalg.det(A) * 2.0


A3 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])


def _cof(A):
    C = np.zeros_like(A)
    for i in range(3):
        for j in range(3):
            m = np.delete(np.delete(A, i, 0), j, 1)
            C[i, j] = (-1) ** (i + j) * (m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0])
    return C


CASES.append(G("r10_det_3x3_singular_cofactors", det_3x3_singular, (A3,), ref=lambda: 2.0 * _cof(A3)))


def series_reliability(p):
    return np.prod(p)


P1 = np.array([0.9, 0.0, 0.8, 0.95])
CASES.append(G("r10_prod_single_zero_factor", series_reliability, (P1,),
               ref=lambda: np.array([0.0, 0.9 * 0.8 * 0.95, 0.0, 0.0])))
P2 = np.array([0.9, 0.0, 0.0, 0.95])
CASES.append(G("r10_prod_two_zero_factors", series_reliability, (P2,), ref=lambda: np.zeros(4)))


def prod_axis(M):
    return np.sum(np.prod(M, axis=1))


M0 = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 0.5]])
CASES.append(G("r10_prod_axis_with_zero", prod_axis, (M0,), ref=lambda: np.array([[0.0, 2.0, 0.0], [2.0, 1.5, 12.0]])))


def spectral_norm(A):
    return np.linalg.norm(A, ord=2)


CASES.append(G("r10_spectral_norm", spectral_norm, (rng.normal(size=(3, 4)),), ref="jax"))


def nuclear_norm(A):
    return np.linalg.norm(A, ord="nuc")


CASES.append(G("r10_nuclear_norm_ord", nuclear_norm, (rng.normal(size=(4, 3)),), ref="jax"))


def wide_singular_values(A):
    s = np.linalg.svd(A, compute_uv=False)
    return s[0] - 0.5 * s[-1]


CASES.append(G("r10_svd_wide_matrix", wide_singular_values, (rng.normal(size=(2, 5)),), ref="jax"))


def trace_offsets(A):
    return np.trace(A, offset=1) + np.sum(np.diagonal(A, offset=-1) ** 2)


CASES.append(G("r10_trace_diagonal_offsets", trace_offsets, (rng.normal(size=(4, 4)),), ref="jax"))


def einsum_diag(A):
    return np.sum(np.einsum("ii->i", A) ** 2) + np.einsum("ij,ij->", A, A)


CASES.append(G("r10_einsum_diag_and_frobenius", einsum_diag, (rng.normal(size=(3, 3)),), ref="jax"))


def reverse_cumsum(x):
    tail = np.cumsum(x[::-1])[::-1]
    return np.sum(np.log1p(tail ** 2))


CASES.append(G("r10_reverse_cumsum_tail_sums", reverse_cumsum, (rng.normal(size=6),), ref="jax"))


def cumsum_axis0(M):
    return np.sum(np.cumsum(M, axis=0) ** 2)


CASES.append(G("r10_cumsum_axis0", cumsum_axis0, (rng.normal(size=(3, 4)),), ref="jax"))


def one_by_one(a):
    A = np.array([[a]])
    return np.linalg.inv(A)[0, 0] + np.linalg.cholesky(A * A)[0, 0]


CASES.append(G("r10_inverse_cholesky_1x1", one_by_one, (1.7,), ref=lambda: -1 / 1.7 ** 2 + 1.0))


def cox_partial_likelihood(beta, X, times, events):
    eta = X @ beta
    order = np.argsort(times)
    eta_s = eta[order]
    ev = events[order]
    # risk sets: reverse cumulative sums of exp(eta)
    risk = np.cumsum(np.exp(eta_s)[::-1])[::-1]
    return np.sum(ev * (eta_s - np.log(risk)))


XC = rng.normal(size=(8, 2))
TC = rng.exponential(size=8)
EC = np.array([1, 0, 1, 1, 0, 1, 1, 0], dtype=float)
CASES.append(G("r10_cox_partial_likelihood", cox_partial_likelihood, (np.array([0.3, -0.2]), XC, TC, EC), ref="jax"))


def stiffness_solve(k):
    # a 3-spring chain fixed at one end, unit load at the tip: tip displacement
    K = np.array([[k[0] + k[1], -k[1], 0.0], [-k[1], k[1] + k[2], -k[2]], [0.0, -k[2], k[2]]])
    u = np.linalg.solve(K, np.array([0.0, 0.0, 1.0]))
    return u[2]


CASES.append(G("r10_spring_chain_compliance", stiffness_solve, (np.array([2.0, 4.0, 5.0]),),
               ref=lambda: -1.0 / np.array([2.0, 4.0, 5.0]) ** 2))


def matrix_exp_series(A, terms=20):
    E = np.eye(len(A))
    T = np.eye(len(A))
    for k in range(1, terms):
        T = T @ A / k
        E = E + T
    return np.trace(E)


# d tr(exp(A)) / dA = exp(A)^T; for a diagonal-free test use JAX
CASES.append(G("r10_matrix_exponential_series_trace", matrix_exp_series, (0.3 * rng.normal(size=(3, 3)),), ref="jax"))
