"""Round 17, part i: numerical methods inside the loss -- fixed-point iterations,
bisection (and bisection polished by a Newton step), Newton solves with data-dependent
stopping, quadrature rules (Simpson, Gauss-Legendre, Romberg tables), Richardson
extrapolation, implicit Euler / trapezoidal steps solved by Newton, each checked against
autograd running the same program, JAX with x64, central differences or the implicit
function theorem."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

TOL = 1e-13


# -- fixed points --------------------------------------------------------------------------

def kepler_E(M, e, tol=TOL):
    """Kepler's equation E - e sin E = M by fixed-point iteration."""
    E = M
    while True:
        E_new = M + e * math.sin(E)
        if abs(E_new - E) < tol:
            return E_new
        E = E_new


# implicit derivative: dE/dM = 1 / (1 - e cos E), dE/de = sin E / (1 - e cos E)
def _kepler_ref():
    E = kepler_E(1.1, 0.3)
    d = 1 - 0.3 * math.cos(E)
    return (1 / d, math.sin(E) / d)


add(G("r17i_kepler_fixed_point_while_true", kepler_E, (1.1, 0.3), argnums=(0, 1), ref=_kepler_ref, tol=1e-10))
add(G("r17i_kepler_fixed_point_ag", kepler_E, (1.1, 0.3), argnums=(0, 1), ref="ag", tol=1e-12))


def kepler_newton(M, e):
    E = M if e < 0.8 else math.pi
    for _ in range(50):
        f = E - e * math.sin(E) - M
        dE = f / (1 - e * math.cos(E))
        E -= dE
        if abs(dE) < 1e-15:
            break
    return E


def orbit_radius(M, e, a=1.0):
    E = kepler_newton(M, e)
    return a * (1 - e * math.cos(E))


add(G("r17i_kepler_newton_break_radius", orbit_radius, (2.0, 0.85), argnums=(0, 1), ref="fd", tol=1e-7))
add(H("r17i_kepler_newton_hessian_M", lambda M: orbit_radius(M, 0.5), (0.7,), ref="fd", tol=1e-5))


# Anderson-free damped fixed point of a vector map: equilibrium of a tiny DEQ layer
W_DEQ = np.array([[0.2, -0.1, 0.05], [0.1, 0.3, -0.2], [-0.05, 0.1, 0.25]])


def deq_layer(x, W=W_DEQ, iters=200):
    z = np.zeros_like(x)
    for _ in range(iters):
        z_next = np.tanh(W @ z + x)
        if np.linalg.norm(z_next - z) < 1e-14:
            z = z_next
            break
        z = 0.5 * z + 0.5 * z_next
    return np.sum(z ** 2)


def _deq_ift():
    x = np.array([0.3, -0.5, 0.8])
    z = np.zeros(3)
    for _ in range(2000):
        z = np.tanh(W_DEQ @ z + x)
    D = np.diag(1 - np.tanh(W_DEQ @ z + x) ** 2)
    # z = tanh(Wz + x): (I - D W) dz = D dx
    J = np.linalg.solve(np.eye(3) - D @ W_DEQ, D)
    return J.T @ (2 * z)


add(G("r17i_deq_fixed_point_break_ift", deq_layer, (np.array([0.3, -0.5, 0.8]),), ref=_deq_ift, tol=1e-9))


# -- bisection ------------------------------------------------------------------------------

def bisect_root(c, lo=0.0, hi=3.0):
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid ** 3 - c > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


# bounds do not depend on c: the program's derivative is 0 (as autograd and JAX say)
add(G("r17i_bisection_constant_bounds_zero", bisect_root, (2.0,), ref="ag", tol=0.0))


def bisect_then_newton(c):
    r = bisect_root(c)
    r = r - (r ** 3 - c) / (3 * r ** 2)
    return r


add(G("r17i_bisection_polished_by_newton", bisect_then_newton, (2.0,), ref=lambda: 1 / (3 * 2.0 ** (2 / 3)), tol=1e-10))


def bisect_scaled(c):
    # bounds scale with c: lo, hi carry a derivative; the result is c**(1/3) exactly-ish
    lo, hi = 0.0, max(1.0, c)
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


