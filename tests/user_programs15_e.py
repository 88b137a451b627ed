"""Round 15, part e: ML layers -- attention, layernorm, GRU and LSTM cells over 20-40
steps, a VAE ELBO with fixed noise, label smoothing, focal loss, contrastive loss on
pairwise distances."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(1515)


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(params, X):
    Wq, Wk, Wv = params["q"], params["k"], params["v"]
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    A = softmax(Q @ K.T / math.sqrt(Q.shape[1]))
    return np.sum((A @ V) ** 2)


XA = rng.normal(size=(4, 3))
PA = {"q": rng.normal(size=(3, 2)), "k": rng.normal(size=(3, 2)), "v": rng.normal(size=(3, 2))}
add(VG("r15_attention_dict_params", attention, (PA, XA), ref="ag", tol=1e-10))
add(G("r15_attention_wrt_input", attention, (PA, XA), argnums=1, ref="ag", tol=1e-10))


def causal_attention(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    mask = np.triu(np.ones_like(S), k=1).astype(bool)
    S = np.where(mask, -1e9, S)
    A = softmax(S, axis=1)
    return np.sum(A @ X * np.arange(3.0))


add(G("r15_causal_mask_triu_where", causal_attention, (XA, PA["q"], PA["k"]), argnums=(0, 1), ref="ag", tol=1e-10))
add(H("r15_causal_attention_hessian_input", lambda x: causal_attention(x.reshape(4, 3), PA["q"], PA["k"]), (XA.ravel(),), ref="ag", tol=1e-8))


def layernorm(x, gamma, beta, eps=1e-5):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def ln_loss(x, gamma, beta):
    return np.sum(np.tanh(layernorm(x, gamma, beta)) * np.arange(12.0).reshape(4, 3))


GM, BT = np.array([1.0, 0.5, 2.0]), np.array([0.1, 0.0, -0.1])
add(VG("r15_layernorm_keepdims_vg", ln_loss, (XA, GM, BT), argnums=(0, 1, 2), ref="ag", tol=1e-10))
add(pair("r15_layernorm_jacrev_row", lambda: revsrc.jacrev(lambda r: layernorm(r, GM, BT))(XA[0]),
         lambda: ag()[0].jacobian(lambda r: agify(layernorm)(r, GM, BT))(XA[0]), tol=1e-10))
add(pair("r15_layernorm_vmap_jacfwd_rows", lambda: revsrc.vmap(revsrc.jacfwd(lambda r: layernorm(r, GM, BT)))(XA),
         lambda: np.stack([ag()[0].jacobian(lambda r: agify(layernorm)(r, GM, BT))(XA[i]) for i in range(4)]), tol=1e-10))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gru_loss(P, xs, h0):
    h = h0
    loss = 0.0
    for t in range(xs.shape[0]):
        x = xs[t]
        z = sigmoid(P["Wz"] @ x + P["Uz"] @ h)
        r = sigmoid(P["Wr"] @ x + P["Ur"] @ h)
        hc = np.tanh(P["Wh"] @ x + P["Uh"] @ (r * h))
        h = (1 - z) * h + z * hc
        loss = loss + np.sum(h) ** 2 / (t + 1)
    return loss


HS, XS = 3, 2
PG = {k: 0.5 * rng.normal(size=(HS, XS if k[0] == "W" else HS)) for k in ("Wz", "Uz", "Wr", "Ur", "Wh", "Uh")}
XSEQ = rng.normal(size=(25, XS))
H0 = np.zeros(HS)
add(VG("r15_gru_25_steps_vg", gru_loss, (PG, XSEQ, H0), ref="ag", tol=1e-10))
add(G("r15_gru_wrt_inputs", gru_loss, (PG, XSEQ, H0), argnums=1, ref="ag", tol=1e-10))
add(SAME("r15_gru_grad_same_bits", lambda: revsrc.grad(gru_loss)(PG, XSEQ, H0)))
add(pair("r15_gru_memory_bound_equals_stored", lambda: revsrc.grad(gru_loss, memory=4096)(PG, XSEQ, H0),
         lambda: revsrc.grad(gru_loss)(PG, XSEQ, H0), tol=0.0))


def lstm_last(params, xs):
    W, b = params
    h = np.zeros(2)
    c = np.zeros(2)
    for x in xs:
        g = W @ np.concatenate([x, h]) + b
        i, f, o, u = sigmoid(g[0:2]), sigmoid(g[2:4]), sigmoid(g[4:6]), np.tanh(g[6:8])
        c = f * c + i * u
        h = o * np.tanh(c)
    return np.sum(h * np.array([1.0, -2.0]))


PL = (0.4 * rng.normal(size=(8, 4)), np.zeros(8))
XL = rng.normal(size=(30, 2))
add(VG("r15_lstm_concatenate_slices", lstm_last, (PL, XL), ref="ag", tol=1e-10))
add(pair("r15_lstm_per_sequence_vmap_grad", lambda: revsrc.vmap(revsrc.grad(lstm_last), in_axes=(None, 0))(PL, np.stack([XL[:10], XL[10:20]])),
         lambda: [np.stack([ag()[0].grad(agify(lstm_last))(PL, s)[k] for s in (XL[:10], XL[10:20])]) for k in (0, 1)], tol=1e-10))


EPS = rng.normal(size=(5, 2))


def elbo(enc, x):
    mu = enc[0] @ x
    logvar = enc[1] @ x
    z = mu + np.exp(0.5 * logvar) * EPS
    recon = -0.5 * np.sum((z @ np.ones((2, 3)) - x) ** 2, axis=1)
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))
    return -(np.mean(recon) - kl)


ENC = (0.3 * rng.normal(size=(2, 3)), 0.3 * rng.normal(size=(2, 3)))
X3 = np.array([0.5, -1.0, 2.0])
add(VG("r15_vae_elbo_fixed_noise", elbo, (ENC, X3), ref="ag", tol=1e-10))
add(G("r15_vae_elbo_wrt_x", elbo, (ENC, X3), argnums=1, ref="ag", tol=1e-10))


def label_smooth_ce(logits, labels, eps=0.1):
    n, k = logits.shape
    onehot = np.zeros((n, k))
    onehot[np.arange(n), labels] = 1.0
    target = onehot * (1 - eps) + eps / k
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(target * logp) / n


LOG = rng.normal(size=(5, 4))
LAB = np.array([0, 3, 1, 1, 2])
add(VG("r15_label_smoothing_fancy_onehot", label_smooth_ce, (LOG, LAB), ref="ag", tol=1e-10))
add(G("r15_label_smoothing_wrt_eps", lambda e: label_smooth_ce(LOG, LAB, e), (0.2,), ref="ag", tol=1e-10))


def focal(logits, y, gamma=2.0, alpha=0.25):
    p = sigmoid(logits)
    pt = np.where(y == 1, p, 1 - p)
    at = np.where(y == 1, alpha, 1 - alpha)
    return np.mean(-at * (1 - pt) ** gamma * np.log(pt))


FL = np.array([2.0, -1.0, 0.3, -3.0, 0.0, 1.5])
FY = np.array([1, 0, 1, 1, 0, 0])
add(VG("r15_focal_loss_where_labels", focal, (FL, FY), ref="ag", tol=1e-10))
add(G("r15_focal_loss_wrt_gamma", lambda g: focal(FL, FY, g), (2.0,), ref="ag", tol=1e-10))


def contrastive(E, same, margin=1.0):
    diff = E[:, None, :] - E[None, :, :]
    d2 = np.sum(diff ** 2, axis=-1)
    iu = np.triu_indices(E.shape[0], k=1)
    d = np.sqrt(d2[iu] + 1e-12)
    s = same[iu]
    return np.mean(s * d ** 2 + (1 - s) * np.maximum(margin - d, 0.0) ** 2)


EMB = rng.normal(size=(4, 2)) * 0.5
SAMEM = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]], dtype=float)
add(VG("r15_contrastive_pairwise_triu_indices", contrastive, (EMB, SAMEM), ref="ag", tol=1e-9))
add(H("r15_contrastive_hessian_flat", lambda e: contrastive(e.reshape(4, 2), SAMEM), (EMB.ravel(),), ref="ag", tol=1e-6))


def mha_heads(Wq, X, heads=2):
    out = 0.0
    d = Wq.shape[1] // heads
    for h in range(heads):
        Q = X @ Wq[:, h * d:(h + 1) * d]
        A = softmax(Q @ Q.T)
        out = out + np.sum(A * A)
    return out


add(G("r15_multihead_slices_loop", mha_heads, (rng.normal(size=(3, 4)), XA), ref="ag", tol=1e-10))
