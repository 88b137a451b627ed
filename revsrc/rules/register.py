"""The decorators the rule modules register records with.

Each calls `primitives.define` with the record's facts, so that a rule module reads
as a list of rules: the decorator above a rule function says which functions it is
the rule of and what else their record knows. They live with the rules (not in
revsrc/primitives.py) because the elementwise ones take their default kind rule from
revsrc/rules/kind_rules.py.
"""
from __future__ import annotations

from . import kind_rules as KR
from ..primitives import Rule, define


def elementwise(name, *fns, engine=None, companion=None, fused=None,
                kind=KR.elementwise_kind, broadcast=True, family=None, complex_ok=False,
                jax=None):
    """Register the decorated rule for the elementwise functions ``fns``: broadcasting
    is undone once by the transformation, and the forward rule is this one with ``g``
    read as the input's tangent. They return a float, or an array of the broadcast
    rank, unless ``kind`` says otherwise."""
    def register(rule_fn):
        define(name, *fns, vjp=rule_fn, jvp="elementwise", broadcast=broadcast,
               kind=kind, engine=engine, companion=companion, fused=fused, family=family,
               complex_ok=complex_ok, jax=jax)
        return rule_fn
    return register


def primitive(name, *fns, kind=None, linear=(), multilinear=(), jvp=None, broadcast=False,
              fused=None, engine=None, infix=None, family=None, complex_ok=False, jax=None):
    """Register the decorated rule as the reverse rule of the primitive ``name``.
    ``family`` overrides `family_of` (a library's function written in Python, such as
    scipy.special.logsumexp, is a primitive, not a user's function to inline)."""
    def register(rule_fn):
        define(name, *fns, vjp=rule_fn, jvp=jvp, linear=linear, multilinear=multilinear,
               broadcast=broadcast, kind=kind, fused=fused, engine=engine, infix=infix,
               family=family, complex_ok=complex_ok, jax=jax)
        return rule_fn
    return register


def jvp_rule(name):
    """Register the decorated function as the forward rule of the record ``name``:
    ``rule(g, ans, *params)`` returns, per input, the output's tangent when ``g`` is
    that input's tangent (the reverse rule's form)."""
    def register(rule_fn):
        define(name, jvp=Rule.of(rule_fn))
        return rule_fn
    return register


def no_derivative(*fns, kind=None, engine=None, infix=None, jax=None):
    """Register ``fns`` as primitives whose outputs carry no gradient."""
    for fn in fns:
        define(_qualified(fn), fn, nondiff=True, kind=kind, engine=engine, infix=infix,
               jax=jax)
    return fns[0] if len(fns) == 1 else fns


def _qualified(fn):
    mod = getattr(fn, "__module__", None) or type(fn).__module__ or ""
    return f"{mod}.{getattr(fn, '__name__', None) or repr(fn)}"
