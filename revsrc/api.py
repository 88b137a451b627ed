"""``grad``, ``value_and_grad`` and ``source``: the public entry points."""
from __future__ import annotations

import contextlib
import functools
import inspect
import sys

import numpy as np

from . import (analysis, emit, engine, errors, fence, frontend, inline, ir, jvp, kinds,
               prune, reverse, runtime)
from ._kernels import Derivative
from .engine import EngineFallback as _EngineFallback
from .ir import Pop
from .names import function_name
from .normalize import param_names
from .parse import parse_function

_BACKENDS = (None, "python", "engine")


class _Compiled:
    """One signature's adjoint; the Python form is compiled when first needed."""
    __slots__ = ("_fn", "_text", "program", "engine", "unpruned")

    def __init__(self, program, engine, unpruned=None):
        self._fn = None
        self._text = None
        self.program = program
        self.engine = engine
        # before revsrc/prune.py's rewrites, for transforming it again (frontend.py)
        self.unpruned = unpruned if unpruned is not None else program

    def _build(self):
        with deep_recursion():
            self._fn, self._text = emit.compile_program(self.program)

    @property
    def fn(self):
        if self._fn is None:
            self._build()
        return self._fn

    @property
    def text(self):
        if self._text is None:
            self._build()
        return self._text


def describe(f):
    """(parsed source, signature, parameter names, number of positional parameters) of
    a function to transform; a revsrc derivative has those of its function."""
    inner = frontend.transformed_of(f)
    if inner is not None:
        node = inner.parsed.node
        return inner.parsed, inner.signature, inner.params, len(node.args.args)
    parsed = parse_function(f)
    fence.check(parsed)
    node = parsed.node
    params = param_names(node)
    return parsed, inspect.signature(f), params, len(node.args.args)


class Transformed:
    """The general (any argument kinds) path of a derivative made by revsrc."""

    def __init__(self, f, argnums, has_aux, backend, with_value, cotangent=False):
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be one of {_BACKENDS}, not {backend!r}")
        self.f = f
        self.has_aux = has_aux
        self.backend = backend
        self.with_value = with_value
        self.cotangent = cotangent  # takes the output's cotangent as a last argument
        self.parsed, self.signature, self.params, npos = describe(f)
        node = self.parsed.node
        self.tuple_argnums = isinstance(argnums, (tuple, list))
        nums = tuple(argnums) if self.tuple_argnums else (argnums,)
        for a in nums:
            if not isinstance(a, int) or isinstance(a, bool) or not -npos <= a < npos:
                raise errors.BadArgnums(
                    f"argnums {argnums!r} does not name a positional parameter of "
                    f"{f.__name__} (it has {npos})", loc=self.parsed.loc(node))
        self.argnums = tuple(a % npos for a in nums)
        self.cache = {}
        self.derivative = None  # the user-facing object, set by _make

    # ----- calling ---------------------------------------------------------
    def bind(self, args, kwargs):
        if not kwargs and len(args) == len(self.params) and not self.parsed.node.args.vararg:
            return tuple(args)
        try:
            ba = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.f.__name__}(): {exc}") from None
        ba.apply_defaults()
        return tuple(ba.arguments[p] for p in self.params)

    def __call__(self, *args, **kwargs):
        if self.cotangent:
            values = self.bind(args[:-1], kwargs) + (args[-1],)
        else:
            values = self.bind(args, kwargs)
        key = tuple(kinds.signature(v) for v in values)
        entry = self.cache.get(key)
        if entry is None:
            entry = self._compile(key, values)
        outs = None
        if entry.engine is not None:
            try:
                outs = entry.engine.run(tuple(_plain(v) for v in values))
            except _EngineFallback:  # a value the engine cannot represent exactly
                outs = None
        if outs is None:
            outs = runtime.run_pooled(entry.fn, values)
        return self._format(outs, values)

    def _format(self, outs, values):
        n = len(self.argnums)
        grads = tuple(_finalize(g, values[a]) for g, a in zip(outs[1:1 + n], self.argnums))
        grad = grads if self.tuple_argnums else grads[0]
        value = outs[0]
        if self.has_aux:
            aux = outs[1 + n]
            if self.with_value:
                return (value, aux), grad
            return grad, aux
        if self.with_value:
            return value, grad
        return grad

    # ----- transforming ---------------------------------------------------
    def _check_wrt(self, key, values):
        check_values(self.parsed, self.params, key, values)
        for a in self.argnums:
            code = key[a]
            ok = code == kinds.FLOAT or (isinstance(code, tuple) and code[0] == kinds.ARRAY
                                          and code[2].kind in "fc")
            if not ok:
                v = values[a] if values is not None else code
                raise errors.NotDifferentiableArgument(
                    f"cannot differentiate with respect to argument {a} "
                    f"({self.params[a]}={v!r:.60}), a {type(v).__name__}; "
                    "only float scalars and float arrays carry gradients",
                    loc=self.parsed.loc(self.parsed.node),
                    hint=f"pass a float (e.g. float({self.params[a]})) or exclude it "
                         "from argnums")

    def _compile(self, key, values):
        with deep_recursion():
            return self._compile_now(key, values)

    def _compile_now(self, key, values):
        self._check_wrt(key, values)
        prog = unpruned = build_program(self.f, self.params, key, values, self.argnums,
                                        self.has_aux, cotangent=self.cotangent)
        if any(isinstance(k, tuple) and k[0] == kinds.ARRAY for k in key):  # array programs (never the engine's)
            if not self.with_value:
                prog = prune.drop_value(prog)  # grad: the value is not returned
            prog = prune.accumulate_in_place(prog)
        engine = None
        if self.backend in (None, "engine") and not self.has_aux:
            engine = _try_engine(prog, required=self.backend == "engine")
        entry = _Compiled(prog, engine, unpruned)
        if engine is None:
            entry.fn  # compile now, so errors surface at the first call
        self.cache[key] = entry
        if engine is not None and self.derivative is not None and \
                hasattr(self.derivative, "install") and \
                all(k in kinds.SCALARS for k in key):
            self.derivative.install([kinds.CODE[k] for k in key], engine, self._select())
        return entry

    def _select(self):
        n = len(self.argnums)
        grads = tuple(range(1, 1 + n)) if self.tuple_argnums else 1
        return (0, grads) if self.with_value else grads


