"""User programs, corpus 6p: vmap of array programs with in-place writes, views and
scatter-adds, per example (the documented fallback runs the function once per
example).  References: JAX x64 of the write-free form, or a Python loop of central
differences."""
import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, jax, jaxify

CASES = []
RNG = np.random.default_rng(75)
M = RNG.normal(size=(4, 5))


J = jax


add = adder(CASES)


def per_example_fd(f, xs):
    return np.stack([fd_grad(f, (x,), {}, 0)[0] for x in xs])


def w_cumulative(x):
    y = np.zeros(5)
    y[0] = x[0]
    for i in range(1, 5):
        y[i] = y[i - 1] * 0.5 + x[i]
    return np.sum(y ** 2)


def w_view_scale(x):
    y = x * 1.0
    v = y[1:4]
    v *= np.tanh(x[0])
    return np.sum(y ** 2)


def w_scatter_add(x):
    y = np.zeros(3)
    np.add.at(y, [0, 1, 1, 2, 0], x)
    return np.sum(np.sin(y))


def w_mask_write(x):
    y = x.copy()
    y[y < 0] = 0.1 * y[y < 0]
    return np.sum(y ** 3)


def w_old_value_copy(x):
    y = x.copy()
    old = y[2]
    y[2] = x[3] * x[4]
    return old * 3.0 + y[2]


for _f in [w_cumulative, w_view_scale, w_scatter_add, w_mask_write, w_old_value_copy]:
    add("vmap_writes_grad_" + _f.__name__[2:], (lambda f=_f: revsrc.vmap(revsrc.grad(f))(M)),
        (lambda f=_f: per_example_fd(f, M)), tol=1e-6)
    add("vmap_writes_value_" + _f.__name__[2:], (lambda f=_f: revsrc.vmap(f)(M)),
        (lambda f=_f: np.array([f(x.copy()) for x in M])), tol=1e-12)


def w_memory_loop_writes(x):
    y = np.zeros(5)
    s = x * 1.0
    for k in range(200):
        s = s * 0.99 + 0.01 * np.roll(s, 1)
        y[k % 5] = y[k % 5] + s[k % 5]
    return np.sum(y ** 2)


add("vmap_writes_memory_grad", lambda: revsrc.vmap(revsrc.grad(w_memory_loop_writes, memory=256))(M),
    lambda: per_example_fd(w_memory_loop_writes, M), tol=1e-6)
