"""User programs for the adversarial tester (round 3).

Written as users write them, without reading revsrc's implementation: scientific code
(ODE integrators, filters, recurrent cells, PDE steps, solvers, Monte-Carlo, splines,
statistics, finance), Python styles (classes, dataclasses, closures, decorators,
generators, *args/**kwargs), NumPy idioms and compositions of transformations.

Each case: name, family, fn, args, argnums, doc (refusal codes the README documents
for this program), jfn (the same program in jax.numpy, optional), check (a custom
check: raises AssertionError on a wrong number).
"""
import dataclasses
import functools
import math
from collections import namedtuple
from typing import NamedTuple

import numpy as np

import revsrc


import corpus_harness as _h
from corpus_harness import Case, classify, close, fd, fd_hess, fd_jac, run_case  # noqa: F401

_CORPUS = _h.Corpus()
CASES = _CORPUS.cases
case, custom, variants = _CORPUS.case, _CORPUS.custom, _CORPUS.variants
_jax, _cargs, _leaves, _get, _set, _isfloat = _h.jax_x64, _h.cargs, _h.leaves, _h.get, _h.put, _h.isfloat


A3 = np.array([0.3, -1.2, 0.7])
A4 = np.array([0.5, -0.4, 1.3, 0.9])
A5 = np.array([0.25, -0.6, 1.1, 0.35, -0.9])
A6 = np.array([0.2, 0.9, -0.5, 1.1, -0.8, 0.4])
M2 = np.array([[0.4, -0.3], [1.1, 0.6]])
M3 = np.array([[0.5, 0.1, -0.2], [0.3, -0.7, 0.9], [1.2, 0.4, 0.6]])
SPD3 = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 1.8]])

# ------------------------------------------------------------------ ODE integrators
O = "ode"


@case("ode_euler_decay", O, (0.8, 1.5))
def ode_euler_decay(k, y0):
    y = y0
    dt = 0.05
    for _ in range(40):
        y = y + dt * (-k * y)
    return y


def _lotka(state, a, b):
    x, y = state
    return np.array([a * x - b * x * y, b * x * y - 0.7 * y])


@case("ode_rk4_lotka_volterra", O, (np.array([1.2, 0.8]), 1.1, 0.4), argnums=(0, 1, 2))
def ode_rk4_lotka_volterra(s0, a, b):
    s = s0
    h = 0.1
    for _ in range(15):
        k1 = _lotka(s, a, b)
        k2 = _lotka(s + 0.5 * h * k1, a, b)
        k3 = _lotka(s + 0.5 * h * k2, a, b)
        k4 = _lotka(s + h * k3, a, b)
        s = s + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s[0] * s[1]


def ode_rk4_generic(f, y, t0, t1, n):
    h = (t1 - t0) / n
    t = t0
    for _ in range(n):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return y


def _pendulum(t, y):
    return np.array([y[1], -9.81 * np.sin(y[0]) - 0.1 * y[1]])


@case("ode_rk4_passed_rhs", O, (np.array([0.6, 0.0]),))
def ode_rk4_passed_rhs(y0):
    y = ode_rk4_generic(_pendulum, y0, 0.0, 1.0, 20)
    return y[0] ** 2 + 0.1 * y[1] ** 2


@case("ode_leapfrog_oscillator", O, (1.0, 0.3, 2.0), argnums=(0, 1, 2))
def ode_leapfrog_oscillator(q, p, omega):
    dt = 0.1
    for _ in range(25):
        p -= 0.5 * dt * omega ** 2 * q
        q += dt * p
        p -= 0.5 * dt * omega ** 2 * q
    return 0.5 * p * p + 0.5 * omega ** 2 * q * q + q


@case("ode_leapfrog_nbody_arrays", O, (np.array([[0.0, 0.0], [1.0, 0.2], [-0.6, 0.9]]),))
def ode_leapfrog_nbody_arrays(pos):
    vel = np.zeros_like(pos)
    masses = np.array([1.0, 0.5, 0.3])
    dt = 0.02

    def accel(p):
        d = p[None, :, :] - p[:, None, :]
        r2 = np.sum(d * d, axis=-1) + 0.1
        inv = masses[None, :] / r2 ** 1.5
        return np.sum(d * inv[:, :, None], axis=1)

    a = accel(pos)
    for _ in range(10):
        vel = vel + 0.5 * dt * a
        pos = pos + dt * vel
        a = accel(pos)
        vel = vel + 0.5 * dt * a
    return np.sum(pos[:, 0] * masses) + np.sum(vel ** 2)


@case("ode_adaptive_euler_while", O, (0.9,))
def ode_adaptive_euler_while(k):
    t, y, h = 0.0, 1.0, 0.1
    while t < 2.0:
        slope = -k * y + math.sin(t)
        # step-size control on the estimated curvature, user style
        if abs(slope) > 0.5:
            h = 0.05
        else:
            h = 0.1
        y = y + h * slope
        t = t + h
    return y


@case("ode_adaptive_rk12_error_control", O, (1.3,))
def ode_adaptive_rk12_error_control(lam):
    t, y, h = 0.0, 1.0, 0.2
    tol = 1e-3
    steps = 0
    while t < 1.0 and steps < 200:
        steps += 1
        h = min(h, 1.0 - t)
        k1 = -lam * y
        k2 = -lam * (y + h * k1)
        y_low = y + h * k1
        y_high = y + 0.5 * h * (k1 + k2)
        err = abs(y_high - y_low)
        if err > tol:
            h = h * 0.5
            continue
        y = y_high
        t = t + h
        if err < tol / 4:
            h = h * 1.5
    return y


@case("ode_implicit_euler_newton", O, (2.0,))
def ode_implicit_euler_newton(k):
    y = 1.0
    h = 0.1
    for _ in range(10):
        # solve z = y + h*(-k z^3) by Newton
        z = y
        for _ in range(5):
            F = z - y + h * k * z ** 3
            dF = 1.0 + 3.0 * h * k * z ** 2
            z = z - F / dF
        y = z
    return y


@case("ode_heun_system_matrix", O, (M2,))
def ode_heun_system_matrix(A):
    x = np.array([1.0, -0.5])
    h = 0.1
    for _ in range(12):
        k1 = A @ x
        k2 = A @ (x + h * k1)
        x = x + 0.5 * h * (k1 + k2)
    return np.dot(x, x)


@case("ode_euler_trajectory_list", O, (np.array([0.3, 1.2]),))
def ode_euler_trajectory_list(p):
    traj = []
    y = 1.0
    for i in range(30):
        y = y + 0.05 * (p[0] * y - p[1] * y ** 3)
        traj.append(y)
    traj = np.array(traj)
    target = np.linspace(1.0, 0.6, 30)
    return float(np.mean((traj - target) ** 2))


@case("ode_velocity_verlet_spring_chain", O, (np.array([0.1, -0.05, 0.2, 0.0]),))
def ode_velocity_verlet_spring_chain(x0):
    x = x0.copy()
    v = np.zeros(4)
    dt = 0.05

    def force(x):
        f = np.zeros_like(x)
        f[1:] -= (x[1:] - x[:-1])
        f[:-1] += (x[1:] - x[:-1])
        return f - 0.3 * x

    f = force(x)
    for _ in range(20):
        x = x + dt * v + 0.5 * dt * dt * f
        f_new = force(x)
        v = v + 0.5 * dt * (f + f_new)
        f = f_new
    return np.sum(x ** 2) + 0.5 * np.sum(v ** 2)


@case("ode_event_stop_while_break", O, (4.0,))
def ode_event_stop_while_break(v0):
    # ball thrown upward, stop when it hits the ground; returns max height reached
    y, v, t = 0.0, v0, 0.0
    dt = 0.01
    peak = 0.0
    while True:
        v = v - 9.81 * dt
        y = y + v * dt
        t += dt
        if y > peak:
            peak = y
        if y < 0.0:
            break
    return peak


@case("ode_sir_model", O, (np.array([0.3, 0.1]),))
def ode_sir_model(theta):
    beta, gamma = theta[0], theta[1]
    S, I, R = 0.99, 0.01, 0.0
    dt = 0.5
    infected = 0.0
    for day in range(60):
        new_inf = beta * S * I * dt
        new_rec = gamma * I * dt
        S -= new_inf
        I += new_inf - new_rec
        R += new_rec
        infected += I
    return infected


# ------------------------------------------------------------------ filters
F = "filter"


def kalman_1d(zs, q, r):
    x, P = 0.0, 1.0
    nll = 0.0
    for z in zs:
        P = P + q
        S = P + r
        K = P / S
        innov = z - x
        nll += 0.5 * (math.log(2 * math.pi * S) + innov * innov / S)
        x = x + K * innov
        P = (1 - K) * P
    return nll


ZS = [0.1, 0.4, 0.35, 0.8, 0.7, 1.1, 0.95]


@case("filt_kalman_1d_nll_q_r", F, (ZS, 0.05, 0.2), argnums=(1, 2))
def filt_kalman_1d_nll_q_r(zs, q, r):
    return kalman_1d(zs, q, r)


@case("filt_kalman_2d_constant_velocity", F, (np.array([0.01, 0.1]),))
def filt_kalman_2d_constant_velocity(noise):
    F_ = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = np.diag([noise[0], noise[0]])
    R = np.array([[noise[1]]])
    x = np.zeros(2)
    P = np.eye(2)
    nll = 0.0
    for z in [0.2, 1.1, 2.3, 2.9, 4.2, 5.1]:
        x = F_ @ x
        P = F_ @ P @ F_.T + Q
        y = np.array([z]) - H @ x
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        x = x + K @ y
        P = (np.eye(2) - K @ H) @ P
        nll = nll + 0.5 * (np.log(np.linalg.det(S)) + y @ np.linalg.solve(S, y))
    return nll


@case("filt_kalman_smoothed_state_loss", F, (np.array([0.5, 0.2, -0.1, 0.4, 0.9]),), doc=("E401",))
def filt_kalman_smoothed_state_loss(zs):
    q, r = 0.1, 0.3
    x, P = 0.0, 1.0
    xs, Ps = [], []
    for z in zs:
        P = P + q
        K = P / (P + r)
        x = x + K * (z - x)
        P = (1 - K) * P
        xs.append(x)
        Ps.append(P)
    # RTS smoother backwards
    xs_s = [xs[-1]]
    for k in range(len(xs) - 2, -1, -1):
        C = Ps[k] / (Ps[k] + q)
        xs_s.insert(0, xs[k] + C * (xs_s[0] - xs[k]))
    return sum(v * v for v in xs_s)


@case("filt_exponential_smoothing", F, (0.3, A6), argnums=(0, 1))
def filt_exponential_smoothing(alpha, xs):
    s = xs[0]
    err = 0.0
    for t in range(1, len(xs)):
        err += (xs[t] - s) ** 2
        s = alpha * xs[t] + (1 - alpha) * s
    return err


@case("filt_iir_biquad_lfilter_style", F, (np.array([0.2, 0.3, 0.1]), A6), argnums=(0, 1))
def filt_iir_biquad_lfilter_style(b, x):
    a1, a2 = -0.5, 0.2
    y = np.zeros_like(x)
    for n in range(len(x)):
        acc = b[0] * x[n]
        if n >= 1:
            acc += b[1] * x[n - 1] - a1 * y[n - 1]
        if n >= 2:
            acc += b[2] * x[n - 2] - a2 * y[n - 2]
        y[n] = acc
    return np.sum(y ** 2)


@case("filt_moving_average_convolve", F, (A6,))
def filt_moving_average_convolve(x):
    k = np.ones(3) / 3.0
    y = np.convolve(x, k, mode="valid")
    return np.sum(y ** 3)


# ------------------------------------------------------------------ recurrent cells
RN = "rnn"
RNG0 = np.random.default_rng(3)
WX = RNG0.normal(size=(3, 4)) * 0.5
WH = RNG0.normal(size=(4, 4)) * 0.5
BH = RNG0.normal(size=4) * 0.1
XS_SEQ = RNG0.normal(size=(5, 3))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@case("rnn_elman_tanh", RN, (WH, WX, XS_SEQ), argnums=(0, 1))
def rnn_elman_tanh(Wh, Wx, xs):
    h = np.zeros(4)
    for x in xs:
        h = np.tanh(x @ Wx + h @ Wh + BH)
    return np.sum(h ** 2)


@case("rnn_lstm_cell", RN, (RNG0.normal(size=(7, 16)) * 0.3, XS_SEQ))
def rnn_lstm_cell(W, xs):
    h = np.zeros(4)
    c = np.zeros(4)
    for x in xs:
        z = np.concatenate([x, h]) @ W
        i, f, o, g = np.split(z, 4)
        i, f, o = sigmoid(i), sigmoid(f + 1.0), sigmoid(o)
        g = np.tanh(g)
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum(h) + 0.1 * np.sum(c ** 2)


@case("rnn_gru_cell_dict_params", RN, ({"Wz": RNG0.normal(size=(3, 4)), "Uz": RNG0.normal(size=(4, 4)),
                                         "Wr": RNG0.normal(size=(3, 4)), "Ur": RNG0.normal(size=(4, 4)),
                                         "Wn": RNG0.normal(size=(3, 4)), "Un": RNG0.normal(size=(4, 4))}, XS_SEQ))
def rnn_gru_cell_dict_params(p, xs):
    h = np.zeros(4)
    for t in range(xs.shape[0]):
        x = xs[t]
        z = sigmoid(x @ p["Wz"] + h @ p["Uz"])
        r = sigmoid(x @ p["Wr"] + h @ p["Ur"])
        n = np.tanh(x @ p["Wn"] + (r * h) @ p["Un"])
        h = (1 - z) * n + z * h
    return np.sum(h * np.arange(1.0, 5.0))


@case("rnn_batched_seq_loss_mean", RN, (WH, np.stack([XS_SEQ, XS_SEQ[::-1]])))
def rnn_batched_seq_loss_mean(Wh, batch):
    # batch: (B, T, D)
    B, T, D = batch.shape
    h = np.zeros((B, 4))
    losses = []
    for t in range(T):
        h = np.tanh(batch[:, t, :] @ WX + h @ Wh)
        losses.append(np.mean(h ** 2, axis=1))
    return np.mean(np.stack(losses))


@case("rnn_reverse_bidirectional", RN, (WH,))
def rnn_reverse_bidirectional(Wh):
    hf = np.zeros(4)
    hb = np.zeros(4)
    outs_f, outs_b = [], []
    for x in XS_SEQ:
        hf = np.tanh(x @ WX + hf @ Wh)
        outs_f.append(hf)
    for x in reversed(XS_SEQ):
        hb = np.tanh(x @ WX + hb @ Wh.T)
        outs_b.append(hb)
    outs_b = outs_b[::-1]
    return sum(np.dot(a, b) for a, b in zip(outs_f, outs_b))


@case("rnn_attention_over_states", RN, (WH,))
def rnn_attention_over_states(Wh):
    h = np.zeros(4)
    H = []
    for x in XS_SEQ:
        h = np.tanh(x @ WX + h @ Wh)
        H.append(h)
    H = np.stack(H)  # (T, 4)
    scores = H @ h
    w = np.exp(scores - scores.max())
    w = w / w.sum()
    ctx = w @ H
    return np.sum(ctx ** 2)


@case("rnn_teacher_forcing_mse", RN, (np.array([0.8, -0.3, 0.5]),))
def rnn_teacher_forcing_mse(w):
    seq = [0.1, 0.5, 0.2, 0.7, 0.4, 0.9]
    h = 0.0
    loss = 0.0
    for prev, nxt in zip(seq[:-1], seq[1:]):
        h = math.tanh(w[0] * prev + w[1] * h + w[2])
        loss += (h - nxt) ** 2
    return loss / (len(seq) - 1)


# ------------------------------------------------------------------ particles
PA = "particles"


