"""Callees written as expressions that say which function is called, rewritten as
the calls Python makes: ``(f if c else g)(x)`` is ``f(x) if c else g(x)``, and
``getattr(obj, "name")`` with a constant name is ``obj.name``.
"""
from __future__ import annotations

import ast

from ...core.source import deep_copy


def _called(func, call):
    """The call ``call`` with ``func`` as its callee (its arguments copied)."""
    new = ast.Call(func=func, args=deep_copy(call.args),
                   keywords=deep_copy(call.keywords))
    return ast.fix_missing_locations(ast.copy_location(new, call))


def plain_call(lowerer, sc, node):
    """``node`` as the call Python makes, where its callee is an expression that
    says which function: ``(f if c else g)(x)`` is ``f(x) if c else g(x)``, and
    ``getattr(obj, "name")(x)`` is ``obj.name(x)``; else None."""
    func = node.func
    if isinstance(func, ast.IfExp):
        new = ast.IfExp(test=func.test, body=_called(func.body, node),
                        orelse=_called(func.orelse, node))
    elif isinstance(func, ast.Call) and getattr_written(lowerer, sc, func) is not func:
        return _called(getattr_written(lowerer, sc, func), node)
    else:
        return None
    return ast.copy_location(new, node)


def getattr_written(lowerer, sc, node):
    """``getattr(obj, "name")`` with a constant name (and no default) as the
    attribute it reads, ``obj.name``; any other node itself."""
    if isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords and \
            isinstance(node.args[1], ast.Constant) and \
            isinstance(node.args[1].value, str) and node.args[1].value.isidentifier() and \
            not isinstance(node.args[0], ast.Starred) and not sc.rule_mode and \
            lowerer._static_callee(sc, node.func, []) is getattr:
        return ast.copy_location(ast.Attribute(value=node.args[0], attr=node.args[1].value,
                                               ctx=ast.Load()), node)
    return node
