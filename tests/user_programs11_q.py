"""Round 11, part q: revsrc.vmap over the array dtypes users actually have (float32, float16,
int32, int64, bool, uint8), a mapped derivative on float32, a mapped function that calls
revsrc.jvp, and grad of a function that calls a mapped one."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair

CASES = []
add = CASES.append


def quad(x):
    y = x * 1.5 + 0.1
    return y * y - x / 3


def dtype_sweep():
    out = []
    for dt in (np.float32, np.float16, np.int32, np.int64, np.bool_, np.uint8):
        xs = np.array([1, 2, 3], dtype=dt)
        r = revsrc.vmap(quad)(xs)
        e = np.array([quad(v) for v in xs])
        out.append(float(r.dtype == e.dtype and np.array_equal(r, e)))
    return out


add(pair("r11_vmap_dtype_sweep_same_digits", dtype_sweep, lambda: [1.0] * 6, tol=0.0))


def wobble(x):
    return math.sin(x) * x


def vmap_grad_f32():
    xs = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    r = revsrc.vmap(revsrc.grad(wobble))(xs)
    return [r.astype(float), np.array(float(r.dtype == np.float32))]


add(pair("r11_vmap_grad_float32", vmap_grad_f32,
         lambda: [np.array([math.cos(v) * v + math.sin(v) for v in (1.0, 2.0, 3.0)]), np.array(1.0)], tol=1e-6))


def slope_by_jvp(x):
    return revsrc.jvp(wobble, (x,), (1.0,))[1]


add(pair("r11_vmap_of_function_calling_jvp", lambda: revsrc.vmap(slope_by_jvp)(np.array([0.5, 1.0])),
         lambda: np.array([math.cos(v) * v + math.sin(v) for v in (0.5, 1.0)]), tol=1e-14))


def total_wobble(w):
    return np.sum(revsrc.vmap(wobble)(w))


add(pair("r11_grad_of_function_calling_vmap", lambda: revsrc.grad(total_wobble)(np.array([0.5, 1.0])),
         lambda: np.array([math.cos(v) * v + math.sin(v) for v in (0.5, 1.0)])))
