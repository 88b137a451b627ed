"""Round 11, part e: Python styles -- match statements, walrus, functools.reduce, operator,
math.fsum / math.prod, statistics, sum() of generators, closures, __call__, properties,
classmethods, staticmethods, __getitem__, inheritance with super(), frozen dataclasses,
dict comprehensions, sorted with key, enumerate(start=1), early return, try/except,
for-else, while True, chained comparisons, global, augmented assignment on containers."""
import dataclasses
import functools
import math
import operator
import statistics
from typing import NamedTuple

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, agify, ag  # noqa: F401

CASES = []
add = CASES.append


# -- match -------------------------------------------------------------------------------

def activation(x, kind):
    match kind:
        case "relu":
            return max(x, 0.0)
        case "tanh":
            return math.tanh(x)
        case "softplus":
            return math.log1p(math.exp(x))
        case _:
            return x


def act_sum(x):
    return sum(activation(x * k, name) for k, name in enumerate(["relu", "tanh", "softplus", "id"], start=1))


add(G("r11_match_strings", act_sum, (0.3,), ref="fd"))


# -- walrus ------------------------------------------------------------------------------

def walrus_series(x):
    total = 0.0
    k = 0
    while (term := x ** k / math.factorial(k)) > 1e-12:
        total += term
        k += 1
    return total


add(G("r11_walrus_while", walrus_series, (1.3,), ref=lambda: math.exp(1.3)))


def walrus_comp(xs):
    return sum(y * y for x in xs if (y := math.sin(x)) > 0)


add(G("r11_walrus_comprehension", walrus_comp, ([0.3, 2.0, 4.0, 1.0],), ref="fd"))


# -- functools.reduce and operator --------------------------------------------------------

def reduce_product(xs):
    return functools.reduce(operator.mul, xs, 1.0)


XS4 = [1.5, -0.7, 2.2, 0.9]
add(G("r11_reduce_operator_mul", reduce_product, (XS4,),
      ref=lambda: [math.prod(XS4) / v for v in XS4]))


def reduce_lambda(xs):
    return functools.reduce(lambda a, b: a * 0.5 + b * b, xs)


add(G("r11_reduce_lambda", reduce_lambda, (XS4,), ref="fd"))


def operator_ops(x, y):
    return operator.add(operator.mul(x, y), operator.truediv(x, y)) - operator.pow(x, 2) + operator.neg(y)


add(G("r11_operator_module", operator_ops, (1.3, 0.4), argnums=(0, 1), ref="jax"))


def itemgetter_loss(params):
    get_w = operator.itemgetter("w")
    return get_w(params) ** 2 + params["b"]


add(G("r11_operator_itemgetter", itemgetter_loss, ({"w": 1.5, "b": 0.2},), ref="fd"))


# -- math.fsum / math.prod / statistics ---------------------------------------------------

def fsum_energy(xs):
    return math.fsum(x * x * 0.5 for x in xs) + math.prod(xs)


add(G("r11_fsum_prod_generator", fsum_energy, (XS4,), ref="fd"))


def stats_loss(xs):
    return statistics.mean(xs) + statistics.pvariance(xs)


add(G("r11_statistics_mean_pvariance", stats_loss, (XS4,),
      ref=lambda: [0.25 + 2 * (v - np.mean(XS4)) / 4 for v in XS4]))


def stats_fmean(xs):
    return statistics.fmean(xs) ** 2


add(G("r11_statistics_fmean", stats_fmean, (XS4,), ref=lambda: [2 * np.mean(XS4) / 4] * 4))


# -- closures and factories -----------------------------------------------------------------

def make_poly(coeffs):
    def p(x):
        acc = 0.0
        for c in reversed(coeffs):
            acc = acc * x + c
        return acc
    return p


POLY = make_poly([1.0, -2.0, 0.5, 0.25])
add(G("r11_closure_factory", POLY, (1.7,), ref=lambda: -2.0 + 2 * 0.5 * 1.7 + 3 * 0.25 * 1.7 ** 2))


