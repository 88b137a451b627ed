"""Round 14, part d: statistics and ML -- Gaussian mixture log-likelihood by logsumexp,
softmax regression, k-fold losses with slices, ridge closed forms, pinball and Huber."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

XD = np.array([-1.2, -0.8, 0.1, 0.3, 1.9, 2.2, 2.5])


def logsumexp(a):
    m = np.max(a)
    return m + np.log(np.sum(np.exp(a - m)))


def gmm_ll(params, x):
    w = params["logits"]
    logw = w - logsumexp(w)
    mu, logsig = params["mu"], params["logsig"]
    sig = np.exp(logsig)
    ll = 0.0
    for xi in x:
        comp = logw - 0.5 * ((xi - mu) / sig) ** 2 - logsig - 0.5 * math.log(2 * math.pi)
        ll += logsumexp(comp)
    return ll


GP = {"logits": np.array([0.1, -0.2]), "mu": np.array([-0.5, 2.0]), "logsig": np.array([-0.3, -0.5])}
add(VG("r14_gmm_loglik_dict_params", gmm_ll, (GP, XD), ref="fd", tol=1e-7))
add(pair("r14_gmm_loglik_ag", lambda: revsrc.grad(gmm_ll)(GP, XD), lambda: ag()[0].grad(agify(gmm_ll))(GP, XD), tol=1e-10))
add(pair("r14_gmm_grad_wrt_data", lambda: revsrc.grad(gmm_ll, argnums=1)(GP, XD),
         lambda: ag()[0].grad(agify(gmm_ll), 1)(GP, XD), tol=1e-10))


def gmm_vectorized(mu, x, logw=np.log(np.array([0.4, 0.6]))):
    comp = logw[None, :] - 0.5 * (x[:, None] - mu[None, :]) ** 2
    m = np.max(comp, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(comp - m), axis=1)))


add(H("r14_gmm_vectorized_hessian_mu", gmm_vectorized, (np.array([-0.5, 2.0]), XD), ref="ag", tol=1e-9))
# two equal means: max ties in every row
add(G("r14_gmm_vectorized_tied_means", gmm_vectorized, (np.array([0.5, 0.5]), XD), ref="ag", tol=1e-10))


def softmax_xent(W, X, y):
    logits = X @ W
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(y)), y])


RNG = np.random.default_rng(14)
XS = RNG.normal(size=(6, 3))
YS = np.array([0, 2, 1, 1, 0, 2])
W0 = RNG.normal(size=(3, 3)) * 0.3
add(VG("r14_softmax_regression_fancy_index", softmax_xent, (W0, XS, YS), ref="ag", tol=1e-10))
add(H("r14_softmax_regression_hessian", softmax_xent, (W0, XS, YS), ref="ag", tol=1e-9))
add(pair("r14_softmax_per_example_vmap_grad",
         lambda: revsrc.vmap(revsrc.grad(lambda W, x, y: softmax_xent(W, x[None, :], np.array([y]))), in_axes=(None, 0, 0))(W0, XS, YS),
         lambda: np.stack([ag()[0].grad(agify(softmax_xent))(W0, XS[i:i + 1], YS[i:i + 1]) for i in range(6)]), tol=1e-10))


def kfold_ridge(log_lam, X, y, k=3):
    lam = math.exp(log_lam)
    n = X.shape[0]
    fold = n // k
    err = 0.0
    for f in range(k):
        lo, hi = f * fold, (f + 1) * fold
        Xtr = np.concatenate([X[:lo], X[hi:]])
        ytr = np.concatenate([y[:lo], y[hi:]])
        w = np.linalg.solve(Xtr.T @ Xtr + lam * np.eye(X.shape[1]), Xtr.T @ ytr)
        r = X[lo:hi] @ w - y[lo:hi]
        err += r @ r
    return err / n


YR = XS @ np.array([1.0, -2.0, 0.5]) + 0.1 * RNG.normal(size=6)
add(VG("r14_kfold_ridge_slices_concat", kfold_ridge, (-1.0, XS, YR), ref="fd", tol=1e-6))
add(G("r14_kfold_ridge_wrt_y", kfold_ridge, (-1.0, XS, YR), argnums=2, ref="ag", tol=1e-10))


def ridge_w(y, X, lam):
    return np.linalg.inv(X.T @ X + lam * np.eye(X.shape[1])) @ X.T @ y


add(pair("r14_ridge_inv_jacrev_linear", lambda: revsrc.jacrev(ridge_w)(YR, XS, 0.5),
         lambda: np.linalg.inv(XS.T @ XS + 0.5 * np.eye(3)) @ XS.T, tol=1e-12))
add(pair("r14_ridge_inv_jacfwd_lam", lambda: revsrc.jacfwd(ridge_w, argnums=2)(YR, XS, 0.5),
         lambda: -np.linalg.inv(XS.T @ XS + 0.5 * np.eye(3)) @ ridge_w(YR, XS, 0.5), tol=1e-12))


def pinball(q, y, tau):
    r = y - q
    return np.sum(np.where(r >= 0, tau * r, (tau - 1) * r))


YQ = np.array([0.1, 0.5, 0.9, 1.3, 2.0])
add(G("r14_pinball_where", pinball, (0.7, YQ, 0.3), ref=lambda: -0.3 * np.sum(YQ > 0.7) + 0.7 * np.sum(YQ < 0.7), tol=1e-12))
add(pair("r14_pinball_vmap_over_q", lambda: revsrc.vmap(revsrc.grad(pinball), in_axes=(0, None, None))(np.array([0.0, 0.7, 3.0]), YQ, 0.3),
         lambda: np.array([-0.3 * np.sum(YQ > q) + 0.7 * np.sum(YQ < q) for q in (0.0, 0.7, 3.0)]), tol=1e-12))


def huber(r, delta=1.0):
    total = 0.0
    for ri in r:
        a = abs(ri)
        if a <= delta:
            total += 0.5 * ri * ri
        else:
            total += delta * (a - 0.5 * delta)
    return total


RH = np.array([-2.5, -0.4, 0.0, 0.9, 1.0, 3.0])
add(VG("r14_huber_branches_loop", huber, (RH,), ref=lambda: np.clip(RH, -1.0, 1.0), tol=1e-12))
add(G("r14_huber_wrt_delta", huber, (RH, 1.0), argnums=1, ref=lambda: np.sum(np.where(np.abs(RH) > 1.0, np.abs(RH) - 1.0, 0.0)), tol=1e-12))
add(pair("r14_huber_jit_value", lambda: revsrc.jit(lambda a, b, c: huber(np.array([a, b, c])))(-2.5, 0.4, 3.0),
         lambda: huber(np.array([-2.5, 0.4, 3.0])), tol=1e-12))


def logistic_l2(w, X, y, lam=0.1):
    z = X @ w
    return np.sum(np.logaddexp(0.0, -y * z)) + lam * np.sum(w ** 2)


YPM = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
add(VG("r14_logistic_logaddexp", logistic_l2, (np.array([0.2, -0.1, 0.3]), XS, YPM), ref="ag", tol=1e-10))
add(pair("r14_logistic_hvp", lambda: revsrc.hvp(lambda w: logistic_l2(w, XS, YPM), (np.array([0.2, -0.1, 0.3]),), (np.array([1.0, 0.0, -1.0]),)),
         lambda: ag()[0].hessian_vector_product(lambda w: agify(logistic_l2)(w, XS, YPM))(np.array([0.2, -0.1, 0.3]), np.array([1.0, 0.0, -1.0])), tol=1e-10))


def student_t_nll(params, x):
    loc, log_scale, log_nu = params
    s, nu = math.exp(log_scale), math.exp(log_nu)
    z = (x - loc) / s
    return -np.sum(math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi) - log_scale
                   - (nu + 1) / 2 * np.log1p(z * z / nu))


add(VG("r14_student_t_lgamma", student_t_nll, ([0.5, 0.1, 1.2], XD), ref="fd", tol=1e-6))
