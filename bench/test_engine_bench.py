"""Scalar engine benchmarks: the recurrence gradient against the hand-written C adjoint,
and the per-call cost of a derivative against calling the plain function.

    pytest bench/test_engine_bench.py --benchmark-only

The C reference is compiled at bench time (gcc -O2) from
../shared/reference/recurrence_adjoint.c (or $REVSRC_C_REFERENCE); it prints its own
best-of-2000 time, which the ratio test compares against the engine's best time.
"""
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from test_engine import g, g_grad_program, recurrence_grad_program  # noqa: E402

from revsrc._kernels import Derivative  # noqa: E402
from revsrc.engine import lower  # noqa: E402

C_SOURCE = pathlib.Path(os.environ.get("REVSRC_C_REFERENCE",
                                       ROOT.parent / "shared" / "reference"
                                       / "recurrence_adjoint.c"))


def _engine_recurrence():
    """The recurrence gradient as the user gets it: revsrc.grad on the engine when the
    pipeline can make it, else the hand-written IR of the same adjoint."""
    try:
        import revsrc
        from workloads import recurrence
        dg = revsrc.grad(recurrence, backend="engine")
        dg(0.3)
        return dg, "revsrc.grad"
    except Exception:
        d = Derivative(None)
        d.install(("f",), lower(recurrence_grad_program()), 1)
        return d, "hand-written IR"


def _best(fn, arg, number, repeat=50):
    """Best average over ``repeat`` batches of ``number`` calls."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn(arg)
        times.append((time.perf_counter() - t) / number)
    return min(times)


def _best_single(fn, arg, calls=2000):
    """Best single call, the way the C reference times itself."""
    best = math.inf
    clock = time.perf_counter
    for _ in range(calls):
        t = clock()
        fn(arg)
        t = clock() - t
        best = min(best, t)
    return best


@pytest.fixture(scope="module")
def c_reference_ms():
    gcc = shutil.which("gcc")
    if gcc is None or not C_SOURCE.exists():
        pytest.skip("gcc or the C reference is missing")
    with tempfile.TemporaryDirectory() as tmp:
        exe = pathlib.Path(tmp) / "recurrence_adjoint"
        subprocess.run([gcc, "-O2", str(C_SOURCE), "-o", str(exe), "-lm"], check=True)
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["eval_ms"]


def test_recurrence_grad_engine(benchmark):
    dg, how = _engine_recurrence()
    benchmark.extra_info["built_by"] = how
    result = benchmark(dg, 0.3)
    assert math.isfinite(result)


def test_recurrence_grad_vs_c_reference(benchmark, c_reference_ms):
    dg, how = _engine_recurrence()
    engine_s = _best_single(dg, 0.3)
    ratio = engine_s * 1e3 / c_reference_ms
    benchmark.extra_info.update(engine_us=engine_s * 1e6, c_us=c_reference_ms * 1e3,
                                ratio=ratio, built_by=how)
    print(f"\nrecurrence gradient ({how}): engine {engine_s * 1e6:.1f} us, "
          f"C {c_reference_ms * 1e3:.1f} us, ratio {ratio:.2f}")
    benchmark(dg, 0.3)
    assert ratio < 2.0


def test_call_overhead_dg_vs_g(benchmark):
    try:
        import revsrc
        dg = revsrc.value_and_grad(g, backend="engine")
        dg(0.3)
        how = "revsrc.value_and_grad"
    except Exception:
        dg = Derivative(None)
        dg.install(("f",), lower(g_grad_program()), (0, 1))
        how = "hand-written IR"
    t_dg = _best(dg, 0.3, 2000)
    t_g = _best(g, 0.3, 2000)
    ratio = t_dg / t_g
    benchmark.extra_info.update(dg_ns=t_dg * 1e9, g_ns=t_g * 1e9, ratio=ratio, built_by=how)
    print(f"\ndg(0.3) {t_dg * 1e9:.0f} ns, g(0.3) {t_g * 1e9:.0f} ns, ratio {ratio:.2f} ({how})")
    benchmark(dg, 0.3)
    assert ratio < 3.0


def test_lowering_time(benchmark):
    program = recurrence_grad_program()
    benchmark(lambda: lower(program).run((0.3,)))


# ----- NumPy's own loops against libm, per call inside the engine -----
# The engine runs np.tan through NumPy's float64 inner loop (the same digits as the
# user's own np.tan) and math.tan through libm; these time 1,000 calls of each in one
# engine program, forward and adjoint.

def loop_np_tan(x):
    total = 0.0
    for i in range(1000):
        total = total + np.tan(x + i * 1e-3)
    return total


def loop_math_tan(x):
    total = 0.0
    for i in range(1000):
        total = total + math.tan(x + i * 1e-3)
    return total


def loop_np_exp(x):
    total = 0.0
    for i in range(1000):
        total = total + np.exp(x + i * 1e-3)
    return total


def loop_math_exp(x):
    total = 0.0
    for i in range(1000):
        total = total + math.exp(x + i * 1e-3)
    return total


@pytest.mark.parametrize("fn", [loop_np_tan, loop_math_tan, loop_np_exp, loop_math_exp],
                         ids=lambda f: f.__name__[5:])
def test_numpy_loop_vs_libm(benchmark, fn):
    import revsrc
    benchmark.group = "engine: 1,000 calls, NumPy loop vs libm"
    dg = revsrc.value_and_grad(fn, backend="engine")
    value, grad = benchmark(dg, 0.1)
    assert math.isfinite(value) and math.isfinite(grad)
