"""Rules as IR templates: each rule is lowered once per namespace, then copied.

The reverse (and forward) transformations inline a primitive's rule at every call.
Lowering the rule's Python source each time would make them drive the front end;
instead `template` lowers it once (per ``xp`` namespace: math's or NumPy's) into IR
over the variables ``g``, ``ans`` and the rule's parameters, and `instantiate`
copies that IR with the parameters replaced by the call's operands and every other
name replaced by a fresh temporary of the program being built. `bind` says which
operand each parameter is at a call site, and `for_call` which namespace's
template the call takes: both passes ask them, so a call binds the same way in both.
"""
from __future__ import annotations


import operator

import numpy as np

from .. import errors, primitives
from ..runtime import ieee
from ..core import ir
from ..core.ir import Const, Op
from ..core.record import record
from .analysis import SCALARS
from ..frontend.lower.lowerer import Lowerer

_CACHE = {}


@record
class Template:
    params: tuple      # "g", "ans", then the rule's parameters
    body: list         # statements before the return
    outputs: list      # per rule output: (statements, operand) or None

    def __init__(self, params, body, outputs):
        self.params = params
        self.body = body
        self.outputs = outputs


def template(rule, xp):
    """The IR template of ``rule`` with ``xp`` bound to the namespace ``xp``."""
    key = (id(rule.fn), id(xp))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is rule.fn:
        return hit[1]
    rule.load()
    body, outs = Lowerer().lower_rule(rule, xp)
    if xp is not np:
        body, outs = _ieee(body), [o if o is None else (_ieee(o[0]), o[1]) for o in outs]
    t = Template(("g", "ans") + tuple(rule.params), body, outs)
    _CACHE[key] = (rule.fn, t)
    return t


def on_numbers(op, kinds):
    """Whether every operand of call ``op`` is a number, so that its rule runs on
    numbers (math's namespace, IEEE division) rather than on arrays. A constant is
    a number unless it is an array: a NumPy scalar (np.float64(2.0)) behaves as the
    Python number it holds, as `kinds.of_value` says, though it has a ``shape``."""
    return all(kinds.get(a) in SCALARS if isinstance(a, str)
               else not isinstance(a.value, np.ndarray) for a in op.args)


def for_call(rule, op, kinds, on_arrays=False):
    """The template of ``rule`` (a record's `primitives.Rule`) for call ``op``: math's
    namespace when its operands are all numbers, NumPy's otherwise or with
    ``on_arrays``."""
    prim = primitives.lookup(op.fn)
    scalar = not on_arrays and on_numbers(op, kinds)
    return template(rule, primitives.namespace(prim.alias(op.fn).family, scalar))


def bind(rule, op, ans, g=None):
    """The parameters of ``rule``'s template bound to call ``op``: ``g`` to the
    adjoint or tangent (left out: the caller binds it per input), ``ans`` to the
    call's result, each of the rule's parameters to the operand passed for it or,
    left out, to its default (None without one). A keyword the rule does not name,
    or more operands than it has parameters, is refused: the rule would read the
    wrong values."""
    env = {"ans": ans} if g is None else {"g": g, "ans": ans}
    for name, value in zip(rule.params, op.args):
        env[name] = value
    for name, value in op.kwargs:
        if name not in rule.params:
            raise errors.NoRule(f"keyword {name!r} of {_name(op.fn)} is not supported "
                                "by its rule", loc=op.loc)
        env[name] = value
    if len(op.args) > len(rule.params):
        raise errors.NoRule(f"{_name(op.fn)} called with more arguments than its rule "
                            "knows", loc=op.loc)
    for name in rule.params:
        env.setdefault(name, Const(rule.defaults.get(name)))
    return env


def _name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


_IEEE = {operator.truediv: ieee.div, operator.pow: ieee.pow}


def _ieee(stmts):
    """A rule's ``/`` and ``**`` on numbers as IEEE operations (revsrc/runtime/ieee.py): its
    derivative is inf where the function's is infinite, not a ZeroDivisionError."""
    for s in ir.walk(stmts):
        if isinstance(s, Op) and s.fn in _IEEE:
            s.fn = _IEEE[s.fn]
    return stmts


def instantiate(t, env, indices, names, loc):
    """The statements and output operands of outputs ``indices`` of template ``t``,
    with each parameter ``p`` replaced by ``env[p]`` (a variable name or a Const) and
    every other variable by a fresh temporary from ``names``; ``loc`` on every op."""
    fresh = {}

    def rename(n):
        if n in env:
            return env[n]
        if n not in fresh:
            fresh[n] = names.temp()
        return fresh[n]

    stmts = ir.rename(t.body, rename)
    outs = []
    for i in indices:
        ops, operand = t.outputs[i]
        stmts += ir.rename(ops, rename)
        outs.append(rename(operand) if isinstance(operand, str) else operand)
    for s in stmts:
        if isinstance(s, Op):
            s.loc = loc
    return stmts, outs

