"""``sum`` of a list the function builds only to sum it, as the engine runs it.

``sum(f(k) for k in range(n))`` lowers to a list built by appending in a loop and then
summed (revsrc/frontend/lower): the engine holds no lists, but this one is only ever
appended to and summed, so a running total gives what ``sum`` gives. Up to Python
3.11, ``sum`` adds the items left to right to the int 0 (CPython's ``builtin_sum``: a
C long while the items are ints, a C double once one is a float, which rounds as
``+`` of Python's float does). So the list becomes that running total: made, it is the
int 0; each append adds the item; a ``sum`` of it reads the total (of the items
appended so far, as ``sum`` of the list then would).

The one difference is the type of an empty sum of floats, the int 0 where the total
is held as a float: the program then defers to Python (RAISE FALLBACK), which runs the
function itself. Items of different kinds (an int here, a float there) are left as
they are (refused). From Python 3.12 ``sum`` of floats adds with a compensation term
(Neumaier's), which no running total reproduces bit for bit: there the list is left
as it is, and the engine refuses it as before.
"""
from __future__ import annotations

import builtins
import operator
import sys

from ...core import ir, kinds
from ...core.ir import Const, If, Op
from ...passes import analysis
from ... import runtime
from ...runtime import containers, guards, inplace
from ...runtime.grads import reductions

__all__ = ["running_totals", "numbers_updated"]

_SUMS_LEFT_TO_RIGHT = sys.version_info < (3, 12)


def _candidates(program):
    """{list name: [its appended operands]} for lists made empty, appended to and
    summed (and, in a derivative, given to the adjoint of that sum), read nowhere else."""
    made, appended, summed, other = {}, {}, set(), set()
    for s in ir.walk(program.body):
        if isinstance(s, Op) and s.fn is ir.make_list and not s.args and not s.kwargs:
            made[s.target] = made.get(s.target, 0) + 1
            continue
        if isinstance(s, Op) and s.fn is containers.append and len(s.args) == 2 and \
                s.args[0] == s.target and not s.kwargs:
            appended.setdefault(s.target, []).append(s.args[1])
            other.update(a for a in s.args[1:] if isinstance(a, str))
            continue
        if isinstance(s, Op) and s.fn is builtins.sum and len(s.args) == 1 and \
                not s.kwargs and isinstance(s.args[0], str):
            summed.add(s.args[0])
            continue
        if isinstance(s, Op) and s.fn is reductions.sum_list_grad and len(s.args) == 2:
            other.update(a for a in s.args[:1] if isinstance(a, str))
            other.add(s.target)
            continue
        other.update(ir.reads(s))
        other.update(ir.writes(s))
    outside = set(program.params) | {o for o in program.outputs if isinstance(o, str)}
    return {n: appended.get(n, []) for n in made
            if n in summed and n not in other and n not in outside}


def _item_kind(items, found):
    """The one kind of every item (float, or int for ints and bools; int for none, as
    the sum of nothing is the int 0), or None."""
    if not items:
        return kinds.INT
    ks = {kinds.of_value(a.value) if isinstance(a, Const) else found.get(a) for a in items}
    ks = {kinds.INT if k == kinds.BOOL else k for k in ks}
    if len(ks) == 1 and ks <= {kinds.INT, kinds.FLOAT}:
        return ks.pop()
    return None


