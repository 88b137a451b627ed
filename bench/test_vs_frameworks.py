"""revsrc against JAX, PyTorch, HIPS autograd, central differences and a C reference.

    pytest bench/test_vs_frameworks.py --benchmark-only

Each workload is one benchmark group, so its frameworks print side by side. Frameworks
that are not installed are skipped (without the compare extra only revsrc and central
differences run). Every gradient is checked against central differences (and against
revsrc's, once revsrc works) before it is timed; a mismatch fails the test.
Subsampled cells (Newton with HIPS autograd) time the subsample: see extra_info["scale"].
"""

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if importlib.util.find_spec("revsrc") is None:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))

import frameworks as fw  # noqa: E402
import workloads as wl  # noqa: E402

CELLS = sorted(fw.REGISTRY, key=lambda k: (list(wl.WORKLOADS).index(k[0]), k[1]))

_data_cache = {}
_revsrc_cache = {}


def _data(workload):
    if workload not in _data_cache:
        _data_cache[workload] = wl.WORKLOADS[workload][1]()
    return _data_cache[workload]


def _revsrc_gradient(workload):
    """revsrc's own gradient for the cross-check, or None while revsrc cannot run it."""
    if workload not in _revsrc_cache:
        _revsrc_cache[workload] = None
        make = fw.REGISTRY.get((workload, "revsrc"))
        if make is not None and wl.WORKLOADS[workload][3] != "newton":
            try:
                _revsrc_cache[workload] = make(_data(workload))()
            except Exception:  # revsrc's own cell reports it
                pass
    return _revsrc_cache[workload]


@pytest.mark.parametrize(("workload", "framework"), CELLS, ids=[f"{w}-{f}" for w, f in CELLS])
def test_gradient(benchmark, workload, framework):
    ok, reason = fw.available(framework)
    if not ok:
        pytest.skip(reason)
    data = _data(workload)
    try:
        fn = fw.REGISTRY[(workload, framework)](data)
    except fw.Unavailable as exc:
        pytest.skip(str(exc))
    first = fn()
    fw.check(workload, framework, first, data, revsrc_result=_revsrc_gradient(workload))

    benchmark.group = workload
    benchmark.extra_info["note"] = fn.note
    benchmark.extra_info["scale"] = fn.scale
    import time

    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    if once > 0.05:
        # Slow cells (eager JAX on loops, Newton in a Python loop): a few rounds, not seconds of them.
        rounds = max(1, min(5, int(1.5 / once)))
        result = benchmark.pedantic(fn, rounds=rounds, iterations=1, warmup_rounds=0)
    else:
        result = benchmark(fn)
    fw.check(workload, framework, result, data)
