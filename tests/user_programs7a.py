"""User programs, corpus 7a: solvers written inside the differentiated function --
line searches, bisection, Newton/secant/Halley to a tolerance, adaptive Runge-Kutta,
Romberg and Gauss quadrature, power iteration, conjugate gradients, golden-section
search.  References: autograd (which follows the same branches and loops), JAX x64
where the program has no value-dependent Python control flow, and self-checked
central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, ag, agify, fd_checked, fd_hess_checked, jax, jaxify, pair

CASES = []


# -- line search ------------------------------------------------------------------------

def armijo_descent(theta, iters=12):
    x = 0.0
    for _ in range(iters):
        fx = (x - theta) ** 2 + 0.1 * x ** 4
        g = 2.0 * (x - theta) + 0.4 * x ** 3
        t = 1.0
        while (x - t * g - theta) ** 2 + 0.1 * (x - t * g) ** 4 > fx - 0.5 * t * g * g:
            t = 0.5 * t
        x = x - t * g
    return x


CASES.append(G("r7_armijo_backtracking_descent", armijo_descent, (1.3,), ref="ag"))
CASES.append(G("r7_armijo_backtracking_descent_fd", armijo_descent, (1.3,), ref="fd", tol=1e-5))


# -- bisection then one Newton polish ------------------------------------------------------

def bisect_then_newton(theta):
    lo, hi = -2.0, 2.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if mid ** 3 + mid - theta > 0.0:
            hi = mid
        else:
            lo = mid
    x = 0.5 * (lo + hi)
    return x - (x ** 3 + x - theta) / (3.0 * x * x + 1.0)


CASES.append(G("r7_bisect_then_newton_polish", bisect_then_newton, (0.7,), ref="ag", tol=1e-9))
# the implicit derivative 1 / (3 x^2 + 1) at the root
CASES.append(G("r7_bisect_newton_vs_implicit", bisect_then_newton, (0.7,),
               ref=lambda: 1.0 / (3.0 * bisect_then_newton(0.7) ** 2 + 1.0), tol=1e-6))


def bisect_only(theta):
    lo, hi = 0.0, 3.0
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        if math.cos(mid) - theta * mid > 0.0:
            lo = mid
        else:
            hi = mid
    return lo * theta


# lo is piecewise constant in theta: the program's derivative is lo itself
CASES.append(G("r7_bisect_while_piecewise_constant", bisect_only, (0.4,), ref="ag", tol=1e-12))


# -- Newton / secant / Halley to a tolerance ----------------------------------------------

def kepler(M, e):
    E = M
    step = 1.0
    while abs(step) > 1e-13:
        step = (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
        E = E - step
    return E


CASES.append(G("r7_kepler_newton_while", kepler, (1.1, 0.3), argnums=(0, 1), ref="ag"))
CASES.append(G("r7_kepler_newton_while_fd", kepler, (1.1, 0.3), argnums=(0, 1), ref="fd", tol=1e-6))
CASES.append(H("r7_kepler_hessian", kepler, (1.1, 0.3), argnums=1, ref="fd", tol=1e-4))


def secant_root(a):
    x0, x1 = 0.5, 1.5
    f0 = x0 * x0 * x0 - a
    f1 = x1 * x1 * x1 - a
    for _ in range(60):
        if abs(f1 - f0) < 1e-300 or abs(f1) < 1e-15:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        x0, f0 = x1, f1
        x1 = x2
        f1 = x1 * x1 * x1 - a
    return x1


CASES.append(G("r7_secant_cube_root", secant_root, (2.0,), ref="ag"))
CASES.append(G("r7_secant_cube_root_closed", secant_root, (2.0,),
               ref=lambda: (1.0 / 3.0) * 2.0 ** (-2.0 / 3.0), tol=1e-7))


def lambert_w_halley(x):
    w = math.log1p(x)
    for _ in range(30):
        ew = math.exp(w)
        f = w * ew - x
        if abs(f) < 1e-15 * (1.0 + abs(x)):
            break
        w = w - f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0))
    return w


CASES.append(G("r7_lambert_w_halley_closed", lambert_w_halley, (2.5,),
               ref=lambda: (lambda w: w / (2.5 * (1.0 + w)))(lambert_w_halley(2.5)), tol=1e-8))


# -- adaptive Runge-Kutta (Bogacki-Shampine 3(2)) ------------------------------------------

def bs23(k, T=2.0, tol=1e-7):
    t, y, h = 0.0, 1.0, 0.1
    while t < T:
        if t + h > T:
            h = T - t
        k1 = -k * y + math.sin(t)
        k2 = -k * (y + 0.5 * h * k1) + math.sin(t + 0.5 * h)
        k3 = -k * (y + 0.75 * h * k2) + math.sin(t + 0.75 * h)
        y3 = y + h * (2.0 * k1 + 3.0 * k2 + 4.0 * k3) / 9.0
        k4 = -k * y3 + math.sin(t + h)
        y2 = y + h * (7.0 * k1 / 24.0 + k2 / 4.0 + k3 / 3.0 + k4 / 8.0)
        err = abs(y3 - y2) + 1e-300
        if err <= tol:
            t = t + h
            y = y3
        h = 0.9 * h * (tol / err) ** (1.0 / 3.0)
        h = min(h, 0.5)
    return y


CASES.append(G("r7_adaptive_bs23_step_control", bs23, (1.7,), ref="ag", tol=1e-7))
CASES.append(G("r7_adaptive_bs23_memory", bs23, (1.7,), ref="ag", tol=1e-7, memory=256))


def rk4_event(v0):
    """Projectile with drag until it hits the ground, then the hit time by interpolation."""
    x, y, vx, vy, t, h = 0.0, 0.0, v0 * 0.8, v0 * 0.6, 0.0, 0.01
    while True:
        ax, ay = -0.1 * vx * math.hypot(vx, vy), -9.81 - 0.1 * vy * math.hypot(vx, vy)
        nx, ny = x + h * vx, y + h * vy
        nvx, nvy = vx + h * ax, vy + h * ay
        if ny < 0.0:
            frac = y / (y - ny)
            return x + frac * (nx - x)
        x, y, vx, vy, t = nx, ny, nvx, nvy, t + h


CASES.append(G("r7_projectile_event_interpolation", rk4_event, (12.0,), ref="ag"))
CASES.append(G("r7_projectile_event_interpolation_fd", rk4_event, (12.0,), ref="fd", tol=1e-5))


# -- quadrature ------------------------------------------------------------------------------

def romberg(a, levels=6):
    R = [[0.0] * levels for _ in range(levels)]
    h = 1.0
    R[0][0] = 0.5 * h * (1.0 + math.exp(-a))
    for i in range(1, levels):
        h = h / 2.0
        s = 0.0
        for k in range(1, 2 ** i, 2):
            s += math.exp(-a * (k * h) ** 2)
        R[i][0] = 0.5 * R[i - 1][0] + h * s
        for j in range(1, i + 1):
            R[i][j] = R[i][j - 1] + (R[i][j - 1] - R[i - 1][j - 1]) / (4.0 ** j - 1.0)
    return R[levels - 1][levels - 1]


CASES.append(G("r7_romberg_table_list_of_lists", romberg, (1.3,), ref="ag", tol=1e-9))
CASES.append(G("r7_romberg_vs_closed_form", romberg, (1.3,),
               ref=lambda: -0.5 * (math.sqrt(math.pi) / 2.0 * math.erf(math.sqrt(1.3)) / 1.3 ** 1.5
                                   - math.exp(-1.3) / 1.3), tol=1e-7))


def gauss_legendre(s):
    nodes, weights = np.polynomial.legendre.leggauss(6)
    x = 0.5 * (nodes + 1.0)
    return 0.5 * np.sum(weights * np.exp(-s * x) * np.cos(s * x))


CASES.append(G("r7_gauss_legendre_leggauss_inside", gauss_legendre, (0.8,), ref="fd", tol=1e-8))


# -- power iteration / conjugate gradients -------------------------------------------------

B0 = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])
B1 = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.5], [0.0, 0.5, 0.0]])


def power_iteration(t):
    A = B0 + t * B1
    v = np.ones(3) / np.sqrt(3.0)
    for _ in range(200):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v


CASES.append(G("r7_power_iteration_rayleigh", power_iteration, (0.4,), ref="jax", tol=1e-8))
CASES.append(G("r7_power_iteration_vs_eigh", power_iteration, (0.4,),
               ref=lambda: (lambda w, V: float(V[:, -1] @ B1 @ V[:, -1]))(*np.linalg.eigh(B0 + 0.4 * B1)),
               tol=1e-7))


def cg_energy(b):
    A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]])
    x = np.zeros(3)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    while rs > 1e-28:
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x @ b


B3 = np.array([1.0, -2.0, 0.5])
CASES.append(G("r7_conjugate_gradient_while", cg_energy, (B3,), ref="fd", tol=1e-7))
CASES.append(G("r7_conjugate_gradient_vs_solve", cg_energy, (B3,),
               ref=lambda: 2.0 * np.linalg.solve(np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5],
                                                           [0.0, 0.5, 2.0]]), B3), tol=1e-7))


def golden_min_value(c):
    invphi = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = 0.0, 4.0
    while b - a > 1e-10:
        x1 = b - invphi * (b - a)
        x2 = a + invphi * (b - a)
        if (x1 - c) ** 2 + math.cos(x1) < (x2 - c) ** 2 + math.cos(x2):
            b = x2
        else:
            a = x1
    xm = 0.5 * (a + b)
    return (xm - c) ** 2 + math.cos(xm)


# the minimizer moves only through comparisons: the derivative is the partial in c
CASES.append(G("r7_golden_section_envelope", golden_min_value, (2.0,), ref="ag", tol=1e-9))


def fixed_point_break(a):
    x = 1.0
    for i in range(500):
        nx = math.cos(a * x)
        if abs(nx - x) < 1e-14:
            x = nx
            break
        x = nx
    return x


CASES.append(G("r7_fixed_point_for_break", fixed_point_break, (0.9,), ref="fd", tol=1e-6))


def simpson_fixed_depth(a, depth):
    def simpson(lo, hi):
        mid = 0.5 * (lo + hi)
        return (hi - lo) / 6.0 * (math.exp(a * lo) + 4.0 * math.exp(a * mid) + math.exp(a * hi))

    def rec(lo, hi, d):
        if d == 0:
            return simpson(lo, hi)
        mid = 0.5 * (lo + hi)
        return rec(lo, mid, d - 1) + rec(mid, hi, d - 1)
    return rec(0.0, 1.0, depth)


CASES.append(G("r7_simpson_recursive_int_depth", simpson_fixed_depth, (0.6, 4), ref="ag", tol=1e-10))


def adaptive_simpson(a):
    def simpson(lo, hi):
        mid = 0.5 * (lo + hi)
        return (hi - lo) / 6.0 * (math.sin(a * lo) + 4.0 * math.sin(a * mid) + math.sin(a * hi))

    def rec(lo, hi, whole, tol):
        mid = 0.5 * (lo + hi)
        left, right = simpson(lo, mid), simpson(mid, hi)
        if abs(left + right - whole) < 15.0 * tol:
            return left + right
        return rec(lo, mid, left, tol / 2.0) + rec(mid, hi, right, tol / 2.0)
    return rec(0.0, 2.0, simpson(0.0, 2.0), 1e-8)


# recursion decided by a differentiated value: documented E103
CASES.append(G("r7_adaptive_simpson_value_recursion_E103", adaptive_simpson, (1.4,), ref="ag"))


def newton_sqrt_jit(x):
    y = x
    dsq = revsrc.grad(lambda_sq)
    for _ in range(30):
        y = y - (lambda_sq(y) - x) / dsq(y)
    return y


def lambda_sq(y):
    return y * y


CASES.append(pair("r7_jit_newton_with_inner_grad",
                  lambda: revsrc.jit(newton_sqrt_jit)(7.0), lambda: newton_sqrt_jit(7.0), tol=0.0))
CASES.append(G("r7_grad_of_newton_with_inner_grad", newton_sqrt_jit, (7.0,),
               ref=lambda: 0.5 / math.sqrt(7.0), tol=1e-9))
CASES.append(pair("r7_gradgrad_kepler_in_e",
                  lambda: revsrc.grad(revsrc.grad(kepler, argnums=1), argnums=1)(1.1, 0.3),
                  lambda: fd_hess_checked(lambda e: kepler(1.1, e), (0.3,))[0],
                  tol=1e-5))


D_SQ = revsrc.grad(lambda_sq)


def newton_sqrt_global_grad(x):
    y = x
    for _ in range(30):
        y = y - (lambda_sq(y) - x) / D_SQ(y)
    return y


CASES.append(pair("r7_jit_newton_with_global_grad",
                  lambda: revsrc.jit(newton_sqrt_global_grad)(7.0),
                  lambda: newton_sqrt_global_grad(7.0), tol=0.0))
CASES.append(G("r7_grad_of_newton_with_global_grad", newton_sqrt_global_grad, (7.0,),
               ref=lambda: 0.5 / math.sqrt(7.0), tol=1e-9))
CASES.append(pair("r7_vmap_grad_kepler_over_M",
                  lambda: revsrc.vmap(revsrc.grad(kepler), in_axes=(0, None))(np.linspace(0.1, 3.0, 7), 0.3),
                  lambda: np.array([ag()[0].grad(agify(kepler))(float(m), 0.3)
                                    for m in np.linspace(0.1, 3.0, 7)]), tol=1e-9))