@case("part_lennard_jones_energy", PA, (np.array([[0.0, 0.0], [1.1, 0.1], [0.3, 1.05], [1.2, 1.0]]),))
def part_lennard_jones_energy(pos):
    n = pos.shape[0]
    E = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = np.sum((pos[i] - pos[j]) ** 2)
            inv6 = 1.0 / r2 ** 3
            E += 4.0 * (inv6 * inv6 - inv6)
    return E


@case("part_lj_vectorized_triu", PA, (np.array([[0.0, 0.0], [1.1, 0.1], [0.3, 1.05], [1.2, 1.0]]),))
def part_lj_vectorized_triu(pos):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d ** 2, axis=-1)
    iu = np.triu_indices(pos.shape[0], k=1)
    r2 = r2[iu]
    inv6 = r2 ** -3
    return np.sum(4.0 * (inv6 ** 2 - inv6))


@case("part_boids_cohesion_steps", PA, (np.array([[0.0, 0.1], [0.5, -0.2], [-0.3, 0.4], [0.2, 0.9], [0.7, 0.6]]),))
def part_boids_cohesion_steps(x):
    v = np.zeros_like(x)
    for _ in range(6):
        center = x.mean(axis=0, keepdims=True)
        v = 0.9 * v + 0.05 * (center - x)
        x = x + v
    return np.sum(x[:, 0] ** 2) - np.sum(x[:, 1])


@case("part_periodic_box_wrap", PA, (np.array([0.2, 0.95, 0.5]),))
def part_periodic_box_wrap(x):
    L = 1.0
    v = np.array([0.3, 0.4, -0.2])
    for _ in range(5):
        x = x + 0.1 * v
        x = x % L
    d = x[:, None] - x[None, :]
    d = d - L * np.round(d / L)
    return np.sum(np.cos(2 * np.pi * d))


@case("part_spring_network_energy_edges", PA, (np.array([[0.0, 0.0], [1.0, 0.1], [0.4, 0.9], [1.3, 1.1]]),))
def part_spring_network_energy_edges(pos):
    edges = [(0, 1), (1, 2), (0, 2), (2, 3), (1, 3)]
    rest = {(0, 1): 1.0, (1, 2): 1.0, (0, 2): 1.0, (2, 3): 1.0, (1, 3): 1.2}
    E = 0.0
    for (i, j) in edges:
        L = np.linalg.norm(pos[i] - pos[j])
        E += 0.5 * (L - rest[(i, j)]) ** 2
    return E


@case("part_gravity_collision_clip", PA, (np.array([1.0, 2.0, 0.5]), 0.7), argnums=(0, 1))
def part_gravity_collision_clip(h0, restitution):
    y = h0.copy()
    v = np.zeros(3)
    for _ in range(30):
        v = v - 9.81 * 0.02
        y = y + v * 0.02
        hit = y < 0.0
        v = np.where(hit, -restitution * v, v)
        y = np.maximum(y, 0.0)
    return np.sum(y) + np.sum(v)


# ------------------------------------------------------------------ PDE steps
PD = "pde"


@case("pde_heat_explicit_slices", PD, (np.sin(np.linspace(0, np.pi, 9)),))
def pde_heat_explicit_slices(u0):
    u = u0.copy()
    r = 0.3
    for _ in range(20):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2)


@case("pde_heat_periodic_roll", PD, (np.cos(np.linspace(0, 2 * np.pi, 8, endpoint=False)) + 0.1 * np.arange(8),))
def pde_heat_periodic_roll(u):
    for _ in range(15):
        u = u + 0.2 * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.sum(u ** 3)


@case("pde_heat_diffusivity_param", PD, (0.25,))
def pde_heat_diffusivity_param(kappa):
    u = np.exp(-((np.linspace(-1, 1, 11)) ** 2) * 4)
    for _ in range(10):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + kappa * lap
    return float(u[5])


@case("pde_wave_leapfrog", PD, (np.exp(-np.linspace(-2, 2, 10) ** 2),))
def pde_wave_leapfrog(u0):
    c2 = 0.5
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(12):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return np.sum(u * np.arange(10))


@case("pde_advection_upwind_roll", PD, (0.4,))
def pde_advection_upwind_roll(c):
    u = np.exp(-(np.linspace(0, 1, 12) - 0.3) ** 2 * 50)
    for _ in range(8):
        u = u - c * (u - np.roll(u, 1))
    return np.sum(u * np.linspace(0, 1, 12))


@case("pde_advection_lax_wendroff", PD, (np.exp(-(np.linspace(0, 1, 10) - 0.4) ** 2 * 30),))
def pde_advection_lax_wendroff(u):
    C = 0.6
    for _ in range(6):
        up = np.roll(u, -1)
        um = np.roll(u, 1)
        u = u - 0.5 * C * (up - um) + 0.5 * C * C * (up - 2 * u + um)
    return np.max(u) + np.sum(u ** 2)


@case("pde_heat_2d_laplacian", PD, (np.outer(np.sin(np.linspace(0, 3, 5)), np.cos(np.linspace(0, 2, 5))),))
def pde_heat_2d_laplacian(u):
    u = u.copy()
    for _ in range(5):
        lap = -4 * u
        lap += np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0)
        lap += np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1)
        u += 0.1 * lap
    return np.sum(u * u)


@case("pde_burgers_nonlinear", PD, (0.5 + 0.3 * np.sin(np.linspace(0, 2 * np.pi, 10, endpoint=False)),))
def pde_burgers_nonlinear(u):
    dt, dx, nu = 0.02, 0.1, 0.05
    for _ in range(10):
        ux = (np.roll(u, -1) - np.roll(u, 1)) / (2 * dx)
        uxx = (np.roll(u, -1) - 2 * u + np.roll(u, 1)) / dx ** 2
        u = u + dt * (-u * ux + nu * uxx)
    return np.sum(u ** 2) * dx


@case("pde_poisson_jacobi_iter", PD, (np.array([0.0, 1.0, 0.5, -0.5, 0.2, 0.0]),))
def pde_poisson_jacobi_iter(f):
    n = f.shape[0]
    u = np.zeros(n)
    for _ in range(25):
        new = u.copy()
        new[1:-1] = 0.5 * (u[:-2] + u[2:] + 0.1 * f[1:-1])
        u = new
    return np.sum(u)


@case("pde_diff_gradient_energy", PD, (A6,))
def pde_diff_gradient_energy(u):
    du = np.diff(u)
    d2u = np.diff(u, n=2)
    return 0.5 * np.sum(du ** 2) + 0.1 * np.sum(d2u ** 2)


@case("pde_pad_edge_stencil", PD, (A5,))
def pde_pad_edge_stencil(u):
    up = np.pad(u, 1, mode="edge")
    lap = up[:-2] - 2 * up[1:-1] + up[2:]
    return np.sum(lap ** 2) + np.sum(u)


@case("pde_pad_constant_stencil", PD, (A5,))
def pde_pad_constant_stencil(u):
    up = np.pad(u, (2, 1))
    s = up[:-3] + up[1:-2] * 2.0 + up[3:] * u
    return np.sum(np.sin(s))


# ------------------------------------------------------------------ solvers
S = "solver"


@case("solve_newton_cubic_root_param", S, (2.0,))
def solve_newton_cubic_root_param(a):
    # root of x^3 + a x - 1 = 0; d root / d a = -x / (3x^2 + a) at convergence
    x = 1.0
    for i in range(50):
        fx = x ** 3 + a * x - 1.0
        dx = fx / (3 * x * x + a)
        x -= dx
        if abs(dx) < 1e-14:
            break
    return x


@case("solve_bisection_then_newton_polish", S, (1.7,))
def solve_bisection_then_newton_polish(c):
    lo, hi = 0.0, 3.0
    f = lambda x: math.cos(x) - x / c
    while hi - lo > 1e-6:
        mid = 0.5 * (lo + hi)
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = 0.5 * (lo + hi)
    for _ in range(3):
        x = x - (math.cos(x) - x / c) / (-math.sin(x) - 1.0 / c)
    return x


@case("solve_fixed_point_cos", S, (0.8,))
def solve_fixed_point_cos(k):
    x = 0.0
    it = 0
    while True:
        x_new = math.cos(k * x)
        it += 1
        if abs(x_new - x) < 1e-13 or it > 500:
            x = x_new
            break
        x = x_new
    return x


@case("solve_newton_vector_system", S, (np.array([2.1, 1.2]),))
def solve_newton_vector_system(p):
    # solve x0^2 + x1 = p0, x0 + x1^3 = p1 + 1
    x = np.array([1.0, 1.0])
    for _ in range(20):
        F = np.array([x[0] ** 2 + x[1] - p[0], x[0] + x[1] ** 3 - p[1] - 1.0])
        J = np.array([[2 * x[0], 1.0], [1.0, 3 * x[1] ** 2]])
        x = x - np.linalg.solve(J, F)
    return x[0] + 2 * x[1]


@case("solve_gradient_descent_inner_loop", S, (np.array([1.0, -2.0]),))
def solve_gradient_descent_inner_loop(target):
    w = np.zeros(2)
    lr = 0.2
    for _ in range(30):
        grad_w = 2 * (w - target) + 0.1 * w ** 3
        w = w - lr * grad_w
    return np.sum(w ** 2)


@case("solve_secant_method", S, (3.0,))
def solve_secant_method(a):
    x0, x1 = 1.0, 2.0
    f0 = x0 * x0 - a
    for _ in range(30):
        f1 = x1 * x1 - a
        if f1 == f0:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        x0, f0 = x1, f1
        x1 = x2
        if abs(x1 - x0) < 1e-15:
            break
    return x1


@case("solve_conjugate_gradient", S, (np.array([1.0, -0.5, 0.25]),))
def solve_conjugate_gradient(b):
    A = SPD3
    x = np.zeros(3)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(3):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x @ np.array([1.0, 2.0, 3.0])


@case("solve_power_iteration_largest_eig", S, (SPD3,))
def solve_power_iteration_largest_eig(A):
    v = np.ones(3) / np.sqrt(3.0)
    for _ in range(60):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v


@case("solve_golden_section_min_then_value", S, (0.7,))
def solve_golden_section_min_then_value(s):
    f = lambda x: (x - s) ** 2 + 0.1 * math.sin(5 * x)
    a, b = -1.0, 2.0
    gr = (math.sqrt(5) - 1) / 2
    c = b - gr * (b - a)
    d = a + gr * (b - a)
    while abs(b - a) > 1e-8:
        if f(c) < f(d):
            b = d
        else:
            a = c
        c = b - gr * (b - a)
        d = a + gr * (b - a)
    xm = (a + b) / 2
    return f(xm)


@case("solve_gauss_newton_fit", S, (np.array([1.0, 0.3]),))
def solve_gauss_newton_fit(y_scale):
    t = np.linspace(0, 1, 6)
    y = y_scale[0] * np.exp(-2.0 * t) + y_scale[1]
    th = np.array([0.5, -1.0])
    for _ in range(8):
        pred = th[0] * np.exp(th[1] * t)
        r = pred - y
        J = np.stack([np.exp(th[1] * t), th[0] * t * np.exp(th[1] * t)], axis=1)
        th = th - np.linalg.solve(J.T @ J + 1e-3 * np.eye(2), J.T @ r)
    return np.sum(th ** 2)


# ------------------------------------------------------------------ Monte Carlo
MC = "montecarlo"


@case("mc_reparam_gaussian_expectation", MC, (np.array([0.4, -0.2]), np.array([0.3, 0.8])), argnums=(0, 1))
def mc_reparam_gaussian_expectation(mu, log_sigma):
    rng = np.random.default_rng(1234)
    eps = rng.standard_normal((200, 2))
    z = mu + np.exp(log_sigma) * eps
    return np.mean(np.sin(z[:, 0]) * z[:, 1] ** 2)


@case("mc_rng_passed_as_arg", MC, (1.3, 7))
def mc_rng_passed_as_arg(theta, seed):
    rng = np.random.default_rng(seed)
    u = rng.uniform(size=100)
    return float(np.mean(np.exp(-theta * u)))


@case("mc_elbo_loop_samples", MC, (np.array([0.1, 0.5]),))
def mc_elbo_loop_samples(q):
    mu, rho = q[0], q[1]
    sigma = np.log1p(np.exp(rho))
    rng = np.random.default_rng(0)
    total = 0.0
    for s in range(20):
        e = rng.normal()
        z = mu + sigma * e
        logp = -0.5 * (z - 1.0) ** 2
        logq = -0.5 * e ** 2 - np.log(sigma)
        total += logp - logq
    return total / 20


@case("mc_random_walk_metropolis_accept_stopgrad", MC, (0.5,))
def mc_random_walk_metropolis_accept_stopgrad(scale):
    rng = np.random.default_rng(5)
    x = 0.0
    acc = 0.0
    for _ in range(30):
        prop = x + scale * rng.normal()
        if rng.uniform() < math.exp(min(0.0, -0.5 * prop ** 2 + 0.5 * x ** 2)):
            x = prop
        acc += x * x
    return acc / 30


@case("mc_importance_weights_logsumexp", MC, (np.array([0.3, 1.1]),))
def mc_importance_weights_logsumexp(p):
    rng = np.random.default_rng(11)
    xs = rng.normal(size=50)
    logw = -0.5 * ((xs - p[0]) / p[1]) ** 2 - np.log(p[1]) + 0.5 * xs ** 2
    m = np.max(logw)
    return m + np.log(np.mean(np.exp(logw - m)))


@case("mc_legacy_seed_global_state", MC, (0.9,), doc=("E401",))
def mc_legacy_seed_global_state(a):
    np.random.seed(3)
    u = np.random.rand(40)
    return float(np.sum(np.sqrt(u + a)))


# ------------------------------------------------------------------ polynomials and splines
PO = "poly"
COEF = np.array([0.5, -1.0, 0.25, 2.0, -0.3])


@case("poly_horner_scalar", PO, (0.7, COEF), argnums=(0, 1))
def poly_horner_scalar(x, c):
    acc = 0.0
    for ck in c:
        acc = acc * x + ck
    return acc


@case("poly_horner_vector_points", PO, (np.linspace(-1, 1, 5), COEF), argnums=(0, 1))
def poly_horner_vector_points(xs, c):
    y = np.zeros_like(xs)
    for k in range(len(c)):
        y = y * xs + c[k]
    return np.sum(y ** 2)


@case("poly_polyval_numpy", PO, (np.linspace(-1, 1, 4), COEF), argnums=(0, 1))
def poly_polyval_numpy(xs, c):
    return np.sum(np.polyval(c, xs) ** 2)


@case("poly_chebyshev_recurrence", PO, (0.35, COEF), argnums=(0, 1))
def poly_chebyshev_recurrence(x, c):
    T0, T1 = 1.0, x
    s = c[0] * T0 + c[1] * T1
    for k in range(2, len(c)):
        T0, T1 = T1, 2 * x * T1 - T0
        s += c[k] * T1
    return s


@case("poly_clenshaw", PO, (np.array([-0.5, 0.1, 0.8]), COEF), argnums=(0, 1))
def poly_clenshaw(x, c):
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    for k in range(len(c) - 1, 0, -1):
        b1, b2 = 2 * x * b1 - b2 + c[k], b1
    y = x * b1 - b2 + c[0]
    return np.sum(y)


@case("poly_chebval_numpy_polynomial", PO, (np.array([-0.5, 0.1, 0.8]), COEF), argnums=(0, 1))
def poly_chebval_numpy_polynomial(x, c):
    return np.sum(np.polynomial.chebyshev.chebval(x, c) ** 2)


@case("poly_linear_interp", PO, (np.array([0.1, 0.45, 0.8, 1.3]), np.array([0.0, 1.0, 0.5, 2.0, 1.5])), argnums=(0, 1))
def poly_linear_interp(xq, yk):
    xk = np.linspace(0.0, 2.0, 5)
    return np.sum(np.interp(xq, xk, yk) ** 2)


