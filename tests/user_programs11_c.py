"""Round 11, part c: graphs and computational biology -- PageRank, Laplacian energies,
soft shortest paths, soft Needleman-Wunsch / Smith-Waterman, the HMM forward algorithm,
Felsenstein's pruning, as a bioinformatician or network scientist writes them."""
import math
from functools import reduce

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, agify, ag  # noqa: F401

CASES = []
add = CASES.append

ADJ = np.array([[0, 1, 1, 0, 0],
                [1, 0, 1, 1, 0],
                [0, 0, 0, 1, 1],
                [1, 0, 0, 0, 1],
                [0, 1, 0, 1, 0]], dtype=float)


# -- PageRank by power iteration, differentiated w.r.t. the edge weights ----------------

def pagerank(W, d=0.85, iters=30):
    n = W.shape[0]
    P = W / W.sum(axis=1, keepdims=True)
    r = np.full(n, 1.0 / n)
    for _ in range(iters):
        r = (1 - d) / n + d * (P.T @ r)
    return r


def pr_loss(W):
    r = pagerank(W)
    return r[0] - r[3] + 0.5 * r[4] ** 2


WE = ADJ * (1.0 + 0.1 * np.arange(25).reshape(5, 5) % 3)
add(G("r11_pagerank_weights", pr_loss, (WE,), ref="ag"))
add(G("r11_pagerank_damping", lambda d: pagerank(WE, d)[2], (0.85,), ref="fd"))


def pagerank_tol(W, d=0.85, tol=1e-10):
    n = W.shape[0]
    P = W / W.sum(axis=1, keepdims=True)
    r = np.full(n, 1.0 / n)
    while True:
        r_new = (1 - d) / n + d * (P.T @ r)
        if np.abs(r_new - r).sum() < tol:
            break
        r = r_new
    return r_new[1]


def pagerank_exact(W, d=0.85):
    n = W.shape[0]
    P = W / W.sum(axis=1, keepdims=True)
    return np.linalg.solve(np.eye(n) - d * P.T, np.full(n, (1 - d) / n))[1]


add(pair("r11_pagerank_while_true_break", lambda: revsrc.grad(pagerank_tol)(WE),
         lambda: jax().grad(jaxify(pagerank_exact))(WE), tol=1e-7))


# -- graph Laplacian energy / smoothness ------------------------------------------------

def dirichlet_energy(x, W):
    L = np.diag(W.sum(axis=1)) - W
    return x @ L @ x


XS = np.array([0.3, -1.2, 0.8, 2.0, -0.1])
WS = 0.5 * (WE + WE.T)
add(G("r11_laplacian_energy_x", dirichlet_energy, (XS, WS), ref="ag"))
add(G("r11_laplacian_energy_W", dirichlet_energy, (XS, WS), argnums=1, ref="ag"))
add(H("r11_laplacian_energy_hess", dirichlet_energy, (XS, WS), ref="ag", tol=1e-9))


def edge_energy(x, edges):
    return sum(w * (x[i] - x[j]) ** 2 for (i, j), w in edges.items())


EDGES = {(0, 1): 1.0, (1, 2): 0.5, (2, 3): 2.0, (3, 4): 0.3, (0, 4): 1.5}
add(G("r11_edge_dict_items_tuple_keys", edge_energy, (XS, EDGES), ref="ag"))


def fiedler(W):
    L = np.diag(W.sum(axis=1)) - W
    return np.linalg.eigvalsh(L)[1]


# (central differences: np.linalg.eigvalsh reads the lower triangle of L, and its
# gradient lies there; jnp's averages L with its transpose first, another function)
add(G("r11_fiedler_eigvalsh", fiedler, (WS,), ref="fd"))


# -- soft shortest paths: Bellman-Ford with a soft minimum ----------------------------

def softmin(vals, gamma):
    m = min(vals)
    return m - gamma * math.log(sum(math.exp(-(v - m) / gamma) for v in vals))


