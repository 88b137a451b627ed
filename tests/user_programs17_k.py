"""Round 17, part k: ML models written from scratch -- single- and multi-head
attention with causal masks, embeddings gathered by token ids (repeated ids), weight
tying, layer norm and RMSNorm, dropout drawn from a Generator, a GRU over a sequence,
conv1d by column writes, batch norm, InfoNCE, a VAE loss, and optimizers (SGD with
momentum, Adam with global-norm clipping) stepping a pytree of parameters in a Python
loop, differentiated through (learning rates as hyperparameters)."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(2017)
D, T, V = 4, 5, 7
TOKENS = np.array([3, 1, 3, 6, 0])
TARGETS = np.array([1, 3, 6, 0, 3])
PARAMS = {
    "emb": _rng.normal(size=(V, D)) * 0.5,
    "Wq": _rng.normal(size=(D, D)) * 0.4,
    "Wk": _rng.normal(size=(D, D)) * 0.4,
    "Wv": _rng.normal(size=(D, D)) * 0.4,
    "ln_g": np.ones(D) + 0.1 * _rng.normal(size=D),
    "ln_b": 0.1 * _rng.normal(size=D),
}
POS = np.array([[math.sin(t / 10 ** (2 * (i // 2) / D)) if i % 2 == 0 else math.cos(t / 10 ** (2 * (i // 2) / D))
                 for i in range(D)] for t in range(T)])
CAUSAL = np.tril(np.ones((T, T), dtype=bool))
EPS = 1e-5


def layer_norm(x, g, b, eps=EPS):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def softmax_rows(s):
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def attention(x, Wq, Wk, Wv, mask):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    s = q @ k.T / math.sqrt(x.shape[-1])
    s = np.where(mask, s, -np.inf)
    return softmax_rows(s) @ v


def lm_loss(p, tokens, targets):
    x = p["emb"][tokens] + POS
    h = x + attention(layer_norm(x, p["ln_g"], p["ln_b"]), p["Wq"], p["Wk"], p["Wv"], CAUSAL)
    logits = h @ p["emb"].T  # weight tying
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(targets)), targets])


add(G("r17k_tiny_lm_causal_tied_embeddings", lm_loss, (PARAMS, TOKENS, TARGETS), ref="jax", tol=1e-10))
add(VG("r17k_tiny_lm_value_and_grad", lm_loss, (PARAMS, TOKENS, TARGETS), ref="jax", tol=1e-10))
add(G("r17k_tiny_lm_backend_jax", lm_loss, (PARAMS, TOKENS, TARGETS), ref="jax", tol=1e-10, backend="jax"))


def mha(x, W, heads=2):
    Tn, Dm = x.shape
    dh = Dm // heads
    qkv = x @ W["qkv"]  # (T, 3D)
    q, k, v = np.split(qkv, 3, axis=1)
    q = q.reshape(Tn, heads, dh).transpose(1, 0, 2)
    k = k.reshape(Tn, heads, dh).transpose(1, 0, 2)
    v = v.reshape(Tn, heads, dh).transpose(1, 0, 2)
    s = np.einsum("hqd,hkd->hqk", q, k) / math.sqrt(dh)
    a = softmax_rows(s)
    o = np.einsum("hqk,hkd->hqd", a, v).transpose(1, 0, 2).reshape(Tn, Dm)
    return o @ W["o"]


WM = {"qkv": _rng.normal(size=(D, 3 * D)) * 0.3, "o": _rng.normal(size=(D, D)) * 0.3}
XM = _rng.normal(size=(T, D))
add(G("r17k_mha_split_reshape_einsum", lambda W, x: np.sum(np.tanh(mha(x, W))), (WM, XM), ref="jax", tol=1e-10))
add(pair("r17k_mha_jacrev_x", lambda: revsrc.jacrev(lambda x: mha(x, WM)[-1])(XM),
         lambda: jax().jacrev(jaxify(_mha_last))(XM), tol=1e-10))


def _mha_last(x):
    return mha(x, WM)[-1]


def embedding_bag(E, ids, offsets):
    out = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        out.append(E[ids[a:b]].mean(axis=0))
    return np.stack(out)


def bag_loss(E, ids, offsets, w):
    return np.sum(np.log1p(np.exp(embedding_bag(E, ids, offsets) @ w)))


add(G("r17k_embedding_bag_repeated_ids", bag_loss, (PARAMS["emb"], np.array([1, 1, 4, 2, 1, 6]), [0, 3, 4, 6], np.ones(D)),
      ref="jax", tol=1e-11))


def rms_norm_ffn(x, p):
    h = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * p["g"]
    u = h @ p["W1"]
    gelu = 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))
    return np.sum((gelu @ p["W2"]) ** 2)


PF = {"g": np.ones(D), "W1": _rng.normal(size=(D, 8)) * 0.3, "W2": _rng.normal(size=(8, D)) * 0.3}
add(G("r17k_rmsnorm_gelu_ffn", rms_norm_ffn, (XM, PF), argnums=(0, 1), ref="jax", tol=1e-10))
add(H("r17k_layer_norm_hessian_x", lambda x: np.sum(layer_norm(x, PARAMS["ln_g"], PARAMS["ln_b"]) ** 3), (XM[0],),
      ref="jax", tol=1e-8))


# dropout: a Generator made from a seed inside the loss, inverted scaling
def dropout_mlp_loss(W, x, y, seed, p=0.3):
    rng = np.random.default_rng(seed)
    h = np.tanh(x @ W["1"])
    keep = rng.random(h.shape) >= p
    h = np.where(keep, h / (1 - p), 0.0)
    return np.mean((h @ W["2"] - y) ** 2)


W2 = {"1": _rng.normal(size=(D, 6)) * 0.5, "2": _rng.normal(size=(6, 1)) * 0.5}
YM = _rng.normal(size=(T, 1))
add(G("r17k_dropout_seeded_generator", dropout_mlp_loss, (W2, XM, YM, 11), ref="fd", tol=1e-7))


def dropout_rng_arg(W, x, y, rng, p=0.3):
    h = np.tanh(x @ W["1"])
    mask = (rng.random(h.shape) >= p).astype(float)
    h = h * mask / (1 - p)
    return np.mean((h @ W["2"] - y) ** 2)


def _dropout_two_calls():
    rng = np.random.default_rng(4)
    df = revsrc.grad(dropout_rng_arg)
    return df(W2, XM, YM, rng), df(W2, XM, YM, rng)


def _dropout_two_calls_ref():
    rng = np.random.default_rng(4)
    out = []
    for _ in range(2):
        state = rng.bit_generator.state
        r1 = np.random.default_rng(0)
        r1.bit_generator.state = state
        out.append(ag()[0].grad(agify(dropout_rng_arg))(W2, XM, YM, r1))
        rng.random((T, 6))
    return tuple(out)


add(pair("r17k_dropout_generator_arg_state_advances", _dropout_two_calls, _dropout_two_calls_ref, tol=1e-11))


# GRU over a sequence, hidden state carried in a loop, params as a tuple of arrays
def gru_loss(params, xs, h0):
    Wz, Uz, Wr, Ur, Wh, Uh = params
    h = h0
    total = 0.0
    for x in xs:
        z = 1 / (1 + np.exp(-(x @ Wz + h @ Uz)))
        r = 1 / (1 + np.exp(-(x @ Wr + h @ Ur)))
        hh = np.tanh(x @ Wh + (r * h) @ Uh)
        h = (1 - z) * h + z * hh
        total += np.sum(h ** 2)
    return total


GP = tuple(_rng.normal(size=s) * 0.4 for s in [(D, 3), (3, 3)] * 3)
add(G("r17k_gru_tuple_params", gru_loss, (GP, XM, np.zeros(3)), ref="jax", tol=1e-10))
add(G("r17k_gru_h0", gru_loss, (GP, XM, np.array([0.1, -0.2, 0.3])), argnums=2, ref="ag", tol=1e-11))


def conv1d(x, w, stride=1):
    C_out, C_in, K = w.shape
    L = (x.shape[1] - K) // stride + 1
    out = np.zeros((C_out, L))
    for k in range(L):
        out[:, k] = np.einsum("oik,ik->o", w, x[:, k * stride:k * stride + K])
    return out


def conv_loss(w, x):
    y = conv1d(x, w, stride=2)
    return np.sum(np.maximum(y, 0.0) ** 2)


WC = _rng.normal(size=(2, 3, 3))
XC = _rng.normal(size=(3, 11))
add(G("r17k_conv1d_column_writes_stride", conv_loss, (WC, XC), ref="fd", tol=1e-7))


def batch_norm_loss(p, x):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    xh = (x - mu) / np.sqrt(var + 1e-5)
    return np.sum((p["g"] * xh + p["b"]) @ np.arange(1.0, D + 1))


add(G("r17k_batch_norm_var", batch_norm_loss, ({"g": np.ones(D), "b": np.zeros(D)}, XM), argnums=(0, 1), ref="jax", tol=1e-9))


def info_nce(za, zb, tau=0.1):
    za = za / np.linalg.norm(za, axis=1, keepdims=True)
    zb = zb / np.linalg.norm(zb, axis=1, keepdims=True)
    s = za @ zb.T / tau
    m = np.max(s, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(s - m), axis=1))
    return np.mean(lse - np.diag(s))


add(G("r17k_info_nce_diag", info_nce, (XM, XM + 0.3 * _rng.normal(size=XM.shape)), argnums=(0, 1), ref="jax", tol=1e-10))


def vae_loss(p, x, eps):
    h = np.tanh(x @ p["enc"])
    mu, logvar = h[:, :2], h[:, 2:]
    z = mu + np.exp(0.5 * logvar) * eps
    xr = z @ p["dec"]
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))
    return np.sum((xr - x) ** 2) + kl


PV = {"enc": _rng.normal(size=(D, 4)) * 0.4, "dec": _rng.normal(size=(2, D)) * 0.4}
add(G("r17k_vae_reparam_kl", vae_loss, (PV, XM, _rng.normal(size=(T, 2))), ref="ag", tol=1e-11))


# -- optimizers in a Python loop over a pytree, differentiated in the learning rate -------

def mse(params, x, y):
    W, b = params
    return np.mean((np.tanh(x @ W + b) - y) ** 2)


def sgd_momentum_final_loss(lr, params, x, y, steps=8, mom=0.9):
    vel = [np.zeros_like(p) for p in params]
    params = list(params)
    for _ in range(steps):
        g = revsrc.grad(mse)(tuple(params), x, y)
        for i in range(len(params)):
            vel[i] = mom * vel[i] + g[i]
            params[i] = params[i] - lr * vel[i]
    return mse(tuple(params), x, y)


P0 = (_rng.normal(size=(D, 1)) * 0.3, np.zeros(1))
add(G("r17k_sgd_momentum_lr_hypergrad", sgd_momentum_final_loss, (0.3, P0, XM, YM), ref="fd", tol=1e-6))


def sgd_momentum_named(lr, params, x, y, steps=8, mom=0.9):
    W, b = params
    vW, vb = np.zeros_like(W), np.zeros_like(b)
    for _ in range(steps):
        gW, gb = revsrc.grad(mse)((W, b), x, y)
        vW = mom * vW + gW
        vb = mom * vb + gb
        W = W - lr * vW
        b = b - lr * vb
    return mse((W, b), x, y)


add(G("r17k_sgd_momentum_tuple_literal_hypergrad", sgd_momentum_named, (0.3, P0, XM, YM), ref="fd", tol=1e-6))
# the same program differentiated in its initial parameters (a MAML-like meta-gradient)
add(G("r17k_sgd_momentum_meta_grad_params", sgd_momentum_named, (0.3, P0, XM, YM), argnums=1, ref="fd", tol=1e-6))


def adam_final(lr, params, x, y, steps=6, b1=0.9, b2=0.999, clip=1.0):
    m = {k: np.zeros_like(v) for k, v in params.items()}
    s = {k: np.zeros_like(v) for k, v in params.items()}
    for t in range(1, steps + 1):
        g = revsrc.grad(dict_mse)(params, x, y)
        gnorm = math.sqrt(sum(np.sum(gi * gi) for gi in g.values()))
        if gnorm > clip:
            g = {k: v * (clip / gnorm) for k, v in g.items()}
        new = {}
        for k in params:
            m[k] = b1 * m[k] + (1 - b1) * g[k]
            s[k] = b2 * s[k] + (1 - b2) * g[k] ** 2
            mh = m[k] / (1 - b1 ** t)
            sh = s[k] / (1 - b2 ** t)
            new[k] = params[k] - lr * mh / (np.sqrt(sh) + 1e-8)
        params = new
    return dict_mse(params, x, y)


def dict_mse(p, x, y):
    return np.mean((np.tanh(x @ p["W"] + p["b"]) - y) ** 2)


PD = {"W": _rng.normal(size=(D, 1)) * 2.0, "b": np.array([0.5])}
add(G("r17k_adam_clip_dict_lr_hypergrad", adam_final, (0.05, PD, XM, YM), ref="fd", tol=1e-6))


def adam_named(lr, params, x, y, steps=6, b1=0.9, b2=0.999, clip=1.0):
    W, b = params["W"], params["b"]
    mW, mb, sW, sb = 0.0 * W, 0.0 * b, 0.0 * W, 0.0 * b
    for t in range(1, steps + 1):
        g = revsrc.grad(dict_mse)({"W": W, "b": b}, x, y)
        gW, gb = g["W"], g["b"]
        gnorm = math.sqrt(np.sum(gW * gW) + np.sum(gb * gb))
        if gnorm > clip:
            gW, gb = gW * (clip / gnorm), gb * (clip / gnorm)
        mW, mb = b1 * mW + (1 - b1) * gW, b1 * mb + (1 - b1) * gb
        sW, sb = b2 * sW + (1 - b2) * gW ** 2, b2 * sb + (1 - b2) * gb ** 2
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        W = W - lr * (mW / c1) / (np.sqrt(sW / c2) + 1e-8)
        b = b - lr * (mb / c1) / (np.sqrt(sb / c2) + 1e-8)
    return dict_mse({"W": W, "b": b}, x, y)


add(G("r17k_adam_clip_named_lr_hypergrad", adam_named, (0.05, PD, XM, YM), ref="fd", tol=1e-6))


def _train_outer():
    """The user's training loop: revsrc grads, params updated by tree_map."""
    p = {k: v.copy() for k, v in PD.items()}
    vg = revsrc.value_and_grad(dict_mse)
    losses = []
    for _ in range(5):
        l, g = vg(p, XM, YM)
        p = revsrc.tree_map(lambda a, b: a - 0.5 * b, p, g)
        losses.append(l)
    return p, losses


