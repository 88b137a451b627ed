"""The control pass: ``return``, ``break`` and ``continue`` become flags.

Lowering leaves early exits structured: a function body (and each inlined call) is
a `Block`, each loop carries a label, a loop body is a `Block` that ``continue``
leaves, and every exit is a `Leave` naming its target. The reverse transformation
needs loops whose bodies run to their end and leave only through a final
``if stop: break``, so this pass rewrites each `Leave` into flag assignments:

- leaving a `Block` sets its flag (named after the block's label);
- leaving a loop body (``continue``) sets the loop's skip flag; leaving the loop
  itself (``break``, or an exit to anything outside it) sets its skip and stop flags;
- statements after one that may leave run under ``if not flag`` of the innermost
  region, and a loop whose stop flag is set ends with ``if stop: break``.

A `Leave` that is the last thing its target does needs no flag at all (the common
``return`` at the end of a function). Flags are created only where an exit needs one.
"""
from __future__ import annotations

from typing import Optional

from ..core import ir
from ..core.ir import Block, Break, Const, For, If, Leave, Op, While
from ..core.record import FRESH, record


@record
class _Frame:
    label: str                     # a Block's label, or a loop's break label
    cont: Optional[str]            # a loop's body label (continue)
    loop: bool
    used: set                      # flag names assigned by some Leave

    def __init__(self, label, cont=None, loop=False, used=FRESH):
        self.label = label
        self.cont = cont
        self.loop = loop
        self.used = set() if used is FRESH else used


def structure(stmts, names):
    """``stmts`` with every `Block` and `Leave` replaced by flags and guards."""
    out, _ = _Structurer(names).list(stmts, [], tail=set())
    return out


class _Structurer:
    def __init__(self, names):
        self.names = names

    def list(self, stmts, frames, tail):
        """Lower a statement list; returns (statements, whether it may leave)."""
        out = []
        for i, s in enumerate(stmts):
            last = i == len(stmts) - 1
            lowered, leaves = self.stmt(s, frames, tail if last else set())
            out.extend(lowered)
            if leaves and not last:
                guard = self._guard(frames)
                rest, _ = self.list(stmts[i + 1:], frames, tail)
                if rest:
                    out.append(If(guard, [], rest, loc=_loc(stmts[i + 1])))
                return out, True
            if leaves:
                return out, True
        return out, False

    def stmt(self, s, frames, tail):
        if isinstance(s, Leave):
            return self._leave(s, frames, tail), True
        if isinstance(s, Block):
            frame = _Frame(s.label)
            body, _ = self.list(s.body, frames + [frame], tail | {s.label})
            if frame.used:
                flag = self.names.flag(s.label)
                body = [Op(flag, ir.copy, (Const(False),), loc=s.loc)] + body
            return body, bool(frame.used) and self._crosses(s.body, frames)
        if isinstance(s, If):
            body, a = self.list(s.body, frames, tail)
            orelse, b = self.list(s.orelse, frames, tail)
            return [If(s.test, body, orelse, loc=s.loc)], a or b
        if isinstance(s, (For, While)):
            return self._loop(s, frames)
        return [s], False

    def _loop(self, s, frames):
        body_stmts = s.body
        cont = None
        if len(body_stmts) == 1 and isinstance(body_stmts[0], Block):
            cont = body_stmts[0].label
            body_stmts = body_stmts[0].body
        frame = _Frame(s.label or "", cont=cont, loop=True)
        body, _ = self.list(body_stmts, frames + [frame], tail={cont} if cont else set())
        skip, stop = cont, s.label
        pre = []
        if skip in frame.used or stop in frame.used:
            if skip is not None:
                self.names.flag(skip)
                pre.append(Op(skip, ir.copy, (Const(False),), loc=s.loc))
            if stop in frame.used:
                self.names.flag(stop)
                pre.append(Op(stop, ir.copy, (Const(False),), loc=s.loc))
        body = pre + body
        if stop in frame.used:
            body.append(If(stop, [Break(loc=s.loc)], [], loc=s.loc))
        if isinstance(s, For):
            loop = For(s.var, s.start, s.stop, s.step, body, loc=s.loc)
        else:
            # the condition may call an inlined function: its own returns only
            test_body, _ = self.list(s.test_body, frames, set())
            loop = While(test_body, s.test, body, loc=s.loc)
        return [loop], self._crosses(s.body, frames)

    def _leave(self, s, frames, tail):
        """Flag assignments for an exit to ``s.label``, from inside ``frames``."""
        t = _target(frames, s.label)
        if s.label in tail and all(not f.loop or f.cont == s.label for f in frames[t:]) \
                and not any(f.loop for f in frames[t + 1:]):
            return []   # the target ends right here anyway
        out = []
        for j in range(len(frames) - 1, t - 1, -1):
            f = frames[j]
            names = []
            if f.loop:
                names.append(f.cont)
                if not (j == t and s.label == f.cont):
                    names.append(f.label)   # break, or leaving the loop entirely
            else:
                names.append(f.label)
            for n in names:
                if n is None:
                    continue
                f.used.add(n)
                self.names.flag(n)
                out.append(Op(n, ir.copy, (Const(True),), loc=s.loc))
        return out

    def _guard(self, frames):
        f = frames[-1]
        return f.cont if f.loop else f.label

    def _crosses(self, stmts, frames):
        """Whether a Leave inside ``stmts`` targets a frame outside them."""
        outer = {f.label for f in frames} | {f.cont for f in frames if f.cont}
        return any(isinstance(x, Leave) and x.label in outer for x in ir.walk(stmts))


def _target(frames, label):
    for j in range(len(frames) - 1, -1, -1):
        f = frames[j]
        if f.label == label or f.cont == label:
            return j
    raise AssertionError(f"no enclosing region {label!r}")


def _loc(s):
    return getattr(s, "loc", None)
