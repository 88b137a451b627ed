"""Round 10, epidemiology, population dynamics, queueing and inventory: SIR and SEIR
integrated by Euler and RK4 (dicts, dataclasses and NamedTuples of parameters), the
final size relation solved by fixed point, R0 from a next-generation matrix, logistic,
Ricker and Lotka-Volterra, Leslie matrices, M/M/1 and M/M/c (Erlang C) formulas,
Lindley's recursion, newsvendor and (s, S) inventory costs, as modellers write them."""
import dataclasses
import math
from typing import NamedTuple

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1003)


def sir_euler(beta, gamma, days=60, dt=0.5):
    s, i, r = 0.99, 0.01, 0.0
    peak = 0.0
    for _ in range(int(days / dt)):
        new_inf = beta * s * i * dt
        new_rec = gamma * i * dt
        s, i, r = s - new_inf, i + new_inf - new_rec, r + new_rec
        peak = max(peak, i)
    return r + peak


CASES.append(G("r10_sir_euler_peak_beta", sir_euler, (0.4, 0.1), argnums=(0, 1), ref="ag"))


@dataclasses.dataclass
class SEIRParams:
    beta: float
    sigma: float
    gamma: float


def seir_rk4(p, days=40.0, n=80):
    def f(y):
        s, e, i, r = y
        return np.array([-p.beta * s * i, p.beta * s * i - p.sigma * e,
                         p.sigma * e - p.gamma * i, p.gamma * i])
    y = np.array([0.98, 0.01, 0.01, 0.0])
    h = days / n
    for _ in range(n):
        k1 = f(y)
        k2 = f(y + h / 2 * k1)
        k3 = f(y + h / 2 * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[3]


def seir_ref():
    def g(beta, sigma, gamma):
        return seir_rk4(SEIRParams(beta, sigma, gamma))
    from user_programs7_harness import fd_checked
    gs = fd_checked(g, (0.5, 0.2, 0.1), argnums=(0, 1, 2))
    return SEIRParams(*[float(x) for x in gs])


CASES.append(G("r10_seir_rk4_dataclass", seir_rk4, (SEIRParams(0.5, 0.2, 0.1),), ref=seir_ref))


class SIRState(NamedTuple):
    s: float
    i: float
    r: float


def sir_step(st, beta, gamma, dt):
    inf = beta * st.s * st.i * dt
    rec = gamma * st.i * dt
    return SIRState(st.s - inf, st.i + inf - rec, st.r + rec)


def sir_namedtuple(beta, gamma):
    st = SIRState(0.995, 0.005, 0.0)
    for _ in range(100):
        st = sir_step(st, beta, gamma, 0.3)
    return st.r


CASES.append(G("r10_sir_namedtuple_state", sir_namedtuple, (0.35, 0.12), argnums=(0, 1), ref="jax"))


def final_size(R0):
    z = 0.5
    for _ in range(200):
        z = 1.0 - math.exp(-R0 * z)
    return z


def final_size_deriv(R0):
    z = final_size(R0)
    # implicit: z = 1 - e^{-R0 z} -> dz/dR0 = z e^{-R0 z} / (1 - R0 e^{-R0 z})
    e = math.exp(-R0 * z)
    return z * e / (1 - R0 * e)


CASES.append(G("r10_final_size_fixed_point", final_size, (2.2,), ref=lambda: final_size_deriv(2.2)))


def ngm_r0(betas, gammas):
    K = betas / gammas[None, :]
    return np.max(np.abs(np.linalg.eigvals(K)))


def ngm_r0_sym(B, gammas):
    # symmetric version: D^{-1/2} B D^{-1/2}
    d = 1.0 / np.sqrt(gammas)
    M = d[:, None] * B * d[None, :]
    return np.linalg.eigh(M)[0][-1]


BMAT = np.array([[0.4, 0.1, 0.05], [0.1, 0.3, 0.08], [0.05, 0.08, 0.5]])
GAM = np.array([0.2, 0.25, 0.3])
# np.linalg.eigh reads the lower triangle only: the gradient with respect to the full B
# is lower-triangular (JAX's eigh symmetrizes, so central differences are the reference)
CASES.append(G("r10_next_generation_eigh", ngm_r0_sym, (BMAT, GAM), argnums=(0, 1)))


def logistic_growth(r, K, n0=10.0, steps=30):
    n = n0
    traj = []
    for _ in range(steps):
        n = n + r * n * (1 - n / K)
        traj.append(n)
    return sum(traj) / len(traj)


CASES.append(G("r10_logistic_map_growth", logistic_growth, (0.3, 500.0), argnums=(0, 1), ref="jax"))


def ricker(r, n0, steps=25):
    n = n0
    for _ in range(steps):
        n = n * math.exp(r * (1.0 - n))
    return n


CASES.append(G("r10_ricker_map", ricker, (0.6, 0.2), argnums=(0, 1), ref="jax"))


def lotka_volterra(theta, x0=1.0, y0=0.5, dt=0.01, steps=300):
    a, b, c, d = theta
    x, y = x0, y0
    area = 0.0
    for _ in range(steps):
        dx = a * x - b * x * y
        dy = d * x * y - c * y
        x, y = x + dt * dx, y + dt * dy
        area += dt * x * y
    return area


CASES.append(G("r10_lotka_volterra_euler", lotka_volterra, (np.array([1.0, 0.6, 0.8, 0.4]),), ref="jax"))


def leslie_growth_rate(f, s):
    n = len(f)
    L = np.zeros((n, n))
    L[0, :] = f
    for k in range(n - 1):
        L[k + 1, k] = s[k]
    v = np.ones(n)
    for _ in range(80):
        v = L @ v
        v = v / np.linalg.norm(v)
    return v @ L @ v / (v @ v)


CASES.append(G("r10_leslie_power_iteration", leslie_growth_rate,
               (np.array([0.0, 1.2, 1.5, 0.6]), np.array([0.8, 0.7, 0.5])), argnums=(0, 1)))


def mm1_metrics(lam, mu):
    rho = lam / mu
    L = rho / (1 - rho)
    W = L / lam
    Wq = W - 1.0 / mu
    return L + 10 * Wq


CASES.append(G("r10_mm1_little_law", mm1_metrics, (0.7, 1.0), argnums=(0, 1), ref="jax"))


def erlang_c(lam, mu, c):
    a = lam / mu
    s = 0.0
    term = 1.0
    for k in range(c):
        s += term
        term *= a / (k + 1)
    last = term * c / (c - a)
    pw = last / (s + last)
    return pw / (c * mu - lam)


CASES.append(G("r10_erlang_c_wait", erlang_c, (3.0, 1.2, 4), argnums=(0, 1), ref="jax"))


def erlang_b_recursion(a, c):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


CASES.append(G("r10_erlang_b_recursion", erlang_b_recursion, (5.0, 7), ref="jax"))
CASES.append(H("r10_erlang_b_second_derivative", erlang_b_recursion, (5.0, 7), ref="jax"))


def lindley_waits(service, inter):
    w = 0.0
    total = 0.0
    for s, a in zip(service, inter):
        w = max(0.0, w + s - a)
        total += w
    return total / len(service)


SERV = rng.exponential(0.9, size=30)
INTER = rng.exponential(1.0, size=30)
CASES.append(G("r10_lindley_recursion_service", lindley_waits, (SERV, INTER), ref="ag"))


def newsvendor_expected_cost(q, mu, sigma, cu=4.0, co=1.0):
    z = (q - mu) / sigma
    pdf = math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    cdf = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    loss = sigma * (pdf - z * (1 - cdf))
    over = q - mu + loss
    return cu * loss + co * over


CASES.append(G("r10_newsvendor_normal_q", newsvendor_expected_cost, (105.0, 100.0, 15.0), argnums=(0, 2), ref="jax"))


def critical_fractile_check():
    import revsrc
    # at the optimum q*, d cost / dq = 0 with Phi(z*) = cu / (cu + co) = 0.8
    zstar = 0.8416212335729143
    return revsrc.grad(newsvendor_expected_cost)(100.0 + 15.0 * zstar, 100.0, 15.0)


CASES.append(pair("r10_newsvendor_critical_fractile", critical_fractile_check, lambda: 0.0, tol=1e-8))


def s_S_inventory(s, S, demand, h=1.0, p=5.0, K=20.0):
    inv = S
    cost = 0.0
    for d in demand:
        if inv < s:
            cost += K
            inv = S
        inv = inv - d
        cost += h * max(inv, 0.0) + p * max(-inv, 0.0)
    return cost


DEM = rng.uniform(2, 8, size=20)
CASES.append(G("r10_sS_inventory_S", s_S_inventory, (12.0, 30.0, DEM), argnums=1, ref="ag"))


def eoq(D, K, h):
    return math.sqrt(2 * D * K / h)


CASES.append(G("r10_economic_order_quantity", eoq, (1200.0, 50.0, 2.5), argnums=(0, 1, 2), ref="jax"))


def markov_chain_stationary(P_logits):
    P = np.exp(P_logits)
    P = P / P.sum(axis=1, keepdims=True)
    pi = np.ones(len(P)) / len(P)
    for _ in range(200):
        pi = pi @ P
    return pi @ np.arange(len(P), dtype=float)


CASES.append(G("r10_markov_stationary_power", markov_chain_stationary, (rng.normal(size=(4, 4)),), ref="jax"))


def birth_death_stationary(lams, mus):
    w = np.cumprod(lams / mus)
    w = np.concatenate([np.ones(1), w])
    p = w / w.sum()
    return p @ np.arange(len(p))


CASES.append(G("r10_birth_death_cumprod", birth_death_stationary,
               (np.array([1.0, 0.8, 0.6, 0.4]), np.array([1.1, 1.2, 1.3, 1.4])), argnums=(0, 1), ref="jax"))
CASES.append(JV("r10_sir_jvp_beta_gamma", sir_namedtuple, (0.35, 0.12), (1.0, -2.0)))
