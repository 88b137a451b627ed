"""Issue 22, containers and in-place writes: lists and dicts the function makes, changed
in place, computed where Python's value can be followed exactly, refused (coded, at the
user's line) where it cannot.

- A list made new on every turn of a loop, changed, then placed in a dict (``p = [...];
  <change p>; s = {"pos": p}``): the dict of an earlier turn holds an earlier list, which
  the change does not touch (was a false E404).
- A dict the function makes and fills in a loop (``d = {}; for ...: d[k] = v``), and
  ``d[k] op= v`` on one outside loops (an array item changes in place, wherever else it is
  held): computed (was E403 "under a condition or in a loop").
- The adjoint of ``d[k] = v`` on a dict the program builds when it runs: the old item's
  adjoint stops at the key written over (it flowed on: a wrong gradient).
"""
import warnings

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads

X = np.array([0.7, -1.3])


def _check(f, *args):
    """The value is f's own, the gradient agrees with central differences."""
    want = f(*[np.copy(a) for a in args])
    value, _ = revsrc.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12)
    check_grads(f, args)


# ----- the adjoint of a dict's item written over, in a loop ---------------------------

KEY = "v"


def dict_item_doubled(x):
    s = {KEY: x}              # a key known only when it runs: a dict value
    for _ in range(2):
        s[KEY] = s[KEY] * 2
    return s["v"]


def dict_list_item_doubled(x):
    s = {KEY: [x, 1.0]}
    for _ in range(3):
        s[KEY] = [s[KEY][0] * s[KEY][1] * 2, s[KEY][1] + x]
    return s["v"][0]


@pytest.mark.parametrize("f", [dict_item_doubled, dict_list_item_doubled])
def test_dict_item_written_over_in_loop(f):
    _check(f, 1.3)
    assert revsrc.grad(dict_item_doubled)(1.0) == pytest.approx(4.0, abs=1e-12)


# ----- 1. a list made new on each turn, placed in a dict after it changes -------------

def state_rebuilt(x):
    state = {"pos": [0.0, 0.0], "vel": [x, 1.0]}
    for _ in range(5):
        p = [state["pos"][k] + 0.1 * state["vel"][k] for k in range(2)]
        v = [state["vel"][0] * 0.99, state["vel"][1] - 0.098 * x]
        state = {"pos": p, "vel": v}
    return state["pos"][0] * state["pos"][1]


def list_copy_written_then_placed(x):
    s = {"v": [x, 2.0]}
    for _ in range(3):
        q = list(s["v"])
        q[0] = q[0] * q[1]
        r = q
        r.append(x)
        s = {"v": r[:2]}
    return s["v"][0]


def appended_then_placed_in_list(x):
    hist = []
    for i in range(3):
        row = [x * i]
        row.append(x ** 2)
        hist.append(row)
    return hist[0][1] + hist[2][0] * hist[1][1]


@pytest.mark.parametrize("f", [state_rebuilt, list_copy_written_then_placed,
                               appended_then_placed_in_list])
def test_list_made_each_turn_then_placed(f):
    _check(f, 1.3)


def placed_before_change(x):
    s = {"pos": [0.0]}
    for _ in range(2):
        p = [x]
        s = {"pos": p}
        p.append(x * 2)        # s["pos"] is p: it sees the change
    return s["pos"][-1] + len(s["pos"])


def same_list_each_turn(x):
    p = [x]
    s = {"pos": [0.0]}
    for _ in range(2):
        p.append(x)            # the one list, placed in the dict on the turn before
        s = {"pos": p}
    return s["pos"][-1] * len(s["pos"])


def item_of_old_list(x):
    s = {"v": [[x]]}
    for _ in range(2):
        q = list(s["v"])       # a new outer list holding the same inner list
        q[0].append(x)
        s = {"v": q}
    return s["v"][0][-1]


@pytest.mark.parametrize("f", [placed_before_change, same_list_each_turn, item_of_old_list])
def test_list_held_from_an_earlier_turn_refused(f):
    with pytest.raises(errors.RevsrcError) as e:
        revsrc.grad(f)(1.3)
    assert e.value.code == "E404"
    assert "_t" not in str(e.value).split("hint")[0]


