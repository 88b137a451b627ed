"""Round 19's findings (tests/user_programs19_*.py) on the default backend, as rules:

- an item read out of an array as a number (``y[1]`` of a vector, ``y[i, j]`` of a
  matrix) is a copy: a list holding it holds no array, so a later write into the
  array is followed (E404 before, "out holds the same array"); a row (a view) held in
  a list is still refused;
- a state rebound to a helper's result (``y = step(y)``) and written in place
  elsewhere (``y[0] += dose``) is a new array each time, not an alias of the helper's
  result (E404 before, "y is assigned in more than one place");
- np.array, np.asarray, np.copy and np.ascontiguousarray of numbers, of arrays of one
  rank, and of tuples and lists of them the program builds have the rank NumPy gives
  (unknown before), which is what tells an item from a view above.
"""
import numpy as np
import pytest

import revsrc
from revsrc import errors


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def dosing(a):
    y = np.array([a, 2 * a])
    out = [y[1]]
    y[1] += 1.0
    return out[0] + y[1] * y[0]


def matrix_items(a):
    y = np.array([[a, 2 * a], [a * a, 1.0]])
    kept = {"corner": y[1, 0], "pair": (y[0, 1], 3.0 * y[1, 1])}
    for i in range(2):
        y[i, 1] *= a
    return kept["corner"] * kept["pair"][0] + kept["pair"][1] + np.sum(y ** 2)


def compartments(k):
    y = np.array((1.0, 0.0, k))
    doses = []
    for t in range(4):
        doses.append(y[0])
        y[0] = y[0] - k * y[0] + 0.5 * (t == 2)
        y[1] += k * doses[-1]
    return sum(d * d for d in doses) + y[1] * y[2]


@pytest.mark.parametrize("f", [dosing, matrix_items, compartments])
def test_an_item_held_as_a_number_is_a_copy(f):
    for x in (0.7, -1.3):
        assert revsrc.grad(f)(x) == pytest.approx(_fd(f, x), rel=1e-7)
        value, _ = revsrc.value_and_grad(f)(x)
        assert value == f(x)


def row_held(a):
    y = np.array([[a, 2 * a], [a * a, 1.0]])
    out = [y[1]]               # a view: Python's out[0] sees the write below
    y[1, 0] += 1.0
    return out[0][0] + y[1, 0] * y[0, 0]


def vector_held(a):
    y = np.array([a, 2 * a])
    out = [y]
    y[1] += 1.0
    return out[0][1] + y[1] * y[0]


@pytest.mark.parametrize("f", [row_held, vector_held])
def test_an_array_or_a_view_held_is_still_refused(f):
    with pytest.raises(errors.UnfollowableWrite) as info:
        revsrc.grad(f)(0.7)
    assert info.value.code == "E404" and "holds the same array" in info.value.message
    assert info.value.lineno is not None


def ranks(a):
    # each array's rank decides what y[0] is below: a number (a copy) or a row (a view)
    m = np.asarray(((a, 1.0), (2.0, a)))          # rank 2: m[0] is a row
    v = np.copy(np.array([a, a * a]))             # rank 1: v[0] is a number
    c = np.ascontiguousarray(a * 2.0)             # rank 1 (at least one axis)
    held = [v[0], c[0]]
    v[0] = 5.0
    c[0] = 7.0
    return held[0] * held[1] + np.sum(m[0] * v) + c[0] * a


def test_array_ranks_from_values():
    for x in (0.7, 2.5):
        assert revsrc.grad(ranks)(x) == pytest.approx(_fd(ranks, x), rel=1e-7)


def _step(y, p):
    return y + p * np.array([y[1], -y[0], 1.0])


def _scaled(y, t):
    s = 0.5 if t == 1 else 1.0
    return y * s - 0.1


def dosed(a):
    y = np.zeros(3) + a
    conc = []
    for t in range(4):
        if t == 2:
            y[0] += 1.0          # a dose: y is np.zeros' array or _step's new one
        conc.append(y[1])
        y = _step(y, a)
        y = _scaled(y, t)
    return np.sum(y * y) + sum(conc)


def test_a_state_rebound_to_a_helpers_result_is_written_in_place():
    for x in (0.7, -0.4):
        assert revsrc.grad(dosed)(x) == pytest.approx(_fd(dosed, x), rel=1e-7)
        assert revsrc.value_and_grad(dosed)(x)[0] == dosed(x)
