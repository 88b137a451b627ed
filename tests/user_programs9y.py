"""Round 9, special exponents and bases: x ** 0, x ** 1, 0 ** k, 1 ** x, 2 ** k with an
int k, float-literal exponents on negative bases (x ** 2.0, x ** 3.0), a float exponent
argument holding an integral value at a negative base, np.power and math.pow at the same
points, the square root of a square at a negative point."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def zero_one_exps(x):
    return x ** 0 + x ** 1 + x ** 0.0 + x ** 1.0 + 3.0 * x ** 2


CASES.append(G("r9_exponents_zero_and_one", zero_one_exps, (-1.3,), ref=lambda: 2.0 + 6 * -1.3, tol=1e-12))


def zero_base(x, k):
    return 0.0 ** k * x + 1.0 ** x + 2 ** k * x


CASES.append(G("r9_zero_and_one_bases", zero_base, (0.7, 3), ref=lambda: 0.0 + 0.0 + 8.0, tol=1e-12))
CASES.append(G("r9_zero_base_zero_exponent", zero_base, (0.7, 0), ref=lambda: 1.0 + 0.0 + 1.0, tol=1e-12))


def float_exp_neg_base(x):
    return x ** 2.0 + x ** 3.0 + np.power(x, 2.0) + math.pow(x, 3.0)


CASES.append(G("r9_float_literal_exponent_negative_base", float_exp_neg_base, (-1.5,),
               ref=lambda: 2 * -1.5 + 3 * 2.25 + 2 * -1.5 + 3 * 2.25, tol=1e-12))


def float_arg_exp(x, p):
    return x ** p


CASES.append(G("r9_float_exponent_argument_negative_base", float_arg_exp, (-1.5, 3.0), ref=lambda: 3 * 2.25, tol=1e-12))
CASES.append(H("r9_float_exponent_argument_negative_base_hessian", float_arg_exp, (-1.5, 3.0), ref=lambda: 6 * -1.5, tol=1e-10))


def np_neg_base_array(x):
    return np.sum(x ** 2.0 + x ** 3 + np.power(x, 4))


_xn = np.array([-2.0, -0.5, 0.0, 1.5])
CASES.append(G("r9_array_negative_base_powers", np_neg_base_array, (_xn,), ref=lambda: 2 * _xn + 3 * _xn ** 2 + 4 * _xn ** 3))


def sqrt_of_square(x):
    return math.sqrt(x * x) + np.sqrt(x ** 2)


CASES.append(G("r9_sqrt_of_square_negative_point", sqrt_of_square, (-0.8,), ref=lambda: -2.0, tol=1e-12))


def power_at_zero(x):
    return x ** 2 + x ** 3 + np.power(x, 2)


CASES.append(G("r9_integer_powers_at_zero", power_at_zero, (0.0,), ref=lambda: 0.0, tol=1e-12))


def two_pow_int_k(x, k):
    return 2 ** k * x + 2.0 ** -k * x + 10 ** k


CASES.append(G("r9_two_pow_int_argument", two_pow_int_k, (1.0, 3), ref=lambda: 8 + 0.125, tol=1e-12))


def neg_exponent_int_arg(x, k):
    return x ** -k


CASES.append(G("r9_negated_int_exponent", neg_exponent_int_arg, (2.0, 2), ref=lambda: -2 * 2.0 ** -3, tol=1e-12))


def pow_in_loop_neg_base(x):
    s = 0.0
    for k in range(4):
        s += (x - 2.0) ** k
    return s


CASES.append(G("r9_negative_base_var_int_exponent_loop", pow_in_loop_neg_base, (0.5,), ref=lambda: 1 + 2 * -1.5 + 3 * 2.25, tol=1e-12))


def rpow_negative(x):
    return (-x) ** 2 + (-2.0 * x) ** 3


CASES.append(G("r9_negated_expression_powers", rpow_negative, (0.5,), ref=lambda: 1.0 - 24 * 0.25, tol=1e-12))


def cube_root_sign(x):
    return math.copysign(abs(x) ** (1 / 3), x)


CASES.append(G("r9_signed_cube_root_copysign", cube_root_sign, (-0.7,), ref=lambda: (1 / 3) * 0.7 ** (-2 / 3), tol=1e-12))
