"""What a batched program calls (revsrc/passes/batching.py): each operation over a
batch of examples at once.

A batched value carries the batch as its first axis; an unbatched one is the same for
every example. ``z`` (or ``mask``) says which operands are batched: True, False, or for
a tuple a tuple of those. Each function here computes, for every example, what the
operation computes on that example's operands: the ranks it aligns are the examples'
ranks (``ndim - 1`` for a batched array). Where a form cannot be sure of that, it
calls the operation once per example (`loop`), which is exact by construction.

The pass marks a result batched whenever an operand is, so every form returns its
result with the batch axis in front, lifted where the result reads no batched operand
(the adjoint of a broadcast for an adjoint that is the same for every example). An
unbatched value there would be read as a batch, and where its first axis had the
batch's size nothing would fail: each example would get a wrong number.
tests/test_batching_rules.py checks each form against the loop in every combination.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import _kernels
from . import result_like as _result_like, tensor
from .dropped import Dropped, dropped
from .grads import linalg as _linalg

_ALL = slice(None)


def lane(x, z, i):
    """Example ``i`` of ``x`` (batched as ``z`` says). A tuple or list batched as a
    whole (the stacked results of `loop`) is batched item by item: its example is a
    tuple of the items' examples, not its item ``i``."""
    if z is True:
        if isinstance(x, (tuple, list)):
            return _like(x, [lane(v, True, i) for v in x])
        return x[i]
    if z is False:
        return x
    return _like(x, [lane(v, zz, i) for v, zz in zip(x, z)])


def _like(x, items):
    """A tuple or list of the type of ``x`` (a named tuple too) holding ``items``."""
    return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)


def stacked(results):
    """The per-example ``results`` as one batched value: arrays stacked on a new
    first axis, tuples item by item, numbers as an array of their kind."""
    first = results[0]
    if isinstance(first, (tuple, list)) and not isinstance(first, np.ndarray):
        return _like(first, [stacked([r[k] for r in results]) for k in range(len(first))])
    if first is None and all(r is None for r in results):
        return None
    return np.stack([np.asarray(r) for r in results])


def loop(fn, n, mask, kwmask, *args, **kwargs):
    """``fn`` called on each example's operands, the results stacked: the form of an
    operation with no batching rule of its own (exact: the operation itself, per
    example)."""
    if n == 0:
        raise ValueError("revsrc.vmap: an operation with no batched form over an empty batch")
    out = []
    for i in range(n):
        a = [lane(x, z, i) for x, z in zip(args, mask)]
        kw = {k: lane(v, kwmask.get(k, False), i) for k, v in kwargs.items()}
        out.append(fn(*a, **kw))
    if all(r is None for r in out):
        return None
    return stacked(out)


def check(fn, n, mask, *args):
    """``fn`` for each example, for a statement with no result (a guard, ``print``)."""
    for i in range(n):
        fn(*[lane(x, z, i) for x, z in zip(args, mask)])


def lift(x, n):
    """``x``, the same for every example, as a batched value (a copy: the batched
    program may write into it)."""
    if isinstance(x, tuple):
        return tuple(lift(v, n) for v in x)
    a = np.asarray(x)
    return _spread(a, (n,) + a.shape)


def _spread(a, shape):
    """A new array of ``shape`` holding ``a`` broadcast, in the dtype of ``a``: what
    ``np.array(np.broadcast_to(a, shape))`` gives, without the read-only view between
    (its setup was most of a small batch's cost)."""
    if a.ndim > len(shape):       # broadcast_to's refusal, which assignment lacks
        return np.array(np.broadcast_to(a, shape))
    out = np.empty(shape, dtype=a.dtype)
    out[...] = a
    return out


def _aligned(args, mask):
    """The operands with each batched one's example axes moved right, so that NumPy
    broadcasting lines up the examples' axes as it would for one example."""
    rank = max((_ndim(a) - (1 if z else 0) for a, z in zip(args, mask)), default=0)
    out = []
    for a, z in zip(args, mask):
        if z:
            a = np.asarray(a)
            r = a.ndim - 1
            if r < rank:
                a = a.reshape(a.shape[:1] + (1,) * (rank - r) + a.shape[1:])
        out.append(a)
    return out


