"""Which loops a memory budget checkpoints, and what their snapshots hold.

A loop is checkpointed when it is outermost, has adjoint work, runs the same way
again from the same values (no method call, random draw, clock or print in it, no
write into an array) and carries only numbers and arrays from one iteration to the
next. `applies` says so, and measures
what one iteration saves (bytes of numbers and a count of objects) and which
variables a snapshot holds. A random draw in such a loop is refused under an explicit
``memory=`` (recomputing it would draw other numbers); under the default bound the
loop stays stored.
"""
from __future__ import annotations

from .... import errors
from ....core import ir
from ....core.record import record
from ....core.ir import Const, For, If, Op, Push, SetItem, While
from ..plan import breaks

SCALAR_KINDS = ("float", "int", "bool")
_WORD = 8     # bytes a scalar push takes on a float or int stack


# ----- which loops -----------------------------------------------------------
class DefaultBudget(int):
    """The default bound (`DEFAULT_MEMORY`), told apart from a budget the user gave:
    only a budget the user gave refuses a loop it cannot checkpoint."""


@record
class Scope:
    """A loop to checkpoint: the variables its snapshots hold, and what one
    iteration saves (``fixed`` bytes of numbers, ``objects`` arrays or boxed numbers)."""
    snap: list
    fixed: int
    objects: int
    arrays: list       # the snapshot's array variables (sized at run time)
    online: bool       # a while loop, or a for loop with a break or a step
    bounds: tuple      # such a for loop's (start, step) variables, once written

    def __init__(self, snap, fixed, objects, arrays, online=False, bounds=None):
        self.snap = snap
        self.fixed = fixed
        self.objects = objects
        self.arrays = arrays
        self.online = online
        self.bounds = bounds


def applies(plan, s, site, saving):
    """The `Scope` of loop ``s`` (at ``site``, whose saving body is ``saving``), or
    None where it stays stored."""
    budget = getattr(plan, "memory", None)
    if budget is None or not plan.rev_nonempty.get(site) or plan.loops_of.get(site):
        return None
    if isinstance(s, For) and (s.step == Const(0) or any(
            plan.kinds.get(b) != "int" for b in (s.start, s.stop, s.step)
            if isinstance(b, str))):
        return None         # range() refuses it, as the stored loop does
    impure = _impure(s.body + _test_body(s))
    if impure == "random" and not isinstance(budget, DefaultBudget):
        raise errors.SideEffect(
            "this loop draws random numbers, and checkpointing it (memory=) would "
            "draw other numbers when it runs a segment again", loc=s.loc,
            hint="draw the numbers before the loop, or leave memory= out")
    if impure:
        return None
    saved = _saved_bytes(plan, saving)
    if saved is None or saved == (0, 0):
        return None
    snap = snapshot_vars(plan, s, saving)
    if snap is None:
        return None
    arrays = [v for v in snap if plan.kinds.get(v) == "array"]
    trips = plan.static_trips.get(site)
    if isinstance(trips, Const) and not arrays and \
            trips.value * (saved[0] + _WORD * saved[1]) <= budget // 2:
        return None     # a trip count known now, whose saves fit: stored, unchanged
    # a trip count known only once the loop has run: the online scheme
    online = isinstance(s, While) or breaks(s.body) or s.step != Const(1)
    return Scope(snap, saved[0], saved[1], arrays, online)


def _impure(stmts):
    """Why running ``stmts`` again would not give the same values or would do
    something twice: "random" for a random draw, "other" for a method call (which may
    change an object), a write into an array, a clock or a print; None if nothing."""
    for st in ir.walk(stmts):
        if isinstance(st, SetItem):
            return "other"
        if isinstance(st, Op):
            fn = st.fn
            if fn is ir.call_method or fn is print:
                return "other"
            owner = getattr(fn, "__self__", None)
            mods = (getattr(fn, "__module__", None) or "",
                    type(owner).__module__ if owner is not None else "")
            if any("random" in m for m in mods):
                return "random"
            if any(m == "time" or m.endswith("inplace") for m in mods):
                return "other"
    return None


def shows_twice(stmts):
    """Whether running ``stmts`` again from their start would show: a print, a logging
    call, a method call, a random draw or a clock read (a lazily built gradient runs
    its forward sweep again when a loop turns out to need its checkpointed form)."""
    for st in ir.walk(stmts):
        if isinstance(st, Op):
            fn = st.fn
            if fn is ir.call_method or fn is print:
                return True
            owner = getattr(fn, "__self__", None)
            mods = (getattr(fn, "__module__", None) or "",
                    type(owner).__module__ if owner is not None else "")
            if any("random" in m or "logging" in m or m == "time" for m in mods):
                return True
    return False


def _saved_bytes(plan, stmts):
    """(bytes of numbers, count of objects) one run of ``stmts`` pushes (an inner loop
    of unknown trip count counted once), or None if it pushes an object that is not an
    array or a number."""
    fixed = objects = 0
    for st in stmts:
        if isinstance(st, Push):
            if st.stack in ("f", "i"):
                fixed += _WORD
            elif isinstance(st.value, str) and plan.kinds.get(st.value) in \
                    SCALAR_KINDS + ("array",):
                objects += 1
            else:
                return None
        elif isinstance(st, (If, For, While)):
            parts = [_saved_bytes(plan, b) for b in ir.children(st)]
            if any(p is None for p in parts):
                return None
            if isinstance(st, If):
                fixed += max(p[0] for p in parts)
                objects += max(p[1] for p in parts)
            else:
                times = 1
                if isinstance(st, For) and all(isinstance(b, Const) for b in
                                               (st.start, st.stop, st.step)):
                    times = max(1, len(range(st.start.value, st.stop.value,
                                             st.step.value)))
                fixed += times * sum(p[0] for p in parts)
                objects += times * sum(p[1] for p in parts)
    return fixed, objects


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
        if not ((plan.kinds.get(v) in SCALAR_KINDS and plan.stack(v) in ("f", "i"))
                or plan.kinds.get(v) == "array"):
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
