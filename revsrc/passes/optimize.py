"""Clean-up passes over generated IR: each takes statements and returns statements.

- `fold`: constant folding, algebraic identities and sharing of repeated pure
  operations, on a rule's freshly inlined operations;
- `coalesce`: ``_t5 = expr; x_bar = _t5`` becomes ``x_bar = expr``;
- `propagate_copies`: ``a = b`` is dropped and later reads of ``a`` read ``b``;
- `drop_empty_comments`: "adjoint of line N" comments whose code optimized away.

`cleanup` runs the last three to a fixed point. Every pass is linear in the length
of the program (the transformation of a long straight-line function must not take
quadratic time). Temporaries are recognised through the namer (revsrc/names.py).
"""
from __future__ import annotations

import bisect
import operator

import numpy as np

from .. import primitives
from ..runtime import ieee
from ..core import ir
from ..core.ir import Comment, Const, For, If, Op

# ----- Folding -----

def _foldable(fn):
    """Whether a call of ``fn`` on constant numbers is replaced by its value (its
    record's ``foldable``: math's, the operators' and the builtins' functions, ufuncs,
    copies)."""
    return bool(primitives.fact(fn, "foldable"))


def _is_const(o, value):
    return isinstance(o, Const) and type(o.value) in (int, float) and o.value == value


def _identity(fn, args):
    """The operand ``fn(*args)`` equals by an algebraic identity, else None."""
    if fn is operator.mul:
        if _is_const(args[1], 1):
            return args[0]
        if _is_const(args[0], 1):
            return args[1]
    elif (fn is operator.truediv or fn is ieee.div) and _is_const(args[1], 1):
        return args[0]
    elif fn is operator.add:
        if _is_const(args[1], 0):
            return args[0]
        if _is_const(args[0], 0):
            return args[1]
    elif fn is operator.sub and _is_const(args[1], 0):
        return args[0]
    elif (fn is operator.pow or fn is ieee.pow or fn is np.power) and _is_const(args[1], 1):
        return args[0]
    elif (fn is np.where or fn is ieee.where) and len(args) == 3 and \
            isinstance(args[0], Const) and type(args[0].value) in (bool, np.bool_):
        return args[1] if args[0].value else args[2]   # where(False, 0.0, d): d
    return None


def fold(ops, outs, names):
    """Constant folding and algebraic identities on a rule's inlined ``ops``; returns
    the ops kept and ``outs`` with folded operands substituted."""
    subst = {}

    def sub(o):
        while isinstance(o, str) and o in subst:
            o = subst[o]
        return o

    kept = []
    seen = {}  # (fn, args, kwargs) -> target: rules are pure, so repeats are shared
    for op in ops:
        if not isinstance(op, Op):
            kept.append(op)
            continue
        args = tuple(sub(a) for a in op.args)
        kwargs = tuple((k, sub(v)) for k, v in op.kwargs)
        fn = op.fn
        temp = op.target is not None and names.is_temp(op.target)
        try:
            key = (fn, args, kwargs)
            hash(key)
        except TypeError:
            key = None
        if key is not None and op.target is not None and key in seen:
            subst[op.target] = seen[key]
            continue
        if key is not None and temp:
            seen[key] = op.target
        if op.target is not None and not kwargs and all(isinstance(a, Const) for a in args) \
                and _foldable(fn) and all(isinstance(a.value, (int, float, type(None)))
                                          for a in args):
            try:
                subst[op.target] = Const(fn(*(a.value for a in args)))
                continue
            except Exception:
                pass
        simple = _identity(fn, args)
        if simple is not None and op.target is not None:
            subst[op.target] = simple
            continue
        if fn is ir.copy and temp:
            subst[op.target] = args[0]
            continue
        if fn is operator.mul and isinstance(args[1], Const) and args[1].value == -1.0:
            fn, args = operator.neg, (args[0],)
        elif fn is operator.mul and isinstance(args[0], Const) and args[0].value == -1.0:
            fn, args = operator.neg, (args[1],)
        kept.append(Op(op.target, fn, args, kwargs, op.loc))
    outs = [sub(o) for o in outs]
    return _unread_dropped(kept, outs, names), outs


def _unread_dropped(ops, outs, names):
    """``ops`` without the calls a fold left unread (the branch ``np.where`` of a
    constant did not take: np.mean's rule without where=), where their records
    declare them free of effects."""
    read = {o for o in outs if isinstance(o, str)}
    out = []
    for op in reversed(ops):
        if isinstance(op, Op) and op.target is not None and op.target not in read \
                and names.is_temp(op.target) and primitives.fact(op.fn, "effect_free"):
            continue
        read.update(ir.reads(op))
        out.append(op)
    out.reverse()
    return out


# ----- Counting -----

def use_counts(stmts):
    uses = {}
    for s in ir.walk(stmts):
        for r in ir.reads(s):
            uses[r] = uses.get(r, 0) + 1
    return uses