add(G("r17i_bisection_bounds_from_c", bisect_scaled, (5.0,), ref="ag", tol=1e-12))


# -- Newton solves ---------------------------------------------------------------------------

def newton_sys(p, tol=1e-14):
    """Solve x^2 + y^2 = p0, x - y^3 = p1 by Newton with np.linalg.solve."""
    x = np.array([1.0, 0.5])
    for it in range(40):
        F = np.array([x[0] ** 2 + x[1] ** 2 - p[0], x[0] - x[1] ** 3 - p[1]])
        J = np.array([[2 * x[0], 2 * x[1]], [1.0, -3 * x[1] ** 2]])
        dx = np.linalg.solve(J, F)
        x = x - dx
        if np.max(np.abs(dx)) < tol:
            break
    return x[0] * x[1]


def _newton_sys_ift():
    p = np.array([2.0, 0.3])
    x = np.array([1.0, 0.5])
    for _ in range(60):
        F = np.array([x[0] ** 2 + x[1] ** 2 - p[0], x[0] - x[1] ** 3 - p[1]])
        J = np.array([[2 * x[0], 2 * x[1]], [1.0, -3 * x[1] ** 2]])
        x = x - np.linalg.solve(J, F)
    J = np.array([[2 * x[0], 2 * x[1]], [1.0, -3 * x[1] ** 2]])
    dxdp = np.linalg.solve(J, np.eye(2))
    return np.array([x[1], x[0]]) @ dxdp


add(G("r17i_newton_system_solve_break", newton_sys, (np.array([2.0, 0.3]),), ref=_newton_sys_ift, tol=1e-9))
add(G("r17i_newton_system_ag", newton_sys, (np.array([2.0, 0.3]),), ref="jax", tol=1e-10))


# implied volatility by Newton on Black-Scholes, then a vega-weighted loss
def _ncdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def bs_call(S, K, T, r, sig):
    d1 = (math.log(S / K) + (r + 0.5 * sig * sig) * T) / (sig * math.sqrt(T))
    d2 = d1 - sig * math.sqrt(T)
    return S * _ncdf(d1) - K * math.exp(-r * T) * _ncdf(d2)


def implied_vol(price, S, K, T, r):
    sig = 0.3
    for _ in range(100):
        d1 = (math.log(S / K) + (r + 0.5 * sig * sig) * T) / (sig * math.sqrt(T))
        vega = S * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(T)
        diff = bs_call(S, K, T, r, sig) - price
        if abs(diff) < 1e-14:
            return sig
        sig -= diff / vega
    return sig


def _iv_ref():
    sig = implied_vol(10.0, 100.0, 105.0, 1.0, 0.02)
    d1 = (math.log(100 / 105) + (0.02 + 0.5 * sig * sig)) / sig
    vega = 100 * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi)
    return 1.0 / vega


add(G("r17i_implied_vol_newton_early_return", implied_vol, (10.0, 100.0, 105.0, 1.0, 0.02), ref=_iv_ref, tol=1e-8))


# -- quadrature ---------------------------------------------------------------------------------

def simpson(f, a, b, n=20):
    h = (b - a) / n
    s = f(a) + f(b)
    for i in range(1, n):
        s += (4 if i % 2 else 2) * f(a + i * h)
    return s * h / 3


def gaussian_tail_mass(mu, sig):
    dens = lambda t: math.exp(-0.5 * ((t - mu) / sig) ** 2) / (sig * math.sqrt(2 * math.pi))
    return simpson(dens, 0.0, 3.0)


add(G("r17i_simpson_lambda_closure", gaussian_tail_mass, (1.0, 0.7), argnums=(0, 1), ref="fd", tol=1e-7))
add(G("r17i_simpson_limits_differentiated", lambda b: simpson(math.sin, 0.0, b), (2.0,), ref="fd", tol=1e-7))

GL_X, GL_W = np.polynomial.legendre.leggauss(8)


def gauss_legendre(f, a, b):
    t = 0.5 * (b - a) * GL_X + 0.5 * (a + b)
    return 0.5 * (b - a) * np.sum(GL_W * f(t))


