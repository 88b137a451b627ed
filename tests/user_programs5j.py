"""User programs, corpus 5j: linear algebra decompositions, order statistics, SciPy special."""
import math

import numpy as np

from user_programs5_harness import case

try:
    import scipy.linalg
    import scipy.special
except ImportError:  # pragma: no cover
    scipy = None

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


A3 = np.array([[2.0, 0.3, 0.1], [0.4, 1.0, -0.2], [0.0, 0.5, 3.0]])


def eigh_vectors(A):
    w, V = np.linalg.eigh(A + A.T)
    return np.sum(V[:, 0] ** 2 * np.array([1.0, 2.0, 3.0])) + w[-1]


add("eigh_eigenvector_sign_invariant", eigh_vectors, (A3,))


def svd_vectors(A):
    U, s, Vt = np.linalg.svd(A)
    return np.sum(U[:, 0] ** 2 * np.array([1.0, 2.0, 3.0])) + s[0] * s[1] + np.sum(Vt[0] ** 4)


add("svd_vectors_sign_invariant", svd_vectors, (A3,))


def svd_thin(A):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum((U * s) @ Vt * A) + np.sum(U[0] ** 2)


add("svd_thin_rectangular", svd_thin, (A3[:, :2].copy(),))


def qr_r_diag(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(R))) + np.sum((Q @ R - A) ** 2)


add("qr_abs_diag_r", qr_r_diag, (A3,))


def eig_nonsym(A):
    w = np.linalg.eigvals(A)
    return np.sum(np.real(w) ** 2)


add("eigvals_nonsymmetric_real_part", eig_nonsym, (A3,))


