"""Round 12, part r: state read other ways -- another module's global rebound, properties
over changed attributes, objects and dicts passed as non-differentiated arguments whose
contents change between calls, getattr by name, __call__ replaced, subclasses."""
import math

import numpy as np

import revsrc
import user_programs12_helpers as helpers
from user_programs7_harness import pair, fd_checked  # noqa: F401

CASES = []
add = CASES.append


def uses_other_module(x):
    return helpers.helper(x) + helpers.K * x


def other_module_global_rebound():
    df = revsrc.grad(uses_other_module)
    a = df(0.5)
    helpers.K = 3.0
    try:
        b = df(0.5)
    finally:
        helpers.K = 2.0
    return [a, b]


add(pair("r12_other_module_global_rebound", other_module_global_rebound,
         lambda: [2 * math.cos(0.5) + 2, 3 * math.cos(0.5) + 3], tol=1e-15))


def other_module_global_rebound_jit():
    jf = revsrc.jit(revsrc.grad(uses_other_module))
    a = jf(0.5)
    helpers.K = 3.0
    try:
        b = jf(0.5)
    finally:
        helpers.K = 2.0
    return [a, b]


add(pair("r12_other_module_global_rebound_jit", other_module_global_rebound_jit,
         lambda: [2 * math.cos(0.5) + 2, 3 * math.cos(0.5) + 3], tol=1e-15))


def other_module_class_attr(x):
    return helpers.Box.scale * x * x


def other_module_class_attr_changed():
    df = revsrc.grad(other_module_class_attr)
    a = df(1.0)
    helpers.Box.scale = 4.0
    try:
        b = df(1.0)
    finally:
        helpers.Box.scale = 1.0
    return [a, b]


add(pair("r12_other_module_class_attr_changed", other_module_class_attr_changed, lambda: [2.0, 8.0], tol=0.0))


class Tank:
    def __init__(self, r):
        self.r = r

    @property
    def area(self):
        return math.pi * self.r ** 2

    def volume(self, h):
        return self.area * h


def property_over_changed_attr():
    t = Tank(1.0)
    dv = revsrc.grad(t.volume)
    a = dv(2.0)
    t.r = 2.0
    b = dv(2.0)
    return [a, b]


add(pair("r12_property_over_changed_attr", property_over_changed_attr, lambda: [math.pi, 4 * math.pi], tol=1e-15))


def with_obj_arg(x, tank):
    return tank.area * x ** 2


def obj_arg_changes():
    df = revsrc.grad(with_obj_arg)
    t = Tank(1.0)
    a = df(1.0, t)
    t.r = 3.0
    b = df(1.0, t)
    return [a, b]


add(pair("r12_object_argument_attr_changed", obj_arg_changes, lambda: [2 * math.pi, 18 * math.pi], tol=1e-14))


def obj_arg_changes_jit():
    jf = revsrc.jit(revsrc.grad(with_obj_arg))
    t = Tank(1.0)
    a = jf(1.0, t)
    t.r = 3.0
    b = jf(1.0, t)
    return [a, b]


add(pair("r12_object_argument_attr_changed_jit", obj_arg_changes_jit, lambda: [2 * math.pi, 18 * math.pi], tol=1e-14))


def with_cfg_dict(x, cfg):
    if cfg["mode"] == "square":
        return x * x * cfg["k"]
    return math.exp(x) * cfg["k"]


def dict_arg_changes():
    df = revsrc.grad(with_cfg_dict)
    cfg = {"mode": "square", "k": 2.0}
    a = df(1.0, cfg)
    cfg["mode"] = "exp"
    b = df(1.0, cfg)
    cfg["k"] = 5.0
    c = df(1.0, cfg)
    return [a, b, c]


add(pair("r12_dict_argument_contents_changed", dict_arg_changes, lambda: [4.0, 2 * math.e, 5 * math.e], tol=1e-15))


def dict_arg_changes_jit():
    jf = revsrc.jit(revsrc.grad(with_cfg_dict))
    cfg = {"mode": "square", "k": 2.0}
    a = jf(1.0, cfg)
    cfg["mode"] = "exp"
    b = jf(1.0, cfg)
    return [a, b]


add(pair("r12_dict_argument_contents_changed_jit", dict_arg_changes_jit, lambda: [4.0, 2 * math.e], tol=1e-15))


def with_list_arg(x, ks):
    return sum(k * x ** i for i, k in enumerate(ks))


def list_arg_grows():
    df = revsrc.grad(with_list_arg)
    ks = [1.0, 2.0]
    a = df(2.0, ks)
    ks.append(3.0)
    b = df(2.0, ks)
    return [a, b]


