"""Round 9, ML pieces outside the earlier rounds' themes: a vanilla RNN and a GRU cell
unrolled over a sequence, layer and batch normalisation, a fixed dropout mask, Adam
steps unrolled and differentiated with respect to the learning rate, embeddings
gathered by integer ids, Gumbel-softmax with noise passed in, focal and hinge losses,
max pooling by reshape, sliding windows, a planar normalising flow's log-determinant."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(1234)
SEQ = _rng.normal(size=(6, 3))


def rnn_loss(Wh, Wx):
    h = np.zeros(4)
    for x in SEQ:
        h = np.tanh(Wh @ h + Wx @ x)
    return np.sum(h ** 2)


_Wh = 0.3 * _rng.normal(size=(4, 4))
_Wx = 0.3 * _rng.normal(size=(4, 3))
CASES.append(G("r9_vanilla_rnn_over_rows", rnn_loss, (_Wh, _Wx), argnums=(0, 1), ref="jax"))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gru(params):
    Wz, Wr, Wh = params["Wz"], params["Wr"], params["Wh"]
    h = np.zeros(2)
    for x in SEQ:
        hx = np.concatenate([h, x])
        z = sigmoid(Wz @ hx)
        r = sigmoid(Wr @ hx)
        hh = np.tanh(Wh @ np.concatenate([r * h, x]))
        h = (1 - z) * h + z * hh
    return np.sum(h)


_gp = {k: 0.4 * _rng.normal(size=(2, 5)) for k in ("Wz", "Wr", "Wh")}
CASES.append(G("r9_gru_cell_dict_params", gru, (_gp,), ref="jax"))


def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def ln_loss(x):
    return np.sum(layer_norm(x, np.array([1.0, 2.0, 0.5]), np.zeros(3)) * np.array([1.0, -1.0, 0.3]))


CASES.append(G("r9_layer_norm_wrt_input", ln_loss, (SEQ,), ref="jax"))


def batch_norm_train(x, running=np.zeros(3), momentum=0.9):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    new_running = momentum * running + (1 - momentum) * mu
    y = (x - mu) / np.sqrt(var + 1e-5)
    return np.sum(y[:, 0] * y[:, 1]) + np.sum(new_running)


CASES.append(G("r9_batch_norm_running_stats", batch_norm_train, (SEQ,), ref="jax"))

MASK = (_rng.uniform(size=(6, 3)) > 0.3).astype(float)


def dropout_loss(W):
    h = np.maximum(SEQ @ W, 0.0) * MASK / 0.7
    return np.mean(h ** 2)


CASES.append(G("r9_dropout_fixed_mask", dropout_loss, (_rng.normal(size=(3, 3)),), ref="jax"))


def quad(w):
    return np.sum((w - np.array([1.0, -2.0])) ** 2 * np.array([1.0, 10.0]))


dquad = revsrc.grad(quad)


def adam_unrolled(lr, steps=20, b1=0.9, b2=0.999, eps=1e-8):
    w = np.zeros(2)
    m = np.zeros(2)
    v = np.zeros(2)
    for t in range(1, steps + 1):
        g = dquad(w)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        w = w - lr * mhat / (np.sqrt(vhat) + eps)
    return quad(w)


def _adam_ref():
    from user_programs6_harness import jax
    jnp = jax().numpy

    def q(w):
        return jnp.sum((w - jnp.array([1.0, -2.0])) ** 2 * jnp.array([1.0, 10.0]))
    dq = jax().grad(q)

    def run(lr):
        w = jnp.zeros(2)
        m = jnp.zeros(2)
        v = jnp.zeros(2)
        for t in range(1, 21):
            g = dq(w)
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            w = w - lr * (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        return q(w)
    return jax().grad(run)(0.1)


CASES.append(G("r9_adam_unrolled_lr_hypergradient", adam_unrolled, (0.1,), ref=_adam_ref))

IDS = np.array([3, 1, 3, 0, 2])


def embed_loss(E):
    v = E[IDS]
    return np.sum(np.tanh(v.sum(axis=0)) ** 2)


CASES.append(G("r9_embedding_gather_repeated_ids", embed_loss, (_rng.normal(size=(4, 2)),), ref="jax"))

GUMBEL = -np.log(-np.log(_rng.uniform(size=4)))


def gumbel_softmax(logits, tau=0.5):
    y = (logits + GUMBEL) / tau
    y = np.exp(y - y.max())
    y = y / y.sum()
    return y @ np.array([1.0, 2.0, 3.0, 4.0])


CASES.append(G("r9_gumbel_softmax_fixed_noise", gumbel_softmax, (np.array([0.1, 0.5, -0.3, 0.2]),), ref="jax"))


def focal_loss(z, gamma=2.0):
    y = np.array([1.0, 0.0, 1.0, 1.0])
    p = 1 / (1 + np.exp(-z))
    pt = np.where(y == 1, p, 1 - p)
    return -np.sum((1 - pt) ** gamma * np.log(pt))


CASES.append(G("r9_focal_loss_where_labels", focal_loss, (np.array([0.3, -1.2, 2.0, -0.4]),), ref="jax"))


def svm_hinge(w):
    y = np.sign(SEQ[:, 0])
    margins = 1 - y * (SEQ[:, 1:] @ w)
    return np.mean(np.maximum(margins, 0.0)) + 0.01 * w @ w


CASES.append(G("r9_svm_hinge_loss", svm_hinge, (np.array([0.3, -0.8]),), ref="jax"))


def maxpool(x):
    return np.sum(x.reshape(3, 2, 4).max(axis=1) * np.arange(12.0).reshape(3, 4))


CASES.append(G("r9_maxpool_reshape_max", maxpool, (_rng.normal(size=(6, 4)),), ref="jax"))


def sliding(x):
    W = np.lib.stride_tricks.sliding_window_view(x, 3)
    return np.sum(W @ np.array([0.25, 0.5, 0.25]) ** 2) + np.sum(W.max(axis=1))


CASES.append(G("r9_sliding_window_view", sliding, (_rng.normal(size=8),), ref="fd"))


def planar_flow_logdet(u):
    w = np.array([0.5, -0.3])
    b = 0.1
    z = SEQ[:, :2]
    a = z @ w + b
    h_prime = 1 - np.tanh(a) ** 2
    return np.sum(np.log(np.abs(1 + h_prime * (u @ w))))


CASES.append(G("r9_planar_flow_logdet", planar_flow_logdet, (np.array([0.4, 0.2]),), ref="jax"))


def positional_mix(scale):
    pos = np.arange(6)[:, None]
    i = np.arange(4)[None, :]
    angle = pos / 10000 ** (2 * (i // 2) / 4)
    pe = np.where(i % 2 == 0, np.sin(angle * scale), np.cos(angle * scale))
    return np.sum(pe * np.linspace(-1, 1, 24).reshape(6, 4))


CASES.append(G("r9_sinusoidal_positional_encoding", positional_mix, (1.3,), ref="jax"))


def weight_decay_step(w, lr=0.1, wd=0.01):
    g = dquad(w)
    w_new = w - lr * (g + wd * w)
    return quad(w_new)


CASES.append(G("r9_weight_decay_step_grad_inside", weight_decay_step, (np.array([0.3, -0.5]),), ref="fd"))


def cosine_lr_schedule(base):
    total = 0.0
    for t in range(10):
        lr = 0.5 * base * (1 + math.cos(math.pi * t / 10))
        total += lr ** 2
    return total


CASES.append(G("r9_cosine_schedule_sum", cosine_lr_schedule, (0.1,), ref="jax"))
