"""One of BENCHMARKS.md's sections on issues 24 and 25, measured in a process of its own:

    python bench/sections_child.py SECTION OUT.json

SECTION is ``small_arrays``, ``first_calls``, ``batching`` or ``lanes``. Each reuses its
pytest-benchmark module's workloads, checks and interleaved timing (bench/test_*_bench.py),
and writes what it measured as JSON for bench/sections.py, which makes the tables.

The bench module is loaded only in the section's own process: test_lanes_bench sets
REVSRC_NATIVE=sync when it is imported, which would change the other sections' first
calls, and the JAX-using modules should not share a process with each other's threads.
"""

import importlib
import json
import os
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import pytest  # noqa: E402
import vs_frameworks as vf  # noqa: E402

MODULES = {"small_arrays": "test_small_arrays_bench", "first_calls": "test_first_call_bench",
           "batching": "test_batching_bench", "lanes": "test_lanes_bench"}


def small_arrays(bench):
    """{workload: {"best_ms": {row: ms}, "first_ms": {row: ms}}}: compile+first of each
    row after revsrc's and JAX's process-wide start-up, then the rows' interleaved best."""
    out = {}
    for workload, rows in bench.ROWS.items():
        fns, first = rows()
        out[workload] = {"best_ms": bench._best(fns), "first_ms": first}
    return out


def first_calls(bench):
    """test_first_call_bench.measure: min and median over fresh interpreters (ms)."""
    runs = int(os.environ.get("REVSRC_FIRST_CALL_RUNS", "7"))
    with tempfile.TemporaryDirectory() as tmp:
        out = bench.measure(tmp, runs)
    out["runs"] = runs
    return out


def batching(bench):
    """{"best_ms", "first_ms"}: {"group/row": ms} of test_batching_bench's rows, and its
    targets as [label, row, against, limit]."""
    best, first = bench.measure_ratios()
    return {"best_ms": {"/".join(k): v * 1e3 for k, v in best.items()},
            "first_ms": {"/".join(k): v * 1e3 for k, v in first.items()},
            "targets": [[f"{g}: {a} / {b}", f"{g}/{a}", f"{g}/{b}", limit]
                        for g, a, b, limit in bench.TARGETS]}


def lanes(bench):
    """The same for test_lanes_bench's rows (Newton lanes, jit(newton_all))."""
    best = bench.measure_ratios()
    return {"best_ms": {k: v * 1e3 for k, v in best.items()}, "first_ms": dict(bench.FIRST_MS),
            "targets": [[label, a, b, limit] for label, (a, b, limit) in bench.RATIOS.items()]}


SECTIONS = {"small_arrays": small_arrays, "first_calls": first_calls, "batching": batching,
            "lanes": lanes}


def main(section, out_path):
    warnings.filterwarnings("ignore")
    if section != "first_calls":     # start-up paid first: compile+first is per function
        vf.warm_up("revsrc")
        vf.warm_up("jax.jit")
    try:
        bench = importlib.import_module(MODULES[section])
        result = SECTIONS[section](bench)
    except (Exception, pytest.skip.Exception) as exc:   # JAX or gcc missing: no rows
        result = {"error": vf._short_error(exc)}
    with open(out_path, "w") as fh:
        json.dump(result, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
