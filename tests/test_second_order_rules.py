"""Second derivatives through np.quantile and its kin, math.fsum and math.prod (issue 23).

Their adjoints are helpers with rules of their own (revsrc/rules/quantiles.py,
revsrc/rules/mathfuncs.py): a quantile's adjoint of ``a`` is piecewise constant in
``a`` and moves with ``q``; fsum's is linear; prod's Hessian is the products of the
other items. Each row is checked in both orders (``revsrc.hessian``, forward over
reverse, and ``jacrev(grad)``, reverse over reverse) against central differences of
the gradient, and against JAX's Hessian where JAX has the function.
"""
import math

import numpy as np
import pytest

import revsrc

A = np.array([0.4, -0.7, 1.1, 2.3, -1.9, 0.05])          # distinct: no ties
M = np.array([[0.4, -0.7, 1.1, 2.3], [-1.9, 0.05, 0.8, -0.2], [1.4, 0.3, -0.6, 2.0]])


def q_whole(x):
    return np.quantile(x * x, 0.3) + np.percentile(np.sin(x), 70.0) * x[0]


def q_axis(x):
    return np.sum(np.quantile(x ** 3, [0.2, 0.75], axis=-1) * np.array([[1.0], [-0.5]])) \
        + np.sum(np.percentile(x * x[0, 0], 40.0, axis=0, keepdims=True))


def q_nan(x):
    y = np.where(np.abs(x) > 2.1, np.nan, x)
    return np.nanquantile(y * y, 0.35) + np.sum(np.nanpercentile(np.tanh(y), [30.0, 90.0]))


def q_in_q(x, q):
    # q differentiated too: the weights move with it
    return np.quantile(x * x, q) * q + np.percentile(np.sin(x), 100.0 * q * q)


def fsum_row(x):
    return math.fsum([x[0] * x[1], math.sin(x[2]), x[0] ** 3, x[3] * x[3] * x[1]])


def fsum_array(x):
    return math.fsum(x * x * x) + math.fsum(np.sin(x))


def prod_row(x):
    return math.prod([x[0], x[1] * x[2], x[0] + 1.0, x[3]], start=x[2])


def prod_array(x):
    return math.prod(x) + math.prod(np.cos(x[:3]))


def prod_zero(x):
    # an item exactly zero: the products of the others stay exact
    return math.prod([x[0], x[1] - x[1], x[2] * x[3], x[1]])


def scalars(x, y):
    return math.fsum([x, y * y, 3.0 * x * y]) + math.prod([x, y, x + y], start=y)


