"""Runtime helpers the NumPy rules call from generated adjoint code.

A rule's body is inlined into the adjoint, but a call inside it stays a call: logic
with branches on shapes, axes or argument types lives here, as ordinary functions of
arrays. Each takes the values the rule has at hand (the output adjoint ``g``, the
output ``ans``, the primal's arguments) and returns one contribution. Contributions
keep the dtype of the values they are built from, so a float32 program stays float32.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import tensor


# ----- Common -----

def _float_dtype(x, g=None):
    """The dtype of a gradient for ``x``: its own when it is a float array."""
    dt = getattr(x, "dtype", None)
    if dt is not None and dt.kind in "fc":
        return dt
    gdt = getattr(g, "dtype", None)
    if gdt is not None and gdt.kind in "fc":
        return gdt
    return np.dtype(np.float64)


def _as_input(grad, x):
    """``grad`` in the form of ``x``: a Python float for a Python number, else an array."""
    if isinstance(x, numbers.Number) and not isinstance(x, np.generic):
        return grad[()] if isinstance(grad, np.ndarray) and grad.ndim == 0 else grad
    return grad


def _is_number(g):
    """A Python float or int, or a 0-d float64/NumPy float scalar: spread as one value."""
    t = type(g)
    return t is float or t is int or t is np.float64 or \
        (t is np.ndarray and g.ndim == 0 and g.dtype.kind == "f")


def _array(g, *like):
    """``g`` as an array; a Python number takes the float dtype of ``like`` (NumPy would
    make it float64, which would silently upcast a float32 adjoint)."""
    if isinstance(g, np.ndarray):
        return g
    if isinstance(g, numbers.Number) and not isinstance(g, np.generic):
        dtypes = [_float_dtype(x) for x in like]
        return np.asarray(g, dtype=np.result_type(*dtypes) if dtypes else None)
    return np.asarray(g)


def _axes(axis, ndim):
    """``axis`` (None, int or tuple) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(int(a) % ndim for a in axis)) if ndim else ()
    return (int(axis) % ndim,) if ndim else ()


def expand_reduced(g, x, axis=None, keepdims=False):
    """``g`` (the adjoint of a reduction of ``x`` over ``axis``) with the reduced axes
    restored as length-1 axes, ready to broadcast against ``x``."""
    g = _array(g, x)
    if keepdims or axis is None and g.ndim == 0:
        return g.reshape((1,) * np.ndim(x)) if g.ndim == 0 else g
    return np.expand_dims(g, _axes(axis, np.ndim(x))) if np.ndim(x) else g


def broadcast_reduced(g, x, axis=None, keepdims=False):
    """The adjoint of ``np.sum(x, axis, keepdims=keepdims)``: ``g`` spread over ``x``."""
    if axis is None and type(x) is np.ndarray and x.dtype.kind == "f" and _is_number(g):
        return np.full(x.shape, g, dtype=x.dtype)  # the whole-array sum: one pass
    shape = np.shape(x)
    out = np.broadcast_to(expand_reduced(g, x, axis, keepdims), shape)
    out = np.array(out, dtype=_float_dtype(x, g))
    return per_item(_as_input(out, x), x)


def _items_of(position):
    """Decorate a helper whose argument at ``position`` may be a list: its adjoint comes
    back one item at a time (see `per_item`)."""
    def wrap(fn):
        def helper(*args):
            return per_item(fn(*args), args[position])
        helper.__name__ = fn.__name__
        helper.__qualname__ = fn.__qualname__
        helper.__doc__ = fn.__doc__
        return helper
    return wrap


# ----- Reductions -----

def sum_list_grad(g, iterable):
    """The adjoint of builtins ``sum(iterable)``: ``g`` for every item."""
    if isinstance(iterable, np.ndarray):
        return np.array(np.broadcast_to(g, iterable.shape), dtype=_float_dtype(iterable, g))
    return pieces([tensor.unbroadcast(g, item) for item in iterable])


def mean_grad(g, ans, a, axis=None, keepdims=False):
    count = np.size(a) // max(np.size(ans), 1)
    if axis is None and type(a) is np.ndarray and a.dtype == np.float64 and _is_number(g):
        # g / count once, then spread: the same float64 division for every element
        return np.full(a.shape, float(g) / count)
    return per_item(np.asarray(broadcast_reduced(g, np.asarray(a), axis, keepdims)) / count, a)