def running_totals(program):
    """``program`` with each list it builds only to sum (see the module) held as a
    running total, its kinds inferred again; ``program`` itself if it has none.

    In a derivative, the adjoint of such a sum of floats is the sum's adjoint for
    every item (`sum_list_grad`), which the reverse sweep reads item by item from the
    end (`item_grad`, `head_grad`, which give a number as it is): one number then."""
    if not _SUMS_LEFT_TO_RIGHT:
        return program
    found = program.kinds
    lists = {n: _item_kind(items, found) for n, items in _candidates(program).items()}
    lists = {n: k for n, k in lists.items() if k is not None}
    if not lists:
        return program
    flags = {n: program.names.fresh(f"{n}_any") if program.names is not None else
             f"{n}_any_" for n, k in lists.items() if k == kinds.FLOAT}
    spread = set()           # adjoints of such sums: one number for every item

    def rewrite(stmts):
        out = []
        for s in stmts:
            name = s.target if isinstance(s, Op) else None
            if name in lists and s.fn is ir.make_list:
                out.append(Op(name, ir.copy, (Const(0),), loc=s.loc))
                if name in flags:
                    out.append(Op(flags[name], ir.copy, (Const(False),), loc=s.loc))
            elif name in lists and s.fn is containers.append:
                out.append(Op(name, operator.add, (name, s.args[1]), loc=s.loc))
                if name in flags:
                    out.append(Op(flags[name], ir.copy, (Const(True),), loc=s.loc))
            elif isinstance(s, Op) and s.fn is builtins.sum and s.args[0] in lists:
                total = s.args[0]
                if total in flags:     # sum of no floats: Python's int 0
                    out.append(If(flags[total], [], [Op(None, guards.raise_error, (
                        Const(ValueError),), loc=s.loc)], loc=s.loc))
                out.append(Op(s.target, ir.copy, (total,), loc=s.loc))
            elif isinstance(s, Op) and s.fn is reductions.sum_list_grad and \
                    lists.get(s.args[1]) == kinds.FLOAT:
                spread.add(s.target)
                out.append(Op(s.target, ir.copy, (s.args[0],), loc=s.loc))
            elif isinstance(s, Op) and s.fn in (containers.item_grad, containers.head_grad) \
                    and s.args[0] in spread:
                spread.add(s.target)
                out.append(Op(s.target, ir.copy, (s.args[0],), loc=s.loc))
            else:
                out.append(ir.map_children(s, rewrite))
        return out
    forward = rewrite(program.body[:program.forward_len])
    body = forward + rewrite(program.body[program.forward_len:])
    return with_kinds(program, body, len(forward), set(lists) | set(flags) | spread)


def with_kinds(program, body, forward_len, changed):
    """``program`` with ``body``, the kinds of ``changed`` and of every variable
    computed from them inferred again (the others kept)."""
    dirty = set(changed)
    for _ in range(len(body) + 50):
        grown = False
        for s in ir.walk(body):
            for w in ir.writes(s):
                if w not in dirty and any(r in dirty for r in ir.reads(s)):
                    dirty.add(w)
                    grown = True
        if not grown:
            break
    seed = {n: k for n, k in program.kinds.items() if n not in dirty}
    params = list(program.params)
    pk = [program.kinds.get(p, kinds.ANY) for p in params]
    found, _ = analysis.infer_kinds(params, pk, [None] * len(params), body, seed=seed)
    return ir.Program(program.name, params, body, program.outputs, found,
                      forward_len=forward_len, names=program.names,
                      deps=program.deps)


def numbers_updated(program):
    """``program`` with each ``x op= y`` whose ``x`` was of a kind unknown while the
    function was lowered (an array would change in place: its check and dtype kept)
    and is now known to be a number, as ``x = x op y``: the checks pass on a number,
    and the result is the new value as it is (revsrc/runtime/inplace.py); and without
    the check that an output of such a kind is a number, where it is a float or int."""
    if not any(isinstance(s, Op) and s.fn in _UPDATES for s in ir.walk(program.body)):
        return program
    found = program.kinds

    def number(s):
        a = s.args[0]
        k = kinds.of_value(a.value) if isinstance(a, Const) else found.get(a)
        # (a bool is not a scalar output: that check stays, and is refused)
        return k in (kinds.INT, kinds.FLOAT) or (k == kinds.BOOL and s.fn in _UPDATES[:3])

    def rewrite(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.fn in _UPDATES and s.args and number(s):
                if s.fn is inplace.in_place:
                    out.append(Op(s.target, ir.copy, (s.args[0],), loc=s.loc))
                continue          # the checks and array_dtype of a number: nothing
            out.append(ir.map_children(s, rewrite))
        return out
    forward = rewrite(program.body[:program.forward_len])
    body = forward + rewrite(program.body[program.forward_len:])
    return ir.Program(program.name, program.params, body, program.outputs, found,
                      forward_len=len(forward), names=program.names, deps=program.deps)


_UPDATES = (runtime.check_immutable, inplace.array_dtype, inplace.in_place,
            runtime.check_scalar_output)
