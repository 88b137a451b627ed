"""Round 16, part l: second order and checkpointing on state loops -- hessians and
jacrev(grad) through item writes, sorting and while loops, memory= on while loops, vjp
with has_aux, linearize of while loops, float32 state."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def item_write_state(p):
    s = np.zeros(4)
    s[0] = p[0]
    for k in range(1, 4):
        s[k] = math.tanh(s[k - 1] * p[1] + p[2] * k)
    return np.sum(s ** 2)


PI = np.array([0.5, 1.3, -0.2])
add(pair("r16l_item_write_chain_hessian", lambda: revsrc.hessian(item_write_state)(PI),
         lambda: fdj(lambda v: revsrc.grad(item_write_state)(v), PI), tol=1e-6))
add(pair("r16l_item_write_chain_jacrev_grad", lambda: revsrc.jacrev(revsrc.grad(item_write_state))(PI),
         lambda: revsrc.hessian(item_write_state)(PI), tol=1e-10))


def while_newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-14 * a:
        x = 0.5 * (x + a / x)
    return x


add(pair("r16l_while_memory_equals_stored", lambda: revsrc.grad(while_newton_sqrt, memory=2)(7.0),
         lambda: revsrc.grad(while_newton_sqrt)(7.0), tol=0.0))
add(pair("r16l_while_grad_closed_form", lambda: revsrc.grad(while_newton_sqrt)(7.0), lambda: 0.5 / math.sqrt(7.0), tol=1e-10))
add(pair("r16l_while_hessian_closed_form", lambda: revsrc.hessian(while_newton_sqrt)(7.0), lambda: -0.25 * 7.0 ** -1.5, tol=1e-8))
add(pair("r16l_while_linearize", lambda: revsrc.linearize(while_newton_sqrt, 7.0)[1](2.0), lambda: 1.0 / math.sqrt(7.0), tol=1e-10))


def sorted_weights(x):
    s = np.sort(x)
    return np.sum(s * np.array([1.0, 2.0, 3.0, 4.0]) * s)


X4 = np.array([0.3, -1.2, 2.5, 0.7])
add(pair("r16l_sort_hessian", lambda: revsrc.hessian(sorted_weights)(X4),
         lambda: np.diag(2 * np.array([2.0, 1.0, 4.0, 3.0])), tol=1e-12))
add(JV("r16l_sort_jvp", sorted_weights, (X4,), (np.array([1.0, 0.5, -1.0, 2.0]),), tol=1e-8))


def aux_vjp(w):
    r = np.tanh(w * 2.0)
    return r, {"norm": float(np.sum(r ** 2))}


W3 = np.array([0.1, -0.4, 0.9])


def _vjp_aux():
    out, fn, aux = revsrc.vjp(aux_vjp, W3, has_aux=True)
    return out, fn(np.array([1.0, 2.0, 3.0])), aux


add(pair("r16l_vjp_has_aux", _vjp_aux,
         lambda: (np.tanh(2 * W3), (2 * (1 - np.tanh(2 * W3) ** 2) * np.array([1.0, 2.0, 3.0]),), {"norm": float(np.sum(np.tanh(2 * W3) ** 2))}),
         tol=1e-12))


def f32_state(p):
    s = np.array([1.0, 0.0], dtype=np.float32)
    for _ in range(20):
        s = s + np.float32(0.1) * np.array([s[1], -p * s[0]], dtype=np.float32)
    return s[0]


add(pair("r16l_float32_state_value_exact", lambda: revsrc.value_and_grad(f32_state)(np.float32(2.0))[0],
         lambda: f32_state(np.float32(2.0)), tol=0.0))
add(pair("r16l_float32_state_grad", lambda: revsrc.grad(f32_state)(2.0),
         lambda: (f32_state(2.0 + 1e-3) - f32_state(2.0 - 1e-3)) / 2e-3, tol=2e-3))


def piecewise_loop(x):
    y = x
    for k in range(6):
        if y > 1.0:
            y = math.sqrt(y) + 0.1 * k
        elif y < -1.0:
            y = -math.sqrt(-y)
        else:
            y = y ** 3 + 0.5 * y
    return y


add(pair("r16l_piecewise_vmap_grad_grad", lambda: revsrc.vmap(revsrc.grad(revsrc.grad(piecewise_loop)))(np.array([0.3, 2.5, -4.0])),
         lambda: np.array([ag()[0].grad(ag()[0].grad(agify(piecewise_loop)))(v) for v in (0.3, 2.5, -4.0)]), tol=1e-9))
add(pair("r16l_piecewise_jit_grad", lambda: revsrc.jit(revsrc.grad(piecewise_loop))(0.3),
         lambda: ag()[0].grad(agify(piecewise_loop))(0.3), tol=1e-12))


def rows_in_loop(a):
    M = np.array([[a[0], a[1]], [a[1], a[2]]])
    tot = 0.0
    for _ in range(3):
        M = M @ M / 2.0
        tot += np.trace(M)
    return tot


A3 = np.array([0.5, 0.2, 0.8])
add(pair("r16l_matrix_power_loop_hessian", lambda: revsrc.hessian(rows_in_loop)(A3),
         lambda: ag()[0].hessian(agify(rows_in_loop))(A3), tol=1e-10))
add(pair("r16l_matrix_power_loop_jacrev_grad", lambda: revsrc.jacrev(revsrc.grad(rows_in_loop))(A3),
         lambda: ag()[0].hessian(agify(rows_in_loop))(A3), tol=1e-10))
