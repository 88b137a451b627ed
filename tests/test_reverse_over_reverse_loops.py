"""Reverse over reverse through loops, and Jacobians of functions with container
outputs.

A gradient's program saves a loop's values before their first assignment, starting
them as None; read again as the primal of a second reverse pass, that None once made
the variable's kind unknown, so the adjoint of an array started as the number 0.0 and
matmul's adjoint failed on it (a gradient penalty through ``T = T @ A`` in a loop).
Each second derivative is checked against central differences of revsrc.grad and
against JAX (x64) where it is installed.
"""
import numpy as np
import pytest

import revsrc

M2 = np.array([[0.3, -0.2], [0.5, 0.1]])
M3 = np.array([[0.2, -0.1, 0.3], [0.05, 0.1, -0.2], [0.4, 0.0, 0.15]])


def _fd_grad(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def power_loop(A):
    T = A
    for _ in range(2):
        T = T @ A
    return np.sum(T)


d_power = revsrc.grad(power_loop)


def penalty_power(A):
    return np.sum(d_power(A) ** 2)


def expm_series(A):
    term = np.eye(A.shape[0])
    total = term
    for k in range(1, 6):
        term = term @ A / k
        total = total + term
    return np.sum(np.sin(total))


d_expm = revsrc.grad(expm_series)


def penalty_expm(A):
    return np.sum(d_expm(A) ** 2)


def heun(A):
    y = np.ones(A.shape[0])
    dt = 0.1
    for _ in range(3):
        k1 = A @ y
        k2 = A @ (y + dt * k1)
        y = y + 0.5 * dt * (k1 + k2)
    return np.sum(y * y)


d_heun = revsrc.grad(heun)


def penalty_heun(A):
    return np.sum(d_heun(A) ** 2)


def row_variances(z):
    s = 0.0
    for k in range(2):
        s = s + np.sum(np.var(np.sin(z * (1.0 + 0.1 * k)).reshape(2, 2), axis=1))
    return s


d_rowvar = revsrc.grad(row_variances)


def penalty_rowvar(z):
    # the loop also saves a number (its step) before assigning it
    return np.sum(d_rowvar(z) ** 2)


@pytest.mark.parametrize("penalty,first,x", [
    (penalty_power, d_power, M2), (penalty_power, d_power, M3),
    (penalty_expm, d_expm, M3), (penalty_heun, d_heun, M3),
    (penalty_rowvar, d_rowvar, np.array([0.3, -0.5, 1.2, 0.7]))],
    ids=["power-2x2", "power-3x3", "expm-series", "heun", "var-axis-in-loop"])
def test_gradient_penalty_through_a_loop(penalty, first, x):
    got = revsrc.grad(penalty)(x)
    want = _fd_grad(lambda a: np.sum(first(a) ** 2), x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_jacrev_of_a_gradient_through_a_loop_is_the_hessian():
    jac = revsrc.jacrev(d_expm)(M3)
    np.testing.assert_allclose(jac, revsrc.hessian(expm_series)(M3), rtol=1e-9, atol=1e-11)


def test_gradient_penalty_through_a_loop_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def jpower(A):
        T = A
        for _ in range(2):
            T = T @ A
        return jnp.sum(T)
    jg = jax.grad(jpower)
    want = jax.grad(lambda a: jnp.sum(jg(a) ** 2))(M3)
    np.testing.assert_allclose(revsrc.grad(penalty_power)(M3), np.asarray(want), rtol=1e-12)


# ----- Jacobians of container outputs, nested as JAX nests them -----

X3 = np.array([0.3, -0.7, 1.1])
Y22 = np.array([[1.0, 2.0], [3.0, 0.5]])


def pair(x):
    return np.sum(x ** 2), np.cumsum(x)


def nested(x, y):
    return {"a": np.sin(x), "b": (np.sum(x * x) * y, 2.0 * np.sum(y))}


@pytest.mark.parametrize("jac", [revsrc.jacrev, revsrc.jacfwd], ids=["jacrev", "jacfwd"])
def test_jacobian_of_a_tuple_output_is_a_tuple_of_jacobians(jac):
    J = jac(pair)(X3)
    assert isinstance(J, tuple) and len(J) == 2
    np.testing.assert_allclose(J[0], 2 * X3)
    np.testing.assert_allclose(J[1], np.tril(np.ones((3, 3))))


@pytest.mark.parametrize("jac", [revsrc.jacrev, revsrc.jacfwd], ids=["jacrev", "jacfwd"])
def test_jacobian_of_a_dict_output_per_argnums(jac):
    J = jac(nested, argnums=(0, 1))(X3, Y22)
    assert set(J) == {"a", "b"}
    np.testing.assert_allclose(J["a"][0], np.diag(np.cos(X3)))
    np.testing.assert_allclose(J["a"][1], np.zeros((3, 2, 2)))
    np.testing.assert_allclose(J["b"][0][0], Y22[:, :, None] * 2 * X3)
    np.testing.assert_allclose(J["b"][0][1], np.sum(X3 * X3) * np.eye(4).reshape(2, 2, 2, 2))
    np.testing.assert_allclose(J["b"][1][0], np.zeros(3))
    np.testing.assert_allclose(J["b"][1][1], 2.0 * np.ones((2, 2)))


@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
def test_container_jacobians_match_jax(which):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def jnested(x, y):
        return {"a": jnp.sin(x), "b": (jnp.sum(x * x) * y, 2.0 * jnp.sum(y))}
    for argnums in (0, 1, (0, 1)):
        mine = getattr(revsrc, which)(nested, argnums=argnums)(X3, Y22)
        want = getattr(jax, which)(jnested, argnums=argnums)(X3, Y22)
        lm, tm = jax.tree_util.tree_flatten(mine)
        lw, tw = jax.tree_util.tree_flatten(want)
        assert tm == tw
        for a, b in zip(lm, lw):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-12)
