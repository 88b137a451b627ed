"""Small helpers the generated adjoint calls for arrays (never on the scalar path)."""
from __future__ import annotations

import os

import numpy as np

from . import _kernels, errors, tensor

# REVSRC_POOL=0 turns the memory pool off (for A/B measurements, or a process that
# wants every freed block back in the C allocator at once).
_POOL = os.environ.get("REVSRC_POOL", "1") != "0"


# Sum an adjoint back to its input's shape (undoing NumPy broadcasting).
unbroadcast = tensor.unbroadcast


def run_pooled(fn, args):
    """``fn(*args)`` with NumPy drawing array data from revsrc's memory pool.

    Large temporaries of a generated adjoint are freed and allocated again on every
    call; fresh pages cost a page fault each on first touch (the whole of the im2col
    convolution's time on the machines we measured). The pool keeps freed blocks for
    the next call, bounded (see ``revsrc._kernels.pool_set_limit``); the values are
    NumPy's, only their memory is reused. Arrays that outlive the call (the gradients
    returned) are ordinary arrays, and go back to the pool when they are freed.
    """
    if not _POOL:
        return fn(*args)
    prev = _kernels.pool_enter()
    try:
        return fn(*args)
    finally:
        _kernels.pool_exit(prev)


def release_memory():
    """Free every block revsrc's memory pool holds for reuse."""
    _kernels.pool_release()


def expand_zero(g, like):
    """``g``, or zeros shaped like ``like`` when ``g`` is a zero adjoint that has not
    been broadcast to full shape yet (a 0.0 placeholder, or a product of one)."""
    shape = np.shape(like)
    if np.shape(g) == shape:
        return g
    if not np.any(g):
        dtype = like.dtype if isinstance(like, np.ndarray) and like.dtype.kind in "fc" \
            else np.float64
        return np.zeros(shape, dtype=dtype)
    return g


def take_grad(g, index):
    """``g[index]``, where a scalar ``g`` stands for an array of that value."""
    if np.ndim(g) == 0:
        return g
    return g[index]


def zero_at(g, index):
    """A copy of ``g`` with ``g[index] = 0`` (``g`` itself is never changed)."""
    if np.ndim(g) == 0:
        if g == 0:
            return g
        raise AssertionError("a scalar adjoint reached an item assignment")
    out = np.array(g, copy=True)
    out[index] = 0
    return out


def copy_item(x, index):
    """The values ``x[index]`` holds now, copied (saved before an item assignment)."""
    return np.array(x[index], copy=True)


def check_scalar_output(value, loc=None):
    """Refuse a non-scalar output before the adjoint sweep runs on it."""
    if isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, bool):
        return
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "fiu":
        return
    shape = getattr(value, "shape", None)
    what = f"an array of shape {shape}" if shape is not None else type(value).__name__
    raise errors.NonScalarOutput(
        f"the function returned {what}; grad needs a scalar float output", loc=loc,
        hint="reduce it first (np.sum, np.mean), or differentiate one element")


def take(x, index):
    """``x[index]``, gathering through ``np.take`` when NumPy's fancy indexing is slow.

    The fast case is the im2col pattern: full slices, then two or more integer arrays
    on the trailing axes (``x[:, :, ii, jj]``). Those are turned into one flat index
    and gathered with ``np.take``, several times faster than fancy indexing with
    several arrays. Every other index is plain ``x[index]``.
    """
    if type(index) is tuple and type(x) is np.ndarray and len(index) == x.ndim:
        k = 0
        while k < len(index) and type(index[k]) is slice and index[k] == _FULL:
            k += 1
        arrays = index[k:]
        if len(arrays) >= 2 and all(type(a) is np.ndarray and a.dtype.kind in "iu"
                                    for a in arrays):
            try:
                trailing = x.shape[k:]
                flat = np.ravel_multi_index(np.broadcast_arrays(*arrays), trailing)
            except ValueError:  # negative or out-of-range: let NumPy decide
                return x[index]
            base = x.reshape(x.shape[:k] + (-1,))
            return np.take(base, flat, axis=k)
    return x[index]


_FULL = slice(None)


def accumulate(acc, t):
    """``acc + t``, added into ``acc`` itself when it is an array the adjoint owns.

    Generated code calls it only for an accumulator nothing else reads (see
    ``revsrc.prune.accumulate_in_place``): its first value is a number (0.0), so
    its array was made by an earlier ``acc + t`` and no other name holds it. The
    values are those of ``acc + t``; only the allocation is saved.
    """
    if _kernels.add_into(acc, t):
        return acc
    return acc + t
