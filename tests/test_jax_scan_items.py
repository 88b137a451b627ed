"""backend="jax": item writes (and other static branches that save) in a loop JAX runs
as one lax loop (round 8's C3). A body whose trace pushes a Python int (the flag of a
branch whose test is static, such as whether ``u[1]`` is a view) pushes it on every
iteration; stacked into the loop's rows it came back traced, and the adjoint took the
traced branch's path, popping saves its forward never pushed ("pop from empty list").
Each gradient is checked against JAX's own (x64) of the same program written with
``.at[].set``, and against central differences."""
import numpy as np
import pytest

import revsrc

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

X = np.arange(1., 7.)


def central(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def item_copy(x):
    u = x.copy()
    for _ in range(40):
        u[0] = u[1]
    return np.sum(u)


def item_copy_j(x):
    u = x
    for _ in range(40):
        u = u.at[0].set(u[1])
    return jnp.sum(u)


def item_iadd(x):
    u = x.copy()
    for _ in range(40):
        u[0] += 0.1 * u[1]
    return np.sum(u ** 2)


def item_iadd_j(x):
    u = x
    for _ in range(40):
        u = u.at[0].add(0.1 * u[1])
    return jnp.sum(u ** 2)


def item_decay(x):
    u = x.copy()
    for _ in range(40):
        u[2] = u[2] * 0.9
    return np.sum(np.sin(u))


def item_decay_j(x):
    u = x
    for _ in range(40):
        u = u.at[2].set(u[2] * 0.9)
    return jnp.sum(jnp.sin(u))


def item_modulo(x):
    u = x.copy()
    for i in range(40):
        u[i % 3] = u[i % 3] * 0.99 + 0.01 * u[5]
    return np.sum(u * u)


def item_modulo_j(x):
    u = x
    for i in range(40):
        u = u.at[i % 3].set(u[i % 3] * 0.99 + 0.01 * u[5])
    return jnp.sum(u * u)


def item_fancy(x):
    u = x.copy()
    for _ in range(40):
        u[np.array([0])] = u[1] * 0.5 + u[0] * 0.5
    return np.sum(u ** 2)


def item_fancy_j(x):
    u = x
    for _ in range(40):
        u = u.at[jnp.array([0])].set(u[1] * 0.5 + u[0] * 0.5)
    return jnp.sum(u ** 2)


def slice_and_item(x):
    u = x.copy()
    for _ in range(40):
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
        u[0] = u[1]
    return np.sum(u ** 2)


def slice_and_item_j(x):
    u = x
    for _ in range(40):
        u = u.at[1:-1].set(0.5 * (u[:-2] + u[2:]))
        u = u.at[0].set(u[1])
    return jnp.sum(u ** 2)


def static_branch(x):
    u = x.copy()
    s = 0.0
    for _ in range(40):
        if u.ndim == 1:
            s = s + np.sin(u[1] * s + u[2])
    return s


def static_branch_j(x):
    u = x
    s = 0.0
    for _ in range(40):
        s = s + jnp.sin(u[1] * s + u[2])
    return s


CASES = [(item_copy, item_copy_j), (item_iadd, item_iadd_j), (item_decay, item_decay_j),
         (item_modulo, item_modulo_j), (item_fancy, item_fancy_j),
         (slice_and_item, slice_and_item_j), (static_branch, static_branch_j)]


@pytest.mark.parametrize("f, fj", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("memory", [None, "1KB"])
def test_item_write_in_scanned_loop(f, fj, memory):
    kw = {} if memory is None else {"memory": memory}
    g = revsrc.grad(f, backend="jax", **kw)(X)
    want = np.asarray(jax.grad(fj)(jnp.asarray(X)))
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, central(f, X), rtol=1e-5, atol=1e-6)


def test_item_copy_values():
    g = revsrc.grad(item_copy, backend="jax")(X)
    np.testing.assert_array_equal(g, [0., 2., 1., 1., 1., 1.])


def item_while(x):
    u = x.copy()
    while u[0] < 5.0:
        u[0] = u[0] * 1.5 + 0.1 * u[1]
    return np.sum(u ** 2)


def test_item_write_in_while_loop():
    x = np.array([0.3, 0.7, 1.1])
    g = revsrc.grad(item_while, backend="jax")(x)
    u = x.copy()
    n = 0
    while u[0] < 5.0:
        u[0] = u[0] * 1.5 + 0.1 * u[1]
        n += 1

    def fj(x):
        u = x
        for _ in range(n):
            u = u.at[0].set(u[0] * 1.5 + 0.1 * u[1])
        return jnp.sum(u ** 2)
    want = np.asarray(jax.grad(fj)(jnp.asarray(x)))
    np.testing.assert_allclose(g, want, rtol=1e-10)
    np.testing.assert_allclose(g, central(item_while, x), rtol=1e-5)


def row_write(x):
    m = np.outer(x[:3], x[3:])
    for _ in range(40):
        m[0, :] = m[1, :] * 0.5 + m[0, :] * 0.5
    return np.sum(m ** 2)


def row_write_j(x):
    m = jnp.outer(x[:3], x[3:])
    for _ in range(40):
        m = m.at[0, :].set(m[1, :] * 0.5 + m[0, :] * 0.5)
    return jnp.sum(m ** 2)


def test_row_write_still_right():
    g = revsrc.grad(row_write, backend="jax")(X)
    np.testing.assert_allclose(g, np.asarray(jax.grad(row_write_j)(jnp.asarray(X))),
                               rtol=1e-10)


def item_break(x):
    u = x.copy()
    for _ in range(60):
        u[0] = u[0] * 1.2 + 0.1 * u[1]
        if u[0] > 4.0:
            break
    return np.sum(u ** 2)


def test_item_write_in_loop_with_traced_break():
    x = np.array([0.3, 0.7, 1.1])
    g = revsrc.grad(item_break, backend="jax")(x)
    np.testing.assert_allclose(g, revsrc.grad(item_break)(x), rtol=1e-10)
    np.testing.assert_allclose(g, central(item_break, x), rtol=1e-5)
