"""Expressions: constants, names, operators, comparisons (chained), ``and``/``or``,
conditional expressions, subscripts (``np.r_``/``np.c_`` too), literals, f-strings and
lambdas used as values; each registered in dispatch.EXPRESSIONS. Calls are in
calls.py, attributes in objects.py, comprehensions in loops.py.
"""
from __future__ import annotations

import ast
import builtins
import operator

import numpy as np

from ... import errors, runtime
from ...runtime import containers, guards
from ...core import ir
from ...core.ir import Const, If, Op
from . import recursion, special
from .chosen import note_item
from .dispatch import expression
from .rebind import merge_dicts
from .scope import param_names
from .values import (STATIC_NODES, BoundMethod, Known, NestedDef, VDict, VTuple,
                     lambda_def, made_object, record, spread, vtuple)
from ...core.source import ast_nodes, shallow_copy

BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}

def _plain_lambda(node):
    """A lambda without defaults (a default is taken where the lambda is made, so one
    with defaults is made there as a function value: `_lambda_value`)."""
    return isinstance(node, ast.Lambda) and not node.args.defaults and \
        not any(d is not None for d in node.args.kw_defaults)


_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
          ast.Invert: operator.invert}

_COMPARE = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}

_CONVERSIONS = {ord("s"): "!s", ord("r"): "!r", ord("a"): "!a"}


# the name a kept generator's first iterable, evaluated where it was written, has
_KEPT_FIRST = ".kept_first"

# constants a boolean operator decides on while transforming
_FOLDED_TESTS = (bool, int, float, str, type(None))


