"""Second derivatives through builtins ``sum``, lists built item by item and max/min over
items, in reverse over reverse (``grad(grad(f))``, ``jacrev(grad(f))``): the adjoint of
``sum(xs)`` gives ``g`` to every item, and its own reverse rule sums the items' adjoints back (E104 before). Checked
against forward over reverse (``revsrc.hessian``) and central differences of the
gradient, on numbers, on lists of arrays and on a 2-D array summed over its rows."""
import math

import numpy as np
import pytest

import revsrc


def scalar_generator(x):
    return sum(v * math.sin(v) for v in (x, 2.0 * x, x * x))


def scalar_list(x):
    ps = [x, np.sin(x)]
    return sum(ps) * 2.0 + sum([p * p for p in ps])


def rows_of_an_array(x):
    return np.sum(sum(x * x) ** 2)


def list_of_arrays(x):
    parts = [x, np.sin(x), x * x]
    return np.sum(sum(parts) ** 2)


@pytest.mark.parametrize("f", [scalar_generator, scalar_list])
@pytest.mark.parametrize("x", [0.7, -1.3])
def test_grad_of_grad_through_sum_of_numbers(f, x):
    dg = revsrc.grad(f)
    h = 1e-6
    want = (dg(x + h) - dg(x - h)) / (2 * h)
    got = revsrc.grad(dg)(x)
    np.testing.assert_allclose(got, want, rtol=1e-7)
    assert got == revsrc.hessian(f)(x)
    assert revsrc.jit(revsrc.grad(dg))(x) == got


@pytest.mark.parametrize("f, x", [
    (rows_of_an_array, np.array([[0.3, -0.2], [0.5, 0.1], [0.2, 0.4]])),
    (list_of_arrays, np.array([0.3, -0.2, 0.9])),
])
def test_jacrev_of_grad_through_sum_of_arrays(f, x):
    H = revsrc.hessian(f)(x)
    np.testing.assert_allclose(revsrc.jacrev(revsrc.grad(f))(x), H, rtol=1e-12,
                               atol=1e-14 * np.max(np.abs(H)))
    g = revsrc.grad(f)
    v = np.random.default_rng(3).normal(size=x.shape)
    h = 1e-6
    want = (g(x + h * v) - g(x - h * v)) / (2 * h)
    got = np.tensordot(H, v, axes=x.ndim)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def built_by_comprehension(x):
    return sum([x[i] * x[i + 1] for i in range(3)]) ** 2


def appended_in_a_loop(x):
    out = []
    for i in range(4):
        out.append(np.sin(x[i]) * x[(i + 1) % 4])
    return out[0] * out[2] + sum(out) ** 2


def picked_items(x):
    return min(v * v for v in x) + max(np.sin(v) * v for v in x)


def picked_from_a_list(x):
    return max([x[0] * x[1], x[2] ** 2, x[3]]) ** 2


@pytest.mark.parametrize("f", [built_by_comprehension, appended_in_a_loop, picked_items,
                               picked_from_a_list])
def test_second_order_through_lists_built_and_picked(f):
    """The adjoints of a list's items (item_grad, head_grad) and of max/min over items
    (picked_grad) have reverse rules: jacrev(grad(f)) equals hessian(f), and both equal
    central differences of the gradient (E104 before)."""
    x = np.array([0.3, -0.7, 1.1, 0.5])
    H = revsrc.hessian(f)(x)
    np.testing.assert_allclose(revsrc.jacrev(revsrc.grad(f))(x), H, rtol=1e-12, atol=1e-14)
    g = revsrc.grad(f)
    h = 1e-6
    fd = np.array([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, x", [
    (lambda x: np.sum(np.roll(x, 1) * x) ** 2, np.array([0.3, -0.7, 1.1, 0.5])),
    (lambda x: np.sum(np.roll(x.reshape(2, 2), (1, -1), axis=(0, 1)) ** 3),
     np.array([0.3, -0.7, 1.1, 0.5])),
    (lambda x: np.sum(np.triu(np.outer(x, x), 1) ** 2), np.array([0.3, -0.7, 1.1, 0.5])),
    (lambda x: np.sum(np.tril(x) ** 3), np.array([0.3, -0.7, 1.1])),   # a 1-D argument
])
def test_second_order_through_roll_and_triangles(f, x):
    H = revsrc.hessian(f)(x)
    np.testing.assert_allclose(revsrc.jacrev(revsrc.grad(f))(x), H, rtol=1e-12, atol=1e-14)
    g = revsrc.grad(f)
    h = 1e-6
    fd = np.array([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(x.size)])
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-8)
