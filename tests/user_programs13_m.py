"""Round 13, part m: memory= (checkpointed loops) on this round's programs -- the gradient
under a small bound must equal the stored one bit for bit (README), and both the reference."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def sir_long(beta, gamma, n=3000, dt=0.02):
    S, I, R = 0.99, 0.01, 0.0
    for _ in range(n):
        inf = beta * S * I
        rec = gamma * I
        S, I, R = S - dt * inf, I + dt * (inf - rec), R + dt * rec
    return I + 0.3 * R


def same_bits(name, f, args, argnums=0, mem="2KB", **kw):
    add(pair(name, lambda: revsrc.grad(f, argnums=argnums, memory=mem, **kw)(*args),
             lambda: revsrc.grad(f, argnums=argnums, memory=math.inf, **kw)(*args), tol=0.0))


same_bits("r13_m_sir_long_bits", sir_long, (0.4, 0.1), argnums=(0, 1))
add(G("r13_m_sir_long_fd", sir_long, (0.4, 0.1), argnums=(0, 1), ref="fd", memory="2KB"))


def rk4_state(p, n=1500, h=0.01):
    y = np.array([1.0, 0.0, 0.5, 0.2])
    for _ in range(n):
        def rhs(v):
            return np.array([v[1], -p[0] * v[0] - p[1] * v[1], v[3], -v[2] + 0.1 * v[0] * v[2]])
        k1 = rhs(y)
        k2 = rhs(y + 0.5 * h * k1)
        k3 = rhs(y + 0.5 * h * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y @ y


def rk4_rhs(v, p):
    return np.array([v[1], -p[0] * v[0] - p[1] * v[1], v[3], -v[2] + 0.1 * v[0] * v[2]])


def rk4_state2(p, n=1500, h=0.01):
    y = np.array([1.0, 0.0, 0.5, 0.2])
    for _ in range(n):
        k1 = rk4_rhs(y, p)
        k2 = rk4_rhs(y + 0.5 * h * k1, p)
        k3 = rk4_rhs(y + 0.5 * h * k2, p)
        k4 = rk4_rhs(y + h * k3, p)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y @ y


P2 = np.array([1.3, 0.2])
same_bits("r13_m_rk4_helper_bits", rk4_state2, (P2,), mem="4KB")
add(G("r13_m_rk4_helper_fd", rk4_state2, (P2,), ref="fd", memory="4KB"))
add(G("r13_m_rk4_nested_def", rk4_state, (P2,), ref="fd"))


def while_relax(a, tol=1e-13):
    x = 0.0
    k = 0
    while True:
        x_new = 0.5 * math.cos(x) + a
        k += 1
        if abs(x_new - x) < tol or k > 5000:
            x = x_new
            break
        x = x_new
    return x


# x = 0.5 cos x + a: dx/da = 1 / (1 + 0.5 sin x)
same_bits("r13_m_while_relax_bits", while_relax, (0.3,), mem="1KB")
add(pair("r13_m_while_relax_implicit", lambda: revsrc.grad(while_relax, memory="1KB")(0.3),
         lambda: 1 / (1 + 0.5 * math.sin(while_relax(0.3))), tol=1e-10))


def break_loop(x, n=2000):
    s = 0.0
    for k in range(n):
        s += math.sin(k * x) / (k + 1)
        if s > 3.0:
            break
    return s


same_bits("r13_m_for_break_bits", break_loop, (0.01,), mem="1KB")
add(G("r13_m_for_break_ag", break_loop, (0.01,), ref="ag", tol=1e-10, memory="1KB"))


def strided_loop(x):
    y = x
    for k in range(0, 3000, 3):
        y = y + 0.001 * math.sin(y + k * 1e-3)
    return y


same_bits("r13_m_step3_loop_bits", strided_loop, (0.2,), mem="1KB")


def heat_long(kappa, u0, steps=400):
    u = u0
    for _ in range(steps):
        u = u + 0.1 * kappa * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.sum(u ** 2)


U0 = np.exp(-((np.linspace(0, 1, 10) - 0.4) ** 2) / 0.02)
same_bits("r13_m_heat_array_bits", heat_long, (1.0, U0), argnums=(0, 1), mem="8KB")
add(G("r13_m_heat_array_fd", heat_long, (1.0, U0), argnums=0, ref="fd", memory="8KB"))


def lv_long(a, n=2000, dt=0.005):
    x, y = 1.0, 0.5
    for _ in range(n):
        x, y = x + dt * (a * x - 0.4 * x * y), y + dt * (0.1 * x * y - 0.4 * y)
    return x * y


same_bits("r13_m_lv_value_and_grad_bits", lv_long, (1.1,), mem="1KB")
add(pair("r13_m_lv_value_under_memory", lambda: revsrc.value_and_grad(lv_long, memory="1KB")(1.1)[0], lambda: lv_long(1.1), tol=0.0))
from user_programs7_harness import fd_hess_checked  # noqa: E402
add(pair("r13_m_lv_hessian_memory", lambda: revsrc.hessian(lv_long, memory="1KB")(1.1),
         lambda: fd_hess_checked(lv_long, (1.1,)), tol=1e-5))
add(pair("r13_m_lv_jax_backend_memory", lambda: revsrc.grad(lv_long, backend="jax", memory="1KB")(1.1),
         lambda: revsrc.grad(lv_long, memory=math.inf)(1.1), tol=1e-11))
add(pair("r13_m_lv_jit_grad_memory", lambda: revsrc.jit(revsrc.grad(lv_long, memory="1KB"))(1.1),
         lambda: revsrc.grad(lv_long, memory=math.inf)(1.1), tol=0.0))
add(pair("r13_m_lv_vmap_grad_memory", lambda: revsrc.vmap(revsrc.grad(lv_long, memory="1KB"))(np.array([0.9, 1.1, 1.3])),
         lambda: np.array([revsrc.grad(lv_long, memory=math.inf)(a) for a in (0.9, 1.1, 1.3)]), tol=0.0))