@case("poly_catmull_rom_spline_searchsorted", PO, (np.array([0.0, 1.0, 0.3, -0.4, 0.8, 1.2]),))
def poly_catmull_rom_spline_searchsorted(pts):
    xs = np.array([0.3, 1.4, 2.2, 3.7])
    i = np.clip(np.searchsorted(np.arange(6.0), xs) - 1, 1, 3)
    t = xs - i
    p0, p1, p2, p3 = pts[i - 1], pts[i], pts[i + 1], pts[i + 2]
    y = 0.5 * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t ** 2
               + (-p0 + 3 * p1 - 3 * p2 + p3) * t ** 3)
    return np.sum(y * y)


@case("poly_bezier_de_casteljau", PO, (np.array([[0.0, 0.0], [0.3, 1.0], [0.8, 1.2], [1.0, 0.0]]),))
def poly_bezier_de_casteljau(P):
    total = 0.0
    for t in np.linspace(0.0, 1.0, 5):
        pts = [P[i] for i in range(P.shape[0])]
        while len(pts) > 1:
            pts = [(1 - t) * a + t * b for a, b in zip(pts[:-1], pts[1:])]
        total = total + np.sum(pts[0] ** 2)
    return total


@case("poly_vander_least_squares", PO, (np.array([0.1, 0.9, 0.4, 1.6, 2.5]),))
def poly_vander_least_squares(y):
    x = np.linspace(0, 1, 5)
    V = np.vander(x, 3)
    coef = np.linalg.solve(V.T @ V, V.T @ y)
    return coef[0] ** 2 + coef[1]


# ------------------------------------------------------------------ statistics
ST = "stats"


def _jlse(x):
    import jax.numpy as jnp
    m = jnp.max(x)
    return m + jnp.log(jnp.sum(jnp.exp(x - m)))


@case("stat_logsumexp_max_trick", ST, (np.array([1000.0, 1001.0, 999.5]),))
def stat_logsumexp_max_trick(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


@case("stat_logsumexp_keepdims_axis", ST, (M3 * 3.0,))
def stat_logsumexp_keepdims_axis(X):
    m = X.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(X - m).sum(axis=1, keepdims=True))
    return float(np.sum(lse * np.array([[1.0], [2.0], [-1.0]])))


@case("stat_softmax_cross_entropy", ST, (np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]]), np.array([0, 1])))
def stat_softmax_cross_entropy(logits, labels):
    z = logits - logits.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    return -np.mean(np.log(p[np.arange(len(labels)), labels]))


@case("stat_scipy_logsumexp", ST, (A4,), doc=("E202",))
def stat_scipy_logsumexp(x):
    from scipy.special import logsumexp
    return logsumexp(x * 2.0)


@case("stat_gmm_loglik", ST, (np.array([-1.0, 0.5, 2.0]), np.array([0.3, -0.2, 0.1])), argnums=(0, 1))
def stat_gmm_loglik(means, log_weights_raw):
    data = np.array([-1.2, -0.8, 0.3, 0.6, 1.9, 2.2, 2.5])
    logw = log_weights_raw - np.log(np.sum(np.exp(log_weights_raw)))
    sig = 0.7
    # (N, K)
    lp = -0.5 * ((data[:, None] - means[None, :]) / sig) ** 2 - math.log(sig * math.sqrt(2 * math.pi))
    a = lp + logw[None, :]
    m = a.max(axis=1, keepdims=True)
    ll = (m[:, 0] + np.log(np.exp(a - m).sum(axis=1)))
    return ll.sum()


@case("stat_student_t_logpdf_lgamma", ST, (3.5, 0.4), argnums=(1,))
def stat_student_t_logpdf_lgamma(nu, loc):
    xs = [0.1, -0.7, 1.5, 2.2]
    ll = 0.0
    for x in xs:
        ll += (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)
               - (nu + 1) / 2 * math.log1p((x - loc) ** 2 / nu))
    return ll


@case("stat_student_t_wrt_nu_lgamma", ST, (3.5,), doc=("E202",))
def stat_student_t_wrt_nu_lgamma(nu):
    x = 0.8
    return (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)
            - (nu + 1) / 2 * math.log1p(x * x / nu))


@case("stat_gaussian_nll_cholesky", ST, (SPD3,))
def stat_gaussian_nll_cholesky(Sigma):
    x = np.array([0.3, -0.1, 0.8])
    L = np.linalg.cholesky(Sigma)
    z = np.linalg.solve(L, x)
    return 0.5 * z @ z + np.sum(np.log(np.diag(L))) + 1.5 * math.log(2 * math.pi)


@case("stat_gaussian_nll_slogdet", ST, (SPD3,))
def stat_gaussian_nll_slogdet(Sigma):
    x = np.array([0.3, -0.1, 0.8])
    sign, logdet = np.linalg.slogdet(Sigma)
    return 0.5 * (x @ np.linalg.inv(Sigma) @ x + logdet)


@case("stat_weighted_variance_ddof", ST, (A6,))
def stat_weighted_variance_ddof(x):
    return np.var(x, ddof=1) + np.std(x) + np.median(x)


@case("stat_welford_online_variance", ST, (A6,))
def stat_welford_online_variance(xs):
    n, mean, M2_ = 0, 0.0, 0.0
    for x in xs:
        n += 1
        d = x - mean
        mean += d / n
        M2_ += d * (x - mean)
    return M2_ / (n - 1)


@case("stat_log_softmax_temperature", ST, (A5, 0.7), argnums=(0, 1))
def stat_log_softmax_temperature(logits, T):
    z = logits / T
    z = z - np.max(z)
    logp = z - np.log(np.sum(np.exp(z)))
    return -logp[2] + 0.1 * np.sum(np.exp(logp) * logp)


@case("stat_huber_quantile_losses", ST, (A6,))
def stat_huber_quantile_losses(r):
    delta, tau = 0.55, 0.8
    a = np.abs(r)
    huber = np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))
    pinball = np.maximum(tau * r, (tau - 1) * r)
    return huber.sum() + pinball.sum()


@case("stat_kde_log_density", ST, (0.35,))
def stat_kde_log_density(bw):
    data = np.array([0.1, 0.5, 0.55, 1.2, 2.0])
    q = np.array([0.3, 1.0, 1.8])
    k = np.exp(-0.5 * ((q[:, None] - data[None, :]) / bw) ** 2) / (bw * np.sqrt(2 * np.pi))
    return np.sum(np.log(k.mean(axis=1)))


@case("stat_beta_binomial_betaln_via_lgamma", ST, (np.array([2.0, 3.0]),))
def stat_beta_binomial_betaln_via_lgamma(ab):
    a, b = ab
    return float(np.sum(np.log(ab))) + a * b


@case("stat_corrcoef_loss", ST, (A6,))
def stat_corrcoef_loss(x):
    y = np.array([0.1, 0.7, -0.2, 1.0, -0.5, 0.3])
    C = np.corrcoef(x, y)
    return C[0, 1]


@case("stat_cov_matrix_trace", ST, (np.array([[0.1, 0.4, 0.2], [0.7, -0.3, 0.5], [0.2, 0.2, -0.9], [1.0, 0.1, 0.3]]),))
def stat_cov_matrix_trace(X):
    C = np.cov(X, rowvar=False)
    return np.trace(C @ C)


