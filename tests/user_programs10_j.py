"""Round 10, compiled paths on scalar code from the new domains: revsrc.jit and
revsrc.vmap of queueing, inventory, kinetics and signal recurrences must give Python's
own numbers (same bits), including Python's semantics at the edges: % and // of
negative numbers, int() truncation, round() half to even, max/min with NaN in either
position, ** with a negative base, abs(-0.0), comparisons with NaN and inf; and grad
with backend="engine" and backend="jax" against JAX."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []


def same(name, f, *args):
    CASES.append(pair(name, lambda: revsrc.jit(f)(*args), lambda: f(*args), tol=0.0))


def py_mod(t, p):
    return t % p + (t // p) * 10.0


same("r10_jit_mod_floordiv_negative", py_mod, -7.3, 2.0)
same("r10_jit_mod_negative_divisor", py_mod, 7.3, -2.0)


def trunc_int(x):
    return float(int(x)) + float(int(-x)) * 0.5


same("r10_jit_int_truncates_toward_zero", trunc_int, -2.7)


def round_half_even(x):
    return round(x) + round(x + 1.0) * 10.0


same("r10_jit_round_half_to_even", round_half_even, 2.5)
same("r10_jit_round_half_to_even_negative", round_half_even, -0.5)


def round_ndigits(x):
    return round(x, 1)


same("r10_jit_round_ndigits", round_ndigits, 0.25)


def max_with_nan_first(x):
    return max(x, 1.0)


def max_with_nan_second(x):
    return max(1.0, x)


same("r10_jit_max_nan_first_arg", max_with_nan_first, math.nan)
same("r10_jit_max_nan_second_arg", max_with_nan_second, math.nan)


def min_with_nan(x):
    return min(x, 0.5) + min(0.5, x) * 0.0


same("r10_jit_min_nan", min_with_nan, math.nan)


def nan_compare(x):
    if x > 0.0:
        return 1.0
    elif x <= 0.0:
        return 2.0
    return 3.0


same("r10_jit_nan_falls_through_if_chain", nan_compare, math.nan)


def abs_neg_zero(x):
    return math.copysign(1.0, abs(x))


same("r10_jit_abs_negative_zero", abs_neg_zero, -0.0)


def neg_base_int_power(x):
    return x ** 3 + x ** -2 + x ** 2.0


same("r10_jit_negative_base_integer_powers", neg_base_int_power, -1.7)


def inf_arith(x):
    y = x * 0.0
    return 1.0 if y != y else 0.0


same("r10_jit_inf_times_zero_is_nan", inf_arith, math.inf)


def floor_ceil_negative(x):
    return math.floor(x) * 100.0 + math.ceil(x)


same("r10_jit_floor_ceil_negative", floor_ceil_negative, -3.5)


def lindley(s, a, n):
    w = 0.0
    tot = 0.0
    for k in range(n):
        w = max(0.0, w + s * (1.0 + 0.3 * math.sin(1.7 * k)) - a)
        tot += w
    return tot / n


same("r10_jit_lindley_queue", lindley, 0.95, 1.0, 500)


def sS_policy(s, S, n):
    inv = S
    cost = 0.0
    for k in range(n):
        d = 5.0 + 3.0 * math.sin(0.9 * k)
        if inv < s:
            cost += 20.0
            inv = S
        inv -= d
        cost += max(inv, 0.0) + 4.0 * max(-inv, 0.0)
    return cost


same("r10_jit_sS_inventory", sS_policy, 12.0, 30.0, 60)


def erlang_b(a, c):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


same("r10_jit_erlang_b_int_arg", erlang_b, 5.0, 7)


def int_division_result(n, m):
    return n / m + n // m


same("r10_jit_int_true_division", int_division_result, 7, 2)
same("r10_jit_int_floor_division_negative", int_division_result, -7, 2)

LOADS = np.linspace(0.5, 9.0, 9)
CASES.append(pair("r10_vmap_erlang_b_bits", lambda: revsrc.vmap(erlang_b, in_axes=(0, None))(LOADS, 5),
                  lambda: np.array([erlang_b(a, 5) for a in LOADS]), tol=0.0))
SS = np.linspace(0.5, 1.5, 7)
CASES.append(pair("r10_vmap_lindley_two_axes", lambda: revsrc.vmap(lindley, in_axes=(0, 0, None))(SS, SS[::-1], 100),
                  lambda: np.array([lindley(s, a, 100) for s, a in zip(SS, SS[::-1])]), tol=0.0))
MODS = np.array([-7.3, -0.5, 0.0, 2.5, 7.3])
CASES.append(pair("r10_vmap_python_mod_negative", lambda: revsrc.vmap(py_mod, in_axes=(0, None))(MODS, 2.0),
                  lambda: np.array([py_mod(t, 2.0) for t in MODS]), tol=0.0))
CASES.append(pair("r10_vmap_round_half_even", lambda: revsrc.vmap(round_half_even)(np.array([0.5, 1.5, 2.5, -1.5])),
                  lambda: np.array([round_half_even(t) for t in [0.5, 1.5, 2.5, -1.5]]), tol=0.0))


def kinetics_euler(k1, k2):
    a, b = 1.0, 0.0
    for _ in range(400):
        a, b = a - 0.01 * k1 * a, b + 0.01 * (k1 * a - k2 * b)
    return b


CASES.append(pair("r10_grad_engine_backend_kinetics",
                  lambda: revsrc.grad(kinetics_euler, argnums=(0, 1), backend="engine")(1.3, 0.6),
                  lambda: jax().grad(jaxify(kinetics_euler), argnums=(0, 1))(1.3, 0.6), tol=1e-9))
CASES.append(pair("r10_grad_jax_backend_sS",
                  lambda: revsrc.grad(sS_policy, argnums=1, backend="jax")(12.0, 30.0, 60),
                  lambda: revsrc.grad(sS_policy, argnums=1)(12.0, 30.0, 60), tol=1e-9))
CASES.append(pair("r10_grad_jax_backend_lindley",
                  lambda: revsrc.grad(lindley, argnums=(0, 1), backend="jax")(0.95, 1.0, 300),
                  lambda: fd_checked(lindley, (0.95, 1.0, 300), argnums=(0, 1)), tol=1e-6))
CASES.append(pair("r10_jit_of_grad_erlang", lambda: revsrc.jit(revsrc.grad(erlang_b))(5.0, 7),
                  lambda: jax().grad(jaxify(erlang_b))(5.0, 7), tol=1e-12))
CASES.append(pair("r10_jit_grad_mod_sawtooth", lambda: revsrc.jit(revsrc.grad(py_mod))(-7.3, 2.0),
                  lambda: 1.0, tol=1e-12))


def float32_jit(x):
    return x * 0.1 + 1.0


CASES.append(pair("r10_jit_float32_scalar_input", lambda: revsrc.jit(float32_jit)(np.float32(0.3)),
                  lambda: float32_jit(np.float32(0.3)), tol=0.0))


def bool_flag(x, flag):
    return x * 2.0 if flag else -x


same("r10_jit_bool_argument", bool_flag, 1.5, False)


def huge_values(x):
    return x * x - x * x


same("r10_jit_overflow_inf_minus_inf", huge_values, 1e200)


def hypot_big(x):
    return math.hypot(x, x) / x


same("r10_jit_hypot_no_overflow", hypot_big, 1e300)


def expm1_small(x):
    return math.expm1(x) / x + math.log1p(x) / x


same("r10_jit_expm1_log1p_tiny", expm1_small, 1e-12)


def taylor_term(x, n):
    p = 1
    for k in range(1, n + 1):
        p *= k
    return x ** n / p


same("r10_jit_factorial_past_int64", taylor_term, 2.0, 25)
CASES.append(pair("r10_vmap_factorial_past_int64", lambda: revsrc.vmap(taylor_term, in_axes=(0, None))(np.array([1.0, 2.0]), 25),
                  lambda: np.array([taylor_term(1.0, 25), taylor_term(2.0, 25)]), tol=0.0))
CASES.append(G("r10_grad_factorial_past_int64", taylor_term, (2.0, 25), ref=lambda: 25 * 2.0 ** 24 / math.factorial(25)))


def big_int_power(x, n):
    return x * (2 ** n) - x * (2 ** n - 1)


same("r10_jit_big_int_power_cancel", big_int_power, 1.5, 70)


def comb_ratio(p, n):
    c = 1
    for k in range(n // 2):
        c = c * (n - k) // (k + 1)
    return c * p ** (n // 2) * (1 - p) ** (n - n // 2)


same("r10_jit_binomial_coefficient_int_loop", comb_ratio, 0.5, 80)


def int_mul_overflow_mod(x, n):
    h = 1
    for k in range(n):
        h = (h * 1103515245 + 12345) % 2 ** 31
    return x * h / 2 ** 31


same("r10_jit_lcg_hash_int_arith", int_mul_overflow_mod, 1.0, 50)
CASES.append(pair("r10_grad_jax_backend_factorial_past_int64",
                  lambda: revsrc.grad(taylor_term, backend="jax")(2.0, 25),
                  lambda: 25 * 2.0 ** 24 / math.factorial(25), tol=1e-12))
CASES.append(pair("r10_grad_jax_backend_factorial_20",
                  lambda: revsrc.grad(taylor_term, backend="jax")(2.0, 20),
                  lambda: 20 * 2.0 ** 19 / math.factorial(20), tol=1e-12))
