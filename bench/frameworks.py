"""Every (workload, framework) pair as a builder of a zero-argument gradient callable.

`REGISTRY[(workload, framework)]` is a builder `make(data) -> callable`. `data` is the
tuple the workload's data builder in `bench/workloads.py` returns (already built, so
that timing a builder measures only the framework's own set-up: conversion to its
arrays, `revsrc.grad(f)`, `jax.jit(...)`); the callable computes the gradient each time
it is called and returns it (JAX results are `.block_until_ready()`-ed inside).

Optional frameworks (JAX, PyTorch, HIPS autograd, a C compiler) are never imported at
module import; a builder whose framework is missing raises `Unavailable`, and so does a
revsrc builder while `revsrc.grad` does not exist yet (ImportError/AttributeError only;
anything else revsrc raises is a real failure and propagates).

Each builder defines its functions afresh, so building again gives new function objects
and a fresh trace/compile: what "compile + first call" measures.
"""

import functools
import importlib
import importlib.util
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

try:  # run as `python bench/vs_frameworks.py` (bench/ on sys.path) or imported as bench.frameworks
    import by_hand
    import workloads as wl
except ImportError:  # pragma: no cover
    from bench import by_hand
    from bench import workloads as wl

FRAMEWORKS = (
    "revsrc",
    "revsrc_nopool",
    "revsrc_jax",
    "jax.grad",
    "jax.jit",
    "torch.autograd",
    "torch.func",
    "autograd",
    "central_diff",
    "handwritten",
    "numpy_by_hand",
    "c_handwritten",
    "plain",
)

FRAMEWORK_LABELS = {
    "revsrc": "revsrc (grad)",
    "revsrc_nopool": "revsrc (grad), no memory pool",
    "revsrc_jax": "revsrc backend='jax'",
    "jax.grad": "jax.grad (eager)",
    "jax.jit": "jax.jit(jax.grad)",
    "torch.autograd": "torch.autograd (eager backward)",
    "torch.func": "torch.func.grad",
    "autograd": "autograd (HIPS)",
    "central_diff": "central differences (numpy)",
    "handwritten": "hand-written derivative (python)",
    "numpy_by_hand": "hand-written NumPy gradient",
    "c_handwritten": "c_handwritten (gcc -O2)",
    "plain": "g(0.3) plain python",
}

# The package each framework needs, checked with importlib.util.find_spec.
REQUIRES = {
    "revsrc_jax": "jax",
    "jax.grad": "jax",
    "jax.jit": "jax",
    "torch.autograd": "torch",
    "torch.func": "torch",
    "autograd": "autograd",
}


class Unavailable(Exception):
    """The framework (or revsrc.grad itself) is not installed here; the cell is skipped."""


def available(framework):
    """(True, "") or (False, reason) for whether the framework's package can be imported."""
    pkg = REQUIRES.get(framework)
    if pkg is not None and importlib.util.find_spec(pkg) is None:
        return False, f"{pkg} is not installed (pip install revsrc[compare])"
    if framework == "c_handwritten":
        if shutil.which("gcc") is None:
            return False, "gcc not found"
        if c_reference_path() is None:
            return False, "C reference not found (set REVSRC_C_REFERENCE)"
    return True, ""


def case(fn, note="", scale=1.0, n=None):
    """Wrap a gradient callable with its notes and a time scale (for subsampled runs)."""

    def run():
        return fn()

    run.note = note
    run.scale = scale
    run.n = n
    return run


# ----- framework imports, lazily -----


def _revsrc():
    try:
        import revsrc

        return revsrc.grad
    except (ImportError, AttributeError) as exc:
        raise Unavailable(f"revsrc.grad not available yet: {type(exc).__name__}: {exc}") from exc


def _jax():
    if importlib.util.find_spec("jax") is None:
        raise Unavailable("jax is not installed")
    import jax

    # Every framework runs in float64: the comparison and the gradient checks need it.
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    return jax, jnp


def _torch():
    if importlib.util.find_spec("torch") is None:
        raise Unavailable("torch is not installed")
    import torch

    return torch


def _autograd():
    if importlib.util.find_spec("autograd") is None:
        raise Unavailable("autograd is not installed")
    import autograd
    import autograd.numpy as anp

    return autograd, anp


REGISTRY = {}


def register(workload, framework):
    def deco(builder):
        REGISTRY[(workload, framework)] = builder
        return builder

    return deco


# ----- generic builders: revsrc, central differences, plain -----


def _make_revsrc(workload):
    f, _, argnum, _ = wl.WORKLOADS[workload]

    def make(data):
        grad = _revsrc()
        df = grad(f, argnums=argnum)
        return case(lambda: df(*data))

    return make


def _make_central_scalar(workload):
    f, _, argnum, _ = wl.WORKLOADS[workload]

    def make(data):
        return case(lambda: wl.central_difference(f, data, argnum), note="h = 1e-6, 2 evaluations")

    return make


for _w in ("mlp", "conv", "recurrence", "rnn", "logreg", "ode", "call"):
    register(_w, "revsrc")(_make_revsrc(_w))


def _make_revsrc_no_pool(workload):
    """revsrc with its memory pool off (REVSRC_POOL=0), for an A/B in the same run."""
    f, _, argnum, _ = wl.WORKLOADS[workload]

    def make(data):
        grad = _revsrc()
        from revsrc import runtime

        runtime._POOL = False  # this framework's process is its own (see vs_frameworks)
        df = grad(f, argnums=argnum)
        return case(lambda: df(*data), note="memory pool off (REVSRC_POOL=0)")

    return make


for _w in ("conv", "logreg"):
    register(_w, "revsrc_nopool")(_make_revsrc_no_pool(_w))


def _make_revsrc_jax(workload):
    """revsrc's derivative printed against jax.numpy and jitted (backend="jax"), on JAX
    arrays as the jax.jit row gets them."""
    f, _, argnum, _ = wl.WORKLOADS[workload]

    def make(data):
        grad = _revsrc()
        jax, jnp = _jax()
        args = tuple(jnp.asarray(a) for a in data)
        df = grad(f, argnums=argnum, backend="jax")
        return case(lambda: df(*args).block_until_ready(),
                    note="the same adjoint as revsrc (grad), in jnp under jax.jit")

    return make


