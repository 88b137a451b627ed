"""User programs, corpus 7b: neural-network building blocks written by hand in NumPy --
stable softmax / logsumexp with keepdims, layer and RMS norm, causal attention with
np.where masks, multi-head reshapes, GELU, label smoothing, embedding lookups with
repeated ids, max pooling by reshape (ties), InfoNCE, triplet margins.  References:
JAX x64 running the same source, autograd, and self-checked central differences."""
import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, jax, jaxify, pair

CASES = []
RNG = np.random.default_rng(7001)


def softmax_rows(z):
    m = np.max(z, axis=-1, keepdims=True)
    e = np.exp(z - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def xent_int_labels(W, X, labels):
    logits = X @ W
    p = softmax_rows(logits)
    return -np.mean(np.log(p[np.arange(X.shape[0]), labels]))


W34 = RNG.normal(size=(3, 4))
X53 = RNG.normal(size=(5, 3))
LAB = np.array([0, 3, 3, 1, 2])
CASES.append(G("r7_xent_fancy_index_labels", xent_int_labels, (W34, X53, LAB), ref="jax", tol=1e-9))


def label_smoothing(W, X, labels, eps=0.1):
    logits = X @ W
    lse = np.log(np.sum(np.exp(logits - logits.max(axis=1, keepdims=True)), axis=1, keepdims=True)) \
        + logits.max(axis=1, keepdims=True)
    logp = logits - lse
    onehot = np.eye(W.shape[1])[labels]
    target = (1.0 - eps) * onehot + eps / W.shape[1]
    return -np.sum(target * logp) / X.shape[0]


CASES.append(G("r7_label_smoothing_eye_rows", label_smoothing, (W34, X53, LAB), ref="jax", tol=1e-9))


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def ln_loss(x, gamma, beta):
    y = layer_norm(x, gamma, beta)
    return np.sum(np.sin(y) * np.arange(1.0, y.size + 1.0).reshape(y.shape))


X46 = RNG.normal(size=(4, 6))
GAM = RNG.normal(size=6)
BET = RNG.normal(size=6)
CASES.append(G("r7_layer_norm_three_args", ln_loss, (X46, GAM, BET), argnums=(0, 1, 2), ref="jax", tol=1e-8))
CASES.append(H("r7_layer_norm_hessian_gamma", ln_loss, (X46, GAM, BET), argnums=1, ref="jax", tol=1e-8))


def rms_norm_loss(x, g):
    r = np.sqrt(np.mean(x * x, axis=1, keepdims=True) + 1e-6)
    return np.sum((x / r * g) ** 3)


CASES.append(G("r7_rms_norm", rms_norm_loss, (X46, GAM), argnums=(0, 1), ref="jax", tol=1e-8))


def causal_attention(Wq, Wk, Wv, X):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    s = Q @ K.T / np.sqrt(Q.shape[1])
    T = X.shape[0]
    mask = np.tril(np.ones((T, T))) > 0
    s = np.where(mask, s, -np.inf)
    a = softmax_rows(s)
    return np.sum((a @ V) ** 2)


WQ, WK, WV = (RNG.normal(size=(3, 2)) for _ in range(3))
CASES.append(G("r7_causal_attention_where_neg_inf", causal_attention, (WQ, WK, WV, X53),
               argnums=(0, 1, 2), ref="jax", tol=1e-8))
CASES.append(G("r7_causal_attention_wrt_input", causal_attention, (WQ, WK, WV, X53),
               argnums=3, ref="jax", tol=1e-8))


def multihead(Wqkv, X, heads=2):
    T, D = X.shape
    qkv = X @ Wqkv                       # T x 3D
    q, k, v = qkv[:, :D], qkv[:, D:2 * D], qkv[:, 2 * D:]
    dh = D // heads
    q = q.reshape(T, heads, dh).transpose(1, 0, 2)
    k = k.reshape(T, heads, dh).transpose(1, 0, 2)
    v = v.reshape(T, heads, dh).transpose(1, 0, 2)
    s = q @ k.transpose(0, 2, 1) / np.sqrt(dh)
    a = np.exp(s - s.max(axis=-1, keepdims=True))
    a = a / a.sum(axis=-1, keepdims=True)
    o = (a @ v).transpose(1, 0, 2).reshape(T, D)
    return np.sum(np.tanh(o))


X54 = RNG.normal(size=(5, 4))
WQKV = RNG.normal(size=(4, 12)) * 0.5
CASES.append(G("r7_multihead_reshape_transpose", multihead, (WQKV, X54), ref="jax", tol=1e-8))
CASES.append(G("r7_multihead_wrt_input", multihead, (WQKV, X54), argnums=1, ref="jax", tol=1e-8))


def gelu_tanh(x):
    return np.sum(0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3))))


CASES.append(G("r7_gelu_tanh_approx", gelu_tanh, (np.linspace(-3, 3, 11),), ref="jax", tol=1e-9))
CASES.append(H("r7_gelu_tanh_hessian", gelu_tanh, (np.linspace(-3, 3, 5),), ref="jax", tol=1e-8))


def embedding_loss(E, ids, w):
    h = E[ids]                       # repeated ids: gradients accumulate
    return np.sum(np.tanh(h @ w))


E64 = RNG.normal(size=(6, 4))
IDS = np.array([1, 4, 1, 1, 0, 5, 4])
W4 = RNG.normal(size=4)
CASES.append(G("r7_embedding_repeated_ids", embedding_loss, (E64, IDS, W4), ref="jax", tol=1e-9))


