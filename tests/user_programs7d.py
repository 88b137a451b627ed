"""User programs, corpus 7d: simulations with while loops and early exits, finance
payoffs with max() and masks, piecewise functions, clipping, np.where masks, boolean
and fancy indexing, np.add.at, in-place writes into slices.  References: autograd
(branches on values), JAX x64 (where the program has no value-dependent Python
control flow), closed forms and self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, ag, agify, fd_checked, jax, jaxify, pair

CASES = []
RNG = np.random.default_rng(7003)


def bouncing_ball_height(e, h0=2.0, T=3.0, dt=1e-3):
    y, v, t = h0, 0.0, 0.0
    bounces = 0
    while t < T:
        v = v - 9.81 * dt
        y = y + v * dt
        if y < 0.0:
            y = -y * e
            v = -v * e
            bounces += 1
            if bounces >= 4:
                return y + v * 0.01
        t += dt
    return y


CASES.append(G("r7_bouncing_ball_early_return", bouncing_ball_height, (0.8,), ref="ag", tol=1e-8))


def orbit_energy_drift(ecc, steps=2000, dt=0.005):
    x, y = 1.0 - ecc, 0.0
    vx, vy = 0.0, math.sqrt((1.0 + ecc) / (1.0 - ecc))
    r3 = (x * x + y * y) ** 1.5
    ax, ay = -x / r3, -y / r3
    for _ in range(steps):
        vx += 0.5 * dt * ax
        vy += 0.5 * dt * ay
        x += dt * vx
        y += dt * vy
        r3 = (x * x + y * y) ** 1.5
        ax, ay = -x / r3, -y / r3
        vx += 0.5 * dt * ax
        vy += 0.5 * dt * ay
    return 0.5 * (vx * vx + vy * vy) - 1.0 / math.sqrt(x * x + y * y)


CASES.append(G("r7_kepler_orbit_leapfrog_augassign", orbit_energy_drift, (0.3,), ref="ag", tol=1e-8))
CASES.append(G("r7_kepler_orbit_leapfrog_memory", orbit_energy_drift, (0.3,), ref="fd", tol=1e-6, memory=2000))


def nbody_arrays(pos, steps=50, dt=0.01):
    n = pos.shape[0]
    vel = np.zeros_like(pos)
    for _ in range(steps):
        d = pos[:, None, :] - pos[None, :, :]
        r2 = np.sum(d * d, axis=-1) + np.eye(n)
        inv = 1.0 / (r2 * np.sqrt(r2)) * (1.0 - np.eye(n))
        acc = -np.sum(d * inv[:, :, None], axis=1)
        vel = vel + dt * acc
        pos = pos + dt * vel
    return np.sum(pos[:, 0] ** 2)


P4 = RNG.normal(size=(4, 2)) * 2
CASES.append(G("r7_nbody_broadcast_pairwise", nbody_arrays, (P4,), ref="jax", tol=1e-8))


def particle_wall_clip(v0):
    pos = np.linspace(0.0, 1.0, 5)
    vel = v0 * np.array([1.0, -0.5, 0.3, 0.9, -1.2])
    for _ in range(40):
        pos = pos + 0.05 * vel
        hit = (pos < 0.0) | (pos > 1.0)
        vel = np.where(hit, -vel, vel)
        pos = np.clip(pos, 0.0, 1.0)
    return np.sum(pos * np.arange(1.0, 6.0))


CASES.append(G("r7_particles_walls_where_clip", particle_wall_clip, (0.77,), ref="jax", tol=1e-9))
CASES.append(G("r7_particles_walls_where_clip_fd", particle_wall_clip, (0.77,), ref="fd", tol=1e-6))

# -- finance -----------------------------------------------------------------------------------
Z = np.random.default_rng(11).normal(size=(400, 12))


def asian_call_mc(S0, sigma, r=0.02, K=1.0, T=1.0):
    dt = T / Z.shape[1]
    logS = np.log(S0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z, axis=1)
    avg = np.mean(np.exp(logS), axis=1)
    return math.exp(-r * T) * np.mean(np.maximum(avg - K, 0.0))


CASES.append(G("r7_asian_call_pathwise_cumsum", asian_call_mc, (1.0, 0.25), argnums=(0, 1), ref="jax", tol=1e-9))


def barrier_knockout(S0, sigma, B=1.3, K=1.0):
    dt = 1.0 / Z.shape[1]
    S = S0 * np.exp(np.cumsum(-0.5 * sigma ** 2 * dt + sigma * np.sqrt(dt) * Z, axis=1))
    alive = np.all(S < B, axis=1)
    pay = np.maximum(S[:, -1] - K, 0.0)
    return np.mean(pay[alive])


CASES.append(G("r7_barrier_knockout_boolean_index", barrier_knockout, (1.0, 0.2), argnums=(0, 1),
               ref="jax", tol=1e-9))


def binomial_american_put(S0, sigma, K=1.0, r=0.03, T=1.0, n=60):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    j = np.arange(n + 1)
    S = S0 * u ** (n - j) * d ** j
    V = np.maximum(K - S, 0.0)
    for i in range(n - 1, -1, -1):
        S = S[:-1] / u
        V = np.maximum(disc * (p * V[:-1] + (1 - p) * V[1:]), K - S)
    return V[0]


# S0 = 1.0 puts the middle leaf exactly at the strike (a kink of max): 1.03 is off it
CASES.append(G("r7_binomial_american_put_greeks", binomial_american_put, (1.03, 0.3), argnums=(0, 1),
               ref="fd", tol=1e-6))


def black_scholes_call(S, K, sigma, T, r=0.01):
    d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    N = lambda z: 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))  # noqa: E731
    return S * N(d1) - K * math.exp(-r * T) * N(d2)


def bs_greeks_closed():
    S, K, sig, T, r = 1.1, 1.0, 0.2, 0.5, 0.01
    d1 = (math.log(S / K) + (r + 0.5 * sig * sig) * T) / (sig * math.sqrt(T))
    pdf = math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi)
    return (0.5 * (1 + math.erf(d1 / math.sqrt(2))), S * pdf * math.sqrt(T))


CASES.append(G("r7_black_scholes_delta_vega_closed", black_scholes_call, (1.1, 1.0, 0.2, 0.5),
               argnums=(0, 2), ref=bs_greeks_closed, tol=1e-10))
CASES.append(H("r7_black_scholes_gamma", black_scholes_call, (1.1, 1.0, 0.2, 0.5), argnums=0,
               ref=lambda: math.exp(-0.5 * ((math.log(1.1) + 0.03 * 0.5) / (0.2 * math.sqrt(0.5))) ** 2)
               / math.sqrt(2 * math.pi) / (1.1 * 0.2 * math.sqrt(0.5)), tol=1e-9))


def implied_vol_newton(price):
    sig = 0.3
    for _ in range(50):
        diff = black_scholes_call(1.1, 1.0, sig, 0.5) - price
        if abs(diff) < 1e-14:
            break
        d1 = (math.log(1.1) + (0.01 + 0.5 * sig * sig) * 0.5) / (sig * math.sqrt(0.5))
        vega = 1.1 * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(0.5)
        sig = sig - diff / vega
    return sig


CASES.append(G("r7_implied_vol_newton_inverse", implied_vol_newton, (0.13,),
               ref=lambda: 1.0 / bs_greeks_closed_at(implied_vol_newton(0.13)), tol=1e-7))


def bs_greeks_closed_at(sig):
    S, K, T, r = 1.1, 1.0, 0.5, 0.01
    d1 = (math.log(S / K) + (r + 0.5 * sig * sig) * T) / (sig * math.sqrt(T))
    return S * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(T)


def tax_brackets(income):
    brackets = [(10000.0, 0.0), (40000.0, 0.2), (100000.0, 0.4), (math.inf, 0.45)]
    tax, lo = 0.0, 0.0
    for hi, rate in brackets:
        if income > lo:
            tax += (min(income, hi) - lo) * rate
        lo = hi
    return tax


CASES.append(G("r7_tax_brackets_tuple_list_inf", tax_brackets, (55000.0,), ref=lambda: 0.4, tol=1e-12))
# on the kink min(income, hi) ties; with the tie split in half (jnp.minimum's convention)
# and the next bracket not entered (income > lo is False) the slope is 0.5 * 0.2
CASES.append(G("r7_tax_brackets_on_kink", tax_brackets, (40000.0,), ref=lambda: 0.1, tol=1e-12))


def piecewise_np_select(x):
    return np.sum(np.select([x < -1.0, x < 1.0], [-(x + 1.0) ** 2, x ** 3], 2.0 * x))


CASES.append(G("r7_np_select_piecewise", piecewise_np_select, (np.array([-2.0, -0.5, 0.3, 1.5]),),
               ref="jax", tol=1e-12))


def piecewise_where_nested(x):
    y = np.where(x > 0.0, np.where(x > 1.0, np.log(x), x - 1.0 + 0.0 * x), np.expm1(x))
    return np.sum(y * y)


CASES.append(G("r7_where_nested_log_guarded", piecewise_where_nested, (np.array([-0.4, 0.5, 2.0, 3.0]),),
               ref="jax", tol=1e-12))


def boolean_index_assign(x):
    y = x * 1.0
    y[y < 0.0] = 0.1 * y[y < 0.0]
    y[y > 1.0] = np.sqrt(y[y > 1.0])
    return np.sum(y ** 3)


X8 = np.array([-1.5, 0.3, 2.0, -0.2, 0.9, 4.0, 1.2, -3.0])
CASES.append(G("r7_boolean_index_assign_two_masks", boolean_index_assign, (X8,), ref="fd", tol=1e-7))


def fancy_index_inplace(x, idx):
    y = np.zeros(6)
    y[idx] += x            # repeated indices: += keeps the last, as NumPy does
    return np.sum(y * np.arange(1.0, 7.0)) + np.sum(y ** 2)


IDX5 = np.array([0, 2, 2, 5, 0])
CASES.append(G("r7_fancy_iadd_repeated_last_wins", fancy_index_inplace, (np.array([1.0, 2.0, 3.0, 4.0, 5.0]), IDX5),
               ref="fd", tol=1e-7))


def add_at_histogram(w, bins):
    h = np.zeros(4)
    np.add.at(h, bins, w)
    return np.sum(h ** 2) + h[2] * h[3]


BINS = np.array([0, 1, 1, 3, 2, 3, 3])
CASES.append(G("r7_add_at_weighted_histogram", add_at_histogram, (np.linspace(0.1, 0.7, 7), BINS),
               ref="fd", tol=1e-7))


def inplace_slices(x):
    y = np.zeros(8)
    y[::2] = x[:4] * 2.0
    y[1::2] = np.cumsum(x[4:])
    y[2:6] *= y[3:7]
    y[-1] -= y[0]
    return np.sum(np.sin(y))


CASES.append(G("r7_inplace_strided_slices_overlap_rhs", inplace_slices, (np.linspace(-1, 1, 8),),
               ref="fd", tol=1e-7))


def stencil_inplace(u0, steps=30):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u[1:-1] += 0.2 * lap[1:-1]
        u[0] = u[1]
        u[-1] = u[-2]
    return np.sum(u ** 4)


CASES.append(G("r7_heat_stencil_neumann_inplace", stencil_inplace, (np.sin(np.linspace(0, 3, 9)),),
               ref="fd", tol=1e-7))


def clip_grad_norm_update(w, g, maxn=1.0):
    n = np.linalg.norm(g)
    g = g * np.minimum(1.0, maxn / n)
    w = w - 0.1 * g
    return np.sum(w ** 2)


CASES.append(G("r7_clip_by_global_norm_active", clip_grad_norm_update, (np.ones(3), np.array([2.0, -1.0, 0.5])),
               argnums=(0, 1), ref="jax", tol=1e-10))


def sort_based_cvar(x, alpha=0.25):
    s = np.sort(x)
    k = int(alpha * len(x))
    return np.mean(s[-k:])


CASES.append(G("r7_sort_cvar_top_k", sort_based_cvar, (RNG.normal(size=12),), ref="jax", tol=1e-12))


def argsort_gather(x, w):
    order = np.argsort(x)
    return np.sum(x[order] * w) + np.sum(np.take(x, order[:3]) ** 2)


CASES.append(G("r7_argsort_take_gather", argsort_gather, (RNG.normal(size=6), np.linspace(0, 1, 6)),
               ref="jax", tol=1e-12))


def population_growth_until(r, cap=1000.0):
    n, t = 10.0, 0
    while n < cap:
        n = n * (1.0 + r) - 0.001 * n * n * r
        t += 1
        if t > 500:
            break
    return n + t


CASES.append(G("r7_logistic_growth_until_threshold", population_growth_until, (0.9,), ref="ag", tol=1e-9))
CASES.append(JV("r7_jvp_particles_walls", particle_wall_clip, (0.77,), (1.0,), ref="fd", tol=1e-6))