def def_counts(stmts):
    defs = {}
    for s in ir.walk(stmts):
        for w in ir.writes(s):
            defs[w] = defs.get(w, 0) + 1
    return defs


def _deep(s, memo=None):
    """(names read with multiplicity, names written) by ``s`` and everything in it, not
    to be changed: with ``memo`` (id -> (statement, reads, writes)) they are shared by
    every pass of one `cleanup`, whose rounds meet most statements again unchanged (a
    compound statement's from its children's)."""
    if memo is not None:
        hit = memo.get(id(s))
        if hit is not None and hit[0] is s:
            return hit[1], hit[2]
    reads, writes = {}, set()
    for r in ir.reads(s):
        reads[r] = reads.get(r, 0) + 1
    writes.update(ir.writes(s))
    for block in ir.children(s):
        for c in block:
            r, w = _deep(c, memo)
            for n, k in r.items():
                reads[n] = reads.get(n, 0) + k
            writes |= w
    if memo is not None:
        memo[id(s)] = (s, reads, writes)   # s kept alive: its id is not reused
    return reads, writes


def _rebuilt(s, fn):
    """``ir.map_children(s, fn)``, but ``s`` itself where ``fn`` kept every statement
    of every list: a loop no round changed keeps its counts in `_deep`'s memo, where
    a copy of it would have them summed again from all its statements."""
    new = ir.map_children(s, fn)
    if new is s:
        return s
    for a, b in zip(ir.children(s), ir.children(new)):
        if len(a) != len(b) or any(x is not y for x, y in zip(a, b)):
            return new
    return s


def substitute(s, old, new):
    """A copy of statement ``s`` reading ``new`` wherever it (or a statement in it, a
    while's test included) read ``old``."""
    s = ir.map_operands(s, lambda n: new if n == old else n)
    return ir.map_children(s, lambda b: [substitute(t, old, new) for t in b])


# ----- Copy propagation -----

def propagate_copies(stmts, uses, defs, keep, names, memo=None):
    """Drop ``a = b`` and read ``b`` for ``a`` where nothing changes ``b`` meanwhile.

    Applies when ``a`` (a temporary or an adjoint, not in ``keep``) is assigned only
    there and read only later in the same block, and ``b`` is not written before the
    last of those reads (the last may write it, since it reads first)."""
    # (an adjoint sweep has no while loops: a while's adjoint is a counted For; a
    # While would be left whole, its test and body unchanged)
    out = [_rebuilt(s, lambda b: propagate_copies(b, uses, defs, keep, names, memo))
           if isinstance(s, (If, For)) else s for s in stmts]
    # (a statement is one of these copies or not whatever this pass substitutes in it)
    copies = [i for i, s in enumerate(out) if _copy_to_drop(s, defs, keep, names)]
    if not copies:
        return out     # (most blocks by the last round: their indexes below not needed)
    info = [_deep(s, memo) for s in out]
    # where the copies' targets are read and their sources written: all that is asked
    targets = {out[i].target for i in copies}
    sources = {out[i].args[0] for i in copies}
    read_at, write_at = {}, {}
    for j, (r, w) in enumerate(info):
        for n in r:
            if n in targets:
                read_at.setdefault(n, set()).add(j)
        for n in w:
            if n in sources:
                write_at.setdefault(n, []).append(j)
    dropped = set()
    for i in copies:
        s = out[i]       # (its source may have been substituted by an earlier copy's)
        a, b = s.target, s.args[0]
        if defs.get(b, 0) < 1:
            continue
        readers = sorted(j for j in read_at.get(a, ()) if j > i and j not in dropped)
        found = sum(info[j][0].get(a, 0) for j in readers)
        if not readers or found != uses.get(a, 0):
            continue
        last = readers[-1]
        writes_b = write_at.get(b, ())
        k = bisect.bisect_right(writes_b, i)
        clobbered = k < len(writes_b) and writes_b[k] < last
        if not isinstance(out[last], Op) and b in info[last][1]:
            clobbered = True
        if clobbered:
            continue
        for j in readers:
            out[j] = substitute(out[j], a, b)
            r = dict(info[j][0])    # (a new statement: the shared counts stay as they were)
            n = r.pop(a, 0)
            r[b] = r.get(b, 0) + n
            info[j] = (r, info[j][1])
            read_at.setdefault(b, set()).add(j)
        uses[b] = uses.get(b, 0) + uses.get(a, 0) - 1
        dropped.add(i)
    return [s for i, s in enumerate(out) if i not in dropped]


def _copy_to_drop(s, defs, keep, names):
    """Whether ``s`` is a copy `propagate_copies` may drop, if its reads allow."""
    return (isinstance(s, Op) and s.fn is ir.copy and s.target is not None
            and isinstance(s.args[0], str) and defs.get(s.target) == 1
            and s.target not in keep
            and (names.is_bar(s.target) or names.is_temp(s.target)))


# ----- Coalescing -----

