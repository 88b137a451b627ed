"""Round 19, part g: reinforcement learning and control -- REINFORCE with fixed sampled
trajectories, softmax policies and baselines, soft value iteration with logsumexp,
TD(0)/TD(lambda) losses with stopped targets, actor-critic advantages, MPC rollouts with
clipped and saturated controls, LQR cost-to-go by a Riccati recursion, with helpers over
module-level constants, classes, closures and pytree parameters."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(1919)
N_S, N_A = 4, 3
FEAT = _rng.normal(size=(N_S, 5))
THETA0 = 0.3 * _rng.normal(size=(5, N_A))
# fixed trajectories: (state, action, reward)
TRAJ = [[(0, 1, 1.0), (2, 0, 0.0), (3, 2, 2.0), (1, 1, -1.0)],
        [(1, 2, 0.5), (0, 0, 1.0), (2, 1, 0.0)]]
GAMMA = 0.9


# -- REINFORCE with a softmax policy over features --------------------------------------

def _logits(theta, s):
    return FEAT[s] @ theta


def _log_softmax(z):
    m = np.max(z)
    return z - m - np.log(np.sum(np.exp(z - m)))


def _returns(rewards, gamma):
    G_ = 0.0
    out = []
    for r in reversed(rewards):
        G_ = r + gamma * G_
        out.append(G_)
    return out[::-1]


def reinforce_loss(theta, trajs=TRAJ, gamma=GAMMA):
    total = 0.0
    for traj in trajs:
        rets = _returns([r for _, _, r in traj], gamma)
        for (s, a, _), Gt in zip(traj, rets):
            total = total - _log_softmax(_logits(theta, s))[a] * Gt
    return total / len(trajs)


add(G("r19g_reinforce_softmax_returns", reinforce_loss, (THETA0,), ref="ag", tol=1e-10))
add(VG("r19g_reinforce_vg", reinforce_loss, (THETA0,), ref="jax", tol=1e-10))
add(H("r19g_reinforce_hessian", reinforce_loss, (THETA0,), ref="ag", tol=1e-9))


# -- REINFORCE with a learned baseline held in a dict pytree ----------------------------

def reinforce_baseline(params, trajs=TRAJ):
    theta, v = params["theta"], params["v"]
    pg, vl = 0.0, 0.0
    for traj in trajs:
        rets = _returns([r for _, _, r in traj], GAMMA)
        for t, (s, a, _) in enumerate(traj):
            b = FEAT[s] @ v
            adv = rets[t] - revsrc.stop_gradient(b)
            pg -= _log_softmax(_logits(theta, s))[a] * adv
            vl += 0.5 * (rets[t] - b) ** 2
    return pg + 0.5 * vl


def _baseline_ref():
    # stop_gradient only affects theta's gradient through adv; v's through vl only
    def pgpart(theta, v):
        pg = 0.0
        for traj in TRAJ:
            rets = _returns([r for _, _, r in traj], GAMMA)
            for t, (s, a, _) in enumerate(traj):
                adv = rets[t] - float(FEAT[s] @ v)
                pg = pg - _log_softmax(FEAT[s] @ theta)[a] * adv
        return pg

    def vpart(v):
        vl = 0.0
        for traj in TRAJ:
            rets = _returns([r for _, _, r in traj], GAMMA)
            for t, (s, a, _) in enumerate(traj):
                vl = vl + 0.5 * (rets[t] - FEAT[s] @ v) ** 2
        return 0.5 * vl
    v0 = P_BASE["v"]
    gt = fd_checked(lambda th: pgpart(th, v0), (P_BASE["theta"],))[0]
    gv = fd_checked(vpart, (v0,))[0]
    return {"theta": gt, "v": gv}


P_BASE = {"theta": THETA0, "v": 0.1 * np.arange(5.0)}
add(pair("r19g_reinforce_baseline_stop_gradient_dict",
         lambda: revsrc.grad(reinforce_baseline)(P_BASE), _baseline_ref, tol=1e-7))


# -- soft value iteration on a small MDP -------------------------------------------------

P_TRANS = _rng.dirichlet(np.ones(N_S), size=(N_S, N_A))   # P[s, a, s']
R_SA = _rng.normal(size=(N_S, N_A))


def _logsumexp(z, axis):
    m = np.max(z, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(z - m), axis=axis))


def soft_value_iteration(r, temp=0.5, iters=30):
    V = np.zeros(N_S)
    for _ in range(iters):
        Q = r + GAMMA * np.einsum("sat,t->sa", P_TRANS, V)
        V = temp * _logsumexp(Q / temp, axis=1)
    return V


def soft_vi_objective(r):
    return np.sum(soft_value_iteration(r) * np.array([0.4, 0.3, 0.2, 0.1]))


add(G("r19g_soft_value_iteration_reward_grad", soft_vi_objective, (R_SA,), ref="jax", tol=1e-9))


def soft_vi_until_converged(r, temp=0.5, tol=1e-10):
    V = np.zeros(N_S)
    it = 0
    while True:
        Q = r + GAMMA * (P_TRANS @ V)
        Vn = temp * _logsumexp(Q / temp, axis=1)
        it += 1
        if np.max(np.abs(Vn - V)) < tol or it > 500:
            return Vn[0]
        V = Vn


add(G("r19g_soft_vi_while_true_early_return", soft_vi_until_converged, (R_SA,), ref="fd",
      tol=1e-6))


def maxent_irl_nll(r, demos=((0, 1), (2, 0), (3, 2), (1, 1))):
    V = soft_value_iteration(r)
    Q = r + GAMMA * np.einsum("sat,t->sa", P_TRANS, V)
    logpi = (Q - V[:, None]) / 0.5
    return -sum(logpi[s, a] for s, a in demos)


add(G("r19g_maxent_irl_policy_nll", maxent_irl_nll, (R_SA,), ref="ag", tol=1e-9))


# -- TD losses -------------------------------------------------------------------------

TRANS = [(0, 1.0, 2), (2, 0.0, 3), (3, 2.0, 1), (1, -1.0, 0), (0, 0.5, 3)]


def td0_loss(w):
    loss = 0.0
    for s, r, s2 in TRANS:
        target = r + GAMMA * revsrc.stop_gradient(FEAT[s2] @ w)
        loss += (target - FEAT[s] @ w) ** 2
    return 0.5 * loss


def _td0_ref():
    w = W_TD
    g = np.zeros(5)
    for s, r, s2 in TRANS:
        d = r + GAMMA * FEAT[s2] @ w - FEAT[s] @ w
        g -= d * FEAT[s]
    return g


W_TD = 0.2 * np.ones(5)
add(pair("r19g_td0_semi_gradient_closed_form", lambda: revsrc.grad(td0_loss)(W_TD), _td0_ref,
         tol=1e-12))


def residual_td_loss(w):
    # full-gradient (residual) Bellman error: no stop_gradient
    err = np.array([r + GAMMA * FEAT[s2] @ w - FEAT[s] @ w for s, r, s2 in TRANS])
    return 0.5 * err @ err


add(G("r19g_residual_bellman_error", residual_td_loss, (W_TD,), ref="jax", tol=1e-12))
add(H("r19g_residual_bellman_hessian", residual_td_loss, (W_TD,), ref="jax", tol=1e-10))


def td_lambda_returns(v, rewards, lam=0.8):
    n = len(rewards)
    G_ = np.zeros(n)
    nxt = v[n]
    for t in reversed(range(n)):
        nxt = rewards[t] + GAMMA * ((1 - lam) * v[t + 1] + lam * nxt)
        G_[t] = nxt
    return G_


def td_lambda_loss(v, rewards):
    G_ = td_lambda_returns(v, rewards)
    return np.mean((G_ - v[:-1]) ** 2)


REW = np.array([1.0, 0.0, -0.5, 2.0, 0.3])
add(G("r19g_td_lambda_inplace_returns", td_lambda_loss, (np.linspace(0.1, 0.6, 6), REW),
      ref="fd", tol=1e-8))
add(G("r19g_td_lambda_wrt_rewards", td_lambda_loss, (np.linspace(0.1, 0.6, 6), REW),
      argnums=1, ref="fd", tol=1e-8))


def gae(values, rewards, lam=0.95):
    adv = np.zeros_like(rewards)
    last = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        delta = rewards[t] + GAMMA * values[t + 1] - values[t]
        last = delta + GAMMA * lam * last
        adv[t] = last
    return adv


def ppo_clip_loss(logp_new, logp_old, values, rewards, eps=0.2):
    adv = gae(values, rewards)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    ratio = np.exp(logp_new - logp_old)
    unclipped = ratio * adv
    clipped = np.clip(ratio, 1 - eps, 1 + eps) * adv
    return -np.mean(np.minimum(unclipped, clipped))


LP_OLD = np.array([-1.0, -0.7, -1.3, -0.9, -1.1])
LP_NEW = LP_OLD + np.array([0.05, -0.3, 0.4, 0.1, -0.02])
VALS = np.array([0.5, 0.4, 0.2, 0.9, 0.1, 0.0])
add(G("r19g_ppo_clip_gae_wrt_logp", ppo_clip_loss, (LP_NEW, LP_OLD, VALS, REW), ref="fd",
      tol=1e-7))
add(G("r19g_ppo_clip_gae_wrt_values", ppo_clip_loss, (LP_NEW, LP_OLD, VALS, REW), argnums=2,
      ref="fd", tol=1e-7))


# -- MPC: a double integrator with saturated controls ------------------------------------

class DoubleIntegrator:
    dt = 0.1
    u_max = 1.5

    def __init__(self, drag=0.2):
        self.drag = drag

    def step(self, x, u):
        u = np.clip(u, -self.u_max, self.u_max)
        pos, vel = x
        acc = u - self.drag * vel
        return (pos + self.dt * vel, vel + self.dt * acc)

    @property
    def horizon_weight(self):
        return 10.0


def mpc_cost(us, x0=(1.0, 0.0), sys=DoubleIntegrator()):
    x = x0
    cost = 0.0
    for u in us:
        x = sys.step(x, u)
        cost += x[0] ** 2 + 0.1 * x[1] ** 2 + 0.01 * u ** 2
    return cost + sys.horizon_weight * (x[0] ** 2 + x[1] ** 2)


U0 = np.array([-0.5, -2.0, 0.3, 1.8, -1.0, 0.2, 0.0, 0.7])
add(G("r19g_mpc_clip_saturation_class", mpc_cost, (U0,), ref="fd", tol=1e-7))
add(G("r19g_mpc_clip_saturation_ag", mpc_cost, (U0,), ref="ag", tol=1e-10))


def mpc_cost_built_inside(us, drag=0.2):
    sys = DoubleIntegrator(drag)
    x = (1.0, 0.0)
    cost = 0.0
    for u in us:
        x = sys.step(x, u)
        cost += x[0] ** 2 + 0.1 * x[1] ** 2 + 0.01 * u ** 2
    return cost + sys.horizon_weight * (x[0] ** 2 + x[1] ** 2)


add(G("r19g_mpc_system_built_inside", mpc_cost_built_inside, (U0,), ref="ag", tol=1e-10))
add(G("r19g_mpc_system_built_inside_wrt_drag", mpc_cost_built_inside, (U0, 0.2), argnums=1,
      ref="fd", tol=1e-7))
add(G("r19g_mpc_bound_partial", functools.partial(mpc_cost, x0=(0.5, 0.5)), (U0,), ref="fd",
      tol=1e-7))
# containers.md: "bind it: revsrc.grad(functools.partial(f, ...))"
add(G("r19g_mpc_system_bound_by_partial", functools.partial(mpc_cost, sys=DoubleIntegrator(0.3)),
      (U0,), ref="fd", tol=1e-7))


def mpc_tanh_squash(us, x0):
    pos, vel = x0[0], x0[1]
    traj = np.zeros((len(us) + 1, 2))
    traj[0] = x0
    for k, u in enumerate(us):
        a = 2.0 * np.tanh(u)
        vel = vel + 0.1 * (a - 0.3 * abs(vel) * vel)
        pos = pos + 0.1 * vel
        traj[k + 1, 0] = pos
        traj[k + 1, 1] = vel
    return np.sum(traj[:, 0] ** 2) + 0.5 * np.sum(np.diff(traj[:, 1]) ** 2)


X0 = np.array([1.0, -0.2])
add(G("r19g_mpc_tanh_traj_writes_wrt_u", mpc_tanh_squash, (U0, X0), ref="fd", tol=1e-7))
add(G("r19g_mpc_tanh_traj_writes_wrt_x0", mpc_tanh_squash, (U0, X0), argnums=1, ref="fd",
      tol=1e-7))
add(H("r19g_mpc_tanh_hessian_u", mpc_tanh_squash, (U0[:4], X0), ref="fd", tol=1e-5))


def mpc_shooting_gd(x0, iters=15, lr=0.05):
    """Inner gradient descent on the controls (closed-form gradient by adjoint), then the
    optimized cost as a function of the initial state."""
    us = np.zeros(6)
    for _ in range(iters):
        g = revsrc.grad(mpc_tanh_squash)(us, x0)
        us = us - lr * g
    return mpc_tanh_squash(us, x0)


add(G("r19g_mpc_unrolled_inner_grad_descent", mpc_shooting_gd, (X0,), ref="fd", tol=1e-6))


# -- LQR by a Riccati recursion, cost wrt the dynamics -----------------------------------

def lqr_cost_to_go(A, B, Q=np.eye(2), R=np.array([[0.1]]), T=20):
    P = Q.copy()
    for _ in range(T):
        BtP = B.T @ P
        K = np.linalg.solve(R + BtP @ B, BtP @ A)
        P = Q + A.T @ P @ (A - B @ K)
    return P


def lqr_value(A, B, x0=np.array([1.0, 0.5])):
    return x0 @ lqr_cost_to_go(A, B) @ x0


A_DYN = np.array([[1.0, 0.1], [0.0, 0.98]])
B_DYN = np.array([[0.0], [0.1]])
add(G("r19g_lqr_riccati_wrt_A", lqr_value, (A_DYN, B_DYN), ref="jax", tol=1e-8))
add(G("r19g_lqr_riccati_wrt_B", lqr_value, (A_DYN, B_DYN), argnums=1, ref="jax", tol=1e-8))


# -- epsilon-greedy bandit: values of a fixed run wrt the step size -----------------------

ARMS = np.array([0, 2, 1, 2, 2, 0, 1, 2])
PAYOFF = np.array([0.3, 1.0, 0.8, 1.2, 0.9, 0.1, 0.7, 1.1])


def bandit_estimates(alpha, q0):
    q = np.full(3, q0)
    for a, r in zip(ARMS, PAYOFF):
        q[a] += alpha * (r - q[a])
    return q @ np.array([1.0, 2.0, 3.0])


add(G("r19g_bandit_q_update_inplace_alpha", bandit_estimates, (0.3, 0.5), ref="fd", tol=1e-8))
add(G("r19g_bandit_q_update_inplace_q0", bandit_estimates, (0.3, 0.5), argnums=1, ref="fd",
      tol=1e-8))


# -- vmap of the per-transition TD error gradient ---------------------------------------

def td_err_sq(w, phi, phi2, r):
    d = r + GAMMA * phi2 @ w - phi @ w
    return d * d


PHI = FEAT[[0, 2, 3, 1]]
PHI2 = FEAT[[2, 3, 1, 0]]
RR = np.array([1.0, 0.0, 2.0, -1.0])


def _per_ex_ref():
    return np.stack([2 * (r + GAMMA * b @ W_TD - a @ W_TD) * (GAMMA * b - a)
                     for a, b, r in zip(PHI, PHI2, RR)])


add(pair("r19g_vmap_grad_td_per_example",
         lambda: revsrc.vmap(revsrc.grad(td_err_sq), in_axes=(None, 0, 0, 0))(W_TD, PHI, PHI2, RR),
         _per_ex_ref, tol=1e-12))


# -- a Q-learning target with max over actions, double-DQN style -----------------------

def dqn_loss(Wq, W_target, batch=((0, 1, 1.0, 2), (2, 0, 0.0, 3), (3, 2, 2.0, 1))):
    loss = 0.0
    for s, a, r, s2 in batch:
        q = FEAT[s] @ Wq
        q_next_online = FEAT[s2] @ Wq
        a_star = int(np.argmax(q_next_online))
        tgt = r + GAMMA * (FEAT[s2] @ W_target)[a_star]
        loss += optax_huber(q[a] - tgt)
    return loss


def optax_huber(x, delta=1.0):
    ax = abs(x)
    return 0.5 * x * x if ax <= delta else delta * (ax - 0.5 * delta)


add(G("r19g_double_dqn_huber_argmax", dqn_loss, (THETA0, THETA0 * 0.5), ref="ag", tol=1e-11))
add(G("r19g_double_dqn_huber_wrt_target", dqn_loss, (THETA0, THETA0 * 0.5), argnums=1,
      ref="ag", tol=1e-11))
add(G("r19g_reinforce_backend_jax", reinforce_loss, (THETA0,), ref="ag", tol=1e-10,
      backend="jax"))
add(G("r19g_mpc_clip_backend_jax", mpc_cost_built_inside, (U0,), ref="ag", tol=1e-10,
      backend="jax"))


# -- more: a Generator argument, try/except in the user's code, value iteration by while ---

def sampled_pg_loss(theta, rng, n=16):
    s = rng.integers(0, N_S, size=n)
    u = rng.random(n)
    loss = 0.0
    for si, ui in zip(s, u):
        lp = _log_softmax(_logits(theta, si))
        a = int(np.searchsorted(np.cumsum(np.exp(lp)), ui))
        a = min(a, N_A - 1)
        loss -= lp[a] * R_SA[si, a]
    return loss / n


add(G("r19g_sampled_pg_generator_argument", lambda th: sampled_pg_loss(th, np.random.default_rng(7)),
      (THETA0,), ref="fd", tol=1e-7))


def _two_calls_same_rng():
    rng = np.random.default_rng(11)
    g1 = revsrc.grad(sampled_pg_loss)(THETA0, rng)
    g2 = revsrc.grad(sampled_pg_loss)(THETA0, rng)
    return (g1, g2)


def _two_calls_ref():
    rng = np.random.default_rng(11)
    g1 = fd_checked(lambda th: sampled_pg_loss(th, np.random.default_rng(11)), (THETA0,))[0]
    rng.integers(0, N_S, size=16)
    rng.random(16)
    state = rng.bit_generator.state

    def f2(th):
        r = np.random.default_rng(0)
        r.bit_generator.state = state
        return sampled_pg_loss(th, r)
    g2 = fd_checked(f2, (THETA0,))[0]
    return (g1, g2)


add(pair("r19g_generator_advances_between_calls", _two_calls_same_rng, _two_calls_ref, tol=1e-7))


def safe_log_ratio_loss(logits_new, logits_old, actions=(0, 2, 1, 1)):
    total = 0.0
    for t, a in enumerate(actions):
        try:
            ratio = math.exp(logits_new[t, a] - logits_old[t, a])
        except OverflowError:
            ratio = 1e300
        total += min(ratio, 1.2) * (1.0 if a != 1 else -0.5)
    return -total


LN_OLD = 0.2 * _rng.normal(size=(4, 3))
add(G("r19g_try_except_overflow_ratio", safe_log_ratio_loss, (LN_OLD + 0.1, LN_OLD), ref="fd",
      tol=1e-8))


def policy_eval_while(r, tol=1e-9):
    pi = np.full((N_S, N_A), 1.0 / N_A)
    Ppi = np.einsum("sa,sat->st", pi, P_TRANS)
    rpi = np.sum(pi * r, axis=1)
    V = np.zeros(N_S)
    delta = 1.0
    while delta > tol:
        Vn = rpi + GAMMA * Ppi @ V
        delta = np.max(np.abs(Vn - V))
        V = Vn
    return V @ np.array([1.0, 0.0, 0.0, 0.0])


def _policy_eval_exact():
    Ppi = P_TRANS.mean(axis=1)
    row = np.linalg.solve((np.eye(N_S) - GAMMA * Ppi).T, np.array([1.0, 0, 0, 0]))
    return np.outer(row, np.full(N_A, 1.0 / N_A))


add(G("r19g_policy_eval_while_delta", policy_eval_while, (R_SA,), ref=_policy_eval_exact,
      tol=1e-7))


def cartpole_energy_shaping(k, x0=np.array([0.1, 0.0, 0.2, 0.0]), steps=40, dt=0.02):
    x = x0.copy()
    cost = 0.0
    for _ in range(steps):
        pos, vel, th, om = x
        u = np.clip(-k[0] * th - k[1] * om - k[2] * pos - k[3] * vel, -10.0, 10.0)
        acc = (u + 0.1 * om * om * math.sin(th)) / 1.1
        alpha = (9.8 * math.sin(th) - math.cos(th) * acc) / (0.5 * (4.0 / 3.0 - 0.1 * math.cos(th) ** 2 / 1.1))
        x[0] += dt * vel
        x[1] += dt * acc
        x[2] += dt * om
        x[3] += dt * alpha
        cost += th * th + 0.01 * u * u
    return cost


add(G("r19g_cartpole_lqr_gains_inplace_state", cartpole_energy_shaping,
      (np.array([-30.0, -5.0, -1.0, -2.0]),), ref="fd", tol=1e-6, h=1e-4))
