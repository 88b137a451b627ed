"""``backend="jax"``: the program revsrc writes, printed against jax.numpy and
compiled with ``jax.jit``.

The program is the one the other backends run (the forward sweep and the adjoint of
revsrc/reverse.py, or the forward-mode program of revsrc/jvp.py), printed by
`JnpPrinter`:

- each primitive as its jax.numpy twin (its record's ``jax`` field, else the jnp
  function of the NumPy name: `twin_name`), each runtime helper as its twin in
  revsrc/jax_helpers.py;
- the saving stacks as Python lists, item assignment as ``x = x.at[i].set(v)``;
- module globals and closure cells the program reads as parameters, read at each call
  (a rebound global is seen, as on the other backends).

``jax.jit`` traces the printed function once per shapes, dtypes and static values.
Control flow that depends only on shapes, ints and flags runs while tracing: loops
unroll, branches are taken, and each saved value is one node of the XLA graph. Floats
and arrays are traced, so a branch, a ``while`` or a ``range`` on a value computed from
them cannot be taken while tracing: that is refused with E602, naming the user's line
(`_refusal`). Arguments that are not floats or arrays (ints, bools, strings, None,
objects) are static: a new value compiles again, as with ``jax.jit``'s
``static_argnums``.

Values follow the arguments' dtypes: 64-bit mode is on while a derivative traces and
runs (``jax.enable_x64``), so float64 inputs are differentiated in float64 whether or
not the process enabled it.
"""
from __future__ import annotations

import builtins
import linecache
import math
import numbers
import sys
import types

import numpy as np

from .. import python as emit
from ... import errors, primitives, runtime
from ...core import ir, kinds
from ...core.ir import Const, For, If, Op, Pop, Push, SetItem, While

_jax = None   # the modules, once imported (JAX is optional: the `jax` extra)


def require():
    """Import JAX, or refuse with the extra to install."""
    global _jax
    if _jax is not None:
        return _jax
    try:
        import jax
        import jax.numpy as jnp
        import jax.scipy.special  # noqa: F401
        import jax.scipy.stats  # noqa: F401
        from jax import lax
    except ImportError as exc:
        raise errors.JaxUnavailable(
            f"backend='jax' needs JAX, which is not installed ({exc})",
            hint="pip install 'revsrc[jax]' (or pip install jax)") from None
    from . import twins as jax_helpers
    from . import loops as jax_loops
    _jax = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, helpers=jax_helpers,
                                 loops=jax_loops)
    _TRACED_TYPES.add(type(jnp.zeros(())))
    _ARRAY_TYPE[0] = type(jnp.zeros(()))
    jax.tree_util.register_pytree_node(_Unset, lambda u: ((), None), lambda aux, c: _UNSET)
    return _jax


# ----- Which jnp function a primitive lowers to -----

# math's names where NumPy's differ (primitives.xp_math's renames, reversed)
_MATH_AS_NUMPY = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
                  "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
                  "fabs": "abs", "pow": "power"}
_MATH_SPECIAL = {"erf": "jax.scipy.special.erf", "erfc": "jax.scipy.special.erfc",
                 "log": "_jaxgen.math_log", "floor": "_jaxgen.math_floor",
                 "ceil": "_jaxgen.math_ceil", "trunc": "_jaxgen.math_trunc"}
_BUILTINS = {"float": "_jaxgen.to_float", "print": "_jaxgen.show"}


def twin_name(fn):
    """The dotted name of ``fn``'s jax.numpy twin, or None if it has none: its
    record's ``jax`` field, else by family."""
    J = require()
    given = primitives.jax_twin(fn)
    if given is not None:
        return given
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str):
        return None
    if getattr(builtins, name, None) is fn:
        return _BUILTINS.get(name, name)
    if getattr(math, name, None) is fn:
        if name in _MATH_SPECIAL:
            return _MATH_SPECIAL[name]
        npname = _MATH_AS_NUMPY.get(name, name)
        return f"jnp.{npname}" if hasattr(J.jnp, npname) else None
    for np_mod, jnp_mod, prefix in ((np, J.jnp, "jnp"), (np.linalg, J.jnp.linalg, "jnp.linalg"),
                                    (np.fft, J.jnp.fft, "jnp.fft")):
        if getattr(np_mod, name, None) is fn:
            return f"{prefix}.{name}" if hasattr(jnp_mod, name) else None
    mod = getattr(fn, "__module__", None) or ""
    special = sys.modules.get("scipy.special")
    if special is not None and getattr(special, name, None) is fn:
        return f"jax.scipy.special.{name}" if hasattr(J.jax.scipy.special, name) else None
    if runtime.is_helper(fn):
        ns, twin = J.helpers.twin_of(fn)
        if twin is not None:
            return f"_{mod.split('.')[-1].lstrip('_')}_jnp.{name}"
    return None


