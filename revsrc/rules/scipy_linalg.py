"""Rules for SciPy's matrix functions (``scipy.linalg``): ``cho_factor``/``cho_solve``,
``lu_factor``/``lu_solve``, ``solve_triangular`` and ``expm``, registered only when
SciPy is installed and a program calls one of them (see ``revsrc.rules``).

They are primitives: revsrc never transforms SciPy's own source (a SciPy function
with no record here is refused at the user's call). A factorization's result is a
tuple (the packed factor and ``lower`` or the pivots); ``g`` holds one adjoint per item,
and a solve's adjoint for that tuple is one per item too (none for the flag or pivots).
The arguments that would let SciPy write into its inputs (``overwrite_a``,
``overwrite_b``) are not in the rules' signatures, so a call that passes them is
refused.
"""
import numpy as np
import scipy.linalg as sl

from ..core import kinds as K
from . import kind_rules as KR
from ..primitives import NUMPY
from .register import jvp_rule, primitive
from ..runtime.grads import scipy_linalg as _helpers

xp = np  # rebound per alias when a rule is inlined


@primitive("scipy.cho_factor", sl.cho_factor, kind=KR.constant(K.ANY), family=NUMPY,
           jax="jax.scipy.linalg.cho_factor")
def cho_factor(g, ans, a, lower=False, check_finite=True):
    return _helpers.cho_factor_grad(g, ans, a, lower)


@primitive("scipy.cho_solve", sl.cho_solve, kind=KR.array_kind, family=NUMPY,
           jax="jax.scipy.linalg.cho_solve")
def cho_solve(g, ans, c_and_lower, b, check_finite=True):
    d = _helpers.cho_solve_grads(g, ans, c_and_lower, b)
    return d[0], d[1]


@primitive("scipy.solve_triangular", sl.solve_triangular, kind=KR.array_kind, family=NUMPY,
           jax="jax.scipy.linalg.solve_triangular")
def solve_triangular(g, ans, a, b, trans=0, lower=False, unit_diagonal=False,
                     check_finite=True):
    d = _helpers.solve_triangular_grads(g, ans, a, b, trans, lower, unit_diagonal)
    return d[0], d[1]


@jvp_rule("scipy.solve_triangular")
def solve_triangular_jvp(g, ans, a, b, trans=0, lower=False, unit_diagonal=False,
                         check_finite=True):
    return (_helpers.solve_triangular_jvp_a(g, ans, a, b, trans, lower, unit_diagonal),
            sl.solve_triangular(a, g, trans=trans, lower=lower, unit_diagonal=unit_diagonal))


@primitive("scipy.lu_factor", sl.lu_factor, kind=KR.constant(K.ANY), family=NUMPY,
           jax="jax.scipy.linalg.lu_factor")
def lu_factor(g, ans, a, check_finite=True):
    return _helpers.lu_factor_grad(g, ans, a)


@primitive("scipy.lu_solve", sl.lu_solve, kind=KR.array_kind, family=NUMPY,
           jax="jax.scipy.linalg.lu_solve")
def lu_solve(g, ans, lu_and_piv, b, trans=0, check_finite=True):
    d = _helpers.lu_solve_grads(g, ans, lu_and_piv, b, trans)
    return d[0], d[1]


# The Frechet derivative, exactly (revsrc/runtime/grads/scipy_linalg.py): the upper
# right block of the exponential of the block matrix [[A, E], [0, A]].
@primitive("scipy.expm", sl.expm, kind=KR.array_kind, family=NUMPY,
           jax="jax.scipy.linalg.expm")
def expm(g, ans, a):
    return _helpers.expm_grad(g, ans, a)


@jvp_rule("scipy.expm")
def expm_jvp(g, ans, a):
    return _helpers.expm_jvp(g, ans, a)
