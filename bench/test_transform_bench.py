"""Transformation time against program length: straight-line functions of 1,000,
2,000 and 4,000 statements.

    pytest bench/test_transform_bench.py --benchmark-only

Each round builds a new function from fresh source text (so no cache of an earlier
round is used), then times ``revsrc.grad(f)`` and its first call: parsing, lowering,
analysis, the reverse transformation, code generation and compilation. The time per
statement is in extra_info; if the transformation is linear it stays about the same
from 1,000 to 4,000 statements (it grew with the square of the length before the
copy propagation was rewritten).
"""
import importlib.util
import itertools
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("revsrc") is None:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))

import revsrc  # noqa: E402

_SERIAL = itertools.count()


def _source(n, name):
    """A function of ``n`` statements over x and y, each reading the last few values."""
    lines = [f"def {name}(x, y):", "    a0 = x * y", "    a1 = math.sin(x) + y",
             "    a2 = a0 * a1"]
    ops = ["a{i} = a{j} * 0.999 + a{k} * 0.001",
           "a{i} = math.tanh(a{j}) + a{k}",
           "a{i} = a{j} - 0.5 * a{k}",
           "a{i} = a{j} * a{k} * 0.5"]
    for i in range(3, n):
        lines.append("    " + ops[i % 4].format(i=i, j=i - 1, k=i - 3))
    lines.append(f"    return a{n - 1}")
    return "import math\n\n\n" + "\n".join(lines) + "\n"


def _fresh_function(n, tmp_path):
    """A function from a new file each time: nothing of it is cached yet."""
    name = f"straight_{n}_{next(_SERIAL)}"
    path = tmp_path / f"{name}.py"
    path.write_text(_source(n, name))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


@pytest.mark.parametrize("n", [1000, 2000, 4000])
def test_transformation_time(benchmark, n, tmp_path):
    benchmark.group = "transformation time"
    fns = []

    def setup():
        fns.append(_fresh_function(n, tmp_path))
        return (fns[-1],), {}

    def transform(f):
        return revsrc.grad(f, argnums=(0, 1))(0.3, 0.7)

    start = time.perf_counter()
    result = benchmark.pedantic(transform, setup=setup, rounds=2, iterations=1)
    benchmark.extra_info["statements"] = n
    benchmark.extra_info["ms_per_statement"] = \
        1e3 * benchmark.stats.stats.min / n if benchmark.stats else None
    benchmark.extra_info["wall_s"] = time.perf_counter() - start
    assert all(isinstance(g, float) for g in result)
