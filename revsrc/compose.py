"""Composable derivatives: jvp, vjp, the Jacobians, the Hessian, Hessian-vector products.

These follow JAX's names and conventions. Each is a few lines over two programs that
revsrc writes: the forward-mode program of `revsrc.jvp` (the value and a directional
derivative) and the reverse-mode program of `revsrc.vjp` (the value and the
cotangent pulled back to the inputs). Derivatives are ordinary functions, so these
apply to them too: `hessian` is forward mode over reverse mode.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import api, errors, kinds
from .api import _Compiled, _EngineFallback, _plain, _try_engine

_FORWARD = weakref.WeakKeyDictionary()   # function -> _Forward transformation


class _Forward:
    """The forward-mode transformation of one function, cached per argument kinds."""

    def __init__(self, f, has_aux=False, backend=None):
        if backend not in api._BACKENDS:
            raise ValueError(f"backend must be one of {api._BACKENDS}, not {backend!r}")
        self.f = f
        self.parsed, self.signature, self.params, self.npos = api.describe(f)
        self.has_aux = has_aux
        self.backend = backend
        self.cache = {}

    def entry(self, primals, wrt):
        key = tuple(kinds.signature(v) for v in primals)
        hit = self.cache.get((key, wrt))
        if hit is None:
            prog = api.build_jvp_program(self.f, self.params, key, wrt, self.has_aux)
            engine = None
            if self.backend in (None, "engine"):
                engine = _try_engine(prog, required=self.backend == "engine")
            hit = _Compiled(prog, engine)
            if engine is None:
                hit.fn  # compile now, so errors surface at the first call
            self.cache[(key, wrt)] = hit
        return hit

    def __call__(self, primals, tangents):
        primals, tangents = self._check(primals, tangents)
        wrt = tuple(i for i, t in enumerate(tangents) if t is not None)
        entry = self.entry(primals, wrt)
        args = primals + tuple(tangents[i] for i in wrt)
        outs = None
        if entry.engine is not None:
            try:
                outs = entry.engine.run(tuple(_plain(v) for v in args))
            except _EngineFallback:
                outs = None
        if outs is None:
            outs = entry.fn(*args)
        out, tangent = outs[0], _like(outs[1], outs[0])
        if self.has_aux:
            return out, tangent, outs[2]
        return out, tangent

    def _check(self, primals, tangents):
        if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
            raise TypeError("jvp takes primals and tangents as tuples (or lists), "
                            "one entry per positional argument")
        primals, tangents = tuple(primals), list(tangents)
        if len(primals) != len(self.params) or len(tangents) != len(primals):
            raise TypeError(
                f"{self.f.__name__} takes {len(self.params)} arguments; got "
                f"{len(primals)} primals and {len(tangents)} tangents")
        for i, (p, t) in enumerate(zip(primals, tangents)):
            k = kinds.signature(p)
            float_arg = k == kinds.FLOAT or (isinstance(k, tuple) and k[2].kind in "fc")
            if t is None or (not float_arg and _is_zero(t)):
                tangents[i] = None
                continue
            if not float_arg:
                raise errors.NotDifferentiableArgument(
                    f"argument {i} ({self.params[i]}) is a {type(p).__name__}; only float "
                    "scalars and float arrays have tangents (pass None for it)",
                    loc=self.parsed.loc(self.parsed.node))
            if np.shape(t) != np.shape(p):
                raise ValueError(f"the tangent of argument {i} has shape {np.shape(t)}, "
                                 f"its primal {np.shape(p)}")
            if isinstance(p, np.ndarray):
                tangents[i] = np.asarray(t, dtype=p.dtype)
            else:
                tangents[i] = float(t)
        return primals, tangents


def _is_zero(t):
    try:
        return not np.any(t)
    except Exception:
        return False


def _like(t, out):
    """A tangent in the form of its primal output (a float for a float)."""
    if isinstance(out, np.ndarray):
        t = np.asarray(t, dtype=out.dtype if out.dtype.kind in "fc" else None)
        return np.broadcast_to(t, out.shape).copy() if t.shape != out.shape else t
    if isinstance(out, (float, np.floating)) and not isinstance(t, np.ndarray):
        return type(out)(t) if isinstance(out, np.floating) else float(t)
    return t


def _forward(f, has_aux=False, backend=None):
    key = (has_aux, backend)
    try:
        per_f = _FORWARD.setdefault(f, {})
    except TypeError:   # not weak-referenceable
        return _Forward(f, has_aux, backend)
    hit = per_f.get(key)
    if hit is None:
        hit = per_f[key] = _Forward(f, has_aux, backend)
    return hit


def jvp(f, primals, tangents, has_aux=False, backend=None):
    """``(f(*primals), J tangents)``: the value and its directional derivative.

    ``tangents`` has one entry per argument, shaped like it (None for an argument
    with no tangent, as for ints). Computed by a forward-mode program revsrc writes
    (no tape), with loops and branches; scalar programs run on the compiled engine.

    >>> import math, revsrc
    >>> def f(x, y):
    ...     return math.sin(x) * y
    >>> out, t = revsrc.jvp(f, (0.5, 2.0), (1.0, 0.0))
    >>> round(t, 12) == round(math.cos(0.5) * 2.0, 12)
    True
    """
    return _forward(f, has_aux, backend)(primals, tangents)
