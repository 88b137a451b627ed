"""NumPy's functions that change an array in place, as functions of values.

``np.add.at(a, idx, v)`` and ``np.fill_diagonal(a, val)`` return nothing: they write
into ``a``. On an array the function made, revsrc lowers such a statement to

    a[...] = add_at(a, idx, v)

a new value computed from the old one (by NumPy's own function, on a copy), written
back by the transformation's item assignment, which follows every view and alias of
``a`` and refuses a write into an argument (E403). Their rules are in
revsrc/rules/indexing.py; the adjoints are below.
"""
from __future__ import annotations

import numpy as np

from .. import errors
from .tensor import sum_to_shape


def add_at(a, indices, values):
    """``a`` after ``np.add.at(a, indices, values)`` (``a`` itself is not changed)."""
    out = np.array(a, copy=True)
    np.add.at(out, indices, values)
    return out


def fill_diagonal(a, val, wrap=False):
    """``a`` after ``np.fill_diagonal(a, val, wrap)`` (``a`` itself is not changed)."""
    if isinstance(val, np.ndarray) and isinstance(a, np.ndarray) and np.shares_memory(a, val):
        # NumPy writes the items in turn, reading ``val`` as it changes: no function of
        # the values before the write
        raise errors.UnfollowableWrite(
            "np.fill_diagonal writes values read from the array it writes into (a view "
            "of it), so later items see earlier writes; revsrc does not follow that",
            hint="copy the values first: np.fill_diagonal(a, a.diagonal().copy())")
    out = np.array(a, copy=True)
    np.fill_diagonal(out, val, wrap=wrap)
    return out


def copyto(a, src):
    """``np.copyto(a, src)``: written as ``a[...] = src`` (this function is its
    signature; the transformation writes the item assignment itself)."""
    raise AssertionError("copyto is lowered to an item assignment")  # pragma: no cover


# The value form of each in-place function revsrc follows (see `value_form`).
_FORMS = {np.fill_diagonal: fill_diagonal, np.copyto: copyto}
# In-place functions revsrc does not follow: refused wherever they are called.
_REFUSED = {np.put, np.place, np.putmask, np.put_along_axis}


def value_form(fn):
    """The function of values standing for the in-place NumPy function ``fn``, or None."""
    if getattr(fn, "__self__", None) is np.add and getattr(fn, "__name__", "") == "at":
        return add_at
    try:
        return _FORMS.get(fn)
    except TypeError:       # an unhashable callable
        return None


def writes_into(fn):
    """Whether ``fn`` is a NumPy function that writes into an argument and that revsrc
    does not follow (np.put, a ufunc's .at other than np.add.at...)."""
    if isinstance(getattr(fn, "__self__", None), np.ufunc) and \
            getattr(fn, "__name__", "") == "at":
        return value_form(fn) is None
    try:
        return fn in _REFUSED
    except TypeError:
        return False


# ----- Adjoints and tangents -----

def _full(g, a):
    """``g`` as an array of ``a``'s shape (a scalar 0.0 adjoint broadcast)."""
    g = np.asarray(g)
    if g.shape != np.shape(a):
        g = np.broadcast_to(g, np.shape(a))
    return g


def _like(d, v):
    """``d`` in the form of ``v``: a Python float for a Python number, else an array of
    ``v``'s shape."""
    if np.ndim(v) == 0 and not isinstance(v, np.ndarray):
        return float(np.sum(d)) if not np.iscomplexobj(d) else complex(np.sum(d))
    return np.reshape(d, np.shape(v))


def add_at_values_grad(g, a, indices, values):
    """The adjoint of ``values`` in ``add_at(a, indices, values)``: ``g`` gathered at
    each index (a repeated index gathers the same element again), summed back to the
    shape ``values`` was broadcast from."""
    picked = _full(g, a)[indices]
    if np.ndim(values) == 0:
        return _like(np.sum(picked), values)
    return sum_to_shape(np.asarray(picked), np.shape(values))


def spread_like_picked(h, a, indices):
    """``h`` (an adjoint of the values' shape) broadcast to the shape ``a[indices]``
    has: the transpose of summing the gathered elements back to the values' shape."""
    shape = np.shape(np.empty(np.shape(a))[indices])
    return np.broadcast_to(h, shape)


def add_at_values_tangent(t, a, indices):
    """The tangent of ``add_at(a, indices, values)`` for a tangent ``t`` of ``values``."""
    out = np.zeros(np.shape(a), dtype=np.result_type(a, t, float))
    np.add.at(out, indices, t)
    return out


def _diagonal_positions(shape, wrap):
    """The flat positions ``np.fill_diagonal`` writes, in its order."""
    size = int(np.prod(shape))
    if len(shape) == 2:
        step = shape[1] + 1
        end = None if wrap else shape[1] * shape[1]
    else:
        step = 1 + int(np.sum(np.cumprod(shape[:-1])))
        end = None
    return np.arange(size)[:end:step]


def fill_diagonal_a_grad(g, a, wrap=False):
    """The adjoint of ``a`` in ``fill_diagonal(a, val, wrap)``: ``g``, 0 on the
    diagonal (those elements were overwritten)."""
    out = np.array(_full(g, a), copy=True)
    out.flat[_diagonal_positions(out.shape, wrap)] = 0
    return out


def fill_diagonal_val_grad(g, a, val, wrap=False):
    """The adjoint of ``val`` in ``fill_diagonal(a, val, wrap)``: the diagonal of ``g``;
    ``val``'s items are written in turn, again from the first if there are fewer items
    than diagonal elements, so an item's adjoint sums the elements it was written to."""
    g = _full(g, a)
    pos = _diagonal_positions(np.shape(a), wrap)
    picked = g.flat[pos]
    m = int(np.size(val))
    if m == 0:
        return np.zeros(np.shape(val), dtype=g.dtype)
    d = np.zeros(m, dtype=np.result_type(g.dtype, float))
    np.add.at(d, np.arange(pos.size) % m, picked)
    if isinstance(val, np.ndarray) and val.dtype.kind in "fc":
        d = d.astype(np.result_type(val.dtype, g.dtype), copy=False)
    return _like(d, val)


def fill_diagonal_val_tangent(t, a, val, wrap=False):
    """The tangent of ``fill_diagonal(a, val, wrap)`` for a tangent ``t`` of ``val``."""
    out = np.zeros(np.shape(a), dtype=np.result_type(a, t, float))
    np.fill_diagonal(out, t, wrap=wrap)
    return out
