"""Round 10, optimisation inner loops and chemistry: backtracking (Armijo) line
searches, gradient descent unrolled with a learned step, projected gradient onto a box
and a simplex, a trust-region Cauchy step, Nesterov momentum, Newton on a 1-D objective,
reaction kinetics integrated by Euler and RK4, Arrhenius rates, equilibrium solved by
Newton, Michaelis-Menten, pH of a weak acid, as optimisation and chemistry people write
them."""
import math

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1002)
A = rng.normal(size=(4, 4))
Q = A @ A.T + 4 * np.eye(4)
B = rng.normal(size=4)


def quad(x, Q, b):
    return 0.5 * x @ Q @ x - b @ x


def unrolled_gd(lr, x0, Q, b, steps=6):
    x = x0
    for _ in range(steps):
        g = Q @ x - b
        x = x - lr * g
    return quad(x, Q, b)


CASES.append(G("r10_unrolled_gd_lr", unrolled_gd, (0.05, np.ones(4), Q, B), ref="jax"))
CASES.append(G("r10_unrolled_gd_matrix", unrolled_gd, (0.05, np.ones(4), Q, B), argnums=2, ref="jax"))


def armijo_step(x, d, c=1e-4, shrink=0.5):
    f0 = np.sum(x ** 4) + np.sum(x ** 2)
    g0 = 4 * x ** 3 + 2 * x
    t = 1.0
    for _ in range(30):
        xn = x - t * d * g0
        if np.sum(xn ** 4) + np.sum(xn ** 2) <= f0 - c * t * d * np.dot(g0, g0):
            break
        t *= shrink
    return np.sum(xn ** 4) + np.sum(xn ** 2)


CASES.append(G("r10_armijo_backtracking_x", armijo_step, (np.array([1.5, -0.7, 0.3]), 0.4), ref="ag"))
CASES.append(G("r10_armijo_backtracking_d", armijo_step, (np.array([1.5, -0.7, 0.3]), 0.4), argnums=1, ref="ag"))


def projected_gradient_box(c, x0, lo=0.0, hi=1.0, steps=8):
    x = x0
    for _ in range(steps):
        g = 2.0 * (x - c)
        x = np.clip(x - 0.3 * g, lo, hi)
    return np.sum((x - c) ** 2) + np.sum(x)


C = np.array([0.2, 1.4, -0.3, 0.6])
CASES.append(G("r10_projected_gradient_box", projected_gradient_box, (C, np.full(4, 0.5)), ref="jax"))


def project_simplex(v):
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    k = np.arange(1, len(v) + 1)
    cond = u - (css - 1.0) / k > 0
    rho = np.nonzero(cond)[0][-1]
    theta = (css[rho] - 1.0) / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


def simplex_loss(v, target):
    p = project_simplex(v)
    return np.sum((p - target) ** 2) + np.sum(p * np.arange(len(p)))


CASES.append(G("r10_projection_onto_simplex", simplex_loss,
               (np.array([0.5, 0.9, -0.2, 0.4]), np.array([0.1, 0.5, 0.2, 0.2]))))


def cauchy_point(g, Bm, delta):
    gBg = g @ Bm @ g
    gn = np.linalg.norm(g)
    if gBg <= 0:
        tau = 1.0
    else:
        tau = min(gn ** 3 / (delta * gBg), 1.0)
    p = -tau * delta / gn * g
    return g @ p + 0.5 * p @ Bm @ p


CASES.append(G("r10_trust_region_cauchy_delta", cauchy_point, (B, Q, 0.3), argnums=2, ref="ag"))
CASES.append(G("r10_trust_region_cauchy_g", cauchy_point, (B, Q, 0.3), argnums=0, ref="ag"))


def nesterov(mu, x0, steps=10):
    x = x0
    v = np.zeros_like(x0)
    for _ in range(steps):
        look = x + mu * v
        g = Q @ look - B
        v = mu * v - 0.05 * g
        x = x + v
    return quad(x, Q, B)


CASES.append(G("r10_nesterov_momentum_mu", nesterov, (0.8, np.zeros(4)), ref="jax"))


def newton_1d(a, x0=1.0, tol=1e-12):
    x = x0
    for _ in range(50):
        fp = 4 * x ** 3 - a
        fpp = 12 * x ** 2
        step = fp / fpp
        x = x - step
        if abs(step) < tol:
            break
    return x


# argmin of x^4 - a x is (a/4)^(1/3)
CASES.append(G("r10_newton_argmin_implicit", newton_1d, (2.5,),
               ref=lambda: (1.0 / 3.0) * (2.5 / 4) ** (-2.0 / 3.0) / 4))


def arrhenius(Ea, A, T):
    R = 8.314
    return A * math.exp(-Ea / (R * T))


CASES.append(G("r10_arrhenius_Ea", arrhenius, (5.0e4, 1.0e7, 350.0), argnums=(0, 2), ref="jax"))


def first_order_chain_euler(k, y0, dt=0.01, steps=200):
    # A -> B -> C
    a, b, c = y0, 0.0, 0.0
    for _ in range(steps):
        ra = k[0] * a
        rb = k[1] * b
        a, b, c = a - dt * ra, b + dt * (ra - rb), c + dt * rb
    return b


def chain_closed(k1, k2, t):
    return k1 / (k2 - k1) * (math.exp(-k1 * t) - math.exp(-k2 * t))


CASES.append(G("r10_kinetics_chain_euler", first_order_chain_euler, (np.array([1.3, 0.6]), 1.0), ref="jax"))


