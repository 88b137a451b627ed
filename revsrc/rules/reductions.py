"""Rules for reductions (``axis`` an int, a tuple or None; ``keepdims``) and scans.

max and min send the adjoint to every element equal to the result, split equally
among ties (as HIPS autograd does), so the gradient of a tied maximum is the average
of the one-sided ones; median and the norms built on maxima (ord inf, 1 and 2 of
matrices) share ties the same way.
"""
import builtins

import numpy as np

from . import kind_rules as KR
from ..primitives import NUMPY, declare
from .register import jvp_rule, primitive
from ..runtime import forward_grads as _forward
from ..runtime.grads import reductions as _helpers

# ----- Sums and means -----


# where= masks what is summed (``np.where`` of the constant True folds away: a sum
# without it inlines as before); initial= is added to every sum.
@primitive("sum", np.sum, kind=KR.reduction_kind, linear=(0, 4), complex_ok=True)
def sum_(g, ans, a, axis=None, dtype=None, keepdims=False, initial=None, where=True):
    return (np.where(where, _helpers.broadcast_reduced(g, a, axis, keepdims), 0), None, None,
            None, np.sum(g), None)


declare(np.sum, effect_free=True)


@primitive("builtin_sum", builtins.sum, linear=(0, 1), complex_ok=True)
def builtin_sum(g, ans, iterable, start=0):
    return _helpers.sum_list_grad(g, iterable), g


# (where= given: its own helper; ``where is True`` folds while transforming, so a mean
# without it inlines mean_grad alone, as before)
@primitive("mean", np.mean, kind=KR.reduction_kind, linear=(0,), complex_ok=True)
def mean(g, ans, a, axis=None, dtype=None, keepdims=False, where=True):
    return np.where(where is True, _helpers.mean_grad(g, ans, a, axis, keepdims),
                    _helpers.mean_where_grad(g, ans, a, axis, keepdims, where))


declare(np.mean, effect_free=True)


