"""Rules for reductions (``axis`` an int, a tuple or None; ``keepdims``) and scans.

max and min send the adjoint to every element equal to the result, split equally
among ties (as HIPS autograd does), so the gradient of a tied maximum is the average
of the one-sided ones.
"""
import builtins

import numpy as np

from . import _helpers, vjp

# ----- Sums and means -----


@vjp(np.sum)
def sum_(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.broadcast_reduced(g, a, axis, keepdims)


@vjp(builtins.sum)
def builtin_sum(g, ans, iterable, start=0):
    return _helpers.sum_list_grad(g, iterable), g


@vjp(np.mean)
def mean(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.mean_grad(g, ans, a, axis, keepdims)


@vjp(np.prod)
def prod(g, ans, a, axis=None, dtype=None, keepdims=False):
    return _helpers.prod_grad(g, ans, a, axis, keepdims)


# ----- Extrema -----

@vjp(np.max, np.amax, np.min, np.amin)
def extremum(g, ans, a, axis=None, keepdims=False):
    return _helpers.extremum_grad(g, ans, a, axis, keepdims)


# ----- Moments -----

@vjp(np.var)
def var(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False):
    return _helpers.var_grad(g, a, axis, ddof, keepdims)


@vjp(np.std)
def std(g, ans, a, axis=None, dtype=None, ddof=0, keepdims=False):
    return _helpers.std_grad(g, ans, a, axis, ddof, keepdims)


# ----- Scans -----

@vjp(np.cumsum)
def cumsum(g, ans, a, axis=None, dtype=None):
    return _helpers.cumsum_grad(g, a, axis)


@vjp(np.cumprod)
def cumprod(g, ans, a, axis=None, dtype=None):
    return _helpers.cumprod_grad(g, ans, a, axis)


# ----- Norms -----

@vjp(np.linalg.norm)
def norm(g, ans, x, ord=None, axis=None, keepdims=False):
    return _helpers.norm_grad(g, ans, x, ord, axis, keepdims)
