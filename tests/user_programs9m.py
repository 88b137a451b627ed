"""Round 9, operators and small-number idioms that source transformation must print
back exactly: unary minus and powers (-x**2, (-x)**2, 2**-x, (-2.0)**n), literals
under powers, floor division and modulo on floats, divmod, round, math.floor inside,
operator chains, augmented assignment on list items and array slices, conditional
expressions, int/float mixes, numbers written in scientific notation."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def neg_square(x):
    return -x ** 2 + (-x) ** 2 * 3.0 - (-x) ** 3


CASES.append(G("r9_unary_minus_power_precedence", neg_square, (1.3,), ref=lambda: -2 * 1.3 + 6 * 1.3 + 3 * 1.3 ** 2, tol=1e-12))


def pow_neg_exponent(x):
    return 2 ** -x + x ** -2 + 10.0 ** (-x / 2)


CASES.append(G("r9_power_with_negative_exponents", pow_neg_exponent, (0.7,), ref="jax"))


def neg_base_int_exp(x):
    total = 0.0
    for n in range(4):
        total += (-2.0) ** n * x ** n + (-0.5) ** n
    return total


CASES.append(G("r9_negative_float_base_loop", neg_base_int_exp, (0.3,), ref="jax"))


def alternating_literal(x):
    return (-1) ** 3 * x + (-1.0) ** 2 * x * x


CASES.append(G("r9_minus_one_literal_powers_constant_exp", alternating_literal, (0.8,), ref=lambda: -1 + 2 * 0.8, tol=1e-12))


def alternating_sign_var(x):
    s = 0.0
    sign = 1.0
    for n in range(1, 6):
        s += sign * x ** n / n
        sign = -sign
    return s


CASES.append(G("r9_alternating_sign_variable", alternating_sign_var, (0.4,), ref="jax"))


def minus_one_pow_int_arg(x, n):
    return (-1) ** n * x


CASES.append(G("r9_minus_one_pow_int_argument", minus_one_pow_int_arg, (0.5, 4), ref=lambda: 1.0, tol=1e-12))


def leibniz_pi(x):
    return 4 * sum((-1) ** k / (2 * k + 1) * x ** (2 * k + 1) for k in range(40))


CASES.append(G("r9_leibniz_atan_series", leibniz_pi, (0.5,), ref=lambda: 4 / (1 + 0.25), tol=1e-10))


def cos_series(x):
    return sum((-1) ** k * x ** (2 * k) / math.factorial(2 * k) for k in range(15))


CASES.append(G("r9_cos_taylor_series", cos_series, (0.9,), ref=lambda: -math.sin(0.9), tol=1e-10))


def floor_div_mod(x):
    k = x // 0.5
    r = x % 0.5
    return k * 1.0 + r ** 2 + math.floor(x * 3)


CASES.append(G("r9_float_floordiv_and_mod", floor_div_mod, (1.3,), ref=lambda: 2 * (1.3 % 0.5), tol=1e-12))


def divmod_phase(t):
    turns, frac = divmod(t, 2 * math.pi)
    return math.sin(frac) + turns


CASES.append(G("r9_divmod_phase", divmod_phase, (7.0,), ref=lambda: math.cos(7.0 - 2 * math.pi), tol=1e-12))


def round_quant(x):
    q = round(x * 4) / 4
    return x * x + q


CASES.append(G("r9_round_quantize", round_quant, (1.37,), ref=lambda: 2 * 1.37, tol=1e-12))


def sci_notation(x):
    return 1e-3 * x ** 2 + 2.5E2 * x + 1.0e+1


CASES.append(G("r9_scientific_notation_literals", sci_notation, (0.4,), ref=lambda: 2e-3 * 0.4 + 250.0, tol=1e-12))


def chain_ops(x):
    return x / 2 / 4 * 3 - x - -x + +x


CASES.append(G("r9_operator_chain_left_assoc", chain_ops, (0.9,), ref=lambda: 3 / 8 + 1, tol=1e-12))


def pow_right_assoc(x):
    return 2 ** x ** 2


CASES.append(G("r9_power_right_associative", pow_right_assoc, (0.8,), ref=lambda: math.log(2) * 2 ** 0.64 * 1.6, tol=1e-12))


def list_item_aug(x):
    acc = [0.0, 0.0, 0.0]
    for i in range(3):
        acc[i] += x * (i + 1)
        acc[i] *= x
    acc[0] -= acc[2] / 2
    return acc[0] + acc[1]


CASES.append(G("r9_list_item_augmented_ops", list_item_aug, (0.6,), ref="ag"))


def slice_aug(x):
    y = np.ones(6)
    y[::2] *= x
    y[1:4] += x ** 2
    y[-1] /= x
    return np.sum(y * np.arange(1.0, 7.0))


CASES.append(G("r9_array_slice_augmented_ops", slice_aug, (1.5,), ref="fd"))


def int_float_mix(x):
    n = 3
    m = n // 2
    return x * n / 2 + x ** m + (n % 2) * x


CASES.append(G("r9_int_arithmetic_mix", int_float_mix, (0.5,), ref=lambda: 1.5 + 1 + 1, tol=1e-12))


def true_div_ints(x):
    return x * (7 / 2) + x * (7 // 2)


CASES.append(G("r9_true_div_of_int_literals", true_div_ints, (1.0,), ref=lambda: 6.5, tol=1e-12))


def abs_neg(x):
    return abs(-x) + -abs(x - 2)


CASES.append(G("r9_abs_of_negations", abs_neg, (0.5,), ref=lambda: 1.0 + 1.0, tol=1e-12))


def not_and_or(x):
    flag = not (x > 1) and (x > 0 or x < -5)
    return x * 2 if flag else x ** 3


CASES.append(G("r9_boolean_operators_branch", not_and_or, (0.5,), ref=lambda: 2.0, tol=1e-12))


def or_default(x, scale=None):
    s = scale or 2.0
    return s * x * x


CASES.append(G("r9_or_default_none", or_default, (0.5,), ref=lambda: 2.0, tol=1e-12))


def min_max_builtin(x):
    return max(x, 0.1 * x) + min(x * x, 1.0, 2.0 - x) + max([x, -x, 0.3])


CASES.append(G("r9_min_max_mixed_arity", min_max_builtin, (0.8,), ref=lambda: 1.0 + 1.6 + 1.0, tol=1e-12))


def sum_start(x):
    return sum([x, x * x, 3.0], 10.0) + sum((x for _ in range(3)), start=1.0)


CASES.append(G("r9_sum_with_start", sum_start, (0.5,), ref=lambda: 1 + 1.0 + 3, tol=1e-12))


def float_conv(x):
    a = float(x) * 2
    b = np.float64(x) ** 2
    return a + b + int(x * 10) * 1.0


CASES.append(G("r9_float_and_np_float64_conversions", float_conv, (0.55,), ref=lambda: 2 + 1.1, tol=1e-12))


def pow_half_neg(x):
    return (x - 1.0) ** 0.5 if x > 1.0 else (1.0 - x) ** 1.5


CASES.append(G("r9_fractional_power_branch", pow_half_neg, (0.3,), ref=lambda: -1.5 * 0.7 ** 0.5, tol=1e-12))


def math_pow_neg(x):
    return math.pow(-2.0, 3) * x + math.pow(x, -1.5)


CASES.append(G("r9_math_pow_negative_base_constant", math_pow_neg, (1.2,), ref=lambda: -8 - 1.5 * 1.2 ** -2.5, tol=1e-12))


def np_power_neg_base(x):
    n = np.arange(5)
    return np.sum(np.power(-1.0, n) * x ** n)


CASES.append(G("r9_np_power_minus_one_over_int_array", np_power_neg_base, (0.3,), ref=lambda: -1 + 0.6 - 3 * 0.09 + 4 * 0.027, tol=1e-12))


def neg_literal_times(x):
    c = -1
    return c ** 2 * x + (-3) ** 2 * x + (-x) ** 2


CASES.append(G("r9_negative_literal_squares", neg_literal_times, (0.5,), ref=lambda: 1 + 9 + 1.0, tol=1e-12))


def neg_exponent_literal(x):
    return x ** -1 + x ** (-2) + (x + 1) ** -0.5


CASES.append(G("r9_negative_literal_exponents", neg_exponent_literal, (0.8,), ref=lambda: -1 / 0.64 - 2 / 0.8 ** 3 - 0.5 * 1.8 ** -1.5, tol=1e-12))
