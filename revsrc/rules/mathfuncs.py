"""Rules for the math module's gamma functions (``math.lgamma``, ``math.gamma``) and its
sum and product of a sequence (``math.fsum``, ``math.prod``).

The gamma functions are elementwise on Python floats; their derivatives need digamma,
which the math module lacks: revsrc/runtime/grads/mathfuncs.py computes it (SciPy is
not needed). fsum and prod take a list, tuple or 1-D array, like builtins.sum; their
adjoints come back one per item.
"""
import math

from . import kind_rules as KR
from ..core import kinds as K
from .register import elementwise, primitive
from ..runtime.grads import mathfuncs as _helpers

xp = math  # rebound per alias when a rule is inlined


@elementwise("lgamma", math.lgamma)
def lgamma(g, ans, x):
    return g * _helpers.digamma(x)


@elementwise("gamma", math.gamma)
def gamma(g, ans, x):
    return g * ans * _helpers.digamma(x)


# digamma on a float has a rule of its own (trigamma): Hessians of lgamma and gamma
@elementwise("math_digamma", _helpers.digamma)
def math_digamma(g, ans, x):
    return g * _helpers.trigamma(x)


@primitive("fsum", math.fsum, kind=KR.constant(K.FLOAT), linear=(0,))
def fsum(g, ans, iterable):
    return _helpers.fsum_grad(g, iterable)


@primitive("math_prod", math.prod)
def prod(g, ans, iterable, start=1):
    d = _helpers.prod_grads(g, ans, iterable, start)
    return d[0], d[1]
