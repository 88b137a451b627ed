"""Round 10, machine learning beyond MLPs: a GMM EM step's log-likelihood, factor
analysis and probabilistic PCA log densities, matrix factorisation with L2 and ALS-style
updates, BPR and pairwise hinge ranking losses, ListNet, InfoNCE/NT-Xent contrastive
losses, triplet loss, layer norm and RMS norm, a single-head transformer block with a
causal mask, label smoothing, focal loss, as ML people write them."""
import math

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1004)
X = rng.normal(size=(12, 3))


def logsumexp(a, axis=None):
    m = np.max(a, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def gmm_loglik(means, log_vars, logits, X):
    k = means.shape[0]
    lw = logits - logsumexp(logits)
    comp = []
    for j in range(k):
        var = np.exp(log_vars[j])
        d = X - means[j]
        lp = -0.5 * np.sum(d * d / var, axis=1) - 0.5 * np.sum(np.log(2 * np.pi * var))
        comp.append(lp + lw[j])
    L = np.stack(comp, axis=1)
    return np.sum(logsumexp(L, axis=1))


MU = rng.normal(size=(3, 3))
LV = 0.1 * rng.normal(size=(3, 3))
LG = rng.normal(size=3)
CASES.append(G("r10_gmm_loglik_means", gmm_loglik, (MU, LV, LG, X), argnums=(0, 1, 2), ref="jax"))


def em_step_then_loglik(means, X, var=1.0):
    # E step with equal weights, M step for means, then the log-likelihood
    d2 = np.sum((X[:, None, :] - means[None, :, :]) ** 2, axis=2)
    logr = -0.5 * d2 / var
    r = np.exp(logr - logsumexp(logr, axis=1)[:, None])
    new_means = (r.T @ X) / np.sum(r, axis=0)[:, None]
    d2n = np.sum((X[:, None, :] - new_means[None, :, :]) ** 2, axis=2)
    return np.sum(logsumexp(-0.5 * d2n / var, axis=1))


CASES.append(G("r10_gmm_em_step_means", em_step_then_loglik, (MU, X), ref="jax"))


def factor_analysis_nll(W, log_psi, X):
    n, d = X.shape
    C = W @ W.T + np.diag(np.exp(log_psi))
    L = np.linalg.cholesky(C)
    Z = np.linalg.solve(L, X.T)
    return 0.5 * np.sum(Z * Z) + n * np.sum(np.log(np.diag(L))) + 0.5 * n * d * math.log(2 * math.pi)


CASES.append(G("r10_factor_analysis_cholesky", factor_analysis_nll, (rng.normal(size=(3, 2)), np.zeros(3), X),
               argnums=(0, 1), ref="jax"))


def ppca_slogdet(W, s2, X):
    C = W @ W.T + s2 * np.eye(W.shape[0])
    sign, logdet = np.linalg.slogdet(C)
    S = X.T @ X / X.shape[0]
    return logdet + np.trace(np.linalg.inv(C) @ S)


CASES.append(G("r10_ppca_slogdet_inv", ppca_slogdet, (rng.normal(size=(3, 2)), 0.5, X), argnums=(0, 1), ref="jax"))

R_OBS = rng.uniform(1, 5, size=(6, 5))
MASK = rng.uniform(size=(6, 5)) < 0.6


def mf_loss(U, V, R, mask, lam=0.1):
    pred = U @ V.T
    err = np.where(mask, R - pred, 0.0)
    return np.sum(err ** 2) + lam * (np.sum(U ** 2) + np.sum(V ** 2))


CASES.append(G("r10_matrix_factorisation_masked", mf_loss, (rng.normal(size=(6, 2)), rng.normal(size=(5, 2)), R_OBS, MASK),
               argnums=(0, 1), ref="jax"))


def mf_bool_index(U, V, R, mask):
    pred = U @ V.T
    return np.mean((R[mask] - pred[mask]) ** 2)


CASES.append(G("r10_matrix_factorisation_bool_index", mf_bool_index,
               (rng.normal(size=(6, 2)), rng.normal(size=(5, 2)), R_OBS, MASK), argnums=(0, 1)))


def als_then_loss(U, R, lam=0.5):
    # one ALS half-step: V = R^T U (U^T U + lam I)^-1, then the reconstruction loss
    k = U.shape[1]
    V = np.linalg.solve(U.T @ U + lam * np.eye(k), U.T @ R).T
    return np.sum((R - U @ V.T) ** 2)


CASES.append(G("r10_als_half_step_solve", als_then_loss, (rng.normal(size=(6, 2)), R_OBS), ref="jax"))

USERS = np.array([0, 1, 2, 0, 3, 1])
POS = np.array([1, 2, 0, 3, 4, 4])
NEG = np.array([4, 0, 3, 2, 1, 3])


def bpr_loss(U, V):
    xui = np.sum(U[USERS] * V[POS], axis=1)
    xuj = np.sum(U[USERS] * V[NEG], axis=1)
    return -np.sum(np.log(1.0 / (1.0 + np.exp(-(xui - xuj)))))


CASES.append(G("r10_bpr_fancy_index_rows", bpr_loss, (rng.normal(size=(4, 3)), rng.normal(size=(5, 3))),
               argnums=(0, 1), ref="jax"))


def pairwise_hinge(scores, rel):
    loss = 0.0
    n = len(scores)
    for i in range(n):
        for j in range(n):
            if rel[i] > rel[j]:
                loss += max(0.0, 1.0 - (scores[i] - scores[j]))
    return loss


CASES.append(G("r10_pairwise_hinge_ranking", pairwise_hinge, (rng.normal(size=6), np.array([3, 1, 2, 0, 2, 1])), ref="ag"))


def listnet(scores, rel):
    p_true = np.exp(rel) / np.sum(np.exp(rel))
    log_p = scores - logsumexp(scores)
    return -np.sum(p_true * log_p)


CASES.append(G("r10_listnet_softmax_ce", listnet, (rng.normal(size=6), rng.normal(size=6)), ref="jax"))


def info_nce(za, zb, tau=0.2):
    za = za / np.linalg.norm(za, axis=1, keepdims=True)
    zb = zb / np.linalg.norm(zb, axis=1, keepdims=True)
    logits = za @ zb.T / tau
    lse = logsumexp(logits, axis=1)
    return np.mean(lse - np.diag(logits))


ZA = rng.normal(size=(5, 4))
ZB = ZA + 0.3 * rng.normal(size=(5, 4))
CASES.append(G("r10_info_nce_normalised", info_nce, (ZA, ZB), argnums=(0, 1), ref="jax"))


def nt_xent(z, tau=0.5):
    n2 = z.shape[0]
    zn = z / np.sqrt(np.sum(z * z, axis=1))[:, None]
    sim = zn @ zn.T / tau
    sim = sim - 1e9 * np.eye(n2)
    idx = np.arange(n2)
    partner = (idx + n2 // 2) % n2
    return np.mean(logsumexp(sim, axis=1) - sim[idx, partner])


CASES.append(G("r10_nt_xent_self_masked", nt_xent, (np.vstack([ZA, ZB]),), ref="jax"))


def triplet(anchor, pos, neg, margin=1.0):
    dp = np.sum((anchor - pos) ** 2, axis=1)
    dn = np.sum((anchor - neg) ** 2, axis=1)
    return np.mean(np.maximum(dp - dn + margin, 0.0))


CASES.append(G("r10_triplet_margin", triplet, (ZA, ZB, ZB[::-1]), argnums=(0, 1, 2), ref="jax"))


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def ln_loss(x, gamma, beta):
    return np.sum(np.tanh(layer_norm(x, gamma, beta)) * np.arange(x.shape[-1]))


CASES.append(G("r10_layer_norm_all", ln_loss, (X, np.ones(3) * 1.1, np.zeros(3) + 0.1), argnums=(0, 1, 2), ref="jax"))
CASES.append(H("r10_layer_norm_hessian_gamma", ln_loss, (X, np.ones(3) * 1.1, np.zeros(3) + 0.1), argnums=1, ref="jax"))


def rms_norm_loss(x, g):
    r = np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + 1e-6)
    y = x / r * g
    return np.sum(y ** 3)


CASES.append(G("r10_rms_norm", rms_norm_loss, (X, np.array([0.5, 1.0, 1.5])), argnums=(0, 1), ref="jax"))


def softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def transformer_block(params, x):
    Wq, Wk, Wv, Wo, W1, W2 = params
    T, d = x.shape
    h = layer_norm(x, 1.0, 0.0)
    q, k, v = h @ Wq, h @ Wk, h @ Wv
    s = q @ k.T / math.sqrt(d)
    causal = np.triu(np.ones((T, T)), k=1).astype(bool)
    s = np.where(causal, -np.inf, s)
    a = softmax(s) @ v
    x = x + a @ Wo
    h2 = layer_norm(x, 1.0, 0.0)
    x = x + np.maximum(h2 @ W1, 0.0) @ W2
    return np.sum(x[-1] ** 2)


D = 4
PARAMS = tuple(0.4 * rng.normal(size=s) for s in [(D, D)] * 4 + [(D, 8), (8, D)])
XT = rng.normal(size=(5, D))
CASES.append(G("r10_transformer_block_causal", transformer_block, (PARAMS, XT), ref="jax"))
CASES.append(G("r10_transformer_block_input", transformer_block, (PARAMS, XT), argnums=1, ref="jax"))


def label_smoothing_ce(logits, y, eps=0.1):
    n, k = logits.shape
    logp = logits - logsumexp(logits, axis=1)[:, None]
    onehot = np.eye(k)[y]
    target = (1 - eps) * onehot + eps / k
    return -np.sum(target * logp) / n


CASES.append(G("r10_label_smoothing_eye_index", label_smoothing_ce, (rng.normal(size=(6, 4)), np.array([0, 3, 1, 2, 2, 0])), ref="jax"))


def focal_loss(logits, y, gamma=2.0):
    p = 1 / (1 + np.exp(-logits))
    pt = np.where(y == 1, p, 1 - p)
    return -np.mean((1 - pt) ** gamma * np.log(pt))


CASES.append(G("r10_focal_loss_where", focal_loss, (rng.normal(size=8), np.array([1, 0, 0, 1, 1, 0, 1, 0])), ref="jax"))


def kl_gaussians(mu, logvar):
    return -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))


CASES.append(G("r10_vae_kl_term", kl_gaussians, (rng.normal(size=5), rng.normal(size=5)), argnums=(0, 1), ref="jax"))


def center_loss(feats, centers, labels):
    return 0.5 * np.sum((feats - centers[labels]) ** 2)


CASES.append(G("r10_center_loss_gather_repeat", center_loss, (X, rng.normal(size=(2, 3)), np.array([0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1])),
               argnums=1, ref="jax"))


def batchnorm_train(x, gamma, beta):
    mu = np.mean(x, axis=0)
    var = np.mean((x - mu) ** 2, axis=0)
    y = gamma * (x - mu) / np.sqrt(var + 1e-5) + beta
    return np.sum(y[:, 0] * y[:, 1]) + np.sum(y[:, 2] ** 4)


CASES.append(G("r10_batchnorm_training_stats", batchnorm_train, (X, np.ones(3), np.zeros(3)), argnums=(0, 1, 2), ref="jax"))
