"""Hessians and Hessian-vector products of array loops whose step is scaled by an int
the loop picks (``1 if k % 3 else -1``, ``(-1) ** k``, ``max(k, 1)``): the inner
derivative saves those ints, its loop may run checkpointed, and the segment length it
computes from the loop's state is an int with no derivative (it was E104). Checked
against central differences of revsrc's own gradient and against autograd."""
import numpy as np
import pytest

import revsrc

X = np.array([0.3, -0.2, 0.5])


def signed(x):
    for k in range(7):
        sgn = 1 if k % 3 else -1
        x = x + 0.1 * np.tanh(x) * sgn
    return np.sum(x ** 3)


def alternating(x):
    for k in range(5):
        x = np.tanh(x) * (-1) ** k
    return np.sum(x ** 3 + x)


def clipped_scale(x):
    for k in range(4):
        x = np.sin(x) * max(k, 1)
    return np.sum(x * x) + x[0] * x[2]


def fd_hessian(f, x, h=1e-5):
    g = revsrc.grad(f)
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((g(x + e) - g(x - e)) / (2 * h))
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("f", [signed, alternating, clipped_scale])
def test_hessian_and_hvp_of_an_int_scaled_loop(f):
    H = revsrc.hessian(f)(X)
    np.testing.assert_allclose(H, fd_hessian(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-14)
    v = np.array([0.7, -1.1, 0.4])
    np.testing.assert_allclose(revsrc.hvp(f, (X,), (v,)), H @ v, rtol=1e-12, atol=1e-14)


def test_against_autograd():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def signed_ag(x):
        for k in range(7):
            sgn = 1 if k % 3 else -1
            x = x + 0.1 * anp.tanh(x) * sgn
        return anp.sum(x ** 3)
    np.testing.assert_allclose(revsrc.hessian(signed)(X), autograd.hessian(signed_ag)(X),
                               rtol=1e-12, atol=1e-14)


def test_a_long_int_scaled_loop_under_a_memory_bound():
    # the Hessian's inner gradient runs this loop checkpointed: its segment length is
    # computed from the loop's state
    def long_loop(x):
        for k in range(400):
            x = x + 0.001 * np.tanh(x) * (1 if k % 2 else -1)
        return np.sum(x ** 3)
    H = revsrc.hessian(long_loop)(X)
    np.testing.assert_allclose(H, fd_hessian(long_loop, X), rtol=1e-6, atol=1e-8)
