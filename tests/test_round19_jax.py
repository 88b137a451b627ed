"""Round 19's backend="jax" findings (tests/user_programs19_*.py), as rules: NumPy
functions whose jax.numpy twins take some arguments otherwise are called as NumPy's
are (revsrc/backends/jax/argument_twins.py): np.sort's and np.argsort's ``kind=``
(jnp's ``stable=``), np.concatenate's pieces given as lists or numbers (E603 before),
and np.ascontiguousarray's axis for a number (an internal TypeError on the default
backend before, an IndexError refused E603 under JAX)."""
import numpy as np
import pytest

import revsrc

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def ranked(x):
    order = np.argsort(x * 1.0, kind="stable")
    ties = np.argsort(np.round(x), kind="mergesort")
    return np.sum(x[order] * np.arange(4.0)) + np.sum(np.sort(x, kind="stable")[ties] ** 2)


def ranked_jax(x):
    order = jnp.argsort(x, stable=True)
    ties = jnp.argsort(jnp.round(x), stable=True)
    return jnp.sum(x[order] * jnp.arange(4.0)) + jnp.sum(jnp.sort(x, stable=True)[ties] ** 2)


def bordered(x):
    row = np.concatenate([[0.0], np.full(len(x), np.inf), (1.0, 2.0)])
    edge = np.concatenate((x[:2], [3.0], 1.5 * x[2:]))
    return np.sum(np.minimum(row[1:-2], x * x)) + np.sum(edge * row[-2:].sum()) + row[0]


def bordered_jax(x):
    row = jnp.concatenate([jnp.zeros(1), jnp.full(len(x), jnp.inf), jnp.array([1.0, 2.0])])
    edge = jnp.concatenate((x[:2], jnp.array([3.0]), 1.5 * x[2:]))
    return jnp.sum(jnp.minimum(row[1:-2], x * x)) + jnp.sum(edge * row[-2:].sum()) + row[0]


@pytest.mark.parametrize("f, twin", [(ranked, ranked_jax), (bordered, bordered_jax)])
def test_numpy_arguments_jnp_spells_otherwise(f, twin):
    x = np.array([0.3, -1.0, 2.0, 0.5])
    want = np.asarray(jax.grad(twin)(x))
    got = revsrc.grad(f, backend="jax")(x)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    np.testing.assert_allclose(revsrc.grad(f)(x), want, rtol=1e-12, atol=0)
    value, _ = revsrc.value_and_grad(f, backend="jax")(x)
    assert value == pytest.approx(f(x), rel=1e-12)


def contiguous(a):
    c = np.ascontiguousarray(a * 2.0)      # a number: one axis (NumPy's at least 1-D)
    return c[0] * a * a


def test_ascontiguousarray_of_a_number_has_an_axis():
    for backend in (None, "jax"):
        assert revsrc.grad(contiguous, backend=backend)(0.7) == pytest.approx(6 * 0.49,
                                                                              rel=1e-14)
    assert revsrc.hessian(contiguous)(0.7) == pytest.approx(12 * 0.7, rel=1e-14)
