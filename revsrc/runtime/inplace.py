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

import operator

import numpy as np

from .. import errors
from .tensor import sum_to_shape
from .values import as_adjoint


def array_dtype(x):
    """The dtype of ``x`` when it is an array (``x op= v`` changes it in place), else
    None (a number: ``x op= v`` rebinds it)."""
    return x.dtype if isinstance(x, np.ndarray) else None


def in_place(new, dtype, op):
    """``x op= v`` given ``new = x op v`` and ``dtype`` (`array_dtype` of ``x``): ``new``
    in ``x``'s dtype, as NumPy's in-place operator leaves it (a float32 array stays
    float32), or NumPy's own error where that dtype cannot hold the result under its
    'same_kind' rule (``y += x`` with ``y`` an int array and ``x`` floats raises in
    NumPy: the transformation computes ``y = y + x``, which would not). One dtype
    test; ``x`` a number: ``new`` as it is."""
    dt = getattr(new, "dtype", None)
    if dtype is None or dt is None or dt == dtype:
        return new
    if not np.can_cast(dt, dtype, "same_kind"):
        raise_cast_error(op, dtype, dt)
    return np.asarray(new).astype(dtype)


def raise_cast_error(op, target, result):
    """Raise the error NumPy's in-place ``op`` (operator.iadd, ...) raises when its
    result's dtype ``result`` cannot be cast to the array's ``target`` under
    'same_kind': the same operator on one-element arrays of those dtypes."""
    shape = (1, 1) if op is operator.imatmul else (1,)
    op(np.ones(shape, target), np.ones(shape, result))
    raise TypeError(f"Cannot cast {op.__name__} output from dtype('{np.dtype(result)}') "
                    f"to dtype('{np.dtype(target)}') with casting rule 'same_kind'")


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


# ----- Writes through a view revsrc can only check when the program runs -----
#
# ``d = np.einsum("ii->i", M)``, ``b = a.view()``, ``r = z.real``, ``p = np.array_split(a,
# 2)[0]``: the result may share memory with an array of the program, and whether it
# does only NumPy knows, at run time. A write into such a view is made
#
#     where = view_positions(d, M)          # where d's elements are in M (or refused)
#     M[...] = write_at(new, M, where)      # M with the view's new values in place
#
# one check per write (vectorized over the elements), never a guess of a copy.

def _addresses(a):
    """The byte address of each element of ``a``, in ``a``'s shape."""
    out = np.full(a.shape, a.__array_interface__["data"][0], dtype=np.int64)
    for k, (n, stride) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[k] = n
        out = out + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return out


def _unfollowed(what, loc, hint=None):
    return errors.UnfollowableWrite(
        what + "; revsrc cannot follow this write", loc=loc,
        hint=hint or "copy it first (.copy()) and write into the copy, or write into "
                     "the array itself")


def shares(view, base):
    """Whether ``view`` shares memory with ``base`` (``np.shares_memory``, exact),
    looking into a list or a tuple of arrays (np.array_split's pieces)."""
    if isinstance(view, (list, tuple)):
        return any(shares(v, base) for v in view)
    if isinstance(base, (list, tuple)):
        return any(shares(view, b) for b in base)
    return isinstance(view, np.ndarray) and isinstance(base, np.ndarray) and \
        bool(np.shares_memory(view, base))


def item_view(item, base):
    """Whether ``item = base[i]`` (ints alone) shares ``base``'s memory: a row of a
    matrix does, one element (a NumPy scalar, a copy) does not. The same answer as
    `shares` for such a read; JAX's twin reads it from the rank alone."""
    return shares(item, base)


def index_view(view, base, index):
    """Whether ``view = base[index]`` (an index whose kind is known only when it runs)
    shares ``base``'s memory: `shares`. JAX's twin reads it from the rank where the
    index turns out to be ints alone, as `item_view`."""
    return shares(view, base)


def check_apart(view, base, loc=None, names=("this value", "its source")):
    """Refuse (E403) a write into ``view`` when NumPy made it a view of ``base``, an
    array the caller owns."""
    v, b = names
    if shares(view, base):
        raise errors.MutatesArgument(
            f"this writes into {b}, which the caller owns (through {v}: NumPy made "
            f"{v} share {b}'s memory)", loc=loc, hint=f"copy it first: {b} = {b}.copy()")


