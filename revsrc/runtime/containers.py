"""Lists and dicts built inside a differentiated function, as values: the operations
generated code calls in place of changing a list or a dict, and their adjoints.

The transformations read each assignment as defining one variable, and save a value
the adjoint needs by keeping a reference to it. A list changed in place would change
every saved reference, so every change to a list or a dict is made a new value:

    xs.append(v)      ->  xs = containers.append(xs, v)
    xs += ys          ->  xs = containers.extend(xs, ys)
    M[i] = v          ->  M = containers.set_item(M, i, v)
    xs + ys, xs * n   ->  containers.concat(xs, ys), containers.repeat(xs, n)

A list, once made, is never changed, so saving it costs one reference. Which changes
may be made so is decided when transforming (revsrc/passes/containers.py, which
writes these calls); this module is what runs.

The adjoint of a list is one adjoint per item (an object array, see
`revsrc.runtime.values.pieces`); of a dict, a dict of one adjoint per key
(`revsrc.runtime.values.DictGrad`).
"""
from __future__ import annotations

import numpy as np

from .. import errors
from .values import DictGrad, dict_grad_of, pieces, zero_like


# ----- The operations the generated code calls ---------------------------------------

def append(xs, item):
    """``xs.append(item)``, as a new list."""
    _check_list(xs, "append")
    out = list(xs)
    out.append(item)
    return out


def extend(xs, items):
    """``xs.extend(items)`` and ``xs += items``, as a new list."""
    _check_list(xs, "extend")
    out = list(xs)
    out.extend(items)
    return out


def set_item(xs, index, value):
    """``xs[index] = value`` on a list or a dict, as a new one. A slice of a list must
    keep the list's length (revsrc follows each item by its position)."""
    if isinstance(xs, dict):
        out = dict(xs)
        out[index] = value
        return out
    _check_list(xs, "item assignment")
    out = list(xs)
    out[index] = value
    if len(out) != len(xs):
        raise errors.UnfollowableWrite(
            "a slice assignment that changes the length of a list is not supported",
            hint="build the new list: xs = xs[:i] + new + xs[j:]")
    return out


def concat(a, b):
    """``a + b`` on lists or tuples."""
    if not (type(a) in (list, tuple) and type(b) is type(a)):
        _not_sequences("+", a, b)
    return a + b


def repeat(seq, n):
    """``seq * n`` (or ``n * seq``) on a list or a tuple."""
    if type(seq) not in (list, tuple):
        _not_sequences("*", seq, n)
    return seq * n


def _not_sequences(op, a, b):
    raise errors.UnfollowableWrite(
        f"{type(a).__name__} {op} {type(b).__name__}: revsrc read this {op} as joining lists "
        "or tuples (where this name held one), but here it does not hold one",
        hint="give the list and the value made from it different names")


def _sort_order(items, key, reverse):
    """The positions of ``items`` in the order ``sorted`` puts them (stable, as it is)."""
    if key is None:
        return sorted(range(len(items)), key=items.__getitem__, reverse=reverse)
    return sorted(range(len(items)), key=lambda i: key(items[i]), reverse=reverse)


def sorted_grad(g, iterable, key=None, reverse=False):
    """The adjoint of ``iterable`` in ``sorted(iterable, key=..., reverse=...)``: ``g``
    put back in the order the items came from."""
    if isinstance(iterable, dict):
        return zero_like(iterable)     # its keys carry no gradient
    items = list(iterable)
    order = _sort_order(items, key, reverse)
    out = pieces([zero_like(item) for item in items])
    if np.ndim(g) != 0:
        for j, i in enumerate(order):
            out[i] = out[i] + g[j]
    return as_items(out, iterable)


def _picked_indices(seq, ans):
    """The items of ``seq`` equal to ``max(seq)``/``min(seq)`` (``ans``), among which the
    derivative is split equally, as the two-argument max's and np.max's are; where
    none is (``ans`` is a NaN, which max keeps only as the first item), the first."""
    tied = [i for i, item in enumerate(seq) if item == ans]
    return tied or [0]


def picked_tangent(t, seq, ans):
    """The tangent of ``max(seq)``/``min(seq)``: the mean of the tied items' (of the
    item picked, when there is no tie)."""
    tied = _picked_indices(seq, ans)
    if len(tied) == 1:
        return t[tied[0]]
    return sum(t[i] for i in tied) / len(tied)


def sorted_tangent(t, iterable, key=None, reverse=False):
    """The tangent of ``sorted(iterable)``: the items' tangents in sorted order."""
    if isinstance(iterable, dict):
        return [0.0] * len(iterable)
    return [t[i] for i in _sort_order(list(iterable), key, reverse)]


# ----- Dicts' methods -----

