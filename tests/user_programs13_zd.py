"""Round 13, part zd: training loops that use revsrc (not differentiated through) -- Adam on
an SIR fit, damped Newton with revsrc.hessian, Gauss-Newton with revsrc.jacfwd, per-example
clipped SGD with vmap(grad) -- each run side by side with autograd's gradients."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
OBS = np.array([0.012, 0.015, 0.02, 0.026, 0.033, 0.041])


def sir_fit(theta):
    beta, gamma = theta[0], theta[1]
    S, I = 0.99, 0.01
    loss = 0.0
    for k in range(6):
        inf = beta * S * I
        S, I = S - inf, I + inf - gamma * I
        loss = loss + (I - OBS[k]) ** 2
    return loss * 1e4


def adam(gradf, x, steps=60, lr=0.02):
    m = np.zeros_like(x)
    v = np.zeros_like(x)
    for t in range(1, steps + 1):
        g = gradf(x)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        x = x - lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return x


X0 = np.array([0.3, 0.1])
add(pair("r13_zd_adam_sir_fit", lambda: adam(revsrc.grad(sir_fit), X0), lambda: adam(ag()[0].grad(agify(sir_fit)), X0), tol=1e-9))


def rosen(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


def damped_newton(gf, hf, x, steps=30):
    for _ in range(steps):
        Hm = hf(x) + 1e-3 * np.eye(2)
        x = x - np.linalg.solve(Hm, gf(x))
    return x


add(pair("r13_zd_newton_rosenbrock", lambda: damped_newton(revsrc.grad(rosen), revsrc.hessian(rosen), np.array([-1.2, 1.0])),
         lambda: damped_newton(ag()[0].grad(agify(rosen)), ag()[0].hessian(agify(rosen)), np.array([-1.2, 1.0])), tol=1e-9))

TT = np.linspace(0, 2, 8)
YY = 1.5 * np.exp(-0.7 * TT) + 0.2


def model(p):
    return p[0] * np.exp(-p[1] * TT) + p[2]


def gauss_newton(jac, p, steps=15):
    for _ in range(steps):
        r = model(p) - YY
        J = jac(p)
        p = p - np.linalg.solve(J.T @ J + 1e-9 * np.eye(3), J.T @ r)
    return p


add(pair("r13_zd_gauss_newton_jacfwd", lambda: gauss_newton(revsrc.jacfwd(model), np.array([1.3, 0.6, 0.1])),
         lambda: np.array([1.5, 0.7, 0.2]), tol=1e-8))
add(pair("r13_zd_gauss_newton_jacrev", lambda: gauss_newton(revsrc.jacrev(model), np.array([1.3, 0.6, 0.1])),
         lambda: np.array([1.5, 0.7, 0.2]), tol=1e-8))


def ex_loss(w, x, y):
    return (np.tanh(w @ x) - y) ** 2


rng = np.random.default_rng(12)
XB, YB = rng.normal(size=(8, 3)), rng.normal(size=8) * 0.5


def dp_sgd(pe_grad, w, steps=10, clip=0.5):
    for _ in range(steps):
        G_ = pe_grad(w, XB, YB)
        norms = np.linalg.norm(G_, axis=1, keepdims=True)
        G_ = G_ * np.minimum(1.0, clip / (norms + 1e-12))
        w = w - 0.3 * G_.mean(axis=0)
    return w


def ag_pe(w, X, Y):
    gr = ag()[0].grad(agify(ex_loss))
    return np.stack([gr(w, x, y) for x, y in zip(X, Y)])


add(pair("r13_zd_dp_sgd_vmap_grad", lambda: dp_sgd(revsrc.vmap(revsrc.grad(ex_loss), in_axes=(None, 0, 0)), np.zeros(3) + 0.1),
         lambda: dp_sgd(ag_pe, np.zeros(3) + 0.1), tol=1e-10))
