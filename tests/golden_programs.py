"""Three representative programs whose generated adjoints are kept as golden files."""
import math

import numpy as np


def loop_with_branch(x, n):
    s = 0.0
    for i in range(n):
        if x > 1.0:
            x = x - 0.1 * math.sin(x)
        else:
            x = x * 1.5
        s += x
    return s


def _scale(v, k=2.0):
    return k * math.exp(v)


def calls_helper(x, y):
    a = _scale(x * y)
    b = _scale(y, k=0.5)
    return a + b


def numpy_layer(W, x, b):
    h = np.tanh(np.dot(x, W) + b)
    return np.sum(h * h)


GOLDEN = {
    "loop_with_branch": (loop_with_branch, (0.8, 5), 0),
    "calls_helper": (calls_helper, (0.3, 0.7), (0, 1)),
    "numpy_layer": (numpy_layer, (np.ones((3, 2)), np.ones((4, 3)), np.ones(2)), 0),
}
