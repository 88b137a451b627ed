"""Round 10, Python styles on new domains: generators and generator expressions,
itertools (accumulate, pairwise, product, islice, starmap), enumerate/zip/reversed,
recursion on ints, while/else and for/else, try/except around domain errors,
dataclass and NamedTuple states, Enum switches, closures and factories, decorators,
lambdas in dicts, global tables, class hierarchies with properties and staticmethods,
functools.reduce and partial, as Python programmers write them."""
import dataclasses
import enum
import functools
import itertools
import math
import operator
from typing import NamedTuple

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1005)
SIG = rng.normal(size=10)


def ema_gen(x, alpha):
    s = x[0]
    for v in x:
        s = alpha * v + (1 - alpha) * s
        yield s


def ema_sum(x, alpha):
    return sum(v * v for v in ema_gen(x, alpha))


CASES.append(G("r10_generator_ema", ema_sum, (SIG, 0.3), argnums=(0, 1), ref="ag"))


def accumulate_returns(r):
    wealth = list(itertools.accumulate(r, lambda w, x: w * (1 + x), initial=1.0))
    return wealth[-1] - max(wealth)


CASES.append(G("r10_accumulate_wealth_drawdown", accumulate_returns, (0.05 * SIG,), ref="ag"))


def pairwise_path_length(xs, ys):
    return sum(math.hypot(x2 - x1, y2 - y1)
               for (x1, y1), (x2, y2) in itertools.pairwise(zip(xs, ys)))


CASES.append(G("r10_pairwise_polyline_length", pairwise_path_length, (SIG[:5], SIG[5:]), argnums=(0, 1), ref="ag"))


def product_grid_energy(w):
    pts = np.linspace(-1, 1, 4)
    return sum(math.exp(-(w[0] * a * a + w[1] * b * b)) for a, b in itertools.product(pts, pts))


CASES.append(G("r10_itertools_product_grid", product_grid_energy, (np.array([0.7, 1.3]),), ref="jax"))


def starmap_rates(k, T):
    Ea = [40e3, 55e3, 70e3]
    terms = itertools.starmap(lambda e, t: math.exp(-e / (8.314 * t)), zip(Ea, T))
    return k * sum(terms)


CASES.append(G("r10_starmap_arrhenius", starmap_rates, (2.0, [300.0, 320.0, 340.0]), argnums=(0, 1), ref="ag"))


def islice_series(x):
    def terms():
        n, t = 0, 1.0
        while True:
            yield t
            n += 1
            t = t * x / n
    return sum(itertools.islice(terms(), 15))


CASES.append(G("r10_islice_infinite_generator_exp", islice_series, (0.8,), ref=lambda: math.exp(0.8), tol=1e-9))


def reversed_horner(coefs, x):
    acc = 0.0
    for c in reversed(coefs):
        acc = acc * x + c
    return acc


CASES.append(G("r10_reversed_horner_coefs", reversed_horner, ([1.0, -2.0, 0.5, 0.25], 1.7), argnums=(0, 1), ref="ag"))


def enumerate_weighted(x):
    return sum(i * v ** 2 for i, v in enumerate(x, start=1))


CASES.append(G("r10_enumerate_start", enumerate_weighted, (SIG,), ref="jax"))


def binom_recursive(n, k, p):
    if k == 0:
        return (1 - p) ** n
    if n == 0:
        return 0.0
    return p * binom_recursive(n - 1, k - 1, p) + (1 - p) * binom_recursive(n - 1, k, p)


CASES.append(G("r10_recursive_binomial_pmf", binom_recursive, (6, 2, 0.3), argnums=2,
               ref=lambda: 15 * (2 * 0.3 * 0.7 ** 4 - 4 * 0.09 * 0.7 ** 3)))


def bisection_while_else(c):
    lo, hi = 0.0, 2.0
    it = 0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if mid ** 3 - c > 0:
            hi = mid
        else:
            lo = mid
        it += 1
    else:
        found = 0.5 * (lo + hi)
    return found * found


CASES.append(G("r10_while_else_bisection_cuberoot", bisection_while_else, (2.0,),
               ref=lambda: (2.0 / 3.0) * 2.0 ** (-1.0 / 3.0), tol=1e-5))


def for_else_first_positive(x, shift):
    for v in x:
        if v + shift > 0:
            first = v + shift
            break
    else:
        first = shift
    return first ** 2 + shift


CASES.append(G("r10_for_else_break", for_else_first_positive, (SIG, 0.1), argnums=(0, 1), ref="ag"))


