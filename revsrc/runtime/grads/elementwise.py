"""Adjoints of elementwise functions whose rule needs more than one expression:
sinc, clip, where, the real and imaginary parts, nan_to_num, select, xlogy and
logsumexp."""
from __future__ import annotations

import math

import numpy as np

from .. import tensor
from ..dropped import dropped
from ..values import (as_adjoint, as_array, exact_dtype, float_dtype, is_complex, per_item,
                      pieces, zero_like)
from .common import real_only, refuse
from .reductions import expand_reduced
from .shape import joined


def sinc_grad(g, x):
    """d sinc(x) / dx = (cos(pi x) - sinc(x)) / x, and 0 at x = 0."""
    x = np.asarray(x)
    safe = np.where(x == 0, np.ones_like(x), x)
    d = (np.cos(np.pi * safe) - np.sinc(safe)) / safe
    return g * np.where(x == 0, np.zeros_like(d), d)


def clip_grads(g, a, a_min, a_max):
    """(d a, d a_min, d a_max) of np.clip, which is minimum(maximum(a, a_min), a_max):
    ``g`` goes to whichever value was chosen, and a tie is split as np.maximum's and
    np.minimum's rules split it (half each)."""
    real_only(a, "np.clip")
    zero = np.zeros((), dtype=float_dtype(g))
    lifted = a if a_min is None else np.maximum(a, a_min)
    if a_max is None:
        kept, d_max = np.array(g, dtype=float_dtype(g)), None
    else:
        tie = np.where(np.equal(lifted, a_max), g * 0.5, zero)
        kept = np.where(np.less(lifted, a_max), g, zero) + tie
        # not g - kept: an infinite g would leave NaN where nothing reaches a_max
        d_max = np.where(np.less(lifted, a_max) | np.equal(lifted, a_max), zero, g) + tie
    if a_min is None:
        return kept, None, d_max
    tie = np.where(np.equal(a, a_min), kept * 0.5, zero)
    d_a = np.where(np.greater(a, a_min), kept, zero) + tie
    d_min = np.where(np.less(a, a_min), kept, zero) + tie
    return d_a, d_min, d_max


def clip_grad_a(g, a, a_min, a_max):
    return clip_grads(g, a, a_min, a_max)[0]


def clip_grad_min(g, a, a_min, a_max):
    return clip_grads(g, a, a_min, a_max)[1]


def clip_grad_max(g, a, a_min, a_max):
    return clip_grads(g, a, a_min, a_max)[2]


def where_grad(g, condition, branch):
    """The adjoint of one branch of np.where: ``g`` where it was chosen, else 0.
    Elementwise in all three (``branch`` is a bool in the rules; batched, an array)."""
    zero = np.zeros((), dtype=float_dtype(g))
    if branch is True or branch is False:
        cond = condition if branch else np.logical_not(condition)
    else:    # elementwise in every operand (the batching rule's table calls it so)
        cond = np.logical_not(np.logical_xor(condition, branch))
    # the elements of the branch not chosen are structural zeros (runtime/dropped.py)
    return dropped(np.where(cond, g, zero), np.logical_not(cond))


def imag_grad(g, x):
    """The adjoint of np.imag: -1j g for complex ``x`` (imag z = (z - conj z) / 2i);
    a real ``x`` has imag 0."""
    if np.iscomplexobj(x):
        return -1j * np.real(g)
    return np.zeros_like(g) if isinstance(g, np.ndarray) else 0.0 * g


def imag_grad_back(w, x):
    """The transpose of `imag_grad` in g: Re(-1j w) = Im(w) for complex ``x``, else 0."""
    if is_complex(x):
        return np.imag(w)
    return np.zeros_like(w, dtype=float_dtype(w)) if isinstance(w, np.ndarray) else 0.0 * w


def real_grad(g, x):
    """The adjoint of np.real: ``g`` itself (real, as np.real's result is)."""
    return np.real(g) if is_complex(g) else g


def astype_grad(g, x, dtype=None):
    """The adjoint of x.astype(dtype): ``g`` in x's dtype (its real part for a real x
    cast to complex); zero for an integer or bool ``dtype`` (truncation), which may be
    known only at run time (a dtype passed in)."""
    if exact_dtype(dtype):
        return zero_like(x)
    return as_adjoint(g, x)


def angle_grad(g, z, deg=False):
    """d angle(z) / dz = -1j / z for complex z (angle is Im log z); 0 for real z,
    where the angle is 0 or pi."""
    scale = 57.29577951308232 if deg else 1.0
    if is_complex(z):
        return np.real(g) * (-1j * scale) / z
    return as_adjoint(np.zeros(np.shape(z)) * g, z)


def angle_grad_dz(w, g, z, deg=False):
    """``angle_grad(g, z)``'s derivative in z along ``w``: d(-1j Re(g) / z) / dz = 1j Re(g)
    / z**2 (holomorphic in z; for real z, 0); its adjoint for z too (w the adjoint),
    and that of `forward_grads.angle_jvp`'s z (with w its tangent, g its adjoint)."""
    scale = 57.29577951308232 if deg else 1.0
    if is_complex(z):
        return w * np.real(g) * (1j * scale) / (z * z)
    return as_adjoint(np.zeros(np.shape(z)) * np.real(w), z)