def soft_bellman_ford(cost, gamma=0.5, src=0, dst=4):
    n = len(cost)
    INF = 1e3
    dist = [0.0 if i == src else INF for i in range(n)]
    for _ in range(n - 1):
        dist = [softmin([dist[v]] + [dist[u] + cost[u][v] for u in range(n) if cost[u][v] > 0], gamma)
                for v in range(n)]
    return dist[dst]


COST = [[0.0, 1.0, 4.0, 0.0, 0.0],
        [0.0, 0.0, 2.0, 5.0, 0.0],
        [0.0, 0.0, 0.0, 1.0, 3.0],
        [0.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0, 0.0, 0.0]]
add(G("r11_soft_bellman_ford_gamma", soft_bellman_ford, (COST, 0.5), argnums=1, ref="fd"))


def soft_bf_np(C, gamma=0.5):
    n = C.shape[0]
    mask = C > 0
    dist = np.where(np.arange(n) == 0, 0.0, 1e3)
    for _ in range(n - 1):
        cand = np.where(mask, dist[:, None] + C, np.inf)
        cand = np.vstack([dist[None, :], cand])
        m = cand.min(axis=0)
        dist = m - gamma * np.log(np.sum(np.exp(-(cand - m) / gamma), axis=0))
    return dist[-1]


add(G("r11_soft_bellman_ford_np_inf", soft_bf_np, (np.array(COST),), ref="ag"))


# -- soft Needleman-Wunsch (global alignment) with logsumexp ---------------------------

def logsumexp3(a, b, c):
    m = max(a, b, c)
    return m + math.log(math.exp(a - m) + math.exp(b - m) + math.exp(c - m))


def soft_nw(S, gap):
    n, m = S.shape
    D = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        D[i][0] = i * gap
    for j in range(1, m + 1):
        D[0][j] = j * gap
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            D[i][j] = logsumexp3(D[i - 1][j - 1] + S[i - 1, j - 1], D[i - 1][j] + gap, D[i][j - 1] + gap)
    return D[n][m]


rng = np.random.default_rng(3)
SIM = rng.normal(size=(4, 5))
add(G("r11_soft_nw_lists_of_lists", soft_nw, (SIM, -1.0), ref="fd"))
add(G("r11_soft_nw_gap", soft_nw, (SIM, -1.0), argnums=1, ref="fd"))


def soft_nw_np(S, gap):
    n, m = S.shape
    D = np.zeros((n + 1, m + 1))
    D[:, 0] = gap * np.arange(n + 1)
    D[0, :] = gap * np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            v = np.array([D[i - 1, j - 1] + S[i - 1, j - 1], D[i - 1, j] + gap, D[i, j - 1] + gap])
            mx = np.max(v)
            D[i, j] = mx + np.log(np.sum(np.exp(v - mx)))
    return D[n, m]


add(pair("r11_soft_nw_array_vs_lists", lambda: revsrc.grad(soft_nw_np)(SIM, -1.0),
         lambda: revsrc.grad(soft_nw)(SIM, -1.0), tol=1e-10))
add(G("r11_soft_nw_array_fd", soft_nw_np, (SIM, -1.0), ref="fd"))


# Smith-Waterman (local): soft max including 0, total over cells
def soft_sw(S, gap=-0.8, t=0.3):
    n, m = S.shape
    H_ = np.zeros((n + 1, m + 1))
    total = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            opts = np.array([0.0, H_[i - 1, j - 1] + S[i - 1, j - 1], H_[i - 1, j] + gap, H_[i, j - 1] + gap])
            H_[i, j] = t * np.log(np.sum(np.exp(opts / t)))
            total = total + H_[i, j]
    return t * np.log(np.sum(np.exp(H_ / t)))


add(G("r11_soft_smith_waterman", soft_sw, (SIM,), ref="fd"))


# -- HMM forward algorithm (scaled), transition and emission in log space ------------

