"""The FFTs over several axes (np.fft.fft2, ifft2, fftn, ifftn; E202 before, though the
docs said the FFTs are differentiated): one 1-D transform per axis, so the adjoint is
their adjoints in the other order. Gradients against central differences, Hessian-vector
products in forward over reverse and in reverse over reverse against differences of
the gradient, and against JAX."""
import numpy as np
import pytest

import revsrc

RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 6))
W = RNG.normal(size=(4, 6))


def power2(x):
    return np.sum(np.abs(np.fft.fft2(x)) ** 2 * W)


def inverse2(x):
    return np.sum(np.real(np.fft.ifft2(x * 1j + x ** 2)) * W)


def padded(x):
    return np.sum(np.abs(np.fft.fftn(x, s=(5, 8), axes=(0, 1))) ** 2)


def swapped_axes(x):
    return np.sum(np.abs(np.fft.fft2(x, axes=(1, 0), norm="ortho")) ** 3)


def circular_convolution(x):
    return np.sum(np.real(np.fft.ifft2(np.fft.fft2(x) * np.fft.fft2(W))) ** 2)


def inverse_n(x):
    return np.sum(np.imag(np.fft.ifftn(np.exp(1j * x), norm="forward")) ** 2)


CASES = [power2, inverse2, padded, swapped_axes, circular_convolution, inverse_n]


def _fd(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("f", CASES)
def test_gradient_matches_central_differences(f):
    g = revsrc.grad(f)(X)
    np.testing.assert_allclose(g, _fd(f, X), rtol=1e-6, atol=1e-7 * np.max(np.abs(g)))


@pytest.mark.parametrize("f", CASES)
def test_second_order_in_both_modes(f):
    v = RNG.normal(size=X.shape)
    dg = revsrc.grad(f)
    h = 1e-5
    want = (dg(X + h * v) - dg(X - h * v)) / (2 * h)
    fwd = revsrc.hvp(f, (X,), (v,))
    rev = revsrc.grad(lambda x: np.sum(revsrc.grad(f)(x) * v))(X)
    scale = np.max(np.abs(want))
    np.testing.assert_allclose(fwd, want, rtol=1e-6, atol=1e-8 * scale)
    np.testing.assert_allclose(rev, fwd, rtol=1e-10, atol=1e-12 * scale)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    w = jnp.asarray(W)

    def conv_j(x):
        return jnp.sum(jnp.real(jnp.fft.ifft2(jnp.fft.fft2(x) * jnp.fft.fft2(w))) ** 2)

    def padded_j(x):
        return jnp.sum(jnp.abs(jnp.fft.fftn(x, s=(5, 8), axes=(0, 1))) ** 2)

    for mine, theirs in ((circular_convolution, conv_j), (padded, padded_j)):
        np.testing.assert_allclose(revsrc.grad(mine)(X), np.asarray(jax.grad(theirs)(X)),
                                   rtol=1e-10, atol=1e-12)
