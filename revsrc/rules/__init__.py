"""The rule table: one record per primitive (see ``revsrc.primitives``), grouped by
family in the modules of this package.

A reverse rule says how an output adjoint ``g`` flows back to each input of a
primitive, written as an ordinary Python function ``rule(g, ans, *inputs)`` that
returns one expression per input (``None`` for an input with no gradient). The
reverse transformation inlines the rule's body into the generated adjoint, so the
Python backend prints it and the scalar engine lowers the same operations.

Rules for elementwise operations broadcast: the transformation sums each
contribution back to its input's shape once, so no rule handles broadcasting itself.
Inside a rule, ``xp`` is the namespace of the primal's family: ``math`` functions
for ``math.sin``, NumPy's for ``np.sin``.
"""
from __future__ import annotations

from ..primitives import (  # noqa: F401  (the table's public face)
    USER, Primitive, Rule, define, lookup, no_derivative, primitive, records, registered,
    registered_nondiff)


def vjp(*fns, broadcast=False):
    """Register the decorated function as the reverse rule of each of ``fns`` (the
    form `revsrc.defvjp` uses for users' functions)::

        @vjp(my_fn)
        def my_fn_rule(g, ans, x):
            return g * 2.0
    """
    # (imported here: revsrc.inline lowers source, and lowering reads this table)
    from .. import inline, kinds

    def register(rule_fn):
        for fn in fns:
            name = f"user:{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', fn)}"
            if inline.has_source(fn):
                kind = inline.call_kind  # from its body
            elif getattr(fn, "__module__", None) == "math":
                kind = kinds.elementwise_kind
            else:
                kind = None
            define(name, fn, vjp=rule_fn, jvp="elementwise" if broadcast else None,
                   broadcast=broadcast, kind=kind, family=USER)
        return rule_fn
    return register


def mark_nondiff(*fns):
    """Mark functions as having no derivative (their outputs carry no gradient)."""
    return no_derivative(*fns)


def _register_builtin_rules():
    from . import (arith, elementwise, helpers, indexing, linalg,  # noqa: F401
                   nondiff, reductions, shape)


_register_builtin_rules()
