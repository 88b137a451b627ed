"""Round 15, part o: scalar programs on the engine -- jit and vmap with the digits of
plain Python (math edge functions, ints, bools, early returns, tuples of results,
global tuples of constants), and their derivatives."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


def math_edges(x):
    a = math.copysign(x * x, -1.0)
    b = (x * 7.3) % 2.0
    c = math.floor(x * 3.0) * x
    d = math.hypot(x, 2.0) + math.log1p(x) + math.expm1(-x)
    e = math.erf(x) + math.erfc(x * 0.5) + math.atanh(x * 0.3) + math.asinh(x)
    return a + b + c + d + e + math.degrees(x) * math.radians(x)


XS = np.array([0.1, 0.33, 0.77, 1.2])
add(pair("r15_jit_math_edge_functions_bits", lambda: [revsrc.jit(math_edges)(x) for x in (0.1, 0.33, 0.77)],
         lambda: [math_edges(x) for x in (0.1, 0.33, 0.77)], tol=0.0))
add(pair("r15_vmap_math_edge_functions_bits", lambda: revsrc.vmap(math_edges)(XS), lambda: np.array([math_edges(x) for x in XS]), tol=0.0))
add(G("r15_grad_math_edge_functions", math_edges, (0.77,), ref="fd", tol=1e-7))


def fmod_fn(x):
    return math.fmod(x * 7.3, 2.0) * x


add(G("r15_math_fmod_grad", fmod_fn, (0.77,), ref=lambda: 2 * 0.77 * 7.3 - 4.0, tol=1e-12))
add(pair("r15_vmap_grad_math_edge_functions", lambda: revsrc.vmap(revsrc.grad(math_edges))(XS),
         lambda: np.array([revsrc.grad(math_edges)(x) for x in XS]), tol=0.0))


def int_heavy(n, x):
    total = 0
    for k in range(n):
        total += k * k * (k % 3)
    big = 3 ** 40 + total
    return big % 1000 + x * total


add(pair("r15_jit_big_int_arith", lambda: revsrc.jit(int_heavy)(12, 0.5), lambda: int_heavy(12, 0.5), tol=0.0))
add(pair("r15_vmap_int_arg_in_axes_none", lambda: revsrc.vmap(int_heavy, in_axes=(None, 0))(12, np.array([0.5, 1.5])),
         lambda: np.array([int_heavy(12, 0.5), int_heavy(12, 1.5)]), tol=0.0))
add(G("r15_grad_int_heavy_wrt_x", int_heavy, (12, 0.5), argnums=1, ref=lambda: float(sum(k * k * (k % 3) for k in range(12))), tol=0.0))


def bool_flag(x, flag):
    if flag:
        return x * x
    return -x


add(pair("r15_jit_bool_then_int_flag", lambda: (revsrc.jit(bool_flag)(2.0, True), revsrc.jit(bool_flag)(2.0, False), revsrc.jit(bool_flag)(2.0, 1)),
         lambda: (4.0, -2.0, 4.0), tol=0.0))
add(pair("r15_vmap_bool_array_flags", lambda: revsrc.vmap(bool_flag)(np.array([1.0, 2.0, 3.0]), np.array([True, False, True])),
         lambda: np.array([1.0, -2.0, 9.0]), tol=0.0))
add(pair("r15_vmap_grad_bool_array_flags", lambda: revsrc.vmap(revsrc.grad(bool_flag))(np.array([1.0, 2.0, 3.0]), np.array([True, False, True])),
         lambda: np.array([2.0, -1.0, 6.0]), tol=0.0))


def early_return(x):
    for k in range(10):
        x = x * 1.3 - 0.1
        if x > 5.0:
            return x * k
        if x < -5.0:
            return -x
    return x


add(pair("r15_jit_early_return_bits", lambda: [revsrc.jit(early_return)(v) for v in (0.5, -1.0, 0.3)],
         lambda: [early_return(v) for v in (0.5, -1.0, 0.3)], tol=0.0))
add(pair("r15_vmap_grad_early_return", lambda: revsrc.vmap(revsrc.grad(early_return))(np.array([0.5, -1.0, 0.3])),
         lambda: np.array([ag()[0].grad(agify(early_return))(v) for v in (0.5, -1.0, 0.3)]), tol=1e-12))


def two_outputs(x, y):
    return x * y, x + y * y


add(pair("r15_jit_tuple_result", lambda: revsrc.jit(two_outputs)(1.5, 2.0), lambda: (3.0, 5.5), tol=0.0))
add(pair("r15_vmap_tuple_result", lambda: revsrc.vmap(two_outputs)(np.array([1.0, 2.0]), np.array([3.0, 4.0])),
         lambda: (np.array([3.0, 8.0]), np.array([10.0, 18.0])), tol=0.0))
add(pair("r15_jacfwd_tuple_result_scalar", lambda: revsrc.jacfwd(two_outputs, argnums=(0, 1))(1.5, 2.0),
         lambda: ((2.0, 1.5), (1.0, 4.0)), tol=1e-14))

COEF = (1.0, -0.5, 0.25, -0.125, 0.0625)


def horner(x):
    acc = 0.0
    for c in reversed(COEF):
        acc = acc * x + c
    return acc


add(pair("r15_jit_global_tuple_horner_bits", lambda: revsrc.jit(horner)(0.7), lambda: horner(0.7), tol=0.0))
add(pair("r15_vmap_hessian_horner", lambda: revsrc.vmap(revsrc.hessian(horner))(np.array([0.0, 0.7])),
         lambda: np.array([2 * 0.25, 2 * 0.25 - 6 * 0.125 * 0.7 + 12 * 0.0625 * 0.49]), tol=1e-13))


def sum_generator(x, n=6):
    return sum(math.sin(k * x) / (k + 1) for k in range(n)) + math.factorial(4) * x


add(pair("r15_jit_sum_generator_factorial", lambda: revsrc.jit(sum_generator)(0.4), lambda: sum_generator(0.4), tol=0.0))
add(pair("r15_jit_grad_sum_generator", lambda: revsrc.jit(revsrc.grad(sum_generator))(0.4),
         lambda: sum(k * math.cos(k * 0.4) / (k + 1) for k in range(6)) + 24.0, tol=1e-14))


def poly_rec(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return 2 * x * poly_rec(n - 1, x) - poly_rec(n - 2, x)


add(G("r15_chebyshev_recursion_int_arg", poly_rec, (5, 0.3), argnums=1, ref=lambda: 5 * math.sin(5 * math.acos(0.3)) / math.sin(math.acos(0.3)), tol=1e-12))
add(pair("r15_jit_chebyshev_recursion", lambda: revsrc.jit(poly_rec)(5, 0.3), lambda: poly_rec(5, 0.3), tol=0.0))


def round_trunc(x):
    return round(x * 10) / 10 * x + math.trunc(x * 4) + int(x * 3) * x


add(pair("r15_jit_round_trunc_int", lambda: [revsrc.jit(round_trunc)(v) for v in (0.26, 1.74, -0.55)],
         lambda: [round_trunc(v) for v in (0.26, 1.74, -0.55)], tol=0.0))
add(pair("r15_grad_round_trunc", lambda: [revsrc.grad(round_trunc)(v) for v in (0.26, 1.74, -0.55)],
         lambda: [round(v * 10) / 10 + int(v * 3) for v in (0.26, 1.74, -0.55)], tol=1e-14))


def nan_compare(x):
    y = x * 0.0 + math.nan if x > 10 else x
    if y != y:
        return 0.0
    return y * y


add(pair("r15_jit_nan_self_compare", lambda: (revsrc.jit(nan_compare)(11.0), revsrc.jit(nan_compare)(2.0)), lambda: (0.0, 4.0), tol=0.0))
add(pair("r15_vmap_inf_nan_inputs", lambda: revsrc.vmap(nan_compare)(np.array([np.inf, np.nan, -2.0, 20.0])),
         lambda: np.array([0.0, 0.0, 4.0, 0.0]), tol=0.0))
