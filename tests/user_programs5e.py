"""User programs, corpus 5e: real-world models (ODEs, filters, networks, pricers)."""
import math

import numpy as np

import revsrc
from user_programs5_harness import case

try:
    import scipy.linalg
    import scipy.special
except ImportError:  # pragma: no cover
    scipy = None

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# ---- real-world programs -------------------------------------------------------------

def rk4_decay(k, y0=1.0, T=1.0, n=20):
    h = T / n
    y = y0

    def rhs(y):
        return -k * y + math.sin(y)
    for _ in range(n):
        k1 = rhs(y)
        k2 = rhs(y + 0.5 * h * k1)
        k3 = rhs(y + 0.5 * h * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


add("rk4_nested_rhs_closure", rk4_decay, (0.7,))
add("rk4_memory_checkpoint", rk4_decay, (0.7,), t="memory")


def adaptive_euler(k):
    t, y, h = 0.0, 1.0, 0.1
    while t < 1.0:
        y_new = y + h * (-k * y)
        err = abs(h * h * k * k * y)
        if err > 1e-3:
            h = h * 0.5
            continue
        y, t = y_new, t + h
    return y


add("adaptive_step_while_continue", adaptive_euler, (1.3,))


def kalman_1d(q, r, zs):
    x, P = 0.0, 1.0
    ll = 0.0
    for z in zs:
        P = P + q
        S = P + r
        K = P / S
        innov = z - x
        ll = ll - 0.5 * (math.log(2 * math.pi * S) + innov * innov / S)
        x = x + K * innov
        P = (1 - K) * P
    return ll


add("kalman_filter_1d", kalman_1d, (0.1, 0.5, np.array([0.3, 0.1, 0.7, 0.4, 0.9])), argnums=(0, 1))


def kalman_matrix(Q, R, zs):
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    x = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        y = z - H @ x
        ll = ll - 0.5 * (np.log(np.linalg.det(S)) + y @ np.linalg.solve(S, y))
        x = x + K @ y
        P = (np.eye(2) - K @ H) @ P
    return ll


add("kalman_filter_matrix", kalman_matrix, (0.1 * np.eye(2), np.array([[0.5]]), np.array([[0.3], [0.1], [0.7]])),
    argnums=(0, 1))


def rnn_loss(Wh, Wx, xs):
    h = np.zeros(Wh.shape[0])
    loss = 0.0
    hs = []
    for x in xs:
        h = np.tanh(Wh @ h + Wx @ x)
        hs.append(h)
    H = np.stack(hs)
    loss = np.mean(H ** 2) + np.sum(H[-1])
    return loss


add("rnn_stack_hidden", rnn_loss, (np.array([[0.5, -0.2], [0.3, 0.1]]), np.array([[1.0], [0.5]]),
                                   np.array([[1.0], [0.2], [-0.5]])), argnums=(0, 1))


def mlp_softmax_xent(params, x, y):
    h = x
    for i, (W, b) in enumerate(params):
        h = h @ W + b
        if i < len(params) - 1:
            h = np.maximum(h, 0.0)
    h = h - h.max(axis=1, keepdims=True)
    logp = h - np.log(np.exp(h).sum(axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(y)), y])


_rng = np.random.default_rng(5)
add("mlp_relu_softmax_xent", mlp_softmax_xent,
    ([(_rng.normal(size=(3, 4)), _rng.normal(size=4) * 0.1), (_rng.normal(size=(4, 3)), np.zeros(3))],
     _rng.normal(size=(5, 3)), np.array([0, 2, 1, 1, 0])))


def gd_optimizer_loop(lr):
    w = np.array([1.0, -1.0])
    for _ in range(5):
        g = np.array([2 * w[0], 10 * w[1]])
        w = w - lr * g
    return np.sum(w ** 2)


add("unrolled_optimizer_lr_grad", gd_optimizer_loop, (0.05,))


def inner_grad_meta(lr, w0):
    dloss = revsrc.grad(lambda w: np.sum((w - 1.0) ** 2 * np.array([1.0, 3.0])))
    w = w0
    for _ in range(3):
        w = w - lr * dloss(w)
    return np.sum(w ** 2)