def check_new(view, base, loc=None, names=("this value", "its source")):
    """Refuse (E404) a write into ``view``, assigned in more than one place, when
    NumPy made it a view of ``base``: which array it views depends on the path taken."""
    v, b = names
    if shares(view, base):
        raise _unfollowed(
            f"{v} is assigned in more than one place, and here NumPy made it share "
            f"{b}'s memory (np.shares_memory)", loc,
            hint=f"give each value its own name, or copy it ({v} = {v}.copy())")


def check_shares(view, base, loc=None, names=("this value", "its source")):
    """Refuse a write through ``view`` into ``base`` unless NumPy made ``view`` share
    ``base``'s memory (``np.shares_memory``): reshape, ravel or np.asarray copy when
    they must, and a copy does not change its source."""
    v, b = names
    if not (isinstance(view, np.ndarray) and isinstance(base, np.ndarray)):
        odd, what = (v, view) if not isinstance(view, np.ndarray) else (b, base)
        raise _unfollowed(
            f"{v} may be a view of {b}, and {odd} is a {type(what).__name__} here, not an "
            f"array (np.split's pieces are a list of views): revsrc cannot tell whether "
            f"a write into {v} reaches {b}", loc)
    if not np.shares_memory(view, base):
        raise _unfollowed(
            f"{v} was made from {b} but does not share its memory here "
            f"(np.shares_memory is False: NumPy made a copy), and revsrc would have to "
            f"write it back into {b}", loc,
            hint=f"copy explicitly (.copy()) to write into a copy, or write into {b}")


def view_positions(view, base, loc=None, names=("this value", "its source")):
    """Where the elements of ``view`` lie in ``base``'s memory, as ``(part, index)``:
    ``index`` (of ``view``'s shape) holds the flat positions (C order) of ``base``'s
    elements, ``part`` says whether ``view`` is made of whole elements, or of their
    real or imaginary parts (``z.real`` of a complex ``z``). Asked of NumPy when the
    write runs; refused (E404) when ``view`` does not share ``base``'s memory, is read
    only, or does not lie on ``base``'s elements one to one."""
    v, b = names
    check_shares(view, base, loc, names)
    if not view.flags.writeable:
        raise _unfollowed(
            f"{v} is a read-only view of {b} (NumPy raises ValueError on this write: "
            "np.diagonal, np.broadcast_to and friends give read-only views)", loc)
    if view.dtype == base.dtype:
        parts = (("whole", 0),)
    elif base.dtype.kind == "c" and view.dtype == base.real.dtype:
        parts = (("real", 0), ("imag", view.dtype.itemsize))
    else:
        parts = ()
    mine = _addresses(base).ravel()
    order = np.argsort(mine, kind="stable")
    ordered = mine[order]
    wanted = _addresses(view)
    for part, shift in parts:
        at = np.searchsorted(ordered, wanted - shift)
        at = np.minimum(at, max(ordered.size - 1, 0))
        if ordered.size and np.array_equal(ordered[at], wanted - shift):
            index = order[at]
            if np.unique(index).size != index.size or \
                    np.unique(ordered).size != ordered.size:
                raise _unfollowed(f"{v} shows some elements of {b} more than once", loc)
            return part, index
    raise _unfollowed(
        f"{v} shares memory with {b} but does not lie on its elements one to one "
        f"(a view as another dtype, or across its elements)", loc)


def write_at(new, base, where):
    """``base`` with the view at ``where`` (`view_positions`) given the values ``new``:
    a new array (``base`` itself is not changed)."""
    part, index = where
    out = np.array(base, copy=True, order="C")
    flat = out.reshape(-1)
    values = np.broadcast_to(new, index.shape)
    if part == "whole":
        flat[index] = values
    elif part == "real":
        flat.real[index] = values
    else:
        flat.imag[index] = values
    return out


def _picked(g, base, index):
    g = np.array(_full(g, base), order="C")
    return g, g.reshape(-1)[index]


def write_at_new_grad(g, new, base, where):
    """The adjoint of ``new`` in ``write_at(new, base, where)``: ``g`` where the view
    lies (for a real ``new`` in the imaginary parts of a complex ``base``, ``-Im g``:
    adjoints pair as Re(g x), see revsrc.rules)."""
    part, index = where
    _, picked = _picked(g, base, index)
    if part == "real":
        picked = np.real(picked)
    elif part == "imag":
        picked = -np.imag(picked)
    return as_adjoint(_like(sum_to_shape(np.asarray(picked), np.shape(new)), new), new)


