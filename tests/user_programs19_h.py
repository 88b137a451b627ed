"""Round 19, part h: survival analysis and robust statistics -- Cox partial likelihood
(Breslow and Efron ties) by argsort and reversed cumulative sums, accelerated failure time
models with right and interval censoring, Tobit likelihoods with erfc, quantile (pinball)
regression, Huber and Tukey M-estimators solved by IRLS inside the loss, MAD scales,
trimmed means and least-trimmed squares, with helpers, classes and pytree parameters."""
import functools  # noqa: F401
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(2019)
NS = 10
XS = _rng.normal(size=(NS, 3))
T_OBS = np.array([5.0, 3.2, 8.1, 3.2, 1.0, 6.5, 2.2, 9.9, 4.4, 3.2])
DELTA = np.array([1, 1, 0, 1, 1, 0, 1, 1, 0, 1])
BETA = np.array([0.3, -0.2, 0.1])


# -- Cox partial likelihood, Breslow ties, by sorting and a reversed cumsum ------------

def _risk_set_sums(eta_sorted):
    # sum over j with t_j >= t_i of exp(eta_j): times sorted increasing
    return np.cumsum(np.exp(eta_sorted)[::-1])[::-1]


def cox_breslow_nll(beta, X, t, d):
    order = np.argsort(-t, kind="stable")[::-1]   # increasing time
    eta = (X @ beta)[order]
    ts, ds = t[order], d[order]
    rs = _risk_set_sums(eta)
    # ties: the risk set of tied times starts at the first of them
    first = np.searchsorted(ts, ts, side="left")
    rs = rs[first]
    return -np.sum(ds * (eta - np.log(rs)))


def _cox_ref(beta):
    ll = 0.0
    for i in range(NS):
        if DELTA[i]:
            at_risk = T_OBS >= T_OBS[i]
            ll = ll + XS[i] @ beta - np.log(np.sum(np.exp(XS[at_risk] @ beta)))
    return -ll


add(G("r19h_cox_breslow_sorted_cumsum", cox_breslow_nll, (BETA, XS, T_OBS, DELTA),
      ref=lambda: ag()[0].grad(agify(_cox_ref))(BETA), tol=1e-10))
add(H("r19h_cox_breslow_hessian", cox_breslow_nll, (BETA, XS, T_OBS, DELTA),
      ref=lambda: ag()[0].hessian(agify(_cox_ref))(BETA), tol=1e-9))
add(VG("r19h_cox_breslow_vg_value", cox_breslow_nll, (BETA, XS, T_OBS, DELTA), ref="fd",
       tol=1e-7))


def cox_efron_nll(beta, X=XS, t=T_OBS, d=DELTA):
    eta = X @ beta
    w = np.exp(eta)
    ll = 0.0
    for tt in sorted(set(t[d == 1].tolist())):
        dead = (t == tt) & (d == 1)
        m = int(dead.sum())
        risk = np.sum(w[t >= tt])
        tie = np.sum(w[dead])
        ll += np.sum(eta[dead])
        for k in range(m):
            ll -= np.log(risk - k / m * tie)
    return -ll


add(G("r19h_cox_efron_ties_loop", cox_efron_nll, (BETA,), ref="ag", tol=1e-10))
add(H("r19h_cox_efron_hessian", cox_efron_nll, (BETA,), ref="ag", tol=1e-9))


# -- AFT log-normal with right censoring -----------------------------------------------

SQ2 = math.sqrt(2.0)


def _log_sf_normal(z):
    return math.log(0.5 * math.erfc(z / SQ2))


def aft_lognormal_nll(params, X=XS, t=T_OBS, d=DELTA):
    beta, log_sigma = params
    sigma = math.exp(log_sigma)
    nll = 0.0
    for xi, ti, di in zip(X, t, d):
        z = (math.log(ti) - float(xi @ beta)) / sigma
        if di:
            nll -= -0.5 * z * z - math.log(sigma * ti * math.sqrt(2 * math.pi))
        else:
            nll -= _log_sf_normal(z)
    return nll


add(G("r19h_aft_lognormal_tuple_params", aft_lognormal_nll, ((BETA + 1.0, -0.3),), ref="fd",
      tol=1e-7))


def weibull_interval_censored(params, lo, hi):
    k, lam = np.exp(params)
    S = lambda t: np.exp(-(t / lam) ** k)  # noqa: E731
    p = S(lo) - np.where(np.isinf(hi), 0.0, S(np.where(np.isinf(hi), 1.0, hi)))
    return -np.sum(np.log(p))


LO = np.array([1.0, 2.0, 0.5, 3.0, 4.0])
HI = np.array([2.0, 3.5, 1.5, np.inf, 6.0])
add(G("r19h_weibull_interval_censored_inf", weibull_interval_censored,
      (np.array([0.3, 1.0]), LO, HI), ref="fd", tol=1e-7))
add(G("r19h_weibull_interval_censored_jax", weibull_interval_censored,
      (np.array([0.3, 1.0]), LO, HI), ref="jax", tol=1e-10))


# -- Tobit regression (censored at zero) -------------------------------------------------

