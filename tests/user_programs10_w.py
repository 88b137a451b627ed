"""Round 10, engineering correlations solved by iteration, as engineers code them:
Colebrook friction factor by fixed point, Kepler's equation by Newton, a Peng-Robinson
cubic for the gas compressibility by Newton with a while loop, heat-exchanger
effectiveness-NTU, Manning's normal depth by bisection, Snell's-law ray tracing through
layers, a thin-lens system matrix, a zero-dimensional energy balance climate model
stepped to equilibrium; implicit derivatives checked against closed forms or central
differences."""
import math

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def colebrook(Re, rel_rough):
    x = 0.02 ** -0.5
    for _ in range(50):
        x = -2.0 * math.log10(rel_rough / 3.7 + 2.51 * x / Re)
    return 1.0 / (x * x)


CASES.append(G("r10_colebrook_fixed_point", colebrook, (1e5, 1e-4), argnums=(0, 1), h=1e-3 if False else 1e-5,
               ref=lambda: _colebrook_ref()))


def _colebrook_ref():
    from user_programs7_harness import fd_checked
    gRe = fd_checked(lambda r: colebrook(r, 1e-4), (1e5,), h=10.0)
    ge = fd_checked(lambda e: colebrook(1e5, e), (1e-4,), h=1e-8)
    return (gRe, ge)


def kepler_E(M, e):
    E = M if e < 0.8 else math.pi
    while True:
        dE = (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
        E -= dE
        if abs(dE) < 1e-14:
            break
    return E


def kepler_ref(M, e):
    E = kepler_E(M, e)
    d = 1 - e * math.cos(E)
    return (1 / d, math.sin(E) / d)


CASES.append(G("r10_kepler_newton_while_true", kepler_E, (1.2, 0.3), argnums=(0, 1), ref=lambda: kepler_ref(1.2, 0.3)))
CASES.append(G("r10_kepler_high_eccentricity", kepler_E, (0.4, 0.9), argnums=(0, 1), ref=lambda: kepler_ref(0.4, 0.9)))


def peng_robinson_Z(T, P, Tc=190.6, Pc=45.99e5, omega=0.011):
    R = 8.314
    kappa = 0.37464 + 1.54226 * omega - 0.26992 * omega ** 2
    alpha = (1 + kappa * (1 - math.sqrt(T / Tc))) ** 2
    a = 0.45724 * R ** 2 * Tc ** 2 / Pc * alpha
    b = 0.07780 * R * Tc / Pc
    A = a * P / (R * T) ** 2
    B = b * P / (R * T)
    Z = 1.0
    f = 1.0
    while abs(f) > 1e-13:
        f = Z ** 3 - (1 - B) * Z ** 2 + (A - 3 * B ** 2 - 2 * B) * Z - (A * B - B ** 2 - B ** 3)
        fp = 3 * Z ** 2 - 2 * (1 - B) * Z + (A - 3 * B ** 2 - 2 * B)
        Z = Z - f / fp
    return Z


CASES.append(G("r10_peng_robinson_Z_while", peng_robinson_Z, (300.0, 50e5), argnums=(0, 1),
               ref=lambda: (_fd1(lambda t: peng_robinson_Z(t, 50e5), 300.0, 1e-3), _fd1(lambda p: peng_robinson_Z(300.0, p), 50e5, 10.0))))


def _fd1(f, x, h):
    from user_programs7_harness import fd_checked
    return fd_checked(f, (x,), h=h)


def ntu_effectiveness(UA, C_hot, C_cold):
    Cmin = min(C_hot, C_cold)
    Cmax = max(C_hot, C_cold)
    Cr = Cmin / Cmax
    ntu = UA / Cmin
    return (1 - math.exp(-ntu * (1 - Cr))) / (1 - Cr * math.exp(-ntu * (1 - Cr)))


CASES.append(G("r10_ntu_counterflow", ntu_effectiveness, (500.0, 800.0, 1200.0), argnums=(0, 1, 2), ref="ag"))


def manning_depth(Q, n=0.03, S=0.001, b=5.0):
    lo, hi = 1e-3, 20.0
    for _ in range(80):
        y = 0.5 * (lo + hi)
        A = b * y
        Rh = A / (b + 2 * y)
        q = A * Rh ** (2 / 3) * math.sqrt(S) / n
        if q > Q:
            hi = y
        else:
            lo = y
    return 0.5 * (lo + hi)


def manning_dy_dQ(Q, n=0.03, S=0.001, b=5.0):
    y = manning_depth(Q)
    h = 1e-7
    def q(yy):
        A = b * yy
        return A * (A / (b + 2 * yy)) ** (2 / 3) * math.sqrt(S) / n
    return 1.0 / ((q(y + h) - q(y - h)) / (2 * h))


# bisection's output is piecewise constant in Q: its derivative is 0 almost everywhere
CASES.append(G("r10_manning_bisection_is_flat", manning_depth, (12.0,), ref=lambda: 0.0))


def snell_layers(theta0, n):
    th = theta0
    x = 0.0
    for i in range(len(n) - 1):
        s = n[i] / n[i + 1] * math.sin(th)
        th = math.asin(s)
        x += math.tan(th)
    return x


NL = np.array([1.0, 1.2, 1.5, 1.7])
CASES.append(G("r10_snell_layers_ray", snell_layers, (0.4, NL), argnums=(0, 1), ref="ag"))


def lens_system(f1, f2, d):
    L1 = np.array([[1.0, 0.0], [-1.0 / f1, 1.0]])
    T = np.array([[1.0, d], [0.0, 1.0]])
    L2 = np.array([[1.0, 0.0], [-1.0 / f2, 1.0]])
    M = L2 @ T @ L1
    return -1.0 / M[1, 0]


# 1/f = 1/f1 + 1/f2 - d/(f1 f2)
def f_eff(f1, f2, d):
    return 1.0 / (1 / f1 + 1 / f2 - d / (f1 * f2))


CASES.append(G("r10_thin_lens_ray_matrix", lens_system, (0.1, 0.15, 0.05), argnums=(0, 1, 2),
               ref=lambda: _lens_ref()))


def _lens_ref():
    from user_programs7_harness import fd_checked
    return fd_checked(f_eff, (0.1, 0.15, 0.05), argnums=(0, 1, 2), h=1e-7)


def ebm_equilibrium(albedo, eps, S0=1361.0, C=10.0, dt=0.1, steps=4000):
    sigma = 5.67e-8
    T = 280.0
    for _ in range(steps):
        T = T + dt / C * (S0 / 4 * (1 - albedo) - eps * sigma * T ** 4) * 1e-2
    return T


def ebm_closed(albedo, eps, S0=1361.0):
    sigma = 5.67e-8
    return (S0 / 4 * (1 - albedo) / (eps * sigma)) ** 0.25


def ebm_ref():
    T = ebm_closed(0.3, 0.61)
    return (-T / (4 * 0.7), -T / (4 * 0.61))


CASES.append(G("r10_energy_balance_equilibrium", ebm_equilibrium, (0.3, 0.61), argnums=(0, 1)))
# (4000 small steps do not reach the equilibrium ebm_closed gives: central differences)
