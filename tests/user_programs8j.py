"""Round 8 user programs, batch j: more whole programs (a Kalman filter, a VAE-style
ELBO with reparameterised noise passed in, Gaussian-process marginal likelihood, a
Poisson GLM by IRLS, a softmax policy gradient, a contrastive loss, a
Metropolis-adjusted step with fixed uniforms, a 2-D Ising mean field, an SIR
epidemic fit, a spline smoother), checked against JAX x64 or self-checked central
differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(89)


def kalman_loglik(q, r, ys):
    m, P = 0.0, 1.0
    ll = 0.0
    for y in ys:
        P = P + q
        S = P + r
        K = P / S
        ll += -0.5 * (math.log(2 * math.pi * S) + (y - m) ** 2 / S)
        m = m + K * (y - m)
        P = (1 - K) * P
    return ll


YK = np.cumsum(rng.normal(size=25) * 0.3) + rng.normal(size=25) * 0.2
add(G("r8_kalman_filter_scalar_loglik", kalman_loglik, (0.1, 0.05, YK), argnums=(0, 1), ref="jax"))
add(H("r8_kalman_filter_hessian_noise", kalman_loglik, (0.1, 0.05, YK), argnums=(0, 1), ref="jax", tol=1e-6))


def vae_elbo(enc, dec, x, eps):
    h = np.tanh(x @ enc["W"])
    mu, logvar = h @ enc["Wm"], h @ enc["Wv"]
    z = mu + np.exp(0.5 * logvar) * eps
    xr = 1 / (1 + np.exp(-(z @ dec["W"])))
    rec = np.sum(x * np.log(xr + 1e-9) + (1 - x) * np.log(1 - xr + 1e-9))
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))
    return (rec - kl) / x.shape[0]


XB = (rng.random(size=(5, 6)) > 0.5).astype(float)
ENC = {"W": rng.normal(size=(6, 4)) * 0.3, "Wm": rng.normal(size=(4, 2)) * 0.3, "Wv": rng.normal(size=(4, 2)) * 0.3}
DEC = {"W": rng.normal(size=(2, 6)) * 0.3}
EPS = rng.normal(size=(5, 2))
add(G("r8_vae_elbo_dict_encoder_decoder", vae_elbo, (ENC, DEC, XB, EPS), argnums=(0, 1), ref="jax"))


def gp_mll(log_ell, log_sf, log_sn, X, y):
    d2 = (X[:, None] - X[None, :]) ** 2
    K = np.exp(2 * log_sf) * np.exp(-0.5 * d2 / np.exp(2 * log_ell)) + np.exp(2 * log_sn) * np.eye(len(X))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return -0.5 * y @ alpha - np.sum(np.log(np.diag(L))) - 0.5 * len(X) * np.log(2 * np.pi)


XGP = np.sort(rng.uniform(-2, 2, 8))
YGP = np.sin(2 * XGP) + 0.1 * rng.normal(size=8)
add(G("r8_gp_marginal_likelihood_cholesky", gp_mll, (-0.3, 0.1, -2.0, XGP, YGP), argnums=(0, 1, 2), ref="jax"))


def poisson_irls(X, y, iters):
    beta = np.zeros(X.shape[1])
    for _ in range(iters):
        eta = X @ beta
        mu = np.exp(eta)
        W = mu
        z = eta + (y - mu) / mu
        beta = np.linalg.solve(X.T @ (W[:, None] * X), X.T @ (W * z))
    return np.sum(beta ** 2)


XPo = np.column_stack([np.ones(12), rng.normal(size=12) * 0.5])
YPo = rng.poisson(np.exp(XPo @ np.array([0.5, 0.8]))).astype(float)
add(G("r8_poisson_irls_wrt_counts", poisson_irls, (XPo, YPo, 6), argnums=1, ref="jax"))


def policy_gradient_surrogate(theta, states, actions, returns):
    logits = states @ theta
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    chosen = logp[np.arange(len(actions)), actions]
    adv = returns - returns.mean()
    return -np.mean(chosen * adv)


ST = rng.normal(size=(9, 3))
AC = rng.integers(0, 4, size=9)
RE = rng.normal(size=9)
add(G("r8_reinforce_surrogate_int_actions", policy_gradient_surrogate, (rng.normal(size=(3, 4)), ST, AC, RE), ref="jax"))


def info_nce(E1, E2, tau):
    a = E1 / np.linalg.norm(E1, axis=1, keepdims=True)
    b = E2 / np.linalg.norm(E2, axis=1, keepdims=True)
    S = a @ b.T / tau
    S = S - S.max(axis=1, keepdims=True)
    return -np.mean(np.diag(S) - np.log(np.exp(S).sum(axis=1)))


add(G("r8_info_nce_normalised_embeddings", info_nce, (rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), 0.2), argnums=(0, 1, 2), ref="jax"))


def mala_step(x, step, noise, u):
    # one Metropolis-adjusted Langevin step on a Gaussian target; the accept is a branch
    def logp(v):
        return -0.5 * np.sum(v ** 2 / np.array([1.0, 4.0]))

    def gradlogp(v):
        return -v / np.array([1.0, 4.0])
    prop = x + step * gradlogp(x) + math.sqrt(2 * step) * noise
    fwd = -np.sum((prop - x - step * gradlogp(x)) ** 2) / (4 * step)
    bwd = -np.sum((x - prop - step * gradlogp(prop)) ** 2) / (4 * step)
    log_a = logp(prop) - logp(x) + bwd - fwd
    if math.log(u) < log_a:
        return np.sum(prop ** 2)
    return np.sum(x ** 2)


add(G("r8_mala_accept_branch_nested_defs", mala_step, (np.array([0.5, -1.0]), 0.3, np.array([0.2, 0.4]), 0.3), argnums=(0, 1)))


def ising_mean_field(J, h, beta, iters):
    m = np.full(len(h), 0.1)
    for _ in range(iters):
        m = np.tanh(beta * (J @ m + h))
    f = -0.5 * m @ J @ m - h @ m
    ent = np.sum((1 + m) / 2 * np.log((1 + m) / 2) + (1 - m) / 2 * np.log((1 - m) / 2))
    return f + ent / beta


JI = rng.normal(size=(5, 5)) * 0.2
JI = (JI + JI.T) / 2
np.fill_diagonal(JI, 0.0)
add(G("r8_ising_mean_field_fixed_point", ising_mean_field, (JI, rng.normal(size=5) * 0.3, 1.2, 25), argnums=(0, 1, 2), ref="jax"))


def sir_fit(beta, gamma, obs):
    S, I, R = 0.99, 0.01, 0.0
    loss = 0.0
    dt = 0.1
    for t in range(len(obs) * 10):
        dS = -beta * S * I
        dI = beta * S * I - gamma * I
        S, I, R = S + dt * dS, I + dt * dI, R + dt * gamma * I
        if t % 10 == 9:
            loss += (I - obs[t // 10]) ** 2
    return loss


OB = np.array([0.02, 0.04, 0.07, 0.11, 0.15, 0.17, 0.16, 0.13])
add(G("r8_sir_epidemic_modulo_observation", sir_fit, (0.6, 0.2, OB), argnums=(0, 1), ref="jax"))
add(pair("r8_sir_jit_grad", lambda: revsrc.jit(revsrc.grad(sir_scalar, argnums=(0, 1)))(0.6, 0.2),
         lambda: fd_checked(sir_scalar, (0.6, 0.2), argnums=(0, 1)), tol=1e-7))


def sir_scalar(beta, gamma):
    S, I = 0.99, 0.01
    peak = 0.0
    for t in range(200):
        dS = -beta * S * I
        dI = beta * S * I - gamma * I
        S, I = S + 0.1 * dS, I + 0.1 * dI
        if I > peak:
            peak = I
    return peak


def smoothing_spline(f, y, lam):
    D2 = np.diff(np.eye(len(y)), n=2, axis=0)
    return np.sum((f - y) ** 2) + lam * np.sum((D2 @ f) ** 2)


YSp = np.sin(np.linspace(0, 3, 10)) + 0.1 * rng.normal(size=10)


def spline_solution(lam):
    n = len(YSp)
    D2 = np.diff(np.eye(n), n=2, axis=0)
    f = np.linalg.solve(np.eye(n) + lam * D2.T @ D2, YSp)
    return np.sum(f ** 2)


add(G("r8_spline_penalty_diff_n2_matrix", smoothing_spline, (YSp * 0.9, YSp, 0.5), argnums=(0, 2), ref="jax"))
add(G("r8_spline_solution_wrt_lambda", spline_solution, (0.5,), ref="jax"))


def ar1_neg_loglik(phi, sigma, x):
    resid = x[1:] - phi * x[:-1]
    n = len(resid)
    return 0.5 * n * np.log(2 * np.pi * sigma ** 2) + np.sum(resid ** 2) / (2 * sigma ** 2)


add(H("r8_ar1_negloglik_hessian", ar1_neg_loglik, (0.6, 0.8, YK), argnums=(0, 1), ref="jax"))


def ridge_path(lams, X, y):
    out = []
    for lam in lams:
        w = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)
        out.append(np.sum(w ** 2))
    return np.sum(np.array(out))


add(G("r8_ridge_path_over_lambda_array", ridge_path, (np.array([0.1, 1.0, 10.0]), ST, RE), ref="jax"))


def beta_binomial_nll(a, b, k, n):
    from scipy.special import gammaln
    ll = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) \
        + gammaln(k + a) + gammaln(n - k + b) - gammaln(n + a + b) \
        + gammaln(a + b) - gammaln(a) - gammaln(b)
    return -np.sum(ll)


add(G("r8_beta_binomial_gammaln", beta_binomial_nll, (2.0, 3.0, np.array([1.0, 4.0, 2.0]), np.array([5.0, 6.0, 4.0])), argnums=(0, 1)))


def student_t_regression(w, log_nu, X, y):
    from scipy.special import gammaln
    nu = np.exp(log_nu)
    r = y - X @ w
    return -np.sum(gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - (nu + 1) / 2 * np.log1p(r ** 2 / nu))


add(G("r8_student_t_regression_gammaln", student_t_regression, (np.array([0.1, 0.2, -0.3]), 1.0, ST, RE), argnums=(0, 1)))
