"""The native tier: engine programs compiled to C give the VM's results bit for bit.

The engine's own bit-equality suite (tests/test_engine.py, whose oracle is plain
Python) runs again here with every program compiled: a first pass collects the
programs, one compiler run builds them all (cached on disk, so a second test run
compiles nothing), a second pass runs the suite on them. The scalar corpus is checked
the same way against the Python backend; tests/test_same_digits.py covers the math and
NumPy table under several NumPy CPU-dispatch settings.
"""
import functools
import math
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import revsrc
from revsrc.backends.engine import lower as engine, native

import test_engine as te
from functions import CASES

pytestmark = pytest.mark.skipif(not native.enabled(), reason="no C compiler (or REVSRC_NATIVE=0)")


def _params(test):
    (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]
    return mark.args[1]


def engine_suite():
    """test_engine's bit-for-bit tests, as thunks (their parametrizations expanded)."""
    unary = _params(te.test_unary_float)
    for fn in unary:
        yield functools.partial(te.test_unary_float, fn)
        yield functools.partial(te.test_unary_int_and_bool, fn)
    for fn in te.NP1:
        yield functools.partial(te.test_numpy_unary, fn)
    for fn in te.BINARY:
        yield functools.partial(te.test_binary_floats, fn)
        yield functools.partial(te.test_binary_ints_and_mixed, fn)
    for fn in te.NP2:
        yield functools.partial(te.test_numpy_binary, fn)
    for fn, args in _params(te.test_errors_match_python):
        yield functools.partial(te.test_errors_match_python, fn, args)
    for bounds in _params(te.test_for_range_semantics):
        yield functools.partial(te.test_for_range_semantics, bounds)
    yield from (te.test_random_sweep_bit_exact, te.test_hypot_matches_cpython_algorithm,
                te.test_min_max_several_arguments, te.test_int_results_keep_python_types,
                te.test_int_beyond_2_53_defers_to_python, te.test_range_errors,
                te.test_pop_from_empty_stack_raises,
                te.test_for_with_variable_bounds_and_runtime_step,
                te.test_break_in_for_and_while, te.test_nested_loops_with_pushes,
                te.test_if_on_float_truthiness_and_constant_tests,
                te.test_recurrence_gradient_matches_python_bit_for_bit,
                te.test_numpy_functions_run_numpys_own_loop,
                te.test_load_global_reads_current_value_each_run,
                te.test_derivative_errors_propagate,
                te.test_million_iterations_memory_bounded_by_saved_values)


@pytest.fixture(scope="module")
def compiled_suite():
    """Every program the suite lowers, compiled in one go."""
    seen = []
    real = te.lower

    def collect(program):
        p = real(program)
        seen.append(p)
        return p

    te.lower = collect
    try:
        for thunk in engine_suite():
            thunk()
    finally:
        te.lower = real
    assert native.compile_many(seen)
    return len(seen)


def test_engine_suite_on_the_native_tier(compiled_suite, monkeypatch):
    lowered = []
    real = te.lower

    def compiled(program):
        p = real(program)
        assert native.compile(p)      # found among those compiled: no compiler run
        assert p.tier == "native"
        lowered.append(p)
        return p

    monkeypatch.setattr(te, "lower", compiled)
    for thunk in engine_suite():
        thunk()
    assert len(lowered) == compiled_suite > 1000


SCALAR = [c for c in CASES if "scalar" in c.tags]


def _corpus_pairs():
    pairs = []
    for case in SCALAR:
        try:
            en = revsrc.value_and_grad(case.fn, case.argnums, backend="engine")
            want = en(*case.args, **case.kwargs)
        except revsrc.errors.EngineUnavailable:
            continue
        py = revsrc.value_and_grad(case.fn, case.argnums, backend="python")
        pairs.append((case, en, py, want))
    return pairs


def _same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a.hex() == b.hex() or (math.isnan(a) and math.isnan(b))
    return a == b and type(a) is type(b)


def test_scalar_corpus_compiled_matches_python_bit_for_bit():
    pairs = _corpus_pairs()
    assert len(pairs) >= 0.8 * len(SCALAR)
    programs = [p for _, en, _, _ in pairs for _, p, _ in en.programs]
    assert native.compile_many(programs)
    for case, en, py, vm in pairs:
        assert all(p.tier == "native" for _, p, _ in en.programs), case.id
        got = en(*case.args, **case.kwargs)
        assert _same(got, vm), (case.id, got, vm)
        assert _same(got, py(*case.args, **case.kwargs)), case.id


