"""Loops over small arrays run compiled (revsrc/backends/smallarr.py): the tier takes
them, gives the Python path's bits (also under other NumPy SIMD targets), hands back
what it cannot take, and keeps NumPy's errstate, NaN and inf, and Ctrl-C."""
import os
import signal
import subprocess
import sys
import time
import warnings

import math

import numpy as np
import pytest

import revsrc
from revsrc import api
from revsrc.runtime import smallarr as rt
from revsrc.testing import check_grads


def rhs(x, A, b):
    return np.tanh(A @ x) + b * x


def rk4(A, b, x0):
    x = x0
    h = 0.01
    for i in range(200):
        k1 = rhs(x, A, b)
        k2 = rhs(x + 0.5 * h * k1, A, b)
        k3 = rhs(x + 0.5 * h * k2, A, b)
        k4 = rhs(x + h * k3, A, b)
        x = x + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(x * x)


def rnn(Wh, Wx, xs, h0):
    h = h0
    for t in range(12):
        h = np.tanh(h @ Wh + xs[t] @ Wx)
    return np.sum(h * h)


def rnn_dot(W, U, b, xs, h0):
    h = h0
    for t in range(12):
        h = np.tanh(np.dot(h, W) + np.dot(xs[t], U) + b)
    return np.sum(h * h) / 4.0


def _args(seed=0, n=6):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, n)) * 0.3, -0.1 * np.ones(n), rng.standard_normal(n))


def _rnn_args(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((8, 8)) * 0.3, rng.standard_normal((5, 8)) * 0.3,
            rng.standard_normal((12, 4, 5)), rng.standard_normal((4, 8)))


# memory=math.inf throughout: the tier takes the loops of a stored program (the loops
# of a checkpointed one: tests/test_checkpoint_small_arrays.py).
def _grad(f, args, argnums, on, monkeypatch):
    """The gradient with the tier on or off, and the loops' plans."""
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1" if on else "0")
    g = revsrc.grad(f, argnums=argnums, memory=math.inf)
    out = g(*args)
    loops = getattr(api._entry(g, args, {}).fn, "_revsrc_small_loops", [])
    return out, loops


def _same_bits(a, b):
    a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
    return len(a) == len(b) and all(
        np.asarray(x).dtype == np.asarray(y).dtype and
        np.asarray(x).tobytes() == np.asarray(y).tobytes() for x, y in zip(a, b))


def _rnn_dot_args(seed=0):
    W, U, xs, h0 = _rnn_args(seed)
    return W, U, np.linspace(-0.2, 0.2, 8), xs, h0


@pytest.mark.parametrize("f, args", [(rk4, _args()), (rnn, _rnn_args()),
                                     (rnn_dot, _rnn_dot_args())],
                         ids=["rk4", "rnn", "rnn_dot"])
def test_the_tier_takes_the_loops_and_gives_the_python_paths_bits(f, args, monkeypatch):
    on, loops = _grad(f, args, (0, 1), True, monkeypatch)
    off, none = _grad(f, args, (0, 1), False, monkeypatch)
    assert len(loops) == 2 and not none          # the forward loop and its adjoint
    assert all(p.runs == 1 for p in loops)
    assert _same_bits(on, off)


def test_gradients_against_central_differences(monkeypatch):
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
    check_grads(rk4, _args(1), argnums=(0, 1, 2))
    check_grads(rnn, _rnn_args(1), argnums=(0, 1, 3))
    check_grads(rnn_dot, _rnn_dot_args(1), argnums=(0, 1, 2, 4))


def test_disassemble_shows_the_loops():
    text = revsrc.disassemble(revsrc.grad(rk4, memory=math.inf), *_args())
    assert "small-array loop" in text and "matmul A, x" in text and "pop o" in text


@pytest.mark.parametrize("change", ["float32", "int state", "list state"])
def test_values_the_tier_cannot_take_run_the_loop_in_python(change, monkeypatch):
    A, b, x0 = _args()
    if change == "float32":
        A, b, x0 = (v.astype(np.float32) for v in (A, b, x0))
    elif change == "int state":
        b = np.ones(6, dtype=np.int64)
    elif change == "list state":
        b = [-0.1] * 6
    on, loops = _grad(rk4, (A, b, x0), 0, True, monkeypatch)
    off, _ = _grad(rk4, (A, b, x0), 0, False, monkeypatch)
    assert _same_bits(on, off)
    assert all(p.runs == 0 for p in loops)


