"""User programs, corpus 7c: linear algebra and statistics as people write them --
Gaussian-process log-likelihood through cholesky and triangular solves, multivariate
normal densities, slogdet, eigh (smallest eigenvalue, spectral functions), norms with
ord/axis, a multi-dimensional Kalman filter, scaling-and-squaring exp by hand, QR
least squares, Woodbury.  References: JAX x64 running the same source, SciPy, closed
forms and self-checked central differences."""
import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, fd_checked, jax, jaxify, pair

CASES = []
RNG = np.random.default_rng(7002)
XT = np.sort(RNG.uniform(-2, 2, size=7))
YT = np.sin(2 * XT) + 0.1 * RNG.normal(size=7)


def gp_nll(log_ell, log_sf, log_sn, x, y):
    d = x[:, None] - x[None, :]
    K = np.exp(2 * log_sf) * np.exp(-0.5 * d * d / np.exp(2 * log_ell)) + np.exp(2 * log_sn) * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(x) * np.log(2 * np.pi)


CASES.append(G("r7_gp_nll_cholesky_solve", gp_nll, (0.1, 0.2, -1.5, XT, YT), argnums=(0, 1, 2),
               ref="jax", tol=1e-8))


def gp_nll_slogdet(theta, x, y):
    ell, sf, sn = np.exp(theta)
    K = sf ** 2 * np.exp(-0.5 * np.subtract.outer(x, x) ** 2 / ell ** 2) + sn ** 2 * np.eye(x.size)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


TH = np.array([0.1, 0.2, -1.5])
CASES.append(G("r7_gp_nll_slogdet_subtract_outer", gp_nll_slogdet, (TH, XT, YT), ref="fd", tol=1e-6))
CASES.append(H("r7_gp_nll_slogdet_hessian", gp_nll_slogdet, (TH, XT, YT), ref="fd", tol=1e-4))


def gp_nll_scipy(theta, x, y):
    import scipy.linalg as sl
    ell, sf, sn = np.exp(theta)
    K = sf ** 2 * np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ell ** 2) + sn ** 2 * np.eye(x.size)
    c, low = sl.cho_factor(K, lower=True)
    alpha = sl.cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


CASES.append(G("r7_gp_nll_scipy_cho_factor_import_inside", gp_nll_scipy, (TH, XT, YT), ref="fd", tol=1e-6))


def mvn_logpdf(mu, L, x):
    S = L @ L.T + 0.1 * np.eye(len(mu))
    d = x - mu
    sign, ld = np.linalg.slogdet(S)
    return -0.5 * (d @ np.linalg.inv(S) @ d + ld + len(mu) * np.log(2 * np.pi))


MU = RNG.normal(size=3)
LL = np.tril(RNG.normal(size=(3, 3)))
XX = RNG.normal(size=3)
CASES.append(G("r7_mvn_logpdf_inv_slogdet", mvn_logpdf, (MU, LL, XX), argnums=(0, 1), ref="jax", tol=1e-8))
CASES.append(pair("r7_mvn_logpdf_vs_scipy",
                  lambda: revsrc.value_and_grad(mvn_logpdf)(MU, LL, XX)[0],
                  lambda: __import__("scipy.stats", fromlist=["x"]).multivariate_normal(
                      MU, LL @ LL.T + 0.1 * np.eye(3)).logpdf(XX), tol=1e-10))

SYM0 = RNG.normal(size=(4, 4))
SYM0 = SYM0 + SYM0.T
SYM1 = RNG.normal(size=(4, 4))
SYM1 = SYM1 + SYM1.T


def smallest_eig(t):
    w, V = np.linalg.eigh(SYM0 + t * SYM1)
    return w[0]


CASES.append(G("r7_eigh_smallest_eigenvalue", smallest_eig, (0.3,), ref="jax", tol=1e-9))


def eigvec_overlap(t):
    w, V = np.linalg.eigh(SYM0 + t * SYM1)
    v = V[:, -1]
    return (v[0] * v[1]) ** 2 + np.sum(w ** 3)


CASES.append(G("r7_eigh_vector_sign_invariant", eigvec_overlap, (0.3,), ref="jax", tol=1e-8))


def matrix_sqrt_trace(A):
    S = A @ A.T + np.eye(3)
    w, V = np.linalg.eigh(S)
    R = (V * np.sqrt(w)) @ V.T
    return np.trace(R @ np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]]))


A33 = RNG.normal(size=(3, 3))
CASES.append(G("r7_eigh_matrix_sqrt_broadcast_cols", matrix_sqrt_trace, (A33,), ref="jax", tol=1e-8))


def norms_mix(A):
    return (np.linalg.norm(A, ord=1) + np.linalg.norm(A, ord=np.inf) + np.linalg.norm(A, "fro")
            + np.sum(np.linalg.norm(A, axis=0)) + np.linalg.norm(A[0], ord=3))


CASES.append(G("r7_norm_ord_axis_mix", norms_mix, (A33,), ref="jax", tol=1e-9))


def spectral_norm(A):
    return np.linalg.norm(A, ord=2)


CASES.append(G("r7_norm_ord2_spectral", spectral_norm, (A33,), ref="jax", tol=1e-8))


def nuclear_norm(A):
    return np.linalg.norm(A, ord="nuc")


CASES.append(G("r7_norm_nuclear", nuclear_norm, (A33,), ref="jax", tol=1e-8))


def kalman_nd(q, r, ys):
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    Hm = np.array([[1.0, 0.0]])
    Q = q * np.eye(2)
    R = np.array([[r]])
    m = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for y in ys:
        m = F @ m
        P = F @ P @ F.T + Q
        S = Hm @ P @ Hm.T + R
        K = P @ Hm.T @ np.linalg.inv(S)
        v = y - Hm @ m
        ll = ll - 0.5 * (np.log(2 * np.pi * S[0, 0]) + v[0] ** 2 / S[0, 0])
        m = m + K @ v
        P = (np.eye(2) - K @ Hm) @ P
    return ll


