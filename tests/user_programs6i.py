"""User programs, corpus 6i: the newest features together: memory= with vmap, hessian,
pytrees, rebound globals and early exits; vmap of small-array loops; per-example
Hessians.  References: central differences, JAX x64, and the stored gradient bit for bit."""
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, fd_hess, jax, jaxify

CASES = []
RNG = np.random.default_rng(69)


J = jax


add = adder(CASES)


def decay_chain(k, n=1500):
    a, b, c = 1.0, 0.0, 0.0
    for _ in range(n):
        da = -k * a
        db = k * a - 0.5 * b
        dc = 0.5 * b
        a, b, c = a + 0.001 * da, b + 0.001 * db, c + 0.001 * dc
    return b


KS = np.array([0.3, 1.0, 2.5, 4.0])
add("mi_vmap_of_memory_grad_scalar",
    lambda: revsrc.vmap(revsrc.grad(decay_chain, memory=256))(KS),
    lambda: np.array([fd_grad(decay_chain, (k,), {}, 0)[0] for k in KS]), tol=1e-6)
add("mi_vmap_of_memory_grad_bits",
    lambda: revsrc.vmap(revsrc.grad(decay_chain, memory=256))(KS),
    lambda: np.array([revsrc.grad(decay_chain)(float(k)) for k in KS]), tol=0.0)
add("mi_vmap_of_memory_hessian",
    lambda: revsrc.vmap(revsrc.hessian(decay_chain, memory=256))(KS),
    lambda: np.array([fd_hess(decay_chain, (float(k),), {}, 0, 1e-4)[0] for k in KS]), tol=1e-5)


def seq_loss(w, xs):
    h = np.zeros(2)
    for t in range(xs.shape[0]):
        h = np.tanh(w * h + xs[t])
    return np.sum(h ** 2)


W2 = np.array([0.8, -0.5])
SEQS = RNG.normal(size=(3, 150, 2))
add("mi_vmap_memory_grad_per_sequence",
    lambda: revsrc.vmap(revsrc.grad(seq_loss, memory=600), in_axes=(None, 0))(W2, SEQS),
    lambda: np.stack([fd_grad(seq_loss, (W2, s), {}, 0)[0] for s in SEQS]), tol=1e-6)
add("mi_vmap_memory_grad_per_sequence_bits",
    lambda: revsrc.vmap(revsrc.grad(seq_loss, memory=600), in_axes=(None, 0))(W2, SEQS),
    lambda: np.stack([revsrc.grad(seq_loss)(W2, s) for s in SEQS]), tol=1e-15)


def pytree_loop(p, xs):
    h = np.zeros(2)
    for t in range(xs.shape[0]):
        h = np.tanh(p["W"] @ h + p["u"] * xs[t])
    return np.sum(h) + p["c"] * np.sum(h ** 2)


PT = {"W": np.array([[0.5, -0.1], [0.2, 0.3]]), "c": 0.7, "u": np.array([1.0, -0.5])}
XS1 = RNG.normal(size=400)
add("mi_memory_hessian_pytree_documented",
    lambda: revsrc.hessian(pytree_loop, memory=900)(PT, XS1[:60]),
    lambda: J().hessian(jaxify(pytree_loop))(PT, XS1[:60]), tol=1e-8)
add("mi_memory_value_and_grad_pytree",
    lambda: revsrc.value_and_grad(pytree_loop, memory=900)(PT, XS1),
    lambda: [pytree_loop(PT, XS1), fd_grad(pytree_loop, (PT, XS1), {}, 0)], tol=1e-6)

GAIN = 1.0


def uses_gain(x):
    s = 0.0
    for i in range(800):
        s = s + GAIN * math.sin(x + s * 1e-3) * 1e-3
    return s


def _gain_rebound():
    global GAIN
    d = revsrc.grad(uses_gain, memory=128)
    a = d(0.3)
    GAIN = 3.0
    b = d(0.3)
    GAIN = 1.0
    return [a, b]


def _gain_ref():
    global GAIN
    a = fd_grad(uses_gain, (0.3,), {}, 0)[0]
    GAIN = 3.0
    b = fd_grad(uses_gain, (0.3,), {}, 0)[0]
    GAIN = 1.0
    return [a, b]