def test_a_shape_that_changes_in_the_loop_runs_in_python(monkeypatch):
    def f(b, x0):
        x = x0
        for i in range(3):
            x = np.tanh(x * b)      # a float the first time, then an array
        return np.sum(x)

    b = np.linspace(0.1, 0.5, 3)
    on, loops = _grad(f, (b, 0.5), 0, True, monkeypatch)
    off, _ = _grad(f, (b, 0.5), 0, False, monkeypatch)
    assert loops and all(p.runs == 0 for p in loops)
    assert _same_bits(on, off)


@pytest.mark.parametrize("f", ["rk4", "kalman"])
def test_an_adjoint_that_declines_puts_the_saves_back(f, monkeypatch):
    """The forward loop ran compiled; the adjoint's layout is refused: the tape's
    values go back on the stacks (transposed views with their strides) and Python's
    adjoint loop pops them."""
    f, args = (rk4, _args()) if f == "rk4" else (_kalman, _kalman_args(2))
    off, _ = _grad(f, args, 0, False, monkeypatch)
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
    g = revsrc.grad(f, memory=math.inf)
    g(*args)
    fwd, adj = api._entry(g, args, {}).fn._revsrc_small_loops
    adj._cache.clear()
    monkeypatch.setattr(adj, "layout", lambda *a: False)
    assert _same_bits(g(*args), off)
    assert fwd.runs == 2 and adj.runs == 1


def _overflowing(x0):
    x = x0
    for i in range(40):
        x = x * 1e10 + 1.0
    return np.sum(x)


@pytest.mark.parametrize("mode", ["raise", "warn", "ignore"])
def test_errstate_as_numpy(mode, monkeypatch):
    x0 = np.full(3, 2.0)
    results = []
    for on in (True, False):
        monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1" if on else "0")
        g = revsrc.grad(_overflowing, memory=math.inf)
        with np.errstate(over=mode, invalid=mode):
            if mode == "raise":
                with pytest.raises(FloatingPointError):
                    g(x0)
                continue
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                results.append((g(x0), len(w) > 0))
    if mode != "raise":
        assert _same_bits(results[0][0], results[1][0])
        assert results[0][1] == results[1][1] == (mode == "warn")


def test_nan_and_inf_flow_as_in_numpy(monkeypatch):
    A, b, x0 = _args()
    x0 = x0.copy()
    x0[1], x0[2] = np.nan, np.inf
    with np.errstate(all="ignore"):
        on, _ = _grad(rk4, (A, b, x0), (0, 2), True, monkeypatch)
        off, _ = _grad(rk4, (A, b, x0), (0, 2), False, monkeypatch)
    assert _same_bits(on, off)


class _Stop(Exception):
    pass


def test_ctrl_c_stops_a_long_run(monkeypatch):
    def f(W, x0, n):
        x = x0
        for i in range(n):
            x = np.tanh(W @ x)
        return np.sum(x)

    def stop(signum, frame):
        raise _Stop

    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
    rng = np.random.default_rng(3)
    W, x0 = rng.standard_normal((4, 4)), rng.standard_normal(4)
    g = revsrc.grad(f, memory=math.inf)
    g(W, x0, 10)                     # transformed and compiled first
    fwd = api._entry(g, (W, x0, 10), {}).fn._revsrc_small_loops[0]
    assert fwd.runs == 1
    old = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        t0 = time.perf_counter()
        with pytest.raises(_Stop):
            g(W, x0, 20_000_000)      # seconds to the end
        assert time.perf_counter() - t0 < 5.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert fwd.runs == 1              # stopped inside the compiled loop
    assert _same_bits(g(W, x0, 10), g(W, x0, 10))


def _dispatch_targets():
    from numpy._core import _multiarray_umath as umath
    return [t for t in umath.__cpu_dispatch__ if umath.__cpu_features__.get(t)]


_CHECK = """
import sys; sys.path[:0] = [{root!r}, {here!r}]
import math, os, numpy as np, revsrc, test_small_arrays as t
assert revsrc.__file__ == {file!r}
out = []
for f, args in ((t.rk4, t._args()), (t.rnn, t._rnn_args()), (t.rnn_dot, t._rnn_dot_args()),
                (t._kalman, t._kalman_args(2))):
    os.environ["REVSRC_SMALL_ARRAYS"] = "1"
    on = revsrc.grad(f, argnums=(0, 1), memory=math.inf)(*args)
    os.environ["REVSRC_SMALL_ARRAYS"] = "0"
    off = revsrc.grad(f, argnums=(0, 1), memory=math.inf)(*args)
    out.append(t._same_bits(on, off))
print(out)
"""


