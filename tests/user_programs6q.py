"""User programs, corpus 6q: revsrc.jit and revsrc.vmap of callables other than plain
functions (partials, staticmethods, classmethods, bound methods, before and after
revsrc.grad of them), compared with plain Python's digits."""
import functools
import math

import numpy as np

import revsrc
from user_programs6_harness import pair

CASES = []
XS = np.array([0.1, 0.7, 1.9])


def add(name, got, ref, tol=0.0):
    CASES.append(pair(name, got, ref, tol=tol))


def damped(x, k, c=0.3):
    y = 1.0
    for _ in range(50):
        y = y + 0.02 * (-k * y - c * x)
    return y * x


P = functools.partial(damped, k=2.0, c=0.5)
add("callable_jit_partial", lambda: revsrc.jit(P)(0.7), lambda: P(0.7))
add("callable_vmap_partial", lambda: revsrc.vmap(P)(XS), lambda: np.array([P(x) for x in XS.tolist()]))
add("callable_vmap_grad_partial", lambda: revsrc.vmap(revsrc.grad(P))(XS),
    lambda: np.array([revsrc.grad(P)(x) for x in XS.tolist()]))


class Physics:
    g = 9.81

    def __init__(self, L):
        self.L = L

    @staticmethod
    def kinetic(v):
        return 0.5 * v * v

    @classmethod
    def potential(cls, h):
        return cls.g * h

    def period(self, amp):
        return 2.0 * math.pi * math.sqrt(self.L / self.g) * (1.0 + amp * amp / 16.0)


PH = Physics(1.5)
add("callable_jit_staticmethod", lambda: revsrc.jit(Physics.kinetic)(0.7), lambda: Physics.kinetic(0.7))
add("callable_vmap_staticmethod", lambda: revsrc.vmap(Physics.kinetic)(XS),
    lambda: np.array([Physics.kinetic(x) for x in XS.tolist()]))
add("callable_jit_classmethod", lambda: revsrc.jit(Physics.potential)(0.7), lambda: Physics.potential(0.7))
add("callable_vmap_bound_method_fresh", lambda: revsrc.vmap(PH.period)(XS),
    lambda: np.array([PH.period(x) for x in XS.tolist()]))


def _after_grad():
    d = revsrc.grad(PH.period)(0.3)
    return [d, revsrc.vmap(revsrc.grad(PH.period))(XS)]


add("callable_vmap_grad_bound_method", _after_grad,
    lambda: [PH.period(1.0) * 0 + 2.0 * math.pi * math.sqrt(1.5 / 9.81) * 2 * 0.3 / 16.0,
             2.0 * math.pi * math.sqrt(1.5 / 9.81) * 2 * XS / 16.0], tol=1e-12)


class Lam:
    def __init__(self, lam):
        self.lam = lam

    def __call__(self, x):
        return math.exp(-self.lam * x) * self.lam


LAM = Lam(0.8)
add("callable_jit_object_with_call", lambda: revsrc.jit(LAM)(0.7), lambda: LAM(0.7))
add("callable_grad_then_jit_object", lambda: [revsrc.grad(LAM)(0.7), revsrc.jit(LAM)(0.7)],
    lambda: [-0.8 * 0.8 * math.exp(-0.8 * 0.7), LAM(0.7)], tol=1e-15)
add("callable_jit_lambda", lambda: revsrc.jit(lambda_sq)(0.7), lambda: lambda_sq(0.7))
add("callable_jit_builtin_rule_function", lambda: revsrc.jit(math.sin)(0.7), lambda: math.sin(0.7))
add("callable_vmap_np_ufunc", lambda: revsrc.vmap(np.tanh)(XS), lambda: np.tanh(XS))

lambda_sq = lambda x: x * x + 1.0  # noqa: E731
