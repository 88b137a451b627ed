"""Round 9, compositions (2): revsrc.vmap (in_axes, of a derivative, of a scalar loop,
per-example gradients), revsrc.jit of scalar loops and of a derivative, memory= on long
loops, and backend="jax" where JAX is the natural reference."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(77)
_xs = np.linspace(0.1, 2.0, 9)


def bessel_j0(x):
    # series with early stopping
    term = 1.0
    s = 1.0
    k = 1
    while abs(term) > 1e-17:
        term = -term * (x * x / 4) / (k * k)
        s += term
        k += 1
    return s


CASES.append(pair("r9_vmap_series_while", lambda: revsrc.vmap(bessel_j0)(_xs),
                  lambda: np.array([bessel_j0(x) for x in _xs]), tol=0.0))
CASES.append(pair("r9_vmap_grad_series_is_minus_j1",
                  lambda: revsrc.vmap(revsrc.grad(bessel_j0))(_xs),
                  lambda: -np.array([sum((-1) ** k * (x / 2) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1))
                                         for k in range(30)) for x in _xs]), tol=1e-9))


def shifted(x, c):
    return math.exp(-(x - c) ** 2)


CASES.append(pair("r9_vmap_in_axes_none", lambda: revsrc.vmap(shifted, in_axes=(0, None))(_xs, 0.7),
                  lambda: np.array([shifted(x, 0.7) for x in _xs]), tol=0.0))
CASES.append(pair("r9_vmap_grad_argnums_1_in_axes",
                  lambda: revsrc.vmap(revsrc.grad(shifted, argnums=1), in_axes=(0, None))(_xs, 0.7),
                  lambda: np.array([2 * (x - 0.7) * shifted(x, 0.7) for x in _xs]), tol=1e-12))
CASES.append(pair("r9_vmap_keyword_unmapped", lambda: revsrc.vmap(shifted)(_xs, c=0.2),
                  lambda: np.array([shifted(x, 0.2) for x in _xs]), tol=0.0))


def sq_loss(w, x, y):
    return (math.tanh(w * x) - y) ** 2


_ys = np.sin(_xs)
CASES.append(pair("r9_vmap_per_example_grads",
                  lambda: revsrc.vmap(revsrc.grad(sq_loss), in_axes=(None, 0, 0))(0.8, _xs, _ys),
                  lambda: np.array([float(jax().grad(jaxify(sq_loss))(0.8, x, y)) for x, y in zip(_xs, _ys)]), tol=1e-12))
CASES.append(pair("r9_vmap_value_and_grad_tuple",
                  lambda: revsrc.vmap(revsrc.value_and_grad(sq_loss), in_axes=(None, 0, 0))(0.8, _xs, _ys),
                  lambda: (np.array([sq_loss(0.8, x, y) for x, y in zip(_xs, _ys)]),
                           np.array([float(jax().grad(jaxify(sq_loss))(0.8, x, y)) for x, y in zip(_xs, _ys)])), tol=1e-12))


def int_steps(x, n):
    for _ in range(n):
        x = x - 0.1 * math.sin(x)
    return x


CASES.append(pair("r9_vmap_int_array_argument",
                  lambda: revsrc.vmap(int_steps)(_xs, np.arange(9)),
                  lambda: np.array([int_steps(x, n) for x, n in zip(_xs, range(9))]), tol=0.0))


def hess_row(x):
    return np.sum(np.sin(x) * x[0])


CASES.append(pair("r9_vmap_of_hessian_slices",
                  lambda: revsrc.vmap(revsrc.hessian(hess_row))(_rng.normal(size=(3, 2)) * 0 + np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])),
                  lambda: np.stack([np.asarray(jax().hessian(jaxify(hess_row))(r))
                                    for r in np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])])))


def logistic_map_mean(r, n):
    x = 0.3
    acc = 0.0
    for i in range(n):
        x = r * x * (1 - x)
        if i >= n // 2:
            acc += x
    return acc / (n - n // 2)


CASES.append(pair("r9_jit_logistic_map_int_arg",
                  lambda: revsrc.jit(logistic_map_mean)(2.9, 400),
                  lambda: logistic_map_mean(2.9, 400), tol=0.0))

dlog = revsrc.grad(logistic_map_mean)


def sensitivities(n):
    total = 0.0
    for k in range(n):
        total += dlog(2.5 + 0.01 * k, 100)
    return total


CASES.append(pair("r9_jit_sum_of_derivatives_in_loop",
                  lambda: revsrc.jit(sensitivities)(20), lambda: sensitivities(20), tol=0.0))
CASES.append(pair("r9_jit_of_grad_returned_as_is",
                  lambda: revsrc.jit(revsrc.grad(morse_like))(1.3),
                  lambda: float(jax().grad(jaxify(morse_like))(1.3)), tol=1e-12))


def morse_like(r):
    return (1 - math.exp(-1.5 * (r - 1.0))) ** 2


def bisect_jit(c):
    lo, hi = 0.0, 3.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - c > 0:
            hi = mid
        else:
            lo = mid
    return lo


CASES.append(pair("r9_jit_bisection_while", lambda: revsrc.jit(bisect_jit)(2.0), lambda: bisect_jit(2.0), tol=0.0))


def long_rk4(k, steps=20000):
    x, v = 1.0, 0.0
    dt = 1e-3
    for _ in range(steps):
        def acc(xx, vv):
            return -k * xx - 0.1 * vv
        k1x, k1v = v, acc(x, v)
        k2x, k2v = v + 0.5 * dt * k1v, acc(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v)
        k3x, k3v = v + 0.5 * dt * k2v, acc(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v)
        k4x, k4v = v + dt * k3v, acc(x + dt * k3x, v + dt * k3v)
        x += dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    return x


def long_rk4_flat(k, steps=20000):
    x, v = 1.0, 0.0
    dt = 1e-3
    for _ in range(steps):
        k1x, k1v = v, -k * x - 0.1 * v
        k2x, k2v = v + 0.5 * dt * k1v, -k * (x + 0.5 * dt * k1x) - 0.1 * (v + 0.5 * dt * k1v)
        k3x, k3v = v + 0.5 * dt * k2v, -k * (x + 0.5 * dt * k2x) - 0.1 * (v + 0.5 * dt * k2v)
        k4x, k4v = v + dt * k3v, -k * (x + dt * k3x) - 0.1 * (v + dt * k3v)
        x += dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    return x


CASES.append(pair("r9_memory_rk4_nested_def_matches_stored",
                  lambda: revsrc.grad(long_rk4, memory="64KB")(2.0),
                  lambda: revsrc.grad(long_rk4_flat)(2.0), tol=1e-12))
CASES.append(G("r9_memory_rk4_flat_vs_fd", long_rk4_flat, (2.0,), ref="fd", tol=1e-6, memory="32KB"))


def long_array_loop(w, steps=3000):
    x = np.array([1.0, 0.5, -0.5])
    A = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.5], [0.0, -0.5, -0.01]])
    for _ in range(steps):
        x = x + 0.001 * (A @ x) * w
    return np.sum(x ** 2)


CASES.append(G("r9_memory_array_loop_bound", long_array_loop, (1.2,), ref="fd", tol=1e-6, memory="16KB"))
CASES.append(pair("r9_hessian_memory_bound",
                  lambda: revsrc.hessian(long_rk4_flat, memory="64KB")(2.0, 3000),
                  lambda: revsrc.hessian(long_rk4_flat)(2.0, 3000), tol=1e-10))


def jax_loss(w, X, y):
    h = np.tanh(X @ w)
    return np.mean((h - y) ** 2) + 0.01 * np.sum(w ** 2)


_Xj = _rng.normal(size=(20, 4))
_yj = _rng.normal(size=20)
_wj = _rng.normal(size=4)
CASES.append(G("r9_backend_jax_regression", jax_loss, (_wj, _Xj, _yj), ref="jax", backend="jax"))


def jax_scan_ode(k):
    x = np.array([1.0, 0.0])
    for _ in range(100):
        x = x + 0.01 * np.array([x[1], -k * x[0]])
    return x[0]


CASES.append(G("r9_backend_jax_for_loop_scan", jax_scan_ode, (2.0,), ref="jax", backend="jax"))


def jax_while_newton(a):
    x = 1.0
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


CASES.append(G("r9_backend_jax_while_newton", jax_while_newton, (3.0,), ref=lambda: 0.5 / math.sqrt(3.0),
               tol=1e-8, backend="jax"))


def jax_branch(x):
    if x > 0.5:
        y = np.sin(x)
    else:
        y = x ** 3
    return y * 2


CASES.append(G("r9_backend_jax_branch", jax_branch, (0.7,), ref="jax", backend="jax"))
CASES.append(G("r9_backend_jax_branch_other_arm", jax_branch, (0.2,), ref="jax", backend="jax"))
CASES.append(pair("r9_backend_jax_hessian",
                  lambda: revsrc.hessian(jax_loss, backend="jax")(_wj, _Xj, _yj),
                  lambda: jax().hessian(jaxify(jax_loss))(_wj, _Xj, _yj)))
CASES.append(pair("r9_backend_jax_jvp",
                  lambda: revsrc.jvp(jax_loss, (_wj, _Xj, _yj), (np.ones(4), np.zeros((20, 4)), np.zeros(20)), backend="jax"),
                  lambda: jax().jvp(jaxify(jax_loss), (_wj, _Xj, _yj), (np.ones(4), np.zeros((20, 4)), np.zeros(20)))))
CASES.append(G("r9_backend_jax_kalman_like_loop", lambda q: sum_of_filter(q), (0.3,), ref="fd", backend="jax"))


def sum_of_filter(q):
    m, P = 0.0, 1.0
    out = 0.0
    for y in [0.1, 0.4, 0.35, 0.8, 1.1]:
        P = P + q
        K = P / (P + 0.5)
        m = m + K * (y - m)
        P = (1 - K) * P
        out += m
    return out