@_items_of(2)
def prod_grad(g, ans, a, axis=None, keepdims=False):
    """d prod / d a_i: the product of every other element, exact when some are zero."""
    a = np.asarray(a)
    if a.ndim == 0:
        return g
    axes = _axes(axis, a.ndim)
    ge = expand_reduced(g, a, axis, keepdims)
    if np.all(a != 0):
        anse = expand_reduced(ans, a, axis, keepdims)
        return ge * anse / a
    # Move the reduced axes last, flatten them, and take exclusive prefix and suffix
    # products: others[k] = prod(a[:k]) * prod(a[k+1:]).
    rest = [i for i in range(a.ndim) if i not in axes]
    moved = np.transpose(a, rest + list(axes))
    flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), dtype=flat.dtype)
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.flip(np.concatenate([flat[..., 1:], ones], axis=-1),
                                       axis=-1), axis=-1), axis=-1)
    others = (before * after).reshape(moved.shape)
    others = np.transpose(others, np.argsort(rest + list(axes)))
    return ge * others


@_items_of(2)
def extremum_grad(g, ans, a, axis=None, keepdims=False):
    """The adjoint of max/min: ``g`` split equally among the elements equal to ``ans``."""
    a = np.asarray(a)
    if a.ndim == 0:
        return g
    anse = expand_reduced(ans, a, axis, keepdims)
    hit = a == anse
    count = np.sum(hit, axis=_axes(axis, a.ndim), keepdims=True, dtype=_float_dtype(a, g))
    return expand_reduced(g, a, axis, keepdims) * hit / count


@_items_of(1)
def var_grad(g, a, axis=None, ddof=0, keepdims=False):
    """d var / d a = 2 (a - mean) / (N - ddof)."""
    a = np.asarray(a)
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return expand_reduced(g, a, axis, keepdims) * centered * (2.0 / (n - ddof))


@_items_of(2)
def std_grad(g, ans, a, axis=None, ddof=0, keepdims=False):
    """d std / d a = (a - mean) / ((N - ddof) std)."""
    a = np.asarray(a)
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = a - np.mean(a, axis=axis, keepdims=True)
    scale = expand_reduced(g, a, axis, keepdims) / expand_reduced(ans, a, axis, keepdims)
    return scale * centered * (1.0 / (n - ddof))


def _reverse_cumsum(g, axis):
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


@_items_of(1)
def cumsum_grad(g, a, axis=None):
    if axis is None:
        return np.reshape(_reverse_cumsum(np.ravel(g), 0), np.shape(a))
    return _reverse_cumsum(g, axis)


@_items_of(2)
def cumprod_grad(g, ans, a, axis=None):
    """d cumprod / d a, exact when some elements are zero."""
    a = np.asarray(a)
    if axis is None:
        return np.reshape(cumprod_grad(np.ravel(g), np.ravel(ans), np.ravel(a), 0), a.shape)
    if np.all(a != 0):
        return _reverse_cumsum(g * ans, axis) / a
    # With zeros, out_k depends on a_j (j <= k) through prod_{i <= k, i != j} a_i.
    a_m = np.moveaxis(a, axis, -1)
    g_m = np.moveaxis(_array(g, a), axis, -1)
    out = np.zeros_like(a_m, dtype=np.result_type(a_m, g_m))
    n = a_m.shape[-1]
    for j in range(n):
        masked = a_m.copy()
        masked[..., j] = 1
        partial = np.cumprod(masked, axis=-1)
        out[..., j] = np.sum(g_m[..., j:] * partial[..., j:], axis=-1)
    return np.moveaxis(out, -1, axis)


