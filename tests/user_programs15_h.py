"""Round 15, part h: Python styles -- abstract base classes, staticmethod and
classmethod, __slots__, enum members as constants, match, the walrus operator, nested
functions with nonlocal, dicts of lambdas, map/filter/zip/sorted(key=),
itertools.accumulate/product, math.fsum, functools.reduce, module-level caches."""
import abc
import enum
import functools
import itertools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


class Potential(abc.ABC):
    @abc.abstractmethod
    def energy(self, r):
        ...

    def total(self, rs):
        return sum(self.energy(r) for r in rs)


class LennardJones(Potential):
    def __init__(self, eps, sigma):
        self.eps = eps
        self.sigma = sigma

    def energy(self, r):
        s6 = (self.sigma / r) ** 6
        return 4.0 * self.eps * (s6 * s6 - s6)


class Morse(Potential):
    def __init__(self, D, a, r0):
        self.D, self.a, self.r0 = D, a, r0

    def energy(self, r):
        return self.D * (1.0 - math.exp(-self.a * (r - self.r0))) ** 2


RS = (1.1, 1.3, 1.7)


def abc_energy(scale, pot):
    return pot.total([scale * r for r in RS])


def _lj_ref(scale):
    return sum(4 * (-12 * (r * scale) ** -13 * r + 6 * (r * scale) ** -7 * r) for r in RS)


add(G("r15_abc_lennard_jones_method", abc_energy, (1.0, LennardJones(1.0, 1.0)), ref=lambda: _lj_ref(1.0), tol=1e-10))
add(G("r15_abc_morse_method", abc_energy, (0.9, Morse(1.0, 1.5, 1.2)), ref="fd", tol=1e-8))


def lj_wrt_param(eps, r):
    return LennardJones(eps, 1.0).total([r, 2 * r])


add(VG("r15_abc_constructed_inside", lj_wrt_param, (0.7, 1.2), ref="fd", tol=1e-8))


class Units:
    KB = 1.380649e-23

    @staticmethod
    def to_kelvin(c):
        return c + 273.15

    @classmethod
    def thermal(cls, c):
        return cls.KB * 1e23 * cls.to_kelvin(c)


def static_class_methods(c):
    return Units.thermal(c) ** 2 + Units.to_kelvin(c * 0.5)


add(VG("r15_staticmethod_classmethod", static_class_methods, (20.0,), ref=lambda: 2 * 1.380649 * (20.0 + 273.15) * 1.380649 + 0.5, tol=1e-10))


class Particle:
    __slots__ = ("m", "x", "v")

    def __init__(self, m, x, v):
        self.m, self.x, self.v = m, x, v

    def kinetic(self):
        return 0.5 * self.m * self.v * self.v


def slots_energy(v):
    ps = [Particle(1.0 + k, 0.0, v * (k + 1)) for k in range(3)]
    return sum(p.kinetic() for p in ps)


add(G("r15_slots_objects_in_comprehension", slots_energy, (1.5,), ref=lambda: 1.5 * (1 + 2 * 4 + 3 * 9), tol=1e-12))


class Mode(enum.Enum):
    LINEAR = 1
    QUAD = 2
    EXP = 3


def enum_dispatch(x, mode=Mode.QUAD):
    if mode is Mode.LINEAR:
        return 3.0 * x
    elif mode == Mode.QUAD:
        return x * x
    return math.exp(x)


add(G("r15_enum_member_default_quad", enum_dispatch, (1.5,), ref=lambda: 3.0, tol=1e-12))
add(G("r15_enum_member_exp", enum_dispatch, (1.5, Mode.EXP), ref=lambda: math.exp(1.5), tol=1e-12))
add(pair("r15_enum_vmap_grad_kw", lambda: revsrc.vmap(revsrc.grad(enum_dispatch))(np.array([0.5, 1.0]), mode=Mode.LINEAR),
         lambda: np.array([3.0, 3.0]), tol=1e-12))


class Color(enum.IntEnum):
    R = 0
    G = 1
    B = 2


def intenum_index(rgb):
    return rgb[Color.R] * 0.299 + rgb[Color.G] * 0.587 + rgb[Color.B] ** 2 * 0.114


add(G("r15_intenum_as_index", intenum_index, (np.array([0.2, 0.5, 0.8]),), ref=lambda: np.array([0.299, 0.587, 2 * 0.8 * 0.114]), tol=1e-12))


