"""Adjoints of differences, integrals, interpolation, polynomials and convolution
(np.diff, np.gradient, np.trapezoid, np.interp, np.polyval, np.convolve): each is
linear in its array, and its adjoint is the transposed stencil or weights."""
from __future__ import annotations

import numpy as np

from .. import tensor
from ..values import as_adjoint, as_array, float_dtype, per_item
from .common import refuse
from .shape import joined


def _along(x, axis):
    """A view of ``x`` with ``axis`` last."""
    return np.moveaxis(x, axis, -1)


def diff_grads(g, a, n=1, axis=-1, prepend=None, append=None):
    """(d a, d prepend, d append) of np.diff: each difference's adjoint is minus one
    of the next (x_i gets g_{i-1} - g_i), applied ``n`` times to the joined array."""
    x = np.asarray(a)
    axis = axis % x.ndim
    gm = _along(np.asarray(as_array(g, x)), axis)
    for _ in range(n):
        zero = np.zeros(gm.shape[:-1] + (1,), dtype=gm.dtype)
        gm = -np.diff(np.concatenate([zero, gm, zero], axis=-1), axis=-1)
    pre = 0 if prepend is None else (1 if np.ndim(prepend) == 0 else
                                      np.shape(prepend)[axis])
    grads = [gm[..., pre:pre + x.shape[axis]]]
    for extra, span in ((prepend, slice(0, pre)), (append, slice(pre + x.shape[axis], None))):
        if extra is None:
            grads.append(None)
            continue
        part = np.moveaxis(gm[..., span], -1, axis)
        part = np.sum(part) if np.ndim(extra) == 0 else part
        grads.append(per_item(as_adjoint(np.asarray(part), extra), extra))
    grads[0] = as_adjoint(np.moveaxis(grads[0], -1, axis), a)
    return tuple(grads)


def diff_grad(g, a, n=1, axis=-1, prepend=None, append=None, part=0):
    """The adjoint of np.diff for one input (`diff_grads`: ``part`` 0 the array, 1
    prepend, 2 append): a function of its own, linear in ``g``, so that a derivative
    through np.diff is differentiated again (its rules: `diff_grad_back`)."""
    return diff_grads(g, a, n, axis, prepend, append)[part]


def diff_grad_back(c, a, n=1, axis=-1, prepend=None, append=None, part=0):
    """The transpose of `diff_grad` in its adjoint: ``c`` placed at its ``part`` of the
    array np.diff joins (spread along the axis where prepend or append is a number),
    zeros elsewhere, and differenced ``n`` times as np.diff does."""
    x = np.asarray(a)
    axis = axis % x.ndim
    slots = []
    for k, extra in ((1, prepend), (0, a), (2, append)):
        if extra is None:
            continue
        span = x.shape[axis] if k == 0 else (1 if np.ndim(extra) == 0 else np.shape(extra)[axis])
        shape = x.shape[:axis] + (span,) + x.shape[axis + 1:]
        slot = np.zeros(shape, dtype=np.result_type(c, float))
        if k == part:
            slot[...] = c
        slots.append(slot)
    return np.diff(np.concatenate(slots, axis=axis), n=n, axis=axis)


def _stencil(n, spacing, edge_order):
    """np.gradient's three-point stencil along an axis of ``n`` points, as coefficient
    rows (before, at, after) for the interior and the two edges."""
    if np.ndim(spacing) == 0:
        dx = np.full(n - 1, float(spacing))
    else:
        dx = np.diff(np.asarray(spacing, dtype=np.float64))
    d1, d2 = dx[:-1], dx[1:]
    inner = (-d2 / (d1 * (d1 + d2)), (d2 - d1) / (d1 * d2), d1 / (d2 * (d1 + d2)))
    if edge_order == 1:
        first = (-1.0 / dx[0], 1.0 / dx[0], 0.0)          # at 0, 1, 2
        last = (0.0, -1.0 / dx[-1], 1.0 / dx[-1])          # at n-3, n-2, n-1
    else:
        a, b = dx[0], dx[1]
        first = (-(2 * a + b) / (a * (a + b)), (a + b) / (a * b), -a / (b * (a + b)))
        a, b = dx[-2], dx[-1]
        last = (b / (a * (a + b)), -(a + b) / (a * b), (2 * b + a) / (b * (a + b)))
    return inner, first, last


