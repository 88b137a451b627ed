"""Functions with source, as IR: lowered once, renamed and inlined at the IR level.

A user's function that has a rule of its own (``revsrc.defvjp``) is a primitive to the
transformation, yet it is also ordinary Python with source. Its kind comes from its
body (`call_kind`), and the scalar engine runs it by inlining that body (`expand`),
where the Python path calls the function itself: the same operations in the same
order, so the same digits.
"""
from __future__ import annotations

import functools
import types

from . import analysis
from ..core import ir
from .. import primitives
from ..core.ir import Const, Op
from ..frontend.lower.lowerer import Lowerer


@functools.lru_cache(maxsize=256)
def lowered(fn):
    """``(params, body, result)`` of ``fn`` lowered alone (its own names)."""
    params, body, result, _ = Lowerer().lower_function(fn)
    return tuple(params), tuple(body), result


def has_source(fn):
    return isinstance(fn, types.FunctionType)


def call_kind(op, ctx):
    """The kind of ``fn(*args)`` from ``fn``'s body, for the arguments' kinds."""
    fn = op.fn
    if not has_source(fn) or op.kwargs:
        return kinds_any()
    try:
        params, body, result = lowered(fn)
    except Exception:  # no readable body: the kind stays unknown
        return kinds_any()
    if len(op.args) != len(params):
        return kinds_any()
    pk = [ctx.kind(a) for a in op.args]
    pn = [ctx.ndim(a) for a in op.args]
    found, ndims = analysis.infer_kinds(list(params), pk, pn, list(body))
    if isinstance(result, Const):
        return analysis.kinds_mod.of_value(result.value)
    return found.get(result, "any"), ndims.get(result)


def kinds_any():
    return "any"


def inline_call(fn, args, target, taken):
    """Statements computing ``target = fn(*args)`` from ``fn``'s body, its names
    prefixed so that none is in ``taken`` (which is updated)."""
    params, body, result = lowered(fn)
    inner = ir.names_in(body) | set(params) | ({result} if isinstance(result, str) else set())
    base = fn.__name__ if fn.__name__ != "<lambda>" else "lambda"
    k = 1
    while True:
        prefix = f"{base}_" if k == 1 else f"{base}{k}_"
        if not any(prefix + n in taken for n in inner):
            break
        k += 1
    taken.update(prefix + n for n in inner)
    out = [Op(prefix + p, ir.copy, (a,)) for p, a in zip(params, args)]
    out += ir.rename(body, lambda n: prefix + n)
    out.append(Op(target, ir.copy, (prefix + result if isinstance(result, str) else result,)))
    return out


def expand(stmts, taken):
    """``stmts`` with every call to a user's primitive that has source (a function
    with its own rule) replaced by that function's body, for the scalar engine;
    ``stmts`` itself where there is none (most programs: nothing is rebuilt)."""
    out = []
    changed = False
    for s in stmts:
        if isinstance(s, Op) and s.target is not None and not s.kwargs and has_source(s.fn):
            prim = primitives.lookup(s.fn)
            if prim is not None and prim.alias(s.fn).family == primitives.USER:
                out.extend(expand(inline_call(s.fn, s.args, s.target, taken), taken))
                changed = True
                continue
        blocks = ir.children(s)
        if blocks:
            # a while's test too: the engine cannot call the function there either
            new = ir.map_children(s, lambda b: expand(b, taken))
            if any(a is not b for a, b in zip(ir.children(new), blocks)):
                s, changed = new, True
        out.append(s)
    return out if changed else stmts