# ------------------------------------------------------------------ finance
FI = "finance"


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@case("fin_black_scholes_call_greeks", FI, (100.0, 95.0, 0.25, 0.02, 0.5), argnums=(0, 2, 3, 4))
def fin_black_scholes_call_greeks(S0, K, sigma, r, T):
    d1 = (math.log(S0 / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S0 * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


@case("fin_black_scholes_vectorized_erf_loop", FI, (np.array([90.0, 100.0, 110.0]), 0.3), argnums=(0, 1))
def fin_black_scholes_vectorized_erf_loop(S, sigma):
    K, r, T = 100.0, 0.01, 1.0
    total = 0.0
    for s in S:
        d1 = (np.log(s / K) + (r + sigma * sigma / 2) * T) / (sigma * np.sqrt(T))
        d2 = d1 - sigma * np.sqrt(T)
        put = K * np.exp(-r * T) * norm_cdf(-d2) - s * norm_cdf(-d1)
        total += put
    return total


@case("fin_binomial_tree_american_put", FI, (97.3, 0.2), argnums=(0, 1))
def fin_binomial_tree_american_put(S0, sigma):
    K, r, T, N = 100.0, 0.05, 1.0, 12
    dt = T / N
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    j = np.arange(N + 1)
    ST_ = S0 * u ** (N - j) * d ** j
    V = np.maximum(K - ST_, 0.0)
    for n in range(N - 1, -1, -1):
        j = np.arange(n + 1)
        Sn = S0 * u ** (n - j) * d ** j
        V = disc * (p * V[:-1] + (1 - p) * V[1:])
        V = np.maximum(V, K - Sn)
    return float(V[0])


@case("fin_binomial_tree_european_list", FI, (0.25,))
def fin_binomial_tree_european_list(sigma):
    S0, K, r, T, N = 50.0, 52.0, 0.03, 0.5, 8
    dt = T / N
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    values = [max(S0 * u ** (N - k) * d ** k - K, 0.0) for k in range(N + 1)]
    for n in range(N, 0, -1):
        values = [math.exp(-r * dt) * (p * values[k] + (1 - p) * values[k + 1]) for k in range(n)]
    return values[0]


@case("fin_mc_asian_option_paths", FI, (0.3,))
def fin_mc_asian_option_paths(sigma):
    rng = np.random.default_rng(2024)
    S0, K, r, T, steps, paths = 100.0, 100.0, 0.02, 1.0, 12, 64
    dt = T / steps
    Z = rng.standard_normal((paths, steps))
    logS = np.log(S0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z, axis=1)
    avg = np.exp(logS).mean(axis=1)
    payoff = np.maximum(avg - K, 0.0)
    return math.exp(-r * T) * payoff.mean()


@case("fin_implied_vol_newton", FI, (10.0,))
def fin_implied_vol_newton(price):
    S0, K, r, T = 100.0, 100.0, 0.01, 1.0
    sigma = 0.3
    for _ in range(30):
        d1 = (math.log(S0 / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
        d2 = d1 - sigma * math.sqrt(T)
        model = S0 * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)
        vega = S0 * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(T)
        sigma = sigma - (model - price) / vega
    return sigma


@case("fin_portfolio_variance_sharpe", FI, (np.array([0.3, 0.5, 0.2]),))
def fin_portfolio_variance_sharpe(w):
    mu = np.array([0.05, 0.08, 0.03])
    cov = np.array([[0.04, 0.01, 0.0], [0.01, 0.09, 0.02], [0.0, 0.02, 0.01]])
    w = w / w.sum()
    ret = w @ mu
    vol = np.sqrt(w @ cov @ w)
    return -(ret - 0.01) / vol


@case("fin_bond_price_ytm_discount", FI, (0.04,))
def fin_bond_price_ytm_discount(y):
    cashflows = [5.0] * 4 + [105.0]
    price = 0.0
    for t, cf in enumerate(cashflows, start=1):
        price += cf / (1 + y) ** t
    return price


# ------------------------------------------------------------------ Python styles
PY = "pystyle"


class Quadratic:
    def __init__(self, A, b):
        self.A = A
        self.b = b

    @property
    def sym(self):
        return 0.5 * (self.A + self.A.T)

    def __call__(self, x):
        return 0.5 * x @ self.sym @ x - self.b @ x


QUAD = Quadratic(M3, np.array([1.0, -1.0, 0.5]))


@custom("py_callable_object_with_property", PY)
def py_callable_object_with_property():
    g = revsrc.grad(QUAD)(A3)
    close(g, fd(QUAD, A3), rtol=1e-6, what="grad")


class Dense:
    def __init__(self, W, b, act="tanh"):
        self.W, self.b, self.act = W, b, act

    @property
    def out_dim(self):
        return self.W.shape[1]

    def __call__(self, h):
        z = h @ self.W + self.b
        if self.act == "tanh":
            return np.tanh(z)
        if self.act == "relu":
            return np.maximum(z, 0.0)
        return z


@case("py_layers_built_inside_property_shape", PY, (RNG0.normal(size=(3, 4)), RNG0.normal(size=(4, 2))), argnums=(0, 1))
def py_layers_built_inside_property_shape(W1, W2):
    net = [Dense(W1, np.zeros(4)), Dense(W2, np.ones(2) * 0.1, act="linear")]
    h = XS_SEQ
    for layer in net:
        h = layer(h)
    return np.sum(h ** 2) / net[-1].out_dim


@dataclasses.dataclass
class LinParams:
    w: np.ndarray
    b: float


@case("py_dataclass_params", PY, (LinParams(np.array([0.5, -0.3, 0.2]), 0.1), XS_SEQ))
def py_dataclass_params(p, X):
    pred = X @ p.w + p.b
    return np.mean((pred - 1.0) ** 2)


@dataclasses.dataclass
class ModelCfg:
    w: np.ndarray
    depth: int = dataclasses.field(default=3, metadata={"static": True})


@case("py_dataclass_static_field_loop", PY, (ModelCfg(np.array([0.9, 0.2])),))
def py_dataclass_static_field_loop(cfg):
    x = np.array([1.0, 0.5])
    for _ in range(cfg.depth):
        x = np.tanh(cfg.w * x + x[::-1])
    return np.sum(x)


Pt = namedtuple("Pt", ["x", "y"])


@case("py_namedtuple_arg_fields", PY, (Pt(0.3, 1.2),))
def py_namedtuple_arg_fields(p):
    r = math.hypot(p.x, p.y)
    return r * math.atan2(p.y, p.x)


@case("py_namedtuple_replace_inside", PY, (Pt(0.3, 1.2),))
def py_namedtuple_replace_inside(p):
    q = p._replace(x=p.x * 2.0)
    return q.x * q.y + p.x


class Gauss(NamedTuple):
    mu: float
    log_s: float = 0.0


@case("py_typing_namedtuple_default", PY, (Gauss(0.2, -0.3),))
def py_typing_namedtuple_default(g):
    other = Gauss(1.0)
    s1, s2 = math.exp(g.log_s), math.exp(other.log_s)
    return math.log(s2 / s1) + (s1 ** 2 + (g.mu - other.mu) ** 2) / (2 * s2 ** 2) - 0.5


@case("py_nested_dict_list_pytree", PY, ({"enc": [np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([0.1, 0.0])],
                                         "dec": {"w": np.array([1.0, -1.0]), "scale": 0.5}},))
def py_nested_dict_list_pytree(params):
    W, b = params["enc"]
    h = np.tanh(np.array([1.0, 2.0]) @ W + b)
    return params["dec"]["scale"] * np.dot(h, params["dec"]["w"]) ** 2


@case("py_dict_items_sorted_loop", PY, ({"b": 0.5, "a": 2.0, "c": -1.0},))
def py_dict_items_sorted_loop(coeffs):
    total = 0.0
    for i, (name, v) in enumerate(sorted(coeffs.items())):
        total += (i + 1) * v ** 2
    return total


@case("py_dict_get_default", PY, ({"w": 0.7},))
def py_dict_get_default(p):
    bias = p.get("b", 0.25)
    return p["w"] ** 3 + bias * p["w"]


@case("py_generator_function_yield", PY, (A4,), doc=("E101",))
def py_generator_function_yield(x):
    def pairs(v):
        for i in range(len(v) - 1):
            yield v[i] * v[i + 1]
    return sum(pairs(x))


@case("py_generator_expr_with_filter", PY, (A6,))
def py_generator_expr_with_filter(x):
    return sum(v * v for v in x if v > 0) + max(abs(v) for v in x)


@case("py_enumerate_zip_weights", PY, (A4, np.array([1.0, 0.5, 0.25, 0.125])), argnums=(0, 1))
def py_enumerate_zip_weights(x, w):
    s = 0.0
    for i, (xi, wi) in enumerate(zip(x, w), start=1):
        s += wi * xi ** i
    return s


@case("py_early_return_in_loop", PY, (A6,))
def py_early_return_in_loop(x):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] ** 2
        if acc > 1.5:
            return acc * x[i]
    return -acc


@case("py_while_break_continue", PY, (A6,))
def py_while_break_continue(x):
    i = 0
    s = 0.0
    while i < len(x):
        v = x[i]
        i += 1
        if v < -0.6:
            continue
        if v > 1.0:
            s += 10 * v
            break
        s += v * v
    return s


@case("py_try_except_fallback", PY, (0.5,), doc=("E101",))
def py_try_except_fallback(x):
    try:
        return math.log(x)
    except ValueError:
        return 0.0


@case("py_recursion_depth_int", PY, (0.3, 4), doc=("E103",))
def py_recursion_depth_int(x, depth):
    if depth == 0:
        return x
    return math.sin(py_recursion_depth_int(x, depth - 1)) + x


GLOBAL_W = np.array([0.2, 0.4, -0.1])
GLOBAL_SCALE = 3.0


@case("py_global_constants", PY, (A3,))
def py_global_constants(x):
    return GLOBAL_SCALE * np.dot(GLOBAL_W, x) ** 2 + np.sum(GLOBAL_W * x ** 3)


def make_loss(target, power=2):
    def loss(x):
        return np.sum(np.abs(x - target) ** power)
    return loss


@custom("py_closure_factory", PY)
def py_closure_factory():
    f = make_loss(np.array([0.1, 0.2, 0.3]), power=3)
    close(revsrc.grad(f)(A3), fd(f, A3), rtol=1e-6)
    f2 = make_loss(np.array([0.0, 0.0, 0.0]))
    close(revsrc.grad(f2)(A3), 2 * A3, rtol=1e-12)


def make_counter_loss():
    calls = []

    def loss(x):
        calls.append(1)
        return x * x
    return loss, calls


@case("py_closure_mutates_cell_list", PY, (1.5,), doc=("E401",))
def py_closure_mutates_cell_list(x):
    f, calls = make_counter_loss()
    return f(x) + len(calls)


def _scaled_loss(w, X, y, *, l2=0.0, reduce="mean"):
    r = X @ w - y
    val = np.mean(r ** 2) if reduce == "mean" else np.sum(r ** 2)
    return val + l2 * np.sum(w ** 2)


@custom("py_partial_keyword_only", PY)
def py_partial_keyword_only():
    y = np.array([0.1, -0.2, 0.3, 0.5, 0.0])
    f = functools.partial(_scaled_loss, X=XS_SEQ, y=y, l2=0.3, reduce="sum")
    w = np.array([0.2, -0.1, 0.4])
    close(revsrc.grad(f)(w), fd(f, w), rtol=1e-6)
    f2 = functools.partial(functools.partial(_scaled_loss, l2=0.1), X=XS_SEQ)
    g = revsrc.grad(f2)(w, y=y)
    close(g, fd(lambda t: f2(t, y=y), w), rtol=1e-6)


def log_calls(fn):
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        return out
    return wrapper


def scale_output(factor):
    def deco(fn):
        @functools.wraps(fn)
        def inner(x, *rest):
            return factor * fn(x, *rest)
        return inner
    return deco


@log_calls
@scale_output(3.0)
def _decorated(x, y):
    return math.sin(x) * y


@custom("py_stacked_user_decorators", PY)
def py_stacked_user_decorators():
    g = revsrc.grad(_decorated, argnums=(0, 1))(0.4, 2.0)
    close(g[0], 3.0 * math.cos(0.4) * 2.0, rtol=1e-12)
    close(g[1], 3.0 * math.sin(0.4), rtol=1e-12)


def clip_grad_decorator(fn):
    def wrapper(x):
        y = fn(x)
        return np.clip(y, -1.0, 1.0)
    return wrapper


@clip_grad_decorator
def _clipped(x):
    return np.sum(x ** 3)


@case("py_decorator_clip_output", PY, (np.array([0.3, 0.5, -0.4]),))
def py_decorator_clip_output(x):
    return _clipped(x) * 2.0


@case("py_type_hints_optional", PY, (A3, None))
def py_type_hints_optional(x: np.ndarray, w: "np.ndarray | None" = None) -> float:
    if w is None:
        w = np.ones_like(x)
    return float(np.sum(w * np.exp(x)))


@case("py_star_args_sum", PY, (0.5, 1.5, -0.25), argnums=(0, 1, 2))
def py_star_args_sum(*xs):
    total = 0.0
    for i, x in enumerate(xs):
        total += (i + 1) * x ** 2
    return total * xs[0]


def _weighted(x, **weights):
    return sum(w * getattr(np, name)(x) for name, w in weights.items())


@case("py_kwargs_getattr_np", PY, (0.7,))
def py_kwargs_getattr_np(x):
    return _weighted(x, sin=2.0, cos=-1.0, exp=0.5)


@case("py_kwargs_forwarding", PY, (A3,))
def py_kwargs_forwarding(x):
    opts = {"l2": 0.5, "reduce": "sum"}
    return _scaled_loss(x, XS_SEQ, np.zeros(5), **opts)


@case("py_lambda_default_capture_loop", PY, (A3,))
def py_lambda_default_capture_loop(x):
    fs = [lambda v, k=k: v ** k for k in range(1, 4)]
    return sum(np.sum(f(x)) for f in fs)


@case("py_sorted_key_lambda", PY, (A6,))
def py_sorted_key_lambda(x):
    xs = sorted(list(x), key=lambda v: abs(v))
    return xs[-1] * 2 + xs[0] * xs[1]


@case("py_max_with_key", PY, ([0.3, -1.4, 0.9],))
def py_max_with_key(vals):
    best = max(vals, key=lambda v: v * v)
    return best ** 3


@case("py_reduce_lambda", PY, (A4,), doc=("E202",))
def py_reduce_lambda(x):
    return functools.reduce(lambda a, b: a * b + 1.0, x)


@case("py_map_builtin", PY, ([0.3, 0.8, -0.5],), doc=("E202",))
def py_map_builtin(xs):
    return sum(map(math.sin, xs)) + sum(list(map(lambda v: v * v, xs)))


@case("py_first_star_rest_unpack", PY, (A5,))
def py_first_star_rest_unpack(x):
    first, *middle, last = x
    return first * last + sum(m ** 2 for m in middle)


@case("py_walrus", PY, (A3,), doc=("E101",))
def py_walrus(x):
    if (n := np.sum(x ** 2)) > 1.0:
        return n
    return -n


@case("py_match_statement", PY, (0.4, "sq"), doc=("E101",))
def py_match_statement(x, mode):
    match mode:
        case "sq":
            return x * x
        case _:
            return x


@case("py_isinstance_dispatch", PY, (0.4,))
def py_isinstance_dispatch(x):
    def f(v):
        if isinstance(v, np.ndarray):
            return np.sum(v ** 2)
        return v ** 2
    return f(x) + f(np.array([x, 2 * x]))


class Base:
    def energy(self, x):
        return np.sum(x ** 2)


class Child(Base):
    def __init__(self, k):
        self.k = k

    def energy(self, x):
        return super().energy(x) + self.k * np.sum(np.cos(x))


@custom("py_inheritance_super_method", PY)
def py_inheritance_super_method():
    c = Child(0.7)
    g = revsrc.grad(c.energy)(A3)
    close(g, 2 * A3 - 0.7 * np.sin(A3), rtol=1e-12)


class Stats:
    @staticmethod
    def lse(v):
        m = np.max(v)
        return m + np.log(np.sum(np.exp(v - m)))

    @classmethod
    def neg_lse(cls, v):
        return -cls.lse(v)


@case("py_static_and_classmethod_called_inside", PY, (A4,))
def py_static_and_classmethod_called_inside(x):
    return Stats.lse(x) + 0.5 * Stats.neg_lse(2 * x)


@case("py_item_and_float_conversion", PY, (A3,))
def py_item_and_float_conversion(x):
    s = np.sum(x ** 2)
    return float(s) + s.item() * x[0].item()


@case("py_int_index_from_float", PY, (np.array([0.4, 1.7, 2.2]),))
def py_int_index_from_float(x):
    table = np.array([1.0, 2.0, 4.0, 8.0])
    idx = int(x[1])
    return table[idx] * x[0] + x[2] ** 2


@case("py_list_pop_reverse", PY, (A4,))
def py_list_pop_reverse(x):
    xs = list(x)
    last = xs.pop()
    xs.reverse()
    return last * xs[0] + sum(xs)


@case("py_list_sort_in_place", PY, (A4,), doc=("E401",))
def py_list_sort_in_place(x):
    xs = [v * 2.0 for v in x]
    xs.sort()
    return xs[0] - xs[-1] * xs[1]


@case("py_math_fsum_prod", PY, ([0.3, 0.8, -0.5],), doc=("E202",))
def py_math_fsum_prod(xs):
    return math.fsum(xs) + math.prod(xs)


@case("py_itertools_accumulate", PY, (A4,), doc=("E202",))
def py_itertools_accumulate(x):
    import itertools
    cums = list(itertools.accumulate(x))
    return sum(c * c for c in cums)


@case("py_any_all_guards", PY, (A4,))
def py_any_all_guards(x):
    if any(v < -1.0 for v in x):
        return 0.0
    if all(v > -0.5 for v in x):
        return float(np.sum(np.exp(x)))
    return float(np.sum(x))


@case("py_fstring_assert_message", PY, (A3,))
def py_fstring_assert_message(x):
    n = np.linalg.norm(x)
    assert n > 0, f"zero vector: {x}"
    return n


@case("py_default_mutable_arg", PY, (0.5,))
def py_default_mutable_arg(x, cache={"k": 3.0}):
    return cache["k"] * x ** 2


@case("py_nested_def_calls_sibling", PY, (A3,))
def py_nested_def_calls_sibling(x):
    def sq(v):
        return v * v

    def quart(v):
        return sq(sq(v))

    return np.sum(quart(x) - sq(x))


@case("py_conditional_expr_in_comprehension", PY, (A6,))
def py_conditional_expr_in_comprehension(x):
    ys = [v if v > 0 else 0.1 * v for v in x]
    return sum(y * y for y in ys)


@case("py_divmod_floor", PY, (2.7,), doc=("E202",))
def py_divmod_floor(x):
    q, r = divmod(x, 1.0)
    return r * r + q * x


@case("py_with_errstate_and_nan_to_num", PY, (np.array([-0.5, 1.0, 2.0]),))
def py_with_errstate_and_nan_to_num(x):
    with np.errstate(divide="ignore"):
        y = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), 0.0)
    return np.sum(y * x + x)


@case("py_class_defined_inside", PY, (0.5,), doc=("E101",))
def py_class_defined_inside(x):
    class Sq:
        def __call__(self, v):
            return v * v
    return Sq()(x)


@case("py_del_statement", PY, (A3,), doc=("E101",))
def py_del_statement(x):
    y = x * 2
    z = np.sum(y)
    del y
    return z * z


@case("py_local_import", PY, (0.6,))
def py_local_import(x):
    from math import sin as s, exp
    import numpy
    return s(x) * exp(x) + numpy.tanh(x)


@case("py_string_mode_switch", PY, (A4, "l1"))
def py_string_mode_switch(x, mode):
    if mode.lower() == "l1":
        return np.sum(np.abs(x))
    elif mode == "l2":
        return np.sqrt(np.sum(x * x))
    raise ValueError(mode)


@case("py_swap_and_tuple_return_helper", PY, (0.3, 0.9), argnums=(0, 1))
def py_swap_and_tuple_return_helper(a, b):
    def minmax(u, v):
        return (u, v) if u < v else (v, u)
    for _ in range(3):
        a, b = b, a + b
        lo, hi = minmax(a, b)
    return lo * hi


@case("py_set_literal", PY, (0.3,), doc=("E101",))
def py_set_literal(x):
    s = {1, 2, 3}
    return x * len(s)


# ------------------------------------------------------------------ NumPy idioms
NP = "numpy"
T3 = np.arange(24.0).reshape(2, 3, 4) / 10.0 - 1.0


def _jnp():
    import jax.numpy as jnp
    return jnp


@case("np_einsum_batched_matmul_trace", NP, (T3, np.arange(8.0).reshape(2, 4, 1) / 5.0), argnums=(0, 1))
def np_einsum_batched_matmul_trace(A, B):
    C = np.einsum("bij,bjk->bik", A, B)
    return np.einsum("bik,bik->", C, C) + np.einsum("ii", A[0, :, :3])


@case("np_einsum_ellipsis_outer", NP, (A3, A4), argnums=(0, 1))
def np_einsum_ellipsis_outer(u, v):
    O_ = np.einsum("i,j->ij", u, v)
    return np.sum(np.einsum("...j,j->...", O_, v) ** 2)


@case("np_einsum_diag_extract", NP, (M3,))
def np_einsum_diag_extract(A):
    d = np.einsum("ii->i", A)
    return np.sum(d ** 3) + np.einsum("ij,ji->", A, A)


@case("np_tensordot_axes", NP, (T3, np.arange(12.0).reshape(3, 4) / 7.0), argnums=(0, 1))
def np_tensordot_axes(A, B):
    c = np.tensordot(A, B, axes=([1, 2], [0, 1]))
    d = np.tensordot(B, B, axes=2)
    e = np.tensordot(A[0], B.T, axes=1)
    return np.sum(c ** 2) + d + np.trace(e)


@case("np_linalg_inv_det", NP, (M3,))
def np_linalg_inv_det(A):
    return np.sum(np.linalg.inv(A) ** 2) + np.linalg.det(A)


@case("np_linalg_eigh_eigenvalues_and_vectors", NP, (SPD3,))
def np_linalg_eigh_eigenvalues_and_vectors(A):
    S = 0.5 * (A + A.T)
    w, V = np.linalg.eigh(S)
    v0 = V[:, 0] * np.sign(V[0, 0])
    return w[-1] - w[0] + np.sum(v0 * np.array([1.0, 2.0, 3.0]))


@case("np_linalg_qr", NP, (np.array([[1.0, 0.5], [0.2, 1.3], [0.7, -0.4]]),))
def np_linalg_qr(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(R))) + np.sum(Q[:, 0] * np.sign(R[0, 0]))


@case("np_linalg_norm_variants", NP, (M3,))
def np_linalg_norm_variants(A):
    return (np.linalg.norm(A) + np.linalg.norm(A, ord=1) + np.linalg.norm(A, ord=np.inf)
            + np.sum(np.linalg.norm(A, axis=1)) + np.linalg.norm(A[0], ord=3))


@case("np_linalg_matrix_power_and_trace", NP, (M3,))
def np_linalg_matrix_power_and_trace(A):
    return np.trace(np.linalg.matrix_power(A, 3)) + np.sum(np.linalg.matrix_power(A, 0))


@case("np_linalg_lstsq", NP, (np.array([1.0, 2.0, 2.5, 4.1]),))
def np_linalg_lstsq(y):
    X = np.stack([np.ones(4), np.arange(4.0)], axis=1)
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    return coef[1] ** 2 + coef[0]


@case("np_linalg_pinv", NP, (np.array([[1.0, 0.5], [0.2, 1.3], [0.7, -0.4]]),))
def np_linalg_pinv(A):
    return np.sum(np.linalg.pinv(A) ** 2)


@case("np_linalg_solve_matrix_rhs", NP, (SPD3, np.array([[1.0, 0.0], [0.5, 1.0], [-1.0, 2.0]])), argnums=(0, 1))
def np_linalg_solve_matrix_rhs(A, B):
    X = np.linalg.solve(A, B)
    return np.sum(X * X)


@case("np_cumsum_cumprod", NP, (A5,))
def np_cumsum_cumprod(x):
    return np.sum(np.cumsum(x) ** 2) + np.sum(np.cumprod(x))


@case("np_cumprod_with_zero", NP, (np.array([0.5, 0.0, 1.3, -0.7]),))
def np_cumprod_with_zero(x):
    return np.sum(np.cumprod(x)) + np.prod(x)


