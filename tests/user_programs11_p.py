"""Round 11, part p: module globals (a float gain, an activation function, a coefficient)
rebound between calls of one jit / vmap / grad / vmap(grad) / jit(grad) object, as a
notebook user re-runs a cell that changes a setting."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair

CASES = []
add = CASES.append

GAIN = 2.0
ACT = math.tanh
K = 3.0


def response(x):
    return GAIN * ACT(x) + K * x


XS = np.array([0.1, 0.5])


def _settings(gain, act, k):
    global GAIN, ACT, K
    GAIN, ACT, K = gain, act, k


def _run_all(objs):
    j, v, d, vd, jd = objs
    return [j(0.5), float(v(XS)[1]), d(0.5), float(vd(XS)[1]), jd(0.5)]


def rebinding_sequence():
    objs = (revsrc.jit(response), revsrc.vmap(response), revsrc.grad(response),
            revsrc.vmap(revsrc.grad(response)), revsrc.jit(revsrc.grad(response)))
    out = []
    try:
        for gain, act, k in ((2.0, math.tanh, 3.0), (5.0, math.tanh, 3.0), (5.0, math.sin, 3.0), (5.0, math.sin, -1.0)):
            _settings(gain, act, k)
            out.append(_run_all(objs))
    finally:
        _settings(2.0, math.tanh, 3.0)
    return out


def rebinding_reference():
    out = []
    for gain, act, dact, k in ((2.0, math.tanh, lambda x: 1 - math.tanh(x) ** 2, 3.0),
                               (5.0, math.tanh, lambda x: 1 - math.tanh(x) ** 2, 3.0),
                               (5.0, math.sin, math.cos, 3.0), (5.0, math.sin, math.cos, -1.0)):
        val = gain * act(0.5) + k * 0.5
        der = gain * dact(0.5) + k
        out.append([val, val, der, der, der])
    return out


add(pair("r11_globals_rebound_between_calls_all_transforms", rebinding_sequence, rebinding_reference, tol=1e-14))


def _one(which):
    def got():
        seq = rebinding_sequence()
        return [row[which] for row in seq]

    def ref():
        return [row[which] for row in rebinding_reference()]
    return got, ref


for i, nm in enumerate(("jit", "vmap", "grad", "vmap_grad", "jit_grad")):
    g, r = _one(i)
    add(pair(f"r11_globals_rebound_{nm}", g, r, tol=1e-14))
