"""The loops of a ``backend="jax"`` program, printed so that they may run as ``lax``
loops (revsrc/backends/jax/loops.py runs them; revsrc/backends/jax/printer.py prints
everything else).

A loop's body is printed twice: once as a nested function of the values it assigns
(its carry) that a lax loop may call, and once as Python's own loop, which runs while
the loop's test, trip count or break flag is concrete (JAX's trace unrolls it) and
hands over to the lax loop as soon as one is traced. Which forms a loop gets is told by
what its body does: a forward loop saves, an adjoint's loop restores what its forward
loop saved, and a loop that does both stays Python's. A forward loop and its adjoint's
share a number (their line and depth), so the adjoint finds the rows its forward lax
loop left on the stacks.
"""
from __future__ import annotations

from ...core import ir
from ...core.ir import Const, If, Pop, Push
from .. import printing
from ..printing import stack_name
from .load import require


class LoopPrinter(printing.Printer):
    """The printer base with ``while`` and ``for`` printed for lax (`print_while`,
    `print_for`). ``line_locs`` maps each printed line to (what, the user's Loc), and
    ``loop_locs`` each loop number to its Loc; ``runtime_ns`` is the namespace printed
    as ``_jaxgen`` (revsrc/backends/jax/printer.py's `_runtime_ns`)."""

    def __init__(self, program, rename=None, runtime_ns=None):
        super().__init__(program, rename)
        self.J = require()
        self.runtime_ns = runtime_ns
        self.line_locs = {}
        self._depth = 0          # loops around the statement being printed
        self._lax_depth = 0      # those of them that may run as lax loops
        self._sites = {}         # (file, line, col, depth) -> loop number
        self.loop_locs = {}      # loop number -> the user's Loc
        self._site_kind = {}     # loop number -> "while" for a while loop with a lax form

    def _mark(self, what, loc):
        if loc is not None:
            self.line_locs[len(self.lines)] = (what, loc)

    def _nested(self, print_loop, *args):
        """``print_loop(*args)`` one loop deeper."""
        lax_form = int(print_loop != self._python_for)
        self._depth += 1
        self._lax_depth += lax_form
        try:
            print_loop(*args)
        finally:
            self._depth -= 1
            self._lax_depth -= lax_form

    def print_while(self, s, indent, reverse):
        if not reverse:
            self.comment_for(s.loc, indent)
        self._nested(self._while, s, indent, reverse)

    def print_for(self, s, indent, reverse):
        back = self._restores(s, reverse)
        if back is False and _own_break(s.body) is not None:
            if not reverse:
                self.comment_for(s.loc, indent)
            self._nested(self._for_break, s, indent, reverse)
        elif back is not None and self._rollable(s):
            if not reverse:
                self.comment_for(s.loc, indent)
            self._nested(self._for, s, indent, reverse, back)
        else:
            self._nested(self._python_for, s, indent, reverse)

    def _python_for(self, s, indent, reverse):
        """Python's own ``for`` (the trace unrolls it)."""
        if not reverse:
            self.comment_for(s.loc, indent)
        self._mark("for", s.loc)
        super().print_for(s, indent, reverse)

    def _site(self, s):
        """A loop's number, shared by its forward loop and its adjoint's (the same
        line and the same depth of loops): its `Rows` carry it."""
        key = self._site_key(s, self._depth)
        site = self._sites.get(key)
        if site is None:
            site = self._sites[key] = len(self._sites) + 1
        if s.loc is not None:
            self.loop_locs.setdefault(site, s.loc)
        return site

    def _site_key(self, s, depth):
        return (getattr(s.loc, "filename", None), getattr(s.loc, "lineno", None),
                getattr(s.loc, "col", None), depth)

    def _carry(self, stmts, without=()):
        """The variables ``stmts`` assign, sorted: what a lax loop carries."""
        return sorted({self.name(v) for t in ir.walk(stmts) for v in ir.writes(t)}
                      - {self.name(v) for v in without})

    def _stacks_of(self, stmts):
        return [stack_name(st) for st in printing.stacks(stmts)]

    def _restores(self, s, reverse):
        """Whether the ``for`` ``s`` is an adjoint's loop (it restores what a forward
        loop saved), False for a forward loop, None for a loop that does both (printed as
        Python's loop). Told by what its body does, not by the sweep it is printed in: a
        forward-mode program over a gradient (hessian) has the adjoint's loops in its
        one sweep. A loop that neither saves nor restores is an adjoint's in the reverse
        sweep, or where it has the line and depth of a lax while loop printed before."""
        inside = list(ir.walk(s.body))
        saves = any(isinstance(t, Push) for t in inside)
        restores = any(isinstance(t, Pop) for t in inside)
        if saves and restores:
            return None
        if saves or restores:
            return restores
        site = self._sites.get(self._site_key(s, self._depth + 1))   # its depth inside
        return reverse or (site is not None and self._site_kind.get(site) == "while")

    def _rollable(self, s):
        """Whether a ``for`` may run as a lax loop: a trip count not known to be short
        and no ``break`` of its own."""
        bounds = (s.start, s.stop, s.step)
        if all(isinstance(b, Const) for b in bounds):
            if not all(type(b.value) is int for b in bounds) or s.step.value == 0 or \
                    len(range(*(b.value for b in bounds))) < self.J.loops.ROLL_AT:
                return False
        return _own_break(s.body) is None

    def _def(self, name, params, indent):
        self.lines.append(f"{indent}def {name}({', '.join(params)}):")

    def _loop_call(self, out, call, carry, indent, loc, what):
        self.refs["_jaxloops"] = self.J.loops
        self.refs["_jaxgen"] = self.runtime_ns
        self._mark(what, loc)
        self.lines.append(f"{indent}{out} = {call}")
        if carry:
            self.lines.append(f"{indent}if {out} is not None:")
            self.lines.append(f"{indent}    {', '.join(carry)}{',' if len(carry) == 1 else ''}"
                              f" = {out}")
            self.lines.append(f"{indent}else:")
        else:
            self.lines.append(f"{indent}if {out} is None:")

    def _while(self, s, indent, reverse):
        """``while``: its test's statements once, then Python's loop, which hands over
        to a lax.while_loop of a function running the body and the test's statements
        (`loops.while_loop`) as soon as its test (or its break flag) is traced."""
        site = self._site(s)
        body, stop = s.body, _own_break(s.body)
        if stop is not None:
            body = body[:-1]
        stmts = body + s.test_body
        self.last_comment = None
        for t in s.test_body:
            self.stmt(t, indent, reverse)
        lax = (isinstance(s.test, str) or (s.test == Const(True) and stop is not None)) \
            and not any(isinstance(t, Pop) for t in ir.walk(stmts))
        if not lax:
            self._mark("while", s.loc)
            self.lines.append(f"{indent}while {self.operand(s.test)}:")
            self.last_comment = None
            self.block(s.body + s.test_body, indent + "    ", reverse)
            self.last_comment = None
            return
        self._site_kind[site] = "while"
        carry = self._carry(stmts)
        stacks = self._stacks_of(stmts)
        tested = self._carry(s.test_body)
        name = f"_loop{site}"
        inner = indent + "    "
        self._def(name, carry, indent)
        for st in stacks:
            self.lines.append(f"{inner}{st} = []")
        self.last_comment = None
        for t in body:
            self.stmt(t, inner, reverse)
        if stop is not None and tested:
            self.lines.append(f"{inner}{name}_tested = {_tuple(tested)}")
        self.last_comment = None
        for t in s.test_body:
            self.stmt(t, inner, reverse)
        if stop is not None and tested:
            # after a break, the test's values are those before it (Python's)
            self.lines.append(f"{inner}{', '.join(tested)}, = _jaxgen.select("
                              f"{self.name(stop)}, {name}_tested, {_tuple(tested)})")
        self.lines.append(f"{inner}return {_tuple(carry)}, {_tuple(stacks)}")
        test_at = carry.index(self.name(s.test)) if isinstance(s.test, str) else None
        stop_at = carry.index(self.name(stop)) if stop is not None else None
        self.refs["_jaxloops"] = self.J.loops
        self.refs["_jaxgen"] = self.runtime_ns
        if stop is not None:
            self._fresh_flag(stop, indent)
        self._mark("while", s.loc)
        self.lines.append(f"{indent}while True:")
        out = f"_out{site}"
        self._mark("while", s.loc)
        self.lines.append(f"{inner}{out} = _jaxloops.while_loop({name}, _jaxgen.grab("
                          f"locals(), {_tuple(map(repr, carry))}), {test_at}, {stop_at}, "
                          f"{_tuple(stacks)}, {site})")
        self.lines.append(f"{inner}if {out} is not None:   # a traced test: lax ran the rest")
        self.lines.append(f"{inner}    {', '.join(carry)}, = {out}")
        self.lines.append(f"{inner}    break")
        if isinstance(s.test, str):
            self.lines.append(f"{inner}if not {self.operand(s.test)}:")
            self.lines.append(f"{inner}    break")
        self.last_comment = None
        for t in body:
            self.stmt(t, inner, reverse)
        if stop is not None:
            self.lines.append(f"{inner}if _jaxloops.stopped({self.name(stop)}):")
            self.lines.append(f"{inner}    break")
        self.last_comment = None
        for t in s.test_body:
            self.stmt(t, inner, reverse)
        self.last_comment = None

    def _for(self, s, indent, reverse, back):
        """``for`` over a range, which may be long: a function of one iteration, run
        by lax.scan if its trip count is large and its body takes a traced loop
        variable (`loops.for_loop`), or, for an adjoint's loop (``back``), by a lax
        loop where its forward loop was one (`loops.reverse_loop`,
        `loops.reverse_while`); else Python's loop."""
        site = self._site(s)
        var = self.name(s.var)
        carry = self._carry(s.body, without=(s.var,))
        stacks = self._stacks_of(s.body)
        bounds = ", ".join(self.operand(b) for b in (s.start, s.stop, s.step))
        grab = f"_jaxgen.grab(locals(), {_tuple(map(repr, carry))})"
        inner = indent + "    "
        name = f"_loop{site}_adjoint" if back else f"_loop{site}"
        self._def(name, [var] + (stacks if back else []) + carry, indent)
        if not back:
            for st in stacks:
                self.lines.append(f"{inner}{st} = []")
        self.last_comment = None
        self.block(s.body, inner, reverse)
        counted = _counted(s) if back and self._site_kind.get(site) == "while" else None
        if counted is not None:
            # the adjoint of a loop with a traced trip count (a while, a for with a
            # traced break): lax undoes the iterations lax ran, then Python those that
            # ran in Python before them
            self.lines.append(f"{inner}return {_tuple(carry)}")
            out, bound = f"_out{site}", self.name(counted)
            self.refs["_jaxloops"] = self.J.loops
            self._mark("for", s.loc)
            self.lines.append(f"{indent}{out} = _jaxloops.reverse_while({name}, {bounds}, "
                              f"{_tuple(stacks)}, {grab}, {site})")
            self.lines.append(f"{indent}if {out} is not None:")
            self.lines.append(f"{indent}    {', '.join(carry + [bound])}, = {out}")
            self.last_comment = None
            self._python_for(s, indent, reverse)
            return
        if back:
            self.lines.append(f"{inner}return {_tuple(carry)}")
            call = (f"_jaxloops.reverse_loop({name}, {bounds}, {_tuple(stacks)}, {grab}, "
                    f"{site})")
            self._loop_call(f"_out{site}", call, carry, indent, s.loc, "for")
        else:
            self.lines.append(f"{inner}return {_tuple(carry)}, {_tuple(stacks)}")
            call = f"_jaxloops.for_loop({name}, {bounds}, {grab}, {_tuple(stacks)}, {site})"
            self._loop_call(f"_out{site}", call, carry + [var], indent, s.loc, "for")
        self.last_comment = None
        self._python_for(s, inner, reverse)

    def _fresh_flag(self, flag, indent):
        """A loop's break flag is down as it starts: a run of the loop before this one
        (in an outer loop) may have left it up, traced, and the lax loop would take
        that for this run's break."""
        self.lines.append(f"{indent}{self.name(flag)} = False")

    def _for_break(self, s, indent, reverse):
        """A forward ``for`` whose body ends with ``if flag: break``: Python's loop,
        which hands the rest of the range over to one lax.while_loop of a function
        running the body (`loops.for_break`) as soon as the flag is traced. Its
        adjoint is a while loop's (`_for`, `loops.reverse_while`)."""
        site = self._site(s)
        self._site_kind[site] = "while"
        var = self.name(s.var)
        flag = self.name(_own_break(s.body))
        body = s.body[:-1]
        carry = self._carry(body, without=(s.var,))
        stacks = self._stacks_of(body)
        name = f"_loop{site}"
        inner = indent + "    "
        self._def(name, [var] + carry, indent)
        for st in stacks:
            self.lines.append(f"{inner}{st} = []")
        self.last_comment = None
        self.block(body, inner, reverse)
        self.lines.append(f"{inner}return {_tuple(carry)}, {_tuple(stacks)}")
        self.refs["_jaxloops"] = self.J.loops
        self.refs["_jaxgen"] = self.runtime_ns
        bounds = ", ".join(self.operand(b) for b in (s.start, s.stop, s.step))
        out = f"_out{site}"
        self._fresh_flag(_own_break(s.body), indent)
        self._mark("for", s.loc)
        rng = printing.range_text(*(self.operand(b) for b in (s.start, s.stop, s.step)))
        self.lines.append(f"{indent}for {var} in {rng}:")
        self._mark("for", s.loc)
        self.lines.append(f"{inner}{out} = _jaxloops.for_break({name}, {var}, {bounds}, "
                          f"_jaxgen.grab(locals(), {_tuple(map(repr, carry))}), "
                          f"{carry.index(flag)}, {_tuple(stacks)}, {site})")
        self.lines.append(f"{inner}if {out} is not None:   # a traced break: lax ran the rest")
        self.lines.append(f"{inner}    {', '.join(carry + [var])}, = {out}")
        self.lines.append(f"{inner}    break")
        self.last_comment = None
        for t in body:
            self.stmt(t, inner, reverse)
        self.lines.append(f"{inner}if _jaxloops.stopped({flag}):")
        self.lines.append(f"{inner}    break")
        self.last_comment = None


def _tuple(items):
    items = list(items)
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _own_break(body):
    """The flag of a loop body's own ``if flag: break`` (its last statement), or None."""
    last = body[-1] if body else None
    if isinstance(last, If) and not last.orelse and isinstance(last.test, str) and \
            any(isinstance(t, ir.Break) for t in last.body):
        return last.test
    return None


def _counted(s):
    """The traced bound of an adjoint's loop over a traced trip count: ``n`` of
    ``for k in range(n)``, or ``m`` of ``for k in range(m, -1, -1)`` (the form whose
    body needs the forward loop variable back); or None."""
    if s.start == Const(0) and s.step == Const(1) and isinstance(s.stop, str):
        return s.stop
    if isinstance(s.start, str) and s.stop == Const(-1) and s.step == Const(-1):
        return s.start
    return None
