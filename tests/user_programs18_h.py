"""Round 18, part h: optimisers written by users -- gradient descent, heavy-ball
momentum, Nesterov, Adam with its state in a dict, RMSProp, backtracking line search
with a while loop, Newton's method, and revsrc.grad called inside a training loop that
is itself differentiated (hypergradients of the learning rate and of a regulariser)."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_r = np.random.default_rng(1802)
XT = _r.normal(size=(20, 3))
WTRUE = np.array([1.0, -2.0, 0.5])
YT = XT @ WTRUE + 0.1 * _r.normal(size=20)
XV = _r.normal(size=(10, 3))
YV = XV @ WTRUE + 0.1 * _r.normal(size=10)


def mse(w, X, y):
    r = X @ w - y
    return np.mean(r * r)


def ridge(w, X, y, lam):
    return mse(w, X, y) + lam * np.sum(w * w)


grad_ridge = revsrc.grad(ridge)


# -- plain gradient descent, hypergradient of the validation loss wrt the learning rate ----

def train_gd(lr, lam, steps=15):
    w = np.zeros(3)
    for _ in range(steps):
        w = w - lr * grad_ridge(w, XT, YT, lam)
    return w


def val_after_gd(lr, lam):
    return mse(train_gd(lr, lam), XV, YV)


add(G("r18h_hypergrad_lr_gd", val_after_gd, (0.05, 0.01), ref="fd", tol=1e-7))
add(G("r18h_hypergrad_lambda_gd", val_after_gd, (0.05, 0.01), argnums=1, ref="fd", tol=1e-7))
add(G("r18h_hypergrad_both_gd", val_after_gd, (0.05, 0.01), argnums=(0, 1), ref="fd", tol=1e-7))


def _ridge_grad_hand(w, X, y, lam):
    return 2.0 * X.T @ (X @ w - y) / len(y) + 2.0 * lam * w


# -- heavy-ball momentum with the hand gradient, hypergrad wrt momentum ---------------------

def val_after_momentum(beta, lr=0.03, steps=20):
    w = np.zeros(3)
    v = np.zeros_like(w)
    for _ in range(steps):
        g = _ridge_grad_hand(w, XT, YT, 0.0)
        v = beta * v + g
        w = w - lr * v
    return mse(w, XV, YV)


add(G("r18h_momentum_beta_hypergrad", val_after_momentum, (0.7,), ref="ag", tol=1e-9))


# Nesterov with in-place updates on copies
def val_after_nesterov(lr, beta=0.8, steps=12):
    w = np.zeros(3)
    v = np.zeros(3)
    for _ in range(steps):
        look = w + beta * v
        g = grad_ridge(look, XT, YT, 0.0)
        v *= beta
        v -= lr * g
        w += v
    return mse(w, XV, YV)


add(G("r18h_nesterov_inplace_lr", val_after_nesterov, (0.04,), ref="fd", tol=1e-7))


# -- Adam with dict state --------------------------------------------------------------

def adam_init(params):
    return {"m": {k: np.zeros_like(v) for k, v in params.items()},
            "v": {k: np.zeros_like(v) for k, v in params.items()}, "t": 0}


def adam_update(params, grads, state, lr, b1=0.9, b2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = {k: b1 * state["m"][k] + (1 - b1) * grads[k] for k in params}
    v = {k: b2 * state["v"][k] + (1 - b2) * grads[k] ** 2 for k in params}
    new = {}
    for k in params:
        mh = m[k] / (1 - b1 ** t)
        vh = v[k] / (1 - b2 ** t)
        new[k] = params[k] - lr * mh / (np.sqrt(vh) + eps)
    return new, {"m": m, "v": v, "t": t}


def linmodel_loss(p, X, y):
    r = X @ p["w"] + p["b"] - y
    return np.mean(r ** 2)


def adam_train_val(lr, X, y, steps=10):
    p = {"w": np.zeros(3), "b": np.array(0.0)}
    st = adam_init(p)
    for _ in range(steps):
        g = revsrc.grad(linmodel_loss)(p, X, y)
        p, st = adam_update(p, g, st, lr)
    return linmodel_loss(p, XV, YV)


add(G("r18h_adam_dict_state_hypergrad_lr", adam_train_val, (0.1, XT, YT), ref="fd", tol=1e-6))


def adam_final_params(lr):
    p = {"w": np.zeros(3), "b": np.array(0.0)}
    st = adam_init(p)
    for _ in range(5):
        g = revsrc.grad(linmodel_loss)(p, XT, YT)
        p, st = adam_update(p, g, st, lr)
    return p


def _adam_plain(lr, steps=10):
    """The same Adam run with hand gradients, as a value check."""
    p = {"w": np.zeros(3), "b": np.array(0.0)}
    st = adam_init(p)
    for _ in range(steps):
        r = XT @ p["w"] + p["b"] - YT
        g = {"w": 2 * XT.T @ r / 20, "b": np.array(2 * np.mean(r))}
        p, st = adam_update(p, g, st, lr)
    return linmodel_loss(p, XV, YV)


add(pair("r18h_adam_value_matches_hand_grads", lambda: adam_train_val(0.1, XT, YT),
         lambda: _adam_plain(0.1), tol=1e-12))
add(pair("r18h_adam_jacfwd_params_wrt_lr", lambda: revsrc.jacfwd(lambda lr: adam_final_params(lr)["w"])(0.05),
         lambda: fdj(lambda lr: adam_final_params(float(lr))["w"], 0.05, h=1e-6), tol=1e-6))


# RMSProp written as a class with state held in attributes
class RMSProp:
    def __init__(self, lr, rho=0.9, eps=1e-6):
        self.lr, self.rho, self.eps = lr, rho, eps

    def init(self, w):
        return np.zeros_like(w)

    def step(self, w, g, s):
        s = self.rho * s + (1 - self.rho) * g * g
        return w - self.lr * g / np.sqrt(s + self.eps), s


def rmsprop_val(w0, opt, steps=8):
    w, s = w0, opt.init(w0)
    for _ in range(steps):
        w, s = opt.step(w, _ridge_grad_hand(w, XT, YT, 0.0), s)
    return mse(w, XV, YV)


add(G("r18h_rmsprop_class_wrt_init", rmsprop_val, (np.array([0.1, 0.2, -0.1]), RMSProp(0.05)), ref="fd", tol=1e-7))


# -- backtracking line search with a while loop ---------------------------------------

def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


drosen = revsrc.grad(rosen)


def backtrack_descent(x0, iters=6):
    x = x0
    for _ in range(iters):
        g = drosen(x)
        t = 1.0
        fx = rosen(x)
        while rosen(x - t * g) > fx - 0.5 * t * (g @ g):
            t *= 0.5
        x = x - t * g
    return rosen(x)


X0R = np.array([-0.5, 0.8, 0.3])
add(G("r18h_backtracking_while_line_search", backtrack_descent, (X0R,), ref="fd", tol=1e-6, h=1e-7))


def armijo_first_accept(x0):
    g = drosen(x0)
    for k in range(30):
        t = 0.5 ** k
        xn = x0 - t * g
        if rosen(xn) < rosen(x0) - 1e-4 * t * (g @ g):
            return rosen(xn)
    return rosen(x0)


add(G("r18h_armijo_early_return_in_loop", armijo_first_accept, (X0R,), ref="fd", tol=1e-7))


# -- Newton's method with hessian inside, differentiated wrt data -------------------------

def logreg_nll(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(w ** 2)


hess_logreg = revsrc.hessian(logreg_nll)
grad_logreg = revsrc.grad(logreg_nll)
YB = (XT @ WTRUE > 0).astype(float)


def newton_fit(X, y, iters=5):
    w = np.zeros(X.shape[1])
    for _ in range(iters):
        w = w - np.linalg.solve(hess_logreg(w, X, y), grad_logreg(w, X, y))
    return w


def newton_val_wrt_labels(y):
    w = newton_fit(XT, y)
    return np.sum(w * np.array([1.0, 2.0, 3.0]))


add(G("r18h_newton_hessian_inside_wrt_labels", newton_val_wrt_labels, (YB,), ref="fd", tol=1e-6))


# implicit differentiation vs unrolled: the unrolled Newton at convergence matches (H^-1) formula
def _implicit_ref():
    w = newton_fit(XT, YB, iters=30)
    Hm = hess_logreg(w, XT, YB)
    # d w / d y = H^{-1} X^T ; d(c.w)/dy = X H^{-1} c
    return XT @ np.linalg.solve(Hm, np.array([1.0, 2.0, 3.0]))


add(pair("r18h_newton_unrolled_vs_implicit",
         lambda: revsrc.grad(lambda y: np.sum(newton_fit(XT, y, iters=8) * np.array([1.0, 2.0, 3.0])))(YB),
         _implicit_ref, tol=1e-8))


# -- gradient descent with early stopping on a gradient-norm tolerance ----------------------

def gd_until(x0, lr=0.1, tol=1e-3):
    x = x0
    n = 0
    while True:
        g = 2.0 * (x - np.array([1.0, -1.0])) * np.array([1.0, 3.0])
        if np.sqrt(g @ g) < tol or n > 200:
            break
        x = x - lr * g
        n += 1
    return np.sum(x ** 2) + n * 0.0


add(G("r18h_gd_while_true_break", gd_until, (np.array([0.0, 0.0]),), ref="fd", tol=1e-7))


# -- SGD with minibatches from a Generator, a grad called inside ------------------------

def sgd_val(lr, rng, steps=10, bs=5):
    w = np.zeros(3)
    for _ in range(steps):
        idx = rng.choice(20, size=bs, replace=False)
        w = w - lr * grad_ridge(w, XT[idx], YT[idx], 0.0)
    return mse(w, XV, YV)


def _sgd_ref():
    idxs = []
    rng = np.random.default_rng(21)
    for _ in range(10):
        idxs.append(rng.choice(20, size=5, replace=False))

    def f(lr):
        w = np.zeros(3)
        for idx in idxs:
            w = w - lr * _ridge_grad_hand(w, XT[idx], YT[idx], 0.0)
        return mse(w, XV, YV)
    return fd_checked(f, (0.05,))[0]


add(pair("r18h_sgd_minibatch_generator", lambda: revsrc.grad(sgd_val)(0.05, np.random.default_rng(21)),
         _sgd_ref, tol=1e-7))


# -- gradient clipping by global norm in a pytree optimiser -----------------------------

def clip_by_global_norm(grads, max_norm):
    total = math.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
    scale = min(1.0, max_norm / (total + 1e-12))
    return {k: g * scale for k, g in grads.items()}


def clipped_train_val(lr, max_norm=0.5, steps=8):
    p = {"w": np.zeros(3), "b": np.array(0.0)}
    for _ in range(steps):
        g = clip_by_global_norm(revsrc.grad(linmodel_loss)(p, XT, YT), max_norm)
        p = {k: p[k] - lr * g[k] for k in p}
    return linmodel_loss(p, XV, YV)


add(G("r18h_clip_global_norm_hypergrad", clipped_train_val, (0.3,), ref="fd", tol=1e-7))


# -- value_and_grad with has_aux in the loop, logging a history list ---------------------

def loss_aux(w, X, y):
    r = X @ w - y
    return np.mean(r ** 2), {"maxres": np.max(np.abs(r))}


def train_log(lr, steps=6):
    w = np.zeros(3)
    hist = []
    vg = revsrc.value_and_grad(loss_aux, has_aux=True)
    for _ in range(steps):
        (v, aux), g = vg(w, XT, YT)
        hist.append(v)
        w = w - lr * g
    return mse(w, XV, YV) + 0.0 * sum(hist)


add(G("r18h_value_and_grad_has_aux_in_loop", train_log, (0.05,), ref="fd", tol=1e-7))


def _vg_aux_ref():
    w = np.array([0.2, 0.1, -0.3])
    r = XT @ w - YT
    return ((np.mean(r ** 2), {"maxres": np.max(np.abs(r))}), 2 * XT.T @ r / 20)


add(pair("r18h_value_and_grad_has_aux_direct",
         lambda: revsrc.value_and_grad(loss_aux, has_aux=True)(np.array([0.2, 0.1, -0.3]), XT, YT),
         _vg_aux_ref, tol=1e-12))


# -- Polyak step size (data-dependent) and jit of a scalar optimiser ------------------------

def polyak_descent(x0, fstar=0.0, steps=10):
    x = x0
    for _ in range(steps):
        f = rosen(x)
        g = drosen(x)
        x = x - (f - fstar) / (g @ g + 1e-12) * g
    return rosen(x)


def _polyak_jax():
    j = jax()
    jr = jaxify(rosen)
    dj = j.grad(jr)

    def pd(x):
        for _ in range(10):
            x = x - jr(x) / (dj(x) @ dj(x) + 1e-12) * dj(x)
        return jr(x)
    return j.grad(pd)(X0R)


add(G("r18h_polyak_step", polyak_descent, (X0R,), ref=_polyak_jax, tol=1e-9))


def scalar_newton_sqrt(a, x0=1.0):
    x = x0
    for _ in range(8):
        x = 0.5 * (x + a / x)
    return x


add(pair("r18h_jit_grad_scalar_newton_sqrt", lambda: revsrc.jit(revsrc.grad(scalar_newton_sqrt))(2.0),
         lambda: 0.5 / math.sqrt(2.0), tol=1e-12))
add(pair("r18h_grad_of_jit_scalar_newton", lambda: revsrc.grad(revsrc.jit(scalar_newton_sqrt))(3.0),
         lambda: 0.5 / math.sqrt(3.0), tol=1e-12))


# hypergrad through 2 levels of grad: a meta-learning (MAML) inner step
def maml_loss(w, Xa, ya, Xb, yb, alpha=0.1):
    w_adapt = w - alpha * revsrc.grad(mse)(w, Xa, ya)
    return mse(w_adapt, Xb, yb)


def _maml_ref_ag():
    return fd_checked(lambda w: mse(w - 0.1 * (2 * XT[:10].T @ (XT[:10] @ w - YT[:10]) / 10), XT[10:], YT[10:]),
                      (np.array([0.3, -0.1, 0.2]),))[0]


add(pair("r18h_maml_second_order",
         lambda: revsrc.grad(maml_loss)(np.array([0.3, -0.1, 0.2]), XT[:10], YT[:10], XT[10:], YT[10:]),
         _maml_ref_ag, tol=1e-7))
add(pair("r18h_maml_hessian",
         lambda: revsrc.hessian(maml_loss)(np.array([0.3, -0.1, 0.2]), XT[:10], YT[:10], XT[10:], YT[10:]),
         lambda: jax().hessian(lambda w: jaxify(mse)(w - 0.1 * jax().grad(jaxify(mse))(w, XT[:10], YT[:10]),
                                                    XT[10:], YT[10:]))(np.array([0.3, -0.1, 0.2])), tol=1e-9))


# learning-rate schedule by cosine, the step counted with enumerate over a list of batches
def cosine_sched_train(lr0, batches):
    w = np.zeros(3)
    T = len(batches)
    for t, (Xb, yb) in enumerate(batches):
        lr = lr0 * 0.5 * (1 + math.cos(math.pi * t / T))
        w = w - lr * _ridge_grad_hand(w, Xb, yb, 0.0)
    return mse(w, XV, YV)


BATCHES = [(XT[i:i + 5], YT[i:i + 5]) for i in range(0, 20, 5)] * 2
add(G("r18h_cosine_schedule_enumerate_batches", cosine_sched_train, (0.2, BATCHES), ref="ag", tol=1e-9))


# the same Adam with the update written as dict comprehensions (no writes into a new dict)
def adam_update_comp(params, grads, state, lr, b1=0.9, b2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = {k: b1 * state["m"][k] + (1 - b1) * grads[k] for k in params}
    v = {k: b2 * state["v"][k] + (1 - b2) * grads[k] ** 2 for k in params}
    new = {k: params[k] - lr * (m[k] / (1 - b1 ** t)) / (np.sqrt(v[k] / (1 - b2 ** t)) + eps) for k in params}
    return new, {"m": m, "v": v, "t": t}


def adam_comp_train_val(lr, X, y, steps=10):
    p = {"w": np.zeros(3), "b": np.array(0.0)}
    st = adam_init(p)
    for _ in range(steps):
        g = revsrc.grad(linmodel_loss)(p, X, y)
        p, st = adam_update_comp(p, g, st, lr)
    return linmodel_loss(p, XV, YV)


add(G("r18h_adam_dict_comprehension_hypergrad_lr", adam_comp_train_val, (0.1, XT, YT), ref="fd", tol=1e-6))


# SGD over a list of fixed minibatch index arrays (no Generator)
IDXS = [np.array([0, 3, 5, 7, 9]), np.array([1, 2, 4, 6, 8]), np.array([10, 12, 14, 16, 18])]


def sgd_fixed_batches(lr, idxs):
    w = np.zeros(3)
    for idx in idxs:
        w = w - lr * grad_ridge(w, XT[idx], YT[idx], 0.0)
    return mse(w, XV, YV)


def _sgd_fixed_ref():
    def f(lr):
        w = np.zeros(3)
        for idx in IDXS:
            w = w - lr * _ridge_grad_hand(w, XT[idx], YT[idx], 0.0)
        return mse(w, XV, YV)
    return fd_checked(f, (0.05,))[0]


add(pair("r18h_sgd_fixed_index_list", lambda: revsrc.grad(sgd_fixed_batches)(0.05, IDXS), _sgd_fixed_ref, tol=1e-7))


# Newton with the Hessian written by hand (the unrolled fit differentiated wrt labels)
def _logreg_hess_hand(w, X):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return X.T @ (X * (p * (1 - p))[:, None]) + np.eye(X.shape[1])


def newton_hand_wrt_labels(y, iters=6):
    w = np.zeros(3)
    for _ in range(iters):
        w = w - np.linalg.solve(_logreg_hess_hand(w, XT), grad_logreg(w, XT, y))
    return np.sum(w * np.array([1.0, 2.0, 3.0]))


add(G("r18h_newton_hand_hessian_wrt_labels", newton_hand_wrt_labels, (YB,), ref="fd", tol=1e-6))


# per-parameter-group learning rates passed as a dict (not differentiated); the global
# scale is the hyperparameter differentiated
GROUP_LR = {"w": 0.1, "b": 0.02}


def _linmodel_grads(p, X, y):
    r = X @ p["w"] + p["b"] - y
    return {"w": 2 * X.T @ r / len(y), "b": 2 * np.mean(r)}


def sgd_param_groups(scale, group_lr, steps=6):
    p = {"w": np.zeros(3), "b": 0.0}
    for _ in range(steps):
        g = _linmodel_grads(p, XT, YT)
        p = {k: p[k] - scale * group_lr[k] * g[k] for k in group_lr}
    return linmodel_loss(p, XV, YV)


add(G("r18h_param_groups_dict_lr_wrt_scale", sgd_param_groups, (1.0, GROUP_LR), ref="fd", tol=1e-7))


def weight_decay_penalty(lam, params):
    # L2 penalty over every entry of a dict of parameter arrays (the dict not differentiated)
    return sum(lam * np.sum(params[k] ** 2) for k in params)


PW = {"W1": np.array([[0.5, -0.2], [0.1, 0.3]]), "b1": np.array([0.05, -0.1])}
add(G("r18h_penalty_loop_over_dict_argument_keys", weight_decay_penalty, (0.01, PW),
      ref=lambda: float(np.sum(PW["W1"] ** 2) + np.sum(PW["b1"] ** 2)), tol=1e-12))
