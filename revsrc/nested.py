"""revsrc's own transformations called inside a function revsrc transforms.

``revsrc.jvp``, ``revsrc.hvp`` and a Jacobian or Hessian (revsrc/compose.py) called
inside a function that revsrc differentiates or jits become the program they run,
spliced in at the call: the forward-mode program (for jvp, hvp, and the Jacobian in a
scalar argument), or the gradient program (for the Jacobian of a scalar in an array).
Then they are ordinary IR to the transformation around them, which is what makes
``grad`` of a function calling ``jvp`` work (revsrc/passes/pipeline.py calls these
through the functions' ``_revsrc_lower_call``). What cannot be done so is refused at
the call's line. A transformation of a Jacobian itself (``grad(jacfwd(f))``) reads a
small function calling it (`caller`), and so goes the same way; the Jacobian of a
Jacobian differentiates small functions reading one output element (`ITEMS`).
"""
from __future__ import annotations

import functools
import inspect
import os

import numpy as np

from . import api, errors
from .backends import python as emit
from .core import kinds, source
from .core.ir import Const
from .passes import analysis, pipeline

# revsrc.jvp's and revsrc.hvp's parameters and defaults, as a call inside binds them
_JVP = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            default=d) for n, d in
                          (("f", inspect.Parameter.empty),
                           ("primals", inspect.Parameter.empty),
                           ("tangents", inspect.Parameter.empty),
                           ("has_aux", False), ("backend", None))])
_HVP = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            default=d) for n, d in
                          (("f", inspect.Parameter.empty),
                           ("primals", inspect.Parameter.empty),
                           ("tangents", inspect.Parameter.empty),
                           ("argnums", 0), ("backend", None))])


_HERE = os.path.dirname(os.path.abspath(__file__))


def _user_loc(loc):
    """``loc``, unless it is a line of revsrc's own (`caller`'s): then none."""
    if loc is not None and os.path.abspath(loc.filename).startswith(_HERE + os.sep):
        return None
    return loc


def _refusal(what, site, hint):
    return errors.HigherOrderNotSupported(what, loc=_user_loc(site.loc), hint=hint)


def _located(hook):
    """``hook``, whose refusals without a line name the call's."""
    @functools.wraps(hook)
    def at_the_call(*args):
        site = args[-1]
        try:
            return hook(*args)
        except errors.RevsrcError as exc:
            loc = getattr(exc, "loc", None)
            if loc is None or _user_loc(loc) is None:
                raise errors.located(exc, _user_loc(site.loc)) from None
            raise
    return at_the_call


def _function_arg(a, site, name):
    if not isinstance(a, Const) or not callable(a.value):
        raise _refusal(f"revsrc.{name} called inside a transformed function takes a "
                       "function known when transforming (a def or a global)", site,
                       hint="pass the function by name")
    return api.unjitted(a.value)


def _splice_jvp(site, fn, primals, tangents, base, both):
    """The call's target as ``(fn(*primals), its tangent)`` (``both``) or the tangent,
    by ``fn``'s forward-mode program spliced in."""
    p_items, t_items = site.items(primals), site.items(tangents)
    if p_items is None or t_items is None or len(p_items) != len(t_items):
        raise _refusal("revsrc.jvp and revsrc.hvp called inside a transformed function "
                       "take primals and tangents as tuples written at the call, one "
                       "tangent per primal", site, hint="write jvp(f, (x,), (v,))")
    wrt = tuple(i for i, t in enumerate(t_items)
                if not (isinstance(t, Const) and t.value is None))
    p_items = _with_defaults(fn, list(p_items))
    key = tuple(site.kind(a) for a in p_items)
    for i in wrt:
        if not (key[i] == kinds.FLOAT or isinstance(key[i], tuple)):
            raise errors.NotDifferentiableArgument(
                f"primal {i} has no tangent: it is of kind {key[i]!r}", loc=site.loc,
                hint="pass None as its tangent")
    prog = pipeline.jvp_program(fn, key, wrt, False, compile_python=emit.compile_program)
    args = list(p_items) + [t_items[i] for i in wrt]
    if both:
        return site.splice(prog.params, prog.body, None, args, base, prog.deps,
                           results=prog.outputs[:2])
    return site.splice(prog.params, prog.body, prog.outputs[1], args, base, prog.deps)


