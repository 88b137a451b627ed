"""User programs, corpus 5o: class hierarchies, decorators as JAX users write them, compositions."""
import functools
import math

import numpy as np

import revsrc
from user_programs5_harness import case, fd_grad

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


class Base:
    k = 1.0

    def act(self, x):
        return x * x

    def loss(self, x):
        return self.act(x) * self.k


class Child(Base):
    def act(self, x):
        return x * x * x


_child = Child()
_child.k = 5.0
add("dynamic_dispatch_override_and_instance_attr", _child.loss, (1.5,))


class A:
    def f(self, x):
        return 2.0 * x


class B:
    def f(self, x):
        return 3.0 * x


class AB(B, A):
    def g(self, x):
        return self.f(x) * x


add("multiple_inheritance_mro", AB().g, (1.5,))


class Slotted:
    __slots__ = ("w",)

    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return self.w * x * x


add("slots_class_method", Slotted(2.0).loss, (1.5,))


class Memo:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *a):
        return self.fn(*a)


def _sq3(x):
    return x * x * 3.0


add("class_based_decorator_object", Memo(_sq3), (1.5,))


@functools.lru_cache(maxsize=None)
def cached_helper(t):
    return math.sin(t)


def uses_cached(x):
    return cached_helper(x) * x


add("lru_cache_helper", uses_cached, (0.5,))


def clamp_input(fn):
    def w(x):
        return fn(min(x, 1.0))
    return w


@clamp_input
def clamped(x):
    return x ** 3


add("decorator_clamps_input", clamped, (0.5,))
add("decorator_clamps_input_active", clamped, (1.5,))


class Monkey:
    k = 1.0

    def act(self, x):
        return x * x

    def loss(self, x):
        return self.act(x) * self.k


def _class_changes_between_calls():
    m = Monkey()
    g = revsrc.grad(m.loss)
    a = g(1.5)
    Monkey.k = 7.0
    b = g(1.5)
    Monkey.act = lambda self, x: x * 10.0
    c = revsrc.grad(m.loss)(1.5)
    d = g(1.5)
    return (a, b, c, d), (3.0, 21.0, 70.0, 70.0)


add("class_attr_and_method_patched_between_calls", _class_changes_between_calls, t="custom")


@revsrc.grad
def d_cube(x):
    return x ** 3


@functools.partial(revsrc.grad, argnums=1)
def d_second(x, y):
    return x * y * y


@functools.partial(revsrc.value_and_grad, has_aux=True)
def vg_aux(x):
    return x * x, {"x": x}


@revsrc.jit
def jitted_sum(x, n):
    s = 0.0
    for i in range(n):
        s += math.sin(x * i)
    return s


def _decorator_style():
    return ((d_cube(2.0), d_second(2.0, 3.0), vg_aux(1.5)[1], vg_aux(1.5)[0][0], jitted_sum(0.5, 3)),
            (12.0, 12.0, 3.0, 2.25, math.sin(0.5) + math.sin(1.0)))


add("decorators_grad_partial_jit", _decorator_style, t="custom")


def uses_jitted(x):
    return jitted_sum(x, 4) * x


add("grad_through_decorated_jit", uses_jitted, (0.7,))


def _vmap_calls_jit():
    def f(x):
        return jitted_sum(x, 3) + 1.0
    xs = np.array([0.1, 0.5])
    return revsrc.vmap(f)(xs), np.array([f(0.1), f(0.5)])


add("vmap_of_function_calling_jit", _vmap_calls_jit, t="custom", tol=0.0)


def _jvp_of_value_and_grad():
    def f(x):
        return x ** 4
    out, tan = revsrc.jvp(revsrc.value_and_grad(f), (1.5,), (1.0,))
    return (out[0], out[1], tan[0], tan[1]), (1.5 ** 4, 4 * 1.5 ** 3, 4 * 1.5 ** 3, 12 * 1.5 ** 2)


add("jvp_of_value_and_grad", _jvp_of_value_and_grad, t="custom")


def _hessian_of_vjp_user():
    def f(x):
        return np.sin(x) * x[0]

    def g(x):
        y, back = revsrc.vjp(f, x)
        return np.sum(back(np.ones(2))[0] ** 2)
    x = np.array([0.3, 0.8])
    return revsrc.grad(g)(x), fd_grad(g, (x,), {}, 0)[0]


add("grad_of_function_calling_vjp", _hessian_of_vjp_user, t="custom")


def _vmap_jacfwd():
    def f(x):
        return np.array([x[0] * x[1], np.sin(x[1])])
    X = np.array([[1.0, 2.0], [0.5, -1.0]])
    J = revsrc.vmap(revsrc.jacfwd(f))(X)
    exp = np.array([[[x[1], x[0]], [0.0, np.cos(x[1])]] for x in X])
    return J, exp


add("vmap_of_jacfwd", _vmap_jacfwd, t="custom")


def stop_grad_loop(x):
    acc = 0.0
    h = x
    for i in range(3):
        h = np.tanh(h) + revsrc.stop_gradient(h) * 0.5
        acc = acc + np.sum(h)
    return acc


def _stop_grad_loop_manual():
    x = np.array([0.3, -0.2])
    hs = [x]
    for i in range(3):
        hs.append(np.tanh(hs[-1]) + 0.5 * hs[-1])
    dh = np.ones(2)
    total = np.zeros(2)
    for i in range(3):
        dh = dh * (1 - np.tanh(hs[i]) ** 2)
        total = total + dh
    return [total]


add("stop_gradient_in_loop", stop_grad_loop, (np.array([0.3, -0.2]),), ref=_stop_grad_loop_manual)


def _stop_grad_loop_value():
    x = np.array([0.3, -0.2])
    return revsrc.value_and_grad(stop_grad_loop)(x)[0], stop_grad_loop(x)


add("stop_gradient_in_loop_value", _stop_grad_loop_value, t="custom", tol=0.0)


def stop_grad_slice_write(x):
    y = revsrc.stop_gradient(x * 1.0)
    y[0] = x[0] * 3.0
    return np.sum(y * x)


# sum(y * x) = 3 x0 * x0 + c1 * x1: [6 x0, c1] = [1.8, -0.2]
add("stop_gradient_then_item_write", stop_grad_slice_write, (np.array([0.3, -0.2]),),
    ref=lambda: [np.array([6 * 0.3, -0.2])])


def stop_grad_item_iadd(x):
    y = revsrc.stop_gradient(x * 1.0)
    y[0] += x[0] * 3.0
    return np.sum(y * x)


# (c0 + 3 x0) * x0 + c1 * x1 with c = x: [c0 + 6 x0, c1] = [2.1, -0.2]
add("stop_gradient_then_item_iadd", stop_grad_item_iadd, (np.array([0.3, -0.2]),),
    ref=lambda: [np.array([0.3 + 6 * 0.3, -0.2])])


def stop_grad_times_one_write(x):
    y = revsrc.stop_gradient(x) * 1.0
    y[0] = x[0] * 3.0
    return np.sum(y * x)


add("stop_gradient_times_one_then_write", stop_grad_times_one_write, (np.array([0.3, -0.2]),),
    ref=lambda: [np.array([6 * 0.3, -0.2])])


def penalty_with_has_aux(w):
    dl = revsrc.grad(lambda_loss, has_aux=True)
    g, aux = dl(w)
    return np.sum(g ** 2) + aux


def lambda_loss(w):
    return np.sum(w ** 3), float(np.sum(w))


add("grad_has_aux_called_inside", penalty_with_has_aux, (np.array([0.3, -0.2]),))
