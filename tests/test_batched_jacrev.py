"""Reverse-mode Jacobians with every output element's row through one adjoint program
batched over its cotangent (revsrc/columns.py `rows`): the same numbers, shapes and
dtypes as one vector-Jacobian product per row (bit for bit where the batched forms
run the same arithmetic, else to 1e-12), JAX's jacrev, and central differences along
random directions. What the batch cannot take runs row by row, with the same values."""
import numpy as np
import pytest

import revsrc
from revsrc import columns
from revsrc.compose import forward as compose

RNG = np.random.default_rng(11)
A = RNG.normal(size=(16, 6)) * 0.4
M = RNG.normal(size=(4, 3))


def vector_fn(x):
    return np.tanh(A @ x) * np.sum(x ** 2) + A[:, 0] * x[1]


def elementwise_fn(x):
    return np.sin(x) * x + np.exp(x) / (1.0 + x * x)


def matrix_fn(w):
    return np.tanh(M @ w) * np.mean(w)             # (4, 3) @ (3, 2): shape (4, 2)


def two_args(x, y):
    return np.cos(A @ x) * y + x[0] * np.sum(A, axis=1)


def tuple_out(x):
    return np.sin(x) * x[0], np.sum(x ** 3), np.tanh(A @ x)


def dict_out(x):
    return {"a": np.sin(x) * 2.0, "b": np.sum(x) * x}


def with_aux(x):
    y = np.tanh(A @ x)
    return y * 3.0, np.sum(y)


def tree_in(p):
    return np.tanh(A @ p["w"] + p["b"]) * p["s"]


def with_write(x):
    y = x * 2.0
    y[0] = np.sin(x[1])                             # an item assignment: row by row
    return y * x


def cumulative(x):
    return np.cumsum(np.sin(x)) * x


def _row_by_row(monkeypatch, jac, *args):
    monkeypatch.setenv("REVSRC_BATCHED_COLUMNS", "0")
    try:
        return jac(*args)
    finally:
        monkeypatch.delenv("REVSRC_BATCHED_COLUMNS")


def _batched_used(f, nums=(0,), has_aux=False):
    kept = compose._backward(f, nums, has_aux, None).__dict__.get("_revsrc_batched_rows", {})
    return bool(kept) and all(found for _, found in kept.values())


def _same(a, b, exact=False):
    la, ta = revsrc.tree_flatten(a)
    lb, tb = revsrc.tree_flatten(b)
    assert ta == tb
    for x, y in zip(la, lb):
        assert type(x) is type(y)
        assert np.shape(x) == np.shape(y) and np.asarray(x).dtype == np.asarray(y).dtype
        if exact:
            np.testing.assert_array_equal(x, y)
        else:
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


def _central(f, x, J, out_shape, directions=3, h=1e-6):
    for _ in range(directions):
        v = RNG.normal(size=x.shape)
        numeric = (f(x + h * v) - f(x - h * v)) / (2 * h)
        got = J.reshape(out_shape + (x.size,)) @ v.ravel()
        np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-7)


def test_an_array_function_in_one_batched_adjoint(monkeypatch):
    x = RNG.normal(size=6)
    J = revsrc.jacrev(vector_fn)(x)
    assert J.shape == (16, 6) and J.dtype == np.float64
    assert _batched_used(vector_fn)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(vector_fn), x))
    np.testing.assert_allclose(J, revsrc.jacfwd(vector_fn)(x), rtol=1e-12, atol=1e-12)
    _central(vector_fn, x, J, (16,))


def test_elementwise_rows_are_bit_for_bit_the_row_loop(monkeypatch):
    x = RNG.normal(size=7)
    J = revsrc.jacrev(elementwise_fn)(x)
    assert _batched_used(elementwise_fn)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(elementwise_fn), x), exact=True)
    _central(elementwise_fn, x, J, (7,))


def test_matrix_output_and_argument(monkeypatch):
    w = RNG.normal(size=(3, 2))
    J = revsrc.jacrev(matrix_fn)(w)
    assert J.shape == (4, 2, 3, 2)
    assert _batched_used(matrix_fn)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(matrix_fn), w))
    _central(matrix_fn, w, J, (4, 2))


@pytest.mark.parametrize("y", [0.7, np.array([0.5, -1.0] * 8)])
def test_argnums_tuple(monkeypatch, y):
    x = RNG.normal(size=6)
    jac = revsrc.jacrev(two_args, argnums=(0, 1))
    Jx, Jy = jac(x, y)
    assert Jx.shape == (16, 6) and Jy.shape == (16,) + np.shape(y)
    assert _batched_used(two_args, (0, 1))
    _same((Jx, Jy), _row_by_row(monkeypatch, jac, x, y))
    _central(lambda v: two_args(v, y), x, Jx, (16,))


def test_tuple_output_one_batch_per_leaf(monkeypatch):
    x = RNG.normal(size=6)
    J = revsrc.jacrev(tuple_out)(x)
    assert [j.shape for j in J] == [(6, 6), (6,), (16, 6)]
    assert _batched_used(tuple_out)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(tuple_out), x))
    _central(lambda v: tuple_out(v)[2], x, J[2], (16,))


def test_dict_output_runs_row_by_row(monkeypatch):
    x = RNG.normal(size=5)
    J = revsrc.jacrev(dict_out)(x)
    assert not _batched_used(dict_out)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(dict_out), x), exact=True)
    np.testing.assert_allclose(J["a"], np.diag(2.0 * np.cos(x)), rtol=1e-14)
    np.testing.assert_allclose(J["b"], np.eye(5) * np.sum(x) + x[:, None], rtol=1e-14)