@primitive("prod", np.prod, kind=KR.reduction_kind, complex_ok=True)
def prod(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.prod_grad(g, ans, a, axis, keepdims)


@jvp_rule("prod")
def prod_jvp(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _forward.prod_jvp(g, ans, a, axis, keepdims)


# ----- Extrema -----


@primitive("nansum", np.nansum, kind=KR.reduction_kind, complex_ok=True)
def nansum(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.nansum_grad(g, a, axis, keepdims)


@primitive("nanmean", np.nanmean, kind=KR.reduction_kind, complex_ok=True)
def nanmean(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.nanmean_grad(g, a, axis, keepdims)


# Forward mode: the nans skipped are skipped in the tangent too (their tangent, nan
# times a partial, would make the sum nan); a nan tangent of a kept element stays.
@jvp_rule("nansum")
def nansum_jvp(g, ans, a, axis=None, dtype=None, keepdims=False):
    return np.sum(np.where(np.isnan(a), 0.0, g), axis=axis, keepdims=keepdims)


@jvp_rule("nanmean")
def nanmean_jvp(g, ans, a, axis=None, dtype=None, keepdims=False):
    kept = np.logical_not(np.isnan(a))
    return np.sum(np.where(kept, g, 0.0), axis=axis, keepdims=keepdims) / \
        np.sum(kept, axis=axis, keepdims=keepdims)


# With ``returned`` the result is (average, sum of weights), and ``g`` a pair.
@primitive("average", np.average, kind=KR.average_kind, complex_ok=True)
def average(g, ans, a, axis=None, weights=None, returned=False, keepdims=False):
    d = _helpers.average_grads(g, ans, a, axis, weights, returned, keepdims)
    return d[0], None, d[1]


# ----- Extrema and order statistics -----

# initial= and where= (their own helpers): ``(where is True) > (initial is not None)``,
# true for neither given, folds while transforming, so a plain np.max inlines as before
@primitive("extremum", np.max, np.amax, np.min, np.amin, kind=KR.reduction_kind)
def extremum(g, ans, a, axis=None, keepdims=False, initial=None, where=True):
    return (np.where((where is True) > (initial is not None),
                     _helpers.extremum_grad(g, ans, a, axis, keepdims),
                     _helpers.extremum_where_grad(g, ans, a, axis, keepdims, initial, where)),
            None, None,
            _helpers.extremum_where_grad(g, ans, a, axis, keepdims, initial, where, 1), None)


@jvp_rule("extremum")
def extremum_jvp(g, ans, a, axis=None, keepdims=False, initial=None, where=True):
    return (np.where((where is True) > (initial is not None),
                     _forward.extremum_jvp(g, ans, a, axis, keepdims),
                     _forward.extremum_where_jvp(g, ans, a, axis, keepdims, initial, where)),
            None, None,
            _forward.extremum_where_jvp(g, ans, a, axis, keepdims, initial, where, 1), None)


# np.nanmax and np.nanmin: a NaN never equals the result, so it gets no share of the
# adjoint (a slice of NaNs alone, whose result is NaN, gets NaNs), and its tangent, NaN
# or not, is skipped as the element is (JAX's: the extremum over NaNs replaced)
@primitive("nan_extremum", np.nanmax, np.nanmin, kind=KR.reduction_kind)
def nan_extremum(g, ans, a, axis=None, keepdims=False, initial=None, where=True):
    return (np.where((where is True) > (initial is not None),
                     _helpers.extremum_grad(g, ans, a, axis, keepdims),
                     _helpers.extremum_where_grad(g, ans, a, axis, keepdims, initial, where)),
            None, None,
            _helpers.extremum_where_grad(g, ans, a, axis, keepdims, initial, where, 1), None)


@jvp_rule("nan_extremum")
def nan_extremum_jvp(g, ans, a, axis=None, keepdims=False, initial=None, where=True):
    t = np.where(np.isnan(a), 0.0, g)
    return (np.where((where is True) > (initial is not None),
                     _forward.extremum_jvp(t, ans, a, axis, keepdims),
                     _forward.extremum_where_jvp(t, ans, a, axis, keepdims, initial, where)),
            None, None,
            _forward.extremum_where_jvp(g, ans, a, axis, keepdims, initial, where, 1), None)


@primitive("median", np.median, kind=KR.reduction_kind)
def median(g, ans, a, axis=None, keepdims=False):
    return _helpers.median_grad(g, ans, a, axis, keepdims)


# ----- Moments -----

# mean= (NumPy 2.0): the mean given, an input of its own (``mean is None`` folds while
# transforming: np.var without it inlines var_grad alone, as before)
@primitive("var", np.var, kind=KR.reduction_kind, complex_ok=True)
def var(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False, mean=None):
    return (np.where(mean is None, _helpers.var_grad(g, a, axis, ddof, keepdims),
                     _helpers.var_mean_grad(g, a, mean, axis, ddof, keepdims, 0)),
            None, None, None, None, _helpers.var_mean_grad(g, a, mean, axis, ddof, keepdims, 1))


@jvp_rule("var")
def var_jvp(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False, mean=None):
    return (np.where(mean is None, _forward.var_jvp(g, ans, a, axis, ddof, keepdims),
                     _forward.var_mean_jvp(g, ans, a, mean, axis, ddof, keepdims, 0)),
            None, None, None, None,
            _forward.var_mean_jvp(g, ans, a, mean, axis, ddof, keepdims, 1))


@primitive("std", np.std, kind=KR.reduction_kind, complex_ok=True)
def std(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False):
    return _helpers.std_grad(g, ans, a, axis, ddof, keepdims)


@jvp_rule("std")
def std_jvp(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False):
    return _forward.std_jvp(g, ans, a, axis, ddof, keepdims)


# fweights count observations: integers, with no derivative.
@primitive("cov", np.cov, kind=KR.array_kind, complex_ok=True)
def cov(g, ans, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
        aweights=None, dtype=None):
    d = _helpers.cov_grads(g, ans, m, y, rowvar, bias, ddof, aweights, fweights)
    return d[0], d[1], None, None, None, None, d[2]


# ----- Scans -----

@primitive("cumsum", np.cumsum, kind=KR.array_kind, linear=(0,), complex_ok=True)
def cumsum(g, ans, a, axis=None, dtype=None):
    return _helpers.cumsum_grad(g, a, axis)


@primitive("cumprod", np.cumprod, kind=KR.array_kind, complex_ok=True)
def cumprod(g, ans, a, axis=None, dtype=None):
    return _helpers.cumprod_grad(g, ans, a, axis)


@jvp_rule("cumprod")
def cumprod_jvp(g, ans, a, axis=None, dtype=None):
    return _forward.cumprod_jvp(g, ans, a, axis)


@primitive("maximum.accumulate", np.maximum.accumulate, kind=KR.array_kind, family=NUMPY,
           jax="jax.lax.cummax")
def maximum_accumulate(g, ans, array, axis=0, dtype=None):
    return _helpers.accumulate_extremum_grad(g, ans, array, axis, True)


@primitive("minimum.accumulate", np.minimum.accumulate, kind=KR.array_kind, family=NUMPY,
           jax="jax.lax.cummin")
def minimum_accumulate(g, ans, array, axis=0, dtype=None):
    return _helpers.accumulate_extremum_grad(g, ans, array, axis, False)


# ----- Norms -----

# Every ord NumPy computes: vector p-norms (inf, -inf, 0 and negative p too), and the
# matrix norms 'fro', 'nuc', 1, -1, inf, -inf, 2 and -2.
@primitive("norm", np.linalg.norm, kind=KR.norm_kind, complex_ok=True)
def norm(g, ans, x, ord=None, axis=None, keepdims=False):
    return _helpers.norm_grad(g, ans, x, ord, axis, keepdims)


@jvp_rule("norm")
def norm_jvp(g, ans, x, ord=None, axis=None, keepdims=False):
    return _forward.norm_jvp(g, ans, x, ord, axis, keepdims)
