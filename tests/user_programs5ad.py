"""User programs, corpus 5ad: NumPy functions through functools.partial, *args and **kwargs."""
import functools

import numpy as np

from user_programs5_harness import case

CASES = []
K = np.array([0.9, 0.2, 0.6, 1.3])
X = np.array([0.35, 0.8, 0.55, 0.2])
V = np.array([0.3, -1.2, 0.7, 0.45])

DOTK = functools.partial(np.dot, K)
CLIP = functools.partial(np.clip, a_min=0.3, a_max=0.6)
POWK = functools.partial(np.power, K)


def p1(v): return DOTK(v)


def p2(v): return np.sum(CLIP(v))


def p3(v): return np.sum(POWK(v))


def p4(v):
    f = functools.partial(np.maximum, K)
    return np.sum(f(v))


def p5(v):
    kwargs = {"b": K}
    return np.dot(a=v, **kwargs)


def p6(v):
    args = (K, v)
    return np.sum(np.maximum(*args))


def p7(v):
    opts = dict(a_min=v, a_max=2.0)
    return np.sum(np.clip(K, **opts))


for _fn in [p1, p2, p3, p4, p5, p6, p7]:
    CASES.append(case("partial_grad_" + _fn.__name__, _fn, (X,), tol=1e-5))
    CASES.append(case("partial_jvp_" + _fn.__name__, _fn, (X,), t="jvp", tangents=V, tol=1e-5))
