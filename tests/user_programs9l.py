"""Round 9, more science programs as written in notebooks: Lotka-Volterra and SIR
models, chemical kinetics, a 1-D Poisson problem by finite differences, Gauss-Seidel
and Jacobi sweeps, power iteration, unrolled gradient descent differentiated with
respect to its step size, Monte Carlo with random numbers made outside, polynomial
fits."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(5)


def lotka_volterra(alpha, beta=0.4, delta=0.1, gamma=0.4, dt=0.01, T=1500):
    prey, pred = 10.0, 5.0
    for _ in range(T):
        dprey = alpha * prey - beta * prey * pred
        dpred = delta * prey * pred - gamma * pred
        prey, pred = prey + dt * dprey, pred + dt * dpred
    return prey / pred


CASES.append(G("r9_lotka_volterra_euler", lotka_volterra, (1.1,), ref="jax"))


def sir_peak(beta, gamma=0.1, N=1000.0, days=160):
    S, I, R = N - 1.0, 1.0, 0.0
    peak = I
    for _ in range(days):
        new_inf = beta * S * I / N
        new_rec = gamma * I
        S -= new_inf
        I += new_inf - new_rec
        R += new_rec
        if I > peak:
            peak = I
    return peak


CASES.append(G("r9_sir_peak_tracking_if", sir_peak, (0.3,), ref="ag"))


def kinetics(k):
    # A -> B -> C with rates k[0], k[1]; implicit Euler on a 3x3 linear system
    K = np.array([[-k[0], 0.0, 0.0], [k[0], -k[1], 0.0], [0.0, k[1], 0.0]])
    c = np.array([1.0, 0.0, 0.0])
    dt = 0.1
    M = np.eye(3) - dt * K
    for _ in range(30):
        c = np.linalg.solve(M, c)
    return c[1]


CASES.append(G("r9_kinetics_implicit_euler_solve", kinetics, (np.array([0.8, 0.3]),), ref="jax"))


def poisson_1d(kappa, n=20):
    h = 1.0 / (n + 1)
    main = 2.0 * np.ones(n) / h ** 2 + kappa
    A = np.diag(main) - np.diag(np.ones(n - 1), 1) / h ** 2 - np.diag(np.ones(n - 1), -1) / h ** 2
    x = np.linspace(h, 1 - h, n)
    f = np.sin(np.pi * x)
    u = np.linalg.solve(A, f)
    return h * np.sum(u)


CASES.append(G("r9_poisson_fd_diag_solve", poisson_1d, (2.0,), ref="jax"))


def gauss_seidel(d, sweeps=25):
    A = np.array([[d, 1.0, 0.5], [1.0, d, 1.0], [0.5, 1.0, d]])
    b = np.array([1.0, 2.0, 3.0])
    x = np.zeros(3)
    for _ in range(sweeps):
        for i in range(3):
            s = b[i] - A[i] @ x + A[i, i] * x[i]
            x[i] = s / A[i, i]
    return np.sum(x)


CASES.append(G("r9_gauss_seidel_item_writes", gauss_seidel, (4.0,), ref="fd"))


def jacobi(d, sweeps=40):
    A = np.array([[d, 1.0, 0.5], [1.0, d, 1.0], [0.5, 1.0, d]])
    b = np.array([1.0, 2.0, 3.0])
    D = np.diag(A)
    R = A - np.diag(D)
    x = np.zeros(3)
    for _ in range(sweeps):
        x = (b - R @ x) / D
    return np.sum(x)


CASES.append(G("r9_jacobi_iteration", jacobi, (4.0,), ref="jax"))


def power_iteration(M):
    S = M @ M.T
    v = np.ones(S.shape[0])
    for _ in range(100):
        v = S @ v
        v = v / np.linalg.norm(v)
    return v @ S @ v


_M = _rng.normal(size=(4, 4))
CASES.append(G("r9_power_iteration_rayleigh", power_iteration, (_M,), ref="jax", tol=1e-5))


def unrolled_gd(lr):
    w = np.zeros(3)
    X = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.8], [0.0, 0.4, 1.2], [1.0, 1.0, 1.0]])
    y = np.array([1.0, -0.5, 0.7, 1.5])
    for _ in range(30):
        r = X @ w - y
        w = w - lr * X.T @ r
    r = X @ w - y
    return 0.5 * r @ r


CASES.append(G("r9_unrolled_gd_hyper_lr", unrolled_gd, (0.1,), ref="jax"))


def loss_w(w):
    X = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.8], [0.0, 0.4, 1.2], [1.0, 1.0, 1.0]])
    y = np.array([1.0, -0.5, 0.7, 1.5])
    r = X @ w - y
    return 0.5 * r @ r


dloss_w = revsrc.grad(loss_w)


def unrolled_gd_grad_fn(lr):
    w = np.zeros(3)
    for _ in range(30):
        w = w - lr * dloss_w(w)
    return loss_w(w)


CASES.append(G("r9_unrolled_gd_with_revsrc_grad_inside", unrolled_gd_grad_fn, (0.1,), ref="fd", tol=1e-6))

Z = _rng.normal(size=2000)


def mc_call_price(sigma, S0=100.0, K=100.0, T=1.0, r=0.02):
    ST = S0 * np.exp((r - 0.5 * sigma ** 2) * T + sigma * math.sqrt(T) * Z)
    return math.exp(-r * T) * np.mean(np.maximum(ST - K, 0.0))


CASES.append(G("r9_monte_carlo_pathwise_vega", mc_call_price, (0.2,), ref="jax"))


def mc_with_rng_arg(mu, rng_seed=3):
    rng = np.random.default_rng(rng_seed)
    z = rng.normal(size=500)
    return np.mean(np.exp(mu + 0.3 * z))


CASES.append(G("r9_rng_made_inside_from_seed", mc_with_rng_arg, (0.1,), ref="fd", tol=1e-6))


def polyfit_normal_eq(y):
    x = np.linspace(-1, 1, len(y))
    V = np.vander(x, 3)
    coef = np.linalg.solve(V.T @ V, V.T @ y)
    return coef[0]


CASES.append(G("r9_vander_normal_equations", polyfit_normal_eq, (np.array([1.0, 0.2, 0.1, 0.5, 1.4]),), ref="jax"))


def polyfit_np(y):
    x = np.linspace(-1, 1, len(y))
    return np.polyfit(x, y, 2)[0]


CASES.append(G("r9_np_polyfit", polyfit_np, (np.array([1.0, 0.2, 0.1, 0.5, 1.4]),), ref="fd"))


def polyval_np(c):
    return np.sum(np.polyval(c, np.array([0.1, 0.5, 0.9])) ** 2)


CASES.append(G("r9_np_polyval", polyval_np, (np.array([1.0, -2.0, 0.5]),), ref="jax"))


def logistic_growth_fit(r):
    t = np.arange(10.0)
    obs = np.array([1.0, 1.6, 2.6, 4.0, 5.8, 7.5, 8.7, 9.4, 9.7, 9.9])
    K, N0 = 10.0, 1.0
    model = K / (1 + (K / N0 - 1) * np.exp(-r * t))
    return np.sum((model - obs) ** 2)


CASES.append(G("r9_logistic_growth_least_squares", logistic_growth_fit, (0.5,), ref="jax"))
CASES.append(H("r9_logistic_growth_hessian", logistic_growth_fit, (0.5,), ref="jax"))


def arrhenius(Ea):
    T = np.array([300.0, 320.0, 340.0, 360.0])
    k_obs = np.array([1e-3, 4e-3, 1.3e-2, 3.9e-2])
    A = 1e7
    k = A * np.exp(-Ea / (8.314 * T))
    return np.sum((np.log(k) - np.log(k_obs)) ** 2)


CASES.append(G("r9_arrhenius_log_residuals", arrhenius, (5.8e4,), ref="jax", tol=1e-6))


def radioactive_chain(lams):
    # Bateman solution for a 3-member chain, N1(0) = 1, at t = 2
    l1, l2, l3 = lams
    t = 2.0
    return l1 * l2 * (math.exp(-l1 * t) / ((l2 - l1) * (l3 - l1)) + math.exp(-l2 * t) / ((l1 - l2) * (l3 - l2))
                      + math.exp(-l3 * t) / ((l1 - l3) * (l2 - l3)))


CASES.append(G("r9_bateman_chain_tuple_unpack", radioactive_chain, ((0.5, 0.3, 0.1),), ref="jax"))


def finite_volume_advection(c):
    n = 30
    u = np.exp(-((np.arange(n) - 8.0) / 3.0) ** 2)
    for _ in range(20):
        flux = c * u
        u = u - 0.5 * (flux - np.roll(flux, 1))
    return np.sum(u * np.arange(n))


CASES.append(G("r9_upwind_advection_roll", finite_volume_advection, (0.8,), ref="jax"))


def newton_system(a):
    # solve x^2 + y^2 = a, x - y = 0.5 by Newton with a 2x2 Jacobian
    v = np.array([1.0, 0.5])
    for _ in range(20):
        x, y = v
        F = np.array([x * x + y * y - a, x - y - 0.5])
        J = np.array([[2 * x, 2 * y], [1.0, -1.0]])
        v = v - np.linalg.solve(J, F)
    return v[0]


def _newton_sys_ref():
    # x = 0.5 + y; 2y^2 + y + 0.25 - a = 0 -> y = (-1 + sqrt(1 - 8(0.25 - a))) / 4
    a = 2.0
    disc = 1 - 8 * (0.25 - a)
    return (8 / 4) / (2 * math.sqrt(disc))


CASES.append(G("r9_newton_system_2x2_unpack", newton_system, (2.0,), ref=_newton_sys_ref, tol=1e-8))


def spectral_density(phi):
    w = np.linspace(0, np.pi, 50)
    s = 1.0 / np.abs(1 - phi * np.exp(-1j * w)) ** 2
    return np.sum(s) * (w[1] - w[0])


CASES.append(G("r9_ar1_spectral_density_complex_inside", spectral_density, (0.5,), ref="jax"))


def convolution_smooth(x):
    k = np.array([0.25, 0.5, 0.25])
    y = np.convolve(x, k, mode="same")
    return np.sum(y ** 2 * np.arange(len(x)))


CASES.append(G("r9_np_convolve_same", convolution_smooth, (_rng.normal(size=8),), ref="jax"))
