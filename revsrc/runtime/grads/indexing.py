"""Adjoints of reading items: ``x[index]`` on arrays, lists and dicts, np.take,
np.take_along_axis, and the permutations np.sort and np.partition."""
from __future__ import annotations

import numpy as np

from .. import tensor
from ..values import dict_grad_of, float_dtype, pieces, zero_like
from .common import real_only


def getitem_grad(g, x, index):
    """The adjoint of ``x[index]``: ``g`` added at ``index`` into zeros like ``x``.

    For a list or tuple ``x`` the adjoint is an object array (see `pieces`) holding
    ``g`` at ``index`` and a zero like each other item.
    """
    if isinstance(x, dict):
        return dict_grad_of(x, index, g)
    if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.dtype == object):
        # (an object array: a list's adjoint, one per item, read at a second order)
        out = pieces([zero_like(item) for item in x])
        if isinstance(index, slice):
            for k, i in enumerate(range(*index.indices(len(x)))):
                out[i] = out[i] + g[k]
        else:
            out[index] = out[index] + g
        return out
    return tensor.index_add(g, np.shape(x), float_dtype(x, g), index)


def sort_grad(g, a, axis=-1):
    real_only(a, "np.sort")
    a = np.asarray(a)
    if axis is None:
        order = np.argsort(a, axis=None, kind="stable")
        out = np.zeros(a.size, dtype=float_dtype(a, g))
        out[order] = g
        return out.reshape(a.shape)
    order = np.argsort(a, axis=axis, kind="stable")
    out = np.zeros(a.shape, dtype=float_dtype(a, g))
    np.put_along_axis(out, order, g, axis=axis)
    return out


def partition_grad(g, ans, a, axis=-1):
    """The adjoint of np.partition, a permutation: output position order_ans[r] holds
    the element at order_a[r] (both stable sorts, so equal values pair in order)."""
    real_only(a, "np.partition")
    a = np.asarray(a)
    if axis is None:
        return np.reshape(partition_grad(g, ans, np.ravel(a), 0), a.shape)
    order_a = np.argsort(a, axis=axis, kind="stable")
    order_ans = np.argsort(ans, axis=axis, kind="stable")
    out = np.zeros(a.shape, dtype=float_dtype(a, g))
    np.put_along_axis(out, order_a, np.take_along_axis(np.broadcast_to(g, a.shape),
                                                       order_ans, axis=axis), axis=axis)
    return out


def take_grad(g, a, indices, axis=None):
    shape = np.shape(a)
    if axis is None:
        n = int(np.prod(shape, dtype=np.intp))
        flat = tensor.index_add(g, (n,), float_dtype(a, g), np.asarray(indices))
        return np.reshape(flat, shape)
    key = (slice(None),) * (axis % len(shape)) + (np.asarray(indices),)
    return tensor.index_add(g, shape, float_dtype(a, g), key)


def take_along_axis_grad(g, arr, indices, axis):
    arr = np.asarray(arr)
    if axis is None:
        return take_grad(g, arr, np.ravel(indices), None)
    axis = axis % arr.ndim
    key = []
    for d in range(arr.ndim):
        if d == axis:
            key.append(np.asarray(indices))
        else:
            shp = [1] * arr.ndim
            shp[d] = arr.shape[d]
            key.append(np.arange(arr.shape[d]).reshape(shp))
    return tensor.index_add(g, arr.shape, float_dtype(arr, g), tuple(key))
