"""Rules for differences, integrals, interpolation, polynomials and convolution.

Each of these is linear in its values (np.diff, np.gradient, np.trapezoid, np.convolve
in either operand), so its adjoint is the transposed stencil or correlation; the
positions they are taken at (np.trapezoid's x, np.interp's x and xp, np.polyval's x)
have derivatives of their own.
"""
import numpy as np

from ..core import kinds as K
from . import kind_rules as KR
from ..primitives import declare, define
from .register import primitive
from ..runtime.grads import calculus as _helpers

# ----- Differences -----


@primitive("diff", np.diff, kind=KR.array_kind, linear=(0, 3, 4), complex_ok=True)
def diff(g, ans, a, n=1, axis=-1, prepend=None, append=None):
    # (each adjoint is a helper with rules of its own: a derivative through np.diff
    # is differentiated again)
    return (_helpers.diff_grad(g, a, n, axis, prepend, append, 0), None, None,
            _helpers.diff_grad(g, a, n, axis, prepend, append, 1),
            _helpers.diff_grad(g, a, n, axis, prepend, append, 2))


# np.unwrap(p) adds to each item a multiple of the period that the jumps before it
# decide, constant where p is differentiable: its derivative is the identity (at a jump
# of exactly half the period, where the multiple changes, the one-sided derivative,
# as JAX's). Real phases only (NumPy's unwrap takes no complex ones).
@primitive("unwrap", np.unwrap, kind=KR.same_rank_array, jvp="elementwise")
def unwrap(g, ans, p, discont=None, axis=-1, period=6.283185307179586):
    return g, None, None, None


# np.gradient(f, *spacing, axis=None, edge_order=1): one spacing for every axis or
# one per axis, numbers or coordinates; a tuple of arrays for several axes.
@primitive("gradient", np.gradient, kind=KR.gradient_kind, complex_ok=True)
def gradient(g, ans, f, s0=None, s1=None, s2=None, s3=None, axis=None, edge_order=1):
    return (_helpers.gradient_grad(g, f, s0, s1, s2, s3, axis, edge_order),
            _helpers.gradient_spacing_grad(g, ans, f, 0, s0, s1, s2, s3, axis),
            _helpers.gradient_spacing_grad(g, ans, f, 1, s0, s1, s2, s3, axis),
            _helpers.gradient_spacing_grad(g, ans, f, 2, s0, s1, s2, s3, axis),
            _helpers.gradient_spacing_grad(g, ans, f, 3, s0, s1, s2, s3, axis))


# ----- Integrals -----

@primitive("trapezoid", np.trapezoid, kind=KR.trapezoid_kind, complex_ok=True)
def trapezoid(g, ans, y, x=None, dx=1.0, axis=-1):
    d = _helpers.trapezoid_grads_x(g, y, x, dx, axis)
    return _helpers.trapezoid_grad_y(g, y, x, dx, axis), d[0], d[1]


# y's adjoint: linear in g, y read for its shape (so a Hessian in y goes through it)
define("trapezoid_grad_y", _helpers.trapezoid_grad_y, kind=KR.like_argument(1), linear=(0,))
declare(_helpers.trapezoid_grad_y, shape_reads=(1,))


# ----- Interpolation and polynomials -----

# (``xp`` names the namespace inside a rule, so the knots are ``xp_``: passed by
# keyword, ``xp=`` is refused.)
@primitive("interp", np.interp, kind=KR.array_kind, complex_ok=True)
def interp(g, ans, x, xp_, fp, left=None, right=None, period=None):
    d = _helpers.interp_grads(g, x, xp_, fp, left, right, period)
    return d[0], d[1], d[2], d[3], d[4], _helpers.interp_period_grad(period)


@primitive("polyval", np.polyval, kind=KR.array_kind, complex_ok=True)
def polyval(g, ans, p, x):
    return _helpers.polyval_grad_p(g, p, x), _helpers.polyval_grad_x(g, p, x)


# p's adjoint: linear in g, p read for its shape (a Hessian in the coefficients)
define("polyval_grad_p", _helpers.polyval_grad_p, kind=KR.like_argument(1), linear=(0,))
declare(_helpers.polyval_grad_p, shape_reads=(1,))


# ----- Convolution -----

@primitive("convolve", np.convolve, kind=KR.constant(K.ARRAY), complex_ok=True)
def convolve(g, ans, a, v, mode="full"):
    d = _helpers.convolve_grads(g, a, v, mode)
    return d[0], d[1]
