"""Users' own derivative rules: `revsrc.defvjp` and `revsrc.nondiff` register them here.

A user's function with a rule is a primitive to the transformation, yet it is also
Python with source: its kind comes from its body, which the front end lowers
(passes/inline.call_kind). Registering one therefore needs the front end and the
passes, so it lives above them, not in the rule table (rules/ depends on nothing
above primitives).
"""
from __future__ import annotations

from .rules import kind_rules
from .passes import inline
from .primitives import USER, define
from .rules.register import no_derivative


def vjp(*fns, broadcast=False):
    """Register the decorated function as the reverse rule of each of ``fns`` (the
    form `revsrc.defvjp` uses for users' functions)::

        @vjp(my_fn)
        def my_fn_rule(g, ans, x):
            return g * 2.0
    """
    def register(rule_fn):
        for fn in fns:
            name = f"user:{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', fn)}"
            if inline.has_source(fn):
                kind = inline.call_kind  # from its body
            elif getattr(fn, "__module__", None) == "math":
                kind = kind_rules.elementwise_kind
            else:
                kind = None
            define(name, fn, vjp=rule_fn, jvp="elementwise" if broadcast else None,
                   broadcast=broadcast, kind=kind, family=USER)
        return rule_fn
    return register


def mark_nondiff(*fns):
    """Mark functions as having no derivative (their outputs carry no gradient)."""
    return no_derivative(*fns)
