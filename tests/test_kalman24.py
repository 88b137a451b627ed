"""The small-array tier runs np.linalg.inv, det and solve, transposed views in products
and NumPy scalars (revsrc/backends/smallarr_layout.py): a Kalman filter's loop runs
compiled where it does not save, with the Python path's bits (also under other NumPy
SIMD targets); what the tier cannot take (a syrk it cannot place, a singular matrix)
runs in Python and stays right. (The Kalman gradient's loops: tests/test_small_arrays.py.)"""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import revsrc
from revsrc import api
from revsrc.testing import check_grads


def kalman(Q, F, H, R, ys, m0, P0):
    m = m0
    P = P0
    nll = 0.0
    for t in range(40):
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        v = ys[t] - H @ m
        nll = nll + 0.5 * (np.log(np.linalg.det(S)) + v @ np.linalg.solve(S, v))
        m = m + K @ v
        P = P - K @ S @ K.T
    return nll, m, P


def kalman_scaled(x, Q, F, H, R, ys, m0, P0):
    # the loop does not depend on x: it runs forward only, without saves
    nll, m, P = kalman(Q, F, H, R, ys, m0, P0)
    return x * (nll + np.sum(m) + np.sum(P @ P.T))


def kalman_nll(Q, F, H, R, ys, m0, P0):
    return kalman(Q, F, H, R, ys, m0, P0)[0]


def kalman_data(seed=5, n=2, k=1):
    rng = np.random.default_rng(seed)
    F = np.eye(n) + 0.1 * np.eye(n, k=1)
    Q = np.diag(rng.uniform(0.005, 0.03, n))
    H = np.eye(k, n) + 0.1 * rng.standard_normal((k, n))
    R = np.diag(rng.uniform(0.1, 0.4, k))
    ys = np.cumsum(rng.standard_normal((40, k)) * 0.3, axis=0)
    return Q, F, H, R, ys, np.zeros(n), np.eye(n)


def solver(x, A, B, c, u):
    # inv, det, solve of a vector and of a matrix, transposed views on either side of
    # a product, G @ G.T (NumPy's syrk) and the scalars all of that makes
    acc = 0.0
    for i in range(12):
        Ai = np.linalg.inv(A)
        y = np.linalg.solve(A, c)
        Y = np.linalg.solve(A, B)
        d = np.linalg.det(A)
        acc = acc + d * 0.25 + y @ c - c @ Ai.T @ y + u @ (Y.T @ B) @ u
        G = A * 1.0
        A = 0.5 * (A + Ai) + 0.01 * (G @ G.T) - 0.001 * (B @ Y.T)
        c = A.T @ c * 0.5 + c
    return x * (acc + np.sum(A) + np.sum(c))


def solver_data(seed, n, scale=1.0):
    rng = np.random.default_rng(seed)
    A = (np.eye(n) * 2.0 + rng.standard_normal((n, n)) * 0.5) * scale
    return A, rng.standard_normal((n, n)), rng.standard_normal(n), np.ones(n)


def _run(f, args, on, monkeypatch):
    """f's gradient for its first argument with the tier on or off, and its loops."""
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1" if on else "0")
    g = revsrc.grad(f, memory=math.inf)
    out = g(*args)
    return out, getattr(api._entry(g, args, {}).fn, "_revsrc_small_loops", []), g


def _same_bits(a, b):
    return type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()


def test_kalman_loop_runs_compiled_with_the_python_paths_bits(monkeypatch):
    args = (1.5,) + kalman_data()
    on, loops, g = _run(kalman_scaled, args, True, monkeypatch)
    off, none, _ = _run(kalman_scaled, args, False, monkeypatch)
    assert [p.runs for p in loops] == [1] and not none
    assert _same_bits(on, off)
    nll, m, P = kalman(*args[1:])
    assert on == nll + np.sum(m) + np.sum(P @ P.T)
    text = revsrc.disassemble(g, *args)
    assert "inv kalman_S" in text and "det kalman_S" in text and "T kalman_K" in text


