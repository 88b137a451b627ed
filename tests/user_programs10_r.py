"""Round 10, derivatives made in loops and of partials and bound methods whose state
changes afterwards, as a hyper-parameter sweep in a notebook does: lambdas made in a
loop (late binding), partials over arrays changed in place, bound methods whose array
attribute is changed in place, value_and_grad after a rebinding; each derivative must
be that of the program Python would run at the call."""
import functools
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []


def grads_made_in_loop():
    gs = [revsrc.grad(lambda x: k * x * x) for k in range(1, 4)]
    return [g(2.0) for g in gs]


# each lambda reads k when called: k = 3 for all (Python's late binding); jax.grad agrees
CASES.append(pair("r10_grads_of_loop_lambdas_late_binding", grads_made_in_loop,
                  lambda: [jax().grad(f)(2.0) for f in [lambda x: k * x * x for k in range(1, 4)]], tol=1e-12))


def grads_made_in_loop_default():
    gs = [revsrc.grad(lambda x, k=k: k * x * x) for k in range(1, 4)]
    return [g(2.0) for g in gs]


CASES.append(pair("r10_grads_of_loop_lambdas_default_k", grads_made_in_loop_default, lambda: [4.0, 8.0, 12.0], tol=1e-12))


def jits_made_in_loop():
    fs = [revsrc.jit(lambda x: x + k) for k in range(3)]
    return [f(1.0) for f in fs]


CASES.append(pair("r10_jits_of_loop_lambdas_late_binding", jits_made_in_loop, lambda: [3.0, 3.0, 3.0], tol=0.0))


def weighted_loss(w, data):
    return np.sum(data * w ** 2)


def partial_array_mutated():
    data = np.array([1.0, 2.0, 3.0])
    g = revsrc.grad(functools.partial(weighted_loss, data=data))
    a = g(np.ones(3))
    data[:] = [0.0, 0.0, 10.0]
    b = g(np.ones(3))
    return a, b


CASES.append(pair("r10_grad_partial_array_mutated_in_place", partial_array_mutated,
                  lambda: (np.array([2.0, 4.0, 6.0]), np.array([0.0, 0.0, 20.0])), tol=1e-12))


class Model:
    def __init__(self):
        self.scale = np.array([1.0, 1.0])

    def loss(self, w):
        return np.sum(self.scale * np.sin(w))


def method_array_mutated():
    m = Model()
    g = revsrc.grad(m.loss)
    w = np.array([0.1, 0.2])
    a = g(w)
    m.scale[0] = 5.0
    b = g(w)
    m.scale = np.array([0.0, 3.0])
    c = g(w)
    return a, b, c


CASES.append(pair("r10_grad_method_array_attribute_changed", method_array_mutated,
                  lambda: (np.cos([0.1, 0.2]), np.array([5.0, 1.0]) * np.cos([0.1, 0.2]),
                           np.array([0.0, 3.0]) * np.cos([0.1, 0.2])), tol=1e-12))

GAIN = 1.0


def plant(u):
    return GAIN * math.tanh(u)


def vg_after_rebind():
    global GAIN
    vg = revsrc.value_and_grad(plant)
    a = vg(0.5)
    GAIN = 3.0
    try:
        b = vg(0.5)
    finally:
        GAIN = 1.0
    return a, b


CASES.append(pair("r10_value_and_grad_after_global_rebind", vg_after_rebind,
                  lambda: ((math.tanh(0.5), 1 - math.tanh(0.5) ** 2), (3 * math.tanh(0.5), 3 * (1 - math.tanh(0.5) ** 2))),
                  tol=1e-12))


def hvp_after_rebind():
    global GAIN
    a = revsrc.hvp(plant, (0.5,), (1.0,))
    GAIN = -2.0
    try:
        b = revsrc.hvp(plant, (0.5,), (1.0,))
    finally:
        GAIN = 1.0
    return a, b


def d2tanh(u):
    t = math.tanh(u)
    return -2 * t * (1 - t * t)


CASES.append(pair("r10_hvp_after_global_rebind", hvp_after_rebind, lambda: (d2tanh(0.5), -2.0 * d2tanh(0.5)), tol=1e-12))


def jacfwd_after_rebind():
    global GAIN
    J = revsrc.jacfwd(lambda v: np.array([plant(v[0]), plant(v[1]) * v[0]]))
    a = J(np.array([0.5, 0.2]))
    GAIN = 2.0
    try:
        b = J(np.array([0.5, 0.2]))
    finally:
        GAIN = 1.0
    return a, b


def jacfwd_ref(gain):
    u0, u1 = 0.5, 0.2
    s0 = gain * (1 - math.tanh(u0) ** 2)
    s1 = gain * (1 - math.tanh(u1) ** 2)
    return np.array([[s0, 0.0], [gain * math.tanh(u1), s1 * u0]])


CASES.append(pair("r10_jacfwd_after_global_rebind", jacfwd_after_rebind, lambda: (jacfwd_ref(1.0), jacfwd_ref(2.0)), tol=1e-12))


def nested_closure_counter():
    def make(scale):
        def f(x):
            return scale * x ** 3
        return f
    fs = [make(s) for s in (1.0, 2.0)]
    gs = [revsrc.grad(f) for f in fs]
    return [g(1.5) for g in gs]


CASES.append(pair("r10_grads_of_factory_closures", nested_closure_counter, lambda: [6.75, 13.5], tol=1e-12))


def grad_then_vjp_then_rebind():
    global GAIN
    out, pull = revsrc.vjp(plant, 0.5)
    first = pull(1.0)
    GAIN = 4.0
    try:
        g = revsrc.grad(plant)(0.5)
    finally:
        GAIN = 1.0
    return out, first, g


CASES.append(pair("r10_vjp_before_and_grad_after_rebind", grad_then_vjp_then_rebind,
                  lambda: (math.tanh(0.5), (1 - math.tanh(0.5) ** 2,), 4 * (1 - math.tanh(0.5) ** 2)), tol=1e-12))
