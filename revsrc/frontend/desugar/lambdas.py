"""A lambda bound to a name becomes a ``def`` of that name.

``act = lambda z: np.tanh(z)`` and ``def act(z): return np.tanh(z)`` mean the same
to the lowering: the name stands for a function whose calls are inlined. Only the
plain case is rewritten: one target, outside loops, a name the function binds
nowhere else (not a parameter, not assigned twice, not read before this line).
Any other lambda assignment is left for the lowering, which refuses the names it
cannot follow.
"""
from __future__ import annotations

import ast

from ...core.source import ast_nodes


def bound_lambdas_to_defs(node):
    """Rewrite ``name = lambda ...: e`` into ``def name(...): return e`` in ``node``
    (a ``def`` or ``lambda`` node) and in the functions nested in it."""
    for fn in [n for n in ast_nodes(node) if isinstance(n, ast.FunctionDef)]:
        stores = _store_counts(fn)
        a = fn.args
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | \
            {x.arg for x in (a.vararg, a.kwarg) if x is not None}

        def plain(stmt, fn=fn, stores=stores, params=params):
            name = _bound_name(stmt)
            return name is not None and stores.get(name) == 1 and name not in params and \
                not _read_before(fn, name, stmt)
        fn.body = _rewrite(fn.body, plain)
    return node


def _rewrite(stmts, plain):
    """``stmts`` with each plain lambda assignment a ``def``, in the blocks that run
    once (``if`` and ``with`` bodies; not loops, not nested functions)."""
    out = []
    for s in stmts:
        if plain(s):
            s = _as_def(s)
        elif isinstance(s, ast.If):
            s.body, s.orelse = _rewrite(s.body, plain), _rewrite(s.orelse, plain)
        elif isinstance(s, ast.With):
            s.body = _rewrite(s.body, plain)
        out.append(s)
    return out


def _store_counts(fn):
    """How many times each name is assigned in ``fn``'s body (the lowering's
    ``Scope.store_counts``)."""
    counts = {}
    for stmt in fn.body:
        for n in ast_nodes(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _bound_name(stmt):
    """The name ``stmt`` binds a lambda to (``f = lambda ...``, ``f: T = lambda ...``),
    or None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AnnAssign):
        target = stmt.target
    else:
        return None
    if isinstance(target, ast.Name) and isinstance(stmt.value, ast.Lambda):
        return target.id
    return None


def _read_before(fn, name, stmt):
    at = (stmt.lineno, stmt.col_offset)
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               and (n.lineno, n.col_offset) < at for n in ast_nodes(fn))


def _as_def(stmt):
    value = stmt.value
    node = ast.FunctionDef(name=_bound_name(stmt), args=value.args,
                           body=[ast.Return(value=value.body)], decorator_list=[],
                           returns=None, type_comment=None, type_params=[])
    ast.copy_location(node, value)
    ast.copy_location(node.body[0], value.body)
    return node
