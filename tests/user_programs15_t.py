"""Round 15, part t: more Python styles -- dataclasses and typing.NamedTuple with methods
built inside, inheritance with super().__init__, @property, class-level constants,
operator-module functions, zip(*pairs), starred unpacking, chained comparisons, lambdas
with default arguments in comprehensions, isinstance tests, collections helpers."""
import collections
import dataclasses
import functools
import itertools
import math
import operator
import typing

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


@dataclasses.dataclass
class Spring:
    k: float
    rest: float = 1.0

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


def dataclass_inside(k):
    springs = [Spring(k * (i + 1)) for i in range(3)]
    return sum(s.energy(1.5) for s in springs)


add(G("r15_dataclass_built_inside_method", dataclass_inside, (2.0,), ref=lambda: 0.5 * 0.25 * 6, tol=1e-14))


@dataclasses.dataclass(frozen=True)
class Gauss:
    mu: float
    sigma: float

    def logpdf(self, x):
        z = (x - self.mu) / self.sigma
        return -0.5 * z * z - math.log(self.sigma) - 0.5 * math.log(2 * math.pi)


def frozen_dc(mu, data=(0.5, 1.2, -0.3)):
    g = Gauss(mu, 0.8)
    return sum(g.logpdf(x) for x in data)


add(G("r15_frozen_dataclass_built_inside", frozen_dc, (0.2,), ref=lambda: sum((x - 0.2) / 0.64 for x in (0.5, 1.2, -0.3)), tol=1e-14))


class Pt(typing.NamedTuple):
    x: float
    y: float

    def norm2(self):
        return self.x * self.x + self.y * self.y


def namedtuple_method(a):
    p = Pt(a, 2 * a)
    q = p._replace(y=3.0)
    return p.norm2() + q.norm2()


add(G("r15_typing_namedtuple_method_replace", namedtuple_method, (1.5,), ref=lambda: 10 * 1.5 + 2 * 1.5, tol=1e-14))


class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


class ScaledLayer(Layer):
    def __init__(self, w, s):
        super().__init__(w)
        self.s = s

    def __call__(self, x):
        return self.s * super().__call__(x)


def inherit_super(w):
    net = [Layer(w), ScaledLayer(w, 2.0)]
    h = 0.7
    for layer in net:
        h = layer(h)
    return h


add(G("r15_inheritance_super_init_call", inherit_super, (0.9,), ref="fd", tol=1e-8))


class Inherit2(Layer):
    pass


def inherit_plain(w):
    return Inherit2(w)(0.5) + Layer(w)(0.25)


add(G("r15_inheritance_no_override", inherit_plain, (0.9,), ref="fd", tol=1e-8))


class Box:
    SCALE = 3.0

    def __init__(self, side):
        self.side = side

    @property
    def volume(self):
        return self.side ** 3 * Box.SCALE


def property_inside(s):
    return Box(s).volume + Box(2 * s).volume


add(G("r15_property_and_class_constant", property_inside, (0.5,), ref=lambda: 3 * 3 * 0.25 + 3 * 3 * 8 * 0.25, tol=1e-13))


def operator_funcs(xs):
    s = sum(map(operator.mul, xs, xs))
    return s + operator.truediv(xs[0], xs[1]) + operator.neg(xs[2])


XO = np.array([1.5, 2.0, -0.5])
add(G("r15_operator_module_map", operator_funcs, (XO,), ref=lambda: 2 * XO + np.array([0.5, -1.5 / 4.0, -1.0]), tol=1e-14))


def unzip_pairs(x):
    pairs = [(x * k, x + k) for k in range(1, 4)]
    a, b = zip(*pairs)
    first, *rest = a
    return first * sum(b) + sum(rest)


add(G("r15_zip_star_unzip_starred_assign", unzip_pairs, (1.5,), ref=lambda: (3 * 1.5 + 6) + 1.5 * 3 + 5.0, tol=1e-14))


def chained_cmp(x):
    if 0.0 < x < 1.0:
        return x * x
    elif 1.0 <= x < 2.0 <= 2.0:
        return 3.0 * x
    return -x


add(G("r15_chained_comparisons", chained_cmp, (0.5,), ref=lambda: 1.0, tol=1e-14))
add(G("r15_chained_comparisons_mid", chained_cmp, (1.5,), ref=lambda: 3.0, tol=1e-14))


def lambda_defaults(x):
    fs = [lambda z, k=k: z ** k for k in range(1, 4)]
    return sum(f(x) for f in fs)


add(G("r15_lambda_default_arg_comprehension", lambda_defaults, (1.5,), ref=lambda: 1 + 2 * 1.5 + 3 * 1.5 ** 2, tol=1e-14))


def isinstance_branch(x, scale=2):
    if isinstance(scale, int):
        return x * scale
    return x ** scale


add(G("r15_isinstance_on_default", isinstance_branch, (1.5,), ref=lambda: 2.0, tol=1e-14))
add(G("r15_isinstance_on_float_arg", isinstance_branch, (1.5, 3.0), ref=lambda: 3 * 1.5 ** 2, tol=1e-14))


def counter_weights(x, words=("a", "b", "a", "c", "a")):
    cnt = collections.Counter(words)
    return sum(cnt[w] * x ** i for i, w in enumerate(sorted(cnt)))


