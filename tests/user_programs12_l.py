"""Round 12, part l: pytrees and objects -- dataclasses, NamedTuples, dicts of arrays,
lists of params, methods, properties, small classes with __call__."""
import dataclasses
import math
from typing import NamedTuple

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


@dataclasses.dataclass
class Orbit:
    a: float
    e: float
    mu: float = dataclasses.field(default=1.0, metadata={"static": True})


def period_plus_ecc(o):
    return 2 * math.pi * math.sqrt(o.a ** 3 / o.mu) + o.e ** 2


add(pair("r12_dataclass_static_field", lambda: revsrc.grad(period_plus_ecc)(Orbit(1.5, 0.2)),
         lambda: Orbit(2 * math.pi * 1.5 * math.sqrt(1.5) * 1.5 / 1.0 / (1.5 ** 1.5) * 1.5 ** 0.5 if False else 3 * math.pi * math.sqrt(1.5), 0.4), tol=1e-14))
add(pair("r12_dataclass_grad_type", lambda: type(revsrc.grad(period_plus_ecc)(Orbit(1.5, 0.2))).__name__, lambda: "Orbit", tol=0.0))
add(pair("r12_dataclass_value_and_grad_value", lambda: revsrc.value_and_grad(period_plus_ecc)(Orbit(1.5, 0.2))[0],
         lambda: period_plus_ecc(Orbit(1.5, 0.2)), tol=0.0))


class Gauss(NamedTuple):
    mu: np.ndarray
    log_sigma: np.ndarray


def gauss_nll(p, x):
    s = np.exp(p.log_sigma)
    return np.sum(0.5 * ((x - p.mu) / s) ** 2 + p.log_sigma)


XD = np.array([[0.1, 1.0], [0.5, 0.7], [-0.2, 1.4]])
GP = Gauss(np.array([0.0, 1.0]), np.array([-0.5, 0.1]))


def _gauss_ref():
    s = np.exp(GP.log_sigma)
    z = (XD - GP.mu) / s
    return Gauss(-np.sum(z / s, axis=0), np.sum(-z ** 2 + 1, axis=0))


add(pair("r12_namedtuple_arrays", lambda: revsrc.grad(gauss_nll)(GP, XD), _gauss_ref, tol=1e-14))
add(pair("r12_namedtuple_grad_is_namedtuple", lambda: type(revsrc.grad(gauss_nll)(GP, XD)).__name__, lambda: "Gauss", tol=0.0))
add(pair("r12_namedtuple_hessian_refused", lambda: revsrc.hessian(gauss_nll)(GP, XD), lambda: None, tol=0.0))
add(pair("r12_namedtuple_vmap_grad_data", lambda: revsrc.vmap(revsrc.grad(gauss_nll), in_axes=(None, 0))(GP, XD),
         lambda: Gauss(-(XD - GP.mu) / np.exp(GP.log_sigma) ** 2, -((XD - GP.mu) / np.exp(GP.log_sigma)) ** 2 + 1), tol=1e-14))


def nested_dict_loss(p):
    h = np.tanh(p["enc"]["W"] @ np.array([1.0, -1.0]) + p["enc"]["b"])
    out = p["dec"][0] @ h + p["dec"][1]
    return out ** 2


PN = {"enc": {"W": np.array([[0.1, 0.2], [0.3, -0.1], [0.0, 0.5]]), "b": np.zeros(3)},
      "dec": [np.array([0.5, -0.3, 0.2]), 0.1]}
add(pair("r12_nested_dict_list_tree", lambda: revsrc.grad(nested_dict_loss)(PN), lambda: ag()[0].grad(agify(nested_dict_loss))(PN), tol=1e-14))
add(pair("r12_nested_dict_hessian_block", lambda: revsrc.hessian(nested_dict_loss)(PN)["dec"][1]["dec"][1], lambda: 2.0, tol=1e-14))


def tree_leaves_inside(p):
    return sum(np.sum(l ** 2) for l in revsrc.tree_leaves(p))


add(pair("r12_tree_leaves_inside", lambda: revsrc.grad(tree_leaves_inside)(PN),
         lambda: {"enc": {"W": 2 * PN["enc"]["W"], "b": 2 * PN["enc"]["b"]}, "dec": [2 * PN["dec"][0], 0.2]}, tol=1e-15))
add(pair("r12_tree_map_sgd_step", lambda: revsrc.tree_map(lambda p, g: p - 0.1 * g, PN, revsrc.grad(tree_leaves_inside)(PN)),
         lambda: {"enc": {"W": 0.8 * PN["enc"]["W"], "b": 0.8 * PN["enc"]["b"]}, "dec": [0.8 * PN["dec"][0], 0.08]}, tol=1e-15))


class Polynomial:
    def __init__(self, coeffs):
        self.coeffs = coeffs

    @property
    def degree(self):
        return len(self.coeffs) - 1

    def __call__(self, x):
        y = 0.0
        for c in reversed(self.coeffs):
            y = y * x + c
        return y

    def deriv_at(self, x):
        return sum(k * self.coeffs[k] * x ** (k - 1) for k in range(1, self.degree + 1))


