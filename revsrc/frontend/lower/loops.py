"""Loops: ``for`` over a range, a literal or a static container (unrolled where
its items are known), ``while``, the regions where no static binding may change,
and comprehensions (written out as loops in a scope of their own).
"""
from __future__ import annotations

import ast
import itertools
import operator

from ... import errors
from ...runtime import containers
from ...core import ir
from ...core.ir import Const, For, Op, While
from . import counting, recursion
from .made import calls_maker, calls_plain_class
from .dispatch import expression, statement
from .scope import assigned_names, leaves_loop
from .values import (STATIC_NODES, UNROLL_LIMIT, Poisoned, VTuple, made_object, record,
                     vtuple)
from ...core.source import ast_nodes, shallow_copy
from ...core.late import LateModule

# map, filter, np.vectorize and iterators kept for later (mapping.py): loaded when met
mapping = LateModule(__package__ + ".mapping")

_ITERATORS = (zip, reversed, map, filter, iter, enumerate)
# iterators with no end: made a list, they would fill the memory
_ENDLESS = (itertools.count, itertools.cycle)

# names of a comprehension's own (not valid identifiers: no user name is one)
_ACC = ".acc"
_FIRST = ".first"


class LoopLowering:
    """Loops and comprehensions (a part of `Lowerer`)."""

    def _loop_region(self, sc, body_nodes, out, lower):
        """Lower a loop body the program runs (``lower()``): names assigned in it
        that hold static values now become variables first."""
        names, _ = assigned_names(body_nodes)
        for name in sorted(names | self._dicts_written(sc, body_nodes)):
            cur = sc.env.get(name)
            if isinstance(cur, (STATIC_NODES, Const)):
                var = self._reserve(sc.prefix + name)
                value = self._materialize(cur, out, sc.parsed.loc(body_nodes[0]))
                out.append(Op(var, ir.copy, (value,), loc=sc.parsed.loc(body_nodes[0])))
                sc.env[name] = var
        sc.no_static += 1
        self.loop_depth += 1
        try:
            return lower()
        finally:
            sc.no_static -= 1
            self.loop_depth -= 1

    def _loop_labels(self, sc):
        self.loop_count += 1
        k = self.loop_count
        return f"{sc.prefix}_skip{k}", f"{sc.prefix}_stop{k}"

    def _loop_body(self, sc, labels, body_nodes, out):
        """Lower a loop body into a `Block` that ``continue`` leaves."""
        sc.loops.append(labels)
        inner = []
        self._block(sc, body_nodes, inner)
        sc.loops.pop()
        out.append(ir.Block(labels[0], inner))

    @statement(ast.For)
    def _for(self, sc, node, out, loc):
        it = node.iter
        target = node.target
        call = it if isinstance(it, ast.Call) else None
        fn = self._static_callee(sc, call.func, out) if call is not None else None
        if fn is range:
            args = [self._materialize(self._expr(sc, a, out), out, loc) for a in call.args]
            if len(args) == 1:
                start, stop, step = Const(0), args[0], Const(1)
            elif len(args) == 2:
                start, stop, step = args[0], args[1], Const(1)
            else:
                start, stop, step = args
            return self._for_range(sc, node, (start, stop, step), out, loc)
        counted = self._counted_plan(sc, call, fn, out, loc) \
            if fn is itertools.islice and isinstance(target, ast.Name) else None
        if counted is not None and counted[0] == "range":   # islice(count(a, s), n)
            return self._for_range(sc, node, counted[1:], out, loc)
        if _literal(it):
            return self._unroll(sc, node, it, out, loc)
        if fn in (enumerate, zip) and call.args and all(_literal(a) for a in call.args) \
                and not call.keywords:
            # enumerate or zip of literals: unrolled too, its tuples' parts plain operands
            cols = [[self._snapshot(self._val(sc, e, out), out, loc) for e in a.elts]
                    for a in call.args]
            if fn is enumerate:
                cols = [[Const(i) for i in range(len(cols[0]))]] + cols
            return self._unroll_items(sc, node, [VTuple(t) for t in zip(*cols)], out, loc)
        if fn is itertools.count:
            return self._for_count(sc, node, call, out, loc)
        return self._for_sequence(sc, node, out, loc)

    def _for_range(self, sc, node, bounds, out, loc):
        """``for i in range(start, stop, step)``: one `For` (unrolled where its body
        subscripts a static container with ``i``)."""
        if not isinstance(node.target, ast.Name):
            raise errors.UnsupportedSyntax("unpacking a range item", loc=loc)
        if self._unroll_range(sc, node, bounds, out, loc):
            return False
        var = self._store_name(sc, node.target.id, node.target)
        labels = self._loop_labels(sc)
        body = []
        self._loop_region(sc, node.body, out,
                          lambda: self._loop_body(sc, labels, node.body, body))
        out.append(For(var, *bounds, body, loc=loc, label=labels[1]))
        return False

    def _as_sequence(self, operand, out, loc):
        """A loop runs over its sequence by index: an iterator (``d.items()``,
        ``zip(...)``, ``itertools.product(...)``) is made a list first."""
        made, seen = _maker(out, operand), 0
        while made is not None and made.fn is ir.copy and len(made.args) == 1 and \
                isinstance(made.args[0], str) and seen < 8:
            # `it = zip(xs, ys)` then `for a, b in it`: the name holds what made it
            made, seen = _maker(out, made.args[0]), seen + 1
        if made is not None and made.fn in _ENDLESS:
            raise errors.UnsupportedSyntax(
                f"a loop over itertools.{made.fn.__name__}(), which never ends, where "
                "revsrc cannot see what bounds it", loc=loc, hint=counting._ENDLESS_HINT)
        if made is not None and (made.fn is ir.call_method or made.fn in _ITERATORS or
                                 getattr(made.fn, "__module__", None) == "itertools"):
            return self._emit(out, list, (operand,), None, loc)
        if isinstance(operand, str) and (made is None or made.fn in (operator.getitem,
                                                                     ir.get_attribute)):
            # an argument, a global or an item: a dict there walks its keys
            return self._emit(out, containers.iterable_items, (operand,), None, loc)
        return operand

    def _unroll_range(self, sc, node, bounds, out, loc):
        """``for i in range(n)`` with a constant ``n`` whose body subscripts a static
        container with ``i`` (``layers[i]``): unrolled, ``i`` a constant in each copy."""
        if not all(isinstance(b, Const) and type(b.value) is int for b in bounds) or \
                bounds[2].value == 0:
            return False
        values = range(*(b.value for b in bounds))
        if len(values) > UNROLL_LIMIT or not (
                self._subscripts_static(sc, node.body, node.target.id) or
                recursion.calls_recursion_with(sc, node.body, node.target.id) or
                self._makes_with(sc, node.body, node.target.id)):
            return False
        self._unroll_items(sc, node, [Const(i) for i in values], out, loc)
        return True

    def _makes_with(self, sc, body, name):
        """Whether ``body`` makes a partial (or a derivative) of the loop variable
        ``name`` (``fs.append(functools.partial(h, k=k))``): unrolled, each is made
        while transforming with its constant (calls.py, `made_derivative`)."""
        return any(isinstance(n, ast.Call) and recursion.reads(n, name) and
                   calls_maker(self, sc, n.func) for stmt in body for n in ast_nodes(stmt))

    def _subscripts_static(self, sc, body, name):
        for stmt in body:
            for n in ast_nodes(stmt):
                if isinstance(n, ast.Subscript) and any(
                        isinstance(m, ast.Name) and m.id == name for m in ast_nodes(n.slice)):
                    root = n.value
                    while isinstance(root, (ast.Subscript, ast.Attribute)):
                        root = root.value
                    if isinstance(root, ast.Name) and \
                            isinstance(sc.env.get(root.id), STATIC_NODES):
                        return True
        return False

    def _unroll(self, sc, node, it, out, loc):
        """A loop over a literal sequence, unrolled so each item is a plain operand."""
        # (a tuple item is kept as its parts, so ("a", x)'s key stays a constant)
        # (so is a dataclass object or a namedtuple made there: read field by field)
        items = []
        for e in it.elts:
            v = self._expr(sc, e, out)
            items.append(v if isinstance(e, ast.Tuple) or record(v) or made_object(v) else
                         self._snapshot(self._materialize(v, out, sc.parsed.loc(e)), out, loc))
        return self._unroll_items(sc, node, items, out, loc)

    def _bind_unrolled(self, sc, target, item, copy, loc):
        """An unrolled loop's target bound to its item: a constant where it is one
        (the name stands for it in this copy), part by part for a tuple target."""
        if isinstance(item, Const) and isinstance(target, ast.Name) and not sc.no_static:
            sc.env[target.id] = item   # a constant in this copy
        elif isinstance(item, VTuple) and isinstance(target, ast.Tuple) and \
                len(item) == len(target.elts) and \
                not any(isinstance(e, ast.Starred) for e in target.elts):
            for t, part in zip(target.elts, item):
                self._bind_unrolled(sc, t, part, copy, loc)
        else:   # (a tuple item of another length: unpacked as it runs, as Python's)
            if isinstance(item, VTuple) and isinstance(target, ast.Tuple) and \
                    len(item) != len(target.elts) and \
                    not any(isinstance(e, ast.Starred) for e in target.elts):
                item = self._materialize(item, copy, loc)
            self._assign_operand(sc, target, item, copy, loc)

    def _unroll_items(self, sc, node, items, out, loc):
        """A loop over items known when transforming, unrolled: a `Block` that
        ``break`` leaves, holding one ``continue`` block per item. A body that may
        leave early is lowered as the body of a loop the program runs (no static
        bindings inside), and after a ``break`` the loop's target is unusable."""
        items = [self._snapshot_deep(i, out, loc) for i in items]
        cont, brk = self._loop_labels(sc)
        breaks, leaves = leaves_loop(node.body)
        copies = []
        for item in items:
            copy = []
            self._bind_unrolled(sc, node.target, item, copy, loc)
            sc.loops.append((cont, brk))
            if leaves:
                self._loop_region(sc, node.body, copy,
                                  lambda: self._block(sc, node.body, copy))
            else:
                self._block(sc, node.body, copy)
            sc.loops.pop()
            copies.append(ir.Block(cont, copy, loc=loc))
        out.append(ir.Block(brk, copies, loc=loc))
        if breaks:
            for n in ast_nodes(node.target):
                if isinstance(n, ast.Name) and not isinstance(sc.env.get(n.id), str):
                    sc.env[n.id] = Poisoned("a loop that may break")
        return False

    @statement(ast.While)
    def _while(self, sc, node, out, loc):
        def lower():
            test_body = []
            test = self._condition(sc, node.test, test_body)
            labels = self._loop_labels(sc)
            body = []
            self._loop_body(sc, labels, node.body, body)
            return test_body, test, body, labels
        test_body, test, body, labels = self._loop_region(sc, node.body, out, lower)
        out.append(While(test_body, test, body, loc=loc, label=labels[1]))
        return False

    @expression(ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)
    def _comprehension(self, sc, node, out, into, loc):
        """A list or dict comprehension, or a generator expression (made a list): the
        loops written out in a scope of their own, adding to a new list or dict."""
        if isinstance(node, ast.SetComp):
            raise errors.UnsupportedSyntax(
                "a set comprehension is not supported (a set has no order to follow "
                "gradients by)", loc=loc, hint="build a list or a tuple instead")
        if any(g.is_async for g in node.generators):
            raise errors.UnsupportedSyntax("an async comprehension", loc=loc,
                                           hint="use a plain comprehension")
        if isinstance(node, ast.GeneratorExp):
            if id(node) not in self.consumed_here:
                self.drained.update(id(n) for n in
                                    mapping.check_kept_generator(sc, node, loc) or ())
            bounded = mapping.counted_range(sc, node)
            if bounded is not None:    # over itertools.count(), read by islice
                first = shallow_copy(node.generators[0])
                first.iter = bounded
                node = shallow_copy(node)
                node.generators = [first] + node.generators[1:]
        cs = sc.child()
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and (
                isinstance(node.elt, ast.Lambda) or isinstance(node.elt, ast.Call) and
                (calls_maker(self, sc.child(), node.elt.func) or
                 calls_plain_class(self, sc.child(), node.elt.func)) and
                not _binds(node, node.elt.func)):
            # lambdas, partials, objects of the user's classes: a static list
            made = self._lambda_list(cs, node, out, loc)
            if made is not None:
                return made if into is None else self._expr_copy(made, into, out, loc)
        used = {n.id for n in ast_nodes(node) if isinstance(n, ast.Name)}
        if into is not None and not any(sc.env.get(n) == into for n in used):
            acc = into     # built where it goes (it does not read that name)
        else:
            acc = self.fresh()
        is_dict = isinstance(node, ast.DictComp)
        out.append(Op(acc, ir.make_dict if is_dict else ir.make_list, (), loc=loc))
        cs.env[_ACC] = acc
        cs.locals.add(_ACC)
        for g in node.generators:
            for n in ast_nodes(g.target):
                if isinstance(n, ast.Name) and n.id not in cs.env:
                    cs.locals.add(n.id)
                    cs.env[n.id] = self._comprehension_variable(sc, n.id)
        acc_name = ast.copy_location(ast.Name(id=_ACC, ctx=ast.Load()), node)
        if is_dict:
            target = ast.copy_location(
                ast.Subscript(value=acc_name, slice=node.key, ctx=ast.Store()), node)
            inner = ast.copy_location(ast.Assign(targets=[target], value=node.value), node)
        else:
            method = ast.copy_location(
                ast.Attribute(value=acc_name, attr="append", ctx=ast.Load()), node)
            call = ast.copy_location(ast.Call(func=method, args=[node.elt], keywords=[]), node)
            inner = ast.copy_location(ast.Expr(value=call), node.elt)
        body = [inner]
        for g in reversed(node.generators):
            for cond in reversed(g.ifs):
                body = [ast.copy_location(ast.If(test=cond, body=body, orelse=[]), cond)]
            body = [ast.copy_location(ast.For(target=g.target, iter=g.iter, body=body,
                                              orelse=[]), g.iter)]
        # the first iterable is evaluated in the enclosing scope, as Python does: where
        # it reads a name the comprehension also binds, that name is the outer one
        first = node.generators[0]
        targets = {n.id for g in node.generators for n in ast_nodes(g.target)
                   if isinstance(n, ast.Name)}
        if any(isinstance(n, ast.Name) and n.id in targets for n in ast_nodes(first.iter)):
            cs.env[_FIRST] = self._val(sc, first.iter, out)
            body[0].iter = ast.copy_location(ast.Name(id=_FIRST, ctx=ast.Load()), first.iter)
        self._block(cs, body, out)
        return acc

    def _lambda_list(self, cs, node, out, loc):
        """``[lambda t, k=k: t ** k for k in range(3)]``: over items known when
        transforming, a static list of functions (each lambda made with its item, so
        that calls of them are inlined); None if the items are not known."""
        if len(node.generators) != 1 or node.generators[0].ifs or \
                not isinstance(node.generators[0].target, ast.Name):
            return None
        g = node.generators[0]
        items = self._static_plan_items(self._iteration(cs.enclosing, g.iter, out, loc),
                                        top=False)
        if items is None or len(items) > UNROLL_LIMIT:
            return None
        cs.locals.add(g.target.id)
        made = []
        for item in items:
            cs.env[g.target.id] = item
            made.append(self._expr(cs, node.elt, out))
        return vtuple(made, seq="list")

    def _comprehension_variable(self, sc, name):
        """A comprehension's own variable: the user's name where the function has no
        other variable of that name, else a fresh one."""
        var = sc.prefix + name
        if var in self.taken:
            return self.fresh(var)
        return self._reserve(var)


def _binds(node, func):
    """Whether a comprehension ``node`` binds a name ``func`` (its callee) reads."""
    targets = {n.id for g in node.generators for n in ast_nodes(g.target)
               if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.Name) and n.id in targets for n in ast_nodes(func))


def _literal(node):
    """A tuple or list written out (up to 16 items, none starred): a loop over it is
    unrolled."""
    return isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) <= 16 and \
        not any(isinstance(e, ast.Starred) for e in node.elts)


def _maker(out, name):
    """The last operation of ``out`` that assigns ``name`` (None: none does)."""
    return next((o for o in reversed(out) if isinstance(o, Op) and o.target == name), None)