# ----- Printing -----

class JnpPrinter(emit._Printer):
    """emit's printer, with jnp twins, list stacks and functional item assignment.
    ``line_locs`` maps each printed line to (what, the user's Loc)."""

    def __init__(self, program):
        super().__init__(program)
        self.line_locs = {}
        self.J = require()
        self._either = 0
        self._depth = 0          # loops around the statement being printed
        self._sites = {}         # (file, line, col, depth) -> loop number
        self.loop_locs = {}      # loop number -> the user's Loc
        self._site_kind = {}     # loop number -> "while" for a while loop with a lax form
        # variables the reverse pass starts as None only so they can be saved before
        # their first assignment: their None is no value of the program
        self.placeholders = {s.target for s in program.body
                             if isinstance(s, Op) and s.fn is ir.copy
                             and s.args == (Const(None),)}

    def fn_name(self, fn):
        if fn is ir.truth:
            return "bool"
        dotted = twin_name(fn)
        if dotted is None:
            raise _NoTwin(fn)
        head = dotted.split(".")[0]
        if head.endswith("_jnp"):  # a revsrc module's twin, passed into the factory
            ns = self.J.helpers.twin_module(sys.modules[fn.__module__])
            self.refs[head] = ns
            self.ref_of[id(ns)] = head
        return dotted

    def expr(self, op):
        first = op.args[0] if op.args else None
        if isinstance(first, str) and self.program.kinds.get(first) in (kinds.LIST, kinds.TUPLE) \
                and primitives.family_of(op.fn) == primitives.NUMPY:
            name = getattr(op.fn, "__name__", "")
            if name not in self.J.helpers.SEQUENCES:
                # jnp takes arrays where NumPy also takes the list they stand for
                old = self.rename.get(first)
                self.rename[first] = f"jnp.asarray({self.name(first)})"
                try:
                    return self.expr_of(op)
                finally:
                    if old is None:
                        del self.rename[first]
                    else:
                        self.rename[first] = old
        return self.expr_of(op)

    def expr_of(self, op):
        try:
            return super().expr(op)
        except _NoTwin as exc:
            raise errors.JaxNotLowered(
                f"backend='jax' has no jax.numpy lowering for "
                f"{getattr(exc.fn, '__qualname__', exc.fn)!r}", loc=op.loc,
                hint="give its record a jnp twin (primitives.define(..., jax=...)), or "
                     "use backend=None") from None

    def _elif_arm(self, stmts):
        return None  # every branch its own `if`, so each line maps to one statement

    def _mark(self, what, loc):
        if loc is not None:
            self.line_locs[len(self.lines)] = (what, loc)

    def _nested(self, print_loop, *args):
        """``print_loop(*args)`` one loop deeper."""
        self._depth += 1
        try:
            print_loop(*args)
        finally:
            self._depth -= 1

    def stmt(self, s, indent, reverse):
        if isinstance(s, Push):
            self.lines.append(f"{indent}{emit._stack_name(s.stack)}.append("
                              f"{self.operand(s.value)})")
            return
        if isinstance(s, Pop):
            self.lines.append(f"{indent}{self.name(s.target)} = "
                              f"{emit._stack_name(s.stack)}.pop()")
            return
        if isinstance(s, SetItem):
            self.comment_for(s.loc, indent)
            self._mark("op", s.loc)
            target = self.name(s.target)
            value = self.operand(s.value)
            index = self.index(s.index)
            if self.program.kinds.get(s.target) == kinds.ARRAY:
                self.lines.append(f"{indent}{target} = {target}.at[{index}].set({value})")
            else:  # a list, or a kind known only at run time
                self.lines.append(f"{indent}{target} = _jaxgen.at_set({target}, "
                                  f"{index}, {value})")
                self.refs["_jaxgen"] = _RUNTIME_NS
            return
        if isinstance(s, While):
            if not reverse:
                self.comment_for(s.loc, indent)
            self._nested(self._while, s, indent, reverse)
            return
        back = self._restores(s, reverse) if isinstance(s, For) else None
        if isinstance(s, For) and back is False and _own_break(s.body) is not None:
            if not reverse:
                self.comment_for(s.loc, indent)
            self._nested(self._for_break, s, indent, reverse)
            return
        if isinstance(s, For) and back is not None and self._rollable(s):
            if not reverse:
                self.comment_for(s.loc, indent)
            self._nested(self._for, s, indent, reverse, back)
            return
        if isinstance(s, For):
            self._nested(self._stmt, s, indent, reverse)
            return
        self._stmt(s, indent, reverse)

    def _stmt(self, s, indent, reverse):
        if isinstance(s, Op):
            if s.loc is not None and not reverse:
                self.comment_for(s.loc, indent)
            self._mark("op", s.loc)
        elif isinstance(s, If):
            if not reverse:
                self.comment_for(s.loc, indent)
            if _selectable(s, self.program.kinds):
                self._either_branch(s, indent, reverse)
                return
            self._mark("if", s.loc)
        elif isinstance(s, For):
            if not reverse:
                self.comment_for(s.loc, indent)
            self._mark("for", s.loc)
        super().stmt(s, indent, reverse)


    # ----- loops as lax loops (revsrc/jax_loops.py) -----

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
        return [emit._stack_name(st) for st in emit._stacks(stmts)]

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
        self.refs["_jaxgen"] = _RUNTIME_NS
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
        (`jax_loops.while_loop`) as soon as its test (or its break flag) is traced."""
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
        self.refs["_jaxgen"] = _RUNTIME_NS
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
        variable (`jax_loops.for_loop`), or, for an adjoint's loop (``back``), by a lax
        loop where its forward loop was one (`jax_loops.reverse_loop`,
        `jax_loops.reverse_while`); else Python's loop."""
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
            self._stmt(s, indent, reverse)
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
        self._stmt(s, inner, reverse)

    def _fresh_flag(self, flag, indent):
        """A loop's break flag is down as it starts: a run of the loop before this one
        (in an outer loop) may have left it up, traced, and the lax loop would take
        that for this run's break."""
        self.lines.append(f"{indent}{self.name(flag)} = False")

    def _for_break(self, s, indent, reverse):
        """A forward ``for`` whose body ends with ``if flag: break``: Python's loop,
        which hands the rest of the range over to one lax.while_loop of a function
        running the body (`jax_loops.for_break`) as soon as the flag is traced. Its
        adjoint is a while loop's (`_for`, `jax_loops.reverse_while`)."""
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
        self.refs["_jaxgen"] = _RUNTIME_NS
        bounds = ", ".join(self.operand(b) for b in (s.start, s.stop, s.step))
        out = f"_out{site}"
        self._fresh_flag(_own_break(s.body), indent)
        self._mark("for", s.loc)
        rng = _range(*(self.operand(b) for b in (s.start, s.stop, s.step)))
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

    def _either_branch(self, s, indent, reverse):
        """An ``if`` whose test may be a traced value: on a concrete test, Python's own
        ``if``; on a traced one, both branches run, each from the values before the
        ``if``, and every variable they assign is selected by the test with jnp.where
        (the select form of lax.cond). What the branches save is kept, the first
        branch's below the second's, and the branch flag the forward sweep saves is
        the selected one, so the reverse sweep's ``if`` on it is traced too: it runs
        the second branch's adjoint first (its saves are on top), then the first's, and
        selects. Values of shapes chosen by the branch are refused (E602)."""
        self._either += 1
        tag = f"_jx{self._either}"
        test = self.operand(s.test)
        body, orelse, flag = s.body, s.orelse, None
        # an `if` of a reverse sweep restores (pops) what its forward `if` saved: the
        # second arm's saves are on top, so its adjoint runs first
        restores = any(isinstance(t, Pop) for t in ir.walk(s.body + s.orelse))
        if not restores and _flag_pushes(s):
            body, orelse, flag = s.body[:-1], s.orelse[:-1], (s.body[-1], s.orelse[-1])
        names = sorted({self.name(v) for t in ir.walk(body + orelse) for v in ir.writes(t)})
        spare = [n for n in names if n in {self.name(v) for v in self.placeholders}]
        wanted = "(" + "".join(f"{n!r}, " for n in names) + ")"
        if spare:
            wanted += ", (" + "".join(f"{n!r}, " for n in spare) + ")"
        unpack = ", ".join(names) + ("," if len(names) == 1 else "")
        first, second = (orelse, body) if restores else (body, orelse)
        inner = indent + "    "
        self._mark("if", s.loc)
        self.lines.append(f"{indent}if _jaxgen.traced({test}):")
        self.refs["_jaxgen"] = _RUNTIME_NS
        if test in names:
            # an arm assigns the test itself (a loop's skip flag, set by a break in
            # the arm): the select takes the test as it was before the arms
            self.lines.append(f"{inner}{tag}_test = {test}")
            test = f"{tag}_test"
        if names:
            self.lines.append(f"{inner}{tag}_before = _jaxgen.grab(locals(), {wanted})")
        self.last_comment = None
        self.block(first, inner, reverse)
        if names:
            self.lines.append(f"{inner}{tag}_first = _jaxgen.grab(locals(), {wanted})")
            self.lines.append(f"{inner}{unpack} = {tag}_before")
        self.last_comment = None
        self.block(second, inner, reverse)
        if names:
            pair = (f"{tag}_first, _jaxgen.grab(locals(), {wanted})" if not restores else
                    f"_jaxgen.grab(locals(), {wanted}), {tag}_first")
            self._mark("if", s.loc)
            self.lines.append(f"{inner}{unpack} = _jaxgen.select({test}, {pair})")
        if flag is not None:
            then_push, else_push = flag
            self.lines.append(f"{inner}{emit._stack_name(then_push.stack)}.append("
                              f"_jaxgen.flag({test}, {self.operand(then_push.value)}, "
                              f"{self.operand(else_push.value)}))")
        self.lines.append(f"{indent}else:")
        self.last_comment = None
        self._mark("if", s.loc)
        emit._Printer.stmt(self, s, inner, reverse)


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


