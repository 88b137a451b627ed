"""Round 12, part o: more state that changes between calls of a derivative made once --
closure cells holding lists and dicts changed in place, default arguments changed in place,
module attributes rebound, attributes whose kind changes, hessian/jacfwd/vmap/jit made once."""
import math
import types

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


def closure_list_mutated():
    c = [1.0, 2.0]

    def f(x):
        return c[0] * x * x + c[1] * x
    df = revsrc.grad(f)
    a = df(2.0)
    c[0] = 5.0
    b = df(2.0)
    c.append(7.0)
    c[1] = -1.0
    d = df(2.0)
    return [a, b, d]


add(pair("r12_closure_list_mutated_inplace", closure_list_mutated, lambda: [6.0, 22.0, 19.0], tol=0.0))


def closure_dict_mutated_jit():
    cfg = {"k": 1.0}

    def f(x):
        return cfg["k"] * math.sin(x)
    jf = revsrc.jit(revsrc.grad(f))
    a = jf(0.5)
    cfg["k"] = 4.0
    b = jf(0.5)
    return [a, b]


add(pair("r12_closure_dict_mutated_jit", closure_dict_mutated_jit, lambda: [math.cos(0.5), 4 * math.cos(0.5)], tol=1e-15))


def closure_array_mutated_vmap():
    w = np.array([1.0])

    def f(x):
        return w[0] * x ** 3
    vf = revsrc.vmap(revsrc.grad(f))
    xs = np.array([1.0, 2.0])
    a = vf(xs)
    w[0] = 3.0
    b = vf(xs)
    return [a, b]


add(pair("r12_closure_array_mutated_vmap", closure_array_mutated_vmap,
         lambda: [np.array([3.0, 12.0]), np.array([9.0, 36.0])], tol=0.0))


def default_list_mutated_jit():
    def f(x, coeffs=[1.0, 2.0]):
        return coeffs[0] * x + coeffs[1] * x * x
    jf = revsrc.jit(revsrc.grad(f))
    a = jf(1.0)
    f.__defaults__[0][1] = 10.0
    b = jf(1.0)
    return [a, b]


add(pair("r12_default_list_mutated_jit", default_list_mutated_jit, lambda: [5.0, 21.0], tol=0.0))


def default_dict_mutated_hessian():
    def f(x, p={"a": 1.0}):
        return p["a"] * x ** 4
    h = revsrc.hessian(f)
    a = h(1.0)
    f.__defaults__[0]["a"] = 2.0
    b = h(1.0)
    return [a, b]


add(pair("r12_default_dict_mutated_hessian", default_dict_mutated_hessian, lambda: [12.0, 24.0], tol=0.0))


def hessian_after_global_rebound():
    global K_H
    h = revsrc.hessian(uses_kh)
    a = h(1.0)
    K_H = 5.0
    try:
        b = h(1.0)
    finally:
        K_H = 1.0
    return [a, b]


K_H = 1.0


def uses_kh(x):
    return K_H * x ** 3


add(pair("r12_hessian_after_global_rebound", hessian_after_global_rebound, lambda: [6.0, 30.0], tol=0.0))


def jacfwd_after_global_array_mutated():
    A = GA
    J = revsrc.jacfwd(uses_ga)
    x = np.array([1.0, 2.0])
    a = J(x)
    A[0, 1] = 9.0
    b = J(x)
    A[0, 1] = 0.5
    return [a, b]


GA = np.array([[1.0, 0.5], [0.0, 2.0]])


def uses_ga(x):
    return GA @ x


add(pair("r12_jacfwd_after_global_array_mutated", jacfwd_after_global_array_mutated,
         lambda: [np.array([[1.0, 0.5], [0.0, 2.0]]), np.array([[1.0, 9.0], [0.0, 2.0]])], tol=0.0))


HELPERS = types.SimpleNamespace(act=math.tanh)


def via_namespace(x):
    return HELPERS.act(x) * 2.0


def namespace_attr_rebound():
    df = revsrc.grad(via_namespace)
    a = df(0.3)
    HELPERS.act = math.sin
    try:
        b = df(0.3)
    finally:
        HELPERS.act = math.tanh
    return [a, b]


add(pair("r12_namespace_function_attr_rebound", namespace_attr_rebound,
         lambda: [2 * (1 - math.tanh(0.3) ** 2), 2 * math.cos(0.3)], tol=1e-15))


class Cfg:
    pass


CFG = Cfg()
CFG.scale = 2.0


def reads_cfg(x):
    return CFG.scale * x * x


def cfg_attr_kind_changes():
    df = revsrc.grad(reads_cfg)
    a = df(np.array([1.0, 2.0]))
    CFG.scale = np.array([1.0, 3.0])
    try:
        b = df(np.array([1.0, 2.0]))
    finally:
        CFG.scale = 2.0
    return [a, b]


