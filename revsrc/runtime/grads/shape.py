"""Adjoints of functions that move values without changing them: transposes,
joins and splits, stacks, rolls, tiles, repeats, pads, diagonals and linspace.

Each adjoint moves the output adjoint back to where its values came from; a list
argument gets one adjoint per item (see `revsrc.runtime.values.pieces`)."""
from __future__ import annotations

import numpy as np

from .. import tensor
from ..values import (as_adjoint, as_array, as_input, exact_dtype, float_dtype, per_item,
                      pieces, zero_like)
from .common import refuse
from .reductions import median_grad


def array_grad(g, a, dtype=None):
    """The adjoint of np.array(a, dtype) (np.asarray, np.copy): ``g`` per item of
    ``a``; zero for an integer or bool ``dtype`` (the items are truncated), which may
    be known only at run time."""
    if exact_dtype(dtype):
        return zero_like(a)
    if isinstance(a, np.ndarray) and isinstance(g, np.ndarray) and g.dtype == object:
        g = _dense(g, a)      # (one adjoint per item, read back into an array's form)
    elif isinstance(g, np.ndarray) and g.ndim > np.ndim(a) and g.size == 1:
        g = np.reshape(g, np.shape(a))    # np.ascontiguousarray of a number: one axis
    return per_item(g, a)


def _dense(g, like):
    """An object array of adjoints per item (nested: `pieces` of `pieces`) as the
    float array of ``like``'s shape they make up."""
    rows = [_dense(item, like) if isinstance(item, np.ndarray) and item.dtype == object
            else np.asarray(item) for item in g]
    return np.array(rows, dtype=np.result_type(float_dtype(like), *rows))


def transpose_grad(g, axes=None):
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort([a % np.ndim(g) for a in axes]))


def joined(grads, seq):
    """The adjoints of the items of ``seq``, in ``seq``'s form: one per item (see
    `pieces`) for a list or tuple, one array for an array (whose items are its rows)."""
    if isinstance(seq, np.ndarray):
        return np.stack(grads) if grads else np.zeros(seq.shape, float_dtype(seq))
    return pieces(grads)


def concatenate_grad(g, arrays, axis=0):
    if axis is None:
        g = np.ravel(g)
        axis = 0
        shapes = [np.shape(x) for x in arrays]
        sizes = [int(np.prod(s, dtype=np.intp)) for s in shapes]
    else:
        shapes = [np.shape(x) for x in arrays]
        sizes = [s[axis] for s in shapes]
    cuts = np.cumsum(sizes)[:-1]
    parts = np.split(as_array(g, *arrays), cuts, axis=axis)
    return joined([as_input(np.reshape(p, s), x) for p, s, x in zip(parts, shapes, arrays)],
                   arrays)


def index_concat_layout(items, which):
    """Where each element of np.r_[items] (``which`` "r") or np.c_[items] ("c") comes
    from: (the flat element numbers of the result, each item's first number or None for
    a slice), from the same expression over element numbers (shapes only)."""
    concat = np.r_ if which == "r" else np.c_
    probe, bases, base = [], [], 0
    for it in items:
        if isinstance(it, str):
            refuse(f"np.{which}_ with a directive string has no derivative rule",
                   "build the array with np.concatenate, np.stack or np.column_stack")
        if isinstance(it, slice):
            probe.append(np.full(np.shape(concat[it]), -1.0))
            bases.append(None)
            continue
        size = int(np.size(it))
        probe.append(np.reshape(np.arange(base, base + size, dtype=np.float64), np.shape(it)))
        bases.append(base)
        base += size
    return np.ravel(concat[tuple(probe)]).astype(np.intp), bases


def index_concat_grad(g, items, which):
    """The adjoints of the items of np.r_[items] or np.c_[items]: each element's
    adjoint added where `index_concat_layout` says it went."""
    ids, bases = index_concat_layout(items, which)
    flat = np.ravel(as_array(g, *[i for i in items if not isinstance(i, slice)]))
    grads = []
    for it, b in zip(items, bases):
        if b is None:
            grads.append(0.0)
            continue
        size = int(np.size(it))
        mask = (ids >= b) & (ids < b + size)
        out = np.zeros(size, dtype=flat.dtype)
        np.add.at(out, ids[mask] - b, flat[mask])
        grads.append(as_adjoint(np.reshape(out, np.shape(it)), it))
    return pieces(grads)