@pytest.mark.parametrize("disabled", ["", "AVX512_ICL X86_V4", "reduced"])
def test_same_bits_under_other_simd_targets(disabled):
    if disabled == "reduced":
        disabled = " ".join(_dispatch_targets()[1:])
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=disabled)
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    code = _CHECK.format(root=root, here=here, file=revsrc.__file__)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[True, True, True, True]", out.stdout


def two_loops(A, x0):
    x = x0
    for i in range(30):
        x = np.tanh(A @ x)
    y = x * 2.0
    for j in range(20):
        y = np.sin(A @ y) + x
    return np.sum(y * x)


def nested(A, x0):
    x = x0
    for i in range(4):
        for j in range(5):
            x = np.tanh(A @ x) * 0.9
        x = x + 0.1
    return np.sum(x * x)


def with_branch(A, x0):
    x = x0
    s = 0.0
    for i in range(10):
        x = np.tanh(A @ x)
        if i % 2 == 0:
            s = s + 1.0
    return np.sum(x) * s


@pytest.mark.parametrize("f", [two_loops, nested, with_branch])
def test_other_loop_structures_keep_their_bits(f, monkeypatch):
    A, _, x0 = _args(4)
    on, loops = _grad(f, (A, x0), (0, 1), True, monkeypatch)
    off, _ = _grad(f, (A, x0), (0, 1), False, monkeypatch)
    assert _same_bits(on, off)
    if f is two_loops:
        assert len(loops) == 4 and all(p.runs == 1 for p in loops)
    check_grads(f, (A, x0), argnums=(0, 1))


@pytest.mark.parametrize("f, args", [(rk4, _args()), (rnn, _rnn_args()),
                                     (rnn_dot, _rnn_dot_args())],
                         ids=["rk4", "rnn", "rnn_dot"])
def test_weight_gradients_batched_after_the_loop(f, args, monkeypatch):
    """REVSRC_SMALL_ARRAYS_BATCH=1: the adjoint loop stacks the factors of the weight's
    accumulated products and adds them with one np.dot after the loop; the result is
    NumPy's step-by-step sum to 1e-13 of its norm, the other gradients the same bits."""
    off, _ = _grad(f, args, (0, 1), False, monkeypatch)
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS_BATCH", "1")
    on, loops = _grad(f, args, (0, 1), True, monkeypatch)
    lay = [lay for lay in loops[1]._cache.values() if lay]
    assert lay and lay[0].batches and loops[1].runs == 1
    for a, b in zip(on, off):
        assert np.linalg.norm(a - b) <= 1e-13 * np.linalg.norm(b)


def _kalman(Q, F, H, R, ys, m0, P0):
    m = m0
    P = P0
    nll = 0.0
    for t in range(30):
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        v = ys[t] - H @ m
        nll = nll + 0.5 * (np.log(np.linalg.det(S)) + v @ np.linalg.solve(S, v))
        m = m + K @ v
        P = P - K @ S @ K.T
    return nll


def _kalman_args(obs=1, seed=5):
    """1 observation (S is 1x1) or 2 (S is 2x2: det's adjoint an F-order array, inv's
    adjoint of a 2x2 matrix)."""
    rng = np.random.default_rng(seed)
    H = np.array([[1.0, 0.0]]) if obs == 1 else np.array([[1.0, 0.0], [0.3, 1.0]])
    R = np.array([[0.25]]) if obs == 1 else np.array([[0.25, 0.05], [0.05, 0.3]])
    return (np.diag([0.01, 0.02]), np.array([[1.0, 0.1], [0.0, 1.0]]), H, R,
            np.cumsum(rng.standard_normal((30, obs)) * 0.3, axis=0), np.zeros(2), np.eye(2))


@pytest.mark.parametrize("obs", [1, 2])
def test_a_kalman_filters_gradient_is_taken_with_the_python_paths_bits(obs, monkeypatch):
    """Both loops of the gradient run in the tier: the forward loop saves transposed
    views, the adjoint loop's first iteration runs its liveness flags' other branches
    (its adjoints start at zero) and the later ones read transposes, inv's, det's and
    solve's adjoints."""
    args = _kalman_args(obs)
    on, loops = _grad(_kalman, args, (0, 1, 3), True, monkeypatch)
    off, none = _grad(_kalman, args, (0, 1, 3), False, monkeypatch)
    assert len(loops) == 2 and not none and all(p.runs == 1 for p in loops)
    assert loops[0].pushes and loops[1].first is not None and loops[1].flags_in
    assert _same_bits(on, off)
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
    check_grads(_kalman, args, argnums=(0, 1, 3))


def _transposes(A, B, x0):
    x = x0
    for i in range(6):
        C = A.T @ B + B.T * 0.5           # a transposed copy read by a product and added
        x = np.tanh(C @ x) + (A @ B.T) @ x * 0.1
    return np.sum(x * x)


