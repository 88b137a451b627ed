"""Rules for reading elements: subscripts, takes and sorts.

Writing elements (``y[i] = v``) is the transformation's own business (``SetItem``).
"""
import operator

import numpy as np

from ..runtime import inplace
from . import kind_rules as KR
from ..primitives import declare
from .register import jvp_rule, primitive
from ..runtime import forward_grads as _forward
from ..runtime.grads import indexing as _helpers

# ----- Subscripts -----


# Arrays: basic slices, integers, None, Ellipsis, integer arrays (repeated indices
# accumulate) and boolean masks, alone or in a tuple. Lists and tuples of values:
# an object array with ``g`` at the index (see `revsrc.runtime.values.pieces`).
@primitive("getitem", operator.getitem, kind=KR.getitem_kind, linear=(0,), complex_ok=True)
def getitem(g, ans, a, b):
    return _helpers.getitem_grad(g, a, b), None


declare(operator.getitem, effect_free=True)


@primitive("take", np.take, kind=KR.array_kind, linear=(0,), complex_ok=True)
def take(g, ans, a, indices, axis=None):
    return _helpers.take_grad(g, a, indices, axis), None


@primitive("take_along_axis", np.take_along_axis, kind=KR.array_kind, linear=(0,),
           complex_ok=True)
def take_along_axis(g, ans, arr, indices, axis=None):
    return _helpers.take_along_axis_grad(g, arr, indices, axis), None


# ----- Sorting -----

# kind= and stable= choose among orders of equal items only: the derivative is the
# same (ties are one-sided whatever the algorithm)
@primitive("sort", np.sort, kind=KR.array_kind, jax="_jaxgen.sort")
def sort(g, ans, a, axis=-1, kind=None, order=None, stable=None):
    return _helpers.sort_grad(g, a, axis)


@jvp_rule("sort")
def sort_jvp(g, ans, a, axis=-1, kind=None, order=None, stable=None):
    return _forward.sort_jvp(g, a, axis)


@primitive("partition", np.partition, kind=KR.array_kind)
def partition(g, ans, a, kth, axis=-1):
    return _helpers.partition_grad(g, ans, a, axis), None


# ----- NumPy's in-place functions, as values (revsrc/inplace.py) -----
# ``np.add.at(a, idx, v)`` on an array the function made is lowered to
# ``a[...] = inplace.add_at(a, idx, v)``; the write-back is the transformation's.

@primitive("add_at", inplace.add_at, kind=KR.same_kind)
def add_at(g, ans, a, indices, values):
    return g, None, inplace.add_at_values_grad(g, a, indices, values)


@jvp_rule("add_at")
def add_at_jvp(g, ans, a, indices, values):
    return g, None, inplace.add_at_values_tangent(g, a, indices)


@primitive("fill_diagonal", inplace.fill_diagonal, kind=KR.same_kind)
def fill_diagonal(g, ans, a, val, wrap=False):
    return (inplace.fill_diagonal_a_grad(g, a, wrap),
            inplace.fill_diagonal_val_grad(g, a, val, wrap), None)


@jvp_rule("fill_diagonal")
def fill_diagonal_jvp(g, ans, a, val, wrap=False):
    return (inplace.fill_diagonal_a_grad(g, a, wrap),
            inplace.fill_diagonal_val_tangent(g, a, val, wrap), None)
