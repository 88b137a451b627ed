"""Rules for reductions (``axis`` an int, a tuple or None; ``keepdims``) and scans.

max and min send the adjoint to every element equal to the result, split equally
among ties (as HIPS autograd does), so the gradient of a tied maximum is the average
of the one-sided ones.
"""
import builtins

import numpy as np

from .. import kinds as K
from ..primitives import jvp_rule, primitive
from . import _forward, _helpers

# ----- Sums and means -----


@primitive("sum", np.sum, kind=K.reduction_kind, linear=(0,))
def sum_(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.broadcast_reduced(g, a, axis, keepdims)


@primitive("builtin_sum", builtins.sum, linear=(0, 1))
def builtin_sum(g, ans, iterable, start=0):
    return _helpers.sum_list_grad(g, iterable), g


@primitive("mean", np.mean, kind=K.reduction_kind, linear=(0,))
def mean(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.mean_grad(g, ans, a, axis, keepdims)


@primitive("prod", np.prod, kind=K.reduction_kind)
def prod(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.prod_grad(g, ans, a, axis, keepdims)


@jvp_rule("prod")
def prod_jvp(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _forward.prod_jvp(g, ans, a, axis, keepdims)


# ----- Extrema -----

@primitive("extremum", np.max, np.amax, np.min, np.amin, kind=K.reduction_kind)
def extremum(g, ans, a, axis=None, keepdims=False):
    return _helpers.extremum_grad(g, ans, a, axis, keepdims)


@jvp_rule("extremum")
def extremum_jvp(g, ans, a, axis=None, keepdims=False):
    return _forward.extremum_jvp(g, ans, a, axis, keepdims)


# ----- Moments -----

@primitive("var", np.var, kind=K.reduction_kind)
def var(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False):
    return _helpers.var_grad(g, a, axis, ddof, keepdims)


@jvp_rule("var")
def var_jvp(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False):
    return _forward.var_jvp(g, ans, a, axis, ddof, keepdims)


@primitive("std", np.std, kind=K.reduction_kind)
def std(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False):
    return _helpers.std_grad(g, ans, a, axis, ddof, keepdims)


@jvp_rule("std")
def std_jvp(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False):
    return _forward.std_jvp(g, ans, a, axis, ddof, keepdims)


# ----- Scans -----

@primitive("cumsum", np.cumsum, kind=K.array_kind, linear=(0,))
def cumsum(g, ans, a, axis=None, dtype=None):
    return _helpers.cumsum_grad(g, a, axis)


@primitive("cumprod", np.cumprod, kind=K.array_kind)
def cumprod(g, ans, a, axis=None, dtype=None):
    return _helpers.cumprod_grad(g, ans, a, axis)


@jvp_rule("cumprod")
def cumprod_jvp(g, ans, a, axis=None, dtype=None):
    return _forward.cumprod_jvp(g, ans, a, axis)


# ----- Norms -----

@primitive("norm", np.linalg.norm, kind=K.norm_kind)
def norm(g, ans, x, ord=None, axis=None, keepdims=False):
    return _helpers.norm_grad(g, ans, x, ord, axis, keepdims)


@jvp_rule("norm")
def norm_jvp(g, ans, x, ord=None, axis=None, keepdims=False):
    return _forward.norm_jvp(g, ans, x, ord, axis, keepdims)
