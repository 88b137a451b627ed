"""Round 9, everyday statements around the numerics: assert checks, a print for
debugging, f-strings built from values, isinstance dispatch, dict.get defaults,
math.fsum and math.prod, operator-module functions, zip(*pairs), np.vectorize,
an lru_cache-d helper, Enum values in arithmetic, NamedTuple._asdict, the statistics
module."""
import enum
import functools
import math
import operator
import statistics
from typing import NamedTuple

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def with_assert(x):
    assert x > 0, "x must be positive"
    y = math.log(x)
    assert math.isfinite(y)
    return y * y


CASES.append(G("r9_assert_statements", with_assert, (1.7,), ref=lambda: 2 * math.log(1.7) / 1.7, tol=1e-12))


def with_print(x):
    y = x ** 3
    print("debug y =", y)
    return y


CASES.append(G("r9_debug_print_inside", with_print, (0.5,), ref=lambda: 0.75, tol=1e-12))


def with_fstring(x):
    label = f"x={x:.3f}"
    return x * x if label else 0.0


CASES.append(G("r9_fstring_of_value", with_fstring, (0.5,), ref=lambda: 1.0, tol=1e-12))


def dispatch(v):
    if isinstance(v, np.ndarray):
        return np.sum(v ** 2)
    return v ** 2


CASES.append(G("r9_isinstance_dispatch_array", dispatch, (np.array([1.0, 2.0]),), ref=lambda: np.array([2.0, 4.0])))
CASES.append(G("r9_isinstance_dispatch_float", dispatch, (1.5,), ref=lambda: 3.0, tol=1e-12))


def dict_get(params):
    scale = params.get("scale", 1.0)
    shift = params.get("shift", 0.5)
    return scale * params["w"] ** 2 + shift


CASES.append(pair("r9_dict_get_default", lambda: revsrc.grad(dict_get)({"w": 2.0, "scale": 3.0}),
                  lambda: {"w": 12.0, "scale": 4.0}))


def fsum_prod(x):
    return math.fsum([x, x * x, 1e-16]) + math.prod([x, 2.0, x + 1])


CASES.append(G("r9_math_fsum_prod", fsum_prod, (0.7,), ref=lambda: 1 + 1.4 + 2 * (2 * 0.7 + 1), tol=1e-12))


def operator_funcs(a, b):
    return sum(map(operator.mul, a, b)) + operator.truediv(a[0], b[1])


CASES.append(G("r9_operator_mul_map", operator_funcs, (np.array([1.0, 2.0]), np.array([3.0, 4.0])), argnums=(0, 1),
               ref=lambda: (np.array([3.0 + 0.25, 4.0]), np.array([1.0, 2.0 - 1.0 / 16]))))


def zip_star(pairs_arr):
    pairs = [(pairs_arr[i, 0], pairs_arr[i, 1]) for i in range(3)]
    xs, ys = zip(*pairs)
    return sum(x * y for x, y in zip(xs, ys)) + max(xs)


CASES.append(G("r9_zip_star_unzip", zip_star, (np.array([[1.0, 2.0], [3.0, 0.5], [2.0, 2.0]]),),
               ref=lambda: np.array([[2.0, 1.0], [0.5 + 1.0, 3.0], [2.0, 2.0]])))


def vec_fn(x):
    f = np.vectorize(lambda t: math.sin(t) * t)
    return np.sum(f(x))


CASES.append(G("r9_np_vectorize_lambda", vec_fn, (np.array([0.3, 1.1]),), ref=lambda: np.cos(np.array([0.3, 1.1])) * np.array([0.3, 1.1]) + np.sin(np.array([0.3, 1.1]))))


@functools.lru_cache(maxsize=None)
def coeff_table(n):
    return tuple(1.0 / math.factorial(k) for k in range(n))


def cached_table_user(x):
    c = coeff_table(12)
    return sum(ck * x ** k for k, ck in enumerate(c))


CASES.append(G("r9_lru_cache_int_helper", cached_table_user, (0.6,), ref=lambda: sum(0.6 ** (k - 1) / math.factorial(k - 1) for k in range(1, 12)), tol=1e-12))


class Weight(enum.Enum):
    LIGHT = 0.5
    HEAVY = 2.0


def enum_value(x, w=Weight.HEAVY):
    return w.value * x ** 2


CASES.append(G("r9_enum_value_arithmetic", enum_value, (1.5,), ref=lambda: 6.0, tol=1e-12))


class Pt(NamedTuple):
    x: float
    y: float


def asdict_user(p):
    d = p._asdict()
    return d["x"] * d["y"] ** 2


CASES.append(pair("r9_namedtuple_asdict", lambda: revsrc.grad(asdict_user)(Pt(2.0, 3.0)), lambda: Pt(9.0, 12.0)))


def stats_mean(x):
    return statistics.mean([x, 2 * x, 3.0])


CASES.append(G("r9_statistics_mean", stats_mean, (1.0,), ref=lambda: 1.0, tol=1e-12))


def sorted_reverse_top(x):
    vals = sorted([x, x * x, 2.0 - x], reverse=True)
    return vals[0] - vals[-1]


CASES.append(G("r9_sorted_reverse_list", sorted_reverse_top, (0.4,), ref=lambda: -1.0 - 0.8, tol=1e-12))


def abs_complex_mod(z):
    return abs(z) ** 2


CASES.append(G("r9_complex_argument_abs_squared", abs_complex_mod, (1.0 + 2.0j,), ref=lambda: 2.0 - 4.0j, tol=1e-12))