add("mi_memory_global_rebound", _gain_rebound, _gain_ref, tol=1e-6)


def early_return_in_loop(x):
    s = 0.0
    for i in range(3000):
        s = s + x * 1e-3 * (1.0 + math.cos(s))
        if s > 1.5:
            return s * s + i
    return s


add("mi_memory_early_return_in_loop",
    lambda: revsrc.grad(early_return_in_loop, memory=64)(0.8),
    lambda: J().grad(jaxify(early_return_in_loop))(0.8), tol=1e-9)


def while_array_break(v):
    x = v * 1.0
    k = 0
    while True:
        x = x - 0.05 * (x - np.cos(x))
        k += 1
        if k >= 400 or np.max(np.abs(x - np.cos(x))) < 1e-9:
            break
    return np.sum(x * v)


add("mi_memory_while_true_break_arrays",
    lambda: revsrc.grad(while_array_break, memory=500)(np.array([0.2, 1.0, 2.0])),
    lambda: fd_grad(while_array_break, (np.array([0.2, 1.0, 2.0]),), {}, 0), tol=1e-6)
add("mi_memory_while_true_break_arrays_bits",
    lambda: revsrc.grad(while_array_break, memory=500)(np.array([0.2, 1.0, 2.0])),
    lambda: revsrc.grad(while_array_break)(np.array([0.2, 1.0, 2.0])), tol=0.0)


def nested_array_loops(W, xs):
    total = 0.0
    for ep in range(20):
        h = np.zeros(2)
        for t in range(xs.shape[0]):
            h = np.tanh(W @ h + xs[t] * (1.0 + 0.01 * ep))
        total = total + np.sum(h ** 2)
    return total


W22 = np.array([[0.4, -0.3], [0.1, 0.6]])
XS2 = RNG.normal(size=(30, 2))
add("mi_memory_nested_array_loops",
    lambda: revsrc.grad(nested_array_loops, memory=700)(W22, XS2),
    lambda: fd_grad(nested_array_loops, (W22, XS2), {}, 0), tol=1e-6)
add("mi_memory_nested_array_loops_bits",
    lambda: revsrc.grad(nested_array_loops, memory=700)(W22, XS2),
    lambda: revsrc.grad(nested_array_loops)(W22, XS2), tol=0.0)


def vjp_loop(v):
    x = v
    for _ in range(500):
        x = x + 0.002 * np.array([x[1], -np.sin(x[0])])
    return x


add("mi_memory_vjp_vector_output",
    lambda: revsrc.vjp(vjp_loop, np.array([0.5, 0.1]), memory=300)[1](np.array([1.0, -2.0])),
    lambda: J().vjp(jaxify(vjp_loop), np.array([0.5, 0.1]))[1](np.array([1.0, -2.0])), tol=1e-9)


def logistic_regression_epochs(w0, X, y, lr=0.1, epochs=300):
    w = w0
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        w = w - lr * X.T @ (p - y) / X.shape[0]
    return np.sum(w ** 2)


XL = RNG.normal(size=(8, 3))
YL = (RNG.normal(size=8) > 0).astype(float)
add("mi_memory_unrolled_training_hessian_w0",
    lambda: revsrc.hessian(logistic_regression_epochs, memory=2000)(np.zeros(3), XL, YL),
    lambda: fd_hess(logistic_regression_epochs, (np.zeros(3), XL, YL), {}, 0, 1e-4), tol=1e-5)
add("mi_memory_unrolled_training_kw_lr",
    lambda: revsrc.grad(logistic_regression_epochs, memory=2000)(np.zeros(3), XL, YL, lr=0.3),
    lambda: fd_grad(logistic_regression_epochs, (np.zeros(3), XL, YL), {"lr": 0.3}, 0), tol=1e-6)

# -- vmap of small-array loops and per-example Hessians -----------------------------------------


def pendulum(theta0, omega0):
    q, p = theta0, omega0
    for _ in range(200):
        p = p - 0.01 * math.sin(q)
        q = q + 0.01 * p
    return q


TH = np.linspace(0.1, 2.5, 7)
add("mi_vmap_two_args_scalar_loop_exact",
    lambda: revsrc.vmap(pendulum)(TH, TH * 0.1),
    lambda: np.array([pendulum(a, b) for a, b in zip(TH.tolist(), (TH * 0.1).tolist())]), tol=0.0)