def dict_items(d):
    """``d.items()``, as a list of pairs."""
    return list(d.items())


def dict_values(d):
    """``d.values()``, as a list."""
    return list(d.values())


def dict_keys(d):
    """``d.keys()``, as a list."""
    return list(d.keys())


def dict_get(d, key, default=None):
    """``d.get(key, default)``."""
    return d.get(key, default)


def dict_merge(a, b):
    """``a | b`` of two dicts (b's value wins at a key both have)."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return a | b
    return {**a, **b}


def merge(a, b):
    """``{**a, **b}``: ``b``'s entries over ``a``'s."""
    return {**a, **b}


def merge_grad(g, a, b, side):
    """The adjoint of ``a`` (``side`` 0) or ``b`` (1) in ``merge(a, b)``: each of its
    keys' adjoint in ``g``, zero for a key of ``a`` that ``b`` replaced."""
    if not isinstance(g, dict):
        return g
    mine, over = (a, b) if side == 0 else (b, {})
    return DictGrad({k: zero_like(v) if k in over else g.get(k, zero_like(v))
                     for k, v in mine.items()})


def merge_tangent(t, a, b, side):
    """The tangent of ``merge(a, b)`` when ``t`` is that of ``a`` (``side`` 0) or of
    ``b`` (1): its keys' tangents where they are kept, zeros elsewhere."""
    mine = a if side == 0 else b
    t = t if isinstance(t, dict) else zero_like(mine)
    out = DictGrad({k: zero_like(v) for k, v in {**a, **b}.items()})
    for k in mine:
        if side == 1 or k not in b:
            out[k] = t.get(k, out[k])
    return out


DICT_METHODS = {"items": dict_items, "values": dict_values, "keys": dict_keys,
                "get": dict_get}


def dict_of_grad(g, source):
    """The adjoint of ``source`` in ``dict(source)``: a dict's adjoint as it is; of a
    list of (key, value) pairs, each pair's value's."""
    if isinstance(source, dict) or np.ndim(g) != 0 and not isinstance(g, dict):
        return g
    if np.ndim(g) == 0 and not isinstance(g, dict):
        return g
    return pieces([pieces([0.0, g.get(k, 0.0)]) for k, _ in source])


def dict_tangent(t, source):
    """The tangent of ``dict(source)``: keyed as the dict is (the tangent of a list of
    pairs has no keys of its own)."""
    if isinstance(source, dict):
        return dict(t)
    return {k: tp[1] for (k, _), tp in zip(source, t)}


def items_grad(g, d):
    """The adjoint of ``d`` in ``d.items()``: the adjoint of each pair's value."""
    if np.ndim(g) == 0:
        return g
    return DictGrad({k: item_grad(p, 1) for k, p in zip(d, g)})


def values_grad(g, d):
    """The adjoint of ``d`` in ``d.values()``."""
    if np.ndim(g) == 0:
        return g
    return DictGrad(zip(d, g))


def get_grad(g, d, key):
    """The adjoint of ``d`` in ``d.get(key, default)``."""
    if key in d:
        return dict_grad_of(d, key, g)
    return zero_like(d)


def get_default_grad(g, d, key):
    """The adjoint of ``default`` in ``d.get(key, default)``."""
    return 0.0 * g if key in d else g


def unzip(seq):
    """``tuple(zip(*seq))``: ``zip(*pairs)`` where the number of pairs is known only at
    run time."""
    return tuple(zip(*seq))


def check_unpack(seq, n):
    """Python's error for ``a, b = seq`` when ``seq`` (a value known only at run time:
    an array, a list argument, ``zip(*pairs)``) has not exactly ``n`` items; the
    generated code then reads the items by index. Anything whose items are not read by
    position (a dict unpacks its keys, a set or an iterator has no positions) is refused."""
    if not (isinstance(seq, (list, tuple)) or
            (isinstance(seq, np.ndarray) and seq.ndim > 0)):
        raise errors.UnsupportedValue(
            f"unpacking a {type(seq).__name__} known only at run time: revsrc reads the "
            f"items of a list, a tuple or an array by position, and a "
            f"{type(seq).__name__}'s are not read that way",
            hint="unpack list(...) of it, or its values by name")
    k = len(seq)
    if k < n:
        raise ValueError(f"not enough values to unpack (expected {n}, got {k})")
    if k > n:
        raise ValueError(f"too many values to unpack (expected {n})")


def unzip_grad(g, seq):
    """The adjoint of ``seq`` in ``unzip(seq)``: item j of output i's adjoint is item i of
    item j's."""
    out = pieces([zero_like(item) for item in seq])
    if np.ndim(g) == 0:
        return out                   # a zero adjoint
    for i, col in enumerate(g):
        if np.ndim(col) == 0:
            continue                 # output i's adjoint is zero
        for j in range(len(col)):
            out[j][i] = out[j][i] + col[j]
    return as_items(out, seq)       # an array's rows: an array


