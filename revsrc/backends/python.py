"""Print an ``ir.Program`` as readable Python, compile it, and register its lines.

The printing itself is the shared base (revsrc/backends/printing.py); this back end
names functions by their NumPy, math or builtins spelling and revsrc's run-time helpers
by their module, keeps its saves on revsrc's typed stacks, numbers temporaries in order
of appearance (`renumber`), and compiles the text through a factory whose parameters are
the objects the text refers to, with the lines kept in linecache for tracebacks and a
table back to the user's lines (`user_loc`)."""
from __future__ import annotations

import builtins
import linecache
import math
import re
import sys
import weakref

import numpy as np

from .. import _kernels, runtime
from ..core import ir
from ..core.ir import Push
from ..core.late import LateModule
from . import printing

# The small-array tier loads with the first program the Python back end compiles: a
# program on numbers runs on the engine and never needs it.
smallarr = LateModule("revsrc.backends.smallarr")


class _Printer(printing.Printer):
    """Functions by their NumPy, math or builtins name, revsrc's run-time helpers by
    their module, anything else by reference; stacks as revsrc's typed stacks."""

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

    def new_stack(self, stack):
        if stack[0] == "o":
            return "[]"
        kind = _stack_types()[0 if stack[0] == "f" else 1]
        return f"{self.ref(kind, 'FloatStack' if stack[0] == 'f' else 'IntStack')}()"


def _module(name):
    return sys.modules[name]


_TEMP = re.compile(r"^(_[a-z]+)(\d+)((?:_bar\d*|_dot\d*)*)$")


def renumber(program):
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
    # an adjoint whose temporary is not in the program (a derivative of a derivative
    # keeps `_t9_bar` where `_t9` was not computed) keeps its name unless a renumbered
    # one prints so: then it gets a number of its own, or two variables would be one
    renamed = set(mapping.values())
    printed = set(renamed)
    for s in ir.walk(program.body):
        printed.update(n for n in list(ir.writes(s)) + list(ir.reads(s)) if n not in mapping)
    for s in ir.walk(program.body):
        for n in list(ir.writes(s)) + list(ir.reads(s)):
            m = _TEMP.match(n)
            if m and n not in mapping and n in renamed:
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
                fresh = f"{m.group(1)}{counts[m.group(1)]}{m.group(3)}"
                while fresh in printed:
                    counts[m.group(1)] += 1
                    fresh = f"{m.group(1)}{counts[m.group(1)]}{m.group(3)}"
                mapping[n] = fresh
                printed.add(fresh)
    return mapping


def source(program, locs=None):
    """(source text, references) of the Python function for ``program``; ``locs``, if
    given, is filled with the user's line (ir.Loc) of each generated line number
    (counted from 1) that begins a statement."""
    pr = _Printer(program, rename=renumber(program))
    text = pr.print_program()
    if locs is not None:
        locs.update({i + 1: loc for i, loc in pr.locs.items() if loc is not None})
    return text, pr.refs


def _stack_types():
    return _kernels.FloatStack, _kernels.IntStack


_counter = [0]
# generated files whose function has gone: their linecache lines are dropped at the
# next compile, not by the finalizer itself, which runs inside garbage collection and
# could pop an entry while linecache.checkcache walks the cache (a KeyError there)
_gone = []


def forget_gone():
    """Drop the linecache lines of generated functions that have gone."""
    while _gone:
        linecache.cache.pop(_gone.pop(), None)


def compile_program(program):
    """Compile ``program`` into a Python function; its source is kept in linecache,
    and ``fn._revsrc_locs`` maps its line numbers to the user's lines (`user_loc`)."""
    locs = {}
    program = smallarr.rewrite(program)
    text, refs = source(program, locs)
    names = sorted(refs)
    factory = ["def _revsrc_factory(" + ", ".join(["math", "np"] + names) + "):"]
    factory += ["    " + line if line else "" for line in text.splitlines()]
    factory.append(f"    return {program.name}")
    full = "\n".join(factory) + "\n"
    forget_gone()
    _counter[0] += 1
    filename = f"<revsrc {program.name} #{_counter[0]}>"
    code = compile(full, filename, "exec")
    linecache.cache[filename] = (len(full), None, full.splitlines(True), filename)
    namespace = {"__builtins__": builtins}
    exec(code, namespace)
    fn = namespace["_revsrc_factory"](math, np, *(refs[n] for n in names))
    # its lines stay for tracebacks while the function lives, and go with it
    weakref.finalize(fn, _gone.append, filename)
    # the factory's own def line comes first: generated line n is file line n + 1
    starts = sorted(locs)
    fn._revsrc_locs = ([n + 1 for n in starts], [locs[n] for n in starts])
    fn._revsrc_small_loops = getattr(program, "small_loops", [])
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
