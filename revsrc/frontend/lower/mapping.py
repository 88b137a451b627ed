"""``map(f, xs, ...)``, ``filter(f, xs)`` and ``np.vectorize(f)(x, ...)``, lowered as the list comprehensions they
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

``np.vectorize(f)`` called on arrays is ``f`` applied to each element of the broadcast
arguments: the same comprehension over their flattened elements (``f`` inlined as
scalar code, its branches run per element), gathered with ``np.array`` and reshaped.
"""
from __future__ import annotations

import ast
import itertools
import operator
import types

import numpy as np

from ... import errors
from ...core import ir
from ...core.ir import Const, Op, SetItem
from ...runtime import vectorized
from ...runtime.arith import astype
from .values import Known, NestedDef, lambda_def
from ...core.source import ast_nodes

# Functions that read an iterable argument once, through to its end.
_CONSUMER_NAMES = {"list", "tuple", "sum", "sorted", "max", "min", "any", "all", "dict"}
# Iterators over iterators: read at once when they are.
_PASSING_NAMES = {"enumerate", "zip", "map", "filter", "islice"}
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
    taken = {n.id for n in ast_nodes(node) if isinstance(n, ast.Name)} | \
        {n.arg for n in ast_nodes(node) if isinstance(n, ast.arg)}
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
        if isinstance(f, ast.Attribute) and f.attr == "islice":   # itertools.islice
            return parent.args[0] is node and _consumed_at_once(root, parent)
        return isinstance(f, ast.Attribute) and f.attr in _CONSUMER_ATTRS
    return False


def _repeated(root, load, gen):
    """Whether ``load`` is inside a loop that does not hold the generator ``gen``."""
    path = _path_to(root, load)
    return any(isinstance(p, (ast.For, ast.While)) and not any(n is gen for n in ast.walk(p))
               for p in path)


def _path_to(root, target):
    if root is target:
        return [root]
    for child in ast.iter_child_nodes(root):
        found = _path_to(child, target)
        if found:
            return [root] + found
    return []


def _read_through(root, name):
    """Whether the load ``name`` is an argument a consumer reads to its end (any and
    all stop early: not those)."""
    parent = _parent(root, name)
    if not (isinstance(parent, ast.Call) and any(a is name for a in parent.args)):
        return False
    f = parent.func
    return f.id in _CONSUMER_NAMES - {"any", "all"} if isinstance(f, ast.Name) else \
        isinstance(f, ast.Attribute) and f.attr in _CONSUMER_ATTRS


def _writes(root):
    """(how many times each name is assigned, the names changed in place or that
    have a method called on them) in the function ``root``."""
    stores, changed = {}, set()
    for n in ast.walk(root):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            changed.add(n.target.id)
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and \
                isinstance(n.ctx, (ast.Store, ast.Del)) and isinstance(n.value, ast.Name):
            changed.add(n.value.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Name):
            changed.add(n.func.value.id)   # xs.append(...): may change xs in place
    return stores, changed


def check_kept_dict_view(sc, node, name, loc):
    """``items = d.items()`` kept for later is a live view: it shows what ``d`` holds
    when it is read; revsrc reads ``d`` where the view is made. Refused where the
    function changes ``d`` (a view read at once, in a for loop or sum(...), is not)."""
    root = sc.parsed.node
    if _consumed_at_once(root, node) or not isinstance(node.func, ast.Attribute) or \
            not isinstance(node.func.value, ast.Name):
        return
    d = node.func.value.id
    stores, _ = _writes(root)
    changed = stores.get(d, 0) > 1 or any(
        isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.value, ast.Name) and
        n.value.id == d and (not isinstance(n.ctx, ast.Load) or isinstance(
            n, ast.Attribute) and n.attr not in _READING_METHODS) for n in ast.walk(root))
    if changed:
        raise errors.UnsupportedSyntax(
            f"{d}.{name}() kept for later is a live view of {d}, which the function "
            "changes; revsrc reads the view where it is made", loc=loc,
            hint=f"read it where it is needed ({name}() in the loop or sum(...)), or "
                 f"take a copy: list({d}.{name}())")


