"""The tables that say which handler lowers each kind of ``ast`` node.

A handler is a method of one of the lowering's parts (statements.py, expressions.py,
...), registered where it is defined with ``@statement(ast.If)`` or
``@expression(ast.BinOp)``; `Lowerer._stmt` and `Lowerer._expr_value` look the
node's type up here instead of walking an ``isinstance`` ladder. A statement handler
``(self, sc, node, out, loc)`` returns whether the statement always leaves its block;
an expression handler ``(self, sc, node, out, into, loc)`` returns its operand.
"""
from __future__ import annotations

STATEMENTS = {}
EXPRESSIONS = {}


def _register(table, types):
    def register(fn):
        for t in types:
            assert t not in table, f"two handlers for {t.__name__}"
            table[t] = fn
        return fn
    return register


def statement(*types):
    """Register the decorated method as the lowering of statements of ``types``."""
    return _register(STATEMENTS, types)


def expression(*types):
    """Register the decorated method as the lowering of expressions of ``types``."""
    return _register(EXPRESSIONS, types)
