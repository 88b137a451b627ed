"""Values of calls known when transforming (frontend/lower/calls.py): the operands of a
transformation or ``functools.partial`` made then, a partial bound to the program's
values, and the leaves of a container known when transforming."""
from __future__ import annotations

import ast
import functools

import numpy as np

from ... import errors
from ...core.ir import Const
from .values import Known, NestedDef, NestedPartial, Partial, VDict, VTuple

__all__ = ["bound_here", "known_when_transforming", "made_now", "partial_of_values",
           "static_leaves", "static_value"]


def known_when_transforming(v):
    """Whether the operand ``v`` is a value known when transforming: a function, a
    constant that is not an array, or a tuple of them written in the call
    (``in_axes=(None, 0)``, ``argnums=(0, 1)``)."""
    if isinstance(v, tuple):
        return all(known_when_transforming(x) for x in v)
    return isinstance(v, Known) or (
        isinstance(v, Const) and not isinstance(v.value, (np.ndarray, np.generic)))


def static_value(v):
    return tuple(static_value(x) for x in v) if isinstance(v, tuple) else v.value


def made_now(maker, args, kwargs, loc):
    """``Known(maker(...))``, a transformation made while transforming on operands
    known then. Of a def made in the function: ``revsrc.jit(h)`` is ``h`` itself (it
    computes what ``h`` does, with its digits: `_revsrc_computes_as_given`); any
    other transformation of one is refused (E101)."""
    if any(isinstance(v, Known) and isinstance(v.value, (NestedDef, NestedPartial))
           for v in list(args) + [v for _, v in kwargs]):
        if getattr(maker, "_revsrc_computes_as_given", False) and len(args) == 1 and \
                not kwargs:
            return args[0]
        raise errors.UnsupportedSyntax(
            f"{getattr(maker, '__name__', 'a transformation')}() of a function defined "
            "inside the function being transformed", loc=loc,
            hint="define that function at module level, passing what it reads from "
                 "the enclosing function as arguments")
    try:
        return Known(maker(*[static_value(v) for v in args],
                           **{k: static_value(v) for k, v in kwargs}))
    except errors.RevsrcError as exc:
        raise (exc if exc.filename is not None else errors.located(exc, loc)) from None


def partial_of_values(lowerer, sc, node, maker, scratch_args, out, loc):
    """``functools.partial(f, ...)`` on values known only when the program runs, ``f``
    a function known now: a `Partial` of the operands, evaluated here once (as Python
    binds them when the partial is made). None for anything else."""
    if maker is not functools.partial or not scratch_args or \
            not isinstance(scratch_args[0], Known) or \
            any(isinstance(a, ast.Starred) for a in node.args) or \
            any(k.arg is None for k in node.keywords):
        return None
    args, kwargs = lowerer._call_args(sc, node, out, loc)
    taken = [lowerer._snapshot_deep(a, out, loc) for a in args[1:]]
    kw = [(k, lowerer._snapshot_deep(v, out, loc)) for k, v in kwargs]
    return Known(Partial(args[0].value, taken, kw))


def static_leaves(lowerer, v):
    """The leaves of ``v`` in `pytree.tree_flatten`'s order, where ``v`` is a leaf of an
    argument taken apart (``revsrc.tree_leaves(params)``), or a tuple, list or dict
    known when transforming of those and constants; else None."""
    if isinstance(v, (VTuple, VDict)):     # a namedtuple's fields in order too
        out = []
        for item in (v if isinstance(v, VTuple) else v.values):
            got = static_leaves(lowerer, item)
            if got is None:
                return None
            out += got
        return out
    if isinstance(v, Const) and v.value is None:
        return []
    if isinstance(v, Const) and isinstance(v.value, (bool, int, float, complex, str)):
        return [v]
    if isinstance(v, str) and v in lowerer.tree_leaf_params:
        return [v]
    return None


def bound_here(sc, name):
    """Whether ``name`` is bound in the function or an enclosing one (so resolving it
    emits no code), not a global or closure variable."""
    while sc is not None:
        if name in sc.env or name in sc.defs:
            return True
        sc = sc.enclosing
    return False