@case("np_prod_two_zeros", NP, (np.array([0.5, 0.0, 1.3, 0.0]),))
def np_prod_two_zeros(x):
    return np.prod(x) + np.prod(x[:2])


@case("np_cumsum_axis_reverse", NP, (M3,))
def np_cumsum_axis_reverse(A):
    rc = np.cumsum(A[:, ::-1], axis=1)[:, ::-1]
    return np.sum(rc * np.arange(9.0).reshape(3, 3))


@case("np_max_with_ties", NP, (np.array([0.7, 0.2, 0.7]),))
def np_max_with_ties(x):
    return np.max(x)


def _maximum_tie(a, b):
    return np.sum(np.maximum(a, b))


@custom("np_maximum_tie", NP)
def np_maximum_tie():
    """At a tie, any split (ga, gb) with ga + gb = 1, both in [0, 1], is a subgradient;
    JAX splits 0.5/0.5 and so does revsrc's np.max of ties."""
    ga, gb = revsrc.grad(_maximum_tie, argnums=(0, 1))(np.array([0.5, 0.3]), np.array([0.5, 0.1]))
    close(ga[1], 1.0)
    close(gb[1], 0.0)
    assert 0 <= ga[0] <= 1 and 0 <= gb[0] <= 1 and abs(ga[0] + gb[0] - 1) < 1e-12, (ga, gb)


@case("np_amax_axis_ties_2d", NP, (np.array([[1.0, 1.0, 0.2], [0.3, 0.9, 0.9]]),))
def np_amax_axis_ties_2d(A):
    return np.sum(A.max(axis=1) * np.array([1.0, 2.0]))


@case("np_where_clip_maximum", NP, (A6,))
def np_where_clip_maximum(x):
    y = np.where(x > 0.3, x ** 2, -x)
    z = np.clip(x, -0.55, 0.95)
    return np.sum(y * z) + np.sum(np.maximum(x, 0.1) ** 2) + np.sum(np.minimum(x, y))


@case("np_sort_and_argsort_gather", NP, (A6,))
def np_sort_and_argsort_gather(x):
    s = np.sort(x)
    idx = np.argsort(-x)
    w = np.arange(1.0, 7.0)
    return np.sum(s * w) + np.sum(x[idx][:3] ** 2)


@case("np_take_along_axis_topk", NP, (M3,))
def np_take_along_axis_topk(A):
    idx = np.argsort(A, axis=1)[:, -2:]
    top = np.take_along_axis(A, idx, axis=1)
    return np.sum(top ** 2)


@case("np_fancy_index_repeated_read", NP, (A4,))
def np_fancy_index_repeated_read(x):
    idx = np.array([0, 2, 2, 3, 0, 0])
    return np.sum(x[idx] * np.arange(6.0))


@case("np_fancy_2d_pairs", NP, (M3,))
def np_fancy_2d_pairs(A):
    rows = np.array([0, 1, 2, 2])
    cols = np.array([2, 0, 1, 2])
    return np.sum(A[rows, cols] ** 2) + np.sum(A[[0, 2]][:, [1]])


@case("np_boolean_mask_from_values", NP, (A6,))
def np_boolean_mask_from_values(x):
    pos = x[x > 0]
    neg = x[x <= 0]
    return np.sum(pos ** 2) - np.sum(neg ** 3) + pos.size


@case("np_boolean_mask_assign", NP, (A6,))
def np_boolean_mask_assign(x):
    y = x * 2.0
    y[y < 0] = 0.0
    y[y > 1.5] *= 0.5
    return np.sum(y * x)


@case("np_broadcast_outer_grad_reduce", NP, (np.array([[0.1], [0.5], [-0.3]]), np.array([[1.0, 2.0, -1.0, 0.5]])), argnums=(0, 1))
def np_broadcast_outer_grad_reduce(col, row):
    M = np.sin(col * row) + col / (1.0 + row ** 2)
    return np.sum(M ** 2)


@case("np_reshape_transpose_stack_concat", NP, (A6,))
def np_reshape_transpose_stack_concat(x):
    A = x.reshape(2, 3)
    B = A.T
    C = np.stack([A[0], A[1] * 2], axis=1)
    D = np.concatenate([B, C], axis=1)
    E = np.vstack([D, D[:1]]) @ np.ones(4)
    return np.sum(E ** 2) + np.sum(np.hstack([x, x[::-1]]) * np.arange(12.0))


@case("np_split_pieces", NP, (A6,))
def np_split_pieces(x):
    a, b, c = np.split(x, 3)
    parts = np.array_split(x, 4)
    return np.dot(a, b) * np.sum(c) + sum(np.sum(p ** 2) * (i + 1) for i, p in enumerate(parts))


@case("np_pad_reflect_wrap", NP, (A4,))
def np_pad_reflect_wrap(x):
    a = np.pad(x, 2, mode="reflect")
    b = np.pad(x, (1, 2), mode="wrap")
    return np.sum(a * np.arange(8.0)) + np.sum(b ** 3)


@case("np_diff_axis_prepend", NP, (M3,))
def np_diff_axis_prepend(A):
    d0 = np.diff(A, axis=0)
    d1 = np.diff(A, axis=1, prepend=0.0)
    return np.sum(d0 ** 2) + np.sum(d1 ** 3)


@case("np_interp_wrt_xp_fp", NP, (np.array([0.0, 0.8, 1.5, 3.0]), np.array([1.0, 0.2, 0.7, 2.0])), argnums=(0, 1))
def np_interp_wrt_xp_fp(xp, fp):
    q = np.array([0.3, 1.0, 2.2, 2.9])
    return np.sum(np.interp(q, xp, fp) ** 2)


@case("np_inplace_slice_ops", NP, (A6,))
def np_inplace_slice_ops(x):
    y = x.copy()
    y[::2] *= 2.0
    y[1] += y[0] * y[2]
    y[-2:] -= x[:2]
    y /= 1.5
    return np.sum(y ** 2)


@case("np_inplace_overlapping_iadd", NP, (A5,))
def np_inplace_overlapping_iadd(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y * np.arange(1.0, 6.0))


@case("np_inplace_view_of_local", NP, (A6,))
def np_inplace_view_of_local(x):
    y = x ** 2
    m = y.reshape(2, 3)
    m[:, 0] = m[:, 1] * x[0]
    return np.sum(y * x)


@case("np_inplace_loop_accumulate_rows", NP, (M3,))
def np_inplace_loop_accumulate_rows(A):
    out = np.zeros(3)
    for i in range(3):
        out += A[i] * (i + 1)
        out[i] *= A[i, i]
    return np.sum(out ** 2)


@case("np_add_at_histogram", NP, (A6,))
def np_add_at_histogram(x):
    bins = np.array([0, 1, 1, 2, 0, 2])
    h = np.zeros(3)
    np.add.at(h, bins, x ** 2)
    return np.sum(h * np.array([1.0, -2.0, 3.0]))


@custom("np_float32_input", NP)
def np_float32_input():
    x = np.array([0.3, -1.2, 0.7], dtype=np.float32)

    def f(x):
        return np.sum(np.tanh(x) * x)
    g = revsrc.grad(f)(x)
    assert g.dtype == np.float32, g.dtype
    x64 = x.astype(np.float64)
    close(g, fd(f, x64), rtol=1e-4, atol=1e-5)


@custom("np_float32_matmul_and_float64_param_mix", NP)
def np_float32_matmul_and_float64_param_mix():
    X = np.array([[0.5, 1.0], [2.0, -1.0]], dtype=np.float32)

    def f(w, X):
        return np.sum((X @ w) ** 2)
    w = np.array([0.3, -0.7])
    g = revsrc.grad(f)(w, X)
    assert g.dtype == np.float64
    close(g, fd(lambda t: f(t, X.astype(np.float64)), w), rtol=1e-5)


@case("np_integer_array_arg_nondiff", NP, (A4, np.array([3, 1, 0, 2])))
def np_integer_array_arg_nondiff(x, perm):
    return np.sum(x[perm] * perm) + np.sum(x * perm ** 2)


@case("np_integer_arg_in_argnums", NP, (np.array([1, 2, 3]),), doc=("E301",))
def np_integer_arg_in_argnums(x):
    return np.sum(x * 2.0)


@custom("np_zero_d_array_arg", NP)
def np_zero_d_array_arg():
    def f(x):
        return np.sin(x) * x ** 2
    x = np.array(0.8)
    g = revsrc.grad(f)(x)
    assert isinstance(g, np.ndarray) and g.shape == () and g.dtype == np.float64, repr(g)
    close(g, np.cos(0.8) * 0.64 + 2 * 0.8 * np.sin(0.8), rtol=1e-12)


@case("np_zero_d_arithmetic_in_loop", NP, (np.array(0.3),))
def np_zero_d_arithmetic_in_loop(x):
    acc = np.array(0.0)
    for k in range(4):
        acc = acc + x ** k / math.factorial(k)
    return acc


@case("np_empty_array_arg", NP, (np.zeros(0), 0.5), argnums=(0, 1))
def np_empty_array_arg(x, a):
    return np.sum(x ** 2) + a * x.size + a ** 2


@case("np_empty_slice_in_loop", NP, (A4,))
def np_empty_slice_in_loop(x):
    s = 0.0
    for i in range(len(x) + 1):
        s += np.sum(x[:i] ** 2) * np.sum(x[i:])
    return s


@case("np_inf_input_exp_neg", NP, (np.array([0.5, np.inf, -1.0]),))
def np_inf_input_exp_neg(x):
    return np.sum(np.exp(-x) * 2.0)


def _nansum_nanmean(x):
    return np.nansum(x ** 2) + np.nanmean(x)


@custom("np_nansum_nanmean", NP)
def np_nansum_nanmean():
    """The NaN entry is skipped whatever it is nudged to: its gradient is 0 (JAX gives
    0 * 2 * nan = nan); the others by FD."""
    x = np.array([0.5, np.nan, -1.0, 2.0])
    g = revsrc.grad(_nansum_nanmean)(x)
    assert g[1] == 0.0, g
    close(g[[0, 2, 3]], fd(_nansum_nanmean, x)[[0, 2, 3]], rtol=1e-6)


@case("np_nanmean_nansum_linear", NP, (np.array([0.5, np.nan, -1.0, 2.0]),))
def np_nanmean_nansum_linear(x):
    return np.nansum(3.0 * x) + np.nanmean(x)


@case("np_nanmax", NP, (np.array([0.5, np.nan, -1.0, 2.0]),))
def np_nanmax(x):
    return np.nanmax(x * 2.0) + np.nanmin(x)


@case("np_isfinite_mask_where", NP, (np.array([0.5, np.inf, -1.0, np.nan]),))
def np_isfinite_mask_where(x):
    ok = np.isfinite(x)
    safe = np.where(ok, x, 0.0)
    return np.sum(safe ** 2)


@custom("np_sqrt_at_zero_is_inf", NP)
def np_sqrt_at_zero_is_inf():
    with np.errstate(all="ignore"):
        g = revsrc.grad(lambda x: np.sum(np.sqrt(x)))(np.array([0.0, 4.0]))
    assert np.isinf(g[0]) and g[0] > 0 and g[1] == 0.25, g


@custom("np_norm_at_zero_vector", NP)
def np_norm_at_zero_vector():
    jax = _jax()
    with np.errstate(all="ignore"):
        g = revsrc.grad(lambda x: np.linalg.norm(x))(np.zeros(3))
    # JAX gives nan here; any vector of norm <= 1 is a subgradient: accept either
    assert np.all(np.isnan(g)) or np.linalg.norm(g) <= 1.0, g


@case("np_trace_diag_triu_tril", NP, (M3,))
def np_trace_diag_triu_tril(A):
    return np.trace(A @ A) + np.sum(np.diag(A) ** 2) + np.sum(np.triu(A, 1) ** 2) - np.sum(np.tril(A) * 3.0) + np.sum(np.diag(np.diag(A)) @ A)


@case("np_outer_kron_cross", NP, (A3,))
def np_outer_kron_cross(x):
    return np.sum(np.outer(x, x) ** 2) + np.sum(np.kron(x, x[::-1])) + np.sum(np.cross(x, np.array([1.0, 2.0, 0.5])) ** 2)


@case("np_axes_moves", NP, (T3,))
def np_axes_moves(T):
    a = np.moveaxis(T, 0, -1)
    b = np.swapaxes(T, 1, 2)
    c = np.expand_dims(T[0], 0).squeeze(0)
    return np.sum(a[..., 0] ** 2) + np.sum(b[1] * np.arange(12.0).reshape(4, 3)) + np.sum(c[None, :, :] ** 3)


@case("np_tile_repeat_flip_rot", NP, (M2,))
def np_tile_repeat_flip_rot(A):
    t = np.tile(A, (2, 1))
    r = np.repeat(A, 2, axis=1)
    return np.sum(t * np.arange(8.0).reshape(4, 2)) + np.sum(r ** 2 * np.arange(8.0).reshape(2, 4)) + np.sum(np.flip(A) * np.rot90(A))


@case("np_average_weights", NP, (A4, np.array([1.0, 2.0, 0.5, 1.5])), argnums=(0, 1))
def np_average_weights(x, w):
    return np.average(x ** 2, weights=w)


@case("np_hypot_arctan2_logaddexp", NP, (A3, np.array([0.5, 0.4, -0.9])), argnums=(0, 1))
def np_hypot_arctan2_logaddexp(x, y):
    return np.sum(np.hypot(x, y) + np.arctan2(y, x) + np.logaddexp(x, y))


@case("np_meshgrid_rbf", NP, (0.6,))
def np_meshgrid_rbf(ell):
    xs = np.linspace(0, 1, 4)
    X1, X2 = np.meshgrid(xs, xs, indexing="ij")
    K = np.exp(-(X1 - X2) ** 2 / (2 * ell ** 2))
    return np.linalg.slogdet(K + 0.1 * np.eye(4))[1]


@case("np_piecewise_function", NP, (A6,))
def np_piecewise_function(x):
    y = np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, lambda v: np.sin(v)])
    return np.sum(y)


@case("np_select_conditions", NP, (A6,))
def np_select_conditions(x):
    y = np.select([x < -0.45, x < 0.5], [x ** 2, 2 * x], default=np.exp(x))
    return np.sum(y)


@case("np_array_split_unequal_loop", NP, (A6,))
def np_array_split_unequal_loop(x):
    s = 0.0
    for p in np.array_split(x, 4):
        s = s + np.sum(p ** 2)
    return s


@case("np_array_split_unequal_unpack", NP, (A6,))
def np_array_split_unequal_unpack(x):
    a, b, c, d = np.array_split(x, 4)
    return np.sum(a ** 2) + np.sum(d) * c[0]


@case("np_atleast_2d_squeeze_ravel", NP, (A3,))
def np_atleast_2d_squeeze_ravel(x):
    X = np.atleast_2d(x)
    return np.sum((X.T @ X).ravel() * np.arange(9.0)) + np.sum(X.flatten())


@case("np_heaviside_sign_times", NP, (A6,))
def np_heaviside_sign_times(x):
    return np.sum(np.heaviside(x, 0.5) * x ** 2 + np.sign(x) * x)


@case("np_astype_and_array_from_list_of_arrays", NP, (A3,))
def np_astype_and_array_from_list_of_arrays(x):
    M = np.array([x, x ** 2, np.ones(3)])
    return np.sum(M.astype(np.float64) @ x)


@case("np_method_reductions", NP, (M3,))
def np_method_reductions(A):
    return A.sum() * A.mean(axis=0).max() + A.prod(axis=1).sum() + A.std() + A.min()


@case("np_std_var_axis", NP, (M3,))
def np_std_var_axis(A):
    return np.sum(A.std(axis=0)) + np.sum(np.var(A, axis=1, keepdims=True))


# ------------------------------------------------------------------ transformations and compositions
TR = "transform"


def _j():
    jax = _jax()
    return jax, (_jnp() if jax is not None else None)


