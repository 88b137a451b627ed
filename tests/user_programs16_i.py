"""Round 16, part i: small-array state loops (3-8 floats) with data-dependent branches and
while loops, and the compositions (hessian, jacrev(grad), vmap(grad), jit, backend="jax")
on them."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def bouncing_ball(v0, g=9.81, e=0.8, dt=0.01, T=2.0):
    s = np.array([1.0, v0])
    t = 0.0
    bounces = 0
    while t < T:
        s = s + dt * np.array([s[1], -g])
        if s[0] < 0.0:
            s = np.array([-s[0], -e * s[1]])
            bounces += 1
        t += dt
    return s[0] + 0.1 * s[1]


add(VG("r16_bouncing_ball_while_reflect_vg", bouncing_ball, (2.0,), ref="ag", tol=1e-9))
add(G("r16_bouncing_ball_wrt_restitution", bouncing_ball, (2.0, 9.81, 0.8), argnums=2, ref="ag", tol=1e-9))


def thermostat(x, setpoint=20.0, n=200):
    # state: temperature, heater level, integral error; hysteresis switching
    s = x.copy()
    on = False
    cost = 0.0
    for _ in range(n):
        err = setpoint - s[0]
        if on and err < -0.5:
            on = False
        elif not on and err > 0.5:
            on = True
        heat = s[1] if on else 0.0
        s[0] = s[0] + 0.05 * (heat - 0.1 * (s[0] - 5.0))
        s[2] = s[2] + 0.05 * err
        cost += err * err
    return cost / n + 0.01 * s[2] ** 2


XT = np.array([18.0, 3.0, 0.0])
add(VG("r16_thermostat_hysteresis_item_writes_vg", thermostat, (XT,), ref="fd", tol=1e-7))
add(H("r16_thermostat_hessian", thermostat, (XT,), ref="fd", tol=1e-4))


def sort_network(x):
    # 4-element bubble sort by swaps on a small array
    a = x.copy()
    n = a.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                t = a[j]
                a[j] = a[j + 1]
                a[j + 1] = t
    return a @ np.array([1.0, 2.0, 3.0, 4.0])


X4 = np.array([0.3, -1.2, 2.5, 0.7])
add(G("r16_bubble_sort_swaps", sort_network, (X4,), ref=lambda: np.array([2.0, 1.0, 4.0, 3.0]), tol=1e-14))
add(pair("r16_bubble_sort_jacrev_grad_zero", lambda: revsrc.jacrev(revsrc.grad(sort_network))(X4), lambda: np.zeros((4, 4)), tol=0.0))
add(pair("r16_bubble_sort_vmap_rows", lambda: revsrc.vmap(sort_network)(np.stack([X4, -X4, X4[::-1]])),
         lambda: np.array([sort_network(v) for v in (X4, -X4, X4[::-1].copy())]), tol=0.0))


def bisection_root(c):
    lo, hi = 0.0, 3.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if mid ** 3 - c > 0:
            hi = mid
        else:
            lo = mid
    x = 0.5 * (lo + hi)
    # one Newton step makes the output depend on c
    return x - (x ** 3 - c) / (3 * x * x)


add(VG("r16_bisection_then_newton_step", bisection_root, (2.0,), ref=lambda: 1.0 / (3 * 2.0 ** (2 / 3)), tol=1e-8))


def rk45_adaptive(k, y0=1.0, T=2.0):
    # a tiny adaptive Euler/Heun pair with step-size control (data-dependent step count)
    y, t, h = y0, 0.0, 0.1
    while t < T:
        h = min(h, T - t)
        f0 = -k * y
        y_e = y + h * f0
        y_h = y + 0.5 * h * (f0 - k * y_e)
        err = abs(y_h - y_e)
        if err < 1e-5:
            y, t = y_h, t + h
            h = h * 1.5
        else:
            h = h * 0.5
    return y


add(VG("r16_adaptive_step_while_vg", rk45_adaptive, (0.7,), ref="ag", tol=1e-9))
add(pair("r16_adaptive_step_jit_exact", lambda: revsrc.jit(rk45_adaptive)(0.7), lambda: rk45_adaptive(0.7), tol=0.0))
add(pair("r16_adaptive_step_vmap_grad", lambda: revsrc.vmap(revsrc.grad(rk45_adaptive))(np.array([0.3, 0.7, 1.4])),
         lambda: np.array([ag()[0].grad(agify(rk45_adaptive))(k) for k in (0.3, 0.7, 1.4)]), tol=1e-9))


def gradient_descent_inner(theta, lr=0.1, tol=1e-10):
    # inner optimization: minimize sum((w - theta)^2 * c) + 0.1 |w|^4 until the step is small
    w = np.zeros(3)
    c = np.array([1.0, 2.0, 0.5])
    it = 0
    while it < 500:
        g = 2 * c * (w - theta) + 0.4 * np.sum(w * w) * w
        w = w - lr * g
        it += 1
        if np.max(np.abs(g)) < tol:
            break
    return np.sum(w ** 2)


TH3 = np.array([0.5, -0.3, 0.8])
add(VG("r16_inner_gd_while_break_vg", gradient_descent_inner, (TH3,), ref="ag", tol=1e-8))
add(pair("r16_inner_gd_backend_jax", lambda: revsrc.grad(gradient_descent_inner, backend="jax")(TH3),
         lambda: ag()[0].grad(agify(gradient_descent_inner))(TH3), tol=1e-8))


def pendulum_events(th0, n=400, dt=0.01):
    s = np.array([th0, 0.0])
    crossings = []
    for i in range(n):
        prev = s[0]
        s = s + dt * np.array([s[1], -math.sin(s[0])])
        if prev > 0.0 and s[0] <= 0.0:
            # linear interpolation of the crossing time
            crossings.append((i + prev / (prev - s[0])) * dt)
    return crossings[0] if crossings else 0.0


add(VG("r16_pendulum_zero_crossing_time", pendulum_events, (0.5,), ref="fd", tol=1e-6))


def lattice_walk(p):
    # 5-site occupation relaxed by a rule that depends on which site is largest
    x = p.copy()
    for _ in range(30):
        k = int(np.argmax(x))
        x[k] = x[k] * 0.7
        x = x + 0.05 * np.roll(x, 1)
    return np.sum(x * np.arange(1.0, 6.0))


P5 = np.array([1.0, 0.2, 0.5, 0.9, 0.1])
add(VG("r16_argmax_item_write_roll_vg", lattice_walk, (P5,), ref="fd", tol=1e-8))
add(pair("r16_argmax_item_write_jacfwd_vs_grad", lambda: revsrc.jacfwd(lattice_walk)(P5), lambda: revsrc.grad(lattice_walk)(P5), tol=1e-12))


def billiard(v, n=50, dt=0.05):
    s = np.array([0.2, 0.3, v[0], v[1]])
    for _ in range(n):
        s[:2] = s[:2] + dt * s[2:]
        for d in range(2):
            if s[d] > 1.0:
                s[d] = 2.0 - s[d]
                s[2 + d] = -s[2 + d]
            elif s[d] < 0.0:
                s[d] = -s[d]
                s[2 + d] = -s[2 + d]
    return s[0] * s[1]


V2 = np.array([1.3, 0.7])
add(VG("r16_billiard_slice_writes_reflect_vg", billiard, (V2,), ref="fd", tol=1e-8))
add(pair("r16_billiard_jacrev_grad_vs_hessian", lambda: revsrc.jacrev(revsrc.grad(billiard))(V2),
         lambda: revsrc.hessian(billiard)(V2), tol=1e-10))
