"""Round 12, part e: econometrics and statistics -- ARMA/GARCH likelihoods, logistic /
probit / Poisson GLMs, Weibull and Cox survival models, a Kalman likelihood."""
import math

import numpy as np
try:
    from scipy.special import ndtr
except ImportError:      # SciPy is optional (an extra): its case is left out
    ndtr = None

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append
rng = np.random.default_rng(12)
X = rng.normal(size=(30, 3))
BETA = np.array([0.5, -1.0, 0.3])
YB = (X @ BETA + rng.normal(size=30) > 0).astype(float)
YP = rng.poisson(np.exp(0.3 * X @ BETA)).astype(float)


def logistic_nll(b, X, y):
    z = X @ b
    return np.sum(np.logaddexp(0.0, z) - y * z)


add(VG("r12_logistic_logaddexp", logistic_nll, (BETA, X, YB), ref="ag", tol=1e-10))
add(H("r12_logistic_fisher_hessian", logistic_nll, (BETA, X, YB),
      ref=lambda: X.T @ (X * (1 / (1 + np.exp(-X @ BETA)) * (1 - 1 / (1 + np.exp(-X @ BETA))))[:, None]), tol=1e-10))


def probit_nll(b, X, y):
    p = ndtr(X @ b)
    return -np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))


if ndtr is not None:
    add(G("r12_probit_ndtr", probit_nll, (BETA, X, YB), ref="fd", tol=1e-6))


def poisson_nll(b, X, y):
    eta = X @ b
    return np.sum(np.exp(eta) - y * eta)


add(pair("r12_poisson_irls_grad", lambda: revsrc.grad(poisson_nll)(0.3 * BETA, X, YP),
         lambda: X.T @ (np.exp(X @ (0.3 * BETA)) - YP), tol=1e-10))


def poisson_newton(b0, X, y, iters=6):
    b = b0
    for _ in range(iters):
        mu = np.exp(X @ b)
        g = X.T @ (mu - y)
        Hm = X.T @ (mu[:, None] * X)
        b = b - np.linalg.solve(Hm, g)
    return np.sum(b ** 2)


add(G("r12_poisson_newton_unrolled", poisson_newton, (np.zeros(3), X, YP), argnums=1, ref="fd", tol=1e-6))


def arma11_css(p, y):
    phi, theta, c = p
    e_prev = 0.0
    s = 0.0
    for t in range(1, len(y)):
        e = y[t] - c - phi * y[t - 1] - theta * e_prev
        s += e * e
        e_prev = e
    return 0.5 * s


YA = np.cumsum(rng.normal(size=40)) * 0.1
add(G("r12_arma11_css_tuple", arma11_css, ((0.5, 0.2, 0.01), YA), ref="fd", tol=1e-7))
add(H("r12_arma11_css_hessian_array", arma11_css, (np.array([0.5, 0.2, 0.01]), YA), ref="ag", tol=1e-9))


def weibull_nll(log_k, log_lam, t, event):
    k, lam = math.exp(log_k), math.exp(log_lam)
    ll = 0.0
    for ti, di in zip(t, event):
        z = (ti / lam) ** k
        if di:
            ll += math.log(k / lam) + (k - 1) * math.log(ti / lam) - z
        else:
            ll -= z
    return -ll


TS = [0.5, 1.2, 2.0, 0.8, 3.1, 1.7]
EV = [True, True, False, True, False, True]
add(G("r12_weibull_censored", weibull_nll, (0.2, 0.3, TS, EV), argnums=(0, 1), ref="fd", tol=1e-7))
add(H("r12_weibull_hessian_logk", weibull_nll, (0.2, 0.3, TS, EV), ref="fd", tol=1e-5))


def cox_partial(b, X, times, event):
    eta = X @ b
    order = np.argsort(-times)
    eta_s = eta[order]
    ev_s = event[order]
    lse = np.log(np.cumsum(np.exp(eta_s)))
    return -np.sum(ev_s * (eta_s - lse))


def cox_partial_accumulate(b, X, times, event, stable=False):
    eta = X @ b
    order = np.argsort(-times)
    eta_s, ev_s = eta[order], event[order]
    lse = np.logaddexp.accumulate(eta_s) if stable else np.log(np.cumsum(np.exp(eta_s)))
    return -np.sum(ev_s * (eta_s - lse))


TIMES = rng.exponential(size=30)
EVT = (rng.uniform(size=30) < 0.7).astype(float)
add(G("r12_cox_partial_cumsum", cox_partial, (BETA, X, TIMES, EVT), ref="ag", tol=1e-10))
# the untaken arm of a conditional expression calls np.logaddexp.accumulate (no rule)
add(G("r12_cox_untaken_accumulate", cox_partial_accumulate, (BETA, X, TIMES, EVT), ref="ag", tol=1e-10))


def kalman_loglik(params, y):
    q, r = math.exp(params[0]), math.exp(params[1])
    m, P = 0.0, 1.0
    ll = 0.0
    for yt in y:
        P = P + q
        S = P + r
        v = yt - m
        ll += -0.5 * (math.log(2 * math.pi * S) + v * v / S)
        K = P / S
        m = m + K * v
        P = (1 - K) * P
    return ll


add(VG("r12_kalman_local_level", kalman_loglik, (np.array([-1.0, -0.5]), YA), ref="ag", tol=1e-9))
add(H("r12_kalman_hessian", kalman_loglik, (np.array([-1.0, -0.5]), YA[:15]), ref="ag", tol=1e-8))
add(pair("r12_kalman_jit_scalar", lambda: revsrc.jit(revsrc.grad(lambda a, b: kalman_loglik((a, b), tuple(YA[:10].tolist())), argnums=(0, 1)))(-1.0, -0.5),
         lambda: tuple(ag()[0].grad(agify(kalman_loglik))(np.array([-1.0, -0.5]), YA[:10])), tol=1e-9))


def gmm_loglik(x, w_logits, mus, log_s):
    w = np.exp(w_logits - np.max(w_logits))
    w = w / w.sum()
    s = np.exp(log_s)
    comp = -0.5 * ((x[:, None] - mus[None, :]) / s) ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi)
    a = comp + np.log(w)
    m = a.max(axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(a - m), axis=1)))


XG = rng.normal(size=25)
add(G("r12_gmm_logsumexp_max_keepdims", gmm_loglik, (XG, np.array([0.1, -0.3]), np.array([-0.5, 0.8]), np.array([0.0, -0.2])),
      argnums=(1, 2, 3), ref="ag", tol=1e-10))


def bootstrap_mean_se(x, idx):
    means = []
    for row in idx:
        means.append(np.mean(x[row]))
    means = np.array(means)
    return np.std(means, ddof=1)


IDX = rng.integers(0, 25, size=(8, 25))
add(G("r12_bootstrap_std_fancy", bootstrap_mean_se, (XG, IDX), ref="ag", tol=1e-10))


def huber_irls_value(b, X, y, delta=1.0):
    r = y - X @ b
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


add(G("r12_huber_where", huber_irls_value, (BETA, X, 2 * YP - 1), ref="ag", tol=1e-10))


def ols_r2(X, y):
    b = np.linalg.solve(X.T @ X, X.T @ y)
    res = y - X @ b
    return 1 - res @ res / np.sum((y - y.mean()) ** 2)


add(G("r12_ols_r2_wrt_y", ols_r2, (X, YP), argnums=1, ref="ag", tol=1e-9))
add(G("r12_ols_r2_wrt_X", ols_r2, (X, YP), argnums=0, ref="ag", tol=1e-9))
