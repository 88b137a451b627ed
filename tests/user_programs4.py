"""User programs for the adversarial tester (round 4).

Written as users write them, without reading revsrc's implementation: longer realistic
programs mixing features (physics steps with collisions, EM, attention blocks, conv1d
with slicing loops, adaptive integrators, bond yields, soft ranking, Hamiltonian
integrators in classes, RTS smoothers, SIR models, interpolation, ray tracing,
polynomial chaos) and short adversarial edge programs (int/bool mixes, float32, 0-d
arrays, empty loops, negative steps, closures, globals and attributes changed between
calls, writes through views, norms), with second derivatives, jit, vmap and
backend="jax" variants.

Each case: name, family, fn, args, argnums, doc (refusal codes the README documents
for this program), jfn (the same program in jax.numpy, optional), check (a custom
check: raises AssertionError on a wrong number), opts (passed to revsrc.grad; the key
"mode" picks grad / hess / hvp / jvp).
"""
import dataclasses
import math
from typing import NamedTuple

import numpy as np

import revsrc


import corpus_harness as _h
from corpus_harness import Case, classify, close, fd, fd_hess, fd_jac, run_case  # noqa: F401

_CORPUS = _h.Corpus()
CASES = _CORPUS.cases
case, custom, variants = _CORPUS.case, _CORPUS.custom, _CORPUS.variants
_jax, _cargs, _leaves, _get, _set, _isfloat = _h.jax_x64, _h.cargs, _h.leaves, _h.get, _h.put, _h.isfloat


def jnp():
    return _jax().numpy


# ---------------------------------------------------------------------------
# Longer realistic programs
# ---------------------------------------------------------------------------

def physics_balls_step(pos, vel, radius=0.3, dt=0.05, steps=20):
    """Balls in a 1-D box with wall bounces (np.where) and pairwise soft repulsion."""
    p = pos.copy()
    v = vel.copy()
    n = p.shape[0]
    energy = 0.0
    for _ in range(steps):
        force = np.zeros(n)
        for i in range(n):
            for j in range(n):
                if i != j:
                    d = p[i] - p[j]
                    overlap = 2 * radius - abs(d)
                    if overlap > 0:
                        force[i] += 50.0 * overlap * np.sign(d)
        v = v + dt * (force - 9.81 * 0.0 - 0.1 * v)
        p = p + dt * v
        hit_lo = p < radius
        hit_hi = p > 5.0 - radius
        v = np.where(hit_lo | hit_hi, -0.9 * v, v)
        p = np.where(hit_lo, 2 * radius - p, p)
        p = np.where(hit_hi, 2 * (5.0 - radius) - p, p)
        energy = energy + 0.5 * np.sum(v * v) * dt
    return np.sum(p * np.arange(1, n + 1)) + energy


variants("phys_balls_collisions", "physics", physics_balls_step,
         (np.array([0.5, 1.05, 2.2, 4.3]), np.array([1.3, -0.7, 0.4, 2.1])), ["grad", "hvp"], argnums=(0, 1) if False else 1)


def gmm_em_step(mu, x, log_sig, logits):
    """One EM step of a 1-D Gaussian mixture; loss = log-likelihood after the step."""
    pi = np.exp(logits - np.max(logits))
    pi = pi / pi.sum()
    sig = np.exp(log_sig)
    d = (x[:, None] - mu[None, :]) / sig[None, :]
    logp = -0.5 * d ** 2 - np.log(sig)[None, :] - 0.5 * np.log(2 * np.pi) + np.log(pi)[None, :]
    m = logp.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(logp - m), axis=1))
    r = np.exp(logp - lse[:, None])
    nk = r.sum(axis=0)
    mu_new = (r * x[:, None]).sum(axis=0) / nk
    var_new = (r * (x[:, None] - mu_new[None, :]) ** 2).sum(axis=0) / nk
    pi_new = nk / x.shape[0]
    d2 = (x[:, None] - mu_new[None, :]) ** 2 / var_new[None, :]
    logp2 = -0.5 * d2 - 0.5 * np.log(var_new)[None, :] + np.log(pi_new)[None, :]
    m2 = np.max(logp2, axis=1)
    return float(np.mean(m2 + np.log(np.exp(logp2 - m2[:, None]).sum(axis=1))))


_X_GMM = np.array([-2.1, -1.7, -0.3, 0.2, 0.9, 1.4, 2.8, 3.1, 3.3])


def gmm_em_step_j(mu, x, log_sig, logits):
    np_ = jnp()
    pi = np_.exp(logits - np_.max(logits))
    pi = pi / pi.sum()
    sig = np_.exp(log_sig)
    d = (x[:, None] - mu[None, :]) / sig[None, :]
    logp = -0.5 * d ** 2 - np_.log(sig)[None, :] - 0.5 * np_.log(2 * np_.pi) + np_.log(pi)[None, :]
    m = logp.max(axis=1, keepdims=True)
    lse = m[:, 0] + np_.log(np_.sum(np_.exp(logp - m), axis=1))
    r = np_.exp(logp - lse[:, None])
    nk = r.sum(axis=0)
    mu_new = (r * x[:, None]).sum(axis=0) / nk
    var_new = (r * (x[:, None] - mu_new[None, :]) ** 2).sum(axis=0) / nk
    pi_new = nk / x.shape[0]
    d2 = (x[:, None] - mu_new[None, :]) ** 2 / var_new[None, :]
    logp2 = -0.5 * d2 - 0.5 * np_.log(var_new)[None, :] + np_.log(pi_new)[None, :]
    m2 = np_.max(logp2, axis=1)
    return np_.mean(m2 + np_.log(np_.exp(logp2 - m2[:, None]).sum(axis=1)))


variants("ml_gmm_em_step", "ml", gmm_em_step,
         (np.array([-1.0, 0.5, 2.5]), _X_GMM, np.array([0.1, -0.2, 0.3]), np.array([0.0, 0.2, -0.1])),
         ["grad", "hess", "jax"], jfn=gmm_em_step_j)


