"""Round 9, expressions whose grouping a source-to-source tool must keep when it prints
them back: right-nested subtraction and division, powers of powers, unary minus on
variables under powers with variable exponents, modulo chains, literals written with
underscores, hex and exponents, negative constants folded next to variables."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def right_sub(x, y, z):
    return x - (y - z) + x / (y / z) - x / (y * z)


CASES.append(G("r9_right_nested_sub_div", right_sub, (1.5, 0.7, 0.3), argnums=(0, 1, 2), ref="jax"))


def pow_pow(x, y):
    return x ** (y ** 2) + (x ** y) ** 2


CASES.append(G("r9_power_of_power_grouping", pow_pow, (1.3, 0.8), argnums=(0, 1), ref="jax"))


def neg_var_pow(x, n):
    return -x ** n + (-x) ** n


CASES.append(G("r9_unary_minus_variable_int_exponent", neg_var_pow, (1.2, 3), ref=lambda: -3 * 1.44 - 3 * 1.44, tol=1e-12))
CASES.append(G("r9_unary_minus_variable_int_exponent_even", neg_var_pow, (1.2, 2), ref=lambda: -2.4 + 2.4, tol=1e-12))


def neg_const_var_exp(x, n):
    return (-2) ** n * x + (-0.5) ** n * x


CASES.append(G("r9_negative_int_literal_base_var_exponent", neg_const_var_exp, (1.0, 3), ref=lambda: -8 - 0.125, tol=1e-12))


def neg_one_float_base(x, k):
    return (-1.0) ** k * x


CASES.append(G("r9_minus_one_float_base_int_argument", neg_one_float_base, (1.0, 2), ref=lambda: 1.0, tol=1e-12))


def neg_one_const_in_loop(x):
    return sum((-1) ** (k % 2) * x for k in range(3))


CASES.append(G("r9_minus_one_pow_of_modulo", neg_one_const_in_loop, (1.0,), ref=lambda: 1.0 - 1.0 + 1.0, tol=1e-12))


def sub_of_neg(x):
    return 2 - -x + x * -1 - (-x) * (-x)


CASES.append(G("r9_double_negations", sub_of_neg, (0.6,), ref=lambda: 1 - 1 - 1.2, tol=1e-12))


def mod_chain(x):
    return (x % 1.0) * 3 + x % (0.4 % 0.3)


CASES.append(G("r9_float_modulo_chain", mod_chain, (2.35,), ref=lambda: 4.0, tol=1e-12))


def literals(x):
    return 1_000.5 * x + 0x10 * x ** 2 + 1e0 * x ** 3 + 0o7 * x


CASES.append(G("r9_underscore_hex_octal_literals", literals, (0.5,), ref=lambda: 1000.5 + 32 * 0.5 + 0.75 + 7, tol=1e-12))


def sub_div_mix(a, b):
    return a - b / a - (a - b) / (b - a * b)


CASES.append(G("r9_sub_div_mix_two_args", sub_div_mix, (1.7, 0.4), argnums=(0, 1), ref="jax"))


def exp_neg_sq(x):
    return math.exp(-x ** 2 / 2) - math.exp((-x) ** 2 / -2)


CASES.append(G("r9_exp_neg_square_two_spellings", exp_neg_sq, (0.9,), ref=lambda: 0.0, tol=1e-12))


def int_pow_of_neg_var(x):
    y = -x
    return y ** 2 + y ** 3


CASES.append(G("r9_negated_variable_powers", int_pow_of_neg_var, (0.7,), ref=lambda: 2 * 0.7 - 3 * 0.49, tol=1e-12))


def np_neg_power(x):
    return np.sum((-x) ** 2 - (-1.0) ** np.arange(3) * x)


CASES.append(G("r9_np_minus_one_power_arange", np_neg_power, (np.array([0.5, 1.0, 2.0]),), ref=lambda: np.array([1.0 - 1, 2.0 + 1, 4.0 - 1])))


def cheb_T_cos(x):
    # T_n(x) = cos(n acos x); sum_n (-1)^n T_n(x) / n^2
    t = math.acos(x)
    return sum((-1) ** n * math.cos(n * t) / n ** 2 for n in range(1, 8))


CASES.append(G("r9_chebyshev_alternating_cos", cheb_T_cos, (0.3,), ref="jax"))


def sign_flip_var(x):
    s = -1
    total = 0.0
    for k in range(4):
        total += s ** k * x ** (k + 1)
    return total


CASES.append(G("r9_minus_one_held_in_variable_pow", sign_flip_var, (0.5,), ref=lambda: 1 - 2 * 0.5 + 3 * 0.25 - 4 * 0.125, tol=1e-12))