_READING_METHODS = {"items", "keys", "values", "get", "copy"}


def check_kept_generator(sc, node, loc):
    """A generator expression kept in a variable (``gen = (v * k for v in xs)``) reads
    its variables, and its list's items, when it is consumed; revsrc builds its list
    where it is written. The two agree unless the function assigns or changes a
    name the generator reads, or reads the generator twice: refused, unless each read
    is one a consumer reads to its end (``sum(gen)``, ``list(gen)``), whose loads are
    returned: after each, the name holds an empty list (a second ``sum(gen)`` is 0,
    as in Python)."""
    root = sc.parsed.node
    if _consumed_at_once(root, node):
        return
    own = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    first = node.generators[0].iter
    # the first iterable is evaluated where the generator is written, as in Python:
    # rebinding its names later is not seen, changing its list in place is
    late_read = {n.id for part in [node.elt] + [g.iter for g in node.generators[1:]] +
                 [c for g in node.generators for c in g.ifs]
                 for n in ast.walk(part) if isinstance(n, ast.Name)} - own
    reads = late_read | {n.id for n in ast.walk(first) if isinstance(n, ast.Name)}
    stores, changed = _writes(root)
    modules = {r for r in reads if r not in stores and
               isinstance(sc.globals.get(r) if sc.globals is not None else None,
                          types.ModuleType)}     # itertools.islice(...) changes no module
    # (a method called on a global, np.sin(...), does not change a value the function has)
    own_names = set(stores) | {a.arg for a in ast.walk(root.args) if isinstance(a, ast.arg)}
    late = sorted(r for r in reads - modules
                  if r in changed & own_names or r in late_read and stores.get(r, 0) > 1)
    parent = _parent(root, node)
    kept = parent.targets[0].id if isinstance(parent, ast.Assign) and \
        len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name) else None
    loads = [n for n in ast.walk(root) if isinstance(n, ast.Name) and n.id == kept
             and isinstance(n.ctx, ast.Load)]
    if not late and kept is not None and stores.get(kept) == 1 and kept not in changed \
            and loads and all(_read_through(root, n) for n in loads):
        # each read takes all its items: the name is empty after it (a single read
        # that runs once needs nothing)
        return loads if len(loads) > 1 or _repeated(root, loads[0], node) else []
    if late or kept is None or len(loads) > 1:
        why = (f"reads {', '.join(late)} when it is consumed, and the function changes "
               "it in between or elsewhere" if late else
               "is read more than once (it is empty the second time)" if kept else
               "is kept where revsrc cannot see when it is consumed")
        raise errors.UnsupportedSyntax(
            f"a generator expression kept for later {why}", loc=loc,
            hint="make it a list where it is made ([... for ...]), or consume it where "
                 "it is written: sum(v * k for v in xs)")


def kept_generator_use(sc, node):
    """For ``g = (... for v in xs)`` (the generator expression ``node``), the one
    place ``g`` is read, where lowering the generator there computes what Python does
    (it reads its variables when it is consumed): ``g`` is assigned once and read once,
    consumed at once (``sum(g)``, ``for t in g``), by a later statement of the same
    block and outside any loop, function or comprehension there; the names its first
    iterable reads (evaluated where it is written) are not changed in place. Else None."""
    root = sc.parsed.node
    stmt = _parent(root, node)
    if counted_range(sc, node) is not None:   # over itertools.count(): made a range
        return None
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name)):
        return None
    name = stmt.targets[0].id
    stores, changed = _writes(root)
    loads = [n for n in ast.walk(root) if isinstance(n, ast.Name) and n.id == name and
             isinstance(n.ctx, ast.Load)]
    first = {n.id for n in ast.walk(node.generators[0].iter) if isinstance(n, ast.Name)}
    if stores.get(name, 0) != 1 or len(loads) != 1 or first & changed or \
            not _consumed_at_once(root, loads[0]):
        return None
    block = next((b for n in ast.walk(root) for f in ("body", "orelse", "finalbody")
                  for b in [getattr(n, f, None)] if isinstance(b, list) and
                  any(x is stmt for x in b)), None)
    if block is None:
        return None
    later = block[next(i for i, x in enumerate(block) if x is stmt) + 1:]
    for x in later:
        if any(n is loads[0] for n in ast.walk(x)):
            between = [n for n in ast.walk(x) if isinstance(n, _OWN_SCOPES + _LOOPS) and
                       any(m is loads[0] for m in ast.walk(n))]
            return loads[0] if not between or between == [x] and \
                getattr(x, "iter", None) is loads[0] else None
    return None


