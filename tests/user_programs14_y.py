"""Round 14, part y: Python's exceptions at domain errors kept by every path -- math.sqrt
and math.log of bad values, 1/0, exp overflow, acos(2), x % 0.0, math.pow of a negative
base -- through jit, vmap, grad, jit(grad) and vmap(grad): the same exception as the plain
call (never a nan)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair

CASES = []
add = CASES.append


def f_sqrt(x):
    return math.sqrt(x) * 2.0


def f_log(x):
    return math.log(x) + x


def f_div(x):
    return 1.0 / x


def f_exp(x):
    return math.exp(x)


def f_acos(x):
    return math.acos(x)


def f_mod0(x):
    return x % 0.0


def f_pow(x):
    return math.pow(x, 0.5)


def f_loop_sqrt(x):
    s = 0.0
    for k in range(4):
        s += math.sqrt(x - k)
    return s


def _kind(thunk):
    try:
        r = thunk()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__
    return "value " + repr(np.asarray(r).tolist())


BAD = [(f_sqrt, -1.0), (f_log, 0.0), (f_div, 0.0), (f_exp, 1000.0), (f_acos, 2.0), (f_mod0, 1.0), (f_pow, -1.0), (f_loop_sqrt, 2.5)]
WAYS = {
    "jit": lambda f, x: revsrc.jit(f)(x),
    "vmap": lambda f, x: revsrc.vmap(f)(np.array([3.5, x])),
    "grad": lambda f, x: revsrc.grad(f)(x),
    "jitgrad": lambda f, x: revsrc.jit(revsrc.grad(f))(x),
    "vmapgrad": lambda f, x: revsrc.vmap(revsrc.grad(f))(np.array([3.5, x])),
}
for _f, _x in BAD:
    for _w, _call in WAYS.items():
        add(pair(f"r14_y_{_w}_{_f.__name__}", (lambda f=_f, x=_x, c=_call: _kind(lambda: c(f, x))),
                 (lambda f=_f, x=_x: _kind(lambda: f(x))), tol=0.0))
