"""``xs[i] op= v`` on an array item, while a name from an earlier loop turn may hold the
same array (``keep = xs[0]``) or a list holding it (``snap = list(xs)``). Python changes
that array in place, so the held value changes too. Where the name is not assigned on
every way to the write, the run-time check cannot read it: the write is refused (E404).
It was computed as a new array for the slot alone: value 20.5, Python 25.5."""
import numpy as np
import pytest

import revsrc
from revsrc import errors


def kept_item(x):
    xs = [x * 1.0, x * 2.0]
    s = 0.0
    for i in range(3):
        xs[0] += x
        if i > 0:
            s = s + np.sum(keep * x)
        keep = xs[0]
    return s + np.sum(xs[0])


def kept_list(x):
    xs = [x * 1.0, x * 2.0]
    s = 0.0
    for i in range(3):
        xs[0] += x
        if i > 0:
            s = s + np.sum(snap[0] * x)
        snap = list(xs)
    return s + np.sum(xs[0])


def kept_copy(x):
    # the same program holding a copy: nothing else changes, so it computes
    xs = [x * 1.0, x * 2.0]
    s = 0.0
    for i in range(3):
        xs[0] += x
        if i > 0:
            s = s + np.sum(keep * x)
        keep = xs[0].copy()
    return s + np.sum(xs[0])


@pytest.mark.parametrize("f", [kept_item, kept_list])
def test_refused_at_the_write(f):
    with pytest.raises(errors.UnfollowableWrite) as info:
        revsrc.value_and_grad(f)(np.array([0.5, 1.5]))
    assert info.value.code == "E404"
    assert "xs[0] += x" in str(info.value)


def test_a_copy_computes():
    x = np.array([0.5, 1.5])
    value, grad = revsrc.value_and_grad(kept_copy)(x)
    assert value == kept_copy(x)
    h = 1e-6
    for i in range(2):
        e = np.zeros(2)
        e[i] = h
        assert abs(grad[i] - (kept_copy(x + e) - kept_copy(x - e)) / (2 * h)) < 1e-6
