"""Round 8 user programs, batch c: numerical methods written inline (least squares with
lstsq/solve, Horner, Sinkhorn, bisection inside a loss, Viterbi max-product, a small CNN
with einsum, Newton iterations, quadrature), checked against JAX x64, closed forms or
self-checked central differences."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(82)


def lstsq_fit_residual(x, t, y):
    A = np.stack([np.ones_like(t), t, t ** 2], axis=1) * x[None, :]
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    r = A @ coef - y
    return np.sum(r ** 2) + np.sum(coef ** 2)


TL = np.linspace(-1, 1, 9)
YLS = np.cos(2 * TL) + 0.05 * rng.normal(size=9)
add(G("r8_lstsq_star_unpack_scaled_design", lstsq_fit_residual, (np.array([1.0, 0.8, 1.3]), TL, YLS), ref="jax"))
add(G("r8_lstsq_wrt_data", lstsq_fit_residual, (np.array([1.0, 0.8, 1.3]), TL, YLS), argnums=2, ref="jax"))


def normal_equations(lam, X, y):
    A = X.T @ X + lam * np.eye(X.shape[1])
    w = np.linalg.solve(A, X.T @ y)
    return np.sum((X @ w - y) ** 2)


XN = rng.normal(size=(10, 3))
YN = rng.normal(size=10)
add(G("r8_ridge_solve_wrt_lambda", normal_equations, (0.5, XN, YN), ref="jax"))
add(G("r8_ridge_solve_wrt_X", normal_equations, (0.5, XN, YN), argnums=1, ref="jax"))


def horner(coeffs, x):
    acc = 0.0
    for c in coeffs:
        acc = acc * x + c
    return acc


CO = np.array([0.5, -1.0, 2.0, 0.3, -0.7])
add(G("r8_horner_wrt_x_array_coeffs", horner, (CO, 1.3), argnums=1, ref="jax"))
add(G("r8_horner_wrt_coeffs", horner, (CO, 1.3), argnums=0, ref="jax"))
add(H("r8_horner_hessian_x", horner, (CO, 1.3), argnums=1, ref="jax"))
add(pair("r8_horner_grad_grad_grad", lambda: revsrc.grad(revsrc.grad(revsrc.grad(horner, 1), 1), 1)(CO, 1.3),
         lambda: 12 * 1.3 - 6.0, tol=1e-9))  # f = .5x^4 - x^3 + 2x^2 + .3x - .7


def horner_list_coeffs(x, coeffs):
    acc = coeffs[0]
    for c in coeffs[1:]:
        acc = acc * x + c
    return acc


add(pair("r8_horner_jit_scalar", lambda: revsrc.jit(horner_list_coeffs)(1.7, [1.0, -2.0, 0.5, 3.0]),
         lambda: ((1.0 * 1.7 - 2.0) * 1.7 + 0.5) * 1.7 + 3.0, tol=1e-12))
add(pair("r8_horner_jit_grad_scalar", lambda: revsrc.jit(revsrc.grad(horner_list_coeffs))(1.7, [1.0, -2.0, 0.5, 3.0]),
         lambda: 3 * 1.7 ** 2 - 4 * 1.7 + 0.5, tol=1e-12))


def sinkhorn(a, b, C, eps, iters):
    K = np.exp(-C / eps)
    u = np.ones_like(a)
    for _ in range(iters):
        v = b / (K.T @ u)
        u = a / (K @ v)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


AS = np.array([0.2, 0.5, 0.3])
BS = np.array([0.4, 0.4, 0.2])
CS = np.abs(rng.normal(size=(3, 3)))
add(G("r8_sinkhorn_cost_matrix", sinkhorn, (AS, BS, CS, 0.5, 30), argnums=2, ref="jax"))
add(G("r8_sinkhorn_marginals_eps", sinkhorn, (AS, BS, CS, 0.5, 30), argnums=(0, 3), ref="jax"))


def sinkhorn_logdomain(C, eps, iters):
    n, m = C.shape
    f = np.zeros(n)
    g = np.zeros(m)
    for _ in range(iters):
        M = (f[:, None] + g[None, :] - C) / eps
        mx = M.max(axis=1, keepdims=True)
        f = f - eps * (mx[:, 0] + np.log(np.exp(M - mx).sum(axis=1))) + eps * np.log(1.0 / n)
        M = (f[:, None] + g[None, :] - C) / eps
        my = M.max(axis=0, keepdims=True)
        g = g - eps * (my[0] + np.log(np.exp(M - my).sum(axis=0))) + eps * np.log(1.0 / m)
    return np.sum(f) / n + np.sum(g) / m


add(G("r8_sinkhorn_log_domain_max_shift", sinkhorn_logdomain, (CS, 0.3, 20), argnums=(0, 1), ref="jax"))


def implied_root_bisection(theta, target):
    # the loss depends on theta through a root found by bisection: d root / d theta = 0
    # along the bisection path (a piecewise-constant function), so grad is the direct term
    lo, hi = 0.0, 5.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid ** 3 + theta * mid - target > 0:
            hi = mid
        else:
            lo = mid
    return (lo - 1.0) ** 2 + theta ** 2


def _bisect_ref():
    # bisection output is piecewise constant in theta: only the theta**2 term differs
    return 2 * 0.7


add(pair("r8_bisection_inside_loss_piecewise_constant", lambda: revsrc.grad(implied_root_bisection)(0.7, 3.0), _bisect_ref, tol=1e-12))


def newton_root_loss(theta, target):
    x = 1.0
    for _ in range(30):
        fx = x ** 3 + theta * x - target
        if abs(fx) < 1e-14:
            break
        x = x - fx / (3 * x ** 2 + theta)
    return x


def _newton_ref():
    th, tg = 0.7, 3.0
    x = 1.0
    for _ in range(100):
        x = x - (x ** 3 + th * x - tg) / (3 * x ** 2 + th)
    return -x / (3 * x ** 2 + th)


add(pair("r8_newton_root_implicit_derivative", lambda: revsrc.grad(newton_root_loss)(0.7, 3.0), _newton_ref, tol=1e-8))


def viterbi_score(logA, logB, obs):
    n = logA.shape[0]
    delta = logB[:, obs[0]] - np.log(n)
    for o in obs[1:]:
        cand = delta[:, None] + logA
        delta = np.max(cand, axis=0) + logB[:, o]
    return np.max(delta)


LA = np.log(np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]))
LB = np.log(np.array([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]]))
OBS = [0, 1, 1, 0, 1]
add(G("r8_viterbi_max_product_logA", viterbi_score, (LA, LB, OBS), argnums=(0, 1), ref="jax"))


def viterbi_path_score(logA, logB, obs):
    n = logA.shape[0]
    delta = logB[:, obs[0]]
    back = []
    for o in obs[1:]:
        cand = delta[:, None] + logA
        back.append(np.argmax(cand, axis=0))
        delta = np.max(cand, axis=0) + logB[:, o]
    s = int(np.argmax(delta))
    path = [s]
    for bp in reversed(back):
        s = int(bp[s])
        path.append(s)
    path = path[::-1]
    tot = logB[path[0], obs[0]]
    for t in range(1, len(obs)):
        tot = tot + logA[path[t - 1], path[t]] + logB[path[t], obs[t]]
    return tot


add(G("r8_viterbi_backtrack_argmax_int_path", viterbi_path_score, (LA, LB, OBS), argnums=(0, 1), ref="fd"))


def forward_algorithm(logA, logB, obs):
    alpha = logB[:, obs[0]] - np.log(3.0)
    for o in obs[1:]:
        m = alpha.max()
        alpha = np.log(np.exp(alpha - m) @ np.exp(logA)) + m + logB[:, o]
    m = alpha.max()
    return m + np.log(np.sum(np.exp(alpha - m)))


add(G("r8_hmm_forward_logsumexp", forward_algorithm, (LA, LB, OBS), argnums=(0, 1), ref="jax"))


def conv_net(K1, K2, img):
    # img (C=1, H, W); valid conv via explicit patches then einsum
    H, W = img.shape[1:]
    k = K1.shape[-1]
    patches = np.stack([img[:, i:i + H - k + 1, j:j + W - k + 1] for i in range(k) for j in range(k)], axis=-1)
    h = np.einsum("chwp,ocp->ohw", patches, K1.reshape(K1.shape[0], K1.shape[1], -1))
    h = np.maximum(h, 0.0)
    pooled = h.reshape(h.shape[0], -1).mean(axis=1)
    return np.sum(np.tanh(K2 @ pooled))


IMG = rng.normal(size=(1, 6, 6))
K1 = rng.normal(size=(3, 1, 3, 3)) * 0.5
K2 = rng.normal(size=(2, 3))
add(G("r8_cnn_patches_stack_einsum_relu", conv_net, (K1, K2, IMG), argnums=(0, 1), ref="jax"))
add(G("r8_cnn_wrt_image", conv_net, (K1, K2, IMG), argnums=2, ref="jax"))


def conv1d_loop(w, x):
    k = len(w)
    out = np.zeros(len(x) - k + 1)
    for i in range(len(out)):
        out[i] = np.dot(w, x[i:i + k])
    return np.sum(np.sin(out))


add(G("r8_conv1d_item_write_dot_slices", conv1d_loop, (np.array([0.2, -0.5, 0.3]), rng.normal(size=10)), argnums=(0, 1)))


def trapezoid_param(a, n):
    xs = np.linspace(0.0, a, n)
    ys = np.exp(-xs ** 2) * np.cos(a * xs)
    return np.sum((ys[1:] + ys[:-1]) * np.diff(xs)) / 2


add(G("r8_trapezoid_linspace_endpoint_param", trapezoid_param, (1.3, 50), ref="jax"))


def simpson_loop(k):
    n = 20
    h = 1.0 / n
    s = math.exp(0.0) + math.exp(-k)
    for i in range(1, n):
        w = 4 if i % 2 else 2
        s += w * math.exp(-k * i * h)
    return s * h / 3


add(pair("r8_simpson_int_weights_closed_form", lambda: revsrc.grad(simpson_loop)(0.9),
         lambda: fd_checked(simpson_loop, (0.9,)), tol=1e-7))


def power_iteration(A, iters):
    v = np.ones(A.shape[0])
    for _ in range(iters):
        v = A @ v
        v /= np.linalg.norm(v)
    return v @ A @ v


AP = rng.normal(size=(4, 4))
AP = AP @ AP.T + np.eye(4)
add(G("r8_power_iteration_idiv_norm", power_iteration, (AP, 50), ref="jax", tol=1e-5))


def eigh_top(A):
    w, V = np.linalg.eigh(A)
    return w[-1] + np.sum(V[:, -1] ** 4)


add(G("r8_eigh_top_eigvec_quartic", eigh_top, (AP,), ref="fd", tol=1e-5))


def cholesky_logdet_quad(L_raw, y):
    L = np.tril(L_raw)
    S = L @ L.T + 0.1 * np.eye(len(y))
    C = np.linalg.cholesky(S)
    z = np.linalg.solve(C, y)
    return 0.5 * z @ z + np.sum(np.log(np.diag(C)))


add(G("r8_cholesky_solve_logdiag", cholesky_logdet_quad, (rng.normal(size=(4, 4)), rng.normal(size=4)), argnums=(0, 1), ref="jax"))


def gauss_newton_fit(theta0, t, y, iters):
    th = np.array(theta0, dtype=float)
    for _ in range(iters):
        r = th[0] * np.exp(-th[1] * t) - y
        J = np.stack([np.exp(-th[1] * t), -th[0] * t * np.exp(-th[1] * t)], axis=1)
        th = th - np.linalg.solve(J.T @ J + 1e-6 * np.eye(2), J.T @ r)
    return th[0] + th[1]


TG = np.linspace(0, 3, 12)
YG = 2.0 * np.exp(-0.8 * TG) + 0.01 * rng.normal(size=12)
add(G("r8_gauss_newton_wrt_data", gauss_newton_fit, ((1.5, 0.5), TG, YG, 8), argnums=2, ref="jax"))


def golden_section(a):
    lo, hi = 0.0, 3.0
    g = (math.sqrt(5) - 1) / 2
    while hi - lo > 1e-8:
        c = hi - g * (hi - lo)
        d = lo + g * (hi - lo)
        if (c - a) ** 2 + math.sin(c) < (d - a) ** 2 + math.sin(d):
            hi = d
        else:
            lo = c
    xm = 0.5 * (lo + hi)
    return (xm - a) ** 2 + math.sin(xm) + a * a


add(pair("r8_golden_section_piecewise_constant_argmin",
         lambda: revsrc.grad(golden_section)(1.5),
         lambda: (lambda xm: -2 * (xm - 1.5) + 3.0)(0.5 * sum(_golden_bracket(1.5))), tol=1e-12))


def _golden_bracket(a):
    lo, hi = 0.0, 3.0
    g = (math.sqrt(5) - 1) / 2
    while hi - lo > 1e-8:
        c = hi - g * (hi - lo)
        d = lo + g * (hi - lo)
        if (c - a) ** 2 + math.sin(c) < (d - a) ** 2 + math.sin(d):
            hi = d
        else:
            lo = c
    return lo, hi


def cg_solve_energy(A, b, iters):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(iters):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rsn = r @ r
        if np.sqrt(rsn) < 1e-12:
            break
        p = r + (rsn / rs) * p
        rs = rsn
    return np.sum(x)


add(G("r8_cg_with_break_wrt_b", cg_solve_energy, (AP, np.array([1.0, 2.0, -1.0, 0.5]), 10), argnums=1, tol=1e-6))


def polyfit_derivative(y):
    t = np.linspace(0, 1, len(y))
    c = np.polyfit(t, y, 2)
    return np.polyval(c, 0.5) + c[0]


add(G("r8_np_polyfit_polyval", polyfit_derivative, (rng.normal(size=7),), ref="fd"))


def interp_loss(y, xq):
    xs = np.linspace(0, 1, len(y))
    return np.sum(np.interp(xq, xs, y) ** 2)


add(G("r8_np_interp_wrt_table", interp_loss, (rng.normal(size=6), np.array([0.13, 0.5, 0.77])), ref="fd"))
add(G("r8_np_interp_wrt_query", interp_loss, (rng.normal(size=6), np.array([0.13, 0.5, 0.77])), argnums=1, ref="fd"))
