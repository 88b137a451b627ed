"""Round 14, part m: small arrays (3-8 floats) in long loops with data-dependent branches,
while loops, argmax-chosen writes, and the same loops under memory= (checkpointing) and
backend="jax"."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def lorenz(s0, sigma=10.0, rho=28.0, beta=8.0 / 3.0, dt=0.005, n=200):
    s = s0.copy()
    for _ in range(n):
        ds = np.array([sigma * (s[1] - s[0]), s[0] * (rho - s[2]) - s[1], s[0] * s[1] - beta * s[2]])
        s = s + dt * ds
    return s[0] + s[2]


S3 = np.array([1.0, 1.0, 1.0])
add(G("r14_lorenz_200_steps", lorenz, (S3,), ref="fd", tol=1e-6))
add(pair("r14_lorenz_memory_checkpoint", lambda: revsrc.grad(lorenz, memory=8)(S3), lambda: revsrc.grad(lorenz)(S3), tol=1e-12))
add(pair("r14_lorenz_memory_string", lambda: revsrc.grad(lorenz, memory="1MB")(S3), lambda: fd_checked(lorenz, (S3,))[0], tol=1e-6))
add(G("r14_lorenz_wrt_rho", lorenz, (S3, 10.0, 28.0), argnums=2, ref="fd", tol=1e-6))


def argmax_relax(x, n=12):
    # repeatedly damp the largest entry: the index is chosen by the data
    y = x.copy()
    for _ in range(n):
        k = int(np.argmax(y))
        y[k] = 0.5 * y[k] + 0.1 * np.sum(y)
    return np.sum(y ** 2)


X5 = np.array([0.9, 0.3, 1.7, -0.4, 1.1])
add(VG("r14_argmax_chosen_write_loop", argmax_relax, (X5,), ref="fd", tol=1e-7))
add(pair("r14_argmax_chosen_write_memory", lambda: revsrc.grad(argmax_relax, memory=4)(X5), lambda: fd_checked(argmax_relax, (X5,))[0], tol=1e-7))


def bubble(x):
    y = x.copy()
    n = len(y)
    swapped = True
    while swapped:
        swapped = False
        for i in range(n - 1):
            if y[i] > y[i + 1]:
                t = y[i]
                y[i] = y[i + 1]
                y[i + 1] = t
                swapped = True
    return y @ np.arange(1.0, n + 1)


add(G("r14_bubble_sort_while_flag", bubble, (X5,), ref=lambda: np.arange(1.0, 6.0)[np.argsort(np.argsort(X5))], tol=0.0))


def clipped_momentum(x0, lr=0.1, beta=0.9, n=60):
    x = x0 + 0.0
    v = np.zeros_like(x)
    for _ in range(n):
        g = 2 * x * np.array([1.0, 4.0, 9.0])
        gn = np.linalg.norm(g)
        if gn > 5.0:
            g = g * (5.0 / gn)
        v = beta * v + g
        x = x - lr * v / (1 + beta)
    return np.sum(x ** 2 * np.array([1.0, 4.0, 9.0]))


add(G("r14_clipped_momentum_norm_branch", clipped_momentum, (np.array([3.0, -2.0, 1.0]),), ref="ag", tol=1e-9))
add(pair("r14_clipped_momentum_memory", lambda: revsrc.grad(clipped_momentum, memory=6)(np.array([3.0, -2.0, 1.0])),
         lambda: revsrc.grad(clipped_momentum)(np.array([3.0, -2.0, 1.0])), tol=1e-12))


def while_converge(a, tol=1e-12):
    # fixed point x = cos(a * x) with a vector of couplings
    x = np.zeros(3)
    it = 0
    while True:
        xn = np.cos(a * x)
        d = np.max(np.abs(xn - x))
        x = xn
        it += 1
        if d < tol or it > 500:
            break
    return np.sum(x)


def _fp_grad(a):
    x = np.zeros(3)
    for _ in range(2000):
        x = np.cos(a * x)
    # x = cos(a x): dx/da = -sin(a x) x / (1 + a sin(a x))
    return -np.sin(a * x) * x / (1 + a * np.sin(a * x))


A3 = np.array([0.5, 0.8, 1.1])
add(pair("r14_fixed_point_while_true_vector", lambda: revsrc.grad(while_converge)(A3), lambda: _fp_grad(A3), tol=1e-8))
add(pair("r14_fixed_point_jax_backend", lambda: revsrc.grad(while_converge, backend="jax")(A3), lambda: _fp_grad(A3), tol=1e-8))


def leaky_integrate_fire(w, inputs, thresh=1.0):
    v = 0.0
    spikes = 0
    trace = 0.0
    for u in inputs:
        v = 0.9 * v + w * u
        if v > thresh:
            v = v - thresh
            spikes += 1
        trace += v * v
    return trace + spikes


INP = [0.3, 0.5, 0.2, 0.9, 0.1, 0.6, 0.7, 0.0, 0.4]
add(G("r14_lif_neuron_reset", leaky_integrate_fire, (0.8, INP), ref="fd", tol=1e-7, h=1e-7))


def ring_buffer(x, n=10):
    buf = np.zeros(4)
    acc = 0.0
    for t in range(n):
        buf[t % 4] = x[t % len(x)] * (t + 1) + 0.5 * buf[(t + 3) % 4]
        acc += buf @ buf
    return acc


add(G("r14_ring_buffer_modulo_index", ring_buffer, (np.array([0.3, -0.2, 0.5]),), ref="fd", tol=1e-7))
add(H("r14_ring_buffer_hessian", ring_buffer, (np.array([0.3, -0.2, 0.5]),), ref="fd", tol=1e-5))
add(pair("r14_ring_buffer_vmap_grad", lambda: revsrc.vmap(revsrc.grad(ring_buffer))(np.array([[0.3, -0.2, 0.5], [1.0, 0.0, -1.0]])),
         lambda: np.stack([fd_checked(ring_buffer, (np.array(r),))[0] for r in ([0.3, -0.2, 0.5], [1.0, 0.0, -1.0])]), tol=1e-7))


def kmeans_1d(c0, data, iters=5):
    c = c0.copy()
    for _ in range(iters):
        d = np.abs(data[:, None] - c[None, :])
        lab = np.argmin(d, axis=1)
        for j in range(len(c)):
            m = lab == j
            if np.any(m):
                c[j] = np.mean(data[m])
    return np.sum(c ** 2)


DATA = np.array([0.1, 0.3, 0.2, 2.0, 2.2, 1.9, 5.0, 5.3])
add(G("r14_kmeans_lloyd_wrt_data", kmeans_1d, (np.array([0.0, 1.5, 4.0]), DATA), argnums=1, ref="fd", tol=1e-7))


def selection_topk_loop(x, k=2):
    y = x.copy()
    total = 0.0
    for _ in range(k):
        j = 0
        for i in range(1, len(y)):
            if y[i] > y[j]:
                j = i
        total += y[j] * (k + 1)
        y[j] = -np.inf
    return total


add(G("r14_selection_topk_neg_inf", selection_topk_loop, (X5,), ref=lambda: np.array([0.0, 0.0, 3.0, 0.0, 3.0]), tol=0.0))
add(pair("r14_selection_topk_jax_backend", lambda: revsrc.grad(selection_topk_loop, backend="jax")(X5), lambda: np.array([0.0, 0.0, 3.0, 0.0, 3.0]), tol=0.0))
