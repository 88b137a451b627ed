"""Round 19, part j: dynamic programming and algorithms -- soft-DTW on a filled table,
edit distance and Needleman-Wunsch alignment with a soft minimum, Bellman-Ford and
Floyd-Warshall relaxations whose result is the length of a shortest path, the HMM forward
algorithm and Viterbi, sorting networks of compare-exchange, bubble sort with swaps in
place, cumulative maxima (np.maximum.accumulate and by a loop), Sinkhorn soft sorting,
with helpers, early returns, while loops and in-place table writes."""
import functools  # noqa: F401
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(3019)
SA = np.sin(np.linspace(0, 3, 7))
SB = np.sin(np.linspace(0.3, 3.4, 6)) * 1.1


# -- soft-DTW ----------------------------------------------------------------------------

def softmin3(a, b, c, gamma):
    m = min(a, b, c)
    return m - gamma * math.log(math.exp(-(a - m) / gamma) + math.exp(-(b - m) / gamma)
                                + math.exp(-(c - m) / gamma))


def soft_dtw(x, y, gamma=0.1):
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (x[i - 1] - y[j - 1]) ** 2
            R[i, j] = cost + softmin3(R[i - 1, j], R[i, j - 1], R[i - 1, j - 1], gamma)
    return R[n, m]


add(G("r19j_soft_dtw_table_inf_border", soft_dtw, (SA, SB), ref="fd", tol=1e-7))
add(G("r19j_soft_dtw_wrt_y", soft_dtw, (SA, SB), argnums=1, ref="fd", tol=1e-7))


def soft_dtw_big_border(x, y, gamma=0.1, BIG=1e10):
    # a large finite border: d/dgamma of exp(-(inf - m) / gamma) is 0 * inf = nan in
    # every reverse-mode system (JAX and autograd too), so users write a big number
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), BIG)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            R[i, j] = (x[i - 1] - y[j - 1]) ** 2 + softmin3(R[i - 1, j], R[i, j - 1],
                                                            R[i - 1, j - 1], gamma)
    return R[n, m]


add(G("r19j_soft_dtw_wrt_gamma", soft_dtw_big_border, (SA, SB, 0.1), argnums=2, ref="fd",
      tol=1e-7))


def _sdtw_np_softmin(vals, gamma):
    v = np.array(vals)
    m = np.min(v)
    return m - gamma * np.log(np.sum(np.exp(-(v - m) / gamma)))


def soft_dtw_vec(x, y, gamma=0.5):
    D = (x[:, None] - y[None, :]) ** 2
    n, m = D.shape
    prev = np.concatenate([[0.0], np.full(m, np.inf)])
    for i in range(n):
        cur = [np.inf]
        for j in range(m):
            cur.append(D[i, j] + _sdtw_np_softmin([prev[j + 1], cur[j], prev[j]], gamma))
        prev = np.array(cur)
    return prev[-1]


add(G("r19j_soft_dtw_rows_list_append", soft_dtw_vec, (SA, SB), ref="fd", tol=1e-7))
add(H("r19j_soft_dtw_rows_hessian", soft_dtw_vec, (SA[:4], SB[:3]), ref="fd", tol=1e-5))


# -- soft edit distance / alignment --------------------------------------------------

def soft_edit_distance(sub_cost, a="kitten", b="sitting", ins=1.0, dele=1.0, gamma=0.3):
    n, m = len(a), len(b)
    D = np.zeros((n + 1, m + 1))
    D[:, 0] = np.arange(n + 1) * dele
    D[0, :] = np.arange(m + 1) * ins
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = 0.0 if a[i - 1] == b[j - 1] else sub_cost
            D[i, j] = softmin3(D[i - 1, j] + dele, D[i, j - 1] + ins, D[i - 1, j - 1] + s, gamma)
    return D[n, m]


add(G("r19j_soft_levenshtein_strings", soft_edit_distance, (1.0,), ref="fd", tol=1e-7))
add(G("r19j_soft_levenshtein_wrt_ins_del", soft_edit_distance, (1.0, "kitten", "sitting", 0.8, 1.2),
      argnums=(0, 3, 4), ref="fd", tol=1e-7))


EMB = {c: _rng.normal(size=3) for c in "ACGT"}