def _gram_of_saved(A, B, x0):
    x = x0
    for i in range(5):
        K = B @ A.T
        # K.T is saved, so it is a copy: K @ K.T still reads one register (syrk)
        x = x + (K @ K.T) @ x * 0.01 + np.swapaxes(K, 0, 1).T @ x * 0.02
    return np.sum(x * x)


@pytest.mark.parametrize("f, shape", [(_transposes, (3, 3)), (_transposes, (2, 2)),
                                      (_gram_of_saved, (3, 3)), (_gram_of_saved, (2, 3)),
                                      (_gram_of_saved, (1, 3)), (_gram_of_saved, (3, 1))])
def test_transposed_copies_keep_numpys_strides(f, shape, monkeypatch):
    rng = np.random.default_rng(1)
    args = (rng.standard_normal(shape) * 0.5, rng.standard_normal(shape) * 0.5,
            rng.standard_normal(shape[0]))
    on, loops = _grad(f, args, (0, 1), True, monkeypatch)
    off, _ = _grad(f, args, (0, 1), False, monkeypatch)
    assert [p.runs for p in loops] == [1, 1] and _same_bits(on, off)
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
    check_grads(f, args, argnums=(0, 1))


def _dets(x, A):
    acc = 0.0
    for i in range(3):
        acc = acc + np.linalg.det(A) + 1.0
        A = A * 2.0
    return x * acc


def test_dets_adjoint_of_a_singular_matrix_runs_in_python(monkeypatch):
    """det's adjoint calls np.linalg.inv, which raises for a singular matrix and the
    adjoint takes the cofactors: the adjoint loop hands its tape back to Python."""
    for A, runs in ((np.array([[1.0, 0.5], [0.2, 3.0]]), [1, 1]),
                    (np.array([[1.0, 2.0], [2.0, 4.0]]), [1, 0])):
        on, loops = _grad(_dets, (3.0, A), (0, 1), True, monkeypatch)
        off, _ = _grad(_dets, (3.0, A), (0, 1), False, monkeypatch)
        assert [p.runs for p in loops] == runs and _same_bits(on, off)
    assert np.allclose(on[1], 3.0 * 21.0 * np.array([[4.0, -2.0], [-2.0, 1.0]]))  # cofactors


@pytest.mark.parametrize("case", ["singular", "nan", "nan ignored", "raise"])
def test_a_kalman_filter_that_the_tier_declines_runs_as_before(case, monkeypatch):
    """A singular S (np.linalg raises), a NaN observation (NumPy warns), errstate
    raise: the tier hands the loops to Python, which raises or warns as before; with
    errstate(all="ignore") the NaNs flow to the same bits."""
    Q, F, H, R, ys, m0, P0 = _kalman_args(2)
    if case == "singular":
        Q, R, P0 = np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2))
    else:
        ys = ys.copy()
        ys[20, 1] = np.nan
    args = (Q, F, H, R, ys, m0, P0)
    got = []
    for on in (True, False):
        monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1" if on else "0")
        g = revsrc.grad(_kalman, argnums=(0, 3), memory=math.inf)
        mode = {"nan ignored": "ignore", "raise": "raise"}.get(case, "warn")
        with np.errstate(all=mode), warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                out = g(*args)
            except (np.linalg.LinAlgError, FloatingPointError) as e:
                out = type(e)
        loops = getattr(api._entry(g, args, {}).fn, "_revsrc_small_loops", [])
        got.append((out, sorted(str(x.message) for x in w), [p.runs for p in loops]))
    (on, warned_on, runs), (off, warned_off, _) = got
    assert warned_on == warned_off
    if isinstance(on, type):
        assert on is off and on is {"singular": np.linalg.LinAlgError,
                                    "raise": FloatingPointError}[case]
    else:
        assert _same_bits(on, off) and np.isnan(on[0]).any()
    if case != "nan ignored":   # (ignored: the tier may run the loops, NaN flowing)
        assert runs == [0, 0]


@pytest.mark.parametrize("how", ["jvp", "hvp", "value_and_grad"])
def test_other_transformations_keep_their_bits(how, monkeypatch):
    def short(A, b, x0):
        x = x0
        for i in range(25):
            x = x + 0.01 * (np.tanh(A @ x) + b * x)
        return np.sum(x * x)

    A, b, x0 = _args(6)
    v = np.linspace(-1.0, 1.0, 36).reshape(6, 6)
    out = []
    for on in ("1", "0"):
        monkeypatch.setenv("REVSRC_SMALL_ARRAYS", on)
        if how == "jvp":
            out.append(revsrc.jvp(short, (A, b, x0), (v, b, x0)))
        elif how == "hvp":
            out.append(revsrc.hvp(short, (A, b, x0), (v, None, None)))
        else:
            out.append(revsrc.value_and_grad(short)(A, b, x0))
    flat = [tuple(np.asarray(z) for z in (o if isinstance(o, tuple) else (o,))) for o in out]
    assert _same_bits(flat[0], flat[1])