def arc_length(c):
    """Length of y = c0 x + c1 x^2 + c2 x^3 on [0, 1]."""
    def dy(x):
        return c[0] + 2 * c[1] * x + 3 * c[2] * x ** 2
    return gauss_legendre(lambda x: np.sqrt(1 + dy(x) ** 2), 0.0, 1.0)


add(G("r17i_gauss_legendre_arc_length", arc_length, (np.array([0.5, -1.0, 0.8]),), ref="ag", tol=1e-12))
def arc_length_def(c):
    def integrand(x):
        dy = c[0] + 2 * c[1] * x + 3 * c[2] * x ** 2
        return np.sqrt(1 + dy ** 2)
    return gauss_legendre(integrand, 0.0, 1.0)


add(G("r17i_gauss_legendre_nested_def", arc_length_def, (np.array([0.5, -1.0, 0.8]),), ref="ag", tol=1e-12))
add(H("r17i_gauss_legendre_arc_length_hessian", arc_length_def, (np.array([0.5, -1.0, 0.8]),), ref="ag", tol=1e-10))


def romberg(f, a, b, levels=5):
    R = [[0.0] * levels for _ in range(levels)]
    h = b - a
    R[0][0] = 0.5 * h * (f(a) + f(b))
    for i in range(1, levels):
        h = h / 2
        s = sum(f(a + (2 * k - 1) * h) for k in range(1, 2 ** (i - 1) + 1))
        R[i][0] = 0.5 * R[i - 1][0] + h * s
        for j in range(1, i + 1):
            R[i][j] = R[i][j - 1] + (R[i][j - 1] - R[i - 1][j - 1]) / (4 ** j - 1)
    return R[levels - 1][levels - 1]


def planck_band(T):
    # integral of x^3 / (e^{x/T} - 1) on [0.5, 4]
    def integrand(x):
        return x ** 3 / math.expm1(x / T)
    return romberg(integrand, 0.5, 4.0)


add(G("r17i_romberg_list_of_lists", planck_band, (1.3,), ref="fd", tol=1e-7))
add(G("r17i_romberg_ag", planck_band, (1.3,), ref="ag", tol=1e-12))


def trapz_loss(k, x):
    y = np.exp(-k * x) * np.cos(3 * x)
    return np.trapezoid(y, x) if hasattr(np, "trapezoid") else np.trapz(y, x)


XQ = np.linspace(0.0, 2.0, 41)
add(G("r17i_np_trapezoid_hasattr", trapz_loss, (0.8, XQ), ref="fd", tol=1e-7))


# -- Richardson extrapolation of a finite-difference derivative, differentiated ---------------

def richardson_deriv(f, x, h=0.1, levels=4):
    D = []
    for i in range(levels):
        hi = h / 2 ** i
        D.append((f(x + hi) - f(x - hi)) / (2 * hi))
    for k in range(1, levels):
        D = [(4 ** k * D[i + 1] - D[i]) / (4 ** k - 1) for i in range(len(D) - 1)]
    return D[0]


def force_from_potential(x, eps):
    # a Lennard-Jones force by numerically differentiating the potential, then its derivative
    V = lambda r: 4 * eps * ((1 / r) ** 12 - (1 / r) ** 6)
    return -richardson_deriv(V, x)


add(G("r17i_richardson_lj_force", force_from_potential, (1.3, 0.7), argnums=(0, 1), ref="fd", tol=1e-6))
add(G("r17i_richardson_lj_force_ag", force_from_potential, (1.3, 0.7), argnums=(0, 1), ref="ag", tol=1e-10))


# -- implicit steps ---------------------------------------------------------------------------------

def implicit_euler_logistic(r, y0=0.1, dt=0.2, steps=25):
    y = y0
    for _ in range(steps):
        # solve z = y + dt r z (1 - z) by Newton, warm-started at y
        z = y
        for _ in range(30):
            g = z - y - dt * r * z * (1 - z)
            dg = 1 - dt * r * (1 - 2 * z)
            step = g / dg
            z = z - step
            if abs(step) < 1e-15:
                break
        y = z
    return y


