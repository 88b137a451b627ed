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

from . import tensor


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


def _is_complex(x):
    """Whether ``x`` holds complex values (a list: any of its items)."""
    dt = getattr(x, "dtype", None)
    if dt is not None:
        return dt.kind == "c"
    if isinstance(x, (list, tuple)):
        return any(_is_complex(i) for i in x)
    return isinstance(x, complex)


def _as_input(grad, x):
    """``grad`` in the form of ``x``: a Python float for a Python number, else an array;
    its real part when ``x`` is real (a real input's adjoint is real: the convention
    of JAX and autograd, see ``revsrc.rules``)."""
    if getattr(grad, "dtype", None) is not None and grad.dtype.kind == "c" \
            and not _is_complex(x):
        grad = np.real(grad)
    if isinstance(x, numbers.Number) and not isinstance(x, np.generic):
        return grad[()] if isinstance(grad, np.ndarray) and grad.ndim == 0 else grad
    return grad


def _like(grad, x):
    """``grad`` as the adjoint of ``x``: `_as_input`, in ``x``'s own float or complex
    dtype when it has one (helpers that compute in float64 give float32 back)."""
    grad = _as_input(grad, x)
    dt = getattr(x, "dtype", None)
    if dt is not None and dt.kind in "fc" and isinstance(grad, np.ndarray) \
            and grad.dtype != dt:
        grad = grad.astype(dt)
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


def _real_only(x, what):
    """Refuse complex values where a rule does not follow the complex convention (the
    transformation is to refuse them before; this keeps the number from being wrong)."""
    if _is_complex(x):
        refuse(f"{what} of complex values has no derivative rule",
               "differentiate real inputs here (e.g. the real and imaginary parts apart)")


def refuse(message, hint):
    """A coded refusal (E202) raised by the adjoint at run time, for a variant of a
    primitive that has no derivative rule."""
    from .. import errors
    raise errors.NoRule(message, hint=hint)


def not_differentiable(message, hint):
    """A coded refusal (E304): the function has no derivative at these values."""
    from .. import errors
    raise errors.NotDifferentiableHere(message, hint=hint)


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


def _adjoint_of(position):
    """Decorate a helper that returns the adjoint of its argument at ``position``: a real
    argument gets the real part (its product with a complex operand is complex)."""
    def wrap(fn):
        def helper(*args):
            out = fn(*args)
            if type(out) is np.ndarray and out.dtype.kind == "f":
                return out   # the common case: a real array (one check, in loops too)
            return _as_input(out, args[position])
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
    return pieces([_as_input(tensor.unbroadcast(g, item), item) for item in iterable])


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
    _real_only(a, "np.max and np.min")
    a = np.asarray(a)
    if a.ndim == 0:
        return g
    anse = expand_reduced(ans, a, axis, keepdims)
    hit = a == anse
    count = np.sum(hit, axis=_axes(axis, a.ndim), keepdims=True, dtype=_float_dtype(a, g))
    return expand_reduced(g, a, axis, keepdims) * hit / count


@_items_of(1)
def var_grad(g, a, axis=None, ddof=0, keepdims=False):
    """d var / d a = 2 conj(a - mean) / (N - ddof)."""
    a = np.asarray(a)
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = np.conj(a - np.mean(a, axis=axis, keepdims=True))
    return expand_reduced(np.real(g), a, axis, keepdims) * centered * (2.0 / (n - ddof))


@_items_of(2)
def std_grad(g, ans, a, axis=None, ddof=0, keepdims=False):
    """d std / d a = conj(a - mean) / ((N - ddof) std); 0 where there is no spread
    (std is |a - mean| there, and 0 is its subgradient, as for abs)."""
    a = np.asarray(a)
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = np.conj(a - np.mean(a, axis=axis, keepdims=True))
    anse = expand_reduced(ans, a, axis, keepdims)
    spread = anse != 0
    scale = expand_reduced(np.real(g), a, axis, keepdims) / np.where(spread, anse, 1)
    return np.where(spread, scale * centered * (1.0 / (n - ddof)), 0).astype(
        np.result_type(centered, scale), copy=False)


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


def _lanes(a, axis):
    """``a`` with the axes ``axis`` moved last and flattened into one, and the function
    that puts an array of that layout back in ``a``'s."""
    a = np.asarray(a)
    axes = list(_axes(axis, a.ndim))
    rest = [i for i in range(a.ndim) if i not in axes]
    moved = np.transpose(a, rest + axes)
    lanes = moved.reshape(moved.shape[:len(rest)] + (-1,))

    def back(x):
        return np.transpose(np.reshape(x, moved.shape), np.argsort(rest + axes))
    return lanes, back


def _share(hit, axis, dtype):
    """``hit`` (where a value is attained) as weights that split 1 equally among ties."""
    return hit.astype(dtype) / np.sum(hit, axis=axis, keepdims=True, dtype=dtype)


def _dabs(x):
    """d|x|/dx in the convention of ``revsrc.rules``: sign(x) for real x, conj(x)/|x|
    for complex, 0 at 0."""
    return np.conj(np.sign(x))