@_items_of(2)
def norm_grad(g, ans, x, ord=None, axis=None, keepdims=False):
    """d ||x|| / d x for the 2-norm of vectors and the Frobenius norm of matrices."""
    x = np.asarray(x)
    vector = axis is not None and not isinstance(axis, (tuple, list)) or \
        isinstance(axis, (tuple, list)) and len(axis) == 1 or axis is None and x.ndim == 1
    if ord not in (None, "fro") and not (ord == 2 and vector):
        raise NotImplementedError(
            f"the derivative of np.linalg.norm with ord={ord!r} is not implemented "
            "(only the 2-norm of vectors and the Frobenius norm)")
    if axis is None and x.ndim > 2 and ord is not None:
        raise ValueError("Improper number of dimensions to norm.")
    ge = expand_reduced(g, x, axis, keepdims)
    anse = expand_reduced(ans, x, axis, keepdims)
    return ge * x / anse


# ----- Elementwise -----

def sinc_grad(g, x):
    """d sinc(x) / dx = (cos(pi x) - sinc(x)) / x, and 0 at x = 0."""
    x = np.asarray(x)
    safe = np.where(x == 0, np.ones_like(x), x)
    d = (np.cos(np.pi * safe) - np.sinc(safe)) / safe
    return g * np.where(x == 0, np.zeros_like(d), d)


def clip_grads(g, a, a_min, a_max):
    """(d a, d a_min, d a_max) of np.clip, which is minimum(maximum(a, a_min), a_max):
    ``g`` goes to whichever value was chosen (ties to ``a``)."""
    zero = np.zeros((), dtype=_float_dtype(g))
    lifted = a if a_min is None else np.maximum(a, a_min)
    kept = np.ones(np.shape(g), dtype=bool) if a_max is None else \
        np.broadcast_to(np.less_equal(lifted, a_max), np.shape(g))
    from_a = kept if a_min is None else kept & np.greater_equal(a, a_min)
    return (np.where(from_a, g, zero),
            None if a_min is None else np.where(kept & np.less(a, a_min), g, zero),
            None if a_max is None else np.where(~kept, g, zero))


def clip_grad_a(g, a, a_min, a_max):
    return clip_grads(g, a, a_min, a_max)[0]


def clip_grad_min(g, a, a_min, a_max):
    return clip_grads(g, a, a_min, a_max)[1]


def clip_grad_max(g, a, a_min, a_max):
    return clip_grads(g, a, a_min, a_max)[2]


def where_grad(g, condition, branch):
    """The adjoint of one branch of np.where: ``g`` where it was chosen, else 0."""
    zero = np.zeros((), dtype=_float_dtype(g))
    cond = condition if branch else np.logical_not(condition)
    return np.where(cond, g, zero)


def imag_grad(g, x):
    """The adjoint of np.imag: -1j g for complex ``x``; a real ``x`` has imag 0."""
    if np.iscomplexobj(x):
        return -1j * g
    return np.zeros_like(g) if isinstance(g, np.ndarray) else 0.0 * g


def real_grad(g, x):
    return g


# ----- Linear algebra -----

def _T(a):
    return np.swapaxes(a, -1, -2)


_ndarray = np.ndarray
_dot = np.dot


def dot_grad_a(g, a, b):
    """Adjoint of np.dot(a, b) for a: g contracted with b over b's kept axes."""
    if type(g) is _ndarray and type(a) is _ndarray and type(b) is _ndarray \
            and g.ndim == 2 and a.ndim == 2 and b.ndim == 2:
        return _dot(g, b.T)  # the common case, in loops too: one call, no bookkeeping
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return _as_input(tensor.sum_to_shape(np.multiply(g, b), np.shape(a)), a)
    if b_nd == 1:
        return np.multiply.outer(g, b)
    # g has axes a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
    b_kept = list(range(b_nd - 2)) + [b_nd - 1]
    g_axes = list(range(a_nd - 1, np.ndim(g)))
    return np.tensordot(g, b, axes=(g_axes, b_kept))


def dot_grad_b(g, a, b):
    """Adjoint of np.dot(a, b) for b."""
    if type(g) is _ndarray and type(a) is _ndarray and type(b) is _ndarray \
            and a.ndim == 2 and g.ndim == b.ndim and (g.ndim == 2 or g.ndim == 1):
        return _dot(a.T, g)  # matrix-matrix and matrix-vector, one BLAS call
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return _as_input(tensor.sum_to_shape(np.multiply(g, a), np.shape(b)), b)
    g = _array(g, a, b)
    a_lead = list(range(a_nd - 1))
    out = np.tensordot(a, g, axes=(a_lead, a_lead))  # axes: a[-1], b.shape[:-2], b[-1]
    if b_nd == 1:
        return out
    return np.moveaxis(out, 0, -2)


