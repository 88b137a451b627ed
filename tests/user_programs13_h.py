"""Round 13, part h: optimisation inside the loss -- inner gradient descent, Newton loops,
line search with while, projection with np.clip, argmin picked by argmin/sort/argsort/
take_along_axis."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
A2 = np.array([[3.0, 0.5], [0.5, 1.0]])


def inner_gd(theta, steps=50, lr=0.2):
    x = np.zeros(2)
    for _ in range(steps):
        g = A2 @ x - theta
        x = x - lr * g
    return np.sum(x ** 2)


def inner_gd_closed(theta):
    x = np.linalg.solve(A2, theta)
    return np.sum(x ** 2)


TH = np.array([1.0, -0.5])
add(VG("r13_inner_gd_unrolled", inner_gd, (TH,), ref="ag", tol=1e-9))
add(pair("r13_inner_gd_near_closed", lambda: revsrc.grad(inner_gd)(TH), lambda: revsrc.grad(inner_gd_closed)(TH), tol=1e-3))
add(H("r13_inner_gd_hessian", inner_gd, (TH,), ref="ag", tol=1e-8))


def inner_gd_revsrc(theta, steps=30, lr=0.2):
    x = np.zeros(2)
    for _ in range(steps):
        x = x - lr * revsrc.grad(lambda z: 0.5 * z @ A2 @ z - theta @ z)(x)
    return np.sum(x ** 2)


add(G("r13_inner_gd_with_revsrc_grad_lambda", inner_gd_revsrc, (TH,), ref=lambda: ag()[0].grad(
    lambda t: agify(inner_gd)(t, steps=30))(TH), tol=1e-9))


def newton_sqrt(a):
    x = a if a > 1 else 1.0
    while abs(x * x - a) > 1e-14 * a:
        x = 0.5 * (x + a / x)
    return x


add(pair("r13_newton_sqrt_while", lambda: revsrc.grad(newton_sqrt)(7.0), lambda: 0.5 / math.sqrt(7.0), tol=1e-9))
add(pair("r13_newton_sqrt_small", lambda: revsrc.grad(newton_sqrt)(0.04), lambda: 0.5 / 0.2, tol=1e-8))
add(pair("r13_newton_sqrt_vmap", lambda: revsrc.vmap(revsrc.grad(newton_sqrt))(np.array([0.5, 2.0, 9.0])),
         lambda: 0.5 / np.sqrt(np.array([0.5, 2.0, 9.0])), tol=1e-8))


def backtracking(x, d):
    f = lambda z: np.sum(z ** 4) + np.sum(z ** 2)  # noqa: E731
    g = 4 * x ** 3 + 2 * x
    t = 1.0
    while f(x + t * d) > f(x) + 1e-4 * t * (g @ d):
        t *= 0.5
    return f(x + t * d)


X0, D0 = np.array([1.0, -0.7]), np.array([-3.0, 2.0])
add(G("r13_backtracking_line_search", backtracking, (X0, D0), argnums=(0, 1), ref="fd"))


def projected_gd(c, lo=0.0, hi=1.0, steps=40):
    x = np.full(3, 0.5)
    for _ in range(steps):
        x = np.clip(x - 0.3 * (x - c), lo, hi)
    return np.sum(x * np.array([1.0, 2.0, 3.0]))


C3 = np.array([0.4, 1.7, -0.3])
add(G("r13_projected_gd_clip", projected_gd, (C3,), ref=lambda: np.array([1.0 - 0.7 ** 40, 0.0, 0.0]), tol=1e-10))


def pick_best(centers, x):
    d = np.sum((centers - x) ** 2, axis=1)
    k = np.argmin(d)
    return d[k]


CS = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, -1.0]])
add(G("r13_argmin_pick", pick_best, (CS, np.array([0.8, 0.7])), argnums=(0, 1), ref="fd"))


def trimmed_mean(x, trim=2):
    s = np.sort(x)
    return np.mean(s[trim:-trim])


XT = np.array([3.0, -1.0, 0.5, 8.0, 2.2, -4.0, 1.1])
add(G("r13_sort_trimmed_mean", trimmed_mean, (XT,), ref="fd"))


def argsort_weighted(x):
    idx = np.argsort(x)
    w = np.arange(1, len(x) + 1)
    return np.sum(x[idx] * w)


add(G("r13_argsort_rank_weights", argsort_weighted, (XT,), ref="fd"))


def take_along_min(M):
    idx = np.argmin(M, axis=1)[:, None]
    return np.sum(np.take_along_axis(M, idx, axis=1) ** 2)


MT = np.array([[1.0, -0.5, 2.0], [0.3, 0.8, 0.1], [-2.0, 1.0, 0.0]])
add(G("r13_take_along_axis_argmin", take_along_min, (MT,), ref="fd"))


def newton_root_cubic(c):
    x = 1.0
    for _ in range(60):
        fx = x ** 3 + c * x - 3.0
        if abs(fx) < 1e-15:
            break
        x -= fx / (3 * x * x + c)
    return x


def dx_dc(c):
    x = newton_root_cubic(c)
    return -x / (3 * x * x + c)


add(pair("r13_newton_cubic_implicit", lambda: revsrc.grad(newton_root_cubic)(1.5), lambda: dx_dc(1.5), tol=1e-9))
add(pair("r13_newton_cubic_jit_vmap_grad", lambda: revsrc.jit(revsrc.vmap(revsrc.grad(newton_root_cubic)))(np.array([0.5, 1.5, 4.0])),
         lambda: np.array([dx_dc(c) for c in (0.5, 1.5, 4.0)]), tol=1e-9))


def bilevel(lam, X, y, steps=25):
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        w = w - 0.1 * (X.T @ (X @ w - y) / len(y) + lam * w)
    r = X @ w - y
    return r @ r


RX = np.random.default_rng(3).normal(size=(6, 3))
RY = np.random.default_rng(4).normal(size=6)
add(VG("r13_bilevel_ridge_lambda", bilevel, (0.3, RX, RY), ref="ag", tol=1e-9))
add(pair("r13_bilevel_grad_of_grad", lambda: revsrc.grad(revsrc.grad(bilevel))(0.3, RX, RY),
         lambda: ag()[0].grad(ag()[0].grad(agify(bilevel)))(0.3, RX, RY), tol=1e-8))


def golden_section(a):
    lo, hi = 0.0, 3.0
    phi = (math.sqrt(5) - 1) / 2
    while hi - lo > 1e-10:
        m1 = hi - phi * (hi - lo)
        m2 = lo + phi * (hi - lo)
        if (m1 - a) ** 2 + 0.1 * m1 < (m2 - a) ** 2 + 0.1 * m2:
            hi = m2
        else:
            lo = m1
    xs = 0.5 * (lo + hi)
    return (xs - a) ** 2 + 0.1 * xs


# the minimiser's value f(x*(a)) = 0.1 a - 0.0025; df/da = 0.1 (x* held constant
# since revsrc differentiates the bracket arithmetic: lo, hi do not depend on a)
add(pair("r13_golden_section_envelope", lambda: revsrc.grad(golden_section)(1.2), lambda: 0.1, tol=1e-6))
