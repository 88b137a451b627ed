"""Round 17, part g: statistics -- GLMs (Poisson, logistic, probit by erf), survival
models (Weibull with censoring, Cox partial likelihood), mixture models with logsumexp,
maximum likelihood of distributions, Bayesian log-posteriors, with helpers split over
module-level constants, classes, closures and pytree parameters."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(1701)
XG = np.column_stack([np.ones(12), _rng.normal(size=12), _rng.uniform(-1, 1, size=12)])
COUNTS = np.array([0, 2, 1, 4, 0, 3, 1, 1, 5, 2, 0, 1])
BIN = (np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0]) > 0)
BETA0 = np.array([0.2, -0.3, 0.5])
EXPOSURE = np.linspace(0.5, 2.0, 12)


# -- Poisson GLM with offset, split over helpers ---------------------------------------

def _linpred(beta, X, offset):
    return X @ beta + offset


def _poisson_ll_terms(eta, y):
    return y * eta - np.exp(eta) - np.array([math.lgamma(k + 1.0) for k in y])


def poisson_nll(beta, X, y, exposure):
    eta = _linpred(beta, X, np.log(exposure))
    return -np.sum(_poisson_ll_terms(eta, y))


add(G("r17g_poisson_glm_offset", poisson_nll, (BETA0, XG, COUNTS, EXPOSURE),
      ref=lambda: -XG.T @ (COUNTS - np.exp(XG @ BETA0) * EXPOSURE), tol=1e-10))
add(H("r17g_poisson_glm_fisher", poisson_nll, (BETA0, XG, COUNTS, EXPOSURE),
      ref=lambda: XG.T @ (np.exp(XG @ BETA0 + np.log(EXPOSURE))[:, None] * XG), tol=1e-10))


# -- logistic regression, stable form with np.logaddexp, L2 prior ----------------------

LAM = 0.1


def logistic_nll(w, X, y):
    z = X @ w
    # log(1 + exp(-z)) for y=1, log(1 + exp(z)) for y=0
    return np.sum(np.where(y, np.logaddexp(0.0, -z), np.logaddexp(0.0, z))) + 0.5 * LAM * w @ w


add(G("r17g_logistic_logaddexp_where", logistic_nll, (BETA0, XG, BIN), ref="jax", tol=1e-10))
add(VG("r17g_logistic_vg_value_exact", logistic_nll, (BETA0, XG, BIN), ref="jax", tol=1e-10))


def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def _logistic_newton(X, y, iters=6):
    w = np.zeros(X.shape[1])
    for _ in range(iters):
        p = _sig(X @ w)
        g = X.T @ (p - y) + LAM * w
        Hm = X.T @ (X * (p * (1 - p))[:, None]) + LAM * np.eye(X.shape[1])
        w = w - np.linalg.solve(Hm, g)
    return w


def logistic_hess_check(w, X, y):
    return logistic_nll(w, X, y)


_WHAT = None


def _newton_hess_ref():
    w = _logistic_newton(XG, BIN.astype(float))
    p = _sig(XG @ w)
    return XG.T @ (XG * (p * (1 - p))[:, None]) + LAM * np.eye(3)


add(pair("r17g_logistic_hessian_at_mle",
         lambda: revsrc.hessian(logistic_nll)(_logistic_newton(XG, BIN.astype(float)), XG, BIN),
         _newton_hess_ref, tol=1e-9))


# -- probit by math.erf in a loop -------------------------------------------------------

SQ2 = math.sqrt(2.0)


def _Phi(t):
    return 0.5 * (1.0 + math.erf(t / SQ2))


def probit_nll(beta, X, y):
    total = 0.0
    for xi, yi in zip(X, y):
        p = _Phi(float(xi @ beta))
        p = min(max(p, 1e-12), 1.0 - 1e-12)
        total -= math.log(p) if yi else math.log(1.0 - p)
    return total


add(G("r17g_probit_erf_loop_clamped", probit_nll, (BETA0, XG, BIN), ref="fd", tol=1e-7))
add(H("r17g_probit_erf_loop_hessian", probit_nll, (BETA0, XG, BIN), ref="fd", tol=1e-5))


# -- Weibull survival with right-censoring, log-parametrized -------------------------------

TIMES = np.array([2.3, 0.7, 5.1, 1.9, 3.3, 0.4, 6.0, 2.8])
EVENT = np.array([1, 1, 0, 1, 0, 1, 0, 1])


def weibull_nll(theta, t, d):
    log_k, log_lam = theta
    k, lam = math.exp(log_k), math.exp(log_lam)
    z = (t / lam) ** k
    logf = math.log(k) - math.log(lam) + (k - 1.0) * np.log(t / lam) - z
    logS = -z
    return -np.sum(d * logf + (1 - d) * logS)


add(G("r17g_weibull_censored_tuple", weibull_nll, ((0.3, 1.0), TIMES, EVENT), ref="fd", tol=1e-7))
add(H("r17g_weibull_censored_hessian", lambda th, t, d: weibull_nll((th[0], th[1]), t, d),
      (np.array([0.3, 1.0]), TIMES, EVENT), ref="fd", tol=1e-5))


# -- Cox partial likelihood, risk sets by sorting ------------------------------------------

def cox_nll(beta, X, t, d):
    order = np.argsort(-t)
    eta = X[order] @ beta
    dd = d[order]
    # running log-sum-exp over the risk set (times descending)
    log_risk = np.logaddexp.accumulate(eta)
    return -np.sum(dd * (eta - log_risk))


XC = XG[:8, 1:]
add(G("r17g_cox_logaddexp_accumulate", cox_nll, (np.array([0.4, -0.2]), XC, TIMES, EVENT), ref="fd", tol=1e-7))


def cox_nll_loop(beta, X, t, d):
    eta = X @ beta
    total = 0.0
    for i in sorted(range(len(t)), key=lambda j: t[j]):
        if not d[i]:
            continue
        at_risk = t >= t[i]
        total -= eta[i] - np.log(np.sum(np.exp(eta[at_risk])))
    return total


add(G("r17g_cox_sorted_mask_loop", cox_nll_loop, (np.array([0.4, -0.2]), XC, TIMES, EVENT), ref="ag", tol=1e-10))
def cox_nll_argsort(beta, X, t, d):
    eta = X @ beta
    total = 0.0
    for i in np.argsort(t):
        if d[i] == 0:
            continue
        at_risk = t >= t[i]
        total -= eta[i] - np.log(np.sum(np.exp(eta[at_risk])))
    return total


add(pair("r17g_cox_argsort_loop", lambda: revsrc.grad(cox_nll_argsort)(np.array([0.4, -0.2]), XC, TIMES, EVENT),
         lambda: fd_checked(cox_nll, (np.array([0.4, -0.2]), XC, TIMES, EVENT))[0], tol=1e-7))


# -- Gaussian mixture NLL with a hand-written logsumexp --------------------------------------

DATA1 = np.concatenate([_rng.normal(-1.0, 0.5, 10), _rng.normal(2.0, 0.8, 10)])


def logsumexp(a, axis=None):
    m = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def gmm_nll(params, x):
    logits, mu, log_s = params["logits"], params["mu"], params["log_sigma"]
    logw = logits - logsumexp(logits)
    s = np.exp(log_s)
    comp = (logw[None, :] - 0.5 * ((x[:, None] - mu[None, :]) / s[None, :]) ** 2
            - log_s[None, :] - 0.5 * math.log(2 * math.pi))
    return -np.sum(logsumexp(comp, axis=1))


GP = {"logits": np.array([0.1, -0.2]), "mu": np.array([-0.8, 1.5]), "log_sigma": np.array([-0.5, 0.1])}
add(G("r17g_gmm_dict_logsumexp", gmm_nll, (GP, DATA1), ref="ag", tol=1e-10))
# ties in the max: both components equal -> the max's derivative splits but logsumexp is smooth
GP_TIE = {"logits": np.array([0.3, 0.3]), "mu": np.array([0.5, 0.5]), "log_sigma": np.array([0.0, 0.0])}
add(G("r17g_gmm_tied_components", gmm_nll, (GP_TIE, DATA1), ref="fd", tol=1e-7))
add(pair("r17g_gmm_hvp_mu", lambda: revsrc.hvp(lambda m: gmm_nll({"logits": GP["logits"], "mu": m, "log_sigma": GP["log_sigma"]}, DATA1),
                                               (GP["mu"],), (np.array([1.0, -1.0]),)),
         lambda: ag()[0].hessian(agify(_gmm_mu_only))(GP["mu"]) @ np.array([1.0, -1.0]), tol=1e-9))


def _gmm_mu_only(m):
    return gmm_nll({"logits": GP["logits"], "mu": m, "log_sigma": GP["log_sigma"]}, DATA1)


# EM-style responsibilities computed with stop_gradient -> the gradient of the Q function
def em_q(mu, x, mu_old):
    d2 = (x[:, None] - mu_old[None, :]) ** 2
    r = np.exp(-0.5 * d2 - logsumexp(-0.5 * d2, axis=1)[:, None])
    r = revsrc.stop_gradient(r)
    return np.sum(r * (x[:, None] - mu[None, :]) ** 2)


def _em_q_ref():
    mu_old = np.array([-0.8, 1.5])
    d2 = (DATA1[:, None] - mu_old[None, :]) ** 2
    r = np.exp(-0.5 * d2)
    r = r / r.sum(axis=1, keepdims=True)
    mu = np.array([-1.0, 1.0])
    return -2 * np.sum(r * (DATA1[:, None] - mu[None, :]), axis=0)


add(pair("r17g_em_q_stop_gradient", lambda: revsrc.grad(em_q)(np.array([-1.0, 1.0]), DATA1, np.array([-0.8, 1.5])),
         _em_q_ref, tol=1e-10))


# -- MLE of distributions ---------------------------------------------------------------------

def gamma_nll(log_shape, log_rate, x):
    a, b = math.exp(log_shape), math.exp(log_rate)
    n = len(x)
    return -(n * (a * math.log(b) - math.lgamma(a)) + (a - 1.0) * np.sum(np.log(x)) - b * np.sum(x))


XPOS = np.abs(DATA1) + 0.1
add(G("r17g_gamma_mle_lgamma", gamma_nll, (0.2, -0.1, XPOS), argnums=(0, 1), ref="fd", tol=1e-7))
add(pair("r17g_gamma_mle_hessian_blocks", lambda: revsrc.hessian(gamma_nll, argnums=(0, 1))(0.2, -0.1, XPOS),
         lambda: _hess_blocks_fd(gamma_nll, 0.2, -0.1, XPOS), tol=1e-5))


def _hess_blocks_fd(f, a, b, x, h=1e-4):
    def F(v):
        return f(v[0], v[1], x)
    from user_programs5_harness import fd_hess
    Hm = fd_hess(F, (np.array([a, b]),), {}, 0, h)[0]
    return ((Hm[0, 0], Hm[0, 1]), (Hm[1, 0], Hm[1, 1]))


def student_t_nll(theta, x, nu=4.0):
    mu, log_s = theta[0], theta[1]
    s = np.exp(log_s)
    z = (x - mu) / s
    c = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)
    return -np.sum(c - log_s - (nu + 1) / 2 * np.log1p(z * z / nu))


add(G("r17g_student_t_robust_fit", student_t_nll, (np.array([0.3, 0.2]), DATA1), ref="fd", tol=1e-7))
add(G("r17g_student_t_nu_kw", student_t_nll, (np.array([0.3, 0.2]), DATA1), kw={"nu": 1.5}, ref="fd", tol=1e-7))


# von Mises on angles with a Bessel series I0 by a while loop
def _log_i0(k):
    term, total, m = 1.0, 1.0, 1
    while term > 1e-17 * total:
        term = term * (k * k / 4.0) / (m * m)
        total = total + term
        m += 1
    return math.log(total)


ANG = np.array([0.1, 0.4, -0.2, 0.3, 0.25, 0.05])


def vonmises_nll(mu, kappa, th):
    return -np.sum(kappa * np.cos(th - mu)) + len(th) * (_log_i0(kappa) + math.log(2 * math.pi))


add(G("r17g_vonmises_bessel_while", vonmises_nll, (0.1, 2.5, ANG), argnums=(0, 1), ref="fd", tol=1e-7))


# -- Bayesian log posterior, class with properties and inheritance ------------------------------

class Prior:
    def __init__(self, scale):
        self.scale = scale

    def logp(self, w):
        return -0.5 * np.sum((w / self.scale) ** 2)


class LaplacePrior(Prior):
    def logp(self, w):
        return -np.sum(np.abs(w)) / self.scale


class BayesLogistic:
    def __init__(self, X, y, prior):
        self.X, self.y, self.prior = X, y, prior

    @property
    def n(self):
        return self.X.shape[0]

    def loglik(self, w):
        z = self.X @ w
        return np.sum(self.y * z - np.logaddexp(0.0, z))

    def neg_log_post(self, w):
        return -(self.loglik(w) + self.prior.logp(w)) / self.n


class BayesBase:
    def __init__(self, X, y, scale):
        self.X, self.y, self.scale = X, y, scale

    @property
    def n(self):
        return self.X.shape[0]

    def loglik(self, w):
        z = self.X @ w
        return np.sum(self.y * z - np.logaddexp(0.0, z))

    def logprior(self, w):
        return -0.5 * np.sum((w / self.scale) ** 2)

    def neg_log_post(self, w):
        return -(self.loglik(w) + self.logprior(w)) / self.n


class BayesLaplace(BayesBase):
    def logprior(self, w):
        return -np.sum(np.abs(w)) / self.scale + 0.0 * super().logprior(w)


_bb = BayesBase(XG, BIN.astype(float), 2.0)
_bb_lap = BayesLaplace(XG, BIN.astype(float), 1.0)
_bl = BayesLogistic(XG, BIN.astype(float), Prior(2.0))
_bl_lap = BayesLogistic(XG, BIN.astype(float), LaplacePrior(1.0))
add(G("r17g_bayes_logistic_method_property", _bl.neg_log_post, (BETA0,), ref="fd", tol=1e-7))
add(G("r17g_bayes_self_methods_property", _bb.neg_log_post, (BETA0,), ref="fd", tol=1e-7))
add(G("r17g_bayes_laplace_subclass_super", _bb_lap.neg_log_post, (BETA0,), ref="fd", tol=1e-7))


def _bl_rebound_prior():
    df = revsrc.grad(_bb.neg_log_post)
    g1 = df(BETA0)
    _bb.scale = 0.5
    try:
        g2 = df(BETA0)
    finally:
        _bb.scale = 2.0
    return g1, g2


def _bl_rebound_ref():
    g1 = fd_checked(_bb.neg_log_post, (BETA0,))[0]
    b2 = BayesBase(XG, BIN.astype(float), 0.5)
    g2 = fd_checked(b2.neg_log_post, (BETA0,))[0]
    return g1, g2


add(pair("r17g_bayes_prior_attribute_rebound", _bl_rebound_prior, _bl_rebound_ref, tol=1e-7))


# hierarchical normal: non-centered, a tuple pytree (mu, log_tau, eta)
Y8 = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
S8 = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def eight_schools_logp(params):
    mu, log_tau, eta = params
    tau = np.exp(log_tau)
    theta = mu + tau * eta
    lp = -0.5 * np.sum(((Y8 - theta) / S8) ** 2)
    lp = lp - 0.5 * np.sum(eta ** 2) - 0.5 * (mu / 5.0) ** 2
    lp = lp + log_tau - np.log1p(tau * tau / 25.0)  # half-Cauchy(5) on tau, plus Jacobian
    return lp


P8 = (1.0, 0.5, np.linspace(-1, 1, 8))
add(G("r17g_eight_schools_tuple_pytree", eight_schools_logp, (P8,), ref="ag", tol=1e-10))


def _eight_vg_aux(params):
    lp = eight_schools_logp(params)
    return -lp, {"tau": np.exp(params[1])}


add(pair("r17g_eight_schools_vg_has_aux",
         lambda: revsrc.value_and_grad(_eight_vg_aux, has_aux=True)(P8),
         lambda: ((-eight_schools_logp(P8), {"tau": np.exp(0.5)}),
                  tuple(-np.asarray(g) if np.ndim(g) else -g for g in ag()[0].grad(agify(eight_schools_logp))(P8))),
         tol=1e-10))


# vmap(grad) of a scalar log-likelihood over a batch of observations, in_axes None for params
def obs_ll(mu, x):
    return -0.5 * (x - mu) ** 2 - math.log1p(math.exp(-abs(x)))


add(pair("r17g_vmap_grad_obs_ll_in_axes", lambda: revsrc.vmap(revsrc.grad(obs_ll), in_axes=(None, 0))(0.3, DATA1),
         lambda: DATA1 - 0.3, tol=1e-12))


# closure + partial: posterior of a Poisson rate with Gamma prior
def make_logpost(a0, b0):
    def logpost(log_rate, y):
        lam = math.exp(log_rate)
        return (a0 + sum(y)) * log_rate - (b0 + len(y)) * lam
    return logpost


_lp = functools.partial(make_logpost(2.0, 1.0), y=[3, 1, 4, 1, 5])
add(G("r17g_gamma_poisson_closure_partial", _lp, (0.7,), ref=lambda: (2.0 + 14) - 6.0 * math.exp(0.7), tol=1e-12))
add(H("r17g_gamma_poisson_closure_hessian", _lp, (0.7,), ref=lambda: -6.0 * math.exp(0.7), tol=1e-12))


# edge: zero counts with zero rate -> 0 * log(0) guarded by np.where
def zip_nll(log_lam, y):
    lam = np.exp(log_lam)
    safe = np.where(y > 0, y * np.log(np.where(y > 0, lam, 1.0)), 0.0)
    return np.sum(lam - safe)


add(G("r17g_where_guarded_xlogy", zip_nll, (np.array([0.1, -2.0, 0.0, 1.0]), np.array([0, 3, 0, 2])),
      ref="jax", tol=1e-12))
# empty data: gradient is from the prior alone
add(G("r17g_eight_schools_empty_eta", lambda p: eight_schools_logp((p[0], p[1], np.zeros(8))) + np.sum(p[2]),
      ((1.0, 0.5, np.zeros(0)),), ref="fd", tol=1e-7))
# float32 data: gradient in float32, compared loosely
add(G("r17g_logistic_float32", logistic_nll, (BETA0.astype(np.float32), XG.astype(np.float32), BIN), ref="jax", tol=1e-4))


# -- robust and order-statistic estimators ---------------------------------------------------------

def pinball_loss(beta, X, y, tau=0.8):
    r = y - X @ beta
    return np.mean(np.maximum(tau * r, (tau - 1) * r))


YC = COUNTS.astype(float) + 0.1 * np.arange(12)
add(G("r17g_quantile_regression_pinball", pinball_loss, (BETA0, XG, YC), ref="jax", tol=1e-12))


def median_abs_dev(x):
    med = np.median(x)
    return np.median(np.abs(x - med)) + np.percentile(x, 90)


add(G("r17g_median_mad_percentile", median_abs_dev, (DATA1[:9],), ref="jax", tol=1e-12))


def kaplan_meier_area(h):
    """Area under a discrete survival curve S_k = prod (1 - h_j), hazards by a sigmoid."""
    haz = 1 / (1 + np.exp(-h))
    S = np.cumprod(1 - haz)
    return np.sum(S) + S[-1] ** 2


add(G("r17g_kaplan_meier_cumprod", kaplan_meier_area, (np.array([-2.0, -1.5, -1.0, -0.3, 0.2]),), ref="jax", tol=1e-12))


def poly_trend_ll(coef, t, y):
    mu = np.polyval(coef, t)
    return np.sum((y - mu) ** 2) / (2 * 0.3 ** 2)


add(G("r17g_polyval_trend_coefficients", poly_trend_ll, (np.array([0.1, -0.5, 1.0]), np.linspace(0, 2, 8), np.linspace(1, 2, 8) ** 2),
      ref="jax", tol=1e-11))
add(H("r17g_polyval_trend_hessian", poly_trend_ll, (np.array([0.1, -0.5, 1.0]), np.linspace(0, 2, 8), np.linspace(1, 2, 8) ** 2),
      ref="jax", tol=1e-10))


def scipy_logsumexp_mixture(logits, x):
    from scipy.special import logsumexp as lse
    logw = logits - lse(logits)
    comp = logw[None, :] - 0.5 * (x[:, None] - np.array([-1.0, 2.0])[None, :]) ** 2
    return -np.sum(lse(comp, axis=1))


# scipy.special.logsumexp: a library function with no rule: E202, documented
add(G("r17g_scipy_logsumexp_no_rule", scipy_logsumexp_mixture, (np.array([0.1, -0.2]), DATA1), ref="fd", tol=1e-7))


def probit_ndtr(beta, X, y):
    from scipy.special import log_ndtr
    z = X @ beta
    return -np.sum(np.where(y, log_ndtr(z), log_ndtr(-z)))


add(G("r17g_probit_scipy_log_ndtr", probit_ndtr, (BETA0, XG, BIN), ref=lambda: fd_checked(probit_nll, (BETA0, XG, BIN))[0], tol=1e-6))


def weighted_gaussian_nll(theta, x, w):
    mu, log_s = theta[0], theta[1]
    z = (x - mu) * np.exp(-log_s)
    return np.average(0.5 * z ** 2 + log_s, weights=w)


WTS = np.linspace(0.5, 1.5, 20)
add(G("r17g_np_average_weights", weighted_gaussian_nll, (np.array([0.3, 0.1]), DATA1, WTS), ref="jax", tol=1e-12))
add(H("r17g_np_average_weights_hessian", weighted_gaussian_nll, (np.array([0.3, 0.1]), DATA1, WTS), ref="jax", tol=1e-10))


def nan_tolerant_nll(theta, x):
    mu, log_s = theta[0], theta[1]
    z = (x - mu) * np.exp(-log_s)
    return np.nanmean(0.5 * z ** 2 + log_s)


XNAN = np.concatenate([DATA1[:6], [np.nan], DATA1[6:10]])
add(G("r17g_nanmean_missing_data", nan_tolerant_nll, (np.array([0.3, 0.1]), XNAN), ref="fd", tol=1e-7))
add(H("r17g_nanmean_missing_data_hessian", nan_tolerant_nll, (np.array([0.3, 0.1]), XNAN), ref="fd", tol=1e-5))


# -- samplers and approximations that call derivatives inside --------------------------------------

A_HMC = np.array([[2.0, 0.3], [0.3, 1.0]])


def potential(q):
    return 0.5 * q @ A_HMC @ q + 0.1 * np.sum(q ** 4)


def hmc_final_energy(eps, q0, p0, L=5):
    """Leapfrog with revsrc.grad of the potential inside; the energy error tunes eps."""
    dU = revsrc.grad(potential)
    q, p = q0, p0
    p = p - 0.5 * eps * dU(q)
    for _ in range(L):
        q = q + eps * p
        p = p - eps * dU(q)
    p = p + 0.5 * eps * dU(q)
    return potential(q) + 0.5 * p @ p


Q0, P0H = np.array([1.0, -0.5]), np.array([0.3, 0.2])
add(G("r17g_hmc_leapfrog_inner_grad_eps", hmc_final_energy, (0.1, Q0, P0H), ref="fd", tol=1e-7))
add(G("r17g_hmc_leapfrog_inner_grad_q0", hmc_final_energy, (0.1, Q0, P0H), argnums=1, ref="fd", tol=1e-7))
add(H("r17g_hmc_leapfrog_inner_grad_hessian_q0", lambda q: hmc_final_energy(0.1, q, P0H), (Q0,), ref="fd", tol=1e-5))

XL = np.column_stack([np.ones(10), np.random.default_rng(0).normal(size=10)])
YL = (np.random.default_rng(1).uniform(size=10) < 0.5).astype(float)


def neg_log_joint(w, alpha):
    z = XL @ w
    return np.sum(np.logaddexp(0.0, z) - YL * z) + 0.5 * alpha * w @ w


def laplace_log_evidence(log_alpha):
    """Laplace approximation: Newton to the mode with revsrc.grad / revsrc.hessian inside,
    then the log-determinant of the Hessian; differentiated in the prior precision."""
    alpha = math.exp(log_alpha)
    w = np.zeros(2)
    for _ in range(8):
        g = revsrc.grad(neg_log_joint)(w, alpha)
        Hm = revsrc.hessian(neg_log_joint)(w, alpha)
        w = w - np.linalg.solve(Hm, g)
    Hm = revsrc.hessian(neg_log_joint)(w, alpha)
    return neg_log_joint(w, alpha) + 0.5 * np.linalg.slogdet(Hm)[1] - log_alpha


add(G("r17g_laplace_evidence_inner_hessian", laplace_log_evidence, (0.3,), ref="fd", tol=1e-7))
