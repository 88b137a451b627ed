"""Peak memory and time of a checkpointed long loop (memory=, issue 26) against the
stored gradient, each measured in a fresh process.

    python -m pytest -q -s bench/test_checkpoint_bench.py

Each child process makes the derivative, calls it once on a short loop (compiling
it), records its peak resident set (ru_maxrss), then runs the long loop and reports
the growth of that peak and the time. The assertions are on what must hold on any
machine (the same bits, and checkpointing using less memory); the figures are printed.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

CHILD = r"""
import json, math, resource, sys, time
import revsrc

def recurrence(x, n):
    s = x
    for i in range(n):
        if s > 0.5:
            s = math.sin(s) * 1.1 + 1e-9 * i
        else:
            s = s * s + 0.3
    return s

def growth(x, n):
    # a while loop: about n steps, a count nobody knows in advance
    s = x
    while s < n:
        if s > 0.5:
            s = s + math.sin(s) * 0.5 + 1.0
        else:
            s = s * 1.5 + 0.3
    return s

fn, backend, memory, n = sys.argv[1:4] + [int(sys.argv[4])]
df = revsrc.grad(globals()[fn], backend=backend,
                 memory=None if memory == "none" else memory)
df(0.3, 1000)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
g = df(0.3, n)
seconds = time.perf_counter() - t
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grad": g.hex(), "seconds": seconds,
                  "growth_mb": (after - before) / 1024.0}))
"""


def _run(fn, backend, memory, n, tmp_path):
    # a file, not -c: revsrc reads the function's source
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(script), fn, backend, memory, str(n)],
                         capture_output=True, text=True, env=env, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("fn, backend, n", [("recurrence", "engine", 10 ** 7),
                                           ("recurrence", "python", 10 ** 6),
                                           ("growth", "engine", 10 ** 7),
                                           ("growth", "python", 10 ** 6)])
def test_long_loop_peak_memory(fn, backend, n, tmp_path):
    stored = _run(fn, backend, "none", n, tmp_path)
    ck = _run(fn, backend, "32MB", n, tmp_path)
    print(f"\n{fn}, {backend}, {n} steps: stored {stored['growth_mb']:.1f} MB in "
          f"{stored['seconds']:.3f} s; memory='32MB' {ck['growth_mb']:.1f} MB in "
          f"{ck['seconds']:.3f} s ({ck['seconds'] / stored['seconds']:.2f}x)")
    assert ck["grad"] == stored["grad"]
    assert ck["growth_mb"] < stored["growth_mb"]
