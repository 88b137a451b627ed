"""Rules for products, contractions and the matrix functions of ``np.linalg``."""
import operator

import numpy as np

from ..core import kinds as K
from . import kind_rules as KR
from .. import _kernels
from ..primitives import NUMPY, alias, declare, define
from .register import jvp_rule, primitive
from ..runtime import forward_grads as _forward, transpose_grads as _transpose
from ..runtime.grads import (linalg as _helpers, reductions as _reductions, shape as _shape,
                             spectral as _spectral)

# ----- Products -----


@primitive("dot", np.dot, kind=KR.dot_kind, multilinear=(0, 1), complex_ok=True)
def dot(g, ans, a, b):
    return _helpers.dot_grad_a(g, a, b), _helpers.dot_grad_b(g, a, b)


declare(np.dot, effect_free=True, loop_kernel=(_kernels.dot, 2))


@primitive("matmul", np.matmul, operator.matmul, kind=KR.matmul_kind, multilinear=(0, 1),
           infix="@", complex_ok=True)
def matmul(g, ans, a, b):
    return _helpers.matmul_grad_a(g, a, b), _helpers.matmul_grad_b(g, a, b)


declare(np.matmul, effect_free=True)
declare(operator.matmul, pure=False, raises_on_scalars=True)   # (not on numbers)


@primitive("inner", np.inner, kind=KR.dot_kind, multilinear=(0, 1), complex_ok=True)
def inner(g, ans, a, b):
    return _helpers.inner_grad_a(g, a, b), _helpers.inner_grad_b(g, a, b)


# np.vdot(a, b) is sum(conj(a.ravel()) * b.ravel()): linear in b, conjugate-linear in a,
# so (in the complex convention of revsrc.rules) a's adjoint is conj(g b) and b's
# g conj(a), each in its operand's own shape; on real arrays g b and g a.
@primitive("vdot", np.vdot, kind=KR.vdot_kind, multilinear=(0, 1), complex_ok=True)
def vdot(g, ans, a, b):
    return (np.reshape(np.conj(g * np.ravel(b)), np.shape(a)),
            np.reshape(g * np.conj(np.ravel(a)), np.shape(b)))


declare(np.vdot, effect_free=True)


@primitive("outer", np.outer, kind=KR.constant((K.ARRAY, 2)), multilinear=(0, 1), complex_ok=True)
def outer(g, ans, a, b):
    return _helpers.outer_grad_a(g, a, b), _helpers.outer_grad_b(g, a, b)


# The ufuncs' outer products: the result has a's axes, then b's. The sum and difference
# are linear in both operands together: each adjoint is g summed over the other
# operand's axes.
@primitive("add.outer", np.add.outer, kind=KR.outer_kind, linear=(0, 1), family=NUMPY,
           complex_ok=True, jax="jnp.add.outer")
def add_outer(g, ans, a, b):
    return _reductions.outer_sum_a(g, a, b), _reductions.outer_sum_b(g, a, b)


@primitive("subtract.outer", np.subtract.outer, kind=KR.outer_kind, linear=(0, 1),
           family=NUMPY, complex_ok=True, jax="jnp.subtract.outer")
def subtract_outer(g, ans, a, b):
    return _reductions.outer_sum_a(g, a, b), -_reductions.outer_sum_b(g, a, b)


@primitive("multiply.outer", np.multiply.outer, kind=KR.outer_kind, multilinear=(0, 1),
           family=NUMPY, complex_ok=True, jax="jnp.multiply.outer")
def multiply_outer(g, ans, a, b):
    return (_reductions.multiply_outer_grad_a(g, a, b),
            _reductions.multiply_outer_grad_b(g, a, b))


@primitive("tensordot", np.tensordot, kind=KR.array_kind, multilinear=(0, 1), complex_ok=True)
def tensordot(g, ans, a, b, axes=2):
    return _helpers.tensordot_grad_a(g, a, b, axes), _helpers.tensordot_grad_b(g, a, b, axes)


@primitive("kron", np.kron, kind=KR.array_kind, complex_ok=True)
def kron(g, ans, a, b):
    d = _shape.kron_grads(g, a, b)
    return d[0], d[1]