def embedding_add_at(E, ids, w):
    acc = np.zeros_like(E)
    np.add.at(acc, ids, E[ids] * w)
    return np.sum(acc ** 2)


CASES.append(G("r7_embedding_add_at_scatter", embedding_add_at, (E64, IDS, W4), argnums=(0, 2),
               ref="fd", tol=1e-6))


def maxpool_reshape(x):
    p = x.reshape(3, 2, 2, 2).max(axis=(1, 3))
    return np.sum(p * np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]]))


XP = RNG.normal(size=(6, 4))
CASES.append(G("r7_maxpool_reshape_axis_tuple", maxpool_reshape, (XP,), ref="jax", tol=1e-12))
XTIE = np.ones((6, 4))     # every window a 4-way tie: JAX splits equally
CASES.append(G("r7_maxpool_all_ties_vs_jax", maxpool_reshape, (XTIE,), ref="jax", tol=1e-12))


def info_nce(Z1, Z2, tau=0.5):
    Z1 = Z1 / np.linalg.norm(Z1, axis=1, keepdims=True)
    Z2 = Z2 / np.linalg.norm(Z2, axis=1, keepdims=True)
    S = Z1 @ Z2.T / tau
    lse = np.log(np.sum(np.exp(S), axis=1))
    return np.mean(lse - np.diag(S))


Z1 = RNG.normal(size=(4, 3))
Z2 = Z1 + 0.3 * RNG.normal(size=(4, 3))
CASES.append(G("r7_info_nce_normalized", info_nce, (Z1, Z2), argnums=(0, 1), ref="jax", tol=1e-9))


def triplet(A, P, N, margin=0.5):
    dp = np.sum((A - P) ** 2, axis=1)
    dn = np.sum((A - N) ** 2, axis=1)
    return np.mean(np.maximum(dp - dn + margin, 0.0))


NN = RNG.normal(size=(4, 3))
CASES.append(G("r7_triplet_margin_maximum", triplet, (Z1, Z2, NN), argnums=(0, 1, 2), ref="jax", tol=1e-9))


def dropout_fixed_mask(W, X, mask):
    h = np.maximum(X @ W, 0.0) * mask / 0.8
    return np.sum(h ** 2)


MASK = RNG.random(size=(5, 4)) < 0.8
CASES.append(G("r7_dropout_bool_mask_times", dropout_fixed_mask, (W34, X53, MASK), ref="jax", tol=1e-9))


def batchnorm_train(x, g, b):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    y = g * (x - mu) / np.sqrt(var + 1e-5) + b
    return np.sum(np.maximum(y, 0.1 * y) ** 2)


CASES.append(G("r7_batchnorm_leaky", batchnorm_train, (X46, GAM, BET), argnums=(0, 1, 2), ref="jax", tol=1e-8))


def sinusoid_posenc(x, scale):
    T, D = x.shape
    pos = np.arange(T)[:, None]
    i = np.arange(D // 2)[None, :]
    ang = pos / 10000.0 ** (2.0 * i / D) * scale
    pe = np.concatenate([np.sin(ang), np.cos(ang)], axis=1)
    return np.sum((x + pe) ** 2)


CASES.append(G("r7_positional_encoding_scale", sinusoid_posenc, (X46, 1.3), argnums=(0, 1), ref="jax", tol=1e-9))


def conv1d_sliding(w, x):
    win = np.lib.stride_tricks.sliding_window_view(x, 3)
    return np.sum(np.tanh(win @ w))


CASES.append(G("r7_conv1d_sliding_window_view", conv1d_sliding, (np.array([0.2, -0.5, 0.3]),
                                                                  np.linspace(-1, 2, 9)),
               argnums=(0, 1), ref="fd", tol=1e-7))


def logsumexp_keepdims(z):
    m = np.max(z, axis=0, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(z - m), axis=0, keepdims=True)) + m)


CASES.append(G("r7_logsumexp_axis0_keepdims", logsumexp_keepdims, (X46,), ref="jax", tol=1e-9))
CASES.append(G("r7_logsumexp_ties_in_max", logsumexp_keepdims, (np.array([[1.0, 2.0], [1.0, 0.0]]),),
               ref="jax", tol=1e-12))
CASES.append(JV("r7_jvp_softmax_rows", softmax_rows, (X46,), (np.ones_like(X46),), ref="jax", tol=1e-9))


def per_example_loss(w, x, y):
    return (np.tanh(x @ w) - y) ** 2


YV = RNG.normal(size=5)
CASES.append(pair("r7_vmap_grad_per_example_tanh",
                  lambda: revsrc.vmap(revsrc.grad(per_example_loss), in_axes=(None, 0, 0))(W34[:, 0], X53, YV),
                  lambda: jax().vmap(jax().grad(jaxify(per_example_loss)), in_axes=(None, 0, 0))(W34[:, 0], X53, YV),
                  tol=1e-10))


def big_mlp(w, X):
    W1 = w[:60].reshape(6, 10)
    W2 = w[60:].reshape(10, 1)
    return np.mean(np.tanh(np.tanh(X @ W1) @ W2) ** 2)


CASES.append(GD("r7_flat_param_vector_mlp_dirs", big_mlp, (RNG.normal(size=70) * 0.3, RNG.normal(size=(20, 6)))))
