"""Round 13, part g: probability and Bayes -- log-sum-exp, softplus, Student-t / Gamma /
Beta log densities with math.lgamma, HMC leapfrog steps, importance weights."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
rng = np.random.default_rng(21)
DATA = rng.standard_t(4, size=10)


def logsumexp(z):
    m = max(z)
    return m + math.log(sum(math.exp(v - m) for v in z))


add(G("r13_logsumexp_python", logsumexp, ([1.0, 2.5, -0.3, 2.5],), ref=lambda: list(
    np.exp(np.array([1.0, 2.5, -0.3, 2.5]) - logsumexp([1.0, 2.5, -0.3, 2.5]))), tol=1e-12))


def softplus(x):
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


XSP = np.array([-30.0, -1.0, 0.0, 3.0, 25.0, 800.0])
add(G("r13_softplus_where_big", lambda x: np.sum(softplus(x)), (XSP,), ref=lambda: np.where(XSP > 20, 1.0, 1 / (1 + np.exp(-XSP))), tol=1e-12))
add(G("r13_logaddexp_softplus", lambda x: np.sum(np.logaddexp(0.0, x)), (XSP,), ref=lambda: 1 / (1 + np.exp(-XSP)), tol=1e-12))


def student_t_logpdf(x, nu, mu, s):
    z = (x - mu) / s
    return (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi) - math.log(s)
            - (nu + 1) / 2 * math.log1p(z * z / nu))


def t_loglik(theta, data=DATA):
    nu, mu, s = theta
    return sum(student_t_logpdf(x, nu, mu, s) for x in data)


TT = np.array([3.5, 0.1, 1.2])
add(VG("r13_student_t_lgamma", t_loglik, (TT,), ref="fd", tol=1e-6))
add(pair("r13_student_t_dnu_digamma", lambda: revsrc.grad(lambda nu: student_t_logpdf(0.7, nu, 0.0, 1.0))(3.5),
         lambda: __import__("scipy.special", fromlist=["x"]).digamma(2.25) / 2 - __import__("scipy.special", fromlist=["x"]).digamma(1.75) / 2
         - 0.5 / 3.5 - 0.5 * math.log1p(0.49 / 3.5) + 2.25 * 0.49 / 3.5 ** 2 / (1 + 0.49 / 3.5), tol=1e-10))


def gamma_logpdf(x, a, b):
    return a * math.log(b) - math.lgamma(a) + (a - 1) * math.log(x) - b * x


def beta_logpdf(x, a, b):
    return math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + (a - 1) * math.log(x) + (b - 1) * math.log1p(-x)


add(G("r13_gamma_logpdf_all", gamma_logpdf, (1.7, 2.5, 0.8), argnums=(0, 1, 2), ref="fd"))
add(G("r13_beta_logpdf_all", beta_logpdf, (0.3, 2.0, 5.0), argnums=(0, 1, 2), ref="fd"))
add(H("r13_beta_logpdf_hessian_ab", lambda ab: beta_logpdf(0.3, ab[0], ab[1]), (np.array([2.0, 5.0]),), ref="fd", tol=1e-5))
add(pair("r13_lgamma_trigamma", lambda: revsrc.grad(revsrc.grad(math.lgamma))(3.2),
         lambda: __import__("scipy.special", fromlist=["x"]).polygamma(1, 3.2), tol=1e-10))


def potential(q):
    return 0.5 * q @ np.array([[2.0, 0.3], [0.3, 0.5]]) @ q + 0.1 * np.sum(q ** 4)


def leapfrog(q, p, eps=0.1, L=10):
    p = p - 0.5 * eps * revsrc.grad(potential)(q)
    for i in range(L):
        q = q + eps * p
        if i < L - 1:
            p = p - eps * revsrc.grad(potential)(q)
    p = p - 0.5 * eps * revsrc.grad(potential)(q)
    return q, p


def hmc_energy_error(q0, p0):
    q, p = leapfrog(q0, p0)
    return potential(q) + 0.5 * p @ p - potential(q0) - 0.5 * p0 @ p0


QH, PH = np.array([0.5, -1.0]), np.array([0.3, 0.8])
add(VG("r13_hmc_leapfrog_energy_error", hmc_energy_error, (QH, PH), argnums=(0, 1), ref="fd"))
add(pair("r13_hmc_leapfrog_jacobian_q", lambda: revsrc.jacfwd(lambda q: leapfrog(q, PH)[0])(QH),
         lambda: fdj(lambda q: leapfrog(q, PH)[0], QH), tol=1e-7))
add(pair("r13_hmc_symplectic_det", lambda: np.linalg.det(revsrc.jacfwd(lambda z: np.concatenate(leapfrog(z[:2], z[2:])))(np.concatenate([QH, PH]))),
         lambda: 1.0, tol=1e-10))


def importance_ess(theta, xs=DATA):
    logw = -0.5 * (xs - theta) ** 2 + 0.5 * xs ** 2 / 4.0
    w = np.exp(logw - np.max(logw))
    w = w / w.sum()
    return 1.0 / np.sum(w ** 2)


add(G("r13_importance_ess", importance_ess, (0.3,), ref="ag", tol=1e-9))


def self_norm_is_mean(theta, xs=DATA):
    logw = -0.5 * (xs - theta) ** 2
    w = np.exp(logw - logsumexp(list(logw)))
    return np.sum(w * xs)


add(VG("r13_self_normalised_is", self_norm_is_mean, (0.3,), ref="fd"))


def mixture_loglik(params, xs=DATA):
    w_logit, m1, m2 = params
    w = 1 / (1 + math.exp(-w_logit))
    total = 0.0
    for x in xs:
        a = math.log(w) - 0.5 * (x - m1) ** 2
        b = math.log1p(-w) - 0.5 * (x - m2) ** 2
        total += max(a, b) + math.log1p(math.exp(-abs(a - b)))
    return total


add(G("r13_mixture_loglik_stable", mixture_loglik, ((0.2, -0.5, 1.0),), ref="fd"))
add(H("r13_mixture_loglik_hessian", lambda p: mixture_loglik(tuple(p)), (np.array([0.2, -0.5, 1.0]),), ref="fd", tol=1e-5))
add(H("r13_mixture_loglik_hessian_data_passed", lambda p: mixture_loglik(tuple(p), DATA), (np.array([0.2, -0.5, 1.0]),), ref="fd", tol=1e-5))


def dirichlet_logpdf(x, alpha):
    return (math.lgamma(np.sum(alpha)) - sum(math.lgamma(a) for a in alpha)
            + np.sum((alpha - 1) * np.log(x)))


add(G("r13_dirichlet_lgamma_sum", dirichlet_logpdf, (np.array([0.2, 0.5, 0.3]), np.array([1.5, 2.0, 3.0])), argnums=(0, 1), ref="fd"))


def laplace_logpdf_abs(x, mu, b):
    return np.sum(-np.abs(x - mu) / b - math.log(2 * b))


add(G("r13_laplace_abs_mu_b", laplace_logpdf_abs, (DATA, 0.1, 1.3), argnums=(1, 2),
      ref=lambda: (np.sum(np.sign(DATA - 0.1)) / 1.3, np.sum(np.abs(DATA - 0.1)) / 1.3 ** 2 - len(DATA) / 1.3), tol=1e-12))
