"""Arrays whose shapes change from one loop iteration to the next."""
import numpy as np

from revsrc.testing import check_grads


def growing(x):
    acc = np.zeros(1)
    total = 0.0
    for i in range(4):
        acc = np.concatenate([acc, x[: i + 1] * 0.5])
        y = acc * 2.0 + 1.0
        total = total + np.sum(np.tanh(y) * acc)
    return total


def broadcast_changes(x, b):
    s = 0.0
    for i in range(3):
        z = np.reshape(x[: 2 * (i + 1)], (i + 1, 2)) + b
        s = s + np.sum(z * z)
    return s


def test_shapes_change_inside_a_loop():
    x = np.linspace(0.1, 0.9, 6)
    check_grads(growing, (x,))


def test_broadcast_shapes_change_inside_a_loop():
    x = np.linspace(-0.5, 0.7, 6)
    b = np.array([0.3, -0.2])
    check_grads(broadcast_changes, (x, b), argnums=(0, 1))