def match_kind(x, kind):
    match kind:
        case "sq":
            return x * x
        case "cube":
            return x ** 3
        case _:
            return x


add(G("r15_match_statement", match_kind, (2.0, "cube"), ref=lambda: 12.0, tol=1e-12))


def walrus(xs):
    total = 0.0
    for x in xs:
        if (y := x * x) > 1.0:
            total += y
    return total


add(G("r15_walrus_in_if", walrus, (np.array([0.5, 1.5, -2.0]),), ref=lambda: np.array([0.0, 3.0, -4.0]), tol=1e-12))


def nonlocal_counter(x):
    acc = 0.0

    def add_term(t):
        nonlocal acc
        acc = acc + t

    for k in range(3):
        add_term(x ** (k + 1))
    return acc


add(G("r15_nonlocal_accumulator", nonlocal_counter, (1.5,), ref=lambda: 1 + 2 * 1.5 + 3 * 1.5 ** 2, tol=1e-12))


def closure_no_nonlocal(x):
    scale = 2.0

    def inner(t):
        return scale * t * x

    return sum(inner(t) for t in (1.0, 2.0, 3.0))


add(G("r15_closure_reads_outer_vars", closure_no_nonlocal, (0.7,), ref=lambda: 12.0, tol=1e-12))

ACTS = {"relu": lambda z: np.maximum(z, 0.0), "tanh": np.tanh, "soft": lambda z: np.log1p(np.exp(z))}


def dict_lambdas(w, kind):
    f = ACTS[kind]
    return np.sum(f(w * np.array([-1.0, 0.5, 2.0])))


add(G("r15_dict_of_lambdas_relu", dict_lambdas, (1.3, "relu"), ref=lambda: 2.5, tol=1e-12))
add(G("r15_dict_of_lambdas_soft", dict_lambdas, (1.3, "soft"), ref="fd", tol=1e-8))


def map_filter_sorted(xs):
    sq = list(map(lambda v: v * v, xs))
    big = list(filter(lambda v: v > 0.5, sq))
    order = sorted(big, key=lambda v: -v)
    return order[0] * 2.0 + sum(order[1:])


add(G("r15_map_filter_sorted_key", map_filter_sorted, (np.array([0.3, 1.2, -0.9, 2.0]),),
      ref=lambda: np.array([0.0, 2.4, -1.8, 8.0]), tol=1e-12))


def zip_sorted_pairs(a, b):
    pairs = sorted(zip(a, b), key=lambda p: p[1])
    return sum(w * (i + 1) for i, (w, _) in enumerate(pairs))


add(G("r15_sorted_zip_key_second", zip_sorted_pairs, (np.array([1.0, 2.0, 3.0]), np.array([0.3, 0.1, 0.2])),
      ref=lambda: np.array([3.0, 1.0, 2.0]), tol=1e-12))


def accumulate_product(x):
    cums = list(itertools.accumulate([x, 2 * x, x * x]))
    prods = [a * b for a, b in itertools.product([x, 1.0], [x, 2.0])]
    return sum(cums) + sum(prods)


add(G("r15_itertools_accumulate_product", accumulate_product, (1.5,),
      ref=lambda: (1 + 1 + 1) + (2 + 2) + (2 * 1.5) + (2 * 1.5) + 2 + 1 + 2, tol=1e-12))


def fsum_reduce(xs):
    s = math.fsum(v * v for v in xs)
    p = functools.reduce(lambda a, b: a * b, xs, 1.0)
    return s + p


XR = np.array([1.5, -0.5, 2.0])
add(G("r15_fsum_generator_reduce_product", fsum_reduce, (XR,), ref=lambda: 2 * XR + np.array([-1.0, 3.0, -0.75]), tol=1e-12))

_CACHE = {}


def cached_coeffs(n):
    if n not in _CACHE:
        _CACHE[n] = [1.0 / math.factorial(k) for k in range(n)]
    return _CACHE[n]


def taylor_exp(x, n=12):
    c = cached_coeffs(n)
    return sum(ck * x ** k for k, ck in enumerate(c))


add(G("r15_module_cache_helper", taylor_exp, (0.8,), ref=lambda: sum(0.8 ** k / math.factorial(k) for k in range(11)), tol=1e-12))

_CALLS = [0]


