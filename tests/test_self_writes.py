"""An array written from itself (issue 22, W1): ``a[::-1] = a``, ``a[perm] = a``,
``a[:] = a``, ``A[:, ::-1] = A`` and every write whose right-hand side is, or may share
memory with, the array written. NumPy reads the whole right-hand side before writing
where they overlap, so the value written is the old array; its adjoint is what the
written places of the new array get, after the old adjoint there is cleared.
Gradients against central differences and JAX with x64; forward mode, Hessians and
backend="jax" too."""
import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

W = np.array([1.0, 2.0, 3.0, 4.0])
M = np.array([[1.0, -2.0], [0.5, 3.0]])
PERM = np.array([2, 0, 3, 1])
X = np.array([1.1, 2.3, -0.7, 0.4])


# ----- Spellings, each with its JAX twin (None: central differences only) -----

def reversed_self(x):
    a = x * 1.0
    a[::-1] = a
    return np.sum(a * W)


def reversed_self_jax(x):
    a = x * 1.0
    a = a.at[::-1].set(a)
    return jnp.sum(a * W)


def permuted_self(x):
    a = np.sin(x)
    a[PERM] = a
    return np.sum(a * W * a)


def permuted_self_jax(x):
    a = jnp.sin(x)
    a = a.at[PERM].set(a)
    return jnp.sum(a * W * a)


def whole_self(x):
    a = np.tanh(x)
    a[:] = a
    return np.sum(a * W)


def whole_self_jax(x):
    return jnp.sum(jnp.tanh(x) * W)


def ellipsis_self(x):
    a = x ** 2
    a[...] = a
    return np.sum(a * W)


def ellipsis_self_jax(x):
    return jnp.sum(x ** 2 * W)


def columns_flipped_self(x):
    A = np.outer(x, x[:2])
    A[:, ::-1] = A
    return np.sum(A * np.array([1.0, 2.0]) * A)


def columns_flipped_self_jax(x):
    A = jnp.outer(x, x[:2])
    A = A.at[:, ::-1].set(A)
    return jnp.sum(A * jnp.array([1.0, 2.0]) * A)


def rows_flipped_self(x):
    A = np.outer(x, W)
    A[::-1] = A
    return np.sum(A * np.outer(W, W) * A)


def rows_flipped_self_jax(x):
    A = jnp.outer(x, W)
    A = A.at[::-1].set(A)
    return jnp.sum(A * jnp.outer(W, W) * A)


def shifted_right(x):
    a = x * 1.0
    a[1:] = a[:-1]                 # overlapping slices of one array
    return np.sum(a * W * a)


def shifted_right_jax(x):
    a = x * 1.0
    a = a.at[1:].set(a[:-1])
    return jnp.sum(a * W * a)


def shifted_left(x):
    a = np.exp(x)
    a[:-1] = a[1:]
    return np.sum(a * W)


def shifted_left_jax(x):
    a = jnp.exp(x)
    a = a.at[:-1].set(a[1:])
    return jnp.sum(a * W)


def view_by_name(x):
    a = x * 1.0
    v = a[::-1]                    # a view of a, written into a
    a[:] = v
    return np.sum(a * W * a)


def view_by_name_jax(x):
    a = x * 1.0
    a = a.at[:].set(a[::-1])
    return jnp.sum(a * W * a)


def transposed_self(x):
    A = x.reshape(2, 2) * 1.0
    A[:] = A.T
    return np.sum(A * M * A)


def transposed_self_jax(x):
    A = x.reshape(2, 2) * 1.0
    A = A.at[:].set(A.T)
    return jnp.sum(A * M * A)


def alias_written(x):
    a = x * 1.0
    b = a                          # the same array by another name
    a[::-1] = b
    return np.sum(a * W)


def through_a_view_both_sides(x):
    a = x * 1.0
    b = a[:]
    b[::-1] = b                    # written and read through the same view
    return np.sum(a * W * a)


def into_a_view_from_base(x):
    a = x * 1.0
    b = a[:]
    b[::-1] = a                    # written through a view, read from its base
    return np.sum(a * W * a)


def integer_list_index_self(x):
    a = x * 1.0
    a[[3, 1, 0, 2]] = a
    return np.sum(a * W * a)


def twice(x):
    a = np.exp(x)
    a[::-1] = a
    a[PERM] = a
    return np.sum(a * W * a)


def in_a_loop(x):
    a = x * 1.0
    for _ in range(3):
        a[::-1] = a
        a = a * 1.5 + 0.1 * a ** 2
    return np.sum(a * W)


def in_a_loop_in_place(x):
    a = x * 1.0
    for i in range(3):
        a[PERM] = a
        a[i] = a[i] * a[i + 1]
    return np.sum(a * W)


def under_a_condition(x):
    a = x * 1.0
    if x[0] > 0:
        a[::-1] = a
    return np.sum(a * W * a)


def sub_block_reversed(x):
    a = x * 2.0
    a[1:3] = a[1:3][::-1]
    return np.sum(a * W * a)


def row_from_row(x):
    A = np.outer(x, x)
    A[0] = A[1]
    A[:, 2] = A[:, 0]
    return np.sum(A * A)


def augmented_self(x):
    a = x * 1.0
    a[::-1] += a                   # reads the old a whole, as assignment does
    return np.sum(a * W * a)


