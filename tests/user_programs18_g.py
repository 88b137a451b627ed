"""Round 18, part g: probabilistic programming -- log densities of many distributions
(normal, Student t, gamma, beta, Dirichlet, von Mises, multivariate normal by
Cholesky), logsumexp mixtures, HMC leapfrog loops, and variational objectives with
the reparameterization trick and a Generator argument."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs7_harness import _as_trees
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

LOG2PI = math.log(2.0 * math.pi)
_r = np.random.default_rng(1801)
YOBS = _r.normal(1.0, 2.0, size=15)
POS = np.abs(_r.normal(2.0, 1.0, size=10)) + 0.1
UNIT = _r.uniform(0.05, 0.95, size=10)


# -- a small library of log densities, as a user would write one ---------------------------

def normal_lpdf(x, mu, sigma):
    z = (x - mu) / sigma
    return -0.5 * z * z - np.log(sigma) - 0.5 * LOG2PI


def student_t_lpdf(x, nu, mu, sigma):
    z = (x - mu) / sigma
    return (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)
            - np.log(sigma) - (nu + 1) / 2 * np.log1p(z * z / nu))


def gamma_lpdf(x, a, b):
    return a * math.log(b) - math.lgamma(a) + (a - 1) * np.log(x) - b * x


def beta_lpdf(x, a, b):
    lbeta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    return (a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - lbeta


def normal_model(theta, y):
    mu, log_s = theta[0], theta[1]
    return np.sum(normal_lpdf(y, mu, np.exp(log_s))) + normal_lpdf(mu, 0.0, 10.0)


TH0 = np.array([0.5, 0.3])
add(G("r18g_normal_model_grad", normal_model, (TH0, YOBS), ref="ag", tol=1e-10))
add(H("r18g_normal_model_hessian", normal_model, (TH0, YOBS), ref="ag", tol=1e-9))


def student_model(params, y):
    nu = math.exp(params["log_nu"]) + 1.0
    return np.sum(student_t_lpdf(y, nu, params["mu"], math.exp(params["log_s"])))


PS = {"log_nu": 1.2, "mu": 0.8, "log_s": 0.4}
add(G("r18g_student_t_dict_params", student_model, (PS, YOBS), ref="fd", tol=1e-7))
add(VG("r18g_student_t_dict_vg", student_model, (PS, YOBS), ref="fd", tol=1e-7))


def gamma_mle(ab, x):
    a, b = np.exp(ab)
    return -np.sum(gamma_lpdf(x, a, b))


add(G("r18g_gamma_mle_unpack_exp", gamma_mle, (np.array([0.7, 0.2]), POS), ref="fd", tol=1e-7))
add(H("r18g_gamma_mle_hessian", gamma_mle, (np.array([0.7, 0.2]), POS), ref="fd", tol=1e-5))


def beta_binomial_post(logit_ab, u):
    a = 1.0 + math.exp(logit_ab[0])
    b = 1.0 + math.exp(logit_ab[1])
    return sum(beta_lpdf(ui, a, b) for ui in u)


add(G("r18g_beta_sum_generator", beta_binomial_post, (np.array([0.3, -0.2]), UNIT), ref="fd", tol=1e-7))


# -- Dirichlet and softmax-parametrised categorical -------------------------------------

def dirichlet_lpdf(p, alpha):
    return (math.lgamma(float(np.sum(alpha))) - sum(math.lgamma(a) for a in alpha)
            + np.sum((alpha - 1.0) * np.log(p)))


def dirichlet_model(log_alpha, P):
    alpha = np.exp(log_alpha)
    return sum(dirichlet_lpdf(p, alpha) for p in P)


PD = _r.dirichlet([2.0, 3.0, 1.5], size=6)
add(G("r18g_dirichlet_lgamma_loop", dirichlet_model, (np.array([0.4, 0.9, 0.1]), PD), ref="fd", tol=1e-7))


# -- von Mises with the Bessel I0 by a series (a while loop with a tolerance) -----------

def log_i0(k):
    term, total, m = 1.0, 1.0, 1
    while term > 1e-17 * total:
        term = term * (k / (2.0 * m)) ** 2
        total = total + term
        m += 1
    return math.log(total)


def vonmises_nll(theta, angles):
    mu, log_k = theta
    k = math.exp(log_k)
    return -np.sum(k * np.cos(angles - mu)) + len(angles) * (math.log(2 * math.pi) + log_i0(k))


ANG = np.array([0.1, 0.4, -0.3, 0.8, 0.2, 0.05, 0.6])
add(G("r18g_vonmises_bessel_while", vonmises_nll, ((0.2, 0.7), ANG), ref="fd", tol=1e-7))
add(H("r18g_vonmises_bessel_while_hessian",
      lambda th, a: vonmises_nll((th[0], th[1]), a), (np.array([0.2, 0.7]), ANG), ref="fd", tol=1e-5))


# -- multivariate normal by Cholesky, L from an unconstrained vector ---------------------

def _fill_tril(v, n):
    L = np.zeros((n, n))
    k = 0
    for i in range(n):
        for j in range(i + 1):
            if i == j:
                L[i, j] = np.exp(v[k])
            else:
                L[i, j] = v[k]
            k += 1
    return L


def mvn_nll(v, X):
    n = X.shape[1]
    L = _fill_tril(v, n)
    Z = np.linalg.solve(L, X.T)
    return 0.5 * np.sum(Z * Z) + X.shape[0] * np.sum(np.log(np.diag(L)))


XM = _r.normal(size=(9, 3)) @ np.array([[1.0, 0.3, 0.0], [0.0, 0.8, 0.2], [0.0, 0.0, 1.1]])
VL = np.array([0.1, 0.2, -0.1, 0.3, 0.05, 0.0])
add(G("r18g_mvn_cholesky_fill_tril", mvn_nll, (VL, XM), ref="fd", tol=1e-7))
add(H("r18g_mvn_cholesky_fill_tril_hessian", mvn_nll, (VL, XM), ref="fd", tol=1e-5))


def mvn_slogdet(v, X):
    L = _fill_tril(v, 3)
    S = L @ L.T
    sign, ld = np.linalg.slogdet(S)
    Si = np.linalg.inv(S)
    return 0.5 * np.einsum("ni,ij,nj->", X, Si, X) + 0.5 * X.shape[0] * ld


add(G("r18g_mvn_slogdet_inv_einsum", mvn_slogdet, (VL, XM), ref="fd", tol=1e-7))


# -- mixtures with logsumexp ---------------------------------------------------------------

def logsumexp(a, axis=None):
    m = np.max(a, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def gmm_ll(params, y):
    logits, mus, log_s = params
    logw = logits - logsumexp(logits)
    comp = normal_lpdf(y[:, None], mus[None, :], np.exp(log_s)[None, :])
    return np.sum(logsumexp(comp + logw[None, :], axis=1))


GP = (np.array([0.1, -0.3, 0.2]), np.array([-1.0, 1.0, 3.0]), np.array([0.0, -0.2, 0.3]))
add(G("r18g_gmm_tuple_params_logsumexp", gmm_ll, (GP, YOBS), ref="jax", tol=1e-9))
add(G("r18g_gmm_wrt_data", gmm_ll, (GP, YOBS), argnums=1, ref="jax", tol=1e-9))


def gmm_ll_loop(w_logits, mus, y):
    K = len(mus)
    total = 0.0
    for yi in y:
        terms = [w_logits[k] + float(normal_lpdf(yi, mus[k], 1.0)) for k in range(K)]
        m = max(terms)
        total += m + math.log(sum(math.exp(t - m) for t in terms))
    return total - len(y) * math.log(sum(math.exp(w) for w in w_logits))


add(G("r18g_gmm_python_max_terms", gmm_ll_loop, (np.array([0.1, 0.4]), np.array([-0.5, 1.5]), YOBS),
      argnums=(0, 1), ref="fd", tol=1e-7))


# zero-inflated Poisson: np.where on the data, logaddexp
CNT = np.array([0, 0, 3, 1, 0, 2, 5, 0, 1, 0])


def zip_nll(theta, y):
    logit_pi, log_lam = theta[0], theta[1]
    lam = np.exp(log_lam)
    log_pi = -np.logaddexp(0.0, -logit_pi)
    log1m_pi = -np.logaddexp(0.0, logit_pi)
    lp0 = np.logaddexp(log_pi, log1m_pi - lam)
    lgam = np.array([math.lgamma(k + 1.0) for k in y])
    lpk = log1m_pi + y * log_lam - lam - lgam
    return -np.sum(np.where(y == 0, lp0, lpk))


add(G("r18g_zero_inflated_poisson", zip_nll, (np.array([-0.4, 0.6]), CNT), ref="fd", tol=1e-7))
add(H("r18g_zero_inflated_poisson_hessian", zip_nll, (np.array([-0.4, 0.6]), CNT), ref="fd", tol=1e-5))


# -- HMC leapfrog: the Hamiltonian after L steps as a function of the start -------------

def U(q):
    # banana-shaped potential
    return 0.5 * q[0] ** 2 + 0.5 * (q[1] - q[0] ** 2) ** 2 * 4.0


gradU = revsrc.grad(U)


def leapfrog(q, p, eps=0.1, L=10):
    p = p - 0.5 * eps * gradU(q)
    for i in range(L):
        q = q + eps * p
        if i != L - 1:
            p = p - eps * gradU(q)
    p = p - 0.5 * eps * gradU(q)
    return q, p


def hmc_energy_error(q0, p0):
    q, p = leapfrog(q0, p0)
    H0 = U(q0) + 0.5 * p0 @ p0
    H1 = U(q) + 0.5 * p @ p
    return H1 - H0


Q0 = np.array([0.3, 0.2])
P0 = np.array([0.5, -0.4])
add(G("r18g_hmc_leapfrog_grad_of_grad", hmc_energy_error, (Q0, P0), ref="fd", tol=1e-7))
add(G("r18g_hmc_leapfrog_wrt_momentum", hmc_energy_error, (Q0, P0), argnums=1, ref="fd", tol=1e-7))


def _U_hand(q):
    return np.array([q[0] - 8.0 * q[0] * (q[1] - q[0] ** 2), 4.0 * (q[1] - q[0] ** 2)])


def hmc_endpoint(eps, q0, p0):
    q, p = q0, p0 - 0.5 * eps * _U_hand(q0)
    for i in range(12):
        q = q + eps * p
        p = p - (eps if i < 11 else 0.5 * eps) * _U_hand(q)
    return q @ q + p @ p


add(G("r18g_hmc_step_size_sensitivity", hmc_endpoint, (0.08, Q0, P0), ref="ag", tol=1e-9))


# -- variational inference with the reparameterization trick -------------------------------

def log_joint(z, y):
    return np.sum(normal_lpdf(y, z, 1.0)) + float(normal_lpdf(z, 0.0, 3.0))


def elbo(lam, y, eps):
    m, log_s = lam
    s = np.exp(log_s)
    total = 0.0
    for e in eps:
        z = m + s * e
        total += log_joint(z, y)
    return total / len(eps) + log_s + 0.5 * (1 + LOG2PI)


EPS = np.random.default_rng(3).normal(size=8)
add(G("r18g_elbo_reparam_fixed_eps", elbo, ((0.5, -0.3), YOBS, EPS), ref="fd", tol=1e-7))


def elbo_rng(lam, y, rng, S=16):
    m, log_s = lam[0], lam[1]
    eps = rng.standard_normal(S)
    z = m + np.exp(log_s) * eps
    ll = np.sum(normal_lpdf(y[None, :], z[:, None], 1.0), axis=1) + normal_lpdf(z, 0.0, 3.0)
    return np.mean(ll) + log_s


def _elbo_rng_ref():
    eps = np.random.default_rng(11).standard_normal(16)
    return fd_checked(lambda lam, y: elbo(lam, y, eps), (np.array([0.5, -0.3]), YOBS))


add(pair("r18g_elbo_generator_argument",
         lambda: revsrc.grad(elbo_rng)(np.array([0.5, -0.3]), YOBS, np.random.default_rng(11)),
         _elbo_rng_ref, tol=1e-6))


def _two_draws():
    rng = np.random.default_rng(5)
    g = revsrc.grad(elbo_rng)
    a = g(np.array([0.5, -0.3]), YOBS, rng)
    b = g(np.array([0.5, -0.3]), YOBS, rng)
    return a, b


def _two_draws_ref():
    rng = np.random.default_rng(5)
    out = []
    for _ in range(2):
        eps = rng.standard_normal(16)
        out.append(fd_checked(lambda lam, y: elbo(lam, y, eps), (np.array([0.5, -0.3]), YOBS)))
    return tuple(out)


add(pair("r18g_elbo_generator_advances", _two_draws, _two_draws_ref, tol=1e-6))


# full-rank Gaussian VI: L lower-triangular via np.tril, entropy by log|diag|
def elbo_fullrank(params, eps, y2):
    mu, Lraw = params["mu"], params["L"]
    L = np.tril(Lraw)
    Z = mu[None, :] + eps @ L.T
    ll = -0.5 * np.sum((Z - y2[None, :]) ** 2, axis=1) - 0.5 * np.sum(Z ** 2, axis=1) / 4.0
    return np.mean(ll) + np.sum(np.log(np.abs(np.diag(L))))


PF = {"mu": np.array([0.1, -0.2]), "L": np.array([[0.8, 0.3], [0.1, 0.6]])}
EPS2 = np.random.default_rng(4).normal(size=(20, 2))
add(G("r18g_fullrank_vi_tril_dict", elbo_fullrank, (PF, EPS2, np.array([1.0, -0.5])), ref="jax", tol=1e-10))


# score-function (REINFORCE) surrogate with stop_gradient
def reinforce_surrogate(theta, u):
    p = 1.0 / (1.0 + np.exp(-theta))
    x = (u < revsrc.stop_gradient(p)).astype(float)
    f = (x - 0.45) ** 2
    logq = x * np.log(p) + (1 - x) * np.log1p(-p)
    return np.mean(revsrc.stop_gradient(f) * logq)


U20 = np.random.default_rng(9).uniform(size=30)


def _reinforce_ref():
    p = 1 / (1 + np.exp(-0.3))
    x = (U20 < p).astype(float)
    f = (x - 0.45) ** 2
    dlogq = x * (1 - p) - (1 - x) * p
    return np.mean(f * dlogq)


add(G("r18g_reinforce_stop_gradient", reinforce_surrogate, (0.3, U20), ref=_reinforce_ref, tol=1e-12))


# edge: log density at a point of zero probability -> -inf, grad nan-free?
def truncated_normal_lpdf(x, mu, lo=0.0):
    if x < lo:
        return -math.inf
    z = mu - lo
    logZ = math.log(0.5 * math.erfc(-z / math.sqrt(2.0)))
    return -0.5 * (x - mu) ** 2 - 0.5 * LOG2PI - logZ


add(G("r18g_truncated_normal_wrt_mu", truncated_normal_lpdf, (0.7, 0.3), argnums=1, ref="fd", tol=1e-7))
add(pair("r18g_truncated_normal_outside_support",
         lambda: revsrc.value_and_grad(truncated_normal_lpdf, argnums=(0, 1))(-0.5, 0.3),
         lambda: (-math.inf, (0.0, 0.0)), tol=0.0))
add(G("r18g_student_t_float32_data", student_model, (PS, YOBS.astype(np.float32)),
      ref=lambda: _as_trees(fd_checked(student_model, (PS, YOBS.astype(np.float32).astype(float))), (PS,), 0),
      tol=1e-4))


# mixture log-likelihood with the log-sum-exp by np.logaddexp.reduce over components
def gmm_ll_reduce(mus, y, logw=np.log(np.array([0.3, 0.7]))):
    total = 0.0
    for yi in y:
        comp = logw - 0.5 * (yi - mus) ** 2 - 0.5 * LOG2PI
        total += np.logaddexp.reduce(comp)
    return total


def _gmm_reduce_ref():
    mus = np.array([-0.5, 1.5])
    logw = np.log(np.array([0.3, 0.7]))
    g = np.zeros(2)
    for yi in YOBS:
        comp = logw - 0.5 * (yi - mus) ** 2
        r = np.exp(comp - np.logaddexp.reduce(comp))
        g += r * (yi - mus)
    return g


add(G("r18g_gmm_logaddexp_reduce", gmm_ll_reduce, (np.array([-0.5, 1.5]), YOBS), ref=_gmm_reduce_ref, tol=1e-10))
add(G("r18g_gmm_logaddexp_accumulate_last", lambda m, y: sum(np.logaddexp.accumulate(
    np.log(np.array([0.3, 0.7])) - 0.5 * (yi - m) ** 2 - 0.5 * LOG2PI)[-1] for yi in y),
    (np.array([-0.5, 1.5]), YOBS), ref=_gmm_reduce_ref, tol=1e-10))
