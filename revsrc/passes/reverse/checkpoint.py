"""Checkpointing long loops, so a gradient's saves fit in a memory budget.

A reverse-mode gradient saves what its adjoint needs from every iteration, so its
memory grows with the trip count. With a budget (``memory=`` on revsrc.grad), an
outermost ``for`` or ``while`` loop whose saves would grow that way runs in segments
of ``K`` iterations instead (two-level checkpointing; a while loop counts its
iterations as it runs, since its trip count is not known before):

- the forward sweep runs the plain loop body, saving nothing, and pushes a snapshot
  of the variables the body carries from one iteration to the next (and the
  segment's bounds) at the start of every segment;
- the reverse sweep takes the segments from last to first: it pops the segment's
  snapshot into those variables, runs the segment again with the saving body, then
  runs the segment's adjoint iterations, which pop what was just saved.

Recomputation runs the same code on the same values, so the gradient is the stored
one bit for bit. Only the saves of one segment are alive at a time. It is done on
the IR, so the Python path and the scalar engine both run it unchanged.

``K`` is half the budget over the bytes one iteration saves (8 a scalar push; an
inner loop of unknown trip count is counted as one iteration, so the budget holds
only for short inner loops).

Loops it does not handle are left as they are (stored): a ``break``, a step other
than 1, an object or array save or snapshot, a method call or a random draw in the
body (recomputing it must give the same values), a loop inside another loop.
"""
from __future__ import annotations

import operator

from ...core import ir
from ...core.ir import Comment, Const, For, If, Op, Pop, Push, While
from .plan import breaks

SCALAR_KINDS = ("float", "int", "bool")
_WORD = 8     # bytes a scalar push takes on a float or int stack


def parse_memory(memory):
    """A byte count from ``memory=``: an int, or a string such as "32MB" or "1.5 GiB"."""
    if memory is None:
        return None
    if isinstance(memory, bool):
        raise ValueError(f"memory must be a byte count or a string like '32MB', "
                         f"not {memory!r}")
    if isinstance(memory, (int, float)):
        value = memory
    elif isinstance(memory, str):
        text = memory.strip().upper().replace(" ", "")
        units = {"KIB": 1024, "MIB": 1024 ** 2, "GIB": 1024 ** 3, "KB": 1000,
                 "MB": 1000 ** 2, "GB": 1000 ** 3, "K": 1000, "M": 1000 ** 2,
                 "G": 1000 ** 3, "B": 1}
        scale = 1
        for unit, size in units.items():
            if text.endswith(unit):
                text, scale = text[:-len(unit)], size
                break
        try:
            value = float(text) * scale
        except ValueError:
            raise ValueError(f"memory must be a byte count or a string like '32MB', "
                             f"not {memory!r}") from None
    else:
        raise ValueError(f"memory must be a byte count or a string like '32MB', "
                         f"not {memory!r}")
    if not value >= 1:
        raise ValueError(f"memory must be at least one byte, not {memory!r}")
    return int(value)


