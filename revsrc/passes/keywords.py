"""A call's operands at the positions its function gives them, whatever the spelling.

``np.dot(b=v, a=K)``, ``np.sum(a=v, axis=0)`` and ``np.clip(K, min=v)`` (NumPy 2)
call the same functions as ``np.dot(K, v)``, ``np.sum(v, 0)`` and
``np.clip(K, v, None)``. Every consumer of a call (kind rules, both modes'
activity, rule binding, forward rules applied to tangents, back ends) reads
operands by position first, so a differentiated value passed by keyword was easy
to miss in one of them and not the others. `bind_keywords` settles it once, right
after lowering: each keyword that names a positional parameter of the called
function moves to its position, gaps before it filled with the function's
defaults, as far as the function's signature and its rule's parameters agree on
the names in order (np.var's rule has no ``out`` where NumPy has it: ``ddof=``
stays a keyword; a rule may name a parameter otherwise, np.array's ``object`` its
``a``). What cannot move (a keyword-only parameter, a gap with no plain
default, a disagreement) stays a keyword, and the passes bind it by name.
"""
from __future__ import annotations

import inspect

import numpy as np

from .. import primitives
from ..core import ir
from ..core.ir import Const, Op

# Other spellings of parameters: NumPy 2.1's clip(min=, max=) for
# a_min/a_max; a bound left out is None, which np.clip takes for "no bound" (the
# rule's own default), so K.clip(v) and clip(K, max=v) bind like clip(K, v, None).
# The Array API's std/var(correction=) is NumPy's ddof=.
_SPELLINGS = {np.clip: ({"min": "a_min", "max": "a_max"}, {"a_min": None, "a_max": None}),
              np.std: ({"correction": "ddof"}, {}), np.var: ({"correction": "ddof"}, {})}

_SIGNATURES = {}
_PLAIN = (type(None), bool, int, float, str)


def bind_keywords(body):
    """Rewrite, in place, every call in ``body`` to a function with a rule so that its
    keyword operands sit at their positions where its signature allows."""
    for s in ir.walk(body):
        if isinstance(s, Op) and (s.kwargs or s.fn in _SPELLINGS):
            _bind(s)
    return body


def _positional(fn):
    """The positional parameters of ``fn`` ((name, default) in order), or None."""
    try:
        key = fn if hash(fn) is not None else None
    except TypeError:
        return None
    hit = _SIGNATURES.get(key, _SIGNATURES)
    if hit is not _SIGNATURES:
        return hit
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    out = None if sig is None else [
        (p.name, p.default) for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    _SIGNATURES[key] = out
    return out


def _rule(fn):
    prim = primitives.lookup(fn)
    if prim is None:
        return None
    if prim.vjp is not None:
        return prim.vjp
    return prim.jvp if isinstance(prim.jvp, primitives.Rule) else None


def _usable(default):
    return default is not inspect.Parameter.empty and default is not np._NoValue \
        and isinstance(default, _PLAIN)


def _bind(op):
    rule = _rule(op.fn)
    real = _positional(op.fn) if rule is not None else None
    if real is None:
        return
    spellings, fills = _SPELLINGS.get(op.fn, ({}, {}))
    kwargs = {}
    for k, v in op.kwargs:
        k = spellings.get(k, k)
        if k in kwargs:
            return   # both spellings given: NumPy refuses it, so let it
        kwargs[k] = v
    args = list(op.args)
    # no further than the rule's parameters (it binds positions beyond them to
    # nothing), nor than the last operand that needs a position: the first (kind rules
    # read it) or one the rule differentiates. Options stay keywords (a back end's
    # twin may take them by keyword only: jax.nn.softmax's axis)
    full = limit = min(len(real), len(rule.params))
    needed = [i for i, (n, _) in enumerate(real[:limit])
              if n in kwargs and (i == 0 or rule.differentiable(i))]
    limit = max(needed, default=-1) + 1
    real_names = {n for n, _ in real}
    while len(args) < limit and kwargs:
        name, default = real[len(args)]
        ours = rule.params[len(args)]
        if name in kwargs and (ours == name or (
                name not in rule.params and ours not in real_names)):
            # the same parameter, or one the rule names otherwise (np.array's
            # object=, its rule's a): the rule binds it by position either way
            args.append(kwargs.pop(name))
            continue
        if ours != name:
            break   # the rule's parameter here is another (np.var's ddof, NumPy's out)
        later = [n for n, _ in real[len(args) + 1:limit] if n in kwargs]
        if not later:
            break
        if name in fills:
            args.append(Const(fills[name]))
        elif _usable(default):
            args.append(Const(default))
        else:
            break
    for name, value in fills.items():   # np.clip(K, v): the other bound is None
        i = [n for n, _ in real].index(name)
        if len(args) == i and i < full and rule.params[i] == name and not kwargs:
            args.append(Const(value))
    op.args = tuple(args)
    op.kwargs = tuple(kwargs.items())