def _train_outer_ref():
    j = jax()
    f = jaxify(dict_mse)
    p = {k: v.copy() for k, v in PD.items()}
    losses = []
    for _ in range(5):
        l, g = j.value_and_grad(f)(p, XM, YM)
        p = {k: p[k] - 0.5 * np.asarray(g[k]) for k in p}
        losses.append(float(l))
    return p, losses


add(pair("r17k_training_loop_tree_map", _train_outer, _train_outer_ref, tol=1e-11))


def triplet_focal(emb, a, pos, neg, margin=0.5, gamma=2.0):
    d_ap = np.sum((emb[a] - emb[pos]) ** 2, axis=1)
    d_an = np.sum((emb[a] - emb[neg]) ** 2, axis=1)
    trip = np.mean(np.maximum(d_ap - d_an + margin, 0.0))
    p = 1 / (1 + np.exp(-(emb[a] @ emb[pos].T).diagonal()))
    focal = -np.mean((1 - p) ** gamma * np.log(p))
    return trip + focal


add(G("r17k_triplet_focal_gather", triplet_focal, (PARAMS["emb"], np.array([0, 2, 5]), np.array([1, 2, 6]), np.array([3, 4, 0])),
      ref="jax", tol=1e-10))


def maxpool_net(x, w):
    h = np.tanh(x * w[0] + w[1])
    pooled = h.reshape(-1, 2).max(axis=1)
    return np.sum(pooled * np.arange(1.0, pooled.size + 1))


