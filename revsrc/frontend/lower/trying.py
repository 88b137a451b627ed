"""``try``/``except``/``else``/``finally``: the derivative follows the path the run took.

The try body is lowered as usual; then each of its operations that may raise is
preceded by a test (`runtime.attempts.attempt`) that runs it once and says which
``except`` clause catches what it raised, 0 for nothing. From the first operation that
raised on, the rest of the body does not run (each later statement runs under the
flag ``ok``); the handler that caught runs instead, or ``else`` when nothing raised;
``finally`` runs after either. These are ordinary ``if`` statements of the program, so
the reverse sweep undoes the statements that completed and the handler that ran, and
nothing else. An operation of the body is computed twice where it did not raise (its
test and itself), the price of knowing beforehand.

Refused (E101, at the user's line): ``except ... as name`` where the function reads
``name`` (the exception is not a value revsrc follows); a loop in the try body
whose operations may raise (the rest of its iterations would have to stop); an item
assignment in the try body; a call in it of a function whose effects cannot be run
twice (a value of a call revsrc has no record of: a random draw, an object's method);
``return``, ``break`` or ``continue`` with a ``finally`` (which must run before them).
"""
from __future__ import annotations

import ast
import operator

from ... import errors, primitives
from ...core import ir
from ...core.ir import Block, Const, For, If, Op, SetItem, While
from ...runtime import attempts, guards
from .dispatch import statement
from ...core.source import ast_nodes

# Operations that never raise: not tested.
_SAFE = {ir.copy, ir.make_tuple, ir.make_list, ir.make_dict, ir.load_global, ir.load_cell}
# Checks with no result that raise (a raise statement, a failed assert): tested.
_RAISING_CHECKS = {guards.raise_error, guards.raise_error_from, guards.fail_assert,
                   ir.check_assert}


@statement(ast.Try)
def lower_try(self, sc, node, out, loc):
    """Lower a try statement (a statement handler of `Lowerer`)."""
    handlers = [_caught(self, sc, h, out, sc.parsed.loc(h)) for h in node.handlers]
    if node.finalbody:
        _no_exits_before_finally(sc, node)
    body, branches, orelse = [], [[] for _ in node.handlers], []
    before = set(sc.env)
    self._branches(sc, [(node.body, body)] + list(zip([h.body for h in node.handlers],
                                                      branches))
                   + [(node.orelse, orelse)])
    raised = self.fresh("_raised")
    ok = self.fresh("_ok")
    out.extend(_unbound_first(sc, node, before, loc))
    out.append(Op(raised, ir.copy, (Const(0),), loc=loc))
    out.append(Op(ok, ir.copy, (Const(True),), loc=loc))
    guard = _Guard(self, tuple(handlers), raised, ok)
    out.extend(guard.stmts(body))
    chain = []
    for k in range(len(branches), 0, -1):
        test = self.fresh()
        chain = [Op(test, operator.eq, (raised, Const(k)), loc=loc),
                 If(test, branches[k - 1], chain, loc=loc)]
    out.append(If(ok, orelse, chain, loc=loc))
    self._block(sc, node.finalbody, out)
    return False


def _unbound_first(sc, node, before, loc):
    """``name = None`` for each variable the try body binds first (unbound before the
    try statement): where the body raised before binding it, the reverse sweep still
    finds it defined when it makes its (zero) adjoint. Inside a loop a variable may
    hold an earlier iteration's value: none is bound there."""
    if sc.loops or sc.no_static:
        return []
    out = []
    for name in sorted(_stored(node.body)):
        var = sc.env.get(name)
        if name not in before and isinstance(var, str):
            out.append(Op(var, ir.copy, (Const(None),), loc=loc))
    return out


def _stored(stmts):
    """The names the statements assign, outside nested functions and comprehensions."""
    found = set()
    todo = list(stmts)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.Lambda, ast.ListComp, ast.DictComp,
                          ast.GeneratorExp, ast.SetComp, ast.ClassDef)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            found.add(n.id)
        todo.extend(ast.iter_child_nodes(n))
    return found