def _random_loop(rng, k):
    """The source of a random loop over a (5,) or (5, 3) state: unary functions,
    products with M on the right, scalars and + - * of earlier values."""
    def expr(names, depth=0):
        r = rng.random()
        if depth > 2 or r < 0.3:
            return rng.choice(names)
        if r < 0.45:
            u = rng.choice(["np.tanh", "np.sin", "np.cos", "np.exp"])
            return f"{u}(0.3 * {expr(names, depth + 1)})"
        if r < 0.6:
            return f"({expr(names, depth + 1)} @ M)"
        if r < 0.7:
            return f"({rng.choice(['0.5', 'h', '2'])} * {expr(names, depth + 1)})"
        op = rng.choice(["+", "-", "*"])
        return f"({expr(names, depth + 1)} {op} {expr(names, depth + 1)})"

    names, body = ["x", "b"], []
    for j in range(rng.randint(1, 4)):
        body.append(f"        u{j} = {expr(names)}")
        names.append(f"u{j}")
    body.append(f"        x = x + h * np.tanh({expr(names)})")
    return "\n".join([f"def f{k}(M, b, x0):", "    x = x0", "    h = 0.05",
                      f"    for i in range({rng.randint(1, 20)}):", *body,
                      "    return np.sum(x * x)", ""])


@pytest.mark.parametrize("state", [(5,), (5, 3)])
def test_random_loops_keep_their_bits(state, tmp_path, monkeypatch):
    import importlib.util
    import random
    rng = random.Random(len(state))
    path = tmp_path / f"loops{len(state)}.py"
    path.write_text("import numpy as np\n\n" + "\n".join(_random_loop(rng, k) for k in range(8)))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    r = np.random.default_rng(0)
    args = (r.standard_normal((state[-1],) * 2) * 0.4, r.standard_normal(state[-1]),
            r.standard_normal(state))
    runs = 0
    for k in range(8):
        f = getattr(mod, f"f{k}")
        on, loops = _grad(f, args, (0, 1, 2), True, monkeypatch)
        off, _ = _grad(f, args, (0, 1, 2), False, monkeypatch)
        assert _same_bits(on, off), k
        runs += sum(p.runs for p in loops)
    assert runs >= 8


def matrix_power(A, B):
    T = B
    for _ in range(3):
        T = T @ A           # the product overwrites one of its operands
    return np.sum(T * T)


def matvec_in_place(A, x0):
    x = x0
    for _ in range(4):
        x = A @ x
        x = np.tanh(x)
    return np.sum(x)


def dot_power(A, B):
    T = B
    for _ in range(3):
        T = np.dot(T, A)
    return np.sum(T * T)


@pytest.mark.parametrize("f, args", [
    (matrix_power, (np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([[1.0, 2.0], [0.5, -1.0]]))),
    (matvec_in_place, (np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([1.0, -2.0]))),
    (dot_power, (np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([[1.0, 2.0], [0.5, -1.0]])))],
    ids=["T = T @ A", "x = A @ x", "T = np.dot(T, A)"])
def test_a_product_into_its_own_operand(f, args, monkeypatch):
    on, loops = _grad(f, args, (0, 1), True, monkeypatch)
    off, _ = _grad(f, args, (0, 1), False, monkeypatch)
    assert loops and all(p.runs == 1 for p in loops)
    assert _same_bits(on, off)
    check_grads(f, args, argnums=(0, 1))


def _sin_power(x, n):
    y = x
    for _ in range(n):
        y = np.sin(y) * x
    return np.sum(y)


@pytest.mark.parametrize("n", [1, 3])
def test_hessian_whose_loop_starts_a_saved_value_as_a_float(n, monkeypatch):
    """hessian's loop saves a tangent that is a Python float before the loop and an
    array in it: the float is the tape's entry object, not copied into a register."""
    x = np.array([0.3, -0.7, 1.1])
    out = []
    for on in ("1", "0"):
        monkeypatch.setenv("REVSRC_SMALL_ARRAYS", on)
        out.append(revsrc.hessian(_sin_power)(x, n))
    assert _same_bits(out[0], out[1])
