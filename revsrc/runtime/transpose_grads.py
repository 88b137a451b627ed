"""Runtime helpers of the reverse rules of the helpers that generated adjoints call.

Most of those helpers are linear in the adjoint ``g`` they receive; the reverse rule
of a linear map is its transpose. Each function here takes the adjoint ``gbar`` of the
helper's output and returns the adjoint of one of its inputs.
"""
from __future__ import annotations

import numpy as np

from .. import errors, runtime
from . import inplace, tensor
from .grads import reductions as _reductions
from .grads.reductions import reduced_axes


def broadcast_back(gbar, g):
    """The transpose of summing ``g`` to a shape: ``gbar`` spread back over ``g``'s
    shape (a writable array; a number for a number)."""
    if np.ndim(g) == 0 and not isinstance(g, np.ndarray):
        return np.sum(gbar)[()] if isinstance(gbar, np.ndarray) else gbar
    return np.array(np.broadcast_to(gbar, np.shape(g)))


def sum_list_back(gbar, g, iterable):
    """g's adjoint of ``sum_list_grad(g, iterable)`` (``g`` summed to each item's
    shape, builtins ``sum``'s adjoint): each item's adjoint in ``gbar`` spread back over
    ``g``'s shape, and summed (an array ``iterable``: ``gbar`` summed to ``g``'s shape)."""
    if isinstance(iterable, np.ndarray):
        return runtime.unbroadcast(gbar, g)
    total = None
    for item_bar in gbar:
        if item_bar is None:
            continue
        part = broadcast_back(item_bar, g)
        total = part if total is None else total + part
    return broadcast_back(0.0, g) if total is None else total


def triangle_back(gbar, gt, m):
    """gt's adjoint of ``triangle_grad(gt, m)`` (np.tril's and np.triu's adjoint): for a
    1-D ``m``, whose rows were summed, ``gbar`` given to every row."""
    if np.ndim(m) == 1:
        return np.array(np.broadcast_to(np.expand_dims(gbar, -2), np.shape(gt)))
    return gbar


def reduce_like(gbar, g, x, axis=None, keepdims=False):
    """The transpose of spreading ``g`` (a reduction's adjoint) over ``x``: ``gbar``
    summed over the reduced axes, back to ``g``'s shape."""
    if isinstance(x, (list, tuple)):
        raise NotImplementedError("a reduction over a list, differentiated twice")
    total = np.sum(gbar, axis=reduced_axes(axis, np.ndim(x)), keepdims=keepdims)
    return np.reshape(total, np.shape(g)) if np.ndim(g) else total


def mean_back(gbar, g, ans, a, axis=None, keepdims=False):
    count = np.size(a) // max(np.size(ans), 1)
    return reduce_like(gbar, g, a, axis, keepdims) / count


def var_grad_back_a(gbar, g, a, axis=None, ddof=0, keepdims=False):
    """The transpose, in ``a``, of a -> expand(g) (a - mean(a)) 2 / (n - ddof)."""
    a = np.asarray(a)
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    weighted = gbar * _reductions.expand_reduced(g, a, axis, keepdims)
    return (weighted - np.mean(weighted, axis=axis, keepdims=True)) * (2.0 / (n - ddof))


def cumsum_back(gbar, a, axis=None):
    """The transpose of the reversed cumulative sum: a cumulative sum."""
    if axis is None:
        return np.reshape(np.cumsum(np.ravel(gbar)), np.shape(a))
    return np.cumsum(gbar, axis=axis)


def take_back(gbar, g, index):
    """The transpose of ``g[index]`` (runtime.take_grad): ``gbar`` added at ``index``."""
    if np.ndim(g) == 0:
        return np.sum(gbar)[()] if isinstance(gbar, np.ndarray) else gbar
    keep = runtime.last_writes(np.shape(g), index)
    if keep is not None:   # the elements take_grad zeroed (writes NumPy did not keep)
        gbar = np.where(keep, gbar, np.zeros((), dtype=np.result_type(gbar)))
    return tensor.index_add(gbar, np.shape(g), np.result_type(g, gbar), index)


def tile_back(gbar, A, reps):
    return np.tile(gbar, reps)


def repeat_back(gbar, a, repeats, axis=None):
    if axis is None:
        return np.repeat(np.ravel(gbar), repeats)
    return np.repeat(gbar, repeats, axis=axis)


def view_forward(gbar, fn, args=(), kwargs=()):
    """The adjoint of runtime.view_back: the view's own layout applied to ``gbar``."""
    return fn(gbar, *args, **dict(kwargs))


def write_at_back(gbar, base, where):
    """The transpose of inplace.write_at_new_grad (``g`` where a view lies in
    ``base``, summed to the new values' shape): ``gbar`` spread over where the view
    lies, zeros elsewhere (in the real or the imaginary parts it wrote)."""
    dtype = np.result_type(np.asarray(base).dtype, np.result_type(gbar), np.float64)
    return inplace.write_at(gbar, np.zeros(np.shape(base), dtype), where)


# ----- solve's, det's and slogdet's adjoints, differentiated in reverse -----
# (each output adjoint ``gbar`` has the shape of the helper's output; the helpers'
# forms are in revsrc/runtime/grads/linalg.py)

def _mT(a):
    return np.swapaxes(a, -1, -2)


