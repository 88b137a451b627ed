"""Round 15, part n: loop shapes and method style on small arrays -- augmented
assignment on arrays and items in loops, swapped tuples of arrays, rolling indices,
iteration over rows and zips of arrays, reversed / enumerate, ndarray methods
(.sum(axis), .max(), .clip, .dot, .T), early returns from nested loops, try/except on
the path taken, np.append growing an array, from-imports of math functions."""
import logging
import math
from math import exp, sin

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append
log = logging.getLogger("r15")


def aug_assign_state(k, n=80, dt=0.05):
    s = np.array([1.0, 0.0, 0.5])
    for _ in range(n):
        f = np.array([s[1], -k * s[0], -0.2 * s[2]])
        s += dt * f
        s[2] += 0.01 * s[0] * s[0]
    return s.sum()


add(VG("r15_aug_assign_array_and_item_in_loop", aug_assign_state, (2.0,), ref="fd", tol=1e-7))


def swap_arrays(a, n=7):
    x = a.copy()
    y = np.ones_like(a)
    for _ in range(n):
        x, y = y, x + 0.3 * y * x
    return x.dot(y)


add(VG("r15_swapped_tuple_of_arrays", swap_arrays, (np.array([0.5, -0.3, 0.8]),), ref="fd", tol=1e-8))


def ring_buffer_array(w, xs):
    buf = np.zeros(4)
    i = 0
    out = 0.0
    for v in xs:
        buf[i] = v * w
        i = (i + 1) % 4
        out += buf.max() - buf.min() + buf.mean() ** 2
    return out


XR = np.array([0.3, 1.2, -0.5, 0.8, 2.0, -1.0, 0.1, 0.9, -0.2])
add(VG("r15_ring_buffer_array_methods", ring_buffer_array, (1.3, XR), ref="fd", tol=1e-7))
add(G("r15_ring_buffer_wrt_inputs", ring_buffer_array, (1.3, XR), argnums=1, ref="fd", tol=1e-7))


def rows_iteration(M, v):
    acc = np.zeros(3)
    for row in M:
        acc = acc + row * np.dot(row, v)
    for a, b in zip(M.T, v):
        acc = acc + a.clip(-1.0, 1.0) * b
    return np.linalg.norm(acc)


MR = np.array([[0.5, -1.0, 2.0], [0.3, 0.8, -0.4], [1.5, 0.2, 0.1]])
VR = np.array([0.7, -0.2, 0.4])
add(G("r15_iterate_rows_and_zip_columns", rows_iteration, (MR, VR), argnums=(0, 1), ref="fd", tol=1e-7))


def reversed_enumerate(x):
    s = 0.0
    for i, v in enumerate(reversed(x)):
        s = s * 0.5 + v * (i + 1)
    for i, v in reversed(list(enumerate(x))):
        s += v ** 2 / (i + 1)
    return s


add(G("r15_reversed_enumerate_both_orders", reversed_enumerate, (np.array([1.0, -2.0, 0.5, 3.0]),), ref="ag", tol=1e-12))


def enumerate_reversed(x):
    s = 0.0
    for i, v in enumerate(reversed(x)):
        s = s * 0.5 + v * (i + 1)
    return s


add(G("r15_enumerate_of_reversed", enumerate_reversed, (np.array([1.0, -2.0, 0.5, 3.0]),),
      ref=lambda: np.array([4.0, 1.5, 0.5, 0.125]), tol=1e-14))


def list_of_enumerate(x):
    s = 0.0
    for i, v in list(enumerate(x)):
        s += v ** 2 / (i + 1)
    return s


add(G("r15_list_of_enumerate", list_of_enumerate, (np.array([1.0, -2.0, 0.5, 3.0]),),
      ref=lambda: np.array([2.0, -2.0, 1.0 / 3.0, 1.5]), tol=1e-14))


def first_close_pair(pts, thr=0.6):
    # early return from nested loops
    n = pts.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = np.sqrt(np.sum((pts[i] - pts[j]) ** 2))
            if d < thr:
                return d * (i + 1) + j
    return 0.0


PTS = np.array([[0.0, 0.0], [1.0, 0.2], [1.4, 0.5], [0.1, 2.0]])
add(G("r15_early_return_nested_loops", first_close_pair, (PTS,), ref="ag", tol=1e-12))