def coalesce(stmts, uses, names, memo=None):
    """``_t5 = expr; x_bar = _t5`` becomes ``x_bar = expr`` when ``_t5`` has no other
    use and ``x_bar`` is not touched in between."""
    if not any(isinstance(s, Op) and s.fn is ir.copy and len(s.args) == 1
               and isinstance(s.args[0], str) and uses.get(s.args[0], 0) == 1
               and names.is_temp(s.args[0]) for s in stmts):
        # no copy of a temporary used once: only the blocks inside can change
        return [_rebuilt(s, lambda b: coalesce(b, uses, names, memo))
                if isinstance(s, (If, For)) else s for s in stmts]
    out = []
    defined = {}     # temp -> index in out of its defining op
    touched = {}     # name -> index in out of the last statement reading or writing it
    for s in stmts:
        if isinstance(s, (If, For)):
            s = _rebuilt(s, lambda b: coalesce(b, uses, names, memo))
        elif isinstance(s, Op) and s.fn is ir.copy and len(s.args) == 1 \
                and isinstance(s.args[0], str) and s.args[0] in defined \
                and uses.get(s.args[0], 0) == 1:
            i = defined.pop(s.args[0])
            if touched.get(s.target, -1) <= i:
                d = out[i]
                out[i] = Op(s.target, d.fn, d.args, d.kwargs, d.loc)
                touched[s.target] = i
                continue
        if isinstance(s, Op) and s.target is not None and names.is_temp(s.target):
            defined[s.target] = len(out)
        r, w = _deep(s, memo)
        for n in list(r) + list(w):
            touched[n] = len(out)
        out.append(s)
    return out


# ----- First accumulations -----

def first_accumulation(stmts, names, memo=None):
    """``x_bar = t`` followed by ``x_bar = x_bar + u`` (nothing reading or writing
    ``x_bar`` or writing ``t`` in between) becomes ``x_bar = t + u``: the adjoint of
    ``d * d`` is one addition, not a copy and an addition."""
    out = [_rebuilt(s, lambda b: first_accumulation(b, names, memo))
           if isinstance(s, (If, For)) else s for s in stmts]
    if not any(_first_copy(s, names) for s in out):
        return out
    info = [_deep(s, memo) for s in out]
    dropped = set()
    for i, s in enumerate(out):
        if not _first_copy(s, names):
            continue
        a, b = s.target, s.args[0]
        for j in range(i + 1, len(out)):
            r, w = info[j]
            if a not in r and a not in w:
                if b in w:
                    break
                continue
            t = out[j]
            if isinstance(t, Op) and t.fn is operator.add and t.target == a and \
                    not t.kwargs and len(t.args) == 2 and t.args[0] == a and \
                    t.args[1] != a and r.get(a) == 1:
                out[j] = Op(a, operator.add, (b, t.args[1]), loc=t.loc)
                info[j] = _deep(out[j], memo)
                dropped.add(i)
            break
    return [s for i, s in enumerate(out) if i not in dropped]


def _first_copy(s, names):
    """Whether ``s`` is ``x_bar = t``, which `first_accumulation` may merge."""
    return (isinstance(s, Op) and s.fn is ir.copy and s.target is not None and
            names.is_bar(s.target) and len(s.args) == 1 and isinstance(s.args[0], str)
            and s.args[0] != s.target)


# ----- Comments -----

def drop_empty_comments(stmts):
    """Comments that head no code (the adjoint below them was optimized away)."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, Comment) and s.text.startswith("adjoint") and \
                (i + 1 == len(stmts) or isinstance(stmts[i + 1], Comment)):
            continue
        out.append(_rebuilt(s, drop_empty_comments))
    return out


def cleanup(rev, fwd, keep, names):
    """The adjoint sweep ``rev`` (after the forward sweep ``fwd``) cleaned up to a
    fixed point; names in ``keep`` (the outputs) are never folded away."""
    memo = {}
    fwd_uses, fwd_defs = use_counts(fwd), def_counts(fwd)   # the forward sweep stays
    for _ in range(8):
        before = len(list(ir.walk(rev)))
        rev = coalesce(rev, _plus(fwd_uses, _uses(rev, memo)), names, memo)
        rev = first_accumulation(rev, names, memo)
        rev = drop_empty_comments(rev)
        rev = propagate_copies(rev, _plus(fwd_uses, _uses(rev, memo)),
                               _plus(fwd_defs, def_counts(rev)), keep, names, memo)
        rev = drop_empty_comments(rev)
        if len(list(ir.walk(rev))) == before:
            break
    return rev


def _uses(stmts, memo):
    """`use_counts` of ``stmts``, from the counts `_deep` keeps."""
    uses = {}
    for s in stmts:
        for n, k in _deep(s, memo)[0].items():
            uses[n] = uses.get(n, 0) + k
    return uses


def _plus(a, b):
    out = dict(a)
    for n, k in b.items():
        out[n] = out.get(n, 0) + k
    return out


