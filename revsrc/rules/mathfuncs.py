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
from ..primitives import declare
from .register import elementwise, jvp_rule, primitive
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
    return (_helpers.prod_items_grad(g, iterable, start),
            _helpers.prod_start_grad(g, iterable, start))


# ----- Second derivatives: the adjoints above have rules of their own -----

def _like(index):
    """The kind and rank of argument ``index`` (the items' adjoints are shaped as the
    items, start's as start)."""
    def rule(op, ctx):
        a = op.args[index] if index < len(op.args) else None
        if a is None:
            return K.FLOAT, 0
        return ctx.kind(a), ctx.ndim(a)
    rule.__name__ = f"like_argument_{index}"
    return rule


# fsum's adjoint is g for every item: linear in g, the items read for their number
# alone; its transpose sums the cotangents of the items
@primitive("fsum_grad", _helpers.fsum_grad, kind=_like(1), linear=(0,))
def fsum_grad_vjp(g, ans, gbar, iterable):
    return _helpers.fsum_grad_back(g), None


declare(_helpers.fsum_grad, shape_reads=(1,))


# prod's: g start prod_{j != k} x_j for item k, and g prod_j x_j for start. Their
# Jacobian in the items is symmetric (g start prod_{j != k, m} x_j), so one helper is
# both the tangent along the items and the transpose.
@primitive("math_prod_items_grad", _helpers.prod_items_grad, kind=_like(1))
def prod_items_grad_vjp(g, ans, gbar, iterable, start=1):
    return (_helpers.prod_start_grad_dx(1.0, g, iterable, start),
            _helpers.prod_items_grad_dx(gbar, g, iterable, start),
            _helpers.prod_start_grad_dx(gbar, g, iterable, 1))


@jvp_rule("math_prod_items_grad")
def prod_items_grad_jvp(g, ans, gbar, iterable, start=1):
    return (_helpers.prod_items_grad(g, iterable, start),
            _helpers.prod_items_grad_dx(gbar, g, iterable, start),
            _helpers.prod_items_grad(gbar * g, iterable, 1))


@primitive("math_prod_start_grad", _helpers.prod_start_grad, kind=_like(2))
def prod_start_grad_vjp(g, ans, gbar, iterable, start=1):
    return (_helpers.prod_start_grad(g, iterable, 1),
            _helpers.prod_items_grad(gbar * g, iterable, 1), None)


@jvp_rule("math_prod_start_grad")
def prod_start_grad_jvp(g, ans, gbar, iterable, start=1):
    return (_helpers.prod_start_grad(g, iterable, start),
            _helpers.prod_start_grad_dx(gbar, g, iterable, 1), None)
