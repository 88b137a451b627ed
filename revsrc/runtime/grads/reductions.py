"""Adjoints of reductions: sums, means, products, extrema, variances, medians,
cumulative sums and products, averages, covariances and norms.

A reduction's adjoint is its output adjoint spread back over the reduced axes
(`expand_reduced` puts those axes back as length-1 axes), times the partial derivative
of the reduction at each element."""
from __future__ import annotations

import numpy as np

from .. import tensor
from ..dropped import dropped
from ..values import as_adjoint, as_array, as_input, float_dtype, is_number, per_item, pieces
from .common import adjoint_of, items_of, real_only
from .indexing import take_along_axis_grad


def reduced_axes(axis, ndim):
    """``axis`` (None, int or tuple) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(int(a) % ndim for a in axis)) if ndim else ()
    return (int(axis) % ndim,) if ndim else ()


def expand_reduced(g, x, axis=None, keepdims=False):
    """``g`` (the adjoint of a reduction of ``x`` over ``axis``) with the reduced axes
    restored as length-1 axes, ready to broadcast against ``x``."""
    g = as_array(g, x)
    if keepdims or axis is None and g.ndim == 0:
        return g.reshape((1,) * np.ndim(x)) if g.ndim == 0 else g
    return np.expand_dims(g, reduced_axes(axis, np.ndim(x))) if np.ndim(x) else g


def broadcast_reduced(g, x, axis=None, keepdims=False):
    """The adjoint of ``np.sum(x, axis, keepdims=keepdims)``: ``g`` spread over ``x``."""
    if axis is None and type(x) is np.ndarray and x.dtype.kind == "f" and is_number(g):
        return np.full(x.shape, g, dtype=x.dtype)  # the whole-array sum: one pass
    shape = np.shape(x)
    out = np.broadcast_to(expand_reduced(g, x, axis, keepdims), shape)
    dtype = float_dtype(x, g)
    if dtype.kind != "c" and out.dtype.kind == "c":
        out = out.real    # a real array's adjoint takes a complex cotangent's real part
    out = np.array(out, dtype=dtype)
    return per_item(as_input(out, x), x)


def sum_list_grad(g, iterable):
    """The adjoint of builtins ``sum(iterable)``: ``g`` for every item."""
    if isinstance(iterable, np.ndarray):
        return np.array(np.broadcast_to(g, iterable.shape), dtype=float_dtype(iterable, g))
    return pieces([as_input(tensor.unbroadcast(g, item), item) for item in iterable])


def mean_grad(g, ans, a, axis=None, keepdims=False):
    # an empty ``a`` has an empty adjoint whatever the count: 1 keeps the division defined
    count = max(np.size(a) // max(np.size(ans), 1), 1)
    if axis is None and type(a) is np.ndarray and a.dtype == np.float64 and is_number(g):
        # g / count once, then spread: the same float64 division for every element
        return np.full(a.shape, float(g) / count)
    return per_item(np.asarray(broadcast_reduced(g, np.asarray(a), axis, keepdims)) / count, a)


def mean_where_grad(g, ans, a, axis=None, keepdims=False, where=True):
    """The adjoint of ``np.mean(a, axis, keepdims=keepdims, where=where)``: ``g`` over
    the count of the elements kept, spread over them (0 elsewhere)."""
    a = np.asarray(a)
    kept = np.broadcast_to(where, a.shape)
    count = np.sum(kept, axis=axis, keepdims=True)
    share = expand_reduced(g, a, axis, keepdims) / np.maximum(count, 1)
    return np.where(kept, share, 0).astype(float_dtype(a, g), copy=False)


@items_of(2)
def prod_grad(g, ans, a, axis=None, keepdims=False):
    """d prod / d a_i: the product of every other element, exact when some are zero."""
    a = np.asarray(a)
    if a.ndim == 0:
        return g
    axes = reduced_axes(axis, a.ndim)
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


@items_of(2)
def extremum_grad(g, ans, a, axis=None, keepdims=False):
    """The adjoint of max/min: ``g`` split equally among the elements equal to ``ans``."""
    real_only(a, "np.max and np.min")
    a = np.asarray(a)
    if a.ndim == 0:
        return g
    anse = expand_reduced(ans, a, axis, keepdims)
    hit = a == anse
    count = np.sum(hit, axis=reduced_axes(axis, a.ndim), keepdims=True, dtype=float_dtype(a, g))
    with np.errstate(invalid="ignore"):   # (no element is the result: np.max's rule
        # computes this beside extremum_where_grad where where= is only known when it runs)
        return expand_reduced(g, a, axis, keepdims) * hit / count


def extremum_where_grad(g, ans, a, axis=None, keepdims=False, initial=None, where=True,
                        part=0):
    """np.max/np.min with ``initial=`` or ``where=``: ``g`` split equally among the kept
    elements equal to the result and the initial value, if it equals it too. ``part``
    0: the adjoint of ``a``; 1: of ``initial`` (summed over the results); 2: the
    initial value's share of each result (forward mode)."""
    real_only(a, "np.max and np.min")
    a = np.asarray(a)
    hit = np.broadcast_to(where, a.shape) & (a == expand_reduced(ans, a, axis, keepdims))
    on_initial = 0 if initial is None else expand_reduced(ans, a, axis, keepdims) == initial
    count = np.sum(hit, axis=reduced_axes(axis, a.ndim), keepdims=True) + on_initial
    share = expand_reduced(g, a, axis, keepdims) / np.maximum(count, 1)
    if part == 0:
        return np.where(hit, share, 0).astype(float_dtype(a, g), copy=False)
    share = np.reshape(share * on_initial, np.shape(ans))
    return np.sum(share) if part == 1 else share


