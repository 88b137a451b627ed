"""Syntax-only rewrites of a function's ``ast``, run before it is lowered.

Each pass here turns one idiom into plainer Python that the lowering already
handles, without knowing what any name holds (so it needs no scope, no globals and
no static values: those idioms stay in frontend/lower/). A pass is a function
``tree -> tree`` that may change the tree in place; it must be idempotent, as a
parsed function is cached and desugared each time it is lowered. `desugar` runs
them in the fixed order of `PASSES`, and tests/test_desugar.py shows each one as
``ast.unparse`` before and after.
"""
from __future__ import annotations

from . import lambdas

PASSES = (
    lambdas.bound_lambdas_to_defs,
)


def desugar(node):
    """``node`` (a ``def`` or ``lambda`` node) with every pass of `PASSES` applied."""
    for rewrite in PASSES:
        node = rewrite(node)
    return node
