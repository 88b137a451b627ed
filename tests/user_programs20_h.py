"""Round 20, part h: Bayesian statistics without sampling -- Laplace approximations (a
Newton search for the mode, then log det of the Hessian), ELBOs of Gaussian variational
families with fixed noise (reparameterization with a fixed draw), hierarchical log
densities (non-centred eight schools, random intercepts), empirical Bayes by marginal
likelihood, conjugate updates, with priors held in dicts of distributions and classes."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(2008)
LOG2PI = math.log(2.0 * math.pi)


def normal_logpdf(x, mu, sigma):
    z = (x - mu) / sigma
    return -0.5 * z * z - np.log(sigma) - 0.5 * LOG2PI


def half_cauchy_logpdf(x, scale):
    return math.log(2.0 / math.pi) - np.log(scale) - np.log1p((x / scale) ** 2)


# -- eight schools, non-centred ---------------------------------------------------------
Y8 = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
S8 = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def eight_schools_logp(params):
    mu = params["mu"]
    log_tau = params["log_tau"]
    eta = params["eta"]
    tau = np.exp(log_tau)
    theta = mu + tau * eta
    lp = normal_logpdf(mu, 0.0, 5.0)
    lp = lp + half_cauchy_logpdf(tau, 5.0) + log_tau   # Jacobian of tau = exp(log_tau)
    lp = lp + np.sum(normal_logpdf(eta, 0.0, 1.0))
    lp = lp + np.sum(normal_logpdf(Y8, theta, S8))
    return lp


P8 = {"mu": 4.0, "log_tau": 1.2, "eta": 0.3 * _rng.normal(size=8)}
add(VG("r20h_eight_schools_noncentred_dict_vg", eight_schools_logp, (P8,), ref="ag", tol=1e-10))
def _eight_flat(v):
    return agify(eight_schools_logp)({"mu": v[9], "log_tau": v[8], "eta": v[:8]})


def _eight_hess_ref():
    v = np.concatenate([P8["eta"], [P8["log_tau"], P8["mu"]]])
    Hf = ag()[0].hessian(_eight_flat)(v)
    sl = {"eta": slice(0, 8), "log_tau": 8, "mu": 9}
    return {a: {b: Hf[sl[a], sl[b]] for b in sl} for a in sl}


add(pair("r20h_eight_schools_hessian_dict", lambda: revsrc.hessian(eight_schools_logp)(P8), _eight_hess_ref, tol=1e-9))


# -- Laplace approximation of a logistic regression's evidence --------------------------
XL = np.column_stack([np.ones(12), np.linspace(-2.0, 2.0, 12), np.cos(np.arange(12.0))])
YL = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1], dtype=float)


def log_joint(w, alpha):
    z = XL @ w
    ll = np.sum(YL * z - np.logaddexp(0.0, z))
    lp = -0.5 * alpha * np.dot(w, w) + 0.5 * len(w) * np.log(alpha / (2 * math.pi))
    return ll + lp


def neg_hess(w, alpha):
    z = XL @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return XL.T @ (XL * (p * (1 - p))[:, None]) + alpha * np.eye(len(w))


def find_mode(alpha, tol=1e-12, max_iter=50):
    w = np.zeros(XL.shape[1])
    for it in range(max_iter):
        z = XL @ w
        p = 1.0 / (1.0 + np.exp(-z))
        g = XL.T @ (YL - p) - alpha * w
        step = np.linalg.solve(neg_hess(w, alpha), g)
        w = w + step
        if np.max(np.abs(step)) < tol:
            break
    return w


def laplace_evidence(log_alpha):
    alpha = np.exp(log_alpha)
    w = find_mode(alpha)
    sign, logdet = np.linalg.slogdet(neg_hess(w, alpha))
    return log_joint(w, alpha) + 0.5 * len(w) * LOG2PI - 0.5 * logdet


add(G("r20h_laplace_evidence_newton_mode_wrt_log_alpha", laplace_evidence, (0.3,), ref="fd", tol=1e-7))


def laplace_evidence_envelope(log_alpha):
    # the same evidence with the mode stopped: d/dalpha through the mode vanishes at the
    # optimum (envelope theorem) for the log joint part, but not for the log det part
    alpha = np.exp(log_alpha)
    w = revsrc.stop_gradient(find_mode(alpha))
    sign, logdet = np.linalg.slogdet(neg_hess(w, alpha))
    return log_joint(w, alpha) + 0.5 * len(w) * LOG2PI - 0.5 * logdet


def _envelope_ref():
    w = find_mode(math.exp(0.3))
    return fd_checked(lambda la: log_joint(w, np.exp(la)) + 0.5 * 3 * LOG2PI
                      - 0.5 * np.linalg.slogdet(neg_hess(w, np.exp(la)))[1], (0.3,))[0]


add(pair("r20h_laplace_stop_gradient_mode", lambda: revsrc.grad(laplace_evidence_envelope)(0.3), _envelope_ref, tol=1e-7))


def map_by_gradient_ascent(alpha, lr=0.05, steps=200):
    # a user's MAP search by revsrc's own gradient inside the program
    dlj = revsrc.grad(log_joint)
    w = np.zeros(3)
    for _ in range(steps):
        w = w + lr * dlj(w, alpha)
    return w


add(pair("r20h_map_by_inner_revsrc_grad_matches_newton", lambda: map_by_gradient_ascent(1.5),
         lambda: find_mode(1.5), tol=1e-6))


# -- ELBO with a fixed draw -------------------------------------------------------------
EPS = _rng.normal(size=(16, 3))


def elbo(q, eps=EPS):
    # mean-field Gaussian q(w) = N(m, diag(exp(2 log_s))) for the logistic regression
    m, log_s = q
    s = np.exp(log_s)
    total = 0.0
    for e in eps:
        w = m + s * e
        total = total + log_joint(w, 1.0)
    entropy = np.sum(log_s) + 0.5 * len(m) * (1.0 + LOG2PI)
    return total / len(eps) + entropy


Q0 = (np.array([0.1, 0.5, -0.2]), np.array([-1.0, -0.7, -1.2]))
add(VG("r20h_elbo_tuple_params_fixed_draws", elbo, (Q0,), ref="ag", tol=1e-10))
def _elbo_hvp_ref(h=1e-5):
    # central differences of autograd's gradient along the tangent
    g = ag()[0].grad(agify(elbo))
    v = (np.ones(3), np.array([0.5, -0.5, 1.0]))
    gp = g((Q0[0] + h * v[0], Q0[1] + h * v[1]))
    gm = g((Q0[0] - h * v[0], Q0[1] - h * v[1]))
    return tuple((a - b) / (2 * h) for a, b in zip(gp, gm))


add(pair("r20h_elbo_hvp_tuple", lambda: revsrc.hvp(elbo, (Q0,), ((np.ones(3), np.array([0.5, -0.5, 1.0])),)),
         _elbo_hvp_ref, tol=1e-7))


def elbo_full_rank(m, L_flat, eps=EPS):
    # full-rank Gaussian with a Cholesky factor built by writing into a lower triangle
    L = np.zeros((3, 3))
    k = 0
    for i in range(3):
        for j in range(i + 1):
            L[i, j] = L_flat[k]
            k += 1
    for i in range(3):
        L[i, i] = np.exp(L[i, i])
    W = m + eps @ L.T
    ll = np.mean([log_joint(w, 2.0) for w in W])
    return ll + np.sum(np.log(np.diag(L)))


LF0 = np.array([-0.5, 0.1, -0.8, 0.05, -0.1, -0.6])
add(G("r20h_elbo_full_rank_cholesky_writes", elbo_full_rank, (np.zeros(3), LF0), argnums=1, ref="fd", tol=1e-7))
add(G("r20h_elbo_full_rank_wrt_mean", elbo_full_rank, (np.zeros(3), LF0), argnums=0, ref="fd", tol=1e-7))


# -- random intercepts, marginal likelihood of a Gaussian model -------------------------
GROUPS = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 3])
YG = np.array([1.2, 0.8, 1.1, -0.3, 0.1, 2.0, 2.4, 1.7, 2.2, 0.5])


def random_intercept_marginal(theta):
    # y = mu + b_g + e, b_g ~ N(0, tau^2), e ~ N(0, sigma^2): integrate out b exactly
    mu, log_tau, log_sigma = theta[0], theta[1], theta[2]
    tau2, sig2 = np.exp(2 * log_tau), np.exp(2 * log_sigma)
    n = len(YG)
    Z = (GROUPS[:, None] == np.arange(4)[None, :]).astype(float)
    C = sig2 * np.eye(n) + tau2 * Z @ Z.T
    Lc = np.linalg.cholesky(C)
    r = np.linalg.solve(Lc, YG - mu)
    return -0.5 * np.dot(r, r) - np.sum(np.log(np.diag(Lc))) - 0.5 * n * LOG2PI


TH0 = np.array([1.0, -0.2, -0.9])
add(VG("r20h_random_intercept_marginal_cholesky", random_intercept_marginal, (TH0,), ref="fd", tol=1e-8))
add(H("r20h_random_intercept_marginal_hessian", random_intercept_marginal, (TH0,), ref="fd", tol=1e-5))


def random_intercept_by_groups(theta):
    # the same marginal likelihood group by group (Woodbury), with a dict of group data
    mu, tau2, sig2 = theta[0], np.exp(2 * theta[1]), np.exp(2 * theta[2])
    data = {}
    for g, y in zip(GROUPS, YG):
        data.setdefault(int(g), []).append(y)
    total = 0.0
    for g in sorted(data):
        y = np.array(data[g])
        n = len(y)
        r = y - mu
        quad = (np.dot(r, r) - tau2 * np.sum(r) ** 2 / (sig2 + n * tau2)) / sig2
        logdet = (n - 1) * np.log(sig2) + np.log(sig2 + n * tau2)
        total += -0.5 * (quad + logdet + n * LOG2PI)
    return total


add(pair("r20h_random_intercept_woodbury_equals_dense", lambda: revsrc.grad(random_intercept_by_groups)(TH0),
         lambda: revsrc.grad(random_intercept_marginal)(TH0), tol=1e-10))
add(G("r20h_random_intercept_woodbury_fd", random_intercept_by_groups, (TH0,), ref="fd", tol=1e-7))


# -- empirical Bayes for a normal means problem -----------------------------------------
XN = np.array([2.1, -0.4, 0.9, 3.3, -1.2, 0.2, 1.6])


def normal_means_marglik(hyper, sig=1.0):
    m, log_v = hyper
    v = math.exp(log_v)
    s2 = v + sig * sig
    return sum(-0.5 * (x - m) ** 2 / s2 - 0.5 * math.log(2 * math.pi * s2) for x in XN)


def eb_posterior_means(hyper, sig=1.0):
    m, log_v = hyper
    v = math.exp(log_v)
    shrink = v / (v + sig * sig)
    return np.array([m + shrink * (x - m) for x in XN])


add(G("r20h_empirical_bayes_marglik_tuple_floats", normal_means_marglik, ((0.5, 0.3),), ref="ag", tol=1e-10))
add(pair("r20h_empirical_bayes_jacrev_posterior_means",
         lambda: revsrc.jacrev(eb_posterior_means)((0.5, 0.3)),
         lambda: (fdj(lambda m: eb_posterior_means((float(m), 0.3)), 0.5),
                  fdj(lambda v: eb_posterior_means((0.5, float(v))), 0.3)),
         tol=1e-7))


def eb_fit(steps=60, lr=0.1):
    # type-II maximum likelihood by gradient ascent on the hyperparameters, tuple in/out
    h = (0.0, 0.0)
    dml = revsrc.grad(normal_means_marglik)
    for _ in range(steps):
        gm, gv = dml(h)
        h = (h[0] + lr * gm / len(XN), h[1] + lr * gv / len(XN) * 4)
    return h


def _eb_closed():
    m = np.mean(XN)
    v = max(np.mean((XN - m) ** 2) - 1.0, 0.0)
    return (m, math.log(v))


add(pair("r20h_empirical_bayes_fit_reaches_closed_form", lambda: eb_fit(steps=400), _eb_closed, tol=1e-6))


# -- conjugate updates ------------------------------------------------------------------
class Prior:
    def logpdf(self, x):
        raise NotImplementedError


class NormalPrior(Prior):
    def __init__(self, mu, sd):
        self.mu, self.sd = mu, sd

    def logpdf(self, x):
        return normal_logpdf(x, self.mu, self.sd)


class LogNormalPrior(NormalPrior):
    def logpdf(self, x):
        return super().logpdf(np.log(x)) - np.log(x)


PRIORS = {"slope": NormalPrior(0.0, 2.0), "noise": LogNormalPrior(-1.0, 0.5)}
TX = np.linspace(0.0, 1.0, 9)
TY = 1.7 * TX + 0.1 * np.sin(7 * TX)


def regression_log_post(theta):
    slope, noise = theta
    lp = PRIORS["slope"].logpdf(slope) + PRIORS["noise"].logpdf(noise)
    return lp + np.sum(normal_logpdf(TY, slope * TX, noise))


add(VG("r20h_priors_dict_of_class_objects", regression_log_post, ((1.5, 0.2),), ref="fd", tol=1e-7))
add(H("r20h_priors_dict_of_class_objects_hessian", lambda t: regression_log_post((t[0], t[1])),
      (np.array([1.5, 0.2]),), ref="fd", tol=1e-5))


def beta_binomial_marginal(ab, k=np.array([3, 7, 2, 9, 5]), n=np.array([10, 12, 8, 15, 11])):
    # empirical Bayes for click rates: log of prod_i B(k+a, n-k+b) / B(a, b)
    a, b = np.exp(ab[0]), np.exp(ab[1])
    total = 0.0
    for ki, ni in zip(k, n):
        total += (math.lgamma(ki + a) + math.lgamma(ni - ki + b) - math.lgamma(ni + a + b)
                  - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b))
    return total


def _betabin_jax(ab):
    import jax.scipy.special as jss
    jnp = jax().numpy
    k = jnp.array([3, 7, 2, 9, 5.0])
    n = jnp.array([10, 12, 8, 15, 11.0])
    a, b = jnp.exp(ab[0]), jnp.exp(ab[1])
    g = jss.gammaln
    return jnp.sum(g(k + a) + g(n - k + b) - g(n + a + b) - g(a) - g(b) + g(a + b))


AB = np.array([0.4, 0.9])
add(pair("r20h_beta_binomial_lgamma_vs_jax", lambda: revsrc.grad(beta_binomial_marginal)(AB),
         lambda: jax().grad(_betabin_jax)(AB), tol=1e-10))
add(H("r20h_beta_binomial_lgamma_hessian", beta_binomial_marginal, (AB,), ref="fd", tol=1e-5))


def gaussian_process_evidence(log_ell, log_sf, log_sn, x=np.linspace(0, 3, 8), y=np.sin(np.linspace(0, 3, 8))):
    d = x[:, None] - x[None, :]
    K = np.exp(2 * log_sf) * np.exp(-0.5 * d * d / np.exp(2 * log_ell)) + np.exp(2 * log_sn) * np.eye(len(x))
    alpha = np.linalg.solve(K, y)
    sign, logdet = np.linalg.slogdet(K)
    return -0.5 * y @ alpha - 0.5 * logdet - 0.5 * len(x) * LOG2PI


add(VG("r20h_gp_evidence_three_scalars_argnums", gaussian_process_evidence, (0.1, 0.0, -2.0), argnums=(0, 1, 2),
       ref="fd", tol=1e-7))
add(pair("r20h_gp_evidence_vmap_grad_over_lengthscales",
         lambda: revsrc.vmap(revsrc.grad(gaussian_process_evidence), in_axes=(0, None, None))(np.array([-0.5, 0.0, 0.5]), 0.0, -2.0),
         lambda: np.array([jax().grad(jaxify(gaussian_process_evidence))(l, 0.0, -2.0) for l in (-0.5, 0.0, 0.5)]),
         tol=1e-9))


def mixture_marginal(w_logits, mus, x=np.array([-1.3, -0.8, 0.2, 1.9, 2.4, 2.1])):
    # a two-component Gaussian mixture, the latent labels summed out with logsumexp
    lw = w_logits - np.log(np.sum(np.exp(w_logits)))
    total = 0.0
    for xi in x:
        comps = [lw[k] + normal_logpdf(xi, mus[k], 0.7) for k in range(len(mus))]
        mx = max(comps)
        total += mx + math.log(sum(math.exp(c - mx) for c in comps))
    return total


add(G("r20h_mixture_logsumexp_max_of_list", mixture_marginal, (np.array([0.2, -0.1]), [-1.0, 2.0]), argnums=1,
      ref="fd", tol=1e-7))
add(G("r20h_mixture_logsumexp_wrt_logits", mixture_marginal, (np.array([0.2, -0.1]), [-1.0, 2.0]), argnums=0,
      ref="fd", tol=1e-7))


def student_t_logpdf_config(x, cfg):
    # configuration by string keys; the degrees of freedom parameterized on the log scale
    nu = math.exp(cfg["log_nu"])
    s = cfg["scale"]
    z = (x - cfg["loc"]) / s
    return (math.lgamma(0.5 * (nu + 1)) - math.lgamma(0.5 * nu) - 0.5 * math.log(nu * math.pi)
            - math.log(s) - 0.5 * (nu + 1) * math.log1p(z * z / nu))


CFG_T = {"log_nu": 1.1, "loc": 0.3, "scale": 1.4}
add(pair("r20h_student_t_dict_config_grad",
         lambda: revsrc.grad(student_t_logpdf_config, argnums=1)(0.9, CFG_T),
         lambda: {k: fd_checked(lambda v: student_t_logpdf_config(0.9, {**CFG_T, k: v}), (CFG_T[k],))[0]
                  for k in CFG_T}, tol=1e-7))


def posterior_predictive_var(prior_prec, X=XL, noise=0.3):
    # Bayesian linear regression: predictive variance at a new point
    A = prior_prec * np.eye(X.shape[1]) + X.T @ X / noise ** 2
    xs = np.array([1.0, 0.5, -0.3])
    return noise ** 2 + xs @ np.linalg.inv(A) @ xs


add(G("r20h_blr_predictive_var_inv", posterior_predictive_var, (0.7,), ref="jax", tol=1e-10))
add(pair("r20h_blr_predictive_var_grad_of_grad",
         lambda: revsrc.grad(revsrc.grad(posterior_predictive_var))(0.7),
         lambda: jax().grad(jax().grad(jaxify(posterior_predictive_var)))(0.7), tol=1e-9))


def dirichlet_multinomial_logp(log_alpha, counts=np.array([4, 0, 7, 2])):
    alpha = np.exp(log_alpha)
    A = np.sum(alpha)
    N = int(np.sum(counts))
    out = math.lgamma(A) - math.lgamma(A + N)
    for a, c in zip(alpha, counts):
        out = out + math.lgamma(a + c) - math.lgamma(a)
    return out


add(G("r20h_dirichlet_multinomial_int_counts", dirichlet_multinomial_logp, (np.array([0.1, -0.3, 0.5, 0.0]),),
      ref="fd", tol=1e-7))


def random_intercept_by_groups_get(theta):
    # the same grouping written with d.get(k, []) + [y]
    mu, tau2, sig2 = theta[0], np.exp(2 * theta[1]), np.exp(2 * theta[2])
    data = {}
    for g, y in zip(GROUPS, YG):
        data[int(g)] = data.get(int(g), []) + [y]
    total = 0.0
    for g in sorted(data):
        y = np.array(data[g])
        n = len(y)
        r = y - mu
        quad = (np.dot(r, r) - tau2 * np.sum(r) ** 2 / (sig2 + n * tau2)) / sig2
        logdet = (n - 1) * np.log(sig2) + np.log(sig2 + n * tau2)
        total += -0.5 * (quad + logdet + n * LOG2PI)
    return total


add(pair("r20h_random_intercept_dict_get_equals_dense", lambda: revsrc.grad(random_intercept_by_groups_get)(TH0),
         lambda: fd_checked(random_intercept_marginal, (TH0,))[0], tol=1e-8))


def regression_log_post_local(theta):
    # the priors built inside the function: LogNormalPrior.logpdf calls super().logpdf
    priors = {"slope": NormalPrior(0.0, 2.0), "noise": LogNormalPrior(-1.0, 0.5)}
    slope, noise = theta
    lp = priors["slope"].logpdf(slope) + priors["noise"].logpdf(noise)
    return lp + np.sum(normal_logpdf(TY, slope * TX, noise))


add(VG("r20h_priors_built_inside_super_logpdf", regression_log_post_local, ((1.5, 0.2),), ref="fd", tol=1e-7))
add(H("r20h_priors_built_inside_hessian", lambda t: regression_log_post_local((t[0], t[1])),
      (np.array([1.5, 0.2]),), ref="fd", tol=1e-5))
