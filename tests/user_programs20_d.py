"""Round 20, part d: operations research -- newsvendor costs with min/max over sampled
demand, (s, S) inventory simulations with branches, EOQ, Erlang B/C and M/M/1 queueing
formulas, Jackson networks by np.linalg.solve, log-barrier LPs solved by Newton (the
envelope theorem as reference), Sinkhorn transport, weighted tardiness, makespan,
fractional knapsack with an argsort and an early break, logit pricing."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

DEMAND = np.array([12.3, 8.1, 15.7, 10.2, 9.9, 13.4, 7.6, 11.8, 14.9, 10.7])
PRICE, COST, SALVAGE, SHORTAGE = 5.0, 2.0, 0.5, 1.0


# ---------------------------------------------------------------- newsvendor
def newsvendor_profit(q, demand=DEMAND):
    sold = np.minimum(q, demand)
    left = np.maximum(q - demand, 0.0)
    short = np.maximum(demand - q, 0.0)
    return np.mean(PRICE * sold + SALVAGE * left - SHORTAGE * short) - COST * q


add(G("r20d_newsvendor_minimum_maximum", newsvendor_profit, (11.0,), ref="jax", tol=1e-12))
# critical fractile: d profit/dq = (p - c + s_b) - (p - v + s_b) F(q)
add(pair("r20d_newsvendor_fractile_closed_form", lambda: revsrc.grad(newsvendor_profit)(11.0),
         lambda: (PRICE - COST + SHORTAGE) - (PRICE - SALVAGE + SHORTAGE) * np.mean(DEMAND < 11.0), tol=1e-12))


def newsvendor_builtin(q, demand):
    total = sum(PRICE * min(q, d) + SALVAGE * max(q - d, 0.0) - SHORTAGE * max(d - q, 0.0) for d in demand)
    return total / len(demand) - COST * q


add(pair("r20d_newsvendor_builtin_min_max_generator", lambda: revsrc.grad(newsvendor_builtin)(11.0, list(DEMAND)),
         lambda: revsrc.grad(newsvendor_profit)(11.0), tol=1e-12))


def smooth_newsvendor(q, beta=4.0):
    sp = lambda z: np.logaddexp(0.0, beta * z) / beta  # noqa: E731
    return np.mean(PRICE * (q - sp(q - DEMAND)) + SALVAGE * sp(q - DEMAND) - SHORTAGE * sp(DEMAND - q)) - COST * q


add(G("r20d_smooth_newsvendor_logaddexp_lambda", smooth_newsvendor, (11.0,), ref="jax", tol=1e-12))
add(pair("r20d_smooth_newsvendor_second_derivative", lambda: revsrc.grad(revsrc.grad(smooth_newsvendor))(11.0),
         lambda: jax().grad(jax().grad(jaxify(smooth_newsvendor)))(11.0), tol=1e-10))
add(G("r20d_newsvendor_empty_demand_like_jax", newsvendor_profit, (11.0, np.zeros(0)), ref="jax", tol=1e-12))


# ---------------------------------------------------------------- (s, S) inventory
WEEKLY = np.array([20.0, 35.0, 15.0, 40.0, 25.0, 30.0, 10.0, 45.0, 20.0, 30.0])


def sS_cost(policy, demand=WEEKLY, h=0.2, b=2.0, K=30.0):
    s, S = policy
    inv = S
    cost = 0.0
    for d in demand:
        if inv < s:
            cost += K + 1.0 * (S - inv)
            inv = S
        inv -= d
        cost += h * inv if inv > 0 else -b * inv
    return cost


add(pair("r20d_sS_policy_branches_ag", lambda: revsrc.grad(sS_cost)((25.0, 80.0)),
         lambda: ag()[0].grad(agify(sS_cost))((25.0, 80.0)), tol=1e-10))
add(VG("r20d_sS_policy_vg_ag", sS_cost, ((25.0, 80.0),), ref="ag", tol=1e-10))


def eoq_cost(Q, D=1200.0, K=50.0, h=2.5):
    return K * D / Q + 0.5 * h * Q


# at the EOQ the derivative is zero and the second derivative is 2 K D / Q^3
Q_STAR = math.sqrt(2 * 1200.0 * 50.0 / 2.5)
add(pair("r20d_eoq_stationary", lambda: revsrc.grad(eoq_cost)(Q_STAR), lambda: 0.0, tol=1e-10))
add(pair("r20d_eoq_curvature", lambda: revsrc.hessian(eoq_cost)(Q_STAR), lambda: 2 * 1200.0 * 50.0 / Q_STAR ** 3, tol=1e-12))


# ---------------------------------------------------------------- queueing
def erlang_b(A, c):
    B = 1.0
    for k in range(1, c + 1):
        B = A * B / (k + A * B)
    return B


def erlang_c_wait(lam, mu=1.0, c=5):
    A = lam / mu
    B = erlang_b(A, c)
    rho = A / c
    C = B / (1 - rho + rho * B)
    return C / (c * mu - lam)


FACT = (1.0, 1.0, 2.0, 6.0, 24.0, 120.0)


def _erlang_c_direct(lam, mu=1.0, c=5):
    A = lam / mu
    s = sum(A ** k / FACT[k] for k in range(c))
    top = A ** c / FACT[c] * c / (c - A)
    C = top / (s + top)
    return C / (c * mu - lam)


add(pair("r20d_erlang_c_recursion_vs_direct", lambda: revsrc.grad(erlang_c_wait)(3.7),
         lambda: jax().grad(jaxify(_erlang_c_direct))(3.7), tol=1e-10))
add(pair("r20d_erlang_b_int_servers_argnums", lambda: revsrc.grad(erlang_b)(7.5, 10),
         lambda: jax().grad(jaxify(erlang_b))(7.5, 10), tol=1e-12))
add(H("r20d_erlang_c_hessian_lam_mu", lambda p: erlang_c_wait(p[0], p[1]), (np.array([3.7, 1.1]),), ref="fd", tol=1e-5))


def mm1_cost(lams, mu=np.array([5.0, 4.0, 6.0])):
    rho = lams / mu
    L = np.where(rho < 1.0, rho / (1.0 - rho), np.inf)
    return np.sum(L)


add(G("r20d_mm1_where_stable", mm1_cost, (np.array([2.0, 3.0, 1.5]),), ref="jax", tol=1e-12))
add(pair("r20d_mm1_where_one_unstable", lambda: revsrc.grad(mm1_cost)(np.array([2.0, 4.5, 1.5])),
         lambda: jax().grad(jaxify(mm1_cost))(np.array([2.0, 4.5, 1.5])), tol=1e-12))

ROUTING = np.array([[0.0, 0.5, 0.3], [0.0, 0.0, 0.6], [0.2, 0.0, 0.0]])
MU_NET = np.array([10.0, 8.0, 9.0])


def jackson_sojourn(gamma, mu=MU_NET):
    lam = np.linalg.solve(np.eye(3) - ROUTING.T, gamma)
    rho = lam / mu
    L = rho / (1 - rho)
    return np.sum(L) / np.sum(gamma)


add(G("r20d_jackson_network_solve", jackson_sojourn, (np.array([3.0, 1.0, 0.5]),), ref="jax", tol=1e-12))
add(G("r20d_jackson_network_wrt_mu", jackson_sojourn, (np.array([3.0, 1.0, 0.5]), MU_NET), argnums=1, ref="jax", tol=1e-12))


# ---------------------------------------------------------------- barrier LP by Newton
A_LP = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 0.0], [0.0, -1.0]])
B_LP = np.array([4.0, 2.0, 0.0, 0.0])
C_LP = np.array([-1.0, -2.0])
MU_B = 0.1


def barrier_obj(x, b, c):
    return c @ x - MU_B * np.sum(np.log(b - A_LP @ x))


def barrier_value(b, c):
    x = np.array([0.5, 0.5])
    for _ in range(60):
        s = b - A_LP @ x
        g = c + MU_B * A_LP.T @ (1.0 / s)
        Hm = MU_B * A_LP.T @ np.diag(1.0 / s ** 2) @ A_LP
        dx = np.linalg.solve(Hm, -g)
        t = 1.0
        while np.any(b - A_LP @ (x + t * dx) <= 0):
            t *= 0.5
        x = x + t * dx
        if np.linalg.norm(dx) < 1e-13:
            break
    return barrier_obj(x, b, c)


def _barrier_envelope(b, c):
    # envelope theorem: d/db = -mu / s*, d/dc = x*
    x = np.array([0.5, 0.5])
    for _ in range(60):
        s = b - A_LP @ x
        g = c + MU_B * A_LP.T @ (1.0 / s)
        Hm = MU_B * A_LP.T @ np.diag(1.0 / s ** 2) @ A_LP
        dx = np.linalg.solve(Hm, -g)
        t = 1.0
        while np.any(b - A_LP @ (x + t * dx) <= 0):
            t *= 0.5
        x = x + t * dx
    return (-MU_B / (b - A_LP @ x), x)


add(pair("r20d_barrier_lp_newton_envelope", lambda: revsrc.grad(barrier_value, argnums=(0, 1))(B_LP, C_LP),
         lambda: _barrier_envelope(B_LP, C_LP), tol=1e-8))


def sinkhorn_cost(Cm, eps=0.5, iters=200):
    a = np.array([0.3, 0.5, 0.2])
    b = np.array([0.4, 0.4, 0.2])
    K = np.exp(-Cm / eps)
    u = np.ones(3)
    v = np.ones(3)
    for _ in range(iters):
        u = a / (K @ v)
        v = b / (K.T @ u)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * Cm)


C_OT = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.5], [2.0, 1.5, 0.0]])
add(G("r20d_sinkhorn_transport_cost", sinkhorn_cost, (C_OT,), ref="ag", tol=1e-9))


# ---------------------------------------------------------------- scheduling
DUE = np.array([4.0, 9.0, 6.0, 15.0, 12.0])
WEIGHT = np.array([2.0, 1.0, 3.0, 1.0, 2.0])


def weighted_tardiness(p, order=None):
    if order is None:
        order = np.argsort(DUE)
    C = np.cumsum(p[order])
    late = np.maximum(C - DUE[order], 0.0)
    return np.sum(WEIGHT[order] * late)


P_JOBS = np.array([3.0, 2.5, 4.0, 1.5, 3.5])
add(G("r20d_weighted_tardiness_edd_cumsum", weighted_tardiness, (P_JOBS,), ref="jax", tol=1e-12))


def makespan_soft(p, assign, beta=5.0):
    loads = [sum(p[j] for j in range(len(p)) if assign[j] == m) for m in range(3)]
    hard = max(loads)
    soft = np.log(sum(np.exp(beta * L) for L in loads)) / beta
    return hard + soft


ASSIGN = [0, 1, 2, 0, 1]
add(G("r20d_makespan_builtin_max_logsumexp", makespan_soft, (P_JOBS, ASSIGN), ref="ag", tol=1e-12))


def fractional_knapsack(values, weights=np.array([2.0, 3.0, 1.5, 4.0, 2.5]), cap=7.0):
    order = np.argsort(-values / weights)
    total = 0.0
    room = cap
    for i in order:
        if weights[i] <= room:
            total += values[i]
            room -= weights[i]
        else:
            total += values[i] * room / weights[i]
            break
    return total


add(pair("r20d_fractional_knapsack_argsort_break", lambda: revsrc.grad(fractional_knapsack)(np.array([6.0, 5.0, 4.0, 7.0, 3.0])),
         lambda: ag()[0].grad(agify(fractional_knapsack))(np.array([6.0, 5.0, 4.0, 7.0, 3.0])), tol=1e-12))


def logit_revenue(cost, a=4.0, b=1.2):
    # optimal price of a logit demand by Newton on the first-order condition
    p = cost + 1.0
    for _ in range(40):
        q = math.exp(a - b * p) / (1 + math.exp(a - b * p))
        foc = 1 - b * (p - cost) * (1 - q)
        dfoc = -b * (1 - q) - b * b * (p - cost) * q * (1 - q)
        p = p - foc / dfoc
    q = math.exp(a - b * p) / (1 + math.exp(a - b * p))
    return (p - cost) * q


def _logit_envelope(cost, a=4.0, b=1.2):
    p = cost + 1.0
    for _ in range(40):
        q = math.exp(a - b * p) / (1 + math.exp(a - b * p))
        foc = 1 - b * (p - cost) * (1 - q)
        dfoc = -b * (1 - q) - b * b * (p - cost) * q * (1 - q)
        p = p - foc / dfoc
    return -math.exp(a - b * p) / (1 + math.exp(a - b * p))


add(pair("r20d_logit_pricing_envelope", lambda: revsrc.grad(logit_revenue)(1.5), lambda: _logit_envelope(1.5), tol=1e-10))


def holding_cost_lookup(stock, rates):
    total = 0.0
    for name, level in stock.items():
        try:
            h = rates[name]
        except KeyError:
            h = 0.5
        total += h * level ** 2
    return total


add(G("r20d_holding_try_except_keyerror", holding_cost_lookup,
      ({"bolts": 3.0, "nuts": 1.5, "gears": 2.0}, {"bolts": 0.2, "gears": 1.1}), argnums=(0, 1), ref="fd", tol=1e-6))


def portfolio_utility(mu, Sigma, gamma=3.0):
    w = np.linalg.solve(gamma * Sigma, mu)
    w = w / np.sum(w)
    return w @ mu - 0.5 * gamma * w @ Sigma @ w


SIG = np.array([[0.04, 0.01, 0.0], [0.01, 0.09, 0.02], [0.0, 0.02, 0.16]])
add(G("r20d_portfolio_solve_two_args", portfolio_utility, (np.array([0.08, 0.12, 0.15]), SIG), argnums=(0, 1), ref="jax",
      tol=1e-10))
add(pair("r20d_vmap_grad_erlang_over_rates", lambda: revsrc.vmap(revsrc.grad(erlang_c_wait))(np.array([2.0, 3.0, 4.5])),
         lambda: np.array([jax().grad(jaxify(_erlang_c_direct))(v) for v in (2.0, 3.0, 4.5)]), tol=1e-10))
add(G("r20d_holding_try_except_keyerror_wrt_stock_only", holding_cost_lookup,
      ({"bolts": 3.0, "nuts": 1.5, "gears": 2.0}, {"bolts": 0.2, "gears": 1.1}), argnums=0, ref="fd", tol=1e-6))


# ---------------------------------------------------------------- more: CPM, pipelines, P-K, quantiles
PREDS = {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"], "e": ["c"], "f": ["d", "e"]}
TOPO = ("a", "b", "c", "d", "e", "f")


def project_makespan(dur):
    finish = {}
    for task in TOPO:
        start = max([finish[p] for p in PREDS[task]], default=0.0)
        finish[task] = start + dur[task]
    return max(finish.values())


DUR = {"a": 3.0, "b": 4.0, "c": 2.5, "d": 5.0, "e": 6.0, "f": 1.0}
# critical path a-b-d-f (3+4+5+1 = 13 > a-c-e-f 12.5): gradient is its indicator
add(pair("r20d_cpm_makespan_dict_max_default", lambda: revsrc.grad(project_makespan)(DUR),
         lambda: {"a": 1.0, "b": 1.0, "c": 0.0, "d": 1.0, "e": 0.0, "f": 1.0}, tol=0.0))


def pipeline_inventory(orders, lead=np.array([2, 1, 3, 2, 1, 2]), demand=WEEKLY[:8]):
    arrivals = np.zeros(len(demand) + 4)
    np.add.at(arrivals, np.arange(len(orders)) + lead, orders)
    inv = 40.0
    cost = 0.0
    for t, d in enumerate(demand):
        inv = inv + arrivals[t] - d
        cost += 0.5 * inv ** 2 / 100.0 + 0.8 * orders[t] if t < len(orders) else 0.5 * inv ** 2 / 100.0
    return cost


add(G("r20d_pipeline_add_at_lead_times", pipeline_inventory, (np.array([30.0, 20.0, 25.0, 35.0, 10.0, 30.0]),),
      ref="fd", tol=1e-6))


def pollaczek_khinchine(svc):
    lam = svc["lam"]
    mean, scv = svc["mean"], svc["scv"]
    rho = lam * mean
    Wq = lam * mean ** 2 * (1 + scv) / (2 * (1 - rho))
    return Wq + mean


add(pair("r20d_pollaczek_khinchine_dict_closed_form",
         lambda: revsrc.grad(pollaczek_khinchine)({"lam": 0.8, "mean": 1.0, "scv": 0.5}),
         lambda: {"lam": 1.5 / 2 / 0.2 + 0.8 * 1.5 / 2 / 0.04, "mean": 1.6 * 1.5 / 2 / 0.2 + 0.8 * 1.5 * 0.8 / 2 / 0.04 + 1.0,
                  "scv": 0.8 / 2 / 0.2}, tol=1e-12))


def saa_newsvendor_cost(demand, cu=3.0, co=1.0):
    # the sample-average optimal order is the critical-fractile order statistic of the sorted sample
    srt = np.sort(demand)
    k = int(math.ceil(cu / (cu + co) * len(demand))) - 1
    q = srt[k]
    return np.mean(cu * np.maximum(demand - q, 0.0) + co * np.maximum(q - demand, 0.0))


add(G("r20d_saa_newsvendor_np_sort_order_statistic", saa_newsvendor_cost, (DEMAND,), ref="ag", tol=1e-12))


def project_makespan_no_default(dur):
    finish = {}
    for task in TOPO:
        preds = PREDS[task]
        start = max(finish[p] for p in preds) if preds else 0.0
        finish[task] = start + dur[task]
    return max(finish.values())


add(pair("r20d_cpm_makespan_generator_max", lambda: revsrc.grad(project_makespan_no_default)(DUR),
         lambda: {"a": 1.0, "b": 1.0, "c": 0.0, "d": 1.0, "e": 0.0, "f": 1.0}, tol=0.0))
