"""Round 10, vmap over sensor and sweep arrays as they come: float32 and int arrays,
NaN and inf elements, negative zeros, a huge and a subnormal element, a 0-length sweep,
per-element branches and early exits; each against a Python loop calling the function
on each element (vmap promises those digits)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair

CASES = []


def loop_ref(f, xs, *rest):
    return np.array([f(x, *rest) for x in xs])


def same_map(name, f, xs, *rest, in_axes=None):
    axes = in_axes if in_axes is not None else (0,) + (None,) * len(rest)
    CASES.append(pair(name, lambda: revsrc.vmap(f, in_axes=axes)(xs, *rest), lambda: loop_ref(f, xs, *rest), tol=0.0))


def calib(x):
    return x * 0.1 + 1.0


same_map("r10_vmap_float32_sensor_calibration", calib, np.array([0.3, 1.7, -2.2], dtype=np.float32))


def dtype_of_vmap_float32():
    out = revsrc.vmap(calib)(np.array([0.3, 1.7], dtype=np.float32))
    ref = loop_ref(calib, np.array([0.3, 1.7], dtype=np.float32))
    return float(out.dtype == ref.dtype)


CASES.append(pair("r10_vmap_float32_keeps_dtype", dtype_of_vmap_float32, lambda: 1.0, tol=0.0))


def counts_rate(n, t):
    return n / t + n // 3


same_map("r10_vmap_int_counts", counts_rate, np.array([0, 5, 17, -4]), 2.5)


def safe_log_ratio(x):
    if x > 0:
        return math.log(x)
    elif x == 0:
        return -1e300
    return math.nan


same_map("r10_vmap_nan_inf_elements", safe_log_ratio, np.array([1.0, 0.0, -0.0, math.inf, math.nan, -3.0]))


def sign_of_zero(x):
    return math.copysign(2.0, x) + x


same_map("r10_vmap_negative_zero", sign_of_zero, np.array([0.0, -0.0, 1e-320, -1e308]))


def damped_until(x):
    k = 0
    while abs(x) > 1e-3 and k < 100:
        x = 0.5 * x
        k += 1
    return x + k


same_map("r10_vmap_while_early_exit", damped_until, np.array([1.0, 1e6, 0.0, -7.5, math.inf]))

same_map("r10_vmap_empty_sweep", calib, np.zeros(0))


def two_args(a, b):
    return a ** b if a > 0 else -b


def two_axes():
    a = np.array([2.0, -1.0, 0.5])
    b = np.array([3.0, 2.0, -1.0])
    return revsrc.vmap(two_args)(a, b)


CASES.append(pair("r10_vmap_two_mapped_args_branch", two_axes,
                  lambda: np.array([8.0, -2.0, 2.0]), tol=0.0))


def huge_tiny(x):
    return x * x / (1.0 + x * x)


same_map("r10_vmap_huge_and_subnormal", huge_tiny, np.array([1e200, 5e-324, 1e-160, 3.0]))


def grad_per_element():
    g = revsrc.vmap(revsrc.grad(huge_tiny))
    xs = np.array([0.0, 0.5, 2.0, -3.0])
    return g(xs)


CASES.append(pair("r10_vmap_grad_rational", grad_per_element,
                  lambda: np.array([2 * x / (1 + x * x) ** 2 for x in (0.0, 0.5, 2.0, -3.0)]), tol=1e-15))