# ----- which loops -----------------------------------------------------------
def applies(plan, s, site, saving):
    """The segment length for loop ``s`` (at ``site``, whose saving body is
    ``saving``), or None where it is left as it is."""
    budget = getattr(plan, "memory", None)
    if budget is None or not plan.rev_nonempty.get(site) or plan.loops_of.get(site):
        return None
    if isinstance(s, For) and s.step != Const(1):
        return None
    if breaks(s.body) or not _pure(s.body) or not _pure(_test_body(s)):
        return None
    per_iter = _saved_bytes(saving)
    if per_iter is None or per_iter == 0:
        return None
    snap = snapshot_vars(plan, s, saving)
    if snap is None:
        return None
    # half the budget for one segment's saves; the snapshots share the rest
    return snap, max(1, budget // 2 // per_iter)


def _pure(stmts):
    """Whether running ``stmts`` again gives the same values and does nothing twice:
    no method calls (which may change an object), no random draws, clocks or print."""
    for st in ir.walk(stmts):
        if isinstance(st, Op):
            fn = st.fn
            if fn is ir.call_method or fn is print:
                return False
            owner = getattr(fn, "__self__", None)
            mods = (getattr(fn, "__module__", None) or "",
                    type(owner).__module__ if owner is not None else "")
            if any("random" in m or m == "time" for m in mods):
                return False
    return True


def _saved_bytes(stmts):
    """Bytes one run of ``stmts`` pushes (an inner loop of unknown trip count counted
    once), or None if it pushes onto the object stack."""
    total = 0
    for st in stmts:
        if isinstance(st, Push):
            if st.stack not in ("f", "i"):
                return None
            total += _WORD
        elif isinstance(st, (If, For, While)):
            parts = [_saved_bytes(b) for b in ir.children(st)]
            if any(p is None for p in parts):
                return None
            if isinstance(st, If):
                total += max(parts)
            else:
                times = 1
                if isinstance(st, For) and all(isinstance(b, Const) for b in
                                               (st.start, st.stop, st.step)):
                    times = max(1, len(range(st.start.value, st.stop.value,
                                             st.step.value)))
                total += times * sum(parts)
    return total


def snapshot_vars(plan, s, saving):
    """The variables a segment starts from: those the body reads before writing them
    and that change while the program runs (the body, the rest of the program or the
    reverse sweep may write them); None if one is not a number."""
    # an iteration of a while loop is its body, then its test
    start, test = ({s.var}, []) if isinstance(s, For) else (set(), s.test_body)
    exposed = set()
    _exposed(saving + test, start, exposed)
    _exposed(s.body + test, start, exposed)
    written = {w for st in ir.walk(saving + test) for w in ir.writes(st)}
    snap = sorted(v for v in exposed if v in written or plan.def_count.get(v, 0) > 1
                  or (v in plan.params and plan.def_count.get(v, 0) > 0))
    for v in snap:
        if plan.kinds.get(v) not in SCALAR_KINDS or plan.stack(v) not in ("f", "i"):
            return None
    return snap


def _test_body(s):
    return s.test_body if isinstance(s, While) else []


def _exposed(stmts, defined, out):
    """Add to ``out`` the names ``stmts`` may read before assigning them (given the
    names ``defined`` on entry); the names defined on every path out."""
    defined = set(defined)
    for st in stmts:
        if isinstance(st, If):
            if isinstance(st.test, str) and st.test not in defined:
                out.add(st.test)
            a = _exposed(st.body, defined, out)
            b = _exposed(st.orelse, defined, out)
            defined = a & b
        elif isinstance(st, For):
            out.update(r for r in ir.reads(st) if r not in defined)
            _exposed(st.body, defined | {st.var}, out)
        elif isinstance(st, While):
            after_test = _exposed(st.test_body, defined, out)
            if isinstance(st.test, str) and st.test not in after_test:
                out.add(st.test)
            _exposed(st.body, after_test, out)
            defined = after_test
        else:
            out.update(r for r in ir.reads(st) if r not in defined)
            defined.update(ir.writes(st))
    return defined


# ----- the two sweeps ----------------------------------------------------------
def _int(plan, prefix):
    v = plan.names.fresh(prefix)
    plan.kinds[v] = "int"
    return v


def _copy(stmts):
    """``stmts`` with no statement shared with the original."""
    return [ir.map_children(ir.replace(st), _copy) for st in stmts]


def forward(plan, s, site, saving, snap, k):
    """The forward sweep of loop ``s``: the plain body in segments of ``k``
    iterations, a snapshot pushed at the start of each. Records what `reverse` needs."""
    out = [Comment(f"checkpointed loop: segments of {k} iterations, each recomputed "
                   f"in the reverse sweep from a snapshot of {len(snap)} values")]
    stop = s.stop
    if isinstance(stop, str):   # range() reads its bounds once
        stop = _int(plan, "_e")
        out.append(Op(stop, ir.copy, (s.stop,), loc=s.loc))
    count, lo, top, hi = (_int(plan, p) for p in ("_c", "_lo", "_t", "_hi"))
    out.append(Op(count, ir.copy, (Const(0),), loc=s.loc))
    seg = [Op(top, operator.add, (lo, Const(k))), Op(hi, min, (top, stop))]
    seg += [Push(v, plan.stack(v)) for v in snap]
    seg += [Push(lo, "i"), Push(hi, "i"), Op(count, operator.add, (count, Const(1))),
            For(s.var, lo, hi, Const(1), _copy(s.body), loc=s.loc)]
    out.append(For(lo, s.start, stop, Const(k), seg, loc=s.loc))
    out.append(Push(count, "i"))
    plan.checkpointed[site] = (s, saving, snap, k)
    return out


def forward_while(plan, s, site, saving, snap, k):
    """The forward sweep of while loop ``s``: the plain body, with a snapshot pushed
    every ``k`` iterations (counted as it runs: the trip count is not known before)."""
    out = [Comment(f"checkpointed loop: a snapshot of {len(snap)} values every {k} "
                   f"iterations, each segment recomputed in the reverse sweep")]
    count, left, due = _int(plan, "_c"), _int(plan, "_j"), plan.names.fresh("_f")
    plan.kinds[due] = "bool"
    out += [Op(count, ir.copy, (Const(0),), loc=s.loc), Op(left, ir.copy, (Const(k),), loc=s.loc)]
    start = [Push(v, plan.stack(v)) for v in snap]
    start += [Op(count, operator.add, (count, Const(1))), Op(left, ir.copy, (Const(0),))]
    body = [Op(due, operator.eq, (left, Const(k))), If(due, start, []),
            Op(left, operator.add, (left, Const(1)))] + _copy(s.body)
    # the last segment's length, popped first
    out += [While(s.test_body, s.test, body, loc=s.loc), Push(count, "i"), Push(left, "i")]
    plan.checkpointed[site] = (s, saving, snap, k)
    return out


def reverse(plan, site, body):
    """The reverse sweep of the checkpointed loop at ``site``, ``body`` its resolved
    adjoint body: segments last to first, each recomputed from its snapshot with the
    saving body, then its adjoint iterations in reverse."""
    s, saving, snap, k = plan.checkpointed[site]
    if isinstance(s, While):
        return _reverse_while(plan, s, saving, snap, k, body)
    count, q, lo, hi, last, before, j = (_int(plan, p) for p in
                                         ("_c", "_q", "_lo", "_hi", "_m", "_l", "_k"))
    seg = [Pop(hi, "i"), Pop(lo, "i")]
    seg += [Pop(v, plan.stack(v)) for v in reversed(snap)]
    seg.append(Comment(f"recompute this segment (at most {k} iterations), saving"))
    seg.append(For(s.var, lo, hi, Const(1), _copy(saving), loc=s.loc))
    inner = [Op(s.var, ir.copy, (j,))] if plan.needed(s.var) else []
    seg += [Op(last, operator.sub, (hi, Const(1))), Op(before, operator.sub, (lo, Const(1))),
            For(j, last, before, Const(-1), inner + body, loc=s.loc)]
    return [Comment("checkpointed loop: its segments last to first"),
            Pop(count, "i"), For(q, Const(0), count, Const(1), seg, loc=s.loc)]


def _reverse_while(plan, s, saving, snap, k, body):
    count, q, size, r, j = (_int(plan, p) for p in ("_c", "_q", "_len", "_r", "_k"))
    seg = [Pop(v, plan.stack(v)) for v in reversed(snap)]
    seg.append(Comment(f"recompute this segment (at most {k} iterations), saving"))
    seg += [For(r, Const(0), size, Const(1), _copy(saving) + _copy(s.test_body), loc=s.loc),
            For(j, Const(0), size, Const(1), body, loc=s.loc),
            Op(size, ir.copy, (Const(k),))]
    return [Comment("checkpointed loop: its segments last to first"),
            Pop(size, "i"), Pop(count, "i"), For(q, Const(0), count, Const(1), seg, loc=s.loc)]


def rewritten(plan):
    """Variables the reverse sweep's recomputation assigns again."""
    found = set()
    for s, saving, _, _ in plan.checkpointed.values():
        for st in ir.walk(saving + _test_body(s)):
            found.update(ir.writes(st))
    return found
