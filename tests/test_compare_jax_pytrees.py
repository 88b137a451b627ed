"""revsrc against JAX (x64) on containers of parameters and on callables that are
not plain functions: the same structures and the same numbers. Runs when JAX is
installed (the compare extra)."""
import collections
import functools
import inspect
import textwrap

import numpy as np
import pytest

import revsrc

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

Pair = collections.namedtuple("Pair", "W b")


def _jax(f):
    """``f``'s own source, executed with ``np`` bound to jax.numpy."""
    namespace = {"np": jnp, "Pair": Pair}
    exec(textwrap.dedent(inspect.getsource(f)), namespace)
    return namespace[f.__name__]


def _close(a, b):
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    assert ta == tb, (ta, tb)
    for u, v in zip(la, lb):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-10, atol=1e-12)


def mlp_dict(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return np.mean((out - y) ** 2)


def layers_list(layers, x):
    h = x
    for W, b in layers:
        h = np.tanh(h @ W + b)
    return np.sum(h * h)


def namedtuple_nested(p, x):
    inner = p["layer"]
    return np.sum(np.sin(x @ inner.W) * inner.b) + p["scale"] * np.sum(x)


rng = np.random.default_rng(5)
X = rng.normal(size=(7, 3))
Y = rng.normal(size=(7, 2))
PARAMS = {"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4),
          "W2": rng.normal(size=(4, 2)), "b2": rng.normal(size=2)}
LAYERS = [(rng.normal(size=(3, 3)), rng.normal(size=3)), (rng.normal(size=(3, 2)), 0.3)]
NESTED = {"layer": Pair(rng.normal(size=(3, 2)), rng.normal(size=2)), "scale": 0.4}

CASES = [(mlp_dict, (PARAMS, X, Y)), (layers_list, (LAYERS, X)),
         (namedtuple_nested, (NESTED, X))]


@pytest.mark.parametrize("f,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_container_gradients_match_jax(f, args):
    _close(revsrc.grad(f)(*args), jax.grad(_jax(f))(*args))
    value, g = revsrc.value_and_grad(f, argnums=(0, 1))(*args)
    jvalue, jg = jax.value_and_grad(_jax(f), argnums=(0, 1))(*args)
    assert value == pytest.approx(float(jvalue), rel=1e-12)
    _close(g, jg)


def vector_out(params, x):
    return np.tanh(x @ params["W1"] + params["b1"])


def test_container_jacobians_match_jax():
    p = {"W1": PARAMS["W1"], "b1": PARAMS["b1"]}
    jf = jax.jacfwd(_jax(vector_out))(p, X[:2])
    _close(revsrc.jacfwd(vector_out)(p, X[:2]), jf)
    _close(revsrc.jacrev(vector_out)(p, X[:2]), jf)
    tangent = {"W1": np.ones_like(p["W1"]), "b1": np.ones_like(p["b1"])}
    out, t = revsrc.jvp(vector_out, (p, X[:2]), (tangent, None))
    jout, jt = jax.jvp(lambda q: _jax(vector_out)(q, X[:2]), (p,), (tangent,))
    _close((out, t), (jout, jt))


class Model:
    def __init__(self, X, y):
        self.X, self.y = X, y

    def loss(self, w):
        return np.mean(np.logaddexp(0.0, -self.y * (self.X @ w)))


def nll(theta, t, y):
    return np.sum((theta[0] * np.sin(theta[1] * t) - y) ** 2)


def test_methods_and_partials_match_jax():
    w = rng.normal(size=3)
    labels = np.sign(rng.normal(size=7))
    m = Model(X, labels)

    def jax_loss(w):
        return jnp.mean(jnp.logaddexp(0.0, -labels * (X @ w)))
    _close(revsrc.grad(m.loss)(w), jax.grad(jax_loss)(w))
    t = np.linspace(0.0, 2.0, 9)
    p = functools.partial(nll, t=t, y=np.cos(t))
    theta = np.array([1.2, 0.7])
    _close(revsrc.grad(p)(theta), jax.grad(functools.partial(_jax(nll), t=t, y=np.cos(t)))(theta))


def stopped(x):
    return np.sum(x * revsrc.stop_gradient(np.sin(x)) + x ** 2)


def test_stop_gradient_matches_jax():
    x = rng.normal(size=4)

    def jax_stopped(x):
        return jnp.sum(x * jax.lax.stop_gradient(jnp.sin(x)) + x ** 2)
    _close(revsrc.grad(stopped)(x), jax.grad(jax_stopped)(x))
    _close(revsrc.jvp(stopped, (x,), (np.ones(4),)),
           jax.jvp(jax_stopped, (x,), (np.ones(4),)))
