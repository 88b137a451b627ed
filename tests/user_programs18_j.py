"""Round 18, part j: ML from scratch -- 1-D and 2-D convolutions by slicing and by
writes into an output, max pooling, single-head and masked attention, batch norm and
layer norm, softmax cross-entropy with integer labels, a tiny MLP with params as a list
of (W, b) tuples, per-example gradients with vmap, and Hessian-vector products."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_r = np.random.default_rng(1804)
SIG = _r.normal(size=16)
KER = np.array([0.25, -0.5, 0.3])
IMG = _r.normal(size=(6, 6))
K2 = _r.normal(size=(3, 3)) * 0.5
TOK = _r.normal(size=(5, 4))
LABELS = np.array([2, 0, 1, 2, 1])


# -- convolutions -------------------------------------------------------------------

def conv1d_valid(x, k):
    n = len(x) - len(k) + 1
    return sum(k[j] * x[j:j + n] for j in range(len(k)))


def conv1d_loss(k, x):
    y = conv1d_valid(x, k)
    return np.sum(np.maximum(y, 0.0) ** 2)


add(G("r18j_conv1d_slicing_sum_generator", conv1d_loss, (KER, SIG), ref="jax", tol=1e-10))
add(G("r18j_conv1d_wrt_signal", conv1d_loss, (KER, SIG), argnums=1, ref="jax", tol=1e-10))


def conv2d_out_writes(img, k):
    H_, W_ = img.shape
    kh, kw = k.shape
    out = np.zeros((H_ - kh + 1, W_ - kw + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.sum(img[i:i + kh, j:j + kw] * k)
    return out


def conv2d_pool_loss(k, img):
    y = np.tanh(conv2d_out_writes(img, k))
    # 2x2 max pool by reshape
    p = y.reshape(2, 2, 2, 2).max(axis=(1, 3))
    return np.sum(p ** 2)


add(G("r18j_conv2d_item_writes_maxpool_reshape", conv2d_pool_loss, (K2, IMG), ref="fd", tol=1e-7))


def conv2d_cols(img, k):
    kh, kw = k.shape
    oh, ow = img.shape[0] - kh + 1, img.shape[1] - kw + 1
    out = np.zeros((oh, ow))
    for a in range(kh):
        for b in range(kw):
            out += k[a, b] * img[a:a + oh, b:b + ow]
    return out


add(pair("r18j_conv2d_two_forms_agree", lambda: revsrc.grad(lambda k: np.sum(conv2d_cols(IMG, k) ** 2))(K2),
         lambda: revsrc.grad(lambda k: np.sum(conv2d_out_writes(IMG, k) ** 2))(K2), tol=1e-12))
add(G("r18j_conv2d_cols_inplace_accumulate", lambda k, im: np.sum(np.sin(conv2d_cols(im, k))), (K2, IMG),
      ref="jax", tol=1e-10))


# -- softmax cross-entropy with integer labels ------------------------------------------

def log_softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


def xent(W, X, y):
    lp = log_softmax(X @ W)
    return -np.mean(lp[np.arange(len(y)), y])


W43 = _r.normal(size=(4, 3)) * 0.3
add(G("r18j_softmax_xent_int_labels_fancy_index", xent, (W43, TOK, LABELS), ref="jax", tol=1e-10))
add(H("r18j_softmax_xent_hessian", xent, (W43, TOK, LABELS), ref="jax", tol=1e-9))


def xent_onehot_smooth(W, X, y, eps=0.1):
    C = W.shape[1]
    T = np.full((len(y), C), eps / C)
    T[np.arange(len(y)), y] += 1 - eps
    return -np.sum(T * log_softmax(X @ W)) / len(y)


add(G("r18j_label_smoothing_onehot_write", xent_onehot_smooth, (W43, TOK, LABELS), ref="fd", tol=1e-7))


# -- attention ---------------------------------------------------------------------------

def attention(params, X, causal=False):
    Q = X @ params["Wq"]
    K = X @ params["Wk"]
    V = X @ params["Wv"]
    S = Q @ K.T / math.sqrt(Q.shape[1])
    if causal:
        S = np.where(np.tril(np.ones_like(S)) > 0, S, -1e9)
    A = np.exp(log_softmax(S))
    return A @ V


def attn_loss(params, X, causal=False):
    return np.sum(attention(params, X, causal) ** 2)


PA = {k: _r.normal(size=(4, 4)) * 0.4 for k in ("Wq", "Wk", "Wv")}
add(G("r18j_attention_dict_params", attn_loss, (PA, TOK), ref="jax", tol=1e-10))
add(G("r18j_attention_causal_mask", attn_loss, (PA, TOK, True), ref="jax", tol=1e-10))
add(G("r18j_attention_wrt_tokens_einsum_free", attn_loss, (PA, TOK, True), argnums=1, ref="jax", tol=1e-10))


def multihead(params, X, heads=2):
    T, D = X.shape
    dh = D // heads
    Q = (X @ params["Wq"]).reshape(T, heads, dh).transpose(1, 0, 2)
    K = (X @ params["Wk"]).reshape(T, heads, dh).transpose(1, 0, 2)
    V = (X @ params["Wv"]).reshape(T, heads, dh).transpose(1, 0, 2)
    S = np.einsum("htd,hsd->hts", Q, K) / math.sqrt(dh)
    A = np.exp(log_softmax(S))
    O = np.einsum("hts,hsd->htd", A, V).transpose(1, 0, 2).reshape(T, D)
    return np.sum(np.tanh(O))


add(G("r18j_multihead_einsum_reshape_transpose", multihead, (PA, TOK), ref="jax", tol=1e-10))


# -- batch norm / layer norm ------------------------------------------------------------

def batchnorm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def layernorm(x, gamma, beta, eps=1e-5):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def bn_mlp(W, X, g, b):
    return np.sum(np.tanh(batchnorm(X @ W, g, b)) * np.arange(1.0, 4.0))


add(G("r18j_batchnorm_methods_mean_var", bn_mlp, (W43, TOK, np.ones(3), np.zeros(3)), ref="jax", tol=1e-9))
add(G("r18j_batchnorm_wrt_gamma_beta", bn_mlp, (W43, TOK, np.array([1.0, 0.5, 2.0]), np.zeros(3)),
      argnums=(2, 3), ref="jax", tol=1e-9))
add(G("r18j_layernorm_wrt_input", lambda x, g, b: np.sum(layernorm(x, g, b) ** 3), (TOK, np.ones(4), np.zeros(4)),
      ref="jax", tol=1e-9))


# running statistics updated between calls through an attribute
class BN:
    def __init__(self, n, momentum=0.9):
        self.running_mean = np.zeros(n)
        self.momentum = momentum

    def loss(self, W, X):
        h = X @ W
        mu = h.mean(axis=0)
        out = (h - mu) / np.sqrt(h.var(axis=0) + 1e-5)
        return np.sum(out ** 2 * np.array([1.0, 2.0, 3.0])) + np.sum(mu * self.running_mean)


def _bn_stateful():
    bn = BN(3)
    g = revsrc.grad(bn.loss)
    outs = []
    for _ in range(2):
        outs.append(g(W43, TOK))
        bn.running_mean = 0.9 * bn.running_mean + 0.1 * (TOK @ W43).mean(axis=0)
    return outs


def _bn_stateful_ref():
    bn = BN(3)
    outs = []
    for _ in range(2):
        outs.append(jax().grad(jaxify(lambda W, X, rm: BN.loss.__get__(bn)(W, X)))(W43, TOK, 0.0)
                    if False else fd_checked(bn.loss, (W43, TOK))[0])
        bn.running_mean = 0.9 * bn.running_mean + 0.1 * (TOK @ W43).mean(axis=0)
    return outs


add(pair("r18j_bn_running_mean_attribute_rebound", _bn_stateful, _bn_stateful_ref, tol=1e-6))


# -- tiny MLP with a list of (W, b) tuples; per-example grads with vmap ---------------------

def mlp(params, x):
    h = x
    for i, (W, b) in enumerate(params):
        h = h @ W + b
        if i < len(params) - 1:
            h = np.maximum(h, 0.0) + 0.01 * np.minimum(h, 0.0)
    return h


def mlp_loss(params, x, y):
    out = mlp(params, x)
    return 0.5 * np.sum((out - y) ** 2)


MP = [(_r.normal(size=(4, 5)) * 0.5, np.zeros(5)), (_r.normal(size=(5, 2)) * 0.5, np.full(2, 0.1))]
YM = _r.normal(size=(5, 2))
add(G("r18j_mlp_list_of_tuples_leaky_relu", mlp_loss, (MP, TOK, YM), ref="jax", tol=1e-10))


def _per_example_ref():
    j = jax()
    return j.vmap(j.grad(jaxify(mlp_loss)), in_axes=(None, 0, 0))(MP, TOK, YM)


add(pair("r18j_per_example_grads_vmap_in_axes_none",
         lambda: revsrc.vmap(revsrc.grad(mlp_loss), in_axes=(None, 0, 0))(MP, TOK, YM),
         _per_example_ref, tol=1e-10))


def _per_example_norms():
    gs = revsrc.vmap(revsrc.grad(mlp_loss), in_axes=(None, 0, 0))(MP, TOK, YM)
    return np.sqrt(sum(np.sum(g.reshape(len(TOK), -1) ** 2, axis=1) for layer in gs for g in layer))


def _per_example_norms_ref():
    out = []
    for i in range(len(TOK)):
        gs = jax().grad(jaxify(mlp_loss))(MP, TOK[i], YM[i])
        out.append(math.sqrt(sum(float(np.sum(np.asarray(g) ** 2)) for layer in gs for g in layer)))
    return np.array(out)


add(pair("r18j_per_example_grad_norms_dp_sgd", _per_example_norms, _per_example_norms_ref, tol=1e-9))


# -- HVP of the MLP loss; Gauss-Newton vs Hessian -----------------------------------------

def flat_mlp_loss(theta, x, y):
    W1 = theta[:20].reshape(4, 5)
    b1 = theta[20:25]
    W2 = theta[25:35].reshape(5, 2)
    b2 = theta[35:37]
    h = np.tanh(x @ W1 + b1)
    return 0.5 * np.sum((h @ W2 + b2 - y) ** 2)


TH37 = _r.normal(size=37) * 0.4
VV = _r.normal(size=37)
add(pair("r18j_hvp_flat_mlp", lambda: revsrc.hvp(flat_mlp_loss, (TH37, TOK, YM), (VV, None, None)),
         lambda: jax().jvp(lambda t: jax().grad(jaxify(flat_mlp_loss))(t, TOK, YM), (TH37,), (VV,))[1], tol=1e-9))
add(H("r18j_hessian_flat_mlp", flat_mlp_loss, (TH37, TOK, YM), ref="jax", tol=1e-9))


def _power_iter_top_eig(theta, iters=30):
    v = np.ones_like(theta) / math.sqrt(len(theta))
    lam = 0.0
    for _ in range(iters):
        hv = revsrc.hvp(flat_mlp_loss, (theta, TOK, YM), (v, None, None))
        lam = float(v @ hv)
        v = hv / np.linalg.norm(hv)
    return lam


add(pair("r18j_power_iteration_top_hessian_eig", lambda: _power_iter_top_eig(TH37),
         lambda: float(np.max(np.abs(np.linalg.eigvalsh(np.asarray(jax().hessian(jaxify(flat_mlp_loss))(TH37, TOK, YM)))))),
         tol=1e-3))


# dropout with a Generator argument (mask computed from rng, not differentiated)
def dropout_loss(W, X, rng, p=0.3):
    h = np.tanh(X @ W)
    mask = (rng.random(h.shape) > p) / (1 - p)
    return np.sum((h * mask) ** 2)


def _dropout_ref():
    m = (np.random.default_rng(2).random((5, 3)) > 0.3) / 0.7
    return jax().grad(lambda W: jax().numpy.sum((jax().numpy.tanh(TOK @ W) * m) ** 2))(W43)


add(pair("r18j_dropout_generator_mask", lambda: revsrc.grad(dropout_loss)(W43, TOK, np.random.default_rng(2)),
         _dropout_ref, tol=1e-10))


# float32 weights: the gradient keeps float32
def f32_loss(W, X):
    return np.sum(np.tanh(X @ W) ** 2)


add(pair("r18j_float32_weights_dtype",
         lambda: float(revsrc.grad(f32_loss)(W43.astype(np.float32), TOK.astype(np.float32)).dtype == np.float32),
         lambda: 1.0, tol=0.0))
add(G("r18j_float32_weights_values", f32_loss, (W43.astype(np.float32), TOK.astype(np.float32)),
      ref=lambda: jax().grad(jaxify(f32_loss))(W43, TOK), tol=1e-4))


# cross-entropy over a batch with a Python loop and try/except on an empty batch
def safe_mean_xent(W, X, y):
    try:
        return xent(W, X, y) if len(y) else 0.0
    except ZeroDivisionError:
        return 0.0


add(G("r18j_xent_try_guard", safe_mean_xent, (W43, TOK, LABELS), ref="jax", tol=1e-10))
# an empty batch: the plain call returns 0.0 (the `if len(y)` is false), the gradient zeros
add(pair("r18j_xent_empty_batch", lambda: revsrc.grad(safe_mean_xent)(W43, TOK[:0], LABELS[:0]),
         lambda: np.zeros_like(W43), tol=0.0))


# polynomial features by np.vander and a least-squares fit (the targets differentiated)
TX = np.linspace(0.0, 1.0, 8)


def polyfeat_fit_value(y, x_new=0.35):
    A = np.vander(TX, 3)
    coef = np.linalg.solve(A.T @ A, A.T @ y)
    return coef @ np.array([x_new ** 2, x_new, 1.0])


def _polyfit_ref():
    A = np.stack([TX ** 2, TX, np.ones_like(TX)], axis=1)
    return A @ np.linalg.solve(A.T @ A, np.array([0.35 ** 2, 0.35, 1.0]))


YTX = np.sin(3 * TX)
add(G("r18j_vander_features_normal_equations", polyfeat_fit_value, (YTX,), ref=_polyfit_ref, tol=1e-10))


def polyfit_predict(y, x_new=0.35):
    return np.polyval(np.polyfit(TX, y, 2), x_new)


add(G("r18j_polyfit_polyval_wrt_targets", polyfit_predict, (YTX,), ref=_polyfit_ref, tol=1e-9))


def vander_nodes_fit(nodes, y=np.array([0.1, 0.5, 0.2, 0.9])):
    # quadratic least squares with the sample positions differentiated
    A = np.vander(nodes, 3)
    coef = np.linalg.solve(A.T @ A, A.T @ y)
    return np.sum(coef ** 2)


def vander_nodes_fit_stack(nodes, y=np.array([0.1, 0.5, 0.2, 0.9])):
    A = np.stack([nodes ** 2, nodes, np.ones_like(nodes)], axis=1)
    coef = np.linalg.solve(A.T @ A, A.T @ y)
    return np.sum(coef ** 2)


NODES = np.array([0.0, 0.3, 0.7, 1.1])
add(G("r18j_vander_wrt_nodes", vander_nodes_fit, (NODES,),
      ref=lambda: revsrc.grad(vander_nodes_fit_stack)(NODES), tol=1e-10))
add(G("r18j_stacked_powers_wrt_nodes", vander_nodes_fit_stack, (NODES,), ref="jax", tol=1e-10))
