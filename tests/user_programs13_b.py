"""Round 13, part b: epidemiology and ecology -- SIR/SEIR by Euler and RK4 on a few floats,
Lotka-Volterra, fitting losses with early exits."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def sir_euler(beta, gamma, n=60, dt=0.5):
    S, I, R = 0.99, 0.01, 0.0
    peak = 0.0
    for _ in range(n):
        inf = beta * S * I
        rec = gamma * I
        S, I, R = S - dt * inf, I + dt * (inf - rec), R + dt * rec
        if I > peak:
            peak = I
    return peak + 0.1 * R


add(VG("r13_sir_euler_peak_beta", sir_euler, (0.4, 0.1), argnums=0, ref="ag", tol=1e-9))
add(G("r13_sir_euler_peak_both", sir_euler, (0.4, 0.1), argnums=(0, 1), ref="ag", tol=1e-9))
add(H("r13_sir_euler_hessian", sir_euler, (0.4, 0.1), argnums=1, ref="ag", tol=1e-7))
add(pair("r13_sir_jit_grad", lambda: revsrc.jit(revsrc.grad(sir_euler))(0.4, 0.1),
         lambda: ag()[0].grad(agify(sir_euler))(0.4, 0.1), tol=1e-9))
BETAS = np.array([0.2, 0.3, 0.45, 0.6])
add(pair("r13_sir_vmap_grad", lambda: revsrc.vmap(revsrc.grad(sir_euler), in_axes=(0, None))(BETAS, 0.1),
         lambda: np.array([ag()[0].grad(agify(sir_euler))(b, 0.1) for b in BETAS]), tol=1e-9))


def seir_rhs(y, p):
    S, E, I, R = y
    beta, sigma, gamma = p
    return np.array([-beta * S * I, beta * S * I - sigma * E, sigma * E - gamma * I, gamma * I])


def seir_rk4(p, y0=None, h=0.25, n=40):
    y = np.array([0.98, 0.01, 0.01, 0.0]) if y0 is None else y0
    for _ in range(n):
        k1 = seir_rhs(y, p)
        k2 = seir_rhs(y + 0.5 * h * k1, p)
        k3 = seir_rhs(y + 0.5 * h * k2, p)
        k4 = seir_rhs(y + h * k3, p)
        y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


P3 = np.array([0.9, 0.3, 0.2])
add(pair("r13_seir_rk4_jacfwd", lambda: revsrc.jacfwd(seir_rk4)(P3), lambda: fdj(seir_rk4, P3), tol=1e-7))
add(pair("r13_seir_rk4_jacrev", lambda: revsrc.jacrev(seir_rk4)(P3), lambda: fdj(seir_rk4, P3), tol=1e-7))
add(G("r13_seir_final_R", lambda p: seir_rk4(p)[3], (P3,), ref="ag", tol=1e-9))
Y0 = np.array([0.97, 0.02, 0.01, 0.0])
add(G("r13_seir_wrt_initial", lambda y0, p: np.sum(seir_rk4(p, y0)[1:3]), (Y0, P3), ref="ag", tol=1e-9))


# -- fitting with an early exit when the loss blows up -------------------------------------

OBS = np.array([0.01, 0.018, 0.03, 0.05, 0.075, 0.1, 0.12, 0.13])


def fit_loss(theta):
    beta, gamma = theta
    S, I = 0.99, 0.01
    loss = 0.0
    for k in range(1, 8):
        for _ in range(4):
            dS = -beta * S * I
            dI = beta * S * I - gamma * I
            S += 0.25 * dS
            I += 0.25 * dI
        r = I - OBS[k]
        loss += r * r
        if loss > 1.0:
            return loss * 10.0
    return loss


TH = np.array([0.6, 0.1])
add(VG("r13_fit_loss_normal", fit_loss, (TH,), ref="ag", tol=1e-9))
add(VG("r13_fit_loss_early_exit", fit_loss, (np.array([12.0, 0.1]),), ref="ag", tol=1e-9))
add(H("r13_fit_loss_hessian", fit_loss, (TH,), ref="ag", tol=1e-7))


# -- Lotka-Volterra with a dict of parameters and a while loop in time ---------------------

def lv(params, T=3.0, dt=0.05):
    x, y = 1.0, 0.5
    t = 0.0
    while t < T - 1e-12:
        dx = params["a"] * x - params["b"] * x * y
        dy = params["d"] * x * y - params["c"] * y
        x, y = x + dt * dx, y + dt * dy
        t += dt
    return x * y


LVP = {"a": 1.1, "b": 0.4, "c": 0.4, "d": 0.1}
add(G("r13_lotka_volterra_dict", lv, (LVP,), ref="fd", tol=1e-6))
add(G("r13_lotka_volterra_dict_ag", lv, (LVP,), ref=lambda: ag()[0].grad(agify(lv))(LVP), tol=1e-9))


def lv_state(z, a=1.1, b=0.4, c=0.4, d=0.1, n=30, dt=0.05):
    for _ in range(n):
        x, y = z[0], z[1]
        z = z + dt * np.array([a * x - b * x * y, d * x * y - c * y])
    return z


add(pair("r13_lv_state_jacobian", lambda: revsrc.jacobian(lv_state)(np.array([1.0, 0.5])),
         lambda: fdj(lv_state, np.array([1.0, 0.5])), tol=1e-7))
add(JV("r13_lv_state_jvp", lv_state, (np.array([1.0, 0.5]),), (np.array([0.3, -1.0]),)))


def logistic_growth_closed(r, K=10.0, N0=1.0, t=2.0):
    return K / (1 + (K - N0) / N0 * math.exp(-r * t))


def logistic_growth_euler(r, K=10.0, N0=1.0, t=2.0, n=2000):
    N = N0
    dt = t / n
    for _ in range(n):
        N += dt * r * N * (1 - N / K)
    return N


# Euler with 2000 steps against the closed form's derivative: close to 1e-3
add(pair("r13_logistic_euler_vs_closed", lambda: revsrc.grad(logistic_growth_euler)(0.8),
         lambda: revsrc.grad(logistic_growth_closed)(0.8), tol=2e-3))
add(pair("r13_logistic_closed_formula", lambda: revsrc.grad(logistic_growth_closed)(0.8),
         lambda: (10.0 * 9.0 * 2.0 * math.exp(-1.6)) / (1 + 9.0 * math.exp(-1.6)) ** 2, tol=1e-12))


# -- R0 threshold: an if on the data-dependent R0 decides the branch ----------------------

def final_size(beta, gamma):
    R0 = beta / gamma
    if R0 <= 1.0:
        return 0.0
    z = 0.5
    for _ in range(100):
        z_new = 1.0 - math.exp(-R0 * z)
        if abs(z_new - z) < 1e-15:
            break
        z = z_new
    return z


def final_size_dR0(R0):
    z = final_size(R0, 1.0)
    return z * math.exp(-R0 * z) / (1.0 - R0 * math.exp(-R0 * z))


add(pair("r13_final_size_beta", lambda: revsrc.grad(final_size)(2.0, 1.0), lambda: final_size_dR0(2.0), tol=1e-8))
add(pair("r13_final_size_subcritical", lambda: revsrc.grad(final_size, argnums=(0, 1))(0.5, 1.0),
         lambda: (0.0, 0.0), tol=0.0))
add(pair("r13_final_size_gamma", lambda: revsrc.grad(final_size, argnums=1)(3.0, 1.5),
         lambda: final_size_dR0(2.0) * (-3.0 / 1.5 ** 2), tol=1e-8))
