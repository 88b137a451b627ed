"""Round 14, part l: state between calls -- globals, functions, objects' attributes and
default lists changed between calls of grad/jit/vmap; a derivative reused after the
global table of functions it reads is edited."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

SCALE = 2.0


def scaled(x):
    return SCALE * x * x


def _global_float_rebind():
    global SCALE
    SCALE = 2.0
    g = revsrc.grad(scaled)
    a = g(1.5)
    SCALE = 5.0
    b = g(1.5)
    SCALE = 2.0
    return a, b


add(pair("r14_global_float_rebound_grad", _global_float_rebind, lambda: (6.0, 15.0), tol=0.0))


def _global_float_rebind_jit():
    global SCALE
    SCALE = 2.0
    g = revsrc.jit(revsrc.grad(scaled))
    a = g(1.5)
    SCALE = 5.0
    b = g(1.5)
    SCALE = 2.0
    return a, b


add(pair("r14_global_float_rebound_jit_grad", _global_float_rebind_jit, lambda: (6.0, 15.0), tol=0.0))


def _global_float_rebind_vmap():
    global SCALE
    SCALE = 2.0
    g = revsrc.vmap(scaled)
    a = g(np.array([1.0, 2.0]))
    SCALE = 5.0
    b = g(np.array([1.0, 2.0]))
    SCALE = 2.0
    return a, b


add(pair("r14_global_float_rebound_vmap", _global_float_rebind_vmap, lambda: (np.array([2.0, 8.0]), np.array([5.0, 20.0])), tol=0.0))

WVEC = np.array([1.0, 2.0, 3.0])


def wdot(x):
    return np.sum(WVEC * x ** 2)


def _global_array_inplace():
    g = revsrc.grad(wdot)
    x = np.ones(3)
    a = g(x)
    WVEC[1] = 10.0
    b = g(x)
    WVEC[1] = 2.0
    return a, b


add(pair("r14_global_array_changed_in_place", _global_array_inplace, lambda: (np.array([2.0, 4.0, 6.0]), np.array([2.0, 20.0, 6.0])), tol=0.0))


def helper_a(x):
    return math.sin(x)


def uses_helper(x):
    return helper_a(x) * 2.0


def _helper_rebound():
    global helper_a
    old = helper_a
    g = revsrc.grad(uses_helper)
    a = g(0.5)
    helper_a = lambda x: x ** 3  # noqa: E731
    try:
        b = g(0.5)
    finally:
        helper_a = old
    return a, b


add(pair("r14_global_function_rebound", _helper_rebound, lambda: (2 * math.cos(0.5), 2 * 3 * 0.25), tol=1e-15))

TABLE = {"a": math.sin, "b": math.cos}


def from_table(x, key):
    f = TABLE[key]
    return f(x) * x


def _table_edit():
    g = revsrc.grad(from_table)
    a = g(0.5, "a")
    TABLE["a"] = math.exp
    try:
        b = g(0.5, "a")
    finally:
        TABLE["a"] = math.sin
    return a, b


add(pair("r14_table_entry_replaced", _table_edit, lambda: (math.cos(0.5) * 0.5 + math.sin(0.5), math.exp(0.5) * 1.5), tol=1e-15))


def from_table_const(x):
    return TABLE["b"](x) + x


def _table_edit_const():
    g = revsrc.grad(from_table_const)
    a = g(0.5)
    TABLE["b"] = math.tanh
    try:
        b = g(0.5)
    finally:
        TABLE["b"] = math.cos
    return a, b


add(pair("r14_table_entry_replaced_constant_key", _table_edit_const,
         lambda: (1 - math.sin(0.5), 1 + 1 - math.tanh(0.5) ** 2), tol=1e-15))


class Scaler:
    def __init__(self, a):
        self.a = a

    def __call__(self, x):
        return self.a * x ** 2


def _attr_change():
    s = Scaler(2.0)
    g = revsrc.grad(s)
    a = g(3.0)
    s.a = 7.0
    b = g(3.0)
    return a, b


add(pair("r14_object_attribute_changed", _attr_change, lambda: (12.0, 42.0), tol=0.0))


def _attr_change_jit():
    s = Scaler(2.0)
    g = revsrc.jit(s)
    a = g(3.0)
    s.a = 7.0
    b = g(3.0)
    return a, b


add(pair("r14_object_attribute_changed_jit", _attr_change_jit, lambda: (18.0, 63.0), tol=0.0))


def _attr_change_to_array():
    s = Scaler(2.0)
    g = revsrc.grad(s)
    a = g(3.0)
    s.a = np.array(7.0)
    b = g(3.0)
    return a, b


add(pair("r14_object_attribute_float_to_0d_array", _attr_change_to_array, lambda: (12.0, 42.0), tol=0.0))


def with_default_list(x, ws=[1.0, 2.0]):
    return sum(w * x ** (i + 1) for i, w in enumerate(ws))


def _default_list_mutated():
    g = revsrc.grad(with_default_list)
    a = g(2.0)
    with_default_list.__defaults__[0].append(3.0)
    try:
        b = g(2.0)
    finally:
        with_default_list.__defaults__[0].pop()
    return a, b


add(pair("r14_default_list_appended", _default_list_mutated, lambda: (1.0 + 8.0, 1.0 + 8.0 + 36.0), tol=0.0))


def _default_list_mutated_jit():
    g = revsrc.jit(with_default_list)
    a = g(2.0)
    with_default_list.__defaults__[0][1] = 5.0
    try:
        b = g(2.0)
    finally:
        with_default_list.__defaults__[0][1] = 2.0
    return a, b


add(pair("r14_default_list_item_changed_jit", _default_list_mutated_jit, lambda: (2.0 + 8.0, 2.0 + 20.0), tol=0.0))

COEFS = [1.0, 0.5, 0.25]


def coef_poly(x):
    return sum(c * x ** k for k, c in enumerate(COEFS))


def _global_list_item_changed():
    g = revsrc.grad(coef_poly)
    j = revsrc.jit(coef_poly)
    v = revsrc.vmap(revsrc.grad(coef_poly))
    a = (g(2.0), j(2.0), v(np.array([2.0]))[0])
    COEFS[2] = 1.0
    try:
        b = (g(2.0), j(2.0), v(np.array([2.0]))[0])
    finally:
        COEFS[2] = 0.25
    return a, b


add(pair("r14_global_list_item_changed_grad_jit_vmap", _global_list_item_changed,
         lambda: ((0.5 + 1.0, 1 + 1 + 1, 1.5), (0.5 + 4.0, 1 + 1 + 4, 4.5)), tol=0.0))


def _global_list_grows():
    g = revsrc.grad(coef_poly)
    a = g(2.0)
    COEFS.append(1.0)
    try:
        b = g(2.0)
        c = revsrc.jit(coef_poly)(2.0)
    finally:
        COEFS.pop()
    return a, b, c


add(pair("r14_global_list_appended", _global_list_grows, lambda: (1.5, 1.5 + 12.0, 3.0 + 8.0), tol=0.0))


def make_counter_loss():
    calls = [0]

    def loss(x):
        calls[0] += 0  # noqa: reads and writes the closure cell's list item
        return x * x

    return loss, calls


def _closure_cell_rebind():
    k = 2.0

    def f(x):
        return k * x ** 3

    g = revsrc.grad(f)
    a = g(1.0)
    k = 4.0
    b = g(1.0)
    return a, b


add(pair("r14_closure_variable_rebound", _closure_cell_rebind, lambda: (6.0, 12.0), tol=0.0))


def _vjp_after_global_change():
    global SCALE
    SCALE = 2.0
    y, pull = revsrc.vjp(scaled, 1.5)
    SCALE = 3.0
    try:
        return pull(1.0)
    finally:
        SCALE = 2.0


add(pair("r14_vjp_after_global_change", _vjp_after_global_change, lambda: (6.0,), tol=0.0))


def _hessian_after_global_change():
    global SCALE
    SCALE = 2.0
    h = revsrc.hessian(scaled)
    a = h(1.5)
    SCALE = 3.0
    b = h(1.5)
    SCALE = 2.0
    return a, b


add(pair("r14_hessian_after_global_change", _hessian_after_global_change, lambda: (4.0, 6.0), tol=0.0))


def _jax_backend_after_global_change():
    global SCALE
    SCALE = 2.0
    g = revsrc.grad(scaled, backend="jax")
    a = g(1.5)
    SCALE = 3.0
    b = g(1.5)
    SCALE = 2.0
    return a, b


add(pair("r14_jax_backend_after_global_change", _jax_backend_after_global_change, lambda: (6.0, 9.0), tol=0.0))