def _bound(sig, name, site):
    try:
        ba = sig.bind(*site.op.args, **dict(site.op.kwargs))
    except TypeError as exc:
        raise errors.StaticValueError(f"revsrc.{name}(): {exc}", loc=site.loc) from None
    ba.apply_defaults()
    return ba.arguments


def _static(v, site, name):
    if isinstance(v, Const):
        return v.value
    if v is None or isinstance(v, (bool, int, str)):
        return v
    raise _refusal(f"the {name} of revsrc.jvp or revsrc.hvp called inside a transformed "
                   "function must be a constant", site, hint=f"write {name}=... literally")


@_located
def lower_jvp(site):
    """A call of ``revsrc.jvp``: ``(f(*primals), its tangent)``."""
    a = _bound(_JVP, "jvp", site)
    if _static(a["has_aux"], site, "has_aux"):
        raise _refusal("revsrc.jvp with has_aux=True called inside a transformed "
                       "function is not supported yet", site,
                       hint="return the auxiliary value from a separate call")
    fn = _function_arg(a["f"], site, "jvp")
    return _splice_jvp(site, fn, a["primals"], a["tangents"], "jvp_", True)


@_located
def lower_hvp(grad_of, site):
    """A call of ``revsrc.hvp``: the tangent of ``grad_of(f, argnums, None)``."""
    a = _bound(_HVP, "hvp", site)
    argnums = _static(a["argnums"], site, "argnums")
    fn = _function_arg(a["f"], site, "hvp")
    return _splice_jvp(site, grad_of(fn, argnums, None), a["primals"], a["tangents"],
                       "hvp_", False)


@_located
def lower_jacobian(grad_of, jac, site):
    """A call of the Jacobian ``jac`` made by revsrc/compose.py."""
    f, nums, many, has_aux, _ = jac._revsrc_composed
    name = getattr(jac, "__name__", "this Jacobian")
    if f is None or many or has_aux or site.op.kwargs:
        raise _refusal(f"{name}, called inside a function revsrc transforms, is a "
                       "Jacobian in several arguments, with has_aux, or of a derivative "
                       "of a derivative: not supported there yet", site,
                       hint="differentiate in one argument, or take the Jacobian of the "
                            "whole function outside it")
    args = _with_defaults(api.unjitted(f), list(site.op.args))
    (a,) = nums
    if a >= len(args):
        raise errors.StaticValueError(f"{name}(): argument {a} is missing", loc=site.loc)
    f = api.unjitted(f)
    if site.kind(args[a]) == kinds.FLOAT:
        # a scalar argument: the Jacobian is the tangent along 1.0
        t = [Const(1.0) if i == a else Const(None) for i in range(len(args))]
        return _splice_jvp_items(site, f, args, t, "jac_")
    key = tuple(site.kind(x) for x in args)
    low = pipeline.lower(f, key)
    found, _ = analysis.infer_kinds(low.params, *analysis.param_kinds(key), low.body)
    out = found.get(low.result) if isinstance(low.result, str) else \
        kinds.of_value(low.result.value)
    if out != kinds.FLOAT:
        raise _refusal(f"{name}, called inside a function revsrc transforms, is the "
                       "Jacobian of an array-valued function in an array argument: its "
                       "size is known only when it runs, which revsrc does not support "
                       "there yet", site,
                       hint="use revsrc.jvp or revsrc.hvp with a direction inside, or take "
                            "the Jacobian of the whole function outside it")
    # the Jacobian of a scalar in an array is its gradient
    return site.inline(grad_of(f, a, None), args, "jac_")


