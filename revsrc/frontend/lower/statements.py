"""Statements: assignment statements, ``if``, ``return``, ``break``/``continue``,
``assert``, ``raise``, ``with np.errstate``, imports, nested ``def``s and expression
statements; each registered in dispatch.STATEMENTS. Loops are in loops.py.
"""
from __future__ import annotations

import ast
import operator

import numpy as np

from ...core.ops import OF_BINARY
from ... import errors, runtime
from ...runtime import guards, inplace
from ...core import ir
from ...core.ir import Const, If, Op, SetItem
from .dispatch import statement
from .effect_calls import effect_statement
from . import recursion
from .scope import params_of
from .values import Known, NestedDef, VDict, VRecord, VTuple, is_static_value, vtuple
from .expressions import BINOPS


class StatementLowering:
    """The statement handlers (a part of `Lowerer`)."""

    @statement(ast.Assign)
    def _assign_statement(self, sc, node, out, loc):
        value = node.value
        if len(node.targets) == 1:
            self._assign(sc, node.targets[0], value, out, loc)
        else:
            tmp = self._expr(sc, value, out)
            for t in node.targets:
                self._assign_operand(sc, t, tmp, out, loc)
        return False

    @statement(ast.AnnAssign)
    def _annotated_assign(self, sc, node, out, loc):
        if node.value is not None:
            self._assign(sc, node.target, node.value, out, loc)
        return False

    @statement(ast.AugAssign)
    def _augmented_assign(self, sc, node, out, loc):
        op = BINOPS.get(type(node.op))
        if op is None:
            raise errors.UnsupportedSyntax("this augmented assignment is not supported",
                                           loc=loc)
        if isinstance(node.target, ast.Name) and self._holds_static(sc, node.target.id):
            self._augmented_static(sc, node, op, out, loc)
        elif isinstance(node.target, ast.Name):
            # Python's x op= y: in place on an array (revsrc/passes/views.py follows it)
            var = self._store_name(sc, node.target.id, node)
            rhs = self._val(sc, node.value, out)
            out.append(Op(var, OF_BINARY[op], (var, rhs), loc=loc))
        elif isinstance(node.target, ast.Subscript):
            if self._static_augmented(sc, node, OF_BINARY[op], out, loc):
                return False
            base, index = self._subscript_parts(sc, node.target, out, loc)
            old = self.fresh()
            out.append(Op(old, operator.getitem, (base, index), loc=loc))
            # on an item of a list holding an array, op= changes that array in place:
            # revsrc/passes/views.py gives this check what else may hold it
            out.append(Op(None, inplace.check_item_alone, (old, base, Const(()), Const(loc)),
                          loc=loc))
            rhs = self._expr(sc, node.value, out)
            new, dt, kept = self.fresh(), self.fresh(), self.fresh()
            out.append(Op(new, op, (old, rhs), loc=loc))
            # an item that is an array (y[:], y[mask], xs[i]) changes in place: NumPy
            # refuses a result its dtype cannot hold (y[0] += 1.5 on an int array does
            # not: the element is a number, rebound, then stored); views.py drops the
            # test where the item is known to be a number
            out.append(Op(dt, inplace.array_dtype, (old,), loc=loc))
            out.append(Op(kept, inplace.in_place, (new, dt, Const(OF_BINARY[op])), loc=loc))
            out.append(SetItem(base, index, kept, loc=loc))
        else:
            raise errors.SideEffect("writing an attribute is a side effect revsrc refuses",
                                    loc=loc, hint="return the value instead")
        return False

    @statement(ast.Return)
    def _return_statement(self, sc, node, out, loc):
        self._return(sc, node, out, loc)
        return True

    @statement(ast.If)
    def _if(self, sc, node, out, loc):
        test = recursion.fold_condition(self, sc, out, self._condition(sc, node.test, out))
        if isinstance(test, Const):
            # known when transforming (isinstance of a container, a static field):
            # only the branch that runs is lowered
            return self._block(sc, node.body if test.value else node.orelse, out)
        body, orelse = [], []
        self._branches(sc, [(node.body, body), (node.orelse, orelse)], out, loc)
        if isinstance(test, Const):
            out.extend(body if test.value else orelse)
        else:
            out.append(If(test, body, orelse, loc=loc))
        return False

    @statement(ast.Break, ast.Continue)
    def _leave_loop(self, sc, node, out, loc):
        if not sc.loops:
            raise errors.UnsupportedSyntax("break/continue outside a loop", loc=loc)
        cont, brk = sc.loops[-1]
        self._leave_errstates(sc, len(sc.loops), out)
        out.append(ir.Leave(brk if isinstance(node, ast.Break) else cont, loc=loc))
        return True

    @statement(ast.Pass)
    def _pass(self, sc, node, out, loc):
        return False

    @statement(ast.Expr)
    def _expression_statement(self, sc, node, out, loc):
        if isinstance(node.value, ast.Constant):
            return False  # a docstring or a bare constant
        if isinstance(node.value, ast.Call) and (
                self._print_statement(sc, node.value, out, loc) or
                effect_statement(self, sc, node.value, out, loc) or
                self._list_method_statement(sc, node.value, out, loc) or
                self._dict_method_statement(sc, node.value, out) or
                self._discarded_call(sc, node.value, out, loc)):
            return False
        what = "a call whose result is discarded" if isinstance(node.value, ast.Call) \
            else "an expression whose value is discarded"
        name = _call_name(node.value)
        raise errors.SideEffect(
            f"{what}{f' ({name})' if name else ''} can only act through side effects, "
            "which revsrc refuses", loc=loc,
            hint="differentiated functions must be pure: compute values and return them")

    @statement(ast.FunctionDef)
    def _function_def(self, sc, node, out, loc):
        sc.defs[node.name] = node
        sc.env[node.name] = Known(NestedDef(sc, node))
        self._take_defaults(sc, node, out)
        return False

    def _take_defaults(self, sc, node, out):
        """Python evaluates a def's defaults when the def runs, not at each call: the
        defaults that read the function's variables (``def g(t, k=k)``) are copied
        here into variables of their own, which calls of ``node`` then read
        (`_bind_def`), so a later ``k = ...`` does not reach them."""
        a = node.args
        taken = {}
        for param, d in zip(a.args[len(a.args) - len(a.defaults):] if a.defaults else (),
                            a.defaults):
            taken[param.arg] = d
        taken.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
        root = sc.parsed.node
        stores = {}
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        for p in params_of(root).names if isinstance(root, ast.FunctionDef) else ():
            stores[p] = stores.get(p, 0) + 1
        bound = {}
        for param, d in taken.items():
            names = {n.id for n in ast.walk(d) if isinstance(n, ast.Name)}
            # a name bound once reads the same object late as early (and sees the
            # same changes made in place, to a list it holds)
            if not self._reads_locals(sc, names) or all(stores.get(n) == 1 for n in names):
                continue
            v = self._expr(sc, d, out)
            if isinstance(v, str):
                tmp = self.fresh()
                out.append(Op(tmp, ir.copy, (v,), loc=sc.parsed.loc(d)))
                v = tmp
            bound[param] = v
        if bound:
            sc.def_defaults[id(node)] = (node, bound)

    @statement(ast.Import, ast.ImportFrom)
    def _import_statement(self, sc, node, out, loc):
        self._import(sc, node, loc)
        return False

    @statement(ast.Assert)
    def _assert(self, sc, node, out, loc):
        test = self._condition(sc, node.test, out)
        if node.msg is not None:
            self._assert_message(sc, node, test, out, loc)
            return False
        msg = Const(ast.unparse(node.test))
        out.append(Op(None, ir.check_assert, (test, msg), loc=loc))
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

    @statement(ast.Raise)
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

    @statement(ast.With)
    def _with(self, sc, node, out, loc):
        """``with np.errstate(...)``: its body runs under those settings, and so does
        the body's adjoint (revsrc/passes/reverse/ mirrors the block). Other context managers
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
            entered.append((token, kwargs, len(sc.loops), loc))
        sc.errstates.extend(entered)
        try:
            left = self._block(sc, node.body, out)
        finally:
            del sc.errstates[len(sc.errstates) - len(entered):]
        if not left:
            for token, kwargs, _, _ in reversed(entered):
                out.append(Op(None, guards.errstate_exit, (token,), kwargs, loc=loc))
        return left

    def _leave_errstates(self, sc, depth, out):
        """A return (``depth`` 0), break or continue (``depth`` the loop's) leaves the
        errstate blocks entered inside what it leaves: their settings go back first,
        and the adjoint, mirroring each exit, enters them again on that path."""
        for token, kwargs, at, loc in reversed(sc.errstates):
            if at >= depth:
                out.append(Op(None, guards.errstate_exit, (token,), kwargs, loc=loc))

    def _return(self, sc, node, out, loc):
        value = node.value
        if sc.prefix and not sc.ret_items and value is not None and not sc.has_aux \
                and (sc.ret_skeleton is not None or self._maybe_static(sc, value)):
            v = self._expr(sc, value, out)
            if is_static_value(v) or sc.ret_skeleton is not None:
                self._return_static(sc, v, out, loc)
            else:
                self._expr_copy(self._materialize(v, out, loc), sc.ret_var, out, loc)
                sc.ret_plain = True
            self._leave_errstates(sc, 0, out)
            out.append(ir.Leave(sc.exit_label, loc=loc))
            return False
        if sc.has_aux:
            if isinstance(value, ast.Tuple) and len(value.elts) == 2:
                self._expr(sc, value.elts[0], out, into=sc.ret_var)
                self._expr(sc, value.elts[1], out, into=sc.aux_var)
            else:
                v = self._materialize(self._expr(sc, value, out), out, loc)
                out.append(Op(None, runtime.check_aux_pair, (v, Const(loc)), loc=loc))
                out.append(Op(sc.ret_var, operator.getitem, (v, Const(0)), loc=loc))
                out.append(Op(sc.aux_var, operator.getitem, (v, Const(1)), loc=loc))
        elif sc.ret_items:
            for item, var in zip(value.elts, sc.ret_items):
                self._expr(sc, item, out, into=var)
        elif value is None:
            out.append(Op(sc.ret_var, ir.copy, (Const(None),), loc=loc))
        else:
            self._expr(sc, value, out, into=sc.ret_var)
        self._leave_errstates(sc, 0, out)
        out.append(ir.Leave(sc.exit_label, loc=loc))
        return False

    def _return_static(self, sc, v, out, loc):
        """``return v`` in an inlined function, ``v`` a static container: its operands
        go to result variables of the same shape, the same in every return."""
        if sc.ret_plain or not is_static_value(v):
            raise errors.StaticValueError(
                "a function that returns a container in one place returns something "
                "else in another", loc=loc, hint="return the same kind of value everywhere")
        if sc.ret_skeleton is None:
            counter = [0]

            def shape(x):
                if isinstance(x, VTuple):
                    return vtuple([shape(i) for i in x], x.seq, x.cls,
                                  x.probe if x.cls is not None else None)
                if isinstance(x, VDict):
                    return VDict(x.keys, [shape(i) for i in x.values])
                if isinstance(x, VRecord):
                    r = VRecord(x.td, [shape(i) for i in x.items], x.probe)
                    r.items_by_name = {k: shape(i) for k, i in x.items_by_name.items()}
                    return r
                if isinstance(x, Known):
                    return x   # a function: the same in every return
                counter[0] += 1
                return self.names.internal(f"{sc.prefix}ret{counter[0]}")
            sc.ret_skeleton = shape(v)

        def fill(skel, x):
            same = type(skel) is type(x) and (
                (isinstance(x, VTuple) and len(x) == len(skel) and x.seq == skel.seq
                 and x.cls is skel.cls) or
                (isinstance(x, VDict) and x.keys == skel.keys) or
                (isinstance(x, VRecord) and x.td == skel.td and
                 set(x.items_by_name) == set(skel.items_by_name)))
            if isinstance(skel, str):
                if is_static_value(x):
                    same = False
                else:
                    out.append(Op(skel, ir.copy, (self._materialize(x, out, loc),), loc=loc))
                    return
            elif isinstance(skel, Known):
                if not (isinstance(x, Known) and x.value is skel.value):
                    same = False
                else:
                    return
            if not same:
                raise errors.StaticValueError(
                    "this function returns containers of different shapes", loc=loc,
                    hint="return the same keys and items everywhere")
            if isinstance(x, VTuple):
                pairs = zip(skel, x)
            elif isinstance(x, VDict):
                pairs = zip(skel.values, x.values)
            else:
                pairs = list(zip(skel.items, x.items)) + [
                    (skel.items_by_name[k], x.items_by_name[k]) for k in x.items_by_name]
            for a, b in pairs:
                fill(a, b)
        fill(sc.ret_skeleton, v)


def _call_name(node):
    if isinstance(node, ast.Call):
        try:
            return ast.unparse(node.func)
        except Exception:  # pragma: no cover
            return None
    return None
