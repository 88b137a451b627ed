"""Round 13, part c: machine-learning layers in NumPy -- attention, layernorm, GRU/LSTM cells
in a loop, a Gaussian-mixture EM step, GP marginal likelihood, soft k-means."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
rng = np.random.default_rng(13)


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Wq, X, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    A = softmax(Q @ K.T / math.sqrt(Q.shape[1]))
    return np.sum(np.tanh(A @ V))


X = rng.normal(size=(4, 3))
WQ, WK, WV = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
add(VG("r13_attention_wq", attention, (WQ, X, WK, WV), ref="ag", tol=1e-9))
add(G("r13_attention_all", attention, (WQ, X, WK, WV), argnums=(0, 1, 2, 3), ref="ag", tol=1e-9))
add(pair("r13_attention_jax_ref", lambda: revsrc.grad(attention, argnums=2)(WQ, X, WK, WV),
         lambda: jax().grad(jaxify(attention), argnums=2)(WQ, X, WK, WV), tol=1e-9))


def causal_attention(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    n = S.shape[0]
    mask = np.tril(np.ones((n, n), dtype=bool))
    S = np.where(mask, S, -np.inf)
    A = softmax(S)
    return np.sum(A @ X * X)


add(G("r13_causal_attention_mask", causal_attention, (X, WQ, WK), argnums=(0, 1), ref="ag", tol=1e-9))


def layernorm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


G3, B3 = np.array([1.0, 0.5, 2.0]), np.array([0.1, 0.0, -0.1])
add(G("r13_layernorm_x", lambda x, g, b: np.sum(layernorm(x, g, b) ** 3), (X, G3, B3), ref="ag", tol=1e-8))
add(G("r13_layernorm_gb", lambda x, g, b: np.sum(layernorm(x, g, b) ** 3), (X, G3, B3), argnums=(1, 2), ref="ag", tol=1e-8))
add(pair("r13_layernorm_jacrev_row", lambda: revsrc.jacrev(lambda v: layernorm(v, G3, B3))(X[0]),
         lambda: fdj(lambda v: layernorm(v, G3, B3), X[0]), tol=1e-6))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gru_run(params, xs):
    Wz, Wr, Wh = params["Wz"], params["Wr"], params["Wh"]
    h = np.zeros(Wz.shape[0])
    for x in xs:
        hx = np.concatenate([h, x])
        z = sigmoid(Wz @ hx)
        r = sigmoid(Wr @ hx)
        hh = np.tanh(Wh @ np.concatenate([r * h, x]))
        h = (1 - z) * h + z * hh
    return np.sum(h ** 2)


GP = {k: 0.5 * rng.normal(size=(3, 5)) for k in ("Wz", "Wr", "Wh")}
XS = [rng.normal(size=2) for _ in range(5)]
add(G("r13_gru_loop_dict", gru_run, (GP, XS), ref=lambda: ag()[0].grad(agify(gru_run))(GP, XS), tol=1e-9))


def lstm_run(W, xs, hidden=2):
    h = np.zeros(hidden)
    c = np.zeros(hidden)
    out = 0.0
    for t, x in enumerate(xs):
        g = W @ np.concatenate([h, x, [1.0]])
        i, f, o, u = np.split(g, 4)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(u)
        h = sigmoid(o) * np.tanh(c)
        out += (t + 1) * h[0]
    return out


WL = 0.4 * rng.normal(size=(8, 5))
XL = rng.normal(size=(6, 2))
add(VG("r13_lstm_split_loop", lstm_run, (WL, XL), ref="ag", tol=1e-9))
add(G("r13_lstm_wrt_inputs", lstm_run, (WL, XL), argnums=1, ref="ag", tol=1e-9))


def gmm_em_loglik(mu, x, sig=0.7, pi=np.array([0.3, 0.7])):
    d = x[:, None] - mu[None, :]
    logp = -0.5 * (d / sig) ** 2 - math.log(sig * math.sqrt(2 * math.pi)) + np.log(pi)
    m = np.max(logp, axis=1, keepdims=True)
    resp = np.exp(logp - m)
    resp = resp / resp.sum(axis=1, keepdims=True)
    mu_new = (resp * x[:, None]).sum(axis=0) / resp.sum(axis=0)
    d2 = x[:, None] - mu_new[None, :]
    lp2 = -0.5 * (d2 / sig) ** 2 + np.log(pi)
    m2 = np.max(lp2, axis=1)
    return np.sum(m2 + np.log(np.sum(np.exp(lp2 - m2[:, None]), axis=1)))


XG = np.concatenate([rng.normal(-1, 0.5, 6), rng.normal(1.5, 0.5, 6)])
MU0 = np.array([-0.5, 1.0])
add(VG("r13_gmm_em_step", gmm_em_loglik, (MU0, XG), ref="ag", tol=1e-8))


def gp_nll(logp, x, y):
    ell, sf, sn = np.exp(logp)
    d = x[:, None] - x[None, :]
    K = sf ** 2 * np.exp(-0.5 * (d / ell) ** 2) + (sn ** 2 + 1e-8) * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(x) * math.log(2 * math.pi)


def gp_nll_slogdet(logp, x, y):
    ell, sf, sn = np.exp(logp)
    d = x[:, None] - x[None, :]
    K = sf ** 2 * np.exp(-0.5 * (d / ell) ** 2) + (sn ** 2 + 1e-8) * np.eye(len(x))
    sign, ld = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * ld


XP = np.linspace(0, 3, 7)
YP = np.sin(XP) + 0.1 * rng.normal(size=7)
LP = np.array([0.1, 0.0, -1.5])
add(VG("r13_gp_cholesky_nll", gp_nll, (LP, XP, YP), ref="ag", tol=1e-7))
add(G("r13_gp_slogdet_nll", gp_nll_slogdet, (LP, XP, YP), ref="ag", tol=1e-7))
add(pair("r13_gp_two_forms_agree", lambda: revsrc.grad(gp_nll)(LP, XP, YP),
         lambda: revsrc.grad(gp_nll_slogdet)(LP, XP, YP), tol=1e-7))
add(G("r13_gp_wrt_y", gp_nll, (LP, XP, YP), argnums=2, ref="ag", tol=1e-7))


def soft_kmeans(C, X, beta=3.0):
    d2 = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    R = softmax(-beta * d2, axis=1)
    return np.sum(R * d2)


CK = rng.normal(size=(3, 3))
add(G("r13_soft_kmeans", soft_kmeans, (CK, X), ref="ag", tol=1e-9))
add(H("r13_soft_kmeans_hessian", lambda c: soft_kmeans(c.reshape(3, 3), X), (CK.ravel(),), ref="ag", tol=1e-7))


def mlp_per_example(W, x, y):
    h = np.tanh(W[0] @ x)
    return (W[1] @ h - y) ** 2


WM = rng.normal(size=(2, 3, 3))
XB, YB = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
add(pair("r13_mlp_per_example_grads", lambda: revsrc.vmap(revsrc.grad(lambda W, x, y: np.sum(mlp_per_example(W, x, y))), in_axes=(None, 0, 0))(WM, XB, YB),
         lambda: np.stack([ag()[0].grad(lambda W: agify(mlp_per_example)(W, x, y).sum())(WM) for x, y in zip(XB, YB)]), tol=1e-9))


def relu_net(w, x):
    h = np.maximum(0.0, w[:6].reshape(2, 3) @ x)
    return np.sum(w[6:] * h)


WR = rng.normal(size=8)
add(G("r13_relu_net", relu_net, (WR, X[0]), ref="ag", tol=1e-12))
add(pair("r13_relu_net_vmap_in_axes1", lambda: revsrc.vmap(lambda w, x: relu_net(w, x), in_axes=(None, 1))(WR, X[:3, :].T.copy() if False else X.T[:, :4].copy()),
         lambda: np.array([relu_net(WR, X.T[:, j]) for j in range(4)]), tol=1e-12))