@items_of(1)
def var_grad(g, a, axis=None, ddof=0, keepdims=False):
    """d var / d a = 2 conj(a - mean) / (N - ddof)."""
    a = np.asarray(a)
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = np.conj(a - np.mean(a, axis=axis, keepdims=True))
    return expand_reduced(np.real(g), a, axis, keepdims) * centered * (2.0 / (n - ddof))


def var_mean_grad(g, a, mean, axis=None, ddof=0, keepdims=False, part=0):
    """The adjoint of ``np.var(a, axis, ddof=ddof, keepdims=keepdims, mean=mean)`` (the
    mean given, NumPy 2.0) for ``a`` (``part`` 0): 2 conj(a - mean) / (N - ddof), and
    for ``mean`` (1): minus that, summed to the mean's shape."""
    a = np.asarray(a)
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    d = expand_reduced(np.real(g), a, axis, keepdims) * np.conj(a - mean) * (2.0 / (n - ddof))
    if part == 0:
        return as_input(d, a)
    return as_input(tensor.sum_to_shape(-d, np.shape(mean)), mean)


@items_of(2)
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


@items_of(1)
def cumsum_grad(g, a, axis=None):
    if axis is None:
        return np.reshape(_reverse_cumsum(np.ravel(g), 0), np.shape(a))
    return _reverse_cumsum(g, axis)


@items_of(2)
def cumprod_grad(g, ans, a, axis=None):
    """d cumprod / d a, exact when some elements are zero."""
    a = np.asarray(a)
    if axis is None:
        return np.reshape(cumprod_grad(np.ravel(g), np.ravel(ans), np.ravel(a), 0), a.shape)
    if np.all(a != 0):
        return _reverse_cumsum(g * ans, axis) / a
    # With zeros, out_k depends on a_j (j <= k) through prod_{i <= k, i != j} a_i.
    a_m = np.moveaxis(a, axis, -1)
    g_m = np.moveaxis(as_array(g, a), axis, -1)
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
    axes = list(reduced_axes(axis, a.ndim))
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


@items_of(2)
def median_grad(g, ans, a, axis=None, keepdims=False):
    """The adjoint of np.median: ``g`` to the middle element, or half to each of the two
    middle ones, each split equally among elements of the same value."""
    real_only(a, "np.median")
    a = np.asarray(a)
    dtype = float_dtype(a, g)
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


