"""The reverse rule of a call of a function mapped by ``revsrc.vmap`` inside a function
revsrc differentiates (revsrc/mapped_calls.py): each argument's cotangent from the
per-example derivative, mapped as the call maps its function."""
from __future__ import annotations

import numpy as np

from ..core import pytree

__all__ = ["vmap_cotangents"]

MAX_ARGS = 8


def _axes(m, n):
    axes = m.in_axes
    if axes is None or isinstance(axes, int):
        return (axes,) * n
    return tuple(axes)


def _float_like(a):
    return isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind in "fc")


def _differentiable(a):
    """A float, a float array, or a container (tuple, list, dict, registered class)
    of them."""
    leaves = pytree.tree_leaves(a)
    return bool(leaves) and all(_float_like(x) for x in leaves)


def _contract(d, g, axis, like):
    """The cotangent of one argument leaf ``like`` from its per-example derivative ``d``
    (the example first, then the output's axes, then the leaf's) and the output
    cotangent ``g``: summed over the examples for a shared leaf (``axis`` None), else
    with the example axis where ``axis`` puts it."""
    d = np.asarray(d)
    per_output = g.ndim - 1
    c = np.sum(d * g.reshape(g.shape + (1,) * (d.ndim - 1 - per_output)),
               axis=tuple(range(1, 1 + per_output)))
    if axis is None:
        c = np.sum(c, axis=0)
        return float(c) if isinstance(like, float) else c
    return np.moveaxis(c, 0, axis)


def vmap_cotangents(g, m, n, a0=None, a1=None, a2=None, a3=None, a4=None, a5=None,
                    a6=None, a7=None):
    """Each argument's cotangent for the output cotangent ``g`` of ``m(a0, ...)``
    (`MAX_ARGS` entries; None for an argument that holds anything but floats and
    float arrays)."""
    args = (a0, a1, a2, a3, a4, a5, a6, a7)[:n]
    axes = _axes(m, n)
    diff = tuple(i for i, a in enumerate(args) if _differentiable(a))
    out = [None] * MAX_ARGS
    if not diff:
        return tuple(out)
    g = np.asarray(g)
    per = m.per_example_derivative(diff, g.ndim - 1)(*args)
    for j, i in enumerate(diff):
        leaves, tree = pytree.tree_flatten(args[i])
        ds = pytree.tree_leaves(per[j])
        out[i] = pytree.tree_unflatten(tree, [_contract(d, g, axes[i], like)
                                              for d, like in zip(ds, leaves)])
    return tuple(out)
