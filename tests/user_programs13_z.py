"""Round 13, part z: nested defs reading the enclosing function's differentiated values,
reverse over reverse on array programs with views, stop_gradient in loops (a target
network), has_aux under vmap, jvp with zero and int-valued tangents."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
X3 = np.array([0.5, -1.0, 2.0])


def nested_def_reads_outer(a):
    def step(z):
        return z - 0.1 * (z - a) ** 3
    z = 0.0
    for _ in range(10):
        z = step(z)
    return z


add(G("r13_z_nested_def_reads_outer_arg", nested_def_reads_outer, (1.3,), ref="ag", tol=1e-12))


def nested_def_rebinds(x):
    s = x * 2

    def g(t):
        return t * s
    first = g(x)
    s = x * x
    return first + g(1.0)


add(G("r13_z_nested_def_sees_rebound_cell", nested_def_rebinds, (1.5,), ref=lambda: 4 * 1.5 + 2 * 1.5, tol=0.0))


def array_prog(x):
    y = x.copy()
    v = y[1:]
    v *= y[:-1]
    return np.sum(y ** 2)


add(pair("r13_z_grad_grad_array_view_sum", lambda: revsrc.grad(lambda x: np.sum(revsrc.grad(array_prog)(x) * X3))(X3),
         lambda: fd_checked(lambda x: np.sum(revsrc.grad(array_prog)(x) * X3), (X3,))[0], tol=1e-6))
add(H("r13_z_hessian_array_view", array_prog, (X3,), ref="fd", tol=1e-5))


def td_loss(w, xs, rs, gamma=0.9):
    loss = 0.0
    for t in range(len(rs)):
        v = w @ xs[t]
        target = rs[t] + gamma * revsrc.stop_gradient(w @ xs[t + 1])
        loss += (target - v) ** 2
    return loss


XS = np.random.default_rng(2).normal(size=(5, 3))
RS = np.array([1.0, 0.0, -0.5, 0.3])


def td_ref(w):
    g = np.zeros(3)
    for t in range(4):
        d = RS[t] + 0.9 * (w @ XS[t + 1]) - w @ XS[t]
        g += -2 * d * XS[t]
    return g


add(G("r13_z_stop_gradient_td_target", td_loss, (X3, XS, RS), ref=lambda: td_ref(X3), tol=1e-13))


def with_aux(w, x):
    y = np.tanh(w * x)
    return np.sum(y), y[0]


add(pair("r13_z_vmap_grad_has_aux", lambda: revsrc.vmap(revsrc.grad(with_aux, has_aux=True), in_axes=(None, 0))(X3, np.stack([X3, 2 * X3])),
         lambda: (np.stack([X3 * (1 - np.tanh(X3 * X3) ** 2), 2 * X3 * (1 - np.tanh(2 * X3 * X3) ** 2)]),
                  np.array([np.tanh(X3[0] * X3[0]), np.tanh(2 * X3[0] * X3[0])])), tol=1e-14))
add(pair("r13_z_jvp_zero_tangent", lambda: revsrc.jvp(lambda x: np.sin(x) * x, (X3,), (np.zeros(3),)),
         lambda: (np.sin(X3) * X3, np.zeros(3)), tol=0.0))
add(pair("r13_z_jvp_two_primals_one_zero", lambda: revsrc.jvp(lambda a, b: a * b + a ** 2, (1.5, 2.0), (1.0, 0.0)),
         lambda: (5.25, 5.0), tol=0.0))


def gen_next_break(xs):
    it = (v * v for v in xs if v > 0)
    first = next(it)
    return first * 2


add(G("r13_z_generator_next", gen_next_break, (list(X3),), ref=lambda: [2.0, 0.0, 0.0], tol=0.0))


def tree_sum(t, x):
    if isinstance(t, list):
        return sum(tree_sum(c, x) for c in t)
    return t * x ** 2


TREE = [1.0, [2.0, [3.0, 4.0]], 5.0]
add(G("r13_z_recursive_tree_constant_structure", lambda x: tree_sum(TREE, x), (1.5,), ref=lambda: 15 * 3.0, tol=0.0))


def tree_sum_diff(t):
    if isinstance(t, list):
        return sum(tree_sum_diff(c) for c in t)
    return t * t


add(G("r13_z_recursive_tree_diff_leaves", tree_sum_diff, ([1.0, [2.0, [3.0, 4.0]], 5.0],),
      ref=lambda: [2.0, [4.0, [6.0, 8.0]], 10.0], tol=0.0))