def counted(x):
    _CALLS[0] += 1
    return x * x


add(G("r15_global_counter_list_item", counted, (3.0,), ref=lambda: 6.0, tol=1e-12))


@functools.lru_cache(maxsize=None)
def binom_table(n):
    return tuple(math.comb(n, k) for k in range(n + 1))


def bernstein(t, w):
    n = w.shape[0] - 1
    B = binom_table(n)
    return sum(B[k] * t ** k * (1 - t) ** (n - k) * w[k] for k in range(n + 1))


WB = np.array([0.0, 1.0, 3.0, 2.0])
add(G("r15_lru_cache_bernstein_wrt_t", bernstein, (0.4, WB), ref=lambda: 3 * ((1 - 0.4) ** 2 * 1 + 2 * 0.4 * 0.6 * 2 + 0.16 * -1), tol=1e-12))
add(G("r15_lru_cache_bernstein_wrt_w", bernstein, (0.4, WB), argnums=1, ref=lambda: np.array([0.216, 0.432, 0.288, 0.064]), tol=1e-12))


def star_args(*coeffs, x=0.5):
    return sum(c * x ** i for i, c in enumerate(coeffs))


add(G("r15_star_args_kwonly", lambda a, b, c: star_args(a, b, c, x=2.0), (1.0, 1.0, 1.0), argnums=(0, 1, 2),
      ref=lambda: (1.0, 2.0, 4.0), tol=1e-12))


def partial_inside(x):
    mul = functools.partial(math.pow, 2.0)
    return mul(x) + functools.partial(lambda a, b: a * b, x)(3.0)


add(G("r15_partial_of_builtin_and_lambda", partial_inside, (1.5,), ref=lambda: math.log(2.0) * 2.0 ** 1.5 + 3.0, tol=1e-12))


add(G("r15_abc_bound_method_of_subclass", LennardJones(1.0, 1.0).energy, (1.2,), ref=lambda: 4 * (-12 * 1.2 ** -13 + 6 * 1.2 ** -7), tol=1e-12))
add(pair("r15_abc_bound_method_vmap_grad", lambda: revsrc.vmap(revsrc.grad(Morse(1.0, 1.5, 1.2).energy))(np.array([1.0, 1.2, 1.6])),
         lambda: np.array([2 * 1.0 * (1 - math.exp(-1.5 * (r - 1.2))) * 1.5 * math.exp(-1.5 * (r - 1.2)) for r in (1.0, 1.2, 1.6)]), tol=1e-12))


class PlainParticle:
    def __init__(self, m, v):
        self.m, self.v = m, v

    def kinetic(self):
        return 0.5 * self.m * self.v * self.v


def plain_objects_energy(v):
    return sum(PlainParticle(1.0 + k, v * (k + 1)).kinetic() for k in range(3))


add(G("r15_plain_objects_in_generator", plain_objects_energy, (1.5,), ref=lambda: 1.5 * (1 + 2 * 4 + 3 * 9), tol=1e-12))


def sorted_by_abs_then_slice(xs):
    top = sorted(xs, key=abs, reverse=True)[:2]
    return top[0] * top[1] + min(xs, key=lambda v: v * v) ** 2


add(G("r15_sorted_key_abs_reverse_min_key", sorted_by_abs_then_slice, (np.array([0.3, -2.0, 1.5, 0.1]),),
      ref=lambda: np.array([0.0, 1.5, -2.0, 0.2]), tol=1e-12))


def any_all_generators(x):
    vals = [x * k for k in range(1, 4)]
    if all(v > 0 for v in vals) and not any(v > 10 for v in vals):
        return sum(vals)
    return -sum(vals)


add(G("r15_any_all_generator_tests", any_all_generators, (1.0,), ref=lambda: 6.0, tol=1e-12))
add(G("r15_any_all_generator_other_branch", any_all_generators, (-1.0,), ref=lambda: -6.0, tol=1e-12))


def dict_items_comprehension(p):
    weights = {"a": 1.0, "b": 2.0, "c": 3.0}
    return sum(weights[k] * v ** 2 for k, v in sorted(p.items()))


add(G("r15_dict_items_sorted_generator", dict_items_comprehension, ({"b": 1.0, "a": 2.0, "c": -1.0},),
      ref=lambda: {"a": 4.0, "b": 4.0, "c": -6.0}, tol=1e-12))