def safe_log_likelihood(x, mu):
    tot = 0.0
    for v in x:
        try:
            tot += math.log(v - mu)
        except ValueError:
            tot -= 10.0
    return tot


CASES.append(G("r10_try_except_math_domain", safe_log_likelihood, (np.array([1.0, 2.0, 0.2, 3.0]), 0.5), argnums=(0, 1)))


class Kernel(enum.Enum):
    RBF = "rbf"
    LAPLACE = "laplace"
    RQ = "rq"


def kernel_value(kind, r, ell):
    if kind is Kernel.RBF:
        return math.exp(-0.5 * (r / ell) ** 2)
    elif kind is Kernel.LAPLACE:
        return math.exp(-abs(r) / ell)
    return (1 + r * r / (2 * ell * ell)) ** -1


def kernel_sum(ell, kinds):
    return sum(kernel_value(k, 0.7, ell) for k in kinds)


CASES.append(G("r10_enum_kernel_switch", kernel_sum, (1.3, (Kernel.RBF, Kernel.LAPLACE, Kernel.RQ)), ref="ag"))


def make_spring(k, rest):
    def energy(x):
        return 0.5 * k * (x - rest) ** 2
    return energy


SPRINGS = [make_spring(2.0, 1.0), make_spring(0.5, 3.0), make_spring(1.5, -1.0)]


def chain_energy(x):
    return sum(s(xi) for s, xi in zip(SPRINGS, x))


CASES.append(G("r10_closure_factory_table", chain_energy, (np.array([1.2, 2.0, 0.0]),),
               ref=lambda: np.array([2.0 * 0.2, 0.5 * -1.0, 1.5 * 1.0])))


def clamp_output(lo, hi):
    def deco(f):
        @functools.wraps(f)
        def wrapper(*a):
            return min(max(f(*a), lo), hi)
        return wrapper
    return deco


@clamp_output(-5.0, 5.0)
def cubic(x, a):
    return a * x ** 3 - x


CASES.append(G("r10_decorator_with_args_clamp", cubic, (1.1, 2.0), argnums=(0, 1), ref=lambda: (3 * 2.0 * 1.21 - 1, 1.331)))
CASES.append(G("r10_decorator_clamp_saturated", cubic, (3.0, 2.0), argnums=(0, 1), ref=lambda: (0.0, 0.0)))

ACTIVATIONS = {
    "softplus": lambda z: math.log1p(math.exp(z)),
    "swish": lambda z: z / (1 + math.exp(-z)),
    "tanh": math.tanh,
}


def act_mix(z, names):
    return sum(ACTIVATIONS[n](z) for n in names)


CASES.append(G("r10_lambdas_in_dict_activations", act_mix, (0.4, ("softplus", "swish", "tanh"))))

TABLE_T = np.array([250.0, 300.0, 350.0, 400.0])
TABLE_CP = np.array([1.003, 1.005, 1.008, 1.013])


def interp_cp(T):
    return np.interp(T, TABLE_T, TABLE_CP) * T


CASES.append(G("r10_global_table_interp", interp_cp, (320.0,), ref=lambda: 1.005 + 0.003 * 20 / 50 + 320.0 * 0.003 / 50))


class Shape:
    def __init__(self, scale):
        self.scale = scale

    def area(self):
        raise NotImplementedError

    @property
    def weighted(self):
        return self.scale * self.area()


class Circle(Shape):
    def __init__(self, r, scale=1.0):
        super().__init__(scale)
        self.r = r

    def area(self):
        return math.pi * self.r ** 2


class Square(Shape):
    def __init__(self, s, scale=1.0):
        super().__init__(scale)
        self.s = s

    @staticmethod
    def sq(v):
        return v * v

    def area(self):
        return self.sq(self.s)


def total_area(r, s):
    shapes = [Circle(r, 2.0), Square(s), Circle(s, 0.5)]
    return sum(sh.weighted for sh in shapes)


CASES.append(G("r10_class_hierarchy_property", total_area, (0.8, 1.5), argnums=(0, 1),
               ref=lambda: (4 * math.pi * 0.8, 3.0 + math.pi * 1.5)))


def reduce_product(x):
    return functools.reduce(operator.mul, x, 1.0)


CASES.append(G("r10_reduce_operator_mul", reduce_product, (np.array([1.5, -0.5, 2.0, 0.7]),), ref="jax"))


def weighted_norm(x, p):
    return sum(abs(v) ** p for v in x) ** (1.0 / p)


pnorm3 = functools.partial(weighted_norm, p=3.0)


def uses_partial(x):
    return pnorm3(x) + pnorm3(2 * x)


CASES.append(G("r10_module_level_partial_kw", uses_partial, (SIG[:4],), ref="ag"))


