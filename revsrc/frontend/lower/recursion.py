"""Recursion whose depth ints decide: ``P(n, x)`` calling ``P(n - 1, x)`` and
``P(n - 2, x)`` is inlined call by call, like any helper, until the base case, which
a condition on those ints picks while transforming. The program is then the
recurrence written out for that ``n``, as a tracer would run it.

The ints are constants (a literal, an item of a static loop's range, a partial's
argument), or an int argument of the function transformed, ``grad(P, argnums=1)(5,
x)``: its value is known only at the call, so the recursion asks for it
(`NeedsIntValues`), and the transformation is made again for that value, which its
cache key then holds (`kinds.int_value`): a call with another ``n`` transforms
again, a call with the same one runs the program made for it.

Recursion is refused (E103) where what decides it is known only when the function
runs: a call with no int among its arguments that is a constant or an argument of
the function transformed (a differentiated value), or with the same int constants
as the call it is made from (it would never reach a base case while transforming),
and past `MAX_DEPTH` levels or `MAX_CALLS` inlined calls (a recurrence that branches
twice per level grows fast: a loop is the better program).
"""
from __future__ import annotations

import ast
import contextvars
import operator
import types

from ... import errors
from ...core import ir, kinds
from ...core.ir import Const, Op
from ...core.source import ast_nodes
from .values import Known, NestedDef

# int arithmetic a recursive call's arguments are made with (n - 1, 2 * n, n // 2)
_INT_OPS = {operator.add: operator.add, operator.sub: operator.sub,
            operator.mul: operator.mul, operator.floordiv: operator.floordiv,
            operator.mod: operator.mod, operator.neg: operator.neg,
            operator.eq: operator.eq, operator.ne: operator.ne, operator.lt: operator.lt,
            operator.le: operator.le, operator.gt: operator.gt, operator.ge: operator.ge,
            operator.not_: operator.not_}

MAX_DEPTH = 40
MAX_CALLS = 4000


class NeedsIntValues(errors.RecursionNotSupported):
    """A recursion decided by int arguments ``params`` of ``fn``, the function being
    transformed: its transformation is made again for their values. Where nothing
    can (a program asked for without the arguments' values), it is the refusal it
    derives from, E103."""

    def __init__(self, fn, params, message, loc=None, hint=None):
        super().__init__(message, loc=loc, hint=hint)
        self.fn, self.params = fn, frozenset(params)


# (the function being lowered, its int parameters of no known value by IR name)
# while the derivatives called in it are inlined (passes/pipeline.py)
LOWERING = contextvars.ContextVar("revsrc_recursion_lowering", default=None)


def lower_called(lower, binding, sig, args, loc):
    """``lower(sig)`` for a derivative (its `arguments.Binding` ``binding``) called
    with operands ``args`` inside a function being lowered; where a recursion its int
    arguments decide asks for their values (`NeedsIntValues`), made for the constants
    the call passes, or asking the function being lowered for its own int arguments
    the call passes."""
    while True:
        try:
            return lower(tuple(sig))
        except NeedsIntValues as exc:
            if exc.fn is not binding.callee.fn:
                raise
            new, outer = list(sig), set()
            current = LOWERING.get()
            for i, (p, a) in enumerate(zip(binding.params, args)):
                if p not in exc.params:
                    continue
                if isinstance(a, Const) and type(a.value) is int:
                    new[i] = kinds.int_value(a.value)
                elif current is not None and isinstance(a, str) and a in current[1]:
                    outer.add(current[1][a])
                else:
                    raise
            if outer:
                raise NeedsIntValues(current[0], outer, exc.message, loc=loc,
                                     hint=exc.hint) from None
            if new == list(sig):
                raise
            sig = new


def learn(exc, binding, flat):
    """Whether the transformation of `arguments.Binding` ``binding``, given its
    program's arguments ``flat`` (None: not given), can be made again for the values
    `NeedsIntValues` ``exc`` asks for: if so, ``binding`` notes its parameters."""
    if flat is None or exc.fn is not binding.callee.fn or exc.params <= binding.valued:
        return False
    binding.valued |= exc.params
    return True


