"""``grad``, ``value_and_grad`` and ``source``: the public entry points."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from . import analysis, emit, errors, fence, inline, ir, reverse
from .ir import Pop
from .normalize import Normalizer
from .parse import parse_function

_BACKENDS = (None, "python", "engine")

try:
    from .engine import EngineFallback as _EngineFallback
except ImportError:  # pragma: no cover - only without the compiled kernels
    class _EngineFallback(Exception):
        pass


_SCALAR_CODES = {float: "f", int: "i", bool: "b"}


def _kind_code(v):
    """What the transformation depends on: float/int/bool, or array rank and dtype."""
    t = type(v)
    code = _SCALAR_CODES.get(t)
    if code is not None:
        return code
    if t is np.ndarray:
        return ("a", v.ndim, v.dtype)
    if isinstance(v, np.floating):
        return "f"
    if isinstance(v, np.bool_):
        return "b"
    if isinstance(v, np.integer):
        return "i"
    if isinstance(v, np.ndarray):
        return ("a", v.ndim, v.dtype)
    return "o"


_KIND_NAMES = {"f": "float", "i": "int", "b": "bool", "o": "any"}


def _kind_name(code):
    return "array" if isinstance(code, tuple) else _KIND_NAMES[code]


class _Compiled:
    """One signature's adjoint; the Python form is compiled when first needed."""
    __slots__ = ("_fn", "_text", "program", "engine")

    def __init__(self, program, engine):
        self._fn = None
        self._text = None
        self.program = program
        self.engine = engine

    def _build(self):
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


class Transformed:
    """The general (any argument kinds) path of a derivative made by revsrc."""

    def __init__(self, f, argnums, has_aux, backend, with_value):
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be one of {_BACKENDS}, not {backend!r}")
        self.f = f
        self.has_aux = has_aux
        self.backend = backend
        self.with_value = with_value
        parsed = parse_function(f)
        fence.check(parsed)
        self.parsed = parsed
        node = parsed.node
        self.signature = inspect.signature(f)
        self.params = [a.arg for a in node.args.args + node.args.kwonlyargs]
        npos = len(node.args.args)
        self.tuple_argnums = isinstance(argnums, (tuple, list))
        nums = tuple(argnums) if self.tuple_argnums else (argnums,)
        for a in nums:
            if not isinstance(a, int) or isinstance(a, bool) or not -npos <= a < npos:
                raise errors.BadArgnums(
                    f"argnums {argnums!r} does not name a positional parameter of "
                    f"{f.__name__} (it has {npos})", loc=parsed.loc(node))
        self.argnums = tuple(a % npos for a in nums)
        self.cache = {}
        self.derivative = None  # the user-facing object, set by _make

    # ----- calling ---------------------------------------------------------
    def bind(self, args, kwargs):
        if not kwargs and len(args) == len(self.params):
            return tuple(args)
        try:
            ba = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.f.__name__}(): {exc}") from None
        ba.apply_defaults()
        return tuple(ba.arguments[p] for p in self.params)

    def __call__(self, *args, **kwargs):
        values = self.bind(args, kwargs)
        key = tuple(_kind_code(v) for v in values)
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
            outs = entry.fn(*values)
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
        for a in self.argnums:
            code = key[a]
            ok = code == "f" or (isinstance(code, tuple) and np.dtype(code[2]).kind in "fc")
            if not ok:
                v = values[a]
                raise errors.NotDifferentiableArgument(
                    f"cannot differentiate with respect to argument {a} "
                    f"({self.params[a]}={v!r:.60}), a {type(v).__name__}; "
                    "only float scalars and float arrays carry gradients",
                    loc=self.parsed.loc(self.parsed.node),
                    hint=f"pass a float (e.g. float({self.params[a]})) or exclude it "
                         "from argnums")

    def _compile(self, key, values):
        self._check_wrt(key, values)
        prog = build_program(self.f, self.params, key, values, self.argnums, self.has_aux)
        engine = None
        if self.backend in (None, "engine") and not self.has_aux:
            engine = _try_engine(prog, required=self.backend == "engine")
        entry = _Compiled(prog, engine)
        if engine is None:
            entry.fn  # compile now, so errors surface at the first call
        self.cache[key] = entry
        if engine is not None and self.derivative is not None and \
                hasattr(self.derivative, "install") and \
                all(k in ("f", "i", "b") for k in key):
            self.derivative.install(key, engine, self._select())
        return entry

    def _select(self):
        n = len(self.argnums)
        grads = tuple(range(1, 1 + n)) if self.tuple_argnums else 1
        return (0, grads) if self.with_value else grads


def _plain(v):
    """NumPy scalars as the Python numbers the engine takes."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def _try_engine(prog, required):
    try:
        from . import engine as _engine
    except ImportError as exc:  # the engine module is missing: a broken install
        if required:
            raise errors.EngineUnavailable(f"the compiled engine is unavailable: {exc}")
        return None
    try:
        program = _engine.lower(_expanded(prog))
    except _engine.NotLowerable as exc:
        if required:
            raise errors.EngineUnavailable(
                f"this function cannot run on the compiled scalar engine: {exc}",
                hint="use backend=None (automatic) or backend='python'")
        return None
    from . import native
    native.attach(program)      # compiled to C once it proves hot
    return program


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
                      forward_len=prog.forward_len)


def build_program(f, params, key, values, argnums, has_aux):
    """Parse, normalize, analyze and reverse ``f`` for argument kinds ``key``."""
    nz = Normalizer(has_aux=has_aux)
    ir_params, body, result, aux = nz.lower_function(f)
    pkinds = [_kind_name(k) for k in key]
    pndims = [k[1] if isinstance(k, tuple) else None for k in key]
    kinds, ndims = analysis.infer_kinds(ir_params, pkinds, pndims, body)
    wrt = [ir_params[a] for a in argnums]
    active = analysis.activity(ir_params, wrt, body, result, kinds)
    name = f"{f.__name__}_adjoint" if f.__name__ != "<lambda>" else "lambda_adjoint"
    prog = reverse.transform(nz, ir_params, body, result, aux, wrt, kinds, ndims, active,
                             name)
    seed = dict(kinds)
    for s in ir.walk(prog.body):
        if isinstance(s, Pop) and s.target not in seed:
            seed[s.target] = "int" if s.stack == "i" else ("float" if s.stack == "f" else "any")
    full, _ = analysis.infer_kinds(ir_params, pkinds, pndims, prog.body, seed=seed,
                                   seed_ndims=ndims)
    prog.kinds = full
    return prog


def _finalize(g, x):
    """The gradient in the form of its argument: a float, or an array like ``x``."""
    if isinstance(x, np.ndarray):
        out = np.asarray(g, dtype=x.dtype)
        if out.shape != x.shape:
            out = np.broadcast_to(out, x.shape).copy()
        elif out is g and not isinstance(g, np.ndarray):
            out = out.copy()
        return out
    if isinstance(x, np.floating):
        return type(x)(g)
    return float(g)


def _make(f, argnums, has_aux, backend, with_value):
    tr = Transformed(f, argnums, has_aux, backend, with_value)
    derivative = _wrap(tr)
    tr.derivative = derivative
    return derivative


def _wrap(tr):
    try:
        from ._kernels import Derivative
    except ImportError:
        Derivative = None
    if Derivative is not None and tr.backend != "python":
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
        key = tuple(_kind_code(v) for v in values)
        return tr.cache.get(key) or tr._compile(key, values)
    if tr.cache:
        return list(tr.cache.values())[-1]
    values = tuple(1.0 for _ in tr.params)
    key = tuple("f" for _ in tr.params)
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