def test_has_aux(monkeypatch):
    x = RNG.normal(size=6)
    jac = revsrc.jacrev(with_aux, has_aux=True)
    J, aux = jac(x)
    assert _batched_used(with_aux, has_aux=True)
    _same((J, aux), _row_by_row(monkeypatch, jac, x))
    assert aux == np.sum(np.tanh(A @ x))


def test_container_argument(monkeypatch):
    p = {"w": RNG.normal(size=6), "b": RNG.normal(size=16), "s": 1.5}
    J = revsrc.jacrev(tree_in)(p)
    assert J["w"].shape == (16, 6) and J["b"].shape == (16, 16) and J["s"].shape == (16,)
    assert _batched_used(tree_in)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(tree_in), p))
    _central(lambda w: tree_in(dict(p, w=w)), p["w"], J["w"], (16,))


def test_an_empty_output():
    for x in (RNG.normal(size=3), RNG.normal(size=3).astype(np.float32)):
        J = revsrc.jacrev(lambda v: v[:0] * 2.0)(x)
        assert J.shape == (0, 3) and J.dtype == x.dtype


def test_float32_keeps_its_dtype(monkeypatch):
    x = RNG.normal(size=5).astype(np.float32)
    J = revsrc.jacrev(elementwise_fn)(x)
    assert J.dtype == np.float32
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(elementwise_fn), x), exact=True)


def test_an_item_assignment_runs_row_by_row(monkeypatch):
    x = RNG.normal(size=5)
    J = revsrc.jacrev(with_write)(x)
    assert not _batched_used(with_write)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(with_write), x), exact=True)
    _central(with_write, x, J, (5,))


def test_an_operation_with_no_batching_rule(monkeypatch):
    x = RNG.normal(size=6)
    J = revsrc.jacrev(cumulative)(x)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(cumulative), x))
    _central(cumulative, x, J, (6,))


def test_a_large_output_runs_in_chunks(monkeypatch):
    monkeypatch.setattr(columns, "_CHUNK", 16 * 5)     # 5 rows a chunk: 4 chunks
    x = RNG.normal(size=6)
    J = revsrc.jacrev(vector_fn)(x)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(vector_fn), x))


def recurrence(x):
    h = x
    for _ in range(5):
        h = np.tanh(A[:6, :6] @ h) + x
    return h


def test_a_loop_whose_saves_have_a_bound_runs_row_by_row(monkeypatch):
    x = RNG.normal(size=6)
    J = revsrc.jacrev(recurrence)(x)
    _same(J, _row_by_row(monkeypatch, revsrc.jacrev(recurrence), x), exact=True)
    _central(recurrence, x, J, (6,))


def test_an_error_in_the_function_is_its_own():
    def bad(x):
        return np.sqrt(x) * x
    with pytest.warns(RuntimeWarning):
        J = revsrc.jacrev(bad)(np.array([-1.0, 4.0]))
    assert np.isnan(J[0, 0]) and J[1, 1] == pytest.approx(1.5 * 2.0)


@pytest.mark.parametrize("f,shape", [(vector_fn, (6,)), (matrix_fn, (3, 2)),
                                     (tuple_out, (6,))])
def test_against_jax(f, shape):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)
    twins = {
        vector_fn: lambda x: jnp.tanh(A @ x) * jnp.sum(x ** 2) + A[:, 0] * x[1],
        matrix_fn: lambda w: jnp.tanh(M @ w) * jnp.mean(w),
        tuple_out: lambda x: (jnp.sin(x) * x[0], jnp.sum(x ** 3), jnp.tanh(A @ x)),
    }
    x = RNG.normal(size=shape)
    got = revsrc.jacrev(f)(x)
    want = jax.jacrev(twins[f])(jnp.asarray(x))
    for g, w in zip(revsrc.tree_flatten(got)[0], jax.tree_util.tree_leaves(want)):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-12)


def positives(x):
    return np.sin(x[x > 0]) * x[x > 0]        # the output's shape depends on the values


def test_an_output_shape_seen_before_is_checked_against_the_value(monkeypatch):
    # the second call on arguments of the same shapes runs the batched adjoint for the
    # output shape the first call had, without calling the function first; the
    # program's value must have that shape, else the Jacobian is made the ordinary way
    jac = revsrc.jacrev(positives)
    xs = [np.array([0.5, -1.0, 2.0, 0.3]), np.array([0.5, 1.0, 2.0, -0.3]),
          np.array([-0.5, -1.0, 2.0, -0.3]), np.array([0.7, -1.0, 2.5, 0.3])]
    for x in xs:
        J = jac(x)
        assert J.shape == (int(np.sum(x > 0)), 4)
        _same(J, _row_by_row(monkeypatch, jac, x), exact=True)
        _central(positives, x, J, J.shape[:1])
    assert _batched_used(positives)
    tr = compose._backward(positives, (0,), False, None)
    assert tr.__dict__["_revsrc_output_shapes"] == {(((4,), np.dtype(np.float64)),): (3,)}
    # the same shapes, one call after another: the same numbers as the first call's
    x = RNG.normal(size=6)
    first = revsrc.jacrev(vector_fn)(x)
    np.testing.assert_array_equal(revsrc.jacrev(vector_fn)(x), first)
    np.testing.assert_array_equal(revsrc.jacrev(vector_fn)(x * 1.5),
                                  _row_by_row(monkeypatch, revsrc.jacrev(vector_fn), x * 1.5))
