"""Second derivatives: revsrc against jax.jit(jax.hessian) and torch.func.hessian.

    pytest bench/test_higher_order_bench.py --benchmark-only

Three workloads, one benchmark group each, every framework checked against revsrc's
result before it is timed:

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

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if importlib.util.find_spec("revsrc") is None:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))

import workloads as wl  # noqa: E402

import revsrc  # noqa: E402

FRAMEWORKS = ("revsrc", "jax.jit", "torch.func")
WORKLOADS = ("hessian_recurrence", "hessian_mlp", "hvp_mlp")
_V = np.random.default_rng(5).standard_normal((128, 128))


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax, jax.numpy


def _torch():
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    return torch


def _revsrc(workload):
    if workload == "hessian_recurrence":
        d2 = revsrc.hessian(wl.recurrence)
        return lambda: d2(0.3)
    W1, x, b1, W2, y = wl.mlp_data()
    if workload == "hessian_mlp":
        h = revsrc.hessian(wl.mlp_loss, argnums=2)
        return lambda: h(W1, x, b1, W2, y)
    return lambda: revsrc.hvp(wl.mlp_loss, (W1, x, b1, W2, y), (_V, None, None, None, None))


def _jax_fn(workload):
    jax, jnp = _jax()
    if workload == "hessian_recurrence":
        def step(i, x):
            return jnp.where(x > 1.0, x - 0.002 * jnp.sin(x) * x,
                             x + 0.003 * jnp.cos(x) + 0.001 * x * x)

        def rec(x):
            return jax.lax.fori_loop(0, 1000, step, x)
        h = jax.jit(jax.hessian(rec))
        x0 = jnp.asarray(0.3)
        return lambda: float(h(x0).block_until_ready())
    W1, x, b1, W2, y = [jnp.asarray(a) for a in wl.mlp_data()]

    def loss(W1, b1):
        hid = jnp.tanh(x @ W1 + b1)
        d = hid @ W2 - y
        return jnp.sum(d * d) / 64.0
    if workload == "hessian_mlp":
        h = jax.jit(jax.hessian(loss, argnums=1))
        return lambda: np.asarray(h(W1, b1).block_until_ready())
    v = jnp.asarray(_V)
    hvp = jax.jit(lambda W: jax.jvp(jax.grad(loss), (W, b1), (v, jnp.zeros_like(b1)))[1])
    return lambda: np.asarray(hvp(W1).block_until_ready())


def _torch_fn(workload):
    torch = _torch()
    from torch.func import grad, hessian, jvp
    if workload == "hessian_recurrence":
        def rec(x):
            for i in range(1000):
                x = torch.where(x > 1.0, x - 0.002 * torch.sin(x) * x,
                                x + 0.003 * torch.cos(x) + 0.001 * x * x)
            return x
        h = hessian(rec)
        x0 = torch.tensor(0.3)
        return lambda: float(h(x0))
    W1, x, b1, W2, y = [torch.from_numpy(a) for a in wl.mlp_data()]

    def loss(W1, b1):
        hid = torch.tanh(x @ W1 + b1)
        d = hid @ W2 - y
        return torch.sum(d * d) / 64.0
    if workload == "hessian_mlp":
        h = hessian(loss, argnums=1)
        return lambda: h(W1, b1).numpy()
    v = torch.from_numpy(_V)
    g = grad(loss)
    return lambda: jvp(lambda W: g(W, b1), (W1,), (v,))[1].numpy()


_BUILD = {"revsrc": _revsrc, "jax.jit": _jax_fn, "torch.func": _torch_fn}
_REFERENCE = {}


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("workload", WORKLOADS)
def test_second_derivative(benchmark, workload, framework):
    t0 = time.perf_counter()
    fn = _BUILD[framework](workload)
    first = fn()
    compile_first = time.perf_counter() - t0
    if workload not in _REFERENCE:
        _REFERENCE[workload] = _revsrc(workload)()
    np.testing.assert_allclose(np.asarray(first), np.asarray(_REFERENCE[workload]),
                               rtol=1e-7, atol=1e-9)
    benchmark.group = workload
    benchmark.extra_info["compile_first_ms"] = compile_first * 1e3
    once = time.perf_counter()
    fn()
    once = time.perf_counter() - once
    if once > 0.05:
        benchmark.pedantic(fn, rounds=max(1, min(5, int(1.5 / once))), iterations=1)
    else:
        benchmark(fn)
