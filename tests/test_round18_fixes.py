"""Round 18's findings (tests/user_programs18_*.py), fixed as rules:

- a loop over a value whose kind is known only when it runs (an argument, a global, an
  item) walked it by position, ``xs[i]``: a dict argument gave its values for its keys
  (a KeyError, or for a dict of ints to ints a wrong number). What the loop walks is
  now Python's: a dict's keys, a set's items (`containers.iterable_items`)."""
import numpy as np
import pytest

import revsrc


def scaled_sum(lr, p):
    return sum(p[k] * lr for k in p)


def scaled_loop(lr, p):
    t = 0.0
    for k in p:
        t = t + p[k] * lr * lr
    return t


def int_keys(lr, p):
    # a dict of ints to ints: walking it by position reads values as keys
    t = 0.0
    for k in p:
        t = t + p[k] * lr
    return t


def over_a_set(x, s):
    return sum(x ** k for k in s)


@pytest.mark.parametrize("f, args", [
    (scaled_sum, (0.1, {"w": 1.0, "b": 2.0})),
    (scaled_loop, (0.3, {"w": 1.0, "b": 2.0, "c": -0.5})),
    (int_keys, (0.7, {0: 1, 1: 1, 2: 0})),
    (over_a_set, (1.3, {1, 2, 5})),
])
def test_loop_over_the_keys_of_an_argument(f, args):
    h = 1e-6
    v, g = revsrc.value_and_grad(f)(*args)
    assert v == f(*args)
    want = (f(args[0] + h, *args[1:]) - f(args[0] - h, *args[1:])) / (2 * h)
    np.testing.assert_allclose(g, want, rtol=1e-7)


def test_loop_over_array_and_list_arguments_unchanged():
    def f(w, xs, ys):
        t = 0.0
        for x, y in zip(xs, ys):
            t = t + (w * x - y) ** 2
        for x in xs:
            t = t + w * x
        return t
    xs, ys = np.array([0.5, 1.5, -1.0]), [1.0, 2.0, 0.5]
    h = 1e-6
    want = (f(0.8 + h, xs, ys) - f(0.8 - h, xs, ys)) / (2 * h)
    np.testing.assert_allclose(revsrc.grad(f)(0.8, xs, ys), want, rtol=1e-7)


def _raise_caught(x):
    try:
        if x[0] > 1:
            raise ValueError("out of range")
        return np.sum(x ** 2)
    except ValueError:
        return np.sum(3 * x)


def _conditional_return_in_try(w, n):
    try:
        return np.sum(w * w) if n else 0.0
    except ZeroDivisionError:
        return 0.0


def _constant_after_raise(x):
    try:
        if x[0] > 1:
            raise ValueError("out of range")
        return np.sum(x ** 2)
    except ValueError:
        return 0.0


@pytest.mark.parametrize("f, args", [
    (_raise_caught, (np.array([2.0, 1.0]),)), (_raise_caught, (np.array([0.5, 1.0]),)),
    (_conditional_return_in_try, (np.array([1.0, 2.0]), 0)),
    (_conditional_return_in_try, (np.array([1.0, 2.0]), 1)),
    (_constant_after_raise, (np.array([2.0, 1.0]),)),
    (_constant_after_raise, (np.array([0.5, 1.0]),)),
])
def test_try_whose_arms_return_arrays_values(f, args):
    """The reverse sweep made the zero adjoint of a value from its shape on a path that
    never computed it (UnboundLocalError): such a value starts as a placeholder."""
    x = args[0]
    v, g = revsrc.value_and_grad(f)(*args)
    assert v == f(*args)
    h = 1e-6
    want = np.array([(f(x + h * e, *args[1:]) - f(x - h * e, *args[1:])) / (2 * h)
                     for e in np.eye(x.size)])
    np.testing.assert_allclose(g, want, rtol=1e-7, atol=1e-12)


def _where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def _naive_sinc(x):
    return np.sum(np.where(x == 0.0, 1.0, np.sin(x) / x))


def _nansum_loss(k, obs):
    return np.nansum((k * np.array([1.0, 2.0, 3.0]) - obs) ** 2)


@pytest.mark.parametrize("f, args", [
    (_where_sqrt, (np.array([-1.0, 4.0]),)),
    (_naive_sinc, (np.array([0.0, 0.5, 1.0]),)),
    (_nansum_loss, (2.0, np.array([0.5, np.nan, 1.0]))),
])
def test_jax_backend_structural_zeros_give_the_default_backends_numbers(f, args):
    """backend='jax': a nan or inf derivative in np.where's arm not taken, or at an
    element np.nansum skips, made the gradient nan (0 * nan); such a call runs the
    program on NumPy, with the default backend's numbers."""
    pytest.importorskip("jax")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = revsrc.grad(f)(*args)
        got = revsrc.grad(f, backend="jax")(*args)
        v, g = revsrc.value_and_grad(f, backend="jax")(*args)
    assert np.all(np.isfinite(want))
    np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_allclose(g, want, rtol=1e-14)
    assert np.asarray(g).dtype == np.float64


def _rows_of_a_column_slice_written(x):
    A = np.outer(x[:2], x[1:])
    B = A[:, :2]
    for row in B:
        row[0] = row[1] * 3.0
    return np.sum(A * np.arange(1.0, 3.0))


def test_loop_over_a_view_still_writes_through_it():
    """What the loop walks is the sequence itself (a view stays that view): rows written
    in the loop reach the array they view."""
    x = np.array([0.3, -0.7, 1.1])
    h = 1e-6
    want = np.array([(_rows_of_a_column_slice_written(x + h * e) -
                      _rows_of_a_column_slice_written(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(revsrc.grad(_rows_of_a_column_slice_written)(x), want,
                               rtol=1e-7)