add(G("r15_collections_counter_constants", counter_weights, (1.5,), ref=lambda: 1 + 2 * 1.5, tol=1e-14))


def defaultdict_acc(x):
    d = collections.defaultdict(float)
    for k, v in (("a", x), ("b", 2 * x), ("a", x * x)):
        d[k] += v
    return d["a"] * d["b"]


add(G("r15_defaultdict_accumulate", defaultdict_acc, (1.5,), ref=lambda: (1 + 2 * 1.5) * 3.0 + (1.5 + 2.25) * 2, tol=1e-14))


def dict_get_default(p):
    w = p.get("w", 1.0)
    b = p.get("missing", 0.5)
    return w * w + b * w


add(G("r15_dict_get_with_default", dict_get_default, ({"w": 2.0},), ref=lambda: {"w": 4.5}, tol=1e-14))


def fstring_assert(x):
    msg = f"x={x:.3f}"
    assert x > 0, msg
    return x * len(msg)


add(G("r15_fstring_format_spec_assert", fstring_assert, (1.5,), ref=lambda: 7.0, tol=1e-14))


def flip_negative_step(x):
    return np.sum(x[::-1] * np.arange(4.0)) + np.sum(np.flip(x)[1::2] ** 2) + x[-1:-3:-1] @ np.array([1.0, 2.0])


add(G("r15_negative_step_slices_flip", flip_negative_step, (np.array([1.0, 2.0, 3.0, 4.0]),), ref="fd", tol=1e-8))


def dataclass_generator(k):
    return sum(Spring(k * (i + 1)).energy(1.5) for i in range(3))


add(G("r15_dataclass_in_generator_inline", dataclass_generator, (2.0,), ref=lambda: 0.5 * 0.25 * 6, tol=1e-14))


class DirectInit(Layer):
    def __init__(self, w, s):
        self.w = w
        self.s = s

    def __call__(self, x):
        return self.s * super().__call__(x)


def super_call_only(w):
    return DirectInit(w, 2.0)(0.7)


add(G("r15_super_call_in_method_only", super_call_only, (0.9,), ref=lambda: 2.0 * 0.7 / math.cosh(0.63) ** 2, tol=1e-13))


class BaseInitByName(Layer):
    def __init__(self, w, s):
        Layer.__init__(self, w)
        self.s = s


def base_init_by_name(w):
    return BaseInitByName(w, 2.0)(0.7)


add(G("r15_base_init_called_by_class_name", base_init_by_name, (0.9,), ref=lambda: 0.7 / math.cosh(0.63) ** 2, tol=1e-13))


def dict_aug_in_loop(x):
    d = {"a": 0.0, "b": 0.0}
    for k, v in (("a", x), ("b", 2 * x), ("a", x * x)):
        d[k] += v
    return d["a"] * d["b"]


add(G("r15_local_dict_aug_assign_in_loop", dict_aug_in_loop, (1.5,), ref=lambda: (1 + 2 * 1.5) * 3.0 + (1.5 + 2.25) * 2, tol=1e-14))


def dict_get_local(x):
    d = {}
    for k, v in (("a", x), ("b", 2 * x), ("a", x * x)):
        d[k] = d.get(k, 0.0) + v
    return d["a"] * d["b"]


add(G("r15_local_dict_get_in_loop", dict_get_local, (1.5,), ref=lambda: (1 + 2 * 1.5) * 3.0 + (1.5 + 2.25) * 2, tol=1e-14))


def dict_get_local_straight(x):
    d = {"a": x}
    return d.get("a", 0.0) * d.get("b", 2.0)


add(G("r15_local_dict_get_straight_line", dict_get_local_straight, (1.5,), ref=lambda: 2.0, tol=1e-14))


def sorted_dict_items(x):
    d = {"a": x, "b": 3 * x, "c": -x}
    top = sorted(d.items(), key=lambda kv: kv[1])
    return top[-1][1] * 2 + top[0][1]


add(G("r15_sorted_dict_items_by_value", sorted_dict_items, (1.5,), ref=lambda: 5.0, tol=0.0))


def fstring_keys(x):
    d = {f"w{i}": x * i for i in range(3)}
    return d["w2"] * d["w1"]


add(G("r15_fstring_dict_keys", fstring_keys, (1.5,), ref=lambda: 4 * 1.5, tol=0.0))


def list_pops(x):
    xs = [x, 2 * x, 3 * x]
    v = xs.pop()
    w = xs.pop(0)
    return v * 10 + w + sum(xs)


add(G("r15_list_pop_end_and_front", list_pops, (1.5,), ref=lambda: 33.0, tol=0.0))


def dict_pop(x):
    d = {"a": x, "b": 2 * x}
    v = d.pop("a")
    return v * 10 + d["b"]


add(G("r15_local_dict_pop", dict_pop, (1.5,), ref=lambda: 12.0, tol=0.0))


def itertools_pairwise(x):
    return sum(a * b for a, b in itertools.pairwise([x, 2 * x, 3 * x]))


add(G("r15_itertools_pairwise", itertools_pairwise, (1.5,), ref=lambda: 16 * 1.5, tol=0.0))


def min_default(x):
    return max(x * k for k in (1.0, -2.0, 3.0)) + min([x, 2 * x], default=0.0)


add(G("r15_max_generator_min_default_kw", min_default, (1.5,), ref=lambda: 4.0, tol=0.0))
