"""jax.numpy twin of the quantiles' adjoint (revsrc/runtime/grads/quantiles.py), so a
``backend="jax"`` program with ``np.quantile``, ``np.percentile`` or their ``nan``
forms lowers. NumPy's helper loops over the quantiles in ``q`` and assigns into an
array; this one does every quantile at once with a leading axis, and gives the same
numbers: the two order statistics with weights ``1 - f`` and ``f``, ties sharing
them equally (where JAX's own quantile gradient goes to one of the tied elements).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ...runtime.grads import quantiles as _np_quantiles
from ...runtime.grads.reductions import reduced_axes


def _lanes(a, axis):
    """``a`` with the axes ``axis`` moved last and flattened into one, and the
    function that puts an array of that layout (with leading axes) back in ``a``'s."""
    axes = list(reduced_axes(axis, a.ndim))
    rest = [i for i in range(a.ndim) if i not in axes]
    moved = jnp.transpose(a, rest + axes)
    lanes = moved.reshape(moved.shape[:len(rest)] + (-1,))
    order = list(np.argsort(rest + axes))

    def back(x, lead=0):
        x = jnp.reshape(x, x.shape[:lead] + moved.shape)
        return jnp.transpose(x, list(range(lead)) + [lead + i for i in order])
    return lanes, back


def _share(hit, dtype):
    return hit.astype(dtype) / jnp.sum(hit, axis=-1, keepdims=True, dtype=dtype)


def quantile_grads(g, ans, a, q, axis=None, out=None, overwrite_input=False,
                   method="linear", keepdims=False, scale=1.0, nan=False):
    """jnp: the adjoints of ``a`` and ``q`` of a quantile, as NumPy's helper."""
    what = f"np.{'nan' if nan else ''}{'percentile' if scale != 1.0 else 'quantile'}"
    _np_quantiles._check(method, overwrite_input, what)
    a = jnp.asarray(a)
    if jnp.iscomplexobj(a):
        _np_quantiles.real_only(np.zeros(1, complex), what)
    dtype = a.dtype if jnp.issubdtype(a.dtype, jnp.floating) else jnp.float64
    qa = jnp.asarray(q, dtype=jnp.float64) / scale
    lanes, back = _lanes(a, axis)
    m = lanes.shape[-1]
    s = jnp.sort(lanes, axis=-1)     # nans last
    count = jnp.sum(~jnp.isnan(lanes), axis=-1) if nan else jnp.full(lanes.shape[:-1], m)
    last = jnp.maximum(count - 1, 0)
    v = qa.reshape(qa.shape + (1,) * last.ndim) * last
    lo = jnp.clip(jnp.floor(v), 0, last).astype(jnp.int32)
    hi = jnp.minimum(lo + 1, last)
    frac = (v - lo)[..., None]
    s_b = jnp.broadcast_to(s, qa.shape + s.shape)
    s_lo = jnp.take_along_axis(s_b, lo[..., None], axis=-1)
    s_hi = jnp.take_along_axis(s_b, hi[..., None], axis=-1)
    lanes_b = jnp.broadcast_to(lanes, qa.shape + lanes.shape)
    w = (1.0 - frac) * _share(lanes_b == s_lo, dtype) + frac * _share(lanes_b == s_hi, dtype)
    if nan:
        w = jnp.nan_to_num(w)
    else:
        w = jnp.where(jnp.isnan(lanes).any(axis=-1, keepdims=True), jnp.nan, w)
    # the cotangent of each quantile, one per lane (keepdims' length-1 axes included)
    g_lanes = jnp.reshape(jnp.asarray(g, dtype=dtype), qa.shape + lanes.shape[:-1])
    contrib = w * g_lanes[..., None]
    contrib = jnp.where(w == 0, jnp.zeros((), contrib.dtype), contrib)  # 0, not 0 * inf
    grad = back(jnp.sum(contrib, axis=tuple(range(qa.ndim))))
    per_q = (s_hi - s_lo)[..., 0] * last
    q_bar = jnp.sum(g_lanes * per_q, axis=tuple(range(qa.ndim, per_q.ndim))) / scale
    grad = grad.astype(dtype)
    return grad, (q_bar if np.ndim(q) else jnp.reshape(q_bar, ()))


def quantile_grad_a(g, ans, a, q, axis=None, out=None, overwrite_input=False,
                    method="linear", keepdims=False, scale=1.0, nan=False):
    """jnp: the adjoint of ``a`` alone (the rules call the two adjoints apart)."""
    return quantile_grads(g, ans, a, q, axis, out, overwrite_input, method, keepdims,
                          scale, nan)[0]


def quantile_grad_q(g, ans, a, q, axis=None, out=None, overwrite_input=False,
                    method="linear", keepdims=False, scale=1.0, nan=False):
    """jnp: the adjoint of ``q`` alone."""
    return quantile_grads(g, ans, a, q, axis, out, overwrite_input, method, keepdims,
                          scale, nan)[1]


TWINS = {"quantile_grads": quantile_grads, "quantile_grad_a": quantile_grad_a,
         "quantile_grad_q": quantile_grad_q}


def _forward(jnp_fn):
    def twin(a, q, *args, **kwargs):
        # jnp's quantiles take q as an array only (NumPy's a list too)
        return jnp_fn(a, jnp.asarray(q), *args, **kwargs)
    twin.__name__ = jnp_fn.__name__
    return twin


# what np.quantile and its kin lower to (printed as _jaxgen.<name>)
FORWARD = [_forward(f) for f in (jnp.quantile, jnp.percentile, jnp.nanquantile,
                                 jnp.nanpercentile)]