add(G("r17k_maxpool_reshape_max", maxpool_net, (np.linspace(-1, 1, 8), np.array([1.3, 0.1])), argnums=1, ref="jax", tol=1e-11))


def label_smoothed_ce(logits, y, eps=0.1):
    n, k = logits.shape
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0
    q = (1 - eps) * onehot + eps / k
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(q * logp) / n


LOG5 = _rng.normal(size=(T, V))


def _ls_ref(eps=0.1):
    q = np.full((T, V), eps / V)
    q[np.arange(T), TARGETS] += 1 - eps
    sm = np.exp(LOG5) / np.exp(LOG5).sum(axis=1, keepdims=True)
    return (sm - q) / T


add(G("r17k_label_smoothing_onehot_write", label_smoothed_ce, (LOG5, TARGETS), ref=_ls_ref, tol=1e-12))
# float32 logits: the gradient comes back float32
add(pair("r17k_label_smoothing_float32_dtype", lambda: revsrc.grad(label_smoothed_ce)(np.ones((2, 3), np.float32), np.array([0, 2])).dtype.name,
         lambda: "float32", tol=0.0))
# the jit of a grad of the LM loss (jit of a derivative returns it as it is)
add(pair("r17k_jit_of_grad_lm", lambda: revsrc.jit(revsrc.grad(lm_loss))(PARAMS, TOKENS, TARGETS),
         lambda: jax().grad(jaxify(lm_loss))(PARAMS, TOKENS, TARGETS), tol=1e-10))