def _range(start, stop, step):
    """``range(...)`` as Python would write it (emit's spelling)."""
    if step == "1":
        return f"range({stop})" if start == "0" else f"range({start}, {stop})"
    return f"range({start}, {stop}, {step})"


def _counted(s):
    """The traced bound of an adjoint's loop over a traced trip count: ``n`` of
    ``for k in range(n)``, or ``m`` of ``for k in range(m, -1, -1)`` (the form whose
    body needs the forward loop variable back); or None."""
    if s.start == Const(0) and s.step == Const(1) and isinstance(s.stop, str):
        return s.stop
    if isinstance(s.start, str) and s.stop == Const(-1) and s.step == Const(-1):
        return s.start
    return None


def _flag_pushes(s):
    """Whether each branch of ``s`` ends by saving a constant, the branch taken."""
    ends = (s.body[-1] if s.body else None, s.orelse[-1] if s.orelse else None)
    return all(isinstance(e, Push) and isinstance(e.value, Const) for e in ends) and \
        ends[0].stack == ends[1].stack


# statements that must not run for a branch not taken: they act outside the values
_EFFECTS = None


def _selectable(s, program_kinds):
    """Whether both branches of ``s`` may run, their results selected by its test: no
    exits, no data-dependent loops, no raise, assert, print or errstate inside; its
    branches save values or restore them, not both."""
    global _EFFECTS
    if _EFFECTS is None:
        from ...runtime import guards
        _EFFECTS = {guards.raise_error, guards.raise_error_from, guards.fail_assert,
                    guards.errstate_enter, guards.errstate_exit, ir.check_assert, print}
    inside = list(ir.walk(s.body + s.orelse))
    if any(isinstance(t, Push) for t in inside) and any(isinstance(t, Pop) for t in inside):
        return False        # saves and restores both: no order of the arms serves
    for t in inside:
        if isinstance(t, (While, ir.Break, ir.Leave)):
            return False
        if isinstance(t, SetItem) and program_kinds.get(t.target) != kinds.ARRAY:
            return False    # a list changed in place: both arms would change it

        if isinstance(t, Op) and t.target is None and t.fn in _EFFECTS:
            return False
    return True


