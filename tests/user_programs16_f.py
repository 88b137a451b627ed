"""Round 16, part f: Python styles -- dicts of parameters updated in loops (d[k] += v,
d.get, d.pop, d.setdefault), list(enumerate(...)), sorted(..., key=), enumerate / zip /
reversed, module-level SimpleNamespace configs under jit / vmap, classes with inheritance
and super().__init__, __slots__, abc.ABC, @property, operator methods, dataclasses in
comprehensions."""
import abc
import dataclasses
import math
import types

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def dict_accumulate(x):
    d = {"a": 0.0, "b": 0.0}
    for i in range(4):
        d["a"] += x * i
        d["b"] += x ** 2
    return d["a"] * d["b"]


# d = {a: 6x, b: 4x^2}: 24 x^3, derivative 72 x^2
add(VG("r16_dict_plus_equals_in_loop", dict_accumulate, (1.5,), ref=lambda: 72 * 1.5 ** 2, tol=1e-12))


def dict_get_loop(x):
    d = {}
    for k, w in (("u", 1.0), ("v", 2.0), ("u", 3.0)):
        d[k] = d.get(k, 0.0) + w * x
    return d["u"] * d["v"]


# u = 4x, v = 2x: 8 x^2 -> 16 x
add(VG("r16_dict_get_default_loop", dict_get_loop, (1.25,), ref=lambda: 16 * 1.25, tol=1e-12))


def dict_setdefault(x):
    d = {}
    d.setdefault("s", x)
    d.setdefault("s", 100.0)
    d.setdefault("t", 2.0 * x)
    return d["s"] * d["t"]


add(VG("r16_dict_setdefault", dict_setdefault, (3.0,), ref=lambda: 4 * 3.0, tol=1e-12))


def dict_pop_param(p):
    p = dict(p)
    w = p.pop("w")
    b = p.pop("b", 0.5)
    rest = sum(p.values())
    return w * b + rest ** 2


PD = {"w": 2.0, "b": 3.0, "c": 1.0, "e": 0.5}
add(G("r16_dict_pop_on_copy_of_argument", dict_pop_param, (PD,),
      ref=lambda: {"w": 3.0, "b": 2.0, "c": 3.0, "e": 3.0}, tol=1e-12))


def sorted_key_lambda(xs):
    pairs = [(abs(v), v) for v in xs]
    top = sorted(pairs, key=lambda t: t[0], reverse=True)[:2]
    return top[0][1] * top[1][1]


XS = [0.5, -2.0, 1.5, 0.1]
add(G("r16_sorted_key_lambda_reverse", sorted_key_lambda, (XS,), ref=lambda: [0.0, 1.5, -2.0, 0.0], tol=1e-12))


def enum_zip_reversed(ws, xs):
    acc = 0.0
    for i, (w, x) in reversed(list(enumerate(zip(ws, xs)))):
        acc = acc * 0.5 + (i + 1) * w * x
    return acc


WS, XS2 = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
add(VG("r16_reversed_list_enumerate_zip", enum_zip_reversed, (WS, XS2), argnums=(0, 1), ref="ag", tol=1e-12))

CFG = types.SimpleNamespace(rate=0.3, steps=20, floor=0.05)


def decay_cfg(x):
    for _ in range(CFG.steps):
        x = x - CFG.rate * x * x
        if x < CFG.floor:
            x = CFG.floor + 0.0 * x
    return x


add(pair("r16_simplenamespace_config_jit", lambda: revsrc.jit(decay_cfg)(1.2), lambda: decay_cfg(1.2), tol=0.0))
add(pair("r16_simplenamespace_config_vmap", lambda: revsrc.vmap(decay_cfg)(np.array([0.5, 1.2, 3.0])),
         lambda: np.array([decay_cfg(v) for v in (0.5, 1.2, 3.0)]), tol=0.0))
add(pair("r16_simplenamespace_config_grad", lambda: revsrc.grad(decay_cfg)(1.2),
         lambda: ag()[0].grad(agify(decay_cfg))(1.2), tol=1e-12))


