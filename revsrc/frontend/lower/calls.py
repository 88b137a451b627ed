"""Calls: which function a call reaches (by name, a module's attribute, a static
container's method, an array method mapped to its NumPy function), its arguments
(``*x`` and ``**x`` spread), and where the call goes (builtins: builtin_calls.py):
inlined (inlining.py), an object built (objects.py), or an operation.
"""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
import itertools
import operator
import types

import numpy as np

from ...runtime import containers
from ... import errors, primitives
from ...runtime import inplace, tensor
from ...core import ir, pytree
from ...core.ir import Const
from .. import bindings
from ...runtime.arith import astype as _astype, conj_method as _conj
from .dispatch import expression
from .values import (MISSING, STATIC_NODES, BoundMethod, Known, NestedDef, NestedPartial,
                     Partial, VDict, VTuple, constant_key, inlinable, is_library, is_static,
                     lambda_def, short, spread, static_item, user_callable, vtuple)
from .builtin_calls import READ_ONCE, getter_access
from .partials import static_leaves
from .chosen import chosen_call
from .made import made_derivative, made_value_call
from .callee_forms import plain_call
from .effect_calls import refuse_changing_method
from .classes import is_super_call, plain_init_class
from .objects import is_record_class, super_method
from ...core.late import LateModule

# map, filter, np.vectorize and iterators kept for later (mapping.py): loaded when met
mapping = LateModule(__package__ + ".mapping")

# Array methods and attributes, mapped to the NumPy function they mean.
_METHODS = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
    "var": np.var, "std": np.std, "dot": np.dot, "reshape": np.reshape,
    "transpose": np.transpose, "ravel": np.ravel, "flatten": tensor.flatten,
    "squeeze": np.squeeze, "cumsum": np.cumsum, "cumprod": np.cumprod,
    "clip": np.clip, "argmax": np.argmax, "argmin": np.argmin, "copy": np.copy,
    "swapaxes": np.swapaxes, "astype": None, "item": None, "conj": _conj,
    "trace": np.trace, "all": np.all, "any": np.any, "diagonal": np.diagonal,
    "conjugate": _conj, "view": None,
}

_VARARG_SHAPE_METHODS = {"reshape", "transpose"}
_VALUE_CALL_HINT = ("call functions by name; a list of functions made in the function is "
                    "followed when a comprehension over constants builds it "
                    "([functools.partial(h, k=k) for k in range(3)]), not append")
_SIDE_EFFECTS = {print, open, input, exec, eval, setattr, delattr, globals, locals,
                 vars, breakpoint, __import__}


def _new_array_call(fn, node):
    """``np.asarray([a, b])`` makes a new array, as ``np.array([a, b])`` does: called
    so, the write into it that follows is not taken for a write into its items."""
    if fn in (np.asarray, np.asanyarray) and node.args and \
            isinstance(node.args[0], (ast.List, ast.Tuple, ast.ListComp)) and \
            len(node.args) <= 2 and all(k.arg == "dtype" for k in node.keywords):
        return np.array
    return fn


