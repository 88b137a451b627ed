"""Round 20, part c: computational neuroscience -- leaky integrate-and-fire with smooth
surrogate spikes and with hard resets (first-spike time by interpolation and an early
return), Hodgkin-Huxley and Izhikevich by Euler steps, Wilson-Cowan and recurrent rate
models iterated to a fixed point, synaptic kernels by convolution and in-place filters,
STDP windows, Poisson GLMs with spike-history filters, population-code Fisher information."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

DT = 0.1          # ms
V_REST, V_TH, V_RESET = -65.0, -50.0, -70.0


# ---------------------------------------------------------------- LIF with a surrogate
def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lif_surrogate_rate(I, tau=10.0, beta=2.0, n=200):
    v = V_REST
    spikes = 0.0
    for _ in range(n):
        v = v + DT * (-(v - V_REST) + I) / tau
        s = sigmoid(beta * (v - V_TH))
        spikes = spikes + s
        v = v * (1.0 - s) + V_RESET * s
    return spikes / (n * DT) * 1000.0


def lif_rate_loss(params, target=40.0):
    I, tau = params
    return (lif_surrogate_rate(I, tau) - target) ** 2


add(VG("r20c_lif_surrogate_rate_loss_tuple", lif_rate_loss, ((20.0, 10.0),), ref="fd", tol=1e-6))
add(pair("r20c_lif_surrogate_rate_vs_ag", lambda: revsrc.grad(lif_surrogate_rate, argnums=(0, 1, 2))(20.0, 10.0, 2.0),
         lambda: ag()[0].grad(agify(lif_surrogate_rate), argnum=(0, 1, 2))(20.0, 10.0, 2.0), tol=1e-9))


def first_spike_time(I, tau=10.0, n=400):
    # hard threshold: time of the first crossing, linearly interpolated; early return
    v = V_REST
    for k in range(n):
        v_new = v + DT * (-(v - V_REST) + I) / tau
        if v_new >= V_TH:
            frac = (V_TH - v) / (v_new - v)
            return (k + frac) * DT
        v = v_new
    return n * DT


# closed form (continuous limit is not the discrete one); check against autograd and fd
add(pair("r20c_first_spike_time_early_return_ag", lambda: revsrc.grad(first_spike_time, argnums=(0, 1))(22.0, 10.0),
         lambda: ag()[0].grad(agify(first_spike_time), argnum=(0, 1))(22.0, 10.0), tol=1e-10))
add(G("r20c_first_spike_time_fd", first_spike_time, (22.0, 10.0), argnums=0, ref="fd", tol=1e-6, h=1e-6))
add(pair("r20c_first_spike_time_never_fires", lambda: revsrc.grad(first_spike_time)(5.0), lambda: 0.0, tol=0.0))


def lif_hard_reset_voltage_trace_loss(I, w_syn, spikes_in):
    v = V_REST
    trace = np.zeros(len(spikes_in))
    for t, s in enumerate(spikes_in):
        v += DT * (-(v - V_REST) + I) / 10.0 + w_syn * s
        if v > V_TH:
            v = V_RESET
        trace[t] = v
    return np.mean((trace + 60.0) ** 2)


SPK_IN = (np.sin(np.arange(150) * 1.7) > 0.9).astype(float)
add(G("r20c_lif_hard_reset_trace_inplace", lif_hard_reset_voltage_trace_loss, (12.0, 2.5, SPK_IN), argnums=(0, 1),
      ref="fd", tol=1e-6, h=1e-6))


# ---------------------------------------------------------------- Hodgkin-Huxley
def alpha_n(V):
    return 0.01 * (V + 55.0) / (1.0 - math.exp(-(V + 55.0) / 10.0))


def beta_n(V):
    return 0.125 * math.exp(-(V + 65.0) / 80.0)


def alpha_m(V):
    return 0.1 * (V + 40.0) / (1.0 - math.exp(-(V + 40.0) / 10.0))


def beta_m(V):
    return 4.0 * math.exp(-(V + 65.0) / 18.0)


def alpha_h(V):
    return 0.07 * math.exp(-(V + 65.0) / 20.0)


def beta_h(V):
    return 1.0 / (1.0 + math.exp(-(V + 35.0) / 10.0))


HH_CONST = {"C": 1.0, "ENa": 50.0, "EK": -77.0, "EL": -54.387}


def hh_run(g, I_ext, steps=120, dt=0.025):
    gNa, gK, gL = g["Na"], g["K"], g["L"]
    V, m, h, n = -65.0, 0.05, 0.6, 0.32
    acc = 0.0
    for _ in range(steps):
        INa = gNa * m ** 3 * h * (V - HH_CONST["ENa"])
        IK = gK * n ** 4 * (V - HH_CONST["EK"])
        IL = gL * (V - HH_CONST["EL"])
        V, m, h, n = (V + dt * (I_ext - INa - IK - IL) / HH_CONST["C"],
                      m + dt * (alpha_m(V) * (1 - m) - beta_m(V) * m),
                      h + dt * (alpha_h(V) * (1 - h) - beta_h(V) * h),
                      n + dt * (alpha_n(V) * (1 - n) - beta_n(V) * n))
        acc += dt * V
    return acc / (steps * dt)


G_HH = {"Na": 120.0, "K": 36.0, "L": 0.3}
add(VG("r20c_hh_euler_mean_voltage_dict", hh_run, (G_HH, 10.0), ref="fd", tol=1e-6))
add(pair("r20c_hh_euler_wrt_current_ag", lambda: revsrc.grad(hh_run, argnums=(0, 1))(G_HH, 10.0),
         lambda: ag()[0].grad(agify(hh_run), argnum=(0, 1))(G_HH, 10.0), tol=1e-9))
# alpha_m near its removable singularity V = -40 (at it, Python itself divides by zero)
add(pair("r20c_alpha_m_near_removable_singularity", lambda: revsrc.grad(alpha_m)(-40.001),
         lambda: jax().grad(jaxify(alpha_m))(-40.001), tol=1e-7))


# ---------------------------------------------------------------- Izhikevich with resets
def izhikevich(p, I=10.0, steps=400, dt=0.25):
    a, b, c, d = p
    v, u = -65.0, b * -65.0
    spikes = 0
    vsum = 0.0
    for _ in range(steps):
        v = v + dt * (0.04 * v * v + 5 * v + 140 - u + I)
        u = u + dt * a * (b * v - u)
        if v >= 30.0:
            v = c
            u = u + d
            spikes += 1
        vsum += v
    return vsum / steps + 0.0 * spikes


add(pair("r20c_izhikevich_reset_branches_ag", lambda: revsrc.grad(izhikevich)([0.02, 0.2, -65.0, 8.0]),
         lambda: ag()[0].grad(agify(izhikevich))([0.02, 0.2, -65.0, 8.0]), tol=1e-8))


# ---------------------------------------------------------------- rate models
def phi_relu_sat(x):
    return np.clip(x, 0.0, 100.0)


def wilson_cowan(W, inputs, steps=300, dt=0.5, tau=np.array([10.0, 5.0])):
    r = np.zeros(2)
    for _ in range(steps):
        r = r + dt / tau * (-r + sigmoid(W @ r + inputs))
    return r


def wc_loss(params):
    r = wilson_cowan(params["W"], params["h"])
    return np.sum((r - np.array([0.7, 0.4])) ** 2)


P_WC = {"W": np.array([[1.5, -2.0], [2.0, -0.5]]), "h": np.array([0.5, -0.3])}
add(G("r20c_wilson_cowan_dict_matrix", wc_loss, (P_WC,), ref="ag", tol=1e-9))
add(H("r20c_wilson_cowan_hessian_inputs", lambda h: wc_loss({"W": P_WC["W"], "h": h}), (P_WC["h"],), ref="fd", tol=1e-5))


def fixed_point_rates(W, I, tol=1e-12):
    r = np.zeros(len(I))
    while True:
        r_new = np.tanh(W @ r + I)
        if np.max(np.abs(r_new - r)) < tol:
            return r_new
        r = r_new


def fp_loss(W, I):
    return np.sum(fixed_point_rates(W, I) ** 2)


W_FP = np.array([[0.1, -0.3, 0.2], [0.25, 0.0, -0.1], [-0.2, 0.15, 0.05]])
I_FP = np.array([0.3, -0.2, 0.5])


def _fp_implicit(W, I):
    r = fixed_point_rates(W, I)
    D = np.diag(1 - r ** 2)
    A = np.eye(3) - D @ W
    lam = np.linalg.solve(A.T, 2 * r)
    return np.outer(D @ lam, r), D @ lam


add(pair("r20c_fixed_point_while_implicit", lambda: revsrc.grad(fp_loss, argnums=(0, 1))(W_FP, I_FP),
         lambda: _fp_implicit(W_FP, I_FP), tol=1e-9))


# ---------------------------------------------------------------- synaptic kernels
SPIKE_T = np.array([2.0, 5.5, 6.0, 12.0, 20.5])
T_GRID = np.arange(0.0, 30.0, 0.5)


def double_exp_psp(t_rise, t_decay):
    out = np.zeros_like(T_GRID)
    norm = 1.0 / (t_decay - t_rise)
    for ts in SPIKE_T:
        dt_ = T_GRID - ts
        on = dt_ >= 0
        out = out + np.where(on, norm * (np.exp(-np.maximum(dt_, 0) / t_decay) - np.exp(-np.maximum(dt_, 0) / t_rise)), 0.0)
    return out


TARGET_PSP = double_exp_psp(1.2, 6.0) + 0.01 * np.cos(T_GRID)


def psp_fit(taus):
    return np.sum((double_exp_psp(taus[0], taus[1]) - TARGET_PSP) ** 2)


add(G("r20c_double_exp_psp_where", psp_fit, (np.array([1.0, 5.0]),), ref="jax", tol=1e-9))


def alpha_conv_loss(tau, spikes, target):
    t = np.arange(40) * 0.5
    kern = t / tau * np.exp(1 - t / tau)
    g = np.convolve(spikes, kern)[:len(spikes)]
    return np.sum((g - target) ** 2)


SPK = np.zeros(60)
SPK[[3, 10, 11, 30, 44]] = 1.0
TGT = np.convolve(SPK, np.arange(40) * 0.5 / 2.5 * np.exp(1 - np.arange(40) * 0.5 / 2.5))[:60] * 1.1
add(G("r20c_alpha_kernel_convolve", alpha_conv_loss, (2.0, SPK, TGT), ref="jax", tol=1e-9))


def exp_synapse_filter(decay_tau, spikes):
    s = np.zeros(len(spikes))
    a = math.exp(-0.5 / decay_tau)
    for t in range(1, len(spikes)):
        s[t] = s[t - 1] * a + spikes[t]
    return np.sum(s ** 2) / len(spikes)


add(G("r20c_exp_synapse_inplace_recursion", exp_synapse_filter, (3.0, SPK), ref="fd", tol=1e-6))


def stdp_total(taus, pre, post, A_plus=0.01, A_minus=0.012):
    tp, tm = taus
    dts = (post[:, None] - pre[None, :]).ravel()
    dw = np.where(dts > 0, A_plus * np.exp(-np.abs(dts) / tp), -A_minus * np.exp(-np.abs(dts) / tm))
    return np.sum(dw)


PRE = np.array([1.0, 7.0, 15.0, 22.0])
POST = np.array([3.0, 6.0, 18.0])
add(G("r20c_stdp_window_where_tuple", stdp_total, ((17.0, 34.0), PRE, POST), ref="jax", tol=1e-12))


# ---------------------------------------------------------------- Poisson GLM
RNG = np.random.default_rng(3)
STIM = RNG.normal(size=80)
COUNTS = RNG.poisson(1.0, size=80).astype(float)


def glm_nll(w, h, b):
    # stimulus filter w, spike-history filter h, bias b
    n = len(STIM)
    drive = np.full(n, b)
    for lag, wk in enumerate(w):
        drive[lag:] += wk * STIM[:n - lag]
    for lag, hk in enumerate(h, start=1):
        drive[lag:] += hk * COUNTS[:n - lag]
    lam = np.exp(drive)
    return np.sum(lam - COUNTS * drive)


W_GLM, H_GLM = np.array([0.3, -0.1, 0.05]), np.array([-0.5, -0.2])
add(VG("r20c_glm_history_inplace_slices", glm_nll, (W_GLM, H_GLM, 0.1), argnums=(0, 1, 2), ref="fd", tol=1e-6))
add(pair("r20c_glm_hessian_psd", lambda: np.linalg.eigvalsh(revsrc.hessian(glm_nll)(W_GLM, H_GLM, 0.1)).min() > 0,
         lambda: True, tol=0.0))
add(H("r20c_glm_hessian_wrt_history", glm_nll, (W_GLM, H_GLM, 0.1), argnums=1, ref="fd", tol=1e-5))


PREF = np.linspace(-np.pi, np.pi, 12, endpoint=False)


def tuning(theta, kappa=2.0, rmax=20.0):
    return rmax * np.exp(kappa * (np.cos(theta - PREF) - 1.0))


def fisher_info(theta):
    # Poisson population: I(theta) = sum f'^2 / f, with f' by revsrc.jacfwd inside
    f = tuning(theta)
    fp = revsrc.jacfwd(tuning)(theta)
    return np.sum(fp ** 2 / f)


def _fisher_closed(theta, kappa=2.0):
    f = tuning(theta)
    fp = -kappa * np.sin(theta - PREF) * f
    return np.sum(fp ** 2 / f)


add(pair("r20c_fisher_info_jacfwd_inside", lambda: fisher_info(0.3), lambda: _fisher_closed(0.3), tol=1e-10))
add(G("r20c_grad_of_fisher_info", fisher_info, (0.3,), ref=lambda: fd_checked(_fisher_closed, (0.3,))[0], tol=1e-6))


class LIFNeuron:
    def __init__(self, tau, v_th):
        self.tau = tau
        self.v_th = v_th

    @property
    def rheobase(self):
        return self.v_th - V_REST

    def step(self, v, I):
        return v + DT * (-(v - V_REST) + I) / self.tau


class AdaptiveLIF(LIFNeuron):
    def __init__(self, tau, v_th, a):
        super().__init__(tau, v_th)
        self.a = a

    def run(self, I, n=150, beta=3.0):
        v, w = V_REST, 0.0
        total = 0.0
        for _ in range(n):
            v = self.step(v, I - w)
            s = sigmoid(beta * (v - self.v_th))
            w = w + DT * (self.a * s - w / 50.0)
            v = v - s * (v - V_RESET)
            total += s
        return total / self.rheobase


def adaptive_rate(a, I):
    return AdaptiveLIF(10.0, V_TH, a).run(I)


add(G("r20c_adaptive_lif_subclass_property", adaptive_rate, (0.5, 25.0), argnums=(0, 1), ref="fd", tol=1e-6))
add(pair("r20c_vmap_grad_lif_rate_over_currents", lambda: revsrc.vmap(revsrc.grad(lif_surrogate_rate))(np.array([14.0, 18.0, 25.0])),
         lambda: np.array([ag()[0].grad(agify(lif_surrogate_rate))(v) for v in (14.0, 18.0, 25.0)]), tol=1e-9))


def ring_attractor(J, steps=60):
    n = 16
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = np.exp(np.cos(ang - 1.0))
    for _ in range(steps):
        rec = J[0] * r + J[1] * (np.roll(r, 1) + np.roll(r, -1)) - J[2] * np.mean(r)
        r = r + 0.1 * (-r + np.maximum(rec, 0.0))
    return np.sum(r * np.cos(ang)) / np.sum(r)


add(G("r20c_ring_attractor_roll_maximum", ring_attractor, (np.array([0.6, 0.3, 0.8]),), ref="ag", tol=1e-9))
add(pair("r20c_empty_spike_train_filter", lambda: revsrc.grad(exp_synapse_filter)(3.0, np.zeros(1)),
         lambda: 0.0, tol=0.0))
add(G("r20c_lif_float32_current", lif_surrogate_rate, (np.float32(20.0),), ref="fd", tol=2e-3, h=1e-2, check=1e-2))


# ---------------------------------------------------------------- more: cable, ISI with try, sorted spikes
def cable_implicit(g_axial, g_leak, inj=1.0, n=10, steps=20, dt=0.1):
    # compartmental passive cable, implicit Euler by np.linalg.solve
    A = np.zeros((n, n))
    for i in range(n):
        A[i, i] = g_leak + (2 * g_axial if 0 < i < n - 1 else g_axial)
        if i > 0:
            A[i, i - 1] = -g_axial
        if i < n - 1:
            A[i, i + 1] = -g_axial
    M = np.eye(n) + dt * A
    V = np.zeros(n)
    I = np.zeros(n)
    I[0] = inj
    for _ in range(steps):
        V = np.linalg.solve(M, V + dt * I)
    return V[-1] / V[0]


add(G("r20c_cable_implicit_solve_attenuation", cable_implicit, (2.0, 0.3), argnums=(0, 1), ref="fd", tol=1e-6))


def mean_rate_try(I, n=300):
    v = V_REST
    times = []
    for k in range(n):
        v = v + DT * (-(v - V_REST) + I) / 10.0
        if v >= V_TH:
            frac = (V_TH - (v - DT * (-(v - V_REST) + I) / 10.0)) / (DT * (-(v - V_REST) + I) / 10.0)
            times.append((k + frac) * DT)
            v = V_RESET
    try:
        isi = (times[-1] - times[0]) / (len(times) - 1)
        return 1000.0 / isi
    except (ZeroDivisionError, IndexError):
        return 0.0


add(G("r20c_isi_rate_try_except", mean_rate_try, (30.0,), ref="fd", tol=1e-6, h=1e-6))
add(pair("r20c_isi_rate_try_except_silent", lambda: revsrc.grad(mean_rate_try)(10.0), lambda: 0.0, tol=0.0))


def pair_stdp_sorted(shift, pre=(12.0, 3.0, 25.0, 7.5), post=(9.0, 20.0, 4.0)):
    # nearest-neighbour STDP: each post spike pairs with the latest pre spike before it
    pre_s = sorted(pre)
    total = 0.0
    for tpost in sorted(post):
        tp = tpost + shift
        best = None
        for tpre in reversed(pre_s):
            if tpre < tp:
                best = tpre
                break
        if best is not None:
            total += 0.01 * math.exp(-(tp - best) / 17.0)
    return total


add(pair("r20c_stdp_nearest_sorted_reversed_break", lambda: revsrc.grad(pair_stdp_sorted)(0.7),
         lambda: ag()[0].grad(agify(pair_stdp_sorted))(0.7), tol=1e-12))