_LIKE = (np.zeros_like, np.ones_like, np.full_like, np.empty_like)
# an in-place operator writes into its first operand: one the same for every example
# cannot take the batch, so the batch gets a new array, as ``x = x + y`` would
_OUT_OF_PLACE = {operator.iadd: operator.add, operator.isub: operator.sub,
                 operator.imul: operator.mul, operator.itruediv: operator.truediv,
                 operator.ifloordiv: operator.floordiv, operator.imod: operator.mod,
                 operator.ipow: operator.pow, operator.imatmul: operator.matmul,
                 operator.iand: operator.and_, operator.ior: operator.or_,
                 operator.ixor: operator.xor, operator.ilshift: operator.lshift,
                 operator.irshift: operator.rshift}


def elementwise(fn, mask, *args, **kwargs):
    """An elementwise operation (a ufunc, an operator, a rule's helper): one call on
    the aligned operands."""
    if fn in _LIKE and not mask[0]:
        # the shape is the first operand's alone: lifted, so that the result carries
        # the batch of the batched fill value
        n = next(np.shape(a)[0] for a, z in zip(args, mask) if z)
        args, mask = (lift(args[0], n),) + args[1:], (True,) + tuple(mask[1:])
    elif not mask[0] and fn in _OUT_OF_PLACE:
        fn = _OUT_OF_PLACE[fn]
    elif fn is np.where and len(args) == 1:      # np.nonzero: not elementwise
        n = next(np.shape(a)[0] for a, z in zip(args, mask) if z)
        return loop(fn, n, mask, {}, *args, **kwargs)
    return fn(*_aligned(args, mask), **kwargs)


# The forms the pass picks where it knows which operands are batched (two operands):
# one rank test, then the operation itself on the operands as they are. The test is
# `_aligned`'s: nothing needs moving when every batched operand has the same rank and
# an unbatched one has no more axes than an example. Otherwise `elementwise` aligns.
_ND = np.ndarray


def _ndim(x):
    """``np.ndim(x)``, at once for an array (the products' and alignment's rank tests
    run on every call of a batched program)."""
    return x.ndim if type(x) is _ND else np.ndim(x)


def _swapped(x):
    """``np.swapaxes(x, -1, -2)``, at once for an array."""
    return x.swapaxes(-1, -2) if type(x) is _ND else np.swapaxes(x, -1, -2)


def elementwise_bu(fn, a, b):
    """`elementwise` of ``fn(a, b)``, ``a`` batched, ``b`` not."""
    if type(a) is _ND and a.ndim > (b.ndim if type(b) is _ND else np.ndim(b)):
        return fn(a, b)
    return elementwise(fn, (True, False), a, b)


def elementwise_ub(fn, a, b):
    """`elementwise` of ``fn(a, b)``, ``b`` batched, ``a`` not."""
    if type(b) is _ND and b.ndim > (a.ndim if type(a) is _ND else np.ndim(a)):
        return fn(a, b)
    return elementwise(fn, (False, True), a, b)


def elementwise_bb(fn, a, b):
    """`elementwise` of ``fn(a, b)``, both batched."""
    if type(a) is _ND and type(b) is _ND and a.ndim == b.ndim:
        return fn(a, b)
    return elementwise(fn, (True, True), a, b)


def out_of_place(fn):
    """The operator an in-place ``fn`` becomes when its first operand is the same for
    every example (`elementwise`), else ``fn``."""
    return _OUT_OF_PLACE.get(fn, fn)


