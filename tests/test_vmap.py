"""revsrc.vmap: element i of the result is, bit for bit, what the function (or the
derivative) returns for the arguments' elements i; compiled, threads, Python's errors."""
import inspect
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
from revsrc import errors
from revsrc.backends.engine import native

from functions import CASES


def g(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


dg = revsrc.grad(g)


def newton(x):
    for _ in range(6):
        x = x - g(x) / dg(x)
    return x


def g_np(x):
    return np.exp(-x * x) * np.cos(3.0 * x)


dg_np = revsrc.grad(g_np)


def newton_np(x):
    for _ in range(6):
        x = x - g_np(x) / dg_np(x)
    return x


def _bits(a):
    return [float(v).hex() for v in np.asarray(a, dtype=np.float64).ravel()]


def _python(fn, *columns):
    return [fn(*[c[i] if isinstance(c, list) else c for c in columns])
            for i in range(len(next(c for c in columns if isinstance(c, list))))]


@pytest.mark.parametrize("fn", [newton, newton_np], ids=["math", "numpy"])
@pytest.mark.parametrize("threads", [1, 2])
def test_newton_over_many_starts_is_the_scalar_call(fn, threads):
    xs = 0.4 + np.arange(8000) * 1e-5
    got = revsrc.vmap(fn, threads=threads)(xs)
    assert got.dtype == np.float64 and got.shape == xs.shape
    assert _bits(got) == _bits([fn(x) for x in xs.tolist()])


def test_a_derivative_maps_to_values_and_gradients():
    xs = np.linspace(-2.0, 2.0, 5001)
    vg = revsrc.value_and_grad(g)
    values, grads = revsrc.vmap(vg, threads=2)(xs)
    want = [vg(x) for x in xs.tolist()]
    assert _bits(values) == _bits([w[0] for w in want])
    assert _bits(grads) == _bits([w[1] for w in want])
    assert _bits(revsrc.vmap(dg)(xs)) == _bits([dg(x) for x in xs.tolist()])


def test_scalar_semantics_of_numpy_loops():
    """np.power(x, 0.5) takes a path of its own for a scalar exponent: -0.0 ** 0.5 is
    -0.0 there, 0.0 on the array path. vmap calls the loop as for 0-d operands."""
    def root(x):
        return np.power(x, 0.5)

    xs = np.array([-0.0, 4.0, 2.0, 1e-300, np.inf])
    got = revsrc.vmap(root)(xs)
    assert _bits(got) == _bits([root(x) for x in xs.tolist()])
    assert math.copysign(1.0, got[0]) == -1.0


def test_in_axes_ints_bools_and_defaults():
    def f(x, n, flag, scale=2.0):
        s = 0.0
        for i in range(n):
            s = s + math.sin(x * i) * scale
        return s if flag else -s

    xs = np.linspace(0.0, 1.0, 301)
    ns = np.arange(301) % 7
    flags = (np.arange(301) % 3) == 0
    got = revsrc.vmap(f)(xs, ns, flags)
    assert _bits(got) == _bits([f(x, int(n), bool(b)) for x, n, b in zip(xs.tolist(), ns, flags)])
    got = revsrc.vmap(f, in_axes=(0, None, None, None))(xs, 5, True, 0.5)
    assert _bits(got) == _bits([f(x, 5, True, 0.5) for x in xs.tolist()])

    def kinds(x, n):
        return n * 2, x > 0.5, x * n

    twice, big, prod = revsrc.vmap(kinds)(xs, ns)
    assert twice.dtype == np.int64 and big.dtype == np.bool_ and prod.dtype == np.float64
    assert twice.tolist() == (ns * 2).tolist() and big.tolist() == (xs > 0.5).tolist()


def test_ints_beyond_the_engine_run_the_function_itself():
    def f(n):
        return n * 3 + 1

    ns = np.array([1, 2 ** 60, -(2 ** 55), 7], dtype=np.int64)
    assert revsrc.vmap(f)(ns).tolist() == [f(int(n)) for n in ns]


def test_errors_are_those_of_the_first_failing_element():
    def f(x):
        return math.log(x) + 1.0 / (x - 3.0)

    xs = np.concatenate([np.linspace(0.5, 2.0, 50_000), [-1.0], np.linspace(1.0, 2.0, 1000),
                         [3.0]])
    with pytest.raises(ValueError, match="math domain error") as info:
        revsrc.vmap(f, threads=2)(xs)
    assert any("element 50000" in note for note in info.value.__notes__)
    with pytest.raises(ZeroDivisionError):
        revsrc.vmap(f)(xs[50_001:])


def test_refusals():
    with pytest.raises(TypeError):     # rows: g(row) itself raises (math of an array)
        revsrc.vmap(g)(np.ones((3, 3)))
    with pytest.raises(errors.NotCompilable, match="complex128"):
        revsrc.vmap(g)(np.ones(3, dtype=np.complex128))
    with pytest.raises(ValueError, match="different lengths"):
        revsrc.vmap(lambda_free)(np.ones(3), np.ones(4))



def uses_array(x):
    return float(np.sum(np.ones(2) * x))


def test_arrays_inside_run_batched():
    """Arrays inside the function are not the engine's (revsrc.jit refuses them, E502
    at the line); vmap runs the function batched as an array program instead."""
    xs = np.array([1.0, 2.0, 3.5])
    np.testing.assert_array_equal(revsrc.vmap(uses_array)(xs), [uses_array(x) for x in xs])
    with pytest.raises(errors.NotCompilable) as info:
        revsrc.jit(uses_array)(1.0)
    assert info.value.lineno == inspect.getsourcelines(uses_array)[1] + 1


def lambda_free(x, y):
    return x + y


def test_empty_arrays():
    out = revsrc.vmap(g)(np.array([], dtype=np.float64))
    assert out.shape == (0,) and out.dtype == np.float64


def test_the_gil_is_released_while_mapping():
    xs = 0.4 + np.arange(400_000) * 1e-7
    mapped = revsrc.vmap(newton, threads=1)
    mapped(xs[:10])
    ticks = 0
    t = threading.Thread(target=mapped, args=(xs,))
    t.start()
    while t.is_alive():
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert ticks >= 10


def slow(x, n):
    for i in range(n):
        x = x * 0.999 + 0.001
    return x


def test_ctrl_c_stops_a_long_map():
    root = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    here = os.path.dirname(os.path.abspath(__file__))
    # A child started from a background job inherits SIGINT ignored, and Python
    # then installs no KeyboardInterrupt handler: give it the one a terminal gives.
    code = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
             f"import sys, time; sys.path[:0] = [{root!r}, {here!r}]\n"
            "import numpy as np, revsrc\n"
            "from test_vmap import slow\n"
            "m = revsrc.vmap(slow, in_axes=(0, None), threads=2)\n"
            "xs = np.linspace(0.0, 1.0, 100_000)\n"
            "m(xs[:10], 10)\n"
            "print('ready', flush=True)\n"
            "try:\n"
            "    m(xs, 1_000_000)\n"
            "except KeyboardInterrupt:\n"
            "    print(time.time(), flush=True)\n"
            "    raise\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
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


# ----- The scalar corpus: functions and their derivatives, VM and native -----

SCALAR = [c for c in CASES if "scalar" in c.tags]


def _columns(case, n=7):
    """Each float argument as an array of n nearby values; the others unmapped."""
    tr = revsrc.grad(case.fn, case.argnums)._revsrc_transformed
    values = tr.bind(case.args, case.kwargs)
    cols, axes = [], []
    for v in values:
        if type(v) is float:
            cols.append(v + np.linspace(0.0, 1e-3, n) * (1.0 + abs(v)))
            axes.append(0)
        else:
            cols.append(v)
            axes.append(None)
    return values, cols, tuple(axes)


def _elements(cols, axes, i):
    return [c[i].item() if a == 0 else c for c, a in zip(cols, axes)]


def _flat(result):
    if isinstance(result, tuple):
        return [x for r in result for x in _flat(r)]
    return [result]


def _check_mapped(fn, cols, axes, n=7):
    got = revsrc.vmap(fn, in_axes=axes)(*cols)
    want = [_flat(fn(*_elements(cols, axes, i))) for i in range(n)]
    got = _flat(got)
    for k, column in enumerate(got):
        assert _bits(column) == _bits([w[k] for w in want]), k


@pytest.mark.parametrize("case", SCALAR, ids=[c.id for c in SCALAR])
def test_the_scalar_corpus_maps_with_the_same_digits(case):
    values, cols, axes = _columns(case)
    if all(a is None for a in axes):
        pytest.skip("no float argument to map")
    try:
        _check_mapped(case.fn, cols, axes)
    except errors.NotCompilable as exc:
        assert exc.lineno is not None and case.id == "for_over_global_tuple", exc
    vg = revsrc.value_and_grad(case.fn, case.argnums)
    try:
        _check_mapped(vg, cols, axes)
    except errors.NotCompilable:
        with pytest.raises(errors.EngineUnavailable):
            revsrc.value_and_grad(case.fn, case.argnums, backend="engine")(*values)


def test_the_scalar_corpus_maps_natively_with_the_same_digits():
    if not native.enabled():
        pytest.skip("no C compiler")
    pairs = []
    for case in SCALAR:
        values, cols, axes = _columns(case)
        if all(a is None for a in axes):
            continue
        vg = revsrc.value_and_grad(case.fn, case.argnums)
        try:
            vg(*values)
            if not vg.programs:
                continue
        except errors.RevsrcError:
            continue
        pairs.append((vg, cols, axes))
    assert native.compile_many([p for vg, _, _ in pairs for _, p, _ in vg.programs])
    for vg, cols, axes in pairs:
        assert all(p.tier == "native" for _, p, _ in vg.programs)
        _check_mapped(vg, cols, axes)
    assert len(pairs) > 100


def test_docstring_example():
    import doctest
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    # run as a user's module runs it (functions of revsrc's own modules are not inlined)
    for test in doctest.DocTestFinder().find(revsrc.vmap, "vmap", globs={"__name__": "__main__"}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


def _acc(x, acc=0.0):
    acc = acc + x
    return acc


def _scaled(x, n=2):
    while n > 0:
        x = x * 1.1
        n -= 1
    return x


def _pendulum(theta, omega=0.0):
    for _ in range(20):
        omega = omega - 0.05 * math.sin(theta)
        theta = theta + 0.05 * omega
    return theta


@pytest.mark.parametrize("threads", [1, None])
def test_a_parameter_the_function_assigns_starts_afresh_for_each_element(threads):
    """A default or unmapped parameter that the function rebinds must not carry its
    value from one element to the next (found by the fourth tester)."""
    xs = np.linspace(-1.0, 2.0, 5001)
    for _ in range(3):     # the VM first, then the native tier once it is hot
        np.testing.assert_array_equal(revsrc.vmap(_acc, threads=threads)(xs), xs)
        np.testing.assert_array_equal(
            revsrc.vmap(_scaled, in_axes=(0, None), threads=threads)(xs, 2),
            [_scaled(x, 2) for x in xs])
        np.testing.assert_array_equal(revsrc.vmap(_scaled, threads=threads)(xs),
                                      [_scaled(x) for x in xs])
        np.testing.assert_array_equal(
            revsrc.vmap(revsrc.grad(_pendulum), threads=threads)(xs),
            [revsrc.grad(_pendulum, backend="python")(x) for x in xs])