def stack_grad(g, arrays, axis=0):
    return joined([as_input(np.take(g, i, axis=axis), x) for i, x in enumerate(arrays)],
                   arrays)


def hstack_grad(g, tup):
    nd = [np.ndim(x) for x in tup]
    axis = 0 if all(n <= 1 for n in nd) else 1
    return _stacked_pieces(g, tup, np.atleast_1d, axis)


def vstack_grad(g, tup):
    return _stacked_pieces(g, tup, np.atleast_2d, 0)


def dstack_grad(g, tup):
    return _stacked_pieces(g, tup, np.atleast_3d, 2)


def column_stack_grad(g, tup):
    """np.column_stack: 1-D items become columns, the rest join along axis 1."""
    return _stacked_pieces(g, tup, lambda x: np.array(x, ndmin=2).T if x.ndim < 2 else x, 1)


def _stacked_pieces(g, tup, promote, axis):
    shapes = [np.shape(promote(np.asarray(x))) for x in tup]
    cuts = np.cumsum([s[axis] for s in shapes])[:-1]
    parts = np.split(as_array(g, *tup), cuts, axis=axis)
    return joined([as_input(np.reshape(p, np.shape(x)), x) for p, x in zip(parts, tup)], tup)


def split_grad(g, ans, ary, axis=0):
    """The adjoint of np.split: the pieces' adjoints joined (a zero for an unused piece)."""
    parts = [np.broadcast_to(gi, np.shape(p)) for gi, p in zip(g, ans)]
    dtype = float_dtype(ary, parts[0] if parts else None)
    return as_input(np.concatenate(parts, axis=axis).astype(dtype, copy=False), ary)


def hsplit_grad(g, ans, ary):
    return split_grad(g, ans, ary, 1 if np.ndim(ary) > 1 else 0)


def append_grads(g, arr, values, axis=None):
    """(d arr, d values) of np.append: a concatenation, flattened when ``axis`` is None."""
    if axis is None:
        n = int(np.size(arr))
        flat = np.ravel(as_array(g, arr, values))
        return (as_input(np.reshape(flat[:n], np.shape(arr)), arr),
                per_item(as_input(np.reshape(flat[n:], np.shape(values)), values), values))
    n = np.shape(arr)[axis]
    g = as_array(g, arr, values)
    head, tail = np.split(g, [n], axis=axis)
    return as_input(head, arr), per_item(as_input(tail, values), values)


def negated_shift(shift):
    """``-shift`` for np.roll's shift, an int or a sequence of them."""
    return -np.asarray(shift) if np.ndim(shift) else -shift


def rollaxis_grad(g, a, axis, start=0):
    nd = np.ndim(a)
    axis = axis % nd
    start = start + nd if start < 0 else start
    order = [i for i in range(nd) if i != axis]
    order.insert(start - 1 if axis < start else start, axis)
    return np.transpose(g, np.argsort(order))


