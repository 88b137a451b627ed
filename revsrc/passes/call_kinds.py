"""Kinds in a body that calls revsrc derivatives, and what their inlining leaves
(revsrc/passes/pipeline.py, `_inline_derivatives`): the items of the tuples a call
returns read as the items themselves, the reads of globals a call no longer needs
dropped, an argument whose kind the program cannot tell checked when it runs, and the
checks that an augmented assignment does not change an array in place dropped where the
value proves to be a number.
"""
from __future__ import annotations

import operator

from .. import runtime
from ..core import ir, kinds
from ..core.ir import Const, Op
from . import analysis
from ..core.late import LateModule

# (only programs that call a derivative inside need it: loaded when met)
cse = LateModule(__package__ + ".cse")


def kinds_of(params, pk, body, names):
    """Kinds and ranks of ``body``'s variables, reading the items of tuples the body
    builds (a derivative's ``(value, grad)``) as the items' own."""
    found, ndims = analysis.infer_kinds(params, *pk, body)
    if any(k in (None, kinds.ANY) for k in found.values()):
        flat, _ = cse.scalarize_tuples(body, names.fresh)
        more, more_ndims = analysis.infer_kinds(params, *pk, flat)
        for n, k in found.items():
            if k in (None, kinds.ANY) and more.get(n) not in (None, kinds.ANY):
                found[n], ndims[n] = more[n], more_ndims.get(n)
    return found, ndims


def set_by_operations(params, body, var):
    """Whether only operations set ``var`` (no parameter, loop counter or unpacking),
    so that `checked_where_set` checks every value it holds."""
    for s in ir.walk(body):
        if isinstance(s, ir.For) and s.var == var:
            return False
        if not ir.children(s) and var in ir.writes(s) and not (
                isinstance(s, Op) and s.target == var):
            return False
    return var not in params


def checked_where_set(body, var, loc, names):
    """``body`` with each value it sets ``var`` to checked to be a float when the
    program runs (`runtime.float_argument`), which is the kind ``var`` then has."""
    out = []
    for s in body:
        if isinstance(s, Op) and s.target == var:
            unchecked = names.fresh(f"{var}_given")
            out.append(ir.replace(s, target=unchecked))
            out.append(Op(var, runtime.float_argument, (unchecked, Const(loc)), loc=s.loc))
            continue
        out.append(ir.map_children(s, lambda b: checked_where_set(b, var, loc, names)))
    return out


def numbers_unchecked(params, pk, body, names):
    """``body`` without the checks that ``x op= y`` changes no array in place
    (`runtime.check_immutable`, written while x's kind was not known: the result of a
    derivative called inside) where x proves to be a number once the calls are
    inlined."""
    if not any(isinstance(s, Op) and s.fn is runtime.check_immutable for s in ir.walk(body)):
        return body     # (most programs: no kinds inferred again)
    found, _ = kinds_of(params, pk, body, names)

    def keep(stmts):
        return [ir.map_children(s, keep) for s in stmts
                if not (isinstance(s, Op) and s.fn is runtime.check_immutable and
                        isinstance(s.args[0], str) and found.get(s.args[0]) in kinds.SCALARS)]
    return keep(body)


def items_read(body, tuples):
    """``body`` with ``t[i]`` of a tuple a spliced call made (``_, t = jvp(...)``)
    reading the item itself, written once, so no tuple need exist at run time."""
    written = {}
    for s in ir.walk(body):
        for w in ir.writes(s):
            written[w] = written.get(w, 0) + 1
    tuples = {t: items for t, items in tuples.items() if written.get(t) == 1 and
              all(not isinstance(i, str) or written.get(i) == 1 for i in items)}

    def read(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.args and isinstance(s.args[0], str) and \
                    s.args[0] in tuples and len(s.args) == 2 and \
                    isinstance(s.args[1], Const) and not s.kwargs:
                items, i = tuples[s.args[0]], s.args[1].value
                if s.fn is runtime.containers.check_unpack and i == len(items):
                    continue
                if s.fn is operator.getitem and isinstance(i, int) and \
                        -len(items) <= i < len(items):
                    out.append(Op(s.target, ir.copy, (items[i],), loc=s.loc))
                    continue
            out.append(ir.map_children(s, read))
        return out
    return read(body)


def unread_globals_dropped(body):
    """``body`` without the reads of globals nothing uses any more (a call's option,
    ``backend=be``, that went with the call replaced)."""
    used = {n for s in ir.walk(body) for n in ir.reads(s)}

    def keep(stmts):
        return [ir.map_children(s, keep) for s in stmts
                if not (isinstance(s, Op) and s.fn in (ir.load_global, ir.load_cell)
                         and s.target not in used)]
    return keep(body)