for _w in ("mlp", "conv", "rnn", "logreg"):
    register(_w, "revsrc_jax")(_make_revsrc_jax(_w))
for _w in ("recurrence", "ode", "call"):
    register(_w, "central_diff")(_make_central_scalar(_w))


@register("call", "plain")
def make_plain_call(data):
    g = wl.g
    return case(lambda: g(*data), note="the primal alone, for scale")


@register("call", "handwritten")
def make_handwritten_call(data):
    return case(lambda: wl.dg_by_hand(*data), note="g' written out by hand in Python")


def _make_numpy_by_hand(workload):
    gradient = by_hand.GRADIENTS[workload]

    def make(data):
        return case(lambda: gradient(*data), note="bench/by_hand.py: the gradient written out "
                                                  "in NumPy, the limit of a NumPy back end")

    return make


for _w in by_hand.GRADIENTS:
    register(_w, "numpy_by_hand")(_make_numpy_by_hand(_w))


# ----- generic JAX / torch / autograd drivers for array workloads -----


def _jax_array_case(loss, data, jit, argnum=0, note=""):
    jax, jnp = _jax()
    args = tuple(jnp.asarray(a) for a in data)
    gf = jax.grad(loss, argnums=argnum)
    if jit:
        gf = jax.jit(gf)
    return case(lambda: gf(*args).block_until_ready(), note=note)


def _torch_array_case(torch, loss, data, argnum=0, note=""):
    args = [torch.from_numpy(np.ascontiguousarray(a)) for a in data]
    p = args[argnum].clone().requires_grad_(True)
    args[argnum] = p

    def run():
        p.grad = None
        loss(*args).backward()
        return p.grad

    return case(run, note=note)


def _torch_func_case(torch, loss, data, argnum=0, note=""):
    args = tuple(torch.from_numpy(np.ascontiguousarray(a)) for a in data)
    gf = torch.func.grad(loss, argnums=argnum)
    return case(lambda: gf(*args), note=note)


def _autograd_case(loss, data, argnum=0, note=""):
    autograd, _ = _autograd()
    gf = autograd.grad(loss, argnum)
    return case(lambda: gf(*data), note=note)


def _scalar_torch(torch, x):
    return torch.tensor(float(x), dtype=torch.float64)


# ----- 1. MLP -----


def _mlp(xp):
    def loss(W1, x, b1, W2, y):
        h = xp.tanh(xp.matmul(x, W1) + b1)
        d = xp.matmul(h, W2) - y
        return xp.sum(d * d) / 64.0

    return loss


@register("mlp", "jax.grad")
def make_jax_grad_mlp(data):
    return _jax_array_case(_mlp(_jax()[1]), data, jit=False)


@register("mlp", "jax.jit")
def make_jax_jit_mlp(data):
    return _jax_array_case(_mlp(_jax()[1]), data, jit=True)


@register("mlp", "torch.autograd")
def make_torch_autograd_mlp(data):
    torch = _torch()
    return _torch_array_case(torch, _mlp(torch), data)


@register("mlp", "torch.func")
def make_torch_func_mlp(data):
    torch = _torch()
    return _torch_func_case(torch, _mlp(torch), data)


@register("mlp", "autograd")
def make_autograd_mlp(data):
    return _autograd_case(_mlp(_autograd()[1]), data)


# ----- 2. im2col convolution -----


def _conv(xp):
    def loss(K, x, ii, jj):
        cols = xp.reshape(x[:, :, ii, jj], (16, 27, 900))
        out = xp.matmul(xp.reshape(K, (8, 27)), cols)
        r = xp.maximum(out, 0.0)
        return xp.sum(r * r)

    return loss


def _conv_torch(torch):
    def loss(K, x, ii, jj):
        cols = torch.reshape(x[:, :, ii, jj], (16, 27, 900))
        out = torch.matmul(torch.reshape(K, (8, 27)), cols)
        r = torch.clamp_min(out, 0.0)
        return torch.sum(r * r)

    return loss


@register("conv", "jax.grad")
def make_jax_grad_conv(data):
    return _jax_array_case(_conv(_jax()[1]), data, jit=False)


@register("conv", "jax.jit")
def make_jax_jit_conv(data):
    return _jax_array_case(_conv(_jax()[1]), data, jit=True)


@register("conv", "torch.autograd")
def make_torch_autograd_conv(data):
    torch = _torch()
    return _torch_array_case(torch, _conv_torch(torch), data, note="clamp_min for np.maximum")


@register("conv", "torch.func")
def make_torch_func_conv(data):
    torch = _torch()
    return _torch_func_case(torch, _conv_torch(torch), data, note="clamp_min for np.maximum")


@register("conv", "autograd")
def make_autograd_conv(data):
    return _autograd_case(_conv(_autograd()[1]), data)


# ----- 3. the data-dependent recurrence -----


def _recurrence_python_if(xp, n=1000):
    """The user's loop with `math` swapped for the framework's sin/cos; the `if` stays Python."""

    def rec(x):
        for i in range(n):
            if x > 1.0:
                x = x - 0.002 * xp.sin(x) * x
            else:
                x = x + 0.003 * xp.cos(x) + 0.001 * x * x
        return x

    return rec


def _jax_recurrence_where(n=1000):
    jax, jnp = _jax()

    def step(i, x):
        return jnp.where(x > 1.0, x - 0.002 * jnp.sin(x) * x, x + 0.003 * jnp.cos(x) + 0.001 * x * x)

    def rec(x):
        return jax.lax.fori_loop(0, n, step, x)

    return rec


def _jax_recurrence_cond(n=1000):
    jax, jnp = _jax()

    def step(i, x):
        return jax.lax.cond(
            x > 1.0,
            lambda x: x - 0.002 * jnp.sin(x) * x,
            lambda x: x + 0.003 * jnp.cos(x) + 0.001 * x * x,
            x,
        )

    def rec(x):
        return jax.lax.fori_loop(0, n, step, x)

    return rec


