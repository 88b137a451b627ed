"""What may share memory with what: the facts the views pass (`views`) and forward
mode (`jvp`) read to tell whether an assignment makes a view or an alias of an operand
(``a[:1]``, ``a.T``, ``b = a``), may make one (``np.einsum``, ``a.view()``, a user's
function: NumPy is asked when it runs), or makes a new array."""
from __future__ import annotations

import operator

import numpy as np

from .. import primitives, runtime
from ..core import ir, kinds
from ..core.ir import Const, Op
from ..runtime import arith as _arith

MUTABLE = (kinds.ARRAY, kinds.ANY, kinds.LIST, kinds.DICT)


def _basic_index(index, found):
    """Whether ``x[index]`` on an array is basic indexing (a view): True, False (an int
    or bool array: a copy), or None when only the run knows (a computed slice or tuple)."""
    if isinstance(index, Const):
        items = index.value if type(index.value) is tuple else (index.value,)
        return all(type(i) in (int, slice, type(None)) or i is Ellipsis for i in items)
    k = found.get(index)
    if k in (kinds.INT, kinds.BOOL):
        return True
    if k in (kinds.ARRAY, kinds.LIST) or isinstance(k, tuple) and k and k[0] == kinds.ARRAY:
        return False
    return None


def item_read(s, found):
    """Whether the statement ``s`` reads ``a[i]`` or ``a[i, j]`` (ints alone)."""
    return isinstance(s, Op) and s.fn is operator.getitem and len(s.args) > 1 and \
        _ints_only(s.args[1], found) > 0


def _ints_only(index, found):
    """How many ints ``index`` is when it is an int or a tuple of ints (no slice, None
    or Ellipsis), else 0."""
    if isinstance(index, Const):
        items = index.value if type(index.value) is tuple else (index.value,)
        return len(items) if all(type(i) is int for i in items) else 0
    return 1 if found.get(index) == kinds.INT else 0


# ndarray methods that return a new array (any other may return a view: ``a.view()``)
_NEW_METHODS = frozenset({
    "copy", "sum", "mean", "std", "var", "prod", "max", "min", "argmax", "argmin",
    "cumsum", "cumprod", "dot", "round", "clip", "flatten", "repeat", "take", "trace",
    "all", "any", "nonzero", "argsort", "tolist", "item",
    "__copy__", "__deepcopy__"})
# bijective layouts `runtime.view_back` lays back out (any other view is written back
# where NumPy says its elements are, `inplace.view_positions`)
LAYOUTS = frozenset({np.reshape, np.ravel, np.squeeze, np.expand_dims, np.atleast_1d,
                      np.atleast_2d, np.atleast_3d, np.transpose, np.swapaxes,
                      np.moveaxis, np.flip, np.fliplr, np.flipud, np.rot90})

# functions that copy unless told ``copy=False``: where that argument is
_COPY_ARGUMENT = {np.array: 1, _arith.astype: 2, np.nan_to_num: 1}


def _may_view(s, kind):
    """Whether the result of ``s`` may share memory with an operand: "always", "maybe",
    or None when it is known to be a new array. Known means declared (the ``view``
    fact "never" on its record), a ufunc or an operator (a new array unless given
    ``out=``), or a copy asked for (``np.array(a)``, ``x.astype(t)``, ``a.copy()``).
    Anything else may be a view (``np.einsum``, ``a.view()``, a user's function): a
    write through it or into what it may view is checked when it runs, never taken
    for a write into a copy."""
    fn = s.fn
    kw = dict(s.kwargs)
    if "out" in kw:
        return "maybe"
    view = primitives.fact(fn, "view")
    if view == "never":
        return None
    at = _COPY_ARGUMENT.get(fn)
    if at is not None:
        copy = s.args[at] if len(s.args) > at else kw.get("copy", Const(True))
        return None if isinstance(copy, Const) and copy.value else "maybe"
    if fn is ir.call_method:
        name = s.args[1].value if isinstance(s.args[1], Const) else None
        return None if name in _NEW_METHODS else "maybe"
    if view is not None:
        return view
    if isinstance(fn, np.ufunc) or getattr(fn, "__module__", None) in (
            "operator", "_operator", "builtins", "math"):
        return None
    if runtime.is_helper(fn):
        return None           # revsrc's own: their views are declared
    if kind not in (kinds.ARRAY, kinds.ANY):
        return None           # a list, a tuple or a dict: the containers pass's
    return "maybe"


def view_link(s, found, ndims=None):
    """(base operand, always a view?) when the statement ``s`` makes a view or an
    alias of an operand that can hold a mutable value, or may (`_may_view`); None for
    a value known to be new. ``found``: the kinds; ``ndims``: their ranks, where
    known. Forward mode asks it too: a tangent shares memory with the tangents of
    what its value shares memory with."""
    if not isinstance(s, Op) or not s.args or found.get(s.target) not in MUTABLE:
        return None
    bases = [a for a in s.args if isinstance(a, str) and found.get(a) in MUTABLE]
    bases += [v for _, v in s.kwargs if isinstance(v, str) and found.get(v) in MUTABLE]
    if not bases:
        return None
    a = bases[0]
    if s.fn is ir.copy:
        return a, True
    if s.fn is operator.getitem:
        if a != s.args[0]:
            return None
        if found.get(a) == kinds.ARRAY:
            basic = _basic_index(s.args[1], found)
            if basic is False:
                return None
            ints = _ints_only(s.args[1], found)
            if not ints:
                return a, basic is True
            # ints alone select one element when there are as many as axes: a NumPy
            # scalar, a copy (``old = y[0]`` keeps its value through ``y[0] = ...``);
            # with fewer, a view. Where the rank is not known, NumPy is asked.
            rank = (ndims or {}).get(a)
            if rank is None:
                return a, False
            return None if ints >= rank else (a, True)
        return a, False   # an item of a list, a tuple or a dict: may be shared
    view = _may_view(s, found.get(s.target))
    if view is None:
        return None
    if view == "always" and a == s.args[0]:
        return a, True
    return a, False       # a write through it is checked when it runs