def _with_defaults(fn, args):
    """``args`` followed by the defaults of ``fn``'s parameters they leave out (the
    program made for ``fn`` takes every parameter), as far as each has one."""
    try:
        names, defaults = source.parameters(fn)
    except (TypeError, ValueError):
        return args
    out = list(args)
    for name in names[len(args):]:
        if name not in defaults:
            break
        out.append(Const(defaults[name]))
    return out


def _splice_jvp_items(site, fn, primals, tangents, base):
    primals = _with_defaults(fn, list(primals))
    tangents = list(tangents) + [Const(None)] * (len(primals) - len(tangents))
    key = tuple(site.kind(x) for x in primals)
    wrt = tuple(i for i, t in enumerate(tangents)
                if not (isinstance(t, Const) and t.value is None))
    prog = pipeline.jvp_program(fn, key, wrt, False, compile_python=emit.compile_program)
    args = list(primals) + [tangents[i] for i in wrt]
    return site.splice(prog.params, prog.body, prog.outputs[1], args, base, prog.deps)


def _call1(jac):
    def calling(a0):
        return jac(a0)
    return calling


def _call2(jac):
    def calling(a0, a1):
        return jac(a0, a1)
    return calling


def _call3(jac):
    def calling(a0, a1, a2):
        return jac(a0, a1, a2)
    return calling


_CALLERS = (None, _call1, _call2, _call3)


def caller(jac, f):
    """A function of ``f``'s positional arguments that calls ``jac`` (a Jacobian made
    here): what a transformation of ``jac`` reads (`api.unjitted`), its call replaced
    by the Jacobian's program (`lower_jacobian`)."""
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return jac
    n = len(params)
    if not 1 <= n < len(_CALLERS) or any(p.kind not in (p.POSITIONAL_ONLY,
                                                        p.POSITIONAL_OR_KEYWORD)
                                         for p in params):
        return jac
    memo = jac.__dict__
    if "_revsrc_caller" not in memo:
        memo["_revsrc_caller"] = _named(_CALLERS[n](jac), jac)
    return memo["_revsrc_caller"]


def _named(fn, like):
    fn.__name__ = fn.__qualname__ = getattr(like, "__name__", "jacobian")
    return fn


# Output element k (C order) of f, as a function of f's positional arguments: one per
# arity, since a derivative of a function taking *args is not supported.

def _item1(f, k):
    def output_item(a0):
        return np.ravel(f(a0))[k]
    return output_item


def _item2(f, k):
    def output_item(a0, a1):
        return np.ravel(f(a0, a1))[k]
    return output_item


def _item3(f, k):
    def output_item(a0, a1, a2):
        return np.ravel(f(a0, a1, a2))[k]
    return output_item


def _item4(f, k):
    def output_item(a0, a1, a2, a3):
        return np.ravel(f(a0, a1, a2, a3))[k]
    return output_item


ITEMS = (None, _item1, _item2, _item3, _item4)


# ----- The functions revsrc.vjp and revsrc.linearize return, called inside -----
# ``out, back = revsrc.vjp(f, x)`` then ``back(ct)``: the frontend writes the call of
# ``back`` as `returned_call` of revsrc.vjp, f and the primals the vjp call took
# (frontend/lower/calls.py), so the function returned is never a value of the program:
# the vjp call itself is ``(f(*primals), None)`` (`lower_made`), and the call of what
# it returned the pullback's program (`lower_returned`).

def returned_call(maker, n, f, *rest):
    """``maker(f, *rest[:n])[1](*rest[n:])``: the call of the function revsrc.vjp or
    revsrc.linearize (``maker``) returned for the primals ``rest[:n]``."""
    return maker(f, *rest[:n])[1](*rest[n:])


def _maker_name(site):
    return getattr(site.op.fn, "__name__", "vjp")


