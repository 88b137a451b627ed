"""Round 14, part e: finance and operations -- portfolio variance, binomial option trees
looped backwards over arrays, inventory simulation with branches, discounting by cumprod."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

COV = np.array([[0.04, 0.006, 0.002, 0.0], [0.006, 0.09, 0.01, 0.004], [0.002, 0.01, 0.0625, 0.003],
                [0.0, 0.004, 0.003, 0.01]])
MU = np.array([0.06, 0.1, 0.08, 0.03])


def mean_variance(w, gamma=3.0):
    w = w / np.sum(w)
    return -(MU @ w) + 0.5 * gamma * w @ COV @ w


W4 = np.array([0.3, 0.2, 0.25, 0.25])
add(VG("r14_mean_variance_normalized", mean_variance, (W4,), ref="ag", tol=1e-12))
add(pair("r14_mean_variance_scale_invariance", lambda: W4 @ revsrc.grad(mean_variance)(W4), lambda: 0.0, tol=1e-12))
add(H("r14_mean_variance_hessian", mean_variance, (W4,), ref="ag", tol=1e-10))


def risk_parity(w):
    sig = math.sqrt(w @ COV @ w)
    rc = w * (COV @ w) / sig
    target = sig / len(w)
    return np.sum((rc - target) ** 2)


add(G("r14_risk_parity_contributions", risk_parity, (W4,), ref="ag", tol=1e-10))


def binomial_american_put(S0, K=100.0, r=0.03, sigma=0.25, T=1.0, n=30):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    S = S0 * u ** np.arange(n, -1, -1) * d ** np.arange(0, n + 1)
    V = np.maximum(K - S, 0.0)
    for i in range(n - 1, -1, -1):
        S = S[:-1] / u
        V = disc * (p * V[:-1] + (1 - p) * V[1:])
        V = np.maximum(V, K - S)
    return V[0]


add(VG("r14_binomial_american_put_delta", binomial_american_put, (95.0,), ref="fd", tol=1e-6, h=1e-4))
add(G("r14_binomial_vega", binomial_american_put, (95.0, 100.0, 0.03, 0.25), argnums=3, ref="fd", tol=1e-6, h=1e-6))


def binomial_european_inplace(S0, K=100.0, r=0.03, sigma=0.25, T=1.0, n=25):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    V = np.empty(n + 1)
    for j in range(n + 1):
        V[j] = max(S0 * u ** (n - j) * d ** j - K, 0.0)
    for i in range(n - 1, -1, -1):
        for j in range(i + 1):
            V[j] = math.exp(-r * dt) * (p * V[j] + (1 - p) * V[j + 1])
    return V[0]


def _crr_delta(S0, n=25, r=0.03, sigma=0.25, T=1.0, K=100.0):
    # the CRR price is piecewise linear in S0: its slope is sum over in-the-money leaves
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    s = 0.0
    for j in range(n + 1):
        ST = S0 * u ** (n - j) * d ** j
        if ST > K:
            s += math.comb(n, j) * p ** (n - j) * (1 - p) ** j * u ** (n - j) * d ** j
    return math.exp(-r * T) * s


add(pair("r14_binomial_european_inplace_delta", lambda: revsrc.grad(binomial_european_inplace)(102.0), lambda: _crr_delta(102.0), tol=1e-10))
add(pair("r14_binomial_european_jit_grad", lambda: revsrc.jit(revsrc.grad(binomial_european_inplace))(102.0), lambda: _crr_delta(102.0), tol=1e-10))


def npv(rates, cash):
    disc = np.cumprod(1.0 / (1.0 + rates))
    return np.sum(cash * disc)


RATES = np.array([0.02, 0.025, 0.03, 0.035, 0.04])
CASH = np.array([5.0, 5.0, 5.0, 5.0, 105.0])
add(VG("r14_npv_cumprod", npv, (RATES, CASH), ref="fd", tol=1e-8))
add(G("r14_npv_cumprod_wrt_cash", npv, (RATES, CASH), argnums=1, ref=lambda: np.cumprod(1 / (1 + RATES)), tol=1e-14))
add(pair("r14_npv_cumprod_zero_rate_jacrev", lambda: revsrc.jacrev(lambda r: np.cumprod(1.0 / (1.0 + r)))(np.array([0.0, 0.1, 0.0])),
         lambda: fdj(lambda r: np.cumprod(1.0 / (1.0 + r)), np.array([0.0, 0.1, 0.0])), tol=1e-7))


def ytm(price, cash=CASH):
    # yield to maturity by bisection then Newton, in while loops
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        if np.sum(cash / (1 + mid) ** np.arange(1, 6)) > price:
            lo = mid
        else:
            hi = mid
    y = 0.5 * (lo + hi)
    for _ in range(30):
        t = np.arange(1, 6)
        f = np.sum(cash / (1 + y) ** t) - price
        df = np.sum(-t * cash / (1 + y) ** (t + 1))
        y = y - f / df
    return y


def _ytm_dprice(price):
    y = ytm(price)
    t = np.arange(1, 6)
    return 1.0 / np.sum(-t * CASH / (1 + y) ** (t + 1))


add(pair("r14_ytm_bisection_newton", lambda: revsrc.grad(ytm)(98.0), lambda: _ytm_dprice(98.0), tol=1e-9))


def inventory(params, demand):
    s_level, big_s = params[0], params[1]
    inv = big_s
    cost = 0.0
    for d in demand:
        if inv < s_level:
            order = big_s - inv
            cost += 2.0 + 0.5 * order
            inv = inv + order
        inv = inv - d
        if inv >= 0:
            cost += 0.1 * inv
        else:
            cost += 1.5 * (-inv)
            inv = 0.0
    return cost


DEM = [3.0, 5.0, 2.0, 7.0, 4.0, 6.0, 1.0]
add(G("r14_inventory_s_S_branches", inventory, (np.array([4.5, 10.2]), DEM), ref="fd", tol=1e-7, h=1e-6))
add(G("r14_inventory_wrt_demand_list", inventory, (np.array([4.5, 10.2]), DEM), argnums=1, ref="fd", tol=1e-7, h=1e-6))


def annuity_factor(r, n=10):
    # pays 1 at t = 1..n, discount factors by a running product
    f, s = 1.0, 0.0
    for _ in range(n):
        f /= 1.0 + r
        s += f
    return s


add(pair("r14_annuity_running_product", lambda: revsrc.value_and_grad(annuity_factor)(0.05),
         lambda: ((1 - 1.05 ** -10) / 0.05, sum(-t * 1.05 ** (-t - 1) for t in range(1, 11))), tol=1e-12))
add(pair("r14_annuity_vmap", lambda: revsrc.vmap(revsrc.grad(annuity_factor))(np.array([0.01, 0.05, 0.1])),
         lambda: np.array([sum(-t * (1 + r) ** (-t - 1) for t in range(1, 11)) for r in (0.01, 0.05, 0.1)]), tol=1e-12))
add(pair("r14_annuity_jit_second", lambda: revsrc.jit(revsrc.grad(revsrc.grad(annuity_factor)))(0.05),
         lambda: sum(t * (t + 1) * 1.05 ** (-t - 2) for t in range(1, 11)), tol=1e-10))


def black_scholes(S, K, r, sig, T):
    d1 = (math.log(S / K) + (r + 0.5 * sig * sig) * T) / (sig * math.sqrt(T))
    d2 = d1 - sig * math.sqrt(T)
    N = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    return S * N(d1) - K * math.exp(-r * T) * N(d2)


def _bs_greeks(S, K, r, sig, T):
    d1 = (math.log(S / K) + (r + 0.5 * sig * sig) * T) / (sig * math.sqrt(T))
    d2 = d1 - sig * math.sqrt(T)
    N = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    n = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    return (N(d1), -math.exp(-r * T) * N(d2), K * T * math.exp(-r * T) * N(d2), S * n(d1) * math.sqrt(T),
            S * n(d1) * sig / (2 * math.sqrt(T)) + r * K * math.exp(-r * T) * N(d2))


add(pair("r14_black_scholes_all_greeks_argnums", lambda: revsrc.grad(black_scholes, argnums=(0, 1, 2, 3, 4))(100.0, 95.0, 0.02, 0.3, 0.75),
         lambda: _bs_greeks(100.0, 95.0, 0.02, 0.3, 0.75), tol=1e-12))
add(pair("r14_black_scholes_gamma", lambda: revsrc.grad(revsrc.grad(black_scholes))(100.0, 95.0, 0.02, 0.3, 0.75),
         lambda: math.exp(-((math.log(100 / 95) + 0.065 * 0.75) / (0.3 * math.sqrt(0.75))) ** 2 / 2) / math.sqrt(2 * math.pi) / (100 * 0.3 * math.sqrt(0.75)), tol=1e-10))
