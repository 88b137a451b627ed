"""An item of a constant list or tuple at an index known only when the program runs.

``COEFS[i]``, with ``COEFS`` a global list of numbers that `revsrc.jit` reads as
constants (revsrc/frontend/lower/numbers.py) or a literal ``[1.0, 2.0, 3.0][i]``, is a
list the program builds and indexes: the engine holds no lists, but one whose items are
constants of one type, read only by indexing, is a table. An index ``i`` (an int or a
bool) selects its item by comparisons (a binary search over -n..n-1, as Python reads
a negative index from the end); one out of range defers to Python (RAISE FALLBACK),
which raises the IndexError.
"""
from __future__ import annotations

import operator

from ...core import ir, kinds
from ...core.ir import Const, If, Op
from ...runtime import guards
from .sums import with_kinds

__all__ = ["lookups"]

_NUMBERS = (float, int, bool)
_PARAM_TYPES = {kinds.FLOAT: float, kinds.INT: int, kinds.BOOL: bool}


def _tables(program):
    """{name: items} for lists and tuples of constants of one type, assigned once and
    read only as ``getitem(name, index)``. An item may also be a parameter of that
    kind the program never assigns (an item of a tuple argument, `revsrc.jit`'s
    ``doses[j]``): it holds the same value wherever the table is read."""
    made, written, other = {}, {}, set()
    for s in ir.walk(program.body):
        for w in ir.writes(s):
            written[w] = written.get(w, 0) + 1
    params = set(program.params)
    for s in ir.walk(program.body):
        if isinstance(s, Op) and s.fn in (ir.make_list, ir.make_tuple) and s.args and \
                not s.kwargs and all(isinstance(a, Const) or a in params and a not in written
                                     for a in s.args):
            types = {type(a.value) if isinstance(a, Const) else
                     _PARAM_TYPES.get(program.kinds.get(a)) for a in s.args}
            if len(types) == 1 and next(iter(types)) in _NUMBERS:
                made[s.target] = tuple(a.value if isinstance(a, Const) else a
                                       for a in s.args)
            continue
        if isinstance(s, Op) and s.fn is operator.getitem and len(s.args) == 2 and \
                not s.kwargs and _int_index(s.args[1], program.kinds):
            other.update(a for a in s.args[1:] if isinstance(a, str))
            continue
        other.update(ir.reads(s))
    outside = set(program.params) | {o for o in program.outputs if isinstance(o, str)}
    return {n: v for n, v in made.items()
            if written.get(n) == 1 and n not in other and n not in outside}


def _items_read(s, tables, found):
    """The items ``s`` reads one of, if it indexes a table or a constant tuple."""
    if not (isinstance(s, Op) and s.fn is operator.getitem and len(s.args) == 2):
        return None
    seq = s.args[0]
    if isinstance(seq, Const):
        values = seq.value
        if type(values) is tuple and values and s.target is not None and \
                len({type(v) for v in values}) == 1 and type(values[0]) in _NUMBERS and \
                _int_index(s.args[1], found):
            return values
        return None
    return tables.get(seq)


def _operand(item):
    """A table's item as an operand: a parameter's name, or a constant."""
    return item if isinstance(item, str) else Const(item)


def _int_index(index, found):
    if isinstance(index, Const):
        return type(index.value) in (int, bool)
    return found.get(index) in (kinds.INT, kinds.BOOL)


def lookups(program):
    """``program`` with each read of such a table (see the module) a choice among its
    items; ``program`` itself if it reads none."""
    tables = _tables(program)
    if not tables and not any(_items_read(s, tables, program.kinds) is not None
                              for s in ir.walk(program.body)):
        return program
    fresh = program.names.fresh if program.names is not None else \
        (lambda base, _n=iter(range(10 ** 9)): f"{base}{next(_n)}_")
    made = set()

    def pick(target, index, items, lo, hi, loc):
        """``target`` = the item at ``index``, known to be in [lo, hi)."""
        if hi - lo == 1:
            return [Op(target, ir.copy, (_operand(items[lo % len(items)]),), loc=loc)]
        mid = (lo + hi) // 2
        test = fresh("_below")
        made.add(test)
        return [Op(test, operator.lt, (index, Const(mid)), loc=loc),
                If(test, pick(target, index, items, lo, mid, loc),
                   pick(target, index, items, mid, hi, loc), loc=loc)]

    def read(s, items):
        n, loc, index = len(items), s.loc, s.args[1]
        if isinstance(index, Const):
            if -n <= index.value < n:
                return [Op(s.target, ir.copy, (_operand(items[index.value]),), loc=loc)]
            return [Op(None, guards.raise_error, (Const(IndexError),), loc=loc)]
        inside = fresh("_inside")
        made.update((inside, inside + "_low"))
        out = [Op(inside + "_low", operator.ge, (index, Const(-n)), loc=loc),
               Op(inside, operator.lt, (index, Const(n)), loc=loc),
               If(inside, [Op(inside, ir.copy, (inside + "_low",), loc=loc)], [], loc=loc),
               If(inside, [], [Op(None, guards.raise_error, (Const(IndexError),), loc=loc)],
                  loc=loc)]
        return out + pick(s.target, index, items, -n, n, loc)

    def rewrite(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.target in tables and s.fn in (ir.make_list,
                                                                     ir.make_tuple):
                continue
            items = _items_read(s, tables, program.kinds)
            if items is not None:
                made.add(s.target)
                out.extend(read(s, items))
                continue
            out.append(ir.map_children(s, rewrite))
        return out
    forward = rewrite(program.body[:program.forward_len])
    body = forward + rewrite(program.body[program.forward_len:])
    return with_kinds(program, body, len(forward), made)
