"""Rules for products, contractions and the matrix functions of ``np.linalg``."""
import operator

import numpy as np

from . import _helpers, vjp

# ----- Products -----


@vjp(np.dot)
def dot(g, ans, a, b):
    return _helpers.dot_grad_a(g, a, b), _helpers.dot_grad_b(g, a, b)


@vjp(np.matmul, operator.matmul)
def matmul(g, ans, a, b):
    return _helpers.matmul_grad_a(g, a, b), _helpers.matmul_grad_b(g, a, b)


@vjp(np.inner)
def inner(g, ans, a, b):
    return _helpers.inner_grad_a(g, a, b), _helpers.inner_grad_b(g, a, b)


@vjp(np.outer)
def outer(g, ans, a, b):
    return _helpers.outer_grad_a(g, a, b), _helpers.outer_grad_b(g, a, b)


@vjp(np.tensordot)
def tensordot(g, ans, a, b, axes=2):
    return _helpers.tensordot_grad_a(g, a, b, axes), _helpers.tensordot_grad_b(g, a, b, axes)


# One parameter per operand, up to six: a call with more is refused, not misread.
@vjp(np.einsum)
def einsum(g, ans, subscripts, op0, op1=None, op2=None, op3=None, op4=None, op5=None):
    return (None,
            _helpers.einsum_grad(g, subscripts, 0, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 1, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 2, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 3, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 4, op0, op1, op2, op3, op4, op5),
            _helpers.einsum_grad(g, subscripts, 5, op0, op1, op2, op3, op4, op5))


@vjp(np.trace)
def trace(g, ans, a, offset=0, axis1=0, axis2=1, dtype=None):
    return _helpers.trace_grad(g, a, offset, axis1, axis2)


# ----- Matrix functions -----

@vjp(np.linalg.inv)
def inv(g, ans, a):
    t = np.swapaxes(ans, -1, -2)
    return -(t @ g @ t)


@vjp(np.linalg.solve)
def solve(g, ans, a, b):
    return _helpers.solve_grad_a(g, ans, a, b), _helpers.solve_grad_b(g, ans, a, b)


@vjp(np.linalg.det)
def det(g, ans, a):
    return _helpers.det_grad(g, ans, a)


# slogdet returns (sign, logdet); ``g`` is the adjoint of that pair, built by the
# getitem rule for tuples, and only logdet has a derivative.
@vjp(np.linalg.slogdet)
def slogdet(g, ans, a):
    return _helpers.slogdet_grad(g, a)


@vjp(np.linalg.cholesky)
def cholesky(g, ans, a, upper=False):
    return _helpers.cholesky_grad(g, ans, a, upper)
