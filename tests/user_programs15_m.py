"""Round 15, part m: compositions II on containers and loops -- out_axes pytrees,
negative in_axes, Jacobians of dict / tuple outputs, hessian and hvp of dict
arguments, jvp / vjp / linearize on containers, memory= with while and break,
stop_gradient in loops, jit of hessian, vmap of hessian of scalar code."""
import collections
import dataclasses
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


def stats(x):
    return {"mean": np.mean(x), "sq": x * x}


XS = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
add(pair("r15_vmap_dict_output_out_axes_pytree", lambda: revsrc.vmap(stats, out_axes={"mean": 0, "sq": 1})(XS),
         lambda: {"mean": np.array([2.0, 3.5 / 3]), "sq": (XS * XS).T}, tol=1e-14))
add(pair("r15_vmap_in_axes_negative", lambda: revsrc.vmap(lambda x: np.sum(x ** 3), in_axes=-1)(XS),
         lambda: np.sum(XS ** 3, axis=0), tol=1e-14))


def vg_tuple(x):
    return np.sum(np.sin(x)), x[0] * x[1]


add(pair("r15_jacrev_tuple_output", lambda: revsrc.jacrev(vg_tuple)(np.array([0.3, 0.7])),
         lambda: (np.cos(np.array([0.3, 0.7])), np.array([0.7, 0.3])), tol=1e-14))
add(pair("r15_jacfwd_dict_output", lambda: revsrc.jacfwd(stats)(np.array([0.3, 0.7])),
         lambda: {"mean": np.array([0.5, 0.5]), "sq": np.diag([0.6, 1.4])}, tol=1e-14))


def dict_loss(p):
    return np.sum(p["a"] ** 2 * p["b"]) + math.sin(p["c"]) * p["b"][0]


PD = {"a": np.array([1.0, 2.0]), "b": np.array([0.5, -0.5]), "c": 0.3}


def _dict_hess_ref():
    a, b, c = PD["a"], PD["b"], PD["c"]
    # blocks H[k1][k2]
    return {"a": {"a": np.diag(2 * b), "b": np.diag(2 * a), "c": np.zeros(2)},
            "b": {"a": np.diag(2 * a), "b": np.zeros((2, 2)), "c": np.array([math.cos(c), 0.0])},
            "c": {"a": np.zeros(2), "b": np.array([math.cos(c), 0.0]), "c": -math.sin(c) * b[0]}}