# -- in-place idioms of hand-written layers ---------------------------------------------------------

def relu_mask_writes(W, x):
    h = x @ W
    h[h < 0] = 0.01 * h[h < 0]  # leaky ReLU by boolean-mask writes
    h[:, 0] **= 2
    return np.sum(h * np.arange(1.0, h.shape[1] + 1))


add(G("r17k_leaky_relu_mask_writes", relu_mask_writes, (WC[0], XC[:, :3].T), ref="fd", tol=1e-7))


def sparse_update_loss(E, tokens, g, lr=0.5):
    """An embedding update written as E[tokens] += ... (buffered: a repeated token gets
    only its last update, as NumPy does), then a loss on the new table."""
    E2 = E.copy()
    E2[tokens] += -lr * g
    return np.sum(np.tanh(E2) ** 2)


GU = _rng.normal(size=(5, D))
add(G("r17k_embedding_buffered_repeated_index_update", sparse_update_loss, (PARAMS["emb"], TOKENS, GU), argnums=(0, 2), ref="fd", tol=1e-7))


def attention_pool_columns(W, X):
    out = np.zeros((3, X.shape[0]))
    ot = out.T
    for k in range(3):
        ot[:, k] = np.tanh(X @ W[k])
        if k > 0:
            out[k] += out[k - 1] * W[k, 0]
    return np.sum(softmax_rows(out) * out)


