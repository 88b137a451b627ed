"""What revsrc differentiates when it is handed a callable that is not a plain function.

A bound method is its function with ``self`` given; a ``functools.partial`` is its
function with some arguments given; an object with ``__call__`` is that method bound
to it; a primitive with a rule (``np.tanh``, ``math.sin``) is a one-line function
that calls it. `unwrap` turns each into a `Callee`: one Python function with source,
the values it receives before the caller's arguments, and the parameters bound
statically (``self`` and ``cls``: their attributes are read, at run time, as values
that carry no gradient, and their methods are inlined).

A decorated function is the decorator's wrapper, and its source is the wrapper's:
revsrc never follows ``__wrapped__`` (the wrapper may change the value).
"""
from __future__ import annotations

import builtins
import functools
import inspect
import itertools
import linecache
import math
import types
from typing import Any, Optional

import numpy as np

from .. import errors, primitives
from ..core.record import FRESH, record

_PRIMITIVE_FUNCTIONS = {}   # primitive callable -> its generated function
_WRAPPERS = itertools.count(1)


@record
class Callee:
    """``fn(*pre, *args, **{**pre_kwargs, **kwargs})`` is the call of the original
    callable ``f``; ``static`` names the parameters of ``fn`` whose values are known
    when the function is transformed (they are not parameters of the program)."""
    f: Any
    fn: types.FunctionType
    pre: tuple
    pre_kwargs: dict
    static: dict       # parameter name -> value

    def __init__(self, f, fn, pre=(), pre_kwargs=FRESH, static=FRESH):
        self.f = f
        self.fn = fn
        self.pre = pre
        self.pre_kwargs = {} if pre_kwargs is FRESH else pre_kwargs
        self.static = {} if static is FRESH else static

    @property
    def name(self):
        return getattr(self.f, "__name__", None) or getattr(self.fn, "__name__", "f")


def unwrap(f) -> Callee:
    """The `Callee` of ``f``; E201 (NoSource) for a callable revsrc cannot read."""
    if isinstance(f, types.FunctionType):
        return Callee(f, f)
    if isinstance(f, types.MethodType):
        inner = unwrap(f.__func__)
        self_name = _first_param(inner.fn, f)
        return _bind_static(inner, self_name, f.__self__, f)
    if isinstance(f, functools.partial):
        inner = unwrap(f.func)
        return Callee(f, inner.fn, inner.pre + tuple(f.args),
                      {**inner.pre_kwargs, **f.keywords}, dict(inner.static))
    if isinstance(f, staticmethod):
        return unwrap(f.__func__)
    if isinstance(f, classmethod):
        raise errors.NoSource(
            f"{f!r} is a classmethod object taken from its class's __dict__: it has no "
            "class to bind", hint="pass it as Class.method")
    if getattr(type(f), "_revsrc_mapped", False):
        # transformed as a function that calls it (`def f(x): return callee(x)`), where
        # revsrc's rule for a call of a mapped function applies (or refuses, E104)
        return Callee(f, _wrapper(f, f.__name__ if hasattr(f, "__name__") else "f"))
    prim = primitives.lookup(f) if not isinstance(f, type) else None
    if prim is not None:
        fn = _primitive_function(f, prim)
        return Callee(f, fn)
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType) and not isinstance(f, type):
        inner = unwrap(call)
        return _bind_static(inner, _first_param(call, f), f, f)
    raise errors.NoSource(
        f"{_name(f)} is not a Python function with source code",
        hint="revsrc differentiates functions defined with def in a .py file, bound "
             "methods, functools.partial objects and objects with a __call__ method; "
             "for compiled functions register a rule with revsrc.defvjp")


def as_function(f):
    """A plain Python function with source that computes ``f(...)``, for the
    transformations that take one (``revsrc.jit``, ``revsrc.vmap``): ``f`` itself for a
    function; for a staticmethod or a primitive with a rule (``math.sin``, ``np.tanh``)
    the function `unwrap` finds; for a bound method, a ``functools.partial`` or an
    object with ``__call__``, ``def name(<f's parameters>): return callee(...)`` with
    ``callee`` bound to ``f`` in its globals, so the call is inlined as any call of
    such a callable (``self`` bound statically, a partial's values given first).
    E201 where `unwrap` cannot read ``f``."""
    if isinstance(f, types.FunctionType):
        return f
    c = unwrap(f)
    if not (c.pre or c.pre_kwargs or c.static) and not getattr(type(f), "_revsrc_mapped", False):
        return c.fn
    return _wrapper(f, getattr(f, "__name__", None) or getattr(c.fn, "__name__", "f"))


