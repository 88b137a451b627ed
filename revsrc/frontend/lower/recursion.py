"""Recursion whose depth ints known when transforming decide: ``P(n, x)`` calling
``P(n - 1, x)`` and ``P(n - 2, x)`` with ``n`` a constant (a literal, an item of a
static loop's range, a partial's argument) is inlined call by call, like any helper,
until the base case, which a condition on those ints picks while transforming. The
program is then the recurrence written out for that ``n``; another ``n`` is another
call site and lowers its own.

Recursion is refused (E103) where what decides it is known only when the function
runs: a call with no int constant among its arguments, or with the same int
constants as the call it is made from (it would never reach a base case while
transforming), and past `MAX_DEPTH` levels or `MAX_CALLS` inlined calls (a recurrence
that branches twice per level grows fast: a loop is the better program).
"""
from __future__ import annotations

import operator

from ... import errors
from ...core.ir import Const, Op

# int arithmetic a recursive call's arguments are made with (n - 1, 2 * n, n // 2)
_INT_OPS = {operator.add: operator.add, operator.sub: operator.sub,
            operator.mul: operator.mul, operator.floordiv: operator.floordiv,
            operator.mod: operator.mod, operator.neg: operator.neg,
            operator.eq: operator.eq, operator.ne: operator.ne, operator.lt: operator.lt,
            operator.le: operator.le, operator.gt: operator.gt, operator.ge: operator.ge,
            operator.not_: operator.not_}

MAX_DEPTH = 40
MAX_CALLS = 4000


def folded_call(lowerer, out, args, kwargs):
    """A recursive call's operands, folded (see `fold`)."""
    return fold(lowerer, out, args), list(zip([k for k, _ in kwargs],
                                              fold(lowerer, out, [v for _, v in kwargs])))


def fold(lowerer, out, operands):
    """``operands`` with each temporary computed just before from int constants by
    int arithmetic (``n - 1`` for a constant ``n``) replaced by its constant, so the
    recursive call's conditions on it are decided while transforming."""
    return [_folded(lowerer, out, o, 8) for o in operands]


def _folded(lowerer, out, operand, depth):
    if not (isinstance(operand, str) and lowerer.names.is_temp(operand)) or depth == 0:
        return operand
    for s in reversed(out[-64:]):
        if isinstance(s, Op) and s.target == operand:
            fn = _INT_OPS.get(s.fn)
            if fn is None or s.kwargs:
                return operand
            args = [_folded(lowerer, out, a, depth - 1) for a in s.args]
            if all(isinstance(a, Const) and type(a.value) in (int, bool) for a in args):
                try:
                    return Const(fn(*(a.value for a in args)))
                except ZeroDivisionError:
                    return operand
            return operand
    return operand


def fold_condition(lowerer, sc, out, test):
    """The test of an ``if`` in a function called with int constants, decided while
    transforming when it is int arithmetic and comparisons of them (``n == 0``,
    ``n < 2``): the base case of a recursion on ``n`` is picked there."""
    if not any(v is not None for v in getattr(sc, "recursion_ints", None) or ()):
        return test
    return _folded(lowerer, out, test, 8)


def int_constants(args, kwargs):
    """The int constants among a call's operands, by position (None for the others)."""
    values = list(args) + [v for _, v in sorted(kwargs, key=lambda kv: kv[0])]
    return tuple(v.value if isinstance(v, Const) and type(v.value) is int else None
                 for v in values)


def check(lowerer, sc, key, name, args, kwargs, loc):
    """Refuse the recursive call of ``key`` (named ``name``) with operands ``args``
    and ``kwargs`` from scope ``sc`` unless int constants decide it."""
    given = int_constants(args, kwargs)
    hint = (f"call {name} with its int arguments written as constants inside the "
            f"function you transform (a literal: {name}(5, x), or a loop over range(...) "
            "with constant bounds), or rewrite the recursion as a loop; an int passed "
            "to the derivative is known only when it runs")
    if not any(v is not None for v in given):
        raise errors.RecursionNotSupported(
            f"{name} calls itself (recursion) with no int argument known when "
            "transforming; revsrc inlines calls and unrolls only recursion whose depth "
            "int constants decide", loc=loc, hint=hint)
    caller = getattr(sc, "recursion_ints", None) if sc is not None else None
    if caller == given:
        raise errors.RecursionNotSupported(
            f"{name} calls itself with the same int arguments: what ends the recursion "
            "is known only when the function runs", loc=loc, hint=hint)
    depth = sum(1 for k in lowerer.inline_stack if k is key)
    count = getattr(lowerer, "recursive_calls", 0) + 1
    lowerer.recursive_calls = count
    if depth >= MAX_DEPTH or count > MAX_CALLS:
        raise errors.RecursionNotSupported(
            f"{name}'s recursion is deeper than {MAX_DEPTH} levels or makes more than "
            f"{MAX_CALLS} calls when unrolled", loc=loc,
            hint="rewrite the recursion as a loop")
