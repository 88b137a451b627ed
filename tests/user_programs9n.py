"""Round 9, mixed programs: helpers imported from another module of the corpus,
simulator classes with methods and state, dataclass configs with static fields,
nested helper functions, loops whose exit test combines several conditions, small
ML pieces not in earlier rounds (ridge by solve, Huber regression, ranking losses,
label smoothing, cosine similarity, triplet margins)."""
import dataclasses
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401
from user_programs9a import clenshaw, cont_frac_tan, legendre_recurrence
from user_programs9b import quat_mul

CASES = []
_rng = np.random.default_rng(31)


def uses_other_module(x):
    return clenshaw(np.array([1.0, 0.5, -0.25]), x) * legendre_recurrence(x, 4) + cont_frac_tan(x)


CASES.append(G("r9_helpers_imported_from_other_module", uses_other_module, (0.35,), ref="fd", tol=1e-6))


def quat_norm_chain(t):
    q = (math.cos(t), math.sin(t), 0.0, 0.0)
    for _ in range(3):
        q = quat_mul(q, (math.cos(0.1 * t), 0.0, math.sin(0.1 * t), 0.0))
    return q[0] + 2 * q[1] + 3 * q[2] + 4 * q[3]


CASES.append(G("r9_imported_quaternion_product_chain", quat_norm_chain, (0.6,), ref="fd", tol=1e-6))


@dataclasses.dataclass
class Config:
    steps: int = dataclasses.field(default=50, metadata={"static": True})
    dt: float = 0.02
    damping: float = 0.1


def sim_with_config(k, cfg=Config()):
    x, v = 1.0, 0.0
    for _ in range(cfg.steps):
        v += cfg.dt * (-k * x - cfg.damping * v)
        x += cfg.dt * v
    return x


CASES.append(G("r9_dataclass_config_default_argument", sim_with_config, (3.0,), ref="jax"))


def sim_cfg_grad(cfg):
    return sim_with_config(2.0, cfg)


def _cfg_got():
    g = revsrc.grad(sim_cfg_grad)(Config(steps=40, dt=0.03, damping=0.2))
    return (g.dt, g.damping)


def _cfg_ref():
    from user_programs7_harness import fd_checked
    f = lambda dt, dmp: sim_with_config(2.0, Config(steps=40, dt=dt, damping=dmp))  # noqa: E731
    return (fd_checked(f, (0.03, 0.2), argnums=0), fd_checked(f, (0.03, 0.2), argnums=1))


CASES.append(pair("r9_grad_wrt_dataclass_config_static_field", _cfg_got, _cfg_ref, tol=1e-6))


class Oscillator:
    def __init__(self, k, c):
        self.k = k
        self.c = c

    def accel(self, x, v):
        return -self.k * x - self.c * v

    def run(self, x0, steps=100, dt=0.05):
        x, v = x0, 0.0
        for _ in range(steps):
            a = self.accel(x, v)
            v = v + dt * a
            x = x + dt * v
        return x


_osc = Oscillator(2.0, 0.3)
CASES.append(G("r9_bound_method_simulator", _osc.run, (1.0,), ref="fd", tol=1e-6))


def osc_built_inside(k):
    o = Oscillator(k, 0.3)
    return o.run(1.0)


CASES.append(G("r9_object_built_inside_method_loop", osc_built_inside, (2.0,), ref="fd", tol=1e-6))


def multi_exit(x0):
    x = x0
    it = 0
    while it < 100 and abs(x) > 1e-8 and x == x:
        x = x - math.tanh(x)
        it += 1
    return x * 1e6 + it


CASES.append(G("r9_while_multi_condition_exit", multi_exit, (0.3,), ref="ag", tol=1e-6))


def nested_helpers(a):
    def inner(t):
        def innermost(s):
            return math.sin(a * s)
        return innermost(t) * t
    return inner(0.5) + inner(1.5)


CASES.append(G("r9_nested_def_two_levels_closure", nested_helpers, (1.2,), ref=lambda: 0.25 * math.cos(0.6) + 2.25 * math.cos(1.8), tol=1e-12))

_Xr = _rng.normal(size=(12, 3))
_yr = _Xr @ np.array([0.5, -1.0, 2.0]) + 0.1 * _rng.normal(size=12)


def ridge_val_loss(log_lam):
    lam = np.exp(log_lam)
    Xt, yt, Xv, yv = _Xr[:8], _yr[:8], _Xr[8:], _yr[8:]
    w = np.linalg.solve(Xt.T @ Xt + lam * np.eye(3), Xt.T @ yt)
    return np.mean((Xv @ w - yv) ** 2)


CASES.append(G("r9_ridge_validation_loss_hyperparam", ridge_val_loss, (0.3,), ref="jax"))


