"""Round 20, part f: compositions, state between calls and misuse across parts a-e --
jit(grad), grad(grad), hessian, hvp, jacfwd(jacrev), jacrev of vector programs, linearize,
vmap(grad) with in_axes, value_and_grad with has_aux, backend="jax" on the programs of
parts a-e; a global, an attribute, a default and an argument array changed between calls
of one derivative; a Generator argument; edge values (nan, inf, 0-d, ints); and user
errors (argnums, shapes, vector outputs, int arguments) that must be refused."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

import user_programs20_a as A
import user_programs20_b as B
import user_programs20_c as C
import user_programs20_d as D
import user_programs20_e as E

CASES = []
add = CASES.append


# ---------------------------------------------------------------- compositions
add(EXACT("r20f_jit_grad_equals_grad_erlang_b", lambda: revsrc.jit(revsrc.grad(D.erlang_b))(7.5, 10),
          lambda: revsrc.grad(D.erlang_b)(7.5, 10)))
add(pair("r20f_grad_grad_first_spike_time", lambda: revsrc.grad(revsrc.grad(C.first_spike_time))(22.0),
         lambda: ag()[0].grad(ag()[0].grad(agify(C.first_spike_time)))(22.0), tol=1e-9))
add(pair("r20f_grad_grad_grad_eoq", lambda: revsrc.grad(revsrc.grad(revsrc.grad(D.eoq_cost)))(300.0),
         lambda: -6 * 1200.0 * 50.0 / 300.0 ** 4, tol=1e-12))
add(pair("r20f_hvp_truss_compliance", lambda: revsrc.hvp(B.truss_compliance, (B.A0,), (np.linspace(-1, 1, 7),)),
         lambda: fd_hess_checked(B.truss_compliance, (B.A0,)) @ np.linspace(-1, 1, 7), tol=1e-5))
add(pair("r20f_jacfwd_jacrev_bar_compliance", lambda: revsrc.jacfwd(revsrc.jacrev(B.bar_tip_compliance))(B.EA0[:3]),
         lambda: fd_hess_checked(B.bar_tip_compliance, (B.EA0[:3],)), tol=1e-5))
add(pair("r20f_jacrev_rv_model_vector", lambda: revsrc.jacrev(lambda th: A.rv_model(list(th), A.T_OBS))(np.array(A.TH_RV)),
         lambda: fdj(lambda th: A.rv_model(list(th), A.T_OBS), np.array(A.TH_RV)), tol=1e-6))
add(pair("r20f_jacfwd_svf_wrt_signal", lambda: revsrc.jacfwd(lambda x: E.svf_lowpass(x, 800.0, 0.9))(E.NOISE[:12]),
         lambda: fdj(lambda x: E.svf_lowpass(x, 800.0, 0.9), E.NOISE[:12]), tol=1e-7))
add(pair("r20f_jacrev_wilson_cowan_inputs", lambda: revsrc.jacrev(C.wilson_cowan, argnums=1)(C.P_WC["W"], C.P_WC["h"]),
         lambda: fdj(lambda h: C.wilson_cowan(C.P_WC["W"], h), C.P_WC["h"]), tol=1e-7))


def _lin():
    out, f_jvp = revsrc.linearize(D.jackson_sojourn, np.array([3.0, 1.0, 0.5]))
    return out, f_jvp(np.array([1.0, 0.0, 0.0])), f_jvp(np.array([0.0, 2.0, -1.0]))


def _lin_ref():
    gg = jax().grad(jaxify(D.jackson_sojourn))(np.array([3.0, 1.0, 0.5]))
    return (D.jackson_sojourn(np.array([3.0, 1.0, 0.5])), gg[0], 2 * gg[1] - gg[2])


add(pair("r20f_linearize_jackson_two_tangents", _lin, _lin_ref, tol=1e-12))


def sn_chi2_aux(params):
    H0, Om, w = params
    res = [A.distance_modulus(z, H0, Om, w) - mu for z, mu in zip(A.Z_SN, A.MU_SN)]
    return sum(r * r for r in res), {"max_abs_res": max(abs(r) for r in res), "n": len(res)}


def _aux_ref():
    g = fd_checked(A.sn_chi2, ((70.0, 0.3, -1.0),))
    res = [A.distance_modulus(z, 70.0, 0.3, -1.0) - mu for z, mu in zip(A.Z_SN, A.MU_SN)]
    return (A.sn_chi2((70.0, 0.3, -1.0)), {"max_abs_res": max(abs(r) for r in res), "n": 7}), tuple(g)


add(pair("r20f_value_and_grad_has_aux_sn", lambda: revsrc.value_and_grad(sn_chi2_aux, has_aux=True)((70.0, 0.3, -1.0)),
         _aux_ref, tol=1e-6))
add(pair("r20f_vmap_grad_glm_in_axes_none_0_none",
         lambda: revsrc.vmap(revsrc.grad(C.glm_nll), in_axes=(0, None, None))(
             np.stack([C.W_GLM, 0.5 * C.W_GLM]), C.H_GLM, 0.1),
         lambda: np.stack([fd_checked(C.glm_nll, (C.W_GLM, C.H_GLM, 0.1))[0],
                           fd_checked(C.glm_nll, (0.5 * C.W_GLM, C.H_GLM, 0.1))[0]]), tol=1e-6))
add(pair("r20f_jit_vmap_grad_eoq", lambda: revsrc.jit(revsrc.vmap(revsrc.grad(D.eoq_cost)))(np.array([100.0, 200.0, 400.0])),
         lambda: -1200.0 * 50.0 / np.array([100.0, 200.0, 400.0]) ** 2 + 1.25, tol=1e-12))
add(SAME("r20f_two_calls_same_bits_hh", lambda: revsrc.grad(C.hh_run)(C.G_HH, 10.0)))


# ---------------------------------------------------------------- backend="jax"
def BJ(name, f, args, argnums=0, ref="fd", tol=1e-6, **kw):
    return G(name, f, args, argnums=argnums, ref=ref, tol=tol, backend="jax", **kw)


add(pair("r20f_lif_surrogate_backend_jax", lambda: revsrc.grad(C.lif_surrogate_rate, backend="jax")(20.0),
         lambda: revsrc.grad(C.lif_surrogate_rate)(20.0), tol=1e-10))
add(pair("r20f_first_spike_early_return_backend_jax", lambda: revsrc.grad(C.first_spike_time, backend="jax")(22.0),
         lambda: ag()[0].grad(agify(C.first_spike_time))(22.0), tol=1e-10))
add(pair("r20f_kepler_while_backend_jax", lambda: revsrc.grad(A.kepler_while, argnums=(0, 1), backend="jax")(1.3, 0.6),
         lambda: revsrc.grad(A.kepler_while, argnums=(0, 1))(1.3, 0.6), tol=1e-10))
add(pair("r20f_newsvendor_backend_jax", lambda: revsrc.grad(D.newsvendor_profit, backend="jax")(11.0),
         lambda: (PRICE_D - D.COST + D.SHORTAGE) - (PRICE_D - D.SALVAGE + D.SHORTAGE) * np.mean(D.DEMAND < 11.0), tol=1e-12))
PRICE_D = D.PRICE
add(pair("r20f_sS_policy_branches_backend_jax", lambda: revsrc.grad(D.sS_cost, backend="jax")((25.0, 80.0)),
         lambda: ag()[0].grad(agify(D.sS_cost))((25.0, 80.0)), tol=1e-10))
add(pair("r20f_truss_add_at_backend_jax", lambda: revsrc.grad(B.truss_compliance, backend="jax")(B.A0),
         lambda: revsrc.grad(B.truss_compliance)(B.A0), tol=1e-10))
add(pair("r20f_return_map_backend_jax", lambda: revsrc.grad(B.plasticity_fit, backend="jax")((200.0, 0.3, 10.0), B.SIG_OBS),
         lambda: ag()[0].grad(agify(B.plasticity_fit))((200.0, 0.3, 10.0), B.SIG_OBS), tol=1e-9))
add(pair("r20f_fixed_point_while_backend_jax", lambda: revsrc.grad(C.fp_loss, argnums=(0, 1), backend="jax")(C.W_FP, C.I_FP),
         lambda: C._fp_implicit(C.W_FP, C.I_FP), tol=1e-9))
add(pair("r20f_wavefolder_backend_jax", lambda: revsrc.grad(E.folder_out, argnums=(0, 1), backend="jax")(3.3, 0.2),
         lambda: ag()[0].grad(agify(E.folder_out), argnum=(0, 1))(3.3, 0.2), tol=1e-10))
add(pair("r20f_fractional_knapsack_backend_jax",
         lambda: revsrc.grad(D.fractional_knapsack, backend="jax")(np.array([6.0, 5.0, 4.0, 7.0, 3.0])),
         lambda: ag()[0].grad(agify(D.fractional_knapsack))(np.array([6.0, 5.0, 4.0, 7.0, 3.0])), tol=1e-12))


# ---------------------------------------------------------------- state between calls
WALL_GAP = 0.03


def wall_energy(u):
    return 0.5 * np.sum(np.diff(u) ** 2) + 500.0 * np.sum(np.maximum(0.0, u - WALL_GAP) ** 2)


def _rebind_global():
    global WALL_GAP
    g = revsrc.grad(wall_energy)
    u = np.array([0.0, 0.02, 0.05, 0.08])
    first = g(u)
    WALL_GAP = 0.06
    try:
        second = g(u)
    finally:
        WALL_GAP = 0.03
    return first, second


def _rebind_global_ref():
    u = np.array([0.0, 0.02, 0.05, 0.08])
    d = np.diff(u)
    base = np.concatenate([[0.0], d]) - np.concatenate([d, [0.0]])
    return (base + 1000.0 * np.maximum(0.0, u - 0.03), base + 1000.0 * np.maximum(0.0, u - 0.06))


add(pair("r20f_rebind_global_between_calls", _rebind_global, _rebind_global_ref, tol=1e-12))


class Cantilever:
    def __init__(self, L, P):
        self.L = L
        self.P = P

    def tip(self, EI):
        return self.P * self.L ** 3 / (3.0 * EI)


def _rebind_attr():
    beam = Cantilever(2.0, 1.0)
    g = revsrc.grad(beam.tip)
    a = g(3.0)
    beam.L = 3.0
    b = g(3.0)
    beam.P = 2.5
    return a, b, g(3.0)


add(pair("r20f_rebind_attribute_bound_method", _rebind_attr,
         lambda: (-8.0 / 27.0, -27.0 / 27.0, -2.5 * 27.0 / 27.0), tol=1e-12))


def _mutate_argument():
    demand = D.DEMAND.copy()
    g = revsrc.grad(D.newsvendor_profit)
    a = g(11.0, demand)
    demand[:] = demand + 2.0
    b = g(11.0, demand)
    return a, b


def _mutate_ref():
    def fr(dm):
        return (D.PRICE - D.COST + D.SHORTAGE) - (D.PRICE - D.SALVAGE + D.SHORTAGE) * np.mean(dm < 11.0)
    return fr(D.DEMAND), fr(D.DEMAND + 2.0)


add(pair("r20f_mutate_argument_array_between_calls", _mutate_argument, _mutate_ref, tol=1e-12))


def _rebind_default():
    g = revsrc.grad(D.eoq_cost)
    a = g(300.0)
    old = D.eoq_cost.__defaults__
    D.eoq_cost.__defaults__ = (2400.0, 50.0, 2.5)
    try:
        b = g(300.0)
    finally:
        D.eoq_cost.__defaults__ = old
    return a, b


add(pair("r20f_rebind_defaults_between_calls", _rebind_default,
         lambda: (-1200.0 * 50 / 300.0 ** 2 + 1.25, -2400.0 * 50 / 300.0 ** 2 + 1.25), tol=1e-12))


def mc_newsvendor(q, rng, n=200):
    demand = rng.normal(11.0, 2.5, n)
    return np.mean(D.PRICE * np.minimum(q, demand) - D.SHORTAGE * np.maximum(demand - q, 0.0)) - D.COST * q


def _mc_calls():
    rng = np.random.default_rng(11)
    g = revsrc.grad(mc_newsvendor)
    return g(11.0, rng), g(11.0, rng)


def _mc_ref():
    rng = np.random.default_rng(11)
    out = []
    for _ in range(2):
        dm = rng.normal(11.0, 2.5, 200)
        out.append(D.PRICE * np.mean(11.0 < dm) + D.SHORTAGE * np.mean(dm > 11.0) - D.COST)
    return tuple(out)


add(pair("r20f_generator_argument_advances", _mc_calls, _mc_ref, tol=1e-12))
add(pair("r20f_generator_argument_backend_jax", lambda: revsrc.grad(mc_newsvendor, backend="jax")(11.0, np.random.default_rng(11)),
         lambda: _mc_ref()[0], tol=1e-12))


# ---------------------------------------------------------------- edge values
add(pair("r20f_newsvendor_nan_order", lambda: revsrc.grad(D.newsvendor_profit)(np.nan),
         lambda: jax().grad(jaxify(D.newsvendor_profit))(np.nan), tol=1e-12))
add(pair("r20f_eoq_at_inf", lambda: revsrc.grad(D.eoq_cost)(np.inf), lambda: 1.25, tol=1e-12))
add(pair("r20f_zero_d_array_kepler", lambda: revsrc.grad(A.kepler_while)(np.array(1.3), 0.6),
         lambda: 1.0 / (1 - 0.6 * math.cos(A.kepler_while(1.3, 0.6))), tol=1e-10))
add(pair("r20f_mm1_all_unstable_inf", lambda: revsrc.grad(D.mm1_cost)(np.array([6.0, 5.0, 7.0])),
         lambda: jax().grad(jaxify(D.mm1_cost))(np.array([6.0, 5.0, 7.0])), tol=1e-12))


# ---------------------------------------------------------------- misuse
add(pair("r20f_grad_wrt_int_order_quantity", lambda: revsrc.grad(D.eoq_cost)(300), lambda: None))
add(pair("r20f_grad_of_vector_rv_model", lambda: revsrc.grad(A.rv_model)(A.TH_RV, A.T_OBS), lambda: None))
add(pair("r20f_argnums_past_params", lambda: revsrc.grad(B.cantilever_tip, argnums=5)(3.0), lambda: None))
add(pair("r20f_hvp_wrong_tangent_shape", lambda: revsrc.hvp(B.truss_compliance, (B.A0,), (np.ones(3),)), lambda: None))
add(pair("r20f_vmap_mismatched_sizes", lambda: revsrc.vmap(revsrc.grad(A.nfw_rotation_chi2), in_axes=(None, 0, 0))(
    np.array([1.5, 15.0]), np.stack([A.R_ROT] * 2), np.stack([A.V_ROT] * 3)), lambda: None))
add(pair("r20f_jvp_tangent_count", lambda: revsrc.jvp(D.erlang_c_wait, (3.7, 1.0), (1.0,)), lambda: None))


# ---------------------------------------------------------------- more compositions and state
add(pair("r20f_hessian_plasticity_fit_branches", lambda: revsrc.hessian(lambda m: B.plasticity_fit(m, B.SIG_OBS))(
    np.array([200.0, 0.3, 10.0])),
         lambda: fd_hess_checked(lambda m: B.plasticity_fit(tuple(m), B.SIG_OBS), (np.array([200.0, 0.3, 10.0]),), h=1e-5),
         tol=1e-4))
add(pair("r20f_jacfwd_fm_feedback_vector", lambda: revsrc.jacfwd(lambda p: E.fm_feedback(tuple(p), 24))(np.array([1.6, 2.0, 0.2])),
         lambda: fdj(lambda p: E.fm_feedback(tuple(p), 24), np.array([1.6, 2.0, 0.2])), tol=1e-7))
sS_short = functools.partial(D.sS_cost, demand=D.WEEKLY[:5], K=10.0)
add(pair("r20f_grad_partial_keywords_sS", lambda: revsrc.grad(sS_short)((25.0, 80.0)),
         lambda: ag()[0].grad(lambda p: agify(D.sS_cost)(p, D.WEEKLY[:5], 0.2, 2.0, 10.0))((25.0, 80.0)), tol=1e-12))
add(pair("r20f_jit_grad_closure_tremolo", lambda: revsrc.jit(revsrc.grad(lambda r: E.tremolo_loss(r, 0.4)))(6.0),
         lambda: revsrc.grad(E.tremolo_loss)(6.0, 0.4), tol=1e-12))
add(pair("r20f_harmonic_salience_backend_jax", lambda: revsrc.grad(E.harmonic_salience, backend="jax")(262.0),
         lambda: jax().grad(jaxify(E.harmonic_salience_real))(262.0), tol=1e-9))
add(pair("r20f_hessian_keyword_argument", lambda: revsrc.hessian(D.eoq_cost)(Q=300.0), lambda: 2 * 1200.0 * 50.0 / 300.0 ** 3,
         tol=1e-12))

SHAPER = np.tanh


def shaped_energy(drive, x=E.NOISE[:32]):
    return np.sum(SHAPER(drive * x) ** 2)


def _rebind_shaper():
    global SHAPER
    g = revsrc.grad(shaped_energy)
    a = g(2.0)
    SHAPER = np.arctan
    try:
        b = g(2.0)
    finally:
        SHAPER = np.tanh
    return a, b


def _shaper_ref():
    x = E.NOISE[:32]
    t = np.tanh(2.0 * x)
    at = np.arctan(2.0 * x)
    return np.sum(2 * t * (1 - t ** 2) * x), np.sum(2 * at / (1 + (2.0 * x) ** 2) * x)


add(pair("r20f_rebind_global_function_between_calls", _rebind_shaper, _shaper_ref, tol=1e-12))


def _mutate_dict_arg():
    g = revsrc.grad(C.hh_run, argnums=1)
    p = dict(C.G_HH)
    a = g(p, 10.0)
    p["K"] = 30.0
    b = g(p, 10.0)
    return a, b


add(pair("r20f_mutate_dict_argument_between_calls", _mutate_dict_arg,
         lambda: (fd_checked(C.hh_run, (C.G_HH, 10.0), argnums=1)[0],
                  fd_checked(C.hh_run, (dict(C.G_HH, K=30.0), 10.0), argnums=1)[0]), tol=1e-6))
add(pair("r20f_vjp_then_rebind_wall_gap", lambda: _vjp_rebind(), lambda: None))


def _vjp_rebind():
    global WALL_GAP
    out, f_vjp = revsrc.vjp(wall_energy, np.array([0.0, 0.02, 0.05, 0.08]))
    WALL_GAP = 0.06
    try:
        return f_vjp(1.0)
    finally:
        WALL_GAP = 0.03


# ---------------------------------------------------------------- more backend="jax" and forward mode
add(pair("r20f_glm_inplace_slices_backend_jax", lambda: revsrc.grad(C.glm_nll, argnums=(0, 1, 2), backend="jax")(C.W_GLM, C.H_GLM, 0.1),
         lambda: revsrc.grad(C.glm_nll, argnums=(0, 1, 2))(C.W_GLM, C.H_GLM, 0.1), tol=1e-10))
add(pair("r20f_sinkhorn_backend_jax", lambda: revsrc.grad(D.sinkhorn_cost, backend="jax")(D.C_OT),
         lambda: ag()[0].grad(agify(D.sinkhorn_cost))(D.C_OT), tol=1e-9))
add(pair("r20f_multi_planet_list_of_dicts_backend_jax", lambda: revsrc.grad(A.multi_rv_loss, backend="jax")(A.PLANETS, 1.5),
         lambda: ag()[0].grad(agify(A.multi_rv_loss))(A.PLANETS, 1.5), tol=1e-9))
add(pair("r20f_env_follower_branches_backend_jax",
         lambda: revsrc.grad(E.compressor_gain_loss, argnums=(0, 1), backend="jax")(0.002, 0.05),
         lambda: revsrc.grad(E.compressor_gain_loss, argnums=(0, 1))(0.002, 0.05), tol=1e-9))
add(pair("r20f_jvp_harmonic_salience_complex_loop", lambda: revsrc.jvp(E.harmonic_salience, (262.0,), (1.0,)),
         lambda: (E.harmonic_salience_real(262.0), revsrc.grad(E.harmonic_salience_real)(262.0)), tol=1e-9))
add(pair("r20f_vmap_grad_harmonic_salience", lambda: revsrc.vmap(revsrc.grad(E.harmonic_salience))(np.array([250.0, 262.0])),
         lambda: np.array([revsrc.grad(E.harmonic_salience_real)(v) for v in (250.0, 262.0)]), tol=1e-9))
add(pair("r20f_hvp_bar_compliance_ix", lambda: revsrc.hvp(B.bar_tip_compliance, (B.EA0,), (np.ones(6),)),
         lambda: fd_hess_checked(B.bar_tip_compliance, (B.EA0,)) @ np.ones(6), tol=1e-5))
add(pair("r20f_jacrev_fisher_default_args", lambda: revsrc.jacrev(C.fisher_info)(0.3),
         lambda: fd_checked(C._fisher_closed, (0.3,))[0], tol=1e-6))