def bind_int_param(lowerer, sc, param, value):
    """Bind int parameter ``param`` of the function lowered: to ``value``, the one
    the program is made for, or (None) to itself, noting that a recursion it decides
    may ask for its value."""
    if value is not None:
        sc.env[param] = Const(value)
        # its tests are decided now too (`fold_condition`): pe(x, 0)'s base case is
        # picked in the function transformed itself, as in the calls it unrolls
        sc.recursion_ints = tuple(getattr(sc, "recursion_ints", None) or ()) + (value,)
        return
    if not hasattr(lowerer, "run_time_ints"):
        lowerer.run_time_ints = {}
    lowerer.run_time_ints[sc.env[param]] = param


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
        if ir.children(s) and any(operand in ir.writes(w) for w in ir.walk([s])):
            return operand    # set again in a branch (a < b < c: the next link's test)
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


def check(lowerer, sc, key, name, args, kwargs, loc, out=()):
    """Refuse the recursive call of ``key`` (named ``name``) with operands ``args``
    and ``kwargs`` from scope ``sc`` (``out``: the statements written so far) unless
    int constants decide it; ask for the values of the function's int arguments
    it is made of (`NeedsIntValues`)."""
    given = int_constants(args, kwargs)
    hint = (f"revsrc unrolls {name}'s recursion for ints known when transforming: "
            f"constants (a literal: {name}(5, x), a loop over range(...) with constant "
            "bounds) or int arguments of the function you transform (made again for "
            "each value given); otherwise rewrite the recursion as a loop")
    _ask_for_values(lowerer, out, args, kwargs, name, loc, hint,
                    everything=not any(v is not None for v in given))
    if not any(v is not None for v in given):
        raise errors.RecursionNotSupported(
            f"{name} calls itself (recursion) with no int argument known when "
            "transforming; revsrc unrolls only recursion whose depth ints decide: "
            "constants, or int arguments of the function transformed (unrolled for "
            "each value given), not values computed when it runs", loc=loc, hint=hint)
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


def _ask_for_values(lowerer, out, args, kwargs, name, loc, hint, everything):
    """Raise `NeedsIntValues` for the int arguments of the function transformed the
    recursive call's operands are made of (``n - 1`` of its ``n``); when none is
    found among them (an int a loop over ``range(n)`` made), for all of them if
    ``everything`` (no int constant decides the call either)."""
    ints = getattr(lowerer, "run_time_ints", None)
    if not ints:
        return
    found = set()
    for o in list(args) + [v for _, v in kwargs]:
        found |= _int_sources(out, o, ints, 8)
    params = found or (set(ints.values()) if everything else ())
    if not params:
        return
    raise NeedsIntValues(
        lowerer.inline_stack[0], params,
        f"{name} calls itself (recursion) with a depth decided by int argument(s) "
        f"{', '.join(sorted(params))} of the function transformed, whose value is "
        "not known where this transformation is made", loc=loc, hint=hint)


def _int_sources(out, operand, ints, depth):
    """The int parameters (of ``ints``) that ``operand`` is computed from by int
    arithmetic and copies, looked up in the statements written so far."""
    if not isinstance(operand, str) or depth == 0:
        return set()
    if operand in ints:
        return {ints[operand]}
    for s in reversed(out[-64:]):
        if isinstance(s, Op) and s.target == operand:
            if s.fn in _INT_OPS or s.fn is ir.copy:
                return set().union(*(_int_sources(out, a, ints, depth - 1)
                                     for a in s.args)) if s.args else set()
            return set()
    return set()


def calls_recursion_with(sc, body, name):
    """Whether ``body`` (a loop's, over ``range`` with constant bounds, its variable
    ``name``) calls a function that calls itself with ``name`` among the operands
    (``for k in range(4): s += P(k, x)``): the loop is unrolled, so that each copy's
    ``k`` is a constant that decides the recursion, as a tracer would run it."""
    for stmt in body:
        for n in ast_nodes(stmt):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                    reads(n, name) and _recursive(sc, n.func.id):
                return True
    return False


def reads(call, name):
    """Whether a call's operands read ``name``."""
    operands = list(call.args) + [k.value for k in call.keywords]
    return any(isinstance(m, ast.Name) and m.id == name
               for a in operands for m in ast_nodes(a))


def _recursive(sc, fname):
    v = sc.env.get(fname)
    v = v.value if isinstance(v, Known) else v
    if isinstance(v, NestedDef):
        return any(isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and
                   m.func.id == fname for m in ast_nodes(v.node))
    fn = sc.globals.get(fname) if v is None else v
    return isinstance(fn, types.FunctionType) and fn.__name__ in fn.__code__.co_names
