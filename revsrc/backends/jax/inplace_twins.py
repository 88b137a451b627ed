"""jax.numpy twins of NumPy's in-place functions as values (revsrc/runtime/inplace.py).

``np.add.at(a, idx, v)`` and ``np.fill_diagonal(a, val)`` are lowered, on an array the
function made, to ``a[...] = add_at(a, idx, v)``: a new value from the old one. Under
JAX that is ``a.at[idx].add(v)`` (a scatter-add: a repeated index adds again, as
NumPy's ufunc.at does) and a ``.at[].set`` on the diagonal's flat positions, known
from the shape while tracing. `view_back`, the write back through a view whose
layout revsrc knows (reshape, squeeze, transpose...), is here too.

Item assignment with an index of integer arrays (`set_at`, `take_grad`): where the
index repeats a place, XLA's scatter keeps an undefined one of the values written
there, NumPy the last. Only the last write to each place is made (and gets the
adjoint): found by NumPy itself for a concrete index, by a stable sort of the
positions for a traced one.

What JAX cannot say is refused (E603) rather than guessed: whether NumPy made a value
a view of an array (``y.reshape(-1)`` is a view of a contiguous ``y``, a copy of a
transposed one), which depends on a memory layout JAX arrays do not have; and
np.fill_diagonal with an array of values computed in the function, which NumPy reads
while it writes when they are a view of the array written.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ... import errors, runtime
from ...runtime import inplace

__all__ = ["TWINS", "view_back", "as_index", "set_at", "take_grad", "stored_derivative",
           "conversion_tangent"]


def _traced(v):
    if isinstance(v, (jax.Array, jax.core.Tracer)):
        return True
    return isinstance(v, (list, tuple)) and any(_traced(i) for i in v)


def _index(indices):
    """ufunc.at's index as NumPy reads it: a list is one array of indices, a tuple
    indexes several axes."""
    if isinstance(indices, list):
        return jnp.asarray(indices) if _traced(indices) else np.asarray(indices)
    return indices


def _full(g, a):
    g = jnp.asarray(g)
    return g if g.shape == jnp.shape(a) else jnp.broadcast_to(g, jnp.shape(a))


def _sum_to(x, shape):
    """``x`` summed over the axes it was broadcast along from ``shape``."""
    x = jnp.asarray(x)
    lead = x.ndim - len(shape)
    if lead > 0:
        x = x.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1)
    if axes:
        x = x.sum(axis=axes, keepdims=True)
    return x.reshape(shape)


def add_at(a, indices, values):
    """jnp: ``a`` after ``np.add.at(a, indices, values)``."""
    a = jnp.asarray(a)
    if jnp.result_type(a, values) != a.dtype:
        raise errors.JaxNotLowered(
            f"backend='jax': np.add.at into an array of {a.dtype} with values of "
            f"{jnp.result_type(values)} (NumPy refuses the cast; JAX would make it)",
            hint="make the array a float array first")
    return a.at[_index(indices)].add(values)


def add_at_values_grad(g, a, indices, values):
    picked = _full(g, a)[_index(indices)]
    if jnp.ndim(values) == 0:
        return jnp.sum(picked)
    return _sum_to(picked, jnp.shape(values))


def spread_like_picked(h, a, indices):
    return jnp.broadcast_to(h, jnp.zeros(jnp.shape(a))[_index(indices)].shape)


def add_at_values_tangent(t, a, indices):
    out = jnp.zeros(jnp.shape(a), dtype=jnp.result_type(a, t, float))
    return out.at[_index(indices)].add(t)


def _positions(shape, wrap):
    """The flat positions np.fill_diagonal writes (as revsrc/runtime/inplace.py finds
    them for its adjoints): a concrete array, from the shape alone."""
    if len(shape) == 2:
        step, end = shape[1] + 1, None if wrap else shape[1] * shape[1]
    else:
        step, end = 1 + int(np.sum(np.cumprod(shape[:-1]))), None
    return np.arange(int(np.prod(shape)))[:end:step]


def _diagonal(a, val, wrap):
    """The flat positions np.fill_diagonal writes, and which item of ``val`` each gets
    (NumPy starts again from the first when there are fewer)."""
    pos = _positions(jnp.shape(a), wrap)
    m = int(np.size(val))
    return pos, (np.arange(pos.size) % m if m else None)


def fill_diagonal(a, val, wrap=False):
    """jnp: ``a`` after ``np.fill_diagonal(a, val, wrap)``."""
    if jnp.ndim(val) != 0 and _traced(val):
        raise errors.JaxNotLowered(
            "backend='jax': np.fill_diagonal with an array of values computed in the "
            "function: NumPy reads them while it writes when they are a view of the "
            "array written, which JAX arrays cannot tell",
            hint="use backend=None for this function, or fill with a scalar")
    a = jnp.asarray(a)
    pos, which = _diagonal(a, val, wrap)
    if which is None:
        return a
    items = jnp.ravel(jnp.asarray(val))[which].astype(a.dtype)
    return a.reshape(-1).at[pos].set(items).reshape(a.shape)


def fill_diagonal_a_grad(g, a, wrap=False):
    g = _full(g, a)
    pos = _positions(g.shape, wrap)
    return g.reshape(-1).at[pos].set(0).reshape(g.shape)


def fill_diagonal_val_grad(g, a, val, wrap=False):
    g = _full(g, a)
    pos, which = _diagonal(a, val, wrap)
    if which is None:
        return jnp.zeros(jnp.shape(val), dtype=g.dtype)
    dt = jnp.result_type(g.dtype, float)
    d = jnp.zeros(int(np.size(val)), dtype=dt).at[which].add(g.reshape(-1)[pos])
    return d.reshape(jnp.shape(val))


def fill_diagonal_val_tangent(t, a, val, wrap=False):
    out = jnp.zeros(jnp.shape(a), dtype=jnp.result_type(a, t, float))
    pos, which = _diagonal(a, val, wrap)
    if which is None:
        return out
    return out.reshape(-1).at[pos].set(jnp.ravel(jnp.asarray(t))[which]).reshape(out.shape)


def view_back(new, base, fn, args=(), kwargs=()):
    """jnp: ``new``, the new contents of the view ``fn(base, *args)``, laid out as
    ``base`` (revsrc.runtime.view_back; ``fn`` is NumPy's function, as printed)."""
    kw = dict(kwargs)
    if fn in (np.reshape, np.ravel, np.squeeze, np.expand_dims, np.atleast_1d,
              np.atleast_2d, np.atleast_3d):
        return jnp.reshape(new, jnp.shape(base))
    if fn is np.transpose:
        axes = args[0] if args else kw.get("axes")
        return jnp.transpose(new) if axes is None else jnp.transpose(new, np.argsort(axes))
    if fn is np.swapaxes:
        return jnp.swapaxes(new, *args)
    if fn is np.moveaxis:
        src, dst = (list(args) + [kw.get("source"), kw.get("destination")])[:2]
        return jnp.moveaxis(new, dst, src)
    if fn in (np.flip, np.fliplr, np.flipud):
        return getattr(jnp, fn.__name__)(new, *args, **kw)
    if fn is np.rot90:
        k = args[0] if args else kw.get("k", 1)
        axes = args[1] if len(args) > 1 else kw.get("axes", (0, 1))
        return jnp.rot90(new, -k, axes)
    if fn is np.real:
        return new + 1j * jnp.imag(base) if jnp.iscomplexobj(base) else new
    if fn is np.imag:
        return jnp.real(base) + 1j * new
    if fn in (np.diagonal, np.broadcast_to, np.diag):
        raise errors.UnfollowableWrite(
            f"a write through np.{fn.__name__}(...), which NumPy makes read-only")
    raise errors.UnfollowableWrite(f"a write through {getattr(fn, '__name__', fn)}")


# ----- Item assignment with an index that may repeat a place -----

def as_index(index):
    """An index as NumPy reads it: a list is an array of indices (jnp refuses a list)."""
    if isinstance(index, list):
        return jnp.asarray(index) if _traced(index) else np.asarray(index)
    return index


def _concrete(index):
    return not (isinstance(index, jax.core.Tracer) or isinstance(index, tuple) and
                any(isinstance(p, jax.core.Tracer) for p in index))


def _last_writes(shape, index):
    """(the flat position each element of ``x[index]`` is in ``x``, True where it is
    the last write to its place) for ``x`` of ``shape``. A concrete index is asked of
    NumPy (`runtime.last_writes`, None when no place repeats); a traced one is sorted
    by position, the last of equal positions in C order kept, as NumPy writes them."""
    if _concrete(index):
        keep = runtime.last_writes(shape, index)
        if keep is None:
            return None, None
        return np.arange(int(np.prod(shape))).reshape(shape)[index], keep
    parts = index if isinstance(index, tuple) else (index,)
    if all(p is None or p is Ellipsis or isinstance(p, slice) or
           (jnp.ndim(p) == 0 and jnp.result_type(p) != bool) for p in parts):
        return None, None           # no array of indices: each place once
    pos = jnp.arange(int(np.prod(shape))).reshape(shape)[index]
    flat = pos.reshape(-1)
    if flat.size < 2:
        return None, None
    order = jnp.argsort(flat, stable=True)
    ordered = flat[order]
    last = jnp.concatenate([ordered[1:] != ordered[:-1], jnp.ones(1, bool)])
    return pos, jnp.zeros(flat.size, bool).at[order].set(last).reshape(pos.shape)


def set_at(target, index, value):
    """jnp: ``target`` after ``target[index] = value``. Where an integer index repeats
    a place, XLA keeps an undefined one of the values written there and NumPy the
    last: only those are written."""
    target = jnp.asarray(target)
    index = as_index(index)
    pos, keep = _last_writes(target.shape, index)
    if pos is None:
        return target.at[index].set(value)
    items = jnp.broadcast_to(jnp.asarray(value), pos.shape).astype(target.dtype)
    where = jnp.where(keep, pos, target.size)       # the others out of range: dropped
    flat = target.reshape(-1).at[where.reshape(-1)].set(items.reshape(-1), mode="drop")
    return flat.reshape(target.shape)


def take_grad(g, index):
    """jnp: the adjoint of the value ``x[index] = value`` wrote: ``g[index]``, zero
    where a later write to the same place replaced it (as revsrc.runtime.take_grad)."""
    index = as_index(index)
    if jnp.ndim(g) == 0:
        if not _concrete(index) or runtime.last_writes(None, index) is None:
            return g
        if isinstance(g, jax.core.Tracer) or g != 0:
            raise errors.UnfollowableWrite(
                "this assignment writes some elements more than once (a repeated "
                "index), and revsrc cannot tell here which write NumPy kept",
                hint="write each element once (np.unique the index), or use np.add.at")
        return g
    pos, keep = _last_writes(jnp.shape(g), index)
    out = g[index]
    return out if keep is None else jnp.where(keep, out, jnp.zeros((), out.dtype))


def stored_derivative(d, dest):
    """jnp: the derivative ``d`` of a value stored into ``dest``, zero when ``dest``
    holds integers or bools (as revsrc.runtime.stored_derivative; a dtype is static
    under tracing, so this is decided as the function is traced)."""
    dt = getattr(dest, "dtype", None)
    if dt is None or np.dtype(dt).kind not in "biu":
        return d
    return jnp.zeros_like(d) if jnp.ndim(d) else 0.0


def array_dtype(x):
    """jnp: the dtype of ``x`` when it is an array that ``x op= v`` changes in place (as
    revsrc.runtime.inplace.array_dtype); a 0-d value counts as a number, since
    under tracing a number an argument gave looks like one. The dtype is carried as a
    0-d zero of it: a loop JAX compiles saves what its body makes, and a dtype object
    is not a value it can carry."""
    if isinstance(x, (np.ndarray, jax.Array)) and np.ndim(x) > 0:
        return jnp.zeros((), x.dtype)
    return None


def in_place(new, dtype, op):
    """jnp: ``new`` in the array's ``dtype``, or NumPy's error where its in-place
    operator refuses the result (as revsrc.runtime.inplace.in_place; dtypes are static
    under tracing, so this is decided as the function is traced)."""
    dt = getattr(new, "dtype", None)
    if dtype is not None:
        dtype = np.dtype(getattr(dtype, "dtype", dtype))   # `array_dtype`'s 0-d carrier
    if dtype is None or dt is None or np.dtype(dt) == dtype:
        return new
    if not np.can_cast(np.dtype(dt), dtype, "same_kind"):
        inplace.raise_cast_error(op, dtype, np.dtype(dt))
    return jnp.asarray(new).astype(dtype)


def conversion_tangent(convert, t, dtype, rest=(), options=()):
    """jnp: the tangent of a conversion to ``dtype`` (as
    revsrc.runtime.forward_grads.conversion_tangent; the dtype is static under tracing):
    zero for an integer or bool one, else ``t`` in ``dtype``."""
    if runtime.values.exact_dtype(dtype):
        return jnp.zeros(jnp.shape(t)) if jnp.ndim(t) else 0.0
    return jnp.asarray(t, dtype=dtype)


def _no_layout(*args, **kwargs):
    raise errors.JaxNotLowered(
        "backend='jax': whether NumPy makes this value a view of the array it was "
        "made from (so that a write into it reaches that array) or a copy depends on "
        "the array's memory layout, which JAX arrays do not have",
        hint="use backend=None for this function, or make the copy explicit (.copy()) "
             "or write into the array itself")


def _apart(view, base):
    """Whether ``view`` cannot share ``base``'s memory in NumPy, known without a memory
    layout: either is a Python number, or ``view`` has more elements than ``base``
    (np.diag of a vector, np.outer...: no writable view can have them). A 0-d array
    may be a view (x[...], np.squeeze of one element), so its rank says nothing."""
    if isinstance(view, (list, tuple)):
        return all(_apart(v, base) for v in view)
    if isinstance(base, (list, tuple)):
        return all(_apart(view, b) for b in base)
    arrays = (jax.Array, jax.core.Tracer, np.ndarray)
    if not isinstance(view, arrays) or not isinstance(base, arrays):
        return True
    return np.size(view) > np.size(base)


def shares(view, base):
    """`inplace.shares` where the shapes tell (False: `_apart`); else refused."""
    if _apart(view, base):
        return False
    return _no_layout()


def check_apart(view, base, loc=None, names=("this value", "its source")):
    """`inplace.check_apart`: nothing to refuse where the shapes say ``view`` is apart
    from ``base``; where they cannot, E603."""
    if not _apart(view, base):
        _no_layout()


def _basic(index):
    """Whether ``index`` is NumPy's basic indexing: ints (a Python or NumPy int, a 0-d
    integer array or tracer), slices, None and Ellipsis, or a tuple of them."""
    if isinstance(index, tuple):
        return all(_basic(i) for i in index)
    if isinstance(index, (slice, type(None), type(Ellipsis))):
        return True
    if isinstance(index, bool):
        return False
    if isinstance(index, (int, np.integer)):
        return True
    return isinstance(index, (jax.Array, jax.core.Tracer)) and index.ndim == 0 and \
        jnp.issubdtype(index.dtype, jnp.integer)


def index_view(view, base, index):
    """`inplace.index_view`: NumPy's basic indexing gives a view exactly when it keeps
    an axis (as `item_view`), which the rank says; anything else as `shares`."""
    if _basic(index) and isinstance(base, (jax.Array, jax.core.Tracer, np.ndarray)):
        return np.ndim(view) > 0
    return shares(view, base)


def item_view(item, base):
    """``base[i]`` with ints alone: a view exactly when it keeps an axis (NumPy's
    basic indexing), which the rank says without a memory layout."""
    return np.ndim(item) > 0


def check_item_alone(item, base, others, loc=None, names=(), views=True):
    """``xs[i] op= v`` on an array held elsewhere: the same object is found by
    identity (E404); whether it is a view of another array, where the program makes
    views at all, JAX cannot say (E603)."""
    arrays = (jax.Array, jax.core.Tracer, np.ndarray)
    if isinstance(base, arrays) or not isinstance(item, arrays + (list, dict)):
        return
    hits, holders, _ = inplace.item_holders(item, others, names)
    if hits > 1:
        raise inplace.shared_item(loc, holders)
    if views and np.ndim(item) > 0:
        raise errors.JaxNotLowered(
            "backend='jax': this changes an array held in a list in place (xs[i] op= v), "
            "and whether NumPy made that array a view of another one (so that the change "
            "reaches it) depends on a memory layout JAX arrays do not have", loc=loc,
            hint="use backend=None for this function, or write xs[i] = xs[i] + v")


TWINS = {"add_at": add_at, "add_at_values_grad": add_at_values_grad,
         "spread_like_picked": spread_like_picked,
         "add_at_values_tangent": add_at_values_tangent, "fill_diagonal": fill_diagonal,
         "fill_diagonal_a_grad": fill_diagonal_a_grad,
         "fill_diagonal_val_grad": fill_diagonal_val_grad,
         "fill_diagonal_val_tangent": fill_diagonal_val_tangent,
         "item_view": item_view, "index_view": index_view, "shares": shares, "check_apart": check_apart,
         "check_new": check_apart,
         "check_shares": _no_layout, "view_positions": _no_layout,
         "check_item_alone": check_item_alone, "array_dtype": array_dtype,
         "in_place": in_place}
# twins of revsrc.runtime.forward_grads kept here (twins.py is at its size budget)
FORWARD = {"conversion_tangent": conversion_tangent}
