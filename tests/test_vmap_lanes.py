"""revsrc.vmap over blocks of lanes (revsrc/backends/engine/lanes.py): element i is,
bit for bit, what calling the function on element i gives, whatever the other lanes of
its block do: branches that part, loops of different lengths, ints, bools, nan and inf,
an error in one lane, block boundaries, derivatives with stacks, NumPy's loops; float32 in its own precision."""
import math
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import revsrc
from revsrc import mapped
from revsrc.backends.engine import lanes, native

pytestmark = pytest.mark.skipif(not native.enabled(), reason="no C compiler (or REVSRC_NATIVE=0)")


@pytest.fixture(autouse=True)
def on_lanes(monkeypatch):
    """Lanes compiled before the first call; ``used`` records each call's mapper."""
    monkeypatch.setenv("REVSRC_NATIVE", "sync")
    used = []
    real = mapped._mapper

    def spy(program, compiled, *rest):
        used.append(compiled)
        return real(program, compiled, *rest)

    monkeypatch.setattr(mapped, "_mapper", spy)
    return used


def _bits(values):
    out = []
    for v in np.asarray(values).ravel().tolist():
        out.append(float(v).hex() if isinstance(v, float) else repr(v))
    return out


def _same(got, want):
    if isinstance(want[0], tuple):
        assert isinstance(got, tuple) and len(got) == len(want[0])
        for k in range(len(got)):
            _same(got[k], [w[k] for w in want])
        return
    assert _bits(got) == _bits(want)


def _check(f, *columns, threads=None, fn=None):
    """revsrc.vmap(f) against calls of ``fn`` (default f) on each element."""
    fn = fn or f
    n = len(columns[0])
    want = [fn(*[c[i].item() for c in columns]) for i in range(n)]
    got = revsrc.vmap(f, threads=threads)(*columns)
    if n:
        _same(got, want)
    return got


# ----- programs -----

def branches(x):
    if x > 0.3:
        y = math.sin(x) * 2.0
        if x > 0.7:
            y = y - math.exp(min(x, 5.0))
    elif x < -0.5:
        y = math.cos(x) / x
    else:
        y = x * x + 1.0
    return y


def trips(x):
    k = 0
    while abs(x) > 1e-3 and k < 60:
        x = x * 0.61 - 0.1 * math.sin(x)
        k += 1
    return x, k


