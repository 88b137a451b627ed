"""Round 13, part v: vmap and forward mode on array programs whose branches differ across the
batch (per-example ifs, whiles with per-example trip counts, in-place writes, argmax picks),
and jvp/jacfwd/hvp through in-place loops -- each against a Python loop over the batch."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
rng = np.random.default_rng(8)
XB = rng.normal(size=(6, 3))


def branchy_row(x):
    if x[0] > 0:
        y = x * x
    elif x[1] > 0:
        y = np.sin(x)
    else:
        y = -x
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def per_row(f, X, *rest):
    return np.array([f(x, *rest) for x in X])


add(pair("r13_v_vmap_branchy_rows", lambda: revsrc.vmap(branchy_row)(XB), lambda: per_row(branchy_row, XB), tol=1e-15))
add(pair("r13_v_vmap_grad_branchy_rows", lambda: revsrc.vmap(revsrc.grad(branchy_row))(XB),
         lambda: np.stack([fd_checked(branchy_row, (x,))[0] for x in XB]), tol=1e-7))
add(pair("r13_v_vmap_grad_branchy_in_axes1", lambda: revsrc.vmap(revsrc.grad(branchy_row), in_axes=1, out_axes=1)(XB.T.copy()),
         lambda: np.stack([fd_checked(branchy_row, (x,))[0] for x in XB]).T, tol=1e-7))


def while_per_row(x):
    y = x.copy()
    k = 0
    while np.max(np.abs(y)) > 0.1 and k < 50:
        y = 0.7 * y + 0.02 * np.sin(y)
        k += 1
    return np.sum(y) * (k + 1)


add(pair("r13_v_vmap_while_trip_counts", lambda: revsrc.vmap(while_per_row)(XB), lambda: per_row(while_per_row, XB), tol=1e-14))
add(pair("r13_v_vmap_grad_while_trip_counts", lambda: revsrc.vmap(revsrc.grad(while_per_row))(XB),
         lambda: np.stack([fd_checked(while_per_row, (x,))[0] for x in XB]), tol=1e-7))


def inplace_row(x):
    y = np.zeros(4)
    y[:3] = x
    k = int(np.argmax(x))
    y[k] *= 2.0
    y[3] = y[k] + x[(k + 1) % 3]
    if y[3] > 1.0:
        y[:2] += y[2:]
    return np.sum(y ** 2)


add(pair("r13_v_vmap_inplace_argmax", lambda: revsrc.vmap(inplace_row)(XB), lambda: per_row(inplace_row, XB), tol=1e-14))
add(pair("r13_v_vmap_grad_inplace_argmax", lambda: revsrc.vmap(revsrc.grad(inplace_row))(XB),
         lambda: np.stack([fd_checked(inplace_row, (x,))[0] for x in XB]), tol=1e-7))


def weighted(w, x):
    s = 0.0
    for i in range(3):
        if x[i] * w[i] > 0.2:
            s += w[i] * x[i] ** 2
        else:
            s -= w[i]
    return s


W3 = np.array([0.5, -1.0, 2.0])
add(pair("r13_v_per_example_grads_branchy", lambda: revsrc.vmap(revsrc.grad(weighted), in_axes=(None, 0))(W3, XB),
         lambda: np.stack([fd_checked(weighted, (W3, x))[0] for x in XB]), tol=1e-7))
add(pair("r13_v_vmap_jacfwd_branchy", lambda: revsrc.vmap(revsrc.jacfwd(lambda x: np.where(x > 0, x ** 2, np.sin(x))))(XB),
         lambda: np.stack([np.diag(np.where(x > 0, 2 * x, np.cos(x))) for x in XB]), tol=1e-14))
add(pair("r13_v_vmap_hessian_branchy", lambda: revsrc.vmap(revsrc.hessian(branchy_row))(XB[:4]),
         lambda: np.stack([np.diag(np.array([1.0, 2.0, 3.0]) * (2.0 if x[0] > 0 else (-np.sin(x) if x[1] > 0 else 0.0)) * np.ones(3)) for x in XB[:4]]), tol=1e-12))


def loop_inplace(x):
    y = x.copy()
    for i in range(1, len(y)):
        y[i] = y[i] + 0.5 * y[i - 1] ** 2
        if y[i] > 1.0:
            y[i] = 1.0 + 0.1 * y[i]
    return y


X5 = np.array([0.3, 0.8, -0.2, 0.5, 0.9])
add(pair("r13_v_jacfwd_inplace_loop", lambda: revsrc.jacfwd(loop_inplace)(X5), lambda: fdj(loop_inplace, X5), tol=1e-7))
add(pair("r13_v_jacrev_inplace_loop", lambda: revsrc.jacrev(loop_inplace)(X5), lambda: fdj(loop_inplace, X5), tol=1e-7))
add(JV("r13_v_jvp_inplace_loop", loop_inplace, (X5,), (np.array([1.0, -1.0, 0.5, 0.0, 2.0]),)))
add(pair("r13_v_hvp_inplace_loop", lambda: revsrc.hvp(lambda x: np.sum(loop_inplace(x) ** 2), (X5,), (np.ones(5),)),
         lambda: fd_checked(lambda x: revsrc.grad(lambda z: np.sum(loop_inplace(z) ** 2))(x) @ np.ones(5), (X5,))[0], tol=1e-6))
add(pair("r13_v_linearize_inplace_loop", lambda: revsrc.linearize(loop_inplace, X5)[1](np.ones(5)),
         lambda: fdj(loop_inplace, X5) @ np.ones(5), tol=1e-7))
add(pair("r13_v_vmap_inplace_loop_rows", lambda: revsrc.vmap(loop_inplace)(np.stack([X5, X5[::-1], 2 * X5])),
         lambda: np.stack([loop_inplace(X5), loop_inplace(X5[::-1]), loop_inplace(2 * X5)]), tol=1e-15))
add(pair("r13_v_vmap_jacrev_inplace_rows", lambda: revsrc.vmap(revsrc.jacrev(loop_inplace))(np.stack([X5, 2 * X5])),
         lambda: np.stack([fdj(loop_inplace, X5), fdj(loop_inplace, 2 * X5)]), tol=1e-7))


def sort_jvp(x):
    s = np.sort(x)
    return s * np.arange(1.0, 6.0)


add(JV("r13_v_jvp_sort", sort_jvp, (X5,), (np.array([1.0, 2.0, 3.0, 4.0, 5.0]),)))
add(pair("r13_v_vmap_sort_grad", lambda: revsrc.vmap(revsrc.grad(lambda x: np.sum(sort_jvp(x))))(np.stack([X5, -X5])),
         lambda: np.stack([np.arange(1.0, 6.0)[np.argsort(np.argsort(X5))], np.arange(1.0, 6.0)[np.argsort(np.argsort(-X5))]]), tol=1e-15))