def slogdet_negative(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet


add("slogdet_negative_det", slogdet_negative, (np.array([[0.0, 2.0], [1.5, 0.3]]),))


def pinv_rect(A):
    return np.sum(np.linalg.pinv(A) ** 2)


add("pinv_full_rank_rectangular", pinv_rect, (A3[:, :2].copy(),))


def lu_solve_scipy(A, b):
    lu, piv = scipy.linalg.lu_factor(A)
    x = scipy.linalg.lu_solve((lu, piv), b)
    return np.sum(x ** 2)


add("scipy_lu_factor_solve", lu_solve_scipy, (A3, np.array([1.0, -1.0, 0.5])), argnums=(0, 1), needs=("scipy",))


def cho_solve_scipy(A, b):
    S = A @ A.T + np.eye(3)
    c = scipy.linalg.cho_factor(S)
    return b @ scipy.linalg.cho_solve(c, b)


add("scipy_cho_factor_solve", cho_solve_scipy, (A3, np.array([1.0, -1.0, 0.5])), argnums=(0, 1), needs=("scipy",))


def solve_multi_rhs(A, B):
    return np.sum(np.linalg.solve(A, B) ** 2)


add("solve_matrix_rhs", solve_multi_rhs, (A3, np.arange(6.0).reshape(3, 2)), argnums=(0, 1))


def median_even(x):
    return np.median(x) + np.quantile(x, 0.3) + np.percentile(x, [10, 90]).sum()


add("median_quantile_percentile", median_even, (np.array([0.3, -1.0, 2.0, 0.7, 1.1, 5.0]),))


def median_ties(x):
    return np.median(x) * 2.0


add("median_with_ties", median_ties, (np.array([1.0, 1.0, 2.0, 3.0]),),
    ref=lambda: [np.array([0.5, 0.5, 1.0, 0.0])])


def nearest_quantile(x):
    return np.quantile(x, 0.5, method="nearest")


add("quantile_method_nearest", nearest_quantile, (np.array([0.3, -1.0, 2.0]),))


def sort_axis(A):
    S = np.sort(A, axis=0)
    return np.sum(S * np.arange(6.0).reshape(3, 2))


add("sort_axis0", sort_axis, (np.array([[0.3, -1.0], [2.0, 0.7], [1.1, 5.0]]),))


def partition_k(x):
    p = np.partition(x, 2)
    return p[2] * 3.0 + np.sum(p[:2])


add("np_partition", partition_k, (np.array([0.3, -1.0, 2.0, 0.7, 1.1]),))


def diffs(x):
    return np.sum(np.diff(x, n=2) ** 2) + np.sum(np.ediff1d(x) * 2) + np.sum(np.cumsum(x[::-1]) ** 2)


add("diff_n2_ediff1d_reverse_cumsum", diffs, (np.array([0.3, -1.0, 2.0, 0.7, 1.1]),))


def softmax_scipy(x):
    p = scipy.special.softmax(x)
    return np.sum(p * np.arange(3.0)) + np.sum(scipy.special.xlogy(x, x))


add("scipy_softmax_xlogy", softmax_scipy, (np.array([0.3, 1.0, 2.0]),), needs=("scipy",))


def special_zoo(x):
    return scipy.special.digamma(x) + scipy.special.betaln(x, 2.0) + scipy.special.erfinv(x / 4.0)


add("scipy_digamma_betaln_erfinv", special_zoo, (1.5,), needs=("scipy",))


def ndtri_logndtr(p):
    return scipy.special.ndtri(p) + scipy.special.log_ndtr(p * 3.0 - 1.0)


add("scipy_ndtri_log_ndtr", ndtri_logndtr, (0.3,), needs=("scipy",))


def logsumexp_axis(X):
    return np.sum(scipy.special.logsumexp(X, axis=1, keepdims=True) * np.array([[1.0], [2.0]]))


add("scipy_logsumexp_axis_keepdims", logsumexp_axis, (np.array([[0.3, 1.0, 2.0], [-1.0, 0.0, 5.0]]),),
    needs=("scipy",))


def solve_triangular_trans(A, b):
    L = np.tril(A) + 3.0 * np.eye(3)
    return np.sum(scipy.linalg.solve_triangular(L, b, lower=True, trans="T") ** 2)


add("scipy_solve_triangular_trans", solve_triangular_trans, (A3, np.array([1.0, -1.0, 0.5])), argnums=(0, 1),
    needs=("scipy",))


def expm_frechet_like(t):
    A = np.array([[0.0, t], [-t, 0.1]])
    return np.sum(scipy.linalg.expm(A) ** 2)


add("scipy_expm_param", expm_frechet_like, (0.8,), needs=("scipy",))


def cholesky_update_loop(x):
    S = np.eye(2)
    for v in (x, 2.0 * x):
        S = S + np.outer(v, v)
    L = np.linalg.cholesky(S)
    return np.sum(np.log(np.diag(L)))


add("cholesky_of_accumulated_outer", cholesky_update_loop, (np.array([0.3, -0.5]),))


def logdet_via_eigh(A):
    w = np.linalg.eigh(A @ A.T + np.eye(3))[0]
    return np.sum(np.log(w))


add("logdet_via_eigh_eigenvalues", logdet_via_eigh, (A3,))


def inv_hilbert_ish(a):
    H = 1.0 / (np.arange(3)[:, None] + np.arange(3)[None, :] + a)
    return np.sum(np.linalg.inv(H)) * 1e-3


add("inverse_of_hilbert_like", inv_hilbert_ish, (1.5,), tol=1e-5)


def det_singularish(A):
    return np.linalg.det(A)


# d det / dA is the cofactor matrix, defined for a singular A too: [[4, -2], [-2, 1]]
add("det_of_singular_matrix", det_singularish, (np.array([[1.0, 2.0], [2.0, 4.0]]),))


def norm2_matrix(A):
    return np.linalg.norm(A, 2) + np.linalg.norm(A, "nuc")


add("matrix_2norm_nuclear", norm2_matrix, (A3,))


def cond_number(A):
    return np.linalg.cond(A)


add("condition_number", cond_number, (A3,))


def hyp_math(x):
    return math.atanh(x) + math.asinh(x) + math.acosh(1.0 + x) + math.log2(x) + math.log10(x) + math.expm1(x)


add("math_inverse_hyperbolic_logs", hyp_math, (0.4,))


def f32_scalar_poly(x):
    return x * 0.1 + x * x


# revsrc.jit promises the digits of plain Python: here plain Python computes in float32
# (np.float32 * float is float32 under NEP 50) and returns np.float32(0.020000001).
add("jit_float32_scalar_argument", f32_scalar_poly, (np.float32(0.1),), t="jit")