def sequence_grad(g, iterable):
    """The adjoint of ``iterable`` in ``list(iterable)`` or ``tuple(iterable)``."""
    if isinstance(iterable, dict):
        return zero_like(iterable)     # its keys carry no gradient
    return as_items(g, iterable)


# The fields of NumPy's named results (np.linalg.eigh, eig, svd, slogdet, qr), by
# position: a tangent or an adjoint of one is a plain tuple
RESULT_FIELDS = {"eigenvalues": 0, "eigenvectors": 1, "U": 0, "S": 1, "Vh": 2,
                 "sign": 0, "logabsdet": 1, "Q": 0, "R": 1}


def result_field(result, name):
    """``result.name`` of a named result (its item for a plain tuple)."""
    if type(result) is tuple:
        return result[RESULT_FIELDS[name]]
    return getattr(result, name)


def result_field_grad(g, result, name):
    """The adjoint of ``result`` in ``result.name``: ``g`` at the field's position."""
    out = pieces([zero_like(item) for item in result])
    i = RESULT_FIELDS[name]
    out[i] = out[i] + g
    return out


def max_of(seq):
    """``max(seq)`` of one sequence."""
    return max(seq)


def min_of(seq):
    """``min(seq)`` of one sequence."""
    return min(seq)


def picked_grad(g, seq, ans):
    """The adjoint of ``seq`` in ``max(seq)``/``min(seq)``: ``g`` at the item Python
    picked, zero at the others; at a tie, ``g`` split equally among the tied items."""
    out = pieces([zero_like(item) for item in seq])
    tied = _picked_indices(seq, ans)
    share = g if len(tied) == 1 else g / len(tied)
    for i in tied:
        out[i] = out[i] + share
    if isinstance(seq, np.ndarray):
        return np.array(out.tolist(), dtype=float).reshape(np.shape(seq))
    return out


def iterable_items(xs):
    """What ``for v in xs`` walks, indexable by position: ``xs`` itself for a list, a
    tuple, an array or a range; its items as a list for anything else (a dict's keys, a
    set's items in its order, a generator's values), as Python's loop gives them."""
    if isinstance(xs, (list, tuple, np.ndarray, range, str)):
        return xs
    return list(xs)


def key_at(d, position):
    """The key at ``position`` of the dict ``d`` (``for k in d`` walks them in order)."""
    for i, k in enumerate(d):
        if i == position:
            return k
    raise IndexError(position)


def _check_list(xs, what):
    if isinstance(xs, np.ndarray) and what == "item assignment":
        # xs[i][j] = v on a list or dict item that turned out an array: NumPy changes
        # that array itself, wherever else it is held (a name, another slot)
        raise errors.UnfollowableWrite(
            "this item assignment writes into an array held in a list or a dict "
            "(xs[i][j] = v), which changes that array wherever else it is held; revsrc "
            "cannot follow that change",
            hint="give the slot a new array: row = xs[i].copy(); row[j] = v; xs[i] = row")
    if type(xs) is not list:
        raise errors.UnfollowableWrite(
            f"{what} on a {type(xs).__name__}: revsrc follows this change only on a list "
            "made in the function", hint="build a new value instead")


# ----- Their adjoints -------------------------------------------------------------------

def item_grad(g, index):
    """``g[index]`` of the adjoint of a list, a tuple or a dict (0.0 for a zero
    adjoint, or a key the adjoint has not reached)."""
    if isinstance(g, dict):
        return g.get(index, 0.0)
    if np.ndim(g) == 0:
        return g
    return g[index]


def head_grad(g, n_tail):
    """The adjoint of ``xs`` in ``xs + tail``: all but the last ``n_tail`` items."""
    if np.ndim(g) == 0:
        return g
    return g[:len(g) - n_tail]


def tail_grad(g, n_tail):
    """The adjoint of ``tail`` in ``xs + tail``: its last ``n_tail`` items."""
    if np.ndim(g) == 0:
        return g
    return g[len(g) - n_tail:]


# Their transposes (reverse over reverse: grad(grad(f)) of a function that builds a
# list). An adjoint that is a number stands for that number at every item (what
# item_grad and head_grad give for it): its own adjoint sums everything back.

def _total(g):
    """Every number in the adjoint ``g`` (nested pieces, dicts, arrays) summed."""
    if isinstance(g, dict):
        return sum((_total(v) for v in g.values()), 0.0)
    if isinstance(g, np.ndarray) and g.dtype == object:
        return sum((_total(v) for v in g), 0.0)
    return np.sum(g) if np.ndim(g) else g