def elementwise_checked(fn, alt, n, mask, *args):
    """A function that may raise on numbers (``math.log``, ``/`` of floats) through its
    NumPy twin ``alt``; where that twin gives a non-finite value from finite operands,
    every example runs ``fn`` itself, which raises or gives what it gives."""
    if getattr(fn, "__module__", None) == "math" and any(
            np.ndim(a) > (1 if z else 0) for a, z in zip(args, mask)):
        return loop(fn, n, mask, {}, *args)      # math on an array: raises as it does
    with np.errstate(all="ignore"):
        out = alt(*_aligned(args, mask))
    if np.all(np.isfinite(out)):
        return out
    return loop(fn, n, mask, {}, *args)


def _axis(axis, rank):
    """A reduction's ``axis`` for an example of rank ``rank``, on the batch."""
    if axis is None:
        return tuple(range(1, rank + 1))
    if isinstance(axis, tuple):
        return tuple(_axis(a, rank)[0] for a in axis)
    axis = int(axis)
    return (axis + 1 if axis >= 0 else axis,)


_WHOLE = [tuple(range(1, r + 1)) for r in range(33)]   # an example's every axis
_add_reduce = np.add.reduce


def reduction_all(fn, n, x):
    """`reduction` over the whole of each example of a batched ``x`` (no ``axis``)."""
    if type(x) is _ND:
        if fn is np.sum:    # np.sum of an ndarray is this reduce, without its wrappers
            return _add_reduce(x, _WHOLE[x.ndim - 1])
        return fn(x, axis=_WHOLE[x.ndim - 1])
    return reduction(fn, n, (True,), {}, x)


def reduction(fn, n, mask, kwmask, *args, **kwargs):
    """A reduction over ``axis`` (positional second operand or keyword) of its first
    operand: the axis moved past the batch. Anything else batched: `loop`."""
    if not mask or mask[0] is not True or any(mask[1:]) or any(kwmask.values()):
        return loop(fn, n, mask, kwmask, *args, **kwargs)
    x = np.asarray(args[0])
    rest = list(args[1:])
    if rest:
        rest[0] = _axis(rest[0], x.ndim - 1)
    else:
        kwargs["axis"] = _axis(kwargs.get("axis"), x.ndim - 1)
    return fn(x, *rest, **kwargs)


def result_like(fn, n, mask, *args):
    """What ``runtime.result_like`` gives, for each example: a read-only zero array of
    the batched result's shape."""
    like = _result_like(fn, *(lane(a, z, 0) for a, z in zip(args, mask)))  # an example
    if isinstance(fn, np.ufunc):
        shape = np.broadcast_shapes(*(np.shape(a) for a in _aligned(args, mask)))
    else:
        shape = (n,) + like.shape
    out = np.zeros(shape, dtype=like.dtype)
    out.flags.writeable = False
    return out


def matmul(a, b, za, zb, n=None):
    """``a @ b`` per example, for examples of rank 1 or 2 (anything else: `loop`)."""
    ra, rb = _ndim(a) - za, _ndim(b) - zb
    if not (1 <= ra <= 2 and 1 <= rb <= 2):
        return loop(np.matmul, n, (za, zb), {}, a, b)
    if za and zb:
        if ra == 1 and rb == 1:
            return np.einsum("ij,ij->i", a, b)
        if ra == 1:
            return np.matmul(a[:, None, :], b)[:, 0, :]
        if rb == 1:
            return np.matmul(a, b[:, :, None])[:, :, 0]
        return np.matmul(a, b)
    if za:
        return np.matmul(a, b)
    if rb == 1:
        return np.matmul(b, a.T if ra == 2 else a)
    return np.matmul(a, b)


def matmul_grad_a(g, a, b, zg, za, zb, n=None):
    """The adjoint of ``a @ b`` for ``a``, per example (ranks 1 and 2)."""
    if not (zg or zb):      # it does not read ``a``'s values: the same for every example
        return lift(_linalg.matmul_grad_a(g, lane(a, za, 0), b), n)
    ra, rb = _ndim(a) - za, _ndim(b) - zb
    if not (1 <= ra <= 2 and 1 <= rb <= 2):
        return loop(_linalg.matmul_grad_a, n, (zg, za, zb), {}, g, a, b)
    if rb == 1:
        if ra == 1:
            return elementwise(np.multiply, (zg, zb), g, b)
        return _outer(g, b, zg, zb)
    return matmul(g, _swapped(b), zg, zb, n)


