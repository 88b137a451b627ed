"""Rules for reading elements: subscripts, takes and sorts.

Writing elements (``y[i] = v``) is the transformation's own business (``SetItem``).
"""
import operator

import numpy as np

from .. import kinds as K
from ..primitives import jvp_rule, primitive
from . import _forward, _helpers

# ----- Subscripts -----


# Arrays: basic slices, integers, None, Ellipsis, integer arrays (repeated indices
# accumulate) and boolean masks, alone or in a tuple. Lists and tuples of values:
# an object array with ``g`` at the index (see `_helpers.pieces`).
@primitive("getitem", operator.getitem, kind=K.getitem_kind, linear=(0,))
def getitem(g, ans, a, b):
    return _helpers.getitem_grad(g, a, b), None


@primitive("take", np.take, kind=K.array_kind, linear=(0,))
def take(g, ans, a, indices, axis=None):
    return _helpers.take_grad(g, a, indices, axis), None


@primitive("take_along_axis", np.take_along_axis, kind=K.array_kind, linear=(0,))
def take_along_axis(g, ans, arr, indices, axis=None):
    return _helpers.take_along_axis_grad(g, arr, indices, axis), None


# ----- Sorting -----

@primitive("sort", np.sort, kind=K.array_kind)
def sort(g, ans, a, axis=-1):
    return _helpers.sort_grad(g, a, axis)


@jvp_rule("sort")
def sort_jvp(g, ans, a, axis=-1):
    return _forward.sort_jvp(g, a, axis)
