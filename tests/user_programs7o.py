"""User programs, corpus 7o: the same programs under the other backends and compiled
paths -- an int destination and an array shared through a list with backend="python"
and backend="jax"; globals (a float and a function) rebound between calls of jit, vmap,
grad, jit(grad) and vmap(grad), after enough calls for the native tier; memory= with
an array written in the loop and with a list appended to.  References: the plain call
and closed forms."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair

CASES = []


def int_store(x):
    y = np.zeros(3, dtype=int)
    y[0] = x * 10.0
    return np.sum(y) * 1.0 + x


def alias(x):
    a = np.zeros(2)
    xs = [a, a]
    xs[0] += x
    return np.sum(xs[1] * np.array([1.0, 3.0])) + np.sum(a)


X2 = np.array([1.0, 2.0])
for b in ("python", "jax"):
    CASES.append(pair("r7_float_into_int_array_backend_" + b,
                      lambda b=b: revsrc.grad(int_store, backend=b)(0.37), lambda: 1.0, tol=1e-12))
    CASES.append(pair("r7_list_shared_array_iadd_backend_" + b,
                      lambda b=b: revsrc.value_and_grad(alias, backend=b)(X2),
                      lambda: (alias(X2), np.array([2.0, 4.0])), tol=1e-12))

SCALE = 2.0
FN = math.sin


def scaled(x):
    return SCALE * FN(x) * x


def outer(x):
    return scaled(x) + 1.0


def _rebinding_runs():
    global SCALE, FN
    xs = np.linspace(0.1, 1.0, 5)
    jf, vf = revsrc.jit(outer), revsrc.vmap(outer)
    dg = revsrc.grad(outer)
    jdg, vdg = revsrc.jit(revsrc.grad(outer)), revsrc.vmap(revsrc.grad(outer))
    out = []
    try:
        for _ in range(3):
            for _ in range(150):          # enough calls for the compiled tiers to take over
                jf(0.3)
                dg(0.3)
            out.append((jf(0.3), vf(xs), dg(0.3), jdg(0.3), vdg(xs)))
            SCALE = SCALE + 1.5
            FN = math.cos if FN is math.sin else math.sin
    finally:
        SCALE, FN = 2.0, math.sin
    return out


def _rebinding_ref():
    xs = np.linspace(0.1, 1.0, 5)
    out = []
    for s, fn, dfn in ((2.0, math.sin, math.cos), (3.5, math.cos, lambda v: -math.sin(v)),
                       (5.0, math.sin, math.cos)):
        val = s * fn(0.3) * 0.3 + 1.0
        d = s * (dfn(0.3) * 0.3 + fn(0.3))
        out.append((val, np.array([s * fn(v) * v + 1.0 for v in xs]), d, d,
                    np.array([s * (dfn(v) * v + fn(v)) for v in xs])))
    return out


CASES.append(pair("r7_globals_rebound_between_jit_vmap_grad_calls", _rebinding_runs, _rebinding_ref, tol=1e-13))


def loop_writes_array(x):
    y = np.zeros(400)
    s = 0.0
    for i in range(400):
        y[i] = s * 0.1 + x
        s = s + y[i] ** 2 * 0.001
        if s > 1e6:
            break
    return s + np.sum(y) * 1e-3


CASES.append(pair("r7_memory_loop_writing_array_bits", lambda: revsrc.grad(loop_writes_array, memory=64)(0.3),
                  lambda: revsrc.grad(loop_writes_array)(0.3), tol=0.0))


def loop_appends(x, n=1000):
    xs = [x]
    for i in range(n):
        xs.append(math.sin(xs[-1]) + 0.001 * x)
    return sum(xs[-10:])


CASES.append(pair("r7_memory_loop_appending_list_bits", lambda: revsrc.grad(loop_appends, memory=256)(0.3),
                  lambda: revsrc.grad(loop_appends)(0.3), tol=0.0))


def _appends_ref(x=0.3, n=1000):
    v, dv = x, 1.0
    vals = [(v, dv)]
    for _ in range(n):
        v, dv = math.sin(v) + 0.001 * x, math.cos(v) * dv + 0.001
        vals.append((v, dv))
    return sum(d for _, d in vals[-10:])


CASES.append(pair("r7_memory_loop_appending_list_forward_ref", lambda: revsrc.grad(loop_appends, memory=256)(0.3),
                  _appends_ref, tol=1e-10))
