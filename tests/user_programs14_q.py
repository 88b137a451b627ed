"""Round 14, part q: revsrc.jit and revsrc.vmap on Python-number semantics -- big ints,
% and // of negative numbers, round's ties to even, int(), a negative base to a fractional
power (complex in Python), int ** negative int, bools in arithmetic, min of mixed types;
each against the plain call's value and type."""
import math  # noqa: F401

import numpy as np

import revsrc
from user_programs7_harness import pair

CASES = []
add = CASES.append


def fact(x, n):
    p = 1
    for i in range(1, n + 1):
        p *= i
    return p * x


def mod_(a, b):
    return a % b


def fdiv(a, b):
    return a // b


def rnd(a):
    return round(a)


def rnd1(a):
    return round(a, 1)


def trunc(a):
    return int(a) * 1.0


def cbrt_pow(a):
    return a ** (1.0 / 3.0)


def ipow(a, b):
    return a ** b


def boolarith(a, b):
    return (a > 0) + (b > 0) + a


def minmix(a, b):
    return min(a, b)


def bigmul(x):
    return x * 3 ** 40


def bigint_mod(n):
    return (n * n) % 1000003


TESTS = [
    ("fact25_past_int64", fact, (1.5, 25)), ("fact20", fact, (1.5, 20)),
    ("mod_neg_float", mod_, (-7.5, 2.0)), ("mod_neg_int", mod_, (-7, 2)), ("mod_neg_divisor", mod_, (7.5, -2.0)),
    ("floordiv_neg_float", fdiv, (-7.5, 2.0)), ("floordiv_neg_int", fdiv, (-7, 2)), ("floordiv_neg_divisor", fdiv, (7, -2)),
    ("round_half_even", rnd, (2.5,)), ("round_neg_half", rnd, (-0.5,)), ("round_ndigits", rnd1, (0.25,)), ("round_3_5", rnd, (3.5,)),
    ("int_truncates", trunc, (-2.7,)), ("neg_base_frac_power_complex", cbrt_pow, (-8.0,)), ("int_pow_neg_int", ipow, (2, -1)),
    ("zero_pow_zero", ipow, (0.0, 0)), ("neg_int_pow", ipow, (-2, 3)), ("bool_arith", boolarith, (1.0, -1.0)),
    ("min_int_float_tie", minmix, (2, 2.0)), ("min_float_int_tie", minmix, (2.0, 2)), ("big_int_constant", bigmul, (1.0,)),
    ("big_int_mod", bigint_mod, (3 ** 30,)),
]


def _same(f, args):
    def got():
        r = revsrc.jit(f)(*args)
        return repr(r) + type(r).__name__

    def ref():
        r = f(*args)
        return repr(r) + type(r).__name__
    return got, ref


for _nm, _f, _args in TESTS:
    _g, _r = _same(_f, _args)
    add(pair("r14_q_jit_" + _nm, _g, _r, tol=0.0))

for _nm, _f, _args in TESTS:
    if _nm in ("neg_base_frac_power_complex", "int_pow_neg_int"):
        continue
    add(pair("r14_q_vmap_" + _nm, (lambda f=_f, a=_args: revsrc.vmap(f)(*[np.array([v, v]) for v in a])),
             (lambda f=_f, a=_args: np.array([f(*a), f(*a)])), tol=0.0))
