"""Round 16, part e: ML -- mixture density networks, Gaussian NLL with learned variance,
triplet and contrastive losses with np.maximum, batchnorm in training mode, masked
attention, Gaussian process regression with cholesky / solve / slogdet and hessians in the
hyperparameters."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(16)
XN = rng.normal(size=(6, 3))
YN = rng.normal(size=6)


def mdn_nll(W, x=XN, y=YN, K=2):
    h = np.tanh(x @ W[:, :4])
    logits = h @ W[:K, 4:4 + K].T if False else h[:, :K] * 1.5
    mu = h[:, K:2 * K] * 2.0
    logs = 0.1 * h[:, :K]
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logpi = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    comp = logpi - 0.5 * ((y[:, None] - mu) / np.exp(logs)) ** 2 - logs - 0.5 * math.log(2 * math.pi)
    m = np.max(comp, axis=1, keepdims=True)
    return -np.sum(m[:, 0] + np.log(np.sum(np.exp(comp - m), axis=1)))


W0 = rng.normal(size=(3, 4)) * 0.5
add(VG("r16_mdn_logsumexp_vg", mdn_nll, (W0,), ref="ag", tol=1e-10))
add(H("r16_mdn_hessian", mdn_nll, (W0,), ref="ag", tol=1e-8))


def gauss_nll_learned_var(theta, x=XN[:, 0], y=YN):
    mu = theta[0] + theta[1] * x
    log_var = theta[2] + theta[3] * x
    return 0.5 * np.mean(log_var + (y - mu) ** 2 / np.exp(log_var))


TH4 = np.array([0.1, 0.5, -0.3, 0.2])
add(VG("r16_gauss_nll_learned_var_vg", gauss_nll_learned_var, (TH4,), ref="ag", tol=1e-12))
add(pair("r16_gauss_nll_jacrev_grad", lambda: revsrc.jacrev(revsrc.grad(gauss_nll_learned_var))(TH4),
         lambda: ag()[0].hessian(agify(gauss_nll_learned_var))(TH4), tol=1e-10))


def triplet_loss(E, margin=0.5):
    a, p, n = E[0::3], E[1::3], E[2::3]
    dp = np.sum((a - p) ** 2, axis=1)
    dn = np.sum((a - n) ** 2, axis=1)
    return np.mean(np.maximum(dp - dn + margin, 0.0))


EMB = rng.normal(size=(6, 4))
add(VG("r16_triplet_np_maximum_strided_vg", triplet_loss, (EMB,), ref="ag", tol=1e-12))


def contrastive(z, labels, margin=1.0):
    loss = 0.0
    n = z.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = np.linalg.norm(z[i] - z[j])
            if labels[i] == labels[j]:
                loss += d ** 2
            else:
                loss += max(margin - d, 0.0) ** 2
    return loss / (n * (n - 1) / 2)


Z5 = rng.normal(size=(5, 2)) * 0.6
LAB = [0, 1, 0, 1, 1]
add(VG("r16_contrastive_pairs_norm_max_vg", contrastive, (Z5, LAB), ref="ag", tol=1e-10))


def batchnorm_train(x, gamma, beta, eps=1e-5):
    mu = np.mean(x, axis=0)
    var = np.var(x, axis=0)
    xh = (x - mu) / np.sqrt(var + eps)
    return gamma * xh + beta


def bn_loss(x, gamma, beta):
    out = batchnorm_train(x, gamma, beta)
    return np.sum(np.tanh(out) * np.arange(out.size).reshape(out.shape))


G3, B3 = np.array([1.0, 0.5, 2.0]), np.array([0.0, 0.1, -0.2])
add(VG("r16_batchnorm_train_vg_all", bn_loss, (XN, G3, B3), argnums=(0, 1, 2), ref="ag", tol=1e-10))
add(pair("r16_batchnorm_jacrev_x", lambda: revsrc.jacrev(batchnorm_train)(XN[:3, :2], G3[:2], B3[:2]),
         lambda: ag()[0].jacobian(agify(batchnorm_train))(XN[:3, :2], G3[:2], B3[:2]), tol=1e-9))


def masked_attention(Wq, X, mask):
    Q = X @ Wq
    S = Q @ X.T / math.sqrt(X.shape[1])
    S = np.where(mask, S, -1e9)
    S = S - np.max(S, axis=-1, keepdims=True)
    A = np.exp(S)
    A = A / np.sum(A, axis=-1, keepdims=True)
    return np.sum((A @ X) ** 2)


MASK = np.tril(np.ones((6, 6), dtype=bool))
WQ = rng.normal(size=(3, 3)) * 0.3
add(VG("r16_causal_attention_mask_vg", masked_attention, (WQ, XN, MASK), argnums=(0, 1), ref="ag", tol=1e-10))
add(pair("r16_causal_attention_hvp", lambda: revsrc.hvp(masked_attention, (WQ, XN, MASK), (np.ones((3, 3)), None, None)),
         lambda: fdj(lambda w: ag()[0].grad(agify(masked_attention))(w.reshape(3, 3), XN, MASK).ravel(), WQ.ravel()).dot(np.ones(9)).reshape(3, 3),
         tol=1e-6))

XG = np.linspace(0.0, 2.0, 5)
YG = np.sin(3 * XG)


def gp_nlml(logh):
    ell, sf, sn = np.exp(logh)
    D = XG[:, None] - XG[None, :]
    K = sf ** 2 * np.exp(-0.5 * D ** 2 / ell ** 2) + (sn ** 2 + 1e-8) * np.eye(XG.shape[0])
    L = np.linalg.cholesky(K)
    a = np.linalg.solve(L.T, np.linalg.solve(L, YG))
    return 0.5 * YG @ a + np.sum(np.log(np.diag(L))) + 0.5 * XG.shape[0] * math.log(2 * math.pi)


def gp_nlml_slogdet(logh):
    ell, sf, sn = np.exp(logh)
    D = XG[:, None] - XG[None, :]
    K = sf ** 2 * np.exp(-0.5 * D ** 2 / ell ** 2) + (sn ** 2 + 1e-8) * np.eye(XG.shape[0])
    s, ld = np.linalg.slogdet(K)
    return 0.5 * YG @ np.linalg.solve(K, YG) + 0.5 * ld + 0.5 * XG.shape[0] * math.log(2 * math.pi)


LH = np.log(np.array([0.5, 1.0, 0.1]))
add(VG("r16_gp_cholesky_vg", gp_nlml, (LH,), ref="ag", tol=1e-9))
add(H("r16_gp_cholesky_hessian_hyper", gp_nlml, (LH,), ref="ag", tol=1e-7))
add(H("r16_gp_slogdet_hessian_hyper", gp_nlml_slogdet, (LH,), ref="ag", tol=1e-7))
add(pair("r16_gp_slogdet_jacrev_grad", lambda: revsrc.jacrev(revsrc.grad(gp_nlml_slogdet))(LH),
         lambda: ag()[0].hessian(agify(gp_nlml_slogdet))(LH), tol=1e-7))
add(pair("r16_gp_chol_equals_slogdet_value", lambda: revsrc.value_and_grad(gp_nlml)(LH)[0],
         lambda: gp_nlml_slogdet(LH), tol=1e-9))


def gp_predict_mean(logh, xs):
    ell, sf, sn = np.exp(logh)
    k = lambda a, b: sf ** 2 * np.exp(-0.5 * (a[:, None] - b[None, :]) ** 2 / ell ** 2)  # noqa: E731
    K = k(XG, XG) + sn ** 2 * np.eye(5)
    return k(xs, XG) @ np.linalg.solve(K, YG)


XS = np.array([0.3, 1.1, 1.7])
add(pair("r16_gp_predict_jacfwd_hyper_lambda", lambda: revsrc.jacfwd(gp_predict_mean)(LH, XS),
         lambda: ag()[0].jacobian(agify(gp_predict_mean))(LH, XS), tol=1e-9))
add(pair("r16_gp_predict_jacrev_xs", lambda: revsrc.jacrev(gp_predict_mean, argnums=1)(LH, XS),
         lambda: ag()[0].jacobian(agify(gp_predict_mean), 1)(LH, XS), tol=1e-9))
add(pair("r16_gp_vmap_over_hypers", lambda: revsrc.vmap(gp_nlml_slogdet)(np.stack([LH, LH + 0.1, LH - 0.2])),
         lambda: np.array([gp_nlml_slogdet(v) for v in (LH, LH + 0.1, LH - 0.2)]), tol=1e-12))
add(pair("r16_gp_vmap_grad_over_hypers", lambda: revsrc.vmap(revsrc.grad(gp_nlml))(np.stack([LH, LH + 0.1])),
         lambda: np.array([ag()[0].grad(agify(gp_nlml))(v) for v in (LH, LH + 0.1)]), tol=1e-9))
add(pair("r16_gp_slogdet_backend_jax_hessian", lambda: revsrc.hessian(gp_nlml_slogdet, backend="jax")(LH),
         lambda: ag()[0].hessian(agify(gp_nlml_slogdet))(LH), tol=1e-7))
