"""A function mapped by ``revsrc.vmap`` called inside a function revsrc differentiates:
``grad(lambda p: np.sum(revsrc.vmap(loss, in_axes=(None, 0, 0))(p, X, Y)))``.

The call becomes one operation, `vmap_apply`, whose reverse rule is the map of the
per-example derivative: the gradient (or, for per-example outputs that are arrays, the
reverse-mode Jacobian) of the mapped function, mapped by ``revsrc.vmap`` over the same
axes, contracted with the output's cotangent example by example, and summed over the
examples for an argument every example shares (``in_axes`` None). A mapped argument's
cotangent keeps its batch axis where ``in_axes`` put it. Taken: ``in_axes`` ints and
None, ``out_axes`` 0, a plain Python function mapped, at most `MAX_ARGS` arguments,
per-example outputs that are floats or arrays. Anything else is refused at the call's
line, as before (E104); so is a derivative of a derivative through such a call (its
rule has no rule of its own).
"""
from __future__ import annotations

import types

import numpy as np

from . import api, errors
from .compose.jacobians import jacrev
from .core.ir import Const, Op
from .primitives import RUNTIME, define
from .rules import kind_rules
from .runtime import vmap_grads

__all__ = ["lower_call", "per_example_derivative", "vmap_apply", "MAX_ARGS"]

MAX_ARGS = vmap_grads.MAX_ARGS


def vmap_apply(m, n, a0=None, a1=None, a2=None, a3=None, a4=None, a5=None, a6=None,
               a7=None):
    """``m(a0, ..., a{n-1})``: the mapped function ``m`` called on its ``n`` arguments."""
    out = m(*(a0, a1, a2, a3, a4, a5, a6, a7)[:n])
    if not isinstance(out, np.ndarray):
        raise errors.HigherOrderNotSupported(
            "a function mapped by revsrc.vmap that returns a container (a tuple, a dict) "
            "is called inside a function revsrc differentiates",
            hint="map a function that returns one float or array per example")
    return out


def _vjp(g, ans, m, n, a0=None, a1=None, a2=None, a3=None, a4=None, a5=None, a6=None,
         a7=None):
    cots = vmap_grads.vmap_cotangents(g, m, n, a0, a1, a2, a3, a4, a5, a6, a7)
    return None, None, cots[0], cots[1], cots[2], cots[3], cots[4], cots[5], cots[6], cots[7]


# (vmap_cotangents, a run-time helper, has no rule of its own: a derivative of the
# derivative through the call is refused, E104)
define("vmap_apply", vmap_apply, vjp=_vjp, kind=kind_rules.ALWAYS_ARRAY, family=RUNTIME)


def per_example_derivative(m, diff, per_output):
    """The derivative ``m``'s function has per example with respect to its arguments
    ``diff``, mapped as ``m`` maps it: the gradient for float outputs
    (``per_output`` 0), the reverse-mode Jacobian for array outputs."""
    made = api.grad if per_output == 0 else jacrev
    return type(m)(made(m.f, argnums=diff), in_axes=m.in_axes)


def _plain(m):
    """Whether the call of the mapped ``m`` can be `vmap_apply`."""
    axes = m.in_axes
    plain_axes = axes is None or isinstance(axes, int) or (
        isinstance(axes, (tuple, list)) and all(a is None or isinstance(a, int) for a in axes))
    return plain_axes and m.arrays.out_axes == 0 and m.arrays.axis_size is None and \
        isinstance(m.f, types.FunctionType) and getattr(m.f, "_revsrc_transformed", None) is None


def lower_call(site, refuse):
    """The call ``site`` of a mapped function as `vmap_apply`, or ``refuse(loc)``."""
    s = site.op
    m = s.fn
    if s.kwargs or len(s.args) > MAX_ARGS or not _plain(m):
        refuse(site.loc)
    return [Op(s.target, vmap_apply, (Const(m), Const(len(s.args))) + tuple(s.args),
               loc=s.loc)]