class CallLowering:
    """Calls and their arguments (a part of `Lowerer`)."""

    def _static_callee(self, sc, func, out):
        if isinstance(func, ast.Name):
            r = self._resolve(sc, func.id, func, out)
        elif isinstance(func, ast.Attribute):
            base = self._static_callee(sc, func.value, out)
            if base is None:
                return None
            try:
                attr = getattr(base, func.attr)
            except AttributeError:
                return None
            if isinstance(base, types.ModuleType):
                self._depend(vars(base), func.attr, attr)
            return attr
        elif isinstance(func, ast.Subscript):
            return self._global_entry(sc, func)
        else:
            return None
        if isinstance(r, Known):
            return r.value
        if isinstance(r, Const) and is_static(r.value):
            return r.value   # a function passed to the function being inlined
        return None

    def _global_entry(self, sc, node):
        """The function ``FUNCS["a"]`` calls, for a constant key into a list or tuple of
        functions made in the function, or into a global dict (or tuple): a global's
        entry is taken as fixed, as a global function is, and guarded (the program is
        made anew when the entry, or the global, is rebound). None for anything else;
        a global list's item is refused (a list's items cannot be watched)."""
        key, name = constant_key(node.slice), getattr(node.value, "id", None)
        if not isinstance(node.value, ast.Name) or key is MISSING:
            return None
        scope = sc
        while scope is not None:
            v = scope.env.get(name)
            item = static_item(v, key)   # acts[0], table["sq"] of functions made here
            if item is not MISSING:
                return item
            if name in scope.locals or name in scope.defs or \
                    (scope.enclosing is None and name in scope.cells):
                return None
            top, scope = scope, scope.enclosing
        holder = top.globals.get(name) if top.globals is not None else None
        if type(holder) is list and isinstance(key, int) and -len(holder) <= key < len(holder) \
                and callable(holder[key]) and not top.rule_mode:
            raise errors.UnsupportedSyntax(
                f"calling {name}[{key}], an item of a global list: revsrc takes the "
                "function a call reaches as fixed, and cannot tell when a list's item "
                "is rebound", loc=top.parsed.loc(node),
                hint=f"make {name} a tuple (or a dict: a dict's entries are watched)")
        if top.rule_mode or type(holder) not in (dict, tuple):
            return None
        if type(holder) is dict:
            entry = holder.get(key, MISSING)
        else:   # a tuple's items stay: the global holding it is watched
            entry = holder[key] if isinstance(key, int) and \
                -len(holder) <= key < len(holder) else MISSING
        if entry is MISSING or not is_static(entry) or isinstance(entry, types.ModuleType):
            return None
        self.deps.append((top.globals, name, holder, None))
        if type(holder) is dict:
            code = entry.__code__ if isinstance(entry, types.FunctionType) else None
            self.deps.append((holder, key, entry, code))
        return entry

    def _callee(self, sc, node, out, into, loc):
        """(the function ``node`` calls, MISSING), or (None, the call's value) where
        the call is a method of a value or of a static container, lowered here (or a
        derivative made: `made_derivative`)."""
        made = made_derivative(self, sc, node, out, loc)
        if made is not None:
            return None, made
        func = node.func
        if isinstance(func, ast.Attribute) and is_super_call(func.value):
            return super_method(self, sc, func, out, loc), MISSING
        if isinstance(func, ast.Attribute):
            base = self._expr(sc, func.value, out)
            if isinstance(base, STATIC_NODES):
                found = self._static_attribute(sc, base, func.attr, out, None, loc) \
                    if not isinstance(base, VDict) and not (isinstance(base, VTuple)
                                                             and base.cls is None) \
                    and func.attr not in ("_replace", "_asdict") else None
                if isinstance(found, Known):
                    fn = found.value
                else:
                    return None, self._container_method(sc, base, func.attr, node, out, into, loc)
            elif isinstance(base, Known):
                try:
                    fn = getattr(base.value, func.attr)
                except AttributeError:
                    raise errors.StaticValueError(
                        f"{short(base.value)} has no attribute {func.attr!r}", loc=loc) from None
                self._depend_attribute(base.value, func.attr, fn)
            else:
                fn = self._stored_function(base, func.attr)
                if fn is None:
                    return None, self._method(sc, node, base, out, into, loc)
        elif isinstance(func, ast.Lambda):    # (lambda v: v * v)(x): inlined there
            return NestedDef(sc, lambda_def(func, "lambda_")), MISSING
        elif isinstance(func, ast.Call):      # revsrc.grad(h)(x): the derivative called
            made = made_derivative(self, sc, func, out, loc)
            if made is None and self._static_callee(sc, func.func, out) is getattr:
                made = self._expr(sc, func, out)     # getattr(math, "sin")(x)
            fn = made.value if isinstance(made, Known) else None
            if made is None:     # Layer(0.7)(x), make(k)(x): what the call gives, called
                return self._called_value(sc, func, node, out, into, loc)
        else:
            fn = self._static_callee(sc, func, out)
            if fn is None and isinstance(func, ast.Name):
                v = sc.env.get(func.id)
                if isinstance(v, STATIC_NODES) and not isinstance(v, VDict):
                    # an object made from parameters, called: its class's __call__
                    return None, self._container_method(sc, v, "__call__", node, out, into, loc)
        if isinstance(fn, (operator.itemgetter, operator.attrgetter)) and not sc.rule_mode:
            return None, self._expr(sc, getter_access(fn, node, loc), out, into)
        return fn, MISSING

    def _called_value(self, sc, func, node, out, into, loc):
        """(fn, MISSING) or (None, the call's value) for ``func(...)`` where ``func`` is
        an expression whose value is known when transforming: a function (`Known`), or an
        object made in the function (its class's ``__call__``). Else (None, MISSING): the
        call is refused where such calls are."""
        v = self._expr(sc, func, out)     # once: lowering it may change what it reads
        if isinstance(v, Known):
            return v.value, MISSING
        if isinstance(v, STATIC_NODES) and not isinstance(v, VDict):
            return None, self._container_method(sc, v, "__call__", node, out, into, loc)
        return None, MISSING

    def _stored_function(self, base, attr):
        """The function ``G.attr`` holds, where G is a global or closure variable
        holding an object (``CFG.act = np.tanh``; a module-level model whose method
        is called), folded into the program like ``self.act`` is, or None. The program
        is then right only while G and G.attr are the same objects: both are guarded
        by identity (a rebinding makes the program anew)."""
        held = self.loaded.get(base) if isinstance(base, str) else None
        if held is None:
            return None
        holder, name, obj = held
        if isinstance(obj, (types.ModuleType, type)) or not hasattr(obj, "__dict__"):
            return None
        home = next((d for d in [vars(obj)] + [vars(k) for k in type(obj).__mro__]
                     if attr in d), None)
        if home is None or (home is not vars(obj) and not isinstance(
                home[attr], (types.FunctionType, staticmethod, classmethod))):
            return None   # a descriptor or a data attribute: read when the program runs
        fn = getattr(obj, attr)
        if not is_static(fn):
            return None
        raw = home[attr]
        self.deps.append((holder, name, obj, None))
        self.deps.append((home, attr, raw, getattr(raw, "__code__", None)))
        # G's class (G.__class__ = B) and, for a method found on the class, G's own dict
        # (G.attr set there later would hide it)
        self.deps.extend(bindings.attribute_guards(obj, attr))
        return fn

    @expression(ast.Call)
    def _call(self, sc, node, out, into, loc):
        plain = plain_call(self, sc, node)
        if plain is not None:
            return self._expr(sc, plain, out, into)
        fn, done = self._callee(sc, node, out, into, loc)
        if done is not MISSING:
            return done
        if fn is None and not sc.rule_mode:
            fn = mapping.vectorize_of(self, sc, node.func, out)
        if fn is np.vectorize and not sc.rule_mode:    # v = np.vectorize(f): made now
            vec = mapping.vectorize_of(self, sc, node, out)
            if vec is not None:
                return Known(vec)
        if isinstance(fn, np.vectorize) and not sc.rule_mode:
            return mapping.lower_vectorized(self, sc, node, fn, out, into, loc)
        if fn is None:
            done = made_value_call(self, sc, node, out, into, loc)
            if done is None:
                done = chosen_call(self, sc, node, out, into, loc)
            if done is not None:
                return done
            raise errors.UnsupportedSyntax(
                "calling a value computed inside the function is not supported", loc=loc,
                hint=_VALUE_CALL_HINT)
        if fn is pytree.tree_leaves and not sc.rule_mode and len(node.args) == 1 and \
                not node.keywords and not isinstance(node.args[0], ast.Starred):
            leaves = static_leaves(self, self._expr(sc, node.args[0], out))
            if leaves is not None:     # of an argument taken apart: known now
                return vtuple(leaves, "list")
        if fn is itertools.islice and not sc.rule_mode:
            done = mapping.lower_islice(self, sc, node, out, into, loc)
            if done is not None:
                return done
        if fn is np.piecewise and not sc.rule_mode:
            done = mapping.lower_piecewise(self, sc, node, out, into, loc)
            if done is not None:
                return done
        if fn in (map, filter) and not sc.rule_mode:
            return mapping.lower_map_filter(self, sc, node, fn, out, into, loc)
        if not sc.rule_mode and (inplace.value_form(fn) is not None or
                                 inplace.writes_into(fn)):
            # np.add.at(...) used as a value: the write, then its None
            self._inplace_call(sc, node, fn, out, loc)
            return Const(None)
        if fn is zip and node in self.zips_consumed:
            return self._zipped(sc, node, out, into, loc)
        if fn is enumerate and node in self.zips_consumed:
            done = self._enumerated(sc, node, out, into, loc)
            if done is not None:
                return done
        if fn is zip and len(node.args) == 1 and isinstance(node.args[0], ast.Starred) \
                and not node.keywords:
            # zip(*pairs): a sequence of sequences of a length known only at run time,
            # unzipped (its rule transposes the adjoints back)
            seq = self._expr(sc, node.args[0].value, out)
            args, kwargs = spread(seq), []
            if args is None:
                return self._emit(out, containers.unzip, [self._materialize(seq, out, loc)],
                                  into, loc)
        else:
            args, kwargs = self._call_args(sc, node, out, loc)
            fn = _new_array_call(fn, node)
        return self._call_with(sc, fn, args, kwargs, out, into, loc)

    def _call_with(self, sc, fn, args, kwargs, out, into, loc):
        """The call of ``fn``, known when transforming, on operands ``args`` and
        ``kwargs`` (evaluated already): inlined, an object built, or an operation."""
        wrapped = cache_wrapped(fn) if not sc.rule_mode else None
        if wrapped is not None and any(self._runs_with(a) for a in
                                       list(args) + [v for _, v in kwargs]):
            # a functools.lru_cache/cache helper called on a value known only when the
            # program runs: its cache cannot hold derivatives, so the function it wraps
            # is inlined (what Python computes, for a pure helper); where that is
            # refused, the cached call runs as it is (an int-only helper, say)
            scratch = []
            try:
                done = self._inline_function(sc, wrapped, args, kwargs, scratch, into, loc)
            except errors.RevsrcError:
                pass
            else:
                out.extend(scratch)
                return done
        if isinstance(fn, Partial):
            given = dict(kwargs)
            return self._call_with(sc, fn.fn, fn.args + list(args),
                                   [(k, v) for k, v in fn.kwargs if k not in given] +
                                   list(kwargs), out, into, loc)
        if isinstance(fn, BoundMethod):
            obj, found = fn.obj, fn.fn
            if found is object.__init__:     # super().__init__() reaching object's
                if args or kwargs:
                    raise errors.StaticValueError(
                        "object.__init__() takes exactly one argument (the instance to "
                        "initialize)", loc=loc)
                return Const(None)
            if isinstance(found, staticmethod):
                return self._inline_callable(sc, found.__func__, args, kwargs, out, into, loc)
            if isinstance(found, classmethod):
                cls = obj.probe if getattr(obj, "td", 1) is None else type(obj.probe)
                return self._inline_callable(sc, found.__func__, [Known(cls)] + args,
                                             kwargs, out, into, loc)
            return self._inline_callable(sc, found, [obj] + args, kwargs, out, into, loc)
        if isinstance(fn, (NestedDef, NestedPartial)):
            return self._call_nested(sc, fn, args, kwargs, out, into, loc)
        if fn in _SIDE_EFFECTS:
            raise errors.SideEffect(
                f"calling {getattr(fn, '__name__', fn)}() is a side effect revsrc refuses",
                loc=loc, hint="differentiated functions must be pure; do I/O outside them")
        static = self._static_builtin(sc, fn, args, kwargs, out, loc)
        if static is not None:
            return static
        if isinstance(fn, type) and is_record_class(fn) and not sc.rule_mode:
            return self._construct(sc, fn, args, kwargs, out, loc)
        if isinstance(fn, type) and not sc.rule_mode and plain_init_class(fn):
            return self._make_object(sc, fn, args, kwargs, out, loc)
        if not sc.rule_mode and primitives.lookup(fn) is None and not inlinable(fn) and \
                user_callable(fn):
            return self._inline_callable(sc, fn, args, kwargs, out, into, loc)
        if not sc.rule_mode and primitives.lookup(fn) is None and inlinable(fn):
            if is_library(fn):
                return self._inline_library(fn, args, kwargs, out, into, loc)
            return self._inline_function(sc, fn, args, kwargs, out, into, loc)
        if any(k == "out" and not (isinstance(v, Const) and v.value is None)
               for k, v in kwargs) and _is_numpy_callable(fn):
            raise errors.SideEffect(
                f"out= makes {getattr(fn, '__name__', 'this function')} write its result "
                "into an existing array, which revsrc does not follow", loc=loc,
                hint="assign the result instead: a = np.multiply(x, y), or a[...] = ...")
        # a revsrc derivative stays a call here: its program depends on its arguments'
        # kinds, so revsrc/passes/pipeline.py inlines it once they are known
        args = [self._materialize(a, out, loc) for a in args]
        kwargs = [(k, self._materialize(v, out, loc)) for k, v in kwargs]
        special = self._builtin_call(fn, args, kwargs, out, into, loc)
        if special is not None:
            return special
        args, kwargs = _by_position(fn, args, kwargs)
        return self._emit(out, fn, args, into, loc, kwargs)

    def _call_nested(self, sc, fn, args, kwargs, out, into, loc):
        """A call of a nested def, or of a partial of one (inlined, what the partial
        holds given first; a keyword given at the call replaces the partial's)."""
        if isinstance(fn, NestedPartial):
            given = {k for k, _ in kwargs}
            args = fn.args + list(args)
            kwargs = [kv for kv in fn.kwargs if kv[0] not in given] + list(kwargs)
            fn = fn.nested
        return self._inline_def(sc, fn.scope, fn.node, args, kwargs, out, into, loc)

    def _call_args(self, sc, node, out, loc):
        """The positional and keyword operands of a call; ``*x`` and ``**x`` of a
        container known when transforming are spread into them. A ``zip(...)`` given
        to a builtin that reads it once is marked so (`_zipped`)."""
        if isinstance(node.func, ast.Name) and node.func.id in READ_ONCE and \
                self._static_callee(sc, node.func, []) is getattr(builtins, node.func.id):
            read = [a for a in node.args if isinstance(a, ast.Call) and
                    isinstance(a.func, ast.Name) and a.func.id in ("zip", "enumerate")]
            read += [a.args[0] for a in read if a.func.id == "enumerate" and a.args and
                     isinstance(a.args[0], ast.Call) and isinstance(a.args[0].func, ast.Name)
                     and a.args[0].func.id == "zip"]     # list(enumerate(zip(ws, xs)))
            self.zips_consumed.update(read)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self._expr(sc, a.value, out)
                items = spread(v)
                if items is None:
                    raise errors.UnsupportedSyntax(
                        "star-arguments (*args) are supported on a tuple, list or dict "
                        "whose length is known when transforming", loc=loc,
                        hint="pass the arguments one by one")
                args.extend(items)
            else:
                args.append(self._expr(sc, a, out))
        kwargs = []
        for k in node.keywords:
            if k.arg is None:
                v = self._expr(sc, k.value, out)
                if not (isinstance(v, VDict) and all(isinstance(x, str) for x in v.keys)):
                    raise errors.UnsupportedSyntax(
                        "**kwargs in a call is supported on a dict whose keys are known "
                        "when transforming", loc=loc, hint="pass keyword arguments by name")
                kwargs.extend(zip(v.keys, v.values))
            else:
                kwargs.append((k.arg, self._expr(sc, k.value, out)))
        return args, kwargs

    def _method(self, sc, node, base, out, into, loc):
        func = node.func
        base = self._materialize(base, out, loc)
        name = func.attr
        args, kwargs = self._call_args(sc, node, out, loc)
        args = [self._materialize(a, out, loc) for a in args]
        kwargs = [(k, self._materialize(v, out, loc)) for k, v in kwargs]
        if isinstance(base, Const) and type(base.value) is str:   # "h{}".format(i)...
            got = self._builtin_call(getattr(base.value, name, None), args, kwargs, out, into, loc)
            return got if got is not None else \
                self._emit(out, ir.call_method, [base, Const(name)] + args, into, loc, kwargs)
        if name in containers.DICT_METHODS and not kwargs:   # d.items(), d.get(k)...
            return self._emit(out, containers.DICT_METHODS[name], [base] + args, into, loc)
        if name == "pop" and not isinstance(base, Const):
            raise errors.SideEffect(
                ".pop() is followed as `item = xs.pop()` (or pop(0), pop(-1)) on a list "
                "the function makes, read elsewhere only by pop, append, items, len(), "
                "sum(), np.array() and such, or the test of a while or if; here the list "
                "may be held elsewhere too",
                loc=loc, hint="take the item and the rest by index: item = xs[-1]; "
                              "xs = xs[:-1] (or pop from a copy of its own: work = list(xs))")
        refuse_changing_method(name, loc)
        if name not in _METHODS or (isinstance(base, Const) and
                                    not isinstance(base.value, (np.ndarray, np.generic))):
            # a method of a value that carries no gradient (rng.normal(...),
            # name.lower()): it runs; refused where a differentiated value reaches it
            return self._emit(out, ir.call_method, [base, Const(name)] + args, into, loc,
                              kwargs)
        if name == "astype":
            return self._emit(out, _astype, [base] + args, into, loc, kwargs)
        if name == "item":
            return self._emit(out, float, [base], into, loc)
        if name == "view":
            # x.view() is x under another name, sharing its memory: an alias, which
            # passes/views.py follows as it follows b = x (x.view(dtype) reinterprets
            # the bytes: it runs, refused where a differentiated value reaches it)
            if args or kwargs:
                return self._emit(out, ir.call_method, [base, Const(name)] + args, into,
                                  loc, kwargs)
            return self._emit(out, ir.copy, [base], into, loc)
        fn = _METHODS[name]
        if name in _VARARG_SHAPE_METHODS and len(args) > 1:
            args = [self._emit(out, ir.make_tuple, args, None, loc)] \
                if not all(isinstance(a, Const) for a in args) else \
                [Const(tuple(a.value for a in args))]
        if name == "transpose" and not args:
            return self._emit(out, np.transpose, [base], into, loc)
        return self._emit(out, fn, [base] + args, into, loc, kwargs)