def _jax_scalar_jit(fn, x, note):
    jax, jnp = _jax()
    gf = jax.jit(jax.grad(fn))
    x = jnp.asarray(float(x))
    return case(lambda: gf(x).block_until_ready(), note=note)


def _jax_scalar_eager(fn, x, note=""):
    jax, jnp = _jax()
    gf = jax.grad(fn)
    x = jnp.asarray(float(x))
    return case(lambda: gf(x).block_until_ready(), note=note)


@register("recurrence", "jax.grad")
def make_jax_grad_recurrence(data):
    return _jax_scalar_eager(_recurrence_python_if(_jax()[1]), data[0], note="Python loop and `if`, no jit")


# Measured on the dev machine (2 cores, jax 0.10): fori_loop + jnp.where was faster than
# fori_loop + lax.cond in steady state; `jax.jit` is the faster, the other is kept as a
# variant for `vs_frameworks.py` to report beside it.
@register("recurrence", "jax.jit")
def make_jax_jit_recurrence(data):
    return _jax_scalar_jit(_jax_recurrence_where(), data[0], note="lax.fori_loop + jnp.where (both branches computed)")


@register("recurrence", "jax.jit[cond]")
def make_jax_jit_cond_recurrence(data):
    return _jax_scalar_jit(_jax_recurrence_cond(), data[0], note="lax.fori_loop + lax.cond")


@register("recurrence", "torch.autograd")
def make_torch_autograd_recurrence(data):
    torch = _torch()
    rec = _recurrence_python_if(torch)
    x = _scalar_torch(torch, data[0]).requires_grad_(True)

    def run():
        x.grad = None
        rec(x).backward()
        return x.grad

    return case(run, note="0-d tensors, Python `if x > 1.0` (a .item() per step)")


@register("recurrence", "torch.func")
def make_torch_func_recurrence(data):
    torch = _torch()
    gf = torch.func.grad(_recurrence_python_if(torch))
    x = _scalar_torch(torch, data[0])
    return case(lambda: gf(x), note="0-d tensors, Python `if`")


@register("recurrence", "autograd")
def make_autograd_recurrence(data):
    autograd, anp = _autograd()
    gf = autograd.grad(_recurrence_python_if(anp))
    return case(lambda: gf(data[0]), note="the plain loop with autograd.numpy sin/cos")


@register("recurrence", "c_handwritten")
def make_c_recurrence(data):
    fn = c_reference_function()
    x = float(data[0])
    return case(lambda: fn(x), note="called through ctypes")


# ----- 4. Newton's method from many starts -----


def _newton_scale(starts):
    return wl.NEWTON_STARTS / len(starts)


def _newton_note(starts, extra=""):
    n = len(starts)
    note = extra
    if n != wl.NEWTON_STARTS:
        note = (note + "; " if note else "") + f"ran {n:,} starts, time scaled x{wl.NEWTON_STARTS / n:g}"
    return note


@register("newton", "revsrc")
def make_revsrc_newton(data):
    (starts,) = data
    grad = _revsrc()
    dg = grad(wl.g)
    return case(lambda: wl.newton(starts, dg), note=_newton_note(starts, "dg = revsrc.grad(g) in a Python loop"),
                scale=_newton_scale(starts), n=len(starts))


@register("newton", "handwritten")
def make_handwritten_newton(data):
    (starts,) = data
    return case(lambda: wl.newton(starts, wl.dg_by_hand), note=_newton_note(starts, "g' by hand, same Python loop"),
                scale=_newton_scale(starts), n=len(starts))


@register("newton", "central_diff")
def make_central_newton(data):
    (starts,) = data

    def dg(x):
        return (wl.g(x + 1e-6) - wl.g(x - 1e-6)) / 2e-6

    return case(lambda: wl.newton(starts, dg), note=_newton_note(starts, "h = 1e-6, same Python loop"),
                scale=_newton_scale(starts), n=len(starts))


def _jax_newton(jit):
    jax, jnp = _jax()

    def g(x):
        return jnp.exp(-x * x) * jnp.cos(3.0 * x)

    dg = jax.vmap(jax.grad(g))

    def newton_all(x):
        for _ in range(wl.NEWTON_STEPS):
            d = dg(x)
            x = jnp.where(d == 0.0, x, x - g(x) / jnp.where(d == 0.0, 1.0, d))
        return x

    return jax.jit(newton_all) if jit else newton_all


@register("newton", "jax.grad")
def make_jax_grad_newton(data):
    (starts,) = data
    _, jnp = _jax()
    fn = _jax_newton(jit=False)
    x = jnp.asarray(starts)
    return case(lambda: fn(x).block_until_ready(), note=_newton_note(starts, "vmap(grad(g)) over all starts, no jit"),
                scale=_newton_scale(starts), n=len(starts))


@register("newton", "jax.jit")
def make_jax_jit_newton(data):
    (starts,) = data
    _, jnp = _jax()
    fn = _jax_newton(jit=True)
    x = jnp.asarray(starts)
    return case(lambda: fn(x).block_until_ready(), note=_newton_note(starts, "jit(vmap(grad(g))), all starts at once"),
                scale=_newton_scale(starts), n=len(starts))


def _torch_g(torch):
    def g(x):
        return torch.exp(-x * x) * torch.cos(3.0 * x)

    return g


def _torch_newton_step(torch, x, d, g):
    return torch.where(d == 0.0, x, x - g(x) / torch.where(d == 0.0, torch.ones_like(d), d))


@register("newton", "torch.autograd")
def make_torch_autograd_newton(data):
    (starts,) = data
    torch = _torch()
    g = _torch_g(torch)
    x0 = torch.from_numpy(np.array(starts))

    def run():
        x = x0
        for _ in range(wl.NEWTON_STEPS):
            xr = x.detach().requires_grad_(True)
            (d,) = torch.autograd.grad(g(xr).sum(), xr)
            x = _torch_newton_step(torch, x, d, g)
        return x

    return case(run, note=_newton_note(starts, "all starts as one tensor, grad of g(x).sum()"),
                scale=_newton_scale(starts), n=len(starts))


