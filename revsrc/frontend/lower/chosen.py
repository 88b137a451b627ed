"""A function chosen when the program runs from a global table of functions, then
called: ``rho = LOSSES[kind]; rho(r)`` or ``ACTS[name](z)``, where ``LOSSES`` is a
global dict (or tuple) of functions and the key is only known when the program runs.

The item is read when the program runs, as Python reads it. Its call is lowered as a
choice among the table's functions, each inlined (or called, for a function with a
rule): ``if f is LOSSES_l2: <l2 inlined> elif f is LOSSES_huber: ...``. The test is the
function's identity, so whatever the name holds by then, the branch taken is the
function Python would call; a function the table did not hold when transforming
(an entry added since) is refused where the call is (E101). The table and each
entry are guarded (the program is made anew when one is rebound).
"""
from __future__ import annotations

import ast
import operator
import types

import numpy as np

from ... import errors
from ...core.ir import Const, If, Op
from ...runtime import guards
from .values import MISSING, VDict, static_item

# a table of more functions than this is not unrolled into a choice
MAX_CHOICES = 16

_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, np.ufunc)


def note_item(lowerer, base, target):
    """Note that ``target`` holds an item of ``base``, if ``base`` is a global dict or
    tuple of functions the program reads when it runs."""
    held = lowerer.loaded.get(base) if isinstance(base, str) else None
    if held is None or not isinstance(target, str):
        return
    table = held[2]
    if type(table) not in (dict, tuple) or not 0 < len(table) <= MAX_CHOICES:
        return
    entries = table.values() if type(table) is dict else table
    if all(isinstance(f, _FUNCTIONS) for f in entries):
        lowerer.choices[target] = held


def chosen_call(lowerer, sc, node, out, into, loc):
    """The call ``node`` of an item of a global table of functions (`note_item`), or
    of a dict of functions made in the function (`local_table_call`), lowered as a
    choice among them; None where the callee is no such item."""
    if isinstance(node.func, ast.Call) and not sc.rule_mode and \
            lowerer._static_callee(sc, node.func.func, []) is getattr:
        raise errors.UnsupportedSyntax(
            "calling getattr(obj, name) whose name is known only when the function runs "
            "(revsrc inlines the function a call reaches while transforming)", loc=loc,
            hint="pass the function itself as an argument (revsrc.grad(f)(x, math.sin)), "
                 "or choose it from a dict of functions by the name: "
                 "{\"sin\": math.sin, \"cos\": math.cos}[name](x)")
    if not isinstance(node.func, (ast.Name, ast.Subscript)) or sc.rule_mode:
        return None
    done = local_table_call(lowerer, sc, node, out, into, loc)
    if done is not None:
        return done
    callee = lowerer._expr(sc, node.func, out)
    held = lowerer.choices.get(callee) if isinstance(callee, str) else None
    if held is None:
        return None
    holder, name, table = held
    keys = list(table) if type(table) is dict else list(range(len(table)))
    lowerer.deps.append((holder, name, table, None))
    if type(table) is dict:
        for k in keys:
            f = table[k]
            lowerer.deps.append((table, k, f, f.__code__ if isinstance(f, types.FunctionType)
                                 else None))
    args, kwargs = lowerer._call_args(sc, node, out, loc)
    target = into if into is not None else lowerer.fresh()
    cur, seen = out, set()
    for k in keys:
        f = table[k]
        if id(f) in seen:
            continue
        seen.add(id(f))
        test = lowerer._emit(cur, operator.is_, (callee, Const(f)), None, loc)
        body, orelse = [], []
        lowerer._call_with(sc, f, list(args), list(kwargs), body, target, loc)
        cur.append(If(test, body, orelse, loc=loc))
        cur = orelse
    what = ast.unparse(node.func)
    cur.append(Op(None, guards.raise_error, (
        Const(errors.UnsupportedSyntax),
        Const(f"{what} holds a function that {name} did not hold when the derivative "
              "was made (an entry added since)")),
        (("loc", Const(loc)), ("hint", Const(f"make the derivative again after changing {name}"))),
        loc=loc))
    return target


def local_table_call(lowerer, sc, node, out, into, loc):
    """``table[kind](x)`` where ``table`` is a dict of functions the function makes
    with constant keys (``{"sq": lambda v: v * v, "tanh": math.tanh}``, lambdas that
    read only their parameters) and ``kind`` is known only when the program runs: a
    choice by key, ``if kind == "sq": <lambda inlined> elif ...``, and a key the dict
    does not hold raises KeyError, as Python does. None for any other call."""
    func = node.func
    if not isinstance(func, ast.Subscript):
        return None
    scratch = []
    table = lowerer._expr(sc, func.value, scratch)
    if scratch or not isinstance(table, VDict) or not 0 < len(table.keys) <= MAX_CHOICES:
        return None
    fns = [static_item(table, k) for k in table.keys]
    if any(f is MISSING for f in fns):
        return None
    key = lowerer._val(sc, func.slice, out)
    args, kwargs = lowerer._call_args(sc, node, out, loc)
    target = into if into is not None else lowerer.fresh()
    cur = out
    for k, f in zip(table.keys, fns):
        test = lowerer._emit(cur, operator.eq, (key, Const(k)), None, loc)
        body, orelse = [], []
        lowerer._call_with(sc, f, list(args), list(kwargs), body, target, loc)
        cur.append(If(test, body, orelse, loc=loc))
        cur = orelse
    cur.append(Op(None, guards.raise_error, (Const(KeyError), key), loc=loc))
    return target
