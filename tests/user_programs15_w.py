"""Round 15, part w: memory= (checkpointed loops) and parallel vmap on this round's
programs -- nested loops, while loops with break, loops with item assignment or a
method call (kept stored), scalar engine loops under memory= with hessian, backend="jax"
segments, and vmap over 20,000 elements on all cores against plain calls."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


def nested_loops(p):
    s = np.array([0.1, 0.2, 0.3])
    for i in range(30):
        for j in range(4):
            s = s + 0.01 * np.sin(p * s + j)
        s = s * (1.0 - 0.001 * i)
    return np.sum(s ** 2)


add(EXACT("r15_memory_nested_loops_bits", lambda: revsrc.grad(nested_loops, memory=1024)(0.7), lambda: revsrc.grad(nested_loops)(0.7)))
add(G("r15_memory_nested_loops_fd", nested_loops, (0.7,), ref="fd", tol=1e-7, memory=1024))


def while_break_arr(p):
    s = np.array([1.0, 0.0])
    k = 0
    while k < 500:
        s = s + 0.01 * np.array([s[1], -p * s[0]])
        k += 1
        if s[0] < -0.5:
            break
    return s[1] + k * 0.0


add(EXACT("r15_memory_while_break_array_bits", lambda: revsrc.grad(while_break_arr, memory=512)(2.0), lambda: revsrc.grad(while_break_arr)(2.0)))
add(G("r15_memory_while_break_array_fd", while_break_arr, (2.0,), ref="fd", tol=1e-6, memory=512))


def loop_item_assign(p):
    hist = np.zeros(200)
    x = 0.5
    for i in range(200):
        x = x + 0.01 * (p - x)
        hist[i] = x
    return np.sum(hist ** 2)


add(EXACT("r15_memory_loop_with_item_assign_stored", lambda: revsrc.grad(loop_item_assign, memory=256)(1.3), lambda: revsrc.grad(loop_item_assign)(1.3)))


def scalar_long(a):
    x = 0.0
    for k in range(5000):
        x = x + 0.0005 * (math.sin(a * x) + a - x)
    return x * x


add(EXACT("r15_memory_scalar_engine_5000_bits", lambda: revsrc.grad(scalar_long, memory=1024)(0.9), lambda: revsrc.grad(scalar_long)(0.9)))
add(pair("r15_memory_scalar_engine_hessian", lambda: revsrc.hessian(scalar_long, memory=1024)(0.9), lambda: revsrc.hessian(scalar_long)(0.9), tol=1e-12))


def jax_scan_long(p):
    s = np.array([0.2, 0.1])
    for _ in range(300):
        s = s + 0.01 * np.array([s[1], -p * np.sin(s[0])])
    return s @ s


add(pair("r15_memory_backend_jax_segments", lambda: revsrc.grad(jax_scan_long, backend="jax", memory=2048)(1.5),
         lambda: revsrc.grad(jax_scan_long)(1.5), tol=1e-12))


def scalar_kernel(x):
    y = x
    for k in range(6):
        if y > 0.5:
            y = y * y - 0.3 * math.cos(k * y)
        else:
            y = math.exp(-y) + 0.1 * k
    return y


BIG = np.linspace(-1.0, 1.5, 20000)
add(EXACT("r15_vmap_20000_parallel_bits", lambda: revsrc.vmap(scalar_kernel)(BIG), lambda: np.array([scalar_kernel(v) for v in BIG])))
add(SAME("r15_vmap_grad_20000_two_calls_same_bits", lambda: revsrc.vmap(revsrc.grad(scalar_kernel))(BIG)))
add(pair("r15_vmap_grad_20000_vs_grad", lambda: revsrc.vmap(revsrc.grad(scalar_kernel))(BIG[::997]),
         lambda: np.array([revsrc.grad(scalar_kernel)(v) for v in BIG[::997]]), tol=0.0))
