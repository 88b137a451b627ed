"""Round 13, part t: data-dependent control flow on small arrays -- bubble and insertion
sorts by swaps, binary search, hand-written interpolation, nested loops with break /
continue / early return and in-place writes, lists of arrays updated in loops."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
X6 = np.array([0.7, -1.2, 2.5, 0.1, -0.4, 1.9])
W6 = np.arange(1.0, 7.0)


def bubble(x):
    y = x.copy()
    n = len(y)
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if y[j] > y[j + 1]:
                y[j], y[j + 1] = y[j + 1], y[j]
                swapped = True
        if not swapped:
            break
    return np.sum(y * W6)


add(G("r13_t_bubble_sort_swaps", bubble, (X6,), ref=lambda: W6[np.argsort(np.argsort(X6))], tol=0.0))


def insertion(xs):
    out = []
    for v in xs:
        i = len(out)
        while i > 0 and out[i - 1] > v:
            i -= 1
        out.insert(i, v)
    return sum(o * (k + 1) for k, o in enumerate(out))


add(G("r13_t_insertion_sort_list_insert", insertion, (list(X6),), ref=lambda: list(W6[np.argsort(np.argsort(X6))]), tol=0.0))


def insertion2(xs):
    out = []
    for v in xs:
        i = len(out)
        while i > 0 and out[i - 1] > v:
            i -= 1
        out = out[:i] + [v] + out[i:]
    return sum(o * (k + 1) for k, o in enumerate(out))


add(G("r13_t_insertion_sort_list_concat", insertion2, (list(X6),), ref=lambda: list(W6[np.argsort(np.argsort(X6))]), tol=0.0))

XP = np.array([0.0, 0.5, 1.5, 3.0, 4.0])


def interp_by_hand(q, fp):
    lo, hi = 0, len(XP) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if XP[mid] <= q:
            lo = mid
        else:
            hi = mid
    t = (q - XP[lo]) / (XP[hi] - XP[lo])
    return (1 - t) * fp[lo] + t * fp[hi]


FP = np.array([1.0, -0.5, 2.0, 0.3, 1.1])
add(G("r13_t_binary_search_interp_q", interp_by_hand, (2.2, FP), argnums=(0, 1),
      ref=lambda: ((0.3 - 2.0) / 1.5, np.array([0.0, 0.0, 0.8 / 1.5, 0.7 / 1.5, 0.0])), tol=1e-14))
add(pair("r13_t_binary_search_matches_np_interp", lambda: revsrc.grad(interp_by_hand, argnums=1)(0.9, FP),
         lambda: revsrc.grad(lambda f: np.interp(0.9, XP, f), argnums=0)(FP), tol=1e-14))
add(G("r13_t_searchsorted_interp", lambda q, fp: (lambda i: fp[i - 1] + (q - XP[i - 1]) / (XP[i] - XP[i - 1]) * (fp[i] - fp[i - 1]))(int(np.searchsorted(XP, q))),
      (2.2, FP), argnums=(0, 1), ref=lambda: ((0.3 - 2.0) / 1.5, np.array([0.0, 0.0, 0.8 / 1.5, 0.7 / 1.5, 0.0])), tol=1e-14))


def searchsorted_interp(q, fp):
    i = int(np.searchsorted(XP, q))
    return fp[i - 1] + (q - XP[i - 1]) / (XP[i] - XP[i - 1]) * (fp[i] - fp[i - 1])


add(G("r13_t_searchsorted_interp_def", searchsorted_interp, (2.2, FP), argnums=(0, 1),
      ref=lambda: ((0.3 - 2.0) / 1.5, np.array([0.0, 0.0, 0.8 / 1.5, 0.7 / 1.5, 0.0])), tol=1e-14))


def first_exceed(x, thr=1.0):
    acc = np.zeros(3)
    for i in range(len(x)):
        for j in range(3):
            if (i + j) % 2:
                continue
            acc[j] += x[i] * (j + 1)
            if acc[j] > thr:
                return np.sum(acc) + 10 * x[i]
    return np.sum(acc)


add(G("r13_t_nested_continue_early_return", first_exceed, (X6,), ref="fd"))
add(G("r13_t_nested_continue_no_return", first_exceed, (X6, 100.0), ref="fd"))


def list_of_arrays(x):
    rows = [x[:3].copy(), x[3:].copy()]
    for k in range(4):
        i = k % 2
        rows[i] = rows[i] * 0.5 + rows[1 - i][::-1]
        if np.sum(rows[i]) > 2.0:
            rows[i] = rows[i] - 1.0
    return np.sum(rows[0] * rows[1])


add(G("r13_t_list_of_arrays_swap_updates", list_of_arrays, (X6,), ref="fd"))


def argmax_write(x):
    y = x.copy()
    k = int(np.argmax(y))
    y[k] = 0.0
    y[(k + 1) % len(y)] *= 3.0
    return np.sum(y ** 2)


add(G("r13_t_data_dependent_index_write", argmax_write, (X6,), ref="fd"))


def newaxis_write(x):
    A = np.zeros((3, 2))
    A[:, np.newaxis, 0] = x[:3, None]
    A[::-2, 1] = x[3:5]
    return np.sum(A * np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))


add(G("r13_t_newaxis_and_negative_step_write", newaxis_write, (X6,), ref="fd"))


def dict_accumulator(x):
    acc = {"pos": 0.0, "neg": 0.0}
    for v in x:
        key = "pos" if v > 0 else "neg"
        acc[key] = acc[key] + v * v
    return acc["pos"] - 2 * acc["neg"]


add(G("r13_t_dict_accumulator_branch_key", dict_accumulator, (X6,), ref=lambda: np.where(X6 > 0, 2 * X6, -4 * X6), tol=0.0))


def while_index(x):
    i = 0
    s = 0.0
    while i < len(x) and s < 2.0:
        s += abs(x[i])
        i += 1
    return s * x[i % len(x)]


add(G("r13_t_while_index_data_exit", while_index, (X6,), ref="fd"))