def _rosen_loop(x):
    s = 0.0
    for i in range(len(x) - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return s


@custom("tr_hessian_rosenbrock_loop", TR)
def tr_hessian_rosenbrock_loop():
    x = np.array([0.5, -0.3, 0.8, 1.1])
    H = revsrc.hessian(_rosen_loop)(x)
    close(H, fd_hess(_rosen_loop, x), rtol=1e-4, atol=1e-4, what="fd")
    jax, jnp = _j()
    if jax is not None:
        close(H, np.asarray(jax.hessian(_rosen_loop)(jnp.asarray(x))), rtol=1e-10, what="vs jax")


@custom("tr_value_and_grad_argnums_tuple_has_aux_dict", TR)
def tr_value_and_grad_argnums_tuple_has_aux_dict():
    def loss(w, b, X, y):
        pred = X @ w + b
        r = pred - y
        return np.mean(r ** 2), {"pred": pred, "max_err": np.max(np.abs(r))}
    X, y = XS_SEQ, np.arange(5.0) / 5
    w, b = np.array([0.1, 0.2, -0.3]), 0.4
    (v, aux), (gw, gb) = revsrc.value_and_grad(loss, argnums=(0, 1), has_aux=True)(w, b, X, y)
    close(v, loss(w, b, X, y)[0])
    close(aux["pred"], X @ w + b)
    close(gw, fd(lambda t: loss(t, b, X, y)[0], w))
    close(gb, fd(lambda t: loss(w, t, X, y)[0], b))
    assert isinstance(gb, float)


@custom("tr_grad_has_aux_list_built_in_loop", TR)
def tr_grad_has_aux_list_built_in_loop():
    def f(x):
        hist = []
        y = x
        for _ in range(4):
            y = np.sin(y) * 1.5
            hist.append(float(np.sum(y)))
        return np.sum(y ** 2), hist
    g, hist = revsrc.grad(f, has_aux=True)(A3)
    close(g, fd(lambda t: f(t)[0], A3))
    close(np.array(hist), np.array(f(A3)[1]))


def _rk4_final(y0):
    return ode_rk4_generic(_pendulum, y0, 0.0, 0.5, 10)


@custom("tr_jacfwd_jacrev_ode_flow", TR)
def tr_jacfwd_jacrev_ode_flow():
    y0 = np.array([0.6, 0.2])
    Jf = revsrc.jacfwd(_rk4_final)(y0)
    Jr = revsrc.jacrev(_rk4_final)(y0)
    want = fd_jac(_rk4_final, y0)
    close(Jf, want, rtol=1e-6, what="jacfwd")
    close(Jr, want, rtol=1e-6, what="jacrev")


@custom("tr_jacfwd_argnums_tuple", TR)
def tr_jacfwd_argnums_tuple():
    def f(x, A):
        return np.tanh(A @ x) * x
    x = A3
    J = revsrc.jacfwd(f, argnums=(0, 1))(x, M3)
    assert isinstance(J, tuple) and len(J) == 2
    close(J[0], fd_jac(lambda t: f(t, M3), x), what="J0")
    close(J[1], fd_jac(lambda t: f(x, t), M3), what="J1")


@custom("tr_jacrev_tuple_output", TR)
def tr_jacrev_tuple_output():
    def f(x):
        return np.sum(x ** 2), np.cumsum(x)
    J = revsrc.jacrev(f)(A3)
    jax, jnp = _j()
    close(J[0], 2 * A3)
    close(J[1], np.tril(np.ones((3, 3))))


@custom("tr_hessian_branchy_scalar", TR)
def tr_hessian_branchy_scalar():
    def f(x, y):
        if x * y > 0.2:
            return x ** 3 * y + math.exp(y)
        elif x > 0:
            return math.sin(x * y)
        return x * x * y * y
    for (x, y) in [(0.7, 0.9), (0.3, 0.2), (-0.5, 1.2)]:
        H = revsrc.hessian(f, argnums=(0, 1))(x, y)
        hf = lambda v: f(v[0], v[1])
        want = fd_hess(hf, np.array([x, y]))
        got = np.array([[H[0][0], H[0][1]], [H[1][0], H[1][1]]], dtype=float)
        close(got, want, rtol=1e-4, atol=1e-5, what=f"at {(x, y)}")


@custom("tr_hessian_argnums_blocks_vs_jax", TR)
def tr_hessian_argnums_blocks_vs_jax():
    def f(W, x):
        return np.sum(np.tanh(W @ x) ** 2) + np.sum(x ** 3) * np.sum(W)
    jax, jnp = _j()
    W = M2 * 0.7
    x = np.array([0.3, -0.8])
    H = revsrc.hessian(f, argnums=(0, 1))(W, x)
    if jax is not None:
        jf = lambda W, x: jnp.sum(jnp.tanh(W @ x) ** 2) + jnp.sum(x ** 3) * jnp.sum(W)
        JH = jax.hessian(jf, argnums=(0, 1))(W, x)
        for i in range(2):
            for j in range(2):
                close(H[i][j], np.asarray(JH[i][j]), rtol=1e-10, what=f"H[{i}][{j}]")


def _lstm_loss(W):
    return rnn_lstm_cell(W, XS_SEQ[:3])


@custom("tr_hvp_lstm_vs_fd_of_grad", TR)
def tr_hvp_lstm_vs_fd_of_grad():
    W = RNG0.normal(size=(7, 16)) * 0.3
    V = RNG0.normal(size=(7, 16))
    hv = revsrc.hvp(_lstm_loss, (W,), (V,))
    dg = revsrc.grad(_lstm_loss)
    h = 1e-5
    want = (dg(W + h * V) - dg(W - h * V)) / (2 * h)
    close(hv, want, rtol=1e-5, atol=1e-7)


@custom("tr_jvp_dict_tangents", TR)
def tr_jvp_dict_tangents():
    def f(p, x):
        return np.sum(np.tanh(x @ p["W"] + p["b"]) ** 2)
    p = {"W": M3, "b": A3}
    t = {"W": np.ones((3, 3)) * 0.1, "b": np.array([1.0, 0.0, -1.0])}
    out, tan = revsrc.jvp(f, (p, XS_SEQ), (t, None))
    h = 1e-6
    plus = {k: p[k] + h * t[k] for k in p}
    minus = {k: p[k] - h * t[k] for k in p}
    close(out, f(p, XS_SEQ))
    close(tan, (f(plus, XS_SEQ) - f(minus, XS_SEQ)) / (2 * h), rtol=1e-6)


@custom("tr_vjp_tuple_output_cotangent", TR)
def tr_vjp_tuple_output_cotangent():
    def f(x, y):
        return x * y, np.sum(x) * y[0]
    x, y = A3, np.array([0.5, 2.0, -1.0])
    out, back = revsrc.vjp(f, x, y)
    ct = (np.array([1.0, 2.0, 3.0]), 0.5)
    gx, gy = back(ct)
    close(gx, ct[0] * y + 0.5 * y[0])
    close(gy, ct[0] * x + np.array([0.5 * np.sum(x), 0.0, 0.0]))


@custom("tr_vjp_matrix_output_called_twice", TR)
def tr_vjp_matrix_output_called_twice():
    def f(A):
        return A @ A.T + np.sin(A)
    out, back = revsrc.vjp(f, M3)
    for seed in range(2):
        ct = np.random.default_rng(seed).normal(size=(3, 3))
        (g,) = back(ct)
        want = fd(lambda t: np.sum(f(t) * ct), M3)
        close(g, want, rtol=1e-6)


@custom("tr_linearize_reuse", TR)
def tr_linearize_reuse():
    def f(x):
        y = x.copy()
        for _ in range(3):
            y = np.sin(y) + 0.5 * np.roll(y, 1)
        return y
    out, lin = revsrc.linearize(f, A4)
    J = fd_jac(f, A4)
    for v in np.eye(4)[:2]:
        close(lin(v), J @ v, rtol=1e-6)


@custom("tr_jit_while_newton_calls_grad", TR)
def tr_jit_while_newton_calls_grad():
    def g(x):
        return x ** 3 - 2.0 * x - 5.0
    dg = revsrc.grad(g)

    def solve(x0):
        x = x0
        n = 0
        while abs(g(x)) > 1e-12 and n < 50:
            x = x - g(x) / dg(x)
            n += 1
        return x, n
    fast = revsrc.jit(solve)
    r = fast(2.0)
    assert r == solve(2.0), (r, solve(2.0))


@custom("tr_vmap_of_grad_in_axes_none", TR)
def tr_vmap_of_grad_in_axes_none():
    def f(x, a):
        return math.sin(a * x) * math.exp(-x * x)
    df = revsrc.grad(f)
    xs = np.linspace(-1, 1, 7)
    got = revsrc.vmap(df, in_axes=(0, None))(xs, 1.7)
    want = np.array([df(x, 1.7) for x in xs])
    assert np.array_equal(got, want), (got, want)
    close(got, np.array([fd(lambda t: f(t, 1.7), float(x)) for x in xs]), rtol=1e-6)


@custom("tr_vmap_value_and_grad_tuple", TR)
def tr_vmap_value_and_grad_tuple():
    def f(x):
        s = 0.0
        for k in range(1, 5):
            s += math.sin(k * x) / k
        return s
    xs = np.linspace(0.1, 2.0, 6)
    v, g = revsrc.vmap(revsrc.value_and_grad(f))(xs)
    close(v, np.array([f(x) for x in xs]), rtol=1e-14)
    close(g, np.array([sum(math.cos(k * x) for k in range(1, 5)) for x in xs]), rtol=1e-12)


@custom("tr_vmap_of_hessian_rows", TR)
def tr_vmap_of_hessian_rows():
    def f(x):
        return np.sum(x ** 3) * x[0]
    X = np.array([[0.5, 1.0], [1.5, -0.5], [0.2, 0.3]])
    H = revsrc.vmap(revsrc.hessian(f))(X)
    assert H.shape == (3, 2, 2)
    for i in range(3):
        close(H[i], fd_hess(f, X[i]), rtol=1e-4, atol=1e-5)


@custom("tr_grad_grad_scalar_loop_branch", TR)
def tr_grad_grad_scalar_loop_branch():
    def f(x):
        y = x
        for k in range(5):
            if y > 1.0:
                y = math.sqrt(y) + 0.1 * k
            else:
                y = y * y + x
        return y
    d2 = revsrc.grad(revsrc.grad(f))
    for x in [0.3, 0.9, 1.4]:
        df = revsrc.grad(f)
        h = 1e-5
        want = (df(x + h) - df(x - h)) / (2 * h)
        close(d2(x), want, rtol=1e-5, what=f"x={x}")
        close(revsrc.hessian(f)(x), want, rtol=1e-5, what=f"hessian x={x}")


@custom("tr_gradient_penalty_has_aux_inside", TR)
def tr_gradient_penalty_has_aux_inside():
    def loss(w):
        r = XS_SEQ @ w - 1.0
        return np.mean(r ** 2), r
    dl = revsrc.grad(loss, has_aux=True)

    def penalized(w):
        g, r = dl(w)
        return np.sum(g ** 2) + 0.1 * np.sum(r)
    w = np.array([0.3, -0.2, 0.5])
    close(revsrc.grad(penalized)(w), fd(penalized, w), rtol=1e-6)


@custom("tr_jacrev_of_grad_equals_hessian", TR, doc=("E104",))
def tr_jacrev_of_grad_equals_hessian():
    def f(x):
        return np.sum(np.exp(x) * np.roll(x, 1)) + np.prod(x[:2])
    H1 = revsrc.jacrev(revsrc.grad(f))(A3)
    H2 = revsrc.hessian(f)(A3)
    H3 = revsrc.jacfwd(revsrc.grad(f))(A3)
    want = fd_hess(f, A3)
    close(H2, want, rtol=1e-4, atol=1e-5, what="hessian")
    close(H3, want, rtol=1e-4, atol=1e-5, what="jacfwd(grad)")
    close(H1, want, rtol=1e-4, atol=1e-5, what="jacrev(grad)")


@custom("tr_hessian_linalg_solve_forward_over_reverse", TR, doc=("E104",))
def tr_hessian_linalg_solve_forward_over_reverse():
    def f(b):
        x = np.linalg.solve(SPD3 + np.diag(b ** 2), b)
        return np.sum(x ** 2)
    close(revsrc.hessian(f)(A3), fd_hess(f, A3), rtol=1e-4, atol=1e-5)


@custom("tr_hessian_slogdet_cholesky", TR, doc=("E104",))
def tr_hessian_slogdet_cholesky():
    def f(d):
        A = SPD3 + np.diag(np.exp(d))
        L = np.linalg.cholesky(A)
        return 2 * np.sum(np.log(np.diag(L))) + np.linalg.slogdet(A)[1]
    close(revsrc.hessian(f)(A3), fd_hess(f, A3), rtol=1e-4, atol=1e-5)


def _ip_shift_add(x):
    y = x.copy()
    y[1:] += x[:-1] * x[1:]
    return np.sum(y ** 2)


@custom("tr_hessian_inplace_shift_add", TR)
def tr_hessian_inplace_shift_add():
    close(revsrc.hessian(_ip_shift_add)(A4), fd_hess(_ip_shift_add, A4), rtol=1e-4, atol=1e-5)


def _ip_strided_assign(x):
    y = np.zeros_like(x)
    y[::2] = x[::2] ** 2
    y[1::2] = x[1::2] * x[::2]
    return np.sum(y * x)


@custom("tr_hessian_inplace_strided_assign", TR)
def tr_hessian_inplace_strided_assign():
    close(revsrc.hessian(_ip_strided_assign)(A6), fd_hess(_ip_strided_assign, A6), rtol=1e-4, atol=1e-5)


def _ip_mask_mul(x):
    y = x ** 2
    y[x > 0] *= x[x > 0]
    return np.sum(y)


@custom("tr_hessian_inplace_mask_mul", TR)
def tr_hessian_inplace_mask_mul():
    close(revsrc.hessian(_ip_mask_mul)(A6), fd_hess(_ip_mask_mul, A6), rtol=1e-4, atol=1e-5)


def _ip_add_at(x):
    h = np.zeros(3)
    np.add.at(h, np.array([0, 1, 1, 2, 0, 2]), x ** 2)
    return np.sum(h ** 2)


@custom("tr_hessian_add_at", TR)
def tr_hessian_add_at():
    close(revsrc.hessian(_ip_add_at)(A6), fd_hess(_ip_add_at, A6), rtol=1e-4, atol=1e-5)


def _ip_heat(u):
    u = u.copy()
    for _ in range(3):
        u[1:-1] = u[1:-1] + 0.3 * (u[2:] - 2 * u[1:-1] + u[:-2]) + 0.1 * u[1:-1] ** 2
    return np.sum(u ** 2)


@custom("tr_hessian_heat_slices_inplace", TR)
def tr_hessian_heat_slices_inplace():
    u0 = np.array([0.1, 0.5, 0.9, 0.4, 0.2])
    close(revsrc.hessian(_ip_heat)(u0), fd_hess(_ip_heat, u0), rtol=1e-4, atol=1e-5)


@custom("tr_jvp_inplace_heat", TR)
def tr_jvp_inplace_heat():
    u0 = np.array([0.1, 0.5, 0.9, 0.4, 0.2])
    v = np.array([1.0, -1.0, 0.5, 0.0, 2.0])
    out, t = revsrc.jvp(_ip_heat, (u0,), (v,))
    close(t, fd(_ip_heat, u0) @ v, rtol=1e-6)


@custom("tr_hvp_inplace_row_writes", TR)
def tr_hvp_inplace_row_writes():
    def f(A):
        B = A.copy()
        for i in range(1, 3):
            B[i] = B[i] - B[i - 1] * A[i, 0]
        return np.sum(B ** 2)
    V = np.ones((3, 3))
    got = revsrc.hvp(f, (M3,), (V,))
    H = fd_hess(f, M3).reshape(9, 9)
    close(got, (H @ V.ravel()).reshape(3, 3), rtol=1e-4, atol=1e-5)


@custom("tr_hessian_cumsum_cumprod_sort", TR)
def tr_hessian_cumsum_cumprod_sort(): 
    def f(x):
        return np.sum(np.cumsum(x) ** 3) + np.sum(np.sort(x) * np.arange(4.0) ** 2) + np.max(x ** 2)
    close(revsrc.hessian(f)(A4), fd_hess(f, A4), rtol=1e-4, atol=1e-5)


@custom("tr_hessian_while_break_scalar", TR)
def tr_hessian_while_break_scalar():
    def f(a):
        x = 1.0
        n = 0
        while True:
            x = x - (x * x - a) / (2 * x)
            n += 1
            if n >= 6:
                break
        return x ** 3
    for a in [2.0, 5.0]:
        close(revsrc.hessian(f)(a), 0.75 * a ** -0.5, rtol=1e-6, what=f"a={a}")


@custom("tr_hessian_float_arg_returns_float_shape", TR)
def tr_hessian_float_arg_returns_float_shape():
    def f(x):
        return x ** 4
    H = revsrc.hessian(f)(1.5)
    assert np.shape(H) == (), H
    close(H, 12 * 1.5 ** 2)


@custom("tr_grad_of_jacfwd_entry", TR)
def tr_grad_of_jacfwd_entry():
    def field(x):
        return np.array([x[0] * x[1], np.sin(x[0]) + x[1] ** 2])
    Jf = revsrc.jacfwd(field)

    def div(x):
        J = Jf(x)
        return J[0, 0] + J[1, 1]
    close(revsrc.grad(div)(np.array([0.4, 0.7])), np.array([-np.sin(0.4), 2.0]), rtol=1e-8)


@custom("tr_source_shows_adjoint", TR)
def tr_source_shows_adjoint():
    def f(x, y):
        z = x * y
        return math.sin(z) + z
    df = revsrc.grad(f, argnums=(0, 1))
    df(0.5, 1.0)
    src = revsrc.source(df)
    assert isinstance(src, str) and "def" in src and "sin" in src, src[:200]
    src2 = revsrc.source(revsrc.grad(ode_leapfrog_nbody_arrays), np.zeros((3, 2)))
    assert "def" in src2


@custom("tr_jit_tuple_return_int_flags", TR)
def tr_jit_tuple_return_int_flags():
    def collatz_like(x, n):
        steps = 0
        hit = False
        while steps < n:
            x = x / 2 if x > 1.0 else 3 * x + 0.5
            steps += 1
            if abs(x - 1.0) < 0.05:
                hit = True
                break
        return x, steps, hit
    fast = revsrc.jit(collatz_like)
    for x0 in [5.0, 0.1, 7.3]:
        assert fast(x0, 30) == collatz_like(x0, 30), (x0, fast(x0, 30), collatz_like(x0, 30))


@custom("tr_jit_of_grad_returns_same", TR)
def tr_jit_of_grad_returns_same():
    def f(x):
        return math.log1p(x * x) * math.cos(x)
    df = revsrc.jit(revsrc.grad(f))
    close(df(0.8), fd(f, 0.8), rtol=1e-7)


@custom("tr_grad_of_vmap_is_refused_or_right", TR, doc=("E104",))
def tr_grad_of_vmap_is_refused_or_right():
    def f(x):
        return math.sin(x) * x
    vf = revsrc.vmap(f)

    def total(xs):
        return np.sum(vf(xs))
    g = revsrc.grad(total)(A4)
    close(g, np.cos(A4) * A4 + np.sin(A4))


@case("np_rebind_arg_to_copy_then_write", NP, (A5,))
def np_rebind_arg_to_copy_then_write(u):
    u = u.copy()
    u[0] = 2.0 * u[1]
    return np.sum(u ** 2)


@case("np_rebind_arg_to_product_then_write", NP, (A5,))
def np_rebind_arg_to_product_then_write(x):
    x = x * 1.0
    x[1:3] = x[1:3] ** 2
    return np.sum(x * A5)


@case("np_rebind_arg_to_asarray_then_write", NP, (A5,), doc=("E403",))
def np_rebind_arg_to_asarray_then_write(x):
    x = np.asarray(x)
    x[0] = 1.0
    return np.sum(x)


@case("pde_heat_rebinds_arg_copy", PD, (np.array([0.1, 0.5, 0.9, 0.4, 0.2]),))
def pde_heat_rebinds_arg_copy(u):
    u = u.copy()
    for _ in range(10):
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2)


