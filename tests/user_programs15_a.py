"""Round 15, part a: neuroscience and biology -- leaky integrate-and-fire with resets,
FitzHugh-Nagumo and Hodgkin-Huxley-like small states, Lotka-Volterra, Leslie matrices,
logistic-map recurrences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def lif_trace(I, tau=10.0, v_th=1.0, v_reset=0.0, dt=0.5, n=120):
    # membrane trace with resets: the loss is the mean of the sub-threshold potential
    v = 0.0
    acc = 0.0
    spikes = 0
    for _ in range(n):
        v = v + dt * (-v + I) / tau
        if v >= v_th:
            v = v_reset
            spikes += 1
        acc += v
    return acc / n + 0.0 * spikes


add(VG("r15_lif_reset_vg", lif_trace, (1.3,), ref="ag", tol=1e-10))
add(G("r15_lif_reset_wrt_tau", lif_trace, (1.3, 10.0), argnums=1, ref="ag", tol=1e-10))
add(pair("r15_lif_vmap_grad_currents",
         lambda: revsrc.vmap(revsrc.grad(lif_trace))(np.array([0.5, 1.2, 1.3, 2.0])),
         lambda: np.array([ag()[0].grad(agify(lif_trace))(c) for c in (0.5, 1.2, 1.3, 2.0)]),
         tol=1e-10))
add(pair("r15_lif_jit_value", lambda: revsrc.jit(lif_trace)(1.7), lambda: lif_trace(1.7), tol=0.0))


def lif_soft(I_vec, w):
    # array-driven LIF: input current per step, a synaptic weight, soft spike count
    v = 0.0
    out = 0.0
    for i in range(I_vec.shape[0]):
        v = 0.9 * v + w * I_vec[i]
        if v > 1.0:
            out += 1.0 / (1.0 + math.exp(-(v - 1.0) * 5.0))
            v = v - 1.0
    return out + 0.1 * v * v


IV = np.array([0.3, 0.5, 0.1, 0.7, 0.6, 0.2, 0.9, 0.4, 0.05, 0.8])
add(VG("r15_lif_subtract_reset_vg", lif_soft, (IV, 0.9), argnums=(0, 1), ref="ag", tol=1e-10))
add(H("r15_lif_subtract_reset_hessian_w", lambda w: lif_soft(IV, w), (0.9,), ref="ag", tol=1e-8))


def fhn(params, n=200, dt=0.05):
    a, b, eps, I = params[0], params[1], params[2], params[3]
    v, w = -1.0, 1.0
    vmax = -10.0
    for _ in range(n):
        dv = v - v ** 3 / 3.0 - w + I
        dw = eps * (v + a - b * w)
        v, w = v + dt * dv, w + dt * dw
        vmax = max(vmax, v)
    return vmax + 0.5 * w


FHNP = np.array([0.7, 0.8, 0.08, 0.5])
add(VG("r15_fhn_running_max_vg", fhn, (FHNP,), ref="ag", tol=1e-9))


def fhn_state(state0, I=0.5, n=100, dt=0.1):
    s = state0.copy()
    for _ in range(n):
        v, w = s[0], s[1]
        s = s + dt * np.array([v - v ** 3 / 3.0 - w + I, 0.08 * (v + 0.7 - 0.8 * w)])
    return s


S0 = np.array([-1.0, 1.0])
add(pair("r15_fhn_jacfwd_state", lambda: revsrc.jacfwd(fhn_state)(S0), lambda: fdj(fhn_state, S0), tol=1e-6))
add(pair("r15_fhn_jacrev_state", lambda: revsrc.jacrev(fhn_state)(S0), lambda: fdj(fhn_state, S0), tol=1e-6))
add(SAME("r15_fhn_jacrev_same_bits", lambda: revsrc.jacrev(fhn_state)(S0)))


def hh_gate(V, m0=0.05, n=80, dt=0.01):
    # a single gating variable of Hodgkin-Huxley type, alpha/beta with a removable singularity branch
    m = m0
    for _ in range(n):
        x = V + 40.0
        if abs(x) < 1e-7:
            am = 1.0
        else:
            am = 0.1 * x / (1.0 - math.exp(-x / 10.0))
        bm = 4.0 * math.exp(-(V + 65.0) / 18.0)
        m = m + dt * (am * (1.0 - m) - bm * m)
    return m ** 3


add(VG("r15_hh_gate_vg", hh_gate, (-30.0,), ref="ag", tol=1e-9))
# at V = -40 the program takes the constant branch (am = 1.0): the path's derivative
add(G("r15_hh_gate_singular_branch", hh_gate, (-40.0,), ref="ag", tol=1e-10))


def lotka(theta, x0=1.0, y0=0.5, n=300, dt=0.01):
    a, b, c, d = theta
    x, y = x0, y0
    for _ in range(n):
        x, y = x + dt * (a * x - b * x * y), y + dt * (d * x * y - c * y)
    return x * y


TH = (1.1, 0.4, 0.4, 0.1)


def _pairs(M):
    return tuple(tuple(M[i, j] for j in range(M.shape[1])) for i in range(M.shape[0]))
add(G("r15_lotka_volterra_tuple_params", lotka, (TH,), ref="ag", tol=1e-9))
add(pair("r15_lotka_hessian_x0y0", lambda: revsrc.hessian(lotka, argnums=(1, 2))(TH, 1.0, 0.5),
         lambda: _pairs(ag()[0].hessian(lambda v: agify(lotka)(TH, v[0], v[1]))(np.array([1.0, 0.5]))), tol=1e-8))


def lv_array(p, z0):
    z = z0
    traj = []
    for _ in range(50):
        dz = np.array([p[0] * z[0] - p[1] * z[0] * z[1], p[3] * z[0] * z[1] - p[2] * z[1]])
        z = z + 0.02 * dz
        traj.append(z[0])
    return np.sum(np.array(traj) ** 2)


add(VG("r15_lv_array_traj_list", lv_array, (np.array(TH), np.array([1.0, 0.5])), ref="ag", tol=1e-9))
add(pair("r15_lv_grad_z0_backend_jax", lambda: revsrc.grad(lv_array, argnums=1, backend="jax")(np.array(TH), np.array([1.0, 0.5])),
         lambda: ag()[0].grad(agify(lv_array), 1)(np.array(TH), np.array([1.0, 0.5])), tol=1e-9))


def leslie_growth(fec, surv, years=12):
    L = np.zeros((4, 4))
    L[0, :] = fec
    L[1, 0] = surv[0]
    L[2, 1] = surv[1]
    L[3, 2] = surv[2]
    n = np.ones(4)
    for _ in range(years):
        n = L @ n
    return math.log(np.sum(n))


FEC = np.array([0.0, 1.2, 1.5, 0.8])
SURV = np.array([0.6, 0.7, 0.5])
add(VG("r15_leslie_row_assign_vg", leslie_growth, (FEC, SURV), argnums=(0, 1), ref="fd", tol=1e-7))


def leslie_power(fec, surv):
    L = np.diag(surv, -1)
    L[0, :] = fec
    M = np.linalg.matrix_power(L, 10)
    return np.sum(M @ np.ones(4))


add(G("r15_leslie_diag_matrix_power", leslie_power, (FEC, SURV), argnums=(0, 1), ref="fd", tol=1e-7))


def leslie_lambda(fec, surv):
    L = np.diag(surv, -1)
    L[0, :] = fec
    w = np.linalg.eigvals(L)
    return np.max(np.abs(w))


add(G("r15_leslie_dominant_eigvals", leslie_lambda, (FEC, SURV), ref="fd", tol=1e-6))


def logistic_orbit(r, x0=0.2, n=30):
    x = x0
    s = 0.0
    for k in range(n):
        x = r * x * (1.0 - x)
        if k >= n - 5:
            s += x
    return s


add(VG("r15_logistic_map_tail_sum", logistic_orbit, (2.9,), ref="ag", tol=1e-8))
add(pair("r15_logistic_map_vmap_vg", lambda: revsrc.vmap(revsrc.value_and_grad(logistic_orbit))(np.array([2.5, 2.8, 3.1])),
         lambda: (np.array([logistic_orbit(r) for r in (2.5, 2.8, 3.1)]),
                  np.array([ag()[0].grad(agify(logistic_orbit))(r) for r in (2.5, 2.8, 3.1)])), tol=1e-8))


def ricker_while(r, K=10.0, x0=1.0):
    # iterate the Ricker map until the population first exceeds K/2
    x = x0
    t = 0
    while x < K / 2 and t < 100:
        x = x * math.exp(r * (1.0 - x / K))
        t += 1
    return x + t


add(G("r15_ricker_while_threshold", ricker_while, (0.8,), ref="ag", tol=1e-10))
add(pair("r15_ricker_grad_of_jit", lambda: revsrc.grad(revsrc.jit(ricker_while))(0.8),
         lambda: ag()[0].grad(agify(ricker_while))(0.8), tol=1e-10))


def sir(beta, gamma=0.1, n=150, dt=0.5):
    s, i, r = 0.99, 0.01, 0.0
    peak = 0.0
    for _ in range(n):
        new_inf = beta * s * i * dt
        rec = gamma * i * dt
        s, i, r = s - new_inf, i + new_inf - rec, r + rec
        if i > peak:
            peak = i
    return peak + r


add(VG("r15_sir_epidemic_peak", sir, (0.3,), ref="ag", tol=1e-9))
add(pair("r15_sir_jvp_gamma", lambda: revsrc.jvp(lambda g: sir(0.3, g), (0.1,), (1.0,)),
         lambda: (sir(0.3, 0.1), ag()[0].grad(lambda g: agify(sir)(0.3, g))(0.1)), tol=1e-9))
