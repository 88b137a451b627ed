"""Rules for products, contractions and the matrix functions of ``np.linalg``."""
import operator

import numpy as np

from .. import kinds as K
from ..primitives import primitive
from . import _helpers

# ----- Products -----


@primitive("dot", np.dot, kind=K.dot_kind)
def dot(g, ans, a, b):
    return _helpers.dot_grad_a(g, a, b), _helpers.dot_grad_b(g, a, b)


@primitive("matmul", np.matmul, operator.matmul, kind=K.array_kind, infix="@")
def matmul(g, ans, a, b):
    return _helpers.matmul_grad_a(g, a, b), _helpers.matmul_grad_b(g, a, b)


@primitive("inner", np.inner, kind=K.dot_kind)
def inner(g, ans, a, b):
    return _helpers.inner_grad_a(g, a, b), _helpers.inner_grad_b(g, a, b)


@primitive("outer", np.outer, kind=K.array_kind)
def outer(g, ans, a, b):
    return _helpers.outer_grad_a(g, a, b), _helpers.outer_grad_b(g, a, b)


@primitive("tensordot", np.tensordot, kind=K.array_kind)
def tensordot(g, ans, a, b, axes=2):
    return _helpers.tensordot_grad_a(g, a, b, axes), _helpers.tensordot_grad_b(g, a, b, axes)


# One parameter per operand, up to six: a call with more is refused, not misread.
@primitive("einsum", np.einsum, kind=K.array_kind)
def einsum(g, ans, subscripts, op0, op1=None, op2=None, op3=None, op4=None, op5=None):
    return (None,
            _helpers.einsum_grad(g, subscripts, 0, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 1, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 2, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 3, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 4, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 5, op0, op1, op2, op3, op4, op5))


@primitive("trace", np.trace, kind=K.array_kind, linear=(0,))
def trace(g, ans, a, offset=0, axis1=0, axis2=1, dtype=None):
    return _helpers.trace_grad(g, a, offset, axis1, axis2)


# ----- Matrix functions -----

@primitive("inv", np.linalg.inv, kind=K.array_kind)
def inv(g, ans, a):
    t = np.swapaxes(ans, -1, -2)
    return -(t @ g @ t)


@primitive("solve", np.linalg.solve, kind=K.array_kind)
def solve(g, ans, a, b):
    return _helpers.solve_grad_a(g, ans, a, b), _helpers.solve_grad_b(g, ans, a, b)


@primitive("det", np.linalg.det, kind=K.array_kind)
def det(g, ans, a):
    return _helpers.det_grad(g, ans, a)


# slogdet returns (sign, logdet); ``g`` is the adjoint of that pair, built by the
# getitem rule for tuples, and only logdet has a derivative.
@primitive("slogdet", np.linalg.slogdet)
def slogdet(g, ans, a):
    return _helpers.slogdet_grad(g, a)


@primitive("cholesky", np.linalg.cholesky, kind=K.array_kind)
def cholesky(g, ans, a, upper=False):
    return _helpers.cholesky_grad(g, ans, a, upper)
