"""Loops over ``itertools.count``: an endless iterator, never made a list.

A loop reads only as many of its items as something else bounds: ``islice``'s stop,
the shortest sequence of a ``zip``, or a ``break`` (or ``return``) in the body. So

- ``for k in count(a, s)`` is a ``while True`` loop whose counter starts at ``a`` and
  adds ``s`` before each pass, as ``itertools.count`` does (for floats too: repeated
  addition, the same digits);
- ``islice(count(a, s), [i,] n[, j])`` of int constants ``a``, ``s`` is the range
  ``range(a + i*s, a + n*s, s*j)`` (``n`` checked as islice checks it);
- ``zip(count(a, s), xs)`` (int constants) gives ``a + k*s`` at position ``k`` of the
  loop over ``xs``.

Anything else over a count (floats in a zip, ``enumerate(count())``, a zip of counts
alone, ``reversed``) is refused with E101 while transforming, before anything runs.
"""
from __future__ import annotations

import ast
import itertools
import operator

import numpy as np

from ... import errors
from ...core import ir
from ...core.ir import Const, If, Op, While
from ...runtime import guards

COUNT = "count"

# iterators that never end (itertools.repeat(x) too, with no count), and what reads an
# iterable to its end: such a read of one is refused while transforming
ENDLESS = (itertools.count, itertools.cycle)
READ_TO_THE_END = (list, tuple, sorted, sum, min, max, dict, set, frozenset, len,
                   np.array, np.asarray, np.fromiter)

_ENDLESS_HINT = ("bound it where it is read: itertools.islice(itertools.count(a, s), n), "
                 "zip(itertools.count(a, s), xs), enumerate(xs, a), or a loop "
                 "`for k in itertools.count(a, s):` that breaks")


def _refuse(what, loc):
    return errors.UnsupportedSyntax(what, loc=loc, hint=_ENDLESS_HINT)


class CountLowering:
    """``itertools.count`` in loops (a part of `Lowerer`)."""

    def _count_args(self, sc, call, out, loc):
        """``count(start=0, step=1)``'s arguments, evaluated once, in order."""
        if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > 2 or \
                any(k.arg not in ("start", "step") for k in call.keywords):
            raise _refuse("itertools.count() with arguments other than start and step", loc)
        given = dict(zip(("start", "step"), call.args))
        for k in call.keywords:
            given[k.arg] = k.value
        values = {}
        for name in sorted(given, key=lambda n: getattr(given[n], "col_offset", 0)):
            values[name] = self._snapshot(self._val(sc, given[name], out), out, loc)
        return values.get("start", Const(0)), values.get("step", Const(1))

    def _for_count(self, sc, node, call, out, loc):
        """``for target in itertools.count(start, step): ...`` as ``while True``: the
        counter is read into the target, then advanced, before each pass of the body
        (a ``continue`` skips nothing); ``break`` or ``return`` ends it, as in Python.
        Its ``else`` never runs (a count is never exhausted)."""
        start, step = self._count_args(sc, call, out, loc)
        counter = self.fresh("_count")
        out.append(Op(counter, ir.copy, (self._materialize(start, out, loc),), loc=loc))

        def lower():
            labels = self._loop_labels(sc)
            body = []
            item = self._emit(body, ir.copy, (counter,), None, loc)
            body.append(Op(counter, operator.add, (counter, step), loc=loc))
            self._assign_operand(sc, node.target, item, body, loc)
            self._loop_body(sc, labels, node.body, body)
            return [], Const(True), body, labels
        test_body, test, body, labels = self._loop_region(sc, [node] + node.body, out, lower)
        out.append(While(test_body, test, body, loc=loc, label=labels[1]))
        return False

    def _count_plan(self, sc, call, out, loc):
        """The plan ``("count", start, step)`` of a count read by a zip with a sequence:
        its item at position k is ``start + k * step``, exact for ints only."""
        start, step = self._count_args(sc, call, out, loc)
        if not all(isinstance(v, Const) and type(v.value) is int for v in (start, step)):
            raise _refuse("itertools.count() of values other than int constants read by "
                          "a zip or an enumerate (its floats add up step by step)", loc)
        return (COUNT, start, step)

    def _islice_count_plan(self, sc, call, out, loc):
        """``islice(count(a, s), [i,] n[, j])`` with ``i``, ``j`` int constants, as
        the plan ``("range", a + i*s, a + n*s, s*j)`` (a count plan if ``n`` is None).
        A negative ``n`` raises ValueError when the loop starts, as islice does.
        None where islice has keywords or star-arguments."""
        if call.keywords or not 2 <= len(call.args) <= 4 or \
                any(isinstance(a, ast.Starred) for a in call.args):
            return None
        _, a, s = self._count_plan(sc, call.args[0], out, loc)
        bounds = [self._val(sc, b, out) for b in call.args[1:]]
        first, stop, every = ([Const(0)] + bounds + [Const(1)])[:3] \
            if len(bounds) == 1 else (bounds + [Const(1)])[:3]
        if first == Const(None):
            first = Const(0)
        if every == Const(None):
            every = Const(1)
        if not (isinstance(first, Const) and type(first.value) is int and first.value >= 0
                and isinstance(every, Const) and type(every.value) is int and
                every.value > 0):
            raise _refuse("itertools.islice() of itertools.count() with a start or step "
                          "other than a non-negative int constant", loc)
        if s.value == 0:
            raise _refuse("itertools.islice() of itertools.count() with step 0", loc)
        lo = Const(a.value + first.value * s.value)
        step = Const(s.value * every.value)
        if stop == Const(None):
            return (COUNT, lo, step)
        if isinstance(stop, Const):
            if type(stop.value) is not int or stop.value < 0:
                raise errors.StaticValueError(
                    "the stop of itertools.islice() must be None or an int >= 0, not "
                    f"{stop.value!r}", loc=loc)
            return ("range", lo, Const(a.value + stop.value * s.value), step)
        stop = self._snapshot(stop, out, loc)
        bad = self._emit_control(out, operator.lt, (stop, Const(0)), loc)
        out.append(If(bad, [Op(None, guards.raise_error, (
            Const(ValueError), Const("Stop argument for islice() must be None or an "
                                     "integer: 0 <= x <= sys.maxsize.")), loc=loc)],
            [], loc=loc))
        # up to the stop, a count's items are those of the range to a + n*s
        scaled = self._emit(out, operator.mul, (stop, s), None, loc)
        hi = self._emit(out, operator.add, (Const(a.value), scaled), None, loc)
        return ("range", lo, hi, step)

    def _counted_plan(self, sc, call, fn, out, loc):
        """The plan of ``count(...)`` or ``islice(count(...), ...)``, else None."""
        if fn is itertools.count:
            return self._count_plan(sc, call, out, loc)
        if fn is itertools.islice and call.args and isinstance(call.args[0], ast.Call) and \
                self._static_callee(sc, call.args[0].func, out) is itertools.count:
            return self._islice_count_plan(sc, call, out, loc)
        return None