class _Unset:
    """A variable not assigned before a branch that assigns it. A pytree with no
    leaves, so a lax loop's first trace (`jax_loops._probe`) can pass it through."""
    __slots__ = ()

    def __repr__(self):
        return "<unset>"


_UNSET = _Unset()


class _NoTwin(Exception):
    def __init__(self, fn):
        self.fn = fn


def _runtime_ns():
    """Small functions the printer itself refers to (float(), math.log with a base,
    item assignment on a value of unknown kind)."""
    J = require()
    jnp = J.jnp

    def to_float(x):
        return jnp.asarray(x, dtype=jnp.result_type(float))

    def math_log(x, base=None):
        return jnp.log(x) if base is None else jnp.log(x) / jnp.log(base)

    def math_floor(x):
        return jnp.floor(x).astype(int)

    def math_ceil(x):
        return jnp.ceil(x).astype(int)

    def math_trunc(x):
        return jnp.trunc(x).astype(int)

    def at_set(target, index, value):
        """``target.at[index].set(value)`` for an array, ``target[index] = value`` for a
        list (the kind of a variable that starts as None is known only here)."""
        if isinstance(target, list):
            target[index] = value
            return target
        return jnp.asarray(target).at[index].set(value)

    def show(*values, **options):
        """``print(...)`` when the compiled program runs, with that call's values (a
        plain print would run once, while tracing, and show tracers)."""
        traced = [i for i, v in enumerate(values)
                  if isinstance(v, (J.jax.Array, J.helpers.Tracer))]

        def emit(*arrays):
            shown = list(values)
            for i, a in zip(traced, arrays):
                shown[i] = a[()] if np.ndim(a) == 0 else a
            print(*shown, **options)
        J.jax.debug.callback(emit, *[values[i] for i in traced], ordered=True)

    Tracer = J.helpers.Tracer
    unset = _UNSET

    def traced(test):
        """Whether an ``if`` test is a traced value (so both branches run)."""
        return isinstance(test, Tracer)

    def grab(found, wanted, placeholders=()):
        """The values of the variables ``wanted`` in ``found`` (locals()); `_Unset` for
        one not assigned yet, or still holding the None of a placeholder."""
        return tuple(unset if n in placeholders and found.get(n) is None
                     else found.get(n, unset) for n in wanted)

    def flag(test, then, other):
        """The branch flag a traced ``if`` saves: ``then`` where the test holds."""
        return jnp.where(jnp.asarray(test) != 0, then, other)

    def _pick(test, a, b):
        if a is b or b is unset:
            return a
        if a is unset:
            return b
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and \
                type(a) is type(b) and len(a) == len(b):
            return type(a)(_pick(test, x, y) for x, y in zip(a, b))
        if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
            return {k: _pick(test, a[k], b[k]) for k in a}
        numeric = (numbers.Number, np.ndarray, np.generic, J.jax.Array, Tracer)
        if not (isinstance(a, numeric) and isinstance(b, numeric)):
            bool(test)              # not selectable: JAX's error, a refusal (E602)
        sa, sb = jnp.shape(a), jnp.shape(b)
        if sa != sb and sa != () and sb != ():
            bool(test)              # shapes chosen by the branch
        return jnp.where(jnp.asarray(test) != 0, a, b)

    def select(test, then, other):
        return tuple(_pick(test, a, b) for a, b in zip(then, other))

    ns = types.ModuleType("revsrc.jaxgen_runtime")
    for f in (to_float, math_log, math_floor, math_ceil, math_trunc, at_set, show, traced,
              grab, flag, select):
        setattr(ns, f.__name__, f)
    return ns


