"""Round 17, part h: reinforcement learning and control -- softmax policies,
REINFORCE and actor-critic losses over trajectories, GAE with reversed loops, value
iteration with max, soft (entropy-regularized) Bellman backups, LQR costs in loops,
Riccati recursions, MPC shooting with clipping, each checked against autograd, JAX
with x64 or central differences."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(17)
NS, NA = 4, 3
FEAT = _rng.normal(size=(NS, NA, 5))
THETA = _rng.normal(size=5) * 0.3
GAMMA = 0.9

# a fixed trajectory of (state, action, reward)
TRAJ = [(0, 1, 1.0), (2, 0, 0.0), (3, 2, -0.5), (1, 1, 2.0), (0, 0, 0.3), (2, 2, 1.0)]


def softmax(z):
    z = z - np.max(z)
    e = np.exp(z)
    return e / np.sum(e)


def log_softmax(z):
    m = np.max(z)
    return z - m - np.log(np.sum(np.exp(z - m)))


def policy_logits(theta, s):
    return FEAT[s] @ theta


def returns_to_go(rewards, gamma=GAMMA):
    G_ = 0.0
    out = []
    for r in reversed(rewards):
        G_ = r + gamma * G_
        out.append(G_)
    return out[::-1]


def reinforce_loss(theta, traj):
    rets = returns_to_go([r for _, _, r in traj])
    baseline = sum(rets) / len(rets)
    loss = 0.0
    for (s, a, _), Gt in zip(traj, rets):
        loss = loss - log_softmax(policy_logits(theta, s))[a] * (Gt - baseline)
    return loss / len(traj)


add(G("r17h_reinforce_baseline_reversed", reinforce_loss, (THETA, TRAJ), ref="ag", tol=1e-10))
add(H("r17h_reinforce_hessian", reinforce_loss, (THETA, TRAJ), ref="ag", tol=1e-9))


def entropy_bonus_loss(theta, traj, beta=0.01):
    loss = reinforce_loss(theta, traj)
    ent = 0.0
    for s, _, _ in traj:
        p = softmax(policy_logits(theta, s))
        ent -= np.sum(p * np.log(p))
    return loss - beta * ent / len(traj)


add(G("r17h_entropy_bonus_kw_default", entropy_bonus_loss, (THETA, TRAJ), ref="ag", tol=1e-10))


# PPO clipped surrogate with np.clip and np.minimum (a kink region is exercised)
OLD_LOGP = np.array([-1.2, -0.9, -1.5, -0.4, -1.1, -1.3])
ADV = np.array([0.5, -0.3, 1.2, -0.8, 0.1, 0.9])


def ppo_loss(theta, traj, old_logp, adv, eps=0.2):
    logp = np.array([log_softmax(policy_logits(theta, s))[a] for s, a, _ in traj])
    ratio = np.exp(logp - old_logp)
    surr = np.minimum(ratio * adv, np.clip(ratio, 1 - eps, 1 + eps) * adv)
    return -np.mean(surr)


add(G("r17h_ppo_clip_minimum", ppo_loss, (THETA, TRAJ, OLD_LOGP, ADV), ref="jax", tol=1e-10))
add(G("r17h_ppo_clip_minimum_fd", ppo_loss, (THETA, TRAJ, OLD_LOGP, ADV), ref="fd", tol=1e-7))


# GAE: advantages by a reversed loop writing into an array in place
def gae_critic_loss(v, rewards, lam=0.95, gamma=0.99):
    T = len(rewards)
    adv = np.zeros(T)
    last = 0.0
    for t in reversed(range(T)):
        nxt = v[t + 1] if t + 1 < T else 0.0
        delta = rewards[t] + gamma * nxt - v[t]
        last = delta + gamma * lam * last
        adv[t] = last
    targets = adv + v[:T]
    return np.sum((v[:T] - revsrc.stop_gradient(targets)) ** 2) + 0.1 * np.sum(adv ** 2)


def gae_critic_loss_ag(v, rewards, lam=0.95, gamma=0.99):
    T = len(rewards)
    advs = []
    last = 0.0
    for t in reversed(range(T)):
        nxt = v[t + 1] if t + 1 < T else 0.0
        delta = rewards[t] + gamma * nxt - v[t]
        last = delta + gamma * lam * last
        advs.append(last)
    adv = np.array(advs[::-1])
    return 0.1 * np.sum(adv ** 2)


VV = np.array([0.5, 0.2, -0.1, 0.4, 0.0])
RR = np.array([1.0, 0.0, 0.5, -1.0, 2.0])


def _gae_ref():
    # stop_gradient'ed targets: d/dv of sum((v - c)^2) with c = adv + v is -2 adv
    T = 5
    advs, last = [], 0.0
    for t in reversed(range(T)):
        nxt = VV[t + 1] if t + 1 < T else 0.0
        last = RR[t] + 0.99 * nxt - VV[t] + 0.99 * 0.95 * last
        advs.append(last)
    adv = np.array(advs[::-1])
    return -2 * adv + ag()[0].grad(agify(gae_critic_loss_ag))(VV, RR)


add(pair("r17h_gae_reversed_inplace_stopgrad", lambda: revsrc.grad(gae_critic_loss)(VV, RR), _gae_ref, tol=1e-10))


# -- value iteration with max ---------------------------------------------------------------

P_T = _rng.dirichlet(np.ones(NS), size=(NS, NA))  # P[s, a, s']
R_T = _rng.normal(size=(NS, NA))


def value_iteration(R, P, gamma=GAMMA, iters=40):
    V = np.zeros(P.shape[0])
    for _ in range(iters):
        Q = R + gamma * P @ V
        V = np.max(Q, axis=1)
    return V


def vi_objective(R):
    return np.sum(value_iteration(R, P_T))


add(G("r17h_value_iteration_np_max", vi_objective, (R_T,), ref="jax", tol=1e-10))
add(G("r17h_value_iteration_np_max_fd", vi_objective, (R_T,), ref="fd", tol=1e-6))


def vi_builtin_max(R, P, gamma=GAMMA, tol=1e-10):
    V = [0.0] * NS
    while True:
        newV = []
        for s in range(NS):
            newV.append(max(R[s, a] + gamma * sum(P[s, a, t] * V[t] for t in range(NS)) for a in range(NA)))
        diff = max(abs(x - y) for x, y in zip(newV, V))
        V = newV
        if diff < tol:
            break
    return V[0] + 2.0 * V[3]


add(G("r17h_value_iteration_while_builtin_max", vi_builtin_max, (R_T, P_T), ref="fd", tol=1e-6))


# soft value iteration: logsumexp backups, temperature as an argument
def soft_vi(R, tau, iters=60):
    V = np.zeros(NS)
    for _ in range(iters):
        Q = R + GAMMA * np.einsum("sat,t->sa", P_T, V)
        m = np.max(Q, axis=1, keepdims=True)
        V = (m + tau * np.log(np.sum(np.exp((Q - m) / tau), axis=1, keepdims=True)))[:, 0]
    pi = np.exp((Q - V[:, None]) / tau)
    return np.sum(pi[:, 0] * V)


add(G("r17h_soft_vi_einsum_temperature", soft_vi, (R_T, 0.5), argnums=(0, 1), ref="jax", tol=1e-9))


# Q-learning TD loss with a target network held fixed, batch by vmap(grad)
def td_loss(w, s, a, r, s2):
    q = FEAT[int(s), int(a)] @ w
    q2 = max(float(FEAT[int(s2), b] @ w) for b in range(NA))
    target = r + GAMMA * revsrc.stop_gradient(q2)
    return 0.5 * (q - target) ** 2


def _td_ref():
    w = THETA
    out = []
    for s, a, r, s2 in [(0, 1, 1.0, 2), (3, 2, -0.5, 1)]:
        q = FEAT[s, a] @ w
        q2 = max(FEAT[s2, b] @ w for b in range(NA))
        out.append((q - (r + GAMMA * q2)) * FEAT[s, a])
    return out


add(pair("r17h_td_loss_stop_gradient_max", lambda: [revsrc.grad(td_loss)(THETA, 0, 1, 1.0, 2),
                                                  revsrc.grad(td_loss)(THETA, 3, 2, -0.5, 1)],
         _td_ref, tol=1e-12))


# -- LQR ---------------------------------------------------------------------------------

A_D = np.array([[1.0, 0.1], [0.0, 1.0]])
B_D = np.array([[0.005], [0.1]])
Q_C = np.diag([1.0, 0.1])
R_C = np.array([[0.01]])


def lqr_rollout_cost(K, x0, T=50):
    x = x0
    J = 0.0
    for _ in range(T):
        u = -K @ x
        J = J + x @ Q_C @ x + u @ R_C @ u
        x = A_D @ x + B_D @ u
    return J


K0 = np.array([[3.0, 2.5]])
X0 = np.array([1.0, 0.0])
add(G("r17h_lqr_rollout_gain", lqr_rollout_cost, (K0, X0), ref="ag", tol=1e-9))
add(H("r17h_lqr_rollout_hessian", lqr_rollout_cost, (K0, X0), ref="ag", tol=1e-8))
add(G("r17h_lqr_rollout_backend_jax", lqr_rollout_cost, (K0, X0), ref="ag", tol=1e-9, backend="jax"))


def riccati_cost(q_diag, T=30):
    Qm = np.diag(q_diag)
    P = Qm.copy()
    for _ in range(T):
        S = R_C + B_D.T @ P @ B_D
        K = np.linalg.solve(S, B_D.T @ P @ A_D)
        P = Qm + A_D.T @ P @ (A_D - B_D @ K)
    return np.trace(P) + X0 @ P @ X0


add(G("r17h_riccati_solve_loop", riccati_cost, (np.array([1.0, 0.1]),), ref="jax", tol=1e-8))


# Riccati converged by a while loop with data-dependent stopping and an early return
def riccati_until(q, tol=1e-12, max_it=500):
    P = np.diag([q, 0.1])
    for it in range(max_it):
        S = R_C[0, 0] + (B_D.T @ P @ B_D)[0, 0]
        K = (B_D.T @ P @ A_D) / S
        Pn = np.diag([q, 0.1]) + A_D.T @ P @ (A_D - B_D @ K)
        if np.max(np.abs(Pn - P)) < tol:
            return Pn[0, 0] + Pn[1, 1]
        P = Pn
    return P[0, 0] + P[1, 1]


add(G("r17h_riccati_early_return", riccati_until, (1.0,), ref="fd", tol=1e-6))


# MPC shooting: controls clipped to actuator limits, a cost with a terminal term
def mpc_cost(u, x0, umax=0.8):
    x = np.array(x0, dtype=float)
    cost = 0.0
    for k, uk in enumerate(u):
        ua = np.clip(uk, -umax, umax)
        x = A_D @ x + B_D[:, 0] * ua
        cost += (x[0] - 1.0) ** 2 + 0.01 * ua ** 2 + 0.001 * (k + 1) * uk ** 2
    return cost + 10.0 * x @ x


U0 = np.array([0.5, 1.2, -0.3, 0.9, -1.1, 0.2, 0.0, 0.7])
add(G("r17h_mpc_clip_enumerate", mpc_cost, (U0, [0.0, 0.0]), ref="ag", tol=1e-10))
add(pair("r17h_mpc_jacfwd_jacrev", lambda: revsrc.jacfwd(revsrc.jacrev(mpc_cost))(U0, [0.0, 0.0]),
         lambda: ag()[0].hessian(agify(mpc_cost))(U0, [0.0, 0.0]), tol=1e-9))


# cart-pole: nonlinear dynamics, policy is a linear feedback, loss sums over time
class CartPole:
    g, mc, mp, l, dt = 9.8, 1.0, 0.1, 0.5, 0.02

    def step(self, s, f):
        x, xd, th, thd = s
        st, ct = math.sin(th), math.cos(th)
        tmp = (f + self.mp * self.l * thd ** 2 * st) / (self.mc + self.mp)
        thacc = (self.g * st - ct * tmp) / (self.l * (4.0 / 3.0 - self.mp * ct ** 2 / (self.mc + self.mp)))
        xacc = tmp - self.mp * self.l * thacc * ct / (self.mc + self.mp)
        return (x + self.dt * xd, xd + self.dt * xacc, th + self.dt * thd, thd + self.dt * thacc)

    def cost(self, k, s0, T=60):
        s = s0
        c = 0.0
        for _ in range(T):
            f = -(k[0] * s[0] + k[1] * s[1] + k[2] * s[2] + k[3] * s[3])
            s = self.step(s, f)
            c += s[2] ** 2 + 0.1 * s[0] ** 2
        return c


_cp = CartPole()
add(G("r17h_cartpole_method_tuple_state", _cp.cost, (np.array([-1.0, -2.0, 30.0, 5.0]), (0.0, 0.0, 0.1, 0.0)),
      ref="fd", tol=1e-6))
add(JV("r17h_cartpole_jvp", _cp.cost, (np.array([-1.0, -2.0, 30.0, 5.0]), (0.0, 0.0, 0.1, 0.0)),
       (np.array([0.1, 0.0, 1.0, -0.5]), (0.0, 0.0, 0.0, 0.0)), tol=1e-6))


# policy gradient with a Generator: actions sampled with a seeded rng inside the loss
def sampled_pg_loss(theta, seed, T=8):
    rng = np.random.default_rng(seed)
    s, loss, ret = 0, 0.0, 0.0
    for t in range(T):
        p = softmax(policy_logits(theta, s))
        a = int(rng.choice(NA, p=revsrc.stop_gradient(p)))
        r = R_T[s, a]
        ret += r
        loss -= math.log(p[a]) * ret
        s = (s + a + 1) % NS
    return loss


def _pg_ref():
    return fd_checked(sampled_pg_loss, (THETA, 3))[0]


add(pair("r17h_sampled_pg_generator_seed", lambda: revsrc.grad(sampled_pg_loss)(THETA, 3), _pg_ref, tol=1e-7))


# a Generator passed in: its state advances between calls, the gradient follows the draws
def noisy_return(theta, rng):
    eps = rng.normal(size=5)
    return np.sum(np.tanh((theta + 0.1 * eps) * 2.0))


def _gen_between_calls():
    rng = np.random.default_rng(5)
    df = revsrc.grad(noisy_return)
    return df(THETA, rng), df(THETA, rng)


def _gen_between_ref():
    rng = np.random.default_rng(5)
    e1 = rng.normal(size=5)
    e2 = rng.normal(size=5)
    return tuple(2.0 / np.cosh((THETA + 0.1 * e) * 2.0) ** 2 for e in (e1, e2))


add(pair("r17h_generator_arg_advances_between_calls", _gen_between_calls, _gen_between_ref, tol=1e-12))


# discounted return as a 0-d array, int rewards; gamma differentiated
def discounted(gamma, rewards):
    return sum(r * gamma ** k for k, r in enumerate(rewards))


add(G("r17h_discounted_gamma_int_rewards", discounted, (np.float64(0.9), [1, 0, 2, 3]),
      ref=lambda: 0 + 2 * 2 * 0.9 + 3 * 3 * 0.81, tol=1e-12))
add(G("r17h_discounted_empty_rewards", discounted, (0.9, []), ref=lambda: 0.0, tol=0.0))
add(G("r17h_discounted_0d_array_gamma", discounted, (np.array(0.9), [1.0, 0.5]), ref=lambda: np.array(0.5), tol=1e-12))


# backend jax of the softmax-policy REINFORCE loss (a loop over a Python list of tuples)
add(G("r17h_reinforce_backend_jax", reinforce_loss, (THETA, TRAJ), ref="ag", tol=1e-10, backend="jax"))
add(pair("r17h_vi_jit_grad", lambda: revsrc.jit(revsrc.grad(vi_objective))(R_T),
         lambda: jax().grad(jaxify(vi_objective))(R_T), tol=1e-10))


# a long rollout: checkpointed under a small memory bound, the same bits as stored
def long_rollout(K, x0, T=3000, dt=0.001):
    x = x0
    for k in range(T):
        u = -K @ x
        x = x + dt * (A_D @ x - x + B_D @ u) + dt * 0.1 * np.sin(x * (1 + k % 3))
    return x @ x


add(EXACT("r17h_long_rollout_checkpointed_memory", lambda: revsrc.grad(long_rollout, memory=1e5)(K0, X0),
          lambda: revsrc.grad(long_rollout)(K0, X0)))
add(G("r17h_long_rollout_grad", long_rollout, (K0, X0), ref="fd", tol=1e-6))


def first_crossing_reward(gain, thr=2.0):
    s = 0.0
    for k in range(10):
        s = s + gain * (k + 1) * 0.1
        if s > thr:
            return s * s - 0.5 * k
    return -s


add(G("r17h_first_crossing_early_return_jax", first_crossing_reward, (0.9,), ref="fd", tol=1e-7, backend="jax"))
add(H("r17h_first_crossing_hessian", first_crossing_reward, (0.9,), ref="fd", tol=1e-5))


# value iteration to convergence with a while loop on arrays, backend="jax" (lax.while_loop)
def vi_until(R, tol=1e-10):
    V = np.zeros(NS)
    err = 1.0
    while err > tol:
        Vn = np.max(R + GAMMA * P_T @ V, axis=1)
        err = np.max(np.abs(Vn - V))
        V = Vn
    return np.sum(V * np.arange(1.0, NS + 1))


add(G("r17h_vi_while_converge_default", vi_until, (R_T,), ref="fd", tol=1e-6))
add(G("r17h_vi_while_converge_backend_jax", vi_until, (R_T,), ref="fd", tol=1e-6, backend="jax", max_steps=2000))
# the loop needs ~250 iterations: max_steps=50 must refuse (E604), not return a number
add(G("r17h_vi_while_max_steps_exceeded", vi_until, (R_T,), ref="fd", tol=1e-6, backend="jax", max_steps=50))


def soft_policy_hvp_target(R):
    return soft_vi(R, 0.5)


add(pair("r17h_soft_vi_hvp", lambda: revsrc.hvp(soft_policy_hvp_target, (R_T,), (np.ones_like(R_T),)),
         lambda: jax().jvp(jax().grad(jaxify(soft_policy_hvp_target)), (R_T,), (np.ones_like(R_T),))[1], tol=1e-8))
add(pair("r17h_soft_vi_hvp_backend_jax", lambda: revsrc.hvp(soft_policy_hvp_target, (R_T,), (np.ones_like(R_T),), backend="jax"),
         lambda: jax().jvp(jax().grad(jaxify(soft_policy_hvp_target)), (R_T,), (np.ones_like(R_T),))[1], tol=1e-8))


# n-step transition probabilities of the policy's Markov chain by np.linalg.matrix_power
def occupancy_cost(theta, n=6):
    pi = np.array([softmax(policy_logits(theta, s)) for s in range(NS)])
    Ppi = np.einsum("sa,sat->st", pi, P_T)
    Pn = np.linalg.matrix_power(Ppi, n)
    return Pn[0] @ np.array([1.0, -1.0, 2.0, 0.5])


add(G("r17h_matrix_power_occupancy", occupancy_cost, (THETA,), ref="jax", tol=1e-11))


def occupancy_cost_loop(theta, n=6):
    pi = np.array([softmax(policy_logits(theta, s)) for s in range(NS)])
    Ppi = np.sum(pi[:, :, None] * P_T, axis=1)
    Pn = np.eye(NS)
    for _ in range(n):
        Pn = Pn @ Ppi
    return Pn[0] @ np.array([1.0, -1.0, 2.0, 0.5])


add(H("r17h_matrix_power_occupancy_hessian", lambda th: occupancy_cost(th), (THETA,), ref=lambda: jax().hessian(jaxify(occupancy_cost_loop))(THETA), tol=1e-9))
add(H("r17h_occupancy_loop_hessian", occupancy_cost_loop, (THETA,), ref="jax", tol=1e-9))


# TD(lambda) with eligibility written as a decaying prefix: e[:t] = e[:t] * (gamma * lam)
def td_lambda_credit(w, feats, rewards, lam=0.8):
    T = len(rewards)
    elig = np.zeros(T)
    total = 0.0
    for t in range(T):
        elig[:t] = elig[:t] * (GAMMA * lam)
        elig[t] = 1.0
        v = feats[t] @ w
        v_next = feats[t + 1] @ w if t + 1 < T else 0.0
        delta = rewards[t] + GAMMA * v_next - v
        total += delta * np.sum(elig * (feats[:T] @ w))
    return total


FT = _rng.normal(size=(6, 5))
RW = np.array([1.0, 0.0, -0.5, 2.0, 0.3, 1.0])
add(G("r17h_td_lambda_prefix_decay", td_lambda_credit, (THETA, FT, RW), ref="fd", tol=1e-7))
add(G("r17h_td_lambda_prefix_decay_backend_jax", td_lambda_credit, (THETA, FT, RW), ref="fd", tol=1e-7, backend="jax"))


# an agent class: properties, inheritance, a method calling others; an array attribute
# changed in place between calls of the derivative
class LinearCritic:
    def __init__(self, feats, gamma):
        self.feats, self.gamma = feats, gamma

    @property
    def n(self):
        return self.feats.shape[0]

    def value(self, w, s):
        return self.feats[s] @ w

    def td_error(self, w, s, r, s2):
        return r + self.gamma * self.value(w, s2) - self.value(w, s)

    def loss(self, w, batch):
        return sum(self.td_error(w, s, r, s2) ** 2 for s, r, s2 in batch) / len(batch)


class ResidualCritic(LinearCritic):
    def td_error(self, w, s, r, s2):
        return super().td_error(w, s, r, s2) - 0.1 * self.value(w, s) ** 2


BATCH = [(0, 1.0, 1), (1, 0.0, 2), (2, -0.5, 5), (5, 2.0, 0)]
_critic = ResidualCritic(FT.copy(), 0.9)
add(G("r17h_critic_class_super_property", _critic.loss, (THETA, BATCH), ref="fd", tol=1e-7))


def _critic_attr_mutated():
    df = revsrc.grad(_critic.loss)
    g1 = df(THETA, BATCH)
    old = _critic.feats[0].copy()
    _critic.feats[0] = 2.0 * old
    try:
        g2 = df(THETA, BATCH)
    finally:
        _critic.feats[0] = old
    return g1, g2


def _critic_attr_ref():
    g1 = fd_checked(_critic.loss, (THETA, BATCH))[0]
    F2 = FT.copy()
    F2[0] *= 2.0
    g2 = fd_checked(ResidualCritic(F2, 0.9).loss, (THETA, BATCH))[0]
    return g1, g2


add(pair("r17h_critic_array_attribute_mutated_between_calls", _critic_attr_mutated, _critic_attr_ref, tol=1e-7))


def _critic_gamma_rebound_jax():
    df = revsrc.grad(_critic.loss, backend="jax")
    g1 = df(THETA, BATCH)
    _critic.gamma = 0.5
    try:
        g2 = df(THETA, BATCH)
    finally:
        _critic.gamma = 0.9
    return g1, g2


def _critic_gamma_ref():
    return (fd_checked(_critic.loss, (THETA, BATCH))[0],
            fd_checked(ResidualCritic(FT.copy(), 0.5).loss, (THETA, BATCH))[0])


add(pair("r17h_critic_gamma_rebound_backend_jax", _critic_gamma_rebound_jax, _critic_gamma_ref, tol=1e-7))