def write_at_base_grad(g, base, where):
    """The adjoint of ``base`` in ``write_at(new, base, where)``: ``g`` with the
    written elements (or parts of elements) taken out."""
    part, index = where
    g, _ = _picked(g, base, index)
    flat = g.reshape(-1)
    if part == "whole":
        flat[index] = 0
    elif part == "real":
        flat[index] = 1j * np.imag(flat[index]) if flat.dtype.kind == "c" else 0
    elif flat.dtype.kind == "c":
        flat[index] = np.real(flat[index])
    return g


# ----- An item of a list changed in place ---------------------------------------------
# ``xs[i] += v`` runs ``xs[i].__iadd__(v)`` and stores the result back: on an array the
# array itself changes, and every name, list slot or view holding it sees the change.
# revsrc computes ``xs[i] = xs[i] + v`` (a new array in that one slot), which is the same
# exactly when nothing else holds that array or shares its memory. ``others`` are the
# values the program may still read (its names, the list among them); the item must be
# reached once in them (its own slot), and share memory with nothing else there.

def _reached(value, item, seen, hits, found):
    """Count in ``hits`` the times ``item`` is ``value`` or inside it (lists, tuples
    and dicts, each looked into once); append to ``found`` the other arrays. (Items
    are tested here, not by a call each: a list of n arrays changed on each of n turns
    is walked n times.)"""
    if value is item:
        hits[0] += 1
        return
    if isinstance(value, np.ndarray):
        found.append(value)
        return
    if not isinstance(value, (list, tuple, dict)) or id(value) in seen:
        return
    seen.add(id(value))
    for v in value.values() if isinstance(value, dict) else value:
        if v is item:
            hits[0] += 1
        elif isinstance(v, np.ndarray):
            found.append(v)
        elif isinstance(v, (list, tuple, dict)):
            _reached(v, item, seen, hits, found)


def _owner(a):
    """The array that owns the memory ``a`` uses (``a`` itself if it owns it), or None
    where something else stands between (a buffer, np.frombuffer, as_strided): then
    only np.may_share_memory can tell."""
    while True:
        b = a.base
        if b is None:
            return a if a.flags.owndata else None
        if not isinstance(b, np.ndarray):
            return None
        a = b


def _shares_any(item, found):
    """Whether an array of ``found`` other than ``item`` shares memory with it. Arrays
    of different owners cannot, which a look at ``.base`` tells (cheaper than asking
    NumPy of each); NumPy is asked where the owners match or are not known."""
    own = _owner(item)
    for a in found:
        if a is item:
            continue
        if own is not None and (a.base is None and a.flags.owndata and a is not own):
            continue
        other = _owner(a) if own is not None else None
        if other is not None and other is not own:
            continue
        if np.may_share_memory(item, a) and np.shares_memory(item, a):
            return True
    return False


def item_holders(item, others, names=()):
    """(how many times ``item`` is reached in ``others``, the names of those that
    reach it, the other NumPy arrays found there)."""
    seen, hits, found = set(), [0], []
    holders = []
    for name, value in zip(names or ("",) * len(others), others):
        before = hits[0]
        _reached(value, item, seen, hits, found)
        if hits[0] > before and name:
            holders.append(name)
    return hits[0], holders, found


def shared_item(loc, holders):
    held = f" (it is also reached through {', '.join(holders)})" if holders else ""
    return errors.UnfollowableWrite(
        "this changes an array held in a list in place (xs[i] op= v), and that array "
        f"is also held by another name, another list slot or a view{held}; revsrc "
        "cannot follow this write", loc=loc,
        hint="write xs[i] = xs[i] + v to store a new array, or put a copy in the "
             "list (.copy())")


def check_item_alone(item, base, others, loc=None, names=(), views=True):
    """Refuse (E404) ``xs[i] op= v`` when the item is an array (or a list, or a dict)
    that another name, another slot or a view also reaches: the change in place would
    be seen there, and revsrc writes only the one slot. ``views``: whether the
    program makes any value that may be a view of an array (JAX's twin reads it)."""
    if isinstance(base, np.ndarray) or not isinstance(item, (np.ndarray, list, dict)):
        return          # a write into an array (followed), or a number: op= rebinds it
    hits, holders, found = item_holders(item, others, names)
    shared = hits > 1
    if not shared and isinstance(item, np.ndarray) and item.size:
        shared = _shares_any(item, found)
    if shared:
        raise shared_item(loc, holders)
