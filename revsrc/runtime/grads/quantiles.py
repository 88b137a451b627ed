"""Adjoints of NumPy's quantiles (``np.quantile``, ``np.percentile``, their ``nan``
forms) with the linear method: the result is ``(1 - f) s[k] + f s[k + 1]`` for the
sorted lane ``s`` and the virtual index ``k + f = q (n - 1)`` (n counts the lane's
non-nan values for the nan forms), so the adjoint reaches the two order statistics,
with weights ``1 - f`` and ``f``. Elements tied with an order statistic share its
weight equally, as np.median's adjoint shares its middle elements.
"""
from __future__ import annotations

import numpy as np

from ..values import as_adjoint, as_array, float_dtype
from .common import real_only, refuse
from .reductions import _lanes, _share, expand_reduced


def _check(method, overwrite_input, what):
    if method != "linear":
        refuse(f"{what} with method={method!r} has no derivative rule",
               "use the default method='linear'")
    if overwrite_input:
        refuse(f"{what} with overwrite_input=True sorts its input in place, which "
               "revsrc does not follow", "leave overwrite_input=False")


def _order_statistics(lanes, q, nan):
    """For each quantile in ``q`` (already in [0, 1]): the values at the two order
    statistics of each lane, the weight of the upper one, and the lane's count."""
    s = np.sort(lanes, axis=-1)   # nans last
    n = lanes.shape[-1]
    count = np.sum(~np.isnan(lanes), axis=-1) if nan else np.full(lanes.shape[:-1], n)
    last = np.maximum(count - 1, 0)
    v = q.reshape(q.shape + (1,) * count.ndim) * last
    lo = np.clip(np.floor(v), 0, last).astype(np.intp)
    hi = np.minimum(lo + 1, last)
    frac = v - lo
    s_b = np.broadcast_to(s, q.shape + s.shape)
    s_lo = np.take_along_axis(s_b, lo[..., None], axis=-1)
    s_hi = np.take_along_axis(s_b, hi[..., None], axis=-1)
    return s_lo, s_hi, frac, last


def quantile_grads(g, ans, a, q, axis=None, out=None, overwrite_input=False,
                   method="linear", keepdims=False, scale=1.0, nan=False):
    """The adjoints of ``a`` and ``q`` of a quantile (``scale`` 100 for percentiles);
    ``g`` has the shape q's shape + the reduction's."""
    what = f"np.{'nan' if nan else ''}{'percentile' if scale != 1.0 else 'quantile'}"
    _check(method, overwrite_input, what)
    real_only(a, what)
    a = np.asarray(a)
    dtype = float_dtype(a, g)
    qa = np.asarray(q, dtype=np.float64) / scale
    lanes, back = _lanes(a, axis)
    s_lo, s_hi, frac, last = _order_statistics(lanes, qa, nan)
    g = as_array(g, a)
    gq = np.reshape(g, qa.shape + np.shape(ans)[qa.ndim:])
    grad = np.zeros(a.shape, dtype=dtype)
    for i in np.ndindex(qa.shape):
        f = frac[i][..., None]
        with np.errstate(invalid="ignore", divide="ignore"):
            w = (1.0 - f) * _share(lanes == s_lo[i], -1, dtype) + \
                f * _share(lanes == s_hi[i], -1, dtype)
        w = np.nan_to_num(w) if nan else \
            np.where(np.isnan(lanes).any(axis=-1, keepdims=True), np.nan, w)
        gi = expand_reduced(gq[i], a, axis, keepdims)
        contrib = back(w) * gi
        grad = grad + np.where(back(w) == 0, np.zeros((), contrib.dtype), contrib)
    per_q = (s_hi - s_lo)[..., 0] * last
    reduce_axes = tuple(range(qa.ndim, per_q.ndim))
    lane_shape = per_q.shape[qa.ndim:]
    gq_lanes = np.reshape(gq, qa.shape + lane_shape)
    q_bar = np.sum(gq_lanes * per_q, axis=reduce_axes) / scale
    return as_adjoint(grad, a), as_adjoint(q_bar, q)


# ----- The adjoints one at a time, and their derivatives (second order) -----
# For a fixed q the adjoint of ``a`` is piecewise constant in ``a`` (its weights
# change only where the sort order does) and linear in ``g``; it moves with q through
# the weight ``f``, whose derivative in q is the lane's ``n - 1``. The adjoint of q,
# g (s[k + 1] - s[k]) (n - 1), is linear in g and in the two order statistics, and
# piecewise constant in q.

def quantile_grad_a(g, ans, a, q, axis=None, out=None, overwrite_input=False,
                    method="linear", keepdims=False, scale=1.0, nan=False):
    """The adjoint of ``a`` of a quantile (`quantile_grads`' first)."""
    return quantile_grads(g, ans, a, q, axis, out, overwrite_input, method, keepdims,
                          scale, nan)[0]


def quantile_grad_q(g, ans, a, q, axis=None, out=None, overwrite_input=False,
                    method="linear", keepdims=False, scale=1.0, nan=False):
    """The adjoint of ``q`` of a quantile (`quantile_grads`' second)."""
    return quantile_grads(g, ans, a, q, axis, out, overwrite_input, method, keepdims,
                          scale, nan)[1]