@dataclasses.dataclass
class Particle:
    x: np.ndarray
    v: np.ndarray
    m: float = dataclasses.field(default=1.0, metadata={"static": True})


def leapfrog_dataclass(p, dt=0.05, steps=20):
    for _ in range(steps):
        a = -p.x ** 3 / p.m
        v_half = p.v + 0.5 * dt * a
        x_new = p.x + dt * v_half
        a_new = -x_new ** 3 / p.m
        p = Particle(x_new, v_half + 0.5 * dt * a_new, p.m)
    return np.sum(p.x ** 2)


def leapfrog_ref():
    from user_programs7_harness import fd_checked
    x0, v0 = np.array([0.5, -1.0]), np.array([0.3, 0.2])
    gx = fd_checked(lambda x, v: leapfrog_dataclass(Particle(x, v, 2.0)), (x0, v0), argnums=(0, 1))
    return Particle(gx[0], gx[1], 2.0)


CASES.append(G("r10_dataclass_particle_leapfrog", leapfrog_dataclass,
               (Particle(np.array([0.5, -1.0]), np.array([0.3, 0.2]), 2.0),), ref=leapfrog_ref))


def dict_comprehension_params(p):
    scaled = {k: v * (i + 1) for i, (k, v) in enumerate(sorted(p.items()))}
    return sum(math.sin(v) for v in scaled.values())


CASES.append(G("r10_dict_comprehension_sorted_items", dict_comprehension_params, ({"b": 0.3, "a": 0.7, "c": -0.2},),
               ref=lambda: {"a": math.cos(0.7), "b": 2 * math.cos(0.6), "c": 3 * math.cos(-0.6)}))


def walrus_filter(x):
    return sum(y for v in x if (y := v * v - 0.5) > 0)


CASES.append(G("r10_walrus_in_comprehension", walrus_filter, (SIG,), ref=lambda: np.where(SIG ** 2 - 0.5 > 0, 2 * SIG, 0.0)))


def zip_strict_dot(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


CASES.append(G("r10_zip_strict", zip_strict_dot, (SIG[:5], SIG[5:]), ref=lambda: SIG[5:]))


class Pt(NamedTuple):
    s: float
    i: float


def nt_step(st, b):
    return Pt(st.s * b, st.i)


def namedtuple_rebound_once(b):
    st = Pt(1.0, 2.0)
    st = nt_step(st, b)
    return st.s * st.i


CASES.append(G("r10_namedtuple_rebound_no_loop", namedtuple_rebound_once, (1.5,), ref=lambda: 2.0))


# -- documented refusals met in applied code: each must be a coded refusal whose message
# names none of revsrc's internals (run_case checks) --

def _helper_with_global(x):
    global _COUNTER
    _COUNTER = x
    return x * 2


_COUNTER = 0.0


def calls_global_writer(x):
    return _helper_with_global(x) + 1.0


CASES.append(G("r10_refused_global_write_in_helper", calls_global_writer, (1.0,), ref=lambda: 2.0))


def set_literal_tags(x):
    tags = {1, 2, 3}
    return x * len(tags)


CASES.append(G("r10_refused_set_literal", set_literal_tags, (1.0,), ref=lambda: 3.0))


def match_mode(x, mode):
    match mode:
        case "a":
            return x * 2
        case _:
            return x


CASES.append(G("r10_refused_match_statement", match_mode, (1.0, "a"), ref=lambda: 2.0))


def del_temp(x):
    t = x * x
    y = t + 1.0
    del t
    return y


CASES.append(G("r10_refused_del_statement", del_temp, (1.5,), ref=lambda: 3.0))


def writes_log(x):
    with open("/dev/null", "w") as fh:
        fh.write(str(x))
    return x * x


CASES.append(G("r10_refused_file_write", writes_log, (1.5,), ref=lambda: 3.0))


def helper_generator(x):
    def gen():
        yield x
        yield x * x
    return sum(gen())


CASES.append(G("r10_refused_nested_generator", helper_generator, (1.5,), ref=lambda: 4.0))


def mutates_argument(x):
    x[0] = 0.0
    return np.sum(x ** 2)


CASES.append(G("r10_refused_argument_mutated", mutates_argument, (np.array([1.0, 2.0]),), ref=lambda: np.array([0.0, 4.0])))


def nonlocal_counter(x):
    n = 0.0

    def bump(v):
        nonlocal n
        n = n + v
    bump(x)
    bump(x * x)
    return n


CASES.append(G("r10_refused_nonlocal", nonlocal_counter, (1.5,), ref=lambda: 4.0))