@contextlib.contextmanager
def deep_recursion(limit=20000):
    """Transformations recurse along the nesting of the user's code: a 400-deep elif
    chain is legal Python, so the recursion limit is raised while transforming."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def check_values(parsed, params, key, values):
    """Refuse arguments whose arithmetic the rules do not describe."""
    for i, code in enumerate(key):
        if isinstance(code, tuple) and code[0] == kinds.SUBCLASS:
            name = params[i] if i < len(params) else f"argument {i}"
            raise errors.UnsupportedValue(
                f"{name} is a {code[1]}, an ndarray subclass whose operators mean "
                "something else (np.matrix's * is a matrix product; a masked array skips "
                "masked elements): its derivative would be wrong", loc=parsed.loc(parsed.node),
                hint=f"pass np.asarray({name}) (for a masked array, fill or compress it "
                     "first)")


def _plain(v):
    """NumPy scalars as the Python numbers the engine takes."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def _try_engine(prog, required):
    try:
        return engine.lower(_expanded(prog))
    except engine.NotLowerable as exc:
        if required:
            raise errors.EngineUnavailable(
                f"this function cannot run on the compiled scalar engine: {exc}",
                hint="use backend=None (automatic) or backend='python'")
        return None


def _expanded(prog):
    """``prog`` with users' functions that have rules of their own inlined from their
    source: the engine runs their bodies where the Python path calls them."""
    taken = inline.names_in(prog.body) | set(prog.params)
    body = inline.expand(prog.body, taken)
    if len(list(ir.walk(body))) == len(list(ir.walk(prog.body))):
        return prog
    pk = [prog.kinds.get(p, "any") for p in prog.params]
    kinds, _ = analysis.infer_kinds(prog.params, pk, [None] * len(pk), body, seed=prog.kinds)
    return ir.Program(prog.name, prog.params, body, prog.outputs, kinds,
                      forward_len=prog.forward_len, names=prog.names)


def build_program(f, params, key, values, argnums, has_aux, cotangent=False):
    """Parse, normalize, analyze and reverse ``f`` for argument kinds ``key`` (with
    ``cotangent``, the last entry of ``key`` is that of the output's cotangent)."""
    if cotangent:
        key, ct_key = key[:-1], key[-1]
    low = frontend.lower(f, key, has_aux)
    pkinds = [kinds.kind_of_signature(k) for k in key]
    pndims = [kinds.ndim_of_signature(k) for k in key]
    found, ndims = analysis.infer_kinds(low.params, pkinds, pndims, low.body, seed=low.kinds)
    wrt = [low.params[a] for a in argnums]
    active = analysis.activity(low.params, wrt, low.body, low.result, found)
    name = f"{function_name(f)}_adjoint" if not cotangent else f"{function_name(f)}_vjp"
    seed = low.names.internal("_ct") if cotangent else None
    prog = reverse.transform(low.names, low.params, low.body, low.result, low.aux, wrt,
                             found, ndims, active, name, seed=seed)
    if cotangent:
        return _with_full_kinds(prog, low.params + [seed],
                                pkinds + [kinds.kind_of_signature(ct_key)],
                                pndims + [kinds.ndim_of_signature(ct_key)], found, ndims)
    return _with_full_kinds(prog, low.params, pkinds, pndims, found, ndims)