_RUNTIME_NS = None


def _with_externals(program):
    """``program`` with module globals and closure cells it reads as parameters
    (``_g_<name>``), and for each, a function reading its value at call time."""
    reads = {}    # (kind, id(holder), key) -> (param, getter)
    taken = set(program.params) | {n for s in ir.walk(program.body) for n in ir.writes(s)}

    def param_for(fn, args):
        holder = args[0].value
        key = args[1].value if fn is ir.load_global else None
        ident = (fn is ir.load_global, id(holder), key)
        hit = reads.get(ident)
        if hit is None:
            base = "_g_" + "".join(c if c.isalnum() else "_" for c in
                                    (key if key is not None else "cell"))
            name, k = base, 1
            while name in taken:
                k += 1
                name = f"{base}{k}"
            taken.add(name)
            if fn is ir.load_global:
                getter = (lambda ns, key: lambda: ns[key])(holder, key)
            else:
                getter = (lambda cell: lambda: cell.cell_contents)(holder)
            hit = reads[ident] = (name, getter)
        return hit[0]

    def rewrite(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.fn in (ir.load_global, ir.load_cell):
                out.append(Op(s.target, ir.copy, (param_for(s.fn, s.args),), loc=s.loc))
            else:
                out.append(ir.map_bodies(s, rewrite))
        return out

    body = rewrite(program.body)
    if not reads:
        return program, []
    extra = [name for name, _ in reads.values()]
    prog = ir.Program(program.name, list(program.params) + extra, body, program.outputs,
                      program.kinds, forward_len=program.forward_len, names=program.names)
    return prog, [getter for _, getter in reads.values()]


_PLACEHOLDERS = "saved before their first assignment"


def _unset_placeholders(program):
    """The program with the placeholders of values saved before their first assignment
    (``_t1 = None`` in the NumPy code) starting as `_UNSET`: a lax loop fills those with
    zeros of the loop's shapes, and only a None of the user's own is None there (see
    jax_loops._fill)."""
    def fix(stmts):
        out, held = [], False
        for s in stmts:
            if isinstance(s, ir.Comment) and s.text.startswith(_PLACEHOLDERS):
                held = True
            elif held and isinstance(s, ir.Op) and s.fn is ir.copy and \
                    len(s.args) == 1 and isinstance(s.args[0], ir.Const):
                if s.args[0].value is None:     # (0 and 0.0 start the typed stacks')
                    s = ir.Op(s.target, ir.copy, (ir.Const(_UNSET),), loc=s.loc)
            else:
                held = False
            out.append(ir.map_bodies(s, fix))
        return out
    return ir.Program(program.name, program.params, fix(program.body), program.outputs,
                      program.kinds, forward_len=program.forward_len, names=program.names,
                      deps=program.deps)


def source(program):
    """(source text, references, line -> (what, Loc), loop number -> Loc) of the jnp
    function."""
    global _RUNTIME_NS
    if _RUNTIME_NS is None:
        _RUNTIME_NS = _runtime_ns()
    program = _unset_placeholders(program)
    pr = JnpPrinter(program)
    pr.rename = emit._renumber(program)
    ind = "    "
    pr.lines.append(f"def {program.name}({', '.join(program.params)}):")
    for stack in emit._stacks(program.body):
        pr.lines.append(f"{ind}{emit._stack_name(stack)} = []")
    fwd = program.body[:program.forward_len]
    rev = program.body[program.forward_len:]
    pr.block(fwd, ind) if fwd else None
    pr.last_comment = None
    for s in rev:
        pr.stmt(s, ind, reverse=True)
    outs = ", ".join(pr.operand(o) for o in program.outputs)
    pr.lines.append(f"{ind}return ({outs},)" if len(program.outputs) == 1 else
                    f"{ind}return ({outs})")
    text = "\n".join(pr.lines) + "\n"
    if "_jaxgen." in text:
        pr.refs["_jaxgen"] = _RUNTIME_NS
    return text, pr.refs, pr.line_locs, pr.loop_locs


_counter = [0]


class Compiled:
    """One program printed against jnp: its text, the Python function, and one
    ``jax.jit`` of it per set of static argument positions."""

    def __init__(self, program, post, max_steps=None):
        J = require()
        self.program, self.externals = _with_externals(program)
        self.nparams = len(program.params)
        self.text, refs, self.line_locs, self.loop_locs = source(self.program)
        self.max_steps = J.loops.MAX_STEPS if max_steps is None else int(max_steps)
        self.bounded = {}   # static positions -> the loops that may stop at max_steps
        names = sorted(refs)
        factory = ["def _revsrc_factory(" + ", ".join(["jnp", "jax", "lax", "math", "np"]
                                                       + names) + "):"]
        factory += ["    " + line if line else "" for line in self.text.splitlines()]
        factory.append(f"    return {self.program.name}")
        full = "\n".join(factory) + "\n"
        _counter[0] += 1
        self.filename = f"<revsrc jax {self.program.name} #{_counter[0]}>"
        code = compile(full, self.filename, "exec")
        linecache.cache[self.filename] = (len(full), None, full.splitlines(True), self.filename)
        namespace = {"__builtins__": builtins}
        exec(code, namespace)
        self.fn = namespace["_revsrc_factory"](J.jnp, J.jax, J.lax, math, np,
                                               *(refs[n] for n in names))
        self.post = post
        self.jitted = {}

    def __call__(self, values):
        """Run on the parameters' ``values`` (plus the externals, read now)."""
        J = require()
        if self.externals:
            values = tuple(values) + tuple(get() for get in self.externals)
        static = tuple(i for i, v in enumerate(values)
                       if type(v) not in _TRACED_TYPES and not _traced(v))
        run = self.jitted.get(static)
        if run is None:
            run = self.jitted[static] = self._jit(static)
        if static:
            values = tuple(_Static(v) if i in static and not _hashable(v) else v
                           for i, v in enumerate(values))
        try:
            if J.jax.config.jax_enable_x64:
                out, stopped = run(*values)
            else:
                with J.jax.enable_x64(True):
                    out, stopped = run(*values)
        except Exception as exc:
            self._raise(exc)
        if stopped:
            self._check_bounds(static, stopped)
        return out

    def call_arrays(self, values):
        """`__call__` for values that are all arrays (so none is static): the least
        Python before the jitted call, which is what a caller waits for."""
        run = self.jitted.get(())
        if run is None or self.externals or not _x64():
            return self(values)
        try:
            out, stopped = run(*values)
        except Exception as exc:
            self._raise(exc)
        if stopped:
            self._check_bounds((), stopped)
        return out

    def _raise(self, exc):
        """Raise ``exc`` from a trace of the generated code as the refusal it means."""
        if isinstance(exc, errors.RevsrcError):
            if exc.filename is None:
                raise self._located(exc) from None
            raise exc
        refusal = self._refusal(exc)
        if refusal is None:
            raise exc
        raise refusal from exc

    def _check_bounds(self, static, stopped):
        """E604 if a while loop stopped at ``max_steps`` with its test still true (its
        floats are NaN then): once the program has run, not inside a caller's trace."""
        if any(isinstance(f, require().helpers.Tracer) for f in stopped):
            return          # inside a caller's jax.jit or vmap: the NaNs tell
        for site, flag in zip(self.bounded.get(static, ()), stopped):
            if bool(flag):
                raise errors.JaxStepsExceeded(
                    f"backend='jax': this while loop was still running after "
                    f"max_steps={self.max_steps} iterations, the bound of the values it "
                    "saves for the adjoint; its results are NaN",
                    loc=self.loop_locs.get(site),
                    hint="pass a larger max_steps= to grad/value_and_grad, or use "
                         "backend=None for this function")

    def _jit(self, static):
        J = require()
        fn, post, n = self.fn, self.post, self.nparams
        loops = J.loops

        def traced(*args):
            args = tuple(a.value if isinstance(a, _Static) else a for a in args)
            state = loops.LoopState(self.max_steps)
            loops.states().append(state)
            try:
                out = post(fn(*args), args[:n])
            finally:
                loops.states().pop()
            self.bounded[static] = tuple(site for site, _ in state.overflows)
            return out, tuple(flag for _, flag in state.overflows)
        traced.__name__ = self.program.name
        return J.jax.jit(traced, static_argnums=static)

    def _where(self, tb):
        """(what, Loc) of the innermost line of the generated code in traceback ``tb``."""
        found = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                found = tb.tb_lineno - 2   # the factory's def line, and 0-based
            tb = tb.tb_next
        if found is None:
            return None
        return self.line_locs.get(found, ("op", None))

    def _located(self, exc):
        where = self._where(exc.__traceback__)
        if where is None or where[1] is None:
            return exc
        return type(exc)(exc.message, loc=where[1], hint=exc.hint)

    def _refusal(self, exc):
        """The coded refusal for a trace that stopped at the generated code, or None."""
        J = require()
        jax_errors = (J.jax.errors.ConcretizationTypeError,
                      J.jax.errors.TracerArrayConversionError,
                      J.jax.errors.TracerBoolConversionError,
                      J.jax.errors.TracerIntegerConversionError,
                      J.jax.errors.NonConcreteBooleanIndexError)
        if not isinstance(exc, jax_errors + (AttributeError, NotImplementedError, TypeError,
                                             ValueError)):
            return None
        where = self._where(exc.__traceback__)
        if where is None:
            return None
        what, loc = where
        if what == "if":
            return errors.JaxDataDependent(
                "backend='jax' compiles the derivative with jax.jit, and this is a "
                "branch on a value computed from the differentiated arguments that "
                "cannot run as a select of both arms (it leaves a loop, raises, or "
                "changes a list in place)", loc=loc,
                hint="use backend=None for this function, or write the branch as "
                     "np.where(cond, a, b)")
        if what in ("while", "for"):
            control = "while loop" if what == "while" else "loop"
            return errors.JaxDataDependent(
                f"backend='jax' compiles the derivative with jax.jit, and this "
                f"{control} on a value computed from the differentiated arguments "
                f"cannot run as a lax loop ({type(exc).__name__}: "
                f"{(str(exc).strip().splitlines() or [''])[0][:160]})", loc=loc,
                hint="use backend=None for this function")
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return errors.JaxNotLowered(
            f"backend='jax': this operation has no jax.numpy lowering for these "
            f"values ({type(exc).__name__}: {first[:160]})", loc=loc,
            hint="use backend=None for this function")


class _Static:
    """A static argument that is not hashable (a list of ints, a dict of flags), compared
    and hashed by its contents, so jax.jit traces again when they change."""
    __slots__ = ("value", "_key")

    def __init__(self, value):
        self.value = value
        self._key = _freeze(value)

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, _Static) and type(other.value) is type(self.value) \
            and self._key == other._key