add("meta_learning_grad_through_grad", inner_grad_meta, (0.1, np.array([0.0, 2.0])), argnums=(0, 1))


def gp_nll(log_ell, log_sf, X, y):
    ell, sf2 = np.exp(log_ell), np.exp(2 * log_sf)
    d = X[:, None] - X[None, :]
    K = sf2 * np.exp(-0.5 * d ** 2 / ell ** 2) + 1e-2 * np.eye(len(X))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


add("gp_marginal_likelihood", gp_nll, (0.1, -0.2, np.array([0.0, 0.5, 1.3, 2.0]), np.array([0.1, 0.4, 0.9, 0.3])),
    argnums=(0, 1))


def cubic_spline_eval(y, t):
    n = len(y)
    h = 1.0
    A = np.zeros((n, n))
    rhs = np.zeros(n)
    A[0, 0] = A[-1, -1] = 1.0
    for i in range(1, n - 1):
        A[i, i - 1], A[i, i], A[i, i + 1] = h, 4 * h, h
        rhs[i] = 6 * (y[i + 1] - 2 * y[i] + y[i - 1]) / h
    M = np.linalg.solve(A, rhs)
    i = int(t)
    s = t - i
    return ((1 - s) * y[i] + s * y[i + 1] + ((1 - s) ** 3 - (1 - s)) * M[i] / 6 + (s ** 3 - s) * M[i + 1] / 6)


add("natural_cubic_spline", cubic_spline_eval, (np.array([0.0, 1.0, 0.5, 2.0, 1.5]), 1.6), argnums=(0, 1))


def soft_sort_rank(x, tau=0.5):
    diff = x[:, None] - x[None, :]
    P = 1.0 / (1.0 + np.exp(-diff / tau))
    ranks = 0.5 + np.sum(P, axis=1)
    return np.sum(ranks * np.arange(1.0, len(x) + 1))


add("soft_rank_sigmoid", soft_sort_rank, (np.array([0.3, -1.0, 2.0, 0.31]),))


def sinkhorn(C, eps=0.5, iters=30):
    K = np.exp(-C / eps)
    a = np.ones(C.shape[0]) / C.shape[0]
    b = np.ones(C.shape[1]) / C.shape[1]
    u = np.ones_like(a)
    for _ in range(iters):
        v = b / (K.T @ u)
        u = a / (K @ v)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


add("sinkhorn_ot", sinkhorn, (np.array([[0.0, 1.0, 2.0], [1.0, 0.2, 0.5]]),))


def nbody_energy(pos):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.sqrt(np.sum((pos[i] - pos[j]) ** 2))
            e = e - 1.0 / r
    return e


add("nbody_potential", nbody_energy, (np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 1.1]]),))


def leapfrog(q0, p0, dt=0.1, n=10):
    q, p = q0, p0
    traj = []
    for _ in range(n):
        p = p - 0.5 * dt * np.sin(q)
        q = q + dt * p
        p = p - 0.5 * dt * np.sin(q)
        traj.append(q)
    return np.sum(np.array(traj) ** 2)


add("leapfrog_pendulum", leapfrog, (np.array([0.5, 1.0]), np.array([0.0, 0.1])), argnums=(0, 1))


def monte_carlo_call(s0, sigma, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(1000)
    st = s0 * np.exp(-0.5 * sigma ** 2 + sigma * z)
    return np.mean(np.maximum(st - 100.0, 0.0))


add("mc_pricer_generator", monte_carlo_call, (100.0, 0.2), argnums=(0, 1), h=1e-7, tol=1e-5)


def binomial_tree(s, sigma, n=30):
    dt = 1.0 / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (1 - d) / (u - d)
    vals = [max(s * u ** j * d ** (n - j) - 100.0, 0.0) for j in range(n + 1)]
    for step in range(n, 0, -1):
        vals = [p * vals[j + 1] + (1 - p) * vals[j] for j in range(step)]
    return vals[0]


add("binomial_tree_american_style", binomial_tree, (101.0, 0.25), argnums=(0, 1), h=1e-6, tol=1e-5)
