"""Values revsrc makes while transforming, and their calls: ``revsrc.grad(h)``,
``functools.partial(h, k=2)`` made there and then (`made_derivative`), and the call of
what ``revsrc.vjp`` or ``revsrc.linearize`` returned (`made_value_call`).
"""
from __future__ import annotations

import ast
import functools
import operator

import numpy as np

from ... import errors
from ...core import ir, pytree
from ...core.ir import Const, Op
from .classes import plain_init_class
from .partials import bound_here, known_when_transforming, made_now, partial_of_values
from .values import Known, NestedDef, NestedPartial, constant_key, made_when_transforming


def _maker(lowerer, sc, func, out):
    """(the function known when transforming whose call made the value ``func`` calls,
    that call and its index in ``out`` or None, the item of its result called or None):
    ``revsrc.vmap(f)(x)``, ``g = revsrc.vmap(f)`` then ``g(x)``, ``out, back =
    revsrc.vjp(f, x)`` then ``back(ct)``, ``revsrc.vjp(f, x)[1](ct)``."""
    if isinstance(func, ast.Call):
        return lowerer._static_callee(sc, func.func, out), None, None
    name = sc.env.get(func.id) if isinstance(func, ast.Name) else None
    item = None
    if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Call) and \
            type(constant_key(func.slice)) is int:
        # revsrc.vjp(f, x)[1](ct): the maker's call lowered here, its item called
        name, item = lowerer._expr(sc, func.value, out), constant_key(func.slice)
    for k in range(len(out) - 1, -1, -1):
        s = out[k]
        if not (isinstance(name, str) and isinstance(s, Op) and s.target == name):
            continue
        if s.fn is ir.copy and isinstance(s.args[0], str):
            name = s.args[0]
        elif s.fn is operator.getitem and item is None and isinstance(s.args[0], str) \
                and isinstance(s.args[1], Const) and type(s.args[1].value) is int:
            name, item = s.args[0], s.args[1].value
        else:
            return s.fn, (s, k), item
    return None, None, None


def made_value_call(lowerer, sc, node, out, into, loc):
    """The call ``node`` of a value a function revsrc made: refused as that function
    says (``revsrc.vmap(f)``: E104, as a mapped function made outside), or, for the
    function revsrc.vjp or revsrc.linearize returned (the second item of their result),
    a call of their ``_revsrc_value_call`` with the maker, the number of primals, the
    maker's operands and this call's (revsrc/nested.py makes its IR), as long as no
    operand of the maker was assigned again since. None: neither."""
    maker, made, item = _maker(lowerer, sc, node.func, out)
    refuse = getattr(maker, "_revsrc_refuse_value_call", None)
    if callable(refuse):
        refuse(loc)
    call = getattr(maker, "_revsrc_value_call", None)
    if not callable(call) or made is None or item != 1 or node.keywords or \
            any(isinstance(a, ast.Starred) for a in node.args):
        return None
    op, at = made
    operands = {a for a in op.args if isinstance(a, str)}
    if any(operands & set(ir.writes(s)) for s in ir.walk(out[at + 1:])):
        return None
    args = [lowerer._materialize(lowerer._expr(sc, a, out), out, loc) for a in node.args]
    return lowerer._emit(out, call, [Const(maker), Const(len(op.args) - 1)] +
                         list(op.args) + args, into, loc)


def calls_maker(lowerer, sc, func):
    """Whether ``func`` (a call's callee, as written) names ``functools.partial`` or a
    transformation made while transforming (`made_when_transforming`); names not
    resolvable here (a comprehension's own variable) are not."""
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    try:
        return made_when_transforming(lowerer._static_callee(sc, func, []))
    except errors.RevsrcError:
        return False


def calls_plain_class(lowerer, sc, func):
    """Whether ``func`` (a call's callee, as written) names a class of the user's whose
    objects are made when transforming (classes.py, `plain_init_class`), a namedtuple's
    or a dataclass's."""
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    try:
        cls = lowerer._static_callee(sc, func, [])
    except errors.RevsrcError:
        return False
    return isinstance(cls, type) and (plain_init_class(cls) or pytree.node_of_class(cls) in (
        "namedtuple", "dataclass"))


def calls_vectorize(lowerer, sc, func):
    """Whether ``func`` (a call's callee, as written) names ``np.vectorize``, whose call
    on a function or lambda is made when transforming (mapping.py, `vectorize_of`)."""
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    try:
        return lowerer._static_callee(sc, func, []) is np.vectorize
    except errors.RevsrcError:
        return False


def made_derivative(lowerer, sc, node, out, loc):
    """``Known(revsrc.grad(h))`` for the call ``node`` of a transformation that marks
    itself ``_revsrc_made_when_transforming`` (grad, value_and_grad, the Jacobians,
    hessian), or of ``functools.partial``, on a function and values all known when
    transforming (constants, functions; no arrays, whose items may change): it is
    made then, and its calls become those of one made at module level (a derivative's
    are inlined by revsrc/passes/pipeline.py, a partial's here). None for any other
    call."""
    if sc.rule_mode or not calls_maker(lowerer, sc, node.func):
        return None
    maker = lowerer._static_callee(sc, node.func, out)
    if maker is functools.partial and node.args and not isinstance(node.args[0], ast.Starred):
        nested = _nested_partial(lowerer, sc, node, out, loc)
        if nested is not None:
            return nested
    scratch = []    # a call on values of the program is not made here: nothing kept
    args, kwargs = lowerer._call_args(sc, node, scratch, loc)
    operands = list(args) + [v for _, v in kwargs]
    if scratch or not all(known_when_transforming(v) for v in operands):
        return partial_of_values(lowerer, sc, node, maker, args, out, loc)
    return made_now(maker, args, kwargs, loc)


def _nested_partial(lowerer, sc, node, out, loc):
    """``functools.partial(h, ...)`` of a def made in the function (or of such a
    partial): a `NestedPartial`, whose calls inline the def with what the partials hold
    given first (the values the arguments have here, copied); None for any other."""
    first = node.args[0]
    if isinstance(first, ast.Name) and bound_here(sc, first.id):
        inner = lowerer._resolve(sc, first.id, first, [])   # (a name bound here: no code)
    elif isinstance(first, ast.Call):
        inner = made_derivative(lowerer, sc, first, out, loc)
    else:
        return None
    if not (isinstance(inner, Known) and isinstance(inner.value, (NestedDef, NestedPartial))):
        return None
    inner = inner.value
    args, kwargs = lowerer._call_args(sc, node, out, loc)
    args = [lowerer._snapshot(a, out, loc) for a in args[1:]]
    kwargs = [(k, lowerer._snapshot(v, out, loc)) for k, v in kwargs]
    if isinstance(inner, NestedDef):
        return Known(NestedPartial(inner, args, kwargs))
    given = {k for k, _ in kwargs}
    return Known(NestedPartial(inner.nested, inner.args + args,
                               [kv for kv in inner.kwargs if kv[0] not in given] + kwargs))
