"""Common subexpressions, copies and dead code, removed from a scalar IR program.

``revsrc.jit`` inlines a function's calls (plain helpers, and the programs of the
derivatives it calls), so a point where both ``g(x)`` and ``dg(x)`` are evaluated
computes ``exp(-x*x)`` twice: once for g, once in dg's forward sweep. Every operation
here is pure (the same function of the same values gives the same value and raises
the same way), so the second is replaced by a copy of the first, copies are read
through, and operations nobody reads and that cannot raise are dropped. The digits do
not change: what remains computes the same values with the same functions.

Local value numbering, in program order. Inside a branch the values known before it
stay known; after it, what the branch wrote is unknown. At a loop's entry everything
the loop writes is unknown (an iteration may see the previous one's values).
"""
from __future__ import annotations

import operator
import struct

from ..runtime import containers
from .. import primitives
from ..core import ir
from ..core.ir import Break, Comment, Const, For, If, Op, Pop, Push, While


def pure(fn):
    """Whether ``fn`` on scalars is a function of its arguments' values alone (its
    record's ``pure``)."""
    return bool(primitives.fact(fn, "pure"))


def droppable(fn):
    """Whether an unread call of ``fn`` on scalars may go: it never raises and has no
    effect (its record declares ``raises_on_scalars=False``)."""
    return primitives.fact(fn, "raises_on_scalars") is False


def _const_key(v):
    if isinstance(v, float):
        return ("f", struct.pack("<d", v))
    return (type(v).__name__, repr(v))


class _Numbering:
    """Value numbers: which value each variable holds, and who holds each value."""

    def __init__(self, counter):
        self.counter = counter      # shared: numbers are unique across copies
        self.of = {}                # variable -> number
        self.holders = {}           # number -> [variables holding it, oldest first]
        self.table = {}             # (function, argument numbers) -> number
        self.consts = {}            # number -> Const

    def fork(self):
        n = _Numbering(self.counter)
        n.of = dict(self.of)
        n.holders = {k: list(v) for k, v in self.holders.items()}
        n.table = dict(self.table)
        n.consts = dict(self.consts)
        return n

    def fresh(self):
        self.counter[0] += 1
        return self.counter[0]

    def number(self, operand):
        if isinstance(operand, Const):
            key = ("const",) + _const_key(operand.value)
            vn = self.table.get(key)
            if vn is None:
                vn = self.table[key] = self.fresh()
                self.consts[vn] = operand
            return vn
        vn = self.of.get(operand)
        if vn is None:
            vn = self.fresh()
            self.of[operand] = vn
            self.holders[vn] = [operand]
        return vn

    def read(self, operand):
        """The operand to read for ``operand``'s value: a constant, or the variable that
        has held it longest."""
        if isinstance(operand, Const):
            return operand
        vn = self.number(operand)
        if vn in self.consts:
            return self.consts[vn]
        held = self.holders.get(vn)
        return held[0] if held else operand

    def kill(self, var):
        old = self.of.pop(var, None)
        if old is not None and var in self.holders.get(old, ()):
            self.holders[old].remove(var)

    def assign(self, var, vn):
        self.kill(var)
        self.of[var] = vn
        self.holders.setdefault(vn, []).append(var)


def _written(stmts):
    out = set()
    for s in ir.walk(stmts):
        out.update(ir.writes(s))
    return out


def _numbered(stmts, num):
    out = []
    for s in stmts:
        if isinstance(s, Op):
            out.append(_op(s, num))
        elif isinstance(s, If):
            test = num.read(s.test)
            body = _numbered(s.body, num.fork())
            orelse = _numbered(s.orelse, num.fork())
            for v in _written(s.body) | _written(s.orelse):
                num.kill(v)
            out.append(ir.replace(s, test=test, body=body, orelse=orelse))
        elif isinstance(s, For):
            start, stop, step = num.read(s.start), num.read(s.stop), num.read(s.step)
            for v in _written(s.body) | {s.var}:
                num.kill(v)
            out.append(ir.replace(s, start=start, stop=stop, step=step,
                               body=_numbered(s.body, num.fork())))
        elif isinstance(s, While):
            for v in _written(s.test_body) | _written(s.body):
                num.kill(v)
            inner = num.fork()
            test_body = _numbered(s.test_body, inner)
            test = inner.read(s.test)
            out.append(ir.replace(s, test_body=test_body, test=test,
                                  body=_numbered(s.body, inner)))
        elif isinstance(s, Push):
            out.append(Push(num.read(s.value), s.stack))
        elif isinstance(s, Pop):
            num.kill(s.target)
            out.append(s)
        elif isinstance(s, (Break, Comment)):
            out.append(s)
        else:  # pragma: no cover - SetItem: not in scalar programs
            for v in ir.writes(s):
                num.kill(v)
            out.append(s)
    return out