def attention_block(Wq, x, Wk, Wv, gamma, mask_future=True):
    """Single-head causal self-attention with layer norm and a residual."""
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    h = gamma * (x - mu) / np.sqrt(var + 1e-5)
    q = h @ Wq
    k = h @ Wk
    v = h @ Wv
    scores = q @ k.T / np.sqrt(q.shape[-1])
    T = x.shape[0]
    if mask_future:
        mask = np.triu(np.ones((T, T), dtype=bool), k=1)
        scores = np.where(mask, -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    out = x + w @ v
    return np.sum(np.tanh(out) ** 2)


def attention_block_j(Wq, x, Wk, Wv, gamma, mask_future=True):
    np_ = jnp()
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    h = gamma * (x - mu) / np_.sqrt(var + 1e-5)
    q = h @ Wq
    k = h @ Wk
    v = h @ Wv
    scores = q @ k.T / np_.sqrt(q.shape[-1])
    T = x.shape[0]
    mask = np_.triu(np_.ones((T, T), dtype=bool), k=1)
    scores = np_.where(mask, -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np_.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    out = x + w @ v
    return np_.sum(np_.tanh(out) ** 2)


_r = np.random.default_rng(11)
_ATT = (_r.normal(size=(4, 4)) * 0.5, _r.normal(size=(5, 4)), _r.normal(size=(4, 4)) * 0.5,
        _r.normal(size=(4, 4)) * 0.5, np.array([1.0, 0.9, 1.1, 1.2]))
variants("ml_attention_block_wq", "ml", attention_block, _ATT, ["grad", "hvp", "jax"], jfn=attention_block_j)
variants("ml_attention_block_x", "ml", attention_block, _ATT, ["grad", "hess"], argnums=1, jfn=attention_block_j)
variants("ml_attention_block_gamma", "ml", attention_block, _ATT, ["grad"], argnums=4, jfn=attention_block_j)


def conv1d_loops(w, x, b):
    """Valid conv1d, 2 output channels, written with slicing loops, then ReLU-ish + pooling."""
    C, K = w.shape
    L = x.shape[0] - K + 1
    out = np.zeros((C, L))
    for c in range(C):
        for t in range(L):
            out[c, t] = np.dot(w[c], x[t:t + K]) + b[c]
    act = np.log1p(np.exp(out))  # softplus
    pooled = np.zeros((C, L // 2))
    for t in range(0, L - 1, 2):
        pooled[:, t // 2] = np.maximum(act[:, t], act[:, t + 1])
    return np.sum(pooled ** 2) / pooled.size


def conv1d_loops_j(w, x, b):
    np_ = jnp()
    C, K = w.shape
    L = x.shape[0] - K + 1
    out = np_.stack([np_.stack([np_.dot(w[c], x[t:t + K]) + b[c] for t in range(L)]) for c in range(C)])
    act = np_.log1p(np_.exp(out))
    pooled = np_.stack([np_.maximum(act[:, t], act[:, t + 1]) for t in range(0, L - 1, 2)], axis=1)
    return np_.sum(pooled ** 2) / pooled.size


_CONV = (np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.3]]), np.array([0.2, 1.1, -0.5, 0.7, 1.9, -1.2, 0.4, 0.05, 0.9]),
         np.array([0.1, -0.05]))
variants("sig_conv1d_loops_w", "signal", conv1d_loops, _CONV, ["grad", "hess", "jax"], jfn=conv1d_loops_j)
variants("sig_conv1d_loops_x", "signal", conv1d_loops, _CONV, ["grad", "hvp"], argnums=1, jfn=conv1d_loops_j)


def rkf45(k, y0=1.0, t_end=2.0, tol=1e-8):
    """Runge-Kutta-Fehlberg 4(5) with step control, on y' = -k*y + sin(t)."""
    def f(t, y):
        return -k * y + math.sin(t)
    t = 0.0
    y = y0
    h = 0.1
    n = 0
    while t < t_end and n < 500:
        if t + h > t_end:
            h = t_end - t
        k1 = h * f(t, y)
        k2 = h * f(t + h / 4, y + k1 / 4)
        k3 = h * f(t + 3 * h / 8, y + 3 * k1 / 32 + 9 * k2 / 32)
        k4 = h * f(t + 12 * h / 13, y + 1932 * k1 / 2197 - 7200 * k2 / 2197 + 7296 * k3 / 2197)
        k5 = h * f(t + h, y + 439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104)
        k6 = h * f(t + h / 2, y - 8 * k1 / 27 + 2 * k2 - 3544 * k3 / 2565 + 1859 * k4 / 4104 - 11 * k5 / 40)
        y4 = y + 25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5
        y5 = y + 16 * k1 / 135 + 6656 * k3 / 12825 + 28561 * k4 / 56430 - 9 * k5 / 50 + 2 * k6 / 55
        err = abs(y5 - y4)
        if err <= tol or h < 1e-6:
            t = t + h
            y = y5
        s = 0.84 * (tol / (err + 1e-30)) ** 0.25
        s = min(max(s, 0.1), 4.0)
        h = revsrc.stop_gradient(h * s)
        n += 1
    return y


def rkf45_ref(k):
    # exact solution of y' = -k y + sin t, y(0)=1, at t=2
    t = 2.0
    c = 1.0 + 1.0 / (1 + k * k)
    return c * math.exp(-k * t) + (k * math.sin(t) - math.cos(t)) / (1 + k * k)


@custom("ode_rkf45_adaptive_while", "ode")
def _c_rkf45():
    g = revsrc.grad(rkf45)(0.7)
    close(rkf45(0.7), rkf45_ref(0.7), rtol=1e-6, what="value")
    close(g, fd(rkf45_ref, 0.7), rtol=1e-5, what="grad vs exact")


@custom("ode_rkf45_adaptive_while_y0", "ode")
def _c_rkf45_y0():
    g = revsrc.grad(rkf45, argnums=1)(0.7, 1.3)
    close(g, math.exp(-0.7 * 2.0), rtol=1e-5, what="dy/dy0")


@custom("ode_rkf45_hessian", "ode")
def _c_rkf45_h():
    H = revsrc.hessian(rkf45)(0.7)
    h = 1e-4
    close(H, (rkf45_ref(0.7 + h) - 2 * rkf45_ref(0.7) + rkf45_ref(0.7 - h)) / h ** 2, rtol=1e-3, what="d2")


def bond_price(y, coupons, times, face=100.0):
    return float(np.sum(coupons * np.exp(-y * times)) + face * math.exp(-y * times[-1]))


def bond_yield_sensitivity(price, coupons, times):
    """Solve price(y) = price for the yield by Newton; return the yield."""
    y = 0.05
    for _ in range(50):
        p = 0.0
        dp = 0.0
        for c, t in zip(coupons, times):
            p += c * math.exp(-y * t)
            dp -= t * c * math.exp(-y * t)
        p += 100.0 * math.exp(-y * times[-1])
        dp -= times[-1] * 100.0 * math.exp(-y * times[-1])
        step = (p - price) / dp
        y = y - step
        if abs(step) < 1e-14:
            break
    return y


def bond_yield_ref(price, coupons, times):
    y = 0.05
    for _ in range(100):
        p = np.sum(coupons * np.exp(-y * times)) + 100.0 * np.exp(-y * times[-1])
        dp = -np.sum(times * coupons * np.exp(-y * times)) - times[-1] * 100.0 * np.exp(-y * times[-1])
        y = y - (p - price) / dp
    return y


_BOND = (97.3, np.array([4.0, 4.0, 4.0, 4.0, 4.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))


@custom("fin_bond_yield_newton_price", "finance")
def _c_bond1():
    g = revsrc.grad(bond_yield_sensitivity)(*_BOND)
    # dy/dP = 1 / P'(y)
    y = bond_yield_ref(*_BOND)
    close(g, fd(lambda p: bond_yield_ref(p, _BOND[1], _BOND[2]), _BOND[0], h=1e-4), rtol=1e-6, what="dy/dP")
    close(bond_yield_sensitivity(*_BOND), y, rtol=1e-10)


@custom("fin_bond_yield_newton_coupons", "finance")
def _c_bond2():
    g = revsrc.grad(bond_yield_sensitivity, argnums=1)(*_BOND)
    close(g, fd(lambda c: bond_yield_ref(_BOND[0], c, _BOND[2]), _BOND[1], h=1e-5), rtol=1e-5, what="dy/dc")


@custom("fin_bond_yield_newton_hessian_price", "finance")
def _c_bond3():
    H = revsrc.hessian(bond_yield_sensitivity)(*_BOND)
    h = 1e-3
    f = lambda p: bond_yield_ref(p, _BOND[1], _BOND[2])
    close(H, (f(_BOND[0] + h) - 2 * f(_BOND[0]) + f(_BOND[0] - h)) / h ** 2, rtol=1e-3, atol=1e-9, what="d2y/dP2")


def soft_rank_loss(scores, target, tau=0.5):
    """Differentiable ranking: rank_i = 0.5 + sum_j sigmoid((s_i - s_j)/tau); Spearman-like loss."""
    diff = (scores[:, None] - scores[None, :]) / tau
    P = 1.0 / (1.0 + np.exp(-diff))
    ranks = P.sum(axis=1) + 0.5
    ranks = ranks - ranks.mean()
    t = target - target.mean()
    corr = np.dot(ranks, t) / (np.linalg.norm(ranks) * np.linalg.norm(t))
    soft = np.exp(scores / tau)
    soft = soft / soft.sum()
    return -corr + 0.1 * np.sum(soft * np.log(soft))


def soft_rank_loss_j(scores, target, tau=0.5):
    np_ = jnp()
    diff = (scores[:, None] - scores[None, :]) / tau
    P = 1.0 / (1.0 + np_.exp(-diff))
    ranks = P.sum(axis=1) + 0.5
    ranks = ranks - ranks.mean()
    t = target - target.mean()
    corr = np_.dot(ranks, t) / (np_.linalg.norm(ranks) * np_.linalg.norm(t))
    soft = np_.exp(scores / tau)
    soft = soft / soft.sum()
    return -corr + 0.1 * np_.sum(soft * np_.log(soft))


_RANK = (np.array([0.3, -1.2, 2.0, 0.9, -0.4]), np.array([2.0, 0.0, 4.0, 3.0, 1.0]))
variants("ml_soft_rank_spearman", "ml", soft_rank_loss, _RANK, ["grad", "hess", "jax"], jfn=soft_rank_loss_j)
variants("ml_soft_rank_tau", "ml", soft_rank_loss, _RANK + (0.7,), ["grad"], argnums=2, jfn=soft_rank_loss_j)


class Hamiltonian:
    def __init__(self, k, m):
        self.k = k
        self.m = m

    def dH_dq(self, q):
        return self.k * q + 0.3 * q ** 3

    def dH_dp(self, p):
        return p / self.m

    def energy(self, q, p):
        return 0.5 * p * p / self.m + 0.5 * self.k * q * q + 0.075 * q ** 4


def leapfrog_energy(q0, p0, k=1.3, m=0.8, n=40, dt=0.05):
    H = Hamiltonian(k, m)
    q, p = q0, p0
    for _ in range(n):
        p = p - 0.5 * dt * H.dH_dq(q)
        q = q + dt * H.dH_dp(p)
        p = p - 0.5 * dt * H.dH_dq(q)
    return q * q + 0.5 * p + H.energy(q, p)


variants("phys_leapfrog_class_params_q0", "physics", leapfrog_energy, (0.7, -0.3), ["grad", "hess", "jvp"])
variants("phys_leapfrog_class_params_k", "physics", leapfrog_energy, (0.7, -0.3, 1.3, 0.8), ["grad", "hess"], argnums=2)
variants("phys_leapfrog_class_params_m", "physics", leapfrog_energy, (0.7, -0.3, 1.3, 0.8), ["grad"], argnums=3)


# ---------------------------------------------------------------------------
# More realistic programs
# ---------------------------------------------------------------------------

def rts_smoother(q, ys, r=0.5):
    """Kalman filter + Rauch-Tung-Striebel smoother for a 2-D constant-velocity model."""
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = q * np.array([[1 / 3, 1 / 2], [1 / 2, 1.0]])
    R = np.array([[r]])
    m = np.zeros(2)
    P = np.eye(2) * 10.0
    ms, Ps, mps, Pps = [], [], [], []
    for y in ys:
        mp = F @ m
        Pp = F @ P @ F.T + Q
        S = H @ Pp @ H.T + R
        K = np.linalg.solve(S, H @ Pp).T
        m = mp + K @ (np.array([y]) - H @ mp)
        P = Pp - K @ S @ K.T
        ms.append(m)
        Ps.append(P)
        mps.append(mp)
        Pps.append(Pp)
    msm = ms[-1]
    Psm = Ps[-1]
    total = np.sum(msm ** 2)
    for t in range(len(ys) - 2, -1, -1):
        G = np.linalg.solve(Pps[t + 1].T, (Ps[t] @ F.T).T).T
        msm = ms[t] + G @ (msm - mps[t + 1])
        Psm = Ps[t] + G @ (Psm - Pps[t + 1]) @ G.T
        total = total + np.sum((msm[0] - ys[t]) ** 2) + np.trace(Psm)
    return total


_YS = np.array([0.1, 0.9, 2.2, 2.8, 4.1, 5.3])
variants("filt_rts_smoother_q", "filter", rts_smoother, (0.3, _YS), ["grad", "hess"], doc=("E104",))
variants("filt_rts_smoother_ys", "filter", rts_smoother, (0.3, _YS), ["grad", "hvp"], argnums=1)
variants("filt_rts_smoother_r", "filter", rts_smoother, (0.3, _YS, 0.5), ["grad"], argnums=2)


def logreg_l2(params, X, y, lam=0.1):
    z = X @ params["w"] + params["b"]
    p = 1.0 / (1.0 + np.exp(-z))
    nll = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    reg = lam * np.sum(params["w"] ** 2)
    acc = np.mean((p > 0.5) == (y > 0.5))
    return nll + reg, {"nll": nll, "acc": acc}


_rl = np.random.default_rng(5)
_LR_X = _rl.normal(size=(12, 3))
_LR_Y = (_rl.random(12) > 0.5).astype(float)


@custom("ml_logreg_dict_has_aux", "ml")
def _c_logreg():
    params = {"w": np.array([0.2, -0.4, 0.1]), "b": 0.3}
    g, aux = revsrc.grad(logreg_l2, has_aux=True)(params, _LR_X, _LR_Y)
    assert set(g) == {"w", "b"} and isinstance(g["b"], float), g
    f = lambda w, b: logreg_l2({"w": w, "b": b}, _LR_X, _LR_Y)[0]
    close(g["w"], fd(lambda w: f(w, 0.3), params["w"]), rtol=1e-5)
    close(g["b"], fd(lambda b: f(params["w"], b), 0.3), rtol=1e-5)
    _, a2 = logreg_l2(params, _LR_X, _LR_Y)
    close(aux["nll"], a2["nll"], rtol=1e-12)
    close(aux["acc"], a2["acc"], rtol=1e-12)


@custom("ml_logreg_dict_value_and_grad_has_aux_lam", "ml")
def _c_logreg2():
    params = {"w": np.array([0.2, -0.4, 0.1]), "b": 0.3}
    (v, aux), g = revsrc.value_and_grad(logreg_l2, argnums=(0, 3), has_aux=True)(params, _LR_X, _LR_Y, 0.1)
    close(v, logreg_l2(params, _LR_X, _LR_Y, 0.1)[0])
    close(g[1], np.sum(params["w"] ** 2), rtol=1e-10)


@custom("ml_logreg_dict_train_loop", "ml")
def _c_logreg3():
    params = {"w": np.zeros(3), "b": 0.0}
    vg = revsrc.value_and_grad(logreg_l2, has_aux=True)
    for _ in range(30):
        (v, aux), g = vg(params, _LR_X, _LR_Y)
        params = {k: params[k] - 0.5 * g[k] for k in params}
    f = lambda w: logreg_l2({"w": w, "b": params["b"]}, _LR_X, _LR_Y)[0]
    close(vg(params, _LR_X, _LR_Y)[1]["w"], fd(f, params["w"]), rtol=1e-5)


def sir_model(beta, gamma, days=60, dt=0.25, N=1000.0):
    S, I, R = N - 5.0, 5.0, 0.0
    peak = 0.0
    hist = []
    for step in range(int(days / dt)):
        new_inf = beta * S * I / N
        new_rec = gamma * I
        S = S - dt * new_inf
        I = I + dt * (new_inf - new_rec)
        R = R + dt * new_rec
        peak = max(peak, I)
        if step % 4 == 0:
            hist.append(I)
    obs = np.array(hist)
    return peak / N + np.mean(obs) / N + R / N


variants("epi_sir_beta", "epidemic", sir_model, (0.35, 0.1), ["grad", "hess"])
variants("epi_sir_beta", "epidemic", sir_model, (0.35, 0.1), ["jax"], doc=("E603",))
variants("epi_sir_gamma", "epidemic", sir_model, (0.35, 0.1), ["grad", "jvp"], argnums=1)


def bilinear(grid, px, py):
    """Bilinear interpolation of a grid on [0, n-1] x [0, m-1] at points (px, py)."""
    n, m = grid.shape
    total = 0.0
    for x, y in zip(px, py):
        i = int(math.floor(x))
        j = int(math.floor(y))
        i = min(max(i, 0), n - 2)
        j = min(max(j, 0), m - 2)
        tx = x - i
        ty = y - j
        v = ((1 - tx) * (1 - ty) * grid[i, j] + tx * (1 - ty) * grid[i + 1, j]
             + (1 - tx) * ty * grid[i, j + 1] + tx * ty * grid[i + 1, j + 1])
        total = total + v * v
    return total


_G = np.arange(20.0).reshape(4, 5) ** 0.5
_PX = np.array([0.3, 1.7, 2.45, 2.9])
_PY = np.array([3.2, 0.6, 1.5, 3.95])
variants("interp_bilinear_grid", "interp", bilinear, (_G, _PX, _PY), ["grad", "hess"])
variants("interp_bilinear_points", "interp", bilinear, (_G, _PX, _PY), ["grad", "hvp"], argnums=1)
variants("interp_bilinear_points_y", "interp", bilinear, (_G, _PX, _PY), ["grad"], argnums=2)


def ray_sphere(center, origin, direction, radius=1.0):
    d = direction / np.linalg.norm(direction)
    oc = origin - center
    b = np.dot(oc, d)
    c = np.dot(oc, oc) - radius * radius
    disc = b * b - c
    if disc < 0:
        return 0.0
    t = -b - math.sqrt(disc)
    hit = origin + t * d
    normal = (hit - center) / radius
    light = np.array([0.0, 1.0, 0.0])
    shade = max(np.dot(normal, light), 0.0)
    return t + shade


_RAY = (np.array([0.1, 0.3, 5.0]), np.array([0.0, 0.0, 0.0]), np.array([0.02, 0.05, 1.0]), 1.0)
variants("geo_ray_sphere_center", "geometry", ray_sphere, _RAY, ["grad", "hess"])
variants("geo_ray_sphere_direction", "geometry", ray_sphere, _RAY, ["grad"], argnums=2)
variants("geo_ray_sphere_direction", "geometry", ray_sphere, _RAY, ["jax"], argnums=2, doc=("E603",))
variants("geo_ray_sphere_radius", "geometry", ray_sphere, _RAY, ["grad"], argnums=3)


def hermite_pce(coef, xi):
    """Polynomial chaos: probabilists' Hermite expansion via the three-term recurrence,
    evaluated at quadrature nodes; return mean and variance combination."""
    vals = np.zeros_like(xi)
    Hm1 = np.zeros_like(xi)
    H0 = np.ones_like(xi)
    for n in range(len(coef)):
        vals = vals + coef[n] * H0
        H1 = xi * H0 - n * Hm1
        Hm1, H0 = H0, H1
    mean = vals.mean()
    var = np.mean((vals - mean) ** 2)
    norms = np.array([math.factorial(n) for n in range(len(coef))], dtype=float)
    analytic_var = np.sum(coef[1:] ** 2 * norms[1:])
    return var + (analytic_var - var) ** 2 + mean ** 3


_XI = np.random.default_rng(2).normal(size=30)
variants("uq_polynomial_chaos_hermite", "uq", hermite_pce, (np.array([0.5, 1.0, -0.3, 0.2, 0.05]), _XI),
         ["grad", "hess", "jax"])
variants("uq_polynomial_chaos_nodes", "uq", hermite_pce, (np.array([0.5, 1.0, -0.3, 0.2, 0.05]), _XI),
         ["grad"], argnums=1)


# ---------------------------------------------------------------------------
# Short adversarial edge programs
# ---------------------------------------------------------------------------

@case("edge_int_bool_mix_arith", "edge", (1.7,))
def _e1(x):
    n = int(x > 1.0) + True
    flag = x < 0
    return x * n + flag * x ** 2 + (not flag) * x ** 3


@case("edge_bool_times_array", "edge", (np.array([0.5, -1.5, 2.0]),))
def _e2(x):
    pos = x > 0
    return np.sum(pos * x ** 2 + (~pos) * np.exp(x)) + np.sum(pos.astype(float)) * x[0]


@case("edge_int_division_of_float", "edge", (7.3,))
def _e3(x):
    q = x // 2.0
    r = x % 2.0
    return q * x + r * r + divmod(x, 3.0)[1] * x


@case("edge_int_array_index_arith", "edge", (np.array([0.3, 1.2, -0.7, 2.2]),))
def _e4(x):
    idx = np.argsort(x)
    k = idx[0] + idx[-1]
    return x[idx[0]] * k + np.sum(x[idx[1:]] * np.arange(3))


@case("edge_range_zero_loop", "edge", (1.3,))
def _e5(x):
    acc = x
    for i in range(0):
        acc = acc * x + i
    for j in range(3, 3):
        acc = acc + math.sin(x)
    return acc * acc


@case("edge_range_negative_step", "edge", (np.array([0.5, 1.5, -0.3, 0.8, 1.1]),))
def _e6(x):
    s = 0.0
    for i in range(len(x) - 1, -1, -2):
        s = s * x[i] + x[i] ** 2
    return s


@case("edge_reversed_slice_negative_step", "edge", (np.array([0.5, 1.5, -0.3, 0.8, 1.1, 0.2]),))
def _e7(x):
    y = x[::-2]
    z = x[-2:0:-1]
    return np.sum(y * y[::-1]) + np.sum(z ** 3) + x[::-1][0] * x[-1]


@case("edge_0d_array_input", "edge", (np.array(1.3),))
def _e8(x):
    return np.sin(x) * x + x[()] ** 2


@case("edge_0d_array_created_inside", "edge", (0.7,))
def _e9(x):
    a = np.array(x)
    b = np.asarray(x * 2.0)
    return float(a * b + np.exp(a))


@case("edge_0d_sum_item", "edge", (np.array([0.4, 0.9]),))
def _e10(x):
    s = np.sum(x)
    return s.item() * x[0] + float(np.prod(x)) ** 2


@case("edge_float32_array_input", "edge", (np.array([0.5, 1.5, 2.5], dtype=np.float32),), fd=False)
def _e11(x):
    return np.sum(x * x)


@custom("edge_float32_grad_dtype_and_value", "edge")
def _c_f32():
    x = np.array([0.5, 1.5, 2.5], dtype=np.float32)
    g = revsrc.grad(lambda x: np.sum(np.sin(x) * x))(x)
    assert g.dtype == np.float32, g.dtype
    close(g, np.sin(x.astype(float)) + x.astype(float) * np.cos(x.astype(float)), rtol=1e-6)


def _f32_mixed(x, w):
    return np.sum((x * w) ** 2) + np.float32(0.5) * np.sum(x)


@custom("edge_float32_mixed_with_float64", "edge")
def _c_f32m():
    x = np.array([0.5, 1.5], dtype=np.float32)
    w = np.array([2.0, -1.0])
    g = revsrc.grad(_f32_mixed)(x, w)
    assert g.dtype == np.float32, g.dtype
    close(g, 2 * x.astype(float) * w * w + 0.5, rtol=1e-6)
    gw = revsrc.grad(_f32_mixed, argnums=1)(x, w)
    assert gw.dtype == np.float64
    close(gw, 2 * x.astype(float) ** 2 * w, rtol=1e-6)


@case("edge_np_float64_scalar_arg", "edge", (np.float64(0.8),), fd=False)
def _e12(x):
    return x ** 3 + np.cos(x)


@custom("edge_np_float64_scalar_value", "edge")
def _c_npf():
    g = revsrc.grad(_e12)(np.float64(0.8))
    close(g, 3 * 0.8 ** 2 - math.sin(0.8))


def _make_scaler(a):
    def inner(x):
        return a * x ** 2
    a = a * 2.0  # rebinding after the closure was made: Python reads the new a
    return inner


@case("edge_closure_rebinding_after_def", "edge", (1.1, 0.7))
def _e13(x, a):
    f = _make_scaler(a)
    return f(x) + f(a)


@case("edge_nested_closure_loop_variable", "edge", (1.3,))
def _e14(x):
    fs = []
    for k in range(3):
        def g(t, k=k):
            return t ** (k + 1)
        fs.append(g)
    total = 0.0
    for f in fs:
        total = total + f(x)
    return total


@case("edge_closure_late_binding", "edge", (0.9,))
def _e15(x):
    c = 1.0
    def g(t):
        return c * t
    c = x * 2.0
    r1 = g(x)
    c = 3.0
    return r1 + g(x)


_GLOBAL_SCALE = 2.0


def _uses_global(x):
    return _GLOBAL_SCALE * x ** 2


@custom("edge_global_changed_between_calls", "edge")
def _c_glob():
    global _GLOBAL_SCALE
    df = revsrc.grad(_uses_global)
    try:
        _GLOBAL_SCALE = 2.0
        a = df(1.5)
        _GLOBAL_SCALE = 5.0
        b = df(1.5)
    finally:
        _GLOBAL_SCALE = 2.0
    close(a, 6.0, what="first")
    close(b, 15.0, what="after the global changed")


_GLOBAL_ARR = np.array([1.0, 2.0])


def _uses_global_arr(x):
    return np.sum(_GLOBAL_ARR * x ** 2)


@custom("edge_global_array_mutated_between_calls", "edge")
def _c_globarr():
    df = revsrc.grad(_uses_global_arr)
    x = np.array([1.0, 1.0])
    a = df(x)
    _GLOBAL_ARR[0] = 10.0
    try:
        b = df(x)
    finally:
        _GLOBAL_ARR[0] = 1.0
    close(a, [2.0, 4.0])
    close(b, [20.0, 4.0], what="after in-place change of global")


@custom("edge_global_changed_shape_between_calls", "edge")
def _c_globshape():
    global _GLOBAL_ARR
    df = revsrc.grad(_uses_global_arr)
    a = df(np.array([1.0, 1.0]))
    old = _GLOBAL_ARR
    _GLOBAL_ARR = np.array([1.0, 2.0, 3.0])
    try:
        b = df(np.array([1.0, 1.0, 1.0]))
    finally:
        _GLOBAL_ARR = old
    close(a, [2.0, 4.0])
    close(b, [2.0, 4.0, 6.0])


class _Model:
    def __init__(self, w):
        self.w = w
        self.use_sin = False

    def __call__(self, x):
        if self.use_sin:
            return math.sin(self.w * x)
        return self.w * x * x


@custom("edge_object_attribute_changed_between_calls", "edge")
def _c_obj():
    m = _Model(2.0)
    df = revsrc.grad(m)
    a = df(1.5)
    m.w = 3.0
    b = df(1.5)
    m.use_sin = True
    c = df(1.5)
    close(a, 6.0, what="first")
    close(b, 9.0, what="w changed")
    close(c, 3.0 * math.cos(4.5), what="branch flag changed")


def _call_model(m, x):
    return m(x) + x


@custom("edge_object_argument_attribute_changed", "edge")
def _c_obj2():
    m = _Model(2.0)
    df = revsrc.grad(_call_model, argnums=1)
    a = df(m, 1.5)
    m.w = -1.0
    b = df(m, 1.5)
    close(a, 7.0)
    close(b, -2.0)


@custom("edge_jit_object_attribute_changed", "edge")
def _c_obj3():
    m = _Model(2.0)
    jf = revsrc.jit(revsrc.grad(_call_model, argnums=1))
    a = jf(m, 1.5)
    m.w = -1.0
    b = jf(m, 1.5)
    close(a, 7.0)
    close(b, -2.0)


# ---------------------------------------------------------------------------
# In-place writes through views, splits, transposes, reshapes
# ---------------------------------------------------------------------------

@case("view_split_piece_inplace", "views", (np.array([0.5, 1.0, -0.4, 2.0, 0.3, 0.7]),))
def _v1(x):
    y = x * 1.0
    a, b, c = np.split(y, 3)
    a *= 2.0
    b += c
    c[0] = c[1] ** 2
    return np.sum(y ** 2)


@case("view_array_split_unequal_inplace", "views", (np.array([0.5, 1.0, -0.4, 2.0, 0.3]),))
def _v2(x):
    y = x.copy()
    parts = np.array_split(y, 2)
    parts[0][:] = parts[0] * parts[0]
    parts[1][-1] = 3.0 * parts[1][0]
    return np.sum(y * np.arange(1.0, 6.0))


@case("view_transpose_inplace", "views", (np.arange(1.0, 7.0).reshape(2, 3) / 3.0,))
def _v3(A):
    B = A.copy()
    Bt = B.T
    Bt[0, :] = Bt[0, :] * Bt[1, :]
    Bt[2] += 1.0
    return np.sum(B ** 2) + np.sum(Bt[:, 1] ** 3)


@case("view_reshape_inplace", "views", (np.linspace(0.1, 1.2, 12),))
def _v4(x):
    y = x.copy()
    M = y.reshape(3, 4)
    M[1] = M[0] * M[2]
    M[:, 0] = 0.0
    return np.sum(y * y) + np.sum(M[2] ** 3)


@case("view_ravel_of_copy_write", "views", (np.arange(1.0, 7.0).reshape(3, 2) / 4.0,))
def _v5(A):
    B = A * 2.0
    r = B.ravel()
    r[::2] = r[::2] ** 2
    return np.sum(B * A)


@case("view_diag_strided_write", "views", (np.arange(1.0, 10.0).reshape(3, 3) / 5.0,))
def _v6(A):
    B = A.copy()
    flat = B.reshape(-1)
    flat[::4] = np.exp(flat[::4])
    return np.sum(B @ B)


@case("view_slice_of_slice_write", "views", (np.linspace(-1.0, 1.0, 8),))
def _v7(x):
    y = np.zeros(10)
    y[1:9] = x
    mid = y[2:8]
    inner = mid[1:-1]
    inner *= inner
    return np.sum(y ** 2 * np.arange(10))


@case("view_loop_inplace_row_writes", "views", (np.arange(1.0, 13.0).reshape(4, 3) / 6.0,))
def _v8(A):
    B = A.copy()
    for i in range(1, B.shape[0]):
        B[i] += 0.5 * B[i - 1] * B[i]
    return np.sum(np.sin(B))


@case("view_inplace_on_argument_refused", "views", (np.array([1.0, 2.0]),), doc=("E403",))
def _v9(x):
    x[0] = x[1] * 3.0
    return np.sum(x ** 2)


@case("view_inplace_through_transpose_of_argument", "views", (np.ones((2, 2)) * 0.5,), doc=("E403",))
def _v10(A):
    At = A.T
    At[0, 1] = 5.0
    return np.sum(A)


@case("view_hstack_vstack_of_views_write", "views", (np.array([0.3, 0.6, 0.9, 1.2]),))
def _v11(x):
    a, b = np.split(x.copy(), 2)
    M = np.vstack([a, b])
    M[0, 1] = M[1, 0] * M[1, 1]
    return np.sum(M ** 2) + np.sum(a)


variants("view_split_piece_inplace_hess", "views", _v1, (np.array([0.5, 1.0, -0.4, 2.0, 0.3, 0.7]),), ["hess"])
variants("view_transpose_inplace_hess", "views", _v3, (np.arange(1.0, 7.0).reshape(2, 3) / 3.0,), ["hess"])
variants("view_reshape_inplace_hvp", "views", _v4, (np.linspace(0.1, 1.2, 12),), ["hvp"])
variants("view_loop_inplace_row_writes_jax", "views", _v8, (np.arange(1.0, 13.0).reshape(4, 3) / 6.0,), ["jax"])


# ---------------------------------------------------------------------------
# np.linalg.norm with various ord, first and second order
# ---------------------------------------------------------------------------

_NV = np.array([0.7, -1.3, 0.4, 2.1])
_NM = np.array([[1.2, -0.4, 0.3], [0.5, 0.9, -1.1], [0.2, 0.3, 1.7]])


def _norm_vec(ordv):
    def f(x):
        return np.linalg.norm(x, ord=ordv) ** 2 + np.linalg.norm(x * x, ord=ordv)
    return f


def _norm_mat(ordv):
    def f(A):
        return np.linalg.norm(A @ A.T + A, ord=ordv)
    return f


for _o, _nm in [(None, "none"), (2, "2"), (1, "1"), (np.inf, "inf"), (-np.inf, "neginf"), (3, "3"), (0.5, "half")]:
    CASES.append(Case(f"norm_vec_ord_{_nm}", "norm", _norm_vec(_o), (_NV,), fd=True))
for _o, _nm in [("fro", "fro"), ("nuc", "nuc"), (2, "2"), (-2, "neg2"), (1, "1"), (np.inf, "inf")]:
    CASES.append(Case(f"norm_mat_ord_{_nm}", "norm", _norm_mat(_o), (_NM,)))
for _o, _nm in [(None, "none"), (3, "3"), (np.inf, "inf")]:
    CASES.append(Case(f"norm_vec_ord_{_nm}_hess", "norm", _norm_vec(_o), (_NV,), opts={"mode": "hess"}))
for _o, _nm in [("fro", "fro"), (2, "2"), (-2, "neg2")]:
    CASES.append(Case(f"norm_mat_ord_{_nm}_hess", "norm", _norm_mat(_o), (_NM,), opts={"mode": "hess"}))


@case("norm_axis_keepdims_rows", "norm", (_NM,))
def _n1(A):
    r = np.linalg.norm(A, axis=1, keepdims=True)
    return np.sum(A / r) + np.sum(np.linalg.norm(A, ord=1, axis=0))


@case("norm_axis_tuple_fro", "norm", (np.arange(1.0, 13.0).reshape(2, 2, 3) / 7.0,))
def _n2(T):
    return np.sum(np.linalg.norm(T, axis=(1, 2)) ** 3)


variants("norm_axis_keepdims_rows", "norm", _n1, (_NM,), ["hess"])


# ---------------------------------------------------------------------------
# jit / vmap / compositions / backend="jax"
# ---------------------------------------------------------------------------

def _scalar_pend(theta, omega=0.0, g=9.81, L=1.0, n=200, dt=0.01):
    for _ in range(n):
        omega = omega - dt * g / L * math.sin(theta)
        theta = theta + dt * omega
    return theta


@custom("jit_grad_pendulum_matches_grad", "jit")
def _c_jit1():
    dg = revsrc.grad(_scalar_pend)
    jg = revsrc.jit(dg)
    close(jg(0.4), dg(0.4), rtol=0, atol=0)
    close(dg(0.4), fd(_scalar_pend, 0.4), rtol=1e-5)


def _newton_root(a):
    x = 1.0
    for _ in range(30):
        x = x - (x * x * x - a) / (3 * x * x)
    return x


def _uses_grad_inside(a):
    d = revsrc.grad(_newton_root)
    return d(a) * a + _newton_root(a)


@custom("jit_function_calling_grad_inside", "jit")
def _c_jit2():
    jf = revsrc.jit(_uses_grad_inside)
    want = (1.0 / 3.0) * 2.0 ** (-2.0 / 3.0) * 2.0 + 2.0 ** (1.0 / 3.0)
    close(jf(2.0), want, rtol=1e-10)


@custom("jit_grad_of_function_calling_grad", "jit")
def _c_jit3():
    g = revsrc.grad(_uses_grad_inside)
    ref = fd(_uses_grad_inside, 2.0, h=1e-5)
    close(g(2.0), ref, rtol=1e-5)


@custom("vmap_grad_pendulum", "vmap")
def _c_vm1():
    xs = np.linspace(0.1, 1.0, 7)
    vg = revsrc.vmap(revsrc.grad(_scalar_pend))
    out = vg(xs)
    ref = np.array([revsrc.grad(_scalar_pend)(float(x)) for x in xs])
    close(out, ref, rtol=0, atol=0)


def _two_out(x, y):
    s = x * y
    if s > 1.0:
        return s, x - y
    return -s, x + y


@custom("vmap_two_outputs_branch", "vmap")
def _c_vm2():
    xs = np.array([0.5, 1.5, 2.0, -1.0])
    ys = np.array([1.0, 1.0, 0.3, 2.0])
    a, b = revsrc.vmap(_two_out)(xs, ys)
    for i in range(4):
        ra, rb = _two_out(float(xs[i]), float(ys[i]))
        assert a[i] == ra and b[i] == rb, (i, a[i], ra, b[i], rb)


@custom("vmap_in_axes_none_param", "vmap")
def _c_vm3():
    xs = np.linspace(0.0, 1.0, 5)
    out = revsrc.vmap(revsrc.grad(_scalar_pend, argnums=2), in_axes=(0, None, None))(xs, 0.1, 9.81)
    for i, x in enumerate(xs):
        close(out[i], fd(lambda g: _scalar_pend(float(x), 0.1, g), 9.81), rtol=1e-5)


@custom("vmap_int_loop_count_argument", "vmap")
def _c_vm4():
    def_ = revsrc.vmap(revsrc.grad(_scalar_pend), in_axes=(0, None, None, None, 0))
    xs = np.array([0.2, 0.3])
    ns = np.array([10, 50])
    out = def_(xs, 0.0, 9.81, 1.0, ns)
    for i in range(2):
        close(out[i], fd(lambda t: _scalar_pend(t, 0.0, 9.81, 1.0, int(ns[i])), float(xs[i])), rtol=1e-5)


@custom("jvp_of_grad_rkf45", "compose")
def _c_jvpgrad():
    dg = revsrc.grad(leapfrog_energy)
    out, t = revsrc.jvp(dg, (0.7, -0.3), (1.0, 0.0))
    h = 1e-4
    close(t, (leapfrog_energy(0.7 + h, -0.3) - 2 * leapfrog_energy(0.7, -0.3) + leapfrog_energy(0.7 - h, -0.3)) / h ** 2,
          rtol=1e-4)


@custom("grad_of_grad_scalar_loop", "compose")
def _c_gg():
    gg = revsrc.grad(revsrc.grad(sir_model))
    h = 1e-4
    want = (sir_model(0.35 + h, 0.1) - 2 * sir_model(0.35, 0.1) + sir_model(0.35 - h, 0.1)) / h ** 2
    close(gg(0.35, 0.1), want, rtol=1e-3)


@custom("jacfwd_vs_jacrev_attention", "compose")
def _c_jac():
    def feats(x):
        w = np.exp(x - x.max())
        return w / w.sum() * np.tanh(x)
    x = np.array([0.3, -0.2, 1.1, 0.5])
    Jf = revsrc.jacfwd(feats)(x)
    Jr = revsrc.jacrev(feats)(x)
    close(Jf, Jr, rtol=1e-10)
    close(Jf, fd_jac(feats, x), rtol=1e-5)


def _mixed_hess(x, y):
    return np.sum(np.sin(x) * y ** 2) + np.dot(x, y) ** 2


@custom("hessian_mixed_argnums_tuple", "compose")
def _c_hmix():
    x = np.array([0.3, 0.8])
    y = np.array([1.1, -0.4])
    H = revsrc.hessian(_mixed_hess, argnums=(0, 1))(x, y)
    jax = _jax()
    import jax.numpy as jn
    Hj = jax.hessian(lambda x, y: jn.sum(jn.sin(x) * y ** 2) + jn.dot(x, y) ** 2, argnums=(0, 1))(x, y)
    for i in range(2):
        for j in range(2):
            close(H[i][j], np.asarray(Hj[i][j]), rtol=1e-10, what=f"H[{i}][{j}]")


@custom("linearize_sir_reuse", "compose")
def _c_lin():
    out, f_jvp = revsrc.linearize(sir_model, 0.35, 0.1)
    t1 = f_jvp(1.0, 0.0)
    t2 = f_jvp(0.0, 1.0)
    close(t1, fd(lambda b: sir_model(b, 0.1), 0.35), rtol=1e-5)
    close(t2, fd(lambda g: sir_model(0.35, g), 0.1), rtol=1e-5)


@custom("vjp_rts_vector_output", "compose")
def _c_vjp():
    def traj(q):
        out = []
        x = np.array([1.0, 0.0])
        for _ in range(5):
            x = np.array([x[0] + 0.1 * x[1], x[1] - 0.1 * q * np.sin(x[0])])
            out.append(x[0])
        return np.array(out)
    y, pull = revsrc.vjp(traj, 2.0)
    ct = np.array([1.0, -0.5, 0.3, 0.0, 2.0])
    (g,) = pull(ct) if isinstance(pull(ct), tuple) else (pull(ct),)
    close(g, np.dot(ct, (traj(2.0 + 1e-6) - traj(2.0 - 1e-6)) / 2e-6), rtol=1e-5)


variants("jaxb_rkf45_adaptive", "jax", rkf45, (0.7,), ["jax"], doc=("E603",))
variants("jaxb_bilinear_points", "jax", bilinear, (_G, _PX, _PY), ["jax"], argnums=1, doc=("E603",))
variants("jaxb_rts_smoother", "jax", rts_smoother, (0.3, _YS), ["jax"])
variants("jaxb_leapfrog_class", "jax", leapfrog_energy, (0.7, -0.3), ["jax"])
variants("jaxb_physics_balls", "jax", physics_balls_step,
         (np.array([0.5, 1.05, 2.2, 4.3]), np.array([1.3, -0.7, 0.4, 2.1])), ["jax"], argnums=1)
variants("jaxb_norm_mat_nuc", "jax", _norm_mat("nuc"), (_NM,), ["jax"])
variants("jaxb_view_transpose_inplace", "jax", _v3, (np.arange(1.0, 7.0).reshape(2, 3) / 3.0,), ["jax"])
variants("jaxb_range_negative_step", "jax", _e6, (np.array([0.5, 1.5, -0.3, 0.8, 1.1]),), ["jax"])


@custom("jaxb_value_and_grad_under_jax_jit", "jax", needs_jax=True)
def _c_jj():
    jax = _jax()
    df = revsrc.grad(soft_rank_loss, backend="jax")
    s = jax.numpy.asarray(_RANK[0])
    g = jax.jit(df)(s, _RANK[1])
    close(np.asarray(g), fd(lambda t: soft_rank_loss(t, _RANK[1]), _RANK[0]), rtol=1e-5)


def _vm_default_acc(x, acc=0.0):
    acc = acc + x
    return acc


@custom("vmap_default_parameter_rebound", "vmap")
def _c_vm5():
    out = revsrc.vmap(_vm_default_acc)(np.array([1.0, 2.0, 3.0]))
    close(out, [1.0, 2.0, 3.0], rtol=0, atol=0)


@custom("vmap_default_parameter_rebound_in_loop_threads1", "vmap")
def _c_vm6():
    out = revsrc.vmap(_scalar_pend, threads=1)(np.array([0.1, 0.4]))
    close(out, [_scalar_pend(0.1), _scalar_pend(0.4)], rtol=0, atol=0)


@custom("jit_default_parameter_rebound", "jit")
def _c_jit4():
    jf = revsrc.jit(_vm_default_acc)
    close([jf(1.0), jf(2.0), jf(3.0)], [1.0, 2.0, 3.0], rtol=0, atol=0)


# ---------------------------------------------------------------------------
# More edge programs: Python constructs
# ---------------------------------------------------------------------------

@case("edge_0d_ellipsis_index", "edge", (np.array(0.6),))
def _e20(x):
    return np.sum(x[...] * x) + np.exp(x)


@case("edge_newaxis_outer", "edge", (np.array([0.2, 0.5, -0.1]),))
def _e21(x):
    M = x[:, np.newaxis] * x[np.newaxis, :] + x[None]
    return np.sum(M ** 2)


@case("edge_chained_comparison_branch", "edge", (0.4,))
def _e22(x):
    if 0.0 < x < 0.5:
        return x ** 3
    elif 0.5 <= x < 1.0:
        return math.sqrt(x)
    return -x


@case("edge_ternary_in_comprehension", "edge", (np.array([0.5, -0.3, 1.2, -2.0]),))
def _e23(x):
    vals = [v * v if v > 0 else math.exp(v) for v in x]
    return sum(vals) + max(vals) * min(vals)


@case("edge_while_break_continue", "edge", (1.7,))
def _e24(x):
    y = x
    i = 0
    while True:
        i += 1
        if i % 2 == 0:
            y = y * 1.1
            continue
        y = math.sin(y) + x
        if i > 7:
            break
    return y


@case("edge_kwonly_and_star_args", "edge", (0.8,))
def _e25(x):
    def agg(*vals, scale, power=2):
        return scale * sum(v ** power for v in vals)
    return agg(x, x * 2.0, math.cos(x), scale=0.5) + agg(x, scale=x, power=3)


@case("edge_dict_comprehension_params", "edge", (np.array([0.3, 0.7, 1.1]),))
def _e26(x):
    d = {f"k{i}": x[i] ** (i + 1) for i in range(3)}
    keys = sorted(d)
    return sum(d[k] for k in keys) * d["k0"]


@case("edge_enumerate_zip_reversed", "edge", (np.array([0.3, 0.7, 1.1, -0.4]),))
def _e27(x):
    total = 0.0
    for i, (a, b) in enumerate(zip(x, reversed(x))):
        total += (i + 1) * a * b
    return total


@case("edge_math_fsum_and_sum_start", "edge", (np.array([0.3, 0.7, 1.1]),))
def _e28(x):
    return math.fsum([v * v for v in x]) + sum((v ** 3 for v in x), 1.5)


@case("edge_tuple_swap_loop", "edge", (0.9, 0.4), argnums=(0, 1))
def _e29(a, b):
    for _ in range(5):
        a, b = b, a * b + 0.1
    return a * b


@case("edge_clip_and_abs_array", "edge", (np.array([0.3, -0.7, 1.6, -2.2]),))
def _e30(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 2 + np.abs(x) ** 1.5)


@case("edge_where_scalar_branch_values", "edge", (np.array([0.3, -0.7, 1.6]),))
def _e31(x):
    return np.sum(np.where(x > 0, x, 0.0) ** 2 + np.where(x < 1, 1.0, np.log(x)))


@case("edge_list_sort_in_place_of_local", "edge", (np.array([0.3, -0.7, 1.6, 0.1]),))
def _e32(x):
    vals = [v * 2.0 for v in x]
    vals.sort()
    return vals[0] * 3.0 + vals[-1] ** 2


@case("edge_fstring_assert_raise", "edge", (0.5,))
def _e33(x):
    msg = f"x={x:.3f}"
    assert len(msg) > 0, msg
    if x > 10.0:
        raise ValueError(msg)
    return x ** 2


@case("edge_int_pow_negative_exponent", "edge", (1.3,))
def _e34(x):
    n = -2
    return x ** n + 2.0 ** x + x ** 0


@case("edge_math_functions_mix", "edge", (0.6,))
def _e35(x):
    return (math.atan2(x, 1.0 - x) + math.hypot(x, 2.0) + math.log10(1 + x) + math.log2(2 + x)
            + math.expm1(x) + math.log1p(x) + math.erf(x) + math.tanh(x) + math.asinh(x))


@case("edge_numpy_scalar_functions_mix", "edge", (np.array([0.6, 0.2]),))
def _e36(x):
    return np.sum(np.arctan2(x, 1 - x) + np.hypot(x, 2.0) + np.log10(1 + x) + np.cbrt(x)
                  + np.sinh(x) + np.arccos(x / 2) + np.logaddexp(x, -x) + np.square(x))


@case("edge_min_max_builtin_on_arrays", "edge", (np.array([0.6, 0.2, -0.5]),))
def _e37(x):
    return max(x) * min(x) + max(x[0], x[1], 0.1) + min(abs(x[2]), 1.0)


@case("edge_list_of_arrays_stack_loop", "edge", (np.array([0.6, 0.2, -0.5]),))
def _e38(x):
    rows = []
    for k in range(3):
        rows.append(x * (k + 1))
    M = np.stack(rows)
    return np.sum(M @ M.T)


@case("edge_array_from_list_of_scalars", "edge", (0.7, 1.2), argnums=(0, 1))
def _e39(a, b):
    v = np.array([a, b, a * b, 1.0])
    return float(v @ v)


@case("edge_np_sum_with_where_arg", "edge", (np.array([0.6, 0.2, -0.5]),))
def _e40(x):
    return np.sum(x ** 2, where=x > 0) + np.max(x, initial=0.0)


@case("edge_cumsum_diff_roundtrip", "edge", (np.array([0.6, 0.2, -0.5, 1.1]),))
def _e41(x):
    c = np.cumsum(x)
    d = np.diff(c, prepend=0.0)
    return np.sum(d * c)


@case("edge_boolean_mask_assign", "edge", (np.array([0.6, 0.2, -0.5, 1.1]),))
def _e42(x):
    y = x.copy()
    y[y < 0.5] = y[y < 0.5] ** 2
    y[y > 1.0] *= 3.0
    return np.sum(y * y)


@case("edge_fancy_index_repeated_scatter", "edge", (np.array([0.6, 0.2, -0.5]),))
def _e43(x):
    y = np.zeros(4)
    idx = np.array([0, 1, 1, 3, 0])
    np.add.at(y, idx, np.concatenate([x, x[:2]]))
    return np.sum(y ** 2)


@case("edge_einsum_bilinear", "edge", (np.array([[0.6, 0.2], [-0.5, 1.1]]),))
def _e44(A):
    v = np.array([1.0, 2.0])
    return np.einsum("i,ij,j->", v, A @ A, v) + np.einsum("ii", A) ** 2


@case("edge_linalg_solve_det_inv", "edge", (np.array([[2.0, 0.3], [0.4, 1.5]]),))
def _e45(A):
    b = np.array([1.0, -1.0])
    x = np.linalg.solve(A, b)
    return np.sum(x ** 2) + np.log(np.linalg.det(A)) + np.trace(np.linalg.inv(A))


variants("edge_linalg_solve_det_inv", "edge", _e45, (np.array([[2.0, 0.3], [0.4, 1.5]]),), ["hess"], doc=("E104",))
variants("edge_boolean_mask_assign", "edge", _e42, (np.array([0.6, 0.2, -0.5, 1.1]),), ["hess", "jax"], doc=("E603",))
variants("edge_while_break_continue", "edge", _e24, (1.7,), ["hess", "jax"])
variants("edge_tuple_swap_loop_jit_jvp", "edge", _e29, (0.9, 0.4), ["jvp"])
variants("edge_ternary_in_comprehension", "edge", _e23, (np.array([0.5, -0.3, 1.2, -2.0]),), ["hess"])
variants("edge_ternary_in_comprehension", "edge", _e23, (np.array([0.5, -0.3, 1.2, -2.0]),), ["jax"], doc=("E603",))
variants("edge_enumerate_zip_reversed", "edge", _e27, (np.array([0.3, 0.7, 1.1, -0.4]),), ["hess", "jax"])
variants("edge_0d_array_input", "edge", _e8, (np.array(1.3),), ["hess"])


# ---------------------------------------------------------------------------
# More realistic programs (second batch)
# ---------------------------------------------------------------------------

def _bs_call(S, K, T, r, sig):
    d1 = (math.log(S / K) + (r + 0.5 * sig * sig) * T) / (sig * math.sqrt(T))
    d2 = d1 - sig * math.sqrt(T)
    N = lambda z: 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    return S * N(d1) - K * math.exp(-r * T) * N(d2)


def implied_vol_bisection(price, S=100.0, K=105.0, T=0.5, r=0.01):
    lo, hi = 1e-4, 3.0
    while hi - lo > 1e-13:
        mid = 0.5 * (lo + hi)
        if _bs_call(S, K, T, r, mid) > price:
            hi = mid
        else:
            lo = mid
    sig = 0.5 * (lo + hi)
    # one Newton polish step makes the result depend smoothly on price
    d1 = (math.log(S / K) + (r + 0.5 * sig * sig) * T) / (sig * math.sqrt(T))
    vega = S * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(T)
    return sig - (_bs_call(S, K, T, r, sig) - price) / vega


@custom("fin_implied_vol_bisection_while", "finance")
def _c_iv():
    p = 4.2
    g = revsrc.grad(implied_vol_bisection)(p)
    sig = implied_vol_bisection(p)
    d1 = (math.log(100 / 105) + (0.01 + 0.5 * sig * sig) * 0.5) / (sig * math.sqrt(0.5))
    vega = 100 * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(0.5)
    close(g, 1.0 / vega, rtol=1e-6, what="dsigma/dprice = 1/vega")


@custom("fin_implied_vol_spot_sensitivity", "finance")
def _c_iv2():
    g = revsrc.grad(implied_vol_bisection, argnums=1)(4.2, 100.0)
    close(g, fd(lambda s: implied_vol_bisection(4.2, s), 100.0, h=1e-4), rtol=1e-5)


def lstm_sequence(Wx, xs, Wh, b, h0):
    """A tiny LSTM cell unrolled over a sequence; loss on the last hidden state."""
    H = h0.shape[0]
    h = h0
    c = np.zeros(H)
    for x in xs:
        z = Wx @ x + Wh @ h + b
        i = 1 / (1 + np.exp(-z[:H]))
        f = 1 / (1 + np.exp(-z[H:2 * H]))
        o = 1 / (1 + np.exp(-z[2 * H:3 * H]))
        g = np.tanh(z[3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum(h ** 2) + 0.01 * np.sum(c)


_rq = np.random.default_rng(8)
_LSTM = (_rq.normal(size=(8, 3)) * 0.4, _rq.normal(size=(4, 3)), _rq.normal(size=(8, 2)) * 0.4,
         _rq.normal(size=8) * 0.1, np.array([0.1, -0.2]))
variants("ml_lstm_sequence_wx", "ml", lstm_sequence, _LSTM, ["grad", "hvp", "jax"])
variants("ml_lstm_sequence_wh", "ml", lstm_sequence, _LSTM, ["grad"], argnums=2)
variants("ml_lstm_sequence_h0", "ml", lstm_sequence, _LSTM, ["grad", "hess"], argnums=4)


def gp_nll(log_ell, X, y, log_sf=0.0, log_sn=-2.0):
    d = X[:, None] - X[None, :]
    K = np.exp(2 * log_sf) * np.exp(-0.5 * d ** 2 / np.exp(2 * log_ell)) + np.exp(2 * log_sn) * np.eye(len(X))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(X) * np.log(2 * np.pi)


_GPX = np.array([-1.5, -0.7, 0.1, 0.8, 1.9, 2.4])
_GPY = np.sin(_GPX) + 0.1 * np.array([0.3, -0.2, 0.1, 0.05, -0.3, 0.2])
variants("ml_gp_nll_cholesky_ell", "ml", gp_nll, (0.2, _GPX, _GPY), ["grad", "jax"])
variants("ml_gp_nll_cholesky_X", "ml", gp_nll, (0.2, _GPX, _GPY), ["grad"], argnums=1)
variants("ml_gp_nll_cholesky_ell", "ml", gp_nll, (0.2, _GPX, _GPY), ["hess"], doc=("E104",))


def heat_explicit_inplace(u0, kappa=0.2, steps=30):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
        u[1:-1] += kappa * lap[1:-1]
        u[0] = u[1]
        u[-1] = 0.5 * u[-2]
    return np.sum(u ** 2) + u[len(u) // 2]


variants("pde_heat_explicit_inplace", "pde", heat_explicit_inplace, (np.sin(np.linspace(0, 3, 9)) + 0.1,),
         ["grad", "jax", "jvp"])
variants("pde_heat_explicit_inplace_kappa", "pde", heat_explicit_inplace, (np.sin(np.linspace(0, 3, 9)) + 0.1, 0.2),
         ["grad"], argnums=1)


def contact_spring_chain(k, x0, ground=0.0, steps=60, dt=0.02):
    """Masses on springs falling onto the ground, penalty contact via np.where."""
    n = x0.shape[0]
    x = x0.copy()
    v = np.zeros(n)
    rest = 1.0
    for _ in range(steps):
        stretch = np.diff(x) - rest
        f = np.zeros(n)
        f[:-1] += k * stretch
        f[1:] -= k * stretch
        pen = ground - x
        f = f + np.where(pen > 0, 400.0 * pen, 0.0) - 9.81
        v = 0.98 * v + dt * f
        x = x + dt * v
    return np.mean(x) + 0.1 * np.sum(v ** 2)


variants("phys_contact_spring_chain_k", "physics", contact_spring_chain, (30.0, np.array([0.5, 1.4, 2.6, 3.5])),
         ["grad", "hess", "jax"])
variants("phys_contact_spring_chain_x0", "physics", contact_spring_chain, (30.0, np.array([0.5, 1.4, 2.6, 3.5])),
         ["grad", "hvp"], argnums=1)


class Particle(NamedTuple):
    pos: np.ndarray
    vel: np.ndarray
    mass: float


def particle_energy(p, dt=0.1):
    pos = p.pos + dt * p.vel
    return 0.5 * p.mass * np.sum(p.vel ** 2) + p.mass * 9.81 * pos[1] + np.sum(np.sin(pos))


@case("py_namedtuple_particle_grad", "python", (Particle(np.array([0.1, 1.0]), np.array([0.5, -0.3]), 2.0),))
def _p1(p):
    return particle_energy(p)


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    act: str = dataclasses.field(default="tanh", metadata={"static": True})


def mlp_dataclass(layers, x):
    h = x
    for L in layers:
        z = h @ L.W + L.b
        h = np.tanh(z) if L.act == "tanh" else np.maximum(z, 0.0)
    return np.sum(h ** 2)


_rm = np.random.default_rng(9)
_MLP = ([Layer(_rm.normal(size=(3, 4)) * 0.5, _rm.normal(size=4) * 0.1),
         Layer(_rm.normal(size=(4, 2)) * 0.5, _rm.normal(size=2) * 0.1, "relu")], _rm.normal(size=(5, 3)))


@custom("py_dataclass_layers_list_grad", "python")
def _c_dc():
    layers, x = _MLP
    g = revsrc.grad(mlp_dataclass)(layers, x)
    for li in range(2):
        for attr in ("W", "b"):
            def f(t, li=li, attr=attr):
                ls = [dataclasses.replace(L) for L in layers]
                ls[li] = dataclasses.replace(ls[li], **{attr: t})
                return mlp_dataclass(ls, x)
            close(getattr(g[li], attr), fd(f, getattr(layers[li], attr)), rtol=1e-5, what=f"{li}.{attr}")


@custom("py_dataclass_layers_x_hessian", "python")
def _c_dc2():
    layers, x = _MLP
    H = revsrc.hessian(mlp_dataclass, argnums=1)(layers, x[:2])
    close(H, fd_hess(lambda t: mlp_dataclass(layers, t), x[:2]), rtol=2e-3, atol=2e-4)


# ---------------------------------------------------------------------------
# Minimal reproducers of what the programs above found
# ---------------------------------------------------------------------------

@case("min_0d_empty_tuple_index", "minimal", (np.array(1.5),))
def _m1(x):
    return x[()] ** 2


def _m2(u0):
    u = u0.copy()
    for _ in range(3):
        lap = np.zeros_like(u)
        lap[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
        u = u + lap
    return np.sum(u ** 2)


variants("min_jax_zeros_like_slice_write_in_loop", "minimal", _m2, (np.array([1.0, 2.0, 3.0, 0.5]),), ["grad", "jax"])


def _m3(x):
    return np.linalg.norm(x, ord=3)


def _m4(x):
    return np.linalg.norm(x, ord=np.inf) ** 2


variants("min_hessian_norm_ord3", "minimal", _m3, (np.array([1.0, 2.0]),), ["hess"])
variants("min_hessian_norm_inf_squared", "minimal", _m4, (np.array([1.0, 2.0]),), ["hess"])


@custom("min_vmap_default_rebound_grad", "minimal")
def _c_m5():
    def_ = revsrc.vmap(revsrc.grad(_vm_default_acc))
    close(def_(np.array([1.0, 2.0, 3.0])), [1.0, 1.0, 1.0], rtol=0, atol=0)


def _m6(A):
    a, b = np.array_split(A.copy(), 2)
    a[0] = 1.0
    return np.sum(b)


variants("min_array_split_unequal_write", "minimal", _m6, (np.array([1.0, 2.0, 3.0]),), ["grad"])


# ---------------------------------------------------------------------------
# Third batch: documented refusals users hit, and more NumPy idioms
# ---------------------------------------------------------------------------

@case("doc_try_except_fallback", "refusal", (0.5,), doc=("E101",))
def _d1(x):
    try:
        return math.log(x)
    except ValueError:
        return 0.0


@case("doc_recursive_power", "refusal", (1.1,), doc=("E103",))
def _d2(x, n=3):
    if n == 0:
        return 1.0
    return x * _d2(x, n - 1)


_COUNTER = [0]


@case("doc_global_statement_counter", "refusal", (1.1,), doc=("E402",))
def _d3(x):
    global _GLOBAL_SCALE
    _GLOBAL_SCALE = 2.0
    return x * _GLOBAL_SCALE


@case("doc_walrus_in_condition", "refusal", (1.1,), doc=("E101",))
def _d4(x):
    if (y := x * x) > 1.0:
        return y
    return x


@case("doc_np_matrix_argument", "refusal", (np.matrix([[1.0, 2.0], [3.0, 4.0]]),), doc=("E305",))
def _d5(M):
    return float(np.sum(M * M))


@case("doc_generator_helper", "refusal", (0.7,), doc=("E101",))
def _d6(x):
    def gen(n):
        for i in range(n):
            yield x ** i
    return sum(gen(4))


@case("doc_with_open_file", "refusal", (0.7,), doc=("E101", "E401"))
def _d7(x):
    with open("/dev/null") as fh:
        fh.read()
    return x * 2.0


@case("np_errstate_block", "numpy", (np.array([0.5, -0.4, 2.0]),))
def _n10(x):
    with np.errstate(divide="ignore"):
        y = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), 0.0)
    return np.sum(y * x + x ** 2)


@case("np_maximum_accumulate_running_max", "numpy", (np.array([0.5, 0.1, 1.3, 0.9, 2.0]),))
def _n11(x):
    run = np.maximum.accumulate(x)
    return np.sum((run - x) ** 2) + np.sum(run)


@case("np_sort_quantile_loss", "numpy", (np.array([0.5, -0.1, 1.3, 0.9, 2.0, -0.7]),))
def _n12(x):
    s = np.sort(x)
    q = np.quantile(x, 0.3)
    return np.sum(s * np.arange(1, 7)) + q ** 2 + np.median(x)


@case("np_eigvalsh_spectral_loss", "numpy", (np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]]),))
def _n13(A):
    S = 0.5 * (A + A.T)
    w = np.linalg.eigvalsh(S)
    return np.sum(w ** 3) + np.max(w)


@case("np_cumprod_survival", "numpy", (np.array([0.9, 0.8, 0.95, 0.7]),))
def _n14(p):
    surv = np.cumprod(p)
    return np.sum(surv) + np.prod(p) ** 2


variants("np_cumprod_survival", "numpy", _n14, (np.array([0.9, 0.8, 0.95, 0.7]),), ["hess"], doc=("E104",))
variants("np_eigvalsh_spectral_loss", "numpy", _n13,
         (np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]]),), ["hess", "jax"])
