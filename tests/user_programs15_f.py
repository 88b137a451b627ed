"""Round 15, part f: Gaussian processes and geostatistics -- log marginal likelihood by
cholesky / solve / slogdet, RBF and Matern kernels built by broadcasting,
hyperparameter gradients, variograms."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(2015)
XG = np.sort(rng.uniform(0, 5, size=7))
YG = np.sin(XG) + 0.1 * rng.normal(size=7)
X2 = rng.uniform(0, 3, size=(6, 2))
Y2 = np.cos(X2[:, 0]) * X2[:, 1]


def rbf(x1, x2, ell, sf):
    d = x1[:, None] - x2[None, :]
    return sf ** 2 * np.exp(-0.5 * d ** 2 / ell ** 2)


def nlml_chol(log_hyp, x, y):
    ell, sf, sn = np.exp(log_hyp)
    K = rbf(x, x, ell, sf) + (sn ** 2 + 1e-8) * np.eye(x.shape[0])
    L = np.linalg.cholesky(K)
    a = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ a + np.sum(np.log(np.diag(L))) + 0.5 * x.shape[0] * math.log(2 * math.pi)


LH = np.log(np.array([1.2, 0.9, 0.2]))
add(VG("r15_gp_nlml_cholesky_vg", nlml_chol, (LH, XG, YG), ref="ag", tol=1e-9))
add(G("r15_gp_nlml_wrt_targets", nlml_chol, (LH, XG, YG), argnums=2, ref="ag", tol=1e-9))
add(G("r15_gp_nlml_wrt_inputs", nlml_chol, (LH, XG, YG), argnums=1, ref="ag", tol=1e-8))
add(H("r15_gp_nlml_hessian_cholesky", nlml_chol, (LH, XG, YG), ref="fd", tol=1e-4))


def nlml_slogdet(log_hyp, x, y):
    ell, sf, sn = np.exp(log_hyp)
    K = rbf(x, x, ell, sf) + (sn ** 2 + 1e-8) * np.eye(x.shape[0])
    sign, logdet = np.linalg.slogdet(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * np.dot(y, alpha) + 0.5 * logdet


add(VG("r15_gp_nlml_slogdet_solve", nlml_slogdet, (LH, XG, YG), ref="ag", tol=1e-9))
add(pair("r15_gp_slogdet_vs_cholesky_gradients_agree", lambda: revsrc.grad(nlml_slogdet)(LH, XG, YG),
         lambda: revsrc.grad(nlml_chol)(LH, XG, YG), tol=1e-8))


def matern52(X, ell, sf):
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    r = np.sqrt(d2 + 1e-12) / ell
    return sf ** 2 * (1 + math.sqrt(5) * r + 5.0 / 3.0 * r ** 2) * np.exp(-math.sqrt(5) * r)


def nlml_matern(hyp, X, y):
    ell, sf, sn = hyp["ell"], hyp["sf"], hyp["sn"]
    K = matern52(X, ell, sf) + sn ** 2 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.log(np.diag(L)).sum()


HYP = {"ell": 0.8, "sf": 1.1, "sn": 0.15}
add(VG("r15_matern52_2d_dict_hyp", nlml_matern, (HYP, X2, Y2), ref="fd", tol=1e-7))


def ard_rbf(log_ell, X, y):
    ell = np.exp(log_ell)
    Z = X / ell
    sq = np.sum(Z ** 2, 1)
    d2 = sq[:, None] + sq[None, :] - 2 * Z @ Z.T
    K = np.exp(-0.5 * np.maximum(d2, 0.0)) + 0.05 * np.eye(X.shape[0])
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * np.linalg.slogdet(K)[1]


add(G("r15_ard_rbf_expanded_sq_maximum", ard_rbf, (np.log(np.array([0.7, 1.4])), X2, Y2), ref="ag", tol=1e-9))


def gp_predict_mean(ell, xs, x=XG, y=YG):
    K = rbf(x, x, ell, 1.0) + 0.01 * np.eye(x.shape[0])
    Ks = rbf(xs, x, ell, 1.0)
    return Ks @ np.linalg.solve(K, y)


XS = np.array([0.5, 2.5, 4.0])
add(pair("r15_gp_predict_jacfwd_ell", lambda: revsrc.jacfwd(gp_predict_mean)(1.1, XS),
         lambda: ag()[0].jacobian(agify(gp_predict_mean))(1.1, XS), tol=1e-9))
add(pair("r15_gp_predict_jacrev_xs", lambda: revsrc.jacrev(gp_predict_mean, argnums=1)(1.1, XS),
         lambda: ag()[0].jacobian(agify(gp_predict_mean), 1)(1.1, XS), tol=1e-9))


def gp_var_inv(ell, xs):
    K = rbf(XG, XG, ell, 1.0) + 0.01 * np.eye(7)
    Ks = rbf(xs, XG, ell, 1.0)
    Kinv = np.linalg.inv(K)
    var = 1.0 - np.sum((Ks @ Kinv) * Ks, axis=1)
    return np.sum(np.log(var))


add(VG("r15_gp_predictive_variance_inv", gp_var_inv, (1.1, XS), ref="ag", tol=1e-8))


def gp_hyper_descent(log_hyp0):
    # a few gradient steps on the NLML, the result's NLML differentiated wrt the start
    lh = log_hyp0
    for _ in range(3):
        lh = lh - 0.05 * revsrc.grad(nlml_chol)(lh, XG, YG)
    return nlml_chol(lh, XG, YG)


def _gp_descent_ag(lh):
    autograd, _ = ag()
    f = agify(nlml_chol)
    for _ in range(3):
        lh = lh - 0.05 * autograd.grad(f)(lh, XG, YG)
    return f(lh, XG, YG)


add(pair("r15_gp_unrolled_descent_grad_through_grad", lambda: revsrc.grad(gp_hyper_descent)(LH),
         lambda: ag()[0].grad(_gp_descent_ag)(LH), tol=1e-7))


def variogram_fit(params, h, gamma_obs):
    nugget, sill, rng_ = params
    model = nugget + sill * (1.5 * h / rng_ - 0.5 * (h / rng_) ** 3)
    model = np.where(h > rng_, nugget + sill, model)
    w = 1.0 / np.maximum(h, 0.1)
    return np.sum(w * (model - gamma_obs) ** 2)


HV = np.linspace(0.2, 4.0, 10)
GO = 0.1 + 0.8 * (1 - np.exp(-HV / 1.2))
add(VG("r15_spherical_variogram_where", variogram_fit, (np.array([0.1, 0.8, 2.5]), HV, GO), ref="ag", tol=1e-10))


def kriging_weights(ell, x0=2.0):
    C = rbf(XG, XG, ell, 1.0) + 1e-3 * np.eye(7)
    c0 = rbf(XG, np.array([x0]), ell, 1.0)[:, 0]
    A = np.block([[C, np.ones((7, 1))], [np.ones((1, 7)), np.zeros((1, 1))]])
    b = np.concatenate([c0, [1.0]])
    w = np.linalg.solve(A, b)
    return w[:7] @ YG


add(G("r15_ordinary_kriging_block_solve", kriging_weights, (0.9,), ref="fd", tol=1e-7))


def gp_batch_nlml(ells):
    return revsrc.vmap(lambda e: nlml_chol(np.array([e, 0.0, -1.5]), XG, YG))(ells)


add(pair("r15_gp_vmap_array_program_over_ells",
         lambda: revsrc.vmap(lambda e: nlml_chol(np.array([e, 0.0, -1.5]), XG, YG))(np.array([-0.5, 0.0, 0.5])),
         lambda: np.array([nlml_chol(np.array([e, 0.0, -1.5]), XG, YG) for e in (-0.5, 0.0, 0.5)]), tol=1e-12))


def nlml_rows(lh):
    return nlml_chol(lh, XG, YG)


add(pair("r15_gp_vmap_array_rows_value",
         lambda: revsrc.vmap(nlml_rows)(np.stack([LH, LH + 0.3])),
         lambda: np.array([nlml_rows(LH), nlml_rows(LH + 0.3)]), tol=1e-12))
add(pair("r15_gp_grad_of_sum_of_vmap",
         lambda: revsrc.grad(lambda lh: np.sum(revsrc.vmap(nlml_chol, in_axes=(None, 0, 0))(lh, np.stack([XG, XG + 0.1]), np.stack([YG, YG * 2]))))(LH),
         lambda: ag()[0].grad(agify(nlml_chol))(LH, XG, YG) + ag()[0].grad(agify(nlml_chol))(LH, XG + 0.1, YG * 2), tol=1e-9))
add(pair("r15_gp_vmap_grad_loglengths_in_axes",
         lambda: revsrc.vmap(revsrc.grad(nlml_chol), in_axes=(0, None, None))(np.stack([LH, LH + 0.3]), XG, YG),
         lambda: np.stack([ag()[0].grad(agify(nlml_chol))(l, XG, YG) for l in (LH, LH + 0.3)]), tol=1e-9))
add(pair("r15_gp_nlml_backend_jax", lambda: revsrc.grad(nlml_chol, backend="jax")(LH, XG, YG),
         lambda: ag()[0].grad(agify(nlml_chol))(LH, XG, YG), tol=1e-9))


def gp_loo(log_ell):
    # leave-one-out residuals from the inverse: r_i = [K^-1 y]_i / [K^-1]_ii
    K = rbf(XG, XG, np.exp(log_ell), 1.0) + 0.02 * np.eye(7)
    Ki = np.linalg.inv(K)
    r = (Ki @ YG) / np.diag(Ki)
    return np.sum(r ** 2)


add(H("r15_gp_loo_inv_diag_hessian", gp_loo, (0.1,), ref="fd", tol=1e-5))
