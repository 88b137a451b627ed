"""User programs, corpus 6k: tuple assignments that read items before writing them
(swaps, butterflies, pivoting) and values computed but not used by the branch taken
(safe normalisation, clipping).  References: central differences of the plain program,
JAX x64, or closed forms."""
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, jax, jaxify

CASES = []


J = jax


add = adder(CASES)


def fdc(name, f, args, argnums=0, tol=1e-6):
    add(name, lambda: revsrc.grad(f, argnums=argnums)(*args), lambda: fd_grad(f, args, {}, argnums), tol)


X = np.array([0.4, -1.2, 0.9, 2.1])
M = np.array([[0.5, -0.2, 1.1], [2.3, 0.8, -0.6], [1.4, -0.9, 0.2]])


def haar_butterfly(x):
    y = x.copy()
    y[0], y[1] = (y[0] + y[1]) / math.sqrt(2.0), (y[0] - y[1]) / math.sqrt(2.0)
    return y[0] * 3.0 + y[1] ** 2 + np.sum(y[2:])


def bubble_pass(x):
    y = x.copy()
    for i in range(y.shape[0] - 1):
        if y[i] > y[i + 1]:
            y[i], y[i + 1] = y[i + 1], y[i]
    return np.sum(y * np.arange(1.0, 5.0))


def pivot_rows_copies(m):
    a = m.copy()
    p = int(np.argmax(np.abs(a[:, 0])))
    a[0, :], a[p, :] = a[p, :].copy(), a[0, :].copy()
    return np.sum(a * np.arange(9.0).reshape(3, 3))


def rotate_three(x):
    y = x * 1.0
    y[0], y[1], y[2] = y[1], y[2], y[0]
    return np.sum(y * np.array([1.0, 10.0, 100.0, 0.0]))


def dict_swap(x):
    d = {"a": x[0], "b": x[1]}
    d["a"], d["b"] = d["b"], d["a"] * 2.0
    return d["a"] + 10.0 * d["b"]


def slices_swap_copies(x):
    y = x.copy()
    y[:2], y[2:] = y[2:].copy(), y[:2].copy()
    return np.sum(y * np.arange(4.0))


def matrix_item_swap(m):
    a = m * 1.0
    a[0, 1], a[1, 0] = a[1, 0], a[0, 1]
    return np.sum(a * np.arange(9.0).reshape(3, 3))


for _f in [haar_butterfly, bubble_pass, rotate_three, dict_swap, slices_swap_copies]:
    fdc("swap_" + _f.__name__, _f, (X,))
for _f in [pivot_rows_copies, matrix_item_swap]:
    fdc("swap_" + _f.__name__, _f, (M,))


def scalar_swap_vars(x, y):
    x, y = y, x * 2.0
    return x + 10.0 * y


add("swap_plain_variables", lambda: revsrc.grad(scalar_swap_vars, argnums=(0, 1))(0.4, -1.2), lambda: (20.0, 1.0))


# -- values computed, not used by the branch taken --------------------------------------------------

def safe_normalize(v):
    n = np.sqrt(np.sum(v * v))
    if n > 0.0:
        u = v / n
    else:
        u = v
    return np.sum(u * np.array([1.0, 2.0, 3.0]))


add("unused_safe_normalize_at_zero", lambda: revsrc.grad(safe_normalize)(np.zeros(3)),
    lambda: J().grad(jaxify(safe_normalize))(np.zeros(3)))
add("unused_safe_normalize_away_from_zero", lambda: revsrc.grad(safe_normalize)(np.array([1.0, -2.0, 0.5])),
    lambda: J().grad(jaxify(safe_normalize))(np.array([1.0, -2.0, 0.5])))


def log_guard(x):
    lx = np.log(x)           # -inf at 0: not used when x == 0
    if x > 0.0:
        return x * lx
    return 0.0 * x


add("unused_log_at_zero_entropy_term", lambda: revsrc.grad(log_guard)(0.0),
    lambda: J().grad(jaxify(log_guard))(0.0))


def pow_guard(x):
    r = x ** 0.5
    if x > 1.0:
        return r
    return 2.0 * x


add("unused_pow_half_at_zero", lambda: revsrc.grad(pow_guard)(0.0), lambda: 2.0)


def arcsin_guard(x):
    a = math.asin(min(x, 1.0))
    if x < 1.0:
        return a
    return x


add("unused_asin_at_one", lambda: revsrc.grad(arcsin_guard)(1.0), lambda: J().grad(jaxify(arcsin_guard))(1.0))


def hessian_unused(x):
    r = np.sqrt(np.sum(x * x))
    out = np.sum(x ** 3)
    if r > 5.0:
        out = out / r
    return out


add("unused_norm_hessian_at_zero", lambda: revsrc.hessian(hessian_unused)(np.zeros(2)),
    lambda: J().hessian(jaxify(hessian_unused))(np.zeros(2)))


def jvp_unused(x):
    r = math.sqrt(x)
    y = x * x * 4.0
    if r > 3.0:
        y = r
    return y


add("unused_sqrt_jvp_at_zero", lambda: revsrc.jvp(jvp_unused, (0.0,), (1.0,)),
    lambda: J().jvp(jaxify(jvp_unused), (0.0,), (1.0,)))


def unused_in_loop(x):
    s = 0.0
    for i in range(3):
        r = math.sqrt(x)
        if r > 10.0:
            s = s + r
        s = s + x * (i + 1.0)
    return s


add("unused_sqrt_in_loop_at_zero", lambda: revsrc.grad(unused_in_loop)(0.0), lambda: 6.0)


def exp_overflow_unused(x):
    e = np.exp(x * 1000.0)      # inf for x > 0.71: unused when x > 0.5
    if x > 0.5:
        return x * x
    return e


add("unused_exp_overflow_branch", lambda: revsrc.grad(exp_overflow_unused)(0.9), lambda: 1.8)
