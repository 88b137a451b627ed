"""Arrays changed in place while a list, a tuple or a dict the program builds holds them
(called by revsrc/passes/views.py for each write into an array).

A list holds its items themselves: after ``xs = [a]; a[1] = v`` Python's ``xs[0]`` is
the changed ``a``. revsrc makes each change a new value, and re-derives the views and
aliases of the array written, but a container built as a value keeps the value it was
given: its item would be the old array (the value as it was, and no derivative through
the write). Such a write is refused (E404) wherever a container that may hold the array
is read after it; a container of an earlier turn of a loop, made before the array was
made new on this turn, holds an earlier array and is left alone.
"""
from __future__ import annotations

import operator

from .. import errors
from ..core import ir, kinds
from ..core.ir import Op
from ..runtime.containers import (append, append_in_place, set_item, set_item_in_place)
from .containers import _common_loop, _order, _read_later
from .view_links import view_link

# what puts its operands into a container, and at which positions (None: all)
_STORES = {ir.make_list: None, ir.make_tuple: None, ir.make_dict: None,
           append: (1,), append_in_place: (1,), set_item: (2,), set_item_in_place: (2,)}
_MAY_HOLD = (kinds.ARRAY, kinds.ANY, kinds.LIST, kinds.DICT, kinds.TUPLE)


def check_unheld(r, s, path, only_after):
    """Refuse the write ``s`` (at ``path``) into an array that a container made before
    it may hold, where that container, or a value taken from it, is read after the
    write. ``r``: the views pass's resolver; ``only_after(at, a, b)``: whether the
    statement at ``a`` runs only after the one at ``b``."""
    root = r._root(s.target)
    if r.found.get(root) not in (kinds.ARRAY, kinds.ANY):
        return
    # (an item read out as a number, y[1] of a vector, is a copy: a container holding
    # it holds no array)
    family = {root, s.target} | {m for m in r._members(root) if not _number_item(r, m)}
    holders = {}                  # container variable -> the statement that stored into it
    for p, st in r.statements:
        if not isinstance(st, Op) or st.fn not in _STORES or st.target is None:
            continue
        at = _STORES[st.fn]
        items = st.args if at is None else [st.args[i] for i in at if i < len(st.args)]
        if not any(isinstance(i, str) and i in family for i in items):
            continue
        if only_after(r.at, p, path) or _earlier_turn(r, root, p, path):
            continue
        holders.setdefault(st.target, st)
    if not holders:
        return
    _add_derived(r, holders)
    for v, st in holders.items():
        ds = r.defs.get(v, [])
        if any(_read_later(r, ds, path, rd, only_after) for rd in r.reads.get(v, ())):
            raise _held(r, s, v, st)


def _number_item(r, v):
    """Whether ``v`` is always an item read out as a number: of a number's kind, or
    ``a[i]``, ``a[i, j]`` with as many int indices as ``a`` has axes (NumPy gives a
    scalar, a copy)."""
    if r.found.get(v) in kinds.SCALARS:
        return True
    ds = r.defs.get(v, [])
    return bool(ds) and all(_int_indexed(r, d.stmt) for d in ds)


def _int_indexed(r, st):
    if not isinstance(st, Op) or st.fn is not operator.getitem or len(st.args) != 2 or \
            not isinstance(st.args[0], str):
        return False
    index = st.args[1]
    parts = [index] if isinstance(index, str) or not isinstance(index.value, tuple) \
        else list(index.value)
    ints = all(r.found.get(p) == kinds.INT if isinstance(p, str) else
               type(getattr(p, "value", p)) is int for p in parts)
    return ints and r.ndims.get(st.args[0]) == len(parts)


def _add_derived(r, holders):
    """Every value that may hold what a holder holds: containers read from it, items
    taken out of it, aliases and views of those (not new arrays computed from them)."""
    changed = True
    while changed:
        changed = False
        for _, st in r.statements:
            if not isinstance(st, Op) or st.target is None or st.target in holders:
                continue
            if not any(isinstance(a, str) and a in holders for a in st.args):
                continue
            k = r.found.get(st.target)
            if k not in _MAY_HOLD:
                continue
            if k in (kinds.ARRAY, kinds.ANY) and st.fn is not operator.getitem and \
                    view_link(st, r.found, r.ndims) is None:
                continue          # a new array or number computed from the items
            holders[st.target] = next(h for h in (holders.get(a) for a in st.args
                                                  if isinstance(a, str)) if h is not None)
            changed = True


def _earlier_turn(r, root, store, write):
    """Whether the store at ``store`` runs after the write at ``write`` on each turn
    of a loop around both, and ``root`` is made a new array on each turn before the
    write: a store of an earlier turn then holds an earlier array."""
    if _order(store) < _order(write):
        return False
    k = _common_loop(r, store, write)
    if k is None:
        return False
    ds = [d for d in r.defs.get(root, []) if len(d.path) > k and
          d.path[:k] == write[:k] and d.path[k][0] == write[k][0]]
    return bool(ds) and any(ir.dominates(d.path, write) for d in ds) and all(
        isinstance(d.stmt, Op) and r._view_of(d.stmt) is None for d in ds)


def _held(r, s, container, st):
    name = r.back.get(s.target, s.target).partition("@")[0]
    held = r.back.get(container, container).partition("@")[0]
    what = "a list, a tuple or a dict" if r.names.is_generated(held) else held
    at = f" (made at line {st.loc.lineno})" if st.loc is not None else ""
    if r.names.is_generated(name):
        name = "this array"
    return errors.UnfollowableWrite(
        f"{name} is changed in place here, and {what}{at} holds the same array and is "
        "read after this change (Python would show the change there); revsrc cannot "
        "follow the change into it", loc=s.loc,
        hint=f"put a copy into the container ({name}.copy()), or finish changing the "
             "array before putting it there")
