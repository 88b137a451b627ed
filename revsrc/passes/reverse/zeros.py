"""Structural zeros: which adjoints received no contribution on the path that ran.

An adjoint is *zero* where no contribution can have reached it (no code reads it),
*live* where one has on every path, and *maybe* where that depends on the path: a
value used only in a branch, or only in a loop that may run zero times. A maybe
adjoint holds 0.0 on a path that sent nothing, but that 0.0 is not a derivative:
multiplied by a local derivative that is infinite or nan (sqrt at 0, log at 0, an
exp that overflowed) it would give nan where the result does not depend on the value
at all. So a maybe adjoint carries a bool, its *live flag* (``r_bar_live``), and the
adjoint of the operation that reads it runs under ``if r_bar_live:``: on a path that
sent nothing, nothing is propagated, as JAX's symbolic zeros do on the path it traced.
Where every use is unconditional no adjoint is ever maybe, and no flag is written.

This module holds the three-state analysis (`Flow`, `join`) and the part of the
adjoint writer that follows it (`ZeroFlow`): the state after each statement without
writing code (a loop's state is a fixpoint found before its body is reversed), the
statements that bring one path's state to the state where paths join, and the
flags' names. Flags nothing reads are dropped at the end (`drop_unread_flags`).

A function's result slot (``_ret``) is assigned once per call of its function, so a
path that killed its adjoint (reversed the one assignment that ran) never reaches
another assignment of it in the same call: killed on one path and live on the other,
it is live, not maybe. Early returns then need no flags.
"""
from __future__ import annotations

from ...core import ir
from ...core.ir import Comment, Const, For, If, Op, Pop, Push, SetItem, While
from ...core.record import record
from .. import optimize


@record
class Flow:
    """The adjoints known zero, those maybe zero (with a live flag), and of the zero
    ones those zero because their variable's assignment was reversed (killed)."""
    zero: frozenset
    maybe: frozenset
    killed: frozenset

    def __init__(self, zero, maybe=frozenset(), killed=frozenset()):
        self.zero = frozenset(zero)
        self.maybe = frozenset(maybe)
        self.killed = frozenset(killed) & self.zero

    def state(self, b):
        return "zero" if b in self.zero else ("maybe" if b in self.maybe else "live")

    def same(self, other):
        return (self.zero, self.maybe, self.killed) == (other.zero, other.maybe, other.killed)


def join(a, b, slot=None):
    """The state where paths in states ``a`` and ``b`` meet; ``slot(bar)``: whether
    ``bar`` is a result slot's adjoint (see the module's docstring), None where the
    paths are those of a live flag's ``if`` (a slot's use may be the one skipped)."""
    zero = a.zero & b.zero
    differ = a.zero ^ b.zero
    maybe = set(a.maybe | b.maybe | differ)
    if slot is not None:
        for bar in differ - a.maybe - b.maybe:
            if slot(bar) and bar in (a.killed | b.killed):
                maybe.discard(bar)
    return Flow(zero, maybe, a.killed & b.killed)


def _kill(f, bar):
    return Flow(f.zero | {bar}, f.maybe - {bar}, f.killed | {bar})


def _reach(f, bar):
    """``bar`` after a contribution from a live adjoint."""
    return Flow(f.zero - {bar}, f.maybe - {bar}, f.killed - {bar})


def fuse_flag_ifs(stmts, flags, keep):
    """``stmts`` (the resolved adjoint sweep) with each live flag's ``if`` that directly
    follows the ``if`` setting that flag to its own test (True in its body, False
    in its other branch) merged into it: the chain of one line's operations under
    a branch not taken is one ``if``. ``flags``: adjoint -> its flag; ``keep``: the
    program's outputs."""
    bar_of = {f: b for b, f in flags.items()}
    reads = optimize.use_counts(stmts)

    def sets(block, flag, value):
        # the last statement of the block that writes the flag sets it to value
        for t in reversed(block):
            if any(flag in ir.writes(u) for u in ir.walk([t])):
                return isinstance(t, Op) and t.target == flag and t.fn is ir.copy and \
                    t.args[0] == Const(value) and type(t.args[0].value) is bool
        return False

    def last_comment(block):
        return next((t.text for t in reversed(block) if isinstance(t, Comment)), None)

    def fuse(block):
        out = []
        for s in block:
            s = ir.map_children(s, fuse)
            j = len(out) - 1
            while j >= 0 and isinstance(out[j], Comment):
                j -= 1
            if isinstance(s, If) and s.test in bar_of and j >= 0 and \
                    isinstance(out[j], If) and out[j].test != s.test and \
                    sets(out[j].body, s.test, True) and sets(out[j].orelse, s.test, False):
                prev, body = out[j], list(out[j].body)
                for c in out[j + 1:]:
                    if c.text != last_comment(body):
                        body.append(c)
                body.extend(s.body)
                bar = bar_of[s.test]
                orelse = prev.orelse
                if bar not in keep and reads.get(bar, 0) == \
                        optimize.use_counts(s.body).get(bar, 0):
                    # read nowhere else: its 0.0 where the flag is False is never read
                    orelse = [t for t in orelse if not (isinstance(t, Op) and t.target == bar)]
                out[j:] = [If(prev.test, body, orelse + s.orelse, loc=prev.loc)]
                continue
            out.append(s)
        return out
    return fuse(stmts) if flags else stmts