def matmul_grad_a(g, a, b):
    """Adjoint of a @ b for a: g @ b^T, with 1-D promotion and batch broadcasting undone."""
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    g = _array(g, a, b)
    if b_nd == 1:
        ga = np.multiply.outer(g, b) if a_nd > 1 else g * b
    else:
        gx = g[..., None, :] if a_nd == 1 else g
        ga = np.matmul(gx, _T(b))
        if a_nd == 1:
            ga = ga[..., 0, :]
    return tensor.sum_to_shape(ga, np.shape(a))


def matmul_grad_b(g, a, b):
    """Adjoint of a @ b for b: a^T @ g."""
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    g = _array(g, a, b)
    if a_nd == 1:
        if b_nd == 1:
            gb = g * a
        else:
            gb = np.multiply.outer(a, g) if g.ndim == 1 else a[:, None] * g[..., None, :]
    else:
        gx = g[..., None] if b_nd == 1 else g
        gb = np.matmul(_T(a), gx)
        if b_nd == 1:
            gb = gb[..., 0]
    return tensor.sum_to_shape(gb, np.shape(b))


def inner_grad_a(g, a, b):
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return _as_input(tensor.sum_to_shape(np.multiply(g, b), np.shape(a)), a)
    # ans axes: a.shape[:-1] + b.shape[:-1]
    g_axes = list(range(a_nd - 1, np.ndim(g)))
    return np.tensordot(g, b, axes=(g_axes, list(range(b_nd - 1))))


def inner_grad_b(g, a, b):
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return _as_input(tensor.sum_to_shape(np.multiply(g, a), np.shape(b)), b)
    g_axes = list(range(a_nd - 1))
    return np.tensordot(g, a, axes=(g_axes, g_axes))


def outer_grad_a(g, a, b):
    return np.reshape(np.dot(g, np.ravel(b)), np.shape(a))


def outer_grad_b(g, a, b):
    return np.reshape(np.dot(np.ravel(a), g), np.shape(b))


def _tensordot_axes(axes, a_nd):
    if isinstance(axes, (int, np.integer)):
        return list(range(a_nd - axes, a_nd)), list(range(axes))
    ax_a, ax_b = axes
    ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
    ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
    return ax_a, ax_b


def _tensordot_split(a, b, axes):
    """(contracted axes of a, of b, free axes of a, of b), all non-negative."""
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    ax_a, ax_b = _tensordot_axes(axes, a_nd)
    ax_a = [i % a_nd for i in ax_a]
    ax_b = [i % b_nd for i in ax_b]
    a_free = [i for i in range(a_nd) if i not in ax_a]
    b_free = [i for i in range(b_nd) if i not in ax_b]
    return ax_a, ax_b, a_free, b_free


def tensordot_grad_a(g, a, b, axes=2):
    ax_a, ax_b, a_free, b_free = _tensordot_split(a, b, axes)
    g_b = list(range(len(a_free), len(a_free) + len(b_free)))
    # the result's axes: a_free, then b's contracted axes in b's order
    out = np.tensordot(g, b, axes=(g_b, b_free))
    return np.transpose(out, np.argsort(a_free + [ax_a[ax_b.index(j)] for j in sorted(ax_b)]))


def tensordot_grad_b(g, a, b, axes=2):
    ax_a, ax_b, a_free, b_free = _tensordot_split(a, b, axes)
    g_a = list(range(len(a_free)))
    # the result's axes: a's contracted axes in a's order, then b_free
    out = np.tensordot(a, g, axes=(a_free, g_a))
    return np.transpose(out, np.argsort([ax_b[ax_a.index(i)] for i in sorted(ax_a)] + b_free))


def _einsum_spec(subscripts, n):
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise NotImplementedError("the derivative of np.einsum with '...' is not implemented")
    if "->" in spec:
        ins, out = spec.split("->")
    else:
        ins = spec
        letters = ins.replace(",", "")
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    ins = ins.split(",")
    if len(ins) != n:
        raise ValueError(f"einsum: {len(ins)} operand subscripts for {n} operands")
    return ins, out


