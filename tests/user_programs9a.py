"""Round 9, numerical methods: Horner, Clenshaw/Chebyshev, Simpson and Gauss-Legendre
quadrature, bisection and secant with tolerance loops, fixed-point iteration, continued
fractions, series with early stopping and Richardson extrapolation, written as a
numerical-analysis course writes them."""
import math

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []

COEFFS = [1.0, -0.5, 0.25, 2.0, -1.5]


def horner(x):
    acc = 0.0
    for c in COEFFS:
        acc = acc * x + c
    return acc


CASES.append(G("r9_horner_global_coeffs", horner, (0.7,), ref="jax"))


def horner_coeffs(c, x):
    acc = np.zeros_like(x)
    for k in range(len(c) - 1, -1, -1):
        acc = acc * x + c[k]
    return np.sum(acc)


_rng = np.random.default_rng(0)
_c = _rng.normal(size=6)
_xs = np.linspace(-1, 1, 7)
CASES.append(G("r9_horner_grad_wrt_coeffs_array", horner_coeffs, (_c, _xs), ref="jax"))
CASES.append(G("r9_horner_grad_wrt_points", horner_coeffs, (_c, _xs), argnums=1, ref="jax"))


def clenshaw(a, x):
    b1 = 0.0
    b2 = 0.0
    for k in reversed(range(1, len(a))):
        b1, b2 = 2.0 * x * b1 - b2 + a[k], b1
    return a[0] + x * b1 - b2


_a = np.array([0.5, -0.3, 0.2, 0.1, -0.05])
CASES.append(G("r9_clenshaw_chebyshev_wrt_x", clenshaw, (_a, 0.3), argnums=1, ref="jax"))
CASES.append(G("r9_clenshaw_chebyshev_wrt_coeffs", clenshaw, (_a, 0.3), argnums=0, ref="jax"))
CASES.append(pair("r9_clenshaw_matches_cos_form",
                  lambda: __import__("revsrc").grad(clenshaw, argnums=1)(_a, 0.3),
                  lambda: sum(_a[k] * k * math.sin(k * math.acos(0.3)) / math.sqrt(1 - 0.09)
                              for k in range(len(_a)))))


def simpson(k, a=0.0, b=2.0, n=20):
    h = (b - a) / n
    s = math.exp(-k * a * a) + math.exp(-k * b * b)
    for i in range(1, n):
        x = a + i * h
        w = 4.0 if i % 2 == 1 else 2.0
        s += w * math.exp(-k * x * x)
    return s * h / 3.0


CASES.append(G("r9_simpson_gaussian_param", simpson, (0.8,), ref="jax"))
CASES.append(G("r9_simpson_wrt_upper_limit", simpson, (0.8, 0.0, 2.0), argnums=2, ref="jax"))

GL_X, GL_W = np.polynomial.legendre.leggauss(8)


def gauss_legendre(p):
    # integral over [0, 1] of x**p * log(1 + x)
    x = 0.5 * (GL_X + 1.0)
    return 0.5 * np.sum(GL_W * x ** p * np.log1p(x))


CASES.append(G("r9_gauss_legendre_table_global", gauss_legendre, (1.7,), ref="jax"))
CASES.append(H("r9_gauss_legendre_hessian", gauss_legendre, (1.7,), ref="jax"))


def bisect_root(c):
    # root of x**3 + c*x - 1 on [0, 2]; the root moves with c
    lo, hi = 0.0, 2.0
    while hi - lo > 1e-13:
        mid = 0.5 * (lo + hi)
        if mid ** 3 + c * mid - 1.0 > 0.0:
            hi = mid
        else:
            lo = mid
    r = 0.5 * (lo + hi)
    # one Newton step makes the result depend smoothly on c
    return r - (r ** 3 + c * r - 1.0) / (3 * r * r + c)


def _bisect_ref():
    r = bisect_root(0.5)
    return -r / (3 * r * r + 0.5)


CASES.append(G("r9_bisection_then_newton_implicit", bisect_root, (0.5,), ref=_bisect_ref, tol=1e-6))


def secant(c, tol=1e-12):
    x0, x1 = 1.0, 2.0
    it = 0
    while abs(x1 - x0) > tol and it < 50:
        f0 = x0 * x0 - c
        f1 = x1 * x1 - c
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
        it += 1
    return x1


CASES.append(G("r9_secant_sqrt_unrolled_derivative", secant, (3.0,),
               ref=lambda: 0.5 / math.sqrt(3.0), tol=1e-6))


def fixed_point_cos(a):
    x = 0.5
    for _ in range(200):
        xn = math.cos(a * x)
        if abs(xn - x) < 1e-15:
            break
        x = xn
    return x


def _fp_ref():
    x = fixed_point_cos(0.9)
    # x = cos(a x) -> dx/da = -sin(a x) x / (1 + a sin(a x))
    s = math.sin(0.9 * x)
    return -s * x / (1 + 0.9 * s)


CASES.append(G("r9_fixed_point_cos_break", fixed_point_cos, (0.9,), ref=_fp_ref, tol=1e-8))


def cont_frac_tan(x, depth=12):
    # Lambert's continued fraction: tan x = x / (1 - x^2 / (3 - x^2 / (5 - ...)))
    t = 2 * depth + 1.0
    for k in range(depth, 0, -1):
        t = (2 * k - 1) - x * x / t
    return x / t


