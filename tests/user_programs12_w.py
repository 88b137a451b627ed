"""Round 12, part w: rebinding, continued -- a global dict of functions whose entry is
replaced, a global array rebound to another shape or dtype, a property or a method's
defaults replaced on the class, a global tuple of functions rebound."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair  # noqa: F401

CASES = []
add = CASES.append

ACTS = {"a": math.tanh, "b": math.sin}


def dict_const_key(x):
    return ACTS["a"](x) * 2.0


def dict_runtime_key(x, k):
    f = ACTS[k]
    return f(x) * 2.0


def dict_entry_replaced_const_key():
    df = revsrc.grad(dict_const_key)
    a = df(0.3)
    old = ACTS["a"]
    ACTS["a"] = math.exp
    try:
        b = df(0.3)
    finally:
        ACTS["a"] = old
    return [a, b]


add(pair("r12_global_dict_entry_replaced_const_key", dict_entry_replaced_const_key,
         lambda: [2 * (1 - math.tanh(0.3) ** 2), 2 * math.exp(0.3)], tol=1e-15))


def dict_entry_replaced_runtime_key():
    df = revsrc.grad(dict_runtime_key)
    a = df(0.3, "a")
    old = ACTS["a"]
    ACTS["a"] = math.exp
    try:
        b = df(0.3, "a")
    finally:
        ACTS["a"] = old
    return [a, b]


add(pair("r12_global_dict_entry_replaced_runtime_key", dict_entry_replaced_runtime_key,
         lambda: [2 * (1 - math.tanh(0.3) ** 2), 2 * math.exp(0.3)], tol=1e-15))


def dict_entry_replaced_jit():
    jf = revsrc.jit(dict_const_key)
    a = jf(0.3)
    old = ACTS["a"]
    ACTS["a"] = math.exp
    try:
        b = jf(0.3)
    finally:
        ACTS["a"] = old
    return [a, b]


add(pair("r12_global_dict_entry_replaced_jit_value", dict_entry_replaced_jit,
         lambda: [2 * math.tanh(0.3), 2 * math.exp(0.3)], tol=1e-15))

FUNCS = (math.sin, math.cos)


def tuple_funcs(x):
    return FUNCS[0](x) + FUNCS[1](x)


def tuple_rebound():
    global FUNCS
    df = revsrc.grad(tuple_funcs)
    a = df(0.4)
    FUNCS = (math.exp, math.cos)
    try:
        b = df(0.4)
    finally:
        FUNCS = (math.sin, math.cos)
    return [a, b]


add(pair("r12_global_tuple_of_functions_rebound", tuple_rebound,
         lambda: [math.cos(0.4) - math.sin(0.4), math.exp(0.4) - math.sin(0.4)], tol=1e-15))

WV = np.array([1.0, 2.0, 3.0])


def weighted(x):
    return np.sum(WV * x[: len(WV)] ** 2)


def global_array_new_shape():
    global WV
    df = revsrc.grad(weighted)
    x = np.array([1.0, 1.0, 1.0, 1.0])
    a = df(x)
    WV = np.array([1.0, 2.0, 3.0, 4.0])
    try:
        b = df(x)
    finally:
        WV = np.array([1.0, 2.0, 3.0])
    return [a, b]


add(pair("r12_global_array_rebound_new_shape", global_array_new_shape,
         lambda: [np.array([2.0, 4.0, 6.0, 0.0]), np.array([2.0, 4.0, 6.0, 8.0])], tol=0.0))


def global_array_new_dtype():
    global WV
    df = revsrc.grad(weighted)
    x = np.array([1.5, 1.5, 1.5])
    a = df(x)
    WV = np.array([1, 2, 3])
    try:
        b = df(x)
    finally:
        WV = np.array([1.0, 2.0, 3.0])
    return [a, b]


add(pair("r12_global_array_rebound_int_dtype", global_array_new_dtype,
         lambda: [np.array([3.0, 6.0, 9.0]), np.array([3.0, 6.0, 9.0])], tol=0.0))


class Disk:
    def __init__(self, r):
        self.r = r

    @property
    def area(self):
        return math.pi * self.r ** 2

    def mass(self, rho):
        return self.area * rho * rho


def property_replaced_on_class():
    d = Disk(1.0)
    df = revsrc.grad(d.mass)
    a = df(2.0)
    old = Disk.area
    Disk.area = property(lambda self: 4.0 * self.r)
    try:
        b = df(2.0)
    finally:
        Disk.area = old
    return [a, b]


add(pair("r12_property_replaced_on_class", property_replaced_on_class, lambda: [4 * math.pi, 16.0], tol=1e-15))


class Osc:
    def step(self, x, dt=0.1):
        return x - dt * x ** 3

    def run(self, x):
        for _ in range(3):
            x = self.step(x)
        return x


def method_defaults_replaced():
    o = Osc()
    df = revsrc.grad(o.run)
    a = df(1.0)
    old = Osc.step.__defaults__
    Osc.step.__defaults__ = (0.2,)
    try:
        b = df(1.0)
    finally:
        Osc.step.__defaults__ = old
    return [a, b]


def _osc_ref(dt):
    x, d = 1.0, 1.0
    for _ in range(3):
        d *= 1 - 3 * dt * x * x
        x = x - dt * x ** 3
    return d


add(pair("r12_method_defaults_replaced_on_class", method_defaults_replaced, lambda: [_osc_ref(0.1), _osc_ref(0.2)], tol=1e-15))