@_located
def lower_made(site):
    """A call of revsrc.vjp or revsrc.linearize: ``(f(*primals), None)``."""
    name = _maker_name(site)
    if any(k == "has_aux" and not (isinstance(v, Const) and v.value is False)
           for k, v in site.op.kwargs):
        raise _refusal(f"revsrc.{name} with has_aux=True called inside a transformed "
                       "function is not supported yet", site,
                       hint="return the auxiliary value from a separate call")
    if not site.op.args:
        raise errors.StaticValueError(f"revsrc.{name}() takes a function", loc=site.loc)
    fn = _function_arg(site.op.args[0], site, name)
    primals = list(site.op.args[1:])
    low = pipeline.lower(fn, tuple(site.kind(a) for a in primals))
    return site.splice(low.params, low.body, None, primals, f"{name}_", low.deps,
                       results=[low.result, Const(None)])


@_located
def lower_returned(grad_of, site):
    """A call of the function revsrc.vjp or revsrc.linearize returned (`returned_call`):
    the Jacobian-vector product's program (linearize), or the gradient program of the
    output weighted by the cotangent (vjp: the same adjoint sweep, seeded with it)."""
    maker, n = site.op.args[0].value, site.op.args[1].value
    kind = getattr(maker, "_revsrc_returns", "vjp")
    fn = _function_arg(site.op.args[2], site, kind)
    primals, rest = list(site.op.args[3:3 + n]), list(site.op.args[3 + n:])
    if kind == "linearize":
        if len(rest) != n:
            raise errors.StaticValueError(
                f"the function revsrc.linearize returned takes {n} tangent(s), one per "
                f"primal; {len(rest)} given", loc=site.loc)
        return _splice_jvp_items(site, fn, primals, rest, "linearized_")
    if len(rest) != 1:
        raise errors.StaticValueError(
            f"the function revsrc.vjp returned takes one cotangent; {len(rest)} given",
            loc=site.loc)
    for i, a in enumerate(primals):
        k = site.kind(a)
        if not (k == kinds.FLOAT or isinstance(k, tuple)):
            raise _refusal(f"the function revsrc.vjp returned, called inside a transformed "
                           f"function, pulls back to float arguments only there; primal "
                           f"{i} is of kind {k!r}", site,
                           hint="take the vjp of a function of the float arguments alone")
    if not 1 <= n < len(_WEIGHTED):
        raise _refusal("the function revsrc.vjp returned, called inside a transformed "
                       f"function, is supported for 1 to {len(_WEIGHTED) - 1} primals",
                       site, hint="pass the primals in a tuple argument")
    # the function as given: a Jacobian or a jitted function is called through its own
    # hook inside the weighted one
    scalar = site.kind(rest[0]) == kinds.FLOAT    # a number's product needs no sum
    return site.inline(grad_of(_weighted(site.op.args[2].value, n, scalar),
                               tuple(range(n)), None), primals + rest, "vjp_")


def _weighted(f, n, scalar):
    """The function of ``f``'s n positional arguments and a cotangent ``ct``: f's output
    times ct (summed, unless ``scalar``), whose gradient is the vjp of f. Made anew for
    each transformation that meets the call (its program is that transformation's)."""
    made = _WEIGHTED[n](f, scalar)
    made.__name__ = made.__qualname__ = f"vjp_{getattr(f, '__name__', 'f')}"
    return made


def _weighted1(f, scalar):
    if scalar:
        def weighted_number(a0, ct):
            return f(a0) * ct
        return weighted_number

    def weighted_output(a0, ct):
        return np.sum(f(a0) * ct)
    return weighted_output


def _weighted2(f, scalar):
    if scalar:
        def weighted_number(a0, a1, ct):
            return f(a0, a1) * ct
        return weighted_number

    def weighted_output(a0, a1, ct):
        return np.sum(f(a0, a1) * ct)
    return weighted_output


def _weighted3(f, scalar):
    if scalar:
        def weighted_number(a0, a1, a2, ct):
            return f(a0, a1, a2) * ct
        return weighted_number

    def weighted_output(a0, a1, a2, ct):
        return np.sum(f(a0, a1, a2) * ct)
    return weighted_output


_WEIGHTED = (None, _weighted1, _weighted2, _weighted3)