add(pair("r12_global_object_attr_float_to_array", lambda: [np.sum(v) for v in cfg_attr_kind_changes()] if False else
         cfg_attr_kind_changes_sum(), lambda: [12.0, 14.0], tol=0.0))


def reads_cfg_sum(x):
    return np.sum(CFG.scale * x * x)


def cfg_attr_kind_changes_sum():
    df = revsrc.grad(reads_cfg_sum)
    a = df(np.array([1.0, 2.0]))
    CFG.scale = np.array([1.0, 3.0])
    try:
        b = df(np.array([1.0, 2.0]))
    finally:
        CFG.scale = 2.0
    return [float(np.sum(a)), float(np.sum(b))]


class Stepper:
    def __init__(self, n):
        self.n = n

    def run(self, x):
        for _ in range(self.n):
            x = x - 0.1 * math.sin(x)
        return x


def _stepper_ref(n):
    x, d = 1.0, 1.0
    for _ in range(n):
        d *= 1 - 0.1 * math.cos(x)
        x = x - 0.1 * math.sin(x)
    return d


def grad_method_int_attr_changes():
    s = Stepper(3)
    df = revsrc.grad(s.run)
    a = df(1.0)
    s.n = 6
    b = df(1.0)
    return [a, b]


add(pair("r12_grad_method_int_attr_loopcount", grad_method_int_attr_changes, lambda: [_stepper_ref(3), _stepper_ref(6)], tol=1e-14))


def hvp_method_attr_changes():
    s = Stepper(2)
    a = revsrc.hvp(s.run, (1.0,), (1.0,))
    s.n = 4
    b = revsrc.hvp(s.run, (1.0,), (1.0,))
    return [a, b]


add(pair("r12_hvp_method_attr_changes", hvp_method_attr_changes,
         lambda: [fd_checked(lambda x: revsrc.grad(Stepper(2).run)(x), (1.0,))[0] if False else fd_checked(_stepper_ref_x, (1.0, 2))[0],
                  fd_checked(_stepper_ref_x, (1.0, 4))[0]], tol=1e-6))


def _stepper_ref_x(x, n):
    d = 1.0
    for _ in range(n):
        d *= 1 - 0.1 * math.cos(x)
        x = x - 0.1 * math.sin(x)
    return d


def code_replaced():
    def f(x):
        return x * x

    def g(x):
        return x * x * x
    df = revsrc.grad(f)
    a = df(2.0)
    f.__code__ = g.__code__
    b = df(2.0)
    return [a, b]


add(pair("r12_function_code_replaced", code_replaced, lambda: [4.0, 12.0], tol=0.0))


def global_function_rebound_in_vmap():
    global SHAPE_FN
    vf = revsrc.vmap(revsrc.grad(uses_shape_fn))
    xs = np.array([0.1, 0.2])
    a = vf(xs)
    SHAPE_FN = math.exp
    try:
        b = vf(xs)
    finally:
        SHAPE_FN = math.sin
    return [a, b]


SHAPE_FN = math.sin


def uses_shape_fn(x):
    return SHAPE_FN(x) * 3.0


add(pair("r12_global_function_rebound_vmap", global_function_rebound_in_vmap,
         lambda: [3 * np.cos([0.1, 0.2]), 3 * np.exp([0.1, 0.2])], tol=1e-15))


def partial_keywords_mutated():
    import functools

    def f(x, a=1.0):
        return a * x * x
    p = functools.partial(f, a=2.0)
    df = revsrc.grad(p)
    a = df(1.0)
    p.keywords["a"] = 5.0
    b = df(1.0)
    return [a, b]


add(pair("r12_partial_keywords_mutated", partial_keywords_mutated, lambda: [4.0, 10.0], tol=0.0))


def module_global_numpy_scalar_jit():
    global NPK
    jf = revsrc.jit(uses_npk)
    a = jf(2.0)
    NPK = np.float64(3.0)
    try:
        b = jf(2.0)
    finally:
        NPK = np.float64(1.5)
    return [a, b]


NPK = np.float64(1.5)


def uses_npk(x):
    return NPK * x


add(pair("r12_global_numpy_scalar_rebound_jit", module_global_numpy_scalar_jit, lambda: [3.0, 6.0], tol=0.0))


def instance_attr_shadows_method():
    class M:
        def act(self, x):
            return x * x

        def run(self, x):
            return self.act(x) + x
    m = M()
    df = revsrc.grad(m.run)
    a = df(2.0)
    m.act = lambda x: x * x * x
    b = df(2.0)
    return [a, b]


add(pair("r12_instance_attr_shadows_method", instance_attr_shadows_method, lambda: [5.0, 13.0], tol=0.0))