def endless(plan):
    """Whether the loop over ``plan`` has no end of its own: a count, alone or under
    enumerate, or a zip of counts only."""
    if plan[0] == COUNT:
        return True
    if plan[0] in ("enumerate", "reversed"):
        return endless(plan[1])
    if plan[0] == "zip":
        return all(endless(p) for p in plan[1])
    return False


def check_bounded(plan, loc):
    """Refuse a loop over ``plan`` that only a break could end, other than a bare count
    (`CountLowering._for_count`), and a reversed count, before anything runs."""
    if endless(plan):
        raise _refuse("a loop over itertools.count() that no sequence bounds", loc)
    if plan[0] == "reversed" and _has_count(plan[1]):
        raise errors.StaticValueError("reversed() of itertools.count() (an endless "
                                      "iterator has no last item)", loc=loc)
    if plan[0] == "zip" and len(plan) > 2 and any(_has_count(p) for p in plan[1]):
        raise _refuse("zip(strict=True) of itertools.count() (a count is longer than "
                      "any sequence: Python raises ValueError)", loc)
    for p in (plan[1] if plan[0] == "zip" else [plan[1]] if plan[0] in
              ("enumerate", "reversed") else []):
        check_bounded_inner(p, loc)


def check_bounded_inner(plan, loc):
    if plan[0] in ("enumerate", "reversed", "zip"):
        check_bounded(plan, loc)


def _has_count(plan):
    if plan[0] == COUNT:
        return True
    if plan[0] in ("enumerate", "reversed"):
        return _has_count(plan[1])
    if plan[0] == "zip":
        return any(_has_count(p) for p in plan[1])
    return False


def check_finite(endless, args, loc):
    """Refuse reading to its end one of ``args`` that holds a count or a cycle
    (``endless``: operand -> the function that made it): list(zip(count(), xs)) is
    read by zip, not this."""
    for a in args:
        made = endless.get(a) if isinstance(a, str) else None
        if made is not None:
            raise _refuse(f"reading itertools.{made.__name__}() to its end (it never ends: "
                          "Python would fill the memory)", loc)