def matmul_grad_b(g, a, b, zg, za, zb, n=None):
    """The adjoint of ``a @ b`` for ``b``, per example (ranks 1 and 2)."""
    if not (zg or za):      # it does not read ``b``'s values: the same for every example
        return lift(_linalg.matmul_grad_b(g, a, lane(b, zb, 0)), n)
    ra, rb = _ndim(a) - za, _ndim(b) - zb
    if not (1 <= ra <= 2 and 1 <= rb <= 2):
        return loop(_linalg.matmul_grad_b, n, (zg, za, zb), {}, g, a, b)
    if ra == 1:
        if rb == 1:
            return elementwise(np.multiply, (zg, za), g, a)
        return _outer(a, g, za, zg)
    return matmul(_swapped(a), g, za, zg, n)


def _outer(u, v, zu, zv):
    """``np.multiply.outer(u, v)`` per example, for vectors: one product per item, as
    the broadcast multiply gives; float64 rows by the compiled kernel (one pass at
    memory speed, twice einsum's), else by einsum, whose loop over a short last axis
    (a weight gradient of 8 outputs) is a quarter to a third faster than the
    broadcast multiply's."""
    if zu or zv:
        out = _kernels.outer_rows(u, v, zu, zv)
        if out is not None:
            return out
    spec = ("ni" if zu else "i") + "," + ("nj" if zv else "j") + "->" + \
        ("n" if zu or zv else "") + "ij"
    return np.einsum(spec, u, v)


def unbroadcast(g, x, zg, zx, n):
    """``tensor.unbroadcast(g, x)`` per example: ``g`` summed to the example shape of
    ``x``."""
    one = tensor.unbroadcast
    if not zg:
        # the same for every example; lifted, since the program holds it as batched
        # (an unbatched result would read as a batch whenever its first axis happens
        # to be the batch's size, and give every example the wrong number)
        return lift(one(g, np.zeros(np.shape(x)[1:]) if zx else x), n)
    if not isinstance(g, np.ndarray):     # np.asanyarray: a Dropped adjoint stays one
        g = np.asanyarray(g)
    xs = x.shape if type(x) is _ND else np.shape(x)
    if zx:
        xs = xs[1:]
    gs = g.shape[1:]
    if gs == xs:      # nothing to sum: what the sums below would give, a view of g
        return dropped(g.view(np.ndarray), g.zeros) if isinstance(g, Dropped) else g.view()
    lead = len(gs) - len(xs)
    axes = tuple(range(1, 1 + lead)) + tuple(
        1 + lead + k for k, d in enumerate(xs) if d == 1 and gs[lead + k] != 1)
    # g.sum(axis=axes, keepdims=True), which is this reduce, without its wrappers
    out = _add_reduce(g, axis=axes, keepdims=True) if axes else g
    return out.reshape(g.shape[:1] + tuple(xs))


def getitem(x, idx, zx, zi, n=None):
    """``x[idx]`` per example: a fixed index after the batch axis; a batched integer
    index gathered row by row; anything else `loop`."""
    if not zi:
        if isinstance(x, (tuple, list)):
            # a tuple of items batched or not: the one read, batched (an index the
            # program computes, a loop's counter, may read any of them)
            return _batched_as(x[idx], zx[idx] if isinstance(zx, tuple) else zx, n)
        items = idx if isinstance(idx, tuple) else (idx,)
        if _simple_index(items):
            return np.asarray(x)[(_ALL,) + items]
        return loop(_get, n, (zx, zi), {}, x, idx)
    ia = np.asarray(idx)
    if ia.dtype.kind in "iu" and not isinstance(x, (tuple, list)):
        if not zx:
            return np.asarray(x)[ia]
        rows = np.arange(ia.shape[0]).reshape((-1,) + (1,) * (ia.ndim - 1))
        return np.asarray(x)[rows, ia]
    return loop(_get, n, (zx, zi), {}, x, idx)


