"""Print an ``ir.Program`` as readable Python, compile it, and register its lines."""
from __future__ import annotations

import builtins
import linecache
import math
import re
import operator

import numpy as np

from . import ir, primitives
from .ir import Break, Comment, Const, For, If, Op, Pop, Push, SetItem, While



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
        self.main = program.name[:-len("_adjoint")]

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
        mod = getattr(fn, "__module__", "") or ""
        if mod.startswith("revsrc."):
            short = mod.split(".")[-1].lstrip("_")
            return f"{self.ref(_module(mod), short)}.{name}"
        return self.ref(fn, name or "fn")

    def const(self, v):
        if isinstance(v, slice):
            return f"slice({self.const(v.start)}, {self.const(v.stop)}, {self.const(v.step)})"
        if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
            return repr(v)
        if isinstance(v, float):
            if math.isfinite(v):
                return repr(v)
            return self.ref(v, "inf" if v > 0 else ("ninf" if v < 0 else "nan"))
        if isinstance(v, tuple) and all(isinstance(i, (int, float, bool, type(None), slice))
                                        for i in v):
            inner = ", ".join(self.const(i) for i in v)
            return f"({inner},)" if len(v) == 1 else f"({inner})"
        if v is Ellipsis:
            return "..."
        if isinstance(v, type) and getattr(builtins, v.__name__, None) is v:
            return v.__name__
        if callable(v) and getattr(np, getattr(v, "__name__", ""), None) is v:
            return f"np.{v.__name__}"  # a NumPy function passed as a value
        return self.ref(v, type(v).__name__.lower())

    def operand(self, o):
        return self.const(o.value) if isinstance(o, Const) else self.name(o)

    def name(self, n):
        return self.rename.get(n, n)

    def index(self, o):
        if isinstance(o, Const):
            v = o.value
            items = v if isinstance(v, tuple) else (v,)
            if all(isinstance(i, (int, slice, type(None))) or i is Ellipsis for i in items) \
                    and not any(isinstance(i, bool) for i in items):
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
        if fn is getattr and isinstance(op.args[1], Const):
            return f"{args[0]}.{op.args[1].value}"
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
        self.lines.append(f"{indent}# {prefix}{where}: {loc.line}")

    def block(self, stmts, indent, reverse=False):
        if not stmts:
            self.lines.append(f"{indent}pass")
            return
        for s in stmts:
            self.stmt(s, indent, reverse)

    def stmt(self, s, indent, reverse):
        if isinstance(s, Comment):
            if s.text.startswith("adjoint of line"):
                key = ("adj", s.text)
                if key != self.last_comment:
                    self.last_comment = key
                    self.lines.append(f"{indent}# {s.text}")
            else:
                self.last_comment = None
                self.lines.append(f"{indent}# {s.text}")
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
            stack = {"f": "_fs", "i": "_is", "o": "_os"}[s.stack]
            method = "append" if s.stack == "o" else "push"
            self.lines.append(f"{indent}{stack}.{method}({self.operand(s.value)})")
        elif isinstance(s, Pop):
            stack = {"f": "_fs", "i": "_is", "o": "_os"}[s.stack]
            self.lines.append(f"{indent}{self.name(s.target)} = {stack}.pop()")
        elif isinstance(s, If):
            if not reverse:
                self.comment_for(s.loc, indent)
            test = self.operand(s.test)
            if not s.body and s.orelse:
                self.lines.append(f"{indent}if not {test}:")
                self.last_comment = None
                self.block(s.orelse, indent + "    ", reverse)
            else:
                self.lines.append(f"{indent}if {test}:")
                self.last_comment = None
                self.block(s.body, indent + "    ", reverse)
                if s.orelse:
                    self.lines.append(f"{indent}else:")
                    self.last_comment = None
                    self.block(s.orelse, indent + "    ", reverse)
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
    import sys
    return sys.modules[name]


def _uses_stack(stmts, kind):
    for s in ir.walk(stmts):
        if isinstance(s, (Push, Pop)) and s.stack == kind:
            return True
    return False


_TEMP = re.compile(r"^(_[a-z]+)(\d+)(_bar\d*)?$")


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
            if m and m.group(3) is None and n not in order:
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
                order[n] = f"{m.group(1)}{counts[m.group(1)]}"
    taken = set(order.values())
    mapping = {}
    for s in ir.walk(program.body):
        for n in list(ir.writes(s)) + list(ir.reads(s)):
            m = _TEMP.match(n)
            if m and m.group(3) is not None and m.group(1) + m.group(2) in order:
                mapping[n] = order[m.group(1) + m.group(2)] + m.group(3)
    mapping.update(order)
    # user names that look like temporaries keep theirs only if nothing else takes them
    for n in list(mapping):
        if mapping[n] != n and mapping[n] in taken and n not in order and n not in mapping:
            del mapping[n]
    return mapping


def source(program):
    """(source text, references) of the Python function for ``program``."""
    pr = _Printer(program)
    pr.rename = _renumber(program)
    ind = "    "
    params = ", ".join(program.params)
    pr.lines.append(f"def {program.name}({params}):")
    body = program.body
    if _uses_stack(body, "f"):
        pr.lines.append(f"{ind}_fs = {pr.ref(_stack_types()[0], 'FloatStack')}()")
    if _uses_stack(body, "i"):
        pr.lines.append(f"{ind}_is = {pr.ref(_stack_types()[1], 'IntStack')}()")
    if _uses_stack(body, "o"):
        pr.lines.append(f"{ind}_os = []")
    fwd = body[:program.forward_len]
    rev = body[program.forward_len:]
    pr.block(fwd, ind) if fwd else None
    pr.last_comment = None
    for s in rev:
        pr.stmt(s, ind, reverse=True)
    outs = ", ".join(pr.operand(o) for o in program.outputs)
    pr.lines.append(f"{ind}return ({outs},)" if len(program.outputs) == 1 else
                    f"{ind}return ({outs})")
    return "\n".join(pr.lines) + "\n", pr.refs


def _stack_types():
    from . import _kernels
    return _kernels.FloatStack, _kernels.IntStack


_counter = [0]


def compile_program(program):
    """Compile ``program`` into a Python function; its source is kept in linecache."""
    text, refs = source(program)
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
    return fn, text
