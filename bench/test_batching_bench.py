"""Batching: revsrc.vmap of a derivative, and Jacobians / Hessians by batched tangents,
against their jitted JAX twins and against a Python loop of revsrc.grad calls.

    pytest bench/test_batching_bench.py --benchmark-only

- ``per_example_grads``: the gradient of an MLP loss per example, over a batch of 256
  (``vmap(grad(loss), in_axes=(None, 0, 0))``; JAX: ``jax.jit(jax.vmap(jax.grad))``);
- ``hessian_bias``: the full Hessian of an MLP loss (64 x 32 inputs, 128 hidden, 8
  outputs) with respect to its 128-vector bias (JAX: ``jax.jit(jax.hessian)``);
- ``hvp_bias``: one Hessian-vector product of that loss (JAX: ``jax.jit`` of
  jvp-of-grad);
- ``jacfwd64``, ``jacrev64``: the Jacobians of an array function with 64 outputs.

Every case is checked against the loop of revsrc.grad calls (or JAX) before it is
timed; ``compile+first`` is in extra_info. ``test_ratios`` times every row in one run,
interleaved (a loaded machine drifts between groups), and prints the ratios against
issue 25's targets (the Newton lanes' are in test_lanes_bench.py):

    pytest bench/test_batching_bench.py -k ratios -s
"""
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("revsrc") is None:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))

import revsrc  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:       # pragma: no cover
    jax = None

RNG = np.random.default_rng(0)
D_IN, HIDDEN, D_OUT, BATCH = 32, 128, 8, 256
PARAMS = (RNG.normal(size=(D_IN, HIDDEN)) * 0.2, RNG.normal(size=HIDDEN) * 0.1,
          RNG.normal(size=(HIDDEN, D_OUT)) * 0.2, RNG.normal(size=D_OUT) * 0.1)
XB, YB = RNG.normal(size=(BATCH, D_IN)), RNG.normal(size=(BATCH, D_OUT))
X64, Y64 = RNG.normal(size=(64, D_IN)), RNG.normal(size=(64, D_OUT))
A64 = RNG.normal(size=(64, 48)) * 0.3


def loss(params, x, y):
    W1, b1, W2, b2 = params
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2 + b2 - y) ** 2)


def bias_loss(b):
    h = np.tanh(X64 @ PARAMS[0] + b)
    return np.mean((h @ PARAMS[2] - Y64) ** 2)


def outputs64(x):
    return np.tanh(A64 @ x) * np.sum(x * x)


def _jax_fns():
    W1, _, W2, _ = (jnp.asarray(p) for p in PARAMS)
    xj, yj, aj = jnp.asarray(X64), jnp.asarray(Y64), jnp.asarray(A64)

    def loss_j(params, x, y):
        W1_, b1, W2_, b2 = params
        h = jnp.tanh(x @ W1_ + b1)
        return jnp.mean((h @ W2_ + b2 - y) ** 2)

    def bias_j(b):
        return jnp.mean((jnp.tanh(xj @ W1 + b) @ W2 - yj) ** 2)

    def out_j(x):
        return jnp.tanh(aj @ x) * jnp.sum(x * x)
    return loss_j, bias_j, out_j


