"""Round 8 user programs, batch a: small ML models written as notebook cells turned into
functions (MLPs with manual batching, softmax cross-entropy, mixtures, logistic
regression with early stopping, attention, k-means soft assignment), checked against
JAX x64, autograd or self-checked central differences."""
import functools

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify, ag, agify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(8)


def logsumexp_rows(z):
    m = np.max(z, axis=1, keepdims=True)
    return m[:, 0] + np.log(np.sum(np.exp(z - m), axis=1))


def mlp_xent(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    lse = logsumexp_rows(z)
    picked = z[np.arange(len(y)), y]
    return np.mean(lse - picked)


X8 = rng.normal(size=(6, 4))
Y8 = np.array([0, 2, 1, 1, 0, 2])
W1 = rng.normal(size=(4, 5)) * 0.5
B1 = np.zeros(5)
W2 = rng.normal(size=(5, 3)) * 0.5
B2 = np.array([0.1, -0.2, 0.0])
add(G("r8_mlp_xent_W1", mlp_xent, (W1, B1, W2, B2, X8, Y8), argnums=0, ref="jax"))
add(G("r8_mlp_xent_all_params", mlp_xent, (W1, B1, W2, B2, X8, Y8), argnums=(0, 1, 2, 3), ref="jax"))


def mlp_minibatch_loop(params, X, y, bs):
    total = 0.0
    n = X.shape[0]
    for s in range(0, n, bs):
        xb, yb = X[s:s + bs], y[s:s + bs]
        h = np.maximum(xb @ params["W1"] + params["b1"], 0.0)
        z = h @ params["W2"]
        z = z - np.max(z, axis=1, keepdims=True)
        p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
        total += -np.sum(np.log(p[np.arange(len(yb)), yb]))
    return total / n


P8 = {"W1": W1, "b1": B1 + 0.3, "W2": W2}
add(G("r8_mlp_minibatches_dict_relu", mlp_minibatch_loop, (P8, X8, Y8, 4), ref="jax"))


def mlp_layers_list(layers, x):
    h = x
    for i, (W, b) in enumerate(layers):
        h = h @ W + b
        if i < len(layers) - 1:
            h = np.tanh(h)
    return np.sum(h ** 2)


LAYERS = [(rng.normal(size=(4, 4)) * 0.4, rng.normal(size=4) * 0.1) for _ in range(3)]
add(G("r8_mlp_list_of_tuples_layers", mlp_layers_list, (LAYERS, X8), ref="jax"))
add(G("r8_mlp_list_of_tuples_wrt_input", mlp_layers_list, (LAYERS, X8), argnums=1, ref="jax"))


def gmm_loglik(mu, logsig, logits, x):
    w = np.exp(logits - np.max(logits))
    w = w / np.sum(w)
    sig = np.exp(logsig)
    d = (x[:, None] - mu[None, :]) / sig[None, :]
    comp = -0.5 * d ** 2 - np.log(sig)[None, :] - 0.5 * np.log(2 * np.pi) + np.log(w)[None, :]
    m = np.max(comp, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(comp - m), axis=1)))


XG = np.concatenate([rng.normal(-2, 0.5, 7), rng.normal(1.5, 1.0, 9)])
MU = np.array([-1.0, 0.5, 2.0])
LS = np.array([-0.3, 0.0, 0.2])
LG = np.array([0.1, 0.4, -0.2])
add(G("r8_gmm_loglik_mu", gmm_loglik, (MU, LS, LG, XG), argnums=0, ref="jax"))
add(G("r8_gmm_loglik_all", gmm_loglik, (MU, LS, LG, XG), argnums=(0, 1, 2), ref="jax"))
add(H("r8_gmm_loglik_hessian_mu", gmm_loglik, (MU, LS, LG, XG), argnums=0, ref="jax", tol=1e-6))