POLY = Polynomial([1.0, -2.0, 0.5, 0.25])
add(pair("r12_callable_object_horner", lambda: revsrc.grad(POLY)(1.3), lambda: POLY.deriv_at(1.3), tol=1e-14))
add(pair("r12_method_using_property", lambda: revsrc.grad(POLY.deriv_at)(1.3), lambda: 2 * 0.5 + 6 * 0.25 * 1.3, tol=1e-14))


def poly_user(x):
    p = Polynomial([0.0, 1.0, x])      # an object made in the function
    return p(2.0) + p.degree


add(pair("r12_object_made_inside_called", lambda: revsrc.grad(poly_user)(0.7), lambda: 4.0, tol=0.0))


class Layer:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


revsrc.register_pytree(Layer, lambda l: ((l.W, l.b), None), lambda aux, ch: Layer(*ch))


def net_loss(layers, x):
    for L in layers:
        x = L(x)
    return np.sum(x ** 2)


rng = np.random.default_rng(9)
LAYERS = [Layer(rng.normal(size=(3, 2)), rng.normal(size=3)), Layer(rng.normal(size=(2, 3)), rng.normal(size=2))]


def _net_ref():
    def f(W1, b1, W2, b2):
        h = np.tanh(W1 @ np.array([0.5, -0.5]) + b1)
        return np.sum(np.tanh(W2 @ h + b2) ** 2)
    g = ag()[0].grad(agify(f), argnum=(0, 1, 2, 3)) if False else None
    return [Layer(*[ag()[0].grad(agify(f), argnum=i)(LAYERS[0].W, LAYERS[0].b, LAYERS[1].W, LAYERS[1].b) for i in (0, 1)]),
            Layer(*[ag()[0].grad(agify(f), argnum=i)(LAYERS[0].W, LAYERS[0].b, LAYERS[1].W, LAYERS[1].b) for i in (2, 3)])]


def _layers_flat(ls):
    return [a for L in ls for a in (L.W, L.b)]


add(pair("r12_registered_class_list", lambda: _layers_flat(revsrc.grad(net_loss)(LAYERS, np.array([0.5, -0.5]))),
         lambda: _layers_flat(_net_ref()), tol=1e-12))


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float
    name: str = dataclasses.field(default="m", metadata={"static": True})

    def predict(self, x):
        return x @ self.w + self.b


def dc_loss(p, x, y):
    return np.mean((p.predict(x) - y) ** 2)


XL = rng.normal(size=(6, 2))
YL = rng.normal(size=6)
PD = Params(np.array([0.3, -0.2]), 0.1)


def _dc_ref():
    r = XL @ PD.w + PD.b - YL
    return [2 * XL.T @ r / 6, 2 * np.mean(r)]


add(pair("r12_dataclass_method_predict", lambda: [revsrc.grad(dc_loss)(PD, XL, YL).w, revsrc.grad(dc_loss)(PD, XL, YL).b], _dc_ref, tol=1e-14))
add(pair("r12_dataclass_jacrev_output_vector", lambda: revsrc.jacrev(lambda p: p.predict(XL))(PD).w, lambda: XL, tol=1e-14))


def tuple_of_lists_argnums(a, bs):
    return a[0] * bs[0][0] + a[1] * bs[1][1] ** 2


add(pair("r12_argnums_tuple_containers", lambda: revsrc.grad(tuple_of_lists_argnums, argnums=(0, 1))((1.0, 2.0), [[3.0, 4.0], [5.0, 6.0]]),
         lambda: ((3.0, 36.0), [[1.0, 0.0], [0.0, 24.0]]), tol=0.0))


def dict_with_int_leaf(p):
    return p["w"] ** 2 * p["n"]


add(pair("r12_dict_with_int_leaf", lambda: revsrc.grad(dict_with_int_leaf)({"w": 1.5, "n": 3}), lambda: {"w": 9.0, "n": 0}, tol=0.0))


def has_aux_dict(p):
    loss = np.sum(p["a"] ** 2)
    return loss, {"norm": np.sqrt(loss), "n": 2}


add(pair("r12_has_aux_dict", lambda: revsrc.value_and_grad(has_aux_dict, has_aux=True)({"a": np.array([3.0, 4.0])}),
         lambda: ((25.0, {"norm": 5.0, "n": 2}), {"a": np.array([6.0, 8.0])}), tol=0.0))


class Counter:
    def __init__(self):
        self.scale = 2.0

    def __call__(self, x):
        return self.scale * x ** 2

    @staticmethod
    def helper(x):
        return x + 1.0

    @classmethod
    def make(cls):
        return cls()


def use_static_and_class_methods(x):
    c = Counter.make()
    return c(Counter.helper(x))


add(pair("r12_staticmethod_classmethod", lambda: revsrc.grad(use_static_and_class_methods)(0.5), lambda: 2 * 2.0 * 1.5, tol=0.0))