YS = np.cumsum(RNG.normal(size=12)) * 0.3
CASES.append(G("r7_kalman_2d_inv_loglik", kalman_nd, (0.05, 0.4, YS), argnums=(0, 1), ref="jax", tol=1e-8))
CASES.append(H("r7_kalman_2d_hessian_q", kalman_nd, (0.05, 0.4, YS), argnums=0, ref="fd", tol=1e-5, h=1e-4))


def expm_scaling_squaring(A):
    n = 6
    X = A / 2.0 ** n
    E = np.eye(3)
    term = np.eye(3)
    for k in range(1, 12):
        term = term @ X / k
        E = E + term
    for _ in range(n):
        E = E @ E
    return np.sum(E * np.array([[1.0, 0.0, 2.0], [0.5, 1.0, 0.0], [0.0, -1.0, 1.0]]))


CASES.append(G("r7_expm_by_hand_vs_jax", expm_scaling_squaring, (A33 * 0.5,), ref="jax", tol=1e-9))
CASES.append(G("r7_expm_by_hand_vs_scipy_frechet", expm_scaling_squaring, (A33 * 0.5,),
               ref=lambda: __import__("scipy.linalg", fromlist=["x"]).expm_frechet(
                   (A33 * 0.5).T, np.array([[1.0, 0.0, 2.0], [0.5, 1.0, 0.0], [0.0, -1.0, 1.0]]),
                   compute_expm=False), tol=1e-8))


def qr_lstsq(w, X, y):
    Q, R = np.linalg.qr(X * w)
    beta = np.linalg.solve(R, Q.T @ y)
    r = y - (X * w) @ beta
    return r @ r


X62 = RNG.normal(size=(6, 2))
Y6 = RNG.normal(size=6)
CASES.append(G("r7_qr_least_squares_residual", qr_lstsq, (np.array([1.0, 0.7]), X62, Y6), ref="jax", tol=1e-8))


def lstsq_fn(X, y):
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    return np.sum(beta ** 2)


CASES.append(G("r7_lstsq_coef_norm", lstsq_fn, (X62, Y6), argnums=(0, 1), ref="jax", tol=1e-8))


def woodbury_logdet(U, d):
    n, k = U.shape
    D = np.diag(d)
    A = D + U @ U.T
    Dinv = np.diag(1.0 / d)
    small = np.eye(k) + U.T @ Dinv @ U
    inv_w = Dinv - Dinv @ U @ np.linalg.inv(small) @ U.T @ Dinv
    return np.trace(inv_w @ A) + np.log(np.linalg.det(small)) + np.sum(np.log(d))


U52 = RNG.normal(size=(5, 2))
D5 = RNG.uniform(0.5, 2, size=5)
CASES.append(G("r7_woodbury_inverse_det", woodbury_logdet, (U52, D5), argnums=(0, 1), ref="jax", tol=1e-8))


def mahalanobis_batch(L, X):
    P = L @ L.T + np.eye(3)
    return np.sum(np.einsum("ni,ij,nj->n", X, np.linalg.inv(P), X))


X73 = RNG.normal(size=(7, 3))
CASES.append(G("r7_mahalanobis_einsum_three_operands", mahalanobis_batch, (LL, X73), ref="jax", tol=1e-8))


def matrix_power_trace(A):
    return np.trace(np.linalg.matrix_power(A, 5)) + np.trace(np.linalg.matrix_power(A, -2))


CASES.append(G("r7_matrix_power_pos_neg", matrix_power_trace, (A33 + 3 * np.eye(3),), ref="jax", tol=1e-8))


def pinv_fit(X, y):
    return np.sum((X @ (np.linalg.pinv(X) @ y) - y) ** 2) + np.sum(np.linalg.pinv(X) ** 2)


CASES.append(G("r7_pinv_full_rank", pinv_fit, (X62, Y6), argnums=0, ref="jax", tol=1e-8))


def cov_corr(X):
    C = np.cov(X, rowvar=False)
    s = np.sqrt(np.diag(C))
    R = C / np.outer(s, s)
    return np.sum(R ** 2)


CASES.append(G("r7_np_cov_corrcoef_by_hand", cov_corr, (X73,), ref="jax", tol=1e-8))


def corrcoef_fn(x, y):
    return np.corrcoef(x, y)[0, 1]


CASES.append(G("r7_np_corrcoef", corrcoef_fn, (X73[:, 0], X73[:, 1]), argnums=(0, 1), ref="jax", tol=1e-9))


def det_via_lu_loop(A):
    U = A.copy()
    n = U.shape[0]
    det = 1.0
    for k in range(n):
        det = det * U[k, k]
        for i in range(k + 1, n):
            U[i, :] = U[i, :] - U[i, k] / U[k, k] * U[k, :]
    return det


CASES.append(G("r7_det_by_gaussian_elimination_rows", det_via_lu_loop, (A33 + 2 * np.eye(3),),
               ref=lambda: np.linalg.det(A33 + 2 * np.eye(3)) * np.linalg.inv(A33 + 2 * np.eye(3)).T,
               tol=1e-9))
CASES.append(JV("r7_jvp_gp_nll_slogdet", gp_nll_slogdet, (TH, XT, YT),
                (np.array([1.0, -0.5, 0.2]), np.zeros(7), np.zeros(7)), ref="fd", tol=1e-6))
CASES.append(GD("r7_gp_nll_wrt_inputs_dirs", lambda x: gp_nll(0.1, 0.2, -1.5, x, YT), (XT,)))
