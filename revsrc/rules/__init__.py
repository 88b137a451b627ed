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

import importlib
import sys

import numpy as np

from ..primitives import (  # noqa: F401  (the table's public face)
    USER, Primitive, Rule, defer, define, lookup, primitive, records, registered,
    registered_nondiff)


def vjp(*fns, broadcast=False):
    """Register the decorated function as the reverse rule of each of ``fns`` (the
    form `revsrc.defvjp` uses for users' functions)::

        @vjp(my_fn)
        def my_fn_rule(g, ans, x):
            return g * 2.0
    """
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
    from ..primitives import no_derivative
    return no_derivative(*fns)


def _from(module):
    """Whether a callable comes from ``module`` (a bound method: its function's)."""
    def claims(fn):
        name = getattr(fn, "__module__", None) or ""
        return name.startswith(module) or (
            module == "scipy.special" and isinstance(fn, np.ufunc)
            and "scipy.special" in sys.modules)
    return claims


def _load_scipy_special():
    from . import special  # noqa: F401


def _load_scipy_stats():
    from . import stats  # noqa: F401


def _register_builtin_rules():
    from . import (arith, calculus, elementwise, fft, indexing, linalg,  # noqa: F401
                   nondiff, reductions, shape)
    # SciPy is optional and slow to import: its rules register when a program first
    # calls one of its functions (the program has imported it by then).
    for module, load in (("scipy.special", _load_scipy_special),
                         ("scipy.stats", _load_scipy_stats)):
        if module in sys.modules:
            load()
        else:
            defer(_from(module), load)


def load_optional():
    """Register the rules of every optional library that is installed (for tests and
    tools that list the rule table)."""
    for module, load in (("scipy.special", _load_scipy_special),
                         ("scipy.stats", _load_scipy_stats)):
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        load()


_register_builtin_rules()