def hmm_loglik(logA, logB, logpi, obs):
    alpha = logpi + logB[:, obs[0]]
    for o in obs[1:]:
        m = np.max(alpha)
        alpha = m + np.log(np.exp(alpha - m) @ np.exp(logA)) + logB[:, o]
    m = np.max(alpha)
    return m + np.log(np.sum(np.exp(alpha - m)))


A = np.log(np.array([[0.7, 0.2, 0.1], [0.3, 0.5, 0.2], [0.2, 0.3, 0.5]]))
B = np.log(np.array([[0.5, 0.4, 0.1], [0.1, 0.3, 0.6], [0.3, 0.3, 0.4]]))
PI = np.log(np.array([0.5, 0.3, 0.2]))
OBS = [0, 2, 1, 2, 2, 0, 1]
add(G("r11_hmm_forward_logA", hmm_loglik, (A, B, PI, OBS), ref="ag"))
add(G("r11_hmm_forward_all", hmm_loglik, (A, B, PI, OBS), argnums=(0, 1, 2), ref="ag"))


def hmm_scaled(A, B, pi, obs):
    alpha = pi * B[:, obs[0]]
    c = alpha.sum()
    ll = np.log(c)
    alpha = alpha / c
    for t in range(1, len(obs)):
        alpha = (alpha @ A) * B[:, obs[t]]
        c = alpha.sum()
        ll += np.log(c)
        alpha /= c
    return ll


add(G("r11_hmm_scaled_inplace_div", hmm_scaled, (np.exp(A), np.exp(B), np.exp(PI), OBS), ref="ag"))


# -- phylogenetics: Jukes-Cantor pruning on a 3-leaf tree ------------------------------

def jc(t):
    e = math.exp(-4.0 * t / 3.0)
    same, diff = 0.25 + 0.75 * e, 0.25 - 0.25 * e
    return np.array([[same if i == j else diff for j in range(4)] for i in range(4)])


def site_lik(branch, leaves):
    t1, t2, t3, t4 = branch
    P1, P2, P3, P4 = jc(t1), jc(t2), jc(t3), jc(t4)
    onehot = np.eye(4)
    inner = (P1 @ onehot[leaves[0]]) * (P2 @ onehot[leaves[1]])
    root = (P4 @ inner) * (P3 @ onehot[leaves[2]])
    return np.log(0.25 * np.sum(root))


def phylo(branch, sites=((0, 0, 1), (2, 2, 2), (1, 3, 1), (0, 1, 2))):
    return sum(site_lik(branch, s) for s in sites)


BR = [0.1, 0.2, 0.15, 0.05]
add(G("r11_felsenstein_jc", phylo, (BR,), ref="fd"))


# -- Elo-like Bradley-Terry on graph edges with functools.reduce -----------------------

def bt_nll(s, games):
    def step(acc, g):
        i, j, won = g
        d = s[i] - s[j]
        p = 1.0 / (1.0 + math.exp(-d))
        return acc - (math.log(p) if won else math.log(1 - p))
    return reduce(step, games, 0.0)


GAMES = [(0, 1, True), (1, 2, False), (2, 0, True), (0, 2, True), (1, 0, False)]
add(G("r11_bradley_terry_reduce", bt_nll, ([0.1, -0.3, 0.4], GAMES), ref="fd"))


# -- label propagation with a fixed number of sweeps ------------------------------------

def label_prop(Y0, W, alpha=0.8, sweeps=10):
    D = W.sum(axis=1)
    S = W / np.sqrt(np.outer(D, D))
    F = Y0
    for _ in range(sweeps):
        F = alpha * S @ F + (1 - alpha) * Y0
    ex = np.exp(F - F.max(axis=1, keepdims=True))
    P = ex / ex.sum(axis=1, keepdims=True)
    return -np.sum(np.log(P[[1, 3], [0, 1]]))


Y0 = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.5, 0.5]])
add(G("r11_label_propagation_W", label_prop, (Y0, WS), argnums=1, ref="ag"))
