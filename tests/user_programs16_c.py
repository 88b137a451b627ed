"""Round 16, part c: economics and games -- utility maximization by Newton in a while
loop, logit choice with temperature, auctions with np.sort / argsort, dynamic programming
over small grids with max()."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def demand_newton(p, income=10.0, a=0.3):
    # Cobb-Douglas utility on the budget line, argmax by Newton on the share of good 1
    s = 0.5
    it = 0
    while it < 50:
        g = a / s - (1 - a) / (1 - s)
        h = -a / s ** 2 - (1 - a) / (1 - s) ** 2
        step = g / h
        s = s - step
        it += 1
        if abs(step) < 1e-14:
            break
    x1 = s * income / p
    return x1


# x1 = a * income / p: the implicit function's derivative is -a income / p^2
add(VG("r16_demand_newton_while_break_vg", demand_newton, (2.0,), ref=lambda: -0.3 * 10.0 / 4.0, tol=1e-12))
add(G("r16_demand_newton_wrt_a", demand_newton, (2.0, 10.0, 0.3), argnums=2, ref=lambda: 10.0 / 2.0, tol=1e-9))


def ces_newton(p1, rho=0.5, m=10.0):
    # CES utility: find x1 maximizing u(x1, (m - p1 x1)) by Newton on the FOC
    x = m / (2 * p1)
    for _ in range(60):
        x2 = m - p1 * x
        g = x ** (rho - 1) - p1 * x2 ** (rho - 1)
        dg = (rho - 1) * x ** (rho - 2) + p1 * p1 * (rho - 1) * x2 ** (rho - 2)
        x = x - g / dg
    return x


def ces_closed(p1, rho=0.5, m=10.0):
    r = 1.0 / (rho - 1.0)
    return m * p1 ** r / (1 + p1 ** (1 + r))


add(G("r16_ces_newton_for_unrolled", ces_newton, (1.5,), ref=lambda: ag()[0].grad(agify(ces_closed))(1.5), tol=1e-8))


def logit_share(u, tau=0.7):
    z = u / tau
    z = z - np.max(z)
    e = np.exp(z)
    return e / np.sum(e)


U = np.array([1.0, 0.4, -0.3, 0.9])
add(pair("r16_logit_jacrev_temp", lambda: revsrc.jacrev(logit_share)(U),
         lambda: (np.diag(logit_share(U)) - np.outer(logit_share(U), logit_share(U))) / 0.7, tol=1e-12))
add(pair("r16_logit_jacfwd_wrt_tau", lambda: revsrc.jacfwd(logit_share, argnums=1)(U, 0.7),
         lambda: fdj(lambda t: logit_share(U, float(t)), 0.7), tol=1e-7))


def logit_loglik(beta, X, choice):
    ll = 0.0
    for n in range(X.shape[0]):
        v = X[n] @ beta
        ll += v[choice[n]] - math.log(np.sum(np.exp(v)))
    return ll


XL = np.random.default_rng(0).normal(size=(5, 3, 2))
CH = np.array([0, 2, 1, 1, 0])
add(VG("r16_logit_loglik_int_index_vg", logit_loglik, (np.array([0.5, -0.2]), XL, CH), ref="ag", tol=1e-10))
add(H("r16_logit_loglik_hessian", logit_loglik, (np.array([0.5, -0.2]), XL, CH), ref="ag", tol=1e-9))


def second_price_revenue(bids, reserve=0.3):
    s = np.sort(bids)
    second = s[-2]
    return max(second, reserve)


B = np.array([0.5, 0.9, 0.2, 0.7])
add(G("r16_second_price_np_sort", second_price_revenue, (B,), ref=lambda: np.array([0.0, 0.0, 0.0, 1.0]), tol=1e-14))
add(G("r16_second_price_reserve_binds", second_price_revenue, (B * 0.3, 0.3), argnums=1, ref=lambda: 1.0, tol=1e-14))


def argsort_payments(values, w=(1.0, 0.6, 0.3)):
    # position auction: sorted by value, each slot pays the next value times a weight
    idx = np.argsort(-values)
    v = values[idx]
    pay = 0.0
    for k in range(len(w)):
        pay += w[k] * v[k + 1]
    return pay


VV = np.array([0.4, 1.3, 0.8, 0.1, 1.0])
add(G("r16_gsp_argsort_gather", argsort_payments, (VV,), ref="fd", tol=1e-8))


def value_iteration(r, gamma=0.9, iters=60):
    # 3 states, 2 actions, deterministic transitions; r[s, a]
    nxt = ((0, 1), (2, 0), (1, 2))
    V = [0.0, 0.0, 0.0]
    for _ in range(iters):
        V = [max(r[s, a] + gamma * V[nxt[s][a]] for a in range(2)) for s in range(3)]
    return V[0] + V[1] + V[2]


R = np.array([[0.1, 0.5], [1.0, 0.2], [0.3, 0.4]])
add(VG("r16_value_iteration_max_generator_vg", value_iteration, (R,), ref="fd", tol=1e-7))


def soft_value_iteration(r, beta=5.0, gamma=0.8, iters=40):
    nxt = np.array([[0, 1], [2, 0], [1, 2]])
    V = np.zeros(3)
    for _ in range(iters):
        Q = r + gamma * V[nxt]
        m = np.max(Q, axis=1, keepdims=True)
        V = (m + np.log(np.sum(np.exp(beta * (Q - m)), axis=1, keepdims=True)) / beta)[:, 0]
    return V @ np.array([1.0, 2.0, 3.0])


add(VG("r16_soft_value_iteration_vg", soft_value_iteration, (R,), ref="ag", tol=1e-10))
add(H("r16_soft_value_iteration_hessian_beta", lambda b: soft_value_iteration(R, b), (5.0,), ref="ag", tol=1e-8))


def cournot_equilibrium(c, a=10.0, b=1.0, n_iter=100):
    # best-response iteration for a 3-firm Cournot game with clipping at zero
    q = np.ones(3)
    for _ in range(n_iter):
        for i in range(3):
            others = np.sum(q) - q[i]
            q[i] = max((a - c[i] - b * others) / (2 * b), 0.0)
    return q


C3 = np.array([1.0, 2.0, 3.0])
add(pair("r16_cournot_best_response_jacrev", lambda: revsrc.jacrev(cournot_equilibrium)(C3),
         lambda: fdj(cournot_equilibrium, C3), tol=1e-6))


def bellman_consumption(beta, grid=(0.5, 1.0, 1.5, 2.0), R_=1.05, T=6):
    # finite-horizon cake eating on a grid, log utility, max over choices
    n = len(grid)
    V = [math.log(g) for g in grid]
    for _ in range(T):
        newV = []
        for i in range(n):
            best = -1e9
            for j in range(n):
                c = grid[i] * R_ - grid[j] * 0.5
                if c > 0.0:
                    best = max(best, math.log(c) + beta * V[j])
            newV.append(best)
        V = newV
    return sum(V)


add(VG("r16_bellman_grid_nested_max_vg", bellman_consumption, (0.95,), ref="fd", tol=1e-7))
add(pair("r16_bellman_vmap_betas", lambda: revsrc.vmap(bellman_consumption)(np.array([0.9, 0.95, 0.99])),
         lambda: np.array([bellman_consumption(b) for b in (0.9, 0.95, 0.99)]), tol=0.0))
add(pair("r16_bellman_vmap_grad_betas", lambda: revsrc.vmap(revsrc.grad(bellman_consumption))(np.array([0.9, 0.95, 0.99])),
         lambda: np.array([fd_checked(bellman_consumption, (b,))[0] for b in (0.9, 0.95, 0.99)]), tol=1e-7))


def nash_bargaining_newton(w):
    # maximize log(x - d1) + w log(1 - x - d2) by Newton in a while loop with a tolerance
    d1, d2 = 0.1, 0.2
    x = 0.4
    g = 1.0
    while abs(g) > 1e-13:
        g = 1 / (x - d1) - w / (1 - x - d2)
        h = -1 / (x - d1) ** 2 - w / (1 - x - d2) ** 2
        x = x - g / h
    return x


# x = (0.8 + 0.1 w) / (1 + w) ... closed: x = d1 + (1 - d1 - d2) / (1 + w)
add(VG("r16_nash_bargaining_while_vg", nash_bargaining_newton, (1.5,), ref=lambda: -0.7 / 2.5 ** 2, tol=1e-10))
add(pair("r16_nash_bargaining_jit_exact", lambda: revsrc.jit(nash_bargaining_newton)(1.5),
         lambda: nash_bargaining_newton(1.5), tol=0.0))