def einsum_grad(g, subscripts, which, *operands):
    """The adjoint of np.einsum(subscripts, *operands) for operand ``which``."""
    operands = [op for op in operands if op is not None]
    g = _array(g, *operands)
    ins, out = _einsum_spec(subscripts, len(operands))
    target = ins[which]
    x = np.asarray(operands[which])
    sizes = {}
    for sub, op in zip(ins, operands):
        for c, n in zip(sub, np.shape(op)):
            sizes[c] = n
    others = [(s, op) for i, (s, op) in enumerate(zip(ins, operands)) if i != which]
    seen = set(out).union(*(set(s) for s, _ in others))
    unique = "".join(dict.fromkeys(target))
    kept = "".join(c for c in unique if c in seen)
    spec = ",".join([out] + [s for s, _ in others]) + "->" + kept
    partial = np.einsum(spec, g, *[op for _, op in others])
    # letters of x summed away by x alone: the adjoint is constant along them
    full = np.broadcast_to(np.expand_dims(partial, [i for i, c in enumerate(unique)
                                                    if c not in seen]),
                           [sizes[c] for c in unique])
    dtype = np.result_type(x.dtype if x.dtype.kind in "fc" else np.float64, partial.dtype)
    if len(unique) == len(target):
        perm = [unique.index(c) for c in target]
        return np.array(np.transpose(full, perm), dtype=dtype)
    # repeated letters (a diagonal): write onto the diagonal of a zero array
    res = np.zeros(x.shape, dtype=dtype)
    view = np.einsum(f"{target}->{unique}", res)
    view[...] = full
    return res


def trace_grad(g, a, offset=0, axis1=0, axis2=1):
    a = np.asarray(a)
    n, m = a.shape[axis1], a.shape[axis2]
    eye = np.eye(n, m, k=offset, dtype=_float_dtype(a, g))
    out = _array(g, a)[..., None, None] * eye
    return np.moveaxis(out, (-2, -1), (axis1 % a.ndim, axis2 % a.ndim))


def det_grad(g, ans, a):
    """d det(A) / dA = det(A) inv(A)^T (batched)."""
    g = _array(g, a)
    return (g * ans)[..., None, None] * _T(np.linalg.inv(a))


def slogdet_grad(g, a):
    """The adjoint of np.linalg.slogdet for ``a``: only logdet has one, inv(A)^T."""
    glog = _array(g[1], a)
    return glog[..., None, None] * _T(np.linalg.inv(a))


def solve_grad_b(g, ans, a, b):
    if np.ndim(b) == 1:
        return np.linalg.solve(_T(a), g)
    return tensor.sum_to_shape(np.linalg.solve(_T(a), g), np.shape(b))


def solve_grad_a(g, ans, a, b):
    gb = np.linalg.solve(_T(a), g[..., None] if np.ndim(b) == 1 else g)
    x = ans[..., None] if np.ndim(b) == 1 else ans
    return tensor.sum_to_shape(-np.matmul(gb, _T(x)), np.shape(a))


def cholesky_grad(g, ans, a, upper=False):
    """The adjoint of np.linalg.cholesky, which reads only one triangle of ``a``.

    With S = L^-T Phi(L^T G) L^-1 (Murray 2016, Phi = lower triangle with half its
    diagonal), the gradient for a symmetric perturbation is (S + S^T)/2; NumPy reads
    the lower triangle (the upper with upper=True), so the gradient of the function it
    computes puts S + S^T on that triangle off the diagonal and S's diagonal on it.
    """
    L = _T(ans) if upper else ans
    G = _T(g) if upper else g
    n = L.shape[-1]
    phi = np.tril(np.matmul(_T(L), G))
    phi = phi * (1.0 - 0.5 * np.eye(n, dtype=phi.dtype))
    Linv = np.linalg.inv(L)
    S = np.matmul(np.matmul(_T(Linv), phi), Linv)
    sym = S + _T(S)
    diag = np.eye(n, dtype=S.dtype)
    grad = np.tril(sym) - diag * S
    return _T(grad) if upper else grad