# ----- Pauses, threads and the hand-over from the VM -----

def test_a_run_paused_on_the_vm_finishes_compiled():
    """A long run that started on the VM continues in the compiled code from the
    pause after the native tier arrives, with the VM's result."""
    p = engine.lower(te.recurrence_grad_program(3_000_000))
    want = engine.lower(te.recurrence_grad_program(3_000_000))
    assert native.compile(want)
    expected = want.run((0.3,))
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", p.run((0.3,))))
    t.start()
    time.sleep(0.05)
    assert p.busy                               # paused once at least, GIL released
    assert native.compile(p)                    # the same code: found loaded already
    t.join()
    assert p.tier == "native"
    assert out["r"] == expected
    assert p.stats()["loop_iterations"] == 6_000_000


def test_compiled_runs_pause_for_signals():
    p = engine.lower(te.spin_program(limit=3e7))
    assert native.compile(p)
    before = p.stats()["loop_iterations"]
    assert p.run((0.0,)) == (3e7,)
    # the compiled loop counted its iterations as the VM does (and paused on the way)
    assert p.stats()["loop_iterations"] - before == 30_000_000


def test_hot_programs_compile_in_the_background(monkeypatch):
    monkeypatch.setenv("REVSRC_NATIVE", "1")
    monkeypatch.setenv("REVSRC_NATIVE_AFTER", "5000")

    def walk(x, n):
        for i in range(n):
            x = x + 0.5 * math.sin(x + i)
        return x

    d = revsrc.grad(walk)
    first = d(0.2, 100)
    (_, prog, _), = d.programs
    assert prog.tier == "vm"
    for _ in range(60):
        d(0.2, 100)
    assert native.wait(timeout=60)
    assert prog.tier == "native"
    assert d(0.2, 100) == first == revsrc.grad(walk, backend="python")(0.2, 100)


def test_the_tier_is_off_with_the_environment_variable(monkeypatch):
    monkeypatch.setenv("REVSRC_NATIVE", "0")
    monkeypatch.setenv("REVSRC_NATIVE_AFTER", "10")

    def sq(x):
        return x * x

    d = revsrc.grad(sq)
    for _ in range(50):
        d(1.5)
    assert not native.compile(d.programs[0][1])
    assert d.programs[0][1].tier == "vm" and native.wait(timeout=5)


# ----- The disk cache, and life without a compiler -----

_CHILD = textwrap.dedent("""
    import math, subprocess, sys, warnings
    sys.path[:0] = [{root!r}]
    caught = []
    warnings.showwarning = lambda message, category, *rest: caught.append(category)
    warnings.simplefilter("always")
    import revsrc
    from revsrc.backends.engine import native

    def f(x):
        s = 0.0
        for i in range(20):
            s = s + math.cos(x * i + 0.25)
        return s

    d = revsrc.grad(f)
    vm = d(0.4)
    if sys.argv[1] == "forbid":
        def no_compiler(*args, **kwargs):
            raise AssertionError("the compiler ran")
        subprocess.run = no_compiler
    if sys.argv[1] == "none":
        ok = native.compile(d.programs[0][1]) or native.compile(d.programs[0][1])
        dx = revsrc.grad(lambda x: x * x)
        for _ in range(3):
            dx(2.0)
        assert d(0.4) == vm
        print(ok, d.programs[0][1].tier, len(caught), caught[0].__name__)
    else:
        assert native.compile(d.programs[0][1])
        assert d.programs[0][1].tier == "native" and d(0.4) == vm
        print("native", len(caught))
""")


def _child(tmp_path, how, env):
    root = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(root=root))
    return subprocess.run([sys.executable, str(script), how], capture_output=True, text=True,
                          env=dict(os.environ, **env), timeout=120)


def test_a_second_process_loads_the_cached_library(tmp_path):
    env = {"REVSRC_CACHE_DIR": str(tmp_path / "cache")}
    first = _child(tmp_path, "build", env)
    assert first.returncode == 0, first.stderr
    assert len(list((tmp_path / "cache" / "native").glob("*.so"))) == 1
    second = _child(tmp_path, "forbid", env)   # subprocess.run raises if called
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["native", "0"]


def test_without_a_compiler_the_vm_runs_after_one_warning(tmp_path):
    env = {"REVSRC_CACHE_DIR": str(tmp_path / "cache"), "PATH": str(tmp_path),
           "CC": "", "REVSRC_NATIVE_AFTER": "1"}
    done = _child(tmp_path, "none", env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "vm", "1", "NativeTierWarning"]
