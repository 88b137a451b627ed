"""User programs, corpus 5l: Python number semantics on the compiled engine (jit, vmap)."""
import math

import numpy as np

import revsrc
from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def neg_floordiv(n):
    return -n // 2 + (-n) % 3


add("jit_negative_floordiv_mod_int", neg_floordiv, (7,), t="jit")


def fneg_mod(x):
    return (-x) % 2.0 + (-x) // 2.0


add("jit_negative_float_mod", fneg_mod, (7.5,), t="jit")
add("vmap_negative_float_mod", fneg_mod, (np.array([7.5, 0.3, -1.25]),), t="vmap")


def bankers_round(x):
    return round(x) + round(-x) * 0.5


add("vmap_bankers_round", bankers_round, (np.array([2.5, 3.5, -2.5, 0.5]),), t="vmap")


def round_ndigits(x):
    return round(x, 2)


add("jit_round_ndigits", round_ndigits, (2.675,), t="jit")


def pow_mod(n):
    return pow(n, 5, 13)


add("jit_three_arg_pow", pow_mod, (7,), t="jit")


def cube_big(n):
    return (n * n * n) % 1000003


add("jit_int_beyond_int64_intermediate", cube_big, (3_000_000,), t="jit")


def hashlike(n):
    h = 7
    for i in range(n):
        h = (h * 1000003 + i) % (2 ** 61 - 1)
    return h


add("jit_hash_loop_big_ints", hashlike, (50,), t="jit")


def max_nan_first(x):
    return max(x, 1.0) + min(x, 1.0)


add("jit_max_min_nan_first", max_nan_first, (math.nan,), t="jit")


def max_nan_second(x):
    return max(1.0, x)


add("vmap_max_nan_second", max_nan_second, (np.array([math.nan, 2.0]),), t="vmap")


def truediv_int(n):
    return n / 2 + 7 / n


add("jit_int_true_division", truediv_int, (3,), t="jit")


def floor_big(x):
    return math.floor(x) % 7


add("jit_floor_of_huge_float", floor_big, (1e300,), t="jit")


def int_big(x):
    return int(x) % 1000


add("jit_int_of_1e20", int_big, (1e20,), t="jit")


def atan2_negzero(x):
    return math.atan2(x * 0.0 * -1.0, -1.0)


add("jit_atan2_negative_zero", atan2_negzero, (1.0,), t="jit")


def sqrt_negzero(x):
    return math.copysign(1.0, math.sqrt(-0.0 * x))


add("jit_sqrt_negative_zero_sign", sqrt_negzero, (1.0,), t="jit")


def abs_mod(n):
    return abs(n) % 1000


def _jit_abs_int_type():
    j = revsrc.jit(abs_mod)(-7)
    return (float(j), float(type(j) is int)), (7.0, 1.0)


# plain Python returns the int 7; revsrc.jit returns the float 7.0
add("jit_abs_of_int_returns_int", _jit_abs_int_type, t="custom")


def abs_in_loop(n):
    s = 0
    for i in range(3):
        s += abs(n - i)
    return s


def _vmap_big_int_output():
    n = -(2 ** 55 + 3)
    got = revsrc.vmap(abs_in_loop)(np.array([n]))[0]
    return (float(int(got) == abs_in_loop(n)),), (1.0,)


# ints beyond 2**53 run f in Python (documented), but the int result comes back in a
# float64 array: 108086391056891916 becomes 1.0808639105689192e+17
add("vmap_big_int_result_digits", _vmap_big_int_output, t="custom")


def grad_int_semantics(x, n):
    return x * (n // 3) + x * x * (n % 3) - x * (-n // 4)


add("grad_with_int_floor_semantics", grad_int_semantics, (1.5, -7))


def newton_int_iters(x, iters):
    y = x
    for _ in range(iters):
        y = y - (y * y - 2.0) / (2 * y)
    return y


add("vmap_in_axes_none_int", lambda: (revsrc.vmap(newton_int_iters, in_axes=(0, None))(np.array([1.0, 3.0]), 6),
                                        np.array([newton_int_iters(1.0, 6), newton_int_iters(3.0, 6)])),
    t="custom", tol=0.0)


def engine_branchy(x):
    if x != x:
        return 0.0
    if x == math.inf:
        return 1.0
    t = x
    n = 0
    while abs(t) > 1.0 and n < 2000:
        t = t / 3.0
        n += 1
    return t * n + (t + n)


add("vmap_branchy_specials", engine_branchy, (np.array([math.nan, math.inf, -math.inf, 0.0, 1e300, -5e-324]),),
    t="vmap")
add("grad_branchy_while", engine_branchy, (7.5,))