# ----- Shape -----

def pieces(items):
    """A 1-D object array of ``items``: indexable like the list, and adding two of them
    adds item by item (a list would concatenate)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def per_item(grad, x):
    """``grad`` for a list or tuple ``x`` as one adjoint per item (nested), so it adds
    to the adjoints other rules give the same list; unchanged for an array ``x``."""
    if isinstance(x, (list, tuple)):
        return pieces([per_item(grad[i], item) for i, item in enumerate(x)])
    return grad


def array_grad(g, a):
    return per_item(g, a)


def transpose_grad(g, axes=None):
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort([a % np.ndim(g) for a in axes]))


def concatenate_grad(g, arrays, axis=0):
    if axis is None:
        g = np.ravel(g)
        axis = 0
        shapes = [np.shape(x) for x in arrays]
        sizes = [int(np.prod(s, dtype=np.intp)) for s in shapes]
    else:
        shapes = [np.shape(x) for x in arrays]
        sizes = [s[axis] for s in shapes]
    cuts = np.cumsum(sizes)[:-1]
    parts = np.split(g, cuts, axis=axis)
    return pieces([np.reshape(p, s) for p, s in zip(parts, shapes)])


def stack_grad(g, arrays, axis=0):
    return pieces([_as_input(np.take(g, i, axis=axis), x) for i, x in enumerate(arrays)])


def hstack_grad(g, tup):
    nd = [np.ndim(x) for x in tup]
    axis = 0 if all(n <= 1 for n in nd) else 1
    return _stacked_pieces(g, tup, np.atleast_1d, axis)


def vstack_grad(g, tup):
    return _stacked_pieces(g, tup, np.atleast_2d, 0)


def _stacked_pieces(g, tup, promote, axis):
    shapes = [np.shape(promote(np.asarray(x))) for x in tup]
    cuts = np.cumsum([s[axis] for s in shapes])[:-1]
    parts = np.split(g, cuts, axis=axis)
    return pieces([_as_input(np.reshape(p, np.shape(x)), x) for p, x in zip(parts, tup)])


def split_grad(g, ans, ary, axis=0):
    """The adjoint of np.split: the pieces' adjoints joined (a zero for an unused piece)."""
    parts = [np.broadcast_to(gi, np.shape(p)) for gi, p in zip(g, ans)]
    dtype = _float_dtype(ary, parts[0] if parts else None)
    return np.concatenate(parts, axis=axis).astype(dtype, copy=False)


