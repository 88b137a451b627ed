"""Rules as IR templates: each rule is lowered once per namespace, then copied.

The reverse (and forward) transformations inline a primitive's rule at every call.
Lowering the rule's Python source each time would make them drive the front end;
instead `template` lowers it once (per ``xp`` namespace: math's or NumPy's) into IR
over the variables ``g``, ``ans`` and the rule's parameters, and `instantiate`
copies that IR with the parameters replaced by the call's operands and every other
name replaced by a fresh temporary of the program being built.
"""
from __future__ import annotations

from dataclasses import dataclass

import operator

import numpy as np

from ..runtime import ieee
from ..core import ir
from ..core.ir import Op
from ..frontend.lower.lowerer import Lowerer

_CACHE = {}


@dataclass
class Template:
    params: tuple      # "g", "ans", then the rule's parameters
    body: list         # statements before the return
    outputs: list      # per rule output: (statements, operand) or None


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


_IEEE = {operator.truediv: ieee.div, operator.pow: ieee.pow}


def _ieee(stmts):
    """A rule's ``/`` and ``**`` on numbers as IEEE operations (revsrc/ieee.py): its
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