def _hess_fd(f, x, h=1e-5):
    g = revsrc.grad(f, backend="python")
    x = np.asarray(x, dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        cols.append((g(x + e) - g(x - e)) / (2 * h))
    return np.stack(cols, axis=-1).reshape(x.shape + x.shape)


ROWS = [(q_whole, A), (q_axis, M), (q_nan, M), (fsum_row, A[:4]), (fsum_array, A),
        (prod_row, A[:4]), (prod_array, A), (prod_zero, A[:4])]
IDS = [f.__name__ for f, _ in ROWS]


@pytest.mark.parametrize("f,x", ROWS, ids=IDS)
def test_hessian_matches_central_differences(f, x):
    want = _hess_fd(f, x)
    for h in (revsrc.hessian(f)(x), revsrc.jacrev(revsrc.grad(f))(x),
              revsrc.jacfwd(revsrc.grad(f))(x)):
        np.testing.assert_allclose(h, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f,x", ROWS, ids=IDS)
def test_hvp_in_both_orders(f, x):
    v = np.linspace(0.3, -0.8, x.size).reshape(x.shape)
    want = np.tensordot(revsrc.hessian(f)(x), v, axes=x.ndim)
    np.testing.assert_allclose(revsrc.hvp(f, (x,), (v,)), want, rtol=1e-12, atol=1e-12)

    df = revsrc.grad(f)

    def along(x):
        return np.sum(df(x) * v)
    np.testing.assert_allclose(revsrc.grad(along)(x), want, rtol=1e-12, atol=1e-12)


def test_hessian_in_the_quantile_too():
    x, q = A, 0.37
    h = revsrc.hessian(q_in_q, argnums=(0, 1))(x, q)
    g = revsrc.grad(q_in_q, argnums=(0, 1), backend="python")
    eps = 1e-6
    d_x = [(np.asarray(g(x + eps * e, q)[k]) - np.asarray(g(x - eps * e, q)[k])) / (2 * eps)
           for k in (0, 1) for e in [np.eye(x.size)[j] for j in range(x.size)]]
    hxx = np.stack(d_x[:x.size], axis=-1)
    hqx = np.stack(d_x[x.size:], axis=-1)
    hxq = (np.asarray(g(x, q + eps)[0]) - np.asarray(g(x, q - eps)[0])) / (2 * eps)
    hqq = (g(x, q + eps)[1] - g(x, q - eps)[1]) / (2 * eps)
    np.testing.assert_allclose(h[0][0], hxx, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(h[0][1], hxq, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(h[1][0], hqx, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(h[1][1], hqq, rtol=1e-6, atol=1e-7)
    # and reverse over reverse
    gq = revsrc.grad(q_in_q, argnums=1)
    np.testing.assert_allclose(revsrc.grad(gq, argnums=(0, 1))(x, q)[0], hxq,
                               rtol=1e-6, atol=1e-7)


def test_scalar_fsum_and_prod_in_two_arguments():
    h = revsrc.hessian(scalars, argnums=(0, 1))(0.7, -1.3)
    x, y = 0.7, -1.3
    # fsum: x + y^2 + 3xy; prod: x y (x + y) y = x^2 y^2 + x y^3
    want = [[2 * y * y, 3.0 + 4 * x * y + 3 * y * y],
            [3.0 + 4 * x * y + 3 * y * y, 2.0 + 2 * x * x + 6 * x * y]]
    np.testing.assert_allclose(np.array(h, dtype=float), want, rtol=1e-13)
    np.testing.assert_allclose(revsrc.grad(revsrc.grad(scalars))(x, y), want[0][0], rtol=1e-13)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def q_whole_jax(x):
        return jnp.quantile(x * x, 0.3) + jnp.percentile(jnp.sin(x), 70.0) * x[0]

    def q_axis_jax(x):
        return jnp.sum(jnp.quantile(x ** 3, jnp.array([0.2, 0.75]), axis=-1)
                       * jnp.array([[1.0], [-0.5]])) \
            + jnp.sum(jnp.percentile(x * x[0, 0], 40.0, axis=0, keepdims=True))

    def fsum_jax(x):
        return jnp.sum(x * x * x) + jnp.sum(jnp.sin(x))

    def prod_jax(x):
        return jnp.prod(x) + jnp.prod(jnp.cos(x[:3]))

    with jax.enable_x64(True):
        for ours, theirs, x in [(q_whole, q_whole_jax, A), (q_axis, q_axis_jax, M),
                                (fsum_array, fsum_jax, A), (prod_array, prod_jax, A)]:
            want = np.asarray(jax.hessian(theirs)(jnp.asarray(x)))
            np.testing.assert_allclose(revsrc.hessian(ours)(x), want, rtol=1e-12,
                                       atol=1e-12)
            np.testing.assert_allclose(revsrc.jacrev(revsrc.grad(ours))(x), want,
                                       rtol=1e-12, atol=1e-12)


def test_other_quantile_methods_stay_refused_at_second_order():
    def nearest(x):
        return np.quantile(x * x, 0.3, method="nearest")
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.hessian(nearest)(A)
    assert info.value.code == "E202"
    assert "method='nearest'" in str(info.value)


def test_third_derivatives_through_them_are_refused_with_the_users_function_named():
    x = A[:4]
    v = np.array([0.3, -0.1, 0.7, 0.2])
    for f, name in [(prod_row, "math.prod"), (q_whole, "np.quantile")]:
        df = revsrc.grad(f)

        def along(x):
            return np.sum(df(x) * v)
        with pytest.raises(revsrc.RevsrcError) as info:
            revsrc.hessian(along)(x)
        assert info.value.code == "E104"
        assert f"the derivative of {name}" in str(info.value)
        assert "_grad" not in str(info.value)