def drop_unread_flags(stmts, flags):
    """``stmts`` without the assignments of live flags no ``if`` reads."""
    read = {s.test for s in ir.walk(stmts) if isinstance(s, If)}
    unread = set(flags) - read

    def keep(body):
        return [ir.map_children(s, keep) for s in body
                if not (isinstance(s, Op) and s.target in unread)]
    return keep(stmts) if unread else stmts


class ZeroFlow:
    """The adjoint writer's part that follows structural zeros (mixed into
    `adjoint.Adjoint`, whose ``zero``, ``maybe`` and ``killed`` sets it reads)."""

    def snapshot(self):
        return Flow(self.zero, self.maybe, self.killed)

    def restore_flow(self, f):
        self.zero, self.maybe, self.killed = set(f.zero), set(f.maybe), set(f.killed)

    def slot(self, bar):
        return self.names.is_result_slot(self.bar_of.get(bar))

    def join(self, a, b, slots=True):
        return join(a, b, self.slot if slots else None)

    def live_flag(self, bar):
        """The live flag of adjoint ``bar``: ``r_bar_live``, the same every time."""
        flag = self.flags.get(bar)
        if flag is None:
            flag, k = f"{bar}_live", 1
            while flag in self.names.taken:
                k += 1
                flag = f"{bar}_live{k}"
            self.names.internal(flag)
            self.kinds[flag] = "bool"
            self.flags[bar] = flag
        return flag

    def merge(self, body, orelse, a, b, slots=True):
        """Paths in states ``a`` (ending ``body``) and ``b`` (ending ``orelse``) join:
        each gets the statements that bring it to the joined state, which becomes
        the writer's."""
        j = self.join(a, b, slots)
        body.extend(self.fixups(a, j))
        orelse.extend(self.fixups(b, j))
        self.restore_flow(j)

    def fixups(self, a, b):
        """Statements taking run-time state ``a`` to ``b`` (``b`` at least ``a``): a
        zero adjoint becomes 0.0, a maybe one's flag says whether it is live."""
        out = []
        for bar in sorted(a.zero | a.maybe | b.zero | b.maybe):
            was, now = a.state(bar), b.state(bar)
            if was == now:
                continue
            if was == "zero":
                out.append(self._zero_value(bar))
            if now == "maybe":
                out.append(Op(self.live_flag(bar), ir.copy, (Const(was != "zero"),)))
        return out

    # The state after each statement, without writing code: a loop's state at the head
    # of its body is found this way, then the body is reversed once.

    def flow_block(self, stmts, f):
        for s in reversed(stmts):
            f = self.flow_stmt(s, f)
        return f

    def flow_stmt(self, s, f):
        if isinstance(s, Op):
            z = s.target
            if z is None or z not in self.active or self.bar(z) in f.zero:
                return f
            zb = self.bar(z)
            targets = [a for _, a in self.targets(s)]
            taken = Flow(f.zero, f.maybe - {zb}, f.killed)
            for a in targets:
                if a != z:
                    taken = _reach(taken, self.bar(a))
            if z not in targets:
                taken = _kill(taken, zb)
            if zb not in f.maybe:
                return taken
            if z in targets:
                return self.join(Flow(taken.zero, taken.maybe | {zb}, taken.killed), f, False)
            return self.join(taken, _kill(f, zb), False)
        if isinstance(s, SetItem):
            tb = self.bar(s.target) if s.target in self.active else None
            if tb is None or tb in f.zero or not (isinstance(s.value, str)
                                                   and s.value in self.active):
                return f
            taken = _reach(f, self.bar(s.value))
            return taken if tb not in f.maybe else self.join(taken, f, False)
        if isinstance(s, If):
            return self.join(self.flow_block(s.body, f), self.flow_block(s.orelse, f))
        if isinstance(s, (For, While)):
            head = self.loop_flow(s.body, f)
            if not self.runs_once(s):
                return head
            return self.after_loop(head, self.flow_block(s.body, head))
        if isinstance(s, Pop) and self._stack_active(s.stack) and s.target in self.active:
            return _kill(f, self.bar(s.target))
        if isinstance(s, Push) and self._stack_active(s.stack) \
                and isinstance(s.value, str) and s.value in self.active:
            return _reach(f, self.bar(s.value))
        return f

    def loop_flow(self, stmts, entry):
        """The state at the head of every reversed iteration (and after the loop, if
        it may run zero times): the least state at least ``entry`` and the state one
        iteration leaves."""
        head = entry
        while True:
            new = self.join(head, self.flow_block(stmts, head))
            if new.same(head):
                return head
            head = new

    def after_loop(self, head, end):
        """The state after a reversed loop known to run at least once: as ``end``
        (after the fixups to ``head`` the body ends with), except that an adjoint
        zero at the end but not at the head stays maybe (its flag says so)."""
        maybe = head.maybe & (end.zero | end.maybe)
        return Flow(head.zero, maybe, head.killed)
