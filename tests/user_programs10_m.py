"""Round 10, state a derivative must read afresh at each call (as Python does): a global
list appended to, a global dict and a global array changed in place, an object's
attribute changed, a closure cell rebound by its enclosing function, a class attribute
changed, between two calls of one grad/jit/vmap/hessian/jvp object made once, as
notebooks and simulation drivers do."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
COEFS = [1.0, 2.0]
CFG = {"k": 2.0, "order": 2}
WEIGHTS = np.array([1.0, 1.0, 1.0])


def poly(x):
    return sum(c * x ** i for i, c in enumerate(COEFS))


def d_poly(x, coefs):
    return sum(i * c * x ** (i - 1) for i, c in enumerate(coefs) if i > 0)


def appended(make):
    fn = make(poly)
    a = fn(1.5)
    COEFS.append(4.0)
    try:
        b = fn(1.5)
    finally:
        COEFS.pop()
    return a, b


CASES.append(pair("r10_grad_global_list_appended", lambda: appended(revsrc.grad),
                  lambda: (d_poly(1.5, [1.0, 2.0]), d_poly(1.5, [1.0, 2.0, 4.0])), tol=1e-12))
CASES.append(pair("r10_jit_global_list_appended", lambda: appended(revsrc.jit),
                  lambda: (poly(1.5), poly(1.5) + 4.0 * 2.25), tol=0.0))
CASES.append(pair("r10_hessian_global_list_appended", lambda: appended(revsrc.hessian),
                  lambda: (0.0, 8.0), tol=1e-12))


def spring(x):
    return 0.5 * CFG["k"] * x ** CFG["order"]


def dict_changed(make):
    fn = make(spring)
    a = fn(1.5)
    CFG["k"], CFG["order"] = 3.0, 3
    try:
        b = fn(1.5)
    finally:
        CFG["k"], CFG["order"] = 2.0, 2
    return a, b


CASES.append(pair("r10_grad_global_dict_changed", lambda: dict_changed(revsrc.grad),
                  lambda: (2.0 * 1.5, 0.5 * 3.0 * 3 * 2.25), tol=1e-12))
CASES.append(pair("r10_jit_global_dict_changed", lambda: dict_changed(revsrc.jit),
                  lambda: (spring(1.5), 0.5 * 3.0 * 1.5 ** 3), tol=0.0))


def weighted(x):
    return np.sum(WEIGHTS * np.sin(x))


def array_changed(make, x):
    fn = make(weighted)
    a = fn(x)
    WEIGHTS[:] = [0.0, 2.0, -1.0]
    try:
        b = fn(x)
    finally:
        WEIGHTS[:] = 1.0
    return a, b


X3 = np.array([0.1, 0.2, 0.3])
CASES.append(pair("r10_grad_global_array_changed_in_place", lambda: array_changed(revsrc.grad, X3),
                  lambda: (np.cos(X3), np.array([0.0, 2.0, -1.0]) * np.cos(X3)), tol=1e-12))
CASES.append(pair("r10_grad_jax_global_array_changed_in_place",
                  lambda: array_changed(lambda f: revsrc.grad(f, backend="jax"), X3),
                  lambda: (np.cos(X3), np.array([0.0, 2.0, -1.0]) * np.cos(X3)), tol=1e-12))


class Reactor:
    def __init__(self, k):
        self.k = k

    def conversion(self, t):
        return 1.0 - math.exp(-self.k * t)


def attribute_changed(make):
    r = Reactor(0.5)
    fn = make(r.conversion)
    a = fn(2.0)
    r.k = 1.5
    b = fn(2.0)
    return a, b


CASES.append(pair("r10_grad_bound_method_attribute_changed", lambda: attribute_changed(revsrc.grad),
                  lambda: (0.5 * math.exp(-1.0), 1.5 * math.exp(-3.0)), tol=1e-12))
CASES.append(pair("r10_jit_bound_method_attribute_changed", lambda: attribute_changed(revsrc.jit),
                  lambda: (1.0 - math.exp(-1.0), 1.0 - math.exp(-3.0)), tol=0.0))


def closure_rebound(make):
    rate = 0.5

    def decay(t):
        return math.exp(-rate * t)
    fn = make(decay)
    a = fn(2.0)
    rate = 1.5
    b = fn(2.0)
    return a, b


CASES.append(pair("r10_grad_closure_cell_rebound", lambda: closure_rebound(revsrc.grad),
                  lambda: (-0.5 * math.exp(-1.0), -1.5 * math.exp(-3.0)), tol=1e-12))
CASES.append(pair("r10_jit_closure_cell_rebound", lambda: closure_rebound(revsrc.jit),
                  lambda: (math.exp(-1.0), math.exp(-3.0)), tol=0.0))
CASES.append(pair("r10_hessian_closure_cell_rebound", lambda: closure_rebound(revsrc.hessian),
                  lambda: (0.25 * math.exp(-1.0), 2.25 * math.exp(-3.0)), tol=1e-12))


class Units:
    factor = 2.0


def converted(x):
    return Units.factor * x * x


def class_attr_changed(make):
    fn = make(converted)
    a = fn(1.5)
    Units.factor = 10.0
    try:
        b = fn(1.5)
    finally:
        Units.factor = 2.0
    return a, b


CASES.append(pair("r10_grad_class_attribute_changed", lambda: class_attr_changed(revsrc.grad),
                  lambda: (6.0, 30.0), tol=1e-12))
CASES.append(pair("r10_jit_class_attribute_changed", lambda: class_attr_changed(revsrc.jit),
                  lambda: (4.5, 22.5), tol=0.0))


def vmap_list_appended():
    fn = revsrc.vmap(poly)
    xs = np.array([0.5, 1.5])
    a = fn(xs)
    COEFS.append(4.0)
    try:
        b = fn(xs)
    finally:
        COEFS.pop()
    return a, b


CASES.append(pair("r10_vmap_global_list_appended", vmap_list_appended,
                  lambda: (np.array([poly(0.5), poly(1.5)]), np.array([poly(0.5) + 1.0, poly(1.5) + 9.0])), tol=0.0))


def jvp_dict_twice():
    a = revsrc.jvp(spring, (1.5,), (1.0,))
    CFG["k"] = 4.0
    try:
        b = revsrc.jvp(spring, (1.5,), (1.0,))
    finally:
        CFG["k"] = 2.0
    return a, b


CASES.append(pair("r10_jvp_global_dict_between_calls", jvp_dict_twice,
                  lambda: ((2.25, 3.0), (4.5, 6.0)), tol=1e-12))


def value_and_grad_list_item_changed():
    vg = revsrc.value_and_grad(poly)
    a = vg(2.0)
    COEFS[1] = -1.0
    try:
        b = vg(2.0)
    finally:
        COEFS[1] = 2.0
    return a, b


CASES.append(pair("r10_value_and_grad_list_item_changed", value_and_grad_list_item_changed,
                  lambda: ((5.0, 2.0), (-1.0, -1.0)), tol=1e-12))
