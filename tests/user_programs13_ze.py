"""Round 13, part ze: scatter idioms with repeated indices -- np.add.at / subtract.at /
multiply.at in 2-D, fancy `+=` with repeats (NumPy keeps one), np.put, under grad, jacfwd,
jvp and vmap, against central differences and Python loops."""
import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
R = np.array([0, 1, 0, 2, 0])
C = np.array([1, 1, 1, 0, 2])
V5 = np.array([0.5, -1.0, 2.0, 0.3, 1.5])


def add_at_2d(v):
    A = np.ones((3, 3))
    np.add.at(A, (R, C), v)
    return A


def sub_at(v):
    a = np.zeros(3)
    np.subtract.at(a, R, v ** 2)
    return a


def mul_at(v):
    a = np.ones(3)
    np.multiply.at(a, R, v)
    return a


def fancy_2d_iadd(v):
    A = np.zeros((3, 3))
    A[R, C] += v
    return A


def put_vals(v):
    a = np.zeros(6)
    np.put(a, [0, 2, 4], v[:3])
    return a


for name, f in (("r13_ze_add_at_2d_repeats", add_at_2d), ("r13_ze_subtract_at", sub_at), ("r13_ze_multiply_at_repeats", mul_at),
                ("r13_ze_fancy_2d_iadd_repeats", fancy_2d_iadd), ("r13_ze_np_put", put_vals)):
    add(pair(name + "_jacrev", (lambda f=f: revsrc.jacrev(f)(V5)), (lambda f=f: fdj(f, V5)), tol=1e-7))
    add(pair(name + "_jacfwd", (lambda f=f: revsrc.jacfwd(f)(V5)), (lambda f=f: fdj(f, V5)), tol=1e-7))
add(pair("r13_ze_fancy_2d_iadd_value", lambda: revsrc.jvp(fancy_2d_iadd, (V5,), (np.ones(5),))[0], lambda: fancy_2d_iadd(V5), tol=0.0))
add(pair("r13_ze_multiply_at_vmap", lambda: revsrc.vmap(mul_at)(np.stack([V5, 2 * V5])), lambda: np.stack([mul_at(V5), mul_at(2 * V5)]), tol=0.0))
add(pair("r13_ze_add_at_2d_vmap_grad", lambda: revsrc.vmap(revsrc.grad(lambda v: np.sum(add_at_2d(v) ** 2)))(np.stack([V5, -V5])),
         lambda: np.stack([fd_checked(lambda v: np.sum(add_at_2d(v) ** 2), (w,))[0] for w in (V5, -V5)]), tol=1e-7))
