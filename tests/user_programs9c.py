"""Round 9, statistics and probabilistic code: log densities (normal, Student-t, gamma
and beta through math.lgamma), an HMC leapfrog step, importance weights with a
hand-written logsumexp, Kalman and HMM forward passes, ARMA and GARCH recurrences,
a Gaussian process marginal likelihood with cholesky and solve."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(9)
DATA = _rng.normal(1.0, 2.0, size=25)


def normal_loglik(mu, log_sigma):
    s = math.exp(log_sigma)
    ll = 0.0
    for x in DATA:
        z = (x - mu) / s
        ll += -0.5 * z * z - log_sigma - 0.5 * math.log(2 * math.pi)
    return ll


CASES.append(G("r9_normal_loglik_loop_over_global_array", normal_loglik, (0.5, 0.3), argnums=(0, 1), ref="jax"))


def student_t_logpdf(nu, x=1.7, mu=0.2, sigma=1.3):
    z = (x - mu) / sigma
    return (math.lgamma(0.5 * (nu + 1)) - math.lgamma(0.5 * nu) - 0.5 * math.log(nu * math.pi)
            - math.log(sigma) - 0.5 * (nu + 1) * math.log1p(z * z / nu))


CASES.append(G("r9_student_t_lgamma_wrt_nu", student_t_logpdf, (4.5,), ref="fd", tol=1e-6))


def gamma_loglik(shape, rate):
    xs = np.abs(DATA) + 0.1
    n = len(xs)
    return (n * (shape * math.log(rate) - math.lgamma(shape))
            + (shape - 1) * np.sum(np.log(xs)) - rate * np.sum(xs))


CASES.append(G("r9_gamma_loglik_lgamma_np_mix", gamma_loglik, (2.2, 1.1), argnums=(0, 1), ref="fd", tol=1e-6))


def beta_logpdf(a, b, x=0.3):
    lbeta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    return (a - 1) * math.log(x) + (b - 1) * math.log1p(-x) - lbeta


CASES.append(G("r9_beta_logpdf_lgamma_both", beta_logpdf, (2.5, 3.5), argnums=(0, 1), ref="fd", tol=1e-6))
CASES.append(H("r9_beta_logpdf_hessian", beta_logpdf, (2.5, 3.5), argnums=1, ref="fd", tol=1e-4))


def neg_log_post(q):
    return 0.5 * np.sum(q * q / np.array([1.0, 4.0, 0.25]))


dU = revsrc.grad(neg_log_post)


def hmc_leapfrog(q, p, eps=0.1, L=10):
    p = p - 0.5 * eps * dU(q)
    for i in range(L):
        q = q + eps * p
        if i != L - 1:
            p = p - eps * dU(q)
    p = p - 0.5 * eps * dU(q)
    return neg_log_post(q) + 0.5 * np.sum(p * p)


_q0 = np.array([0.5, -1.0, 0.3])
_p0 = np.array([1.0, 0.2, -0.7])


def _hmc_jax():
    from user_programs6_harness import jax
    jnp = jax().numpy

    def U(q):
        return 0.5 * jnp.sum(q * q / jnp.array([1.0, 4.0, 0.25]))
    gU = jax().grad(U)

    def H_(q, p):
        eps, L = 0.1, 10
        p = p - 0.5 * eps * gU(q)
        for i in range(L):
            q = q + eps * p
            if i != L - 1:
                p = p - eps * gU(q)
        p = p - 0.5 * eps * gU(q)
        return U(q) + 0.5 * jnp.sum(p * p)
    return jax().grad(H_, argnums=(0, 1))(_q0, _p0)


CASES.append(pair("r9_hmc_leapfrog_grad_of_grad_inside",
                  lambda: revsrc.grad(hmc_leapfrog, argnums=(0, 1))(_q0, _p0), _hmc_jax))


def logsumexp(v):
    m = np.max(v)
    return m + np.log(np.sum(np.exp(v - m)))


def importance_estimate(theta):
    xs = np.linspace(-3, 3, 40)
    logp = -0.5 * (xs - theta) ** 2
    logq = -0.5 * xs ** 2 / 4.0
    logw = logp - logq
    w = np.exp(logw - logsumexp(logw))
    return np.sum(w * xs ** 2)


CASES.append(G("r9_importance_weights_logsumexp_helper", importance_estimate, (0.4,), ref="jax"))


def kalman_loglik(q, r=0.5):
    ys = [0.3, 0.8, 0.5, 1.4, 1.1, 1.9, 2.2]
    m, P = 0.0, 1.0
    ll = 0.0
    for y in ys:
        P = P + q
        S = P + r
        K = P / S
        v = y - m
        ll -= 0.5 * (math.log(2 * math.pi * S) + v * v / S)
        m = m + K * v
        P = (1 - K) * P
    return ll


CASES.append(G("r9_kalman_1d_loglik", kalman_loglik, (0.2,), ref="jax"))
CASES.append(G("r9_kalman_1d_loglik_both", kalman_loglik, (0.2, 0.4), argnums=(0, 1), ref="jax"))
CASES.append(H("r9_kalman_1d_hessian", kalman_loglik, (0.2, 0.4), argnums=(0, 1), ref="jax"))


def kalman_2d(log_q):
    A = np.array([[1.0, 1.0], [0.0, 1.0]])
    Hm = np.array([[1.0, 0.0]])
    Q = np.exp(log_q) * np.eye(2)
    R = np.array([[0.3]])
    m = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for y in [0.1, 0.5, 1.2, 2.1, 2.9, 4.2]:
        m = A @ m
        P = A @ P @ A.T + Q
        S = Hm @ P @ Hm.T + R
        K = P @ Hm.T @ np.linalg.inv(S)
        v = y - Hm @ m
        ll = ll - 0.5 * (np.log(np.linalg.det(S)) + v @ np.linalg.solve(S, v))
        m = m + K @ v
        P = (np.eye(2) - K @ Hm) @ P
    return ll


CASES.append(G("r9_kalman_2d_constant_velocity", kalman_2d, (-1.0,), ref="jax"))


def hmm_forward(log_trans_bias):
    T = np.array([[0.9, 0.1], [0.2, 0.8]])
    T = T * np.exp(np.array([[log_trans_bias, 0.0], [0.0, 0.0]]))
    T = T / T.sum(axis=1, keepdims=True)
    E = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    obs = [0, 0, 2, 1, 2, 2, 0]
    alpha = np.array([0.5, 0.5]) * E[:, obs[0]]
    logz = 0.0
    for o in obs[1:]:
        alpha = (alpha @ T) * E[:, o]
        c = alpha.sum()
        logz += np.log(c)
        alpha = alpha / c
    return logz + np.log(alpha.sum())


CASES.append(G("r9_hmm_forward_scaled", hmm_forward, (0.3,), ref="jax"))


def hmm_log_space(E):
    logT = np.log(np.array([[0.85, 0.15], [0.3, 0.7]]))
    logE = np.log(E)
    obs = np.array([1, 0, 0, 1, 1])
    la = np.log(0.5) + logE[:, obs[0]]
    for t in range(1, len(obs)):
        la = logsumexp_cols(la[:, None] + logT) + logE[:, obs[t]]
    return logsumexp_cols(la[:, None])[0]


def logsumexp_cols(M):
    m = np.max(M, axis=0)
    return m + np.log(np.sum(np.exp(M - m), axis=0))


CASES.append(G("r9_hmm_log_space_wrt_emissions", hmm_log_space,
               (np.array([[0.6, 0.4], [0.2, 0.8]]),), ref="jax"))


def arma11_css(phi, theta):
    y = DATA
    e_prev = 0.0
    y_prev = 0.0
    s = 0.0
    for t in range(len(y)):
        e = y[t] - phi * y_prev - theta * e_prev
        s += e * e
        e_prev, y_prev = e, y[t]
    return s / len(y)


CASES.append(G("r9_arma11_conditional_ss", arma11_css, (0.3, -0.2), argnums=(0, 1), ref="jax"))


def garch11_nll(params):
    omega, alpha, beta = params
    r = DATA - np.mean(DATA)
    s2 = np.var(r)
    nll = 0.0
    for t in range(1, len(r)):
        s2 = omega + alpha * r[t - 1] ** 2 + beta * s2
        nll += 0.5 * (np.log(s2) + r[t] ** 2 / s2)
    return nll


CASES.append(G("r9_garch11_nll_tuple_unpack", garch11_nll, ((0.2, 0.1, 0.8),), ref="jax"))
CASES.append(G("r9_garch11_nll_array_unpack", garch11_nll, (np.array([0.2, 0.1, 0.8]),), ref="jax"))


def gp_nll(log_ell, log_sf, X=np.linspace(0, 5, 12)):
    y = np.sin(X) + 0.1 * np.cos(3 * X)
    d = X[:, None] - X[None, :]
    K = np.exp(2 * log_sf) * np.exp(-0.5 * d * d / np.exp(2 * log_ell)) + 1e-2 * np.eye(len(X))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(X) * np.log(2 * np.pi)


CASES.append(G("r9_gp_nll_cholesky_solve", gp_nll, (0.1, 0.2), argnums=(0, 1), ref="jax"))
CASES.append(H("r9_gp_nll_hessian", gp_nll, (0.1, 0.2), argnums=(0, 1), ref="jax", tol=1e-5))


def gp_nll_slogdet(log_ell):
    X = np.linspace(0, 3, 8)
    y = np.cos(X)
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2 / np.exp(2 * log_ell)) + 0.05 * np.eye(8)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


CASES.append(G("r9_gp_nll_slogdet", gp_nll_slogdet, (0.0,), ref="jax"))


def mixture_free_logistic_reg(w):
    X = np.column_stack([np.ones(25), DATA, DATA ** 2 / 10])
    y = (DATA > 1.0).astype(float)
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(w * w)


CASES.append(G("r9_logistic_regression_logaddexp", mixture_free_logistic_reg, (np.array([0.1, -0.2, 0.3]),), ref="jax"))
CASES.append(H("r9_logistic_regression_hessian", mixture_free_logistic_reg, (np.array([0.1, -0.2, 0.3]),), ref="jax"))


def poisson_loglik(log_rate):
    counts = [3, 0, 2, 5, 1]
    lam = math.exp(log_rate)
    return sum(k * log_rate - lam - math.lgamma(k + 1) for k in counts)


CASES.append(G("r9_poisson_generator_lgamma_of_int", poisson_loglik, (0.5,),
               ref=lambda: 11 - 5 * math.exp(0.5), tol=1e-10))


def ar1_stationary_ll(phi, sigma=1.0):
    y = DATA[:10]
    ll = -0.5 * math.log(2 * math.pi * sigma ** 2 / (1 - phi ** 2)) - 0.5 * y[0] ** 2 * (1 - phi ** 2) / sigma ** 2
    resid = y[1:] - phi * y[:-1]
    ll += np.sum(-0.5 * np.log(2 * np.pi * sigma ** 2) - 0.5 * resid ** 2 / sigma ** 2)
    return ll


CASES.append(G("r9_ar1_exact_likelihood", ar1_stationary_ll, (0.4,), ref="jax"))


def bayes_update_beta(a0):
    flips = [1, 0, 1, 1, 0, 1]
    a, b = a0, 1.0
    for f in flips:
        if f:
            a += 1
        else:
            b += 1
    return a / (a + b)


CASES.append(G("r9_beta_bernoulli_conjugate_int_branch", bayes_update_beta, (2.0,),
               ref=lambda: 3.0 / 81.0, tol=1e-10))
