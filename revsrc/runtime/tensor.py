"""Runtime helpers called by generated NumPy adjoint code.

Plain Python over NumPy, with the compiled kernels from ``revsrc._kernels`` where a
benchmark (bench/test_kernels_bench.py) shows them beating NumPy. Every helper
accepts whatever the NumPy expression it replaces accepts: inputs the kernels
cannot take directly fall back to that expression.
"""
import numbers

import numpy as np

from .. import _kernels

__all__ = [
    "sum_to_shape",
    "unbroadcast",
    "index_add",
    "tanh_vjp",
    "relu_vjp",
    "sigmoid_vjp",
    "logaddexp_vjp",
]

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_FULL = slice(None)


def flatten(a, order="C"):
    """``a.flatten(order)``: a copy, never a view (``np.ravel`` may return a view, and a
    write into the copy must not reach ``a``)."""
    return np.asarray(a).flatten(order)


# ----- Broadcasting -----

_VIEWABLE = frozenset("fc")


def broadcast_view(a, shape):
    """``np.broadcast_to(a, shape)`` (a read-only view) for a C-contiguous float array
    ``a`` of as many axes as ``shape``, each of its length or 1: the view made at
    once (broadcast_to's setup was most of a small tangent's cost); anything else
    through broadcast_to."""
    if type(a) is np.ndarray and a.dtype.kind in _VIEWABLE and a.ndim == len(shape) and \
            a.flags.c_contiguous and a.size:
        strides = []
        for n, m, st in zip(a.shape, shape, a.strides):
            if n == m:
                strides.append(st)
            elif n == 1:
                strides.append(0)
            else:
                return np.broadcast_to(a, shape)   # its error
        out = np.ndarray(shape, a.dtype, a, 0, tuple(strides))
        out.flags.writeable = False
        return out
    return np.broadcast_to(a, shape)


def sum_to_shape(g, shape):
    """Sum `g` back to `shape`: the adjoint of broadcasting an array of `shape`.

    >>> sum_to_shape(np.ones((2, 3)), (1, 3))
    array([[2., 2., 2.]])
    """
    gshape = getattr(g, "shape", None)
    if gshape == shape:
        return g
    if gshape is None or gshape == ():
        # A scalar adjoint stands for an array filled with it (the generated code
        # starts adjoints at 0.0 and lets NumPy broadcast them): nothing to sum.
        return g
    shape = tuple(shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(shape, gshape[lead:])):
        if not np.any(g) and np.broadcast_shapes(gshape, shape) == shape:
            # a product with a scalar 0.0 adjoint: zeros, but not yet of full shape
            return np.zeros(shape, dtype=g.dtype)
        raise ValueError(f"sum_to_shape: cannot sum shape {gshape} to {shape}")
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and gshape[lead + i] != 1)
    summed = np.sum(g, axis=axes) if axes else g
    return np.reshape(summed, shape)


_add_reduce = np.add.reduce


def unbroadcast(g, x):
    """sum_to_shape(g, np.shape(x)), but a scalar when `x` is a Python number.

    >>> unbroadcast(np.ones(3), 2.0)
    np.float64(3.0)
    """
    if type(g) is np.ndarray and type(x) is np.ndarray:
        gs, xs = g.shape, x.shape
        if gs == xs:
            return g  # the common case, in loops too: nothing was broadcast
        if len(gs) == 2 and len(xs) == 1 and gs[1] == xs[0]:
            # a bias row added to a batch: np.sum(g, axis=0) is this same reduction,
            # without its Python wrappers (~1 us here, not 5 on a 16 x 32 array)
            return _add_reduce(g, 0)
    if isinstance(x, numbers.Number) and not isinstance(x, np.generic):
        if isinstance(g, np.ndarray):
            # (a 0-d adjoint marked with its structural zero keeps its mark: dropped.py)
            return g if g.ndim == 0 and getattr(g, "zeros", None) is not None else \
                np.sum(g)[()]
        return g
    return sum_to_shape(g, np.shape(x))


# ----- Indexing -----

def index_add(g, shape, dtype, index):
    """Adjoint of ``y = x[index]`` for `x` of `shape` and `dtype`: zeros with `g` added at `index`.

    Repeated integer indices accumulate, as ``np.add.at`` does.

    >>> index_add(np.ones(3), (4,), np.float64, np.array([0, 2, 0]))
    array([2., 0., 1., 0.])
    """
    out = np.zeros(shape, dtype)
    if out.dtype.kind != "c" and (isinstance(g, complex) or getattr(g, "dtype", _F64).kind == "c"):
        g = np.real(g)    # a real array's adjoint takes a complex cotangent's real part
    key = index if isinstance(index, tuple) else (index,)
    if _is_basic(key):
        # Basic indexing selects each element at most once: plain assignment is exact.
        out[index] = g
        return out
    if type(index) is tuple and _kernels.add_at_trailing(out, index, g):
        return out  # full slices, then arrays on every other axis (the im2col adjoint)
    if not _scatter_rows(out, key, g):
        np.add.at(out, index, g)
    return out


def _is_basic(key):
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice):
            continue
        if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            continue
        return False
    return True