def counter_closure(x):
    scale = 2.0

    def bump(v):
        return v * scale + x

    y = bump(x)
    scale = 3.0
    return bump(y)


add(G("r11_closure_late_binding", counter_closure, (0.7,), ref="fd"))


def nested_three(x):
    def outer(a):
        def inner(b):
            return a * b + math.sin(b)
        return inner(a + x)
    return outer(x * x)


add(G("r11_nested_closures", nested_three, (0.6,), ref="jax"))


# -- classes ----------------------------------------------------------------------------------

class Spring:
    def __init__(self, k, rest):
        self.k = k
        self.rest = rest

    @property
    def stiffness(self):
        return 2.0 * self.k

    def energy(self, x):
        return 0.5 * self.stiffness * (x - self.rest) ** 2

    def __call__(self, x):
        return self.energy(x) + math.cos(x)

    @staticmethod
    def damp(v):
        return 0.1 * v * v

    @classmethod
    def unit(cls):
        return cls(1.0, 0.0)


SP = Spring(3.0, 0.5)
add(G("r11_callable_with_property", SP, (1.2,), ref=lambda: 2 * 3.0 * (1.2 - 0.5) - math.sin(1.2)))
add(G("r11_bound_method_property", SP.energy, (1.2,), ref=lambda: 2 * 3.0 * 0.7))
add(G("r11_staticmethod", Spring.damp, (2.0,), ref=lambda: 0.4))


def use_classmethod(x):
    s = Spring.unit()
    return s(x) + Spring.damp(x)


add(G("r11_classmethod_inside", use_classmethod, (0.8,), ref=lambda: 2 * 0.8 - math.sin(0.8) + 0.16))


class Layer:
    def __init__(self, scale):
        self.scale = scale

    def forward(self, x):
        return math.tanh(self.scale * x)


class ResidualLayer(Layer):
    def forward(self, x):
        return x + super().forward(x)


def residual_stack(x):
    layers = [ResidualLayer(0.5), Layer(2.0), ResidualLayer(-1.0)]
    for layer in layers:
        x = layer.forward(x)
    return x


def residual_ref(x):
    x = x + np.tanh(0.5 * x)
    x = np.tanh(2.0 * x)
    return x + np.tanh(-1.0 * x)


add(G("r11_inheritance_super", residual_stack, (0.4,), ref=lambda: jax().grad(jaxify(residual_ref))(0.4)))


class Table:
    def __init__(self, values):
        self.values = values

    def __getitem__(self, i):
        return self.values[i] * 2.0

    def __len__(self):
        return len(self.values)


def getitem_sum(x):
    t = Table([x, x * x, math.exp(x)])
    return sum(t[i] for i in range(len(t)))


add(G("r11_getitem_container", getitem_sum, (0.5,), ref=lambda: 2.0 * (1 + 2 * 0.5 + math.exp(0.5))))


@dataclasses.dataclass(frozen=True)
class Material:
    E: float
    nu: float

    @property
    def lame(self):
        mu = self.E / (2 * (1 + self.nu))
        lam = self.E * self.nu / ((1 + self.nu) * (1 - 2 * self.nu))
        return lam, mu


def strain_energy(m, eps):
    lam, mu = m.lame
    tr = eps[0] + eps[1]
    return 0.5 * lam * tr ** 2 + mu * (eps[0] ** 2 + eps[1] ** 2)


MAT = Material(200.0, 0.3)


def strain_energy_flat(E, nu, eps):
    return strain_energy(Material(E, nu), eps)


add(G("r11_frozen_dataclass_pytree", strain_energy, (MAT, (0.01, -0.003)), ref=lambda: Material(
    *fd_mat())))


def fd_mat():
    from user_programs7_harness import fd_checked
    g = fd_checked(strain_energy_flat, (200.0, 0.3, (0.01, -0.003)), argnums=0)
    g2 = fd_checked(strain_energy_flat, (200.0, 0.3, (0.01, -0.003)), argnums=1)
    return float(g[0]), float(g2[0])