@register("newton", "torch.func")
def make_torch_func_newton(data):
    (starts,) = data
    torch = _torch()
    g = _torch_g(torch)
    dg = torch.func.vmap(torch.func.grad(g))
    x0 = torch.from_numpy(np.array(starts))

    def run():
        x = x0
        for _ in range(wl.NEWTON_STEPS):
            x = _torch_newton_step(torch, x, dg(x), g)
        return x

    return case(run, note=_newton_note(starts, "vmap(grad(g)) over all starts"),
                scale=_newton_scale(starts), n=len(starts))


AUTOGRAD_NEWTON_STARTS = 1000


@register("newton", "autograd")
def make_autograd_newton(data):
    (starts,) = data
    autograd, anp = _autograd()

    def g(x):
        return anp.exp(-x * x) * anp.cos(3.0 * x)

    dg = autograd.grad(g)
    sub = starts[:: max(1, len(starts) // AUTOGRAD_NEWTON_STARTS)][:AUTOGRAD_NEWTON_STARTS]
    return case(lambda: wl.newton(sub, dg), note=_newton_note(sub, "autograd.grad(g) in the Python loop"),
                scale=_newton_scale(sub), n=len(sub))


# ----- 5a. RNN -----


def _rnn(xp):
    def loss(W, U, b, xs, target):
        h = xp.zeros((16, 32), dtype=xs.dtype)
        for t in range(40):
            h = xp.tanh(xp.matmul(h, W) + xp.matmul(xs[t], U) + b)
        d = h - target
        return xp.sum(d * d) / 16.0

    return loss


def _rnn_autograd(anp):
    def loss(W, U, b, xs, target):
        h = anp.zeros((16, 32))
        for t in range(40):
            h = anp.tanh(anp.dot(h, W) + anp.dot(xs[t], U) + b)
        d = h - target
        return anp.sum(d * d) / 16.0

    return loss


@register("rnn", "jax.grad")
def make_jax_grad_rnn(data):
    return _jax_array_case(_rnn(_jax()[1]), data, jit=False, note="Python loop, no jit")


@register("rnn", "jax.jit")
def make_jax_jit_rnn(data):
    return _jax_array_case(_rnn(_jax()[1]), data, jit=True, note="Python loop unrolled by jit")


@register("rnn", "torch.autograd")
def make_torch_autograd_rnn(data):
    torch = _torch()
    return _torch_array_case(torch, _rnn(torch), data)


@register("rnn", "torch.func")
def make_torch_func_rnn(data):
    torch = _torch()
    return _torch_func_case(torch, _rnn(torch), data)


@register("rnn", "autograd")
def make_autograd_rnn(data):
    return _autograd_case(_rnn_autograd(_autograd()[1]), data)


# ----- 5b. logistic regression -----


def _logreg(xp):
    def loss(w, X, y):
        z = xp.matmul(X, w)
        return xp.mean(xp.logaddexp(0.0, -y * z))

    return loss


def _logreg_torch(torch):
    def loss(w, X, y):
        z = torch.matmul(X, w)
        return torch.mean(torch.logaddexp(torch.zeros((), dtype=z.dtype), -y * z))

    return loss


@register("logreg", "jax.grad")
def make_jax_grad_logreg(data):
    return _jax_array_case(_logreg(_jax()[1]), data, jit=False)


@register("logreg", "jax.jit")
def make_jax_jit_logreg(data):
    return _jax_array_case(_logreg(_jax()[1]), data, jit=True)


@register("logreg", "torch.autograd")
def make_torch_autograd_logreg(data):
    torch = _torch()
    return _torch_array_case(torch, _logreg_torch(torch), data)


@register("logreg", "torch.func")
def make_torch_func_logreg(data):
    torch = _torch()
    return _torch_func_case(torch, _logreg_torch(torch), data)


@register("logreg", "autograd")
def make_autograd_logreg(data):
    return _autograd_case(_logreg(_autograd()[1]), data)


# ----- 5c. RK4 damped oscillator -----


def _rk4_step(k, x, v, dt=0.05, c=0.3):
    a1 = -k * x - c * v
    x2 = x + 0.5 * dt * v
    v2 = v + 0.5 * dt * a1
    a2 = -k * x2 - c * v2
    x3 = x + 0.5 * dt * v2
    v3 = v + 0.5 * dt * a2
    a3 = -k * x3 - c * v3
    x4 = x + dt * v3
    v4 = v + dt * a3
    a4 = -k * x4 - c * v4
    return (x + dt / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4),
            v + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4))


def _oscillator_loop(k, x0):
    """The Python loop; x0 is the framework's 1.0 (a tensor for torch.func)."""
    x = x0
    v = x0 * 0.0
    for i in range(200):
        x, v = _rk4_step(k, x, v)
    return x


@register("ode", "jax.grad")
def make_jax_grad_ode(data):
    return _jax_scalar_eager(lambda k: _oscillator_loop(k, 1.0), data[0], note="Python loop, no jit")


@register("ode", "jax.jit")
def make_jax_jit_ode(data):
    jax, jnp = _jax()

    def osc(k):
        def body(i, state):
            return _rk4_step(k, *state)

        x, v = jax.lax.fori_loop(0, 200, body, (jnp.asarray(1.0), jnp.asarray(0.0)))
        return x

    return _jax_scalar_jit(osc, data[0], note="lax.fori_loop")


@register("ode", "torch.autograd")
def make_torch_autograd_ode(data):
    torch = _torch()
    k = _scalar_torch(torch, data[0]).requires_grad_(True)

    def run():
        k.grad = None
        _oscillator_loop(k, 1.0).backward()
        return k.grad

    return case(run, note="0-d tensors, Python loop")


@register("ode", "torch.func")
def make_torch_func_ode(data):
    torch = _torch()
    one = torch.tensor(1.0, dtype=torch.float64)
    gf = torch.func.grad(lambda k: _oscillator_loop(k, one))
    k = _scalar_torch(torch, data[0])
    return case(lambda: gf(k), note="0-d tensors, Python loop")