def needleman_wunsch_soft(gap, seq1="GATTACA", seq2="GCATGCT", temp=0.2):
    n, m = len(seq1), len(seq2)
    F = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        F[i][0] = -gap * i
    for j in range(1, m + 1):
        F[0][j] = -gap * j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            match = F[i - 1][j - 1] + float(EMB[seq1[i - 1]] @ EMB[seq2[j - 1]])
            opts = [match, F[i - 1][j] - gap, F[i][j - 1] - gap]
            mx = max(opts)
            F[i][j] = mx + temp * math.log(sum(math.exp((o - mx) / temp) for o in opts))
    return F[n][m]


add(G("r19j_needleman_wunsch_soft_nested_lists", needleman_wunsch_soft, (0.7,), ref="fd",
      tol=1e-7))


# -- shortest paths ---------------------------------------------------------------------

EDGES = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4), (3, 5), (4, 5)]
W_E = np.array([2.0, 4.5, 1.0, 7.0, 3.0, 5.5, 1.2, 2.5, 3.1])


def bellman_ford(w, src=0, n=6):
    dist = np.full(n, np.inf)
    dist[src] = 0.0
    for _ in range(n - 1):
        changed = False
        for k, (u, v) in enumerate(EDGES):
            if dist[u] + w[k] < dist[v]:
                dist[v] = dist[u] + w[k]
                changed = True
        if not changed:
            break
    return dist[n - 1]


def _bf_ref():
    # shortest 0->5: 0-1-2-3-5 = 2 + 1 + 3 + 2.5 = 8.5 ; edges 0, 2, 4, 7
    g = np.zeros(len(W_E))
    g[[0, 2, 4, 7]] = 1.0
    return g


add(pair("r19j_bellman_ford_early_break_path_indicator", lambda: revsrc.grad(bellman_ford)(W_E),
         _bf_ref, tol=0.0))


def floyd_warshall_soft(w, n=6, tau=0.05):
    D = np.full((n, n), 1e3)
    np.fill_diagonal(D, 0.0)
    for k, (u, v) in enumerate(EDGES):
        D[u, v] = w[k]
    for k in range(n):
        via = D[:, k:k + 1] + D[k:k + 1, :]
        m = np.minimum(D, via)
        D = m - tau * np.log(np.exp(-(D - m) / tau) + np.exp(-(via - m) / tau))
    return D[0, 5] + D[1, 4]


add(G("r19j_floyd_warshall_soft_fill_diagonal", floyd_warshall_soft, (W_E,), ref="fd", tol=1e-6))
add(G("r19j_floyd_warshall_soft_backend_jax", floyd_warshall_soft, (W_E,), ref="fd", tol=1e-6,
      backend="jax"))


def dijkstra_heap(w, n=6, target=5):
    import heapq
    adj = {u: [] for u in range(n)}
    for k, (u, v) in enumerate(EDGES):
        adj[u].append((v, k))
    dist = [math.inf] * n
    dist[0] = 0.0
    pq = [(0.0, 0)]
    while pq:
        d, u = heapq.heappop(pq)
        if u == target:
            return d
        if d > dist[u]:
            continue
        for v, k in adj[u]:
            nd = d + w[k]
            if nd < dist[v]:
                dist[v] = nd
                heapq.heappush(pq, (nd, v))
    return math.inf


add(pair("r19j_dijkstra_heapq_early_return", lambda: revsrc.grad(dijkstra_heap)(W_E), _bf_ref,
         tol=0.0))


# -- HMM forward algorithm and Viterbi -------------------------------------------------

A_T = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]])
OBS = [0, 2, 1, 1, 0, 2]


def hmm_loglik(logB, logA=np.log(A_T), pi=np.array([0.5, 0.3, 0.2])):
    alpha = np.log(pi) + logB[:, OBS[0]]
    for o in OBS[1:]:
        M = alpha[:, None] + logA
        mx = np.max(M, axis=0)
        alpha = mx + np.log(np.sum(np.exp(M - mx), axis=0)) + logB[:, o]
    mx = np.max(alpha)
    return mx + np.log(np.sum(np.exp(alpha - mx)))


