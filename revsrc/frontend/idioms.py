"""Lowering of the Python idioms people write in numerical code, beside the core
statements of revsrc/normalize.py: guards (``raise``, assertion messages, f-strings).

`IdiomLowering` is a part of `normalize.Normalizer`; its methods lower one construct
each, to the same IR as the rest.
"""
from __future__ import annotations

import ast
import inspect
import operator
import os
import types

import numpy as np

from ..passes import containers
from .. import errors, rules
from ..runtime import guards, inplace
from ..core import ir
from ..core.ir import Const, For, If, Op, SetItem
from .lower.scope import assigned_names
from .lower.values import (UNROLL_LIMIT, Known, NestedDef, VDict, VRecord, VTuple,
                           inlinable, is_static)

_getitem = operator.getitem
_add_int = operator.add
_sub_int = operator.sub
_mul_int = operator.mul


# the in-place list methods a statement may call
_LIST_WRITES = {"append": containers.append_in_place, "extend": containers.extend_in_place}
# names of a comprehension's own (not valid identifiers: no user name is one)
_ACC = ".acc"
_FIRST = ".first"


def _static_container(plan):
    return plan[0] == "seq" and isinstance(plan[1], (VTuple, VDict)) or \
        plan[0] in ("enumerate", "reversed") and _static_container(plan[1]) or \
        plan[0] == "zip" and any(_static_container(p) for p in plan[1])


def _is_function_value(fn):
    """A function to stand for by name: not a module, nor a nested def's record."""
    return is_static(fn) and not isinstance(fn, (NestedDef, types.ModuleType))


_CONVERSIONS = {ord("s"): "!s", ord("r"): "!r", ord("a"): "!a"}


