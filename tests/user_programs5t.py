"""User programs, corpus 5t: forward mode (jvp, jacfwd, hessian) on programs whose gradients are right."""
import math

import numpy as np

import revsrc
from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def hypot_big(x):
    return math.hypot(x * 1e200, 1e200) / 1e200      # hypot exists to avoid this overflow


# d/dx = x / sqrt(x^2 + 1) = 0.6 at 0.75; d2 = (x^2 + 1)^-1.5 = 0.512
add("jvp_hypot_large_arguments", hypot_big, (0.75,), t="jvp", tangents=1.0, ref=lambda: [1.25, 0.6])
add("hessian_hypot_large_arguments", hypot_big, (0.75,), t="hessian", ref=lambda: [0.512])


def np_hypot_big(x):
    return np.sum(np.hypot(x * 1e200, 1e200)) / 1e200


add("jacfwd_np_hypot_large_arguments", lambda x: np.hypot(x * 1e200, 1e200) / 1e200, (np.array([0.75, 0.0]),),
    t="jacfwd", ref=lambda: [np.diag([0.6, 0.0])])
add("grad_np_hypot_large_arguments", np_hypot_big, (np.array([0.75, 0.0]),), ref=lambda: [np.array([0.6, 0.0])])

W = np.array([0.5, 1.0, 2.0, 1.5])


def average_weights(w):
    return np.average(np.array([1.0, 2.0, 4.0, 3.0]), weights=w)


add("jvp_np_average_wrt_weights", average_weights, (W,), t="jvp", tangents=np.array([1.0, 0.0, 0.0, 0.0]),
    ref=lambda: [3.0, -0.4])
add("jacfwd_np_average_wrt_weights", lambda w: average_weights(w) * np.ones(1), (W,), t="jacfwd")
add("grad_np_average_wrt_weights", average_weights, (W,))


def average_values(a):
    return np.average(a, weights=np.array([1.0, 2.0, 0.5, 1.0]))


add("jvp_np_average_wrt_values", average_values, (W,), t="jvp", tangents=np.ones(4))


def min_of_tuples(x):
    return min((x * x, 1.0), (x, 2.0))[0]


add("jvp_min_of_tuples", min_of_tuples, (1.2,), t="jvp", tangents=1.0)


def max_of_tuples(x):
    return max([(x, 1.0), (x * x, 0.0)])[1] + max([(x, 1.0), (x * x, 0.0)])[0]


add("hessian_max_of_tuples", max_of_tuples, (1.2,), t="hessian", ref=lambda: [2.0])
add("jvp_max_of_tuples", max_of_tuples, (1.2,), t="jvp", tangents=1.0)


# ---- forward over reverse through rules the docs do not list under E104 -----------------

def build_list(x):
    ys = [v * v for v in x]
    return sum(ys) * x[0]


add("hessian_list_comprehension", build_list, (np.array([0.5, -1.0]),), t="hessian", tol=1e-5)


def star_unpack(x):
    first, *rest = [x, 2 * x, 3 * x]
    return first * sum(rest)


add("hessian_star_unpacking", star_unpack, (0.7,), t="hessian", tol=1e-5)


def sorted_list(x):
    s = sorted([x * x, 1.0 - x, 0.3])
    return s[0] * s[2]


add("hessian_sorted", sorted_list, (0.7,), t="hessian", tol=1e-5)


def roll_pad(x):
    return np.sum(np.roll(x, 1) * x ** 2) + np.sum(np.pad(x, 1) ** 3)


add("hessian_roll_pad", roll_pad, (np.array([0.5, -1.0, 2.0]),), t="hessian", tol=1e-5)


def quantile_sq(x):
    return np.quantile(x, 0.4) ** 2


add("hessian_quantile", quantile_sq, (np.array([0.5, -1.0, 2.0]),), t="hessian", tol=1e-5)


def svd_top(A):
    return np.linalg.svd(A, compute_uv=False)[0] ** 2


add("hessian_singular_value", svd_top, (np.array([[1.0, 0.3], [0.2, 2.0]]),), t="hessian", tol=1e-5)


def _stop_gradient_hessian_vs_jax():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def f(x):
        return np.sum(np.tanh(x) * revsrc.stop_gradient(x) * x)

    def jf(x):
        return jnp.sum(jnp.tanh(x) * jax.lax.stop_gradient(x) * x)
    x = np.array([0.3, -0.2])
    return revsrc.hessian(f)(x), np.asarray(jax.hessian(jf)(jnp.asarray(x)))


add("hessian_stop_gradient_vs_jax", _stop_gradient_hessian_vs_jax, t="custom", needs=("jax",))
