"""Round 19, part d: sequence models from scratch -- embeddings looked up by integer
indexing, a linear-chain CRF's forward algorithm by logsumexp (and its gold-path score),
soft-DTW and soft-min edit distances by dynamic programming, Elman and GRU RNNs over
lists of arrays, attention with a causal mask, CTC-like forward recursions, and
parameters held as dicts, lists and tuples of arrays."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

rng = np.random.default_rng(19)
VOCAB, EMB, HID, TAGS = 7, 4, 5, 3
TOKENS = np.array([1, 4, 4, 2, 6, 0])
GOLD = np.array([0, 1, 1, 2, 0, 2])


def init_params(seed=0):
    r = np.random.default_rng(seed)
    return {
        "E": 0.5 * r.normal(size=(VOCAB, EMB)),
        "W": 0.4 * r.normal(size=(EMB, TAGS)),
        "T": 0.3 * r.normal(size=(TAGS, TAGS)),
        "start": 0.1 * r.normal(size=TAGS),
    }


PARAMS = init_params()


def logsumexp(v, axis=None):
    m = np.max(v, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(v - m), axis=axis, keepdims=True))
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


# ---------------------------------------------------------------- linear-chain CRF
def emissions(p, tokens):
    return p["E"][tokens] @ p["W"]          # (n, TAGS) by integer indexing


def crf_log_partition(p, tokens):
    em = emissions(p, tokens)
    alpha = p["start"] + em[0]
    for t in range(1, len(tokens)):
        alpha = logsumexp(alpha[:, None] + p["T"], axis=0) + em[t]
    return logsumexp(alpha)


def crf_gold_score(p, tokens, tags):
    em = emissions(p, tokens)
    s = p["start"][tags[0]] + em[0, tags[0]]
    for t, (a, b) in enumerate(zip(tags[:-1], tags[1:]), start=1):
        s = s + p["T"][a, b] + em[t, b]
    return s


def crf_nll(p, tokens=TOKENS, tags=GOLD):
    return crf_log_partition(p, tokens) - crf_gold_score(p, tokens, tags)


add(VG("r19d_crf_forward_logsumexp_dict_vg", crf_nll, (PARAMS,), ref="jax", tol=1e-9))
add(pair("r19d_crf_marginals_are_grad_of_logZ",
         lambda: revsrc.grad(lambda em: _logZ_from_em(em))(emissions(PARAMS, TOKENS)).sum(axis=1),
         lambda: np.ones(len(TOKENS)), tol=1e-10))


def _logZ_from_em(em):
    # the gradient of log Z wrt the emissions is the posterior tag marginals (rows sum to 1)
    alpha = PARAMS["start"] + em[0]
    for t in range(1, em.shape[0]):
        alpha = logsumexp(alpha[:, None] + PARAMS["T"], axis=0) + em[t]
    return logsumexp(alpha)


def crf_nll_in_place(p, tokens=TOKENS, tags=GOLD):
    # the alpha table filled in place, row by row
    em = emissions(p, tokens)
    n = len(tokens)
    A = np.zeros((n, TAGS))
    A[0] = p["start"] + em[0]
    for t in range(1, n):
        A[t, :] = logsumexp(A[t - 1][:, None] + p["T"], axis=0) + em[t]
    return logsumexp(A[-1]) - crf_gold_score(p, tokens, tags)


add(G("r19d_crf_alpha_table_in_place", crf_nll_in_place, (PARAMS,), ref=lambda: jax().grad(jaxify(crf_nll))(PARAMS), tol=1e-9))
add(pair("r19d_crf_hessian_wrt_transitions",
         lambda: revsrc.hessian(lambda T: crf_nll({**PARAMS, "T": T}))(PARAMS["T"]),
         lambda: fd_hess_checked(lambda T: crf_nll({**PARAMS, "T": T}), (PARAMS["T"],)), tol=1e-5))


def crf_batch_nll(p, batch):
    # a list of (tokens, tags) sequences of different lengths
    return sum(crf_nll(p, tk, tg) for tk, tg in batch) / len(batch)


BATCH = [(TOKENS, GOLD), (np.array([3, 3, 5]), np.array([2, 0, 0])), (np.array([6]), np.array([1]))]
add(G("r19d_crf_ragged_batch_generator_sum", crf_batch_nll, (PARAMS, BATCH), ref="jax", tol=1e-9))


# ---------------------------------------------------------------- soft-DTW
def softmin3(a, b, c, gamma):
    m = min(a, b, c)
    return m - gamma * math.log(math.exp(-(a - m) / gamma) + math.exp(-(b - m) / gamma) + math.exp(-(c - m) / gamma))


def soft_dtw(x, y, gamma=0.5):
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (x[i - 1] - y[j - 1]) ** 2
            R[i, j] = cost + softmin3(R[i - 1, j - 1], R[i - 1, j], R[i, j - 1], gamma)
    return R[n, m]


XSEQ = np.array([0.0, 0.5, 1.2, 0.9, 0.1])
YSEQ = np.array([0.1, 0.9, 1.0, 0.2])
add(VG("r19d_soft_dtw_inf_border_softmin", soft_dtw, (XSEQ, YSEQ), ref="fd", tol=1e-7))
add(G("r19d_soft_dtw_wrt_both", soft_dtw, (XSEQ, YSEQ), argnums=(0, 1), ref="fd", tol=1e-7))
add(G("r19d_soft_dtw_wrt_gamma", soft_dtw, (XSEQ, YSEQ, 0.5), argnums=2, ref="fd", tol=1e-6))


def soft_edit_distance(x_logits, target, gamma=0.3):
    # soft-min edit distance where substitution cost is 1 - p(target char)
    p = np.exp(x_logits - logsumexp(x_logits, axis=1)[:, None])
    n, m = p.shape[0], len(target)
    D = np.zeros((n + 1, m + 1))
    D[:, 0] = np.arange(n + 1)
    D[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sub = D[i - 1, j - 1] + 1.0 - p[i - 1, target[j - 1]]
            v = np.array([sub, D[i - 1, j] + 1.0, D[i, j - 1] + 1.0])
            D[i, j] = -gamma * logsumexp(-v / gamma)
    return D[n, m]


XL = rng.normal(size=(4, VOCAB))
add(G("r19d_soft_edit_distance_int_target", soft_edit_distance, (XL, np.array([2, 5, 1])), ref="fd", tol=1e-7))


# ---------------------------------------------------------------- Elman RNN over a list of arrays
def rnn_params(seed=1):
    r = np.random.default_rng(seed)
    return [0.5 * r.normal(size=(EMB, HID)), 0.4 * r.normal(size=(HID, HID)), np.zeros(HID),
            0.5 * r.normal(size=(HID, 1))]


RP = rnn_params()
XS_LIST = [rng.normal(size=EMB) for _ in range(5)]
Y_TGT = np.array([0.3, -0.2, 0.5, 0.1, -0.4])


def elman_loss(params, xs, ys):
    Wx, Wh, b, Wo = params
    h = np.zeros(HID)
    loss = 0.0
    for x, y in zip(xs, ys):
        h = np.tanh(x @ Wx + h @ Wh + b)
        loss = loss + (float(h @ Wo[:, 0]) - y) ** 2
    return loss / len(xs)


add(VG("r19d_elman_list_params_list_inputs_vg", elman_loss, (RP, XS_LIST, Y_TGT), ref="fd", tol=1e-8))
add(G("r19d_elman_grad_wrt_inputs_list", elman_loss, (RP, XS_LIST, Y_TGT), argnums=1, ref="fd", tol=1e-8))


def elman_reversed_bidir(params, xs):
    # a bidirectional sum: forward pass and a pass over reversed(xs) with the same weights
    Wx, Wh, b, Wo = params
    hf = np.zeros(HID)
    hb = np.zeros(HID)
    for x in xs:
        hf = np.tanh(x @ Wx + hf @ Wh + b)
    for x in reversed(xs):
        hb = np.tanh(x @ Wx + hb @ Wh + b)
    return np.sum((hf + hb) @ Wo)


add(G("r19d_bidirectional_reversed_list", elman_reversed_bidir, (RP, XS_LIST), ref="jax", tol=1e-10))


# ---------------------------------------------------------------- GRU cell as a class
class GRU:
    def __init__(self, Wz, Wr, Wh):
        self.Wz, self.Wr, self.Wh = Wz, Wr, Wh

    @staticmethod
    def sigmoid(v):
        return 1.0 / (1.0 + np.exp(-v))

    def step(self, h, x):
        hx = np.concatenate([h, x])
        z = self.sigmoid(hx @ self.Wz)
        r = self.sigmoid(hx @ self.Wr)
        hh = np.tanh(np.concatenate([r * h, x]) @ self.Wh)
        return (1 - z) * h + z * hh


def gru_loss(W, xs=tuple(XS_LIST), target=0.25):
    cell = GRU(W["z"], W["r"], W["h"])
    h = np.zeros(HID)
    for x in xs:
        h = cell.step(h, x)
    return (np.mean(h) - target) ** 2


GW = {k: 0.4 * rng.normal(size=(HID + EMB, HID)) for k in ("z", "r", "h")}
def _gru_plain(W, xs=tuple(XS_LIST), target=0.25):
    # the same GRU without the class, for JAX's reference
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
    h = np.zeros(HID)
    for x in xs:
        hx = np.concatenate([h, x])
        z = sig(hx @ W["z"])
        r = sig(hx @ W["r"])
        hh = np.tanh(np.concatenate([r * h, x]) @ W["h"])
        h = (1 - z) * h + z * hh
    return (np.mean(h) - target) ** 2


add(VG("r19d_gru_class_staticmethod_vg", gru_loss, (GW,), ref=lambda: jax().grad(jaxify(_gru_plain))(GW), tol=1e-10))
add(pair("r19d_gru_hvp", lambda: revsrc.hvp(lambda w: gru_loss({"z": w, "r": GW["r"], "h": GW["h"]}), (GW["z"],), (np.ones_like(GW["z"]),)),
         lambda: _gru_hvp_ref(), tol=1e-8))


def _gru_hvp_ref():
    j = jax()
    f = lambda w: jaxify(_gru_plain)({"z": w, "r": GW["r"], "h": GW["h"]})  # noqa: E731
    v = np.ones_like(GW["z"])
    return j.jvp(j.grad(f), (GW["z"],), (v,))[1]


# ---------------------------------------------------------------- causal self-attention
def attention_loss(Wq, Wk, Wv, X):
    n, d = X.shape
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / math.sqrt(d)
    mask = np.triu(np.ones((n, n), dtype=bool), k=1)
    S = np.where(mask, -np.inf, S)
    S = S - np.max(S, axis=1, keepdims=True)
    A = np.exp(S)
    A = A / np.sum(A, axis=1, keepdims=True)
    out = A @ V
    return np.sum(out ** 2)


XA = rng.normal(size=(4, EMB))
WQ, WK, WV = (0.5 * rng.normal(size=(EMB, EMB)) for _ in range(3))
add(G("r19d_causal_attention_neg_inf_mask", attention_loss, (WQ, WK, WV, XA), argnums=(0, 1, 2), ref="jax", tol=1e-10))
add(G("r19d_causal_attention_wrt_inputs", attention_loss, (WQ, WK, WV, XA), argnums=3, ref="jax", tol=1e-10))


# ---------------------------------------------------------------- CTC-like forward recursion
def ctc_nll(logits, label=(1, 2, 2), blank=0):
    # extended label with blanks; alpha recursion in log space
    logp = logits - logsumexp(logits, axis=1)[:, None]
    ext = [blank]
    for c in label:
        ext += [c, blank]
    S = len(ext)
    alpha = np.full(S, -np.inf)
    alpha[0] = logp[0, blank]
    alpha[1] = logp[0, ext[1]]
    for t in range(1, logp.shape[0]):
        new = np.full(S, -np.inf)
        for s in range(S):
            cands = [alpha[s]]
            if s >= 1:
                cands.append(alpha[s - 1])
            if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                cands.append(alpha[s - 2])
            new[s] = logsumexp(np.array(cands)) + logp[t, ext[s]]
        alpha = new
    return -np.logaddexp(alpha[-1], alpha[-2])


CL = rng.normal(size=(7, 3))
add(G("r19d_ctc_forward_neg_inf_init", ctc_nll, (CL,), ref="fd", tol=1e-7))


def ctc_nll_lists(logits, label=(1, 2, 2), blank=0):
    # the same recursion with alpha rebuilt from a list each step (no alias)
    logp = logits - logsumexp(logits, axis=1)[:, None]
    ext = [blank]
    for c in label:
        ext += [c, blank]
    S = len(ext)
    alpha = np.array([logp[0, blank], logp[0, ext[1]]] + [-np.inf] * (S - 2))
    for t in range(1, logp.shape[0]):
        new = []
        for s in range(S):
            cands = [alpha[s]]
            if s >= 1:
                cands.append(alpha[s - 1])
            if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                cands.append(alpha[s - 2])
            new.append(logsumexp(np.array(cands)) + logp[t, ext[s]])
        alpha = np.array(new)
    return -np.logaddexp(alpha[-1], alpha[-2])


add(G("r19d_ctc_forward_list_rebuild", ctc_nll_lists, (CL,), ref="fd", tol=1e-7))


def crf_small(p):
    return crf_nll({"E": PARAMS["E"], "W": PARAMS["W"], "T": p["T"], "start": p["start"]})


def _crf_small_hess_ref():
    x0 = np.concatenate([PARAMS["start"], PARAMS["T"].ravel()])
    Hf = fd_hess_checked(lambda v: crf_small({"start": v[:TAGS], "T": v[TAGS:].reshape(TAGS, TAGS)}), (x0,))[0]
    s, t = slice(0, TAGS), slice(TAGS, TAGS + TAGS * TAGS)
    sh = (TAGS, TAGS)
    return {"T": {"T": Hf[t, t].reshape(sh + sh), "start": Hf[t, s].reshape(sh + (TAGS,))},
            "start": {"T": Hf[s, t].reshape((TAGS,) + sh), "start": Hf[s, s]}}


add(pair("r19d_crf_hessian_dict_argument", lambda: revsrc.hessian(crf_small)({"T": PARAMS["T"], "start": PARAMS["start"]}),
         _crf_small_hess_ref, tol=1e-5))


# ---------------------------------------------------------------- Viterbi score with a hard max (piecewise)
def viterbi_score(p, tokens=TOKENS):
    em = emissions(p, tokens)
    delta = p["start"] + em[0]
    for t in range(1, len(tokens)):
        delta = np.max(delta[:, None] + p["T"], axis=0) + em[t]
    return np.max(delta)


add(G("r19d_viterbi_max_dp_dict", viterbi_score, (PARAMS,), ref="jax", tol=1e-10))


# ---------------------------------------------------------------- embedding update with np.add.at
def embedding_bag_loss(E, tokens=TOKENS, w=np.linspace(-1, 1, EMB)):
    # bag of embeddings accumulated by np.add.at into a per-position buffer
    buf = np.zeros((3, EMB))
    np.add.at(buf, tokens % 3, E[tokens])
    return np.sum(np.tanh(buf @ w) ** 2)


add(G("r19d_embedding_bag_add_at_repeated_index", embedding_bag_loss, (PARAMS["E"],), ref="fd", tol=1e-8))


# ---------------------------------------------------------------- more: LSTM with a tuple state, negative indices
def lstm_step(params, state, x):
    h, c = state
    z = np.concatenate([x, h]) @ params["W"] + params["b"]
    i, f, o, g = np.split(z, 4)
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
    c = sig(f) * c + sig(i) * np.tanh(g)
    h = sig(o) * np.tanh(c)
    return (h, c)


def lstm_lm_loss(params, tokens=TOKENS):
    state = (np.zeros(HID), np.zeros(HID))
    loss = 0.0
    for cur, nxt in zip(tokens[:-1], tokens[1:]):
        state = lstm_step(params, state, params["emb"][cur])
        logits = state[0] @ params["out"]
        loss = loss - (logits[nxt] - logsumexp(logits))
    return loss / (len(tokens) - 1)


LP = {"W": 0.3 * rng.normal(size=(EMB + HID, 4 * HID)), "b": np.zeros(4 * HID),
      "emb": 0.5 * rng.normal(size=(VOCAB, EMB)), "out": 0.5 * rng.normal(size=(HID, VOCAB))}
add(VG("r19d_lstm_tuple_state_split_vg", lstm_lm_loss, (LP,), ref="jax", tol=1e-10))
add(G("r19d_lstm_negative_token_indices", lstm_lm_loss, (LP, np.array([-1, 2, -3, 4])), ref="jax", tol=1e-10))


# ---------------------------------------------------------------- soft-min Viterbi (smoothed DP) over reversed time
def soft_backward(p, tokens=TOKENS, gamma=0.7):
    em = emissions(p, tokens)
    beta = np.zeros(TAGS)
    for t in reversed(range(len(tokens) - 1)):
        beta = gamma * logsumexp((p["T"] + em[t + 1][None, :] + beta[None, :]) / gamma, axis=1)
    return gamma * logsumexp((p["start"] + em[0] + beta) / gamma)


def soft_forward(p, tokens=TOKENS, gamma=0.7):
    em = emissions(p, tokens)
    alpha = p["start"] + em[0]
    for t in range(1, len(tokens)):
        alpha = gamma * logsumexp((alpha[:, None] + p["T"]) / gamma, axis=0) + em[t]
    return gamma * logsumexp(alpha / gamma)


add(pair("r19d_soft_backward_equals_forward_value", lambda: revsrc.value_and_grad(soft_backward)(PARAMS)[0],
         lambda: soft_forward(PARAMS), tol=1e-12))
add(pair("r19d_soft_backward_grad_equals_forward_grad", lambda: revsrc.grad(soft_backward)(PARAMS),
         lambda: jax().grad(jaxify(soft_forward))(PARAMS), tol=1e-10))
add(G("r19d_soft_forward_wrt_gamma", soft_forward, (PARAMS, TOKENS, 0.7), argnums=2, ref="jax", tol=1e-10))


# ---------------------------------------------------------------- jacrev of the embedding lookup with repeated tokens
add(pair("r19d_jacrev_emissions_wrt_table_repeated", lambda: revsrc.jacrev(lambda E: emissions({"E": E, "W": PARAMS["W"]}, TOKENS))(PARAMS["E"]),
         lambda: jax().jacrev(lambda E: jaxify(emissions)({"E": E, "W": PARAMS["W"]}, TOKENS))(PARAMS["E"]), tol=1e-12))


# ---------------------------------------------------------------- features by column writes, then a logistic sequence tagger
def feature_matrix(x):
    n = x.shape[0]
    F = np.zeros((n, 4))
    F[:, 0] = x
    F[1:, 1] = x[:-1]          # previous value
    F[:-1, 2] = x[1:]          # next value
    F[:, 3] = np.cumsum(x) / np.arange(1, n + 1)
    return F


def tagger_loss(w, x=np.array([0.2, -0.5, 1.1, 0.7, -0.3]), y=np.array([1, 0, 1, 1, 0])):
    z = feature_matrix(x) @ w
    return np.sum(np.logaddexp(0.0, z) - y * z)


add(G("r19d_tagger_column_writes_wrt_w", tagger_loss, (np.array([0.5, -0.2, 0.3, 0.1]),), ref="ag", tol=1e-12))
add(G("r19d_tagger_column_writes_wrt_x", tagger_loss, (np.array([0.5, -0.2, 0.3, 0.1]), np.array([0.2, -0.5, 1.1, 0.7, -0.3])),
      argnums=1, ref="fd", tol=1e-8))


# ---------------------------------------------------------------- attention with einsum (first order) and its hessian
def einsum_attention(Wq, X=XA):
    Q = np.einsum("nd,de->ne", X, Wq)
    S = np.einsum("ne,me->nm", Q, X) / 2.0
    A = np.exp(S - np.max(S, axis=1, keepdims=True))
    A = A / np.sum(A, axis=1, keepdims=True)
    return np.sum(np.einsum("nm,md->nd", A, X) ** 2)


add(G("r19d_einsum_attention_grad", einsum_attention, (WQ,), ref="jax", tol=1e-10))
add(pair("r19d_einsum_attention_hessian", lambda: revsrc.hessian(einsum_attention)(WQ[:2, :2] if False else WQ),
         lambda: fd_hess_checked(einsum_attention, (WQ,)), tol=1e-5))


# ---------------------------------------------------------------- sequence loss with early return on an empty batch
def mean_seq_nll(p, batch):
    if len(batch) == 0:
        return 0.0
    return sum(crf_nll(p, tk, tg) for tk, tg in batch) / len(batch)


add(pair("r19d_empty_batch_early_return", lambda: revsrc.grad(mean_seq_nll)(PARAMS, []),
         lambda: {k: np.zeros_like(v) for k, v in PARAMS.items()}, tol=0.0))
