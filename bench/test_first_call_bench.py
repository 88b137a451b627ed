"""First calls in a fresh process: ``import revsrc``, then one derivative built and called.

    pytest bench/test_first_call_bench.py --benchmark-only -s

What a script that differentiates one function once pays, measured where nothing is
loaded or cached yet: each figure comes from its own new interpreter (``python -c``),
the minimum (and, as ``*_median``, the median) of several (``REVSRC_FIRST_CALL_RUNS``,
default 7; use 20 or more on a machine busy with other work), timed with
``time.perf_counter`` inside it:

- ``import_ms``: ``import revsrc`` after ``import numpy`` (and, from
  ``python -X importtime``, revsrc's cumulative import time);
- ``recurrence_ms``: ``revsrc.grad`` of the 1,000-step scalar recurrence
  (bench/workloads.py), built and called once;
- ``rk4_ms``: the same for a 400-step RK4 integration of a scalar ODE;
- ``mlp_ms``: the same for the MLP loss (bench/workloads.py).

Each is given as wall time and as the process's CPU time (``*_cpu_ms``, from
``time.process_time``: what a machine busy with other work still measures fairly).
The figures go to the benchmark's extra_info and are printed as a table; nothing is
asserted about them (they depend on the machine and on what else runs on it). One
interpreter is started first, untimed, so that the bytecode caches are written.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

RK4 = textwrap.dedent('''
    import math


    def rk4_400(k):
        """y' = -k y + sin(y), from y = 1 over 400 steps of 0.01: y(4)."""
        y = 1.0
        h = 0.01
        for i in range(400):
            k1 = -k * y + math.sin(y)
            y2 = y + 0.5 * h * k1
            k2 = -k * y2 + math.sin(y2)
            y3 = y + 0.5 * h * k2
            k3 = -k * y3 + math.sin(y3)
            y4 = y + h * k3
            k4 = -k * y4 + math.sin(y4)
            y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        return y
''')

CHILD = textwrap.dedent('''
    import sys, time, json
    sys.path[:0] = [sys.argv[1], sys.argv[2], sys.argv[3]]
    case = sys.argv[4]
    t0 = time.perf_counter()
    import numpy
    t1, c1 = time.perf_counter(), time.process_time()
    import revsrc
    t2, c2 = time.perf_counter(), time.process_time()
    out = {"import_ms": (t2 - t1) * 1e3, "import_cpu_ms": (c2 - c1) * 1e3}
    if case != "import":
        import workloads, first_call_rk4
        if case == "recurrence":
            f, args = workloads.recurrence_n, (0.3, 1000)
        elif case == "rk4":
            f, args = first_call_rk4.rk4_400, (0.7,)
        else:
            f, args = workloads.mlp_loss, workloads.mlp_data()
        t, c = time.perf_counter(), time.process_time()
        g = revsrc.grad(f)(*args)
        out[case + "_ms"] = (time.perf_counter() - t) * 1e3
        out[case + "_cpu_ms"] = (time.process_time() - c) * 1e3
    print(json.dumps(out))
''')

CASES = ("import", "recurrence", "rk4", "mlp")


def _env():
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # a user's import reads cached bytecode
    return env


def _child(case, workdir):
    r = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(HERE), str(workdir), case],
                       capture_output=True, text=True, env=_env(), cwd=str(workdir),
                       check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def _importtime(workdir):
    """revsrc's cumulative time in ``python -X importtime`` (microseconds -> ms)."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-c",
                        f"import sys; sys.path.insert(0, {str(ROOT)!r}); import numpy, revsrc"],
                       capture_output=True, text=True, env=_env(), cwd=str(workdir),
                       check=True)
    m = re.search(r"import time:\s+\d+ \|\s+(\d+) \| revsrc$", r.stderr, re.M)
    return int(m.group(1)) / 1e3 if m else None


def measure(workdir, runs):
    (Path(workdir) / "first_call_rk4.py").write_text(RK4)
    for case in CASES:   # untimed: writes the bytecode caches
        _child(case, workdir)
    seen = {}
    for _ in range(runs):
        for case in CASES:
            for k, v in _child(case, workdir).items():
                if k.startswith("import") and case != "import":
                    continue
                seen.setdefault(k, []).append(v)
    seen["importtime_ms"] = [t for t in (_importtime(workdir) for _ in range(runs))
                             if t is not None]
    best = {k: min(v) for k, v in seen.items()}
    best.update({k + "_median": statistics.median(v) for k, v in seen.items()})
    return best


def test_first_call(benchmark, tmp_path):
    runs = int(os.environ.get("REVSRC_FIRST_CALL_RUNS", "7"))
    benchmark.group = "first call in a fresh process"
    result = benchmark.pedantic(measure, args=(tmp_path, runs), rounds=1, iterations=1)
    benchmark.extra_info.update({k: round(v, 2) for k, v in result.items()})
    benchmark.extra_info["runs"] = runs
    print(f"\nfirst calls in fresh processes ({runs} runs, ms: min / median)")
    print(f"  {'':<12} {'wall':>17} {'cpu':>17}")
    for case in CASES:
        w, c = case + "_ms", case + "_cpu_ms"
        print(f"  {case:<12} {result[w]:8.2f} {result[w + '_median']:8.2f} "
              f"{result[c]:8.2f} {result[c + '_median']:8.2f}")
    print(f"  {'importtime':<12} {result['importtime_ms']:8.2f} "
          f"{result['importtime_ms_median']:8.2f}   (python -X importtime, revsrc cumulative)")
    assert set(result) >= {"import_ms", "recurrence_ms", "rk4_ms", "mlp_ms"}