def rk4_kinetics(k, y0, t_end=2.0, n=40):
    def rhs(y):
        a, b = y[0], y[1]
        r1 = k[0] * a * a
        r2 = k[1] * b
        return np.array([-2 * r1, r1 - r2])
    h = t_end / n
    y = y0
    for _ in range(n):
        k1 = rhs(y)
        k2 = rhs(y + 0.5 * h * k1)
        k3 = rhs(y + 0.5 * h * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[1]


CASES.append(G("r10_rk4_second_order_kinetics", rk4_kinetics, (np.array([0.9, 0.4]), np.array([1.0, 0.0])), ref="jax"))
CASES.append(G("r10_rk4_kinetics_initial", rk4_kinetics, (np.array([0.9, 0.4]), np.array([1.0, 0.0])), argnums=1, ref="jax"))


def rk4_vs_closed():
    import revsrc
    k1, k2, t = 1.3, 0.6, 1.5
    # d b(t) / d k1 of the closed form vs revsrc on the closed form
    return revsrc.grad(chain_closed)(k1, k2, t)


CASES.append(pair("r10_kinetics_closed_form_dk1", rk4_vs_closed,
                  lambda: (chain_closed(1.3 + 1e-6, 0.6, 1.5) - chain_closed(1.3 - 1e-6, 0.6, 1.5)) / 2e-6,
                  tol=1e-7))


def equilibrium_extent(K, a0, b0):
    # A + B <-> C, K = x / ((a0 - x)(b0 - x)); Newton for x
    x = 0.0
    for _ in range(40):
        f = x - K * (a0 - x) * (b0 - x)
        fp = 1.0 + K * ((a0 - x) + (b0 - x))
        x = x - f / fp
    return x


def extent_closed(K, a0, b0):
    s = a0 + b0 + 1.0 / K
    return 0.5 * (s - math.sqrt(s * s - 4 * a0 * b0))


CASES.append(G("r10_equilibrium_newton_K", equilibrium_extent, (2.0, 1.0, 0.7), argnums=(0, 1, 2),
               ref=lambda: tuple(np.array(__import__("revsrc").grad(extent_closed, argnums=(0, 1, 2))(2.0, 1.0, 0.7)))))


def michaelis_menten_fit(params, S, v):
    vmax, km = params["vmax"], params["km"]
    pred = vmax * S / (km + S)
    return np.mean((pred - v) ** 2)


S_OBS = np.array([0.1, 0.3, 0.8, 1.5, 3.0, 6.0])
V_OBS = np.array([0.09, 0.22, 0.41, 0.55, 0.68, 0.74])
CASES.append(G("r10_michaelis_menten_dict", michaelis_menten_fit, ({"vmax": 0.8, "km": 0.9}, S_OBS, V_OBS), ref="jax"))


def weak_acid_ph(Ka, C):
    h = math.sqrt(Ka * C)
    for _ in range(25):
        # charge balance: h = Ka C / (Ka + h) + Kw / h
        f = h - Ka * C / (Ka + h) - 1e-14 / h
        fp = 1 + Ka * C / (Ka + h) ** 2 + 1e-14 / h ** 2
        h = h - f / fp
    return -math.log10(h)


CASES.append(G("r10_weak_acid_ph_newton", weak_acid_ph, (1.8e-5, 0.1), argnums=(0, 1), h=1e-10, check=1e-3))


def gibbs_mixing(x, T):
    R = 8.314
    return R * T * np.sum(x * np.log(x))


CASES.append(G("r10_gibbs_ideal_mixing", gibbs_mixing, (np.array([0.2, 0.5, 0.3]), 300.0), argnums=(0, 1), ref="jax"))


def lbfgs_two_loop_dir(g, s_list, y_list):
    q = g
    alphas = []
    for s, y in zip(reversed(s_list), reversed(y_list)):
        rho = 1.0 / np.dot(y, s)
        a = rho * np.dot(s, q)
        alphas.append(a)
        q = q - a * y
    gamma = np.dot(s_list[-1], y_list[-1]) / np.dot(y_list[-1], y_list[-1])
    r = gamma * q
    for (s, y), a in zip(zip(s_list, y_list), reversed(alphas)):
        rho = 1.0 / np.dot(y, s)
        b = rho * np.dot(y, r)
        r = r + s * (a - b)
    return np.sum(r * g)


SL = [rng.normal(size=4) for _ in range(3)]
YL = [s + 0.1 * rng.normal(size=4) for s in SL]
CASES.append(G("r10_lbfgs_two_loop", lbfgs_two_loop_dir, (B, SL, YL), ref="jax"))
CASES.append(G("r10_lbfgs_two_loop_history", lbfgs_two_loop_dir, (B, SL, YL), argnums=2, ref="jax"))


def golden_section_min(a):
    lo, hi = 0.0, 3.0
    phi = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        c = hi - phi * (hi - lo)
        d = lo + phi * (hi - lo)
        if (c - a) ** 2 + 0.1 * c < (d - a) ** 2 + 0.1 * d:
            hi = d
        else:
            lo = c
    x = 0.5 * (lo + hi)
    return (x - a) ** 2 + 0.1 * x


# envelope theorem: d/da min_x [(x-a)^2 + 0.1x] = -2(x*-a) = 0.1 at an interior min
CASES.append(G("r10_golden_section_envelope", golden_section_min, (1.2,), ref=lambda: 0.1, tol=1e-6))
CASES.append(H("r10_hessian_quadratic_form", quad, (np.ones(4), Q, B), ref=lambda: Q))
