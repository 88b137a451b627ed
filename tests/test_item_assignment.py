"""Item assignment into arrays the function creates, and array methods."""
import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads


def set_items(x):
    y = np.zeros(5)
    y[0] = x[1] * 2.0
    y[2] = np.sin(x[0])
    y[3] = y[0] * x[2]  # reads an item written just before
    return np.sum(y * y)


def add_into_slice(x):
    y = np.ones(6)
    y[1:4] += x * x
    y[2:5] += np.tanh(x)  # overlaps the first write
    return np.sum(y * np.arange(6.0))


def set_mask(x):
    y = x * 1.0
    mask = x > 0.0
    y[mask] = np.exp(x[mask])
    return np.sum(y * y)


def overwrite_in_loop(x):
    y = np.zeros(3)
    total = 0.0
    for i in range(4):
        y[i % 3] = y[i % 3] * 0.5 + x[i % 3] * (i + 1)
        total = total + np.sum(np.sin(y))
    return total


def methods(x):
    z = x.astype(float)
    m = (z * z).mean()
    return z.sum() * m + z.max() + z.reshape(2, 2).T[0, 1] * 3.0


@pytest.mark.parametrize("fn,n", [(set_items, 3), (add_into_slice, 3), (set_mask, 5),
                                  (overwrite_in_loop, 3), (methods, 4)],
                         ids=["set_items", "add_into_slice", "set_mask", "overwrite_in_loop",
                              "methods"])
def test_item_assignment_gradients(fn, n):
    x = np.array([0.3, -0.7, 1.1, 0.45, -0.2])[:n]
    check_grads(fn, (x,))


def test_the_callers_array_is_not_changed():
    x = np.array([0.3, -0.7, 1.1, 0.45, -0.2])
    before = x.copy()
    revsrc.grad(set_mask)(x)
    np.testing.assert_array_equal(x, before)