add(pair("r15_hessian_dict_argument_blocks", lambda: revsrc.hessian(dict_loss)(PD), _dict_hess_ref, tol=1e-13))
add(pair("r15_hvp_dict_argument", lambda: revsrc.hvp(dict_loss, (PD,), ({"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0]), "c": 1.0},)),
         lambda: {"a": np.array([2 * 0.5, 0.0]) + np.array([0.0, 4.0]), "b": np.array([2.0 + math.cos(0.3), 0.0]), "c": 0.0 + 0.0 - math.sin(0.3) * 0.5},
         tol=1e-13))
add(pair("r15_jvp_dict_primals", lambda: revsrc.jvp(dict_loss, (PD,), ({"a": np.ones(2), "b": np.zeros(2), "c": 0.0},)),
         lambda: (dict_loss(PD), float(np.sum(2 * PD["a"] * PD["b"]))), tol=1e-13))


def _vjp_dict():
    out, back = revsrc.vjp(dict_loss, PD)
    return out, back(2.0)


add(pair("r15_vjp_dict_primals", _vjp_dict,
         lambda: (dict_loss(PD), ({"a": 2 * 2 * PD["a"] * PD["b"], "b": 2 * (PD["a"] ** 2 + np.array([math.sin(0.3), 0.0])), "c": 2 * math.cos(0.3) * 0.5},)),
         tol=1e-13))


def _linearize_tuple():
    out, f_jvp = revsrc.linearize(lambda a, b: np.sum(a * b ** 2), np.array([1.0, 2.0]), np.array([3.0, -1.0]))
    return out, f_jvp(np.array([1.0, 0.0]), np.array([0.0, 1.0]))


add(pair("r15_linearize_two_primals", _linearize_tuple, lambda: (11.0, 9.0 + 2 * 2.0 * -1.0), tol=1e-14))


def newton_while_break(a, x0=2.0):
    x = x0
    k = 0
    while True:
        fx = x * x * x - a
        if abs(fx) < 1e-13:
            break
        x = x - fx / (3 * x * x)
        k += 1
        if k > 60:
            break
    return x


add(G("r15_while_true_break_cube_root", newton_while_break, (5.0,), ref=lambda: 1 / (3 * 5.0 ** (2 / 3)), tol=1e-10))
add(EXACT("r15_while_true_break_memory_equals_stored", lambda: revsrc.grad(newton_while_break, memory=64)(5.0),
          lambda: revsrc.grad(newton_while_break)(5.0)))
add(pair("r15_while_true_break_jit_hessian", lambda: revsrc.jit(revsrc.hessian(newton_while_break))(5.0),
         lambda: -2.0 / 9.0 * 5.0 ** (-5.0 / 3.0), tol=1e-8))
add(pair("r15_while_true_break_vmap_hessian", lambda: revsrc.vmap(revsrc.hessian(newton_while_break))(np.array([2.0, 5.0, 9.0])),
         lambda: np.array([-2.0 / 9.0 * a ** (-5.0 / 3.0) for a in (2.0, 5.0, 9.0)]), tol=1e-8))


def rk4_break(k, n=400, dt=0.01):
    y = np.array([1.0, 0.0, 0.0])
    t = 0
    for i in range(n):
        f = lambda z: np.array([-k * z[0], k * z[0] - 0.5 * z[1], 0.5 * z[1]])  # noqa: E731
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = i
        if y[2] > 0.5:
            break
    return y[1] + 0.0 * t


add(VG("r15_rk4_break_on_state", rk4_break, (1.3,), ref="fd", tol=1e-7))
add(EXACT("r15_rk4_break_memory_equals_stored", lambda: revsrc.grad(rk4_break, memory="2KB")(1.3),
          lambda: revsrc.grad(rk4_break)(1.3)))


def stopgrad_loop(x):
    s = 0.0
    for k in range(5):
        w = revsrc.stop_gradient(x * k)
        s = s + w * x
    return s


add(G("r15_stop_gradient_in_loop", stopgrad_loop, (1.5,), ref=lambda: 10 * 1.5, tol=1e-14))
add(pair("r15_stop_gradient_loop_hessian", lambda: revsrc.hessian(stopgrad_loop)(1.5), lambda: 0.0, tol=1e-14))
add(pair("r15_stop_gradient_loop_jit_grad", lambda: revsrc.jit(revsrc.grad(stopgrad_loop))(1.5), lambda: 15.0, tol=1e-14))


def scalar_mix(a, b):
    return math.exp(a * b) / (1.0 + a * a) + math.atan2(b, a)


def _h_ref(a, b):
    return ag()[0].hessian(lambda v: agify(scalar_mix)(v[0], v[1]))(np.array([a, b]))


add(pair("r15_jit_hessian_argnums_tuple_scalar", lambda: revsrc.jit(revsrc.hessian(scalar_mix, argnums=(0, 1)))(0.4, 0.9),
         lambda: ((_h_ref(0.4, 0.9)[0, 0], _h_ref(0.4, 0.9)[0, 1]), (_h_ref(0.4, 0.9)[1, 0], _h_ref(0.4, 0.9)[1, 1])), tol=1e-12))
add(pair("r15_vmap_grad_argnums_tuple_scalar", lambda: revsrc.vmap(revsrc.grad(scalar_mix, argnums=(0, 1)))(np.array([0.4, 1.0]), np.array([0.9, -0.5])),
         lambda: tuple(np.array([ag()[0].grad(agify(scalar_mix), i)(a, b) for a, b in ((0.4, 0.9), (1.0, -0.5))]) for i in (0, 1)), tol=1e-12))
add(pair("r15_vmap_value_and_grad_out_tuple", lambda: revsrc.vmap(revsrc.value_and_grad(scalar_mix))(np.array([0.4, 1.0]), np.array([0.9, -0.5])),
         lambda: (np.array([scalar_mix(0.4, 0.9), scalar_mix(1.0, -0.5)]),
                  np.array([ag()[0].grad(agify(scalar_mix))(a, b) for a, b in ((0.4, 0.9), (1.0, -0.5))])), tol=1e-12))


def vec_field(x):
    return np.array([x[0] * x[1], np.sin(x[0]) + x[1] ** 2])


add(pair("r15_jacfwd_of_jacrev_second_derivative_tensor", lambda: revsrc.jacfwd(revsrc.jacrev(vec_field))(np.array([0.3, 0.8])),
         lambda: np.array([[[0.0, 1.0], [1.0, 0.0]], [[-math.sin(0.3), 0.0], [0.0, 2.0]]]), tol=1e-13))
add(pair("r15_vmap_jacrev_vec_field", lambda: revsrc.vmap(revsrc.jacrev(vec_field))(np.array([[0.3, 0.8], [1.0, -1.0]])),
         lambda: np.array([[[0.8, 0.3], [math.cos(0.3), 1.6]], [[-1.0, 1.0], [math.cos(1.0), -2.0]]]), tol=1e-13))


def grad_norm_penalty(w, x):
    g = revsrc.grad(lambda_free_loss)(w, x)
    return lambda_free_loss(w, x) + 0.1 * np.sum(g ** 2)


def lambda_free_loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


XX = np.array([[1.0, 0.5], [-0.3, 2.0], [0.7, -1.0]])
WW = np.array([0.4, -0.2])
add(G("r15_gradient_penalty_grad_of_grad_array", grad_norm_penalty, (WW, XX), ref="fd", tol=1e-7))
add(pair("r15_gradient_penalty_backend_jax", lambda: revsrc.grad(lambda_free_loss, backend="jax")(WW, XX),
         lambda: revsrc.grad(lambda_free_loss)(WW, XX), tol=1e-12))
add(pair("r15_hessian_backend_jax_array", lambda: revsrc.hessian(lambda_free_loss, backend="jax")(WW, XX),
         lambda: revsrc.hessian(lambda_free_loss)(WW, XX), tol=1e-12))


# -- dataclass and namedtuple parameters through vmap, Jacobians, linearize and vjp

@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


NT = collections.namedtuple("NT", "w b")


def affine_sq(p, x):
    return np.sum((x * p.w + p.b) ** 2)


PDC = Params(np.array([1.0, 2.0]), 0.5)
PNT = NT(np.array([1.0, 2.0]), 0.5)
XAF = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])


def _affine_ref(cls):
    ws, bs = [], []
    for x in XAF:
        r = x * PDC.w + PDC.b
        ws.append(2 * r * x)
        bs.append(np.sum(2 * r))
    return cls(np.stack(ws), np.array(bs))


add(pair("r15_vmap_grad_dataclass_params", lambda: revsrc.vmap(revsrc.grad(affine_sq), in_axes=(None, 0))(PDC, XAF), lambda: _affine_ref(Params), tol=1e-14))
add(pair("r15_vmap_grad_namedtuple_params", lambda: revsrc.vmap(revsrc.grad(affine_sq), in_axes=(None, 0))(PNT, XAF), lambda: _affine_ref(NT), tol=1e-14))
add(pair("r15_vmap_namedtuple_in_axes_prefix", lambda: revsrc.vmap(affine_sq, in_axes=(NT(0, None), 0))(NT(np.stack([PNT.w, 2 * PNT.w, PNT.w]), 0.5), XAF),
         lambda: np.array([affine_sq(NT(w, 0.5), x) for w, x in zip(np.stack([PNT.w, 2 * PNT.w, PNT.w]), XAF)]), tol=1e-14))
add(pair("r15_jacrev_dataclass_argument", lambda: revsrc.jacrev(lambda p: p.w * p.b)(PDC), lambda: Params(0.5 * np.eye(2), PDC.w), tol=1e-14))
add(pair("r15_linearize_dataclass", lambda: revsrc.linearize(lambda p: np.sum(p.w) * p.b, PDC)[1](Params(np.ones(2), 1.0)), lambda: 2 * 0.5 + 3.0, tol=1e-14))
add(pair("r15_vjp_namedtuple", lambda: revsrc.vjp(lambda p: p.w * p.b, PNT)[1](np.ones(2)), lambda: (NT(np.array([0.5, 0.5]), 3.0),), tol=1e-14))