def angle_grad_back(w, z, deg=False):
    """The transpose of ``angle_grad(g, z)`` in g: Re(w * -1j / z) (real: angle_grad
    reads the real part of g); for real z, 0."""
    scale = 57.29577951308232 if deg else 1.0
    if is_complex(z):
        return np.real(w * (-1j * scale) / z)
    return np.zeros(np.shape(z)) * np.real(w)


def real_if_close_grad(g, a):
    """np.real_if_close returns ``a`` or its real part: either way ``g`` itself."""
    return as_adjoint(as_array(g, a), a)


def nan_to_num_grads(g, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """(d x, d nan, d posinf, d neginf) of np.nan_to_num: ``g`` to the finite elements
    of ``x`` and, summed, to the value that replaced each kind of non-finite one. A
    complex ``x`` has its real and imaginary parts replaced apart."""
    if not copy and isinstance(x, np.ndarray):
        # x was repaired in place: where it was not finite is lost
        refuse("np.nan_to_num(..., copy=False) writes into its argument, so its "
               "derivative cannot be told", "leave copy=True (the default)")
    x = np.asarray(x)
    g = np.asarray(as_array(g, x))
    if is_complex(x):
        grad_x = np.where(np.isfinite(x.real), g.real, 0) \
            + 1j * np.where(np.isfinite(x.imag), g.imag, 0)
        # out = re + i im: a replaced real part pairs with Re g, an imaginary with -Im g
        parts = ((x.real, np.real(g)), (x.imag, -np.imag(g)))
    else:
        grad_x = np.where(np.isfinite(x), g, 0)
        parts = ((x, g),)

    def total(test):
        return np.asarray(sum(np.sum(np.where(test(v), gv, 0)) for v, gv in parts))
    return (as_adjoint(grad_x, x), as_adjoint(total(np.isnan), nan),
            None if posinf is None else as_adjoint(total(np.isposinf), posinf),
            None if neginf is None else as_adjoint(total(np.isneginf), neginf))


def select_grads(g, condlist, choicelist, default=0):
    """(d choicelist, d default) of np.select: ``g`` goes where each choice was taken,
    the first whose condition holds, and to ``default`` where none does."""
    free = np.ones(np.shape(g), dtype=bool)
    grads = []
    dtype = np.result_type(*[float_dtype(c) for c in choicelist], float_dtype(default))
    zero = np.zeros((), dtype=np.result_type(dtype, as_array(g, default)))
    for cond, choice in zip(condlist, choicelist):
        taken = free & cond
        free = free & ~np.asarray(cond, dtype=bool)
        grads.append(as_adjoint(tensor.sum_to_shape(np.where(taken, g, zero), np.shape(choice)),
                           choice))
    return (joined(grads, choicelist),
            as_adjoint(tensor.unbroadcast(np.where(free, g, zero), default), default))


def xlogy_grad_y(g, x, y):
    """d (x log y) / dy = x / y, and 0 where x is 0 (x log y is 0 there for every y)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.equal(x, 0), 0, g * np.divide(x, y))


def logsumexp_grads(g, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    """(d a, d b) of scipy.special.logsumexp: with S = sum b exp(a) and the result
    log |S|, d a = b exp(a) / S and d b = exp(a) / S (the sign is piecewise constant)."""
    real_only(a, "scipy.special.logsumexp")
    x = np.asarray(a)
    value, sign = (ans[0], ans[1]) if return_sign else (ans, None)
    gv = g[0] if return_sign else g
    ge = expand_reduced(gv, x, axis, keepdims)
    scale = np.exp(x - expand_reduced(value, x, axis, keepdims))
    if sign is not None:
        scale = scale * expand_reduced(sign, x, axis, keepdims)
    grad_a = ge * scale if b is None else ge * scale * b
    grad_b = None if b is None else \
        per_item(as_adjoint(tensor.sum_to_shape(ge * scale, np.shape(b)), b), b)
    return per_item(as_adjoint(grad_a, a), a), grad_b


def hypot_of(xs):
    """``math.hypot(*xs)`` of any number of coordinates (its own digits)."""
    return math.hypot(*xs)


def _ratios(xs, ans):
    """x / ans per coordinate: 0 at the origin (a kink: the subgradient 0, as for two
    coordinates and np.linalg.norm)."""
    if ans == 0:
        return [0.0 for _ in xs]
    with np.errstate(invalid="ignore", divide="ignore"):
        return [float(np.float64(x) / np.float64(ans)) for x in xs]


def hypot_of_grad(g, xs, ans):
    """The adjoint of the coordinates ``xs`` in ``math.hypot(*xs)``: ``g * x / ans``
    each (dividing first, as for two coordinates; 0 at the origin, as there)."""
    return pieces([g * r for r in _ratios(xs, ans)])


def hypot_of_tangent(t, xs, ans):
    """The tangent of ``math.hypot(*xs)`` for the coordinates' tangents ``t`` (a
    number zero: none)."""
    if np.ndim(t) == 0:
        return 0.0 * t
    return sum(ti * r for ti, r in zip(t, _ratios(xs, ans)))