variants("np_sort_quantile_loss", "numpy", _n12, (np.array([0.5, -0.1, 1.3, 0.9, 2.0, -0.7]),), ["hess", "jax"])


@case("np_fft_power_spectrum", "numpy", (np.array([0.5, -0.1, 1.3, 0.9, 2.0, -0.7, 0.2, 0.4]),))
def _n15(x):
    F = np.fft.rfft(x)
    return float(np.sum(np.abs(F) ** 2 * np.arange(5)))


@case("np_tensordot_kron_trace", "numpy", (np.array([[0.5, -0.1], [1.3, 0.9]]),))
def _n16(A):
    K = np.kron(A, np.eye(2))
    T = np.tensordot(A, A, axes=([1], [0]))
    return np.trace(K @ K) + np.sum(T ** 2)


@case("np_meshgrid_gaussian_blob", "numpy", (np.array([0.3, -0.2]),))
def _n17(c):
    xs = np.linspace(-1, 1, 6)
    X, Y = np.meshgrid(xs, xs, indexing="ij")
    G = np.exp(-((X - c[0]) ** 2 + (Y - c[1]) ** 2) / 0.3)
    return np.sum(G * X) + np.sum(G[2:4, 1:5] ** 2)


@case("np_take_along_axis_argmax", "numpy", (np.array([[0.3, 1.2, -0.5], [2.0, 0.1, 0.4]]),))
def _n18(A):
    idx = np.argmax(A, axis=1)[:, None]
    top = np.take_along_axis(A, idx, axis=1)
    return np.sum(top ** 2) + np.sum(A * A.max(axis=1, keepdims=True))