def _gradient_axis_adjoint(gm, spacing, edge_order):
    """The adjoint of one axis of np.gradient, that axis last in ``gm``."""
    n = gm.shape[-1]
    inner, first, last = _stencil(n, spacing, edge_order)
    out = np.zeros(gm.shape, dtype=gm.dtype)
    mid = gm[..., 1:-1]
    out[..., :-2] += mid * inner[0].astype(gm.real.dtype)
    out[..., 1:-1] += mid * inner[1].astype(gm.real.dtype)
    out[..., 2:] += mid * inner[2].astype(gm.real.dtype)
    for k, c in enumerate(first):
        if k < n:
            out[..., k] += gm[..., 0] * c
    for k, c in enumerate(last):
        if n - 3 + k >= 0:
            out[..., n - 3 + k] += gm[..., -1] * c
    return out


def _gradient_layout(f, spacings, axis):
    """np.gradient's axes and the spacing of each (a number or coordinates)."""
    nd = np.ndim(f)
    axes = list(range(nd)) if axis is None else \
        [int(i) % nd for i in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    given = [s for s in spacings if s is not None]
    if not given:
        given = [1.0] * len(axes)
    elif len(given) == 1:
        given = given * len(axes)
    return axes, given


def gradient_grad(g, f, s0=None, s1=None, s2=None, s3=None, axis=None, edge_order=1):
    """The adjoint of np.gradient for ``f``: each axis's stencil transposed."""
    x = np.asarray(f)
    axes, spacing = _gradient_layout(x, (s0, s1, s2, s3), axis)
    outs = [g] if len(axes) == 1 else list(g)
    grad = np.zeros(x.shape, dtype=np.result_type(float_dtype(x), *[
        as_array(o, x) for o in outs]))
    for ax, h, go in zip(axes, spacing, outs):
        gm = _along(np.broadcast_to(as_array(go, x), x.shape), ax)
        grad = grad + np.moveaxis(_gradient_axis_adjoint(gm, h, edge_order), -1, ax)
    return as_adjoint(grad, f)


def gradient_spacing_grad(g, ans, f, which, s0=None, s1=None, s2=None, s3=None,
                          axis=None):
    """The adjoint of np.gradient for its spacing argument ``which``: a number h scales
    the result along its axes by 1/h; coordinates have no rule."""
    spacing = (s0, s1, s2, s3)[which]
    if np.ndim(spacing) != 0:
        refuse("np.gradient's coordinate arrays have no derivative rule",
               "differentiate with respect to the values only, or pass a uniform "
               "spacing as a number")
    axes, _ = _gradient_layout(f, (s0, s1, s2, s3), axis)
    given = [s for s in (s0, s1, s2, s3) if s is not None]
    mine = range(len(axes)) if len(given) == 1 else [which]
    outs = [g] if len(axes) == 1 else list(g)
    vals = [ans] if len(axes) == 1 else list(ans)
    total = sum(np.sum(outs[k] * vals[k]) for k in mine)
    return as_adjoint(np.asarray(-total / spacing), spacing)


def _trapezoid_parts(g, y, x, dx, axis):
    """(y along its last axis, g with an axis for it, the spacings, the axis)."""
    yv = np.asarray(y)
    axis = axis % yv.ndim
    ym = _along(yv, axis)
    ge = np.asarray(as_array(g, yv))[..., None]
    if x is None:
        d = np.full(ym.shape[-1] - 1, dx)
    else:
        xv = np.asarray(x)
        d = np.diff(xv) if xv.ndim == 1 else _along(np.diff(xv, axis=axis), axis)
    return ym, ge, d, axis


def trapezoid_grad_y(g, y, x=None, dx=1.0, axis=-1):
    """d y of np.trapezoid, sum_i d_i (y_i + y_(i+1)) / 2: linear in g, and reading y
    for its shape alone (a second derivative in y is zero)."""
    ym, ge, d, axis = _trapezoid_parts(g, y, x, dx, axis)
    zero = np.zeros(np.shape(d)[:-1] + (1,), dtype=np.result_type(d, float))
    padded = np.concatenate([zero, d, zero], axis=-1) if np.ndim(d) else d
    grad_y = ge * (padded[..., :-1] + padded[..., 1:]) / 2
    return as_adjoint(np.moveaxis(np.broadcast_to(grad_y, ym.shape), -1, axis), y)


def trapezoid_grads_x(g, y, x=None, dx=1.0, axis=-1):
    """(d x, d dx) of np.trapezoid (None for the one not given)."""
    ym, ge, d, axis = _trapezoid_parts(g, y, x, dx, axis)
    n = ym.shape[-1]
    halves = (ym[..., :-1] + ym[..., 1:]) / 2
    grad_x = grad_dx = None
    if x is not None:
        zero = np.zeros(halves.shape[:-1] + (1,), dtype=halves.dtype)
        gx = -np.diff(np.concatenate([zero, halves, zero], axis=-1), axis=-1) * ge
        if np.ndim(x) == 1:
            gx = np.sum(gx.reshape(-1, n), axis=0)
        else:
            gx = np.moveaxis(gx, -1, axis)
        grad_x = per_item(as_adjoint(gx, x), x)
    elif dx is not None:
        grad_dx = as_adjoint(np.asarray(np.sum(ge * halves)), dx)
    return grad_x, grad_dx


def interp_grads(g, x, xp, fp, left=None, right=None, period=None):
    """(d x, d xp, d fp, d left, d right) of np.interp: on segment j,
    f = fp_j + s (x - xp_j) with slope s. At a knot the segment to its right is used
    (the last knot: the one to its left); outside the knots, the end value."""
    xv = np.asarray(x, dtype=np.float64)
    knots = np.asarray(xp, dtype=np.float64)
    values = np.asarray(fp)
    order = None
    if period is not None:
        period = abs(period)
        xv = xv % period
        order = np.argsort(knots % period)
        knots = (knots % period)[order]
        knots = np.concatenate([knots[-1:] - period, knots, knots[:1] + period])
        values = np.concatenate([values[order][-1:], values[order], values[order][:1]])
        left = right = None
    gv = np.broadcast_to(np.asarray(as_array(g, values)), xv.shape)
    n = knots.shape[0]
    fdt = np.result_type(values, np.float64)
    bar_fp = np.zeros(n, dtype=np.result_type(fdt, gv))
    bar_xp = np.zeros(n, dtype=np.result_type(fdt, gv))
    below, above = xv < knots[0], xv > knots[-1]
    if n == 1:
        grad_x = np.zeros(xv.shape, dtype=bar_fp.dtype)
        bar_fp[0] += np.sum(gv[xv == knots[0]])
    else:
        inside = ~below & ~above
        j = np.clip(np.searchsorted(knots, xv, side="right") - 1, 0, n - 2)
        x0, x1 = knots[j], knots[j + 1]
        slope = (values[j + 1] - values[j]) / (x1 - x0)
        t = (xv - x0) / (x1 - x0)
        gin = np.where(inside, gv, 0)
        grad_x = gin * slope
        np.add.at(bar_fp, j, gin * (1 - t))
        np.add.at(bar_fp, j + 1, gin * t)
        np.add.at(bar_xp, j, -gin * slope * (1 - t))
        np.add.at(bar_xp, j + 1, -gin * slope * t)
    grad_left = grad_right = None
    for side, mask, end in ((0, below, left), (-1, above, right)):
        total = np.sum(gv[mask])
        if end is None:
            bar_fp[side] += total
        elif side == 0:
            grad_left = as_adjoint(np.asarray(total), left)
        else:
            grad_right = as_adjoint(np.asarray(total), right)
    if order is not None:
        # the ends copied the last and first knots: their adjoints go back there
        fold_fp = bar_fp[1:-1].copy()
        fold_fp[-1] += bar_fp[0]
        fold_fp[0] += bar_fp[-1]
        fold_xp = bar_xp[1:-1].copy()
        fold_xp[-1] += bar_xp[0]
        fold_xp[0] += bar_xp[-1]
        bar_fp = np.empty_like(fold_fp)
        bar_fp[order] = fold_fp
        bar_xp = np.empty_like(fold_xp)
        bar_xp[order] = fold_xp
    return (as_adjoint(grad_x, x), per_item(as_adjoint(bar_xp, xp), xp),
            per_item(as_adjoint(bar_fp, fp), fp), grad_left, grad_right)


def interp_period_grad(period):
    refuse("np.interp has no derivative rule for its period",
           "differentiate with respect to x, xp or fp only")


def _horner(g, p, x):
    """(the coefficients as arrays, the partial sums of Horner's rule y <- y x + p_k,
    g as an array, x as an array)."""
    coeffs = [np.asarray(c) for c in np.asarray(p)] if not isinstance(p, (list, tuple)) \
        else [np.asarray(c) for c in p]
    xv = np.asarray(x)
    partial = [np.zeros_like(xv)]
    for c in coeffs[:-1]:
        partial.append(partial[-1] * xv + c)
    return coeffs, partial, np.asarray(as_array(g, xv, *coeffs)), xv


def polyval_grad_p(g, p, x):
    """d p of np.polyval: g x^(n-1-k) summed to each coefficient's shape. Linear in g,
    and reading p for its shape alone (a second derivative in p is zero)."""
    coeffs, _, bar, xv = _horner(g, p, x)
    bar_p = []
    for k in range(len(coeffs) - 1, -1, -1):
        bar_p.append(tensor.sum_to_shape(bar, coeffs[k].shape))
        bar = bar * xv
    bar_p.reverse()
    return joined(bar_p, p) if isinstance(p, (list, tuple)) else \
        as_adjoint(np.asarray(bar_p).reshape(np.shape(p)), p)


def polyval_grad_x(g, p, x):
    """d x of np.polyval, which is Horner's rule y <- y x + p_k."""
    coeffs, partial, bar, xv = _horner(g, p, x)
    bar_x = np.zeros(np.broadcast_shapes(bar.shape, xv.shape), dtype=np.result_type(
        bar, float_dtype(xv)))
    for k in range(len(coeffs) - 1, -1, -1):
        bar_x = bar_x + bar * partial[k]
        bar = bar * xv
    return as_adjoint(tensor.unbroadcast(bar_x, x), x)


def _convolve_full(g, n, m, mode):
    """The adjoint of np.convolve's output ``mode`` as an adjoint of its full output."""
    full = n + m - 1
    if mode == "full":
        return g
    start = (min(n, m) - 1) // 2 if mode == "same" else min(n, m) - 1
    out = np.zeros(full, dtype=g.dtype)
    out[start:start + g.shape[0]] = g
    return out


def convolve_grads(g, a, v, mode="full"):
    """(d a, d v) of np.convolve: correlations of the full output's adjoint."""
    av, vv = np.atleast_1d(np.asarray(a)), np.atleast_1d(np.asarray(v))
    gf = _convolve_full(np.asarray(as_array(g, av, vv)), av.shape[0], vv.shape[0], mode)
    grad_a = np.convolve(gf, vv[::-1], "valid")
    grad_v = np.convolve(gf, av[::-1], "valid")
    return (as_adjoint(np.reshape(grad_a, np.shape(a)), a),
            as_adjoint(np.reshape(grad_v, np.shape(v)), v))