_OWN_SCOPES = (ast.FunctionDef, ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.DictComp,
               ast.SetComp)
_LOOPS = (ast.For, ast.While)


def _parent(root, node):
    for p in ast_nodes(root):
        for child in ast.iter_child_nodes(p):
            if child is node:
                return p
    return None


# ----- np.vectorize -----

def vectorize_of(lowerer, sc, func, out):
    """``np.vectorize(f)`` written in the call (``np.vectorize(f)(x)``, or the call
    ``func`` itself: ``v = np.vectorize(f)``), made while transforming when ``f`` is a
    function known then or a lambda; else None."""
    if not isinstance(func, ast.Call):
        return None
    maker = lowerer._static_callee(sc, func.func, out)
    if maker is not np.vectorize or len(func.args) != 1 or \
            any(k.arg != "otypes" for k in func.keywords):
        return None
    pyfunc = lowerer._static_callee(sc, func.args[0], out) \
        if isinstance(func.args[0], (ast.Name, ast.Attribute)) else None
    if isinstance(func.args[0], ast.Lambda):    # np.vectorize(lambda t: ...)
        pyfunc = NestedDef(sc, lambda_def(func.args[0], "lambda_"))
    if pyfunc is None:
        return None
    kw = {}
    for k in func.keywords:    # otypes: a list of type names or dtype strings
        if not isinstance(k.value, (ast.List, ast.Tuple)):
            return None
        types = [e.value if isinstance(e, ast.Constant) else
                 lowerer._static_callee(sc, e, out) for e in k.value.elts]
        if any(t is None for t in types):
            return None
        kw[k.arg] = types
    if isinstance(pyfunc, NestedDef):
        # a def of the function: its calls are inlined like a module function's
        vec = np.vectorize(abs, **kw)
        vec.pyfunc = pyfunc
        return vec
    return np.vectorize(pyfunc, **kw)


def lower_vectorized(lowerer, sc, node, vec, out, into, loc):
    """``vec(x, y...)`` for ``vec = np.vectorize(f)``: ``f`` applied to each element of
    the broadcast arguments (a comprehension: scalar code, inlined), gathered with
    np.array and put in the broadcast shape. Only positional arguments, and no
    ``signature``, ``excluded`` or ``cache``."""
    if vec.signature is not None or vec.excluded or vec.cache or node.keywords or \
            not node.args or any(isinstance(a, ast.Starred) for a in node.args):
        raise errors.UnsupportedSyntax(
            "np.vectorize with signature, excluded, cache or keyword arguments is not "
            "supported", loc=loc, hint="call it with positional arguments only")
    operands = [lowerer._val(sc, a, out) for a in node.args]
    if len(operands) == 1:
        arrays = operands
    else:
        shapes = [lowerer._emit(out, np.shape, (o,), None, loc) for o in operands]
        shape = lowerer._emit(out, np.broadcast_shapes, tuple(shapes), None, loc)
        arrays = [lowerer._emit(out, np.broadcast_to, (o, shape), None, loc)
                  for o in operands]
    names = {"f": vec.pyfunc, "ravel": np.ravel, "zip": zip}
    taken = set(sc.env)
    bound = {}
    for role, value in list(names.items()) + [(f"a{k}", a) for k, a in enumerate(arrays)]:
        name = f"vectorized_{role}_"
        while name in taken or name in bound:
            name += "_"
        bound[name] = value
    keys = list(bound)
    fname, ravel, zipname, anames = keys[0], keys[1], keys[2], keys[3:]
    for name, value in bound.items():
        sc.env[name] = Known(value) if name in (fname, ravel, zipname) else value
    try:
        comp = _vectorized_comprehension(node, fname, ravel, zipname, anames)
        results = lowerer._expr(sc, comp, out)
    finally:
        for name in bound:
            del sc.env[name]
    out.append(Op(None, vectorized.check_results, (results,), loc=loc))
    gathered = lowerer._emit(out, np.array, (results,), None, loc)
    if vec.otypes:
        gathered = lowerer._emit(out, astype, (gathered, Const(np.dtype(vec.otypes[0]))),
                                 None, loc)
    shape = lowerer._emit(out, np.shape, (arrays[0],), None, loc)
    return lowerer._emit(out, np.reshape, (gathered, shape), into, loc)