def _scatter_rows(out, key, g):
    """Try out[key] += g through scatter_add_rows; return False to ask for np.add.at.

    Handles one run of adjacent advanced indices (integer arrays or boolean masks)
    with every other entry a full slice, by viewing out as rows of
    (leading axes x advanced axes, trailing axes).
    """
    if out.dtype is not _F64 and out.dtype is not _F32:
        return False
    shape = out.shape
    # Entries: None for a full slice, a list of integer arrays for an advanced
    # index (a boolean mask of ndim k becomes its k nonzero() arrays).
    entries = []
    ellipsis_at = None
    for k in key:
        if k is Ellipsis:
            if ellipsis_at is not None:
                return False
            ellipsis_at = len(entries)
        elif isinstance(k, slice):
            if k != _FULL:
                return False
            entries.append(None)
        elif k is None or isinstance(k, (int, np.integer, np.bool_)):
            return False
        else:
            arr = np.asarray(k)
            if arr.dtype.kind == "b" and arr.ndim > 0:
                entries.append(arr)  # resolved below, once its axes are known
            elif arr.dtype.kind in "iu":
                entries.append([arr])
            else:
                return False
    used = sum(1 if e is None else (e.ndim if isinstance(e, np.ndarray) else 1)
               for e in entries)
    if used > len(shape):
        return False
    fill = [None] * (len(shape) - used)
    if ellipsis_at is None:
        entries += fill
    else:
        entries[ellipsis_at:ellipsis_at] = fill
    dim = 0
    for i, e in enumerate(entries):
        if isinstance(e, np.ndarray):
            if e.shape != shape[dim:dim + e.ndim]:
                return False
            entries[i] = list(np.nonzero(e))
        dim += 1 if e is None else (e.ndim if isinstance(e, np.ndarray) else 1)
    where = [i for i, e in enumerate(entries) if e is not None]
    if where != list(range(where[0], where[-1] + 1)):
        return False  # separated advanced indices move their axes to the front
    # Every entry before the advanced run is a full slice covering one axis.
    before = where[0]
    arrays = [a for e in entries[before:where[-1] + 1] for a in e]
    naxes = len(arrays)
    adv_dims = shape[before:before + naxes]
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        return False
    outer = int(np.prod(shape[:before], dtype=np.intp))
    if naxes == 1 and outer == 1:
        flat = arrays[0].reshape(-1)  # the kernel wraps negatives and checks bounds
    else:
        # Row numbers are combined below, so each index must be in range first.
        for a, n in zip(arrays, adv_dims):
            if a.size and (a.min() < -n or a.max() >= n):
                return False  # let np.add.at raise NumPy's own IndexError
        flat = np.ravel_multi_index(arrays, adv_dims, mode="wrap").reshape(-1)
    rows = int(np.prod(adv_dims, dtype=np.intp))
    inner = int(np.prod(shape[before + naxes:], dtype=np.intp))
    if outer != 1:
        flat = (np.arange(outer, dtype=np.intp)[:, None] * rows + flat[None, :]).reshape(-1)
    res_shape = shape[:before] + arrays[0].shape + shape[before + naxes:]
    vals = np.broadcast_to(np.asarray(g, dtype=out.dtype), res_shape)
    _kernels.scatter_add_rows(
        out.reshape(outer * rows, inner), flat, vals.reshape(flat.shape[0], inner))
    return True


# ----- Fused elementwise adjoints -----
# Each runs its kernel when the operands are plain float32/float64 arrays of one shape
# and dtype (checked in C, so a small array pays ~0.3 us, not the ~2 us of four NumPy
# calls), and otherwise the NumPy expression it replaces, which is also its oracle.

_fused = _kernels.elementwise_or_none


def tanh_vjp(g, ans):
    """g * (1 - ans * ans), the adjoint of ``ans = np.tanh(x)``."""
    out = _fused(_kernels.TANH, g, ans)
    if out is None:
        out = g * (1.0 - ans * ans)
    return out


def relu_vjp(g, x):
    """g where x > 0, g / 2 where x == 0, else 0: the adjoint of ``np.maximum(x, 0.0)``
    for `x` (a tie is split, as in the rule for np.maximum)."""
    out = _fused(_kernels.RELU, g, x)
    if out is None:
        zero = np.zeros_like(g)
        out = np.where(np.greater(x, 0), g, np.where(np.equal(x, 0), g * 0.5, zero))
    return out


def sigmoid_vjp(g, ans):
    """g * ans * (1 - ans), the adjoint of ``ans = 1 / (1 + np.exp(-x))``."""
    out = _fused(_kernels.SIGMOID, g, ans)
    if out is None:
        out = g * ans * (1.0 - ans)
    return out


def logaddexp_vjp(g, x, y):
    """g / (1 + exp(y - x)): the adjoint of ``np.logaddexp(x, y)`` for `x` (for `y`, swap
    them), softplus ``np.logaddexp(0, x)`` and log-sigmoid ``-np.logaddexp(0, -x)``
    included. The rule's g * exp(x - ans) is the same value; this form has no
    cancellation in x - ans and does not read ans, so a gradient that does not return
    the function's value need not compute np.logaddexp at all. exp is NumPy's loop."""
    out = _fused(_kernels.LOGADDEXP, g, x, y)
    if out is None:
        out = g / (1.0 + np.exp(y - x))
    return out