def _cases():
    g = revsrc.grad(loss)
    x48 = RNG.normal(size=48)
    b = RNG.normal(size=HIDDEN) * 0.1
    v = RNG.normal(size=HIDDEN)
    cases = {
        ("per_example_grads", "revsrc.vmap"):
            lambda: revsrc.vmap(g, in_axes=(None, 0, 0))(PARAMS, XB, YB),
        ("per_example_grads", "python loop of revsrc.grad"):
            lambda: tuple(np.stack(c) for c in zip(*[g(PARAMS, XB[i], YB[i])
                                                      for i in range(BATCH)])),
        ("hessian_bias", "revsrc"): lambda: revsrc.hessian(bias_loss)(b),
        ("hvp_bias", "revsrc"): lambda: revsrc.hvp(bias_loss, (b,), (v,)),
        ("jacfwd64", "revsrc"): lambda: revsrc.jacfwd(outputs64)(x48),
        ("jacrev64", "revsrc"): lambda: revsrc.jacrev(outputs64)(x48),
    }
    if jax is not None:
        loss_j, bias_j, out_j = _jax_fns()
        pe = jax.jit(jax.vmap(jax.grad(loss_j), in_axes=(None, 0, 0)))
        hj, jf, jr = jax.jit(jax.hessian(bias_j)), jax.jit(jax.jacfwd(out_j)), \
            jax.jit(jax.jacrev(out_j))
        hv = jax.jit(lambda b_, v_: jax.jvp(jax.grad(bias_j), (b_,), (v_,))[1])
        pj = tuple(jnp.asarray(p) for p in PARAMS)
        xbj, ybj, bj, xj, vj = (jnp.asarray(a) for a in (XB, YB, b, x48, v))
        cases.update({
            ("per_example_grads", "jax.jit(vmap(grad))"):
                lambda: jax.block_until_ready(pe(pj, xbj, ybj)),
            ("hessian_bias", "jax.jit(hessian)"): lambda: jax.block_until_ready(hj(bj)),
            ("hvp_bias", "jax.jit(jvp(grad))"): lambda: jax.block_until_ready(hv(bj, vj)),
            ("jacfwd64", "jax.jit(jacfwd)"): lambda: jax.block_until_ready(jf(xj)),
            ("jacrev64", "jax.jit(jacrev)"): lambda: jax.block_until_ready(jr(xj)),
        })
    return cases


CASES = _cases()
_FIRST = {}


def _check(group, value):
    """Every framework's value equal (to 1e-9) to the first one's of its group."""
    flat = [np.asarray(v, dtype=float) for v in (value if isinstance(value, tuple)
                                                 else (value,))]
    ref = _FIRST.setdefault(group, flat)
    for a, b in zip(ref, flat):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("key", sorted(CASES), ids=["/".join(k) for k in sorted(CASES)])
def test_batching(benchmark, key):
    group, _ = key
    t0 = time.perf_counter()
    value = CASES[key]()
    compile_first = time.perf_counter() - t0
    _check(group, value)
    benchmark.group = group
    benchmark.extra_info["compile_first_ms"] = compile_first * 1e3
    benchmark(CASES[key])


# issue 25's targets: (group, revsrc's row, the row it is measured against, target)
TARGETS = [
    ("per_example_grads", "revsrc.vmap", "jax.jit(vmap(grad))", 1.0),
    ("per_example_grads", "revsrc.vmap", "python loop of revsrc.grad", 0.5),
    ("hessian_bias", "revsrc", "jax.jit(hessian)", 1.0),
    ("hvp_bias", "revsrc", "jax.jit(jvp(grad))", 1.0),
    ("jacfwd64", "revsrc", "jax.jit(jacfwd)", 1.0),
    ("jacrev64", "revsrc", "jax.jit(jacrev)", 1.0),
]


def _best(fn, seconds=0.05, at_least=3):
    best, spent, calls = float("inf"), 0.0, 0
    while spent < seconds or calls < at_least:
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        best, spent, calls = min(best, dt), spent + dt, calls + 1
    return best


def measure_ratios(rounds=5):
    """({row key: best seconds}, {row key: compile+first seconds}): every row's value
    checked first, then all timed in interleaved rounds."""
    first = {}
    for key, fn in CASES.items():                  # compile+first, then the same values
        t = time.perf_counter()
        value = fn()
        first[key] = time.perf_counter() - t
        _check(key[0], value)
    best = {key: float("inf") for key in CASES}
    for _ in range(rounds):                        # interleaved rounds
        for key, fn in CASES.items():
            best[key] = min(best[key], _best(fn))
    return best, first


def test_ratios():
    if jax is None:
        pytest.skip("JAX is not installed")
    best, first = measure_ratios()
    print()
    for key in sorted(CASES):
        print(f"{'/'.join(key):50s} {best[key] * 1e3:9.3f} ms   compile+first "
              f"{first[key] * 1e3:7.1f} ms")
    for group, a, b, target in TARGETS:
        r = best[group, a] / best[group, b]
        print(f"{group:18s} {a} / {b:28s} {r:6.2f}x  (target <= {target}x"
              f"{'' if r <= target else ', missed'})")