def _op(s, num):
    args = tuple(num.read(a) for a in s.args)
    kwargs = tuple((k, num.read(v)) for k, v in s.kwargs)
    if s.target is None:
        return Op(None, s.fn, args, kwargs, s.loc)
    if s.fn is ir.copy and not kwargs:
        vn = num.number(s.args[0])
        num.assign(s.target, vn)
        return Op(s.target, ir.copy, args, (), s.loc)
    if kwargs or not pure(s.fn):
        num.kill(s.target)
        return Op(s.target, s.fn, args, kwargs, s.loc)
    key = (s.fn, tuple(num.number(a) for a in s.args))
    vn = num.table.get(key)
    if vn is not None and num.holders.get(vn):
        held = num.holders[vn][0]
        num.assign(s.target, vn)
        return Op(s.target, ir.copy, (held,), (), s.loc)
    vn = num.fresh()
    num.table[key] = vn
    num.assign(s.target, vn)
    return Op(s.target, s.fn, args, kwargs, s.loc)


def _reads(stmts, outputs):
    counts = {}
    for s in ir.walk(stmts):
        for r in ir.reads(s):
            counts[r] = counts.get(r, 0) + 1
    for o in outputs:
        if isinstance(o, str):
            counts[o] = counts.get(o, 0) + 1
    return counts


def _drop(stmts, counts, changed):
    out = []
    for s in stmts:
        if isinstance(s, Op) and s.target is not None and not s.kwargs and (
                (counts.get(s.target, 0) == 0 and droppable(s.fn))
                or (s.fn is ir.copy and s.args == (s.target,))):
            changed.append(s)
            continue
        out.append(ir.map_children(s, lambda b: _drop(b, counts, changed)))
    return out


def optimize(body, outputs):
    """``body`` with repeated pure computations replaced by copies, copies read
    through, and unread droppable operations removed."""
    body = _numbered(body, _Numbering([0]))
    while True:
        changed = []
        body = _drop(body, _reads(body, outputs), changed)
        if not changed:
            return body


# ----- Tuples of scalars, as their items -----

def _copy_items(stmts, fresh):
    """Every ``t = make_tuple(a, b)`` first copies its items into new variables:
    ``t_0 = a; t_1 = b; t = make_tuple(t_0, t_1)``."""
    out = []
    for s in stmts:
        if isinstance(s, Op) and s.fn is ir.make_tuple and not s.kwargs \
                and s.target is not None:
            copies = []
            for k, a in enumerate(s.args):
                c = fresh(f"{s.target}_{k}_")
                out.append(Op(c, ir.copy, (a,), loc=s.loc))
                copies.append(c)
            out.append(Op(s.target, ir.make_tuple, tuple(copies), (), s.loc))
            continue
        out.append(ir.map_children(s, lambda b: _copy_items(b, fresh)))
    return out


def scalarize_tuples(body, fresh):
    """``t[i]`` of a tuple built in the program reads the item directly, where that is
    sound: every ``t = make_tuple(a, b)`` first copies its items into new variables
    (``t_0 = a; t_1 = b``, written nowhere else), and ``t`` itself is written only
    there, so the items and the tuple always change together. ``u = t`` right after
    (only plain operations between, in the same block) shares them. A derivative's
    ``(value, grad)`` and a function's returned tuple then need no tuple at all.
    ``fresh(base)`` names a new variable."""
    items = {}
    body = _copy_items(body, fresh)
    writes = {}
    for s in ir.walk(body):
        for w in ir.writes(s):
            writes[w] = writes.get(w, 0) + 1

    def find(stmts):
        run = set()          # tuples made or copied in this run of plain operations
        for i, s in enumerate(stmts):
            if isinstance(s, Op):
                if s.fn is ir.make_tuple and writes.get(s.target) == 1 and \
                        all(isinstance(a, str) and writes.get(a) == 1 for a in s.args):
                    items[s.target] = s.args
                    run.add(s.target)
                elif s.fn is ir.copy and len(s.args) == 1 and s.args[0] in run:
                    if writes.get(s.target) == 1:
                        items[s.target] = items[s.args[0]]
                        run.add(s.target)
                    else:   # (a returned tuple) the same tuple, built from its items
                        stmts[i] = Op(s.target, ir.make_tuple, items[s.args[0]], (), s.loc)
                continue
            run = set()
            for b in ir.children(s):
                find(b)

    def forward(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.fn is operator.getitem and len(s.args) == 2 \
                    and not s.kwargs and isinstance(s.args[0], str) \
                    and s.args[0] in items and isinstance(s.args[1], Const) \
                    and type(s.args[1].value) is int \
                    and -len(items[s.args[0]]) <= s.args[1].value < len(items[s.args[0]]):
                changed.append(s)
                out.append(Op(s.target, ir.copy, (items[s.args[0]][s.args[1].value],),
                              (), s.loc))
                continue
            if isinstance(s, Op) and s.fn is containers.check_unpack and \
                    isinstance(s.args[0], str) and s.args[0] in items and \
                    s.args[1] == Const(len(items[s.args[0]])):
                changed.append(s)    # unpacking a tuple of known length: nothing to check
                continue
            out.append(ir.map_children(s, forward))
        return out

    while True:      # an item may be a tuple itself: (value, (grad_x, grad_y))
        find(body)
        changed = []
        body = forward(body)
        if not changed:
            return body, items
