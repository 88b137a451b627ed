"""backend="jax": a loop JAX runs as one scan whose body builds an array from a list
(round 9's C1). The adjoint's body assigns the list's cotangent on every turn; it must be
a value a lax loop can carry (it was refused with E602, naming revsrc's own classes)."""
import numpy as np
import pytest

import revsrc

jax = pytest.importorskip("jax")
jnp = jax.numpy


def oscillator(k):
    x = np.array([1.0, 0.0])
    for _ in range(100):
        x = x + 0.01 * np.array([x[1], -k * x[0]])
    return x[0]


def oscillator_stack(k):
    x = np.array([1.0, 0.0])
    for _ in range(60):
        x = x + 0.01 * np.stack([x[1], -k * x[0] + x[1] * x[1]])
    return x[0] * x[1]


def _jax_twin(steps, rhs):
    def f(k):
        x = jnp.array([1.0, 0.0])
        for _ in range(steps):
            x = x + 0.01 * rhs(x, k)
        return x
    return f


def _central(f, k, h=1e-6):
    return (f(k + h) - f(k - h)) / (2 * h)


def test_list_rebuilt_in_a_scanned_loop():
    got = revsrc.grad(oscillator, backend="jax")(2.0)
    with jax.enable_x64(True):
        twin = _jax_twin(100, lambda x, k: jnp.array([x[1], -k * x[0]]))
        want = float(jax.grad(lambda k: twin(k)[0])(2.0))
    assert abs(got - want) < 1e-12
    assert abs(got - revsrc.grad(oscillator)(2.0)) < 1e-12
    assert abs(got - _central(oscillator, 2.0)) < 1e-7


def test_stacked_list_in_a_scanned_loop():
    got = revsrc.grad(oscillator_stack, backend="jax")(1.5)
    assert abs(got - revsrc.grad(oscillator_stack)(1.5)) < 1e-12
    assert abs(got - _central(oscillator_stack, 1.5)) < 1e-7