@pytest.mark.parametrize("n", [1, 2, 3])
def test_linalg_and_transposes_bits(n, monkeypatch):
    for seed in range(12):
        for scale in (1.0, 0.25, 4.0):
            args = (0.75,) + solver_data(seed, n, scale)
            on, loops, _ = _run(solver, args, True, monkeypatch)
            off, _, _ = _run(solver, args, False, monkeypatch)
            assert loops and loops[0].runs >= 1
            assert _same_bits(on, off), (seed, scale)


def test_kalman_of_larger_states(monkeypatch):
    args = (1.0,) + kalman_data(seed=2, n=3, k=2)
    on, loops, _ = _run(kalman_scaled, args, True, monkeypatch)
    off, _, _ = _run(kalman_scaled, args, False, monkeypatch)
    assert loops[0].runs == 1 and _same_bits(on, off)


def after_the_loop(x, A, u, s):
    # what the loop leaves is what Python's loop leaves: K.T a view of K (so K.T @ K
    # is NumPy's syrk after the loop too), acc a NumPy scalar, np.add of floats one
    acc = 0.0
    for i in range(6):
        K = np.linalg.inv(A) * 0.5
        Kt = K.T
        acc = acc + np.add(s, 0.5) * np.linalg.det(K)
        A = A + K @ Kt
    return x * (u @ (Kt @ K) @ u + acc), acc


def test_what_the_loop_leaves(monkeypatch):
    rng = np.random.default_rng(1)
    args = (2.0, np.eye(3) + 0.3 * rng.standard_normal((3, 3)), np.ones(3), 1.25)
    outs = []
    for on in (True, False):
        monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1" if on else "0")
        g = revsrc.grad(after_the_loop, has_aux=True, memory=math.inf)
        outs.append(g(*args))
        loops = getattr(api._entry(g, args, {}).fn, "_revsrc_small_loops", [])
        assert [p.runs for p in loops] == ([1] if on else [])
    (d_on, acc_on), (d_off, acc_off) = outs
    assert type(acc_on) is np.float64 and _same_bits(acc_on, acc_off)
    assert _same_bits(d_on, d_off)


def gram(x, A, B, u):
    acc = 0.0
    for i in range(5):
        acc = acc + u @ (A @ B.T) @ u
    return x * acc


def test_syrk_the_tier_cannot_place_runs_in_python(monkeypatch):
    # A @ B.T with A and B one array: NumPy calls syrk; the tier sees that the two
    # live-ins are one buffer at run time and leaves the loop to Python; two arrays:
    # gemm, the tier's
    rng = np.random.default_rng(0)
    A = rng.standard_normal((3, 3))
    u = np.ones(3)
    for args, runs in (((2.0, A, A, u), [0]), ((2.0, A, A.copy(), u), [1])):
        on, loops, _ = _run(gram, args, True, monkeypatch)
        off, _, _ = _run(gram, args, False, monkeypatch)
        assert [p.runs for p in loops] == runs and _same_bits(on, off)
        acc = 0.0
        for i in range(5):
            acc = acc + u @ (args[1] @ args[2].T) @ u
        assert on == acc           # d(x * acc)/dx


def inverse_walk(x, A, half):
    acc = 0.0
    for i in range(4):
        A = np.linalg.inv(A) - half
        acc = acc + np.linalg.det(A)
    return x * acc


@pytest.mark.parametrize("errs", ["default", "ignore"])
def test_singular_matrix_raises_as_in_python(errs, monkeypatch):
    half = np.eye(2) * 0.5
    A = np.array([[1.0, 0.3], [0.2, 0.7]])
    B = np.array([[2.0, 4.0], [1.0, 2.0]])      # singular at once
    C = np.array([[2.0, 0.0], [0.0, 1.0]])      # inv(C) - half singular: the second inv
    with np.errstate(all="ignore" if errs == "ignore" else "warn"):
        for on in (True, False):
            for M in (B, C):
                with pytest.raises(np.linalg.LinAlgError):
                    _run(inverse_walk, (1.0, M, half), on, monkeypatch)
        ok_on, loops, _ = _run(inverse_walk, (1.0, A, half), True, monkeypatch)
        ok_off, _, _ = _run(inverse_walk, (1.0, A, half), False, monkeypatch)
    assert loops[0].runs == 1 and _same_bits(ok_on, ok_off)