def logreg_early_stop(w0, X, y, lam, lr, steps):
    # training loop whose final loss is the output: grad through the optimiser
    w = w0.copy()
    prev = np.inf
    for k in range(steps):
        z = X @ w
        p = 1.0 / (1.0 + np.exp(-z))
        loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)) + lam * np.sum(w ** 2)
        if prev - loss < 1e-3:
            break
        prev = loss
        g = X.T @ (p - y) / len(y) + 2 * lam * w
        w = w - lr * g
    return loss


XL = rng.normal(size=(20, 3))
YL = (XL @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=20) > 0).astype(float)
add(G("r8_logreg_unrolled_training_early_stop", logreg_early_stop,
      (np.array([0.1, 0.0, -0.1]), XL, YL, 0.01, 0.5, 30), ref="fd"))
add(G("r8_logreg_early_stop_wrt_lam", logreg_early_stop,
      (np.array([0.1, 0.0, -0.1]), XL, YL, 0.01, 0.5, 30), argnums=2, ref="ag"))


def attention(Wq, Wk, Wv, X):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = s - s.max(axis=-1, keepdims=True)
    a = np.exp(s)
    a /= a.sum(axis=-1, keepdims=True)
    out = a @ V
    return np.sum(np.tanh(out))


WQ, WK, WV = (rng.normal(size=(4, 3)) * 0.5 for _ in range(3))
add(G("r8_self_attention_idiv_softmax", attention, (WQ, WK, WV, X8), argnums=(0, 1, 2), ref="fd"))


def attention_causal(Wq, X):
    Q = X @ Wq
    s = Q @ Q.T
    n = s.shape[0]
    mask = np.triu(np.ones((n, n), dtype=bool), k=1)
    s = np.where(mask, -1e9, s)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a = a / a.sum(axis=1, keepdims=True)
    return np.sum((a @ Q) ** 2)


add(G("r8_causal_mask_where_minus_1e9", attention_causal, (WQ, X8), ref="jax"))


def soft_kmeans(C, X, beta):
    d2 = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    r = np.exp(-beta * (d2 - d2.min(axis=1, keepdims=True)))
    r = r / r.sum(axis=1, keepdims=True)
    return np.sum(r * d2)


CK = rng.normal(size=(3, 4))
add(G("r8_soft_kmeans_centers", soft_kmeans, (CK, X8, 2.0), ref="jax"))
add(G("r8_soft_kmeans_beta", soft_kmeans, (CK, X8, 2.0), argnums=2, ref="jax"))


def soft_kmeans_em(C, X, beta, iters):
    for _ in range(iters):
        d2 = ((X[:, None, :] - C[None]) ** 2).sum(-1)
        r = np.exp(-beta * d2)
        r /= r.sum(1, keepdims=True)
        C = (r.T @ X) / r.sum(0)[:, None]
    return np.sum(C ** 2)


add(G("r8_soft_kmeans_em_iterations", soft_kmeans_em, (CK, X8, 0.5, 4), ref="fd"))


class Linear:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return x @ self.W + self.b


class Model:
    def __init__(self, sizes, seed):
        r = np.random.default_rng(seed)
        self.layers = [Linear(r.normal(size=(a, b)) * 0.3, np.zeros(b)) for a, b in zip(sizes[:-1], sizes[1:])]

    def __call__(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = np.tanh(x)
        return x


MODEL = Model([4, 6, 2], 3)


def model_loss_input(x):
    return np.sum(MODEL(x) ** 2)


add(G("r8_class_model_call_wrt_input", model_loss_input, (X8,), ref="fd"))


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))


def robust_fit(theta, t, y):
    pred = theta[0] + theta[1] * t + theta[2] * np.sin(t)
    return np.mean(huber(pred - y, delta=0.5))


TT = np.linspace(0, 4, 15)
YT = 1 + 0.5 * TT + np.sin(TT) + 0.3 * rng.normal(size=15)
YT[3] += 5.0
add(G("r8_huber_where_default_kwarg", robust_fit, (np.array([0.8, 0.4, 1.2]), TT, YT), ref="jax"))