def tile_grad(g, A, reps):
    shape = np.shape(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    nd = max(len(shape), len(reps))
    shape_p = (1,) * (nd - len(shape)) + tuple(shape)
    reps_p = (1,) * (nd - len(reps)) + reps
    inter = []
    for r, s in zip(reps_p, shape_p):
        inter += [r, s]
    summed = np.sum(np.reshape(g, inter), axis=tuple(range(0, 2 * nd, 2)))
    return as_input(np.reshape(summed, shape), A)


def repeat_grad(g, a, repeats, axis=None):
    shape = np.shape(a)
    if axis is None:
        n = int(np.prod(shape, dtype=np.intp))
        idx = np.repeat(np.arange(n), repeats)
        flat = tensor.index_add(np.ravel(g), (n,), float_dtype(a, g), idx)
        return as_input(np.reshape(flat, shape), a)
    axis = axis % len(shape)
    idx = np.repeat(np.arange(shape[axis]), repeats)
    key = (slice(None),) * axis + (idx,)
    return tensor.index_add(g, shape, float_dtype(a, g), key)


def _pairs(value, nd):
    """np.pad's reading of a per-axis (before, after) argument, as an (nd, 2) array."""
    if isinstance(value, dict):
        out = np.zeros((nd, 2), dtype=np.intp)
        for axis, width in value.items():
            out[axis] = np.broadcast_to(np.asarray(width, dtype=np.intp), (2,))
        return out
    v = np.asarray(value)
    if v.size == 1:
        return np.broadcast_to(v.reshape(()), (nd, 2))
    if v.size == 2 and v.shape != (2, 1):
        return np.broadcast_to(v.ravel(), (nd, 2))
    return np.broadcast_to(v, (nd, 2))


def _unpair(bar, value):
    """The adjoint of `_pairs` for a differentiated ``value`` (``bar`` is (nd, 2))."""
    v = np.asarray(value)
    if v.size == 1:
        out = np.sum(bar).reshape(v.shape)
    elif v.size == 2 and v.shape != (2, 1):
        out = np.sum(bar, axis=0).reshape(v.shape)
    else:
        out = tensor.sum_to_shape(bar, v.shape)
    return per_item(as_input(out, value), value)


def _lane_stat_grad(region, stat, count):
    """d stat(region) / d region along the last axis, for np.pad's statistic modes."""
    if stat == "mean":
        return np.ones_like(region) / count
    if stat == "median":
        return median_grad(np.ones(region.shape[:-1], region.dtype), None, region, -1)
    value = (np.max if stat == "maximum" else np.min)(region, axis=-1, keepdims=True)
    hit = region == value
    return hit / np.sum(hit, axis=-1, keepdims=True, dtype=region.dtype)


def pad_grads(g, array, pad_width, mode="constant", stat_length=None, constant_values=0,
              end_values=0, reflect_type="even"):
    """(d array, d constant_values, d end_values) of np.pad.

    np.pad pads one axis after the other, each on the result of the previous, so the
    adjoint undoes the axes in reverse order. Modes that copy elements (edge, wrap,
    reflect, symmetric) add each padded element's adjoint to its source, found by
    padding the indices themselves; the statistic modes send it through the statistic
    of the stretch they read; linear_ramp and odd reflections, linear in the lane, use
    the matrix np.pad makes of the identity.
    """
    if callable(mode):
        refuse("np.pad with a function as its mode has no derivative rule",
               "pad with a named mode, or write the padding with np.concatenate")
    x = np.asarray(array)
    nd = x.ndim
    widths = _pairs(pad_width, nd).astype(np.intp)
    dtype = float_dtype(x, g)
    g = np.asarray(as_array(g, x), dtype=np.result_type(dtype, as_array(g, x).dtype))
    c_bar = np.zeros((nd, 2), dtype=g.dtype) if mode == "constant" else None
    e_bar = np.zeros((nd, 2), dtype=g.dtype) if mode == "linear_ramp" else None
    stats = _pairs(stat_length, nd) if stat_length is not None else None
    for axis in reversed(range(nd)):
        lo, hi = int(widths[axis, 0]), int(widths[axis, 1])
        if lo == 0 and hi == 0:
            continue
        gm = np.moveaxis(g, axis, -1)
        n = gm.shape[-1] - lo - hi
        inner = gm[..., lo:lo + n]
        if mode in ("constant", "empty"):
            out = inner
            if c_bar is not None:
                c_bar[axis] = np.sum(gm[..., :lo]), np.sum(gm[..., lo + n:])
        elif mode in ("edge", "wrap") or mode in ("reflect", "symmetric") \
                and reflect_type != "odd":
            source = np.pad(np.arange(n), (lo, hi), mode=mode)
            out = tensor.index_add(gm, gm.shape[:-1] + (n,), gm.dtype,
                                   (Ellipsis, source))
        elif mode in ("reflect", "symmetric", "linear_ramp"):
            # lane_out = M @ lane_in: M is np.pad of the identity along its first axis
            extra = {"reflect_type": reflect_type} if mode != "linear_ramp" else {}
            m = np.pad(np.eye(n, dtype=gm.dtype), ((lo, hi), (0, 0)), mode=mode, **extra)
            out = np.matmul(gm, m)
            if e_bar is not None:
                ramp_lo = np.pad(np.zeros(n), (lo, hi), mode=mode, end_values=(1.0, 0.0))
                ramp_hi = np.pad(np.zeros(n), (lo, hi), mode=mode, end_values=(0.0, 1.0))
                e_bar[axis] = np.sum(gm * ramp_lo), np.sum(gm * ramp_hi)
        elif mode in ("maximum", "minimum", "median") and np.iscomplexobj(x):
            refuse(f"np.pad of a complex array in mode {mode!r} has no derivative rule "
                   "(it orders complex values)", "pad the real and imaginary parts apart")
        elif mode in ("maximum", "minimum", "mean", "median"):
            # the lane as np.pad saw it: earlier axes padded, this one not yet
            seen = np.pad(x, [(int(a), int(b)) if k < axis else (0, 0)
                              for k, (a, b) in enumerate(widths)], mode=mode,
                          stat_length=stat_length)
            lane = np.moveaxis(seen, axis, -1)
            out = np.array(inner)
            for side, width in ((0, lo), (1, hi)):
                if width == 0:
                    continue
                count = n if stats is None else min(max(int(stats[axis, side]), 1), n)
                span = slice(0, count) if side == 0 else slice(n - count, n)
                region = lane[..., span]
                padded = gm[..., :lo] if side == 0 else gm[..., lo + n:]
                total = np.sum(padded, axis=-1, keepdims=True)
                out[..., span] += total * _lane_stat_grad(region, mode, count)
        else:
            raise ValueError(f"mode {mode!r} is not supported by np.pad")
        g = np.moveaxis(out, -1, axis)
    grad = np.asarray(g, dtype=np.result_type(dtype, g.dtype))
    return (as_input(grad, array),
            None if c_bar is None else _unpair(c_bar, constant_values),
            None if e_bar is None else _unpair(e_bar, end_values))


def diag_grad(g, v, k=0):
    if np.ndim(v) == 1:
        return np.diagonal(g, offset=k).copy()
    out = np.zeros(np.shape(v), dtype=float_dtype(v, g))
    n = len(g)
    rows = np.arange(n) + max(-k, 0)
    cols = np.arange(n) + max(k, 0)
    out[rows, cols] = g
    return out


def diagonal_grad(g, a, offset=0, axis1=0, axis2=1):
    a = np.asarray(a)
    out = np.zeros(a.shape, dtype=float_dtype(a, g))
    view = np.moveaxis(out, (axis1 % a.ndim, axis2 % a.ndim), (-2, -1))
    n = np.shape(g)[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    view[..., rows, cols] = g
    return out


def triangle_grad(gt, m):
    """The adjoint of ``np.tril``/``np.triu`` of ``m`` from the masked cotangent ``gt``:
    a 1-D ``m`` is each row of the square result, so its rows are summed."""
    return np.sum(gt, axis=-2) if np.ndim(m) == 1 else gt


def linspace_grads(g, start, stop, num=50, endpoint=True, axis=0):
    """(d start, d stop) of np.linspace: sample k is start + t_k (stop - start)."""
    div = (num - 1) if endpoint else num
    t = np.arange(num, dtype=float_dtype(g)) / max(div, 1)
    if num == 1:
        t = np.zeros(1, dtype=t.dtype)
    shape = [1] * np.ndim(g)
    shape[axis % max(np.ndim(g), 1)] = num
    t = np.reshape(t, shape)
    g_stop = np.sum(g * t, axis=axis % max(np.ndim(g), 1))
    g_start = np.sum(g, axis=axis % max(np.ndim(g), 1)) - g_stop
    return as_input(g_start, start), as_input(g_stop, stop)


def linspace_grad_start(g, start, stop, num=50, endpoint=True, axis=0):
    return linspace_grads(g, start, stop, num, endpoint, axis)[0]


def linspace_grad_stop(g, start, stop, num=50, endpoint=True, axis=0):
    return linspace_grads(g, start, stop, num, endpoint, axis)[1]


def kron_grads(g, a, b):
    """(d a, d b) of np.kron: block (i, j) of the result is a_i b_j, so the adjoint
    viewed as (a0, b0, a1, b1, ...) contracts with b for a and with a for b."""
    av, bv = np.asarray(a), np.asarray(b)
    nd = max(av.ndim, bv.ndim)
    sa = (1,) * (nd - av.ndim) + av.shape
    sb = (1,) * (nd - bv.ndim) + bv.shape
    gv = np.reshape(as_array(g, av, bv), [n for pair in zip(sa, sb) for n in pair])
    gv = np.transpose(gv, list(range(0, 2 * nd, 2)) + list(range(1, 2 * nd, 2)))
    grad_a = np.tensordot(gv, np.reshape(bv, sb),
                          axes=(list(range(nd, 2 * nd)), list(range(nd))))
    grad_b = np.tensordot(np.reshape(av, sa), gv, axes=(list(range(nd)), list(range(nd))))
    return (as_adjoint(np.reshape(grad_a, av.shape), a),
            as_adjoint(np.reshape(grad_b, bv.shape), b))