def dets(x, A):
    acc = 0.0
    for i in range(3):
        acc = acc + np.linalg.det(A) + 1.0
        A = A * 2.0
    return x * acc


def test_det_of_singular_matrix_is_zero_as_in_numpy(monkeypatch):
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    on, loops, _ = _run(dets, (3.0, A), True, monkeypatch)
    off, _, _ = _run(dets, (3.0, A), False, monkeypatch)
    assert loops[0].runs == 1 and _same_bits(on, off)


def test_kalman_gradient_against_jax_and_differences():
    # the gradient's own loops (the tier's: tests/test_small_arrays.py)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    args = kalman_data()

    def theirs(Q, F, H, R, ys, m0, P0):
        m, P, nll = m0, P0, 0.0
        for t in range(40):
            m = F @ m
            P = F @ P @ F.T + Q
            S = H @ P @ H.T + R
            K = P @ H.T @ jnp.linalg.inv(S)
            v = ys[t] - H @ m
            nll = nll + 0.5 * (jnp.log(jnp.linalg.det(S)) + v @ jnp.linalg.solve(S, v))
            m = m + K @ v
            P = P - K @ S @ K.T
        return nll

    g = revsrc.grad(kalman_nll, argnums=(0, 1))(*args)
    want = jax.grad(theirs, argnums=(0, 1))(*args)
    for ours, ref in zip(g, want):
        np.testing.assert_allclose(ours, np.asarray(ref), rtol=1e-10, atol=1e-12)
    check_grads(kalman_nll, args, argnums=(0, 1), rtol=1e-6)


def solve_walk(A, b, x0):
    x = x0
    for t in range(20):
        x = np.linalg.solve(A, x) * 1.5 + b
    return np.sum(x * x)


def solve_walk_matrix(A, B, X0):
    X = X0
    for t in range(20):
        X = np.linalg.solve(A, X) * 1.5 + B
    return np.sum(X * X)


def solve_data(seed, n, k=None):
    rng = np.random.default_rng(seed)
    A = np.eye(n) * 2.0 + 0.3 * rng.standard_normal((n, n))
    shape = (n,) if k is None else (n, k)
    return A, rng.standard_normal(shape), rng.standard_normal(shape)


@pytest.mark.parametrize("n,k", [(1, None), (2, None), (3, None), (2, 1), (2, 3)])
def test_solve_gradient_loops_run_compiled(n, k, monkeypatch):
    # the forward loop saves, its adjoint calls the adjoints of solve (a.T a view)
    f = solve_walk if k is None else solve_walk_matrix
    for seed in range(6):
        args = solve_data(seed, n, k)
        monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
        g = revsrc.grad(f, argnums=(0, 1, 2), memory=math.inf)
        on = g(*args)
        loops = api._entry(g, args, {}).fn._revsrc_small_loops
        assert [p.runs for p in loops] == [1, 1]
        monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "0")
        off = revsrc.grad(f, argnums=(0, 1, 2), memory=math.inf)(*args)
        assert all(_same_bits(x, y) for x, y in zip(on, off)), seed
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
    check_grads(f, solve_data(0, n, k), argnums=(0, 1, 2), rtol=1e-6)


def test_solve_gradient_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def theirs(A, b, x0):
        x = x0
        for t in range(20):
            x = jnp.linalg.solve(A, x) * 1.5 + b
        return jnp.sum(x * x)

    args = solve_data(3, 2)
    ours = revsrc.grad(solve_walk, argnums=(0, 1, 2), memory=math.inf)(*args)
    for x, y in zip(ours, jax.grad(theirs, argnums=(0, 1, 2))(*args)):
        np.testing.assert_allclose(x, np.asarray(y), rtol=1e-10, atol=1e-12)


def nans(x, A, p, q):
    acc = 0.0
    for i in range(3):
        acc = acc + p * np.linalg.det(A) + q
    return x * acc