WT = np.array([[0.5, 1.0, 0.0, 0.2], [-0.3, 0.2, 0.4, 0.1], [0.8, -1.1, 0.3, -0.2]])
add(G("r17k_transposed_view_column_writes", attention_pool_columns, (WT, XM), ref="fd", tol=1e-7))
add(G("r17k_transposed_view_column_writes_jax", attention_pool_columns, (WT, XM), ref="fd", tol=1e-7, backend="jax"))
add(H("r17k_transposed_view_column_writes_hessian", lambda w: attention_pool_columns(w.reshape(3, 4), XM), (WT.ravel(),), ref="fd", tol=1e-5))


def causal_cumsum_mixer(A):
    return np.sum(np.cumsum(A, axis=1) * np.cumsum(A, axis=0)[::-1]) + np.sum(np.diff(A, n=2, axis=1) ** 2)


add(G("r17k_cumsum_axes_diff_n2", causal_cumsum_mixer, (XM,), ref="jax", tol=1e-11))
add(H("r17k_cumsum_axes_diff_n2_hessian", causal_cumsum_mixer, (XM[:2, :3],), ref="jax", tol=1e-10))


def gradient_penalty(W, x):
    inner = lambda V: np.sum(np.tanh(x @ V) ** 2)  # noqa: E731
    g = revsrc.grad(inner)(W)
    return np.sum(g * g)


