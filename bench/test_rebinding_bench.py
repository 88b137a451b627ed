"""What the guards against rebound names cost per call (issue 22).

    pytest bench/test_rebinding_bench.py --benchmark-only

A derivative checks, before each call, that every name its program took as fixed
still holds what it held (revsrc/_guards.pxi). ``guarded`` reaches math.exp and
math.cos through two globals of this module, each guarded; ``direct`` calls them
through ``math``, whose attributes are guarded in math's dict since round 12 (a test
may monkeypatch math.sin). Both compute the same numbers; the target is the
same as for test_engine_bench.test_call_overhead_dg_vs_g: dg(x) within 1.5x of g(x).
"""
import math
import time

import revsrc

DECAY = math.exp
WAVE = math.cos


def direct(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


def guarded(x):
    return DECAY(-x * x) * WAVE(3.0 * x)


def _interleaved(thunks, number=2000, rounds=40):
    """Best time per call of each thunk, measured in turn round after round, so that the
    machine's load weighs on all of them alike (ratios from the same run)."""
    best = [math.inf] * len(thunks)
    clock = time.perf_counter
    for _ in range(rounds):
        for k, fn in enumerate(thunks):
            t = clock()
            for _ in range(number):
                fn()
            best[k] = min(best[k], (clock() - t) / number)
    return best


def _compiled(f):
    from revsrc.backends.engine import native
    dg = revsrc.value_and_grad(f, backend="engine")
    dg(0.3)
    for _, program, _ in dg.programs:
        native.compile(program)
    return dg


def test_guards_per_call(benchmark):
    dg_direct, dg_guarded = _compiled(direct), _compiled(guarded)
    assert {"DECAY", "WAVE"} <= {d[1] for d in dg_guarded.deps}
    assert {"exp", "cos"} <= {d[1] for d in dg_direct.deps}
    t_direct, t_guarded, t_g = _interleaved([lambda: dg_direct(0.3),
                                             lambda: dg_guarded(0.3),
                                             lambda: guarded(0.3)])
    ratio = t_guarded / t_g
    benchmark.extra_info.update(dg_guarded_ns=t_guarded * 1e9, dg_direct_ns=t_direct * 1e9,
                                g_ns=t_g * 1e9, ratio=ratio)
    print(f"\ndg(0.3) through 2 globals {t_guarded * 1e9:.0f} ns, through math "
          f"{t_direct * 1e9:.0f} ns, "
          f"g(0.3) {t_g * 1e9:.0f} ns: ratio {ratio:.2f} (target 1.5)")
    benchmark(dg_guarded, 0.3)
    assert ratio < 3.0


def test_guards_when_globals_are_written(benchmark):
    # a loop at a module's top level writes its globals on every turn: each guard
    # is then looked up again (a dict lookup) rather than skipped
    dg = _compiled(guarded)
    namespace = globals()

    def written():
        namespace["_turn"] = 0
        return dg(0.3)

    def unwritten():
        namespace.get("_turn")
        return dg(0.3)
    t_written, t_unwritten = _interleaved([written, unwritten])
    benchmark.extra_info.update(written_ns=t_written * 1e9, unwritten_ns=t_unwritten * 1e9)
    print(f"\ndg(0.3) after a write to its globals {t_written * 1e9:.0f} ns, "
          f"without {t_unwritten * 1e9:.0f} ns")
    benchmark(written)


def tiny(x):
    return math.sin(x) * x


def test_guards_of_function_and_library(benchmark):
    # round 12: a function's own __code__/__defaults__/__kwdefaults__ (three identity
    # checks), the global ``math`` and math.sin (a dict version each) are guarded; the
    # same derivative timed with those guards and with none, in turn
    dg = _compiled(tiny)
    deps = dg.deps
    assert len(deps) == 3

    best = {"with": math.inf, "without": math.inf}
    for _ in range(40):                  # in turn, as `_interleaved`, set once a round
        for name, held in (("with", deps), ("without", [])):
            dg.deps = held
            t = time.perf_counter()
            for _ in range(2000):
                dg(0.3)
            best[name] = min(best[name], (time.perf_counter() - t) / 2000)
    t_with, t_without = best["with"], best["without"]
    dg.deps = deps
    benchmark.extra_info.update(with_ns=t_with * 1e9, without_ns=t_without * 1e9)
    print(f"\ndg(0.3) with its 3 guards {t_with * 1e9:.0f} ns, without {t_without * 1e9:.0f} ns "
          f"(+{(t_with - t_without) * 1e9:.1f} ns)")
    benchmark(dg, 0.3)