add("mi_vmap_grad_argnums_both",
    lambda: revsrc.vmap(revsrc.grad(pendulum, argnums=(0, 1)))(TH, TH * 0.1),
    lambda: J().vmap(J().grad(jaxify(pendulum), argnums=(0, 1)))(TH, TH * 0.1), tol=1e-9)
add("mi_vmap_in_axes_none_scalar",
    lambda: revsrc.vmap(revsrc.grad(pendulum), in_axes=(0, None))(TH, 0.2),
    lambda: J().vmap(J().grad(jaxify(pendulum)), in_axes=(0, None))(TH, 0.2), tol=1e-9)
add("mi_vmap_value_and_grad_scalar_loop",
    lambda: revsrc.vmap(revsrc.value_and_grad(pendulum))(TH, TH),
    lambda: J().vmap(J().value_and_grad(jaxify(pendulum)))(TH, TH), tol=1e-9)


def ode_params(theta, y0):
    y = y0
    for _ in range(40):
        y = y + 0.05 * np.array([theta[0] * y[1], -theta[1] * y[0] - 0.1 * y[1]])
    return np.sum(y ** 2)


THETAS = np.abs(RNG.normal(size=(4, 2))) + 0.5
add("mi_vmap_hessian_small_array_loop",
    lambda: revsrc.vmap(revsrc.hessian(ode_params), in_axes=(0, None))(THETAS, np.array([1.0, 0.0])),
    lambda: np.stack([fd_hess(ode_params, (t, np.array([1.0, 0.0])), {}, 0, 1e-4)[0] for t in THETAS]), tol=1e-5)
add("mi_vmap_grad_small_array_loop",
    lambda: revsrc.vmap(revsrc.grad(ode_params), in_axes=(0, None))(THETAS, np.array([1.0, 0.0])),
    lambda: np.stack([fd_grad(ode_params, (t, np.array([1.0, 0.0])), {}, 0)[0] for t in THETAS]), tol=1e-6)
add("mi_vmap_jacfwd_out_axes_1",
    lambda: revsrc.vmap(revsrc.jacfwd(lambda t: np.sin(t) * t[::-1]), out_axes=1)(THETAS),
    lambda: J().vmap(J().jacfwd(lambda t: J().numpy.sin(t) * t[::-1]), out_axes=1)(THETAS))


def jit_uses_grad_of_loop(x):
    d = DCHAIN(x)
    return x - 0.1 * d


DCHAIN = revsrc.grad(decay_chain)
add("mi_vmap_of_jit_calling_grad",
    lambda: revsrc.vmap(revsrc.jit(jit_uses_grad_of_loop))(KS),
    lambda: np.array([jit_uses_grad_of_loop(float(k)) for k in KS]), tol=0.0)


def per_example_hess(w, x, y):
    return (np.tanh(np.dot(w, x)) - y) ** 2


XE = RNG.normal(size=(5, 3))
YE = RNG.normal(size=5)
W3 = np.array([0.3, -0.2, 0.5])
add("mi_vmap_hessian_per_example",
    lambda: revsrc.vmap(revsrc.hessian(per_example_hess), in_axes=(None, 0, 0))(W3, XE, YE),
    lambda: J().vmap(J().hessian(jaxify(per_example_hess)), in_axes=(None, 0, 0))(W3, XE, YE))
add("mi_vmap_hessian_per_example_mean_matches_full",
    lambda: np.mean(revsrc.vmap(revsrc.hessian(per_example_hess), in_axes=(None, 0, 0))(W3, XE, YE), axis=0),
    lambda: revsrc.hessian(lambda w: np.mean((np.tanh(XE @ w) - YE) ** 2))(W3), tol=1e-12)


def fisher_diag(w, X):
    g = revsrc.vmap(revsrc.grad(per_example_hess), in_axes=(None, 0, 0))(w, X, np.zeros(X.shape[0]))
    return np.mean(g ** 2, axis=0)


add("mi_fisher_diagonal_from_per_example_grads",
    lambda: fisher_diag(W3, XE),
    lambda: np.mean(J().vmap(J().grad(jaxify(per_example_hess)), in_axes=(None, 0, 0))(W3, XE, np.zeros(5)) ** 2,
                    axis=0))