@custom("py_complex_holomorphic_grad", "python")
def _c_cx():
    def f(z):
        return z * z * np.exp(1j * z) + np.sin(z)
    z = 0.3 + 0.4j
    g = revsrc.grad(f, holomorphic=True)(z)
    want = 2 * z * np.exp(1j * z) + 1j * z * z * np.exp(1j * z) + np.cos(z)
    close(g, want, rtol=1e-12)


def _pytree_loss(params, x):
    h = x
    for W, b in params["layers"]:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2) * params["scale"]


@custom("py_pytree_list_of_tuples_argnums_tuple", "python")
def _c_pt():
    rng = np.random.default_rng(4)
    params = {"layers": [(rng.normal(size=(2, 3)), rng.normal(size=3)), (rng.normal(size=(3, 1)), rng.normal(size=1))],
              "scale": 0.7}
    x = rng.normal(size=(4, 2))
    gp, gx = revsrc.grad(_pytree_loss, argnums=(0, 1))(params, x)
    close(gx, fd(lambda t: _pytree_loss(params, t), x), rtol=1e-5)
    close(gp["scale"], _pytree_loss(params, x) / 0.7, rtol=1e-10)
    for li in range(2):
        for j in range(2):
            def f(t, li=li, j=j):
                ls = [list(l) for l in params["layers"]]
                ls[li][j] = t
                return _pytree_loss({"layers": [tuple(l) for l in ls], "scale": 0.7}, x)
            close(gp["layers"][li][j], fd(f, params["layers"][li][j]), rtol=1e-5, what=f"layer {li} {j}")


