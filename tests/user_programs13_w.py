"""Round 13, part w: state that changes between calls of one derivative -- closure cells
rebound by nonlocal setters, lists a closure holds changed in place, global arrays changed
in place, object attributes rebound, class attributes, defaults replaced; under grad, jit,
vmap, hessian and backend="jax". Each call must see the state of its own moment."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def make_model():
    k = 1.0

    def loss(x):
        return k * x * x

    def set_k(v):
        nonlocal k
        k = v
    return loss, set_k


def closure_cell_case(wrap):
    loss, set_k = make_model()
    d = wrap(loss)
    a = d(1.5)
    set_k(4.0)
    b = d(1.5)
    return (a, b)


add(pair("r13_w_closure_cell_grad", lambda: closure_cell_case(revsrc.grad), lambda: (3.0, 12.0), tol=0.0))
add(pair("r13_w_closure_cell_jit_grad", lambda: closure_cell_case(lambda f: revsrc.jit(revsrc.grad(f))), lambda: (3.0, 12.0), tol=0.0))
add(pair("r13_w_closure_cell_hessian", lambda: closure_cell_case(revsrc.hessian), lambda: (2.0, 8.0), tol=0.0))
add(pair("r13_w_closure_cell_jax", lambda: closure_cell_case(lambda f: revsrc.grad(f, backend="jax")), lambda: (3.0, 12.0), tol=0.0))


def make_list_model():
    scale = [1.0]

    def loss(x):
        return scale[0] * x * x
    return loss, scale


def closure_list_case(wrap):
    loss, scale = make_list_model()
    d = wrap(loss)
    a = d(1.5)
    scale[0] = 4.0
    b = d(1.5)
    return (a, b)


add(pair("r13_w_closure_list_item_grad", lambda: closure_list_case(revsrc.grad), lambda: (3.0, 12.0), tol=0.0))
add(pair("r13_w_closure_list_item_jit_grad", lambda: closure_list_case(lambda f: revsrc.jit(revsrc.grad(f))), lambda: (3.0, 12.0), tol=0.0))
add(pair("r13_w_closure_list_item_vmap", lambda: closure_list_case(lambda f: (lambda x: revsrc.vmap(revsrc.grad(f))(np.array([x]))[0])), lambda: (3.0, 12.0), tol=0.0))

GARR = np.array([1.0, 2.0, 3.0])


def uses_garr(x):
    return np.sum(GARR * x ** 2)


def global_array_inplace(wrap):
    d = wrap(uses_garr)
    x = np.array([1.0, 1.0, 1.0])
    a = d(x)
    GARR[1] = 10.0
    try:
        b = d(x)
    finally:
        GARR[1] = 2.0
    return (a, b)


add(pair("r13_w_global_array_inplace_grad", lambda: global_array_inplace(revsrc.grad), lambda: (np.array([2.0, 4.0, 6.0]), np.array([2.0, 20.0, 6.0])), tol=0.0))
add(pair("r13_w_global_array_inplace_jax", lambda: global_array_inplace(lambda f: revsrc.grad(f, backend="jax")), lambda: (np.array([2.0, 4.0, 6.0]), np.array([2.0, 20.0, 6.0])), tol=0.0))
add(pair("r13_w_global_array_inplace_hessian", lambda: global_array_inplace(revsrc.hessian), lambda: (np.diag([2.0, 4.0, 6.0]), np.diag([2.0, 20.0, 6.0])), tol=0.0))

GLIST = [1.0, 2.0]


def uses_glist(x):
    return GLIST[0] * x + GLIST[1] * x * x


def global_list_inplace(wrap):
    d = wrap(uses_glist)
    a = d(1.0)
    GLIST[1] = 5.0
    try:
        b = d(1.0)
    finally:
        GLIST[1] = 2.0
    return (a, b)


add(pair("r13_w_global_list_item_grad", lambda: global_list_inplace(revsrc.grad), lambda: (5.0, 11.0), tol=0.0))
add(pair("r13_w_global_list_item_jit", lambda: global_list_inplace(lambda f: revsrc.jit(revsrc.grad(f))), lambda: (5.0, 11.0), tol=0.0))
add(pair("r13_w_global_list_item_vmap", lambda: global_list_inplace(lambda f: (lambda x: revsrc.vmap(revsrc.grad(f))(np.array([x]))[0])), lambda: (5.0, 11.0), tol=0.0))
add(pair("r13_w_global_list_item_jax", lambda: global_list_inplace(lambda f: revsrc.grad(f, backend="jax")), lambda: (5.0, 11.0), tol=0.0))


class Spring:
    k = 2.0

    def __init__(self, rest):
        self.rest = rest

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


def attr_case(wrap):
    s = Spring(1.0)
    d = wrap(s.energy)
    a = d(3.0)
    s.rest = 2.0
    b = d(3.0)
    Spring.k = 5.0
    try:
        c = d(3.0)
    finally:
        Spring.k = 2.0
    return (a, b, c)


add(pair("r13_w_attr_and_class_attr_grad", lambda: attr_case(revsrc.grad), lambda: (4.0, 2.0, 5.0), tol=0.0))
add(pair("r13_w_attr_and_class_attr_jit", lambda: attr_case(lambda f: revsrc.jit(revsrc.grad(f))), lambda: (4.0, 2.0, 5.0), tol=0.0))
add(pair("r13_w_attr_and_class_attr_jax", lambda: attr_case(lambda f: revsrc.grad(f, backend="jax")), lambda: (4.0, 2.0, 5.0), tol=0.0))


def with_default(x, k=2.0):
    return k * x * x


def defaults_replaced(wrap):
    d = wrap(with_default)
    a = d(1.0)
    with_default.__defaults__ = (7.0,)
    try:
        b = d(1.0)
    finally:
        with_default.__defaults__ = (2.0,)
    return (a, b)


add(pair("r13_w_defaults_replaced_grad", lambda: defaults_replaced(revsrc.grad), lambda: (4.0, 14.0), tol=0.0))
add(pair("r13_w_defaults_replaced_jit", lambda: defaults_replaced(lambda f: revsrc.jit(revsrc.grad(f))), lambda: (4.0, 14.0), tol=0.0))


def helper_k(x):
    return 2.0 * x


def outer_calls_helper(x):
    return helper_k(x) * x


def helper_rebound(wrap):
    global helper_k
    d = wrap(outer_calls_helper)
    a = d(1.0)
    old = helper_k
    helper_k = lambda x: 5.0 * x  # noqa: E731
    try:
        b = d(1.0)
    finally:
        helper_k = old
    return (a, b)


add(pair("r13_w_helper_function_rebound_grad", lambda: helper_rebound(revsrc.grad), lambda: (4.0, 10.0), tol=0.0))
add(pair("r13_w_helper_function_rebound_jit", lambda: helper_rebound(lambda f: revsrc.jit(revsrc.grad(f))), lambda: (4.0, 10.0), tol=0.0))
add(pair("r13_w_helper_function_rebound_jax", lambda: helper_rebound(lambda f: revsrc.grad(f, backend="jax")), lambda: (4.0, 10.0), tol=0.0))