def _batched_as(v, z, n):
    """``v`` (batched as ``z`` says) with every item batched."""
    if z is True:
        return v
    if z is False:
        return lift(v, n)
    return _like(v, [_batched_as(item, zz, n) for item, zz in zip(v, z)])


def _get(x, i):
    return x[i]


def _simple_index(items):
    """Whether ``(:,) + items`` indexes each example as ``items`` does: no nested
    tuple, and the advanced indices (arrays, and numbers once an array is among them)
    side by side. Advanced indices apart put their axes first: before the example's
    other axes for one example, but before the batch axis too for the batch."""
    if any(isinstance(i, tuple) for i in items):
        return False
    arrays = [isinstance(i, (np.ndarray, list)) for i in items]
    if not any(arrays):
        return True
    advanced = [k for k, (i, a) in enumerate(zip(items, arrays))
                if a or isinstance(i, (int, np.integer, bool, np.bool_))]
    return advanced[-1] - advanced[0] == len(advanced) - 1


def setitem(t, idx, v, zi, zv, n):
    """``t[idx] = v`` per example, ``t`` batched: one assignment where the index is
    the same for every example, else one per example."""
    items = idx if isinstance(idx, tuple) else (idx,)
    if not zi and _simple_index(items) and not any(i is None for i in items):
        slot = t[(_ALL,) + items]
        if zv:
            v = np.asarray(v)
            r, rv = slot.ndim - 1, v.ndim - 1
            if rv < r:
                v = v.reshape(v.shape[:1] + (1,) * (r - rv) + v.shape[1:])
        t[(_ALL,) + items] = v
        return t
    for i in range(n):
        t[i][lane(idx, zi, i)] = lane(v, zv, i)
    return t


def shifted_axes(fn, axis_pos, mask, *args, **kwargs):
    """A function of one array whose ``axis`` (keyword, or positional ``axis_pos``)
    counts its example's axes: the axis moved past the batch (None: `loop`)."""
    args = list(args)
    if "axis" in kwargs:
        kwargs["axis"] = _shift(kwargs["axis"])
    elif len(args) > axis_pos:
        args[axis_pos] = _shift(args[axis_pos])
    else:
        kwargs["axis"] = _shift(0)
    return fn(*args, **kwargs)


def _shift(axis):
    if isinstance(axis, tuple):
        return tuple(_shift(a) for a in axis)
    return axis + 1 if axis >= 0 else axis


