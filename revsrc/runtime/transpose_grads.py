"""Runtime helpers of the reverse rules of the helpers that generated adjoints call.

Most of those helpers are linear in the adjoint ``g`` they receive; the reverse rule
of a linear map is its transpose. Each function here takes the adjoint ``gbar`` of the
helper's output and returns the adjoint of one of its inputs.
"""
from __future__ import annotations

import numpy as np

from .. import runtime
from . import inplace, tensor
from .grads import reductions as _reductions
from .grads.reductions import reduced_axes


def broadcast_back(gbar, g):
    """The transpose of summing ``g`` to a shape: ``gbar`` spread back over ``g``'s
    shape (a writable array; a number for a number)."""
    if np.ndim(g) == 0 and not isinstance(g, np.ndarray):
        return np.sum(gbar)[()] if isinstance(gbar, np.ndarray) else gbar
    return np.array(np.broadcast_to(gbar, np.shape(g)))


def reduce_like(gbar, g, x, axis=None, keepdims=False):
    """The transpose of spreading ``g`` (a reduction's adjoint) over ``x``: ``gbar``
    summed over the reduced axes, back to ``g``'s shape."""
    if isinstance(x, (list, tuple)):
        raise NotImplementedError("a reduction over a list, differentiated twice")
    total = np.sum(gbar, axis=reduced_axes(axis, np.ndim(x)), keepdims=keepdims)
    return np.reshape(total, np.shape(g)) if np.ndim(g) else total


def mean_back(gbar, g, ans, a, axis=None, keepdims=False):
    count = np.size(a) // max(np.size(ans), 1)
    return reduce_like(gbar, g, a, axis, keepdims) / count


def var_grad_back_a(gbar, g, a, axis=None, ddof=0, keepdims=False):
    """The transpose, in ``a``, of a -> expand(g) (a - mean(a)) 2 / (n - ddof)."""
    a = np.asarray(a)
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    weighted = gbar * _reductions.expand_reduced(g, a, axis, keepdims)
    return (weighted - np.mean(weighted, axis=axis, keepdims=True)) * (2.0 / (n - ddof))


def cumsum_back(gbar, a, axis=None):
    """The transpose of the reversed cumulative sum: a cumulative sum."""
    if axis is None:
        return np.reshape(np.cumsum(np.ravel(gbar)), np.shape(a))
    return np.cumsum(gbar, axis=axis)


def take_back(gbar, g, index):
    """The transpose of ``g[index]`` (runtime.take_grad): ``gbar`` added at ``index``."""
    if np.ndim(g) == 0:
        return np.sum(gbar)[()] if isinstance(gbar, np.ndarray) else gbar
    keep = runtime.last_writes(np.shape(g), index)
    if keep is not None:   # the elements take_grad zeroed (writes NumPy did not keep)
        gbar = np.where(keep, gbar, np.zeros((), dtype=np.result_type(gbar)))
    return tensor.index_add(gbar, np.shape(g), np.result_type(g, gbar), index)


def tile_back(gbar, A, reps):
    return np.tile(gbar, reps)


def repeat_back(gbar, a, repeats, axis=None):
    if axis is None:
        return np.repeat(np.ravel(gbar), repeats)
    return np.repeat(gbar, repeats, axis=axis)


def view_forward(gbar, fn, args=(), kwargs=()):
    """The adjoint of runtime.view_back: the view's own layout applied to ``gbar``."""
    return fn(gbar, *args, **dict(kwargs))


def write_at_back(gbar, base, where):
    """The transpose of inplace.write_at_new_grad (``g`` where a view lies in
    ``base``, summed to the new values' shape): ``gbar`` spread over where the view
    lies, zeros elsewhere (in the real or the imaginary parts it wrote)."""
    dtype = np.result_type(np.asarray(base).dtype, np.result_type(gbar), np.float64)
    return inplace.write_at(gbar, np.zeros(np.shape(base), dtype), where)