@register("ode", "autograd")
def make_autograd_ode(data):
    autograd, _ = _autograd()
    gf = autograd.grad(lambda k: _oscillator_loop(k, 1.0))
    return case(lambda: gf(data[0]), note="the plain loop")


# ----- a single call: g(0.3) and its derivative -----


def _jax_g():
    _, jnp = _jax()

    def g(x):
        return jnp.exp(-x * x) * jnp.cos(3.0 * x)

    return g


@register("call", "jax.grad")
def make_jax_grad_call(data):
    return _jax_scalar_eager(_jax_g(), data[0])


@register("call", "jax.jit")
def make_jax_jit_call(data):
    return _jax_scalar_jit(_jax_g(), data[0], note="")


@register("call", "torch.autograd")
def make_torch_autograd_call(data):
    torch = _torch()
    g = _torch_g(torch)
    x = _scalar_torch(torch, data[0]).requires_grad_(True)

    def run():
        x.grad = None
        g(x).backward()
        return x.grad

    return case(run, note="0-d tensor")


@register("call", "torch.func")
def make_torch_func_call(data):
    torch = _torch()
    gf = torch.func.grad(_torch_g(torch))
    x = _scalar_torch(torch, data[0])
    return case(lambda: gf(x), note="0-d tensor")


@register("call", "autograd")
def make_autograd_call(data):
    autograd, anp = _autograd()

    def g(x):
        return anp.exp(-x * x) * anp.cos(3.0 * x)

    gf = autograd.grad(g)
    return case(lambda: gf(data[0]))


# ----- the hand-written C adjoint of the recurrence -----


def c_reference_path():
    """The C reference: $REVSRC_C_REFERENCE, else ../shared/reference/ beside the checkout."""
    env = os.environ.get("REVSRC_C_REFERENCE")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parent.parent.parent / "shared" / "reference" / "recurrence_adjoint.c")
    for p in candidates:
        if p.is_file():
            return p
    return None


def _c_require():
    ok, reason = available("c_handwritten")
    if not ok:
        raise Unavailable(reason)
    return c_reference_path()


@functools.lru_cache(maxsize=None)
def _c_build_dir():
    return tempfile.mkdtemp(prefix="revsrc-bench-c-")


def c_reference_run():
    """Compile the reference as it is (gcc -O2 ... -lm) in a temp dir, run it, return its JSON."""
    import json
    import time

    src = _c_require()
    exe = os.path.join(_c_build_dir(), "recurrence_adjoint")
    t0 = time.perf_counter()
    subprocess.run(["gcc", "-O2", str(src), "-o", exe, "-lm"], check=True, capture_output=True)
    compile_s = time.perf_counter() - t0
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    result["compile_ms"] = compile_s * 1e3
    return result


@functools.lru_cache(maxsize=None)
def c_reference_function():
    """The reference's `grad(x)` as a Python callable (ctypes), built by including its source."""
    import ctypes

    src = _c_require()
    d = _c_build_dir()
    wrapper = os.path.join(d, "wrapper.c")
    with open(wrapper, "w") as fh:
        fh.write(f'#define main revsrc_reference_main\n#include "{src}"\n#undef main\n'
                 "double revsrc_c_grad(double x) { return grad(x); }\n")
    lib = os.path.join(d, "librecurrence.so")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", wrapper, "-o", lib, "-lm"], check=True, capture_output=True)
    fn = ctypes.CDLL(lib).revsrc_c_grad
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_double]
    return fn


# ----- gradient checks -----