# a lambda reading x, passed to revsrc.grad inside the function: E101 (refusals.md)
add(G("r17k_gradient_penalty_inner_lambda", gradient_penalty, (np.array([0.3, -0.2]), np.array([[1.0, 2.0], [0.5, -1.0]])), ref="fd", tol=1e-7))


def _inner_tanh_sq(V, x):
    return np.sum(np.tanh(x @ V) ** 2)


def gradient_penalty_module(W, x):
    g = revsrc.grad(_inner_tanh_sq)(W, x)
    return np.sum(g * g) + _inner_tanh_sq(W, x)


add(G("r17k_gradient_penalty_module_def", gradient_penalty_module, (np.array([0.3, -0.2]), np.array([[1.0, 2.0], [0.5, -1.0]])), ref="fd", tol=1e-7))
add(pair("r17k_gradient_penalty_hessian", lambda: revsrc.hessian(gradient_penalty_module)(np.array([0.3, -0.2]), np.array([[1.0, 2.0], [0.5, -1.0]])),
         lambda: jax().hessian(jaxify(_gp_jax))(np.array([0.3, -0.2]), np.array([[1.0, 2.0], [0.5, -1.0]])), tol=1e-9))


def _gp_jax(W, x):
    j = jax()
    g = j.grad(jaxify(_inner_tanh_sq))(W, x)
    return j.numpy.sum(g * g) + jaxify(_inner_tanh_sq)(W, x)


def same_conv1d(w, x):
    xp = np.pad(x, (1, 1), mode="edge")
    y = w[0] * xp[:-2] + w[1] * xp[1:-1] + w[2] * xp[2:]
    return np.sum(np.tanh(y) ** 2)


XS1 = np.sin(np.linspace(0, 3, 10))
add(G("r17k_pad_edge_same_conv", same_conv1d, (np.array([0.25, 0.5, 0.25]), XS1), argnums=(0, 1), ref="jax", tol=1e-12))
add(H("r17k_pad_edge_same_conv_hessian", same_conv1d, (np.array([0.25, 0.5, 0.25]), XS1), ref="jax", tol=1e-10))


def bias_broadcast_loss(b, H_):
    B = np.broadcast_to(b, H_.shape)
    return np.sum(np.tanh(H_ + B) ** 2)


add(G("r17k_broadcast_to_bias", bias_broadcast_loss, (np.array([0.1, -0.2, 0.3, 0.0]), XM), ref="jax", tol=1e-12))
add(H("r17k_broadcast_to_bias_hessian", bias_broadcast_loss, (np.array([0.1, -0.2, 0.3, 0.0]), XM), ref="jax", tol=1e-10))


# per-example gradients: vmap(grad(loss), in_axes=(None, 0, 0)), then clipped and averaged (DP-SGD)
def example_loss(w, xi, yi):
    p = 1 / (1 + np.exp(-(xi @ w)))
    return -(yi * np.log(p) + (1 - yi) * np.log(1 - p)) + 0.01 * w @ w


WE = np.array([0.3, -0.2, 0.5, 0.1])
YE = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
add(pair("r17k_per_example_grads_vmap_in_axes", lambda: revsrc.vmap(revsrc.grad(example_loss), in_axes=(None, 0, 0))(WE, XM, YE),
         lambda: jax().vmap(jax().grad(jaxify(example_loss)), in_axes=(None, 0, 0))(WE, XM, YE), tol=1e-12))