def _vectorized_comprehension(node, fname, ravel, zipname, anames):
    def load(n):
        return ast.copy_location(ast.Name(id=n, ctx=ast.Load()), node)

    items = [f"{a}item" for a in anames]
    seqs = [ast.copy_location(ast.Call(func=load(ravel), args=[load(a)], keywords=[]), node)
            for a in anames]
    if len(seqs) == 1:
        target = ast.copy_location(ast.Name(id=items[0], ctx=ast.Store()), node)
        iterable = seqs[0]
    else:
        target = ast.copy_location(ast.Tuple(
            elts=[ast.copy_location(ast.Name(id=i, ctx=ast.Store()), node) for i in items],
            ctx=ast.Store()), node)
        iterable = ast.copy_location(ast.Call(func=load(zipname), args=seqs, keywords=[]),
                                     node)
    elt = ast.copy_location(ast.Call(func=load(fname), args=[load(i) for i in items],
                                     keywords=[]), node)
    gen = ast.comprehension(target=target, iter=iterable, ifs=[], is_async=0)
    return ast.copy_location(ast.ListComp(elt=elt, generators=[gen]), node)


def lower_piecewise(lowerer, sc, node, out, into, loc):
    """``np.piecewise(x, [c0, c1...], [f0, f1...])`` with both lists written in the
    call, as NumPy computes it: ``y = np.zeros_like(x)``, then for each condition in
    order ``y[c] = f(x[c])`` (a function: a lambda, a def or a module function,
    applied to the selected elements only) or ``y[c] = v`` (a value); one function
    more than conditions is applied where none holds. None for any other form."""
    if len(node.args) != 3 or node.keywords or \
            not all(isinstance(a, (ast.List, ast.Tuple)) for a in node.args[1:]):
        return None
    conds_ast, funcs_ast = node.args[1].elts, node.args[2].elts
    if len(funcs_ast) not in (len(conds_ast), len(conds_ast) + 1) or not conds_ast:
        return None
    x = lowerer._val(sc, node.args[0], out)
    x = lowerer._emit(out, np.asarray, (x,), None, loc)
    conds = [lowerer._val(sc, c, out) for c in conds_ast]
    if len(funcs_ast) > len(conds):    # the otherwise case: where no condition holds
        anyc = conds[0]
        for c in conds[1:]:
            anyc = lowerer._emit(out, np.logical_or, (anyc, c), None, loc)
        conds.append(lowerer._emit(out, np.logical_not, (anyc,), None, loc))
    y = lowerer._emit(out, np.zeros_like, (x,), None, loc)
    for c, f in zip(conds, funcs_ast):
        if isinstance(f, ast.Lambda):
            fn = NestedDef(sc, lambda_def(f, "lambda_"))
        elif isinstance(f, (ast.Name, ast.Attribute)):
            fn = lowerer._static_callee(sc, f, out)
        else:
            fn = None
        if fn is None or not callable(fn) and not isinstance(fn, NestedDef):
            value = lowerer._val(sc, f, out)
        else:
            picked = lowerer._emit(out, operator.getitem, (x, c), None, loc)
            value = lowerer.fresh()
            lowerer._call_with(sc, fn, [picked], [], out, value, loc)
        out.append(SetItem(y, c, value, loc=loc))
    return lowerer._emit(out, ir.copy, (y,), into, loc)


# ----- itertools.count and itertools.islice -----

