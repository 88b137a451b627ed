"""Refuse, before anything else runs, the syntax the transformation does not support.

(``*args`` and ``**kwargs``, in a signature or a call, are refused later, by the
lowering (frontend/lower/), where the container they stand for is not known when transforming.)"""
from __future__ import annotations

import ast

from .. import errors
from ..core.source import ast_nodes

# node type -> (error class, what it is, what to do instead)
_REFUSED = {
    ast.AsyncWith: (errors.UnsupportedSyntax, "async with", "use a plain function"),
    ast.AsyncFor: (errors.UnsupportedSyntax, "async for", "use a plain for loop"),
    ast.AsyncFunctionDef: (errors.UnsupportedSyntax, "an async function", "use a plain def"),
    ast.Await: (errors.UnsupportedSyntax, "await", "use a plain function"),
    ast.Yield: (errors.UnsupportedSyntax, "yield (a generator)",
                "return a value instead of yielding"),
    ast.YieldFrom: (errors.UnsupportedSyntax, "yield from (a generator)",
                    "return a value instead of yielding"),
    ast.Global: (errors.GlobalWrite, "a global statement (writing a module global)",
                 "return the value instead of writing it to a global"),
    ast.Nonlocal: (errors.GlobalWrite, "a nonlocal statement (writing an enclosing variable)",
                   "return the value instead"),
    ast.Delete: (errors.UnsupportedSyntax, "del", "let the variable go out of scope"),
    ast.ClassDef: (errors.UnsupportedSyntax, "a class definition",
                   "define classes outside the differentiated function"),
    ast.NamedExpr: (errors.UnsupportedSyntax, "an assignment expression (:=)",
                    "assign on its own line"),
    ast.SetComp: (errors.UnsupportedSyntax, "a set comprehension",
                  "build a list or a tuple (a set has no order to follow gradients by)"),
    ast.Match: (errors.UnsupportedSyntax, "match", "use if/elif"),
    ast.Set: (errors.UnsupportedSyntax, "a set literal", "use a tuple"),
}
if hasattr(ast, "TryStar"):
    # try/except is lowered (revsrc/frontend/lower/trying.py); except* (groups) is not
    _REFUSED[ast.TryStar] = (
        errors.UnsupportedSyntax, "try/except* (exception groups)",
        "use a plain try/except, or catch the errors around the derivative: "
        "try: revsrc.grad(f)(x) except ...")


def check(parsed):
    """Raise the first refusal found in ``parsed.node``'s body (once per parsed
    definition: a derivative's creation checks it, and so does each lowering of it,
    and what the lowering rewrites in it (desugar) adds nothing refused)."""
    if getattr(parsed, "fenced", False):
        return
    node = parsed.node
    if isinstance(node, ast.AsyncFunctionDef):
        raise errors.UnsupportedSyntax(
            f"{node.name} is an async function; revsrc differentiates plain functions",
            loc=parsed.loc(node), hint="use a plain def")
    if isinstance(node, ast.Lambda):
        body = [node.body]
    else:
        body = node.body
    for stmt in body:
        for sub in ast_nodes(stmt):
            _check_node(parsed, sub)
    parsed.fenced = True


def _check_node(parsed, sub):
    refusal = _REFUSED.get(type(sub))
    if refusal is not None:
        cls, what, hint, *why = refusal
        raise cls(f"{what} is not supported in a differentiated function"
                  + (f": {why[0]}" if why else ""), loc=parsed.loc(sub), hint=hint)
    if isinstance(sub, (ast.For, ast.While)) and sub.orelse:
        raise errors.UnsupportedControlFlow(
            "a loop with an else clause is not supported", loc=parsed.loc(sub),
            hint="set a flag before break and test it after the loop")
    if isinstance(sub, ast.FunctionDef) and sub.decorator_list:
        raise errors.UnsupportedSyntax(
            "a decorated nested function is not supported", loc=parsed.loc(sub),
            hint="define the nested function without decorators")