def _cfg_change_then_jit():
    j = revsrc.jit(decay_cfg)
    a = j(1.2)
    old = CFG.rate
    CFG.rate = 0.1
    try:
        b = j(1.2)
    finally:
        CFG.rate = old
    return a, b


def _cfg_change_ref():
    a = decay_cfg(1.2)
    old = CFG.rate
    CFG.rate = 0.1
    try:
        b = decay_cfg(1.2)
    finally:
        CFG.rate = old
    return a, b


add(pair("r16_simplenamespace_changed_between_jit_calls", _cfg_change_then_jit, _cfg_change_ref, tol=0.0))


class Layer:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return self.scale * np.tanh(x)


class BiasedLayer(Layer):
    def __init__(self, scale, bias):
        super().__init__(scale)
        self.bias = bias

    def __call__(self, x):
        return super().__call__(x) + self.bias


def net_inherit(x):
    layers = [BiasedLayer(1.5, 0.1), Layer(0.5), BiasedLayer(2.0, -0.3)]
    for L in layers:
        x = L(x)
    return np.sum(x ** 2)


XI = np.array([0.3, -0.7, 1.1])
add(VG("r16_inheritance_super_call", net_inherit, (XI,), ref="ag", tol=1e-12))


class Spring:
    __slots__ = ("k", "rest")

    def __init__(self, k, rest):
        self.k = k
        self.rest = rest

    @property
    def half_k(self):
        return 0.5 * self.k

    def energy(self, L):
        return self.half_k * (L - self.rest) ** 2


SPRINGS = (Spring(2.0, 1.0), Spring(3.0, 0.5))


def slots_energy_global(L):
    return sum(s.energy(L) for s in SPRINGS)


add(VG("r16_slots_property_global_objects", slots_energy_global, (1.3,), ref=lambda: 2.0 * 0.3 + 3.0 * 0.8, tol=1e-12))


class Potential(abc.ABC):
    @abc.abstractmethod
    def __call__(self, r):
        ...


class Harmonic(Potential):
    def __init__(self, k):
        self.k = k

    def __call__(self, r):
        return 0.5 * self.k * r * r


HARM = Harmonic(4.0)


def abc_global_call(r):
    return HARM(r) + HARM(2 * r)


add(VG("r16_abc_global_callable_object", abc_global_call, (0.7,), ref=lambda: 4.0 * 0.7 + 4.0 * 4 * 0.7, tol=1e-12))


class Dual:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __add__(self, o):
        return Dual(self.a + o.a, self.b + o.b)

    def __mul__(self, o):
        return Dual(self.a * o.a, self.a * o.b + self.b * o.a)

    def __neg__(self):
        return Dual(-self.a, -self.b)

    def __abs__(self):
        return math.hypot(self.a, self.b)


def operator_objects(x):
    u = Dual(x, 1.0)
    v = u * u + (-u)
    return abs(v)


def _opref(x):
    a, b = x * x - x, 2 * x - 1.0
    return (a * (2 * x - 1) + b * 2) / math.hypot(a, b)


add(VG("r16_operator_methods_dual_numbers", operator_objects, (1.7,), ref=lambda: _opref(1.7), tol=1e-12))


@dataclasses.dataclass
class Particle:
    m: float
    x: float


def dataclass_comprehension(xs):
    ps = [Particle(m=1.0 + i, x=v) for i, v in enumerate(xs)]
    com = sum(p.m * p.x for p in ps) / sum(p.m for p in ps)
    return sum(p.m * (p.x - com) ** 2 for p in ps)


add(VG("r16_dataclass_list_comprehension", dataclass_comprehension, (np.array([0.1, 0.5, -0.3, 1.0]),), ref="fd", tol=1e-8))


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


def dataclass_arg(p, x):
    return np.sum(np.tanh(p.w * x + p.b) ** 2)


PP = Params(w=np.array([0.5, -1.0, 2.0]), b=0.2)


def _dc_ref():
    g = ag()[0].grad(lambda w, b: agify(dataclass_arg)(types.SimpleNamespace(w=w, b=b), XI), (0, 1))(PP.w, PP.b)
    return Params(w=g[0], b=g[1])


