"""Round 12, part q: revsrc.jit and revsrc.vmap keep Python's semantics -- ints vs floats,
floor division and modulo signs, big ints, complex results of float powers, the errors
Python raises (ZeroDivisionError, ValueError, OverflowError)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair  # noqa: F401

CASES = []
add = CASES.append


def same(f, *args):
    """(type name, value) of f(*args), or the exception's type name."""
    try:
        v = f(*args)
    except Exception as err:  # noqa: BLE001
        return type(err).__name__
    return (type(v).__name__, repr(v))


def J(name, f, *args):
    add(pair(name, lambda: [same(revsrc.jit(f), *args)], lambda: [same(f, *args)], tol=0.0))


def floordiv_mod(a):
    return a // 2 + a % 3


J("r12_jit_floordiv_mod_int", floordiv_mod, -7)
J("r12_jit_floordiv_mod_float", floordiv_mod, -7.5)
J("r12_jit_floordiv_mod_bool", floordiv_mod, True)


def mod2(x, y):
    return x % y


J("r12_jit_mod_negative_divisor", mod2, 7.5, -2.0)
J("r12_jit_mod_inf_divisor", mod2, 5.0, math.inf)


def powab(a, b):
    return a ** b


J("r12_jit_int_pow_big", powab, 3, 40)
J("r12_jit_int_pow_negative_exp", powab, 2, -2)
J("r12_jit_float_pow_complex_result", powab, -8.0, 1 / 3)
J("r12_jit_zero_pow_negative_raises", powab, 0.0, -1.0)
J("r12_jit_pow_overflow_raises", powab, 2.0, 1e6)


def sqrt_(x):
    return math.sqrt(x)


J("r12_jit_sqrt_domain_error", sqrt_, -1.0)


def recip(x):
    return 1.0 / x


J("r12_jit_division_by_zero", recip, 0.0)


def round_mix(x):
    return round(x) + round(x, 1) + int(x) + abs(-x)


J("r12_jit_round_half_even", round_mix, 2.5)
J("r12_jit_round_int_arg", round_mix, 7)


def maxmin(x):
    return max(x, 0) + min(x, 1)


J("r12_jit_max_min_int_float_mix", maxmin, 2)
J("r12_jit_max_min_negative_zero", maxmin, -0.0)


def neg_floordiv(a):
    return -a // 2 + int(a / 3)


J("r12_jit_negative_floordiv_trunc", neg_floordiv, 7)


def bools(x):
    return (x > 0) + (x > 1) * 2


J("r12_jit_bool_arithmetic", bools, 2.0)


def fact(n):
    return math.factorial(n) / 2


J("r12_jit_factorial_true_division", fact, 25)


def branchy(x):
    return x ** 2 if x > 0 else -x


add(pair("r12_vmap_int_array_dtype", lambda: str(revsrc.vmap(branchy)(np.array([1, -2, 3])).dtype), lambda: "int64", tol=0.0))
add(pair("r12_vmap_int_array_values", lambda: revsrc.vmap(branchy)(np.array([1, -2, 3])), lambda: np.array([1, 2, 9]), tol=0.0))
add(pair("r12_vmap_division_by_zero_raises", lambda: [same(revsrc.vmap(recip), np.array([1.0, 0.0]))],
         lambda: ["ZeroDivisionError"], tol=0.0))


def nan_literal(x):
    return math.sqrt(x) if x >= 0 else float("nan")


add(pair("r12_jit_float_nan_string", lambda: math.isnan(revsrc.jit(nan_literal)(-1.0)), lambda: True, tol=0.0))


def fmod_(x):
    return math.fmod(x, 3.0)


J("r12_jit_math_fmod", fmod_, -7.5)


def shift(a, b):
    return a << b


J("r12_jit_int_shift", shift, 3, 70)


def nearest_integer_sq(x):
    best = float("inf")
    for k in range(3):
        v = (x - k) ** 2
        if v < best:
            best = v
    return best


add(pair("r12_jit_float_inf_string_running_min", lambda: revsrc.jit(nearest_integer_sq)(1.3), lambda: nearest_integer_sq(1.3), tol=0.0))
add(pair("r12_vmap_float_inf_string_running_min", lambda: revsrc.vmap(nearest_integer_sq)(np.array([1.3, 0.2])),
         lambda: np.array([nearest_integer_sq(1.3), nearest_integer_sq(0.2)]), tol=0.0))
add(pair("r12_jit_grad_float_inf_string_running_min", lambda: revsrc.jit(revsrc.grad(nearest_integer_sq))(1.3), lambda: 2 * 0.3, tol=1e-15))