def test_two_different_nans_keep_pythons_choice(monkeypatch):
    # which NaN a + b keeps is the compiled code's choice: the tier leaves it to Python
    A = np.eye(2)
    for p, q in ((np.float64(np.nan), -np.float64(np.nan)), (float("nan"), -float("nan")),
                 (1.0, -float("nan"))):
        with np.errstate(all="ignore"):
            on, loops, _ = _run(nans, (1.0, A, p, q), True, monkeypatch)
            off, _, _ = _run(nans, (1.0, A, p, q), False, monkeypatch)
        assert np.isnan(on) and _same_bits(on, off)


def negated(s, A, x0):
    x = x0
    for i in range(3):
        x = np.abs(-(A @ x)) * 0.5
    return s * (x @ x0)


@pytest.mark.parametrize("on", [True, False])
def test_a_flag_raised_before_negative_or_abs_is_kept(on, monkeypatch):
    # NumPy's negative and absolute loops clear the flags when done: the overflow of
    # the product before them still counts (np.errstate says raise: Python raises)
    A, x0 = np.full((2, 2), 1e300), np.array([1e10, 1.0])
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            _run(negated, (1.0, A, x0), on, monkeypatch)
    with np.errstate(over="ignore"):
        got, loops, _ = _run(negated, (1.0, A, x0), on, monkeypatch)
    assert got == np.inf and [p.runs for p in loops] == ([1] if on else [])


def dotted(s, A, W, x0):
    x = x0
    for i in range(3):
        x = np.dot(W, A @ x) * 0.5
    return s * (x @ x0)


@pytest.mark.parametrize("on", [True, False])
def test_a_flag_raised_before_np_dot_is_kept(on, monkeypatch):
    # np.dot's C function clears the flags before it computes
    A, W, x0 = np.full((2, 2), 1e300), np.full((2, 2), 0.5), np.array([1e10, 1.0])
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            _run(dotted, (1.0, A, W, x0), on, monkeypatch)
    with np.errstate(over="ignore"):
        got, loops, _ = _run(dotted, (1.0, A, W, x0), on, monkeypatch)
    assert got == np.inf and [p.runs for p in loops] == ([1] if on else [])


def test_a_tape_gives_back_numpy_scalars():
    # what an adjoint loop that cannot run compiled pops, one by one
    from revsrc.runtime import smallarr as rt
    tape = rt.Tape(np.array([1.5, 2.5, 3.5, 4.5]), 2, 2, [([], 0, "s"), ([], 1, "f")],
                   {}, ((), []), [])
    assert type(tape.value(1, 0)) is np.float64 and tape.value(1, 0) == 3.5
    assert type(tape.value(1, 1)) is float and tape.value(1, 1) == 4.5


_CHECK = """
import sys; sys.path[:0] = [{root!r}, {here!r}]
import math, os, numpy as np, revsrc, test_kalman24 as t
assert revsrc.__file__ == {file!r}
out = []
for f, args, wrt in [(t.kalman_scaled, (1.5,) + t.kalman_data(), 0)] + [
        (t.solver, (0.5,) + t.solver_data(s, n), 0) for s in range(4) for n in (1, 2, 3)] + [
        (t.solve_walk, t.solve_data(s, n), (0, 1, 2)) for s in range(4) for n in (1, 2, 3)] + [
        (t.solve_walk_matrix, t.solve_data(s, 2, 3), (0, 1, 2)) for s in range(4)]:
    res = []
    for on in ("1", "0"):
        os.environ["REVSRC_SMALL_ARRAYS"] = on
        g = revsrc.grad(f, argnums=wrt, memory=math.inf)
        res.append(g(*args) if wrt == 0 else tuple(g(*args)))
    out.append(t._same_bits(*res) if wrt == 0 else
               all(t._same_bits(x, y) for x, y in zip(*res)))
print(all(out))
"""


@pytest.mark.parametrize("disabled", ["", "AVX512_ICL X86_V4"])
def test_same_bits_under_other_simd_targets(disabled):
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=disabled)
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    code = _CHECK.format(root=root, here=here, file=revsrc.__file__)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "True", out.stdout
