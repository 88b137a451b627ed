"""A function mapped by revsrc.vmap called inside a function revsrc differentiates
(issue 25: ``grad(lambda p: sum(vmap(f)(p, X)))``): the reverse rule maps the
per-example derivative and sums it over the examples for an argument they share.
Checked against JAX (x64) where installed and central differences; what is not
taken is refused at the call's line."""
import numpy as np
import pytest

import revsrc

RNG = np.random.default_rng(3)
X = RNG.normal(size=(6, 3))
Y = RNG.normal(size=6)
P = np.array([0.3, -0.2, 0.5])


def example_loss(p, x, y):
    return (np.tanh(np.dot(p, x)) - y) ** 2


def total(p):
    return np.sum(revsrc.vmap(example_loss, in_axes=(None, 0, 0))(p, X, Y))


def mean_of_mapped_made_outside(p):
    return np.mean(MAPPED(p, X, Y)) + 0.1 * np.sum(p * p)


MAPPED = revsrc.vmap(example_loss, in_axes=(None, 0, 0))


def weighted(p, xs):
    per = revsrc.vmap(example_loss, in_axes=(None, 0, 0))(p, xs, Y)
    return np.sum(per * np.arange(1.0, 7.0))


def features(p, x):
    return np.sin(p * x) * x[0]


def vector_outputs(p):
    return np.sum(revsrc.vmap(features, in_axes=(None, 0))(p, X) ** 2)


def scalar_lanes(w):
    return np.sum(revsrc.vmap(scalar_term, in_axes=(None, 0))(w, X[:, 0]))


def scalar_term(w, v):
    return np.sin(v * w) * w


def on_axis_one(p, xt):
    return np.sum(revsrc.vmap(features, in_axes=(None, 1))(p, xt) ** 3)


def _fd(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = h
        out.flat[i] = (f(x + d) - f(x - d)) / (2 * h)
    return out


@pytest.mark.parametrize("f", [total, mean_of_mapped_made_outside, vector_outputs])
def test_grad_through_a_mapped_call(f):
    value, grad = revsrc.value_and_grad(f)(P)
    assert value == pytest.approx(f(P), rel=1e-14)
    np.testing.assert_allclose(grad, _fd(f, P), rtol=1e-6, atol=1e-8)


def test_mapped_argument_keeps_its_batch_axis():
    gp, gx = revsrc.grad(weighted, argnums=(0, 1))(P, X)
    np.testing.assert_allclose(gp, _fd(lambda p: weighted(p, X), P), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gx, _fd(lambda x: weighted(P, x), X), rtol=1e-6, atol=1e-8)
    gx1 = revsrc.grad(on_axis_one, argnums=1)(P, X.T.copy())
    np.testing.assert_allclose(gx1, _fd(lambda x: on_axis_one(P, x), X.T.copy()),
                               rtol=1e-6, atol=1e-8)


def test_scalar_function_mapped():
    g = revsrc.grad(scalar_lanes)(0.7)
    assert g == pytest.approx((scalar_lanes(0.7 + 1e-6) - scalar_lanes(0.7 - 1e-6)) / 2e-6,
                              rel=1e-7)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def loss_j(p, x, y):
        return (jnp.tanh(jnp.dot(p, x)) - y) ** 2

    def total_j(p):
        return jnp.sum(jax.vmap(loss_j, in_axes=(None, 0, 0))(p, X, Y))

    np.testing.assert_allclose(revsrc.grad(total)(P), jax.grad(total_j)(P), rtol=1e-12)
    np.testing.assert_allclose(revsrc.jacfwd(total)(P), jax.jacfwd(total_j)(P), rtol=1e-12)


def second_order(p):
    return np.sum(revsrc.vmap(example_loss, in_axes=(None, 0, 0))(p, X, Y))


def test_second_order_is_refused_at_the_call():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.hessian(second_order)(P)
    assert info.value.code == "E104"
    assert "second_order" in str(info.value) or "revsrc.vmap(example_loss" in str(info.value)


def returns_pair(p, x):
    return p * x, np.sum(x)


def container_outputs(p):
    a, b = revsrc.vmap(returns_pair, in_axes=(None, 0))(p, X)
    return np.sum(a) + np.sum(b)


def test_container_outputs_are_refused():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(container_outputs)(P)
    assert info.value.code.startswith("E")


def tuple_loss(params, x, y):
    W, b = params
    return np.mean((np.tanh(x @ W + b) - y) ** 2)


XB, YB = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2))


def tuple_total(W, b):
    per = revsrc.vmap(tuple_loss, in_axes=(None, 0, 0))((W, b), XB, YB)
    return np.sum(per)


def test_container_argument():
    W, b = RNG.normal(size=(3, 2)), RNG.normal(size=2)
    gW, gb = revsrc.grad(tuple_total, argnums=(0, 1))(W, b)
    np.testing.assert_allclose(gW, _fd(lambda w: tuple_total(w, b), W), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, _fd(lambda v: tuple_total(W, v), b), rtol=1e-6, atol=1e-8)