def _wrapper(f, base):
    """``def name(<f's parameters>): return callee(...)``, ``callee`` bound to ``f`` in
    its globals, with its source in linecache (see `as_function`)."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        raise errors.NoSource(f"{_name(f)} has no signature revsrc can read",
                              hint="wrap it in a def") from None
    P = inspect.Parameter
    namespace, params, call = {"callee": f}, [], []
    star = False
    for i, (n, p) in enumerate(sig.parameters.items()):
        text = n
        if p.kind is P.VAR_POSITIONAL:
            text, star = "*" + n, True
            call.append("*" + n)
        elif p.kind is P.VAR_KEYWORD:
            text = "**" + n
            call.append("**" + n)
        elif p.kind is P.KEYWORD_ONLY:
            if not star:
                params.append("*")
                star = True
            call.append(f"{n}={n}")
        else:
            call.append(n)
        if p.default is not P.empty:
            namespace[f"_default{i}"] = p.default
            text += f"=_default{i}"
        params.append(text)
    if any(p.kind is P.POSITIONAL_ONLY for p in sig.parameters.values()):
        last = max(i for i, p in enumerate(sig.parameters.values())
                   if p.kind is P.POSITIONAL_ONLY)
        params.insert(last + 1, "/")
    name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in base) or "f"
    if name[0].isdigit() or name == "callee":
        name = "f_" + name
    source = f"def {name}({', '.join(params)}):\n    return callee({', '.join(call)})\n"
    filename = f"<revsrc: {_name(f)} #{next(_WRAPPERS)}>"   # one file per wrapper
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    fn.__qualname__ = _name(f)
    return fn


def _bind_static(inner, name, value, f):
    if inner.pre:
        # a method of a partial: `self` comes first, before the partial's arguments
        raise errors.NoSource(f"{_name(f)} binds an object to a functools.partial",
                              hint="bind the method first, then make the partial")
    static = dict(inner.static)
    static[name] = value
    return Callee(f, inner.fn, (value,), dict(inner.pre_kwargs), static)


def _first_param(fn, f):
    code = fn.__code__
    if code.co_argcount < 1:
        raise errors.NoSource(f"{_name(f)} is a method with no parameter for its object",
                              hint="give the method a self (or cls) parameter")
    return code.co_varnames[0]


def _name(f):
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


def _primitive_function(f, prim):
    """A Python function ``def tanh(x): return _primitive(x)`` whose source is
    registered in linecache, so it is transformed like any other."""
    hit = _PRIMITIVE_FUNCTIONS.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1]
    params = _primitive_params(f, prim)
    if params is None:
        raise errors.NoSource(f"{_name(f)} has a rule but revsrc cannot tell its "
                              "parameters", hint="wrap it in a def")
    module = getattr(f, "__module__", None) or type(f).__module__ or ""
    base = getattr(f, "__name__", None) or "primitive"
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "primitive"
    if name[0].isdigit():
        name = "f_" + name
    label = f"{module.split('.')[0] if module else ''}.{base}".lstrip(".")
    # the call reads as the user would write it (np.tanh(x)) where that names ``f``
    spelled, namespace = "_primitive", {"_primitive": f}
    for alias, mod in (("np", np), ("math", math), ("", builtins)):
        if getattr(mod, base, None) is f:
            spelled = f"{alias}.{base}" if alias else base
            if alias:
                namespace[alias] = mod
            elif name == base:
                name += "_"   # def abs_(x): return abs(x) (abs must stay the builtin)
            label = spelled
            break
    args = ", ".join(params)
    source = f"def {name}({args}):\n    return {spelled}({args})\n"
    filename = f"<revsrc: {label}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    fn.__qualname__ = label
    _PRIMITIVE_FUNCTIONS[id(f)] = (f, fn)
    return fn


def _primitive_params(f, prim) -> Optional[list]:
    rule = prim.vjp or (prim.jvp if isinstance(prim.jvp, primitives.Rule) else None)
    if rule is not None:
        return [p for p in rule.params if p not in rule.defaults]
    nin = getattr(f, "nin", None)
    if isinstance(nin, int):
        return ["x"] if nin == 1 else [f"x{i + 1}" for i in range(nin)]
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    return [p.name for p in sig.parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