class IdiomLowering:

    # ----- guards -----------------------------------------------------------
    def _raise(self, sc, node, out, loc):
        """``raise E(...)`` runs in the forward sweep, as in Python."""
        if node.exc is None:
            raise errors.UnsupportedSyntax(
                "a bare raise (re-raising) is not supported", loc=loc,
                hint="raise an exception explicitly: raise ValueError(\"...\")")
        exc = node.exc
        if node.cause is None and isinstance(exc, ast.Call):
            cls = self._static_callee(sc, exc.func, out)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                args = [self._val(sc, a, out) for a in exc.args]
                kwargs = [(k.arg, self._val(sc, k.value, out)) for k in exc.keywords]
                out.append(Op(None, guards.raise_error, (Const(cls), *args), tuple(kwargs),
                              loc=loc))
                return False
        value = self._val(sc, exc, out)
        if node.cause is not None:
            cause = self._val(sc, node.cause, out)
            out.append(Op(None, guards.raise_error_from, (value, cause), loc=loc))
        else:
            out.append(Op(None, guards.raise_error, (value,), loc=loc))
        return False

    def _assert_message(self, sc, node, test, out, loc):
        """``assert test, message``: the message is computed only when the test fails."""
        if isinstance(node.msg, ast.Constant):
            out.append(Op(None, ir.check_assert, (test, Const(node.msg.value)), loc=loc))
            return
        failed = []
        message = self._val(sc, node.msg, failed)
        failed.append(Op(None, guards.fail_assert, (message,), loc=loc))
        out.append(If(test, [], failed, loc=loc))

    def _make_object(self, sc, cls, args, kwargs, out, loc):
        """``Cls(...)`` for a class whose ``__init__`` only sets attributes: its
        ``__init__`` inlined on a static object that records them; its methods are
        inlined with ``self`` that object, its attributes read what was stored."""
        obj = VRecord(None, [], cls)
        obj.building = True
        try:
            self._inline_callable(sc, cls.__init__, [obj] + list(args), kwargs, out, None,
                                  loc)
        finally:
            obj.building = False
        return obj

    def _print_statement(self, sc, call, out, loc):
        """``print(...)`` as a statement: it runs in the forward sweep, once per call of
        the derivative, with the values of that call (as in the user's function; it
        carries no gradient). False for any other call."""
        if not isinstance(call.func, ast.Name) or \
                self._static_callee(sc, call.func, out) is not print:
            return False
        args, kwargs = self._call_args(sc, call, out, loc)
        args = [self._materialize(a, out, loc) for a in args]
        kwargs = [(k, self._materialize(v, out, loc)) for k, v in kwargs]
        out.append(Op(None, print, tuple(args), tuple(kwargs), loc=loc))
        return True

    def _fstring(self, sc, node, out, into, loc):
        """An f-string, as its ``str.format`` template and its values."""
        values = []
        template = self._template(sc, node, values, out)
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

    # ----- iteration ----------------------------------------------------------
    def _iteration(self, sc, it, out, loc, assigned=()):
        """What ``for ... in it`` walks, as a plan: ("seq", operand), ("range", start,
        stop, step), ("enumerate", plan, start), ("zip", [plans]) or ("reversed", plan);
        the sequences are evaluated here, once, before the loop."""
        call = it if isinstance(it, ast.Call) else None
        fn = self._static_callee(sc, call.func, out) if call is not None else None
        if fn is not None and any(isinstance(a, ast.Starred) for a in call.args):
            fn = None
        if fn is enumerate and call.args and len(call.args) + len(call.keywords) <= 2:
            start = Const(0)
            if len(call.args) == 2:
                start = self._val(sc, call.args[1], out)
            for k in call.keywords:
                if k.arg != "start":
                    raise errors.UnsupportedSyntax(f"enumerate() got keyword {k.arg}",
                                                   loc=loc)
                start = self._val(sc, k.value, out)
            return ("enumerate", self._iteration(sc, call.args[0], out, loc, assigned), start)
        if fn is zip and call.args and not call.keywords:
            return ("zip", [self._iteration(sc, a, out, loc, assigned) for a in call.args])
        if fn is reversed and len(call.args) == 1 and not call.keywords:
            return ("reversed", self._iteration(sc, call.args[0], out, loc, assigned))
        if fn is range and 1 <= len(call.args) <= 3 and not call.keywords:
            args = [self._val(sc, a, out) for a in call.args]
            if len(args) == 1:
                return ("range", Const(0), args[0], Const(1))
            if len(args) == 2:
                return ("range", args[0], args[1], Const(1))
            return ("range", *args)
        # (a static container stays one until the plan is known: a loop over one may be
        # unrolled; see _materialize_plan)
        return ("seq", self._expr(sc, it, out),
                isinstance(it, ast.Name) and it.id in assigned)

    def _static_plan_items(self, plan, top=True):
        """The items of a loop over containers known when transforming (``for W, b in
        layers``, ``for k, v in enumerate(params)``), or None: the loop is unrolled."""
        kind = plan[0]
        if kind == "seq":
            v = plan[1]
            if isinstance(v, VTuple):
                return list(v)
            if isinstance(v, VDict):
                return [Const(k) for k in v.keys]
            if top and isinstance(v, Const) and isinstance(v.value, (tuple, list)) and \
                    len(v.value) <= UNROLL_LIMIT and \
                    all(isinstance(x, (str, int, type(None))) for x in v.value):
                return [Const(x) for x in v.value]
            return None
        if kind == "enumerate":
            inner = self._static_plan_items(plan[1], False)
            if inner is None or not isinstance(plan[2], Const):
                return None
            return [VTuple((Const(i + plan[2].value), x)) for i, x in enumerate(inner)]
        if kind == "zip":
            seqs = [self._static_plan_items(p, False) for p in plan[1]]
            if any(x is None for x in seqs) or not any(
                    _static_container(p) for p in plan[1]):
                return None
            return [VTuple(xs) for xs in zip(*seqs)]
        if kind == "reversed":
            inner = self._static_plan_items(plan[1], False)
            return None if inner is None else inner[::-1]
        # range: constant bounds make constants (inside a zip with a container)
        if not top and all(isinstance(b, Const) and type(b.value) is int for b in plan[1:]) \
                and plan[3].value != 0:
            return [Const(i) for i in range(*(b.value for b in plan[1:]))]
        return None

    def _materialize_plan(self, plan, out, loc):
        """``plan`` with its sequences operands of the program: static containers
        built, iterators (``map(...)``, ``d.items()`` of an object) made lists, and a
        name the loop reassigns read as it was when the loop started."""
        kind = plan[0]
        if kind == "seq":
            seq = self._as_sequence(self._materialize(plan[1], out, loc), out, loc)
            if plan[2]:
                seq = self._snapshot(seq, out, loc)
            return ("seq", seq)
        if kind in ("enumerate", "reversed"):
            return (kind, self._materialize_plan(plan[1], out, loc)) + tuple(plan[2:])
        if kind == "zip":
            return ("zip", [self._materialize_plan(p, out, loc) for p in plan[1]])
        return ("range",) + tuple(self._materialize(b, out, loc) for b in plan[1:])

    def _iteration_count(self, plan, out, loc):
        """The number of items ``plan`` yields (computed before the loop)."""
        kind = plan[0]
        if kind == "seq":
            return self._emit_control(out, len, (plan[1],), loc)
        if kind == "range":
            if plan[1] == Const(0) and plan[3] == Const(1):
                return plan[2]
            r = self._emit(out, range, plan[1:], None, loc)
            return self._emit_control(out, len, (r,), loc)
        if kind in ("enumerate", "reversed"):
            return self._iteration_count(plan[1], out, loc)
        counts = [self._iteration_count(p, out, loc) for p in plan[1]]
        if len(counts) == 1:
            return counts[0]
        return self._emit_control(out, min, tuple(counts), loc)

    def _emit_control(self, out, fn, args, loc):
        n = self.fresh("_n")
        out.append(Op(n, fn, tuple(args), loc=loc))
        return n

    def _bind_item(self, sc, plan, target, position, body, loc, counts):
        """Assign the item at ``position`` of ``plan`` to ``target``, unpacking a
        tuple target against enumerate and zip without building the tuple."""
        kind = plan[0]
        if kind == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            index = position
            if plan[2] != Const(0):
                index = self._emit(body, _add_int, (position, plan[2]), None, loc)
            self._assign_operand(sc, target.elts[0], index, body, loc)
            self._bind_item(sc, plan[1], target.elts[1], position, body, loc, counts)
            return
        if kind == "zip" and isinstance(target, ast.Tuple) \
                and len(target.elts) == len(plan[1]):
            for p, t in zip(plan[1], target.elts):
                self._bind_item(sc, p, t, position, body, loc, counts)
            return
        self._assign_operand(sc, target, self._item(plan, position, body, loc, counts),
                             body, loc)

    def _item(self, plan, position, body, loc, counts):
        kind = plan[0]
        if kind == "seq":
            return self._emit(body, _getitem, (plan[1], position), None, loc)
        if kind == "range":
            start, _, step = plan[1:]
            value = position
            if step != Const(1):
                value = self._emit(body, _mul_int, (value, step), None, loc)
            if start != Const(0):
                value = self._emit(body, _add_int, (start, value), None, loc)
            return value
        if kind == "enumerate":
            index = position
            if plan[2] != Const(0):
                index = self._emit(body, _add_int, (position, plan[2]), None, loc)
            inner = self._item(plan[1], position, body, loc, counts)
            return self._emit(body, ir.make_tuple, (index, inner), None, loc)
        if kind == "zip":
            items = [self._item(p, position, body, loc, counts) for p in plan[1]]
            return self._emit(body, ir.make_tuple, items, None, loc)
        # reversed: position n - 1 - k of the inner plan
        n = counts[id(plan)]
        last = self._emit(body, _sub_int, (n, Const(1)), None, loc)
        back = self._emit(body, _sub_int, (last, position), None, loc)
        return self._item(plan[1], back, body, loc, counts)

    def _reversed_counts(self, plan, out, loc, counts):
        """The inner count of every ``reversed`` in ``plan``, computed before the loop."""
        if plan[0] == "reversed":
            counts[id(plan)] = self._iteration_count(plan[1], out, loc)
            self._reversed_counts(plan[1], out, loc, counts)
        elif plan[0] == "enumerate":
            self._reversed_counts(plan[1], out, loc, counts)
        elif plan[0] == "zip":
            for p in plan[1]:
                self._reversed_counts(p, out, loc, counts)

    def _for_sequence(self, sc, node, out, loc):
        """``for target in it`` over sequences, ranges, and enumerate, zip and reversed
        of them (nested in any order): a loop over positions 0 .. n-1."""
        plan = self._iteration(sc, node.iter, out, loc, assigned_names(node.body)[0])
        items = self._static_plan_items(plan)
        if items is not None and len(items) <= UNROLL_LIMIT:
            return self._unroll_items(sc, node, items, out, loc)
        plan = self._materialize_plan(plan, out, loc)
        counts = {}
        self._reversed_counts(plan, out, loc, counts)
        count = self._iteration_count(plan, out, loc)
        target = node.target

        def lower():
            # `for i, x in enumerate(xs)`: i itself counts the loop
            if plan[0] == "enumerate" and plan[2] == Const(0) and \
                    isinstance(target, ast.Tuple) and len(target.elts) == 2 and \
                    isinstance(target.elts[0], ast.Name):
                k = self._store_name(sc, target.elts[0].id, target.elts[0])
                body = []
                self._bind_item(sc, plan[1], target.elts[1], k, body, loc, counts)
            else:
                k = self.fresh("_k")
                body = []
                self._bind_item(sc, plan, target, k, body, loc, counts)
            labels = self._loop_labels(sc)
            self._loop_body(sc, labels, node.body, body)
            return k, body, labels
        k, body, labels = self._loop_region(sc, [node] + node.body, out, lower)
        out.append(For(k, Const(0), count, Const(1), body, loc=loc, label=labels[1]))
        return False

    # ----- functions held in variables -----------------------------------------
    def _assign_function(self, sc, target, value, out, loc):
        """``act = lambda z: ...`` or ``act = np.tanh``: the name stands for the function
        (calls to it are inlined or call it by name). True when handled."""
        if not isinstance(target, ast.Name):
            return False
        if isinstance(value, ast.Lambda):
            self._check_single_binding(sc, target.id, "a lambda", loc)
            node = ast.FunctionDef(name=target.id, args=value.args,
                                   body=[ast.Return(value=value.body)], decorator_list=[],
                                   returns=None, type_comment=None, type_params=[])
            ast.copy_location(node, value)
            ast.copy_location(node.body[0], value.body)
            sc.defs[target.id] = node
            sc.env[target.id] = Known(NestedDef(sc, node))
            return True
        if isinstance(value, (ast.Name, ast.Attribute)):
            fn = self._static_callee(sc, value, out)
            if fn is None or not _is_function_value(fn):
                return False
            self._check_single_binding(sc, target.id, "a function", loc)
            sc.env[target.id] = Known(fn)
            return True
        return False

    def _check_single_binding(self, sc, name, what, loc):
        if sc.store_counts.get(name, 0) != 1 or name in sc.env:
            raise errors.UnsupportedSyntax(
                f"{name} is assigned {what} and also other values; revsrc must know which "
                f"function a call to {name} calls when it transforms the function", loc=loc,
                hint="give each function its own name, or pick one with if/else at the "
                     "call: (f1(x) if cond else f2(x))")

    def _lambda_value(self, sc, node, loc):
        """A lambda passed as a value (``key=lambda kv: kv[0]``): when it reads nothing
        but its parameters and module globals, it is that function, made from the
        user's own source; one reading the function's variables is refused."""
        params = {a.arg for a in node.args.args + node.args.kwonlyargs}
        names = {n.id for n in ast.walk(node.body) if isinstance(n, ast.Name)}
        scope, local = sc, False
        while scope is not None:
            local = local or any(n in scope.locals or n in scope.env for n in names - params)
            scope = scope.enclosing
        if not local and not any(isinstance(n, (ast.Lambda, ast.NamedExpr))
                                 for n in ast.walk(node.body)) and sc.globals is not None:
            expr = ast.fix_missing_locations(ast.Expression(body=node))
            code = compile(expr, sc.parsed.loc(node).filename if sc.parsed.loc(node)
                           else "<lambda>", "eval")
            return Known(eval(code, sc.globals))  # noqa: S307 (the user's own lambda)
        raise errors.UnsupportedSyntax(
            "a lambda used as a value that reads the function's variables is not supported "
            "(one assigned to a name and called in the function is)", loc=loc,
            hint="assign it to a name and call it, or write the expression out")

    # ----- builtins on lists -------------------------------------------------------
    def _extremum_of_sequence(self, fn, seq, out, into, loc):
        """``max(seq)``/``min(seq)``: of a list written out, the items one by one (as
        ``max(a, b, c)``); of any other sequence, the item it picks."""
        items = self._literal_items(seq, out)
        if items is not None and len(items) >= 2:
            # the list was made for this call only: its items are the arguments
            out[:] = [s for s in out if not (isinstance(s, Op) and s.target == seq)]
            acc = items[0]
            for i, a in enumerate(items[1:]):
                acc = self._emit(out, fn, (acc, a), into if i == len(items) - 2 else None,
                                 loc)
            return acc
        pick = containers.max_of if fn is max else containers.min_of
        return self._emit(out, pick, (seq,), into, loc)

    def _literal_items(self, operand, out):
        """The items of ``operand`` when it is a list or a tuple just built (a temporary
        made by the last statements), else None."""
        if not (isinstance(operand, str) and self.names.is_temp(operand)):
            return None
        for s in reversed(out[-64:]):
            if isinstance(s, Op) and s.target == operand:
                if s.fn in (ir.make_list, ir.make_tuple):
                    return list(s.args)
                return None
        return None

    # ----- lists and dicts built in the function (revsrc/containers.py) ----------------
    def _discarded_call(self, sc, call, out, loc):
        """A call statement whose function revsrc inlines: what it changes (lists,
        dicts and arrays it was given) is followed like the caller's own changes.
        False for any other call."""
        fn = self._static_callee(sc, call.func, out)
        if inplace.value_form(fn) is not None or inplace.writes_into(fn):
            return self._inplace_call(sc, call, fn, out, loc)
        if not (isinstance(fn, NestedDef) or (inlinable(fn) and rules.lookup(fn) is None)):
            return False
        self._expr(sc, call, out)
        return True

    def _inplace_call(self, sc, call, fn, out, loc):
        """``np.add.at(a, idx, v)``, ``np.fill_diagonal(a, val)`` or ``np.copyto(a, src)``
        on a name, as a statement or a value (None): lowered to ``a[...] = form(a, ...)``
        (revsrc/inplace.py), or ``a[...] = src``, so the write follows ``a``'s views and
        aliases like any item assignment, and is refused on an argument (E403). Other
        functions that write into an argument, and a write into anything but a name,
        are refused (E401)."""
        form = inplace.value_form(fn)
        if form is None or not call.args or not isinstance(call.args[0], ast.Name) or \
                any(isinstance(a, ast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            base = None
        else:
            base = self._resolve(sc, call.args[0].id, call.args[0], out)
        if not isinstance(base, str):
            raise errors.SideEffect(
                f"{ast.unparse(call.func)} writes into its first argument in place, which "
                "revsrc follows only for np.add.at, np.fill_diagonal and np.copyto into a "
                "named array the function made", loc=loc,
                hint="compute a new array instead, or write it with an item assignment "
                     "(a[idx] = v)")
        sig = inspect.signature(form).parameters
        params = list(sig)[1:]
        given = {k.arg: k.value for k in call.keywords}
        missing = [n for n in params[len(call.args) - 1:]
                   if n not in given and sig[n].default is inspect.Parameter.empty]
        if len(call.args) - 1 > len(params) or missing or \
                any(k not in params[len(call.args) - 1:] for k in given):
            raise errors.UnsupportedSyntax(
                f"this call to {ast.unparse(call.func)} has arguments revsrc does not "
                f"follow (it takes {', '.join(params)} after the array)", loc=loc)
        args = [base] + [self._val(sc, a, out) for a in call.args[1:]]
        for name in params[len(call.args) - 1:]:
            args.append(self._val(sc, given[name], out) if name in given
                        else Const(sig[name].default))
        if form is inplace.copyto:
            out.append(SetItem(base, Const(Ellipsis), args[1], loc=loc))
            return True
        new = self.fresh()
        out.append(Op(new, form, tuple(args), loc=loc))
        out.append(SetItem(base, Const(Ellipsis), new, loc=loc))
        return True

    def _list_method_statement(self, sc, call, out, loc):
        """``xs.append(v)``, ``xs.extend(ys)`` as statements: an in-place change that
        revsrc/aliases.py makes a new value of ``xs`` (or refuses). False if ``call``
        is not one."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in _LIST_WRITES):
            return False
        if isinstance(func.value, ast.Name):
            r = self._resolve(sc, func.value.id, func.value, out)
            if not isinstance(r, str):
                return False   # a module's function, or an object's method
            base = r
        elif isinstance(func.value, (ast.Subscript, ast.Attribute)):
            base = self._val(sc, func.value, out)
        else:
            return False
        if call.keywords or len(call.args) != 1:
            raise errors.UnsupportedSyntax(f".{func.attr}() takes one argument here", loc=loc,
                                           hint=f"call {func.attr} once per value")
        value = self._val(sc, call.args[0], out)
        out.append(Op(base, _LIST_WRITES[func.attr], (base, value), loc=loc))
        return True

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
        cs = sc.child()
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if into is not None and not any(sc.env.get(n) == into for n in used):
            acc = into     # built where it goes (it does not read that name)
        else:
            acc = self.fresh()
        is_dict = isinstance(node, ast.DictComp)
        out.append(Op(acc, ir.make_dict if is_dict else ir.make_list, (), loc=loc))
        cs.env[_ACC] = acc
        cs.locals.add(_ACC)
        for g in node.generators:
            for n in ast.walk(g.target):
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
        targets = {n.id for g in node.generators for n in ast.walk(g.target)
                   if isinstance(n, ast.Name)}
        if any(isinstance(n, ast.Name) and n.id in targets for n in ast.walk(first.iter)):
            cs.env[_FIRST] = self._val(sc, first.iter, out)
            body[0].iter = ast.copy_location(ast.Name(id=_FIRST, ctx=ast.Load()), first.iter)
        self._block(cs, body, out)
        return acc

    def _comprehension_variable(self, sc, name):
        """A comprehension's own variable: the user's name where the function has no
        other variable of that name, else a fresh one."""
        var = sc.prefix + name
        if var in self.taken:
            return self.fresh(var)
        return self._reserve(var)

    def _nested_subscript_parts(self, sc, node, out, loc):
        """``M[i][j] = v``: the write goes into the item ``M[i]`` (a view of an array's
        row, or an inner list), which revsrc/aliases.py writes back into ``M``."""
        root = node.value
        while isinstance(root, ast.Subscript):
            root = root.value
        if not isinstance(root, ast.Name):
            raise errors.UnsupportedSyntax(
                "only items of a local list or array can be assigned into", loc=loc,
                hint="assign into a name the function made")
        params = [a.arg for a in (sc.parsed.node.args.args + sc.parsed.node.args.kwonlyargs)]
        if root.id in params or root.id not in sc.locals:
            raise errors.MutatesArgument(
                f"assigning into {ast.unparse(node)} would change a value the caller owns",
                loc=loc, hint=f"copy it first: {root.id} = np.array({root.id})  (or "
                              f"[list(row) for row in {root.id}] for a list of lists)")
        base = self._val(sc, node.value, out)
        return base, self._index(sc, node.slice, out, loc)

    # ----- with np.errstate(...) ------------------------------------------------------
    def _with(self, sc, node, out, loc):
        """``with np.errstate(...)``: its body runs under those settings, and so does
        the body's adjoint (revsrc/reverse.py mirrors the block). Other context managers
        are refused."""
        entered = []
        for item in node.items:
            call = item.context_expr
            fn = self._static_callee(sc, call.func, out) if isinstance(call, ast.Call) \
                else None
            if fn is not np.errstate or item.optional_vars is not None or call.args:
                raise errors.UnsupportedSyntax(
                    f"a with block over {ast.unparse(call)} is not supported (only "
                    "with np.errstate(...), by keyword)", loc=loc,
                    hint="open resources and change global settings outside the "
                         "differentiated function")
            kwargs = tuple((k.arg, self._val(sc, k.value, out)) for k in call.keywords)
            token = self.fresh("_errstate")
            out.append(Op(token, guards.errstate_enter, (), kwargs, loc=loc))
            entered.append((token, kwargs))
        self._block(sc, node.body, out)
        for token, kwargs in reversed(entered):
            out.append(Op(None, guards.errstate_exit, (token,), kwargs, loc=loc))
        return False

    # ----- library functions ------------------------------------------------------------
    def _inline_library(self, fn, args, kwargs, out, into, loc):
        """A library's Python function with no rule (SciPy's, the standard library's):
        its body is inlined as a user's would be, but every statement of it is at the
        user's call line, and what revsrc cannot transform in it is refused there."""
        sub = []
        try:
            result = self._inline_function(None, fn, args, kwargs, sub, into, loc)
        except errors.RevsrcError as exc:
            name = f"{getattr(fn, '__module__', '')}.{fn.__qualname__}"
            where = f" ({exc.filename}:{exc.lineno})" if exc.filename else ""
            raise errors.NoRule(
                f"{name} has no derivative rule, and revsrc cannot transform its source: "
                f"{exc.message}{where}", loc=loc,
                hint=f"register a rule: @revsrc.defvjp({fn.__name__}) def rule(g, ans, "
                     "*args): ..., or mark it with revsrc.nondiff") from None
        for s in ir.walk(sub):
            if hasattr(s, "loc"):
                s.loc = loc
        out.extend(sub)
        return result


    # ----- star targets ------------------------------------------------------------
    def _starred_targets(self, sc, target, value, out, loc):
        """``a, *rest, z = value``: ``rest`` is a list of the middle items."""
        elts = target.elts
        k = next(i for i, e in enumerate(elts) if isinstance(e, ast.Starred))
        after = len(elts) - k - 1
        if isinstance(value, VTuple):   # items known when transforming: split them here
            if len(value) < len(elts) - 1:
                raise errors.UnsupportedSyntax(
                    f"cannot unpack {len(value)} values into {len(elts) - 1} or more",
                    loc=loc)
            for e, item in zip(elts[:k], value[:k]):
                self._assign_operand(sc, e, item, out, loc)
            middle = [self._materialize(v, out, loc) for v in value[k:len(value) - after]]
            rest = self._emit(out, ir.make_list, middle, None, loc)
            self._assign_operand(sc, elts[k].value, rest, out, loc)
            for e, item in zip(elts[k + 1:], value[len(value) - after:]):
                self._assign_operand(sc, e, item, out, loc)
            return
        value = self._materialize(value, out, loc)
        for i, e in enumerate(elts[:k]):
            item = self._emit(out, operator.getitem, (value, Const(i)), None, loc)
            self._assign_operand(sc, e, item, out, loc)
        middle = self._emit(out, operator.getitem,
                            (value, Const(slice(k, -after if after else None))), None, loc)
        rest = self._emit(out, list, (middle,), None, loc)
        self._assign_operand(sc, elts[k].value, rest, out, loc)
        for j, e in enumerate(elts[k + 1:]):
            item = self._emit(out, operator.getitem, (value, Const(j - after)), None, loc)
            self._assign_operand(sc, e, item, out, loc)


def is_library(fn):
    """Whether ``fn`` comes from an installed package or the standard library (not
    the user's own code)."""
    import sysconfig
    try:
        path = inspect.getsourcefile(fn) or ""
    except TypeError:
        return False
    path = os.path.realpath(path)
    roots = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "purelib",
                                                                   "platlib")}
    return any(path.startswith(r + os.sep) for r in roots)