def reshape(x, shape, *rest, **kwargs):
    """``np.reshape(x, shape)`` per example."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    x = np.asarray(x)
    return np.reshape(x, x.shape[:1] + shape, *rest, **kwargs)


def transpose(x, axes=None):
    """``np.transpose(x, axes)`` per example."""
    x = np.asarray(x)
    r = x.ndim - 1
    if axes is None:
        axes = tuple(range(r - 1, -1, -1))
    return np.transpose(x, (0,) + tuple((a % r) + 1 for a in axes))


def joined(fn, n, zs, seq, axis=0, **kwargs):
    """``np.concatenate`` / ``np.stack`` of a sequence per example: the examples that
    are the same for all lifted, the axis moved past the batch."""
    if axis is None:
        return loop(lambda s: fn(s, axis=None, **kwargs), n, (zs,), {}, seq)
    zs = zs if isinstance(zs, tuple) else (zs,) * len(seq)
    items = [v if z else lift(v, n) for v, z in zip(seq, zs)]
    return fn(items, axis=_shift(axis), **kwargs)


def einsum(spec, n, mask, *operands):
    """``np.einsum(spec, ...)`` per example: a new index letter for the batch on each
    batched operand and on the result (a spec with ``...``: `loop`)."""
    ins, _, out = spec.replace(" ", "").partition("->")
    used = set(spec)
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                  if c not in used)
    parts = ins.split(",")
    if not _ or "." in spec:
        return loop(lambda *ops: np.einsum(spec, *ops), n, mask, {}, *operands)
    parts = [letter + p if z else p for p, z in zip(parts, mask)]
    return np.einsum(",".join(parts) + "->" + letter + out, *operands)


def dot(a, b, za, zb, n=None):
    """``np.dot(a, b)`` per example: a product for a number, `matmul` for ranks 1
    and 2, else `loop`."""
    ra, rb = _ndim(a) - za, _ndim(b) - zb
    if ra == 0 or rb == 0:
        return elementwise(np.multiply, (za, zb), a, b)
    if ra <= 2 and rb <= 2:
        return matmul(a, b, za, zb, n)
    return loop(np.dot, n, (za, zb), {}, a, b)


def reduced_grad(rule, mean, n, mask, g, ans, a, axis=None, keepdims=False):
    """The adjoint of a whole-array ``np.sum`` (``mean``: ``np.mean``) per example:
    ``g`` (divided by the count) spread over the example's shape."""
    zg, za = mask[0], mask[2]
    # ``a`` the same for every example, ``g`` not: the rows of a reverse-mode Jacobian
    if axis is not None or not (za is True or (za is False and zg is True)) or \
            any(mask[3:]) or np.asarray(a).dtype != np.float64:
        return loop(rule, n, mask, {}, g, ans, a, axis, keepdims)
    a = np.asarray(a)
    shape = a.shape if za else (n,) + a.shape
    g = np.asarray(g, dtype=np.float64)
    if mean:
        g = g / max((a[0].size if n else 1) if za else a.size, 1)
    if zg:
        g = g.reshape(g.shape[:1] + (1,) * (len(shape) - 1))
    return _spread(g, shape)


def as_float(x):
    """``float(x)`` per example: an example that is not a number (an array of rank 1
    or more) raises as ``float`` does."""
    a = np.asarray(x)
    if a.ndim != 1:
        return loop(float, a.shape[0], (True,), {}, x)
    return np.asarray(a, dtype=np.float64)


def broadcast_like(t, ans, zt, za):
    """``runtime.broadcast_like(t, ans)`` per example: ``t`` in the example shape of
    ``ans``."""
    if zt and not za and type(t) is _ND and t.shape[1:] == np.shape(ans):
        out = t.view()     # already of the shape: a read-only view, as broadcast_to's
        out.flags.writeable = False
        return out
    if zt and not za and type(t) is _ND and type(ans) is _ND:
        shape = t.shape[:1] + ans.shape
    else:
        n = np.shape(t)[0] if zt else np.shape(ans)[0]
        shape = (n,) + (np.shape(ans)[1:] if za else np.shape(ans))
    if zt and type(t) is _ND and t.ndim <= len(shape):
        if t.ndim < len(shape):      # `_aligned`'s move of the example's axes right
            t = t.reshape(t.shape[:1] + (1,) * (len(shape) - t.ndim) + t.shape[1:])
        return tensor.broadcast_view(t, shape)
    t = _aligned([t, np.zeros(shape[1:])], (zt, False))[0] if zt else t
    return np.broadcast_to(t, shape)


def finalize(g, x, zg, zx, n):
    """``runtime.finalize_grad(g, x)`` per example."""
    if np.iscomplexobj(g) and not np.iscomplexobj(x):
        g = np.real(g)
    xs = np.shape(x)[1:] if zx else np.shape(x)
    dtype = x.dtype if isinstance(x, np.ndarray) else np.float64
    out = np.asarray(g, dtype=dtype)
    if not zg:
        return _spread(out, (n,) + xs)
    if out.shape[1:] != xs:
        out = np.broadcast_to(_aligned([out, np.zeros(xs)], (True, False))[0], (n,) + xs)
    return np.array(out) if out is g or not out.flags.writeable else out
