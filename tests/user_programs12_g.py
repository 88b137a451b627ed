"""Round 12, part g: traffic, networks and game theory -- LWR traffic flow, logit
equilibria, fictitious play with softmax, Wardrop costs, PageRank."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


def lwr_godunov(rho0, vmax=1.0, rmax=1.0, dx=0.1, dt=0.04, steps=15):
    rho = rho0.copy()
    rc = rmax / 2
    def flux(r):
        return vmax * r * (1 - r / rmax)
    for _ in range(steps):
        rl, rr = rho[:-1], rho[1:]
        demand = np.where(rl < rc, flux(rl), flux(rc))
        supply = np.where(rr > rc, flux(rr), flux(rc))
        F = np.minimum(demand, supply)
        new = rho.copy()
        new[1:-1] = rho[1:-1] - dt / dx * (F[1:] - F[:-1])
        rho = new
    return np.sum(rho ** 2)


RHO0 = 0.3 + 0.4 * np.exp(-((np.arange(12) - 4.0) / 2.0) ** 2)
add(G("r12_lwr_godunov_where_min", lwr_godunov, (RHO0,), ref="fd", tol=1e-6))
add(G("r12_lwr_vmax", lwr_godunov, (RHO0, 1.1), argnums=1, ref="fd", tol=1e-6))


def logit_equilibrium(payoff, lam, iters=200):
    # quantal response equilibrium of a 2x2 game by damped fixed point
    A, B = payoff
    p = np.array([0.5, 0.5])
    q = np.array([0.5, 0.5])
    for _ in range(iters):
        up = A @ q
        uq = B.T @ p
        pn = np.exp(lam * up) / np.sum(np.exp(lam * up))
        qn = np.exp(lam * uq) / np.sum(np.exp(lam * uq))
        p = 0.5 * p + 0.5 * pn
        q = 0.5 * q + 0.5 * qn
    return p[0] * q[1]


AA = np.array([[3.0, 0.0], [5.0, 1.0]])
BB = np.array([[3.0, 5.0], [0.0, 1.0]])
add(G("r12_qre_fixed_point_lambda", logit_equilibrium, ((AA, BB), 0.7), argnums=1, ref="fd", tol=1e-6))
add(G("r12_qre_payoff_tuple", logit_equilibrium, ((AA, BB), 0.7), argnums=0, ref="ag", tol=1e-8))


def fictitious_play(logits, T=30, tau=0.3):
    A = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    belief = np.exp(logits) / np.sum(np.exp(logits))
    counts = belief.copy()
    for t in range(1, T):
        u = A @ (counts / t)
        br = np.exp(u / tau)
        br /= br.sum()
        counts += br
    return np.sum((counts / T) * np.array([1.0, 2.0, 3.0]))


add(G("r12_fictitious_play_softmax_inplace", fictitious_play, (np.array([0.2, -0.1, 0.4]),), ref="fd", tol=1e-7))


def wardrop_cost(flows, a=np.array([1.0, 2.0, 1.5]), b=np.array([0.5, 0.1, 0.3])):
    # Beckmann potential of BPR-ish link costs
    return np.sum(a * flows + b * flows ** 5 / 5)


def wardrop_solve(demand, iters=80, step=0.05):
    f = np.full(3, demand / 3)
    for _ in range(iters):
        c = revsrc.grad(wardrop_cost)(f)
        f = f * np.exp(-step * c)
        f = demand * f / np.sum(f)
    return np.sum(f * (np.array([1.0, 2.0, 1.5]) + np.array([0.5, 0.1, 0.3]) * f ** 4))


def wardrop_solve_plain(demand, iters=80, step=0.05):
    f = np.full(3, demand / 3)
    for _ in range(iters):
        c = np.array([1.0, 2.0, 1.5]) + np.array([0.5, 0.1, 0.3]) * f ** 4
        f = f * np.exp(-step * c)
        f = demand * f / np.sum(f)
    return np.sum(f * (np.array([1.0, 2.0, 1.5]) + np.array([0.5, 0.1, 0.3]) * f ** 4))


add(pair("r12_wardrop_grad_inside_grad", lambda: revsrc.grad(wardrop_solve)(2.0),
         lambda: fd_checked(wardrop_solve_plain, (2.0,))[0], tol=1e-6))


def pagerank(W, d=0.85, tol=1e-12):
    n = W.shape[0]
    P = W / W.sum(axis=0, keepdims=True)
    r = np.ones(n) / n
    while True:
        rn = (1 - d) / n + d * P @ r
        if np.max(np.abs(rn - r)) < tol:
            break
        r = rn
    return rn[0]


WG = np.array([[0.0, 1.0, 1.0, 0.5], [1.0, 0.0, 0.3, 1.0], [0.2, 1.0, 0.0, 1.0], [1.0, 0.4, 1.0, 0.0]])


def pagerank_ref():
    n = 4
    def f(W):
        P = W / W.sum(axis=0, keepdims=True)
        return np.linalg.solve(np.eye(n) - 0.85 * P, np.full(n, 0.15 / n))[0]
    return fd_checked(f, (WG,))


add(pair("r12_pagerank_while_converged", lambda: revsrc.grad(pagerank)(WG), pagerank_ref, tol=1e-6))
add(pair("r12_pagerank_damping", lambda: revsrc.grad(pagerank, argnums=1)(WG, 0.85),
         lambda: fd_checked(pagerank, (WG, 0.85), argnums=1)[0], tol=1e-6))


def shortest_path_softmin(w, gamma=0.1):
    # soft Bellman-Ford on a 5-node DAG stored as an edge list
    edges = [(0, 1, 0), (0, 2, 1), (1, 3, 2), (2, 3, 3), (1, 2, 4), (3, 4, 5), (2, 4, 6)]
    INF = 1e9
    dist = [0.0, INF, INF, INF, INF]
    for _ in range(4):
        new = list(dist)
        for v in range(1, 5):
            cands = [dist[u] + w[k] for (u, vv, k) in edges if vv == v and dist[u] < INF]
            if cands:
                m = min(cands)
                new[v] = m - gamma * math.log(sum(math.exp(-(c - m) / gamma) for c in cands))
        dist = new
    return dist[4]


WE = np.array([1.0, 1.2, 0.7, 0.5, 0.3, 1.1, 2.0])
add(G("r12_soft_bellman_ford_lists", shortest_path_softmin, (WE,), ref="fd", tol=1e-6))


def replicator(x0, A, steps=40, dt=0.05):
    x = x0
    for _ in range(steps):
        f = A @ x
        x = x + dt * x * (f - x @ f)
    return x


AR = np.array([[0.0, 2.0, -1.0], [-1.0, 0.0, 2.0], [2.0, -1.0, 0.0]])
X0 = np.array([0.5, 0.3, 0.2])
add(pair("r12_replicator_jacrev", lambda: revsrc.jacrev(replicator)(X0, AR), lambda: fdj(lambda x: replicator(x, AR), X0), tol=1e-6))
add(pair("r12_replicator_linearize", lambda: revsrc.linearize(replicator, X0, AR)[1](np.array([1.0, -1.0, 0.0]), np.zeros((3, 3))),
         lambda: fdj(lambda x: replicator(x, AR), X0) @ np.array([1.0, -1.0, 0.0]), tol=1e-6))


def braess_travel_time(demand, toll):
    # two routes plus a shortcut; split by logit choice (stochastic user equilibrium)
    f = np.array([demand / 3] * 3)
    for _ in range(60):
        t = np.array([f[0] / 100 + 45, 45 + f[1] / 100, f[2] / 100 * 2 + toll])
        p = np.exp(-t / 5.0)
        f = 0.8 * f + 0.2 * demand * p / p.sum()
    return f @ t


add(G("r12_braess_logit_list_to_array", braess_travel_time, (4000.0, 30.0), argnums=(0, 1), ref="fd", tol=1e-5, h=1e-3))


def nash_bargain(x, d1=0.2, d2=0.1):
    u1 = math.sqrt(x)
    u2 = 1.0 - x
    return math.log(u1 - d1) + math.log(u2 - d2)


add(pair("r12_nash_bargain_newton_hessian", lambda: revsrc.hessian(nash_bargain)(0.4),
         lambda: fd_checked(revsrc.grad(nash_bargain) if False else (lambda x: (0.5 / math.sqrt(x)) / (math.sqrt(x) - 0.2) - 1 / (0.9 - x)), (0.4,))[0], tol=1e-6))