# ------------------------------------------------------------------ backend="jax"
JB = "jax-backend"
# name -> refusal codes the README documents for that program on backend="jax"
_JAX_VARIANTS = {
    "ode_rk4_lotka_volterra": (), "ode_leapfrog_nbody_arrays": (), "ode_adaptive_euler_while": (),
    "ode_adaptive_rk12_error_control": ("E603",), "ode_event_stop_while_break": (), "ode_implicit_euler_newton": (),
    "filt_kalman_2d_constant_velocity": (), "filt_iir_biquad_lfilter_style": (),
    "rnn_lstm_cell": (), "rnn_gru_cell_dict_params": (), "rnn_attention_over_states": (),
    "part_lj_vectorized_triu": (), "part_gravity_collision_clip": (), "part_periodic_box_wrap": (),
    "pde_heat_explicit_slices": (), "pde_heat_periodic_roll": (), "pde_wave_leapfrog": (),
    "pde_heat_2d_laplacian": (), "pde_pad_edge_stencil": ("E603",),
    "solve_newton_cubic_root_param": (), "solve_fixed_point_cos": (), "solve_power_iteration_largest_eig": (),
    "solve_conjugate_gradient": (), "mc_reparam_gaussian_expectation": (),
    "poly_horner_vector_points": (), "poly_clenshaw": (), "poly_linear_interp": ("E603",),
    "stat_gmm_loglik": (), "stat_gaussian_nll_cholesky": ("E603",), "stat_softmax_cross_entropy": (),
    "stat_huber_quantile_losses": (), "fin_binomial_tree_american_put": (), "fin_mc_asian_option_paths": (),
    "fin_portfolio_variance_sharpe": (), "np_einsum_batched_matmul_trace": (), "np_tensordot_axes": (),
    "np_sort_and_argsort_gather": (), "np_boolean_mask_assign": ("E603",), "np_inplace_overlapping_iadd": (),
    "np_where_clip_maximum": (), "np_cumsum_cumprod": ("E603",), "np_split_pieces": (),
    "py_dataclass_params": (), "py_nested_dict_list_pytree": (), "py_early_return_in_loop": (),
    "py_while_break_continue": (), "py_star_args_sum": (),
}


def _add_jax_variants():
    by = {c.name: c for c in CASES}
    for name, doc in _JAX_VARIANTS.items():
        c = by[name]
        CASES.append(Case(name + "_jax", JB, c.fn, c.args, argnums=c.argnums,
                          doc=doc, opts={"backend": "jax"}, needs_jax=True))


_add_jax_variants()


@custom("jx_hessian_rosenbrock_loop", JB, needs_jax=True)
def jx_hessian_rosenbrock_loop():
    x = np.array([0.5, -0.3, 0.8, 1.1])
    H = revsrc.hessian(_rosen_loop, backend="jax")(x)
    close(np.asarray(H), fd_hess(_rosen_loop, x), rtol=1e-4, atol=1e-4)


def _newton_sqrt_break(a):
    x = a
    for i in range(50):
        dx = (x * x - a) / (2 * x)
        x = x - dx
        if abs(dx) < 1e-12:
            break
    return x * x * x


@custom("jx_hessian_newton_break", JB, needs_jax=True)
def jx_hessian_newton_break():
    H = revsrc.hessian(_newton_sqrt_break, backend="jax")(3.0)
    close(float(H), 0.75 * 3.0 ** -0.5, rtol=1e-6)


def _adaptive_while(k):
    t, y = 0.0, 1.0
    while t < 1.0:
        h = 0.05 if abs(y) > 0.5 else 0.1
        y = y + h * (-k * y)
        t = t + h
    return y


@custom("jx_jvp_while_loop", JB, needs_jax=True)
def jx_jvp_while_loop():
    out, t = revsrc.jvp(_adaptive_while, (0.8,), (1.0,), backend="jax")
    close(float(out), _adaptive_while(0.8))
    close(float(t), fd(_adaptive_while, 0.8), rtol=1e-6)


@custom("jx_value_and_grad_has_aux", JB, needs_jax=True)
def jx_value_and_grad_has_aux():
    def f(w):
        h = np.tanh(XS_SEQ @ w)
        return np.sum(h ** 2), {"h": h}
    w = np.array([0.2, -0.5, 0.1])
    (v, aux), g = revsrc.value_and_grad(f, has_aux=True, backend="jax")(w)
    close(np.asarray(aux["h"]), np.tanh(XS_SEQ @ w))
    close(np.asarray(g), fd(lambda t: f(t)[0], w))


@custom("jx_derivative_inside_jax_jit_and_vmap", JB, needs_jax=True)
def jx_derivative_inside_jax_jit_and_vmap():
    jax = _jax()

    def f(x, a):
        return np.sum(np.sin(a * x) ** 2)
    df = revsrc.grad(f, backend="jax")
    xs = np.stack([A3, A3 * 2, -A3])
    got = jax.jit(jax.vmap(df, in_axes=(0, None)))(xs, 1.3)
    for i in range(3):
        close(np.asarray(got[i]), fd(lambda t: f(t, 1.3), xs[i]), rtol=1e-6, what=f"row {i}")


@custom("jx_max_steps_exceeded", JB, needs_jax=True, doc=("E604",))
def jx_max_steps_exceeded():
    def f(a):
        x = a
        n = 0.0
        while x > 1e-3:
            x = x * 0.9 + 0.0 * a
            n = n + x
        return n
    revsrc.grad(f, backend="jax", max_steps=5)(1.0)


@custom("jx_source_is_jnp", JB, needs_jax=True)
def jx_source_is_jnp():
    df = revsrc.grad(pde_heat_periodic_roll, backend="jax")
    u = np.cos(np.arange(8.0))
    df(u)
    src = revsrc.source(df, u)
    assert "jnp" in src or "jax" in src, src[:300]


@custom("jx_grad_float32_input", JB, needs_jax=True)
def jx_grad_float32_input():
    x = np.array([0.3, -1.2, 0.7], dtype=np.float32)

    def f(x):
        return np.sum(np.tanh(x) * x)
    g = revsrc.grad(f, backend="jax")(x)
    assert g.dtype == np.float32, g.dtype
    close(np.asarray(g), fd(f, x.astype(np.float64)), rtol=1e-4, atol=1e-5)


@custom("jx_jacfwd_jacrev_ode", JB, needs_jax=True)
def jx_jacfwd_jacrev_ode():
    y0 = np.array([0.6, 0.2])
    want = fd_jac(_rk4_final, y0)
    close(np.asarray(revsrc.jacfwd(_rk4_final, backend="jax")(y0)), want, rtol=1e-6, what="jacfwd")
    close(np.asarray(revsrc.jacrev(_rk4_final, backend="jax")(y0)), want, rtol=1e-6, what="jacrev")


# ------------------------------------------------------------------ state read at call time
SC = "state"
N_STEPS = 3
USE_DAMPING = False
CFG = {"k": 2.0, "power": 2}
WEIGHTS = np.array([1.0, 2.0, 3.0])
ACT_FN = np.tanh


def _steps_global(x):
    y = x
    for _ in range(N_STEPS):
        y = np.sin(y) + 0.5 * y
    return np.sum(y ** 2)


@custom("st_global_trip_count_changed", SC)
def st_global_trip_count_changed():
    global N_STEPS
    df = revsrc.grad(_steps_global)
    try:
        for n in (3, 5, 1):
            N_STEPS = n
            close(df(A3), fd(_steps_global, A3), rtol=1e-6, what=f"N_STEPS={n}")
    finally:
        N_STEPS = 3


def _flag_global(x):
    v = np.sum(x ** 2)
    if USE_DAMPING:
        v = v * np.exp(-np.sum(x))
    return v


@custom("st_global_flag_toggled", SC)
def st_global_flag_toggled():
    global USE_DAMPING
    df = revsrc.grad(_flag_global)
    try:
        for flag in (False, True, False):
            USE_DAMPING = flag
            close(df(A3), fd(_flag_global, A3), rtol=1e-6, what=f"flag={flag}")
    finally:
        USE_DAMPING = False


def _cfg_dict(x):
    return CFG["k"] * np.sum(np.abs(x) ** CFG["power"])


@custom("st_global_dict_entries_changed", SC)
def st_global_dict_entries_changed():
    df = revsrc.grad(_cfg_dict)
    try:
        for k, pw in ((2.0, 2), (0.5, 3), (1.0, 1)):
            CFG["k"], CFG["power"] = k, pw
            close(df(A3), fd(_cfg_dict, A3), rtol=1e-6, what=f"k={k} power={pw}")
    finally:
        CFG["k"], CFG["power"] = 2.0, 2


def _weights_global(x):
    return np.sum(WEIGHTS * x ** 2)


@custom("st_global_array_mutated_in_place", SC)
def st_global_array_mutated_in_place():
    df = revsrc.grad(_weights_global)
    try:
        close(df(A3), 2 * WEIGHTS * A3, what="before")
        WEIGHTS[:] = [-1.0, 0.5, 4.0]
        close(df(A3), 2 * np.array([-1.0, 0.5, 4.0]) * A3, what="after in-place change")
    finally:
        WEIGHTS[:] = [1.0, 2.0, 3.0]


def _global_shape(x):
    z = np.zeros(N_STEPS)
    z[:] = x[0]
    return np.sum(z * x[1])


@custom("st_global_int_as_shape", SC)
def st_global_int_as_shape():
    global N_STEPS
    df = revsrc.grad(_global_shape)
    x = np.array([0.5, 2.0])
    try:
        for n in (3, 6):
            N_STEPS = n
            close(df(x), np.array([n * 2.0, n * 0.5]), what=f"N={n}")
    finally:
        N_STEPS = 3


def make_stateful_loss():
    scale = 1.0

    def set_scale(s):
        nonlocal scale
        scale = s

    def loss(x):
        return scale * np.sum(x ** 3)
    return loss, set_scale


@custom("st_closure_cell_rebound_by_setter", SC)
def st_closure_cell_rebound_by_setter():
    loss, set_scale = make_stateful_loss()
    df = revsrc.grad(loss)
    close(df(A3), 3 * A3 ** 2, what="scale=1")
    set_scale(-2.0)
    close(df(A3), -6 * A3 ** 2, what="scale=-2")


def make_act_loss():
    act = np.tanh

    def set_act(f):
        nonlocal act
        act = f

    def loss(x):
        return np.sum(act(x))
    return loss, set_act


@custom("st_closure_function_rebound", SC)
def st_closure_function_rebound():
    loss, set_act = make_act_loss()
    df = revsrc.grad(loss)
    close(df(A3), 1 - np.tanh(A3) ** 2, what="tanh")
    set_act(np.sin)
    close(df(A3), np.cos(A3), what="sin")


class Scaler:
    factor = 2.0

    def loss(self, x):
        return self.factor * np.sum(x ** 2)


@custom("st_class_attribute_changed", SC)
def st_class_attribute_changed():
    s = Scaler()
    df = revsrc.grad(s.loss)
    try:
        close(df(A3), 4 * A3, what="factor=2")
        Scaler.factor = 5.0
        close(df(A3), 10 * A3, what="factor=5")
    finally:
        Scaler.factor = 2.0


def _partial_target(x, target):
    return np.sum((x - target) ** 2)


@custom("st_partial_array_mutated", SC)
def st_partial_array_mutated():
    tgt = np.array([1.0, 1.0, 1.0])
    f = functools.partial(_partial_target, target=tgt)
    df = revsrc.grad(f)
    close(df(A3), 2 * (A3 - 1.0), what="before")
    tgt[:] = 0.0
    close(df(A3), 2 * A3, what="after")