@_items_of(2)
def median_grad(g, ans, a, axis=None, keepdims=False):
    """The adjoint of np.median: ``g`` to the middle element, or half to each of the two
    middle ones, each split equally among elements of the same value."""
    _real_only(a, "np.median")
    a = np.asarray(a)
    dtype = _float_dtype(a, g)
    lanes, back = _lanes(a, axis)
    n = lanes.shape[-1]
    s = np.sort(lanes, axis=-1)
    lo, hi = s[..., (n - 1) // 2, None], s[..., n // 2, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = 0.5 * (_share(lanes == lo, -1, dtype) + _share(lanes == hi, -1, dtype))
    w = np.where(np.isnan(s[..., -1:]), np.nan, w)  # a nan makes the median nan
    w = back(w)
    # an element the median does not select gets exactly 0, whatever g is (an inf or
    # a nan adjoint reaches only the middle elements, as a gather's adjoint does)
    out = w * expand_reduced(g, a, axis, keepdims)
    return np.where(w == 0, np.zeros((), out.dtype), out)


@_items_of(1)
def nansum_grad(g, a, axis=None, keepdims=False):
    """The adjoint of np.nansum: ``g`` for every element but the nans."""
    a = np.asarray(a)
    ge = expand_reduced(g, a, axis, keepdims)
    return np.where(np.isnan(a), 0, ge).astype(np.result_type(_float_dtype(a, g), ge),
                                               copy=False)


@_items_of(1)
def nanmean_grad(g, a, axis=None, keepdims=False):
    """The adjoint of np.nanmean: ``g`` / count over the elements that are not nan."""
    a = np.asarray(a)
    dtype = _float_dtype(a, g)
    keep = ~np.isnan(a)
    count = np.sum(keep, axis=_axes(axis, a.ndim), keepdims=True, dtype=dtype)
    ge = expand_reduced(g, a, axis, keepdims)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(keep, ge / count, 0).astype(np.result_type(dtype, ge), copy=False)


def average_grads(g, ans, a, axis=None, weights=None, returned=False, keepdims=False):
    """(d a, d weights) of np.average, whose result is (average, sum of weights) with
    ``returned``."""
    x = np.asarray(a)
    dtype = _float_dtype(x, g)
    g_avg, g_sum = (g[0], g[1]) if returned else (g, None)
    if weights is None:
        count = x.size // max(np.size(ans[0] if returned else ans), 1)
        return per_item(_as_input(np.asarray(
            broadcast_reduced(g_avg, x, axis, keepdims)) / count, a), a), None
    w = np.asarray(weights)
    axes = _axes(axis, x.ndim)
    if w.shape != x.shape:
        # 1-D (or one axis per reduced axis) weights, laid along ``axis`` as NumPy does
        order = np.argsort(axes)
        lay = np.transpose(w, order).reshape(
            [n if i in axes else 1 for i, n in enumerate(x.shape)])
    else:
        order, lay = None, w
    total = np.sum(lay, axis=axes, keepdims=True)
    ge = expand_reduced(g_avg, x, axis, keepdims)
    mean = np.sum(x * lay, axis=axes, keepdims=True) / total
    grad_a = ge * lay / total
    grad_w = ge * (x - mean) / total
    if g_sum is not None:
        grad_w = grad_w + expand_reduced(g_sum, x, axis, keepdims)
    if order is not None:
        grad_w = np.sum(grad_w, axis=tuple(i for i in range(x.ndim) if i not in axes))
        grad_w = np.transpose(grad_w, np.argsort(order))
    else:
        grad_w = np.broadcast_to(grad_w, w.shape)
    grad_a = np.asarray(grad_a, dtype=np.result_type(dtype, grad_a))
    grad_w = np.asarray(grad_w, dtype=np.result_type(_float_dtype(w, g), grad_w))
    return (per_item(_as_input(grad_a, a), a),
            per_item(_as_input(grad_w, weights), weights))


def cov_grads(g, ans, m, y=None, rowvar=True, bias=False, ddof=None, aweights=None,
              fweights=None):
    """(d m, d y, d aweights) of np.cov.

    With X the variables in rows (y's below m's), w the weights and Xc = X - mean,
    c = Xc diag(w) Xc^H / fact, so d X = (G + G^H) conj(Xc) diag(w) / fact (the mean's
    own term vanishes because the weighted columns of Xc sum to zero).
    """
    parts = []   # (rows as np.cov lays them, whether they were transposed)
    mm = np.asarray(m)
    flip = not rowvar and mm.ndim != 1
    parts.append((np.atleast_2d(mm).T if flip else np.atleast_2d(mm), flip))
    if y is not None:
        yy = np.atleast_2d(np.asarray(y))
        flip = not rowvar and yy.shape[0] != 1
        parts.append((yy.T if flip else yy, flip))
    X = np.concatenate([p for p, _ in parts], axis=0)
    X = X.astype(np.result_type(X, np.float64), copy=False)
    if ddof is None:
        ddof = 0 if bias else 1
    f = np.ones(X.shape[1]) if fweights is None else np.asarray(fweights, dtype=float)
    aw = None if aweights is None else np.asarray(aweights, dtype=float)
    w = f if aw is None else f * aw
    total = np.sum(w)
    if fweights is None and aweights is None:
        fact = X.shape[1] - ddof
    elif ddof == 0:
        fact = total
    elif aweights is None:
        fact = total - ddof
    else:
        fact = total - ddof * np.sum(w * aw) / total
    Xc = X - (X @ w / total)[:, None]
    G = np.reshape(np.asarray(g), (X.shape[0], X.shape[0]))
    grad_X = (G + np.conj(G).T) @ (np.conj(Xc) * w) / fact
    grads = []
    start = 0
    for (rows, flip), src in zip(parts, (m, y)):
        part = grad_X[start:start + rows.shape[0]]
        start += rows.shape[0]
        part = np.reshape(part.T if flip else part, np.shape(src))
        grads.append(per_item(_like(part, src), src))
    if y is None:
        grads.append(None)
    grad_aw = None
    if aweights is not None:
        # dc/da_j = f_j xc_j xc_j^H / fact - c dfact/da_j / fact
        spread = np.einsum("pq,pj,qj->j", G, Xc, np.conj(Xc))
        if ddof == 0:
            dfact = f
        else:
            dfact = f - ddof * (2 * f * aw * total - np.sum(w * aw) * f) / total ** 2
        c = Xc @ (np.conj(Xc) * w).T / fact
        grad_aw = np.real(f * spread / fact - np.sum(G * c) / fact * dfact)
        grad_aw = per_item(_like(grad_aw, aweights), aweights)
    return grads[0], grads[1], grad_aw


@_items_of(2)
def accumulate_extremum_grad(g, ans, a, axis=0, larger=True):
    """The adjoint of np.maximum.accumulate (np.minimum's with ``larger`` False): each
    running extremum's adjoint goes to the element it was taken from, the earliest of
    equal ones (np.maximum's rule gives a tie to its first argument, the running one)."""
    _real_only(a, "np.maximum.accumulate and np.minimum.accumulate")
    a = np.asarray(a)
    axis = 0 if axis is None else axis % max(a.ndim, 1)
    am = np.moveaxis(a, axis, -1)
    prev = np.moveaxis(np.asarray(ans), axis, -1)[..., :-1]
    new = am[..., 1:] > prev if larger else am[..., 1:] < prev
    steps = np.arange(am.shape[-1])
    first = np.ones(am.shape[:-1] + (1,), dtype=bool)
    source = np.maximum.accumulate(
        np.where(np.concatenate([first, new], axis=-1), steps, 0), axis=-1)
    return take_along_axis_grad(g, a, np.moveaxis(source, -1, axis), axis)


@_items_of(2)
def norm_grad(g, ans, x, ord=None, axis=None, keepdims=False):
    """d ||x|| / d x for every norm np.linalg.norm computes: vector p-norms (inf, -inf
    and 0 included) and the matrix norms 1, -1, inf, -inf, 2, -2, 'fro' and 'nuc'.
    Maxima and minima share the adjoint among ties, as np.max does."""
    x = np.asarray(x)
    nd = x.ndim
    g = np.real(g)   # a norm is real
    flat = ord is None or ord in ("f", "fro") and nd == 2 or ord == 2 and nd == 1
    if axis is None and flat:
        anse = expand_reduced(ans, x, None, keepdims)
        return _norm_ratio(expand_reduced(g, x, None, keepdims), np.conj(x), anse)
    axes = tuple(range(nd)) if axis is None else \
        (tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    axes = tuple(int(i) % nd for i in axes)
    ge = expand_reduced(g, x, axes, keepdims)
    anse = expand_reduced(ans, x, axes, keepdims)
    dtype = _float_dtype(x, g)
    absx = np.abs(x)
    if len(axes) == 1:
        if ord is None or ord == 2:
            return _norm_ratio(ge, np.conj(x), anse)
        if ord == 0:
            return np.zeros(x.shape, dtype=np.result_type(dtype, ge))
        if ord == 1:
            return ge * _dabs(x)
        if ord in (np.inf, -np.inf):
            return ge * _share(absx == anse, axes, dtype) * _dabs(x)
        # (sum |x|^p)^(1/p): |x|^(p-1) d|x| / ||x||^(p-1); 0 where x or the norm is 0
        safe = np.where(anse == 0, 1, anse)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where((absx == 0) | (anse == 0), 0, (absx / safe) ** (ord - 1))
        return ge * ratio.astype(absx.dtype, copy=False) * _dabs(x)
    row, col = axes
    if ord in (None, "fro", "f"):
        return _norm_ratio(ge, np.conj(x), anse)
    if ord in (1, -1, np.inf, -np.inf):
        along = row if ord in (1, -1) else col  # summed: rows for the column sums
        sums = np.sum(absx, axis=along, keepdims=True)
        return ge * _share(sums == anse, axes, dtype) * _dabs(x)
    # 2, -2 and 'nuc' read the singular values of each matrix
    moved = np.moveaxis(x, (row, col), (-2, -1))
    u, s, vh = np.linalg.svd(moved, full_matrices=False)
    if ord == "nuc":
        w = np.ones_like(s)
    else:
        w = _share(s == (np.max if ord == 2 else np.min)(s, -1, keepdims=True), -1, s.dtype)
    grad = np.conj(np.matmul(u * w[..., None, :], vh))
    grad = np.moveaxis(grad, (-2, -1), (row, col))
    return ge * grad.astype(np.result_type(dtype, grad), copy=False)


def _norm_ratio(ge, conj_x, anse):
    """ge conj(x) / ||x||, and 0 where the norm is 0 (its subgradient there)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(anse == 0, 0, ge * conj_x / np.where(anse == 0, 1, anse)).astype(
            np.result_type(conj_x, ge), copy=False)


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
    _real_only(a, "np.clip")
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
    """The adjoint of np.imag: -1j g for complex ``x`` (imag z = (z - conj z) / 2i);
    a real ``x`` has imag 0."""
    if np.iscomplexobj(x):
        return -1j * np.real(g)
    return np.zeros_like(g) if isinstance(g, np.ndarray) else 0.0 * g


def real_grad(g, x):
    """The adjoint of np.real: ``g`` itself (real, as np.real's result is)."""
    return np.real(g) if np.iscomplexobj(g) else g


def astype_grad(g, x):
    """The adjoint of x.astype(dtype): ``g`` in x's dtype (its real part for a real x
    cast to complex)."""
    return _like(g, x)


def angle_grad(g, z, deg=False):
    """d angle(z) / dz = -1j / z for complex z (angle is Im log z); 0 for real z,
    where the angle is 0 or pi."""
    scale = 57.29577951308232 if deg else 1.0
    if _is_complex(z):
        return np.real(g) * (-1j * scale) / z
    return _like(np.zeros(np.shape(z)) * g, z)


def real_if_close_grad(g, a):
    """np.real_if_close returns ``a`` or its real part: either way ``g`` itself."""
    return _like(_array(g, a), a)


def nan_to_num_grads(g, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """(d x, d nan, d posinf, d neginf) of np.nan_to_num: ``g`` to the finite elements
    of ``x`` and, summed, to the value that replaced each kind of non-finite one. A
    complex ``x`` has its real and imaginary parts replaced apart."""
    if not copy and isinstance(x, np.ndarray):
        # x was repaired in place: where it was not finite is lost
        refuse("np.nan_to_num(..., copy=False) writes into its argument, so its "
               "derivative cannot be told", "leave copy=True (the default)")
    x = np.asarray(x)
    g = np.asarray(_array(g, x))
    if _is_complex(x):
        grad_x = np.where(np.isfinite(x.real), g.real, 0) \
            + 1j * np.where(np.isfinite(x.imag), g.imag, 0)
        # out = re + i im: a replaced real part pairs with Re g, an imaginary with -Im g
        parts = ((x.real, np.real(g)), (x.imag, -np.imag(g)))
    else:
        grad_x = np.where(np.isfinite(x), g, 0)
        parts = ((x, g),)

    def total(test):
        return np.asarray(sum(np.sum(np.where(test(v), gv, 0)) for v, gv in parts))
    return (_like(grad_x, x), _like(total(np.isnan), nan),
            None if posinf is None else _like(total(np.isposinf), posinf),
            None if neginf is None else _like(total(np.isneginf), neginf))


def select_grads(g, condlist, choicelist, default=0):
    """(d choicelist, d default) of np.select: ``g`` goes where each choice was taken,
    the first whose condition holds, and to ``default`` where none does."""
    free = np.ones(np.shape(g), dtype=bool)
    grads = []
    dtype = np.result_type(*[_float_dtype(c) for c in choicelist], _float_dtype(default))
    zero = np.zeros((), dtype=np.result_type(dtype, _array(g, default)))
    for cond, choice in zip(condlist, choicelist):
        taken = free & cond
        free = free & ~np.asarray(cond, dtype=bool)
        grads.append(_like(tensor.sum_to_shape(np.where(taken, g, zero), np.shape(choice)),
                           choice))
    return (_joined(grads, choicelist),
            _like(tensor.unbroadcast(np.where(free, g, zero), default), default))


def xlogy_grad_y(g, x, y):
    """d (x log y) / dy = x / y, and 0 where x is 0 (x log y is 0 there for every y)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.equal(x, 0), 0, g * np.divide(x, y))


def logsumexp_grads(g, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    """(d a, d b) of scipy.special.logsumexp: with S = sum b exp(a) and the result
    log |S|, d a = b exp(a) / S and d b = exp(a) / S (the sign is piecewise constant)."""
    _real_only(a, "scipy.special.logsumexp")
    x = np.asarray(a)
    value, sign = (ans[0], ans[1]) if return_sign else (ans, None)
    gv = g[0] if return_sign else g
    ge = expand_reduced(gv, x, axis, keepdims)
    scale = np.exp(x - expand_reduced(value, x, axis, keepdims))
    if sign is not None:
        scale = scale * expand_reduced(sign, x, axis, keepdims)
    grad_a = ge * scale if b is None else ge * scale * b
    grad_b = None if b is None else \
        per_item(_like(tensor.sum_to_shape(ge * scale, np.shape(b)), b), b)
    return per_item(_like(grad_a, a), a), grad_b


# ----- Differences, integrals, interpolation, polynomials, convolution -----

def _along(x, axis):
    """A view of ``x`` with ``axis`` last."""
    return np.moveaxis(x, axis, -1)


def diff_grads(g, a, n=1, axis=-1, prepend=None, append=None):
    """(d a, d prepend, d append) of np.diff: each difference's adjoint is minus one
    of the next (x_i gets g_{i-1} - g_i), applied ``n`` times to the joined array."""
    x = np.asarray(a)
    axis = axis % x.ndim
    gm = _along(np.asarray(_array(g, x)), axis)
    for _ in range(n):
        zero = np.zeros(gm.shape[:-1] + (1,), dtype=gm.dtype)
        gm = -np.diff(np.concatenate([zero, gm, zero], axis=-1), axis=-1)
    pre = 0 if prepend is None else (1 if np.ndim(prepend) == 0 else
                                      np.shape(prepend)[axis])
    grads = [gm[..., pre:pre + x.shape[axis]]]
    for extra, span in ((prepend, slice(0, pre)), (append, slice(pre + x.shape[axis], None))):
        if extra is None:
            grads.append(None)
            continue
        part = np.moveaxis(gm[..., span], -1, axis)
        part = np.sum(part) if np.ndim(extra) == 0 else part
        grads.append(per_item(_like(np.asarray(part), extra), extra))
    grads[0] = _like(np.moveaxis(grads[0], -1, axis), a)
    return tuple(grads)


def _stencil(n, spacing, edge_order):
    """np.gradient's three-point stencil along an axis of ``n`` points, as coefficient
    rows (before, at, after) for the interior and the two edges."""
    if np.ndim(spacing) == 0:
        dx = np.full(n - 1, float(spacing))
    else:
        dx = np.diff(np.asarray(spacing, dtype=np.float64))
    d1, d2 = dx[:-1], dx[1:]
    inner = (-d2 / (d1 * (d1 + d2)), (d2 - d1) / (d1 * d2), d1 / (d2 * (d1 + d2)))
    if edge_order == 1:
        first = (-1.0 / dx[0], 1.0 / dx[0], 0.0)          # at 0, 1, 2
        last = (0.0, -1.0 / dx[-1], 1.0 / dx[-1])          # at n-3, n-2, n-1
    else:
        a, b = dx[0], dx[1]
        first = (-(2 * a + b) / (a * (a + b)), (a + b) / (a * b), -a / (b * (a + b)))
        a, b = dx[-2], dx[-1]
        last = (b / (a * (a + b)), -(a + b) / (a * b), (2 * b + a) / (b * (a + b)))
    return inner, first, last


def _gradient_axis_adjoint(gm, spacing, edge_order):
    """The adjoint of one axis of np.gradient, that axis last in ``gm``."""
    n = gm.shape[-1]
    inner, first, last = _stencil(n, spacing, edge_order)
    out = np.zeros(gm.shape, dtype=gm.dtype)
    mid = gm[..., 1:-1]
    out[..., :-2] += mid * inner[0].astype(gm.real.dtype)
    out[..., 1:-1] += mid * inner[1].astype(gm.real.dtype)
    out[..., 2:] += mid * inner[2].astype(gm.real.dtype)
    for k, c in enumerate(first):
        if k < n:
            out[..., k] += gm[..., 0] * c
    for k, c in enumerate(last):
        if n - 3 + k >= 0:
            out[..., n - 3 + k] += gm[..., -1] * c
    return out


def _gradient_layout(f, spacings, axis):
    """np.gradient's axes and the spacing of each (a number or coordinates)."""
    nd = np.ndim(f)
    axes = list(range(nd)) if axis is None else \
        [int(i) % nd for i in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    given = [s for s in spacings if s is not None]
    if not given:
        given = [1.0] * len(axes)
    elif len(given) == 1:
        given = given * len(axes)
    return axes, given


def gradient_grad(g, f, s0=None, s1=None, s2=None, s3=None, axis=None, edge_order=1):
    """The adjoint of np.gradient for ``f``: each axis's stencil transposed."""
    x = np.asarray(f)
    axes, spacing = _gradient_layout(x, (s0, s1, s2, s3), axis)
    outs = [g] if len(axes) == 1 else list(g)
    grad = np.zeros(x.shape, dtype=np.result_type(_float_dtype(x), *[
        _array(o, x) for o in outs]))
    for ax, h, go in zip(axes, spacing, outs):
        gm = _along(np.broadcast_to(_array(go, x), x.shape), ax)
        grad = grad + np.moveaxis(_gradient_axis_adjoint(gm, h, edge_order), -1, ax)
    return _like(grad, f)


def gradient_spacing_grad(g, ans, f, which, s0=None, s1=None, s2=None, s3=None,
                          axis=None):
    """The adjoint of np.gradient for its spacing argument ``which``: a number h scales
    the result along its axes by 1/h; coordinates have no rule."""
    spacing = (s0, s1, s2, s3)[which]
    if np.ndim(spacing) != 0:
        refuse("np.gradient's coordinate arrays have no derivative rule",
               "differentiate with respect to the values only, or pass a uniform "
               "spacing as a number")
    axes, _ = _gradient_layout(f, (s0, s1, s2, s3), axis)
    given = [s for s in (s0, s1, s2, s3) if s is not None]
    mine = range(len(axes)) if len(given) == 1 else [which]
    outs = [g] if len(axes) == 1 else list(g)
    vals = [ans] if len(axes) == 1 else list(ans)
    total = sum(np.sum(outs[k] * vals[k]) for k in mine)
    return _like(np.asarray(-total / spacing), spacing)


def trapezoid_grads(g, y, x=None, dx=1.0, axis=-1):
    """(d y, d x, d dx) of np.trapezoid: sum_i d_i (y_i + y_(i+1)) / 2."""
    yv = np.asarray(y)
    axis = axis % yv.ndim
    ym = _along(yv, axis)
    n = ym.shape[-1]
    ge = np.asarray(_array(g, yv))[..., None]
    if x is None:
        d = np.full(n - 1, dx)
    else:
        xv = np.asarray(x)
        d = np.diff(xv) if xv.ndim == 1 else _along(np.diff(xv, axis=axis), axis)
    zero = np.zeros(np.shape(d)[:-1] + (1,), dtype=np.result_type(d, float))
    padded = np.concatenate([zero, d, zero], axis=-1) if np.ndim(d) else d
    grad_y = ge * (padded[..., :-1] + padded[..., 1:]) / 2
    halves = (ym[..., :-1] + ym[..., 1:]) / 2
    grad_x = grad_dx = None
    if x is not None:
        zero = np.zeros(halves.shape[:-1] + (1,), dtype=halves.dtype)
        gx = -np.diff(np.concatenate([zero, halves, zero], axis=-1), axis=-1) * ge
        if np.ndim(x) == 1:
            gx = np.sum(gx.reshape(-1, n), axis=0)
        else:
            gx = np.moveaxis(gx, -1, axis)
        grad_x = per_item(_like(gx, x), x)
    elif dx is not None:
        grad_dx = _like(np.asarray(np.sum(ge * halves)), dx)
    return (_like(np.moveaxis(np.broadcast_to(grad_y, ym.shape), -1, axis), y),
            grad_x, grad_dx)


def interp_grads(g, x, xp, fp, left=None, right=None, period=None):
    """(d x, d xp, d fp, d left, d right) of np.interp: on segment j,
    f = fp_j + s (x - xp_j) with slope s. At a knot the segment to its right is used
    (the last knot: the one to its left); outside the knots, the end value."""
    xv = np.asarray(x, dtype=np.float64)
    knots = np.asarray(xp, dtype=np.float64)
    values = np.asarray(fp)
    order = None
    if period is not None:
        period = abs(period)
        xv = xv % period
        order = np.argsort(knots % period)
        knots = (knots % period)[order]
        knots = np.concatenate([knots[-1:] - period, knots, knots[:1] + period])
        values = np.concatenate([values[order][-1:], values[order], values[order][:1]])
        left = right = None
    gv = np.broadcast_to(np.asarray(_array(g, values)), xv.shape)
    n = knots.shape[0]
    fdt = np.result_type(values, np.float64)
    bar_fp = np.zeros(n, dtype=np.result_type(fdt, gv))
    bar_xp = np.zeros(n, dtype=np.result_type(fdt, gv))
    below, above = xv < knots[0], xv > knots[-1]
    if n == 1:
        grad_x = np.zeros(xv.shape, dtype=bar_fp.dtype)
        bar_fp[0] += np.sum(gv[xv == knots[0]])
    else:
        inside = ~below & ~above
        j = np.clip(np.searchsorted(knots, xv, side="right") - 1, 0, n - 2)
        x0, x1 = knots[j], knots[j + 1]
        slope = (values[j + 1] - values[j]) / (x1 - x0)
        t = (xv - x0) / (x1 - x0)
        gin = np.where(inside, gv, 0)
        grad_x = gin * slope
        np.add.at(bar_fp, j, gin * (1 - t))
        np.add.at(bar_fp, j + 1, gin * t)
        np.add.at(bar_xp, j, -gin * slope * (1 - t))
        np.add.at(bar_xp, j + 1, -gin * slope * t)
    grad_left = grad_right = None
    for side, mask, end in ((0, below, left), (-1, above, right)):
        total = np.sum(gv[mask])
        if end is None:
            bar_fp[side] += total
        elif side == 0:
            grad_left = _like(np.asarray(total), left)
        else:
            grad_right = _like(np.asarray(total), right)
    if order is not None:
        # the ends copied the last and first knots: their adjoints go back there
        fold_fp = bar_fp[1:-1].copy()
        fold_fp[-1] += bar_fp[0]
        fold_fp[0] += bar_fp[-1]
        fold_xp = bar_xp[1:-1].copy()
        fold_xp[-1] += bar_xp[0]
        fold_xp[0] += bar_xp[-1]
        bar_fp = np.empty_like(fold_fp)
        bar_fp[order] = fold_fp
        bar_xp = np.empty_like(fold_xp)
        bar_xp[order] = fold_xp
    return (_like(grad_x, x), per_item(_like(bar_xp, xp), xp),
            per_item(_like(bar_fp, fp), fp), grad_left, grad_right)


def interp_period_grad(period):
    refuse("np.interp has no derivative rule for its period",
           "differentiate with respect to x, xp or fp only")


def polyval_grads(g, p, x):
    """(d p, d x) of np.polyval, which is Horner's rule y <- y x + p_k."""
    coeffs = [np.asarray(c) for c in np.asarray(p)] if not isinstance(p, (list, tuple)) \
        else [np.asarray(c) for c in p]
    xv = np.asarray(x)
    partial = [np.zeros_like(xv)]
    for c in coeffs[:-1]:
        partial.append(partial[-1] * xv + c)
    bar = np.asarray(_array(g, xv, *coeffs))
    bar_x = np.zeros(np.broadcast_shapes(bar.shape, xv.shape), dtype=np.result_type(
        bar, _float_dtype(xv)))
    bar_p = []
    for k in range(len(coeffs) - 1, -1, -1):
        bar_p.append(tensor.sum_to_shape(bar, coeffs[k].shape))
        bar_x = bar_x + bar * partial[k]
        bar = bar * xv
    bar_p.reverse()
    grad_p = _joined(bar_p, p) if isinstance(p, (list, tuple)) else \
        _like(np.asarray(bar_p).reshape(np.shape(p)), p)
    return grad_p, _like(tensor.unbroadcast(bar_x, x), x)


def _convolve_full(g, n, m, mode):
    """The adjoint of np.convolve's output ``mode`` as an adjoint of its full output."""
    full = n + m - 1
    if mode == "full":
        return g
    start = (min(n, m) - 1) // 2 if mode == "same" else min(n, m) - 1
    out = np.zeros(full, dtype=g.dtype)
    out[start:start + g.shape[0]] = g
    return out


def convolve_grads(g, a, v, mode="full"):
    """(d a, d v) of np.convolve: correlations of the full output's adjoint."""
    av, vv = np.atleast_1d(np.asarray(a)), np.atleast_1d(np.asarray(v))
    gf = _convolve_full(np.asarray(_array(g, av, vv)), av.shape[0], vv.shape[0], mode)
    grad_a = np.convolve(gf, vv[::-1], "valid")
    grad_v = np.convolve(gf, av[::-1], "valid")
    return (_like(np.reshape(grad_a, np.shape(a)), a),
            _like(np.reshape(grad_v, np.shape(v)), v))


# ----- Fourier transforms -----

def _fit(x, n, axis):
    """``x`` cut or zero-padded to length ``n`` along ``axis`` (the adjoint of np.fft's
    own cut or padding to its ``n``)."""
    have = x.shape[axis]
    if have == n:
        return x
    if have > n:
        return np.take(x, np.arange(n), axis=axis)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, n - have)
    return np.pad(x, pad)


def fft_grad(g, a, n=None, axis=-1, norm=None, inverse=False):
    """The adjoint of np.fft.fft (ifft with ``inverse``): the DFT matrix is symmetric,
    so its transpose is the same transform, with the same normalization."""
    x = np.asarray(a)
    transform = np.fft.ifft if inverse else np.fft.fft
    out = transform(np.asarray(_array(g, x)), axis=axis, norm=norm)
    return _like(_fit(out, x.shape[axis], axis), a)


def rfft_grad(g, a, n=None, axis=-1, norm=None):
    """The adjoint of np.fft.rfft: the half spectrum's adjoint, zero-extended to the
    full one, through the (symmetric) DFT; real, since the input is."""
    x = np.asarray(a)
    size = x.shape[axis] if n is None else n
    gv = np.asarray(_array(g, x))
    full = _fit(gv, size, axis)
    return _like(_fit(np.real(np.fft.fft(full, axis=axis, norm=norm)), x.shape[axis], axis),
                 a)


def irfft_grad(g, a, n=None, axis=-1, norm=None):
    """The adjoint of np.fft.irfft. Its output is real and reads each coefficient k
    (0 < k < n/2) twice, as y_k and as conj(y_k), so y_k's adjoint is twice the inverse
    transform's coefficient; y_0 and, for even n, y_(n/2) are read once (their
    imaginary parts not at all)."""
    x = np.asarray(a)
    size = 2 * (x.shape[axis] - 1) if n is None else n
    gv = np.asarray(_array(g, x))
    spec = np.fft.ifft(gv, axis=axis, norm=norm)
    half = np.take(spec, np.arange(size // 2 + 1), axis=axis)
    weight = np.full(size // 2 + 1, 2.0, dtype=spec.real.dtype)
    weight[0] = 1.0
    if size % 2 == 0:
        weight[-1] = 1.0
    shape = [1] * half.ndim
    shape[axis] = -1
    half = half * weight.reshape(shape)
    return _like(_fit(half, x.shape[axis], axis), a)


# ----- Linear algebra -----

def _T(a):
    return np.swapaxes(a, -1, -2)


_ndarray = np.ndarray
_dot = np.dot


@_adjoint_of(1)
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


@_adjoint_of(2)
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


@_adjoint_of(1)
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


@_adjoint_of(2)
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


@_adjoint_of(1)
def inner_grad_a(g, a, b):
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return _as_input(tensor.sum_to_shape(np.multiply(g, b), np.shape(a)), a)
    # ans axes: a.shape[:-1] + b.shape[:-1]
    g_axes = list(range(a_nd - 1, np.ndim(g)))
    return np.tensordot(g, b, axes=(g_axes, list(range(b_nd - 1))))


@_adjoint_of(2)
def inner_grad_b(g, a, b):
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return _as_input(tensor.sum_to_shape(np.multiply(g, a), np.shape(b)), b)
    g_axes = list(range(a_nd - 1))
    return np.tensordot(g, a, axes=(g_axes, g_axes))


@_adjoint_of(1)
def outer_grad_a(g, a, b):
    return np.reshape(np.dot(g, np.ravel(b)), np.shape(a))


@_adjoint_of(2)
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


@_adjoint_of(1)
def tensordot_grad_a(g, a, b, axes=2):
    ax_a, ax_b, a_free, b_free = _tensordot_split(a, b, axes)
    g_b = list(range(len(a_free), len(a_free) + len(b_free)))
    # the result's axes: a_free, then b's contracted axes in b's order
    out = np.tensordot(g, b, axes=(g_b, b_free))
    return np.transpose(out, np.argsort(a_free + [ax_a[ax_b.index(j)] for j in sorted(ax_b)]))


@_adjoint_of(2)
def tensordot_grad_b(g, a, b, axes=2):
    ax_a, ax_b, a_free, b_free = _tensordot_split(a, b, axes)
    g_a = list(range(len(a_free)))
    # the result's axes: a's contracted axes in a's order, then b_free
    out = np.tensordot(a, g, axes=(a_free, g_a))
    return np.transpose(out, np.argsort([ax_b[ax_a.index(i)] for i in sorted(ax_a)] + b_free))


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_OPTIMIZE_PATH = "einsum_path"


def _sublist(labels):
    return "".join("..." if c is Ellipsis else _LETTERS[int(c)] for c in labels)


def _einsum_parse(args):
    """np.einsum's arguments, in either form, as (input subscripts, output subscripts,
    operands, each operand's position among ``args``), '...' spelled out in letters
    of its own and the implicit output made explicit."""
    args = list(args)
    while args and args[-1] is None:
        args.pop()
    if isinstance(args[0], str):
        spec = args[0].replace(" ", "")
        operands, where = args[1:], list(range(1, len(args)))
        ins, arrow, out = spec.partition("->")
        ins = ins.split(",")
        out = out if arrow else None
    else:
        # op0, sublist0, op1, sublist1, ..., and the output's sublist last, if given
        out = _sublist(args.pop()) if len(args) % 2 else None
        operands, where = args[0::2], list(range(0, len(args), 2))
        ins = [_sublist(s) for s in args[1::2]]
    if len(ins) != len(operands):
        raise ValueError(f"einsum: {len(ins)} operand subscripts for {len(operands)} operands")
    used = set("".join(ins) + (out or ""))
    spare = [c for c in _LETTERS if c not in used]
    width = max([np.ndim(op) - (len(s) - 3) for s, op in zip(ins, operands) if "..." in s],
                default=0)
    dots = "".join(spare[:width])
    ins = [s.replace("...", dots[width - (np.ndim(op) - (len(s) - 3)):]) if "..." in s
           else s for s, op in zip(ins, operands)]
    if out is None:
        letters = "".join(ins).replace(".", "")
        out = dots + "".join(sorted(c for c in set(letters) - set(dots)
                                    if letters.count(c) == 1))
    else:
        out = out.replace("...", dots)
    return ins, out, operands, where


def einsum_grad(g, which, args):
    """The adjoint of np.einsum(*args) for the operand at position ``which`` of
    ``args`` (subscripts or sublists, and '...', as np.einsum reads them; the last
    item is ``optimize``)."""
    *args, optimize = args
    if args[-1] is not None and not (isinstance(optimize, (bool, str)) or (
            isinstance(optimize, (list, tuple)) and optimize[:1] == [_OPTIMIZE_PATH])):
        refuse(f"np.einsum with more than {len(args) - 1} operands has no derivative rule",
               "contract in two einsum calls")
    ins, out, operands, where = _einsum_parse(args)
    k = where.index(which)
    g = _array(g, *operands)
    target = ins[k]
    x = np.asarray(operands[k])
    others = [(s, op) for i, (s, op) in enumerate(zip(ins, operands)) if i != k]
    seen = set(out).union(*(set(s) for s, _ in others))
    unique = "".join(dict.fromkeys(target))
    kept = "".join(c for c in unique if c in seen)
    spec = ",".join([out] + [s for s, _ in others]) + "->" + kept
    partial = np.einsum(spec, g, *[op for _, op in others])
    size = dict(zip(target, x.shape))
    # a letter of size 1 in x that the others broadcast: summed back
    wide = tuple(i for i, c in enumerate(kept) if partial.shape[i] != size[c])
    if wide:
        partial = np.sum(partial, axis=wide, keepdims=True)
    # letters of x summed away by x alone: the adjoint is constant along them
    full = np.broadcast_to(np.expand_dims(partial, [i for i, c in enumerate(unique)
                                                    if c not in seen]),
                           [size[c] for c in unique])
    dtype = np.result_type(x.dtype if x.dtype.kind in "fc" else np.float64, partial.dtype)
    if len(unique) == len(target):
        perm = [unique.index(c) for c in target]
        return _like(np.array(np.transpose(full, perm), dtype=dtype), operands[k])
    # repeated letters (a diagonal): write onto the diagonal of a zero array
    res = np.zeros(x.shape, dtype=dtype)
    view = np.einsum(f"{target}->{unique}", res)
    view[...] = full
    return _like(res, operands[k])


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


def slogdet_grad(g, ans, a):
    """The adjoint of np.linalg.slogdet for ``a``. With h = log det A (whose derivative
    is inv(A)^T), logdet = Re h and sign = exp(i Im h): the sign is piecewise constant
    for a real ``a``, and turns with Im h for a complex one."""
    sign = np.asarray(ans[0])
    h_bar = np.asarray(_array(g[1], a)) + 0j * sign
    if np.iscomplexobj(sign):
        h_bar = h_bar - 1j * np.real(1j * np.asarray(_array(g[0], a)) * sign)
    return _like(h_bar[..., None, None] * _T(np.linalg.inv(a)), a)


@_adjoint_of(3)
def solve_grad_b(g, ans, a, b):
    if np.ndim(b) == 1:
        return np.linalg.solve(_T(a), g)
    return tensor.sum_to_shape(np.linalg.solve(_T(a), g), np.shape(b))


@_adjoint_of(2)
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
    _real_only(a, "np.linalg.cholesky")
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


def kron_grads(g, a, b):
    """(d a, d b) of np.kron: block (i, j) of the result is a_i b_j, so the adjoint
    viewed as (a0, b0, a1, b1, ...) contracts with b for a and with a for b."""
    av, bv = np.asarray(a), np.asarray(b)
    nd = max(av.ndim, bv.ndim)
    sa = (1,) * (nd - av.ndim) + av.shape
    sb = (1,) * (nd - bv.ndim) + bv.shape
    gv = np.reshape(_array(g, av, bv), [n for pair in zip(sa, sb) for n in pair])
    gv = np.transpose(gv, list(range(0, 2 * nd, 2)) + list(range(1, 2 * nd, 2)))
    grad_a = np.tensordot(gv, np.reshape(bv, sb),
                          axes=(list(range(nd, 2 * nd)), list(range(nd))))
    grad_b = np.tensordot(np.reshape(av, sa), gv, axes=(list(range(nd)), list(range(nd))))
    return (_like(np.reshape(grad_a, av.shape), a), _like(np.reshape(grad_b, bv.shape), b))


def cross_grads(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """(d a, d b) of np.cross. For 3-vectors, c = a x b gives d a = b x g and
    d b = g x a; 2-vectors are 3-vectors with z = 0 (two of them make the z component
    alone, with no axis of its own)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    am = np.moveaxis(np.asarray(a), axisa, -1)
    bm = np.moveaxis(np.asarray(b), axisb, -1)
    na, nb = am.shape[-1], bm.shape[-1]

    def to3(v):
        if v.shape[-1] == 3:
            return v
        return np.concatenate([v, np.zeros(v.shape[:-1] + (1,), dtype=v.dtype)], axis=-1)
    gv = np.asarray(_array(g, am, bm))
    if na == 2 and nb == 2:
        zero = np.zeros_like(gv)
        g3 = np.stack([zero, zero, gv], axis=-1)
    else:
        g3 = np.moveaxis(gv, axisc, -1)
    grad_a = np.cross(to3(bm), g3)[..., :na]
    grad_b = np.cross(g3, to3(am))[..., :nb]
    grad_a = np.moveaxis(tensor.sum_to_shape(grad_a, am.shape), -1, axisa)
    grad_b = np.moveaxis(tensor.sum_to_shape(grad_b, bm.shape), -1, axisb)
    return _like(grad_a, a), _like(grad_b, b)


def matrix_power_grad(g, a, n):
    """d A^n: sum_k (A^T)^k G (A^T)^(n-1-k); a negative n goes through inv(A)."""
    x = np.asarray(a)
    g = np.asarray(_array(g, x))
    if n == 0:
        return _like(np.zeros(x.shape, dtype=np.result_type(x, g)), a)
    base = x if n > 0 else np.linalg.inv(x)
    bt = _T(base)
    powers = [None, bt]
    for _ in range(abs(n) - 2):
        powers.append(np.matmul(powers[-1], bt))
    total = np.zeros(np.broadcast_shapes(x.shape, g.shape), dtype=np.result_type(base, g))
    for k in range(abs(n)):
        left = powers[k] if k else None
        right = powers[abs(n) - 1 - k] if abs(n) - 1 - k else None
        term = g if left is None else np.matmul(left, g)
        total = total + (term if right is None else np.matmul(term, right))
    if n < 0:
        total = -np.matmul(np.matmul(bt, total), bt)
    return _like(total, a)


def _tri_read(grad, lower=True):
    """The gradient of a function of the symmetric matrix np.linalg builds from one
    triangle of its argument (eigh, svd and pinv with hermitian=True): each entry of
    that triangle stands for both of its mirrored entries."""
    tri = np.tril(grad) + np.tril(_T(grad), -1) if lower else \
        np.triu(grad) + np.triu(_T(grad), 1)
    return tri


def _spectral_gap(w, dtype):
    """1 / (w_j - w_i) off the diagonal, 0 on it and between (numerically) equal
    values; and where those equal pairs are."""
    diff = w[..., None, :] - w[..., :, None]
    scale = np.max(np.abs(w), axis=-1, keepdims=True)[..., None]
    n = w.shape[-1]
    eps = np.finfo(np.result_type(dtype, np.float32)).eps
    tied = (np.abs(diff) <= 64 * n * eps * np.maximum(scale, np.finfo(float).tiny)) & \
        ~np.eye(n, dtype=bool)
    with np.errstate(divide="ignore"):
        f = np.where(tied | np.eye(n, dtype=bool), 0, 1 / np.where(diff == 0, 1, diff))
    return f, tied


def _check_gauge(m, tied, what, hint):
    """Refuse when the loss depends on the choice of basis inside an eigenspace of a
    repeated value: there its derivative does not exist."""
    if not np.any(tied):
        return
    skew = np.abs(m - _T(m))
    scale = np.max(np.abs(m)) if m.size else 0.0
    tol = np.sqrt(np.finfo(np.result_type(m.real.dtype, np.float32)).eps) * max(scale, 1e-300)
    if np.any(skew[tied] > tol):
        not_differentiable(what, hint)


def _pieces_of(g, count):
    """The adjoints of a tuple output's items (zeros where an item was not used)."""
    return [g[i] for i in range(count)]


def eigh_grad(g, ans, a, UPLO="L"):
    """The adjoint of np.linalg.eigh (real symmetric): with M = V^T dV,
    G = V (diag(dw) + F o M) V^T and F_ij = 1/(w_j - w_i); then onto the triangle
    eigh reads. Repeated eigenvalues are fine unless the loss depends on the basis
    chosen in their eigenspace (then no derivative exists)."""
    _real_only(a, "np.linalg.eigh")
    w, v = ans
    gw, gv = _pieces_of(g, 2)
    dt = np.result_type(v, _array(gw, v), _array(gv, v))
    inner = np.zeros(v.shape, dtype=dt)
    inner = inner + np.asarray(gw)[..., None, :] * np.eye(v.shape[-1], dtype=v.dtype) \
        if np.any(gw) else inner
    if np.any(gv):
        m = np.matmul(_T(v), gv)
        f, tied = _spectral_gap(w, w.dtype)
        _check_gauge(m, tied, "np.linalg.eigh at a repeated eigenvalue, for a result "
                     "that depends on the choice of eigenvectors, has no derivative",
                     "use only basis-independent quantities (projectors, v @ v.T, "
                     "eigenvalues), or separate the repeated eigenvalues")
        inner = inner + f * m
    grad = np.matmul(np.matmul(v, inner), _T(v))
    return _like(_tri_read(grad, UPLO.upper() == "L"), a)


def eig_grad(g, ans, a):
    """The adjoint of np.linalg.eig, with NumPy's normalization of each eigenvector
    (unit length, its largest component real).

    With P = V^-1 dA V: dw = diag(P) and dV = V (F o P + diag(c)), where the complex
    c keeps each column normalized. Paired with the cotangents (Re sum(cot * d)):
    dA's adjoint is V^-T (diag(dw) + F o (V^T dV + B)) V^T, B carrying c's terms.
    """
    w, v = ans
    gw, gv = _pieces_of(g, 2)
    n = v.shape[-1]
    f, tied = _spectral_gap(w, w.dtype)
    gw = np.asarray(_array(gw, w))
    if np.any(tied) and (np.any(gv) or np.any(tied & (gw[..., :, None] != gw[..., None, :]))):
        not_differentiable("np.linalg.eig at a repeated eigenvalue has no derivative",
                           "separate the repeated eigenvalues, or use np.linalg.eigh "
                           "for a symmetric matrix")
    dt = np.result_type(v, w, gw, _array(gv, v))
    inner = np.zeros(v.shape, dtype=dt) + gw[..., None, :] * np.eye(n, dtype=dt)
    if np.any(gv):
        gv = np.asarray(gv)
        m = np.matmul(_T(v), gv)
        mj = np.diagonal(m, axis1=-2, axis2=-1)
        # unit length: Re c_j = -Re (V^H V (F o P))_jj
        b = -np.real(mj)[..., None, :] * _T(np.matmul(np.conj(_T(v)), v))
        if np.iscomplexobj(v):
            # the largest component k_j stays real: Im c_j = -Im (V (F o P))_kj / v_kj
            k = np.argmax(np.abs(v), axis=-2)
            vk = np.take_along_axis(v, k[..., None, :], axis=-2)[..., 0, :]
            rows = np.take_along_axis(v, k[..., :, None], axis=-2)
            b = b - 1j * (np.imag(mj) / np.real(vk))[..., None, :] * _T(rows)
        inner = inner + f * (m + b)
    vinv_t = _T(np.linalg.inv(v))
    return _like(np.matmul(np.matmul(vinv_t, inner), _T(v)), a)


def svd_grad(g, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    """The adjoint of np.linalg.svd of real matrices (Townsend 2016): with F_ij =
    1/(s_j^2 - s_i^2), J = F o (U^T dU), K = F o (V^T dV),
    dA = U [diag(ds) + (J + J^T) S + S (K + K^T)] V^T
         + (I - U U^T) dU S^-1 V^T + U S^-1 dV^T (I - V V^T)."""
    x = np.asarray(a)
    m, n = x.shape[-2:]
    k = min(m, n)
    if not compute_uv:
        u, s, vh = np.linalg.svd(x, full_matrices=False, hermitian=hermitian)
        grad = np.conj(np.matmul(u * np.asarray(_array(g, s))[..., None, :], vh))
        return _like(_tri_read(grad) if hermitian else grad, a)
    _real_only(x, "np.linalg.svd's singular vectors")
    u, s, vh = ans
    gu, gs, gvh = _pieces_of(g, 3)
    gu, gvh = np.asarray(_array(gu, u)), np.asarray(_array(gvh, vh))
    if full_matrices and m != n:
        if np.any(gu[..., :, k:]) or np.any(gvh[..., k:, :]):
            not_differentiable(
                "the extra singular vectors np.linalg.svd returns with full_matrices=True "
                "are any basis of a complement and have no derivative",
                "pass full_matrices=False, or use only the first min(m, n) vectors")
        u, gu = u[..., :, :k], np.broadcast_to(gu, u.shape)[..., :, :k]
        vh, gvh = vh[..., :k, :], np.broadcast_to(gvh, vh.shape)[..., :k, :]
    v, gv = _T(vh), _T(gvh)
    dt = np.result_type(u, _array(gs, s), gu, gv)
    inner = np.asarray(_array(gs, s))[..., None, :] * np.eye(k, dtype=dt)
    grad = 0
    uses_vectors = np.any(gu) or np.any(gv)
    if uses_vectors:
        f, tied = _spectral_gap(s * s, s.dtype)
        mu, mv = np.matmul(_T(u), gu), np.matmul(_T(v), gv)
        _check_gauge(mu + mv, tied, "np.linalg.svd at a repeated singular value, for a "
                     "result that depends on the choice of singular vectors, has no "
                     "derivative", "separate the repeated singular values")
        if np.any(s == 0) and (m > k or n > k):
            not_differentiable("np.linalg.svd's singular vectors have no derivative at a "
                               "zero singular value", "use only the singular values there")
        j, kk = f * mu, f * mv
        inner = inner + (j + _T(j)) * s[..., None, :] + s[..., :, None] * (kk + _T(kk))
        sinv = 1 / s
        if m > k:
            rest = gu - np.matmul(u, mu)
            grad = grad + np.matmul(rest * sinv[..., None, :], vh)
        if n > k:
            rest = gv - np.matmul(v, mv)
            grad = grad + np.matmul(u * sinv[..., None, :], _T(rest))
    grad = grad + np.matmul(np.matmul(u, inner), vh)
    return _like(_tri_read(grad) if hermitian else grad, a)


def _check_rank(s, cutoff, what):
    if np.any(s <= cutoff):
        not_differentiable(f"{what} at a rank-deficient matrix has no derivative (its "
                           "value jumps when the rank changes)",
                           "regularize (e.g. add a small multiple of the identity) or "
                           "solve a full-rank problem")


def _pinv_adjoint(gp, a, p):
    """dA from the adjoint of P = pinv(A) (Golub and Pereyra, for constant rank):
    -P^T G P^T + conj((I - A P) G^T P P^H) + conj(P^H P G^T (I - P A))."""
    ph = np.conj(_T(p))
    ap = np.matmul(a, p)
    pa = np.matmul(p, a)
    eye_m = np.eye(ap.shape[-1], dtype=ap.dtype)
    eye_n = np.eye(pa.shape[-1], dtype=pa.dtype)
    gt = _T(gp)
    first = -np.matmul(np.matmul(_T(p), gp), _T(p))
    second = np.conj(np.matmul(np.matmul(eye_m - ap, gt), np.matmul(p, ph)))
    third = np.conj(np.matmul(np.matmul(np.matmul(ph, p), gt), eye_n - pa))
    return first + second + third


def pinv_grad(g, ans, a, rcond=None, hermitian=False, rtol=None):
    """The adjoint of np.linalg.pinv, where the rank is full (elsewhere pinv is not
    continuous)."""
    x = np.asarray(a)
    s = np.linalg.svd(x, compute_uv=False, hermitian=hermitian)
    rcond = rcond if rcond is not None else (rtol if rtol is not None else 1e-15)
    cut = np.asarray(rcond)[..., None] * np.max(s, axis=-1, keepdims=True)
    _check_rank(s, np.asarray(cut), "np.linalg.pinv")
    gp = np.asarray(_array(g, ans))
    grad = _pinv_adjoint(gp, x, ans)
    return _like(_tri_read(grad) if hermitian else grad, a)


def lstsq_grads(g, ans, a, b, rcond=None):
    """(d a, d b) of np.linalg.lstsq, which returns (x, residuals, rank, s): x = P b
    with P = pinv(A) at full rank, the residuals |A x - b|^2 (A^T r = 0 there, so
    only their explicit terms count) and the singular values."""
    x, res, rank, s = ans
    gx, gres, _, gs = _pieces_of(g, 4)
    av, bv = np.asarray(a), np.asarray(b)
    vec = bv.ndim == 1
    b2 = bv[:, None] if vec else bv
    x2 = x[:, None] if vec else x
    gx2 = np.asarray(_array(gx, x))
    gx2 = np.broadcast_to(gx2, x.shape)[:, None] if vec else np.broadcast_to(gx2, x.shape)
    dt = np.result_type(av, bv, gx2, float)
    grad_a = np.zeros(av.shape, dtype=dt)
    grad_b = np.zeros(b2.shape, dtype=dt)
    if np.any(gx2):
        if rank < min(av.shape):
            not_differentiable("np.linalg.lstsq at a rank-deficient matrix has no "
                               "derivative (its solution jumps when the rank changes)",
                               "regularize, or solve a full-rank problem")
        p = np.linalg.pinv(av)
        grad_b = grad_b + np.matmul(_T(p), gx2)
        grad_a = grad_a + _pinv_adjoint(np.matmul(gx2, _T(b2)), av, p)
    gres = np.asarray(_array(gres, res))
    if res.size and np.any(gres):
        r = np.matmul(av, x2) - b2
        grad_a = grad_a + 2 * np.matmul(np.conj(r) * gres, _T(x2))
        grad_b = grad_b - 2 * np.conj(r) * gres
    gs = np.asarray(_array(gs, s))
    if np.any(gs):
        u, _, vh = np.linalg.svd(av, full_matrices=False)
        grad_a = grad_a + np.conj(np.matmul(u * gs, vh))
    return _like(grad_a, a), _like(grad_b[:, 0] if vec else grad_b, b)


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
    if getattr(grad, "dtype", None) is not None and grad.dtype.kind == "c" \
            and not _is_complex(x):
        return np.real(grad)   # a real item of a complex array
    return grad


def array_grad(g, a):
    return per_item(g, a)


def transpose_grad(g, axes=None):
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort([a % np.ndim(g) for a in axes]))


def _joined(grads, seq):
    """The adjoints of the items of ``seq``, in ``seq``'s form: one per item (see
    `pieces`) for a list or tuple, one array for an array (whose items are its rows)."""
    if isinstance(seq, np.ndarray):
        return np.stack(grads) if grads else np.zeros(seq.shape, _float_dtype(seq))
    return pieces(grads)


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
    parts = np.split(_array(g, *arrays), cuts, axis=axis)
    return _joined([_as_input(np.reshape(p, s), x) for p, s, x in zip(parts, shapes, arrays)],
                   arrays)


def index_concat_layout(items, which):
    """Where each element of np.r_[items] (``which`` "r") or np.c_[items] ("c") comes
    from: (the flat element numbers of the result, each item's first number or None for
    a slice), from the same expression over element numbers (shapes only)."""
    concat = np.r_ if which == "r" else np.c_
    probe, bases, base = [], [], 0
    for it in items:
        if isinstance(it, str):
            refuse(f"np.{which}_ with a directive string has no derivative rule",
                   "build the array with np.concatenate, np.stack or np.column_stack")
        if isinstance(it, slice):
            probe.append(np.full(np.shape(concat[it]), -1.0))
            bases.append(None)
            continue
        size = int(np.size(it))
        probe.append(np.reshape(np.arange(base, base + size, dtype=np.float64), np.shape(it)))
        bases.append(base)
        base += size
    return np.ravel(concat[tuple(probe)]).astype(np.intp), bases


def index_concat_grad(g, items, which):
    """The adjoints of the items of np.r_[items] or np.c_[items]: each element's
    adjoint added where `index_concat_layout` says it went."""
    ids, bases = index_concat_layout(items, which)
    flat = np.ravel(_array(g, *[i for i in items if not isinstance(i, slice)]))
    grads = []
    for it, b in zip(items, bases):
        if b is None:
            grads.append(0.0)
            continue
        size = int(np.size(it))
        mask = (ids >= b) & (ids < b + size)
        out = np.zeros(size, dtype=flat.dtype)
        np.add.at(out, ids[mask] - b, flat[mask])
        grads.append(_like(np.reshape(out, np.shape(it)), it))
    return pieces(grads)


def stack_grad(g, arrays, axis=0):
    return _joined([_as_input(np.take(g, i, axis=axis), x) for i, x in enumerate(arrays)],
                   arrays)


def hstack_grad(g, tup):
    nd = [np.ndim(x) for x in tup]
    axis = 0 if all(n <= 1 for n in nd) else 1
    return _stacked_pieces(g, tup, np.atleast_1d, axis)


def vstack_grad(g, tup):
    return _stacked_pieces(g, tup, np.atleast_2d, 0)


def dstack_grad(g, tup):
    return _stacked_pieces(g, tup, np.atleast_3d, 2)


def column_stack_grad(g, tup):
    """np.column_stack: 1-D items become columns, the rest join along axis 1."""
    return _stacked_pieces(g, tup, lambda x: np.array(x, ndmin=2).T if x.ndim < 2 else x, 1)


def _stacked_pieces(g, tup, promote, axis):
    shapes = [np.shape(promote(np.asarray(x))) for x in tup]
    cuts = np.cumsum([s[axis] for s in shapes])[:-1]
    parts = np.split(_array(g, *tup), cuts, axis=axis)
    return _joined([_as_input(np.reshape(p, np.shape(x)), x) for p, x in zip(parts, tup)], tup)


def split_grad(g, ans, ary, axis=0):
    """The adjoint of np.split: the pieces' adjoints joined (a zero for an unused piece)."""
    parts = [np.broadcast_to(gi, np.shape(p)) for gi, p in zip(g, ans)]
    dtype = _float_dtype(ary, parts[0] if parts else None)
    return _as_input(np.concatenate(parts, axis=axis).astype(dtype, copy=False), ary)


def hsplit_grad(g, ans, ary):
    return split_grad(g, ans, ary, 1 if np.ndim(ary) > 1 else 0)


def append_grads(g, arr, values, axis=None):
    """(d arr, d values) of np.append: a concatenation, flattened when ``axis`` is None."""
    if axis is None:
        n = int(np.size(arr))
        flat = np.ravel(_array(g, arr, values))
        return (_as_input(np.reshape(flat[:n], np.shape(arr)), arr),
                per_item(_as_input(np.reshape(flat[n:], np.shape(values)), values), values))
    n = np.shape(arr)[axis]
    g = _array(g, arr, values)
    head, tail = np.split(g, [n], axis=axis)
    return _as_input(head, arr), per_item(_as_input(tail, values), values)


def roll_grad(g, shift, axis=None):
    """np.roll back by ``shift``."""
    back = -np.asarray(shift) if np.ndim(shift) else -shift
    return np.roll(g, back, axis)


def rollaxis_grad(g, a, axis, start=0):
    nd = np.ndim(a)
    axis = axis % nd
    start = start + nd if start < 0 else start
    order = [i for i in range(nd) if i != axis]
    order.insert(start - 1 if axis < start else start, axis)
    return np.transpose(g, np.argsort(order))


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


def _pairs(value, nd):
    """np.pad's reading of a per-axis (before, after) argument, as an (nd, 2) array."""
    if isinstance(value, dict):
        out = np.zeros((nd, 2), dtype=np.intp)
        for axis, width in value.items():
            out[axis] = np.broadcast_to(np.asarray(width, dtype=np.intp), (2,))
        return out
    v = np.asarray(value)
    if v.size == 1:
        return np.broadcast_to(v.reshape(()), (nd, 2))
    if v.size == 2 and v.shape != (2, 1):
        return np.broadcast_to(v.ravel(), (nd, 2))
    return np.broadcast_to(v, (nd, 2))


def _unpair(bar, value):
    """The adjoint of `_pairs` for a differentiated ``value`` (``bar`` is (nd, 2))."""
    v = np.asarray(value)
    if v.size == 1:
        out = np.sum(bar).reshape(v.shape)
    elif v.size == 2 and v.shape != (2, 1):
        out = np.sum(bar, axis=0).reshape(v.shape)
    else:
        out = tensor.sum_to_shape(bar, v.shape)
    return per_item(_as_input(out, value), value)


def _lane_stat_grad(region, stat, count):
    """d stat(region) / d region along the last axis, for np.pad's statistic modes."""
    if stat == "mean":
        return np.ones_like(region) / count
    if stat == "median":
        return median_grad(np.ones(region.shape[:-1], region.dtype), None, region, -1)
    value = (np.max if stat == "maximum" else np.min)(region, axis=-1, keepdims=True)
    hit = region == value
    return hit / np.sum(hit, axis=-1, keepdims=True, dtype=region.dtype)


def pad_grads(g, array, pad_width, mode="constant", stat_length=None, constant_values=0,
              end_values=0, reflect_type="even"):
    """(d array, d constant_values, d end_values) of np.pad.

    np.pad pads one axis after the other, each on the result of the previous, so the
    adjoint undoes the axes in reverse order. Modes that copy elements (edge, wrap,
    reflect, symmetric) add each padded element's adjoint to its source, found by
    padding the indices themselves; the statistic modes send it through the statistic
    of the stretch they read; linear_ramp and odd reflections, linear in the lane, use
    the matrix np.pad makes of the identity.
    """
    if callable(mode):
        refuse("np.pad with a function as its mode has no derivative rule",
               "pad with a named mode, or write the padding with np.concatenate")
    x = np.asarray(array)
    nd = x.ndim
    widths = _pairs(pad_width, nd).astype(np.intp)
    dtype = _float_dtype(x, g)
    g = np.asarray(_array(g, x), dtype=np.result_type(dtype, _array(g, x).dtype))
    c_bar = np.zeros((nd, 2), dtype=g.dtype) if mode == "constant" else None
    e_bar = np.zeros((nd, 2), dtype=g.dtype) if mode == "linear_ramp" else None
    stats = _pairs(stat_length, nd) if stat_length is not None else None
    for axis in reversed(range(nd)):
        lo, hi = int(widths[axis, 0]), int(widths[axis, 1])
        if lo == 0 and hi == 0:
            continue
        gm = np.moveaxis(g, axis, -1)
        n = gm.shape[-1] - lo - hi
        inner = gm[..., lo:lo + n]
        if mode in ("constant", "empty"):
            out = inner
            if c_bar is not None:
                c_bar[axis] = np.sum(gm[..., :lo]), np.sum(gm[..., lo + n:])
        elif mode in ("edge", "wrap") or mode in ("reflect", "symmetric") \
                and reflect_type != "odd":
            source = np.pad(np.arange(n), (lo, hi), mode=mode)
            out = tensor.index_add(gm, gm.shape[:-1] + (n,), gm.dtype,
                                   (Ellipsis, source))
        elif mode in ("reflect", "symmetric", "linear_ramp"):
            # lane_out = M @ lane_in: M is np.pad of the identity along its first axis
            extra = {"reflect_type": reflect_type} if mode != "linear_ramp" else {}
            m = np.pad(np.eye(n, dtype=gm.dtype), ((lo, hi), (0, 0)), mode=mode, **extra)
            out = np.matmul(gm, m)
            if e_bar is not None:
                ramp_lo = np.pad(np.zeros(n), (lo, hi), mode=mode, end_values=(1.0, 0.0))
                ramp_hi = np.pad(np.zeros(n), (lo, hi), mode=mode, end_values=(0.0, 1.0))
                e_bar[axis] = np.sum(gm * ramp_lo), np.sum(gm * ramp_hi)
        elif mode in ("maximum", "minimum", "median") and np.iscomplexobj(x):
            refuse(f"np.pad of a complex array in mode {mode!r} has no derivative rule "
                   "(it orders complex values)", "pad the real and imaginary parts apart")
        elif mode in ("maximum", "minimum", "mean", "median"):
            # the lane as np.pad saw it: earlier axes padded, this one not yet
            seen = np.pad(x, [(int(a), int(b)) if k < axis else (0, 0)
                              for k, (a, b) in enumerate(widths)], mode=mode,
                          stat_length=stat_length)
            lane = np.moveaxis(seen, axis, -1)
            out = np.array(inner)
            for side, width in ((0, lo), (1, hi)):
                if width == 0:
                    continue
                count = n if stats is None else min(max(int(stats[axis, side]), 1), n)
                span = slice(0, count) if side == 0 else slice(n - count, n)
                region = lane[..., span]
                padded = gm[..., :lo] if side == 0 else gm[..., lo + n:]
                total = np.sum(padded, axis=-1, keepdims=True)
                out[..., span] += total * _lane_stat_grad(region, mode, count)
        else:
            raise ValueError(f"mode {mode!r} is not supported by np.pad")
        g = np.moveaxis(out, -1, axis)
    grad = np.asarray(g, dtype=np.result_type(dtype, g.dtype))
    return (_as_input(grad, array),
            None if c_bar is None else _unpair(c_bar, constant_values),
            None if e_bar is None else _unpair(e_bar, end_values))


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
    if isinstance(x, dict):
        from ..passes import containers
        return containers.dict_grad_of(x, index, g)
    if isinstance(x, (list, tuple)):
        out = pieces([zero_like(item) for item in x])
        if isinstance(index, slice):
            for k, i in enumerate(range(*index.indices(len(x)))):
                out[i] = out[i] + g[k]
        else:
            out[index] = out[index] + g
        return out
    return tensor.index_add(g, np.shape(x), _float_dtype(x, g), index)


def zero_like(item):
    """A zero adjoint for ``item``: float zeros of its shape for an array, one zero per
    item for a list or a tuple (`pieces`), 0.0 for a number."""
    if isinstance(item, np.ndarray):
        return np.zeros(item.shape, dtype=_float_dtype(item))
    if isinstance(item, (list, tuple)):
        return pieces([zero_like(i) for i in item])
    if isinstance(item, dict):
        from ..passes import containers
        return containers.DictGrad({k: zero_like(v) for k, v in item.items()})
    return 0.0


def sort_grad(g, a, axis=-1):
    _real_only(a, "np.sort")
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


def partition_grad(g, ans, a, axis=-1):
    """The adjoint of np.partition, a permutation: output position order_ans[r] holds
    the element at order_a[r] (both stable sorts, so equal values pair in order)."""
    _real_only(a, "np.partition")
    a = np.asarray(a)
    if axis is None:
        return np.reshape(partition_grad(g, ans, np.ravel(a), 0), a.shape)
    order_a = np.argsort(a, axis=axis, kind="stable")
    order_ans = np.argsort(ans, axis=axis, kind="stable")
    out = np.zeros(a.shape, dtype=_float_dtype(a, g))
    np.put_along_axis(out, order_a, np.take_along_axis(np.broadcast_to(g, a.shape),
                                                       order_ans, axis=axis), axis=axis)
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