def _freeze(v):
    if isinstance(v, (list, tuple)):
        return (type(v).__name__,) + tuple(_freeze(i) for i in v)
    if isinstance(v, dict):
        return ("dict",) + tuple(sorted((repr(k), _freeze(x)) for k, x in v.items()))
    try:
        hash(v)
        return v
    except TypeError:
        return ("id", id(v))


def _hashable(v):
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _x64():
    return _jax.jax.config.jax_enable_x64


_TRACED_TYPES = {float, np.ndarray}   # and JAX's array type, added by `require`
_ARRAY_TYPE = [None]                   # JAX's array type, set by `require`


def _traced(v):
    """Whether ``v`` is passed to jax.jit as a traced value: floats, complex numbers,
    arrays (NumPy's, JAX's, tracers), and lists, tuples and dicts of them."""
    if isinstance(v, (bool, np.bool_, int, np.integer, str)) or v is None:
        return False
    if isinstance(v, (float, complex, np.floating, np.complexfloating, np.ndarray)):
        return True
    J = require()
    if isinstance(v, J.jax.Array):
        return True
    if isinstance(v, (list, tuple)):
        return len(v) > 0 and all(_traced(i) for i in v)
    if isinstance(v, dict):
        return len(v) > 0 and all(_traced(i) for i in v.values())
    return False