class Params(NamedTuple):
    a: float
    b: float


def nt_loss(p, xs):
    return sum((p.a * x + p.b - math.sin(x)) ** 2 for x in xs)


add(G("r11_namedtuple_fields", nt_loss, (Params(0.8, 0.1), [0.1, 0.5, 1.2]),
      ref=lambda: Params(*[float(v) for v in jax().grad(jaxify(nt_loss_tuple))((0.8, 0.1), [0.1, 0.5, 1.2])])))


def nt_loss_tuple(p, xs):
    a, b = p
    return sum((a * x + b - math.sin(x)) ** 2 for x in xs)


# -- dicts, sorted, enumerate ----------------------------------------------------------------

def dict_comp(params):
    sq = {k: v * v for k, v in params.items()}
    return sum(sq.values()) + sq["a"] * params["b"]


add(G("r11_dict_comprehension", dict_comp, ({"a": 1.5, "b": -0.5, "c": 2.0},),
      ref=lambda: {"a": 3.0 + 2 * 1.5 * -0.5, "b": -1.0 + 2.25, "c": 4.0}))


def sorted_key(xs):
    top = sorted(xs, key=lambda v: -abs(v))[:2]
    return top[0] * 3.0 + top[1]


add(G("r11_sorted_key_lambda", sorted_key, ([0.5, -2.0, 1.5, 0.1],), ref=lambda: [0.0, 3.0, 1.0, 0.0]))


def sorted_pairs(ws):
    pairs = sorted(zip(ws, range(len(ws))), key=operator.itemgetter(0))
    return sum(i * w for w, i in pairs) + pairs[-1][0] ** 2


add(G("r11_sorted_itemgetter", sorted_pairs, ([0.4, 1.9, -0.3],), ref=lambda: [0.0, 1.0 + 3.8, 2.0]))


def enum_start(xs):
    return sum(k * x ** k for k, x in enumerate(xs, start=1))


add(G("r11_enumerate_start", enum_start, ([0.5, 1.1, -0.8],),
      ref=lambda: [1.0, 2 * 2 * 1.1, 3 * 3 * 0.64]))


def max_key(xs):
    best = max(xs, key=lambda t: t[1])
    return best[0] * best[1]


add(G("r11_max_key_tuples", max_key, ([(1.0, 0.2), (2.0, 0.9), (3.0, 0.5)],),
      ref=lambda: [(0.0, 0.0), (0.9, 2.0), (0.0, 0.0)]))


# -- control flow styles ---------------------------------------------------------------------

def early_return(x):
    for k in range(1, 20):
        x = x * 0.8 + 0.1 * math.sin(x)
        if abs(x) < 0.05:
            return x * k
    return x


add(G("r11_early_return_in_loop", early_return, (1.0,), ref="ag"))


def try_except_numeric(x):
    try:
        r = math.sqrt(x - 1.0)
    except ValueError:
        r = 0.0
    return r + x


add(G("r11_try_except_valueerror_taken", try_except_numeric, (0.5,), ref=lambda: 1.0))
add(G("r11_try_except_valueerror_not", try_except_numeric, (2.0,), ref=lambda: 1.5))


def try_zero_div(x, y):
    try:
        return x / y
    except ZeroDivisionError:
        return x * 1e6


add(G("r11_try_zerodivision", try_zero_div, (2.0, 0.0), ref=lambda: 1e6))


def for_else(xs, t):
    for x in xs:
        if x > t:
            found = x
            break
    else:
        found = t
    return found * found


add(G("r11_for_else", for_else, ([0.1, 0.5, 0.9], 0.3), argnums=1, ref=lambda: 0.0))


def while_true(x):
    n = 0
    while True:
        x = math.cos(x)
        n += 1
        if n >= 15:
            break
    return x


add(G("r11_while_true_break", while_true, (0.3,), ref="ag"))


def chained(x, lo=0.0, hi=1.0):
    if lo < x <= hi:
        return x * x
    return 2.0 * x if x > hi else -x


