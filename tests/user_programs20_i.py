"""Round 20, part i: numerical linear algebra written by users -- power iteration with a
data-dependent stop, Rayleigh quotients, conjugate gradient, classical and modified
Gram-Schmidt with column writes, Jacobi and Gauss-Seidel sweeps in place, Lanczos
tridiagonalization, Householder reflections, LU without pivoting, Cholesky by hand,
back substitution over reversed ranges, checked against np.linalg closed forms."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(2009)
_B = _rng.normal(size=(5, 5))
SPD = _B @ _B.T + 5.0 * np.eye(5)
SYM = 0.5 * (_B + _B.T)
RHS = _rng.normal(size=5)


def power_iteration(A, tol=1e-14, max_iter=500):
    v = np.ones(A.shape[0]) / math.sqrt(A.shape[0])
    lam = 0.0
    for it in range(max_iter):
        w = A @ v
        lam_new = v @ w
        v = w / np.linalg.norm(w)
        if abs(lam_new - lam) < tol * abs(lam_new):
            return lam_new
        lam = lam_new
    return lam


def _top_eig_grad(A):
    w, V = np.linalg.eigh(A)
    u = V[:, -1]
    return np.outer(u, u)


add(pair("r20i_power_iteration_top_eigenvalue_grad", lambda: revsrc.grad(power_iteration)(SPD),
         lambda: _top_eig_grad(SPD), tol=1e-6))
add(pair("r20i_power_iteration_value", lambda: power_iteration(SPD), lambda: np.linalg.eigvalsh(SPD)[-1], tol=1e-10))


def rayleigh_quotient_iteration(A, v, iters=6):
    v = v / np.linalg.norm(v)
    mu = v @ A @ v
    n = A.shape[0]
    for _ in range(iters):
        try:
            w = np.linalg.solve(A - mu * np.eye(n), v)
        except np.linalg.LinAlgError:
            break
        v = w / np.linalg.norm(w)
        mu = v @ A @ v
    return mu


V_START = np.array([0.1, 0.9, 0.2, -0.3, 0.4])


def _rqi_ref(A, v):
    mu = rayleigh_quotient_iteration(A, v)
    w, V = np.linalg.eigh(A)
    k = int(np.argmin(np.abs(w - mu)))
    return np.outer(V[:, k], V[:, k])


add(pair("r20i_rayleigh_quotient_iteration_try_except", lambda: revsrc.grad(rayleigh_quotient_iteration)(SPD, V_START),
         lambda: _rqi_ref(SPD, V_START), tol=1e-6))


def conjugate_gradient(A, b, tol=1e-13, max_iter=100):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r * 1.0
    rs = r @ r
    k = 0
    while math.sqrt(rs) > tol and k < max_iter:
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        k += 1
    return x


def cg_loss(A, b):
    x = conjugate_gradient(A, b)
    return np.sum(x ** 2) + x[0]


def cg_loss_exact(A, b):
    x = np.linalg.solve(A, b)
    return np.sum(x ** 2) + x[0]


add(pair("r20i_cg_while_wrt_rhs", lambda: revsrc.grad(cg_loss, argnums=1)(SPD, RHS),
         lambda: revsrc.grad(cg_loss_exact, argnums=1)(SPD, RHS), tol=1e-8))
# with respect to the matrix, CG's iteration count changes off the symmetric matrices (central
# differences see the extra iterations); autograd follows the path taken, as revsrc does
add(G("r20i_cg_while_wrt_matrix", cg_loss, (SPD, RHS), argnums=0, ref="ag", tol=1e-10))
add(pair("r20i_cg_while_wrt_matrix_symmetric_part_vs_solve",
         lambda: (lambda g: 0.5 * (g + g.T))(revsrc.grad(cg_loss, argnums=0)(SPD, RHS)),
         lambda: (lambda g: 0.5 * (g + g.T))(np.asarray(jax().grad(jaxify(cg_loss_exact), argnums=0)(SPD, RHS))), tol=1e-8))
add(pair("r20i_cg_jvp_wrt_rhs", lambda: revsrc.jvp(lambda b: cg_loss(SPD, b), (RHS,), (np.ones(5),)),
         lambda: jax().jvp(jaxify(lambda b: cg_loss_exact(SPD, b)), (RHS,), (np.ones(5),)), tol=1e-8))


def gram_schmidt_classical(A):
    m, n = A.shape
    Q = np.zeros((m, n))
    for j in range(n):
        v = A[:, j].copy()
        for i in range(j):
            v -= (Q[:, i] @ A[:, j]) * Q[:, i]
        Q[:, j] = v / np.linalg.norm(v)
    return Q


def gram_schmidt_modified(A):
    Q = A.astype(float).copy()
    m, n = Q.shape
    R = np.zeros((n, n))
    for j in range(n):
        R[j, j] = np.linalg.norm(Q[:, j])
        Q[:, j] /= R[j, j]
        for k in range(j + 1, n):
            R[j, k] = Q[:, j] @ Q[:, k]
            Q[:, k] -= R[j, k] * Q[:, j]
    return Q, R


A43 = _rng.normal(size=(4, 3))


def gs_projection_loss(A, y=np.array([1.0, -2.0, 0.5, 0.3])):
    Q = gram_schmidt_classical(A)
    p = Q @ (Q.T @ y)
    return np.sum((y - p) ** 2)


add(G("r20i_classical_gram_schmidt_projection", gs_projection_loss, (A43,), ref="fd", tol=1e-8))


def mgs_logdet(A):
    Q, R = gram_schmidt_modified(A)
    return np.sum(np.log(np.abs(np.diag(R))))


A33 = _rng.normal(size=(3, 3)) + 2.0 * np.eye(3)
add(pair("r20i_modified_gram_schmidt_logabsdet", lambda: revsrc.grad(mgs_logdet)(A33),
         lambda: np.linalg.inv(A33).T, tol=1e-10))
add(pair("r20i_mgs_tuple_output_jacfwd_R", lambda: revsrc.jacfwd(lambda A: gram_schmidt_modified(A)[1])(A33),
         lambda: fdj(lambda A: gram_schmidt_modified(A)[1], A33), tol=1e-7))


def jacobi_solve(A, b, sweeps=60):
    D = np.diag(A)
    R = A - np.diag(D)
    x = np.zeros_like(b)
    for _ in range(sweeps):
        x = (b - R @ x) / D
    return x


DD = SPD + 10.0 * np.eye(5)   # diagonally dominant enough for Jacobi


def jacobi_energy(b, A=DD):
    x = jacobi_solve(A, b)
    return 0.5 * x @ A @ x - b @ x


add(pair("r20i_jacobi_sweeps_energy_grad_is_minus_x", lambda: revsrc.grad(jacobi_energy)(RHS),
         lambda: -np.linalg.solve(DD, RHS), tol=1e-10))


def gauss_seidel(A, b, sweeps=40):
    n = len(b)
    x = np.zeros(n)
    for _ in range(sweeps):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x[i] = s / A[i, i]
    return x


def gs_potential(A, b):
    x = gauss_seidel(A, b)
    return np.sum(np.sin(x))


def gs_potential_exact(A, b):
    return np.sum(np.sin(np.linalg.solve(A, b)))


add(pair("r20i_gauss_seidel_inplace_wrt_matrix", lambda: revsrc.grad(gs_potential)(DD, RHS),
         lambda: jax().grad(jaxify(gs_potential_exact))(DD, RHS), tol=1e-9))
add(pair("r20i_gauss_seidel_inplace_wrt_rhs", lambda: revsrc.grad(gs_potential, argnums=1)(DD, RHS),
         lambda: jax().grad(jaxify(gs_potential_exact), argnums=1)(DD, RHS), tol=1e-9))


def sor(A, b, omega, tol=1e-12, max_sweeps=500):
    n = len(b)
    x = np.zeros(n)
    for sweep in range(max_sweeps):
        old = x.copy()
        for i in range(n):
            sigma = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i]
        if np.linalg.norm(x - old) < tol:
            break
    return x


add(pair("r20i_sor_converged_wrt_omega_is_zero", lambda: revsrc.grad(lambda w: np.sum(sor(SPD, RHS, w)))(1.2),
         lambda: 0.0, tol=1e-8))
add(pair("r20i_sor_converged_jacrev_rhs", lambda: revsrc.jacrev(lambda b: sor(SPD, b, 1.2))(RHS),
         lambda: np.linalg.inv(SPD), tol=1e-9))


def lanczos(A, v, k):
    n = A.shape[0]
    alphas, betas = [], []
    q_prev = np.zeros(n)
    q = v / np.linalg.norm(v)
    beta = 0.0
    for j in range(k):
        w = A @ q - beta * q_prev
        a = q @ w
        w = w - a * q
        alphas.append(a)
        beta = np.linalg.norm(w)
        if j < k - 1:
            betas.append(beta)
            q_prev, q = q, w / beta
    T = np.diag(alphas) + np.diag(betas, 1) + np.diag(betas, -1)
    return T


def lanczos_full_trace_of_square(A, v=V_START):
    # with k = n (exact arithmetic) T is similar to A: sum of squared eigenvalues = ||A||_F^2
    T = lanczos(A, v, A.shape[0])
    return np.sum(T * T)


add(pair("r20i_lanczos_full_frobenius", lambda: revsrc.grad(lanczos_full_trace_of_square)(SYM),
         lambda: fd_checked(lanczos_full_trace_of_square, (SYM,))[0], tol=1e-6))


def lanczos_ritz_top(A, v=V_START, k=3):
    T = lanczos(A, v, k)
    return np.linalg.eigvalsh(T)[-1]


add(G("r20i_lanczos_ritz_value_eigvalsh_of_T", lanczos_ritz_top, (SPD,), ref="fd", tol=1e-6))


def householder_qr_r_diag(A):
    R = A.copy()
    m, n = R.shape
    for k in range(n):
        x = R[k:, k]
        alpha = -math.copysign(1.0, x[0]) * np.linalg.norm(x)
        v = x.copy()
        v[0] -= alpha
        v = v / np.linalg.norm(v)
        R[k:, k:] -= 2.0 * np.outer(v, v @ R[k:, k:])
    return np.abs(np.diag(R))


def hh_loss(A):
    return np.sum(np.log(householder_qr_r_diag(A)))


add(pair("r20i_householder_qr_slice_writes_logabsdet", lambda: revsrc.grad(hh_loss)(A33),
         lambda: np.linalg.inv(A33).T, tol=1e-10))
add(H("r20i_householder_hessian", hh_loss, (A33,), ref="fd", tol=1e-5))


def lu_nopivot(A):
    n = A.shape[0]
    L = np.eye(n)
    U = A.copy()
    for k in range(n - 1):
        for i in range(k + 1, n):
            L[i, k] = U[i, k] / U[k, k]
            U[i, k:] = U[i, k:] - L[i, k] * U[k, k:]
    return L, U


def lu_solve(A, b):
    L, U = lu_nopivot(A)
    n = len(b)
    y = np.zeros(n)
    for i in range(n):
        y[i] = b[i] - L[i, :i] @ y[:i]
    x = np.zeros(n)
    for i in reversed(range(n)):
        x[i] = (y[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x


def lu_objective(A, b):
    x = lu_solve(A, b)
    return x @ x


add(pair("r20i_lu_forward_back_substitution_wrt_A", lambda: revsrc.grad(lu_objective)(SPD, RHS),
         lambda: jax().grad(lambda A, b: (lambda x: x @ x)(jax().numpy.linalg.solve(A, b)))(SPD, RHS), tol=1e-9))
add(H("r20i_lu_objective_hessian_wrt_b", lu_objective, (SPD, RHS), argnums=1, ref=lambda: 2 * np.linalg.inv(SPD).T @ np.linalg.inv(SPD), tol=1e-9))


def cholesky_by_hand(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        s = A[j, j] - np.sum(L[j, :j] ** 2)
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            L[i, j] = (A[i, j] - np.sum(L[i, :j] * L[j, :j])) / L[j, j]
    return L


def chol_logdet(A):
    return 2.0 * sum(math.log(d) for d in np.diag(cholesky_by_hand(A)))


add(G("r20i_cholesky_by_hand_logdet", chol_logdet, (SPD,), ref="fd", tol=1e-8))
add(pair("r20i_cholesky_by_hand_vs_numpy_jacfwd", lambda: revsrc.jacfwd(cholesky_by_hand)(SPD[:3, :3]),
         lambda: revsrc.jacfwd(np.linalg.cholesky)(SPD[:3, :3]), tol=1e-10))


def arnoldi_krylov_residual(A, b, m=3):
    # GMRES(m) from x0 = 0 with Arnoldi basis built column by column
    n = len(b)
    Qk = np.zeros((n, m + 1))
    Hk = np.zeros((m + 1, m))
    beta = np.linalg.norm(b)
    Qk[:, 0] = b / beta
    for j in range(m):
        w = A @ Qk[:, j]
        for i in range(j + 1):
            Hk[i, j] = Qk[:, i] @ w
            w = w - Hk[i, j] * Qk[:, i]
        Hk[j + 1, j] = np.linalg.norm(w)
        Qk[:, j + 1] = w / Hk[j + 1, j]
    e1 = np.zeros(m + 1)
    e1[0] = beta
    y = np.linalg.lstsq(Hk, e1, rcond=None)[0]
    r = e1 - Hk @ y
    return r @ r


add(G("r20i_gmres_arnoldi_lstsq_residual", arnoldi_krylov_residual, (SPD, RHS), ref="fd", tol=1e-6))
add(G("r20i_gmres_arnoldi_wrt_rhs", arnoldi_krylov_residual, (SPD, RHS), argnums=1, ref="fd", tol=1e-6))


def inverse_iteration_smallest(A, shift=0.0, iters=40):
    n = A.shape[0]
    v = np.ones(n)
    M = A - shift * np.eye(n)
    for _ in range(iters):
        v = np.linalg.solve(M, v)
        v /= np.linalg.norm(v)
    return v @ A @ v


add(G("r20i_inverse_iteration_smallest_eig_grad", inverse_iteration_smallest, (SPD,), ref="fd", tol=1e-7))


def trace_estimator_hutchinson(A, probes):
    # trace of A^{-1} by Hutchinson probes z^T A^{-1} z with CG solves, probes a list
    return sum(z @ conjugate_gradient(A, z) for z in probes) / len(probes)


PROBES = [np.sign(_rng.normal(size=5)) for _ in range(4)]


add(G("r20i_hutchinson_trace_inverse_cg", trace_estimator_hutchinson, (SPD, PROBES), ref="ag", tol=1e-10))


def givens_rotate_out(A):
    # zero the subdiagonal of a 2-row band by Givens rotations, swap rows with a fancy index
    R = A.copy()
    n = R.shape[0]
    for i in range(n - 1):
        a, b = R[i, i], R[i + 1, i]
        r = math.hypot(a, b)
        c, s = a / r, b / r
        rows = R[[i, i + 1], :]
        R[[i, i + 1], :] = np.array([[c, s], [-s, c]]) @ rows
    return np.prod(np.diag(R))


TRIDIAG = np.diag([4.0, 5.0, 6.0, 3.0]) + np.diag([1.0, -0.5, 0.7], 1) + np.diag([0.8, 0.3, -0.4], -1)
add(G("r20i_givens_fancy_row_writes_prod_diag", givens_rotate_out, (TRIDIAG,), ref="fd", tol=1e-7))
add(SAME("r20i_power_iteration_grad_twice_same_bits", lambda: revsrc.grad(power_iteration)(SPD)))
add(G("r20i_jacobi_energy_backend_jax", jacobi_energy, (RHS,), ref=lambda: -np.linalg.solve(DD, RHS), tol=1e-10,
      backend="jax"))
add(G("r20i_cg_while_backend_jax", cg_loss, (SPD, RHS), argnums=1,
      ref=lambda: revsrc.grad(cg_loss_exact, argnums=1)(SPD, RHS), tol=1e-8, backend="jax"))


def column_writes_vandermonde(x, deg=3):
    V = np.empty((len(x), deg + 1))
    V[:, 0] = 1.0
    for k in range(1, deg + 1):
        V[:, k] = V[:, k - 1] * x
    G_ = V.T @ V
    sign, logdet = np.linalg.slogdet(G_)
    return logdet


XV = np.array([-1.0, -0.3, 0.2, 0.8, 1.1])
add(G("r20i_vandermonde_column_writes_slogdet", column_writes_vandermonde, (XV,), ref="fd", tol=1e-7))


def transpose_view_write(A):
    M = A.copy()
    Mt = M.T
    Mt[0, :] = 2.0 * Mt[0, :]   # scales the first column of M through the transpose view
    flat = M.reshape(-1)
    flat[-1] = flat[-1] ** 2    # and squares the last entry through a reshape view
    return np.sum(np.linalg.inv(M) ** 2)


add(G("r20i_transpose_and_reshape_view_writes_inv", transpose_view_write, (SPD[:3, :3],), ref="fd", tol=1e-7))


def tridiagonal_thomas(a, b, c, d):
    # Thomas algorithm with lists; a sub-, b main-, c super-diagonal
    n = len(d)
    cp, dp = [0.0] * n, [0.0] * n
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i - 1] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i - 1] * dp[i - 1]) / m
    x = [0.0] * n
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return sum(v * v for v in x)


TA = np.array([-1.0, -1.0, -1.0])
TB = np.array([4.0, 4.0, 4.0, 4.0])
TC = np.array([-1.0, -1.0, -1.0, 0.0])
TD = np.array([1.0, 2.0, 0.5, -1.0])
add(G("r20i_thomas_list_slots_wrt_main_diag", tridiagonal_thomas, (TA, TB, TC, TD), argnums=1, ref="fd", tol=1e-8))
add(G("r20i_thomas_list_slots_wrt_rhs_argnums_tuple", tridiagonal_thomas, (TA, TB, TC, TD), argnums=(0, 3), ref="fd", tol=1e-8))
