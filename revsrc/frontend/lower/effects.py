"""Calls that act through what they change, as statements: ``print(...)``,
``xs.append(v)``/``xs.extend(ys)``, NumPy's in-place functions (``np.add.at``,
``np.fill_diagonal``, ``np.copyto``) and calls of inlined functions whose result is
discarded. revsrc/passes/views.py makes each change a new value (or refuses it).
"""
from __future__ import annotations

import ast
import inspect

from ...runtime import containers
from ... import errors, primitives
from ...runtime import inplace
from ...core.ir import Const, Op, SetItem
from .values import NestedDef, inlinable
from .classes import is_super_call

# the in-place list methods a statement may call
_LIST_WRITES = {"append": containers.append_in_place, "extend": containers.extend_in_place}


class EffectLowering:
    """Statements that act by changing their arguments (a part of `Lowerer`)."""

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

    def _discarded_call(self, sc, call, out, loc):
        """A call statement whose function revsrc inlines: what it changes (lists,
        dicts and arrays it was given) is followed like the caller's own changes.
        False for any other call."""
        if isinstance(call.func, ast.Attribute) and is_super_call(call.func.value):
            self._expr(sc, call, out)     # super().__init__(w): a method of the user's
            return True
        fn = self._static_callee(sc, call.func, out)
        if inplace.value_form(fn) is not None or inplace.writes_into(fn):
            return self._inplace_call(sc, call, fn, out, loc)
        if not (isinstance(fn, NestedDef) or (inlinable(fn) and primitives.lookup(fn) is None)):
            return False
        self._expr(sc, call, out)
        return True

    def _inplace_call(self, sc, call, fn, out, loc):
        """``np.add.at(a, idx, v)``, ``np.fill_diagonal(a, val)`` or ``np.copyto(a, src)``
        on a name, as a statement or a value (None): lowered to ``a[...] = form(a, ...)``
        (revsrc/runtime/inplace.py), or ``a[...] = src``, so the write follows ``a``'s views and
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
        revsrc/passes/views.py makes a new value of ``xs`` (or refuses). False if ``call``
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