Y_TOB = np.array([0.0, 1.3, 0.0, 2.1, 0.4, 0.0, 0.9, 1.7, 0.0, 0.2])


def tobit_nll(beta, log_s, X=XS, y=Y_TOB):
    s = np.exp(log_s)
    mu = X @ beta + 0.5
    cens = y <= 0.0
    z = (y - mu) / s
    ll_obs = -0.5 * z ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi)
    ll_cens = np.log(0.5 * np.array([math.erfc(v / SQ2) for v in mu / s]))
    return -np.sum(np.where(cens, ll_cens, ll_obs))


add(G("r19h_tobit_erfc_list_where", tobit_nll, (BETA, -0.2), ref="fd", tol=1e-7))
add(G("r19h_tobit_wrt_log_sigma", tobit_nll, (BETA, -0.2), argnums=1, ref="fd", tol=1e-7))


# -- quantile regression ----------------------------------------------------------------

Y_Q = XS @ np.array([1.0, 0.5, -1.0]) + _rng.standard_t(3, size=NS)


def pinball(r, tau):
    return np.maximum(tau * r, (tau - 1.0) * r)


def multi_quantile_loss(B, X=XS, y=Y_Q, taus=(0.1, 0.5, 0.9)):
    total = 0.0
    for j, tau in enumerate(taus):
        total += np.mean(pinball(y - X @ B[:, j], tau))
    # non-crossing penalty
    pred = X @ B
    total += 10.0 * np.sum(np.maximum(0.0, -np.diff(pred, axis=1)) ** 2)
    return total


B_Q = np.column_stack([np.array([0.8, 0.4, -0.9]) + c for c in (-0.5, 0.0, 0.5)])
add(G("r19h_multi_quantile_noncrossing", multi_quantile_loss, (B_Q,), ref="jax", tol=1e-12))


def smoothed_check(r, tau, h=0.1):
    return r * (tau - 0.5 + 0.5 * np.tanh(r / h))


def sqr_loss(b, tau=0.3):
    return np.sum(smoothed_check(Y_Q - XS @ b, tau))


add(H("r19h_smoothed_quantile_hessian", sqr_loss, (np.array([0.8, 0.4, -0.9]),), ref="jax",
      tol=1e-9))


def np_quantile_of_residuals(b):
    r = Y_Q - XS @ b
    return np.quantile(r, 0.75) - np.quantile(r, 0.25)


add(G("r19h_iqr_of_residuals_np_quantile", np_quantile_of_residuals,
      (np.array([0.8, 0.4, -0.9]),), ref="fd", tol=1e-7))


# -- Huber M-estimator by IRLS inside the loss ------------------------------------------

def huber_weights(r, c):
    a = np.abs(r)
    return np.where(a <= c, 1.0, c / np.maximum(a, 1e-12))


def huber_irls(X, y, c=1.345, iters=20):
    b = np.linalg.lstsq(X, y, rcond=None)[0]
    for _ in range(iters):
        w = huber_weights(y - X @ b, c)
        XtW = X.T * w
        b = np.linalg.solve(XtW @ X, XtW @ y)
    return b


def huber_fit_loss(y, target=np.array([1.0, 0.5, -1.0])):
    b = huber_irls(XS, y)
    return np.sum((b - target) ** 2)


add(G("r19h_huber_irls_unrolled_wrt_y", huber_fit_loss, (Y_Q,), ref="fd", tol=1e-6))


def tukey_rho(r, c=4.685):
    u = np.clip(r / c, -1.0, 1.0)
    return c * c / 6.0 * (1.0 - (1.0 - u * u) ** 3)


def mad(r):
    med = np.median(r)
    return 1.4826 * np.median(np.abs(r - med))


def tukey_objective(b, X=XS, y=Y_Q):
    r = y - X @ b
    s = revsrc.stop_gradient(mad(r))
    return np.sum(tukey_rho(r / s))


def _tukey_ref(b):
    s = mad(Y_Q - XS @ B_T)
    return np.sum(tukey_rho((Y_Q - XS @ b) / s))


B_T = np.array([0.9, 0.6, -1.1])
add(G("r19h_tukey_biweight_mad_stop_gradient", tukey_objective, (B_T,),
      ref=lambda: fd_checked(_tukey_ref, (B_T,))[0], tol=1e-7))


def tukey_with_mad_grad(b, X=XS, y=Y_Q):
    r = y - X @ b
    return np.sum(tukey_rho(r / mad(r)))


add(G("r19h_tukey_mad_through_median", tukey_with_mad_grad, (B_T,), ref="fd", tol=1e-6))


# -- trimmed statistics ----------------------------------------------------------------

def trimmed_mean(x, frac=0.2):
    n = len(x)
    k = int(frac * n)
    xs = np.sort(x)
    return np.mean(xs[k:n - k])


def winsorized_var(x, frac=0.2):
    xs = np.sort(x)
    k = int(frac * len(x))
    lo, hi = xs[k], xs[-k - 1]
    w = np.clip(x, lo, hi)
    return np.var(w, ddof=1)


