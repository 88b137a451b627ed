"""Round 15, part q: vmap of array programs and their derivatives -- branches whose
test differs between examples, item assignment per example, while loops of different
trip counts, reductions over the mapped axis, global arrays changed between calls,
per-example Hessians and Jacobians of small-state simulations."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(4242)


def branchy(x):
    if np.sum(x) > 0:
        return np.sum(np.sin(x) * x)
    return np.prod(np.cos(x))


XB = np.array([[0.5, 0.2, 0.1], [-1.0, 0.3, -0.2], [2.0, -0.1, 0.4]])
add(pair("r15_vmap_branch_differs_per_example", lambda: revsrc.vmap(branchy)(XB), lambda: np.array([branchy(x) for x in XB]), tol=1e-14))
add(pair("r15_vmap_grad_branch_differs", lambda: revsrc.vmap(revsrc.grad(branchy))(XB),
         lambda: np.stack([ag()[0].grad(agify(branchy))(x) for x in XB]), tol=1e-13))


def item_assign_prog(x):
    y = np.zeros(4)
    y[0] = x[0] * x[1]
    y[1:3] = np.exp(x[1:3])
    y[3] = y[0] + y[2] ** 2
    return np.sum(y * np.arange(1.0, 5.0))


X4 = rng.normal(size=(3, 4))
add(pair("r15_vmap_grad_item_assignment", lambda: revsrc.vmap(revsrc.grad(item_assign_prog))(X4),
         lambda: np.stack([fd_checked(item_assign_prog, (x,))[0] for x in X4]), tol=1e-7))


def while_per_example(x):
    v = x.copy()
    n = 0
    while np.max(np.abs(v)) > 0.05:
        v = 0.5 * v + 0.01 * v ** 2
        n += 1
    return np.sum(v) + n


add(pair("r15_vmap_while_different_trip_counts", lambda: revsrc.vmap(while_per_example)(np.array([[1.0, -2.0], [0.1, 0.2], [5.0, 0.0]])),
         lambda: np.array([while_per_example(x) for x in np.array([[1.0, -2.0], [0.1, 0.2], [5.0, 0.0]])]), tol=1e-14))
add(pair("r15_vmap_grad_while_different_trip_counts", lambda: revsrc.vmap(revsrc.grad(while_per_example))(np.array([[1.0, -2.0], [0.1, 0.2], [5.0, 0.0]])),
         lambda: np.stack([fd_checked(while_per_example, (x,))[0] for x in np.array([[1.0, -2.0], [0.1, 0.2], [5.0, 0.0]])]), tol=1e-7))


def osc_state(p):
    s = np.array([1.0, 0.0, 0.2])
    for _ in range(30):
        s = s + 0.05 * np.array([s[1], -p[0] * s[0] - p[1] * s[1], s[0] - s[2]])
    return s


PP = np.array([[2.0, 0.1], [1.0, 0.5], [4.0, 0.0]])
add(pair("r15_vmap_jacrev_small_state_sim", lambda: revsrc.vmap(revsrc.jacrev(osc_state))(PP),
         lambda: np.stack([ag()[0].jacobian(agify(osc_state))(p) for p in PP]), tol=1e-11))


def osc_cost(p):
    s = osc_state(p)
    return s @ s


add(pair("r15_vmap_hessian_small_state_sim", lambda: revsrc.vmap(revsrc.hessian(osc_cost))(PP),
         lambda: np.stack([ag()[0].hessian(agify(osc_cost))(p) for p in PP]), tol=1e-10))
add(pair("r15_vmap_hvp_small_state_sim", lambda: revsrc.vmap(lambda p, v: revsrc.hvp(osc_cost, (p,), (v,)))(PP, np.ones((3, 2))),
         lambda: np.stack([ag()[0].hessian(agify(osc_cost))(p) @ np.ones(2) for p in PP]), tol=1e-10))

WG = np.array([1.0, 2.0, 3.0])


def uses_warr(x):
    return np.sum(WG * x ** 2)


def _warr_change():
    v = revsrc.vmap(revsrc.grad(uses_warr))
    a = v(np.ones((2, 3)))
    WG[1] = -1.0
    try:
        b = v(np.ones((2, 3)))
    finally:
        WG[1] = 2.0
    return (a, b)


add(pair("r15_vmap_global_array_item_changed", _warr_change,
         lambda: (np.tile([2.0, 4.0, 6.0], (2, 1)), np.tile([2.0, -2.0, 6.0], (2, 1))), tol=0.0))


def norm_rows(x):
    return x / np.linalg.norm(x)


add(pair("r15_vmap_jacfwd_normalize", lambda: revsrc.vmap(revsrc.jacfwd(norm_rows))(XB),
         lambda: np.stack([(np.eye(3) - np.outer(x, x) / (x @ x)) / np.linalg.norm(x) for x in XB]), tol=1e-13))


def softmax_xent(logits, label):
    z = logits - np.max(logits)
    return -z[label] + np.log(np.sum(np.exp(z)))


LG = rng.normal(size=(4, 5))
LB = np.array([0, 3, 4, 1])


def _xent_ref():
    out = []
    for l, y in zip(LG, LB):
        p = np.exp(l - l.max())
        p /= p.sum()
        p[y] -= 1.0
        out.append(p)
    return np.stack(out)


add(pair("r15_vmap_grad_int_label_per_example", lambda: revsrc.vmap(revsrc.grad(softmax_xent))(LG, LB), _xent_ref, tol=1e-13))
add(pair("r15_grad_of_mean_vmap_xent", lambda: revsrc.grad(lambda L: np.mean(revsrc.vmap(softmax_xent)(L, LB)))(LG),
         lambda: _xent_ref() / 4.0, tol=1e-13))


def solve_small(A_flat, b):
    A = A_flat.reshape(2, 2) + 3.0 * np.eye(2)
    x = np.linalg.solve(A, b)
    return x @ x + np.linalg.det(A)


AF = rng.normal(size=(3, 4))
BF = rng.normal(size=(3, 2))
add(pair("r15_vmap_grad_solve_det_per_example", lambda: revsrc.vmap(revsrc.grad(solve_small, argnums=(0, 1)))(AF, BF),
         lambda: tuple(np.stack([ag()[0].grad(agify(solve_small), i)(a, b) for a, b in zip(AF, BF)]) for i in (0, 1)), tol=1e-12))


def cumulative(x):
    c = np.cumsum(x)
    s = np.sort(x)
    return np.sum(c * s)


add(pair("r15_vmap_grad_cumsum_sort", lambda: revsrc.vmap(revsrc.grad(cumulative))(X4),
         lambda: np.stack([fd_checked(cumulative, (x,))[0] for x in X4]), tol=1e-7))
add(pair("r15_vmap_in_axes_1_grad_matrix_columns", lambda: revsrc.vmap(revsrc.grad(cumulative), in_axes=1, out_axes=1)(X4.T),
         lambda: np.stack([fd_checked(cumulative, (x,))[0] for x in X4]).T, tol=1e-7))
