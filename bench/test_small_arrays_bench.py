"""Loops over small arrays: revsrc against jax.jit(jax.grad), in the same run.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        pytest bench/test_small_arrays_bench.py --benchmark-only -s

Three workloads whose time, in plain NumPy, is mostly NumPy's per-call dispatch:

- ``rk4``: RK4 on a 6-float state, 1,000 steps, ``rhs(x) = tanh(A @ x) + b * x``, loss
  ``sum(x * x)``, d/dA; JAX's loop is a ``lax.fori_loop``;
- ``rnn``: the tanh RNN of bench/workloads.py (hidden 16x32, 40 steps), d/dW; beside
  it a hand-written NumPy gradient (one GEMM for the weight gradient over all steps);
- ``kalman``: a 2-state Kalman filter's negative log-likelihood over 200 scalar
  observations (``np.linalg.inv``, ``det``, ``solve`` on 1x1 and 2x2), d/dQ; JAX's
  loop is a ``lax.fori_loop``.

Each gradient is checked against JAX's first. The timings are interleaved (one round
of each in turn, the best round kept), so that the ratios are fair on a busy machine;
``revsrc_python`` is revsrc with the small-array tier off (``REVSRC_SMALL_ARRAYS=0``).
The figures and ratios go to the benchmark's extra_info and are printed.
"""
import os
import sys
import time

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import workloads as wl  # noqa: E402
from by_hand import rnn_by_hand  # noqa: E402 - the hand-written row (bench/by_hand.py)

import revsrc  # noqa: E402

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy
lax = jax.lax


# ----- RK4 -----

def rk4_rhs(x, A, b):
    return np.tanh(A @ x) + b * x


def rk4_loss(A, b, x0):
    x = x0
    h = 0.01
    for i in range(1000):
        k1 = rk4_rhs(x, A, b)
        k2 = rk4_rhs(x + 0.5 * h * k1, A, b)
        k3 = rk4_rhs(x + 0.5 * h * k2, A, b)
        k4 = rk4_rhs(x + h * k3, A, b)
        x = x + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(x * x)


def rk4_jax(A, b, x0):
    h = 0.01

    def rhs(x):
        return jnp.tanh(A @ x) + b * x

    def step(i, x):
        k1 = rhs(x)
        k2 = rhs(x + 0.5 * h * k1)
        k3 = rhs(x + 0.5 * h * k2)
        k4 = rhs(x + h * k3)
        return x + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)

    x = lax.fori_loop(0, 1000, step, x0)
    return jnp.sum(x * x)


def rk4_data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((6, 6)) * 0.3, -0.1 * np.ones(6), rng.standard_normal(6)


# ----- RNN -----

def rnn_jax(W, U, b, xs, target):
    h = jnp.zeros((16, 32))
    for t in range(40):
        h = jnp.tanh(jnp.dot(h, W) + jnp.dot(xs[t], U) + b)
    d = h - target
    return jnp.sum(d * d) / 16.0


# ----- Kalman filter -----

def kalman_nll(Q, F, H, R, ys, m0, P0):
    m = m0
    P = P0
    nll = 0.0
    for t in range(200):
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        v = ys[t] - H @ m
        nll = nll + 0.5 * (np.log(np.linalg.det(S)) + v @ np.linalg.solve(S, v))
        m = m + K @ v
        P = P - K @ S @ K.T
    return nll


def kalman_jax(Q, F, H, R, ys, m0, P0):
    def step(t, carry):
        m, P, nll = carry
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ jnp.linalg.inv(S)
        v = ys[t] - H @ m
        nll = nll + 0.5 * (jnp.log(jnp.linalg.det(S)) + v @ jnp.linalg.solve(S, v))
        return m + K @ v, P - K @ S @ K.T, nll

    return lax.fori_loop(0, 200, step, (m0, P0, 0.0))[2]


def kalman_data():
    rng = np.random.default_rng(5)
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    Q = np.diag([0.01, 0.02])
    H = np.array([[1.0, 0.0]])
    R = np.array([[0.25]])
    ys = np.cumsum(rng.standard_normal((200, 1)) * 0.3, axis=0)
    return Q, F, H, R, ys, np.zeros(2), np.eye(2)


# ----- timing -----

