"""Print an ``ir.Program`` as readable Python, compile it, and register its lines."""
from __future__ import annotations

import builtins
import linecache
import math
import operator
import re
import sys
import weakref

import numpy as np

from .. import _kernels, primitives
from .. import runtime
from ..runtime import guards
from ..core import ir
from ..core.ir import Break, Comment, Const, For, If, Op, Pop, Push, SetItem, While



def _operator(fn):
    """How ``fn`` prints when it is an operator (its record's ``infix``), else None."""
    prim = primitives.lookup(fn)
    if prim is None:
        return None
    try:
        return prim.alias(fn).infix
    except KeyError:  # pragma: no cover
        return None


class _Printer:
    def __init__(self, program):
        self.program = program
        self.lines = []
        self.refs = {}       # name -> object, passed into the factory
        self.ref_of = {}     # id(object) -> name
        self.last_comment = None
        self.rename = {}
        self.main = program.name.rsplit("_", 1)[0]  # f_adjoint, f_jvp: f
        self.cur_loc = None
        self.locs = {}       # index into lines -> the user's line (ir.Loc) it comes from

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

    def fn_name(self, fn):
        name = getattr(fn, "__name__", None)
        if fn is ir.truth:
            return "bool"
        if name and getattr(builtins, name, None) is fn:
            return name
        if name and getattr(math, name, None) is fn:
            return f"math.{name}"
        if name and getattr(np, name, None) is fn:
            return f"np.{name}"
        if name and getattr(np.linalg, name, None) is fn:
            return f"np.linalg.{name}"
        if runtime.is_helper(fn):
            mod = fn.__module__
            short = mod.split(".")[-1].lstrip("_")
            return f"{self.ref(_module(mod), short)}.{name}"
        return self.ref(fn, name or "fn")

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

    # ----- statements -----------------------------------------------------
    def expr(self, op):
        fn = op.fn
        args = [self.operand(a) for a in op.args]
        if fn is ir.copy:
            return args[0]
        symbol = _operator(fn)
        if symbol is not None and len(args) == 2 and not op.kwargs:
            return f"{args[0]} {symbol} {args[1]}"
        if symbol is not None and len(args) == 1:
            return f"{symbol} {args[0]}" if symbol.isalpha() else f"{symbol}{args[0]}"
        if fn is operator.getitem:
            return f"{args[0]}[{self.index(op.args[1])}]"
        if fn is operator.contains:
            return f"{args[1]} in {args[0]}"
        if fn is ir.make_tuple:
            return "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
        if fn is ir.make_list:
            return "[" + ", ".join(args) + "]"
        if fn is ir.load_global:
            return f"{self.ref(op.args[0].value, 'globals')}[{op.args[1].value!r}]"
        if fn is ir.load_cell:
            return f"{self.ref(op.args[0].value, 'cell')}.cell_contents"
        if (fn is getattr or fn is ir.get_attribute) and isinstance(op.args[1], Const):
            return f"{args[0]}.{op.args[1].value}"
        if fn is ir.call_method and isinstance(op.args[1], Const):
            parts = args[2:] + [f"{k}={self.operand(v)}" for k, v in op.kwargs]
            return f"{args[0]}.{op.args[1].value}({', '.join(parts)})"
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
        self.lines.append(f"{indent}# {prefix}{where}: {_comment_text(loc.line)}")

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
            return (f"({self.name(first.target)} := {_stack_name(first.stack)}.pop())",
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
        if isinstance(s, Comment):
            text = _comment_text(s.text)
            if s.text.startswith("adjoint of line"):
                key = ("adj", s.text)
                if key != self.last_comment:
                    self.last_comment = key
                    self.lines.append(f"{indent}# {text}")
            else:
                self.last_comment = None
                self.lines.append(f"{indent}# {text}")
            return
        if isinstance(s, Op):
            if not reverse:
                self.comment_for(s.loc, indent)
            if s.target is None:
                self.lines.append(f"{indent}{self.expr(s)}")
            else:
                self.lines.append(f"{indent}{self.name(s.target)} = {self.expr(s)}")
        elif isinstance(s, SetItem):
            self.comment_for(s.loc, indent)
            self.lines.append(f"{indent}{self.name(s.target)}[{self.index(s.index)}] = "
                              f"{self.operand(s.value)}")
        elif isinstance(s, Push):
            stack = _stack_name(s.stack)
            method = "append" if s.stack[0] == "o" else "push"
            self.lines.append(f"{indent}{stack}.{method}({self.operand(s.value)})")
        elif isinstance(s, Pop):
            stack = _stack_name(s.stack)
            self.lines.append(f"{indent}{self.name(s.target)} = {stack}.pop()")
        elif isinstance(s, If):
            if not reverse:
                self.comment_for(s.loc, indent)
            test = self.operand(s.test)
            if not s.body and s.orelse:
                self.lines.append(f"{indent}if not {test}:")
                self.last_comment = None
                self.block(s.orelse, indent + "    ", reverse)
                self.last_comment = None
                return
            self.lines.append(f"{indent}if {test}:")
            self.last_comment = None
            self.block(s.body, indent + "    ", reverse)
            # an else that computes a test and branches on it prints as elif, so
            # long chains stay flat (Python allows 100 levels of indentation)
            rest, after = s.orelse, []
            while True:
                arm = self._elif_arm(rest)
                if arm is None:
                    break
                walrus, inner, posts = arm
                after = posts + after
                self.lines.append(f"{indent}elif {walrus}:")
                self.last_comment = None
                self.block(inner.body + after, indent + "    ", reverse)
                rest = inner.orelse
            if rest or after:
                self.lines.append(f"{indent}else:")
                self.last_comment = None
                self.block(rest + after, indent + "    ", reverse)
            self.last_comment = None
        elif isinstance(s, For):
            if not reverse:
                self.comment_for(s.loc, indent)
            a, b, c = (self.operand(x) for x in (s.start, s.stop, s.step))
            if c == "1" and a == "0":
                rng = f"range({b})"
            elif c == "1":
                rng = f"range({a}, {b})"
            else:
                rng = f"range({a}, {b}, {c})"
            self.lines.append(f"{indent}for {self.name(s.var)} in {rng}:")
            self.last_comment = None
            self.block(s.body, indent + "    ", reverse)
            self.last_comment = None
        elif isinstance(s, While):
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
        elif isinstance(s, Break):
            self.lines.append(f"{indent}break")
        else:  # pragma: no cover
            raise AssertionError(s)


def _module(name):
    return sys.modules[name]


def _comment_text(text):
    """``text`` safe inside a one-line comment: a carriage return, a newline or any
    other control character in a user's source line would end the comment (Python
    reads a lone ``\r`` as a line break) and make the rest of it code."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _stack_name(stack):
    """``_fs`` for the float stack "f", ``_fs1`` for "f1" (a derivative's own stacks
    inside a derivative of it), ``_os1b`` for "o1b" (their adjoints)."""
    return f"_{stack[0]}s{stack[1:]}"


def _stacks(stmts):
    """The stacks ``stmts`` use: float, int and object, the program's own first."""
    found = {s.stack for s in ir.walk(stmts) if isinstance(s, (Push, Pop))}
    return sorted(found, key=lambda stack: (stack[1:], "fio".index(stack[0])))


_TEMP = re.compile(r"^(_[a-z]+)(\d+)((?:_bar\d*|_dot\d*)*)$")


def _renumber(program):
    """Number temporaries 1, 2, 3... per kind in order of appearance (bars follow)."""
    order = {}
    counts = {}
    for s in ir.walk(program.body):
        names = list(ir.writes(s)) + list(ir.reads(s))
        if isinstance(s, Push):
            names = [s.value] if isinstance(s.value, str) else []
        for n in names:
            m = _TEMP.match(n)
            if m and not m.group(3) and n not in order:
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
                order[n] = f"{m.group(1)}{counts[m.group(1)]}"
    taken = set(order.values())
    mapping = {}
    for s in ir.walk(program.body):
        for n in list(ir.writes(s)) + list(ir.reads(s)):
            m = _TEMP.match(n)
            if m and m.group(3) and m.group(1) + m.group(2) in order:
                mapping[n] = order[m.group(1) + m.group(2)] + m.group(3)
    mapping.update(order)
    # user names that look like temporaries keep theirs only if nothing else takes them
    for n in list(mapping):
        if mapping[n] != n and mapping[n] in taken and n not in order and n not in mapping:
            del mapping[n]
    return mapping


def source(program, locs=None):
    """(source text, references) of the Python function for ``program``; ``locs``, if
    given, is filled with the user's line (ir.Loc) of each generated line number
    (counted from 1) that begins a statement."""
    pr = _Printer(program)
    pr.rename = _renumber(program)
    ind = "    "
    params = ", ".join(program.params)
    pr.lines.append(f"def {program.name}({params}):")
    body = program.body
    for stack in _stacks(body):
        if stack[0] == "o":
            pr.lines.append(f"{ind}{_stack_name(stack)} = []")
        else:
            kind = _stack_types()[0 if stack[0] == "f" else 1]
            name = "FloatStack" if stack[0] == "f" else "IntStack"
            pr.lines.append(f"{ind}{_stack_name(stack)} = {pr.ref(kind, name)}()")
    fwd = body[:program.forward_len]
    rev = body[program.forward_len:]
    pr.block(fwd, ind) if fwd else None
    pr.last_comment = None
    for s in rev:
        pr.stmt(s, ind, reverse=True)
    outs = ", ".join(pr.operand(o) for o in program.outputs)
    pr.lines.append(f"{ind}return ({outs},)" if len(program.outputs) == 1 else
                    f"{ind}return ({outs})")
    if locs is not None:
        locs.update({i + 1: loc for i, loc in pr.locs.items() if loc is not None})
    return "\n".join(pr.lines) + "\n", pr.refs


def _stack_types():
    return _kernels.FloatStack, _kernels.IntStack


_counter = [0]


def compile_program(program):
    """Compile ``program`` into a Python function; its source is kept in linecache,
    and ``fn._revsrc_locs`` maps its line numbers to the user's lines (`user_loc`)."""
    locs = {}
    text, refs = source(program, locs)
    names = sorted(refs)
    factory = ["def _revsrc_factory(" + ", ".join(["math", "np"] + names) + "):"]
    factory += ["    " + line if line else "" for line in text.splitlines()]
    factory.append(f"    return {program.name}")
    full = "\n".join(factory) + "\n"
    _counter[0] += 1
    filename = f"<revsrc {program.name} #{_counter[0]}>"
    code = compile(full, filename, "exec")
    linecache.cache[filename] = (len(full), None, full.splitlines(True), filename)
    namespace = {"__builtins__": builtins}
    exec(code, namespace)
    fn = namespace["_revsrc_factory"](math, np, *(refs[n] for n in names))
    # its lines stay for tracebacks while the function lives, and go with it
    weakref.finalize(fn, linecache.cache.pop, filename, None)
    # the factory's own def line comes first: generated line n is file line n + 1
    starts = sorted(locs)
    fn._revsrc_locs = ([n + 1 for n in starts], [locs[n] for n in starts])
    return fn, text


def user_loc(fn, tb):
    """The user's line (ir.Loc) of the innermost frame of traceback ``tb`` that runs
    the generated function ``fn``, or None."""
    table = getattr(fn, "_revsrc_locs", None)
    code = getattr(fn, "__code__", None)
    if table is None or code is None:
        return None
    lineno = None
    while tb is not None:
        if tb.tb_frame.f_code is code:
            lineno = tb.tb_lineno
        tb = tb.tb_next
    if lineno is None:
        return None
    import bisect
    k = bisect.bisect_right(table[0], lineno) - 1
    return table[1][k] if k >= 0 else None
