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