LOGB = np.log(_rng.dirichlet(np.ones(3), size=3))
add(G("r19j_hmm_forward_logsumexp", hmm_loglik, (LOGB,), ref="jax", tol=1e-11))
add(G("r19j_hmm_forward_wrt_logA", hmm_loglik, (LOGB, np.log(A_T)), argnums=1, ref="jax",
      tol=1e-11))


def viterbi_score(logB, logA=np.log(A_T)):
    delta = np.log(np.array([0.5, 0.3, 0.2])) + logB[:, OBS[0]]
    back = []
    for o in OBS[1:]:
        M = delta[:, None] + logA
        back.append(np.argmax(M, axis=0))
        delta = np.max(M, axis=0) + logB[:, o]
    best = int(np.argmax(delta))
    path = [best]
    for bp in reversed(back):
        path.append(int(bp[path[-1]]))
    return np.max(delta), path[::-1]


def viterbi_loss(logB):
    score, path = viterbi_score(logB)
    return score + 0.0 * len(path)


add(G("r19j_viterbi_max_backtrack", viterbi_loss, (LOGB,), ref="ag", tol=1e-12))
add(G("r19j_viterbi_has_aux_path", viterbi_score, (LOGB,), ref=lambda: (
    ag()[0].grad(agify(viterbi_loss))(LOGB), viterbi_score(LOGB)[1]), tol=1e-12, has_aux=True))


# -- sorting networks and sorts ----------------------------------------------------------

NET4 = ((0, 1), (2, 3), (0, 2), (1, 3), (1, 2))


def sort_network(x):
    v = list(x)
    for i, j in NET4:
        lo, hi = min(v[i], v[j]), max(v[i], v[j])
        v[i], v[j] = lo, hi
    return v


def weighted_order_stat(x):
    s = sort_network(x)
    return sum(w * si for w, si in zip((0.1, 0.2, 0.3, 0.4), s))


X4 = np.array([0.7, -0.3, 1.9, 0.2])
add(G("r19j_sorting_network_min_max", weighted_order_stat, (X4,),
      ref=lambda: np.array([0.3, 0.1, 0.4, 0.2]), tol=1e-15))


def bubble_sort_inplace(x):
    a = x.copy()
    n = len(a)
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
                swapped = True
        if not swapped:
            break
    return a @ np.arange(1.0, n + 1)


add(G("r19j_bubble_sort_tuple_swap_inplace", bubble_sort_inplace, (X4,),
      ref=lambda: np.array([3.0, 1.0, 4.0, 2.0]), tol=1e-15))


def soft_sort_sinkhorn(x, eps=0.1, iters=60):
    n = len(x)
    y = np.linspace(0.0, 1.0, n)
    C = (x[:, None] - y[None, :]) ** 2
    K = np.exp(-C / eps)
    u = np.ones(n)
    for _ in range(iters):
        v = (1.0 / n) / (K.T @ u)
        u = (1.0 / n) / (K @ v)
    P = u[:, None] * K * v[None, :]
    soft_ranks = n * (P @ np.arange(1.0, n + 1)) / n
    return soft_ranks @ np.array([1.0, -1.0, 0.5, 2.0])


add(G("r19j_sinkhorn_soft_rank", soft_sort_sinkhorn, (np.array([0.7, 0.1, 0.9, 0.35]),),
      ref="jax", tol=1e-9))


# -- cumulative maxima ----------------------------------------------------------------

PRICES = np.array([1.0, 1.3, 1.1, 1.6, 1.2, 1.5, 0.9, 1.7])


def max_drawdown_accumulate(p):
    peak = np.maximum.accumulate(p)
    return np.max((peak - p) / peak)


def max_drawdown_loop(p):
    peak = p[0]
    worst = 0.0
    for v in p[1:]:
        peak = max(peak, v)
        worst = max(worst, (peak - v) / peak)
    return worst


add(G("r19j_max_drawdown_maximum_accumulate", max_drawdown_accumulate, (PRICES,), ref="fd",
      tol=1e-8))
add(G("r19j_max_drawdown_loop_max", max_drawdown_loop, (PRICES,), ref="fd", tol=1e-8))


def running_max_writes(x):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = x[i] if x[i] > out[i - 1] else out[i - 1]
    return np.sum(out * np.linspace(1.0, 2.0, len(x)))


add(G("r19j_running_max_out_writes", running_max_writes, (PRICES,), ref="fd", tol=1e-8))


