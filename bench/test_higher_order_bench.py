"""Second derivatives: revsrc against jax.jit(jax.hessian) and torch.func.hessian.

    pytest bench/test_higher_order_bench.py --benchmark-only

The same three workloads as BENCHMARKS.md's second-derivative tables (built by
bench/frameworks.py), one benchmark group each, every framework checked against
central differences of the gradient before it is timed:

- ``hessian_recurrence``: d^2/dx^2 of the 1,000-step data-dependent recurrence
  (revsrc: forward over reverse, on the compiled engine);
- ``hessian_mlp``: the Hessian of the MLP loss with respect to its bias b1 (128 x 128);
- ``hvp_mlp``: a Hessian-vector product of the MLP loss with respect to W1 (128 x 128),
  without forming the Hessian.

``compile+first`` (building the derivative and calling it once) is in extra_info.
"""
import importlib.util
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if importlib.util.find_spec("revsrc") is None:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))

import frameworks as fw  # noqa: E402
import workloads as wl  # noqa: E402

FRAMEWORKS = ("revsrc", "jax.jit", "torch.func")
WORKLOADS = ("hessian_recurrence", "hessian_mlp", "hvp_mlp")
_DATA = {}


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("workload", WORKLOADS)
def test_second_derivative(benchmark, workload, framework):
    ok, reason = fw.available(framework)
    if not ok:
        pytest.skip(reason)
    if workload not in _DATA:
        data = wl.WORKLOADS[workload][1]()
        _DATA[workload] = data, fw.oracle(workload, data)
    data, ref = _DATA[workload]
    t0 = time.perf_counter()
    fn = fw.REGISTRY[(workload, framework)](data)
    first = fn()
    compile_first = time.perf_counter() - t0
    fw.check(workload, framework, first, data, ref=ref)
    benchmark.group = workload
    benchmark.extra_info["compile_first_ms"] = compile_first * 1e3
    once = time.perf_counter()
    fn()
    once = time.perf_counter() - once
    if once > 0.05:
        benchmark.pedantic(fn, rounds=max(1, min(5, int(1.5 / once))), iterations=1)
    else:
        benchmark(fn)