def tile_grad(g, A, reps):
    shape = np.shape(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    nd = max(len(shape), len(reps))
    shape_p = (1,) * (nd - len(shape)) + tuple(shape)
    reps_p = (1,) * (nd - len(reps)) + reps
    inter = []
    for r, s in zip(reps_p, shape_p):
        inter += [r, s]
    summed = np.sum(np.reshape(g, inter), axis=tuple(range(0, 2 * nd, 2)))
    return _as_input(np.reshape(summed, shape), A)


def repeat_grad(g, a, repeats, axis=None):
    shape = np.shape(a)
    if axis is None:
        n = int(np.prod(shape, dtype=np.intp))
        idx = np.repeat(np.arange(n), repeats)
        flat = tensor.index_add(np.ravel(g), (n,), _float_dtype(a, g), idx)
        return _as_input(np.reshape(flat, shape), a)
    axis = axis % len(shape)
    idx = np.repeat(np.arange(shape[axis]), repeats)
    key = (slice(None),) * axis + (idx,)
    return tensor.index_add(g, shape, _float_dtype(a, g), key)


def pad_grad(g, array, pad_width, mode="constant"):
    if mode != "constant":
        raise NotImplementedError(
            f"the derivative of np.pad with mode={mode!r} is not implemented (only 'constant')")
    nd = np.ndim(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (nd, 2))
    key = tuple(slice(int(lo), int(lo) + n) for (lo, _), n in zip(widths, np.shape(array)))
    return np.array(_array(g, array)[key])


def diag_grad(g, v, k=0):
    if np.ndim(v) == 1:
        return np.diagonal(g, offset=k).copy()
    out = np.zeros(np.shape(v), dtype=_float_dtype(v, g))
    n = len(g)
    rows = np.arange(n) + max(-k, 0)
    cols = np.arange(n) + max(k, 0)
    out[rows, cols] = g
    return out


def diagonal_grad(g, a, offset=0, axis1=0, axis2=1):
    a = np.asarray(a)
    out = np.zeros(a.shape, dtype=_float_dtype(a, g))
    view = np.moveaxis(out, (axis1 % a.ndim, axis2 % a.ndim), (-2, -1))
    n = np.shape(g)[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    view[..., rows, cols] = g
    return out


def linspace_grads(g, start, stop, num=50, endpoint=True, axis=0):
    """(d start, d stop) of np.linspace: sample k is start + t_k (stop - start)."""
    div = (num - 1) if endpoint else num
    t = np.arange(num, dtype=_float_dtype(g)) / max(div, 1)
    if num == 1:
        t = np.zeros(1, dtype=t.dtype)
    shape = [1] * np.ndim(g)
    shape[axis % max(np.ndim(g), 1)] = num
    t = np.reshape(t, shape)
    g_stop = np.sum(g * t, axis=axis % max(np.ndim(g), 1))
    g_start = np.sum(g, axis=axis % max(np.ndim(g), 1)) - g_stop
    return _as_input(g_start, start), _as_input(g_stop, stop)


def linspace_grad_start(g, start, stop, num=50, endpoint=True, axis=0):
    return linspace_grads(g, start, stop, num, endpoint, axis)[0]


def linspace_grad_stop(g, start, stop, num=50, endpoint=True, axis=0):
    return linspace_grads(g, start, stop, num, endpoint, axis)[1]


# ----- Indexing -----

def getitem_grad(g, x, index):
    """The adjoint of ``x[index]``: ``g`` added at ``index`` into zeros like ``x``.

    For a list or tuple ``x`` the adjoint is an object array (see `pieces`) holding
    ``g`` at ``index`` and a zero like each other item.
    """
    if isinstance(x, (list, tuple)):
        out = pieces([_zero_like(item) for item in x])
        if isinstance(index, slice):
            for k, i in enumerate(range(*index.indices(len(x)))):
                out[i] = out[i] + g[k]
        else:
            out[index] = out[index] + g
        return out
    return tensor.index_add(g, np.shape(x), _float_dtype(x, g), index)


def _zero_like(item):
    if isinstance(item, np.ndarray):
        return np.zeros(item.shape, dtype=_float_dtype(item))
    if isinstance(item, (list, tuple)):
        return pieces([_zero_like(i) for i in item])
    return 0.0


def sort_grad(g, a, axis=-1):
    a = np.asarray(a)
    if axis is None:
        order = np.argsort(a, axis=None, kind="stable")
        out = np.zeros(a.size, dtype=_float_dtype(a, g))
        out[order] = g
        return out.reshape(a.shape)
    order = np.argsort(a, axis=axis, kind="stable")
    out = np.zeros(a.shape, dtype=_float_dtype(a, g))
    np.put_along_axis(out, order, g, axis=axis)
    return out


def take_grad(g, a, indices, axis=None):
    shape = np.shape(a)
    if axis is None:
        n = int(np.prod(shape, dtype=np.intp))
        flat = tensor.index_add(g, (n,), _float_dtype(a, g), np.asarray(indices))
        return np.reshape(flat, shape)
    key = (slice(None),) * (axis % len(shape)) + (np.asarray(indices),)
    return tensor.index_add(g, shape, _float_dtype(a, g), key)


def take_along_axis_grad(g, arr, indices, axis):
    arr = np.asarray(arr)
    if axis is None:
        return take_grad(g, arr, np.ravel(indices), None)
    axis = axis % arr.ndim
    key = []
    for d in range(arr.ndim):
        if d == axis:
            key.append(np.asarray(indices))
        else:
            shp = [1] * arr.ndim
            shp[d] = arr.shape[d]
            key.append(np.arange(arr.shape[d]).reshape(shp))
    return tensor.index_add(g, arr.shape, _float_dtype(arr, g), tuple(key))