def _act_global(x):
    return np.sum(ACT_FN(x) * x)


@custom("st_global_function_rebound_value_and_grad", SC)
def st_global_function_rebound_value_and_grad():
    global ACT_FN
    vg = revsrc.value_and_grad(_act_global)
    try:
        v, g = vg(A3)
        close(g, fd(_act_global, A3), what="tanh")
        ACT_FN = np.sin
        v, g = vg(A3)
        close(v, np.sum(np.sin(A3) * A3), what="value sin")
        close(g, fd(_act_global, A3), what="sin")
        ACT_FN = np.exp
        close(revsrc.hessian(_act_global)(A3), fd_hess(_act_global, A3), rtol=1e-4, atol=1e-5, what="hessian exp")
    finally:
        ACT_FN = np.tanh


def _trip_count_arg(x, n):
    y = x
    for _ in range(n):
        y = y * y * 0.5 + 0.1
    return y


@custom("st_int_arg_changes_trip_count_engine", SC)
def st_int_arg_changes_trip_count_engine():
    df = revsrc.grad(_trip_count_arg)
    for n in (1, 4, 0, 7):
        close(df(0.9, n), fd(lambda t: _trip_count_arg(t, n), 0.9), rtol=1e-6, what=f"n={n}")
    H = revsrc.hessian(_trip_count_arg)
    for n in (2, 3):
        g = revsrc.grad(_trip_count_arg)
        close(H(0.9, n), fd(lambda t: g(t, n), 0.9), rtol=1e-5, what=f"hessian n={n}")


def _dtype_switch(x):
    return np.sum(x.astype(np.float64) ** 3)


@custom("st_same_fn_float32_then_float64", SC)
def st_same_fn_float32_then_float64():
    df = revsrc.grad(_dtype_switch)
    x32 = np.array([0.5, -1.0], dtype=np.float32)
    g32 = df(x32)
    assert g32.dtype == np.float32
    close(g32, 3 * x32.astype(float) ** 2, rtol=1e-6)
    g64 = df(np.array([0.5, -1.0, 2.0]))
    close(g64, 3 * np.array([0.5, -1.0, 2.0]) ** 2)
    g2d = df(np.ones((2, 2)) * 0.5)
    close(g2d, 0.75 * np.ones((2, 2)))


@custom("st_same_fn_float_then_array", SC)
def st_same_fn_float_then_array():
    def f(x):
        return np.sum(np.sin(x) * x)
    df = revsrc.grad(f)
    g1 = df(0.4)
    close(g1, math.cos(0.4) * 0.4 + math.sin(0.4))
    g2 = df(A3)
    close(g2, np.cos(A3) * A3 + np.sin(A3))
    g3 = df(0.4)
    close(g3, g1)


# ------------------------------------------------------------------ forward mode and second order of the programs above
FW = "forward"
# programs whose first argument is a small float array: jvp against central differences,
# and the Hessian (forward over reverse) against second differences
_FORWARD_VARIANTS = {
    "pde_heat_explicit_slices": (), "pde_heat_periodic_roll": (), "pde_advection_lax_wendroff": (),
    "pde_pad_edge_stencil": (), "pde_pad_constant_stencil": (), "pde_diff_gradient_energy": (),
    "pde_burgers_nonlinear": (), "part_lj_vectorized_triu": (), "part_spring_network_energy_edges": (),
    "part_gravity_collision_clip": (), "filt_iir_biquad_lfilter_style": (), "filt_moving_average_convolve": (),
    "solve_newton_vector_system": (), "solve_conjugate_gradient": (), "poly_catmull_rom_spline_searchsorted": (),
    "poly_bezier_de_casteljau": (), "poly_linear_interp": (), "stat_logsumexp_max_trick": (),
    "stat_gmm_loglik": (), "stat_huber_quantile_losses": (), "stat_weighted_variance_ddof": (),
    "stat_cov_matrix_trace": (), "np_einsum_ellipsis_outer": ("E104",), "np_einsum_diag_extract": ("E104",),
    "np_linalg_inv_det": ("E104",), "np_linalg_norm_variants": ("E104",), "np_linalg_eigh_eigenvalues_and_vectors": (),
    "np_linalg_pinv": (), "np_cumsum_axis_reverse": (), "np_where_clip_maximum": (),
    "np_sort_and_argsort_gather": (), "np_take_along_axis_topk": (), "np_fancy_index_repeated_read": (),
    "np_fancy_2d_pairs": (), "np_boolean_mask_from_values": (), "np_boolean_mask_assign": (),
    "np_reshape_transpose_stack_concat": (), "np_pad_reflect_wrap": (), "np_diff_axis_prepend": (),
    "np_interp_wrt_xp_fp": (), "np_inplace_slice_ops": (), "np_inplace_overlapping_iadd": (),
    "np_inplace_view_of_local": (), "np_inplace_loop_accumulate_rows": (), "np_add_at_histogram": (),
    "np_trace_diag_triu_tril": (), "np_outer_kron_cross": (), "np_tile_repeat_flip_rot": (),
    "np_hypot_arctan2_logaddexp": (), "np_select_conditions": (), "np_method_reductions": ("E104",),
    "np_std_var_axis": ("E104",), "np_average_weights": (),
    "py_generator_expr_with_filter": (), "py_first_star_rest_unpack": (), "py_conditional_expr_in_comprehension": (),
    "py_early_return_in_loop": (), "py_while_break_continue": (), "py_lambda_default_capture_loop": (),
    "ode_velocity_verlet_spring_chain": (), "rnn_teacher_forcing_mse": (), "fin_portfolio_variance_sharpe": (),
    "np_array_split_unequal_unpack": (), "np_split_pieces": (),
}


def _forward_check(c):
    def check():
        x0 = c.args[0]
        rest = c.args[1:]

        def f0(t):
            return float(c.fn(t, *_cargs(rest)))
        v = np.random.default_rng(7).normal(size=x0.shape)
        out, tan = revsrc.jvp(c.fn, (x0.copy(),) + _cargs(rest), (v,) + (None,) * len(rest))
        close(out, f0(x0), rtol=1e-10, what="jvp value")
        h = 1e-6
        close(tan, (f0(x0 + h * v) - f0(x0 - h * v)) / (2 * h), rtol=1e-5, atol=1e-6, what="jvp tangent")
        H = revsrc.hessian(c.fn)(x0.copy(), *_cargs(rest))
        close(H, fd_hess(f0, x0), rtol=2e-4, atol=2e-4, what="hessian")
    return check


def _norm_ord1(x):
    return np.linalg.norm(x, ord=1)


def _norm_ord3(x):
    return np.linalg.norm(x, ord=3)


def _norm_matrix_inf(A):
    return np.linalg.norm(A, ord=np.inf)


def _norm_matrix_nuc(A):
    return np.linalg.norm(A, ord="nuc")


def _hessian_vs_two(fn, jfn, x):
    H = revsrc.hessian(fn)(x)
    close(H, fd_hess(fn, x), rtol=2e-4, atol=2e-4, what="hessian vs fd")
    jax = _jax()
    if jax is not None:
        close(H, np.asarray(jax.hessian(jfn)(x)), rtol=1e-8, atol=1e-10, what="hessian vs jax")


@custom("fw_hessian_norm_ord1_vector", FW)
def fw_hessian_norm_ord1_vector():
    """|x|_1 is linear where no entry is 0: its Hessian is 0."""
    _hessian_vs_two(_norm_ord1, lambda x: _jnp().linalg.norm(x, ord=1), np.array([0.5, -1.2, 0.3]))


@custom("fw_hessian_norm_ord3_vector", FW)
def fw_hessian_norm_ord3_vector():
    _hessian_vs_two(_norm_ord3, lambda x: _jnp().linalg.norm(x, ord=3), np.array([0.5, -1.2, 0.3]))


@custom("fw_hessian_norm_inf_matrix", FW)
def fw_hessian_norm_inf_matrix():
    _hessian_vs_two(_norm_matrix_inf, lambda A: _jnp().linalg.norm(A, ord=np.inf), M3)


@custom("fw_hessian_norm_nuclear_matrix", FW)
def fw_hessian_norm_nuclear_matrix():
    _hessian_vs_two(_norm_matrix_nuc, lambda A: _jnp().linalg.norm(A, ord="nuc"), M3)


def _norm_matrix_2(A):
    return np.linalg.norm(A, ord=2) ** 2


@custom("fw_hessian_norm_spectral_matrix", FW)
def fw_hessian_norm_spectral_matrix():
    _hessian_vs_two(_norm_matrix_2, lambda A: _jnp().linalg.norm(A, ord=2) ** 2, M3)


def _norm_ord1_axis(A):
    return np.sum(np.linalg.norm(A, ord=1, axis=1) ** 2)


@custom("fw_hessian_norm_ord1_axis", FW)
def fw_hessian_norm_ord1_axis():
    _hessian_vs_two(_norm_ord1_axis, lambda A: _jnp().sum(_jnp().linalg.norm(A, ord=1, axis=1) ** 2), M3)


@custom("fw_jvp_norm_ord1", FW)
def fw_jvp_norm_ord1():
    x = np.array([0.5, -1.2, 0.3])
    out, t = revsrc.jvp(_norm_ord1, (x,), (np.array([1.0, 1.0, 1.0]),))
    close(t, np.sum(np.sign(x)))


@custom("fw_hvp_norm_ord1_in_loss", FW)
def fw_hvp_norm_ord1_in_loss():
    def loss(w):
        return np.sum((XS_SEQ @ w) ** 2) + 0.5 * np.linalg.norm(w, ord=1)
    w = np.array([0.3, -0.4, 0.8])
    v = np.array([1.0, 0.0, 0.0])
    want = 2 * XS_SEQ.T @ XS_SEQ @ v
    close(revsrc.hvp(loss, (w,), (v,)), want, rtol=1e-8, what="hvp (the L1 term has zero curvature)")


def _add_forward_variants():
    by = {c.name: c for c in CASES}
    for name, doc in _FORWARD_VARIANTS.items():
        c = by[name]
        assert isinstance(c.args[0], np.ndarray) and c.args[0].size <= 12, name
        CASES.append(Case(name + "_fwd", FW, check=_forward_check(c), doc=doc))


_add_forward_variants()


# ------------------------------------------------------------------ second wave: compositions found weak
def _expm_series(A):
    B = np.eye(3)
    T = np.eye(3)
    for k in range(1, 6):
        T = T @ A / k
        B = B + T
    return np.sum(B ** 2)


@custom("tr_jacrev_grad_expm_series_loop", TR)
def tr_jacrev_grad_expm_series_loop():
    """Reverse over reverse of a matmul recurrence: T = T @ A / k."""
    H = revsrc.jacrev(revsrc.grad(_expm_series))(M3)
    close(H.reshape(9, 9), fd_hess(_expm_series, M3).reshape(9, 9), rtol=2e-4, atol=2e-4)


@custom("tr_hessian_expm_series_loop", TR)
def tr_hessian_expm_series_loop():
    H = revsrc.hessian(_expm_series)(M3)
    close(H.reshape(9, 9), fd_hess(_expm_series, M3).reshape(9, 9), rtol=2e-4, atol=2e-4)


@custom("tr_gradient_penalty_expm_series", TR)
def tr_gradient_penalty_expm_series():
    dg = revsrc.grad(_expm_series)

    def pen(A):
        return np.sum(dg(A) ** 2)
    close(revsrc.grad(pen)(M3 * 0.5), fd(pen, M3 * 0.5), rtol=1e-5, atol=1e-6)


@custom("jx_hessian_norm_ord1", JB, needs_jax=True)
def jx_hessian_norm_ord1():
    x = np.array([0.5, -1.2, 0.3])
    H = revsrc.hessian(_norm_ord1, backend="jax")(x)
    close(np.asarray(H), np.zeros((3, 3)), what="|x|_1 has zero Hessian")


@custom("jx_hessian_norm_nuclear", JB, needs_jax=True)
def jx_hessian_norm_nuclear():
    H = revsrc.hessian(_norm_matrix_nuc, backend="jax")(M3)
    close(np.asarray(H), fd_hess(_norm_matrix_nuc, M3), rtol=2e-4, atol=2e-4)


def _matmul_power_loop(A):
    T = A
    for _ in range(2):
        T = T @ A
    return np.sum(T)


@custom("tr_gradient_penalty_matmul_loop_minimal", TR)
def tr_gradient_penalty_matmul_loop_minimal():
    dg = revsrc.grad(_matmul_power_loop)

    def pen(A):
        return np.sum(dg(A) ** 2)
    close(revsrc.grad(pen)(M2), fd(pen, M2), rtol=1e-5, atol=1e-6)


def _heun_pen_inner(A):
    return ode_heun_system_matrix(A)


@custom("tr_gradient_penalty_heun_matrix_ode", TR)
def tr_gradient_penalty_heun_matrix_ode():
    dg = revsrc.grad(_heun_pen_inner)

    def pen(A):
        return np.sum(dg(A) ** 2)
    close(revsrc.grad(pen)(M2), fd(pen, M2), rtol=1e-5, atol=1e-6)


@custom("tr_jacfwd_jacrev_dict_arg", TR)
def tr_jacfwd_jacrev_dict_arg():
    def f(p):
        return np.tanh(p["W"] @ np.array([1.0, -0.5]) + p["b"])
    p = {"W": M2, "b": np.array([0.1, -0.2])}
    for jac in (revsrc.jacfwd, revsrc.jacrev):
        J = jac(f)(p)
        assert set(J) == {"W", "b"}, J
        close(J["W"], fd_jac(lambda W: f({"W": W, "b": p["b"]}), M2), what=f"{jac.__name__} W")
        close(J["b"], fd_jac(lambda b: f({"W": M2, "b": b}), p["b"]), what=f"{jac.__name__} b")


@custom("tr_hessian_with_int_trip_count_arg", TR)
def tr_hessian_with_int_trip_count_arg():
    def f(x, n):
        y = x
        for _ in range(n):
            y = np.sin(y) * x
        return np.sum(y)
    for n in (1, 3):
        H = revsrc.hessian(f)(A3, n)
        close(H, fd_hess(lambda t: f(t, n), A3), rtol=2e-4, atol=2e-4, what=f"n={n}")


@custom("tr_jvp_namedtuple_primal", TR)
def tr_jvp_namedtuple_primal():
    def f(p):
        return p.x ** 2 * math.sin(p.y)
    out, t = revsrc.jvp(f, (Pt(0.7, 1.1),), (Pt(1.0, 0.5),))
    close(t, 2 * 0.7 * math.sin(1.1) + 0.5 * 0.49 * math.cos(1.1))


@case("py_math_hypot_three_args", PY, (0.7, 1.3), argnums=(0, 1))
def py_math_hypot_three_args(x, y):
    return math.hypot(x, y, x * y)


@case("py_math_fmod", PY, (0.7, 1.3), argnums=(0, 1), doc=("E202",))
def py_math_fmod(x, y):
    return math.fmod(x * 3.0, 1.0 + y * y) ** 2


@case("py_math_log_with_base", PY, (0.7, 1.3), argnums=(0, 1))
def py_math_log_with_base(x, y):
    return math.log(x * x + 1.0, 2.0 + y * y)


@case("py_sum_with_start", PY, (0.7, 1.3), argnums=(0, 1))
def py_sum_with_start(x, y):
    return sum([x, y, x * y], 2.0 * x)


@custom("tr_jit_refuses_arrays", TR, doc=("E502",))
def tr_jit_refuses_arrays():
    def f(x):
        return np.sum(x ** 2)
    revsrc.jit(f)(A3)


@custom("tr_vmap_2d_refused", TR, doc=("E502",))
def tr_vmap_2d_refused():
    def f(x):
        return x * 2.0
    revsrc.vmap(f)(M2)
