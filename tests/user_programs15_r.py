"""Round 15, part r: Python's number semantics on the compiled engine -- float % and //
of negative numbers, round() half to even, int() truncation, max/min with NaN in either
place, ** of negative bases with integer exponents, signed zeros; jit and vmap against
plain Python bit for bit, and gradients after many calls (the engine's hot path) equal to
the first call's."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

VALS = (-7.5, -2.25, -0.5, -0.0, 0.0, 0.5, 2.5, 3.5, 7.25)


def py_mod_floor(x):
    return (x % 3.0) + (x // 2.0) * 10.0 + (-x) % 1.5


add(EXACT("r15_jit_float_mod_floordiv_negative", lambda: [revsrc.jit(py_mod_floor)(v) for v in VALS], lambda: [py_mod_floor(v) for v in VALS]))
add(EXACT("r15_vmap_float_mod_floordiv_negative", lambda: revsrc.vmap(py_mod_floor)(np.array(VALS)), lambda: np.array([py_mod_floor(v) for v in VALS])))


def rounding(x):
    return round(x) * 1.0 + int(x) * 0.5 + round(x, 1) + math.floor(x) * 0.25 + math.ceil(x) * 0.125


add(EXACT("r15_jit_round_half_even_int_trunc", lambda: [revsrc.jit(rounding)(v) for v in VALS], lambda: [rounding(v) for v in VALS]))
add(EXACT("r15_vmap_round_half_even_int_trunc", lambda: revsrc.vmap(rounding)(np.array(VALS)), lambda: np.array([rounding(v) for v in VALS])))


def nan_maxmin(x, y):
    return max(x, y) * 2.0 + min(x, y)


NANS = [(math.nan, 1.0), (1.0, math.nan), (2.0, 1.0), (-0.0, 0.0), (0.0, -0.0)]
add(EXACT("r15_jit_max_min_nan_order", lambda: [revsrc.jit(nan_maxmin)(a, b) for a, b in NANS], lambda: [nan_maxmin(a, b) for a, b in NANS]))
add(EXACT("r15_vmap_max_min_nan_order", lambda: revsrc.vmap(nan_maxmin)(np.array([a for a, _ in NANS]), np.array([b for _, b in NANS])),
          lambda: np.array([nan_maxmin(a, b) for a, b in NANS])))


def signed_zero(x):
    return math.copysign(1.0, x * 0.0) + math.atan2(x * 0.0, -1.0)


add(EXACT("r15_jit_signed_zero_copysign_atan2", lambda: [revsrc.jit(signed_zero)(v) for v in (-2.0, 2.0)], lambda: [signed_zero(v) for v in (-2.0, 2.0)]))


def neg_pow(x):
    return x ** 3 + x ** -2 + (-x) ** 4 + x ** 2.0


add(EXACT("r15_jit_negative_base_int_pow", lambda: [revsrc.jit(neg_pow)(v) for v in (-1.7, -0.3, 1.1)], lambda: [neg_pow(v) for v in (-1.7, -0.3, 1.1)]))
add(pair("r15_grad_negative_base_int_pow", lambda: [revsrc.grad(neg_pow)(v) for v in (-1.7, -0.3, 1.1)],
         lambda: [3 * v * v - 2 * v ** -3 + 4 * v ** 3 + 2 * v for v in (-1.7, -0.3, 1.1)], tol=1e-13))


def smooth_prog(x):
    y = x
    for k in range(8):
        y = y - 0.1 * math.sin(y) * math.exp(-0.1 * k) + 0.01 * y ** 3
        if y > 2.0:
            y = math.sqrt(y)
    return y * math.log1p(abs(y))


def _hot():
    g = revsrc.grad(smooth_prog)
    first = [g(v) for v in (0.3, 1.7, 2.9)]
    for _ in range(2000):
        g(1.1)
    later = [g(v) for v in (0.3, 1.7, 2.9)]
    return first, later


def _hot_ref():
    first, _ = _hot_first()
    return first, first


def _hot_first():
    g = revsrc.grad(smooth_prog)
    return [g(v) for v in (0.3, 1.7, 2.9)], None


add(pair("r15_engine_hot_path_same_bits", _hot, _hot_ref, tol=0.0))
add(pair("r15_engine_grad_equals_autograd", lambda: [revsrc.grad(smooth_prog)(v) for v in (0.3, 1.7, 2.9)],
         lambda: [ag()[0].grad(agify(smooth_prog))(v) for v in (0.3, 1.7, 2.9)], tol=1e-13))


def _hot_jit():
    j = revsrc.jit(smooth_prog)
    a = j(1.9)
    for _ in range(2000):
        j(0.7)
    return (a, j(1.9))


add(EXACT("r15_jit_hot_same_as_python", _hot_jit, lambda: (smooth_prog(1.9), smooth_prog(1.9))))


def small_array_loop(p):
    s = np.array([1.0, 0.5, -0.3, 0.2])
    M = np.array([[0.9, 0.1, 0.0, 0.0], [0.0, 0.8, 0.2, 0.0], [0.1, 0.0, 0.7, 0.1], [0.0, 0.0, 0.1, 0.95]])
    for _ in range(60):
        s = np.tanh(M @ s * p[0] + p[1])
    return s @ s


PS = np.array([1.1, 0.05])


def _sa_hot():
    g = revsrc.grad(small_array_loop)
    first = g(PS)
    for _ in range(30):
        g(PS * 0.9)
    return first, g(PS)


add(pair("r15_small_array_loop_hot_same_bits", _sa_hot, lambda: (revsrc.grad(small_array_loop)(PS),) * 2, tol=0.0))
add(G("r15_small_array_loop_grad_ag", small_array_loop, (PS,), ref="ag", tol=1e-12))


def float_int_mix(x, n):
    t = 0.0
    for k in range(n):
        t += (x * k) % 1.0 + (k // 3) * x
    return t


add(EXACT("r15_jit_float_mod_loop_int_floordiv", lambda: [revsrc.jit(float_int_mix)(v, 7) for v in (0.37, -1.3)],
          lambda: [float_int_mix(v, 7) for v in (0.37, -1.3)]))
add(pair("r15_grad_float_mod_loop", lambda: revsrc.grad(float_int_mix)(0.37, 7), lambda: float(sum(k + k // 3 for k in range(7))), tol=1e-14))


def int_div_result(a, b):
    return a / b + a // b + a % b


add(EXACT("r15_jit_int_true_div_negative", lambda: [revsrc.jit(int_div_result)(a, b) for a, b in ((7, -2), (-7, 2), (7, 2))],
          lambda: [int_div_result(a, b) for a, b in ((7, -2), (-7, 2), (7, 2))]))



def _signs(vals):
    return [math.copysign(1.0, float(v)) for v in vals]


def zero_producer(x):
    return x * 0.0 + (-0.0 if x < 0 else 0.0) * 1.0 - 0.0 * x


ZV = (-3.0, -0.0, 0.0, 2.0)
add(EXACT("r15_jit_signed_zero_results_signs", lambda: _signs([revsrc.jit(zero_producer)(v) for v in ZV]), lambda: _signs([zero_producer(v) for v in ZV])))
add(EXACT("r15_vmap_signed_zero_results_signs", lambda: _signs(revsrc.vmap(zero_producer)(np.array(ZV))), lambda: _signs([zero_producer(v) for v in ZV])))
add(EXACT("r15_jit_mod_signed_zero_signs", lambda: _signs([revsrc.jit(py_mod_floor)(v) for v in VALS]), lambda: _signs([py_mod_floor(v) for v in VALS])))
add(EXACT("r15_grad_signed_zero_signs", lambda: _signs([revsrc.grad(zero_producer)(v) for v in ZV]),
          lambda: _signs([ag()[0].grad(zero_producer)(v) for v in ZV])))