# Vectors of 2 or 3 components along axisa, axisb; the result's along axisc.
@primitive("cross", np.cross, kind=KR.array_kind, complex_ok=True)
def cross(g, ans, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return (_helpers.cross_grad_a(g, a, b, axisa, axisb, axisc, axis),
            _helpers.cross_grad_b(g, a, b, axisa, axisb, axisc, axis))


# Subscripts and operands, or operands and sublists (np.einsum(x, [0, 1], [1, 0])),
# '...' included: one parameter per argument, up to 26, so a call with 25 operands
# (12 in sublist form) at most; each output is the adjoint of the argument at that
# position when it is an operand.
@primitive("einsum", np.einsum, kind=KR.array_kind, complex_ok=True,
           multilinear=tuple(range(26)))
def einsum(g, ans, a0, a1=None, a2=None, a3=None, a4=None, a5=None, a6=None, a7=None,
           a8=None, a9=None, a10=None, a11=None, a12=None, a13=None, a14=None, a15=None,
           a16=None, a17=None, a18=None, a19=None, a20=None, a21=None, a22=None,
           a23=None, a24=None, a25=None, optimize=False):
    ops = (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17,
           a18, a19, a20, a21, a22, a23, a24, a25, optimize)
    return (_helpers.einsum_grad(g, 0, ops),
            _helpers.einsum_grad(g, 1, ops),
            _helpers.einsum_grad(g, 2, ops),
            _helpers.einsum_grad(g, 3, ops),
            _helpers.einsum_grad(g, 4, ops),
            _helpers.einsum_grad(g, 5, ops),
            _helpers.einsum_grad(g, 6, ops),
            _helpers.einsum_grad(g, 7, ops),
            _helpers.einsum_grad(g, 8, ops),
            _helpers.einsum_grad(g, 9, ops),
            _helpers.einsum_grad(g, 10, ops),
            _helpers.einsum_grad(g, 11, ops),
            _helpers.einsum_grad(g, 12, ops),
            _helpers.einsum_grad(g, 13, ops),
            _helpers.einsum_grad(g, 14, ops),
            _helpers.einsum_grad(g, 15, ops),
            _helpers.einsum_grad(g, 16, ops),
            _helpers.einsum_grad(g, 17, ops),
            _helpers.einsum_grad(g, 18, ops),
            _helpers.einsum_grad(g, 19, ops),
            _helpers.einsum_grad(g, 20, ops),
            _helpers.einsum_grad(g, 21, ops),
            _helpers.einsum_grad(g, 22, ops),
            _helpers.einsum_grad(g, 23, ops),
            _helpers.einsum_grad(g, 24, ops),
            _helpers.einsum_grad(g, 25, ops),
            None)


@primitive("trace", np.trace, kind=KR.array_kind, linear=(0,), complex_ok=True)
def trace(g, ans, a, offset=0, axis1=0, axis2=1, dtype=None):
    return _helpers.trace_grad(g, a, offset, axis1, axis2)


# ----- Matrix functions -----

alias("matmul", operator.imatmul)


@primitive("inv", np.linalg.inv, kind=KR.array_kind, complex_ok=True)
def inv(g, ans, a):
    t = np.swapaxes(ans, -1, -2)
    return -(t @ g @ t)


@jvp_rule("inv")
def inv_jvp(g, ans, a):
    return -(ans @ g @ ans)


@primitive("solve", np.linalg.solve, kind=KR.array_kind, complex_ok=True)
def solve(g, ans, a, b):
    return _helpers.solve_grad_a(g, ans, a, b), _helpers.solve_grad_b(g, ans, a, b)


@jvp_rule("solve")
def solve_jvp(g, ans, a, b):
    return _forward.solve_jvp_a(g, ans, a, b), np.linalg.solve(a, g)


# solve's adjoints differentiated again (a Hessian through np.linalg.solve): each
# is linear in the cotangent; the rest is the derivative of solve(a^T, .)
@jvp_rule("solve_grad_b")
def solve_grad_b_jvp(g, ans, ct, x, a, b):
    return (_helpers.solve_grad_b(g, x, a, b), None, _forward.solve_grad_b_jvp_a(g, ct, a, b),
            None)


@jvp_rule("solve_grad_a")
def solve_grad_a_jvp(g, ans, ct, x, a, b):
    return (_helpers.solve_grad_a(g, x, a, b), _forward.solve_grad_a_jvp_x(g, ct, a, b),
            _forward.solve_grad_a_jvp_a(g, ct, x, a, b), None)


@jvp_rule("det_grad")
def det_grad_jvp(g, ans, ct, d, a):
    return (_helpers.det_grad(g, d, a), _helpers.det_grad(ct, g, a),
            _forward.det_grad_jvp_a(g, ct, d, a))


@jvp_rule("slogdet_grad")
def slogdet_grad_jvp(g, ans, ct, sl, a):
    return (_helpers.slogdet_grad(g, sl, a), None,
            _forward.slogdet_grad_jvp_a(g, ct, sl[0], a))


# ... and in reverse (reverse over reverse: jacrev(grad(f)), grad of a gradient's sum);
# each adjoint is shaped as the argument it is the adjoint of
@primitive("solve_grad_b", _helpers.solve_grad_b, kind=KR.like_argument(3))
def solve_grad_b_vjp(g, ans, ct, x, a, b):
    back = _transpose.solve_grad_b_back(g, ct, a, b)
    return back[0], None, back[1], None


@primitive("solve_grad_a", _helpers.solve_grad_a, kind=KR.like_argument(2))
def solve_grad_a_vjp(g, ans, ct, x, a, b):
    back = _transpose.solve_grad_a_back(g, ct, x, a, b)
    return back[0], back[1], back[2], None


@primitive("det_grad", _helpers.det_grad, kind=KR.like_argument(2))
def det_grad_vjp(g, ans, ct, d, a):
    back = _transpose.det_grad_back(g, ct, d, a)
    return back[0], back[1], back[2]


@primitive("slogdet_grad", _helpers.slogdet_grad, kind=KR.like_argument(1))
def slogdet_grad_vjp(g, ans, ct, sl, a):
    back = _transpose.slogdet_grad_back(g, ct, sl, a)
    return back[0], None, back[1]


# cholesky's adjoint differentiated forward (a Hessian through np.linalg.cholesky):
# linear in the cotangent; the factor's tangent by the product rule
@jvp_rule("cholesky_grad")
def cholesky_grad_jvp(g, ans, ct, L, a, upper=False):
    return (_helpers.cholesky_grad(g, L, a, upper),
            _forward.cholesky_grad_jvp_ans(g, ct, L, upper), None, None)


# ... and in reverse (jacrev(grad(f)) through np.linalg.cholesky)
@primitive("cholesky_grad", _helpers.cholesky_grad, kind=KR.like_argument(2))
def cholesky_grad_vjp(g, ans, ct, L, a, upper=False):
    back = _transpose.cholesky_grad_back(g, ct, L, upper)
    return back[0], back[1], None, None


@primitive("det", np.linalg.det, kind=KR.array_kind, complex_ok=True)
def det(g, ans, a):
    return _helpers.det_grad(g, ans, a)


@jvp_rule("det")
def det_jvp(g, ans, a):
    return _forward.det_jvp(g, ans, a)


# slogdet returns (sign, logdet); ``g`` is the adjoint of that pair, built by the
# getitem rule for tuples, and only logdet has a derivative.
@primitive("slogdet", np.linalg.slogdet, complex_ok=True)
def slogdet(g, ans, a):
    return _helpers.slogdet_grad(g, ans, a)


@jvp_rule("slogdet")
def slogdet_jvp(g, ans, a):
    return _forward.slogdet_jvp(g, ans, a)


@primitive("cholesky", np.linalg.cholesky, kind=KR.array_kind)
def cholesky(g, ans, a, upper=False):
    return _helpers.cholesky_grad(g, ans, a, upper)


@jvp_rule("cholesky")
def cholesky_jvp(g, ans, a, upper=False):
    return _forward.cholesky_jvp(g, ans, a, upper)


@primitive("matrix_power", np.linalg.matrix_power, kind=KR.array_kind, complex_ok=True)
def matrix_power(g, ans, a, n):
    return _helpers.matrix_power_grad(g, a, n), None


@primitive("pinv", np.linalg.pinv, kind=KR.array_kind, complex_ok=True)
def pinv(g, ans, a, rcond=None, hermitian=False, rtol=None):
    return _helpers.pinv_grad(g, ans, a, rcond, hermitian, rtol)


# ----- Decompositions -----
# Their results are tuples; ``g`` holds one adjoint per item (zero for an unused one).
# eigh, and svd and pinv with hermitian=True, read one triangle of ``a``: the gradient
# is that of the function NumPy computes, so it lies on that triangle.

@primitive("eigh", np.linalg.eigh, kind=KR.constant(K.ANY), jax="_jaxgen.eigh")
def eigh(g, ans, a, UPLO="L"):
    return _helpers.eigh_grad(g, ans, a, UPLO)


@primitive("eigvalsh", np.linalg.eigvalsh, kind=KR.array_kind, jax="_jaxgen.eigvalsh")
def eigvalsh(g, ans, a, UPLO="L"):
    return _spectral.eigvalsh_grad(g, ans, a, UPLO)


@primitive("eig", np.linalg.eig, kind=KR.constant(K.ANY), complex_ok=True)
def eig(g, ans, a):
    return _helpers.eig_grad(g, ans, a)


@primitive("svd", np.linalg.svd, kind=KR.svd_kind)
def svd(g, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    return _helpers.svd_grad(g, ans, a, full_matrices, compute_uv, hermitian)


@primitive("lstsq", np.linalg.lstsq, kind=KR.constant(K.ANY), complex_ok=True)
def lstsq(g, ans, a, b, rcond=None):
    # (one helper per input: differentiated in b alone, a rank-deficient constant
    # matrix is no obstacle)
    return (_helpers.lstsq_grads(g, ans, a, b, rcond)[0],
            _helpers.lstsq_grads(g, ans, a, b, rcond, False)[1])
