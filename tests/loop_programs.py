"""Loop programs shared by the checkpointing tests (tests/test_checkpoint*.py): written
once here so that the stored and the checkpointed forms of the same program are what
each file compares."""
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