@custom("jvp_rts_smoother_wrt_observations", "compose")
def _c_jvprts():
    v = np.array([1.0, -1.0, 0.5, 0.0, 0.2, -0.3])
    out, t = revsrc.jvp(rts_smoother, (0.3, _YS), (0.0, v))
    close(t, (rts_smoother(0.3, _YS + 1e-6 * v) - rts_smoother(0.3, _YS - 1e-6 * v)) / 2e-6, rtol=1e-5)


def _cm(z):
    import cmath
    return z * z * cmath.exp(1j * z) + cmath.sin(z)


@custom("py_complex_cmath_holomorphic", "python")
def _c_cx2():
    z = 0.3 + 0.4j
    g = revsrc.grad(_cm, holomorphic=True)(z)
    want = 2 * z * np.exp(1j * z) + 1j * z * z * np.exp(1j * z) + np.cos(z)
    close(g, want, rtol=1e-12)


def _scalar_logistic_map(r, x0=0.3, n=25):
    x = x0
    total = 0.0
    for _ in range(n):
        x = r * x * (1.0 - x)
        total += x
    return total / n


@custom("jit_vmap_logistic_map_grad_r", "vmap")
def _c_vm7():
    rs = np.linspace(2.5, 3.2, 6)
    out = revsrc.vmap(revsrc.grad(_scalar_logistic_map), in_axes=(0, None, None))(rs, 0.3, 25)
    ref = np.array([fd(lambda r: _scalar_logistic_map(r, 0.3, 25), float(r)) for r in rs])
    close(out, ref, rtol=1e-5)


