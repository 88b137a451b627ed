"""Round 11, part d: ML pieces beyond MLPs -- policy gradients with fixed samples, soft value
iteration, GAE, attention and layer norm, normalizing flows (planar, radial) with log-dets,
recommender losses, as ML researchers write them in notebooks."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(11)


# -- REINFORCE with a softmax policy and fixed trajectories ----------------------------

def log_softmax(z):
    m = np.max(z, axis=-1, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))


def reinforce(theta, states, actions, returns):
    logits = states @ theta
    lp = log_softmax(logits)
    chosen = lp[np.arange(len(actions)), actions]
    baseline = np.mean(returns)
    return -np.mean(chosen * (returns - baseline))


ST = rng.normal(size=(12, 4))
AC = rng.integers(0, 3, size=12)
RET = rng.normal(size=12)
TH = 0.1 * rng.normal(size=(4, 3))
add(G("r11_reinforce_fancy_index", reinforce, (TH, ST, AC, RET), ref="ag"))
add(H("r11_reinforce_hessian", lambda th: reinforce(th, ST, AC, RET), (TH,), ref="fd", tol=1e-5))


def ppo_clip(theta, states, actions, adv, old_logp, eps=0.2):
    lp = log_softmax(states @ theta)[np.arange(actions.size), actions]
    ratio = np.exp(lp - old_logp)
    return -np.mean(np.minimum(ratio * adv, np.clip(ratio, 1 - eps, 1 + eps) * adv))


OLD = log_softmax(ST @ (TH + 0.3 * rng.normal(size=TH.shape)))[np.arange(12), AC]
add(G("r11_ppo_clip_minimum", ppo_clip, (TH, ST, AC, RET, OLD), ref="ag"))


# -- soft value iteration on a small MDP ----------------------------------------------

def soft_vi(R, P, gamma=0.9, alpha=0.5, iters=40):
    nS, nA = R.shape
    V = np.zeros(nS)
    for _ in range(iters):
        Q = R + gamma * np.einsum("sat,t->sa", P, V)
        V = alpha * np.log(np.sum(np.exp(Q / alpha), axis=1))
    return V[0]


Rm = rng.normal(size=(4, 2))
Pm = rng.random(size=(4, 2, 4))
Pm = Pm / Pm.sum(axis=2, keepdims=True)
add(G("r11_soft_value_iteration_R", soft_vi, (Rm, Pm), ref="ag"))
add(G("r11_soft_value_iteration_P", soft_vi, (Rm, Pm), argnums=1, ref="ag"))
add(G("r11_soft_value_iteration_alpha", soft_vi, (Rm, Pm, 0.9, 0.5), argnums=3, ref="ag"))


# -- GAE with a reversed loop ------------------------------------------------------------

def gae(values, rewards, dones, gamma=0.99, lam=0.95):
    T = len(rewards)
    adv = [0.0] * T
    last = 0.0
    for t in reversed(range(T)):
        nonterm = 1.0 - dones[t]
        delta = rewards[t] + gamma * values[t + 1] * nonterm - values[t]
        last = delta + gamma * lam * nonterm * last
        adv[t] = last
    return sum(a * a for a in adv) / T


VAL = list(rng.normal(size=9))
REW = list(rng.normal(size=8))
DONE = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
add(G("r11_gae_reversed_values", gae, (VAL, REW, DONE), ref="ag"))
add(G("r11_gae_lambda", gae, (VAL, REW, DONE, 0.99, 0.95), argnums=4, ref="ag"))


# -- scaled dot-product attention, multi-head with reshape/transposes --------------------

def attention(Wq, Wk, Wv, X, heads=2):
    T, D = X.shape
    dh = Wq.shape[1] // heads
    Q = (X @ Wq).reshape(T, heads, dh).transpose(1, 0, 2)
    K = (X @ Wk).reshape(T, heads, dh).transpose(1, 0, 2)
    V = (X @ Wv).reshape(T, heads, dh).transpose(1, 0, 2)
    S = Q @ K.transpose(0, 2, 1) / math.sqrt(dh)
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    S = np.where(mask, -1e9, S)
    S = S - S.max(axis=-1, keepdims=True)
    Pa = np.exp(S)
    Pa = Pa / Pa.sum(axis=-1, keepdims=True)
    out = (Pa @ V).transpose(1, 0, 2).reshape(T, heads * dh)
    return np.sum(np.tanh(out) ** 2)


XA = rng.normal(size=(5, 4))
WQ, WK, WV = (0.5 * rng.normal(size=(4, 4)) for _ in range(3))
add(G("r11_attention_causal_Wq", attention, (WQ, WK, WV, XA), ref="fd"))
add(G("r11_attention_causal_all", attention, (WQ, WK, WV, XA), argnums=(0, 1, 2),
      ref=lambda: jax().jit(jax().grad(jaxify(attention), argnums=(0, 1, 2)))(WQ, WK, WV, XA)))
add(G("r11_attention_input", attention, (WQ, WK, WV, XA), argnums=3, ref="fd"))


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def ln_loss(params, x):
    y = layer_norm(x, params["g"], params["b"])
    return np.sum(y ** 3 * x)


LNP = {"g": 1.0 + 0.1 * rng.normal(size=4), "b": 0.1 * rng.normal(size=4)}
add(G("r11_layer_norm_dict", ln_loss, (LNP, XA), ref="ag"))
add(G("r11_layer_norm_input", ln_loss, (LNP, XA), argnums=1, ref="ag"))


def rope(x, base=10000.0):
    T, D = x.shape
    half = D // 2
    freqs = base ** (-np.arange(half) / half)
    ang = np.arange(T)[:, None] * freqs[None, :]
    x1, x2 = x[:, :half], x[:, half:]
    return np.concatenate([x1 * np.cos(ang) - x2 * np.sin(ang), x1 * np.sin(ang) + x2 * np.cos(ang)], axis=1)


def rope_score(x):
    r = rope(x)
    return np.sum((r @ r.T) ** 2) / 100.0


add(G("r11_rotary_embedding", rope_score, (XA,), ref="ag"))


# -- normalizing flows -----------------------------------------------------------------

def planar_flow(params, z):
    u, w, b = params
    logdet = 0.0
    for k in range(3):
        a = z @ w[k] + b[k]
        h = np.tanh(a)
        z = z + np.outer(h, u[k])
        psi = np.outer(1 - h ** 2, w[k])
        logdet = logdet + np.log(np.abs(1 + psi @ u[k]))
    base = -0.5 * np.sum(z ** 2, axis=1) - math.log(2 * math.pi)
    return -np.mean(base + logdet)


PF = [0.3 * rng.normal(size=(3, 2)), 0.5 * rng.normal(size=(3, 2)), 0.1 * rng.normal(size=3)]
ZS = rng.normal(size=(6, 2))
add(G("r11_planar_flow_list_params", planar_flow, (PF, ZS), ref="ag"))


def radial_flow(z, z0, alpha, beta):
    d = z.shape[-1]
    r = np.linalg.norm(z - z0, axis=-1, keepdims=True)
    h = 1.0 / (alpha + r)
    y = z + beta * h * (z - z0)
    hp = -h ** 2
    logdet = (d - 1) * np.log(1 + beta * h[:, 0]) + np.log(1 + beta * h[:, 0] + beta * hp[:, 0] * r[:, 0])
    return np.sum(y ** 2) - np.sum(logdet)


add(G("r11_radial_flow_beta", radial_flow, (ZS, np.array([0.1, -0.2]), 0.7, 0.4), argnums=3, ref="ag"))
add(G("r11_radial_flow_z0", radial_flow, (ZS, np.array([0.1, -0.2]), 0.7, 0.4), argnums=1,
      ref=lambda: jax().jit(jax().grad(jaxify(radial_flow), argnums=1))(ZS, np.array([0.1, -0.2]), 0.7, 0.4)))
add(G("r11_radial_flow_z0_fd", radial_flow, (ZS, np.array([0.1, -0.2]), 0.7, 0.4), argnums=1, ref="fd"))


def affine_coupling(params, x):
    W, b = params
    x1, x2 = x[:, :1], x[:, 1:]
    s = np.tanh(x1 @ W[0] + b[0])
    t = x1 @ W[1] + b[1]
    y2 = x2 * np.exp(s) + t
    y = np.hstack([x1, y2])
    return np.mean(0.5 * np.sum(y ** 2, axis=1) - np.sum(s, axis=1))


CP = (0.4 * rng.normal(size=(2, 1, 1)), 0.1 * rng.normal(size=(2, 1)))
add(G("r11_realnvp_coupling_tuple", affine_coupling, (CP, ZS), ref="ag"))


def flow_logdet_slogdet(A, z):
    y = z @ A.T
    sign, ld = np.linalg.slogdet(A)
    return np.mean(0.5 * np.sum(y ** 2, axis=1)) - ld


add(G("r11_linear_flow_slogdet", flow_logdet_slogdet, (np.array([[1.2, 0.3], [-0.4, 0.9]]), ZS), ref="ag"))


# -- recommender losses -------------------------------------------------------------------

def bpr(U, V, triples, reg=0.01):
    u, i, j = triples[:, 0], triples[:, 1], triples[:, 2]
    x = np.sum(U[u] * (V[i] - V[j]), axis=1)
    return -np.sum(np.log(1.0 / (1.0 + np.exp(-x)))) + reg * (np.sum(U ** 2) + np.sum(V ** 2))


UF = 0.3 * rng.normal(size=(4, 3))
VF = 0.3 * rng.normal(size=(6, 3))
TR = np.array([[0, 1, 2], [1, 3, 0], [2, 5, 4], [3, 1, 1], [0, 4, 2], [0, 1, 3]])
add(G("r11_bpr_repeated_gather", bpr, (UF, VF, TR), argnums=(0, 1), ref="ag"))


def mf_loop(U, V, ratings):
    loss = 0.0
    for (u, i), r in ratings.items():
        pred = U[u] @ V[i]
        loss += (pred - r) ** 2
    return loss + 0.05 * (np.sum(U * U) + np.sum(V * V))


RAT = {(0, 1): 4.0, (1, 2): 3.5, (2, 0): 1.0, (3, 5): 5.0, (0, 5): 2.0}
add(G("r11_matrix_factorization_dict", mf_loop, (UF, VF, RAT), argnums=(0, 1), ref="ag"))


def softmax_xent_sampled(U, V, users, pos):
    logits = U[users] @ V.T
    return np.mean(np.log(np.sum(np.exp(logits), axis=1)) - logits[np.arange(users.size), pos])


add(G("r11_sampled_softmax_rec", softmax_xent_sampled, (UF, VF, np.array([0, 1, 1, 3]), np.array([1, 2, 5, 0])),
      argnums=(0, 1), ref="ag"))


# -- per-example gradients of a logistic model with vmap(grad) -------------------------

def logistic(w, x, y):
    z = x @ w
    return np.log1p(np.exp(-y * z))


XL = rng.normal(size=(7, 3))
YL = np.sign(rng.normal(size=7))
WL = rng.normal(size=3)
add(pair("r11_vmap_grad_per_example",
         lambda: revsrc.vmap(revsrc.grad(logistic), in_axes=(None, 0, 0))(WL, XL, YL),
         lambda: jax().vmap(jax().grad(jaxify(logistic)), in_axes=(None, 0, 0))(WL, XL, YL)))


def clipped_mean_grad(w, x, y, C=0.5):
    gs = revsrc.vmap(revsrc.grad(logistic), in_axes=(None, 0, 0))(w, x, y)
    norms = np.linalg.norm(gs, axis=1, keepdims=True)
    return np.mean(gs / np.maximum(1.0, norms / C), axis=0)


def clipped_ref(w, x, y, C=0.5):
    gs = jax().vmap(jax().grad(jaxify(logistic)), in_axes=(None, 0, 0))(w, x, y)
    jnp = jax().numpy
    norms = jnp.linalg.norm(gs, axis=1, keepdims=True)
    return jnp.mean(gs / jnp.maximum(1.0, norms / C), axis=0)


add(pair("r11_dp_sgd_clipping", lambda: clipped_mean_grad(WL, XL, YL), lambda: clipped_ref(WL, XL, YL)))