def label_smoothing_xent(logits, y, eps):
    n, k = logits.shape
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0
    target = onehot * (1 - eps) + eps / k
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -np.sum(target * logp) / n


LOG = rng.normal(size=(6, 3))
add(G("r8_label_smoothing_onehot_fancy_write", label_smoothing_xent, (LOG, Y8, 0.1), ref="fd"))
add(G("r8_label_smoothing_wrt_eps", label_smoothing_xent, (LOG, Y8, 0.1), argnums=2, ref="fd"))


def layernorm_mlp(g, X):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    xh = (X - mu) / np.sqrt(var + 1e-5)
    return np.sum(np.tanh(xh * g) ** 2)


add(G("r8_layernorm_var_gain", layernorm_mlp, (np.array([1.0, 0.5, 2.0, -1.0]), X8), ref="jax"))
add(G("r8_layernorm_wrt_X", layernorm_mlp, (np.array([1.0, 0.5, 2.0, -1.0]), X8), argnums=1, ref="jax"))


def per_example_loss(w, x, y):
    return np.log1p(np.exp(-y * np.dot(w, x)))


XP = rng.normal(size=(5, 3))
YP = np.array([1.0, -1.0, 1.0, 1.0, -1.0])
WP = np.array([0.3, -0.2, 0.5])


def _per_ex_ref():
    jx = jax()
    return jx.vmap(jx.grad(jaxify(per_example_loss)), in_axes=(None, 0, 0))(WP, XP, YP)


add(pair("r8_vmap_grad_per_example_logistic",
         lambda: revsrc.vmap(revsrc.grad(per_example_loss), in_axes=(None, 0, 0))(WP, XP, YP),
         _per_ex_ref, tol=1e-9))


def batchnorm_train(gamma, beta, X):
    mu = np.mean(X, axis=0)
    sd = np.std(X, axis=0)
    y = gamma * (X - mu) / (sd + 1e-3) + beta
    return np.sum(np.log1p(np.exp(y)))


add(G("r8_batchnorm_std_softplus", batchnorm_train, (np.ones(4) * 1.2, np.zeros(4) + 0.1, X8), argnums=(0, 1), ref="jax"))
add(G("r8_batchnorm_wrt_X", batchnorm_train, (np.ones(4) * 1.2, np.zeros(4) + 0.1, X8), argnums=2, ref="jax"))


def dropout_fixed_mask(W, X, mask):
    h = np.tanh(X @ W)
    h = h * mask / 0.8
    return np.sum(h)


MASK = (rng.random(size=(6, 5)) > 0.2)
add(G("r8_dropout_bool_mask_times_float", dropout_fixed_mask, (W1, X8, MASK), ref="jax"))


def adam_unrolled(w0, X, y, steps):
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        r = X @ w - y
        g = 2 * X.T @ r / len(y)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mh = m / (1 - 0.9 ** t)
        vh = v / (1 - 0.999 ** t)
        w -= 0.05 * mh / (np.sqrt(vh) + 1e-8)
    return np.mean((X @ w - y) ** 2)


add(G("r8_adam_unrolled_inplace_sub", adam_unrolled, (np.array([0.5, -0.5, 0.2]), XL, YL, 8), ref="fd"))


def cosine_sim_loss(E, pairs):
    tot = 0.0
    for i, j in pairs:
        a, b = E[i], E[j]
        tot += 1.0 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
    return tot


add(G("r8_embedding_cosine_pairs_loop", cosine_sim_loss, (rng.normal(size=(5, 3)), [(0, 1), (2, 4), (1, 3), (0, 0)]), ref="jax"))


def focal_loss(logits, y, gamma):
    p = 1 / (1 + np.exp(-logits))
    pt = np.where(y == 1, p, 1 - p)
    return -np.sum((1 - pt) ** gamma * np.log(pt))


add(G("r8_focal_loss_int_labels_where", focal_loss, (rng.normal(size=8), np.array([1, 0, 0, 1, 1, 0, 1, 0]), 2.0), argnums=(0, 2), ref="jax"))
