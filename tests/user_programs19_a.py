"""Round 19, part a: hydrology and geoscience -- steady and transient groundwater flow on
grids (assembled in place, solved by np.linalg.solve or a hand-written Thomas sweep),
seismic travel times through layered models (ray parameter found by Newton), magneto-
telluric impedance recursion, kriging, variogram fits, earthquake location, gravity."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

# ---------------------------------------------------------------- 1-D steady groundwater
NX = 8
DX = 10.0
H_LEFT, H_RIGHT = 12.0, 9.0
RECHARGE = 1e-3 * np.ones(NX)
OBS_IDX = np.array([1, 3, 6])
H_OBS = np.array([12.3, 13.0, 11.1])


def harmonic(a, b):
    return 2.0 * a * b / (a + b)


def assemble_1d(K):
    # finite volumes with Dirichlet ends; interface conductance by harmonic mean
    A = np.zeros((NX, NX))
    rhs = -RECHARGE * DX * DX
    for i in range(NX):
        kw = harmonic(K[i - 1], K[i]) if i > 0 else K[i]
        ke = harmonic(K[i], K[i + 1]) if i < NX - 1 else K[i]
        A[i, i] = -(kw + ke)
        if i > 0:
            A[i, i - 1] = kw
        else:
            rhs = rhs - np.eye(NX)[i] * kw * H_LEFT
        if i < NX - 1:
            A[i, i + 1] = ke
        else:
            rhs = rhs - np.eye(NX)[i] * ke * H_RIGHT
    return A, rhs


def head_misfit(logK):
    K = np.exp(logK)
    A, rhs = assemble_1d(K)
    h = np.linalg.solve(A, rhs)
    r = h[OBS_IDX] - H_OBS
    return 0.5 * np.sum(r ** 2)


LK0 = np.log(np.array([5.0, 4.0, 6.0, 2.0, 3.0, 7.0, 4.5, 5.5]) * 1e-1)
add(VG("r19a_gw1d_head_misfit_vg", head_misfit, (LK0,), ref="fd", tol=1e-6))
add(H("r19a_gw1d_head_misfit_hessian", head_misfit, (LK0[:8],), ref="fd", tol=1e-4))


def thomas(a, b, c, d):
    # tridiagonal solve: a sub, b diag, c super (hand-written, in-place sweeps)
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in reversed(range(n - 1)):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def transient_drawdown(params, nt=12, dt=0.5):
    # implicit Euler for S dh/dt = T d2h/dx2 with a pumping sink in the middle cell
    T, S = params["T"], params["S"]
    n = 9
    r = T * dt / (S * DX * DX)
    a = -r * np.ones(n)
    b = (1 + 2 * r) * np.ones(n)
    c = -r * np.ones(n)
    h = np.zeros(n)
    pump = np.zeros(n)
    pump[n // 2] = 0.05 * dt / S
    for _ in range(nt):
        h = thomas(a, b, c, h - pump)
    return h[n // 2] + 0.5 * h[n // 2 - 2]


PT = {"T": 30.0, "S": 0.2}
add(G("r19a_transient_thomas_dict_params", transient_drawdown, (PT,), ref="fd", tol=1e-6))
add(pair("r19a_transient_thomas_vs_solve", lambda: revsrc.grad(transient_drawdown)(PT),
         lambda: ag()[0].grad(agify(_transient_solve))(PT), tol=1e-8))


def _transient_solve(params, nt=12, dt=0.5):
    T, S = params["T"], params["S"]
    n = 9
    r = T * dt / (S * DX * DX)
    A = (1 + 2 * r) * np.eye(n) - r * np.eye(n, k=1) - r * np.eye(n, k=-1)
    h = np.zeros(n)
    pump = np.where(np.arange(n) == n // 2, 0.05 * dt / S, 0.0)
    for _ in range(nt):
        h = np.linalg.solve(A, h - pump)
    return h[n // 2] + 0.5 * h[n // 2 - 2]


# ---------------------------------------------------------------- 2-D groundwater, np.add.at
NG = 4


def cell(i, j):
    return i * NG + j


EDGES = [(cell(i, j), cell(i, j + 1)) for i in range(NG) for j in range(NG - 1)] + \
        [(cell(i, j), cell(i + 1, j)) for i in range(NG - 1) for j in range(NG)]
EI = np.array([e[0] for e in EDGES])
EJ = np.array([e[1] for e in EDGES])
WELL = cell(2, 1)


def grid_heads(logK, q_well=0.3):
    K = np.exp(logK)
    kf = 2 * K[EI] * K[EJ] / (K[EI] + K[EJ])
    n = NG * NG
    A = np.zeros((n, n))
    np.add.at(A, (EI, EI), kf)
    np.add.at(A, (EJ, EJ), kf)
    np.add.at(A, (EI, EJ), -kf)
    np.add.at(A, (EJ, EI), -kf)
    # fixed head on the left column via a stiff penalty
    for i in range(NG):
        A[cell(i, 0), cell(i, 0)] += 1e3
    b = np.zeros(n)
    b[WELL] -= q_well
    h = np.linalg.solve(A, b)
    return h


def well_drawdown(logK, q_well=0.3):
    h = grid_heads(logK, q_well)
    return -h[WELL] + 0.1 * np.sum(h ** 2)


LK2 = np.log(np.linspace(0.5, 2.0, NG * NG))
add(G("r19a_grid2d_add_at_wrt_logK", well_drawdown, (LK2,), ref="fd", tol=1e-6))
add(G("r19a_grid2d_add_at_wrt_q", well_drawdown, (LK2, 0.3), argnums=1, ref="fd", tol=1e-6))
add(pair("r19a_grid2d_jacrev_heads", lambda: revsrc.jacrev(grid_heads)(LK2),
         lambda: fdj(grid_heads, LK2), tol=1e-6))

# ---------------------------------------------------------------- seismic travel times
LAYER_H = np.array([0.5, 1.2, 2.0])   # km


def offset_of_p(p, v):
    # horizontal distance of a ray with ray parameter p going down to the bottom and back
    s = p * v
    return 2.0 * np.sum(LAYER_H * s / np.sqrt(1.0 - s ** 2))


def travel_time(v, X=4.0, tol=1e-13):
    # find p by Newton so that the ray reaches offset X, then the reflection time
    p = 0.5 / np.max(v)
    for it in range(60):
        s = p * v
        c = np.sqrt(1.0 - s ** 2)
        f = 2.0 * np.sum(LAYER_H * s / c) - X
        df = 2.0 * np.sum(LAYER_H * v / c ** 3)
        step = f / df
        p = p - step
        if abs(step) < tol:
            break
    s = p * v
    return 2.0 * np.sum(LAYER_H / (v * np.sqrt(1.0 - s ** 2)))


V0 = np.array([1.8, 2.6, 3.4])
add(VG("r19a_reflection_time_newton_p_vg", travel_time, (V0,), ref="fd", tol=1e-7))
add(JV("r19a_reflection_time_newton_p_jvp", travel_time, (V0,), (np.array([0.3, -0.2, 0.1]),), tol=1e-7))
add(G("r19a_reflection_time_wrt_offset", travel_time, (V0, 4.0), argnums=1, ref="fd", tol=1e-7))


def head_wave_time(v, X):
    # refracted (head) wave along the top of the last layer; min over the direct wave too
    vn = v[-1]
    t = X / vn
    for h, vi in zip(LAYER_H[:-1], v[:-1]):
        t = t + 2.0 * h * math.sqrt(vn ** 2 - vi ** 2) / (vi * vn)
    direct = X / v[0]
    return min(t, direct)


add(G("r19a_head_wave_min_refracted", head_wave_time, (V0, 9.0), ref="fd", tol=1e-7))
add(G("r19a_head_wave_min_direct", head_wave_time, (V0, 0.7), ref="fd", tol=1e-7))

# ---------------------------------------------------------------- magnetotellurics
MU0 = 4e-7 * math.pi
MT_H = np.array([200.0, 800.0, 1500.0])
PERIODS = np.array([0.1, 1.0, 10.0, 100.0])


def mt_apparent_resistivity(log_rho):
    rho = np.exp(log_rho)
    out = []
    for T in PERIODS:
        w = 2 * math.pi / T
        k = np.sqrt(-1j * w * MU0 / rho)
        Z = 1j * w * MU0 / k[-1]       # half-space at the bottom
        for j in reversed(range(len(MT_H))):
            zj = 1j * w * MU0 / k[j]
            th = np.tanh(k[j] * MT_H[j])
            Z = zj * (Z + zj * th) / (zj + Z * th)
        out.append(np.abs(Z) ** 2 / (w * MU0))
    return np.array(out)


RHO_OBS = np.array([95.0, 40.0, 70.0, 150.0])


def mt_misfit(log_rho):
    ra = mt_apparent_resistivity(log_rho)
    return np.sum((np.log(ra) - np.log(RHO_OBS)) ** 2)


LR0 = np.log(np.array([100.0, 20.0, 300.0, 50.0]))
add(VG("r19a_mt_impedance_recursion_vg", mt_misfit, (LR0,), ref="fd", tol=1e-6))
add(pair("r19a_mt_jacfwd_apparent_rho", lambda: revsrc.jacfwd(mt_apparent_resistivity)(LR0),
         lambda: jax().jacfwd(jaxify(mt_apparent_resistivity))(LR0), tol=1e-8))

# ---------------------------------------------------------------- kriging
XS = np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 1.1], [1.4, 1.3], [0.7, 0.6]])
ZS = np.array([1.2, 0.8, 1.5, 0.4, 1.0])
X0 = np.array([0.8, 0.9])


def gauss_cov(d2, sill, rng):
    return sill * np.exp(-d2 / rng ** 2)


def ordinary_kriging(theta, zs=ZS, x0=X0):
    sill, rng, nug = np.exp(theta[0]), np.exp(theta[1]), np.exp(theta[2])
    n = XS.shape[0]
    D2 = np.sum((XS[:, None, :] - XS[None, :, :]) ** 2, axis=-1)
    C = gauss_cov(D2, sill, rng) + nug * np.eye(n)
    K = np.ones((n + 1, n + 1))
    K[:n, :n] = C
    K[n, n] = 0.0
    c0 = np.ones(n + 1)
    c0[:n] = gauss_cov(np.sum((XS - x0) ** 2, axis=1), sill, rng)
    lam = np.linalg.solve(K, c0)
    pred = lam[:n] @ zs
    var = sill + nug - lam @ c0
    return pred, var


def kriging_pred(theta, zs=ZS, x0=X0):
    return ordinary_kriging(theta, zs, x0)[0]


def kriging_var(theta):
    return ordinary_kriging(theta)[1]


TH0 = np.log(np.array([1.0, 0.7, 0.05]))
add(G("r19a_kriging_pred_wrt_theta", kriging_pred, (TH0,), ref="fd", tol=1e-6))
add(G("r19a_kriging_pred_wrt_data", kriging_pred, (TH0, ZS), argnums=1, ref="fd", tol=1e-7))
add(G("r19a_kriging_pred_wrt_location", kriging_pred, (TH0, ZS, X0), argnums=2, ref="fd", tol=1e-6))
add(H("r19a_kriging_var_hessian", kriging_var, (TH0,), ref="fd", tol=1e-4))


def neg_log_marginal(theta):
    sill, rng, nug = np.exp(theta[0]), np.exp(theta[1]), np.exp(theta[2])
    D2 = np.sum((XS[:, None, :] - XS[None, :, :]) ** 2, axis=-1)
    C = gauss_cov(D2, sill, rng) + nug * np.eye(len(ZS))
    L = np.linalg.cholesky(C)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, ZS - np.mean(ZS)))
    return 0.5 * (ZS - np.mean(ZS)) @ alpha + np.sum(np.log(np.diag(L)))


add(VG("r19a_gp_marginal_cholesky_vg", neg_log_marginal, (TH0,), ref="jax", tol=1e-8))
add(H("r19a_gp_marginal_cholesky_hessian", neg_log_marginal, (TH0,), ref="fd", tol=1e-5))

# ---------------------------------------------------------------- variogram fit (spherical)
LAGS = np.array([0.1, 0.3, 0.5, 0.8, 1.1, 1.5, 2.0])
GAM = np.array([0.12, 0.33, 0.52, 0.71, 0.83, 0.86, 0.85])


def spherical(h, sill, a):
    r = np.clip(h / a, 0.0, 1.0)
    return sill * (1.5 * r - 0.5 * r ** 3)


def variogram_wls(p):
    sill, a = p
    model = spherical(LAGS, sill, a)
    w = 1.0 / np.maximum(model, 1e-3) ** 2
    return np.sum(w * (GAM - model) ** 2)


add(G("r19a_variogram_spherical_clip_wls", variogram_wls, (np.array([0.85, 1.2]),), ref="fd", tol=1e-6))

# ---------------------------------------------------------------- earthquake location
STATIONS = np.array([[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 12.0, 0.0], [9.0, 11.0, 0.5], [4.0, -6.0, 0.2]])
T_ARR = np.array([2.1, 2.4, 2.9, 3.2, 1.9])


def location_loss(hyp, vp=6.0):
    x, t0 = hyp[:3], hyp[3]
    d = np.linalg.norm(STATIONS - x, axis=1)
    res = T_ARR - (t0 + d / vp)
    # Huber-like robust misfit written with np.where
    a = np.abs(res)
    return np.sum(np.where(a < 0.1, 0.5 * res ** 2, 0.1 * (a - 0.05)))


HYP = np.array([4.0, 5.0, 8.0, 0.1])
add(G("r19a_quake_location_huber", location_loss, (HYP,), ref="jax", tol=1e-9))
add(H("r19a_quake_location_huber_hessian", location_loss, (HYP,), ref="fd", tol=1e-5))

# ---------------------------------------------------------------- gravity of buried spheres
G_CONST = 6.674e-3
XOBS = np.linspace(-5, 5, 9)


class Sphere:
    def __init__(self, x, z, r, drho):
        self.x, self.z, self.r, self.drho = x, z, r, drho

    @property
    def mass(self):
        return 4.0 / 3.0 * math.pi * self.r ** 3 * self.drho

    def gz(self, xo):
        dx = xo - self.x
        return G_CONST * self.mass * self.z / (dx ** 2 + self.z ** 2) ** 1.5


GOBS = np.array([0.1, 0.2, 0.35, 0.5, 0.55, 0.45, 0.3, 0.18, 0.1])


def gravity_misfit(depths, xs=(-1.0, 1.5), radii=(1.0, 0.8)):
    spheres = [Sphere(x, z, r, 0.5) for x, z, r in zip(xs, depths, radii)]
    pred = sum(s.gz(XOBS) for s in spheres)
    return np.sum((pred - GOBS) ** 2)


add(G("r19a_gravity_spheres_class_property", gravity_misfit, (np.array([2.0, 3.0]),), ref="fd", tol=1e-7))


# ---------------------------------------------------------------- Theis well function, while loop
def theis_W(u, tol=1e-14):
    # W(u) = -0.5772 - ln u + u - u^2/(2 2!) + ... ; series until the term is tiny
    s = -0.5772156649015329 - math.log(u)
    term = -1.0
    k = 1
    while True:
        term = -term * u / k
        add_ = term / k
        s += add_
        if abs(add_) < tol or k > 200:
            break
        k += 1
    return s


def theis_drawdown(T, S, r=30.0, t=2.0, Q=0.02):
    u = r * r * S / (4.0 * T * t)
    return Q / (4.0 * math.pi * T) * theis_W(u)


def _theis_closed(T, S, r=30.0, t=2.0, Q=0.02):
    u = r * r * S / (4.0 * T * t)
    dW = -math.exp(-u) / u
    dT = -Q / (4 * math.pi * T ** 2) * theis_W(u) + Q / (4 * math.pi * T) * dW * (-u / T)
    dS = Q / (4 * math.pi * T) * dW * (u / S)
    return (dT, dS)


add(G("r19a_theis_series_while_wrt_T_S", theis_drawdown, (0.01, 1e-4), argnums=(0, 1),
      ref=lambda: _theis_closed(0.01, 1e-4), tol=1e-8))


# ---------------------------------------------------------------- van Genuchten fit, try/except
PSI = np.array([1.0, 10.0, 30.0, 100.0, 300.0, 1000.0])
THETA_OBS = np.array([0.42, 0.39, 0.33, 0.24, 0.17, 0.12])


def van_genuchten(psi, p):
    n = 1.0 + np.exp(p["log_n_minus_1"])
    m = 1.0 - 1.0 / n
    alpha = np.exp(p["log_alpha"])
    se = (1.0 + (alpha * psi) ** n) ** (-m)
    return p["theta_r"] + (p["theta_s"] - p["theta_r"]) * se


def vg_loss(p):
    try:
        pred = van_genuchten(PSI, p)
    except KeyError:
        return 0.0
    return np.sum((pred - THETA_OBS) ** 2)


PVG = {"theta_r": 0.08, "theta_s": 0.43, "log_alpha": math.log(0.02), "log_n_minus_1": math.log(0.6)}
add(G("r19a_van_genuchten_dict_try_except", vg_loss, (PVG,), ref="fd", tol=1e-7))


# ---------------------------------------------------------------- synthetic seismogram
def ricker(f=25.0, dt=0.004, n=21):
    t = (np.arange(n) - n // 2) * dt
    a = (math.pi * f * t) ** 2
    return (1 - 2 * a) * np.exp(-a)


WAV = ricker()


def synthetic_trace(log_imp):
    Z = np.exp(log_imp)
    refl = np.diff(Z) / (Z[1:] + Z[:-1])
    spikes = np.zeros(40)
    spikes[5:5 + 8 * len(refl):8] = refl
    return np.convolve(spikes, WAV, mode="same")


TRACE_OBS = synthetic_trace(np.log(np.array([2.0, 2.6, 2.3, 3.1, 3.5]))) + 0.01 * np.sin(np.arange(40))


def trace_misfit(log_imp):
    return np.sum((synthetic_trace(log_imp) - TRACE_OBS) ** 2)


LI0 = np.log(np.array([2.1, 2.4, 2.4, 3.0, 3.3]))
add(G("r19a_seismogram_convolve_strided_write", trace_misfit, (LI0,), ref="fd", tol=1e-7))


# ---------------------------------------------------------------- geotherm with cumsum
def geotherm(q0, k=(2.5, 2.8, 3.2), A=(1.2e-6, 0.6e-6, 0.1e-6), dz=(10e3, 15e3, 20e3), T0=10.0):
    # temperature at the base of three layers, each with constant heat production
    T, q = T0, q0
    temps = []
    for ki, Ai, h in zip(k, A, dz):
        T = T + q * h / ki - Ai * h * h / (2 * ki)
        q = q - Ai * h
        temps.append(T)
    depth = np.cumsum(np.array(dz))
    return np.sum(np.array(temps) * depth) / np.sum(depth)


add(G("r19a_geotherm_layers_zip", geotherm, (0.065,), ref="fd", tol=1e-7, h=1e-6))


def gravity_misfit_const_loop(depths, xs=(-1.0, 1.5), radii=(1.0, 0.8)):
    # the same with the comprehension over the constant tuples, depths read by index
    spheres = [Sphere(x, depths[k], r, 0.5) for k, (x, r) in enumerate(zip(xs, radii))]
    pred = sum(s.gz(XOBS) for s in spheres)
    return np.sum((pred - GOBS) ** 2)


add(G("r19a_gravity_spheres_const_comprehension", gravity_misfit_const_loop, (np.array([2.0, 3.0]),), ref="fd", tol=1e-7))


def gravity_misfit_literal(depths):
    spheres = [Sphere(x, depths[k], r, 0.5) for k, (x, r) in enumerate(((-1.0, 1.0), (1.5, 0.8)))]
    pred = sum(s.gz(XOBS) for s in spheres)
    return np.sum((pred - GOBS) ** 2)


add(G("r19a_gravity_spheres_literal_comprehension", gravity_misfit_literal, (np.array([2.0, 3.0]),), ref="fd", tol=1e-7))


# ---------------------------------------------------------------- more: compositions on the above
add(pair("r19a_theis_grad_grad_wrt_T", lambda: revsrc.grad(revsrc.grad(theis_drawdown))(0.01, 1e-4),
         lambda: fd_checked(lambda T: _theis_closed(T, 1e-4)[0], (0.01,), h=1e-7)[0], tol=1e-5))
add(pair("r19a_head_misfit_backend_jax", lambda: revsrc.grad(head_misfit, backend="jax")(LK0),
         lambda: fd_checked(head_misfit, (LK0,))[0], tol=1e-6))
add(JV("r19a_kriging_pred_jvp_theta", kriging_pred, (TH0,), (np.array([0.2, -0.1, 0.05]),), tol=1e-7))


# ---------------------------------------------------------------- trend kriging: design matrix by column writes
def universal_kriging(theta, x0=X0):
    sill, rng = np.exp(theta[0]), np.exp(theta[1])
    n = XS.shape[0]
    F = np.ones((n, 3))
    for k in range(2):
        F[:, k + 1] = XS[:, k]
    D2 = np.sum((XS[:, None, :] - XS[None, :, :]) ** 2, axis=-1)
    C = gauss_cov(D2, sill, rng) + 0.05 * np.eye(n)
    K = np.zeros((n + 3, n + 3))
    K[:n, :n] = C
    K[:n, n:] = F
    K.T[:n, n:] = F          # the lower block through the transpose view
    c0 = np.concatenate([gauss_cov(np.sum((XS - x0) ** 2, axis=1), sill, rng), np.array([1.0, x0[0], x0[1]])])
    lam = np.linalg.solve(K, c0)
    return lam[:n] @ ZS


add(G("r19a_universal_kriging_transpose_view_write", universal_kriging, (TH0[:2],), ref="fd", tol=1e-6))
add(G("r19a_universal_kriging_wrt_location", universal_kriging, (TH0[:2], X0), argnums=1, ref="fd", tol=1e-6))


# ---------------------------------------------------------------- Schlumberger sounding, Koefoed recursion
def koefoed_transform(lam, rho, thick):
    T = rho[-1]
    for j in reversed(range(len(thick))):
        th = np.tanh(thick[j] * lam)
        T = (T + rho[j] * th) / (1.0 + T * th / rho[j])
    return T


def apparent_resistivity(log_rho, thick=(2.0, 8.0), spacings=(1.0, 3.0, 10.0, 30.0)):
    rho = np.exp(log_rho)
    out = []
    for s in spacings:
        # crude quadrature of the Hankel transform kernel on a log grid
        lam = np.exp(np.linspace(-4, 2, 25)) / s
        w = np.exp(-lam * s) * lam * s
        out.append(np.sum(w * koefoed_transform(lam, rho, thick)) / np.sum(w))
    return np.array(out)


RA_OBS = np.array([55.0, 40.0, 80.0, 140.0])


def ves_misfit(log_rho):
    return np.sum(np.log(apparent_resistivity(log_rho) / RA_OBS) ** 2)


LRV = np.log(np.array([60.0, 20.0, 200.0]))
add(VG("r19a_ves_koefoed_reversed_vg", ves_misfit, (LRV,), ref="ag", tol=1e-10))
add(pair("r19a_ves_jacrev_apparent_rho", lambda: revsrc.jacrev(apparent_resistivity)(LRV),
         lambda: ag()[0].jacobian(agify(apparent_resistivity))(LRV), tol=1e-10))


# ---------------------------------------------------------------- reservoir routing, spill by max, in-place storage
INFLOW = np.array([3.0, 8.0, 15.0, 22.0, 12.0, 6.0, 4.0, 3.0])


def reservoir_release(k_out, cap=30.0, s0=10.0):
    S = np.zeros(len(INFLOW) + 1)
    S[0] = s0
    spill_total = 0.0
    for t, q in enumerate(INFLOW):
        release = k_out * S[t]
        s_new = S[t] + q - release
        spill = max(s_new - cap, 0.0)
        S[t + 1] = s_new - spill
        spill_total += spill
    return spill_total + 0.01 * np.sum(S ** 2)


add(G("r19a_reservoir_spill_max_in_place", reservoir_release, (0.2,), ref="fd", tol=1e-6, h=1e-6))
add(G("r19a_reservoir_wrt_capacity", reservoir_release, (0.2, 30.0), argnums=1, ref="fd", tol=1e-7))


# ---------------------------------------------------------------- sediment decompaction, Newton while
def decompacted_thickness(params, z1=1000.0, z2=1100.0, tol=1e-12):
    phi0, c = params
    # solid thickness conserved: find the thickness at the surface, Newton in a while loop
    solid = (z2 - z1) - phi0 / c * (math.exp(-c * z1) - math.exp(-c * z2))
    h = z2 - z1
    step = 1.0
    while abs(step) > tol:
        f = h - phi0 / c * (1.0 - math.exp(-c * h)) - solid
        df = 1.0 - phi0 * math.exp(-c * h)
        step = f / df
        h -= step
    return h


add(G("r19a_decompaction_newton_while", decompacted_thickness, (np.array([0.6, 5e-4]),), ref="fd", tol=1e-6, h=1e-8, check=1e-3))