@items_of(1)
def nansum_grad(g, a, axis=None, keepdims=False):
    """The adjoint of np.nansum: ``g`` for every element but the nans."""
    a = np.asarray(a)
    ge = expand_reduced(g, a, axis, keepdims)
    skipped = np.isnan(a)
    return dropped(np.where(skipped, 0, ge).astype(np.result_type(float_dtype(a, g), ge),
                                                   copy=False), skipped)


@items_of(1)
def nanmean_grad(g, a, axis=None, keepdims=False):
    """The adjoint of np.nanmean: ``g`` / count over the elements that are not nan."""
    a = np.asarray(a)
    dtype = float_dtype(a, g)
    keep = ~np.isnan(a)
    count = np.sum(keep, axis=reduced_axes(axis, a.ndim), keepdims=True, dtype=dtype)
    ge = expand_reduced(g, a, axis, keepdims)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(keep, ge / count, 0).astype(np.result_type(dtype, ge), copy=False)
    return dropped(out, ~keep)


def average_grads(g, ans, a, axis=None, weights=None, returned=False, keepdims=False):
    """(d a, d weights) of np.average, whose result is (average, sum of weights) with
    ``returned``."""
    x = np.asarray(a)
    dtype = float_dtype(x, g)
    g_avg, g_sum = (g[0], g[1]) if returned else (g, None)
    if weights is None:
        count = x.size // max(np.size(ans[0] if returned else ans), 1)
        return per_item(as_input(np.asarray(
            broadcast_reduced(g_avg, x, axis, keepdims)) / count, a), a), None
    w = np.asarray(weights)
    axes = reduced_axes(axis, x.ndim)
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
    grad_w = np.asarray(grad_w, dtype=np.result_type(float_dtype(w, g), grad_w))
    return (per_item(as_input(grad_a, a), a),
            per_item(as_input(grad_w, weights), weights))


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
        grads.append(per_item(as_adjoint(part, src), src))
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
        grad_aw = per_item(as_adjoint(grad_aw, aweights), aweights)
    return grads[0], grads[1], grad_aw


@items_of(2)
def accumulate_extremum_grad(g, ans, a, axis=0, larger=True):
    """The adjoint of np.maximum.accumulate (np.minimum's with ``larger`` False): each
    running extremum's adjoint goes to the element it was taken from, the earliest of
    equal ones (np.maximum's rule gives a tie to its first argument, the running one)."""
    real_only(a, "np.maximum.accumulate and np.minimum.accumulate")
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


@items_of(2)
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
    dtype = float_dtype(x, g)
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


# ----- The ufuncs' outer products (np.add.outer...): a's axes, then b's -----

@adjoint_of(1)
def multiply_outer_grad_a(g, a, b):
    """Adjoint of np.multiply.outer(a, b) for a: g contracted with b over b's axes (g
    has a's axes, then b's)."""
    if np.ndim(b) == 0:     # (a Python float stays weak: a float32 g stays float32)
        return np.reshape(g * b, np.shape(a))
    return np.reshape(np.tensordot(g, b, axes=np.ndim(b)), np.shape(a))


@adjoint_of(2)
def multiply_outer_grad_b(g, a, b):
    """Adjoint of np.multiply.outer(a, b) for b: a contracted with g over a's axes."""
    if np.ndim(a) == 0:
        return np.reshape(a * g, np.shape(b))
    return np.reshape(np.tensordot(a, g, axes=np.ndim(a)), np.shape(b))


@adjoint_of(1)
def outer_sum_a(g, a, b):
    """Adjoint of np.add.outer(a, b) for a: g summed over b's axes (its last ones)."""
    return np.reshape(np.sum(g, axis=tuple(range(np.ndim(a), np.ndim(g)))), np.shape(a))


@adjoint_of(2)
def outer_sum_b(g, a, b):
    """Adjoint of np.add.outer(a, b) for b: g summed over a's axes (its first ones)."""
    return np.reshape(np.sum(g, axis=tuple(range(np.ndim(a)))), np.shape(b))