def cache_wrapped(fn):
    """The user's function a ``functools.lru_cache``/``functools.cache`` wrapper
    ``fn`` calls, or None."""
    wrapped = getattr(fn, "__wrapped__", None) \
        if isinstance(fn, functools._lru_cache_wrapper) else None
    return wrapped if isinstance(wrapped, types.FunctionType) and inlinable(wrapped) else None


def _is_numpy_callable(fn):
    """A NumPy function or ufunc (or a ufunc's method), whose out= writes in place."""
    return primitives.family_of(fn) == primitives.NUMPY or isinstance(getattr(fn, "__self__", None), np.ufunc)


def _by_position(fn, args, kwargs):
    """``np.clip(K, a_min=v, a_max=2.0)`` as ``np.clip(K, v, 2.0)``: a variable passed by
    keyword to a parameter its rule takes by position is moved there (with the keywords
    before it, when they leave no gap), since the rules, forward mode's above all,
    differentiate their positional operands. Where the function's own signature does
    not say so, the call is left as it is."""
    prim = primitives.lookup(fn)
    if prim is None or primitives.family_of(fn) == primitives.RUNTIME:
        return args, kwargs    # revsrc's own helpers, in a derivative differentiated again
    named = dict(kwargs)
    params = prim.params if prim is not None else []
    last = max((i for i, p in enumerate(params) if i >= len(args) and
                isinstance(named.get(p), str)), default=None)
    if last is None:
        return args, kwargs
    try:
        sig = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return args, kwargs
    moved = params[len(args):last + 1]
    if any(p not in named for p in moved) or len(sig) <= last or any(
            sig[i].name != params[i] or sig[i].kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD
            for i in range(len(args), last + 1)):
        return args, kwargs
    return list(args) + [named[p] for p in moved], [(k, v) for k, v in kwargs if k not in moved]
