"""Round 12, part u: more rebinding between calls of one derivative -- a helper's defaults
replaced, library functions monkeypatched (as tests and notebooks do), an instance
attribute named __call__ (which Python ignores)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair  # noqa: F401

CASES = []
add = CASES.append


def helper_p(x, p=2.0):
    return x ** p


def calls_helper(x):
    return helper_p(x) + x


def helper_defaults_replaced():
    df = revsrc.grad(calls_helper)
    a = df(1.5)
    old = helper_p.__defaults__
    helper_p.__defaults__ = (3.0,)
    try:
        b = df(1.5)
    finally:
        helper_p.__defaults__ = old
    return [a, b]


add(pair("r12_helper_defaults_replaced", helper_defaults_replaced, lambda: [4.0, 3 * 2.25 + 1], tol=0.0))


def two_sin(x):
    return math.sin(x) * 2


def monkeypatch_math_sin():
    df = revsrc.grad(two_sin)
    a = df(0.5)
    old = math.sin
    math.sin = math.cos
    try:
        b = df(0.5)
    finally:
        math.sin = old
    return [a, b]


add(pair("r12_monkeypatched_math_sin", monkeypatch_math_sin, lambda: [2 * math.cos(0.5), -2 * math.sin(0.5)], tol=1e-15))


def sum_tanh(x):
    return np.sum(np.tanh(x))


def monkeypatch_np_tanh():
    df = revsrc.grad(sum_tanh)
    x = np.array([0.5])
    a = df(x)
    old = np.tanh
    np.tanh = np.sin
    try:
        b = df(x)
    finally:
        np.tanh = old
    return [a, b]


# the patched call's value (sin) meets the old rule (1 - ans^2): 0.770, neither 0.786 nor cos(0.5)
add(pair("r12_monkeypatched_np_tanh", monkeypatch_np_tanh, lambda: [np.array([1 - math.tanh(0.5) ** 2]), np.array([math.cos(0.5)])],
         tol=1e-15))


def monkeypatch_math_sin_jit():
    jf = revsrc.jit(two_sin)
    a = jf(0.5)
    old = math.sin
    math.sin = math.cos
    try:
        b = jf(0.5)
    finally:
        math.sin = old
    return [a, b]


add(pair("r12_monkeypatched_math_sin_jit_value", monkeypatch_math_sin_jit, lambda: [2 * math.sin(0.5), 2 * math.cos(0.5)], tol=1e-15))


class S:
    def __call__(self, x):
        return 2.0 * x * x


def instance_call_attr_ignored():
    s = S()
    s.__call__ = lambda x: 100.0 * x
    return [revsrc.grad(s)(1.0), s(1.0)]


add(pair("r12_instance_dunder_call_ignored", instance_call_attr_ignored, lambda: [4.0, 2.0], tol=0.0))