def _caught(lowerer, sc, handler, out, loc):
    """The exception classes an except clause catches, as a tuple."""
    if handler.name is not None and any(
            isinstance(n, ast.Name) and n.id == handler.name and isinstance(n.ctx, ast.Load)
            for n in ast_nodes(sc.parsed.node)):
        raise errors.UnsupportedSyntax(
            f"except ... as {handler.name}: the exception object is not a value revsrc "
            "follows", loc=loc, hint="drop 'as name', or handle the error outside the "
                                     "differentiated function")
    if handler.type is None:
        return (BaseException,)
    nodes = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    classes = []
    for n in nodes:
        cls = lowerer._static_callee(sc, n, out) if isinstance(n, (ast.Name, ast.Attribute)) \
            else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise errors.UnsupportedSyntax(
                f"except {ast.unparse(n)}: revsrc needs the exception classes by name",
                loc=loc, hint="name the classes: except (ValueError, ZeroDivisionError):")
        classes.append(cls)
    return tuple(classes)


def _no_exits_before_finally(sc, node):
    for part in [node.body, node.orelse] + [h.body for h in node.handlers]:
        for stmt in part:
            for n in ast_nodes(stmt):
                if isinstance(n, (ast.Return, ast.Break, ast.Continue)):
                    raise errors.UnsupportedSyntax(
                        f"{type(n).__name__.lower()} inside a try statement with a "
                        "finally clause", loc=sc.parsed.loc(n),
                        hint="assign the result and return after the try statement")


class _Guard:
    """Rewrites a lowered try body so that each operation that may raise is tested
    first, and what follows a raise does not run."""

    def __init__(self, lowerer, handlers, raised, ok):
        self.lowerer = lowerer
        self.handlers = handlers
        self.raised = raised
        self.ok = ok

    def stmts(self, stmts):
        out, guarded = [], False
        for s in stmts:
            new, raises = self.stmt(s)
            if guarded:
                out.append(If(self.ok, new, [], loc=getattr(s, "loc", None)))
            else:
                out.extend(new)
            guarded = guarded or raises
        return out

    def stmt(self, s):
        """(the statements ``s`` becomes, whether it may raise)."""
        if isinstance(s, Op):
            if (s.target is None and s.fn not in _RAISING_CHECKS) or s.fn in _SAFE:
                return [s], False
            return self._tested(s), True
        if isinstance(s, If):
            body, orelse = self.stmts(s.body), self.stmts(s.orelse)
            raises = _changed(body, s.body) or _changed(orelse, s.orelse)
            return [ir.replace(s, body=body, orelse=orelse)], raises
        if isinstance(s, Block):
            body = self.stmts(s.body)
            return [ir.replace(s, body=body)], _changed(body, s.body)
        if isinstance(s, (For, While)):
            if any(isinstance(x, Op) and x.target is not None and x.fn not in _SAFE
                   for x in ir.walk([s])):
                raise errors.UnsupportedSyntax(
                    "a loop inside a try body, whose operations may raise", loc=s.loc,
                    hint="move the loop out of the try statement, or the try statement "
                         "into the loop")
            return [s], False
        if isinstance(s, SetItem):
            raise errors.UnsupportedSyntax(
                "an item assignment inside a try body", loc=s.loc,
                hint="assign the item before or after the try statement")
        return [s], False

    def _tested(self, s):
        if primitives.lookup(s.fn) is None or s.fn is ir.call_method:
            name = getattr(s.fn, "__name__", "this call")
            raise errors.UnsupportedSyntax(
                f"{name}(...) inside a try body: revsrc tests each operation of the body "
                "for the exception before running it, and this one may not be run twice "
                "(a random draw, an object's method)", loc=s.loc,
                hint="call it before the try statement")
        code = self.lowerer.fresh()
        args = (Const(self.handlers), Const(s.fn)) + tuple(s.args)
        return [Op(code, attempts.attempt, args, s.kwargs, loc=s.loc),
                Op(self.raised, ir.copy, (code,), loc=s.loc),
                Op(self.ok, operator.eq, (code, Const(0)), loc=s.loc),
                If(self.ok, [s], [], loc=s.loc)]


def _changed(new, old):
    return len(new) != len(old) or any(a is not b for a, b in zip(new, old))
