"""Adjoints and tangents of SciPy's matrix functions (``scipy.linalg``): Cholesky and LU
factors and the solves that use them, triangular solves and the matrix exponential.

SciPy is imported inside the functions (it is optional: this module loads with the
JAX back end's table of run-time modules, SciPy only when an adjoint runs). Each
factorization returns the factor packed as LAPACK leaves it (the other triangle of
``cho_factor``'s is the input's, untouched), so each adjoint says what happens to
every entry of the packed array, and each solve reads only the entries the
factorization wrote. Real inputs only: the rules
are not marked ``complex_ok``.
"""
from __future__ import annotations

import numpy as np

from ..values import as_adjoint, as_array, pieces
from .common import real_only
from .linalg import cholesky_grad, mT


def _scipy_linalg():
    """scipy.linalg, imported when an adjoint first runs (the JAX back end's twin of
    this module gives jax.scipy.linalg here, whose functions take the same arguments)."""
    import scipy.linalg
    return scipy.linalg


def _outer(u, v):
    """u v^T for vectors, u @ v^T for matrices (the right-hand sides as columns)."""
    return np.multiply.outer(u, v) if np.ndim(u) == 1 else np.matmul(u, mT(v))


# ----- Cholesky -----

def cho_factor_grad(g, ans, a, lower=False):
    """The adjoint of ``cho_factor(a, lower)`` = (c, lower): the factor's triangle of
    ``c`` is np.linalg.cholesky's (reading the same triangle of ``a``); the other
    triangle is ``a``'s own entries, copied."""
    real_only(a, "scipy.linalg.cho_factor")
    c, low = ans
    gc = as_array(g[0], a)
    keep = np.tril(gc) if low else np.triu(gc)
    grad = cholesky_grad(keep, np.tril(c) if low else np.triu(c), a, upper=not low)
    copied = np.triu(gc, 1) if low else np.tril(gc, -1)
    return as_adjoint(grad + copied, a)


def cho_solve_grads(g, ans, c_and_lower, b):
    """The adjoints of ``x = cho_solve((c, lower), b)``, x = (L L^T)^-1 b: b's is
    A^-1 g; with A's -b_bar x^T, the factor's is (A_bar + A_bar^T) L on its triangle
    (for the upper factor U, with A = U^T U: U (A_bar + A_bar^T))."""
    sl = _scipy_linalg()
    c, low = c_and_lower[0], c_and_lower[1]
    real_only(c, "scipy.linalg.cho_solve")
    g = as_array(g, b)
    b_bar = sl.cho_solve((c, low), g)
    a_bar = -_outer(b_bar, ans)
    sym = a_bar + mT(a_bar)
    c_bar = np.tril(np.matmul(sym, np.tril(c))) if low else \
        np.triu(np.matmul(np.triu(c), sym))
    return pieces([as_adjoint(c_bar, c), 0.0]), as_adjoint(b_bar, b)


# ----- Triangular solves -----

def _trans(trans):
    """0 for op(T) = T, 1 for its transpose (2, 'C', is the transpose for real T)."""
    return {0: 0, 1: 1, 2: 1, "N": 0, "T": 1, "C": 1}[trans]


def _triangle(a, lower, unit_diagonal):
    """The matrix solve_triangular reads from ``a``."""
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        t = t - np.diag(np.diag(t)) + np.eye(a.shape[-1], dtype=t.dtype)
    return t


def _onto_triangle(grad, lower, unit_diagonal):
    grad = np.tril(grad) if lower else np.triu(grad)
    if unit_diagonal:
        grad = grad - np.diag(np.diag(grad))
    return grad


def solve_triangular_grads(g, ans, a, b, trans=0, lower=False, unit_diagonal=False):
    """The adjoints of x = op(T)^-1 b, T the triangle of ``a`` it reads: b's is
    op(T)^-T g, T's -b_bar x^T (for op(T) = T^T: -x b_bar^T), on that triangle."""
    sl = _scipy_linalg()
    real_only(a, "scipy.linalg.solve_triangular")
    t = _trans(trans)
    g = as_array(g, a, b)
    b_bar = sl.solve_triangular(a, g, trans=1 - t, lower=lower,
                                unit_diagonal=unit_diagonal)
    a_bar = -_outer(b_bar, ans) if t == 0 else -_outer(ans, b_bar)
    return (as_adjoint(_onto_triangle(a_bar, lower, unit_diagonal), a),
            as_adjoint(b_bar, b))