def build_jvp_program(f, params, key, wrt, has_aux):
    """Parse, normalize, analyze and forward-transform ``f`` for argument kinds ``key``,
    with tangents for the parameters at positions ``wrt``."""
    low = frontend.lower(f, key, has_aux)
    pkinds = [kinds.kind_of_signature(k) for k in key]
    pndims = [kinds.ndim_of_signature(k) for k in key]
    found, ndims = analysis.infer_kinds(low.params, pkinds, pndims, low.body, seed=low.kinds)
    wrt_params = [low.params[a] for a in wrt]
    active = analysis.activity(low.params, wrt_params, low.body, low.result, found,
                               positions=jvp.activity_positions)
    prog = jvp.transform(low.names, low.params, low.body, low.result, low.aux, wrt_params,
                         found, ndims, active, f"{function_name(f)}_jvp")
    return _with_full_kinds(prog, low.params + [low.names.dot(p) for p in wrt_params],
                            pkinds + [pkinds[a] for a in wrt],
                            pndims + [pndims[a] for a in wrt], found, ndims)


def _with_full_kinds(prog, params, pkinds, pndims, seed, seed_ndims):
    """``prog`` with the kind of every variable, for the engine and the printer."""
    seed = dict(seed)
    for s in ir.walk(prog.body):
        if isinstance(s, Pop) and s.target not in seed:
            seed[s.target] = reverse.STACK_KIND[s.stack[0]]
    full, _ = analysis.infer_kinds(params, pkinds, pndims, prog.body, seed=seed,
                                   seed_ndims=seed_ndims)
    prog.kinds = full
    return prog


_finalize = runtime.finalize_grad


def _make(f, argnums, has_aux, backend, with_value):
    tr = Transformed(f, argnums, has_aux, backend, with_value)
    derivative = _wrap(tr)
    tr.derivative = derivative
    return derivative


def _wrap(tr):
    if tr.backend != "python":
        d = Derivative(tr)
    else:
        @functools.wraps(tr.f)
        def d(*args, **kwargs):
            return tr(*args, **kwargs)
        d.__wrapped__ = tr.f
    try:
        d.__name__ = ("value_and_grad_" if tr.with_value else "grad_") + tr.f.__name__
        d.__qualname__ = d.__name__
        d.__doc__ = f"Derivative of {tr.f.__qualname__} made by revsrc."
        d.__wrapped__ = tr.f
    except (AttributeError, TypeError):
        pass
    d._revsrc_transformed = tr
    d._revsrc_derivative = True
    return d


def grad(f, argnums=0, has_aux=False, backend=None):
    """The gradient of ``f`` with respect to argument ``argnums``.

    ``f`` must return a scalar float (or ``(value, aux)`` with ``has_aux=True``).
    The result has ``f``'s signature and returns a float for a float argument,
    an array of the argument's shape and dtype for an array, a tuple of these for
    a tuple ``argnums``, and ``(grad, aux)`` with ``has_aux``. ``backend`` forces
    the generated Python adjoint (``"python"``) or the compiled scalar engine
    (``"engine"``); by default the engine runs whenever it can.

    >>> import math, revsrc
    >>> def f(x, y):
    ...     return math.sin(x) * y + x * x
    >>> round(revsrc.grad(f)(0.7, 2.0), 9)
    2.929684375
    """
    return _make(f, argnums, has_aux, backend, with_value=False)


def value_and_grad(f, argnums=0, has_aux=False, backend=None):
    """``(f(...), grad(f)(...))`` computed in one forward and one adjoint sweep.

    >>> import revsrc
    >>> def f(x, y):
    ...     return x * y
    >>> revsrc.value_and_grad(f, argnums=1)(3.0, 2.0)
    (6.0, 3.0)
    """
    return _make(f, argnums, has_aux, backend, with_value=True)


def _transformed(df):
    tr = getattr(df, "_revsrc_transformed", None)
    if tr is None:
        raise TypeError(f"{df!r} is not a derivative made by revsrc.grad or value_and_grad")
    return tr


def _entry(df, args, kwargs):
    """The compiled signature of ``df`` for these arguments (transforming if needed);
    without arguments, the signature compiled last (float arguments if none was)."""
    tr = _transformed(df)
    if args or kwargs:
        values = tr.bind(args, kwargs)
        key = tuple(kinds.signature(v) for v in values)
        return tr.cache.get(key) or tr._compile(key, values)
    if tr.cache:
        return list(tr.cache.values())[-1]
    values = tuple(1.0 for _ in tr.params)
    key = tuple(kinds.FLOAT for _ in tr.params)
    return tr._compile(key, values)


def source(df, *args, **kwargs):
    """The generated adjoint source of ``df`` for arguments like ``args``.

    Without arguments: for the argument kinds transformed most recently (float
    arguments if ``df`` was never called).
    """
    return _entry(df, args, kwargs).text


def disassemble(df, *args, **kwargs):
    """The compiled scalar engine's program of ``df`` for arguments like ``args``
    (without arguments: the kinds transformed most recently), one instruction per line.
    """
    entry = _entry(df, args, kwargs)
    if entry.engine is None:
        raise errors.EngineUnavailable(
            "this derivative does not run on the scalar engine for these arguments",
            hint="the engine runs functions whose values are all floats, ints and bools")
    return entry.engine.disassemble()