def _setting(g, ans, a, q, axis, scale, nan):
    a = np.asarray(a)
    dtype = float_dtype(a, g)
    qa = np.asarray(q, dtype=np.float64) / scale
    lanes, back = _lanes(a, axis)
    s_lo, s_hi, _, last = _order_statistics(lanes, qa, nan)
    gq = np.reshape(as_array(g, a), qa.shape + np.shape(ans)[qa.ndim:])
    return a, dtype, qa, lanes, back, s_lo, s_hi, last, gq


def quantile_grad_a_dq(g, t, ans, a, q, axis=None, out=None, overwrite_input=False,
                       method="linear", keepdims=False, scale=1.0, nan=False):
    """The tangent of `quantile_grad_a` along q's tangent ``t``: each quantile's
    weights move by (n - 1) t / scale, from the lower order statistic to the upper."""
    a, dtype, qa, lanes, back, s_lo, s_hi, last, gq = _setting(g, ans, a, q, axis, scale,
                                                                 nan)
    tq = np.broadcast_to(np.asarray(t, dtype=np.float64) / scale, qa.shape)
    grad = np.zeros(a.shape, dtype=dtype)
    for i in np.ndindex(qa.shape):
        with np.errstate(invalid="ignore", divide="ignore"):
            dw = last[..., None] * (_share(lanes == s_hi[i], -1, dtype) -
                                    _share(lanes == s_lo[i], -1, dtype))
        dw = np.nan_to_num(dw) if nan else \
            np.where(np.isnan(lanes).any(axis=-1, keepdims=True), np.nan, dw)
        w = back(dw)
        contrib = w * expand_reduced(gq[i], a, axis, keepdims) * tq[i]
        grad = grad + np.where(w == 0, np.zeros((), contrib.dtype), contrib)
    return as_adjoint(grad, a)


def quantile_grad_q_da(g, t, ans, a, q, axis=None, out=None, overwrite_input=False,
                       method="linear", keepdims=False, scale=1.0, nan=False):
    """The tangent of `quantile_grad_q` along a's tangent ``t``: the tangents of the
    two order statistics (tied elements' shared) in place of their values."""
    a, dtype, qa, lanes, _, s_lo, s_hi, last, gq = _setting(g, ans, a, q, axis, scale, nan)
    t_lanes, _ = _lanes(np.broadcast_to(np.asarray(t, dtype=dtype), a.shape), axis)
    t_lo = np.zeros(qa.shape + lanes.shape[:-1], dtype=dtype)
    t_hi = np.zeros_like(t_lo)
    for i in np.ndindex(qa.shape):
        with np.errstate(invalid="ignore", divide="ignore"):
            t_lo[i] = np.sum(np.nan_to_num(_share(lanes == s_lo[i], -1, dtype)) * t_lanes,
                             axis=-1)
            t_hi[i] = np.sum(np.nan_to_num(_share(lanes == s_hi[i], -1, dtype)) * t_lanes,
                             axis=-1)
    per_q = (t_hi - t_lo) * last
    reduce_axes = tuple(range(qa.ndim, per_q.ndim))
    gq_lanes = np.reshape(gq, qa.shape + per_q.shape[qa.ndim:])
    return as_adjoint(np.sum(gq_lanes * per_q, axis=reduce_axes) / scale, q)


def quantile_grad_a_back(gbar, ans, a, q, axis=None, out=None, overwrite_input=False,
                         method="linear", keepdims=False, scale=1.0, nan=False):
    """The transpose of `quantile_grad_a` in its ``g``: each quantile's weights applied
    to ``gbar`` (a's cotangent), shaped as the quantile's result."""
    a = np.asarray(a)
    dtype = float_dtype(a, gbar)
    qa = np.asarray(q, dtype=np.float64) / scale
    lanes, _ = _lanes(a, axis)
    s_lo, s_hi, frac, _ = _order_statistics(lanes, qa, nan)
    t_lanes, _ = _lanes(np.broadcast_to(np.asarray(gbar, dtype=dtype), a.shape), axis)
    res = np.zeros(qa.shape + lanes.shape[:-1], dtype=dtype)
    for i in np.ndindex(qa.shape):
        f = frac[i][..., None]
        with np.errstate(invalid="ignore", divide="ignore"):
            w = (1.0 - f) * _share(lanes == s_lo[i], -1, dtype) + \
                f * _share(lanes == s_hi[i], -1, dtype)
        w = np.nan_to_num(w) if nan else \
            np.where(np.isnan(lanes).any(axis=-1, keepdims=True), np.nan, w)
        res[i] = np.sum(np.where(w == 0, np.zeros((), dtype), w * t_lanes), axis=-1)
    return np.reshape(res, np.shape(ans)) if np.ndim(ans) else res.reshape(())[()]


def quantile_grad_q_back(gbar, ans, a, q, axis=None, out=None, overwrite_input=False,
                         method="linear", keepdims=False, scale=1.0, nan=False):
    """The transpose of `quantile_grad_q` in its ``g``: q's cotangent ``gbar`` times
    (s[k + 1] - s[k]) (n - 1) / scale, shaped as the quantile's result."""
    a = np.asarray(a)
    dtype = float_dtype(a, gbar)
    qa = np.asarray(q, dtype=np.float64) / scale
    lanes, _ = _lanes(a, axis)
    s_lo, s_hi, _, last = _order_statistics(lanes, qa, nan)
    per_q = (s_hi - s_lo)[..., 0] * last
    gb = np.reshape(np.asarray(gbar, dtype=dtype), qa.shape + (1,) * (per_q.ndim - qa.ndim))
    res = gb * per_q / scale
    return np.reshape(res, np.shape(ans)) if np.ndim(ans) else res.reshape(())[()]