def counted_range(sc, node):
    """For a generator expression ``node`` whose first loop is over
    ``itertools.count(start, step)`` (int constants) and whose items are all taken by
    ``itertools.islice(gen, ..., stop[, step])`` (the generator itself, or a name kept
    for it read there alone), with ``stop`` an int constant or a name the function never
    assigns: ``range(start, start + stop * step, step)``, the items islice reads, as an
    ast. None for anything else."""
    first = node.generators[0].iter
    if not (isinstance(first, ast.Call) and _names_count(sc, first.func)) or first.keywords \
            or not all(isinstance(a, ast.Constant) and type(a.value) is int for a in first.args):
        return None
    start, step = ([a.value for a in first.args] + [0, 1][len(first.args):])[:2] \
        if len(first.args) <= 2 else (None, None)
    if start is None or step == 0:
        return None
    root = sc.parsed.node
    user = _parent(root, node)
    if isinstance(user, ast.Assign) and len(user.targets) == 1 and \
            isinstance(user.targets[0], ast.Name):
        name = user.targets[0].id
        loads = [n for n in ast.walk(root) if isinstance(n, ast.Name) and n.id == name and
                 isinstance(n.ctx, ast.Load)]
        user = _parent(root, loads[0]) if len(loads) == 1 else None
        node = loads[0] if len(loads) == 1 else None
    if not (isinstance(user, ast.Call) and _names_islice(sc, user.func) and
            len(user.args) in (2, 3, 4) and user.args[0] is node and not user.keywords):
        return None
    stop = user.args[1] if len(user.args) == 2 else user.args[2]
    stores, changed = _writes(root)
    if not (isinstance(stop, ast.Constant) and type(stop.value) is int or
            isinstance(stop, ast.Name) and stop.id not in stores and stop.id not in changed):
        return None
    count = ast.BinOp(left=ast.Constant(start), op=ast.Add(), right=ast.BinOp(
        left=stop, op=ast.Mult(), right=ast.Constant(step)))
    made = ast.Call(func=ast.Name(id="range", ctx=ast.Load()),
                    args=[ast.Constant(start), count, ast.Constant(step)], keywords=[])
    for n in ast.walk(made):
        ast.copy_location(n, first)
    return made


def _names_count(sc, func):
    return _global_attr(sc, func) is itertools.count


def _names_islice(sc, func):
    return _global_attr(sc, func) is itertools.islice


def _global_attr(sc, func):
    """What ``itertools.count`` or ``count`` (a global name, or a module's attribute)
    names, or None."""
    g = sc.globals or {}
    if isinstance(func, ast.Name):
        return g.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
            isinstance(g.get(func.value.id), types.ModuleType):
        return getattr(g[func.value.id], func.attr, None)
    return None


def lower_islice(lowerer, sc, node, out, into, loc):
    """``itertools.islice(seq, [start,] stop[, step])`` read at once (by sum, a for
    loop...): the items ``seq[start:stop:step]``, a list (a generator expression is one
    here); None where it is kept for later or takes keywords."""
    if node.keywords or not 2 <= len(node.args) <= 4 or \
            any(isinstance(a, ast.Starred) for a in node.args) or \
            not _consumed_at_once(sc.parsed.node, node):
        return None
    seq = lowerer._val(sc, node.args[0], out)
    bounds = [lowerer._val(sc, a, out) for a in node.args[1:]]
    start, stop, step = ([Const(None)] + bounds + [Const(None)])[:3] \
        if len(bounds) == 1 else (bounds + [Const(None)])[:3]
    if isinstance(seq, str) and seq in lowerer.endless:
        # an endless iterator (count, cycle): only the items islice reads, never list()
        part = lowerer._emit(out, itertools.islice, (seq, start, stop, step), None, loc)
        return lowerer._emit(out, list, (part,), into, loc)
    if all(isinstance(b, Const) for b in (start, stop, step)):
        index = Const(slice(start.value, stop.value, step.value))
    else:
        index = lowerer._emit(out, slice, (start, stop, step), None, loc)
    items = lowerer._emit(out, list, (seq,), None, loc)
    return lowerer._emit(out, operator.getitem, (items, index), into, loc)