def ints(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.cos(x * i) * (i % 3)
    return s, n // 3, n * n - 7, n > 4


def flagged(x, flag):
    return -x if flag else math.sqrt(abs(x)), not flag


def mathy(x):
    return math.atan2(x, 1.5) + math.hypot(x, 2.0) + min(x, 1e6) ** 2.5 + x % 0.3 + x // 0.7


def may_fail(x):
    return 1.0 / (x - 0.5) + math.log(x + 2.0)


def g(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


def g_np(x):
    return np.exp(-x * x) * np.cos(3.0 * x) + np.arcsin(x * 0.5) + np.tanh(x)


def loop_loss(x):
    s = 0.0
    k = 0
    while s < 3.0 and k < 40:
        s = s + math.exp(x * 0.1 * k) * 0.2
        k += 1
    return s * x


def _width(f, *columns):
    m = revsrc.vmap(f)
    m(*[c[:1] for c in columns])
    tr = m.tr
    return max(lanes.compiled(e.engine).width for e in tr.cache.values())


XS = np.concatenate([np.linspace(-2.0, 2.0, 997), [0.0, -0.0, 1e-300, 5e-324, 1e300, -1e300]])


@pytest.mark.parametrize("f", [branches, trips, mathy, g], ids=lambda f: f.__name__)
@pytest.mark.parametrize("threads", [1, 2])
def test_programs_are_their_calls(f, threads, on_lanes):
    xs = np.abs(XS) if f is mathy else XS
    _check(f, xs, threads=threads)
    assert on_lanes and all(c is not None for c in on_lanes)


def test_ints_and_bools_and_unmapped(on_lanes):
    xs = np.linspace(-1.0, 1.0, 600)
    ns = np.arange(600) % 11
    _check(ints, xs, ns)
    flags = (np.arange(600) % 3) == 0
    _check(flagged, xs, flags)
    got = revsrc.vmap(ints, in_axes=(0, None))(xs, 6)
    _same(got, [ints(x, 6) for x in xs.tolist()])
    assert all(c is not None for c in on_lanes)


def test_ints_beyond_the_engine_take_the_python_path():
    def square(n, x):
        return n * 3 + 1, n - 1, x * 2.0

    ns = np.array([3, 3 * 2**51, 5, 2**54 + 1, -(2**31), 7] * 50, dtype=np.int64)
    xs = np.linspace(0.0, 1.0, len(ns))
    got = _check(square, ns, xs)          # beyond 2**53: exact, through Python
    assert got[0].tolist()[1] == 9 * 2**51 + 1 and got[1].tolist()[3] == 2**54


def test_nan_and_inf_lanes():
    xs = np.array([math.nan, math.inf, -math.inf, 0.5, -0.0, 1.0] * 100)

    def arith(x):
        if x > 0.5:
            return x * x - 1.0
        elif x != x:
            return 0.0
        return x / 3.0

    _check(arith, xs)

    def quiet(x):
        return (x * 2.0 if x == x else -1.0), min(x, 1.0), max(x, -1.0), x != x

    _check(quiet, xs)


@pytest.mark.parametrize("threads", [1, 2])
def test_an_error_in_one_lane_is_the_calls_error(threads):
    xs = np.linspace(0.0, 1.0, 2000)
    xs[1234] = 0.5
    xs[1500] = 0.5
    with pytest.raises(ZeroDivisionError) as info:
        revsrc.vmap(may_fail, threads=threads)(xs)
    try:
        may_fail(0.5)
    except ZeroDivisionError as exc:
        assert str(info.value) == str(exc)
    assert any("element 1234" in note for note in info.value.__notes__)
    xs[3] = -3.0                                  # log domain error, an earlier lane
    with pytest.raises(ValueError, match="math domain error") as info:
        revsrc.vmap(may_fail, threads=threads)(xs)
    assert any("element 3" in note for note in info.value.__notes__)

    def overflow(x):
        return math.exp(x * 1000.0)

    with pytest.raises(OverflowError, match="math range error"):
        revsrc.vmap(overflow)(np.array([0.1, 0.2, 0.8, 0.3]))

    def root(x):
        return math.sqrt(0.9 - x)

    with pytest.raises(ValueError, match="math domain error") as info:
        revsrc.vmap(root)(np.linspace(0.0, 1.0, 300))
    assert any("element 270" in note for note in info.value.__notes__)


def test_block_boundaries():
    w = _width(branches, XS)
    assert w >= 8
    for n in (0, 1, w - 1, w, w + 1, 2 * w + 3, 20_000):
        xs = np.linspace(-1.5, 1.5, n)
        for threads in (1, 2):
            got = _check(trips, xs, threads=threads)
            if n == 0:
                assert got[0].shape == (0,) and got[1].dtype == np.int64


def test_strided_and_readonly_inputs():
    xs = np.linspace(-1.0, 1.0, 3000)[::3]
    xs.flags.writeable = False
    _check(branches, xs)


def test_derivatives_with_stacks(on_lanes):
    xs = np.linspace(-1.0, 1.0, 700)
    dg = revsrc.grad(g)
    _check(dg, xs)
    vg = revsrc.value_and_grad(loop_loss)
    _check(vg, xs)                                # different stack depths per lane
    dd = revsrc.grad(revsrc.grad(g))
    _check(dd, xs)
    assert on_lanes and all(c is not None for c in on_lanes)


def test_numpy_spelled_functions_call_numpys_loop_per_lane():
    xs = np.linspace(-1.9, 1.9, 1500)
    _check(g_np, xs)
    _check(revsrc.grad(g_np), xs)


def test_newton_as_the_benchmark_writes_it():
    dg = revsrc.grad(g)

    def newton(x):
        for _ in range(6):
            x = x - g(x) / dg(x)
        return x

    xs = 0.4 + np.arange(5000) * 1e-5
    _check(newton, xs, threads=2)


def _check_numpy_elements(f, *columns):
    """revsrc.vmap(f) against f called on each element as NumPy gives it (xs[i], a
    np.float32), the results stacked: a loop over the array, and JAX's vmap."""
    want = [f(*[c[i] for c in columns]) for i in range(len(columns[0]))]
    got = revsrc.vmap(f)(*columns)
    if isinstance(want[0], tuple):
        for k, col in enumerate(got):
            np.testing.assert_array_equal(col, np.stack([w[k] for w in want]), strict=True)
    else:
        np.testing.assert_array_equal(got, np.stack(want), strict=True)
    return got


def test_float32_and_float16_arrays_compute_in_their_precision():
    # a float32 element rounds in float32 (x * 0.1 is float32 under NEP 50): mapping
    # the float64 it widens to gave other digits (issue 22)
    xs = np.linspace(-1.0, 1.0, 513).astype(np.float32)
    got = _check_numpy_elements(lambda x: x * 0.1 + x * x, xs)
    assert got.dtype == np.float32
    _check_numpy_elements(branches, xs)
    _check_numpy_elements(branches, xs.astype(np.float16))
    _check_numpy_elements(revsrc.grad(g), xs)
    _check_numpy_elements(ints, xs, np.arange(513) % 5)
    # fixed-width ints wrap as NumPy's do; a float32 passed whole (in_axes None) too
    with np.errstate(over="ignore"):
        _check_numpy_elements(lambda n: n * n, np.array([100000, 7], dtype=np.int32))
    want = np.array([x * np.float32(0.1) for x in xs])
    got = revsrc.vmap(lambda x, c: x * c, in_axes=(0, None))(xs, np.float32(0.1))
    np.testing.assert_array_equal(got, want, strict=True)


def test_without_lanes_the_same_digits(monkeypatch, on_lanes):
    """Before the lanes are compiled (the tier off here), element by element."""
    monkeypatch.setenv("REVSRC_NATIVE", "0")

    def other(x):
        return branches(x) * 3.0 + 1.0

    _check(other, XS)
    assert on_lanes == [None]


def spin(x, n):
    k = 0
    while k < n:
        x = math.sin(x) + 0.5
        k += 1
    return x


def test_ctrl_c_stops_a_long_lane():
    root = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    here = os.path.dirname(os.path.abspath(__file__))
    # A child started from a background job inherits SIGINT ignored, and Python
    # then installs no KeyboardInterrupt handler: give it the one a terminal gives.
    code = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
             f"import sys, time; sys.path[:0] = [{root!r}, {here!r}]\n"
            "import numpy as np, revsrc\n"
            "from test_vmap_lanes import spin\n"
            "m = revsrc.vmap(spin, threads=2)\n"
            "m(np.ones(3), np.array([1, 2, 3]))\n"
            "print('ready', flush=True)\n"
            "ns = np.full(1000, 10); ns[700] = 10**15\n"
            "try:\n"
            "    m(np.ones(1000), ns)\n"
            "except KeyboardInterrupt:\n"
            "    print(time.time(), flush=True)\n"
            "    raise\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, REVSRC_NATIVE="sync"))
    watchdog = threading.Timer(60, proc.kill)   # a stuck child fails, never hangs
    watchdog.start()
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        assert proc.poll() is None
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        stopped = float(proc.stdout.readline())
        proc.wait(timeout=10)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0 and "KeyboardInterrupt" in proc.stderr.read()
    assert stopped - sent < 0.5


def test_the_translation_keeps_each_lanes_statements():
    """Each instruction is the VM's statement on one lane; registers no block reads
    before writing are C locals; a jump to the end of the code leaves the run."""
    m = revsrc.vmap(branches)
    m(np.ones(2))
    prog = next(iter(m.tr.cache.values())).engine
    outs = prog._out_registers()
    text, _, rows, width = lanes.translate(prog.code_list, prog.nregs,
                                           prog._param_registers(), outs)
    rows2, temps = lanes.layout(prog.code_list, prog.nregs, prog._param_registers(), outs)
    assert rows == rows2 and temps and not temps & set(rows)
    assert set(prog._param_registers()) | set(outs) <= set(rows)
    assert width == lanes.block_width(len(rows))
    assert "exp(a)" in text and "sin(a)" in text and "default: return RV_E_FALLBACK" in text


def test_in_the_background_the_lanes_take_over(monkeypatch, on_lanes):
    monkeypatch.setenv("REVSRC_NATIVE", "1")

    def late(x):
        return branches(x) - 2.0 * x

    m = revsrc.vmap(late)
    want = [late(x) for x in XS.tolist()]
    _same(m(XS), want)
    prog = next(iter(m.tr.cache.values())).engine
    assert lanes.wait(prog, timeout=120) is not None
    _same(m(XS), want)
    assert on_lanes[-1] is not None


SCALE = 1.5


def test_globals_constants_and_identity(on_lanes):
    def scaled(x):
        return x * SCALE + math.sin(x), 2.0, x

    _check(scaled, XS)
    assert on_lanes[-1] is not None
