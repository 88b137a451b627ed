"""Inlining: the body of a called user function, nested ``def``, bound method,
partial, callable object or library function without a rule, lowered in place of
its call with its names prefixed, its parameters bound to the call's operands.
"""
from __future__ import annotations

import ast
import inspect
import types

import numpy as np

from .. import bindings, callee as callee_mod, fence
from . import numbers, recursion
from ... import errors
from ...core import ir, kinds
from ...core.ir import Const, Op
from ..desugar import desugar
from ..parse import parse_function
from .scope import Scope, assigned_names, param_names, params_of, positional_names
from .values import (STATIC_NODES, Known, VDict, VTuple, inlinable, is_library,
                     is_static_value, known_or_const)


class InliningLowering:
    """Inlined calls (a part of `Lowerer`)."""

    def _inline_callable(self, sc, fn, args, kwargs, out, into, loc):
        """Inline a call of ``fn``: a function, bound method, partial or object with a
        ``__call__`` method (revsrc/frontend/callee.py says which function and what it is
        given first)."""
        if isinstance(fn, types.FunctionType):
            if not inlinable(fn):
                return self._emit(out, fn, [self._materialize(a, out, loc) for a in args],
                                  into, loc, [(k, self._materialize(v, out, loc))
                                              for k, v in kwargs])
            return self._inline_function(sc, fn, args, kwargs, out, into, loc)
        c = callee_mod.unwrap(fn)
        # what unwrap read: a partial's arguments, the class's __call__
        self.deps.extend(bindings.callee_guards(fn))
        pre = []
        owner = getattr(c.fn, "__name__", "callee")
        for p, v in zip(positional_names(c.fn), c.pre):
            pre.append(Known(v) if p in c.static else self._given(owner, p, v, out, loc))
        pre_kwargs = [(k, self._given(owner, k, v, out, loc))
                      for k, v in c.pre_kwargs.items()]
        given = dict(kwargs)
        return self._inline_function(sc, c.fn, pre + list(args),
                                     [kv for kv in pre_kwargs if kv[0] not in given] +
                                     list(kwargs), out, into, loc)

    def _inline_function(self, sc, fn, args, kwargs, out, into, loc):
        if is_library(fn) and not (fn.__module__ or "").startswith("revsrc"):
            # a library's method or callable object reached here (np.vectorize's
            # __call__...): refused by name, as a library function is
            return self._inline_library(fn, args, kwargs, out, into, loc)
        if fn in self.inline_stack:   # unrolled only where int constants decide it
            args, kwargs = recursion.folded_call(self, out, args, kwargs)
            recursion.check(self, sc, fn, fn.__qualname__, args, kwargs, loc, out)
        if len(self.inline_stack) > 50 + recursion.MAX_DEPTH:
            raise errors.RecursionNotSupported("calls nested deeper than 50 levels", loc=loc)
        parsed = parse_function(fn)
        fence.check(parsed)
        self._read_function(fn)
        node = desugar(parsed.node)
        names, _ = assigned_names(node.body if not isinstance(node, ast.Lambda) else [])
        params = param_names(node)
        base = fn.__code__.co_name if fn.__code__.co_name != "<lambda>" else "lambda"
        prefix = self.choose_prefix(base, names | set(params) | {"ret", "done"})
        callee = Scope(parsed, prefix, fn.__globals__,
                       dict(zip(fn.__code__.co_freevars, fn.__closure__ or ())), fn=fn)
        callee.recursion_ints = recursion.int_constants(args, kwargs)
        bound = self._bind(fn, params, args, kwargs, out, loc)
        return self._inline_body(callee, fn, node, params, names, bound, out, into, loc)

    def _inline_body(self, callee, key, node, params, names, bound, out, into, loc):
        """Lower a callee's body in place of its call; returns the call's value."""
        self._bind_params(callee, params, names, bound, out, loc)
        self.inline_stack.append(key)
        result = self._lower_body(callee, node, out)
        self.inline_stack.pop()
        if into is not None and isinstance(result, STATIC_NODES):
            result = self._materialize(result, out, loc)
        return result if into is None else self._expr_copy(result, into, out, loc)

    def _inline_def(self, sc, def_scope, node, args, kwargs, out, into, loc):
        if any(s is node for s in self.inline_stack):
            args, kwargs = recursion.folded_call(self, out, args, kwargs)
            recursion.check(self, sc, node, node.name, args, kwargs, loc, out)
        names, _ = assigned_names(node.body)
        params = param_names(node)
        prefix = self.choose_prefix(sc.prefix + node.name, names | set(params) | {"ret", "done"})
        callee = Scope(def_scope.parsed, prefix, def_scope.globals, def_scope.cells,
                       enclosing=def_scope)
        callee.recursion_ints = recursion.int_constants(args, kwargs)
        bound = self._bind_def(def_scope, node, args, kwargs, out, loc)
        return self._inline_body(callee, node, node, params, names, bound, out, into, loc)

    def _bind_def(self, def_scope, node, args, kwargs, out, loc):
        """Parameter -> operand for a call of nested ``def`` ``node`` (its defaults
        evaluated in the scope it was defined in)."""
        a = params_of(node)
        bound = dict(zip(a.positional, args))
        if a.vararg is not None:
            bound[a.vararg] = VTuple(args[len(a.positional):])   # *params: its items
        elif len(args) > len(a.positional):
            raise errors.StaticValueError(f"{node.name}() takes {len(a.positional)} "
                                           f"positional arguments", loc=loc)
        extra = []
        for k, v in kwargs:
            if k in a.by_keyword and k not in bound:
                bound[k] = v
            elif a.kwarg is not None and k not in bound:
                extra.append((k, v))
            else:
                raise errors.StaticValueError(f"bad keyword argument {k}", loc=loc)
        if a.kwarg is not None:
            bound[a.kwarg] = VDict([k for k, _ in extra], [v for _, v in extra])
        taken = def_scope.def_defaults.get(id(node), (None, {}))[1]
        for p in a.names:
            if p not in bound:
                if p not in a.defaults:
                    raise errors.StaticValueError(f"missing argument {p}", loc=loc)
                bound[p] = taken[p] if p in taken else self._val(def_scope, a.defaults[p], out)
        return bound

    def _bind(self, fn, params, args, kwargs, out, loc):
        # the function's own signature, never what functools.wraps says it wraps
        sig = inspect.signature(fn, follow_wrapped=False)
        try:
            ba = sig.bind(*range(len(args)), **{k: ("kw", k) for k, _ in kwargs})
        except TypeError as exc:
            raise errors.StaticValueError(f"call to {fn.__name__}: {exc}", loc=loc)
        kw = dict(kwargs)

        def value(marker):
            return kw[marker[1]] if isinstance(marker, tuple) else args[marker]
        bound = {}
        P = inspect.Parameter
        for p in params:
            kind = sig.parameters[p].kind
            if kind is P.VAR_POSITIONAL:
                bound[p] = VTuple(value(m) for m in ba.arguments.get(p, ()))
            elif kind is P.VAR_KEYWORD:
                given = ba.arguments.get(p, {})
                bound[p] = VDict(list(given), [value(m) for m in given.values()])
            elif p in ba.arguments:
                bound[p] = value(ba.arguments[p])
            else:
                bound[p] = self._given(fn.__name__, p, sig.parameters[p].default, out, loc)
        return bound

    def _given(self, owner, name, value, out, loc):
        """A value the callee was given ahead of the call (a default, a partial's
        argument): static, a constant, or, for an array (data the caller may change in
        place, and no constant a pass could fold or compare) or a list or dict, read when
        the program runs."""
        if not _read_when_run(value):
            return known_or_const(value)
        owner = owner.strip("<>")
        holder = ir.Defaults(owner, {name: value})
        found = numbers.folded(holder, name, value)   # revsrc.jit's constants
        if found is not None:
            self.deps.extend(found[1])
            return found[0]
        into = self.fresh(name)
        # read when it runs, but its kind (an array of rank 1...) is the program's, as a
        # global's is (an array reshaped in place makes the derivative anew)
        self.deps.append((holder, name, "kind", kinds.signature(value)))
        return self._emit(out, ir.load_global, (Const(holder), Const(name)), into, loc)

    def _bind_params(self, callee, params, assigned, bound, out, loc):
        for p in params:
            value = bound[p]
            if is_static_value(value):
                # a function, module or container known when transforming: the
                # parameter stands for it
                callee.env[p] = callee.given[p] = value
                continue
            if p in assigned:
                var = self._reserve(callee.prefix + p)
                callee.env[p] = var
                out.append(Op(var, ir.copy, (self._materialize(value, out, loc),), loc=loc))
            else:
                callee.env[p] = value  # never reassigned: read the caller's operand

    def _inline_library(self, fn, args, kwargs, out, into, loc):
        """A library's Python function with no rule (SciPy's, the standard library's):
        refused at the user's call with its name. revsrc never transforms a library's
        own source: its internals (caches, in-place LAPACK calls, dispatch on types)
        are not the user's program, and what revsrc would refuse deep inside them says
        nothing the user can act on."""
        name = f"{getattr(fn, '__module__', '')}.{fn.__qualname__}"
        raise errors.NoRule(
            f"{name} has no derivative rule (revsrc does not transform a library's own "
            "source)", loc=loc,
            hint=f"register a rule: @revsrc.defvjp({fn.__name__}) def rule(g, ans, "
                 "*args): ..., or mark it with revsrc.nondiff")


def _read_when_run(value):
    """An array, a list or a dict, or a tuple holding one: data, unhashable (a pass
    cannot hold it as a constant), read when the program runs."""
    if isinstance(value, (np.ndarray, list, dict)):
        return True
    if type(value) is not tuple:
        return False
    try:
        hash(value)
    except TypeError:
        return True
    return False
