"""Rules for reading elements: subscripts, takes and sorts.

Writing elements (``y[i] = v``) is the transformation's own business (``SetItem``).
"""
import operator

import numpy as np

from . import _helpers, vjp

# ----- Subscripts -----


# Arrays: basic slices, integers, None, Ellipsis, integer arrays (repeated indices
# accumulate) and boolean masks, alone or in a tuple. Lists and tuples of values:
# an object array with ``g`` at the index (see `_helpers.pieces`).
@vjp(operator.getitem)
def getitem(g, ans, a, b):
    return _helpers.getitem_grad(g, a, b), None


@vjp(np.take)
def take(g, ans, a, indices, axis=None):
    return _helpers.take_grad(g, a, indices, axis), None


@vjp(np.take_along_axis)
def take_along_axis(g, ans, arr, indices, axis=None):
    return _helpers.take_along_axis_grad(g, arr, indices, axis), None


# ----- Sorting -----

@vjp(np.sort)
def sort(g, ans, a, axis=-1):
    return _helpers.sort_grad(g, a, axis)
