"""revsrc against JAX (x64): gradients, jvp, vjp, Jacobians, Hessians and second
derivatives of the same functions. Runs when JAX is installed (the compare extra)."""
import inspect
import math
import textwrap

import numpy as np
import pytest

import revsrc

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

# Each function is written once, with NumPy; JAX runs the same source with np bound to
# jax.numpy (see `_jax`).


def mlp(W, x, b):
    h = np.tanh(x @ W + b)
    return np.mean(h * h) + 0.1 * np.sum(W * W)


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)


def softmax_xent(W, x, labels):
    logits = x @ W
    m = np.max(logits, axis=1, keepdims=True)
    logp = logits - m - np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * labels, axis=1))


def trig_poly(x, y):
    return np.sin(x * y) * x + y ** 3 - np.exp(-x * x) + np.sqrt(y * y + 1.0)


def vector_fn(v, A):
    return np.sin(A @ v) * v[0] + np.cumsum(v) ** 2


def rosenbrock(v):
    return np.sum(100.0 * (v[1:] - v[:-1] ** 2) ** 2 + (1.0 - v[:-1]) ** 2)


rng = np.random.default_rng(11)
W0 = rng.standard_normal((5, 3)) * 0.4
X0 = rng.standard_normal((6, 5))
B0 = rng.standard_normal(3) * 0.1
WL = rng.standard_normal(5) * 0.3
YL = (rng.random(6) > 0.5).astype(float)
LAB = np.eye(3)[rng.integers(0, 3, 6)]
A0 = rng.standard_normal((4, 4))
V0 = rng.standard_normal(4)

SCALAR_FUNCTIONS = [
    (mlp, (W0, X0, B0), (0, 2)),
    (logistic, (WL, X0, YL), 0),
    (softmax_xent, (W0, X0, LAB), 0),
    (trig_poly, (0.7, 1.3), (0, 1)),
    (rosenbrock, (V0,), 0),
]


def _jax(f):
    """``f``'s own source, executed with ``np`` bound to jax.numpy."""
    namespace = {"np": jnp, "math": jnp}
    exec(textwrap.dedent(inspect.getsource(f)), namespace)
    return namespace[f.__name__]


def _close(a, b, rtol=1e-10, atol=1e-12):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for u, v in zip(a, b):
            _close(u, v, rtol, atol)
        return
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


@pytest.mark.parametrize("f,args,argnums", SCALAR_FUNCTIONS, ids=lambda v: getattr(v, "__name__", ""))
def test_grad_matches_jax(f, args, argnums):
    _close(revsrc.grad(f, argnums)(*args), jax.grad(_jax(f), argnums)(*args))


@pytest.mark.parametrize("f,args,argnums", SCALAR_FUNCTIONS, ids=lambda v: getattr(v, "__name__", ""))
def test_jvp_matches_jax(f, args, argnums):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    tangents = [rng.standard_normal(np.shape(a)) if i in nums else np.zeros(np.shape(a))
                for i, a in enumerate(args)]
    tangents = [float(t) if np.ndim(a) == 0 else t for a, t in zip(args, tangents)]
    out, t = revsrc.jvp(f, args, tangents)
    jout, jt = jax.jvp(_jax(f), args, tuple(tangents))
    _close(out, jout)
    _close(t, jt)


@pytest.mark.parametrize("f,args,argnums", SCALAR_FUNCTIONS, ids=lambda v: getattr(v, "__name__", ""))
def test_hessian_matches_jax(f, args, argnums):
    a = argnums[0] if isinstance(argnums, tuple) else argnums
    _close(revsrc.hessian(f, a)(*args), jax.hessian(_jax(f), a)(*args), rtol=1e-9)


def test_jacobians_match_jax():
    _close(revsrc.jacfwd(vector_fn)(V0, A0), jax.jacfwd(_jax(vector_fn))(V0, A0))
    _close(revsrc.jacrev(vector_fn)(V0, A0), jax.jacrev(_jax(vector_fn))(V0, A0))
    _close(revsrc.jacrev(vector_fn, (0, 1))(V0, A0),
           jax.jacrev(_jax(vector_fn), (0, 1))(V0, A0))


def test_vjp_matches_jax():
    ct = rng.standard_normal(4)
    _, back = revsrc.vjp(vector_fn, V0, A0)
    _, jback = jax.vjp(_jax(vector_fn), V0, A0)
    _close(back(ct), jback(ct))


def test_second_derivatives_match_jax():
    def f(x, y):
        return np.sin(x * y) * np.exp(-x) + x ** 4 * y

    _close(revsrc.grad(revsrc.grad(f))(0.3, 1.7), jax.grad(jax.grad(_jax(f)))(0.3, 1.7))
    _close(revsrc.grad(revsrc.grad(f, 1), 0)(0.3, 1.7),
           jax.grad(jax.grad(_jax(f), 1), 0)(0.3, 1.7))
    v = rng.standard_normal(W0.shape)
    _close(revsrc.hvp(mlp, (W0, X0, B0), (v, None, None)),
           jax.jvp(jax.grad(_jax(mlp)), (W0, X0, B0),
                   (v, np.zeros_like(X0), np.zeros_like(B0)))[1], rtol=1e-9)


def recurrence(x):
    for i in range(300):
        if x > 1.0:
            x = x - 0.002 * math.sin(x) * x
        else:
            x = x + 0.003 * math.cos(x) + 0.001 * x * x
    return x


def test_second_derivative_of_a_branchy_loop_matches_jax():
    def jrec(x):
        def body(i, x):
            return jnp.where(x > 1.0, x - 0.002 * jnp.sin(x) * x,
                             x + 0.003 * jnp.cos(x) + 0.001 * x * x)
        return jax.lax.fori_loop(0, 300, body, x)
    for x in (0.3, 1.2):
        _close(revsrc.hessian(recurrence)(x), jax.hessian(jrec)(x), rtol=1e-9)
        _close(revsrc.grad(revsrc.grad(recurrence))(x), jax.grad(jax.grad(jrec))(x),
               rtol=1e-9)
