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