add(G("r17i_implicit_euler_newton_inner_break", implicit_euler_logistic, (1.5,), ref="fd", tol=1e-7))
add(G("r17i_implicit_euler_y0_dt", implicit_euler_logistic, (1.5, 0.1, 0.2), argnums=(1, 2), ref="ag", tol=1e-11))


def crank_nicolson_heat(kappa, n=12, steps=10, dt=0.01):
    dx = 1.0 / (n + 1)
    L = (np.diag(-2 * np.ones(n)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)) / dx ** 2
    I = np.eye(n)
    A = I - 0.5 * dt * kappa * L
    B = I + 0.5 * dt * kappa * L
    u = np.sin(np.pi * np.linspace(dx, 1 - dx, n))
    for _ in range(steps):
        u = np.linalg.solve(A, B @ u)
    return np.sum(u) * dx


add(G("r17i_crank_nicolson_solve", crank_nicolson_heat, (0.3,), ref="jax", tol=1e-10))
add(pair("r17i_crank_nicolson_grad_grad", lambda: revsrc.grad(revsrc.grad(crank_nicolson_heat))(0.3),
         lambda: jax().grad(jax().grad(jaxify(crank_nicolson_heat)))(0.3), tol=1e-8))


# power iteration for the dominant eigenvalue with a data-dependent stop
def power_iter_lambda(a):
    M = np.array([[2.0 + a, 0.5, 0.0], [0.5, 1.0, 0.3 * a], [0.0, 0.3 * a, 0.5]])
    v = np.ones(3) / math.sqrt(3)
    lam = 0.0
    while True:
        w = M @ v
        lam_new = v @ w
        v = w / np.linalg.norm(w)
        if abs(lam_new - lam) < 1e-15:
            break
        lam = lam_new
    return lam_new


def _power_ref():
    a = 0.4
    M = np.array([[2.0 + a, 0.5, 0.0], [0.5, 1.0, 0.3 * a], [0.0, 0.3 * a, 0.5]])
    w, V = np.linalg.eigh(M)
    v = V[:, -1]
    dM = np.array([[1.0, 0, 0], [0, 0, 0.3], [0, 0.3, 0]])
    return v @ dM @ v


add(G("r17i_power_iteration_while_true", power_iter_lambda, (0.4,), ref=_power_ref, tol=1e-7))


# -- compositions on the fixed-point and Newton programs ---------------------------------------------

def _kepler_d2():
    E = kepler_E(1.1, 0.3)
    d = 1 - 0.3 * math.cos(E)
    return -(0.3 * math.sin(E) / d) / d ** 2


add(H("r17i_kepler_while_true_hessian_M", lambda M: kepler_E(M, 0.3), (1.1,), ref=_kepler_d2, tol=1e-9))
add(pair("r17i_kepler_grad_grad_M", lambda: revsrc.grad(revsrc.grad(kepler_E))(1.1, 0.3), _kepler_d2, tol=1e-9))
add(pair("r17i_kepler_hessian_backend_jax", lambda: revsrc.hessian(kepler_E, backend="jax")(1.1, 0.3), _kepler_d2, tol=1e-9))
add(pair("r17i_kepler_vmap_grad_in_axes_none", lambda: revsrc.vmap(revsrc.grad(kepler_E), in_axes=(0, None))(np.array([0.5, 1.1, 2.5]), 0.3),
         lambda: np.array([1 / (1 - 0.3 * math.cos(kepler_E(M, 0.3))) for M in (0.5, 1.1, 2.5)]), tol=1e-10))
add(EXACT("r17i_kepler_jit_grad_same_digits", lambda: revsrc.jit(revsrc.grad(kepler_E, argnums=(0, 1)))(1.1, 0.3),
          lambda: revsrc.grad(kepler_E, argnums=(0, 1))(1.1, 0.3)))


def heron_try(a):
    x = a
    for _ in range(30):
        try:
            x = 0.5 * (x + a / x)
        except ZeroDivisionError:
            return 0.0
    return x


