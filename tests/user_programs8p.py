"""Round 8 user programs, batch p: scalar code for jit and vmap with Python's own
arithmetic (negative floor division and modulo, big ints reduced modulo a prime,
round with digits, math special functions, bool arguments, while True with break,
powers of negative bases), checked against plain Python, closed forms or
self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, pair, fd_checked  # noqa: F401

CASES = []
add = CASES.append


def int_mix(x, n):
    return (n % 3 - 1) * x + (-n) // 2 * x + x * x


add(pair("r8_jit_negative_floordiv_modulo", lambda: revsrc.jit(int_mix)(-1.3, 7), lambda: int_mix(-1.3, 7), tol=0.0))
add(pair("r8_vmap_negative_floordiv_modulo", lambda: revsrc.vmap(int_mix)(np.array([-1.3, 2.2, 0.5]), np.array([7, -4, 0])),
         lambda: np.array([int_mix(-1.3, 7), int_mix(2.2, -4), int_mix(0.5, 0)]), tol=0.0))
add(pair("r8_jit_grad_negative_floordiv_modulo", lambda: revsrc.jit(revsrc.grad(int_mix))(-1.3, 7),
         lambda: (7 % 3 - 1) + (-7) // 2 + 2 * -1.3, tol=1e-12))


def fmod_phase(x):
    return math.fmod(x, 0.7) * x


add(pair("r8_math_fmod", lambda: revsrc.grad(fmod_phase)(2.3), lambda: fd_checked(fmod_phase, (2.3,)), tol=1e-8))


def bigint_mod(x):
    n = 1
    for k in range(1, 25):
        n *= k
    return x * (n % 1000003)


add(pair("r8_jit_bigint_factorial_mod_prime", lambda: revsrc.jit(bigint_mod)(1.5), lambda: bigint_mod(1.5), tol=0.0))


def overflow_branch(x):
    y = x * 1e308
    if math.isinf(y * 10):
        return -x
    return x


add(pair("r8_jit_isinf_overflow_branch", lambda: revsrc.jit(overflow_branch)(1.5), lambda: -1.5, tol=0.0))
add(pair("r8_vmap_grad_isinf_overflow_branch", lambda: revsrc.vmap(revsrc.grad(overflow_branch))(np.array([1.5, 1e-10])),
         lambda: np.array([-1.0, 1.0]), tol=0.0))


def round_digits(x):
    return round(x, 2) * x + float(int(x * 10)) / 10


add(pair("r8_jit_round_with_digits", lambda: revsrc.jit(round_digits)(1.2345), lambda: round_digits(1.2345), tol=0.0))
add(pair("r8_jit_grad_round_with_digits", lambda: revsrc.jit(revsrc.grad(round_digits))(1.2345), lambda: round(1.2345, 2), tol=1e-12))


def special_math(x):
    return math.gamma(x) + math.lgamma(x) + math.erfc(x) + math.atanh(x / 3)


add(pair("r8_grad_math_gamma_lgamma_erfc_atanh", lambda: revsrc.grad(special_math)(1.3), lambda: fd_checked(special_math, (1.3,)), tol=1e-8))
add(pair("r8_jit_math_gamma", lambda: revsrc.jit(special_math)(1.3), lambda: special_math(1.3), tol=0.0))


def bool_switch(x, flag):
    return x * 2 if flag else x * 3


add(pair("r8_vmap_grad_bool_array_argument", lambda: revsrc.vmap(revsrc.grad(bool_switch))(np.array([1.0, 2.0]), np.array([True, False])),
         lambda: np.array([2.0, 3.0]), tol=0.0))


def exp_series(x):
    s = 0.0
    i = 0
    while True:
        i += 1
        s += x ** i / math.factorial(i)
        if i >= 15:
            break
    return s


add(pair("r8_jit_grad_while_true_factorial", lambda: revsrc.jit(revsrc.grad(exp_series))(0.8),
         lambda: sum(0.8 ** (i - 1) / math.factorial(i - 1) for i in range(1, 16)), tol=1e-12))


def neg_base_pow(a, b):
    return a ** b


add(pair("r8_pow_negative_base_integer_exponent", lambda: revsrc.grad(neg_base_pow, argnums=(0, 1))(-2.0, 3.0), lambda: (12.0, math.nan), tol=1e-12))
add(pair("r8_jit_pow_negative_base_integer_exponent", lambda: revsrc.jit(revsrc.grad(neg_base_pow, argnums=(0, 1)))(-2.0, 3.0), lambda: (12.0, math.nan), tol=1e-12))


def collatz_steps(x, n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return x * steps


add(pair("r8_jit_int_while_collatz", lambda: revsrc.jit(collatz_steps)(0.5, 27), lambda: 0.5 * 111, tol=0.0))
add(pair("r8_vmap_int_while_collatz", lambda: revsrc.vmap(collatz_steps)(np.array([1.0, 2.0, 3.0]), np.array([27, 6, 1])),
         lambda: np.array([111.0, 16.0, 0.0]), tol=0.0))


def clamp_chain(x):
    y = min(max(x, -1.0), 1.0)
    return y ** 3 + abs(x) * (1 if x > 0 else -1)


add(pair("r8_vmap_grad_builtin_min_max_clamp", lambda: revsrc.vmap(revsrc.grad(clamp_chain))(np.array([-2.0, -0.5, 0.5, 3.0])),
         lambda: np.array([1.0, 3 * 0.25 + 1, 3 * 0.25 + 1, 1.0]), tol=1e-12))


def hypot_atan2_scalar(x, y):
    return math.hypot(x, y) * math.atan2(y, x)


add(pair("r8_jit_grad_hypot_atan2", lambda: revsrc.jit(revsrc.grad(hypot_atan2_scalar, argnums=(0, 1)))(-0.6, 0.8),
         lambda: fd_checked(hypot_atan2_scalar, (-0.6, 0.8), argnums=(0, 1)), tol=1e-8))