def solve_triangular_jvp_a(da, ans, a, b, trans=0, lower=False, unit_diagonal=False):
    """The tangent of x = op(T)^-1 b along ``a``: -op(T)^-1 op(dT) x."""
    sl = _scipy_linalg()
    t = _trans(trans)
    dt = _onto_triangle(np.asarray(da), lower, unit_diagonal)
    rhs = np.matmul(dt if t == 0 else mT(dt), ans)
    return -sl.solve_triangular(a, rhs, trans=t, lower=lower, unit_diagonal=unit_diagonal)


# ----- LU -----

def _permutation(piv, n):
    """The row order ``perm`` with a[perm] = L U, from LAPACK's row swaps."""
    perm = np.arange(n)
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return perm


def _unpack_lu(lu):
    n = lu.shape[-1]
    return np.tril(lu, -1) + np.eye(n, dtype=lu.dtype), np.triu(lu)


def lu_factor_grad(g, ans, a):
    """The adjoint of ``lu_factor(a)`` = (lu, piv) for a square ``a``, with
    a[perm] = L U: from L's and U's adjoints (lu's below and on/above the diagonal),
    M = sl(L^T L_bar) + triu(U_bar U^T) and a[perm]'s adjoint L^-T M U^-T."""
    sl = _scipy_linalg()
    real_only(a, "scipy.linalg.lu_factor")
    lu, piv = ans
    gl = as_array(g[0], a)
    L, U = _unpack_lu(lu)
    m = np.tril(np.matmul(mT(L), np.tril(gl, -1)), -1) + np.triu(np.matmul(np.triu(gl), mT(U)))
    inner = sl.solve_triangular(L, m, trans=1, lower=True, unit_diagonal=True)
    ap_bar = mT(sl.solve_triangular(U, mT(inner), trans=0, lower=False))
    # a[perm]'s adjoint put back in a's row order: a gather by the inverse order
    # (not an item assignment, so the JAX twin runs the same line)
    grad = ap_bar[np.argsort(_permutation(piv, a.shape[-1]))]
    return as_adjoint(grad, a)


def lu_solve_grads(g, ans, lu_and_piv, b, trans=0):
    """The adjoints of x = op(A)^-1 b, A = P L U packed in (lu, piv): b's is
    op(A)^-T g; A's is -b_bar x^T (its transpose for op(A) = A^T), taken to L and U,
    L_bar = P^T A_bar U^T and U_bar = L^T P^T A_bar, and packed as lu is."""
    sl = _scipy_linalg()
    lu, piv = lu_and_piv[0], lu_and_piv[1]
    real_only(lu, "scipy.linalg.lu_solve")
    t = _trans(trans)
    g = as_array(g, b)
    b_bar = sl.lu_solve((lu, piv), g, trans=1 - t)
    a_bar = -_outer(b_bar, ans) if t == 0 else -_outer(ans, b_bar)
    L, U = _unpack_lu(lu)
    pa = a_bar[_permutation(piv, lu.shape[-1])]
    lu_bar = np.tril(np.matmul(pa, mT(U)), -1) + np.triu(np.matmul(mT(L), pa))
    return pieces([as_adjoint(lu_bar, lu), 0.0]), as_adjoint(b_bar, b)


# ----- The matrix exponential -----

def expm_frechet(a, e):
    """The derivative of expm at ``a`` along ``e``, exactly: the upper right block of
    expm([[a, e], [0, a]]) (batched over leading axes)."""
    sl = _scipy_linalg()
    n = a.shape[-1]
    dt = np.result_type(a, e)
    big = np.zeros(a.shape[:-2] + (2 * n, 2 * n), dtype=dt)
    big[..., :n, :n] = a
    big[..., n:, n:] = a
    big[..., :n, n:] = e
    return sl.expm(big)[..., :n, n:]


def expm_grad(g, ans, a):
    """The adjoint of expm: its Frechet derivative at A^T applied to the output's
    adjoint (the derivative at A^T is the transpose of the one at A)."""
    real_only(a, "scipy.linalg.expm")
    return as_adjoint(expm_frechet(mT(np.asarray(a)), as_array(g, a)), a)


def expm_jvp(g, ans, a):
    return expm_frechet(np.asarray(a), np.asarray(g))
