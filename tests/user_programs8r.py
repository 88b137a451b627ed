"""Round 8 user programs, batch r: backend="jax" on the programs of earlier batches (a
traced break, item writes by a computed index, a Newton while, branches on traced
sums, dict parameters, relaxation sweeps with slice and item writes, int branches,
sort and median, masked writes, linear algebra), each against the default backend's
gradient (itself checked against references in the other batches) or a closed form."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked  # noqa: F401

CASES = []
add = CASES.append


def same(name, f, args, argnums=0, tol=1e-9, ref=None):
    add(pair(name, lambda: revsrc.grad(f, argnums=argnums, backend="jax")(*args),
             ref or (lambda: revsrc.grad(f, argnums=argnums)(*args)), tol=tol))


def traced_break(x, thr):
    s = np.zeros_like(x)
    for k in range(50):
        s = s + 0.05 * np.tanh(x + s)
        if np.max(s) > thr:
            break
    return np.sum(s ** 2)


same("r8_jax_traced_break_in_for", traced_break, (np.array([0.3, -0.2, 0.5]), 0.5))


def modulo_index_writes(x):
    y = np.zeros(5)
    for i in range(5):
        y[i] = x[i % 3] * i
    return np.sum(y ** 2)


same("r8_jax_item_writes_modulo_index", modulo_index_writes, (np.array([0.3, -0.2, 0.5]),))


def newton_while(a):
    x = 1.0
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


same("r8_jax_newton_while", newton_while, (2.0,), ref=lambda: 0.5 / math.sqrt(2.0))


def traced_if(x):
    if np.sum(x) > 0:
        return np.sum(x ** 2)
    return np.sum(-x)


same("r8_jax_traced_if_positive", traced_if, (np.array([0.3, 0.2]),))
same("r8_jax_traced_if_negative", traced_if, (np.array([-0.3, 0.2]),))


def dict_chain(p, x):
    h = x
    for k in sorted(p):
        h = np.tanh(h * p[k])
    return np.sum(h)


same("r8_jax_dict_params_sorted_keys", dict_chain, ({"a": np.array([1.0, 2.0]), "b": 0.5}, np.array([0.3, 0.4])))


def relax_sweeps(x):
    u = x.copy()
    for _ in range(40):
        u[1:-1] = 0.5 * (u[2:] + u[:-2])
        u[0] = u[1]
    return np.sum(u * np.arange(len(u)))


same("r8_jax_relaxation_slice_and_item_write_40_sweeps", relax_sweeps, (np.linspace(0, 1, 6) ** 2,))


def item_copy_40(x):
    u = x.copy()
    for _ in range(40):
        u[0] = u[1]
    return np.sum(u)


same("r8_jax_item_write_in_scanned_loop", item_copy_40, (np.linspace(0, 1, 6) ** 2,),
     ref=lambda: np.array([0.0, 2.0, 1.0, 1.0, 1.0, 1.0]))


def item_copy_8(x):
    u = x.copy()
    for _ in range(8):
        u[0] = u[1]
    return np.sum(u)


same("r8_jax_item_write_in_unrolled_loop", item_copy_8, (np.linspace(0, 1, 6) ** 2,),
     ref=lambda: np.array([0.0, 2.0, 1.0, 1.0, 1.0, 1.0]))


def int_branch_loop(x, n):
    t = 0.0
    for i in range(n):
        if i % 2 == 0:
            t = t + math.sin(x * i)
        else:
            t = t * 0.5
    return t


same("r8_jax_int_branch_in_loop", int_branch_loop, (0.7, 40))


def sort_median(x):
    y = np.sort(x)
    return np.sum(y * np.arange(4)) + np.max(np.abs(x)) + np.median(x)


same("r8_jax_sort_median", sort_median, (np.array([0.3, -1.0, 2.0, 0.5]),))


def linalg_mix(A, b):
    S = A @ A.T + np.eye(3)
    return np.sum(np.linalg.solve(S, b)) + np.linalg.slogdet(S)[1]


same("r8_jax_solve_slogdet", linalg_mix, (np.arange(9.0).reshape(3, 3) / 10, np.ones(3)), argnums=(0, 1))


def while_break_scalar(x):
    tot = 0.0
    k = 0
    while k < 100:
        tot = tot + x ** 2 / (k + 1)
        if tot > 3.0:
            break
        k += 1
    return tot


same("r8_jax_while_with_break", while_break_scalar, (0.9,))


def item_iadd_40(x):
    u = x.copy()
    for _ in range(40):
        u[0] += 0.1 * u[1]
    return np.sum(u)


same("r8_jax_item_iadd_in_scanned_loop", item_iadd_40, (np.linspace(0, 1, 6) ** 2 + 0.1,),
     ref=lambda: np.array([1.0, 1.0 + 4.0, 1.0, 1.0, 1.0, 1.0]))


def item_decay_40(x):
    u = x.copy()
    for _ in range(40):
        u[2] = u[2] * 0.9
    return np.sum(u)


same("r8_jax_item_self_decay_in_scanned_loop", item_decay_40, (np.linspace(0, 1, 6) ** 2 + 0.1,),
     ref=lambda: np.array([1.0, 1.0, 0.9 ** 40, 1.0, 1.0, 1.0]))


def row_write_40(x):
    M = np.outer(x, x)
    for _ in range(40):
        M[0, :] = M[1, :] * 0.5
    return np.sum(M)


same("r8_jax_row_write_in_scanned_loop", row_write_40, (np.linspace(0, 1, 6) ** 2 + 0.1,))


def view_imul_40(x):
    u = x.copy()
    v = u[1:3]
    for _ in range(40):
        v *= 0.99
    return np.sum(u)


same("r8_jax_view_imul_in_scanned_loop", view_imul_40, (np.linspace(0, 1, 6) ** 2 + 0.1,),
     ref=lambda: np.array([1.0, 0.99 ** 40, 0.99 ** 40, 1.0, 1.0, 1.0]))