class ExpressionLowering:
    """The expression handlers (a part of `Lowerer`)."""

    @expression(ast.Constant)
    def _constant(self, sc, node, out, into, loc):
        return Const(node.value)

    @expression(ast.Name)
    def _name(self, sc, node, out, into, loc):
        kept = self.deferred_generators.pop(id(node), None)
        if kept is not None:   # a generator expression kept for here (assign.py)
            gen, first = kept
            made = shallow_copy(gen)
            made.generators = [shallow_copy(gen.generators[0])] + gen.generators[1:]
            made.generators[0].iter = ast.copy_location(
                ast.Name(id=_KEPT_FIRST, ctx=ast.Load()), gen.generators[0].iter)
            sc.env[_KEPT_FIRST] = first
            self.consumed_here.add(id(made))
            try:
                return self._expr(sc, made, out, into)
            finally:
                del sc.env[_KEPT_FIRST]
        value = self._resolve(sc, node.id, node, out)
        if id(node) in self.drained:
            # a kept generator read to its end: empty for any later read
            value = self._snapshot(value, out, loc)
            empty = self._emit(out, ir.make_list, [], None, loc)
            self._assign_operand(sc, ast.Name(id=node.id, ctx=ast.Store()), empty, out, loc)
        return value

    @expression(ast.BinOp)
    def _binop(self, sc, node, out, into, loc):
        fn = BINOPS.get(type(node.op))
        a = self._expr(sc, node.left, out)
        b = self._expr(sc, node.right, out)
        merged = merge_dicts(a, b) if fn is operator.or_ else None
        if merged is not None:
            return merged
        got = special.binary(self, sc, fn, a, b, out, into, loc)
        if got is not None:     # an object of the user's class: its __add__...
            return got
        a, b = self._materialize(a, out, loc), self._materialize(b, out, loc)
        folded = _folded_text(fn, a, b)
        if folded is not None:
            return folded
        return self._emit(out, fn, (a, b), into, loc)

    @expression(ast.UnaryOp)
    def _unaryop(self, sc, node, out, into, loc):
        fn = _UNARY[type(node.op)]
        a = self._expr(sc, node.operand, out)
        got = special.unary(self, sc, fn, a, out, into, loc)
        if got is not None:         # an object of the user's class: its __neg__...
            return got
        a = self._materialize(a, out, loc)
        if isinstance(a, Const) and fn is operator.neg and isinstance(a.value, (int, float)):
            return Const(-a.value)
        if isinstance(a, Const) and fn is operator.not_ and type(a.value) is bool:
            return Const(not a.value)    # not hasattr(np, "trapz"): known now
        return self._emit(out, fn, (a,), into, loc)

    @expression(ast.IfExp)
    def _ifexp(self, sc, node, out, into, loc):
        test = recursion.fold_condition(self, sc, out, self._condition(sc, node.test, out))
        if isinstance(test, Const) and type(test.value) in _FOLDED_TESTS:
            # known when transforming (hasattr(np, "trapezoid"), the base case of a
            # recursion on an int, n == 0): only the arm that runs is lowered, as for an
            # `if` statement
            return self._expr(sc, node.body if test.value else node.orelse, out, into)
        target = into if into is not None else self.fresh()
        body, orelse = [], []
        self._expr(sc, node.body, body, into=target)
        self._expr(sc, node.orelse, orelse, into=target)
        out.append(If(test, body, orelse, loc=loc))
        return target

    @expression(ast.Subscript)
    def _subscript(self, sc, node, out, into, loc):
        if isinstance(node.value, ast.Attribute) and node.value.attr == "flat":
            return self._flat_item(sc, node, out, into, loc)
        found = self._globals_item(sc, node, out)
        if found is not None:     # globals()["K"]: the global K
            return found
        base = self._expr(sc, node.value, out)
        if isinstance(base, STATIC_NODES):
            idx = self._index(sc, node.slice, out, loc)
            got = self._dunder_call(sc, base, "__getitem__", [idx], out, into, loc)
            if got is not None:     # an object of the user's class with __getitem__
                return got
            got = self._static_item(sc, node.value, base, idx, loc)
            if got is not None:
                return got
            base = self._materialize(base, out, loc)
            return self._emit(out, operator.getitem, (base, idx), into, loc)
        base = self._materialize(base, out, loc)
        if isinstance(base, Const) and any(base.value is c for c in (np.r_, np.c_)):
            # np.r_[a, b]: a call over the items, which a rule can differentiate
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            items = [self._index(sc, e, out, loc) for e in elts]
            lst = self._emit(out, ir.make_list, items, None, loc)
            fn = runtime.r_ if base.value is np.r_ else runtime.c_
            return self._emit(out, fn, (lst,), into, loc)
        idx = self._index(sc, node.slice, out, loc)
        item = self._emit(out, operator.getitem, (base, idx), into, loc)
        note_item(self, base, item)
        return item

    def _flat_item(self, sc, node, out, into, loc):
        """``a.flat[i]``: the item of ``a`` raveled (C order, as ``.flat`` counts); any
        index but an int gives a copy, as NumPy's flat iterator does, so a later write
        into it or into ``a`` leaves the other alone."""
        flat = self._emit(out, np.ravel, (self._val(sc, node.value.value, out),), None, loc)
        idx = self._index(sc, node.slice, out, loc)
        if isinstance(idx, Const) and type(idx.value) is int:
            return self._emit(out, operator.getitem, (flat, idx), into, loc)
        item = self._emit(out, operator.getitem, (flat, idx), None, loc)
        return self._emit(out, np.array, (item,), into, loc)

    @expression(ast.Dict)
    def _dict(self, sc, node, out, into, loc):
        spread = [self._expr(sc, v, out) if k is None else None
                  for k, v in zip(node.keys, node.values)]
        if all(isinstance(k, ast.Constant) or k is None and isinstance(s, VDict)
               for k, s in zip(node.keys, spread)):
            # constant keys, and ``**d`` of dicts whose keys are known: a static dict
            # (each subscript reads its value), later entries replacing earlier ones
            d = VDict([], [], owned=True)
            for k, v, s in zip(node.keys, node.values, spread):
                entries = zip(s.keys, s.values) if k is None else \
                    [(k.value, self._snapshot_deep(self._expr(sc, v, out), out, loc))]
                for key, value in entries:
                    if isinstance(value, Known):
                        value = self._materialize(value, out, loc)
                    if key in d.keys:
                        d.values[d.keys.index(key)] = value
                    else:
                        d.keys.append(key)
                        d.values.append(value)
            return d
        if any(k is None for k in node.keys):
            return self._merged_dict(sc, node, spread, out, into, loc)
        items = []
        for k, v in zip(node.keys, node.values):
            items += [self._val(sc, k, out), self._val(sc, v, out)]
        return self._emit(out, ir.make_dict, items, into, loc)

    def _merged_dict(self, sc, node, spread, out, into, loc):
        """``{**a, "k": v, **b}`` of dicts known only at run time: the runs of
        ``key: value`` entries made dicts, merged left to right (later keys win)."""
        parts, run = [], []
        for k, v, s in zip(node.keys, node.values, spread):
            if k is not None:
                run += [self._val(sc, k, out), self._val(sc, v, out)]
                continue
            if run:
                parts.append(self._emit(out, ir.make_dict, run, None, loc))
                run = []
            parts.append(self._materialize(s, out, loc))
        if run:
            parts.append(self._emit(out, ir.make_dict, run, None, loc))
        if len(parts) == 1:
            return self._emit(out, dict, parts, into, loc)
        acc = parts[0]
        for i, part in enumerate(parts[1:]):
            acc = self._emit(out, containers.merge, [acc, part],
                             into if i == len(parts) - 2 else None, loc)
        return acc

    @expression(ast.Starred)
    def _starred(self, sc, node, out, into, loc):
        raise errors.UnsupportedSyntax(
            "star-arguments (*args) are supported only in calls, on a container "
            "known when transforming", loc=loc, hint="pass the arguments one by one")

    @expression(ast.Tuple, ast.List)
    def _sequence_literal(self, sc, node, out, into, loc):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return self._starred_literal(sc, node, out, into, loc)
        values = [self._expr(sc, e, out) if not _plain_lambda(e) else
                  Known(NestedDef(sc, lambda_def(e, "lambda_"))) for e in node.elts]
        if any(made_object(v) or record(v) for v in values) or any(
                isinstance(v, Known) and isinstance(v.value, NestedDef) for v in values) and \
                all(isinstance(v, Known) and callable(v.value) or isinstance(v.value, NestedDef)
                    for v in values):
            # objects made in the function stay static: a list of layers is
            # known when transforming, and a loop over it is unrolled; so does a
            # list of functions (lambdas), whose calls are inlined
            return vtuple([self._snapshot_deep(v, out, loc) for v in values],
                          "list" if isinstance(node, ast.List) else "tuple")
        items = [self._materialize(v, out, sc.parsed.loc(e))
                 for v, e in zip(values, node.elts)]
        if isinstance(node, ast.List):
            return self._emit(out, ir.make_list, items, into, loc)
        return VTuple(items)

    def _starred_literal(self, sc, node, out, into, loc):
        """``[*xs, v]``, ``(a, *rest)``: a container known now is spread item by item;
        one known only when the function runs is added as a list or tuple of its items
        (``list(xs) + [v]``: its items carry their adjoints through the sum)."""
        seq = list if isinstance(node, ast.List) else tuple
        pieces, run = [], []
        for e in node.elts:
            if not isinstance(e, ast.Starred):
                run.append(self._val(sc, e, out))
                continue
            v = self._expr(sc, e.value, out)
            items = spread(v)
            if items is not None:
                run.extend(self._materialize(i, out, loc) for i in items)
                continue
            if run:
                pieces.append(run)
                run = []
            pieces.append(self._emit(out, seq, (self._materialize(v, out, loc),), None, loc))
        if run or not pieces:
            pieces.append(run)
        if len(pieces) == 1 and isinstance(pieces[0], list):
            make = ir.make_list if seq is list else ir.make_tuple
            if seq is tuple:
                return VTuple(pieces[0])
            return self._emit(out, make, pieces[0], into, loc)
        made = [p if isinstance(p, str) else self._emit(
            out, ir.make_list if seq is list else ir.make_tuple, p, None, loc) for p in pieces]
        total = made[0]
        for i, p in enumerate(made[1:]):
            total = self._emit(out, operator.add, (total, p),
                               into if i == len(made) - 2 else None, loc)
        return total

    def _index(self, sc, node, out, loc):
        if isinstance(node, ast.Slice):
            parts = [self._val(sc, p, out) if p is not None else Const(None)
                     for p in (node.lower, node.upper, node.step)]
            if all(isinstance(p, Const) for p in parts):
                return Const(slice(*(p.value for p in parts)))
            return self._emit(out, slice, parts, None, loc)
        if isinstance(node, ast.Tuple):
            items = [self._index(sc, e, out, loc) for e in node.elts]
            if all(isinstance(i, Const) for i in items):
                return Const(tuple(i.value for i in items))
            return self._emit(out, ir.make_tuple, items, None, loc)
        return self._val(sc, node, out)

    @expression(ast.Compare)
    def _compare(self, sc, node, out, into, loc):
        left = self._val(sc, node.left, out)
        if len(node.ops) == 1:
            right = self._val(sc, node.comparators[0], out)
            return self._compare_op(node.ops[0], left, right, out, into, loc)
        # a < b < c: b is evaluated once, c only when a < b holds
        target = into if into is not None else self.fresh()
        cur = out
        for op, comp in zip(node.ops, node.comparators):
            right = self._val(sc, comp, cur)
            self._compare_op(op, left, right, cur, target, loc)
            nxt = []
            cur.append(If(target, nxt, [], loc=loc))
            cur = nxt
            left = right
        return target

    def _compare_op(self, op, left, right, out, into, loc):
        if isinstance(op, ast.In):
            return self._emit(out, operator.contains, (right, left), into, loc)
        if isinstance(op, ast.NotIn):
            t = self._emit(out, operator.contains, (right, left), None, loc)
            return self._emit(out, operator.not_, (t,), into, loc)
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(left, Const) and \
                isinstance(right, Const) and (left.value is None or right.value is None):
            # n is None for a default given a constant: known now
            return Const((left.value is right.value) is isinstance(op, ast.Is))
        return self._emit(out, _COMPARE[type(op)], (left, right), into, loc)

    @expression(ast.BoolOp)
    def _boolop(self, sc, node, out, into, loc):
        is_and = isinstance(node.op, ast.And)
        values = list(node.values)
        first = None
        while len(values) > 1:
            # operands known when transforming (hasattr(np, "trapezoid")) decide it now:
            # the operands after the one that decides it are never evaluated
            first = self._expr(sc, values[0], out)
            if not (isinstance(first, Const) and type(first.value) in _FOLDED_TESTS):
                break
            if bool(first.value) != is_and:
                return first
            values, first = values[1:], None
        if len(values) == 1:
            return self._expr(sc, values[0], out, into)
        target = into if into is not None else self.fresh()
        cur = out
        for i, v in enumerate(values):
            if i == 0 and first is not None:
                out.append(Op(target, ir.copy, (self._materialize(first, out, loc),), loc=loc))
            else:
                self._expr(sc, v, cur, into=target)
            if i < len(values) - 1:
                nxt = []
                cur.append(If(target, nxt, [], loc=loc) if is_and else
                           If(target, [], nxt, loc=loc))
                cur = nxt
        return target

    @expression(ast.JoinedStr)
    def _fstring(self, sc, node, out, into, loc):
        """An f-string, as its ``str.format`` template and its values."""
        values = []
        template = self._template(sc, node, values, out)
        if all(isinstance(v, Const) and type(v.value) in _TEXT_PARTS for v in values):
            # of constants (a key made in a loop over constants: f"h{i}"): a constant
            return Const(guards.fstring(template, *[v.value for v in values]))
        return self._emit(out, guards.fstring, [Const(template)] + values, into, loc)

    def _template(self, sc, node, values, out):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value).replace("{", "{{").replace("}", "}}"))
                continue
            field = str(len(values))
            values.append(self._val(sc, part.value, out))
            field += _CONVERSIONS.get(part.conversion, "")
            if part.format_spec is not None:
                field += ":" + self._template(sc, part.format_spec, values, out)
            parts.append("{" + field + "}")
        return "".join(parts)

    @expression(ast.Lambda)
    def _lambda_value(self, sc, node, out, into, loc):
        """A lambda passed as a value (``key=lambda kv: kv[0]``): when its body reads
        nothing but its parameters and module globals, it is that function, made from
        the user's own source; one reading the function's variables is refused.
        Defaults that read them (``[lambda t, k=k: t ** k for k in range(3)]``) are
        taken when the lambda is made, as in Python: values known when transforming
        (a loop counter, a constant), else refused."""
        params = set(param_names(node))
        names = {n.id for n in ast_nodes(node.body) if isinstance(n, ast.Name)}
        if not self._reads_locals(sc, names - params) and not any(
                isinstance(n, (ast.Lambda, ast.NamedExpr)) for n in ast_nodes(node.body)) \
                and sc.globals is not None:
            node, given = self._lambda_defaults(sc, node, out, loc)
            expr = ast.fix_missing_locations(ast.Expression(body=node))
            code = compile(expr, sc.parsed.loc(node).filename if sc.parsed.loc(node)
                           else "<lambda>", "eval")
            return Known(eval(code, sc.globals, given))  # noqa: S307 (the user's own lambda)
        raise errors.UnsupportedSyntax(
            "a lambda used as a value that reads the function's variables is not supported "
            "(one assigned to a name and called in the function is)", loc=loc,
            hint="assign it to a name and call it, or write the expression out")

    def _reads_locals(self, sc, names):
        """Whether any of ``names`` is the function's own (a module global the body
        reads is loaded at entry, and is still the global)."""
        scope = sc
        while scope is not None:
            for n in names:
                v = scope.env.get(n)
                hoisted = isinstance(v, Known) and n not in scope.locals and \
                    scope.globals is not None and (
                        scope.globals[n] is v.value if n in scope.globals else
                        getattr(builtins, n, None) is v.value)   # abs, min, len...
                held = self.loaded.get(v) if isinstance(v, str) else None
                hoisted = hoisted or (held is not None and held[0] is scope.globals and
                                      held[1] == n and n not in scope.locals)  # PARAMS
                if n in scope.locals or n in scope.env and not hoisted:
                    return True
            scope = scope.enclosing
        return False

    def _lambda_defaults(self, sc, node, out, loc):
        """``node`` with its defaults that read the function's variables replaced by
        names of their values (known when transforming), and those names' values."""
        a, given = node.args, {}

        def taken(d):
            if d is None or not self._reads_locals(
                    sc, {n.id for n in ast_nodes(d) if isinstance(n, ast.Name)}):
                return d
            v = self._expr(sc, d, out)
            if not isinstance(v, (Known, Const)) or \
                    isinstance(v, Known) and isinstance(v.value, (NestedDef, BoundMethod)):
                raise errors.UnsupportedSyntax(
                    f"a lambda's default value {ast.unparse(d)} is not known when "
                    "transforming (a lambda's defaults can be constants, functions, "
                    "and the variable of a comprehension over a range of constant "
                    "bounds, with no if)", loc=loc,
                    hint="pass the value as an argument, or write the expression out")
            name = f"_revsrc_default{len(given)}"
            given[name] = v.value
            return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), d)
        defaults = [taken(d) for d in a.defaults]
        kw_defaults = [taken(d) for d in a.kw_defaults]
        if not given:
            return node, None
        args = ast.arguments(posonlyargs=a.posonlyargs, args=a.args, vararg=a.vararg,
                             kwonlyargs=a.kwonlyargs, kw_defaults=kw_defaults,
                             kwarg=a.kwarg, defaults=defaults)
        return ast.copy_location(ast.Lambda(args=args, body=node.body), node), given


_TEXT_PARTS = (str, int, bool)


def _folded_text(fn, a, b):
    """``a op b`` of two constants when it makes text ("a" + "_w", "h%d" % 2: a key
    made in a loop over constants), as a constant; None otherwise."""
    if not (isinstance(a, Const) and isinstance(b, Const) and str in (type(a.value),
            type(b.value)) and all(type(v.value) in _TEXT_PARTS + (tuple,) for v in (a, b))):
        return None
    try:
        value = fn(a.value, b.value)
    except Exception:    # the program raises it where it runs
        return None
    return Const(value) if type(value) is str else None