add(G("r11_chained_comparison_in", chained, (0.5,), ref=lambda: 1.0))
add(G("r11_chained_comparison_out", chained, (1.5,), ref=lambda: 2.0))
add(G("r11_chained_comparison_hi", chained, (0.9, 0.0, 0.9), argnums=2, ref=lambda: 0.0))

_CALLS = 0


def with_global(x):
    global _CALLS
    _CALLS += 1
    return x * x


add(G("r11_global_counter", with_global, (1.5,), ref=lambda: 3.0))

SCALE = 2.0


def reads_global(x):
    return SCALE * x * x


def rebinding_global():
    d = revsrc.grad(reads_global)
    global SCALE
    a = d(1.0)
    SCALE = 5.0
    b = d(1.0)
    SCALE = 2.0
    return (a, b)


add(pair("r11_global_rebound_between_calls", rebinding_global, lambda: (4.0, 10.0)))


# -- augmented assignment on containers --------------------------------------------------------

def aug_list_items(x):
    acc = [0.0, 1.0]
    for k in range(3):
        acc[0] += x * k
        acc[1] *= x
    return acc[0] + acc[1]


add(G("r11_augassign_list_items", aug_list_items, (1.3,), ref=lambda: 3.0 + 3 * 1.3 ** 2))


def aug_tuple(x):
    t = (x,)
    t += (x * x, 2.0)
    return t[0] * t[1] + t[2]


add(G("r11_augassign_tuple_concat", aug_tuple, (1.3,), ref=lambda: 3 * 1.3 ** 2))


class Acc:
    def __init__(self):
        self.total = 0.0


def aug_attribute(x):
    a = Acc()
    a.total += x * x
    a.total += math.sin(x)
    return a.total


add(G("r11_augassign_attribute", aug_attribute, (0.4,), ref=lambda: 0.8 + math.cos(0.4)))


def aug_dict_items(x):
    d = {"a": x, "b": 0.0}
    for k in range(1, 4):
        d["b"] += d["a"] / k
        d["a"] *= x
    return d["a"] + d["b"]


add(G("r11_augassign_dict_items", aug_dict_items, (0.9,), ref="fd"))


def swap_unpack(x, y):
    for _ in range(3):
        x, y = y, x + 0.5 * y
    first, *rest = (x, y, x * y)
    return first + sum(rest)


add(G("r11_swap_star_unpack", swap_unpack, (0.3, 1.1), argnums=(0, 1), ref="jax"))


def ternary_chain(x):
    s = 0.0
    for k in range(-2, 3):
        v = x + k
        s += v * v if v > 0 else (-v if v > -1 else 0.5 * v)
    return s


add(G("r11_ternary_chain", ternary_chain, (0.4,), ref="fd"))


def any_all(xs):
    if all(x > 0 for x in xs) and not any(x > 10 for x in xs):
        return math.fsum(math.log(x) for x in xs)
    return 0.0


add(G("r11_any_all_generators", any_all, ([0.5, 1.5, 2.5],), ref=lambda: [2.0, 1 / 1.5, 0.4]))


def map_filter(xs):
    pos = list(filter(lambda v: v > 0, xs))
    return sum(map(math.exp, pos)) + len(pos)


add(G("r11_map_filter", map_filter, ([0.5, -1.0, 0.2],), ref=lambda: [math.exp(0.5), 0.0, math.exp(0.2)]))


def str_config(x, cfg={"loss": "huber", "delta": 1.0}):
    r = x - 3.0
    if cfg["loss"] == "huber":
        d = cfg["delta"]
        return 0.5 * r * r if abs(r) <= d else d * (abs(r) - 0.5 * d)
    return r * r


add(G("r11_string_keyed_config_default", str_config, (0.5,), ref=lambda: -1.0))
add(G("r11_string_keyed_config_passed", str_config, (2.5, {"loss": "l2", "delta": 0.0}), ref=lambda: -1.0))
