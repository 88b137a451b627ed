"""Rules for products, contractions and the matrix functions of ``np.linalg``."""
import operator

import numpy as np

from .. import kinds as K
from ..primitives import alias, jvp_rule, primitive
from . import _forward, _helpers

# ----- Products -----


@primitive("dot", np.dot, kind=K.dot_kind, linear=(0, 1))
def dot(g, ans, a, b):
    return _helpers.dot_grad_a(g, a, b), _helpers.dot_grad_b(g, a, b)


@primitive("matmul", np.matmul, operator.matmul, kind=K.array_kind, linear=(0, 1),
           infix="@")
def matmul(g, ans, a, b):
    return _helpers.matmul_grad_a(g, a, b), _helpers.matmul_grad_b(g, a, b)


@primitive("inner", np.inner, kind=K.dot_kind, linear=(0, 1))
def inner(g, ans, a, b):
    return _helpers.inner_grad_a(g, a, b), _helpers.inner_grad_b(g, a, b)


@primitive("outer", np.outer, kind=K.array_kind, linear=(0, 1))
def outer(g, ans, a, b):
    return _helpers.outer_grad_a(g, a, b), _helpers.outer_grad_b(g, a, b)


@primitive("tensordot", np.tensordot, kind=K.array_kind, linear=(0, 1))
def tensordot(g, ans, a, b, axes=2):
    return _helpers.tensordot_grad_a(g, a, b, axes), _helpers.tensordot_grad_b(g, a, b, axes)


# One parameter per operand, up to six: a call with more is refused, not misread.
@primitive("einsum", np.einsum, kind=K.array_kind, linear=(1, 2, 3, 4, 5, 6))
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

alias("matmul", operator.imatmul)


@primitive("inv", np.linalg.inv, kind=K.array_kind)
def inv(g, ans, a):
    t = np.swapaxes(ans, -1, -2)
    return -(t @ g @ t)


@jvp_rule("inv")
def inv_jvp(g, ans, a):
    return -(ans @ g @ ans)


@primitive("solve", np.linalg.solve, kind=K.array_kind)
def solve(g, ans, a, b):
    return _helpers.solve_grad_a(g, ans, a, b), _helpers.solve_grad_b(g, ans, a, b)


@jvp_rule("solve")
def solve_jvp(g, ans, a, b):
    return _forward.solve_jvp_a(g, ans, a, b), np.linalg.solve(a, g)


@primitive("det", np.linalg.det, kind=K.array_kind)
def det(g, ans, a):
    return _helpers.det_grad(g, ans, a)


@jvp_rule("det")
def det_jvp(g, ans, a):
    return _forward.det_jvp(g, ans, a)


# slogdet returns (sign, logdet); ``g`` is the adjoint of that pair, built by the
# getitem rule for tuples, and only logdet has a derivative.
@primitive("slogdet", np.linalg.slogdet)
def slogdet(g, ans, a):
    return _helpers.slogdet_grad(g, a)


@jvp_rule("slogdet")
def slogdet_jvp(g, ans, a):
    return _forward.slogdet_jvp(g, ans, a)


@primitive("cholesky", np.linalg.cholesky, kind=K.array_kind)
def cholesky(g, ans, a, upper=False):
    return _helpers.cholesky_grad(g, ans, a, upper)


@jvp_rule("cholesky")
def cholesky_jvp(g, ans, a, upper=False):
    return _forward.cholesky_jvp(g, ans, a, upper)