add(G("r19h_trimmed_mean_sort_slice", trimmed_mean, (Y_Q,), ref="ag", tol=1e-12))
add(G("r19h_winsorized_var_clip_sorted_bounds", winsorized_var, (Y_Q,), ref="fd", tol=1e-7))


def lts_loss(b, h=7):
    r2 = (Y_Q - XS @ b) ** 2
    return np.sum(np.sort(r2)[:h])


add(G("r19h_least_trimmed_squares", lts_loss, (B_T,), ref="ag", tol=1e-11))


def hodges_lehmann(x):
    pairs = [(x[i] + x[j]) / 2 for i in range(len(x)) for j in range(i, len(x))]
    return np.median(np.array(pairs))


add(G("r19h_hodges_lehmann_median_of_walsh", hodges_lehmann, (Y_Q[:7],), ref="fd", tol=1e-7))


# -- a robust location estimator class with a while loop inside -------------------------

class MEstimator:
    def __init__(self, c=1.5, tol=1e-12, max_iter=200):
        self.c, self.tol, self.max_iter = c, tol, max_iter

    def psi(self, u):
        return np.clip(u, -self.c, self.c)

    def location(self, x):
        mu = np.median(x)
        s = mad(x)
        it = 0
        while it < self.max_iter:
            step = s * np.mean(self.psi((x - mu) / s))
            mu = mu + step
            it += 1
            if abs(step) < self.tol:
                break
        return mu


def robust_center_sq(x):
    return MEstimator().location(x) ** 2


add(G("r19h_m_estimator_class_while_break", robust_center_sq, (Y_Q,), ref="fd", tol=1e-6))


# -- Kaplan-Meier weighted loss (IPCW), weights from a fixed KM curve -------------------

def km_survival(t, d):
    order = np.argsort(t, kind="stable")
    ts, ds = t[order], d[order]
    n = len(t)
    S = np.ones(n)
    s = 1.0
    for i in range(n):
        at_risk = n - i
        if ds[i]:
            s *= 1.0 - 1.0 / at_risk
        S[i] = s
    out = np.empty(n)
    out[order] = S
    return out


KM_W = DELTA / np.maximum(km_survival(T_OBS, 1 - DELTA), 0.05)


def ipcw_mse(b, log_t=np.log(T_OBS)):
    pred = XS @ b + 1.0
    return np.sum(KM_W * (log_t - pred) ** 2) / np.sum(KM_W)


add(G("r19h_ipcw_weighted_mse", ipcw_mse, (BETA,), ref="jax", tol=1e-12))
add(G("r19h_km_survival_as_function_of_times", lambda t: np.sum(km_survival(t, DELTA) * t),
      (T_OBS + np.linspace(0, 0.01, NS),), ref="fd", tol=1e-7))


# -- pytree of parameters: a cure-rate mixture model -------------------------------------

def cure_model_nll(p, X=XS, t=T_OBS, d=DELTA):
    pi = 1.0 / (1.0 + np.exp(-(X @ p["gamma"])))       # susceptible probability
    lam = np.exp(X @ p["beta"] + p["log_scale"])
    Su = np.exp(-lam * t)
    fu = lam * Su
    ll = d * np.log(pi * fu) + (1 - d) * np.log(1 - pi + pi * Su)
    return -np.sum(ll)


P_CURE = {"gamma": np.array([0.5, 0.1, -0.3]), "beta": BETA, "log_scale": -1.5}
add(G("r19h_cure_rate_dict_params", cure_model_nll, (P_CURE,), ref="fd", tol=1e-7))
add(pair("r19h_cure_rate_hessian_dict_vs_jax",
         lambda: revsrc.hessian(cure_model_nll)(P_CURE)["beta"]["gamma"],
         lambda: jax().hessian(jaxify(cure_model_nll))(P_CURE)["beta"]["gamma"], tol=1e-9))
add(G("r19h_cox_breslow_backend_jax", cox_breslow_nll, (BETA, XS, T_OBS, DELTA),
      ref=lambda: ag()[0].grad(agify(_cox_ref))(BETA), tol=1e-10, backend="jax"))
add(G("r19h_quantile_backend_jax", multi_quantile_loss, (B_Q,), ref="jax", tol=1e-12,
      backend="jax"))


def cox_breslow_plain_argsort(beta, X, t, d):
    order = np.argsort(t)
    eta = (X @ beta)[order]
    ts, ds = t[order], d[order]
    rs = _risk_set_sums(eta)[np.searchsorted(ts, ts, side="left")]
    return -np.sum(ds * (eta - np.log(rs)))


add(G("r19h_cox_plain_argsort_backend_jax", cox_breslow_plain_argsort, (BETA, XS, T_OBS, DELTA),
      ref=lambda: ag()[0].grad(agify(_cox_ref))(BETA), tol=1e-10, backend="jax"))
add(H("r19h_cox_plain_argsort_hessian", cox_breslow_plain_argsort, (BETA, XS, T_OBS, DELTA),
      ref=lambda: ag()[0].hessian(agify(_cox_ref))(BETA), tol=1e-9))
