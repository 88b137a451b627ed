"""Rules for NumPy's quantiles: ``np.quantile``, ``np.percentile``, ``np.nanquantile``
and ``np.nanpercentile``, with the linear method (NumPy's default; another method is
refused). The adjoint reaches the two order statistics each quantile interpolates
between (revsrc/runtime/grads/quantiles.py), as JAX's does; ``q`` has a derivative too
(the slope between them), one-sided where q falls on an order statistic.
"""
import numpy as np

from ..core.kinds import ANY, ARRAY, FLOAT, SCALARS
from .register import primitive
from ..runtime.grads import quantiles as _helpers

xp = np  # rebound per alias when a rule is inlined


def quantile_kind(op, ctx):
    """A float for one quantile of the whole array (NumPy's float64 scalar), else an
    array."""
    a_kind = ctx.kind(op.args[0])
    if a_kind == ANY:
        return ANY
    kw = dict(op.kwargs)
    q = op.args[1] if len(op.args) > 1 else kw.get("q")
    axis, keep = kw.get("axis"), kw.get("keepdims")
    whole = len(op.args) <= 2 and (axis is None or getattr(axis, "value", 0) is None) \
        and (keep is None or getattr(keep, "value", True) is False)
    if whole and q is not None and ctx.kind(q) in SCALARS:
        return FLOAT
    return ARRAY if a_kind == ARRAY else ANY


@primitive("quantile", np.quantile, kind=quantile_kind, jax="_jaxgen.quantile")
def quantile(g, ans, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    d = _helpers.quantile_grads(g, ans, a, q, axis, out, overwrite_input, method, keepdims)
    return d[0], d[1]


@primitive("percentile", np.percentile, kind=quantile_kind, jax="_jaxgen.percentile")
def percentile(g, ans, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    d = _helpers.quantile_grads(g, ans, a, q, axis, out, overwrite_input, method, keepdims,
                                100.0)
    return d[0], d[1]


@primitive("nanquantile", np.nanquantile, kind=quantile_kind, jax="_jaxgen.nanquantile")
def nanquantile(g, ans, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    d = _helpers.quantile_grads(g, ans, a, q, axis, out, overwrite_input, method, keepdims,
                                1.0, True)
    return d[0], d[1]


@primitive("nanpercentile", np.nanpercentile, kind=quantile_kind, jax="_jaxgen.nanpercentile")
def nanpercentile(g, ans, a, q, axis=None, out=None, overwrite_input=False,
                  method="linear", keepdims=False):
    d = _helpers.quantile_grads(g, ans, a, q, axis, out, overwrite_input, method, keepdims,
                                100.0, True)
    return d[0], d[1]