def _best(fns, rounds=15, min_time=0.02):
    """Interleaved: each round runs each function for at least ``min_time`` seconds;
    the best per-call time of each, in ms."""
    best = {k: float("inf") for k in fns}
    reps = {}
    for k, fn in fns.items():
        fn()
        t = time.perf_counter()
        n = 0
        while time.perf_counter() - t < min_time:
            fn()
            n += 1
        reps[k] = max(n, 1)
    for _ in range(rounds):
        for k, fn in fns.items():
            t = time.perf_counter()
            for _ in range(reps[k]):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t) / reps[k] * 1e3)
    return best


def _report(benchmark, name, fns):
    best = _best(fns)
    base = best["jax_jit"]
    lines = [f"{name}: " + ", ".join(f"{k} {v:.3f} ms ({v / base:.2f}x jax.jit)"
                                     for k, v in best.items())]
    print("\n" + lines[0])
    benchmark.extra_info.update({f"{k}_ms": v for k, v in best.items()})
    benchmark.extra_info.update({f"{k}_over_jax": v / base for k, v in best.items()})
    benchmark.pedantic(fns["revsrc"], rounds=3, iterations=1)


def _python_path(f, args):
    """revsrc.grad(f) with the small-array tier off (its program is built at the first
    call, which is made here)."""
    os.environ["REVSRC_SMALL_ARRAYS"] = "0"
    try:
        g = revsrc.grad(f)
        g(*args)
        return g
    finally:
        os.environ.pop("REVSRC_SMALL_ARRAYS")


def _check(ours, theirs, rtol=1e-9):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=rtol, atol=1e-12)


def _made(first, key, make):
    """``make()`` builds a derivative and calls it once: compile+first, kept in ms."""
    t = time.perf_counter()
    fn = make()
    first[key] = (time.perf_counter() - t) * 1e3
    return fn


def _called(fn, args):
    np.asarray(fn(*args))      # a JAX result is waited for
    return fn


def rk4_rows():
    """({row: zero-argument callable}, {row: compile+first ms}) for RK4, each row checked
    against jax.jit's gradient (the tier off: the same bits as on)."""
    args, first = rk4_data(), {}
    g = _made(first, "revsrc", lambda: _called(revsrc.grad(rk4_loss), args))
    off = _made(first, "revsrc_python", lambda: _python_path(rk4_loss, args))
    gj = _made(first, "jax_jit", lambda: _called(jax.jit(jax.grad(rk4_jax)), args))
    _check(g(*args), gj(*args))
    assert np.array_equal(g(*args), off(*args))
    return {"revsrc": lambda: g(*args), "revsrc_python": lambda: off(*args),
            "jax_jit": lambda: gj(*args).block_until_ready()}, first


def rnn_rows():
    """The same for the RNN, with the gradient written by hand in NumPy."""
    args, first = wl.rnn_data(), {}
    g = _made(first, "revsrc", lambda: _called(revsrc.grad(wl.rnn_loss), args))
    off = _made(first, "revsrc_python", lambda: _python_path(wl.rnn_loss, args))
    gj = _made(first, "jax_jit", lambda: _called(jax.jit(jax.grad(rnn_jax)), args))
    _check(g(*args), gj(*args))
    _check(rnn_by_hand(*args), gj(*args))
    assert np.array_equal(g(*args), off(*args))
    return {"revsrc": lambda: g(*args), "revsrc_python": lambda: off(*args),
            "numpy_by_hand": lambda: rnn_by_hand(*args),
            "jax_jit": lambda: gj(*args).block_until_ready()}, first


def kalman_rows():
    """The same for the Kalman filter."""
    args, first = kalman_data(), {}
    g = _made(first, "revsrc", lambda: _called(revsrc.grad(kalman_nll), args))
    off = _made(first, "revsrc_python", lambda: _python_path(kalman_nll, args))
    gj = _made(first, "jax_jit", lambda: _called(jax.jit(jax.grad(kalman_jax)), args))
    _check(g(*args), gj(*args))
    _check(off(*args), gj(*args))
    return {"revsrc": lambda: g(*args), "revsrc_python": lambda: off(*args),
            "jax_jit": lambda: gj(*args).block_until_ready()}, first


# workload -> its rows' builder (bench/loop_tables.py times them for BENCHMARKS.md)
ROWS = {"rk4": rk4_rows, "rnn": rnn_rows, "kalman": kalman_rows}


def test_rk4(benchmark):
    _report(benchmark, "rk4", rk4_rows()[0])


def test_rnn(benchmark):
    _report(benchmark, "rnn", rnn_rows()[0])


def test_kalman(benchmark):
    _report(benchmark, "kalman", kalman_rows()[0])
