"""Round 14, part n: the same kinds of programs through backend="jax", revsrc.jit and
revsrc.vmap on scalar code (floats in, floats out), checked against the plain call, the
default backend and closed forms."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def arrhenius_rate(T, A=1e7, Ea=50000.0):
    return A * math.exp(-Ea / (8.314 * T))


def _arr_d(T, A=1e7, Ea=50000.0):
    return arrhenius_rate(T, A, Ea) * Ea / (8.314 * T * T)


add(pair("r14_n_jit_arrhenius_value", lambda: revsrc.jit(arrhenius_rate)(350.0), lambda: arrhenius_rate(350.0), tol=0.0))
add(pair("r14_n_jit_grad_arrhenius", lambda: revsrc.jit(revsrc.grad(arrhenius_rate))(350.0), lambda: _arr_d(350.0), tol=1e-13))
add(pair("r14_n_vmap_grad_arrhenius", lambda: revsrc.vmap(revsrc.grad(arrhenius_rate))(np.array([300.0, 350.0, 400.0])),
         lambda: np.array([_arr_d(t) for t in (300.0, 350.0, 400.0)]), tol=1e-13))


def pid_scalar(kp, ki, n=30):
    y, integ = 0.0, 0.0
    cost = 0.0
    for _ in range(n):
        e = 1.0 - y
        integ += e * 0.1
        u = kp * e + ki * integ
        if u > 2.0:
            u = 2.0
        elif u < -2.0:
            u = -2.0
        y += 0.1 * (u - y)
        cost += e * e
    return cost


add(pair("r14_n_jit_pid_scalar_value", lambda: revsrc.jit(pid_scalar)(3.0, 0.5), lambda: pid_scalar(3.0, 0.5), tol=0.0))
add(pair("r14_n_jit_pid_grad_argnums", lambda: revsrc.jit(revsrc.grad(pid_scalar, argnums=(0, 1)))(3.0, 0.5),
         lambda: tuple(fd_checked(pid_scalar, (3.0, 0.5), argnums=(0, 1))), tol=1e-6))
add(pair("r14_n_vmap_pid_two_axes", lambda: revsrc.vmap(pid_scalar)(np.array([1.0, 3.0, 25.0]), np.array([0.1, 0.5, 0.0])),
         lambda: np.array([pid_scalar(a, b) for a, b in ((1.0, 0.1), (3.0, 0.5), (25.0, 0.0))]), tol=0.0))
add(pair("r14_n_jax_backend_pid", lambda: revsrc.grad(pid_scalar, argnums=(0, 1), backend="jax")(3.0, 0.5),
         lambda: revsrc.grad(pid_scalar, argnums=(0, 1))(3.0, 0.5), tol=1e-12))


def newton_sqrt(a):
    x = a if a > 1.0 else 1.0
    while abs(x * x - a) > 1e-13 * a:
        x = 0.5 * (x + a / x)
    return x


add(pair("r14_n_jit_newton_sqrt_while", lambda: revsrc.jit(revsrc.value_and_grad(newton_sqrt))(7.0),
         lambda: (math.sqrt(7.0), 0.5 / math.sqrt(7.0)), tol=1e-12))
add(pair("r14_n_vmap_newton_sqrt", lambda: revsrc.vmap(revsrc.grad(newton_sqrt))(np.array([0.25, 2.0, 100.0])),
         lambda: 0.5 / np.sqrt(np.array([0.25, 2.0, 100.0])), tol=1e-12))
add(pair("r14_n_jax_newton_sqrt", lambda: revsrc.grad(newton_sqrt, backend="jax")(7.0), lambda: 0.5 / math.sqrt(7.0), tol=1e-12))


def binomial_scalar(S0, n=20):
    u, d, p = 1.1, 1 / 1.1, 0.52
    total = 0.0
    for j in range(n + 1):
        ST = S0 * u ** (n - j) * d ** j
        payoff = ST - 100.0 if ST > 100.0 else 0.0
        total += math.comb(n, j) * p ** (n - j) * (1 - p) ** j * payoff
    return total


def _binom_delta(S0, n=20):
    u, d, p = 1.1, 1 / 1.1, 0.52
    return sum(math.comb(n, j) * p ** (n - j) * (1 - p) ** j * u ** (n - j) * d ** j
               for j in range(n + 1) if S0 * u ** (n - j) * d ** j > 100.0)


add(pair("r14_n_jit_binomial_comb", lambda: revsrc.jit(revsrc.grad(binomial_scalar))(95.0), lambda: _binom_delta(95.0), tol=1e-12))
add(pair("r14_n_vmap_binomial_comb_value", lambda: revsrc.vmap(binomial_scalar)(np.array([80.0, 95.0, 120.0])),
         lambda: np.array([binomial_scalar(s) for s in (80.0, 95.0, 120.0)]), tol=1e-13))


def bounce_scalar(h0, e=0.8):
    h, v, t = h0, 0.0, 0
    while t < 150:
        v -= 9.81 * 0.01
        h += v * 0.01
        if h < 0.0:
            h, v = -h, -e * v
        t += 1
    return h


add(pair("r14_n_jit_bounce_value", lambda: revsrc.jit(bounce_scalar)(1.0), lambda: bounce_scalar(1.0), tol=0.0))
add(pair("r14_n_jit_grad_bounce", lambda: revsrc.jit(revsrc.grad(bounce_scalar, argnums=(0, 1)))(1.0, 0.8),
         lambda: revsrc.grad(bounce_scalar, argnums=(0, 1))(1.0, 0.8), tol=1e-12))
add(pair("r14_n_jax_bounce", lambda: revsrc.grad(bounce_scalar, backend="jax")(1.0), lambda: revsrc.grad(bounce_scalar)(1.0), tol=1e-12))
add(pair("r14_n_grad_bounce_fd", lambda: revsrc.grad(bounce_scalar)(1.0), lambda: fd_checked(bounce_scalar, (1.0,), h=1e-7)[0], tol=1e-6))

TAB = (1.0, -0.5, 0.25, 2.0)


def tab_poly(x):
    s = 0.0
    for k, c in enumerate(TAB):
        s += c * x ** k
    return s


add(pair("r14_n_jit_global_tuple_table", lambda: revsrc.jit(revsrc.grad(tab_poly))(1.3), lambda: -0.5 + 0.5 * 1.3 + 6 * 1.69, tol=1e-13))
add(pair("r14_n_vmap_hessian_scalar", lambda: revsrc.vmap(revsrc.hessian(tab_poly))(np.array([0.0, 1.0])), lambda: np.array([0.5, 12.5]), tol=1e-13))


def ekf_scalar(q, r, zs=(0.9, 1.1, 1.0, 1.3, 0.8)):
    x, P = 0.0, 1.0
    nll = 0.0
    for z in zs:
        P = P + q
        S = P + r
        K = P / S
        e = z - x
        x = x + K * e
        P = (1 - K) * P
        nll += 0.5 * (math.log(2 * math.pi * S) + e * e / S)
    return nll


add(pair("r14_n_jit_ekf_scalar_tuple_default", lambda: revsrc.jit(revsrc.grad(ekf_scalar, argnums=(0, 1)))(0.1, 0.2),
         lambda: tuple(fd_checked(ekf_scalar, (0.1, 0.2), argnums=(0, 1))), tol=1e-7))
add(pair("r14_n_vmap_ekf_in_axes_none", lambda: revsrc.vmap(ekf_scalar, in_axes=(0, None))(np.array([0.01, 0.1, 1.0]), 0.2),
         lambda: np.array([ekf_scalar(q, 0.2) for q in (0.01, 0.1, 1.0)]), tol=1e-14))
add(pair("r14_n_jax_backend_ekf_hessian", lambda: revsrc.hessian(ekf_scalar, backend="jax")(0.1, 0.2),
         lambda: revsrc.hessian(ekf_scalar)(0.1, 0.2), tol=1e-10))