def try_path(x):
    total = 0.0
    for v in (x, -x, 2 * x):
        try:
            total += math.log(v)
        except ValueError:
            total += v * v
    return total


# log(x) + (-x)**2 + log(2x): 1/x + 2x + 1/x
add(G("r15_try_except_path_in_loop", try_path, (1.5,), ref=lambda: 2 / 1.5 + 2 * 1.5, tol=1e-14))


def grow_append(x):
    arr = np.array([x])
    for k in range(4):
        arr = np.append(arr, arr[-1] * x + k)
    return np.sum(arr ** 2)


add(G("r15_np_append_growing_array", grow_append, (0.7,), ref="ag", tol=1e-12))


def from_imports(x):
    return exp(sin(x)) * sin(2 * x)


add(G("r15_from_math_import_names", from_imports, (0.4,), ref=lambda: math.exp(math.sin(0.4)) * (math.cos(0.4) * math.sin(0.8) + 2 * math.cos(0.8)), tol=1e-14))
add(pair("r15_from_math_import_jit_vmap", lambda: revsrc.vmap(revsrc.grad(from_imports))(np.array([0.4])),
         lambda: np.array([math.exp(math.sin(0.4)) * (math.cos(0.4) * math.sin(0.8) + 2 * math.cos(0.8))]), tol=1e-14))


def logged_loop(x):
    y = x
    for k in range(3):
        y = y * 1.1 + math.cos(y)
        log.debug("step %d y=%f", k, y)
    return y


add(G("r15_logging_debug_in_loop", logged_loop, (0.5,), ref="ag", tol=1e-13))


def method_chain(X):
    return (X.T @ X).trace() + X.sum(axis=0).max() + X.mean(axis=1).std() + np.abs(X).min()


XM = np.array([[0.5, -1.0], [2.0, 0.3], [-0.7, 1.1]])
add(G("r15_ndarray_method_chain", method_chain, (XM,), ref="fd", tol=1e-7))


def argmax_gather_loop(scores, n=4):
    s = scores.copy()
    picked = 0.0
    for _ in range(n):
        i = int(np.argmax(s))
        picked = picked + s[i] * (i + 1)
        s[i] = -np.inf
    return picked


add(G("r15_greedy_argmax_mask_with_inf", argmax_gather_loop, (np.array([0.3, 2.0, -1.0, 1.5, 0.9]),),
      ref=lambda: np.array([1.0, 2.0, 0.0, 4.0, 5.0]), tol=1e-14))


def cond_kind_change(x):
    # a name that is a float or an array depending on the branch
    if x[0] > 0:
        s = 0.0
    else:
        s = np.zeros(2)
    for v in x:
        s = s + v * v
    return np.sum(s)


add(G("r15_name_float_or_array_by_branch", cond_kind_change, (np.array([0.5, 2.0]),), ref=lambda: np.array([1.0, 4.0]), tol=1e-14))
add(G("r15_name_float_or_array_other_branch", cond_kind_change, (np.array([-0.5, 2.0]),), ref=lambda: np.array([-2.0, 8.0]), tol=1e-14))


def while_shrink(x):
    v = x.copy()
    steps = 0
    while np.linalg.norm(v) > 0.1:
        v = 0.7 * v + 0.01 * np.sin(v)
        steps += 1
    return np.sum(v) * steps


add(G("r15_while_norm_shrink_array", while_shrink, (np.array([1.0, -2.0, 0.5]),), ref="fd", tol=1e-8))


def fixed_point_tuple(a):
    x, y = 0.0, 0.0
    for _ in range(60):
        x, y = 0.5 * math.cos(y) + a, 0.5 * math.sin(x) - a
    return x * y


add(G("r15_fixed_point_scalar_tuple", fixed_point_tuple, (0.2,), ref="ag", tol=1e-12))
add(pair("r15_fixed_point_jit_vmap_grad", lambda: revsrc.jit(revsrc.grad(fixed_point_tuple))(0.2),
         lambda: ag()[0].grad(agify(fixed_point_tuple))(0.2), tol=1e-12))


def einsum_first(A, B):
    return np.einsum("ij,jk,ki->", A, B, A) + np.einsum("ii", A @ B)


add(G("r15_einsum_trace_cycle", einsum_first, (MR, MR.T + 0.1), argnums=(0, 1), ref="fd", tol=1e-7))