add(pair("r12_list_argument_grows", list_arg_grows, lambda: [2.0, 2.0 + 12.0], tol=0.0))


def list_arg_grows_vmap():
    vf = revsrc.vmap(revsrc.grad(with_list_arg), in_axes=(0, None))
    ks = [1.0, 2.0]
    xs = np.array([1.0, 2.0])
    a = vf(xs, ks)
    ks.append(3.0)
    b = vf(xs, ks)
    return [a, b]


add(pair("r12_list_argument_grows_vmap", list_arg_grows_vmap,
         lambda: [np.array([2.0, 2.0]), np.array([2.0 + 6.0, 2.0 + 12.0])], tol=0.0))


def getattr_by_name(x, name):
    return getattr(math, name)(x)


add(pair("r12_getattr_module_function_by_name", lambda: [revsrc.grad(getattr_by_name)(0.3, n) for n in ("sin", "cos", "exp")],
         lambda: [math.cos(0.3), -math.sin(0.3), math.exp(0.3)], tol=1e-15))


class Scaler:
    def __call__(self, x):
        return 2.0 * x * x


def call_replaced_on_class():
    s = Scaler()
    df = revsrc.grad(s)
    a = df(1.0)
    old = Scaler.__call__
    Scaler.__call__ = lambda self, x: 5.0 * x * x
    try:
        b = df(1.0)
    finally:
        Scaler.__call__ = old
    return [a, b]


add(pair("r12_dunder_call_replaced_on_class", call_replaced_on_class, lambda: [4.0, 10.0], tol=0.0))


class Base:
    k = 1.0

    def f(self, x):
        return self.k * x ** 3


class Child(Base):
    pass


def subclass_attr_shadow():
    c = Child()
    df = revsrc.grad(c.f)
    a = df(1.0)
    Child.k = 2.0
    try:
        b = df(1.0)
    finally:
        del Child.k
    c2 = df(1.0)
    return [a, b, c2]


add(pair("r12_subclass_class_attr_shadow_then_deleted", subclass_attr_shadow, lambda: [3.0, 6.0, 3.0], tol=0.0))


def globals_lookup(x):
    return globals()["GK"] * x


GK = 2.0


def globals_dict_read():
    global GK
    df = revsrc.grad(globals_lookup)
    a = df(1.0)
    GK = 7.0
    try:
        b = df(1.0)
    finally:
        GK = 2.0
    return [a, b]


add(pair("r12_globals_dict_lookup", globals_dict_read, lambda: [2.0, 7.0], tol=0.0))


def nested_closure_function_rebound():
    def act(v):
        return v * v

    def f(x):
        return act(x) + x
    df = revsrc.grad(f)
    a = df(2.0)

    def act(v):  # noqa: F811
        return v * v * v
    b = df(2.0)
    return [a, b]


add(pair("r12_closure_function_rebound", nested_closure_function_rebound, lambda: [5.0, 13.0], tol=0.0))


def tuple_shape_arg(x, shape):
    return np.sum(x.reshape(shape)[0] ** 2)


def shape_arg_changes():
    df = revsrc.grad(tuple_shape_arg)
    x = np.arange(1.0, 7.0)
    return [df(x, (2, 3)), df(x, (3, 2))]


add(pair("r12_shape_tuple_argument_changes", shape_arg_changes,
         lambda: [np.array([2.0, 4.0, 6.0, 0.0, 0.0, 0.0]), np.array([2.0, 4.0, 0.0, 0.0, 0.0, 0.0])], tol=0.0))


class Scaler2:
    def __call__(self, x):
        return 2.0 * x * x


def call_replaced_on_class_jit():
    s = Scaler2()
    jf = revsrc.jit(s)
    a = jf(1.0)
    old = Scaler2.__call__
    Scaler2.__call__ = lambda self, x: 7.0 * x
    try:
        b = jf(1.0)
    finally:
        Scaler2.__call__ = old
    return [a, b]


add(pair("r12_dunder_call_replaced_on_class_jit_value", call_replaced_on_class_jit, lambda: [2.0, 7.0], tol=0.0))


def bound_method_then_class_method_replaced():
    # Python keeps the bound method's function: the old derivative is the right one
    class M:
        def f(self, x):
            return x * x
    m = M()
    bm = m.f
    df = revsrc.grad(bm)
    M.f = lambda self, x: x * x * x
    return [df(2.0), bm(2.0)]


add(pair("r12_bound_method_keeps_old_function", bound_method_then_class_method_replaced, lambda: [4.0, 4.0], tol=0.0))