def soft_cummax(x, tau=0.05):
    out = [x[0]]
    for v in x[1:]:
        out.append(tau * np.logaddexp(out[-1] / tau, v / tau))
    return np.sum(np.array(out))


add(G("r19j_soft_cummax_logaddexp", soft_cummax, (PRICES,), ref="jax", tol=1e-10))
add(H("r19j_soft_cummax_hessian", soft_cummax, (PRICES[:5],), ref="jax", tol=1e-8))


# -- knapsack value by a smoothed DP -------------------------------------------------

def soft_knapsack(values, weights=(2, 3, 4, 5), cap=8, tau=0.1):
    best = np.zeros(cap + 1)
    for v, w in zip(values, weights):
        new = best.copy()
        new[w:] = tau * np.logaddexp(best[w:] / tau, (best[:-w] + v) / tau) if w else best
        best = new
    return best[cap]


add(G("r19j_soft_knapsack_slices", soft_knapsack, (np.array([3.0, 4.0, 5.5, 6.0]),), ref="fd",
      tol=1e-7))
add(G("r19j_soft_dtw_backend_jax", soft_dtw_vec, (SA, SB), ref="fd", tol=1e-7, backend="jax"))
add(G("r19j_hmm_forward_backend_jax", hmm_loglik, (LOGB,), ref="jax", tol=1e-11, backend="jax"))


# -- more: ufunc reductions and .at updates ------------------------------------------------

def logaddexp_reduce_lse(x):
    return np.logaddexp.reduce(x * 2.0) / 2.0


add(G("r19j_logaddexp_reduce_ufunc", logaddexp_reduce_lse, (PRICES,), ref="fd", tol=1e-8))


def bellman_ford_minimum_at(w, n=6):
    dist = np.full(n, 1e9)
    dist[0] = 0.0
    us = np.array([u for u, _ in EDGES])
    vs = np.array([v for _, v in EDGES])
    for _ in range(n - 1):
        np.minimum.at(dist, vs, dist[us] + w)
    return dist[5]


add(G("r19j_bellman_ford_minimum_at", bellman_ford_minimum_at, (W_E,), ref=_bf_ref, tol=1e-12))


def edge_flow_balance(flow, n=6):
    net = np.zeros(n)
    us = np.array([u for u, _ in EDGES])
    vs = np.array([v for _, v in EDGES])
    np.add.at(net, us, -flow)
    np.add.at(net, vs, flow)
    supply = np.array([-1.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    return np.sum((net - supply) ** 2) + 0.1 * np.sum(flow ** 2 * W_E)


add(G("r19j_min_cost_flow_penalty_add_at", edge_flow_balance, (0.3 * np.ones(9),), ref="fd",
      tol=1e-8))


def soft_lcs_early_exit(x, y, tau=0.2, tol=1e-3):
    n, m = len(x), len(y)
    L = np.zeros((n + 1, m + 1))
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sim = math.exp(-(x[i - 1] - y[j - 1]) ** 2 / 0.1)
            opts = (L[i - 1, j], L[i, j - 1], L[i - 1, j - 1] + sim)
            mx = max(opts)
            L[i, j] = mx + tau * math.log(sum(math.exp((o - mx) / tau) for o in opts))
        if L[i, m] > 50.0:
            return L[i, m]
    return L[n, m]


add(G("r19j_soft_lcs_genexp_in_log", soft_lcs_early_exit, (SA, SB), ref="fd", tol=1e-7))


def rank_weighted(x):
    order = np.argsort(x)
    ranks = np.empty(len(x), dtype=int)
    ranks[order] = np.arange(len(x))
    return np.sum(x * (ranks + 1.0) / len(x))


add(G("r19j_rank_weighted_sum_argsort_inverse", rank_weighted, (X4,),
      ref=lambda: (np.argsort(np.argsort(X4)) + 1.0) / 4, tol=1e-15))


def take_along_topk(scores, k=2):
    idx = np.argsort(-scores, axis=1)[:, :k]
    top = np.take_along_axis(scores, idx, axis=1)
    return np.sum(np.log1p(np.exp(top)))


add(G("r19j_take_along_axis_topk", take_along_topk, (_rng.normal(size=(3, 4)),), ref="fd",
      tol=1e-8))
