"""``map(f, xs, ...)`` and ``filter(f, xs)``, lowered as the list comprehensions they
stand for: ``[f(x) for x in xs]``, ``[f(a, b) for a, b in zip(xs, ys)]``,
``[x for x in xs if f(x)]`` (``filter(None, xs)``: ``if x``). A lambda's body becomes
the comprehension's item, its parameters the comprehension's variables, so
``map(lambda v: v * w, xs)`` is ``[v * w for v in xs]``; any other function is called
on the items (inlined, or a primitive). Sequences known when transforming are unrolled
and run-time ones looped over, as comprehensions are.

Python's map and filter are iterators: they can be consumed once. A list made instead
would give its items again to a second reader, so they are lowered only where they are
consumed at once: iterated by a ``for`` or a comprehension, or the argument of a
function that takes an iterable and reads it once (list, tuple, sum, sorted, max,
np.array, math.fsum...). Elsewhere (``m = map(f, xs)``) they are refused with the fix.
"""
from __future__ import annotations

import ast

from ... import errors

# Functions that read an iterable argument once, through to its end.
_CONSUMER_NAMES = {"list", "tuple", "sum", "sorted", "max", "min", "any", "all", "dict"}
# Iterators over iterators: read at once when they are.
_PASSING_NAMES = {"enumerate", "zip", "map", "filter"}
_CONSUMER_ATTRS = {"array", "asarray", "stack", "hstack", "vstack", "concatenate",
                   "fsum", "prod", "fromiter", "column_stack"}


def lower_map_filter(lowerer, sc, node, fn, out, into, loc):
    """Lower the call ``node`` of the builtin ``fn`` (map or filter) as a list
    comprehension; refuse it where its result is not consumed at once."""
    name = fn.__name__
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) or \
            len(node.args) < 2 or (fn is filter and len(node.args) != 2):
        raise errors.UnsupportedSyntax(
            f"{name}() with these arguments is not supported", loc=loc,
            hint="write the list comprehension: [f(x) for x in xs]")
    if not _consumed_at_once(sc.parsed.node, node):
        raise errors.UnsupportedSyntax(
            f"{name}(...) is an iterator that can be read only once; revsrc lowers it "
            "where it is read at once (in a for loop, a comprehension, list(...), "
            "sum(...), np.array(...)...)", loc=loc,
            hint=f"make it a list where it is made: list({name}(...)), or write the "
                 "list comprehension")
    comp = _comprehension(node, fn is filter)
    return lowerer._expr(sc, comp, out, into)


def _comprehension(node, is_filter):
    func, seqs = node.args[0], node.args[1:]
    taken = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
        {n.arg for n in ast.walk(node) if isinstance(n, ast.arg)}
    params = _plain_lambda_params(func, len(seqs))
    if params is not None:
        names = params
    else:
        names = []
        for k in range(len(seqs)):
            base = f"item{k}_"
            while base in taken:
                base += "_"
            names.append(base)

    def load(n):
        return ast.copy_location(ast.Name(id=n, ctx=ast.Load()), node)

    def store(n):
        return ast.copy_location(ast.Name(id=n, ctx=ast.Store()), node)

    if params is not None:
        applied = func.body
    elif isinstance(func, ast.Constant) and func.value is None and is_filter:
        applied = load(names[0])
    else:
        applied = ast.copy_location(
            ast.Call(func=func, args=[load(n) for n in names], keywords=[]), node)
    if len(seqs) == 1:
        target, iterable = store(names[0]), seqs[0]
    else:
        target = ast.copy_location(ast.Tuple(elts=[store(n) for n in names],
                                             ctx=ast.Store()), node)
        iterable = ast.copy_location(
            ast.Call(func=load("zip"), args=list(seqs), keywords=[]), node)
    if is_filter:
        gen = ast.comprehension(target=target, iter=iterable, ifs=[applied], is_async=0)
        elt = load(names[0])
    else:
        gen = ast.comprehension(target=target, iter=iterable, ifs=[], is_async=0)
        elt = applied
    return ast.copy_location(ast.ListComp(elt=elt, generators=[gen]), node)


def _plain_lambda_params(func, count):
    """A lambda's parameter names when it takes exactly ``count`` plain positional
    parameters (no defaults, no star-parameters), else None."""
    if not isinstance(func, ast.Lambda):
        return None
    a = func.args
    if a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg or a.defaults or \
            len(a.args) != count:
        return None
    return [p.arg for p in a.args]


def _consumed_at_once(root, node):
    """Whether the call ``node`` (in the function ``root``) is read at once: the
    iterable of a for loop or a comprehension, or an argument of a consumer."""
    parent = _parent(root, node)
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is node
    if isinstance(parent, ast.Call) and any(a is node for a in parent.args):
        f = parent.func
        if isinstance(f, ast.Name):
            if f.id in _PASSING_NAMES:
                return not (f.id in ("map", "filter") and parent.args[0] is node) \
                    and _consumed_at_once(root, parent)
            return f.id in _CONSUMER_NAMES
        return isinstance(f, ast.Attribute) and f.attr in _CONSUMER_ATTRS
    return False


def _parent(root, node):
    for p in ast.walk(root):
        for child in ast.iter_child_nodes(p):
            if child is node:
                return p
    return None