def to_numpy(result):
    """A framework's gradient as a float (0-d results) or a float64 ndarray."""
    if hasattr(result, "detach"):
        result = result.detach().cpu().numpy()
    arr = np.asarray(result, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


class GradientMismatch(AssertionError):
    pass


@functools.lru_cache(maxsize=None)
def _coords(size, k=24):
    rng = np.random.default_rng(7)
    return tuple(int(c) for c in rng.choice(size, size=min(k, size), replace=False))


# ----- second derivatives: revsrc, jax.jit(jax.hessian), torch.func.hessian -----

HVP_DIRECTION = np.random.default_rng(5).standard_normal((128, 128))


@register("hessian_recurrence", "revsrc")
def make_revsrc_hessian_recurrence(data):
    d2 = _revsrc_module().hessian(wl.recurrence)
    return case(lambda: d2(*data), note="revsrc.hessian: forward over reverse, on the engine")


@register("hessian_mlp", "revsrc")
def make_revsrc_hessian_mlp(data):
    h = _revsrc_module().hessian(wl.mlp_loss, argnums=2)
    return case(lambda: h(*data), note="revsrc.hessian: forward over reverse, a column each")


@register("hvp_mlp", "revsrc")
def make_revsrc_hvp_mlp(data):
    rs = _revsrc_module()
    tangents = (HVP_DIRECTION, None, None, None, None)
    return case(lambda: rs.hvp(wl.mlp_loss, data, tangents), note="revsrc.hvp")


def _jax_mlp_loss(jnp, x, W2, y):
    def loss(W1, b1):
        hid = jnp.tanh(x @ W1 + b1)
        d = hid @ W2 - y
        return jnp.sum(d * d) / 64.0
    return loss


@register("hessian_recurrence", "jax.jit")
def make_jax_hessian_recurrence(data):
    jax, jnp = _jax()

    def step(i, x):
        return jnp.where(x > 1.0, x - 0.002 * jnp.sin(x) * x,
                         x + 0.003 * jnp.cos(x) + 0.001 * x * x)

    h = jax.jit(jax.hessian(lambda x: jax.lax.fori_loop(0, 1000, step, x)))
    x0 = jnp.asarray(data[0])
    return case(lambda: h(x0).block_until_ready(), note="jax.jit(jax.hessian), lax.fori_loop")


@register("hessian_mlp", "jax.jit")
def make_jax_hessian_mlp(data):
    jax, jnp = _jax()
    W1, x, b1, W2, y = (jnp.asarray(a) for a in data)
    h = jax.jit(jax.hessian(_jax_mlp_loss(jnp, x, W2, y), argnums=1))
    return case(lambda: h(W1, b1).block_until_ready(), note="jax.jit(jax.hessian)")


@register("hvp_mlp", "jax.jit")
def make_jax_hvp_mlp(data):
    jax, jnp = _jax()
    W1, x, b1, W2, y = (jnp.asarray(a) for a in data)
    g = jax.grad(_jax_mlp_loss(jnp, x, W2, y))
    v = jnp.asarray(HVP_DIRECTION)
    hvp = jax.jit(lambda W: jax.jvp(lambda W: g(W, b1), (W,), (v,))[1])
    return case(lambda: hvp(W1).block_until_ready(), note="jax.jit of jax.jvp of jax.grad")


@register("hessian_recurrence", "torch.func")
def make_torch_hessian_recurrence(data):
    torch = _torch()
    from torch.func import hessian

    def rec(x):
        for _ in range(1000):
            x = torch.where(x > 1.0, x - 0.002 * torch.sin(x) * x,
                            x + 0.003 * torch.cos(x) + 0.001 * x * x)
        return x
    h = hessian(rec)
    x0 = torch.tensor(data[0], dtype=torch.float64)
    return case(lambda: h(x0), note="torch.func.hessian, eager")


def _torch_mlp(data):
    torch = _torch()
    W1, x, b1, W2, y = (torch.from_numpy(np.asarray(a, dtype=float)) for a in data)

    def loss(W1, b1):
        hid = torch.tanh(x @ W1 + b1)
        d = hid @ W2 - y
        return torch.sum(d * d) / 64.0
    return torch, loss, W1, b1


@register("hessian_mlp", "torch.func")
def make_torch_hessian_mlp(data):
    from torch.func import hessian
    torch, loss, W1, b1 = _torch_mlp(data)
    h = hessian(loss, argnums=1)
    return case(lambda: h(W1, b1), note="torch.func.hessian")


@register("hvp_mlp", "torch.func")
def make_torch_hvp_mlp(data):
    from torch.func import grad, jvp
    torch, loss, W1, b1 = _torch_mlp(data)
    g = grad(loss)
    v = torch.from_numpy(HVP_DIRECTION)
    return case(lambda: jvp(lambda W: g(W, b1), (W1,), (v,))[1], note="torch.func.jvp of grad")


def _second_oracle(workload, data):
    """Central differences of revsrc's gradient (itself checked against central
    differences of the function in the first-order rows)."""
    rs = _revsrc_module()
    h = 1e-6
    if workload == "hessian_recurrence":
        g = rs.grad(wl.recurrence)
        return (g(data[0] + h) - g(data[0] - h)) / (2 * h)
    g = rs.grad(wl.mlp_loss, argnums=2 if workload == "hessian_mlp" else 0)
    args = list(data)
    if workload == "hessian_mlp":
        cols = []
        for k in range(np.size(data[2])):
            e = np.zeros_like(data[2])
            e[k] = h
            hi, lo = list(args), list(args)
            hi[2], lo[2] = data[2] + e, data[2] - e
            cols.append((g(*hi) - g(*lo)) / (2 * h))
        return np.stack(cols, axis=1)
    hi, lo = list(args), list(args)
    hi[0], lo[0] = data[0] + h * HVP_DIRECTION, data[0] - h * HVP_DIRECTION
    return (g(*hi) - g(*lo)) / (2 * h)


def oracle(workload, data):
    """What a gradient is checked against: central differences (sampled for arrays), or
    for Newton the vectorized iteration with g' written out by hand."""
    f, _, argnum, kind = wl.WORKLOADS[workload]
    if kind == "scalar":
        return wl.central_difference(f, data, argnum)
    if kind == "newton":
        return wl.newton_reference(data[0])
    if kind in ("value", "map"):
        return compiled_reference(workload, data)
    if kind == "second":
        return _second_oracle(workload, data)
    coords = _coords(np.size(data[argnum]))
    return coords, wl.central_difference_coords(f, data, argnum, coords)


def check(workload, framework, result, data, ref=None, revsrc_result=None):
    """Raise GradientMismatch unless `result` agrees with the oracle (and with revsrc's, when given)."""
    f, _, argnum, kind = wl.WORKLOADS[workload]
    if ref is None:
        ref = oracle(workload, data)
    got = to_numpy(result)
    where = f"{framework} on {workload}"
    if kind in ("value", "map"):
        # revsrc computes with the digits of the plain Python program: exactly equal
        got, want = np.asarray(got), np.asarray(ref)
        if framework.startswith("revsrc") or framework == "plain":
            ok = got.shape == want.shape and np.array_equal(got, want)
        else:
            ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-12)
        if not ok:
            bad = np.flatnonzero(np.atleast_1d(got != want))[:5]
            raise GradientMismatch(f"{where}: differs from the plain Python program "
                                   f"(e.g. at {bad.tolist()})")
        return
    if kind == "second":
        got, want = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
        scale = max(1.0, float(np.max(np.abs(want))))
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6 * scale):
            raise GradientMismatch(f"{where}: differs from central differences of the gradient")
        return
    if kind == "scalar":
        if framework == "plain":
            ok = np.isclose(got, f(*data), rtol=1e-12)
            want = f(*data)
        else:
            want = ref
            ok = np.isclose(got, want, rtol=1e-6, atol=1e-9)
        if not ok:
            raise GradientMismatch(f"{where}: got {got!r}, expected {want!r}")
    elif kind == "newton":
        got = np.atleast_1d(got)
        n = len(got)
        want = ref[:: max(1, len(ref) // n)][:n] if n != len(ref) else ref
        # Starts that Newton throws far out (|x| > 10) end where exp(-x*x) is subnormal and
        # the last digits of each framework's exp decide the step: compare the rest exactly.
        tame = np.abs(want) < 10.0
        close = np.isclose(got, want, rtol=1e-6, atol=1e-9) | ~tame
        # Central differences perturb the derivative by ~1e-10: the handful of starts that
        # land near a critical point of g can take another branch, nothing else may differ.
        allowed = int(0.002 * n) if framework == "central_diff" else 0
        if (~close).sum() > allowed or tame.sum() < 0.9 * n:
            bad = np.flatnonzero(~close)[:5]
            raise GradientMismatch(f"{where}: {(~close).sum()} of {n} roots differ, e.g. at {bad.tolist()}: "
                                   f"got {got[bad].tolist()}, expected {want[bad].tolist()}")
    else:
        shape = np.shape(data[argnum])
        if np.shape(got) != shape:
            raise GradientMismatch(f"{where}: gradient shape {np.shape(got)}, expected {shape}")
        coords, fd = ref
        sampled = np.asarray(got).ravel()[list(coords)]
        scale = np.max(np.abs(fd)) + 1e-300
        if not np.allclose(sampled, fd, rtol=1e-5, atol=1e-6 * scale):
            err = np.max(np.abs(sampled - fd))
            raise GradientMismatch(f"{where}: differs from central differences at sampled entries "
                                   f"(max abs err {err:.3g}, |grad| up to {scale:.3g})")
    if framework == "numpy_by_hand":    # written by hand: held to revsrc's gradient closely
        _check_by_hand(workload, got, data, revsrc_result)
    if revsrc_result is not None and framework not in ("revsrc", "plain") and kind != "newton":
        other = to_numpy(revsrc_result)
        scale = np.max(np.abs(other)) + 1e-300
        if not np.allclose(got, other, rtol=1e-7, atol=1e-10 * scale):
            err = np.max(np.abs(np.asarray(got) - other))
            raise GradientMismatch(f"{where}: differs from revsrc's gradient (max abs err {err:.3g})")


def _check_by_hand(workload, got, data, revsrc_result):
    """A gradient written by hand equals revsrc's to 1e-10 (relative to its largest entry);
    revsrc's is computed here when the caller has none."""
    f, _, argnum, _ = wl.WORKLOADS[workload]
    want = to_numpy(revsrc_result if revsrc_result is not None
                    else _revsrc()(f, argnums=argnum)(*data))
    scale = np.max(np.abs(want)) + 1e-300
    err = np.max(np.abs(np.asarray(got) - want))
    if np.shape(got) != np.shape(want) or err > 1e-10 * scale:
        raise GradientMismatch(f"numpy_by_hand on {workload}: differs from revsrc's gradient "
                               f"(max abs err {err:.3g}, |grad| up to {scale:.3g})")


# ----- 6. Newton compiled whole: revsrc.jit and revsrc.vmap against C, NumPy, JAX -----


def _revsrc_module():
    try:
        import revsrc

        revsrc.jit, revsrc.vmap  # noqa: B018
        return revsrc
    except (ImportError, AttributeError) as exc:
        raise Unavailable(f"revsrc.jit / revsrc.vmap not available: {exc}") from exc


def _newton(np_spelling=False):
    revsrc = _revsrc_module()
    g = wl.g_np if np_spelling else wl.g
    return wl.newton_program(g, revsrc.grad(g))


_references = {}


def compiled_reference(workload, data):
    """The plain Python program's result (the digits revsrc must reproduce)."""
    key = (workload, len(np.atleast_1d(data[0])) if workload != "jit" else data[0])
    if key not in _references:
        if workload == "jit":
            _, newton_all = _newton()
            _references[key] = newton_all(data[0])
        else:
            newton, _ = _newton(np_spelling=workload == "vmap_np")
            _references[key] = np.array([newton(x) for x in data[0].tolist()])
    return _references[key]


def newton_c_path():
    """newton_libm.c: $REVSRC_C_NEWTON, else ../shared/reference/ beside the checkout."""
    env = os.environ.get("REVSRC_C_NEWTON")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parent.parent.parent / "shared" / "reference" / "newton_libm.c")
    for p in candidates:
        if p.is_file():
            return p
    return None


NEWTON_C_FLAGS = ["-O2", "-ffp-contract=off"]


@functools.lru_cache(maxsize=None)
def newton_c_library():
    """newton_libm.c built with gcc -O2 -ffp-contract=off, its loops callable through ctypes."""
    import ctypes

    src = newton_c_path()
    if src is None or shutil.which("gcc") is None:
        raise Unavailable("gcc or newton_libm.c not found (set REVSRC_C_NEWTON)")
    d = _c_build_dir()
    wrapper = os.path.join(d, "newton_wrapper.c")
    with open(wrapper, "w") as fh:
        fh.write(f'#define main revsrc_newton_main\n#include "{src}"\n#undef main\n'
                 "double revsrc_newton_all(int n) { double t = 0; for (int i = 0; i < n; i++) "
                 "t += newton(0.4 + i * 1e-6); return t / n; }\n"
                 "double revsrc_newton_all_fused(int n) { double t = 0; for (int i = 0; i < n; i++) "
                 "t += newton_fused(0.4 + i * 1e-6); return t / n; }\n"
                 "void revsrc_newton_map(const double *x, double *out, long n) "
                 "{ for (long i = 0; i < n; i++) out[i] = newton(x[i]); }\n")
    lib_path = os.path.join(d, "libnewton.so")
    subprocess.run(["gcc", *NEWTON_C_FLAGS, "-shared", "-fPIC", wrapper, "-o", lib_path, "-lm"],
                   check=True, capture_output=True)
    lib = ctypes.CDLL(lib_path)
    for name in ("revsrc_newton_all", "revsrc_newton_all_fused"):
        getattr(lib, name).restype = ctypes.c_double
        getattr(lib, name).argtypes = [ctypes.c_int]
    lib.revsrc_newton_map.restype = None
    lib.revsrc_newton_map.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    return lib


def newton_c_run():
    """Run newton_libm.c as it is (its own best-of-7 timing, in ms) after building it."""
    import json
    import time

    src = newton_c_path()
    if src is None or shutil.which("gcc") is None:
        raise Unavailable("gcc or newton_libm.c not found (set REVSRC_C_NEWTON)")
    exe = os.path.join(_c_build_dir(), "newton_libm")
    t0 = time.perf_counter()
    subprocess.run(["gcc", *NEWTON_C_FLAGS, str(src), "-o", exe, "-lm"], check=True, capture_output=True)
    out = json.loads(subprocess.run([exe], check=True, capture_output=True, text=True).stdout)
    out["compile_ms"] = (time.perf_counter() - t0) * 1e3
    return out


def native_compile_ms(program):
    """How long the native tier's compiler takes on ``program`` with an empty cache."""
    import time

    from revsrc import _engine_c
    from revsrc.backends.engine import native

    cc = native.compiler()
    if cc is None:
        return None
    text, _ = native.source(program)
    old = os.environ.get("REVSRC_CACHE_DIR")
    with tempfile.TemporaryDirectory() as d:
        os.environ["REVSRC_CACHE_DIR"] = d
        try:
            t0 = time.perf_counter()
            native._build(_engine_c.unit([text]), cc)
            return (time.perf_counter() - t0) * 1e3
        finally:
            if old is None:
                os.environ.pop("REVSRC_CACHE_DIR", None)
            else:
                os.environ["REVSRC_CACHE_DIR"] = old


class _NativeOff:
    """REVSRC_NATIVE=0 while it is entered: the VM alone."""

    def __enter__(self):
        self.old = os.environ.get("REVSRC_NATIVE")
        os.environ["REVSRC_NATIVE"] = "0"

    def __exit__(self, *exc):
        if self.old is None:
            os.environ.pop("REVSRC_NATIVE", None)
        else:
            os.environ["REVSRC_NATIVE"] = self.old


def _native_note(programs):
    ms = [native_compile_ms(p) for p in programs]
    if not ms or ms[0] is None:
        return "no C compiler: the VM"
    return (f"native tier: its C compiles in {max(ms):,.0f} ms in the background (empty cache), "
            "the VM serves meanwhile")


@register("jit", "revsrc")
def make_revsrc_jit(data):
    revsrc = _revsrc_module()
    _, newton_all = _newton()
    jitted = revsrc.jit(newton_all)
    fn = case(lambda: jitted(data[0]))
    fn.note = ""
    fn.finish = lambda: setattr(fn, "note", _native_note([p for _, p, _ in jitted.programs]))
    return fn


@register("jit", "revsrc_vm")
def make_revsrc_jit_vm(data):
    revsrc = _revsrc_module()
    _, newton_all = _newton()
    jitted = revsrc.jit(newton_all)
    with _NativeOff():
        jitted(1)          # compiles the program for an int argument, native tier off
    return case(lambda: jitted(data[0]), note="REVSRC_NATIVE=0: the engine's VM alone")


@register("jit", "c_program")
def make_c_newton_all(data):
    lib = newton_c_library()
    return case(lambda: lib.revsrc_newton_all(data[0]),
                note="newton_libm.c, g and dg apart, gcc -O2 -ffp-contract=off, called through ctypes")


@register("jit", "c_program_fused")
def make_c_newton_all_fused(data):
    lib = newton_c_library()
    return case(lambda: lib.revsrc_newton_all_fused(data[0]),
                note="newton_libm.c, shared exp and one sincos, called through ctypes")


@register("jit", "plain")
def make_plain_newton_all(data):
    _, newton_all = _newton()
    return case(lambda: newton_all(data[0]), note="the same program in CPython")


def _revsrc_map(np_spelling, threads, vm=False):
    def make(data):
        revsrc = _revsrc_module()
        newton, _ = _newton(np_spelling)
        mapped = revsrc.vmap(newton, threads=threads)
        (xs,) = data
        if vm:
            def run():
                with _NativeOff():
                    return mapped(xs)
            return case(run, note="REVSRC_NATIVE=0: the engine's VM alone")
        where = "both cores" if threads is None else f"{threads} core"
        fn = case(lambda: mapped(xs))
        fn.note = where
        fn.finish = lambda: setattr(fn, "note", where + "; " + _native_note(
            [e.engine for e in mapped.tr.cache.values()]))
        return fn
    return make


for _w, _np in (("vmap", False), ("vmap_np", True)):
    register(_w, "revsrc")(_revsrc_map(_np, None))
    register(_w, "revsrc_1core")(_revsrc_map(_np, 1))
    register(_w, "revsrc_vm")(_revsrc_map(_np, None, vm=True))


@register("vmap", "c_program")
def make_c_newton_map(data):
    lib = newton_c_library()
    (xs,) = data

    def run():
        out = np.empty_like(xs)
        lib.revsrc_newton_map(xs.ctypes.data, out.ctypes.data, len(xs))
        return out

    return case(run, note="newton_libm.c's newton() over the array, one core, called through ctypes")


def _numpy_map(data):
    (xs,) = data
    return case(lambda: wl.numpy_newton(xs), note="NumPy's vectorised Newton over the whole array, "
                                                  "g' by hand (other digits: NumPy's SIMD loops)")


register("vmap", "numpy")(_numpy_map)
register("vmap_np", "numpy")(_numpy_map)


def _jax_map(data):
    jax, jnp = _jax()

    def g(x):
        return jnp.exp(-x * x) * jnp.cos(3.0 * x)

    dg = jax.grad(g)

    def newton(x):
        for _ in range(6):
            x = x - g(x) / dg(x)
        return x

    fn = jax.jit(jax.vmap(newton))
    x = jnp.asarray(data[0])
    return case(lambda: fn(x).block_until_ready(), note="jit(vmap(newton)) with jax.grad(g)")


register("vmap", "jax.jit")(_jax_map)
register("vmap_np", "jax.jit")(_jax_map)


def _make_revsrc_vm(workload):
    f, _, argnum, _ = wl.WORKLOADS[workload]

    def make(data):
        grad = _revsrc()
        with _NativeOff():
            df = grad(f, argnums=argnum)
            df(*data)      # transformed and lowered with the native tier off: the VM stays
        return case(lambda: df(*data), note="REVSRC_NATIVE=0: the engine's VM alone")

    return make


for _w in ("recurrence", "ode", "call"):
    register(_w, "revsrc_vm")(_make_revsrc_vm(_w))
