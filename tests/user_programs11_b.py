"""Round 11, part b: PDEs -- Burgers, the wave equation, upwind advection, Crank-Nicolson
with np.linalg.solve, a Poisson solve, reaction-diffusion, as numerical-methods code."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, jax, jaxify, fd_checked  # noqa: F401

CASES = []
add = CASES.append

N = 16
XG = np.linspace(0.0, 1.0, N, endpoint=False)
U0 = np.sin(2 * np.pi * XG) + 0.3 * np.cos(4 * np.pi * XG)


# -- viscous Burgers, explicit, periodic with np.roll -----------------------------------

def burgers(u0, nu=0.05, dt=0.002, steps=30):
    dx = 1.0 / u0.shape[0]
    u = u0
    for _ in range(steps):
        ux = (np.roll(u, -1) - np.roll(u, 1)) / (2 * dx)
        uxx = (np.roll(u, -1) - 2 * u + np.roll(u, 1)) / dx ** 2
        u = u + dt * (-u * ux + nu * uxx)
    return np.sum(u ** 2) * dx


add(G("r11_burgers_roll_u0", burgers, (U0,), ref="ag"))
add(G("r11_burgers_roll_nu", burgers, (U0, 0.05), argnums=1, ref="ag"))


# -- advection with upwinding: a branch on the velocity's sign per cell ----------------

def upwind(u0, c, steps=20, dt=0.01):
    n = len(u0)
    dx = 1.0 / n
    u = u0.copy()
    for _ in range(steps):
        new = u.copy()
        for i in range(n):
            if c > 0:
                new[i] = u[i] - c * dt / dx * (u[i] - u[i - 1])
            else:
                new[i] = u[i] - c * dt / dx * (u[(i + 1) % n] - u[i])
        u = new
    return np.sum(u * XG[:n])


U8 = U0[::2].copy()
add(G("r11_upwind_loops_c_pos", upwind, (U8, 0.7), argnums=1, ref="fd"))
add(G("r11_upwind_loops_c_neg", upwind, (U8, -0.4), argnums=1, ref="fd"))
add(G("r11_upwind_loops_u0", upwind, (U8, 0.7), ref="fd"))


def upwind_vec(u0, c, steps=20, dt=0.01):
    dx = 1.0 / u0.size
    u = u0
    for _ in range(steps):
        back = u - np.roll(u, 1)
        fwd = np.roll(u, -1) - u
        u = u - c * dt / dx * np.where(c > 0, back, fwd)
    return np.sum(u * XG[:u.size])


add(G("r11_upwind_where_c", upwind_vec, (U8, 0.7), argnums=1, ref="ag"))


# flux limiter (minmod) with np.minimum / np.maximum / np.sign
def minmod_step(u, lam=0.4):
    du_l = u - np.roll(u, 1)
    du_r = np.roll(u, -1) - u
    s = 0.5 * (np.sign(du_l) + np.sign(du_r))
    slope = s * np.minimum(np.abs(du_l), np.abs(du_r))
    flux = u + 0.5 * (1 - lam) * slope
    return u - lam * (flux - np.roll(flux, 1))


def muscl(u0):
    u = u0
    for _ in range(5):
        u = minmod_step(u)
    return np.sum(u ** 3)


add(G("r11_muscl_minmod", muscl, (U0,), ref="ag"))


# -- the wave equation, leapfrog ------------------------------------------------------

def wave(c2, u0=U0, steps=25, dt=0.01):
    dx = 1.0 / u0.size
    r = c2 * dt * dt / (dx * dx)
    prev = u0.copy()
    cur = u0.copy()
    for _ in range(steps):
        lap = np.roll(cur, 1) - 2 * cur + np.roll(cur, -1)
        prev, cur = cur, 2 * cur - prev + r * lap
    return float(np.mean(cur * cur))


add(G("r11_wave_leapfrog_swap", wave, (0.8,), ref="fd"))
add(JV("r11_wave_leapfrog_jvp", wave, (0.8,), (1.0,), ref="fd"))


# -- Crank-Nicolson heat equation with np.linalg.solve ---------------------------------

def lap_matrix(n):
    A = -2.0 * np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1)
    return A


def crank_nicolson(kappa, u0, steps=8, dt=0.01):
    n = u0.size
    dx = 1.0 / (n + 1)
    A = kappa * lap_matrix(n) / dx ** 2
    Lm = np.eye(n) - 0.5 * dt * A
    Rm = np.eye(n) + 0.5 * dt * A
    u = u0
    for _ in range(steps):
        u = np.linalg.solve(Lm, Rm @ u)
    return np.sum(u) * dx


UI = np.sin(np.pi * np.linspace(0.1, 0.9, 9))
add(G("r11_crank_nicolson_kappa", crank_nicolson, (0.3, UI), ref="ag"))
add(G("r11_crank_nicolson_u0", crank_nicolson, (0.3, UI), argnums=1, ref="ag"))
add(H("r11_crank_nicolson_hess_kappa", crank_nicolson, (0.3, UI), ref="ag", tol=1e-7))


# -- Poisson -u'' = f with Dirichlet BCs, loss on the solution --------------------------

def poisson_fit(fvals, target):
    n = fvals.size
    h = 1.0 / (n + 1)
    A = (2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)) / h ** 2
    u = np.linalg.solve(A, fvals)
    return 0.5 * np.sum((u - target) ** 2) + 1e-4 * np.sum(fvals ** 2)


FV = np.cos(np.linspace(0, 3, 9))
TGT = 0.01 * np.linspace(0, 1, 9)
add(G("r11_poisson_source", poisson_fit, (FV, TGT), ref="ag"))


# -- tridiagonal (Thomas) solver written by hand --------------------------------------

def thomas(a, b, c, d):
    n = len(d)
    cp = [0.0] * n
    dp = [0.0] * n
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = [0.0] * n
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def thomas_loss(d, diag=4.0):
    n = len(d)
    x = thomas([1.0] * n, [diag] * n, [1.0] * n, d)
    return sum(xi ** 2 for xi in x)


def thomas_ref(d, diag):
    n = len(d)
    A = diag * np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1)
    return np.sum(np.linalg.solve(A, d) ** 2)


DV = [1.0, -0.5, 0.3, 2.0, 0.7]
add(pair("r11_thomas_lists_rhs", lambda: revsrc.grad(thomas_loss)(DV),
         lambda: list(np.asarray(jax().grad(jaxify(thomas_ref))(np.array(DV), 4.0)))))
add(pair("r11_thomas_lists_diag", lambda: revsrc.grad(thomas_loss, argnums=1)(DV, 4.0),
         lambda: jax().grad(jaxify(thomas_ref), argnums=1)(np.array(DV), 4.0)))


# -- reaction-diffusion (Fisher-KPP) with in-place boundary writes ---------------------

def fisher(r, u0=np.clip(U0, 0, 1), D=0.01, dt=0.01, steps=20):
    u = u0.copy()
    dx = 1.0 / u.size
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx ** 2
        lap[0] = (u[1] - u[0]) / dx ** 2
        lap[-1] = (u[-2] - u[-1]) / dx ** 2
        u = u + dt * (D * lap + r * u * (1 - u))
    return np.sum(u)


def fisher_ref(r, u0=np.clip(U0, 0, 1), D=0.01, dt=0.01, steps=20):
    u = u0
    dx = 1.0 / u.size
    for _ in range(steps):
        inner = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx ** 2
        lap = np.concatenate([np.array([(u[1] - u[0]) / dx ** 2]), inner,
                              np.array([(u[-2] - u[-1]) / dx ** 2])])
        u = u + dt * (D * lap + r * u * (1 - u))
    return np.sum(u)


add(pair("r11_fisher_kpp_inplace", lambda: revsrc.grad(fisher)(1.3),
         lambda: jax().grad(jaxify(fisher_ref))(1.3)))


# -- 2D heat with slicing on a grid, gradient w.r.t. the initial field ------------------

def heat2d(T0, alpha=0.1, steps=6):
    T = T0
    for _ in range(steps):
        Tn = T.copy()
        Tn[1:-1, 1:-1] = T[1:-1, 1:-1] + alpha * (T[2:, 1:-1] + T[:-2, 1:-1] + T[1:-1, 2:]
                                                  + T[1:-1, :-2] - 4 * T[1:-1, 1:-1])
        T = Tn
    return np.sum(T[2:4, 2:4] ** 2)


T0 = np.outer(np.sin(np.linspace(0, 3, 6)), np.cos(np.linspace(0, 2, 6)))
add(G("r11_heat2d_slices", heat2d, (T0,), ref="fd"))
add(G("r11_heat2d_alpha", heat2d, (T0, 0.1), argnums=1, ref="fd"))


# -- traffic flow: LWR model with a Godunov flux (min/max branches) ---------------------

def flux(rho, vmax=1.0, rmax=1.0):
    return vmax * rho * (1 - rho / rmax)


def godunov(rl, rr):
    if rl <= rr:
        return min(flux(rl), flux(rr))
    if rr > 0.5:
        return flux(rr)
    if rl < 0.5:
        return flux(rl)
    return 0.25


def lwr(rho0, steps=10, lam=0.4):
    rho = list(rho0)
    n = len(rho)
    for _ in range(steps):
        F = [godunov(rho[i], rho[(i + 1) % n]) for i in range(n)]
        rho = [rho[i] - lam * (F[i] - F[i - 1]) for i in range(n)]
    return sum(r * r for r in rho)


RHO = [0.1, 0.3, 0.8, 0.65, 0.2, 0.45, 0.9, 0.05]
add(G("r11_lwr_godunov", lwr, (RHO,), ref="ag"))
add(G("r11_lwr_godunov_fd", lwr, (np.array(RHO),), ref="fd"))


# -- shallow-water-like 1D step with a dict state -----------------------------------------

def sw_step(state, g=9.81, dt=0.001):
    h, hu = state["h"], state["hu"]
    u = hu / h
    F1 = hu
    F2 = hu * u + 0.5 * g * h * h
    dh = -(np.roll(F1, -1) - np.roll(F1, 1)) * 0.5 * h.size
    dhu = -(np.roll(F2, -1) - np.roll(F2, 1)) * 0.5 * h.size
    return {"h": h + dt * dh, "hu": hu + dt * dhu}


def shallow(state):
    for _ in range(10):
        state = sw_step(state)
    return np.sum(state["h"] ** 2) + np.sum(state["hu"])


SW = {"h": 1.0 + 0.1 * np.sin(2 * np.pi * XG), "hu": 0.05 * np.cos(2 * np.pi * XG)}
add(G("r11_shallow_water_dict", shallow, (SW,), ref="ag"))