def _scalar_branchy(x, y):
    if x > y:
        z = x - y
    else:
        z = y * y
    while z > 1.0:
        z = z * 0.5
    return z + math.exp(-x)


@custom("vmap_branch_while_two_args", "vmap")
def _c_vm8():
    xs = np.array([0.3, 2.5, 5.0, -1.0])
    ys = np.array([0.9, 0.45, 0.1, 1.7])
    out = revsrc.vmap(_scalar_branchy)(xs, ys)
    close(out, [_scalar_branchy(float(a), float(b)) for a, b in zip(xs, ys)], rtol=0, atol=0)
    g = revsrc.vmap(revsrc.grad(_scalar_branchy, argnums=1))(xs, ys)
    close(g, [fd(lambda t: _scalar_branchy(float(a), t), float(b)) for a, b in zip(xs, ys)], rtol=1e-5)


@custom("jit_hessian_scalar_engine", "jit")
def _c_jh():
    h = revsrc.jit(revsrc.hessian(_scalar_logistic_map))
    H = h(2.9)
    f = lambda r: _scalar_logistic_map(r)
    e = 1e-4
    close(H, (f(2.9 + e) - 2 * f(2.9) + f(2.9 - e)) / e ** 2, rtol=1e-3)


# ---------------------------------------------------------------------------
# Fourth batch: state that changes between calls, under jit / vmap / jax
# ---------------------------------------------------------------------------