def _zeros_of(g):
    """A zero adjoint of the same pieces as the list or dict adjoint ``g``."""
    if isinstance(g, dict):
        return DictGrad({k: zero_like(v) for k, v in g.items()})
    return pieces([zero_like(item) for item in g])


def item_back(ybar, g, index):
    """``g``'s adjoint of ``item_grad(g, index)``: ``ybar`` at ``index``, zeros at the
    other items."""
    if np.ndim(g) == 0 and not isinstance(g, dict):
        return _total(ybar)
    out = _zeros_of(g)
    if isinstance(g, dict):
        if index in g:
            out[index] = out[index] + ybar
        return out
    out[index] = out[index] + ybar
    return out


def _spread(ybar, g, lo, hi):
    """``g``'s adjoint of its items ``lo:hi`` (head_grad's or tail_grad's), whose
    adjoint is ``ybar``: zeros at the other items."""
    if np.ndim(g) == 0:
        return _total(ybar)
    out = _zeros_of(g)
    scalar = np.ndim(ybar) == 0 and not isinstance(ybar, dict)
    for k, i in enumerate(range(lo, hi)):
        out[i] = out[i] + (ybar if scalar else ybar[k])
    return out


def head_back(ybar, g, n_tail):
    """``g``'s adjoint of ``head_grad(g, n_tail)``."""
    return _spread(ybar, g, 0, len(g) - n_tail if np.ndim(g) else 0)


def tail_back(ybar, g, n_tail):
    """``g``'s adjoint of ``tail_grad(g, n_tail)``."""
    return _spread(ybar, g, len(g) - n_tail if np.ndim(g) else 0, len(g) if np.ndim(g) else 0)


def picked_back(ybar, seq, ans):
    """``g``'s adjoint of ``picked_grad(g, seq, ans)``: the tied items' adjoints, their
    mean (the item's own where nothing ties)."""
    if np.ndim(ybar) == 0 and not isinstance(ybar, dict):
        return ybar
    return picked_tangent(ybar, seq, ans)


def as_items(g, seq):
    """``g`` (one adjoint per item) in the form of the sequence it is the adjoint of: an
    iterable given to ``extend`` may be an array, whose adjoint is an array."""
    if isinstance(seq, np.ndarray) and np.ndim(g) != 0:
        dtype = seq.dtype if seq.dtype.kind in "fc" else np.float64
        out = np.empty(seq.shape, dtype=dtype)
        for i, x in enumerate(g):
            out[i] = x
        return out
    return g


def repeat_grad(g, seq):
    """The adjoint of ``seq`` in ``seq * n``: each item's adjoints summed over copies."""
    if np.ndim(g) == 0:
        return g
    n = len(seq)
    out = pieces([zero_like(item) for item in seq])
    for k in range(0, len(g), max(n, 1)):
        out = out + g[k:k + n]
    return out


def set_item_grad(g, xs, index):
    """The adjoint of ``xs`` in ``set_item(xs, index, value)``: ``g`` with a zero at
    ``index`` (the old item there is gone)."""
    if isinstance(g, dict):
        # (before the test of a number: NumPy counts a dict 0-dimensional, and the
        # old item's adjoint would flow on through the key written over)
        out = DictGrad(g)
        out.pop(index, None)
        return out
    if np.ndim(g) == 0:
        return g
    out = pieces(list(g))
    if isinstance(index, slice):
        for i in range(*index.indices(len(xs))):
            out[i] = zero_like(xs[i])
    else:
        out[index] = zero_like(xs[index])
    return out


def value_grad(g, index):
    """The adjoint of ``value`` in ``set_item(xs, index, value)``."""
    if isinstance(g, dict):
        return g.get(index, 0.0)
    if np.ndim(g) == 0:
        return g
    return g[index]


# ----- In-place forms -------------------------------------------------------------------

# list writes: the in-place form the front end writes, and the new value it computes
# (revsrc/passes/views.py rewrites each into its new value, or refuses it)
IN_PLACE = {}


def _in_place(fn):
    def write(*args):  # never called: revsrc/passes/views.py rewrites it into ``fn``
        raise AssertionError(f"in-place {fn.__name__} reached the generated code")
    write.__name__ = f"{fn.__name__}_in_place"
    write.__qualname__ = write.__name__
    IN_PLACE[write] = fn
    return write


append_in_place = _in_place(append)
extend_in_place = _in_place(extend)
repeat_in_place = _in_place(repeat)    # xs *= n on a list: every name of xs sees it
set_item_in_place = _in_place(set_item)
merge_in_place = _in_place(dict_merge)  # d |= e on a dict: every name of d sees it
