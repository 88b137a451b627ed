"""Round 13, part p: pytrees, has_aux, stop_gradient, defvjp/nondiff rules, namedtuples and
dataclasses of parameters, on this round's models (an SIR fit, a GRU step, a robot arm)."""
import dataclasses
import math
from typing import NamedTuple

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


class SIRParams(NamedTuple):
    beta: float
    gamma: float


def sir_nt(p, n=40, dt=0.5):
    S, I = 0.99, 0.01
    for _ in range(n):
        inf = p.beta * S * I
        S, I = S - dt * inf, I + dt * (inf - p.gamma * I)
    return I


def sir_plain(beta, gamma, n=40, dt=0.5):
    return sir_nt(SIRParams(beta, gamma), n, dt)


add(pair("r13_p_namedtuple_grad", lambda: revsrc.grad(sir_nt)(SIRParams(0.5, 0.1)),
         lambda: SIRParams(*fd_checked(sir_plain, (0.5, 0.1), argnums=(0, 1))), tol=1e-7))


@dataclasses.dataclass
class ArmParams:
    lengths: np.ndarray
    offset: float
    name: str = dataclasses.field(default="arm", metadata={"static": True})


def arm_tip_y(p, q):
    a = np.cumsum(q)
    return np.sum(p.lengths * np.sin(a)) + p.offset


Q3 = np.array([0.3, -0.5, 0.9])
AP = ArmParams(np.array([1.0, 0.8, 0.5]), 0.2)
add(pair("r13_p_dataclass_static_field", lambda: revsrc.grad(arm_tip_y)(AP, Q3),
         lambda: ArmParams(np.sin(np.cumsum(Q3)), 1.0), tol=1e-14))


class Box:
    def __init__(self, a, b):
        self.a, self.b = a, b


revsrc.register_pytree(Box, lambda bx: ((bx.a, bx.b), None), lambda aux, ch: Box(*ch))


def box_loss(bx, x):
    return np.sum(bx.a * x ** 2) + bx.b * x[0]


def box_grad_fields():
    g = revsrc.grad(box_loss)(Box(np.array([1.0, 2.0]), 0.5), np.array([0.3, -1.0]))
    return (g.a, g.b)


add(pair("r13_p_register_pytree", box_grad_fields, lambda: (np.array([0.09, 1.0]), 0.3), tol=1e-15))


def fit_with_aux(theta, obs):
    beta, gamma = theta
    S, I = 0.99, 0.01
    preds = []
    for _ in range(len(obs)):
        inf = beta * S * I
        S, I = S - inf, I + inf - gamma * I
        preds.append(I)
    preds = np.array(preds)
    r = preds - obs
    return r @ r, {"preds": preds, "peak": np.max(preds)}


OBS = np.array([0.012, 0.015, 0.02, 0.026, 0.033])
TH = np.array([0.45, 0.1])


def aux_case():
    (v, aux), g = revsrc.value_and_grad(fit_with_aux, has_aux=True)(TH, OBS)
    return v, aux["peak"], g


add(pair("r13_p_has_aux_dict", aux_case, lambda: (fit_with_aux(TH, OBS)[0], fit_with_aux(TH, OBS)[1]["peak"],
                                                   fd_checked(lambda t: fit_with_aux(t, OBS)[0], (TH,))[0]), tol=1e-7))


def stop_grad_baseline(w, x):
    baseline = revsrc.stop_gradient(np.mean(w * x))
    return np.sum((w * x - baseline) ** 2)


WS, XS = np.array([0.5, 1.5, -1.0]), np.array([1.0, 2.0, 3.0])
add(G("r13_p_stop_gradient_baseline", stop_grad_baseline, (WS, XS),
      ref=lambda: 2 * (WS * XS - np.mean(WS * XS)) * XS, tol=1e-14))


def stable_logistic(x):
    return math.exp(-math.log1p(math.exp(-x)))


@revsrc.defvjp(stable_logistic)
def _stable_logistic_rule(g, ans, x):
    return g * ans * (1.0 - ans)


def ode_with_rule(r, n=30):
    u = 0.1
    for _ in range(n):
        u = u + 0.1 * r * stable_logistic(u)
    return u