_G_K = 2.0


def _uses_gk(x):
    return _G_K * x * x + math.sin(x)


@custom("jit_global_changed_between_calls", "jit")
def _c_s1():
    global _G_K
    jf = revsrc.jit(_uses_gk)
    try:
        _G_K = 2.0
        a = jf(1.5)
        _G_K = 5.0
        b = jf(1.5)
    finally:
        _G_K = 2.0
    close(a, 2.0 * 2.25 + math.sin(1.5), rtol=0, atol=0)
    close(b, 5.0 * 2.25 + math.sin(1.5), rtol=0, atol=0, what="after the global changed")


@custom("vmap_global_changed_between_calls", "vmap")
def _c_s2():
    global _G_K
    vf = revsrc.vmap(revsrc.grad(_uses_gk))
    xs = np.array([0.5, 1.5])
    try:
        _G_K = 2.0
        a = vf(xs)
        _G_K = 5.0
        b = vf(xs)
    finally:
        _G_K = 2.0
    close(a, 4.0 * xs + np.cos(xs), rtol=1e-12)
    close(b, 10.0 * xs + np.cos(xs), rtol=1e-12, what="after the global changed")


@custom("jaxb_global_changed_between_calls", "jax", needs_jax=True)
def _c_s3():
    global _G_K
    df = revsrc.grad(_uses_gk, backend="jax")
    try:
        _G_K = 2.0
        a = df(1.5)
        _G_K = 5.0
        b = df(1.5)
    finally:
        _G_K = 2.0
    close(a, 6.0 + math.cos(1.5), rtol=1e-12)
    close(b, 15.0 + math.cos(1.5), rtol=1e-12, what="after the global changed")