add(G("r16_dataclass_argument_grad", dataclass_arg, (PP, XI), ref=_dc_ref, tol=1e-12))


def list_enumerate_materialized(x):
    items = list(enumerate([x, x * x, math.sin(x)]))
    total = 0.0
    for i, v in items[::-1]:
        total += (i + 1) * v
    return total


add(VG("r16_list_of_enumerate_sliced", list_enumerate_materialized, (0.8,), ref=lambda: 1 + 4 * 0.8 + 3 * math.cos(0.8), tol=1e-12))


def kwargs_defaults_dict(x, opts={"gain": 2.0, "power": 3}):
    return opts["gain"] * x ** opts["power"]


def _default_mutated():
    g = revsrc.grad(kwargs_defaults_dict)
    a = g(1.5)
    kwargs_defaults_dict.__defaults__[0]["gain"] = 5.0
    try:
        b = g(1.5)
    finally:
        kwargs_defaults_dict.__defaults__[0]["gain"] = 2.0
    return a, b


add(pair("r16_mutable_default_changed_between_calls", _default_mutated,
         lambda: (2.0 * 3 * 1.5 ** 2, 5.0 * 3 * 1.5 ** 2), tol=1e-12))


def zip_strict_dict_items(p):
    scale = {"x": 1.0, "y": 2.0, "z": 3.0}
    tot = 0.0
    for (k, v), (k2, s) in zip(sorted(p.items()), sorted(scale.items()), strict=True):
        tot += s * v ** 2
    return tot


add(G("r16_zip_strict_sorted_items", zip_strict_dict_items, ({"z": 1.0, "x": 2.0, "y": 0.5},),
      ref=lambda: {"x": 4.0, "y": 2.0, "z": 6.0}, tol=1e-12))


@dataclasses.dataclass
class Pt:
    m: float
    x: float


def dataclass_literal_list_for(x):
    ps = [Pt(1.0, x), Pt(2.0, 2 * x)]
    tot = 0.0
    for p in ps:
        tot += p.m * p.x ** 2
    return tot


add(VG("r16_dataclass_list_literal_for", dataclass_literal_list_for, (0.5,), ref=lambda: 18 * 0.5, tol=1e-12))


class PlainPt:
    def __init__(self, m, x):
        self.m = m
        self.x = x


def plain_literal_list_for(x):
    ps = [PlainPt(1.0, x), PlainPt(2.0, 2 * x)]
    return sum(p.m * p.x ** 2 for p in ps)


add(VG("r16_plain_object_list_literal_genexpr", plain_literal_list_for, (0.5,), ref=lambda: 18 * 0.5, tol=1e-12))


def list_enumerate_zip(ws, xs):
    acc = 0.0
    for i, (w, x) in list(enumerate(zip(ws, xs))):
        acc = acc * 0.5 + (i + 1) * w * x
    return acc


add(G("r16_list_enumerate_zip", list_enumerate_zip, (WS, XS2), argnums=(0, 1), ref="ag", tol=1e-12))


class BiasedOnly(Layer):
    def __init__(self, scale, bias):
        super().__init__(scale)
        self.bias = bias

    def __call__(self, x):
        return self.scale * np.tanh(x) + self.bias


def super_init_only(x):
    L = BiasedOnly(1.5, 0.1)
    return np.sum(L(x) ** 2)


add(VG("r16_super_init_in_subclass", super_init_only, (XI,), ref="ag", tol=1e-12))


class CallsBase(Layer):
    def __init__(self, scale, bias):
        self.scale = scale
        self.bias = bias

    def __call__(self, x):
        return super().__call__(x) + self.bias


def super_call_only(x):
    L = CallsBase(1.5, 0.1)
    return np.sum(L(x) ** 2)


add(VG("r16_super_call_in_method", super_call_only, (XI,), ref="ag", tol=1e-12))


def dict_setdefault_value(x):
    d = {}
    v = d.setdefault("s", x)
    return v * 2.0


add(VG("r16_dict_setdefault_value", dict_setdefault_value, (3.0,), ref=lambda: 2.0, tol=1e-12))
