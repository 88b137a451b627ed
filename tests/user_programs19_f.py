"""Round 19, part f: compositions, state between calls and misuse across parts a-e --
jit(grad), grad(grad), hessian, hvp, jacfwd(jacrev), vmap(grad) with in_axes, value_and_grad
with has_aux, backend="jax"; a global, an attribute and an argument array changed between
calls of one derivative; a Generator argument; edge values (0-d, empty, nan, inf, ints,
float32); and user errors (argnums, shapes, vector outputs) that must be refused."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append


# ---------------------------------------------------------------- scalar programs for jit / grad(grad)
def theis_like(T, S=1e-4, r=30.0, t=2.0):
    u = r * r * S / (4.0 * T * t)
    s = -0.5772156649015329 - math.log(u)
    term = -1.0
    k = 1
    while k < 40:
        term = -term * u / k
        s += term / k
        k += 1
    return 0.02 / (4 * math.pi * T) * s


def mm_decay(vmax, km=12.0, c0=50.0, dt=0.05, n=100):
    c = c0
    for _ in range(n):
        c = c - dt * vmax * c / (km + c)
    return c


def hill_scalar(c, ec50=2.0, n=1.7):
    return c ** n / (ec50 ** n + c ** n)


add(pair("r19f_jit_grad_theis_series", lambda: revsrc.jit(revsrc.grad(theis_like))(0.01),
         lambda: fd_checked(theis_like, (0.01,), h=1e-7)[0], tol=1e-6))
add(EXACT("r19f_jit_grad_equals_grad_mm", lambda: revsrc.jit(revsrc.grad(mm_decay))(8.0), lambda: revsrc.grad(mm_decay)(8.0)))
add(pair("r19f_grad_grad_mm_decay", lambda: revsrc.grad(revsrc.grad(mm_decay))(8.0),
         lambda: ag()[0].grad(ag()[0].grad(agify(mm_decay)))(8.0), tol=1e-8))
add(pair("r19f_grad_grad_grad_hill", lambda: revsrc.grad(revsrc.grad(revsrc.grad(hill_scalar)))(1.3),
         lambda: jax().grad(jax().grad(jax().grad(jaxify(hill_scalar))))(1.3), tol=1e-10))
add(pair("r19f_grad_hill_wrt_int_hill_coefficient_kw", lambda: revsrc.grad(hill_scalar, argnums=(0, 2))(1.3, 2.0, 2.0),
         lambda: jax().grad(jaxify(hill_scalar), argnums=(0, 2))(1.3, 2.0, 2.0), tol=1e-12))
add(pair("r19f_vmap_grad_hill_over_concs", lambda: revsrc.vmap(revsrc.grad(hill_scalar))(np.array([0.0, 0.5, 2.0, 8.0])),
         lambda: jax().vmap(jax().grad(jaxify(hill_scalar)))(np.array([0.0, 0.5, 2.0, 8.0])), tol=1e-12))
add(pair("r19f_jit_vmap_grad_mm", lambda: revsrc.jit(revsrc.vmap(revsrc.grad(mm_decay)))(np.array([4.0, 8.0, 16.0])),
         lambda: np.array([ag()[0].grad(agify(mm_decay))(v) for v in (4.0, 8.0, 16.0)]), tol=1e-10))


# ---------------------------------------------------------------- hessian / jacfwd(jacrev) / hvp of array programs
XS = np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 1.1], [1.4, 1.3]])
ZS = np.array([1.2, 0.8, 1.5, 0.4])


def sk_predict(theta, x0):
    sill, rng_ = np.exp(theta[0]), np.exp(theta[1])
    D2 = np.sum((XS[:, None, :] - XS[None, :, :]) ** 2, axis=-1)
    C = sill * np.exp(-D2 / rng_ ** 2) + 1e-2 * np.eye(len(ZS))
    c0 = sill * np.exp(-np.sum((XS - x0) ** 2, axis=1) / rng_ ** 2)
    return c0 @ np.linalg.solve(C, ZS)


TH = np.array([0.0, -0.3])
X0 = np.array([0.6, 0.7])
add(pair("r19f_jacfwd_jacrev_kriging_surface", lambda: revsrc.jacfwd(revsrc.jacrev(sk_predict, argnums=1), argnums=1)(TH, X0),
         lambda: fd_hess_checked(sk_predict, (TH, X0), argnums=1), tol=1e-5))
add(pair("r19f_hessian_kriging_theta", lambda: revsrc.hessian(sk_predict)(TH, X0),
         lambda: fd_hess_checked(sk_predict, (TH, X0)), tol=1e-5))
add(pair("r19f_hvp_kriging_location", lambda: revsrc.hvp(lambda x: sk_predict(TH, x), (X0,), (np.array([1.0, -2.0]),)),
         lambda: fd_hess_checked(sk_predict, (TH, X0), argnums=1)[0] @ np.array([1.0, -2.0]), tol=1e-5))
add(pair("r19f_vmap_grad_kriging_in_axes_none_0", lambda: revsrc.vmap(revsrc.grad(sk_predict, argnums=1), in_axes=(None, 0))(TH, XS + 0.1),
         lambda: jax().vmap(jax().grad(jaxify(sk_predict), argnums=1), in_axes=(None, 0))(TH, XS + 0.1), tol=1e-9))


def station_loss(theta, t_obs, q_obs):
    # per-station linear-reservoir fit: q = theta0 * exp(-t / theta1)
    pred = theta[0] * np.exp(-t_obs / theta[1])
    return np.sum((pred - q_obs) ** 2)


T_ST = np.array([[1.0, 2.0, 4.0], [0.5, 1.5, 3.0], [2.0, 3.0, 6.0]])
Q_ST = np.array([[8.0, 6.5, 4.0], [9.0, 7.0, 5.0], [6.0, 5.0, 2.5]])
TH_R = np.array([10.0, 5.0])
add(pair("r19f_vmap_grad_station_none_0_0", lambda: revsrc.vmap(revsrc.grad(station_loss), in_axes=(None, 0, 0))(TH_R, T_ST, Q_ST),
         lambda: jax().vmap(jax().grad(jaxify(station_loss)), in_axes=(None, 0, 0))(TH_R, T_ST, Q_ST), tol=1e-10))
add(pair("r19f_vmap_mismatched_station_counts", lambda: revsrc.vmap(revsrc.grad(station_loss), in_axes=(None, 0, 0))(TH_R, T_ST, Q_ST[:2]),
         lambda: None))
add(pair("r19f_hvp_wrong_tangent_shape", lambda: revsrc.hvp(station_loss, (TH_R, T_ST[0], Q_ST[0]), (np.ones(3), np.zeros(3), np.zeros(3))),
         lambda: None))


# ---------------------------------------------------------------- value_and_grad with has_aux
def pk_loss_aux(logp, t=np.array([1.0, 2.0, 4.0, 8.0]), c_obs=np.array([3.5, 3.0, 2.2, 1.1])):
    ka, ke, V = np.exp(logp)
    pred = 100.0 * ka / (V * (ka - ke)) * (np.exp(-ke * t) - np.exp(-ka * t))
    res = pred - c_obs
    return np.sum(res ** 2), {"pred": pred, "half_life": math.log(2.0) / ke}


LP = np.log(np.array([1.2, 0.2, 25.0]))


def _pk_aux_ref():
    j = jax()
    (v, aux), g = j.value_and_grad(jaxify(pk_loss_aux), has_aux=True)(LP)
    return (v, aux), g


add(pair("r19f_value_and_grad_has_aux_dict", lambda: revsrc.value_and_grad(pk_loss_aux, has_aux=True)(LP), _pk_aux_ref, tol=1e-10))
add(pair("r19f_grad_has_aux_dict", lambda: revsrc.grad(pk_loss_aux, has_aux=True)(LP),
         lambda: jax().grad(jaxify(pk_loss_aux), has_aux=True)(LP), tol=1e-10))


# ---------------------------------------------------------------- backend="jax"
def dc_penalty(p_inj):
    b = np.array([10.0, 5.0, 8.0])
    Bm = np.array([[b[0] + b[1], -b[0], -b[1]], [-b[0], b[0] + b[2], -b[2]], [-b[1], -b[2], b[1] + b[2]]])
    th = np.linalg.solve(Bm[1:, 1:], p_inj[1:])
    flows = np.array([b[0] * (0 - th[0]), b[1] * (0 - th[1]), b[2] * (th[0] - th[1])])
    return np.sum(np.maximum(np.abs(flows) - 0.5, 0.0) ** 2)


PI = np.array([0.0, -0.9, -0.6])
add(pair("r19f_backend_jax_dc_penalty", lambda: revsrc.grad(dc_penalty, backend="jax")(PI),
         lambda: fd_checked(dc_penalty, (PI,))[0], tol=1e-7))
add(pair("r19f_backend_jax_mm_decay_loop", lambda: revsrc.grad(mm_decay, backend="jax")(8.0),
         lambda: ag()[0].grad(agify(mm_decay))(8.0), tol=1e-10))
add(pair("r19f_backend_jax_station_vmap", lambda: revsrc.vmap(revsrc.grad(station_loss, backend="jax"), in_axes=(None, 0, 0))(TH_R, T_ST, Q_ST),
         lambda: jax().vmap(jax().grad(jaxify(station_loss)), in_axes=(None, 0, 0))(TH_R, T_ST, Q_ST), tol=1e-10))


def time_to_threshold(vmax, km=12.0, c0=50.0, thr=5.0, dt=0.05):
    c, t = c0, 0.0
    while c > thr:
        c = c - dt * vmax * c / (km + c)
        t += dt
    return t + c / vmax


add(pair("r19f_backend_jax_data_dependent_while", lambda: revsrc.grad(time_to_threshold, backend="jax")(8.0),
         lambda: revsrc.grad(time_to_threshold)(8.0) * 0 + fd_checked(time_to_threshold, (8.0,), h=1e-7)[0], tol=1e-6))


def soft_dtw_scalar_seq(x, y=(0.1, 0.9, 1.0), gamma=0.5):
    # small soft-DTW with lists of floats, softmin by np.logaddexp
    n, m = len(x), len(y)
    R = [[math.inf] * (m + 1) for _ in range(n + 1)]
    R[0][0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            a, b, c = R[i - 1][j - 1], R[i - 1][j], R[i][j - 1]
            sm = -gamma * np.logaddexp(np.logaddexp(-a / gamma, -b / gamma), -c / gamma)
            R[i][j] = (x[i - 1] - y[j - 1]) ** 2 + sm
    return R[n][m]


SQ = np.array([0.0, 0.6, 1.1, 0.3])
add(pair("r19f_soft_dtw_nested_lists_grad", lambda: revsrc.grad(soft_dtw_scalar_seq)(SQ),
         lambda: fd_checked(soft_dtw_scalar_seq, (SQ,))[0], tol=1e-7))
add(pair("r19f_soft_dtw_nested_lists_backend_jax", lambda: revsrc.grad(soft_dtw_scalar_seq, backend="jax")(SQ),
         lambda: fd_checked(soft_dtw_scalar_seq, (SQ,))[0], tol=1e-7))


# ---------------------------------------------------------------- state between calls
DOSE = 100.0


def auc_global_dose(ke, t_end=24.0, n=48):
    dt = t_end / n
    c = DOSE / 20.0
    auc = 0.0
    for _ in range(n):
        c_new = c * math.exp(-ke * dt)
        auc += 0.5 * (c + c_new) * dt
        c = c_new
    return auc


def _rebind_dose():
    global DOSE
    g = revsrc.grad(auc_global_dose)
    a = g(0.2)
    DOSE = 250.0
    try:
        b = g(0.2)
    finally:
        DOSE = 100.0
    return a, b


def _rebind_dose_ref():
    global DOSE
    a = fd_checked(auc_global_dose, (0.2,))[0]
    DOSE = 250.0
    try:
        b = fd_checked(auc_global_dose, (0.2,))[0]
    finally:
        DOSE = 100.0
    return a, b


add(pair("r19f_rebind_global_dose_between_calls", _rebind_dose, _rebind_dose_ref, tol=1e-7))


class Aquifer:
    def __init__(self, b, porosity):
        self.b = b
        self.porosity = porosity

    @property
    def storativity(self):
        return 1e-5 * self.b + self.porosity * 1e-3

    def drawdown(self, T, r=20.0, t=1.0, Q=0.01):
        u = r * r * self.storativity / (4.0 * T * t)
        return Q / (4 * math.pi * T) * (-0.5772 - math.log(u) + u - u * u / 4.0)


def _attr_rebind():
    aq = Aquifer(20.0, 0.2)
    g = revsrc.grad(aq.drawdown)
    a = g(0.02)
    aq.b = 50.0
    b = g(0.02)
    return a, b


def _attr_rebind_ref():
    aq = Aquifer(20.0, 0.2)
    a = fd_checked(aq.drawdown, (0.02,), h=1e-7)[0]
    aq.b = 50.0
    b = fd_checked(aq.drawdown, (0.02,), h=1e-7)[0]
    return a, b


add(pair("r19f_rebind_attribute_property_between_calls", _attr_rebind, _attr_rebind_ref, tol=1e-6))


def _attr_rebind_jit():
    aq = Aquifer(20.0, 0.2)
    g = revsrc.jit(revsrc.grad(aq.drawdown))
    a = g(0.02)
    aq.porosity = 0.35
    b = g(0.02)
    return a, b


def _attr_rebind_jit_ref():
    aq = Aquifer(20.0, 0.2)
    a = fd_checked(aq.drawdown, (0.02,), h=1e-7)[0]
    aq.porosity = 0.35
    b = fd_checked(aq.drawdown, (0.02,), h=1e-7)[0]
    return a, b


add(pair("r19f_jit_grad_bound_method_attribute_rebind", _attr_rebind_jit, _attr_rebind_jit_ref, tol=1e-6))


def weighted_misfit(x, w):
    return np.sum(w * (x - 1.0) ** 2)


def _mutate_arg():
    w = np.array([1.0, 2.0, 3.0])
    g = revsrc.grad(weighted_misfit)
    x = np.array([0.5, 1.5, 2.0])
    a = g(x, w)
    w[1] = 10.0
    x[0] = -1.0
    b = g(x, w)
    return a, b


add(pair("r19f_mutate_argument_arrays_between_calls", _mutate_arg,
         lambda: (2 * np.array([1.0, 2.0, 3.0]) * (np.array([0.5, 1.5, 2.0]) - 1.0),
                  2 * np.array([1.0, 10.0, 3.0]) * (np.array([-1.0, 1.5, 2.0]) - 1.0)), tol=1e-14))


def noisy_recharge_loss(k, rng, n=6):
    # a stochastic objective: a Generator argument draws the forcing each call
    rain = rng.gamma(2.0, 1.5, n)
    s, out = 10.0, 0.0
    for r in rain:
        q = k * s
        s = s + r - q
        out += q
    return out


def _gen_calls():
    g = revsrc.grad(noisy_recharge_loss)
    rng = np.random.default_rng(7)
    return g(0.3, rng), g(0.3, rng)


def _gen_calls_ref():
    rng = np.random.default_rng(7)
    out = []
    for _ in range(2):
        state = rng.bit_generator.state
        rain_rng = np.random.default_rng()
        rain_rng.bit_generator.state = state
        rain = rain_rng.gamma(2.0, 1.5, 6)
        rng.gamma(2.0, 1.5, 6)
        out.append(fd_checked(lambda k: _recharge_fixed(k, rain), (0.3,))[0])
    return tuple(out)


def _recharge_fixed(k, rain):
    s, out = 10.0, 0.0
    for r in rain:
        q = k * s
        s = s + r - q
        out += q
    return out


add(pair("r19f_generator_argument_advances", _gen_calls, _gen_calls_ref, tol=1e-7))


# ---------------------------------------------------------------- functools.partial and closures
def make_pk_objective(t, c_obs, sigma):
    def nll(logp):
        ka, ke, V = np.exp(logp)
        pred = 100.0 * ka / (V * (ka - ke)) * (np.exp(-ke * t) - np.exp(-ka * t))
        return 0.5 * np.sum(((pred - c_obs) / sigma) ** 2)
    return nll


NLL = make_pk_objective(np.array([1.0, 2.0, 4.0, 8.0]), np.array([3.5, 3.0, 2.2, 1.1]), 0.2)
add(pair("r19f_closure_hessian", lambda: revsrc.hessian(NLL)(LP),
         lambda: fd_hess_checked(NLL, (LP,)), tol=1e-4))
add(pair("r19f_partial_vmap_grad", lambda: revsrc.vmap(revsrc.grad(functools.partial(station_loss, t_obs=T_ST[0], q_obs=Q_ST[0])))(np.stack([TH_R, TH_R * 1.1])),
         lambda: np.array([jax().grad(jaxify(station_loss))(th, T_ST[0], Q_ST[0]) for th in (TH_R, TH_R * 1.1)]), tol=1e-10))


# ---------------------------------------------------------------- edge values
add(pair("r19f_hill_at_zero_conc", lambda: revsrc.grad(hill_scalar)(0.0), lambda: 0.0, tol=0.0))
add(pair("r19f_mm_nan_input", lambda: revsrc.grad(mm_decay)(float("nan")), lambda: float("nan"), tol=0.0))
add(pair("r19f_mm_zero_d_array", lambda: revsrc.grad(mm_decay)(np.array(8.0)),
         lambda: ag()[0].grad(agify(mm_decay))(8.0), tol=1e-10))
add(pair("r19f_mm_float32", lambda: revsrc.grad(mm_decay)(np.float32(8.0)),
         lambda: ag()[0].grad(agify(mm_decay))(8.0), tol=1e-4))
add(pair("r19f_station_empty_observations", lambda: revsrc.grad(station_loss)(TH_R, np.zeros(0), np.zeros(0)),
         lambda: np.zeros(2), tol=0.0))
add(pair("r19f_station_inf_weight_time", lambda: revsrc.grad(station_loss)(TH_R, np.array([1.0, np.inf]), np.array([8.0, 0.0])),
         lambda: jax().grad(jaxify(station_loss))(TH_R, np.array([1.0, np.inf]), np.array([8.0, 0.0])), tol=1e-12))


# ---------------------------------------------------------------- user errors
add(pair("r19f_grad_wrt_int_dose_refused", lambda: revsrc.grad(mm_decay)(8), lambda: None))
add(pair("r19f_argnums_past_params_refused", lambda: revsrc.grad(station_loss, argnums=3)(TH_R, T_ST[0], Q_ST[0]), lambda: None))
add(pair("r19f_grad_of_vector_output_refused", lambda: revsrc.grad(lambda th: th[0] * np.exp(-T_ST[0] / th[1]))(TH_R), lambda: None))
add(pair("r19f_grad_of_complex_impedance_refused",
         lambda: revsrc.grad(lambda r: (r + 1j * 2 * math.pi * 50 * 1e-3) * 1.0)(10.0), lambda: None))


# ---------------------------------------------------------------- more state: a global array changed in place, a helper rebound
OCV = np.array([3.0, 1.2, -1.1, 0.45])


def terminal_voltage(soc, I=2.0, r0=0.02):
    return np.polyval(OCV[::-1], soc) - I * r0


def _global_array_mutated():
    g = revsrc.grad(terminal_voltage)
    a = g(0.6)
    OCV[1] = 2.0
    try:
        b = g(0.6)
    finally:
        OCV[1] = 1.2
    return a, b


add(pair("r19f_global_array_mutated_in_place_between_calls", _global_array_mutated,
         lambda: (1.2 - 2.2 * 0.6 + 3 * 0.45 * 0.36, 2.0 - 2.2 * 0.6 + 3 * 0.45 * 0.36), tol=1e-12))


def rate_law(c, k):
    return k * c


def decay_total(k, c0=10.0, n=20, dt=0.1):
    c, s = c0, 0.0
    for _ in range(n):
        c = c - dt * rate_law(c, k)
        s += c
    return s


def _mm_rate(c, k):
    return k * c / (1.0 + c)


def _rebind_helper():
    global rate_law
    g = revsrc.grad(decay_total)
    a = g(0.3)
    old = rate_law
    rate_law = _mm_rate
    try:
        b = g(0.3)
    finally:
        rate_law = old
    return a, b


def _rebind_helper_ref():
    global rate_law
    a = fd_checked(decay_total, (0.3,))[0]
    old = rate_law
    rate_law = _mm_rate
    try:
        b = fd_checked(decay_total, (0.3,))[0]
    finally:
        rate_law = old
    return a, b


add(pair("r19f_rebind_global_helper_function_between_calls", _rebind_helper, _rebind_helper_ref, tol=1e-7))


def _defaults_replaced():
    g = revsrc.grad(decay_total)
    a = g(0.3)
    old = decay_total.__defaults__
    decay_total.__defaults__ = (5.0, 20, 0.1)
    try:
        b = g(0.3)
    finally:
        decay_total.__defaults__ = old
    return a, b


def _defaults_replaced_ref():
    a = fd_checked(decay_total, (0.3,))[0]
    b = fd_checked(lambda k: decay_total(k, 5.0), (0.3,))[0]
    return a, b


add(pair("r19f_defaults_replaced_between_calls", _defaults_replaced, _defaults_replaced_ref, tol=1e-7))


def _vjp_reuse():
    out, f_vjp = revsrc.vjp(lambda th: station_loss(th, T_ST[0], Q_ST[0]), TH_R)
    return out, f_vjp(1.0), f_vjp(2.0)


add(pair("r19f_vjp_fn_called_twice", _vjp_reuse,
         lambda: (station_loss(TH_R, T_ST[0], Q_ST[0]),) + tuple(c * jax().grad(jaxify(station_loss))(TH_R, T_ST[0], Q_ST[0]) for c in (1.0, 2.0)),
         tol=1e-10))


def _linearize_reuse():
    y, f_jvp = revsrc.linearize(sk_predict, TH, X0)
    return y, f_jvp(np.array([1.0, 0.0]), np.zeros(2)), f_jvp(np.zeros(2), np.array([0.0, 1.0]))


def _linearize_ref():
    j = jax()
    g = j.grad(jaxify(sk_predict), argnums=(0, 1))(TH, X0)
    return sk_predict(TH, X0), g[0][0], g[1][1]


add(pair("r19f_linearize_two_tangents", _linearize_reuse, _linearize_ref, tol=1e-9))


class DoseSchedule:
    def __init__(self, doses):
        self.doses = doses

    def exposure(self, ke):
        total = 0.0
        for t, d in self.doses:
            total += d * math.exp(-ke * (24.0 - t))
        return total


def _attr_list_rebound():
    sch = DoseSchedule([(0.0, 100.0), (12.0, 50.0)])
    g = revsrc.grad(sch.exposure)
    a = g(0.1)
    sch.doses = [(0.0, 100.0), (12.0, 50.0), (18.0, 25.0)]
    b = g(0.1)
    return a, b


add(pair("r19f_attribute_list_rebound_between_calls", _attr_list_rebound,
         lambda: (-(24 * 100 * math.exp(-2.4) + 12 * 50 * math.exp(-1.2)),
                  -(24 * 100 * math.exp(-2.4) + 12 * 50 * math.exp(-1.2) + 6 * 25 * math.exp(-0.6))), tol=1e-10))
