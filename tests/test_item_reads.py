"""An item read from an array (``old = y[0]``) is a NumPy scalar, a copy: a later
write into the array (``y[0] = ...``) must not change it. A row read from a 2-D array
(``row = M[0]``) is a view: a later write must show through it. revsrc asks NumPy at
run time which one it has (round 6 of unseen programs found item reads followed like
views: ``y = x.copy(); old = y[0]; y[0] = 5 * x[1]; return old + y[0]`` gave 20, not
11)."""
import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads


def copy_then_old(x):
    y = x.copy()
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0]


def astype_then_swap(x):
    y = x.astype(float)
    y[0], y[1] = y[1] * 2.0, y[0]
    return y[0] + 10.0 * y[1] + y[2]


def runtime_index(x, i):
    y = np.concatenate([x])
    old = y[i]
    y[i] = 3.0 * x[0]
    return old * y[i] + np.sum(y)


def insertion_sort(x):
    y = x.copy()
    for i in range(1, y.shape[0]):
        key = y[i]
        j = i - 1
        while j >= 0 and y[j] > key:
            y[j + 1] = y[j]
            j -= 1
        y[j + 1] = key
    return np.sum(y * np.arange(1.0, y.shape[0] + 1.0))


def row_is_a_view(M):
    A = M.copy()
    row = A[0]
    A[0, 1] = 7.0 * M[1, 1]
    return np.sum(row * row)


def tuple_index_of_all_axes(M):
    A = M * 1.0
    a = A[0, 1]
    A[0, 1] = M[1, 0] ** 2
    return a * A[0, 1]


CASES = [
    (copy_then_old, (np.array([1.0, 2.0]),)),
    (astype_then_swap, (np.array([0.4, -1.2, 0.7]),)),
    (runtime_index, (np.array([0.5, 1.5, -2.0]), 2)),
    (insertion_sort, (np.array([0.3, -1.0, 2.5, 0.1, 1.7]),)),
    (row_is_a_view, (np.array([[1.0, 2.0], [3.0, 4.0]]),)),
    (tuple_index_of_all_axes, (np.array([[1.0, 2.0], [3.0, 4.0]]),)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_value_and_gradient_match_python(f, args):
    value, grad = revsrc.value_and_grad(f)(*args)
    assert value == f(*args)
    check_grads(f, args)
    # forward mode: the directional derivative along a random direction
    rng = np.random.default_rng(7)
    v = rng.standard_normal(args[0].shape)
    _, tangent = revsrc.jvp(f, (args[0],) + tuple(args[1:]), (v,) + tuple(
        np.zeros_like(a) if isinstance(a, np.ndarray) else 0.0 for a in args[1:]))
    assert np.isclose(tangent, np.sum(grad * v), rtol=1e-12, atol=1e-12)


def test_hessian_of_an_item_kept_through_a_write():
    def f(x):
        y = x.copy()
        old = y[0]
        y[0] = 5.0 * x[1]
        return old * y[0] + old ** 2
    x = np.array([1.0, 2.0])
    H = revsrc.hessian(f)(x)
    g = revsrc.grad(f)
    h = 1e-5
    for j in range(2):
        e = np.zeros(2)
        e[j] = h
        column = (g(x + e) - g(x - e)) / (2 * h)     # central differences of the gradient
        assert np.allclose(H[:, j], column, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("f, args", CASES[:2] + CASES[4:], ids=[c[0].__name__ for c in CASES[:2] + CASES[4:]])
def test_backend_jax_gives_the_same_gradient(f, args):
    pytest.importorskip("jax")
    want = revsrc.grad(f)(*args)
    got = revsrc.grad(f, backend="jax")(*args)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