def signature(v):
    """`kinds.signature`, with JAX arrays (and tracers) as arrays of their rank."""
    if type(v) is np.ndarray:     # the common case first: this runs at every call
        return (kinds.ARRAY, v.ndim, v.dtype)
    if type(v) is _ARRAY_TYPE[0]:  # a JAX array: its aval is one attribute read, where
        aval = v.aval              # .ndim and .dtype are properties that build it
        return (kinds.ARRAY, len(aval.shape), aval.dtype)
    if type(v) in _TRACED_TYPES and type(v) is not float and type(v) is not np.ndarray:
        return (kinds.ARRAY, v.ndim, v.dtype)   # a JAX array (its dtype is NumPy's)
    k = kinds.signature(v)
    if k == kinds.ANY and _jax is not None and isinstance(v, _jax.jax.Array):
        return (kinds.ARRAY, v.ndim, np.dtype(v.dtype))
    return k


def array_key(values):
    """The signatures of ``values`` when every one is an array (NumPy's or JAX's),
    else None: the key of a call that can go straight to the jitted program."""
    jax_array = _ARRAY_TYPE[0]
    out = []
    for v in values:
        t = type(v)
        if t is np.ndarray:
            out.append((kinds.ARRAY, v.ndim, v.dtype))
        elif t is jax_array:
            aval = v.aval
            out.append((kinds.ARRAY, len(aval.shape), aval.dtype))
        else:
            return None
    return tuple(out)