def dp_sgd_direction(w, X, Y, clip=0.5):
    G_ = revsrc.vmap(revsrc.grad(example_loss), in_axes=(None, 0, 0))(w, X, Y)
    norms = np.linalg.norm(G_, axis=1, keepdims=True)
    G_ = G_ * np.minimum(1.0, clip / norms)
    return G_.mean(axis=0)


def _dp_ref():
    j = jax()
    G_ = np.asarray(j.vmap(j.grad(jaxify(example_loss)), in_axes=(None, 0, 0))(WE, XM, YE))
    n = np.linalg.norm(G_, axis=1, keepdims=True)
    return (G_ * np.minimum(1.0, 0.5 / n)).mean(axis=0)


add(pair("r17k_dp_sgd_clipped_per_example", lambda: dp_sgd_direction(WE, XM, YE), _dp_ref, tol=1e-12))
add(pair("r17k_per_example_hessian_vmap", lambda: revsrc.vmap(revsrc.hessian(example_loss), in_axes=(None, 0, 0))(WE, XM, YE),
         lambda: jax().vmap(jax().hessian(jaxify(example_loss)), in_axes=(None, 0, 0))(WE, XM, YE), tol=1e-11))
# the sum of per-example losses differentiated through vmap inside (grad of a vmapped function)
add(pair("r17k_grad_of_vmapped_loss_sum", lambda: revsrc.grad(lambda w: np.sum(revsrc.vmap(example_loss, in_axes=(None, 0, 0))(w, XM, YE)))(WE),
         lambda: jax().grad(lambda w: jax().numpy.sum(jax().vmap(jaxify(example_loss), in_axes=(None, 0, 0))(w, XM, YE)))(WE), tol=1e-12))
# a Generator argument under backend="jax": E603, documented (jax.md: rng.random of a Generator)
add(pair("r17k_dropout_generator_arg_backend_jax",
         lambda: revsrc.grad(dropout_rng_arg, backend="jax")(W2, XM, YM, np.random.default_rng(4)),
         lambda: ag()[0].grad(agify(dropout_rng_arg))(W2, XM, YM, np.random.default_rng(4)), tol=1e-11))


# Jacobians of a vector-valued layer that writes its outputs one by one with a leaky branch
XW = np.linspace(-1, 1, 9)


def leaky_conv_out(w, x=XW):
    out = np.zeros(7)
    for k in range(7):
        out[k] = w @ x[k:k + 3]
        if out[k] < 0:
            out[k] = 0.1 * out[k]
    return out


W3 = np.array([0.3, -0.5, 0.8])
add(pair("r17k_leaky_conv_jacfwd", lambda: revsrc.jacfwd(leaky_conv_out)(W3), lambda: fdj(leaky_conv_out, W3), tol=1e-7))
add(pair("r17k_leaky_conv_jacrev", lambda: revsrc.jacrev(leaky_conv_out)(W3), lambda: fdj(leaky_conv_out, W3), tol=1e-7))
add(pair("r17k_leaky_conv_jacrev_backend_jax", lambda: revsrc.jacrev(leaky_conv_out, backend="jax")(W3), lambda: fdj(leaky_conv_out, W3), tol=1e-7))


def rnn_buffer(x, w=0.7):
    h = np.zeros(len(x) + 1)
    for t in range(len(x)):
        h[t + 1] = math.tanh(w * h[t] + x[t])
    return np.sum(h ** 2)


add(JV("r17k_rnn_buffer_jvp", rnn_buffer, (np.array([0.5, -0.8, 0.3, 1.2]), 0.7), (np.array([0.3, -1.0, 0.7, 0.2]), 0.5), tol=1e-7))
add(H("r17k_rnn_buffer_hessian_w", lambda w: rnn_buffer(np.array([0.5, -0.8, 0.3, 1.2]), w), (0.7,), ref="fd", tol=1e-5))