def _vector_rhs(b):
    return np.ndim(b) == 1


def _full(gbar, like):
    """``gbar`` (summed to an operand's shape by the helper) spread back over the
    shape of the helper's unsummed result ``like``."""
    return np.broadcast_to(gbar, np.shape(like))


def solve_grad_b_back(gbar, ct, a, b):
    """(ct's adjoint, a's adjoint) of y = solve(a^T, ct) (summed to b's shape): with
    u = solve(a, gbar), ct's is u and a's is -y u^T."""
    vec = _vector_rhs(b)
    y = np.linalg.solve(_mT(a), ct[..., None] if vec else ct)
    G = _full(gbar[..., None] if vec else gbar, y)
    u = np.linalg.solve(a, G)
    a_bar = tensor.sum_to_shape(-np.matmul(y, _mT(u)), np.shape(a))
    return (u[..., 0] if vec else tensor.sum_to_shape(u, np.shape(ct))), a_bar


def solve_grad_a_back(gbar, ct, x, a, b):
    """(ct's, x's, a's adjoints) of out = -gb x^T (summed to a's shape), gb =
    solve(a^T, ct): with U = solve(a, gbar x), ct's is -U, x's -gbar^T gb and a's
    gb U^T."""
    vec = _vector_rhs(b)
    gb = np.linalg.solve(_mT(a), ct[..., None] if vec else ct)
    X = x[..., None] if vec else x
    G = _full(gbar, np.matmul(gb, _mT(X)))
    U = np.linalg.solve(a, np.matmul(G, X))
    x_bar = -np.matmul(_mT(G), gb)
    ct_bar = -U
    a_bar = tensor.sum_to_shape(np.matmul(gb, _mT(U)), np.shape(a))
    if vec:
        return ct_bar[..., 0], x_bar[..., 0], a_bar
    return (tensor.sum_to_shape(ct_bar, np.shape(ct)), tensor.sum_to_shape(x_bar, np.shape(x)),
            a_bar)


def cholesky_grad_back(gbar, ct, ans, upper=False):
    """(ct's, the factor's adjoints) of out = tril(S + S^T) - I S, S = L^-T P L^-1,
    P = tril(L^T G) H (H: ones, a half on the diagonal), G the cotangent ``ct``, L
    the factor ``ans`` (both transposed with ``upper``): with Sb = tril(gbar) +
    tril(gbar)^T - I gbar, Pb = L^-1 Sb L^-T and Mb = tril(Pb) H, G's is L Mb and L's
    G Mb^T - L^-T (P L^-1 Sb^T + P^T L^-1 Sb) L^-T."""
    L, G, B = (_mT(ans), _mT(ct), _mT(gbar)) if upper else (ans, ct, gbar)
    n = L.shape[-1]
    eye = np.eye(n, dtype=np.result_type(L, G, B))
    half = 1.0 - 0.5 * eye
    P = np.tril(np.matmul(_mT(L), G)) * half
    Linv = np.linalg.inv(L)
    lower = np.tril(B)
    Sb = lower + _mT(lower) - eye * B
    Pb = np.matmul(np.matmul(Linv, Sb), _mT(Linv))
    Mb = np.tril(Pb) * half
    Linv_bar = np.matmul(np.matmul(P, Linv), _mT(Sb)) + np.matmul(np.matmul(_mT(P), Linv), Sb)
    L_bar = np.matmul(G, _mT(Mb)) - np.matmul(np.matmul(_mT(Linv), Linv_bar), _mT(Linv))
    G_bar = np.matmul(L, Mb)
    return (_mT(G_bar), _mT(L_bar)) if upper else (G_bar, L_bar)


def _inv_T(a, what):
    try:
        return _mT(np.linalg.inv(a))
    except np.linalg.LinAlgError:
        raise errors.HigherOrderNotSupported(
            f"the second derivative of {what} at a singular matrix is not supported",
            hint="move the point off the singular matrix") from None


def det_grad_back(gbar, ct, d, a):
    """(ct's, d's, a's adjoints) of out = (ct d) M, M = inv(a)^T: with s = <gbar, M>
    over the matrix axes, ct's is d s, d's ct s, and a's -(ct d) M gbar^T M."""
    M = _inv_T(a, "np.linalg.det")
    s = np.sum(gbar * M, axis=(-2, -1))
    w = np.asarray(ct * d)[..., None, None]
    return d * s, ct * s, -(w * np.matmul(np.matmul(M, _mT(gbar)), M))


def slogdet_grad_back(gbar, ct, sl, a):
    """(ct's, a's adjoints) of out = ct[1] M, M = inv(a)^T (a real ``a``): ct's is
    (0, <gbar, M>) and a's -ct[1] M gbar^T M."""
    if np.iscomplexobj(a) or np.iscomplexobj(sl[0]) or np.iscomplexobj(gbar):
        raise errors.HigherOrderNotSupported(
            "the second derivative of np.linalg.slogdet of a complex matrix is not "
            "supported", hint="differentiate the real and imaginary parts apart")
    M = _inv_T(a, "np.linalg.slogdet")
    s = np.sum(gbar * M, axis=(-2, -1))
    w = np.asarray(ct[1])[..., None, None]
    return (np.zeros_like(s), s), -(w * np.matmul(np.matmul(M, _mT(gbar)), M))