add(G("r17i_heron_try_zero_division", heron_try, (2.0,), ref=lambda: 0.5 / math.sqrt(2.0), tol=1e-12))
# a = 0: the except path returns a constant
add(G("r17i_heron_try_except_path", heron_try, (0.0,), ref=lambda: 0.0, tol=0.0))
# revsrc.jit of the same scalar program (jit.md: loops, branches, early returns; raise works)
add(EXACT("r17i_heron_try_jit", lambda: revsrc.jit(heron_try)(2.0), lambda: heron_try(2.0)))


def logistic_growth_until(r, cap=2.5):
    s = 0.6
    for k in range(20):
        s = s * (1 + r) - 0.1 * s * s
        if s > cap:
            break
    return s * k


add(H("r17i_growth_break_hessian", logistic_growth_until, (0.3,), ref="fd", tol=1e-5))
add(pair("r17i_growth_break_grad_grad", lambda: revsrc.grad(revsrc.grad(logistic_growth_until))(0.3),
         lambda: ag()[0].grad(ag()[0].grad(agify(logistic_growth_until)))(0.3), tol=1e-10))
add(pair("r17i_growth_break_hessian_backend_jax", lambda: revsrc.hessian(logistic_growth_until, backend="jax")(0.3),
         lambda: ag()[0].grad(ag()[0].grad(agify(logistic_growth_until)))(0.3), tol=1e-10))


# adaptive Heun-Euler integration: the step size depends on the parameters, the last step
# is clipped with min(), the loop stops on t >= T
def adaptive_decay(k, y0=1.0, T=2.0, tol=1e-6):
    t, y, h = 0.0, y0, 0.1
    n = 0
    while t < T and n < 10000:
        h = min(h, T - t)
        f1 = -k * y * (1 + 0.5 * math.sin(t))
        yp = y + h * f1
        f2 = -k * yp * (1 + 0.5 * math.sin(t + h))
        y_new = y + 0.5 * h * (f1 + f2)
        err = abs(y_new - yp)
        if err <= tol:
            t, y = t + h, y_new
        h = 0.9 * h * min(2.0, max(0.2, math.sqrt(tol / max(err, 1e-300))))
        n += 1
    return y


add(G("r17i_adaptive_heun_step_control_ag", adaptive_decay, (1.3,), ref="ag", tol=1e-10))
add(H("r17i_adaptive_heun_step_control_hessian", adaptive_decay, (1.3,), ref=lambda: ag()[0].grad(ag()[0].grad(agify(adaptive_decay)))(1.3), tol=1e-8))
add(G("r17i_adaptive_heun_step_control_backend_jax", adaptive_decay, (1.3,), ref="ag", tol=1e-10, backend="jax"))


# spectral methods: convolution by rfft/irfft, and a spectral energy
def fft_conv_energy(k, x):
    n = len(x)
    K = np.fft.rfft(np.concatenate([k, np.zeros(n - len(k))]))
    y = np.fft.irfft(K * np.fft.rfft(x), n)
    return np.sum(y ** 2) + np.sum(np.abs(K) ** 2)


KF = np.array([0.5, 0.3, -0.2])
XF = np.sin(np.linspace(0, 3, 8))
add(G("r17i_fft_conv_energy_grad", fft_conv_energy, (KF, XF), argnums=(0, 1), ref="fd", tol=1e-7))
# at this k the Nyquist bin K[4] = 0.5 - 0.3 - 0.2 is exactly 0: abs has its kink there, and
# the second derivative of |K|^2 taken through abs uses abs's subgradient 0 (api.md), as JAX
# and autograd do (central differences of the smooth |K|^2 give 2 more on the diagonal)
add(H("r17i_fft_conv_energy_hessian_kink_bin", fft_conv_energy, (KF, XF), ref="jax", tol=1e-10))
add(H("r17i_fft_conv_energy_hessian_generic", fft_conv_energy, (np.array([0.5, 0.3, -0.1]), XF), ref="fd", tol=1e-5))
add(H("r17i_fft_power_real_imag_hessian", lambda k: np.sum(np.fft.fft(k).real ** 2 + np.fft.fft(k).imag ** 2), (KF,),
      ref=lambda: 6.0 * np.eye(3), tol=1e-12))
