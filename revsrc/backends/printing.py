"""The printer base: an ``ir.Program`` as the lines of one Python function.

Both printing back ends share it: revsrc/backends/python.py prints against NumPy and
revsrc's run time, revsrc/backends/jax/printer.py against jax.numpy. What they share is
everything but the names of functions: references to objects passed into the
function's factory (`Printer.ref`), constants as literals only for built-in types
(`Printer.const`), operators by their record's ``infix``, the user's line as a comment
before the statements it gives, one handler per statement type (`Printer.stmt`), and
the program's frame (`Printer.print_program`: the def, its stacks, the forward sweep,
the reverse sweep, the return). A back end says how a function is named
(`Printer.fn_name`) and how an empty stack is made (`Printer.new_stack`), and overrides
the handlers whose statements it prints otherwise.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .. import primitives
from ..core import ir
from ..core.ir import Break, Comment, Const, For, If, Op, Pop, Push, SetItem, While
from ..runtime import guards

__all__ = ["Printer", "stack_name", "stacks", "comment_text", "range_text"]


def _operator(fn):
    """How ``fn`` prints when it is an operator (its record's ``infix``), else None."""
    prim = primitives.lookup(fn)
    if prim is None:
        return None
    try:
        return prim.alias(fn).infix
    except KeyError:  # pragma: no cover
        return None


def comment_text(text):
    """``text`` safe inside a one-line comment: a carriage return, a newline or any
    other control character in a user's source line would end the comment (Python
    reads a lone ``\r`` as a line break) and make the rest of it code."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def stack_name(stack):
    """``_fs`` for the float stack "f", ``_fs1`` for "f1" (a derivative's own stacks
    inside a derivative of it), ``_os1b`` for "o1b" (their adjoints)."""
    return f"_{stack[0]}s{stack[1:]}"


def stacks(stmts):
    """The stacks ``stmts`` use: float, int and object, the program's own first."""
    found = {s.stack for s in ir.walk(stmts) if isinstance(s, (Push, Pop))}
    return sorted(found, key=lambda stack: (stack[1:], "fio".index(stack[0])))


def range_text(start, stop, step):
    """``range(...)`` as Python would write it, from the bounds' texts."""
    if step == "1":
        return f"range({stop})" if start == "0" else f"range({start}, {stop})"
    return f"range({start}, {stop}, {step})"



def _atom(text):
    """``text`` as an operand that binds tighter than a unary minus: a negative literal
    in parentheses. ``-1 ** n`` is ``-(1 ** n)`` and ``-1.5.imag`` is ``-(1.5.imag)``,
    so the base of a power, an item, an attribute or a method must keep its sign."""
    return f"({text})" if text.startswith("-") else text

class Printer:
    """Prints one program. ``rename`` maps variables to the names they print as;
    ``locs`` maps each line index that begins a statement to the user's line."""

    def __init__(self, program, rename=None):
        self.program = program
        self.lines = []
        self.refs = {}       # name -> object, passed into the factory
        self.ref_of = {}     # id(object) -> name
        self.last_comment = None
        self.rename = {} if rename is None else rename
        self.main = program.name.rsplit("_", 1)[0]  # f_adjoint, f_jvp: f
        self.cur_loc = None
        self.locs = {}       # index into lines -> the user's line (ir.Loc) it comes from

    # ----- what a back end says ------------------------------------------
    def fn_name(self, fn):
        """The text that calls ``fn``."""
        raise NotImplementedError

    def new_stack(self, stack):
        """The text of a new empty ``stack``."""
        raise NotImplementedError

    # ----- references to objects -----------------------------------------
    def ref(self, obj, hint):
        key = id(obj)
        name = self.ref_of.get(key)
        if name is None:
            base = "_" + "".join(c if c.isalnum() else "_" for c in hint).strip("_")
            name = base
            k = 1
            while name in self.refs:
                k += 1
                name = f"{base}{k}"
            self.refs[name] = obj
            self.ref_of[key] = name
        return name

    def const(self, v):
        """Source text for the constant ``v``: a literal only for values of the exact
        built-in types (whose repr is a literal); anything else (an int subclass such
        as an IntEnum, a float subclass with its own repr) is referred to by name,
        so no user value ever becomes source text."""
        t = type(v)
        if t is slice:
            return f"slice({self.const(v.start)}, {self.const(v.stop)}, {self.const(v.step)})"
        if t in (bool, int, str) or v is None:
            return repr(v)
        if t is float:
            if math.isfinite(v):
                return repr(v)
            return self.ref(v, "inf" if v > 0 else ("ninf" if v < 0 else "nan"))
        if t is tuple and all(type(i) in (int, float, bool, type(None), slice) for i in v):
            inner = ", ".join(self.const(i) for i in v)
            return f"({inner},)" if len(v) == 1 else f"({inner})"
        if v is Ellipsis:
            return "..."
        if isinstance(v, type) and getattr(builtins, v.__name__, None) is v:
            return v.__name__
        if callable(v) and getattr(np, getattr(v, "__name__", ""), None) is v:
            return f"np.{v.__name__}"  # a NumPy function passed as a value
        if isinstance(v, ir.Defaults):
            return self.ref(v, f"{v.owner}_defaults")
        name = getattr(v, "__name__", None) if callable(v) else None
        return self.ref(v, name if isinstance(name, str) else type(v).__name__.lower())

    def operand(self, o):
        return self.const(o.value) if isinstance(o, Const) else self.name(o)

    def name(self, n):
        return self.rename.get(n, n)

    def index(self, o):
        if isinstance(o, Const):
            v = o.value
            items = v if type(v) is tuple else (v,)
            if all(type(i) in (int, type(None)) or i is Ellipsis or
                   (type(i) is slice and all(type(p) in (int, type(None))
                                             for p in (i.start, i.stop, i.step)))
                   for i in items):
                if not items:
                    return "()"     # x[()]: a 0-d array's item (x[] does not parse)
                parts = [self._slice(i) for i in items]
                text = ", ".join(parts)
                return text + ("," if isinstance(v, tuple) and len(v) == 1 else "")
        return self.operand(o)

    def _slice(self, i):
        if isinstance(i, slice):
            a = "" if i.start is None else repr(i.start)
            b = "" if i.stop is None else repr(i.stop)
            text = f"{a}:{b}"
            if i.step is not None:
                text += f":{i.step!r}"
            return text
        if i is Ellipsis:
            return "..."
        return repr(i)

    # ----- expressions ----------------------------------------------------
    def expr(self, op):
        fn = op.fn
        args = [self.operand(a) for a in op.args]
        if fn is ir.copy:
            return args[0]
        symbol = _operator(fn)
        if symbol is not None and len(args) == 2 and not op.kwargs:
            left = _atom(args[0]) if symbol == "**" else args[0]
            return f"{left} {symbol} {args[1]}"
        if symbol is not None and len(args) == 1:
            return f"{symbol} {args[0]}" if symbol.isalpha() else f"{symbol}{args[0]}"
        if fn is operator.getitem:
            return f"{_atom(args[0])}[{self.index(op.args[1])}]"
        if fn is operator.contains:
            return f"{args[1]} in {args[0]}"
        if fn is ir.make_tuple:
            return "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
        if fn is ir.make_list:
            return "[" + ", ".join(args) + "]"
        if fn is ir.load_global:
            ns = op.args[0].value
            hint = f"{ns.owner}_defaults" if isinstance(ns, ir.Defaults) else "globals"
            return f"{self.ref(ns, hint)}[{op.args[1].value!r}]"
        if fn is ir.load_cell:
            return f"{self.ref(op.args[0].value, 'cell')}.cell_contents"
        if (fn is getattr or fn is ir.get_attribute) and isinstance(op.args[1], Const):
            return f"{_atom(args[0])}.{op.args[1].value}"
        if fn is ir.call_method and isinstance(op.args[1], Const):
            parts = args[2:] + [f"{k}={self.operand(v)}" for k, v in op.kwargs]
            return f"{_atom(args[0])}.{op.args[1].value}({', '.join(parts)})"
        return self._raise_or_call(op, fn, args)

    def _raise_or_call(self, op, fn, args):
        if fn is guards.fstring:
            return f"{args[0]}.format({', '.join(args[1:])})"
        if fn is guards.raise_error and op.target is None:
            if len(args) == 1 and not op.kwargs:
                return f"raise {args[0]}"
            parts = args[1:] + [f"{k}={self.operand(v)}" for k, v in op.kwargs]
            return f"raise {args[0]}({', '.join(parts)})"
        if fn is guards.fail_assert and op.target is None:
            return f"raise AssertionError({args[0]})"
        if fn is guards.raise_error_from and op.target is None:
            return f"raise {args[0]} from {args[1]}"
        parts = args + [f"{k}={self.operand(v)}" for k, v in op.kwargs]
        return f"{self.fn_name(fn)}({', '.join(parts)})"

    # ----- statements -----------------------------------------------------
    def comment_for(self, loc, indent, prefix=""):
        if loc is None:
            return
        key = (prefix, loc.filename, loc.lineno)
        if key == self.last_comment:
            return
        self.last_comment = key
        where = f"line {loc.lineno}"
        if loc.func and loc.func != self.main:
            where += f" ({loc.func})"
        self.lines.append(f"{indent}# {prefix}{where}: {comment_text(loc.line)}")

    def _elif_arm(self, stmts):
        """(test text, the If, statements after it) when ``stmts`` is one operation
        computing a test, a branch on it, then only saves: ``elif (t := x < 1.0):``."""
        lead = [k for k, st in enumerate(stmts) if not isinstance(st, Comment)]
        if len(lead) < 2:
            return None
        first, second = stmts[lead[0]], stmts[lead[1]]
        posts = [st for st in stmts[lead[1] + 1:]]
        if not (isinstance(second, If) and second.body and isinstance(second.test, str)
                and all(isinstance(p, Push) for p in posts)):
            return None
        if isinstance(first, Op) and first.target == second.test and first.target is not None:
            return f"({self.name(first.target)} := {self.expr(first)})", second, posts
        if isinstance(first, Pop) and first.target == second.test:
            return (f"({self.name(first.target)} := {stack_name(first.stack)}.pop())",
                    second, posts)
        return None

    def block(self, stmts, indent, reverse=False):
        if not stmts:
            self.lines.append(f"{indent}pass")
            return
        for s in stmts:
            self.stmt(s, indent, reverse)

    def stmt(self, s, indent, reverse):
        loc = getattr(s, "loc", None)
        if loc is not None:
            self.cur_loc = loc
        self.locs[len(self.lines)] = self.cur_loc   # the user's line of what follows
        handler = _HANDLERS.get(type(s))
        if handler is None:  # pragma: no cover
            raise AssertionError(s)
        getattr(self, handler)(s, indent, reverse)

    def print_comment(self, s, indent, reverse):
        text = comment_text(s.text)
        if s.text.startswith("adjoint of line"):
            key = ("adj", s.text)
            if key != self.last_comment:
                self.last_comment = key
                self.lines.append(f"{indent}# {text}")
        else:
            self.last_comment = None
            self.lines.append(f"{indent}# {text}")

    def print_op(self, s, indent, reverse):
        if not reverse:
            self.comment_for(s.loc, indent)
        if s.target is None:
            self.lines.append(f"{indent}{self.expr(s)}")
        else:
            self.lines.append(f"{indent}{self.name(s.target)} = {self.expr(s)}")

    def print_set_item(self, s, indent, reverse):
        self.comment_for(s.loc, indent)
        self.lines.append(f"{indent}{self.name(s.target)}[{self.index(s.index)}] = "
                          f"{self.operand(s.value)}")

    def print_push(self, s, indent, reverse):
        method = "append" if s.stack[0] == "o" else "push"
        self.lines.append(f"{indent}{stack_name(s.stack)}.{method}({self.operand(s.value)})")

    def print_pop(self, s, indent, reverse):
        self.lines.append(f"{indent}{self.name(s.target)} = {stack_name(s.stack)}.pop()")

    def print_if(self, s, indent, reverse):
        if not reverse:
            self.comment_for(s.loc, indent)
        test = self.operand(s.test)
        inner = indent + "    "
        if not s.body and s.orelse:
            self.lines.append(f"{indent}if not {test}:")
            self.last_comment = None
            self.block(s.orelse, inner, reverse)
            self.last_comment = None
            return
        self.lines.append(f"{indent}if {test}:")
        self.last_comment = None
        self.block(s.body, inner, reverse)
        # an else that computes a test and branches on it prints as elif, so long
        # chains stay flat (Python allows 100 levels of indentation)
        rest, after = s.orelse, []
        while True:
            arm = self._elif_arm(rest)
            if arm is None:
                break
            walrus, branch, posts = arm
            after = posts + after
            self.lines.append(f"{indent}elif {walrus}:")
            self.last_comment = None
            self.block(branch.body + after, inner, reverse)
            rest = branch.orelse
        if rest or after:
            self.lines.append(f"{indent}else:")
            self.last_comment = None
            self.block(rest + after, inner, reverse)
        self.last_comment = None

    def print_for(self, s, indent, reverse):
        if not reverse:
            self.comment_for(s.loc, indent)
        rng = range_text(*(self.operand(x) for x in (s.start, s.stop, s.step)))
        self.lines.append(f"{indent}for {self.name(s.var)} in {rng}:")
        self.last_comment = None
        self.block(s.body, indent + "    ", reverse)
        self.last_comment = None

    def print_while(self, s, indent, reverse):
        if not reverse:
            self.comment_for(s.loc, indent)
        self.lines.append(f"{indent}while True:")
        inner = indent + "    "
        self.last_comment = None
        for t in s.test_body:
            self.stmt(t, inner, reverse)
        self.lines.append(f"{inner}if not {self.operand(s.test)}:")
        self.lines.append(f"{inner}    break")
        for t in s.body:
            self.stmt(t, inner, reverse)
        self.last_comment = None

    def print_break(self, s, indent, reverse):
        self.lines.append(f"{indent}break")

    # ----- the whole program ----------------------------------------------
    def print_program(self):
        """The function's text: its def, its stacks made empty, the forward sweep, the
        reverse sweep (no line comments: its statements have their adjoint's), and the
        return of a tuple of the outputs."""
        program, ind = self.program, "    "
        self.lines.append(f"def {program.name}({', '.join(program.params)}):")
        for stack in stacks(program.body):
            self.lines.append(f"{ind}{stack_name(stack)} = {self.new_stack(stack)}")
        fwd = program.body[:program.forward_len]
        rev = program.body[program.forward_len:]
        if fwd:
            self.block(fwd, ind)
        self.last_comment = None
        for s in rev:
            self.stmt(s, ind, reverse=True)
        outs = ", ".join(self.operand(o) for o in program.outputs)
        self.lines.append(f"{ind}return ({outs},)" if len(program.outputs) == 1 else
                          f"{ind}return ({outs})")
        return "\n".join(self.lines) + "\n"


# the handler of each statement type (a back end overrides the handler, not the table)
_HANDLERS = {Comment: "print_comment", Op: "print_op", SetItem: "print_set_item",
             Push: "print_push", Pop: "print_pop", If: "print_if", For: "print_for",
             While: "print_while", Break: "print_break"}
