"""Round 13, part q: ways of reaching a function -- conditional callees, local tuples and
dicts of functions, getattr by constant, static/class methods, immediately-invoked lambdas,
factories called in one expression, decorators, lru_cache, map, apply_along_axis, itertools."""
import functools
import itertools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def sq(t):
    return t * t


def cube(t):
    return t * t * t


def cond_callee(x, flag):
    return (sq if flag else cube)(x)


add(G("r13_q_conditional_callee_true", cond_callee, (1.5, True), ref=lambda: 3.0, tol=0.0))
add(G("r13_q_conditional_callee_false", cond_callee, (1.5, False), ref=lambda: 6.75, tol=0.0))


def cond_callee_named(x, flag):
    f = sq if flag else cube
    return f(x)


add(G("r13_q_conditional_callee_named", cond_callee_named, (1.5, False), ref=lambda: 6.75, tol=0.0))


def local_tuple_fns(x):
    fs = (math.sin, math.cos, sq)
    return sum(f(x) for f in fs)


add(G("r13_q_local_tuple_of_functions", local_tuple_fns, (0.4,), ref=lambda: math.cos(0.4) - math.sin(0.4) + 0.8, tol=1e-15))


def local_dict_fns(x, kind):
    table = {"s": math.sin, "q": sq}
    return table[kind](x) * 2


add(G("r13_q_local_dict_of_functions", local_dict_fns, (0.4, "s"), ref=lambda: 2 * math.cos(0.4), tol=1e-15))


class Physics:
    g = 9.81

    @staticmethod
    def drag(v):
        return 0.5 * v * abs(v)

    @classmethod
    def weight(cls, m):
        return m * cls.g

    def force(self, m, v):
        return self.weight(m) - self.drag(v)


PH = Physics()
add(G("r13_q_static_method_via_class", lambda v: Physics.drag(v) * 2, (-1.5,), ref=lambda: 3.0, tol=0.0))
add(G("r13_q_classmethod_via_class", lambda m: Physics.weight(m) ** 2, (2.0,), ref=lambda: 2 * 2.0 * 9.81 ** 2, tol=1e-14))
add(G("r13_q_method_using_both", lambda m, v: PH.force(m, v), (2.0, 1.5), argnums=(0, 1), ref=lambda: (9.81, -1.5), tol=1e-15))


def getattr_const(x):
    return getattr(PH, "drag")(x) + getattr(math, "tanh")(x)


def getattr_const_math(x):
    return getattr(math, "tanh")(x)


def getattr_const_object(x):
    return getattr(PH, "force")(2.0, x)


add(G("r13_q_getattr_constant_math", getattr_const_math, (0.8,), ref=lambda: 1 - math.tanh(0.8) ** 2, tol=1e-15))
add(G("r13_q_getattr_constant_object", getattr_const_object, (0.8,), ref=lambda: -0.8, tol=1e-15))
add(G("r13_q_getattr_constant_name", getattr_const, (0.8,), ref=lambda: 0.8 + 1 - math.tanh(0.8) ** 2, tol=1e-15))
add(G("r13_q_iife_lambda", lambda x: (lambda t: t * t + 1)(x) * x, (1.2,), ref=lambda: 3 * 1.44 + 1, tol=1e-14))


def make_pow(k):
    def p(t):
        return t ** k
    return p


def factory_in_expression(x):
    return make_pow(3)(x) + make_pow(2)(x)


add(G("r13_q_factory_called_in_expression", factory_in_expression, (1.1,), ref=lambda: 3 * 1.21 + 2.2, tol=1e-14))


def factory_named(x):
    p3 = make_pow(3)
    return p3(x)


add(G("r13_q_factory_named_then_called", factory_named, (1.1,), ref=lambda: 3 * 1.21, tol=1e-14))


def twice(fn):
    @functools.wraps(fn)
    def wrapper(t):
        return 2 * fn(t)
    return wrapper


@twice
def decorated(t):
    return math.sin(t)


add(G("r13_q_decorated_helper", lambda x: decorated(x) * x, (0.6,), ref=lambda: 2 * math.sin(0.6) + 2 * 0.6 * math.cos(0.6), tol=1e-15))


@functools.lru_cache(maxsize=None)
def coeff(k):
    return 1.0 / math.factorial(k)


def exp_series(x):
    return sum(coeff(k) * x ** k for k in range(12))


add(G("r13_q_lru_cache_on_ints", exp_series, (0.5,), ref=lambda: sum(1.0 / math.factorial(k) * k * 0.5 ** (k - 1) for k in range(1, 12)), tol=1e-14))
add(G("r13_q_map_inline", lambda xs: sum(map(math.sin, xs)), ([0.1, 0.5, 1.0],), ref=lambda: [math.cos(0.1), math.cos(0.5), math.cos(1.0)], tol=1e-15))
add(G("r13_q_apply_along_axis", lambda A: np.sum(np.apply_along_axis(lambda r: r[0] * r[1], 1, A)), (np.array([[1.0, 2.0], [3.0, 4.0]]),),
      ref=lambda: np.array([[2.0, 1.0], [4.0, 3.0]]), tol=0.0))
add(G("r13_q_itertools_accumulate", lambda xs: sum(itertools.accumulate(xs, lambda a, b: a * b)), ([1.5, 2.0, 0.5],),
      ref=lambda: [1 + 2 + 1, 1.5 + 0.75, 3.0], tol=1e-14))
add(G("r13_q_itertools_pairwise", lambda xs: sum((b - a) ** 2 for a, b in itertools.pairwise(xs)), ([1.0, 3.0, 2.0],),
      ref=lambda: [-4.0, 6.0, -2.0], tol=0.0))
add(G("r13_q_reversed_enumerate", lambda xs: sum(i * x for i, x in enumerate(reversed(xs))), ([1.0, 3.0, 2.0],),
      ref=lambda: [2.0, 1.0, 0.0], tol=0.0))


def backwards_range(x):
    y = np.zeros_like(x)
    acc = 0.0
    for i in range(len(x) - 1, -1, -1):
        acc = 0.5 * acc + x[i]
        y[i] = acc
    return np.sum(y ** 2)


add(G("r13_q_backwards_range_scan", backwards_range, (np.array([1.0, -2.0, 0.5, 3.0]),), ref="fd"))


def asserts_and_chains(x):
    assert x > 0, f"need positive x, got {x:.3f}"
    if 0 < x < 1:
        return math.log(x)
    return math.isclose(x, 2.0) * 0.0 + x


add(G("r13_q_assert_fstring_chain_cmp", asserts_and_chains, (0.5,), ref=lambda: 2.0, tol=0.0))
add(G("r13_q_assert_fstring_chain_cmp_else", asserts_and_chains, (1.5,), ref=lambda: 1.0, tol=0.0))


def zip_star_pairs(pairs):
    xs, ys = zip(*pairs)
    return sum(x * y for x, y in zip(xs, ys))


add(G("r13_q_zip_star", zip_star_pairs, ([(1.0, 2.0), (3.0, -1.0)],), ref=lambda: [(2.0, 1.0), (-1.0, 3.0)], tol=0.0))


def asserts_fstring_only(x):
    assert x > 0, f"need positive x, got {x:.3f}"
    label = f"x={x:.2f}"
    if 0 < x < 1 and len(label) > 2:
        return math.log(x)
    return x * x


add(G("r13_q_assert_fstring_only", asserts_fstring_only, (0.5,), ref=lambda: 2.0, tol=0.0))
add(G("r13_q_assert_fstring_only_else", asserts_fstring_only, (1.5,), ref=lambda: 3.0, tol=0.0))