class _Cfg:
    def __init__(self):
        self.k = 2.0
        self.n = 3


_CFG = _Cfg()


def _uses_cfg(x):
    y = x
    for _ in range(_CFG.n):
        y = y * _CFG.k + math.sin(y)
    return y


def _uses_cfg_ref(x, k, n):
    y = x
    for _ in range(n):
        y = y * k + math.sin(y)
    return y


@custom("grad_global_object_attribute_changed", "edge")
def _c_s4():
    df = revsrc.grad(_uses_cfg)
    a = df(0.3)
    _CFG.k, _CFG.n = 1.5, 5
    try:
        b = df(0.3)
    finally:
        _CFG.k, _CFG.n = 2.0, 3
    close(a, fd(lambda t: _uses_cfg_ref(t, 2.0, 3), 0.3), rtol=1e-6)
    close(b, fd(lambda t: _uses_cfg_ref(t, 1.5, 5), 0.3), rtol=1e-6, what="after attributes changed")


@custom("jit_global_object_attribute_changed", "jit")
def _c_s5():
    jf = revsrc.jit(revsrc.grad(_uses_cfg))
    a = jf(0.3)
    _CFG.k, _CFG.n = 1.5, 5
    try:
        b = jf(0.3)
    finally:
        _CFG.k, _CFG.n = 2.0, 3
    close(a, fd(lambda t: _uses_cfg_ref(t, 2.0, 3), 0.3), rtol=1e-6)
    close(b, fd(lambda t: _uses_cfg_ref(t, 1.5, 5), 0.3), rtol=1e-6, what="after attributes changed")


@custom("jaxb_global_object_attribute_changed", "jax", needs_jax=True)
def _c_s6():
    df = revsrc.grad(_uses_cfg, backend="jax")
    a = df(0.3)
    _CFG.k, _CFG.n = 1.5, 5
    try:
        b = df(0.3)
    finally:
        _CFG.k, _CFG.n = 2.0, 3
    close(a, fd(lambda t: _uses_cfg_ref(t, 2.0, 3), 0.3), rtol=1e-6)
    close(b, fd(lambda t: _uses_cfg_ref(t, 1.5, 5), 0.3), rtol=1e-6, what="after attributes changed")


@custom("hessian_global_object_attribute_changed", "compose")
def _c_s7():
    hf = revsrc.hessian(_uses_cfg)
    a = hf(0.3)
    _CFG.k, _CFG.n = 1.5, 5
    try:
        b = hf(0.3)
    finally:
        _CFG.k, _CFG.n = 2.0, 3
    e = 1e-4
    ref = lambda k, n: (_uses_cfg_ref(0.3 + e, k, n) - 2 * _uses_cfg_ref(0.3, k, n) + _uses_cfg_ref(0.3 - e, k, n)) / e ** 2
    close(a, ref(2.0, 3), rtol=1e-4)
    close(b, ref(1.5, 5), rtol=1e-4, what="after attributes changed")


def _vm_local_conditional(x):
    if x > 0.0:
        acc = x
    else:
        acc = -x * 2.0
    for _ in range(2):
        acc = acc * 1.5
    return acc


@custom("vmap_local_assigned_in_branches", "vmap")
def _c_s8():
    xs = np.array([1.0, -1.0, 2.0, -0.5])
    close(revsrc.vmap(_vm_local_conditional)(xs), [_vm_local_conditional(float(x)) for x in xs], rtol=0, atol=0)


def _vm_default_int(x, n=2):
    while n > 0:
        x = x * 1.1
        n -= 1
    return x


@custom("vmap_default_int_counter_rebound", "vmap")
def _c_s9():
    xs = np.array([1.0, 2.0, 3.0])
    close(revsrc.vmap(_vm_default_int)(xs), [_vm_default_int(float(x)) for x in xs], rtol=0, atol=0)


@custom("vmap_passed_argument_rebound", "vmap")
def _c_s10():
    xs = np.array([1.0, 2.0, 3.0])
    ns = np.array([2, 2, 2])
    close(revsrc.vmap(_vm_default_int)(xs, ns), [_vm_default_int(float(x), 2) for x in xs], rtol=0, atol=0)


@custom("vmap_none_axis_argument_rebound", "vmap")
def _c_s11():
    xs = np.array([1.0, 2.0, 3.0])
    out = revsrc.vmap(_vm_default_int, in_axes=(0, None))(xs, 2)
    close(out, [_vm_default_int(float(x), 2) for x in xs], rtol=0, atol=0)