def list_reversed_self(x):
    xs = [x[0], x[1], x[2], x[3]]
    xs[::-1] = xs                  # a list assigned to a slice of itself is copied first
    return xs[0] * 1.0 + xs[1] * 2.0 + xs[3] * xs[2]


def list_whole_self(x):
    xs = [x[0] * 1.0, x[1] * 2.0]
    xs[:] = xs
    return xs[0] * xs[1]


WITH_JAX = [
    (reversed_self, reversed_self_jax), (permuted_self, permuted_self_jax),
    (whole_self, whole_self_jax), (ellipsis_self, ellipsis_self_jax),
    (columns_flipped_self, columns_flipped_self_jax),
    (rows_flipped_self, rows_flipped_self_jax), (shifted_right, shifted_right_jax),
    (shifted_left, shifted_left_jax), (view_by_name, view_by_name_jax),
    (transposed_self, transposed_self_jax),
]
ALL = [f for f, _ in WITH_JAX] + [
    alias_written, through_a_view_both_sides, into_a_view_from_base,
    integer_list_index_self, twice, in_a_loop, in_a_loop_in_place, under_a_condition,
    sub_block_reversed, row_from_row, augmented_self, list_reversed_self, list_whole_self]
# what backend="jax" runs (a list's slice assignment and the rest too)
ON_JAX = ALL


def _ids(fs):
    return [f.__name__ for f in fs]


@pytest.mark.parametrize("f", ALL, ids=_ids(ALL))
def test_gradient_matches_central_differences(f):
    check_grads(f, (X,))
    check_grads(f, (-X[::-1].copy(),))      # the other branch of under_a_condition


@pytest.mark.parametrize("f,fj", WITH_JAX, ids=_ids([f for f, _ in WITH_JAX]))
def test_gradient_matches_jax(f, fj):
    np.testing.assert_allclose(revsrc.grad(f)(X), jax.grad(fj)(jnp.asarray(X)),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f", ON_JAX, ids=_ids(ON_JAX))
def test_backend_jax_matches_python(f):
    np.testing.assert_allclose(revsrc.grad(f, backend="jax")(X), revsrc.grad(f)(X),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f", ALL, ids=_ids(ALL))
def test_value_and_grad_keeps_the_value(f):
    value, g = revsrc.value_and_grad(f)(X)
    assert value == pytest.approx(f(X.copy()), rel=1e-14)
    np.testing.assert_allclose(g, revsrc.grad(f)(X), rtol=1e-14)


@pytest.mark.parametrize("f", ALL, ids=_ids(ALL))
def test_forward_mode_agrees(f):
    # jacfwd and jvp against the reverse gradient (itself checked above)
    g = revsrc.grad(f)(X)
    np.testing.assert_allclose(revsrc.jacfwd(f)(X), g, rtol=1e-10, atol=1e-12)
    t = np.array([0.3, -1.0, 0.5, 2.0])
    _, tangent = revsrc.jvp(f, (X,), (t,))
    assert tangent == pytest.approx(float(g @ t), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("f", ALL, ids=_ids(ALL))
def test_vjp_agrees(f):
    value, pullback = revsrc.vjp(f, X)
    (g,) = pullback(2.0)
    np.testing.assert_allclose(g, 2.0 * revsrc.grad(f)(X), rtol=1e-12, atol=1e-12)


HESSIANS = [(permuted_self, permuted_self_jax),
            (columns_flipped_self, columns_flipped_self_jax),
            (rows_flipped_self, rows_flipped_self_jax), (shifted_right, shifted_right_jax),
            (view_by_name, view_by_name_jax), (transposed_self, transposed_self_jax)]


@pytest.mark.parametrize("f,fj", HESSIANS, ids=_ids([f for f, _ in HESSIANS]))
def test_hessian_matches_jax(f, fj):
    np.testing.assert_allclose(revsrc.hessian(f)(X), jax.hessian(fj)(jnp.asarray(X)),
                               rtol=1e-10, atol=1e-10)


def test_jacrev_of_a_self_write():
    def f(x):
        a = np.sin(x)
        a[::-1] = a
        return a * x

    def fj(x):
        a = jnp.sin(x)
        return a.at[::-1].set(a) * x

    np.testing.assert_allclose(revsrc.jacrev(f)(X), jax.jacrev(fj)(jnp.asarray(X)),
                               rtol=1e-12, atol=1e-12)


def test_the_argument_is_not_changed():
    x = X.copy()
    revsrc.grad(reversed_self)(x)
    revsrc.grad(permuted_self, backend="jax")(x)
    np.testing.assert_array_equal(x, X)


def long_loop_of_self_writes(x):
    a = x * 1.0
    for i in range(200):
        a[::-1] = a
        a[PERM] = a * 0.999 + 0.001 * np.sin(a)
    return np.sum(a * W)


def test_checkpointed_loop_matches_the_stored_gradient():
    # memory= recomputes the loop's turns from checkpoints: the same adjoint rule
    stored = revsrc.grad(long_loop_of_self_writes)(X)
    check_grads(long_loop_of_self_writes, (X,))
    bounded = revsrc.grad(long_loop_of_self_writes, memory=2000)(X)
    np.testing.assert_array_equal(bounded, stored)