CASES.append(G("r9_continued_fraction_tan", cont_frac_tan, (0.6,), ref=lambda: 1 / math.cos(0.6) ** 2, tol=1e-9))


def exp_series(x):
    term = 1.0
    total = 1.0
    n = 1
    while abs(term) > 1e-17 * abs(total):
        term = term * x / n
        total = total + term
        n += 1
    return total


CASES.append(G("r9_exp_series_early_stop", exp_series, (1.3,), ref=lambda: math.exp(1.3), tol=1e-12))


def log1p_series(x):
    s = 0.0
    for n in range(1, 200):
        t = (-1) ** (n + 1) * x ** n / n
        s += t
        if abs(t) < 1e-16:
            break
    return s


CASES.append(G("r9_log1p_series_for_break", log1p_series, (0.3,), ref=lambda: 1 / 1.3, tol=1e-10))


def richardson_deriv(a):
    f = lambda t: math.sin(a * t) * math.exp(t)  # noqa: E731
    h = 0.1
    d1 = (f(1.0 + h) - f(1.0 - h)) / (2 * h)
    d2 = (f(1.0 + h / 2) - f(1.0 - h / 2)) / h
    return (4 * d2 - d1) / 3


CASES.append(G("r9_richardson_lambda_inside", richardson_deriv, (1.2,), ref="jax"))


def romberg(k, levels=5):
    a, b = 0.0, 1.0
    R = [[0.0] * levels for _ in range(levels)]
    R[0][0] = 0.5 * (b - a) * (math.exp(k * a) + math.exp(k * b))
    for i in range(1, levels):
        n = 2 ** i
        h = (b - a) / n
        s = sum(math.exp(k * (a + (2 * j - 1) * h)) for j in range(1, n // 2 + 1))
        R[i][0] = 0.5 * R[i - 1][0] + h * s
        for j in range(1, i + 1):
            R[i][j] = R[i][j - 1] + (R[i][j - 1] - R[i - 1][j - 1]) / (4 ** j - 1)
    return R[levels - 1][levels - 1]


def _romberg_ref():
    k = 1.5
    return (math.exp(k) * (k - 1) + 1) / k ** 2


CASES.append(G("r9_romberg_nested_lists", romberg, (1.5,), ref=_romberg_ref, tol=1e-8))


def trapz_np(w):
    x = np.linspace(0.0, np.pi, 101)
    y = np.sin(w * x) ** 2
    return np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2


CASES.append(G("r9_trapezoid_diff_slices", trapz_np, (1.3,), ref="jax"))


def newton_sqrt_tol(a):
    x = a
    while True:
        nx = 0.5 * (x + a / x)
        if abs(nx - x) < 1e-14:
            return nx
        x = nx


CASES.append(G("r9_newton_sqrt_while_true_return", newton_sqrt_tol, (5.0,),
               ref=lambda: 0.5 / math.sqrt(5.0), tol=1e-8))


def legendre_recurrence(x, n=6):
    p0, p1 = 1.0, x
    for k in range(1, n):
        p0, p1 = p1, ((2 * k + 1) * x * p1 - k * p0) / (k + 1)
    return p1


CASES.append(G("r9_legendre_three_term", legendre_recurrence, (0.37,), ref="jax"))
CASES.append(H("r9_legendre_three_term_hessian", legendre_recurrence, (0.37,), ref="jax"))


def aitken(a):
    xs = [1.0]
    for _ in range(3):
        xs.append(math.exp(-a * xs[-1]))
    x0, x1, x2 = xs[-3], xs[-2], xs[-1]
    return x2 - (x2 - x1) ** 2 / (x2 - 2 * x1 + x0)


CASES.append(G("r9_aitken_list_append_negative_index", aitken, (0.7,), ref="ag"))


def cheb_nodes_interp(s):
    n = 9
    k = np.arange(n)
    nodes = np.cos((2 * k + 1) * np.pi / (2 * n))
    vals = np.exp(s * nodes)
    # barycentric weights for Chebyshev nodes of the first kind
    w = (-1.0) ** k * np.sin((2 * k + 1) * np.pi / (2 * n))
    x = 0.123
    d = x - nodes
    return np.sum(w * vals / d) / np.sum(w / d)


CASES.append(G("r9_barycentric_chebyshev_interp", cheb_nodes_interp, (0.8,), ref="jax"))
CASES.append(JV("r9_jvp_gauss_legendre", gauss_legendre, (1.2,), (1.0,), ref="jax"))


def adaptive_simpson(k):
    f = lambda x: math.sqrt(1.0 + k * x * x)  # noqa: E731
    stack = [(0.0, 1.0)]
    total = 0.0
    count = 0
    while stack:
        a, b = stack.pop()
        m = 0.5 * (a + b)
        whole = (b - a) / 6 * (f(a) + 4 * f(m) + f(b))
        left = (m - a) / 6 * (f(a) + 4 * f(0.5 * (a + m)) + f(m))
        right = (b - m) / 6 * (f(m) + 4 * f(0.5 * (m + b)) + f(b))
        count += 1
        if abs(left + right - whole) < 1e-10 or count > 200:
            total += left + right
        else:
            stack.append((a, m))
            stack.append((m, b))
    return total


CASES.append(G("r9_adaptive_simpson_explicit_stack", adaptive_simpson, (0.7,), ref="ag", tol=1e-9))