def huber_reg(w, delta=0.5):
    r = _Xr @ w - _yr
    a = np.abs(r)
    return np.sum(np.where(a < delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


CASES.append(G("r9_huber_regression_where", huber_reg, (np.array([0.3, -0.7, 1.5]),), ref="jax"))


def pairwise_rank_loss(s):
    rel = np.array([3.0, 1.0, 2.0, 0.0])
    loss = 0.0
    for i in range(4):
        for j in range(4):
            if rel[i] > rel[j]:
                loss += np.log1p(np.exp(-(s[i] - s[j])))
    return loss


CASES.append(G("r9_ranknet_pairwise_loop", pairwise_rank_loss, (np.array([0.2, 0.5, -0.1, 0.3]),), ref="jax"))


def label_smoothing_ce(logits, eps=0.1):
    n = logits.shape[-1]
    target = np.array([0, 2, 1])
    soft = np.full((3, n), eps / n)
    soft[np.arange(3), target] += 1 - eps
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -np.sum(soft * logp) / 3


CASES.append(G("r9_label_smoothing_fancy_augassign", label_smoothing_ce, (_rng.normal(size=(3, 4)),), ref="fd"))


def cosine_sim(a, b):
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


_a3, _b3 = _rng.normal(size=3), _rng.normal(size=3)
CASES.append(G("r9_cosine_similarity_both", cosine_sim, (_a3, _b3), argnums=(0, 1), ref="jax"))


def triplet(anchor, pos=np.array([0.1, 0.2, 0.3]), neg=np.array([0.5, -0.2, 0.0]), margin=1.0):
    dp = np.sum((anchor - pos) ** 2)
    dn = np.sum((anchor - neg) ** 2)
    return max(dp - dn + margin, 0.0)


CASES.append(G("r9_triplet_margin_builtin_max", triplet, (np.array([0.0, 0.1, 0.2]),), ref="jax"))


def contrastive_temperature(tau):
    E = _rng.normal(size=(4, 3)) * 0 + np.array([[1.0, 0.0, 0.2], [0.9, 0.1, 0.1], [0.0, 1.0, 0.3], [-0.2, 0.8, 0.5]])
    E = E / np.linalg.norm(E, axis=1, keepdims=True)
    S = E @ E.T / tau
    S = S - 1e9 * np.eye(4)
    pos = np.array([1, 0, 3, 2])
    logZ = np.log(np.sum(np.exp(S - S.max(axis=1, keepdims=True)), axis=1)) + S.max(axis=1)
    return -np.mean(S[np.arange(4), pos] - logZ)


CASES.append(G("r9_infonce_temperature", contrastive_temperature, (0.5,), ref="jax"))


def knn_soft(x):
    pts = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    vals = np.array([0.0, 1.0, 2.0, 3.0])
    d2 = np.sum((pts - x) ** 2, axis=1)
    w = np.exp(-d2 / 0.1)
    return np.sum(w * vals) / np.sum(w)


CASES.append(G("r9_soft_nearest_neighbour", knn_soft, (np.array([0.3, 0.6]),), ref="jax"))


def gram_schmidt(V):
    Q = []
    for v in V:
        w = v.copy()
        for q in Q:
            w = w - (q @ v) * q
        Q.append(w / np.linalg.norm(w))
    return Q[2] @ np.array([1.0, 2.0, 3.0])


CASES.append(G("r9_gram_schmidt_list_of_arrays", gram_schmidt, (np.eye(3) + 0.3 * _rng.normal(size=(3, 3)),), ref="fd"))


def running_stats(xs):
    # Welford's online mean and variance
    n = 0
    mean = 0.0
    m2 = 0.0
    for x in xs:
        n += 1
        d = x - mean
        mean += d / n
        m2 += d * (x - mean)
    return m2 / (n - 1)


_xs9 = _rng.normal(size=9)
CASES.append(G("r9_welford_online_variance", running_stats, (_xs9,), ref=lambda: 2 * (_xs9 - _xs9.mean()) / 8, tol=1e-10))


def exp_moving_avg(alpha):
    ema = 0.0
    out = []
    for t, x in enumerate(_xs9):
        ema = alpha * x + (1 - alpha) * ema if t else x
        out.append(ema)
    return sum(o * o for o in out)


CASES.append(G("r9_ema_conditional_first_step", exp_moving_avg, (0.3,), ref="ag"))


def softmax_temperature_entropy(t):
    z = np.array([1.0, 2.0, 0.5, -1.0]) / t
    p = np.exp(z - np.max(z))
    p /= p.sum()
    return -np.sum(p * np.log(p))


CASES.append(G("r9_softmax_entropy_inplace_div", softmax_temperature_entropy, (0.7,), ref="fd"))
