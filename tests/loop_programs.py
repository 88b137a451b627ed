"""Loop programs shared by several test files: the checkpointing tests
(tests/test_checkpoint*.py), so that the stored and the checkpointed forms of the same
program are what each file compares, and the higher-order tests (a scalar loop with a
branch, and its JAX twin)."""
import math

import numpy as np


def rk4(y0, n):
    """n steps of classical Runge-Kutta on y' = sin(y) / 2 - y / 10, a small array state;
    the loss is the squared norm of the final state."""
    y = y0
    dt = 0.01
    for i in range(n):
        k1 = np.sin(y) * 0.5 - 0.1 * y
        k2 = np.sin(y + 0.5 * dt * k1) * 0.5 - 0.1 * (y + 0.5 * dt * k1)
        k3 = np.sin(y + 0.5 * dt * k2) * 0.5 - 0.1 * (y + 0.5 * dt * k2)
        k4 = np.sin(y + dt * k3) * 0.5 - 0.1 * (y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def looped(x):
    """Three turns of a branch on a differentiated value, then a damping factor."""
    y = x
    for _ in range(3):
        if y > 1.0:
            y = y * 0.5 + math.sin(x)
        else:
            y = y * x + 0.3
    return y * math.exp(-0.1 * x)


def looped_jax(x):
    """``looped`` for JAX: the branch is a select (JAX cannot branch on a traced value)."""
    import jax.numpy as jnp
    y = x
    for _ in range(3):
        y = jnp.where(y > 1.0, y * 0.5 + jnp.sin(x), y * x + 0.3)
    return y * jnp.exp(-0.1 * x)