# ----- What the jitted function returns -----

def grad_post(argnums, with_value, has_aux):
    """Inside the jit: the value (if wanted), each gradient as its argument's shape and
    dtype, and aux."""
    J = require()
    finalize = J.helpers.finalize_grad
    n = len(argnums)

    def post(outs, args):
        grads = tuple(finalize(g, args[a]) for g, a in zip(outs[1:1 + n], argnums))
        value = outs[0] if with_value else None
        aux = outs[1 + n] if has_aux else None
        return (value,) + grads + ((aux,) if has_aux else ())
    return post


def jvp_post(has_aux):
    """Inside the jit: the value, its tangent shaped like it, and aux."""
    J = require()
    jnp = J.jnp

    def post(outs, args):
        out, t = outs[0], outs[1]
        if isinstance(out, (tuple, list)):
            t = type(out)(_tangent_like(jnp, u, o) for u, o in zip(t, out))
        else:
            t = _tangent_like(jnp, t, out)
        return (out, t) + ((outs[2],) if has_aux else ())
    return post


def _tangent_like(jnp, t, out):
    if t is None:
        return None
    dt = jnp.result_type(out)
    t = jnp.asarray(t, dtype=dt if dt.kind in "fc" else None)
    return jnp.broadcast_to(t, jnp.shape(out)) if jnp.shape(t) != jnp.shape(out) else t
