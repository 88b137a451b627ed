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

