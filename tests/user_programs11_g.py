"""Round 11, part g: science and engineering -- Gaussian processes with Cholesky, Bayesian
optimisation acquisitions with erf, hyperelastic materials, astronomy (transit light curves,
radial velocities), tomography, operations research (newsvendor, smoothed knapsack and
assignment), Elo ratings."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, jax, jaxify, agify, ag, fd_checked  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(5)


# -- Gaussian processes --------------------------------------------------------------------

def rbf(X1, X2, ell, sf):
    d2 = np.sum(X1 ** 2, 1)[:, None] + np.sum(X2 ** 2, 1)[None, :] - 2 * X1 @ X2.T
    return sf ** 2 * np.exp(-0.5 * d2 / ell ** 2)


def gp_nll(log_hyp, X, y):
    ell, sf, sn = np.exp(log_hyp)
    K = rbf(X, X, ell, sf) + (sn ** 2 + 1e-8) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * y.size * math.log(2 * math.pi)


XG = rng.uniform(-2, 2, size=(8, 1))
YG = np.sin(2 * XG[:, 0]) + 0.1 * rng.normal(size=8)
HYP = np.array([-0.2, 0.1, -1.5])
add(G("r11_gp_nll_cholesky", gp_nll, (HYP, XG, YG), ref="ag"))
add(G("r11_gp_nll_inputs", gp_nll, (HYP, XG, YG), argnums=1, ref="ag"))


def gp_nll_slogdet(log_hyp, X, y):
    ell, sf, sn = np.exp(log_hyp)
    K = rbf(X, X, ell, sf) + sn ** 2 * np.eye(X.shape[0])
    _, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


add(G("r11_gp_nll_slogdet", gp_nll_slogdet, (HYP, XG, YG), ref="ag"))


def gp_posterior_mean(xs, X, y, log_hyp=HYP):
    ell, sf, sn = np.exp(log_hyp)
    K = rbf(X, X, ell, sf) + sn ** 2 * np.eye(X.shape[0])
    ks = rbf(xs, X, ell, sf)
    return np.sum(ks @ np.linalg.solve(K, y))


add(G("r11_gp_posterior_mean_test_points", gp_posterior_mean, (np.array([[0.3], [-1.1]]), XG, YG), ref="ag"))


def scipy_cho(log_hyp, X, y):
    import scipy.linalg as sl
    ell, sf, sn = np.exp(log_hyp)
    K = rbf(X, X, ell, sf) + sn ** 2 * np.eye(X.shape[0])
    c = sl.cho_factor(K, lower=True)
    alpha = sl.cho_solve(c, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c[0])))


add(pair("r11_gp_scipy_cho_factor", lambda: revsrc.grad(scipy_cho)(HYP, XG, YG),
         lambda: ag()[0].grad(agify(gp_nll))(HYP, XG, YG), tol=1e-7))


# -- Bayesian optimisation: expected improvement, PI, UCB ---------------------------------

def expected_improvement(mu, sigma, best, xi=0.01):
    imp = best - mu - xi
    z = imp / sigma
    cdf = 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    pdf = math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    return imp * cdf + sigma * pdf


add(G("r11_ei_erf_mu_sigma", expected_improvement, (0.3, 0.5, 0.6), argnums=(0, 1), ref="jax"))
add(pair("r11_ei_closed_form_dmu", lambda: revsrc.grad(expected_improvement)(0.3, 0.5, 0.6),
         lambda: -0.5 * (1.0 + math.erf((0.6 - 0.3 - 0.01) / 0.5 / math.sqrt(2.0))), tol=1e-12))


def ei_vectorized(mu, sigma, best=0.6):
    from scipy.special import ndtr
    z = (best - mu) / sigma
    return np.sum((best - mu) * ndtr(z) + sigma * np.exp(-0.5 * z ** 2) / np.sqrt(2 * np.pi))


MU = np.array([0.1, 0.5, 0.7, 1.2])
SG = np.array([0.3, 0.2, 0.4, 0.1])


def ei_vec_ref(mu, sigma, best=0.6):
    jnp = jax().numpy
    from jax.scipy.special import ndtr
    z = (best - mu) / sigma
    return jnp.sum((best - mu) * ndtr(z) + sigma * jnp.exp(-0.5 * z ** 2) / jnp.sqrt(2 * jnp.pi))


add(pair("r11_ei_scipy_ndtr_vector", lambda: revsrc.grad(ei_vectorized, argnums=(0, 1))(MU, SG),
         lambda: jax().grad(ei_vec_ref, argnums=(0, 1))(MU, SG)))


def acquisition_argmax_soft(x, X, y, beta=2.0):
    ell, sf, sn = 0.8, 1.0, 0.1
    K = rbf(X, X, ell, sf) + sn ** 2 * np.eye(X.shape[0])
    k = rbf(x[None, :], X, ell, sf)[0]
    Ki = np.linalg.inv(K)
    mu = k @ Ki @ y
    var = sf ** 2 - k @ Ki @ k
    return mu + beta * np.sqrt(var)


add(G("r11_ucb_inv_sqrt_var", acquisition_argmax_soft, (np.array([0.4]), XG, YG), ref="ag"))


# -- hyperelastic materials -----------------------------------------------------------------

def neo_hookean(F, mu=1.0, lam=2.0):
    C = F.T @ F
    J = np.linalg.det(F)
    I1 = np.trace(C)
    return 0.5 * mu * (I1 - 3) - mu * np.log(J) + 0.5 * lam * np.log(J) ** 2


FD = np.eye(3) + 0.1 * rng.normal(size=(3, 3))
add(pair("r11_neo_hookean_PK1", lambda: revsrc.grad(neo_hookean)(FD),
         lambda: (lambda Fi: 1.0 * (FD - Fi.T) + 2.0 * np.log(np.linalg.det(FD)) * Fi.T)(np.linalg.inv(FD)), tol=1e-10))
add(H("r11_neo_hookean_tangent_moduli", neo_hookean, (FD,), ref="fd", tol=1e-5))


def mooney_rivlin(stretch, c10=0.3, c01=0.05):
    l1 = stretch
    l2 = l3 = 1.0 / math.sqrt(stretch)
    I1 = l1 ** 2 + l2 ** 2 + l3 ** 2
    I2 = (l1 * l2) ** 2 + (l2 * l3) ** 2 + (l1 * l3) ** 2
    return c10 * (I1 - 3) + c01 * (I2 - 3)


def mooney_stress(l, c10=0.3, c01=0.05):
    return 2 * (l - l ** -2) * (c10 + c01 / l)


add(G("r11_mooney_rivlin_uniaxial", mooney_rivlin, (1.4,), ref=lambda: mooney_stress(1.4)))
add(pair("r11_vmap_grad_mooney_curve", lambda: revsrc.vmap(revsrc.grad(mooney_rivlin))(np.linspace(0.7, 2.0, 6)),
         lambda: mooney_stress(np.linspace(0.7, 2.0, 6)), tol=1e-12))


def ogden(lams, mus=(0.6, 0.01), alphas=(1.3, 5.0)):
    W = 0.0
    for mu, a in zip(mus, alphas):
        W += mu / a * (sum(l ** a for l in lams) - 3.0)
    return W


add(G("r11_ogden_principal_stretches", ogden, ((1.2, 0.95, 1.0 / (1.2 * 0.95)),),
      ref=lambda: tuple(sum(mu * l ** (a - 1) for mu, a in zip((0.6, 0.01), (1.3, 5.0)))
                        for l in (1.2, 0.95, 1.0 / (1.2 * 0.95)))))


def von_mises(sig):
    s = sig - np.trace(sig) / 3 * np.eye(3)
    return np.sqrt(1.5 * np.sum(s * s))


SIG = np.array([[100.0, 20.0, 0.0], [20.0, -50.0, 10.0], [0.0, 10.0, 30.0]])
add(G("r11_von_mises_flow_direction", von_mises, (SIG,), ref="ag"))


# -- astronomy ------------------------------------------------------------------------------

def transit_flux(t, t0, depth, dur, ingress=0.02):
    x = abs(t - t0)
    half = dur / 2
    if x >= half + ingress:
        return 1.0
    if x <= half:
        return 1.0 - depth
    return 1.0 - depth * (half + ingress - x) / ingress


def transit_chi2(params, ts, fl):
    t0, depth, dur = params
    return sum((transit_flux(t, t0, depth, dur) - f) ** 2 for t, f in zip(ts, fl))


TT = list(np.linspace(-0.2, 0.2, 21))
FL = [transit_flux(t, 0.01, 0.01, 0.15) + 0.001 * math.sin(40 * t) for t in TT]
add(G("r11_transit_trapezoid_chi2", transit_chi2, ((0.013, 0.012, 0.16), TT, FL), ref="ag"))


def solve_kepler_np(M, e):
    E = M.copy()
    for _ in range(20):
        E = E - (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
    return E


def radial_velocity(theta, t):
    K, P, e, w, gamma = theta
    M = 2 * np.pi * t / P
    E = solve_kepler_np(M, e)
    nu = 2 * np.arctan2(np.sqrt(1 + e) * np.sin(E / 2), np.sqrt(1 - e) * np.cos(E / 2))
    return K * (np.cos(nu + w) + e * np.cos(w)) + gamma


def rv_loss(theta, t, v):
    return np.sum((radial_velocity(theta, t) - v) ** 2)


TRV = np.linspace(0.0, 30.0, 15)
THRV = np.array([12.0, 11.3, 0.3, 0.7, -1.0])
VRV = radial_velocity(np.array([11.0, 11.0, 0.25, 0.8, -0.5]), TRV)
add(G("r11_radial_velocity_fit", rv_loss, (THRV, TRV, VRV), ref="fd", tol=1e-6))


def lomb_power(freq, t, y):
    w = 2 * np.pi * freq
    tau = np.arctan2(np.sum(np.sin(2 * w * t)), np.sum(np.cos(2 * w * t))) / (2 * w)
    c, s = np.cos(w * (t - tau)), np.sin(w * (t - tau))
    return 0.5 * ((y @ c) ** 2 / (c @ c) + (y @ s) ** 2 / (s @ s))


YLS = np.sin(2 * np.pi * 0.09 * TRV) + 0.2 * np.cos(TRV)
add(G("r11_lomb_scargle_freq", lomb_power, (0.1, TRV, YLS), ref="ag"))


def magnitude(flux, zp=25.0):
    return zp - 2.5 * math.log10(flux)


add(G("r11_log10_magnitude", magnitude, (1234.5,), ref=lambda: -2.5 / (1234.5 * math.log(10))))


# -- tomography / inverse problems -----------------------------------------------------------

def radon_2angles(img):
    return np.concatenate([img.sum(axis=0), img.sum(axis=1), np.array([np.trace(img), np.trace(img[:, ::-1])])])


def tikhonov(img, sino, lam=0.1):
    r = radon_2angles(img) - sino
    tv = np.sum(np.sqrt(np.diff(img, axis=0)[:, :-1] ** 2 + np.diff(img, axis=1)[:-1, :] ** 2 + 1e-6))
    return 0.5 * r @ r + lam * tv


IMG = rng.random((5, 5))
SINO = radon_2angles(rng.random((5, 5)))
add(G("r11_tomography_tv_diff", tikhonov, (IMG, SINO), ref="ag"))


def landweber(b, A, steps=15, omega=0.1):
    x = np.zeros(A.shape[1])
    for _ in range(steps):
        x = x + omega * A.T @ (b - A @ x)
    return np.sum(x ** 2)


AT = rng.normal(size=(6, 4))
add(G("r11_landweber_data", landweber, (rng.normal(size=6), AT), ref="ag"))
add(G("r11_landweber_operator", landweber, (rng.normal(size=6), AT), argnums=1, ref="ag"))


# -- operations research ---------------------------------------------------------------------

def newsvendor(q, demands, price=5.0, cost=3.0, salvage=1.0):
    profit = 0.0
    for d in demands:
        sold = min(q, d)
        profit += price * sold - cost * q + salvage * max(q - d, 0.0)
    return -profit / len(demands)


DEM = [80.0, 95.0, 110.0, 120.0, 70.0]
add(G("r11_newsvendor_min_max", newsvendor, (100.0, DEM), ref=lambda: -(5.0 * 2 - 3.0 * 5 + 1.0 * 3) / 5))


def smoothed_knapsack(x, values, weights, cap, t=0.1):
    p = 1.0 / (1.0 + np.exp(-x / t))
    over = np.sum(p * weights) - cap
    return -np.sum(p * values) + 10.0 * np.log1p(np.exp(over))


VAL = np.array([6.0, 10.0, 12.0, 3.0])
WT = np.array([1.0, 2.0, 3.0, 0.5])
add(G("r11_smoothed_knapsack", smoothed_knapsack, (np.array([0.1, -0.2, 0.05, 0.3]), VAL, WT, 4.0), ref="ag"))


def sinkhorn_assign(C, eps=0.1, iters=50):
    K = np.exp(-C / eps)
    u = np.ones(C.shape[0])
    for _ in range(iters):
        v = 1.0 / (K.T @ u)
        u = 1.0 / (K @ v)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


CA = rng.random((4, 4))
add(G("r11_sinkhorn_assignment", sinkhorn_assign, (CA,), ref="ag", tol=1e-7))


def eoq(D, S=50.0, h=2.0):
    return math.sqrt(2 * D * S / h)


add(G("r11_economic_order_quantity", eoq, (1000.0,), ref=lambda: 0.5 * math.sqrt(2 * 50.0 / 2.0 / 1000.0)))


# -- sports ratings: Elo updates over a season, differentiated in K and initial ratings -----

def elo_season(ratings, K, games):
    r = dict(ratings)
    for home, away, score in games:
        exp_home = 1.0 / (1.0 + 10 ** ((r[away] - r[home]) / 400.0))
        r[home] = r[home] + K * (score - exp_home)
        r[away] = r[away] - K * (score - exp_home)
    return r["A"] - r["C"]


RAT = {"A": 1500.0, "B": 1520.0, "C": 1480.0}
SEASON = [("A", "B", 1.0), ("B", "C", 0.5), ("C", "A", 0.0), ("A", "C", 1.0), ("B", "A", 1.0)]


def elo_ref_flat(r0, K):
    idx = {"A": 0, "B": 1, "C": 2}
    r = [r0[0], r0[1], r0[2]]
    for home, away, score in SEASON:
        h, a = idx[home], idx[away]
        e = 1.0 / (1.0 + 10 ** ((r[a] - r[h]) / 400.0))
        r[h], r[a] = r[h] + K * (score - e), r[a] - K * (score - e)
    return r[0] - r[2]


add(G("r11_elo_dict_copy_K", elo_season, (RAT, 32.0, SEASON), argnums=1,
      ref=lambda: jax().grad(jaxify(elo_ref_flat), argnums=1)((1500.0, 1520.0, 1480.0), 32.0)))


def elo_ref_dict():
    g = jax().grad(jaxify(elo_ref_flat))((1500.0, 1520.0, 1480.0), 32.0)
    return {"A": g[0], "B": g[1], "C": g[2]}


add(G("r11_elo_dict_ratings", elo_season, (RAT, 32.0, SEASON), ref=elo_ref_dict))