def ode_plain(r, n=30):
    u = 0.1
    for _ in range(n):
        u = u + 0.1 * r / (1 + math.exp(-u))
    return u


add(pair("r13_p_defvjp_rule_in_loop", lambda: revsrc.grad(ode_with_rule)(0.8), lambda: fd_checked(ode_plain, (0.8,))[0], tol=1e-7))
add(pair("r13_p_defvjp_rule_hessian", lambda: revsrc.hessian(ode_with_rule)(0.8), lambda: ag()[0].grad(ag()[0].grad(agify(ode_plain)))(0.8), tol=1e-7))


def bucket(x):
    return float(int(x * 4)) / 4


revsrc.nondiff(bucket)


def quantized_loss(x):
    return (x - bucket(x)) ** 2 + bucket(x) * x


add(G("r13_p_nondiff_helper", quantized_loss, (1.3,), ref=lambda: 2 * (1.3 - 1.25) + 1.25, tol=1e-14))


def smooth_sat(x):
    return x / (1.0 + abs(x))


def smooth_sat_loss(x):
    return np.sum(np.array([smooth_sat(v) for v in x]) ** 2)


add(G("r13_p_comprehension_helper_abs", smooth_sat_loss, (XS - 2.0,), ref="fd"))


def gru_cell(params, h, x):
    Wz, Wh = params["Wz"], params["Wh"]
    z = 1 / (1 + np.exp(-(Wz @ np.concatenate([h, x]))))
    hh = np.tanh(Wh @ np.concatenate([h, x]))
    return (1 - z) * h + z * hh


rng = np.random.default_rng(5)
GP = {"Wz": 0.5 * rng.normal(size=(2, 3)), "Wh": 0.5 * rng.normal(size=(2, 3))}
H0 = np.array([0.1, -0.2])
add(pair("r13_p_jacrev_dict_params", lambda: revsrc.jacrev(gru_cell)(GP, H0, np.array([0.7])),
         lambda: {k: jax().jacrev(jaxify(gru_cell))(GP, H0, np.array([0.7]))[k] for k in GP}, tol=1e-12))
add(pair("r13_p_jacfwd_state", lambda: revsrc.jacfwd(gru_cell, argnums=1)(GP, H0, np.array([0.7])),
         lambda: jax().jacfwd(jaxify(gru_cell), argnums=1)(GP, H0, np.array([0.7])), tol=1e-12))


def gru_unroll(params, xs):
    h = H0
    for x in xs:
        h = gru_cell(params, h, np.array([x]))
    return np.sum(h)


def _gru_flat(wz, wh):
    return gru_unroll({"Wz": wz.reshape(2, 3), "Wh": wh.reshape(2, 3)}, [0.5, -0.3, 0.9])


def _hess_block_ref():
    agr, _ = ag()
    g_wz = agr.grad(agify(_gru_flat), 0)
    return agr.jacobian(lambda wh: g_wz(GP["Wz"].ravel(), wh))(GP["Wh"].ravel()).reshape(2, 3, 2, 3)


add(pair("r13_p_hessian_dict_params_block", lambda: revsrc.hessian(gru_unroll)(GP, [0.5, -0.3, 0.9])["Wz"]["Wh"],
         _hess_block_ref, tol=1e-10))
add(pair("r13_p_tree_map_sgd_step", lambda: revsrc.tree_map(lambda p, g: p - 0.1 * g, GP, revsrc.grad(gru_unroll)(GP, [0.5, -0.3, 0.9]))["Wh"],
         lambda: GP["Wh"] - 0.1 * np.asarray(jax().grad(jaxify(gru_unroll))(GP, [0.5, -0.3, 0.9])["Wh"]), tol=1e-12))


def nested_params(p, x):
    return p["layers"][0]["w"] * x + p["layers"][1]["w"] * x ** 2 + p["bias"][0]


NP = {"layers": [{"w": 1.5}, {"w": -0.5}], "bias": (0.1,)}
add(pair("r13_p_nested_list_dict_tuple", lambda: revsrc.grad(nested_params)(NP, 2.0),
         lambda: {"layers": [{"w": 2.0}, {"w": 4.0}], "bias": (1.0,)}, tol=0.0))
