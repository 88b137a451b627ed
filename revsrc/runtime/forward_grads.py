"""Runtime helpers of the forward rules that need more than one expression.

Each takes the tangent ``t`` of one input (shaped like that input) and the values its
forward rule has at hand, and returns the tangent of the output. Most are the
contraction of ``t`` with the partial derivatives the reverse helpers already compute
(with an adjoint of ones), so the two modes share their case analysis.
"""
from __future__ import annotations

import numpy as np

from .. import _kernels, errors, runtime
from ..core.late import LateModule
from . import tensor, values
from .grads import reductions as _reductions, shape as _shape
from .grads.reductions import reduced_axes

# (the matrix functions' helpers: loaded with the first tangent of one)
_linalg = LateModule("revsrc.runtime.grads.linalg")


def _reduce(terms, a, axis, keepdims):
    return np.sum(terms, axis=reduced_axes(axis, np.ndim(a)), keepdims=keepdims)


def _ones_like(ans, t):
    return np.ones(np.shape(ans), dtype=np.result_type(values.float_dtype(t), np.float64)
                   if np.ndim(ans) == 0 else values.float_dtype(t))


def prod_jvp(t, ans, a, axis=None, keepdims=False):
    d = _reductions.prod_grad(_ones_like(ans, t), ans, np.asarray(a), axis, keepdims)
    return _reduce(t * d, a, axis, keepdims)


def extremum_jvp(t, ans, a, axis=None, keepdims=False):
    """Ties share the tangent equally, as they share the adjoint."""
    d = _reductions.extremum_grad(_ones_like(ans, t), ans, np.asarray(a), axis, keepdims)
    return _reduce(t * d, a, axis, keepdims)


def extremum_where_jvp(t, ans, a, axis=None, keepdims=False, initial=None, where=True,
                       part=0):
    """np.max/np.min with ``initial=`` or ``where=``: ``t`` the tangent of ``a``
    (``part`` 0) or of ``initial`` (1), shared as the adjoint is."""
    if part == 1:
        return t * _reductions.extremum_where_grad(_ones_like(ans, t), ans, a, axis, keepdims,
                                                   initial, where, 2)
    d = _reductions.extremum_where_grad(_ones_like(ans, t), ans, np.asarray(a), axis,
                                        keepdims, initial, where)
    return _reduce(t * d, a, axis, keepdims)


def var_jvp(t, ans, a, axis=None, ddof=0, keepdims=False):
    d = _reductions.var_grad(_ones_like(ans, t), np.asarray(a), axis, ddof, keepdims)
    return _reduce(t * d, a, axis, keepdims)


def var_mean_jvp(t, ans, a, mean, axis=None, ddof=0, keepdims=False, part=0):
    """np.var with its mean given: ``t`` the tangent of ``a`` (``part`` 0) or of the
    mean (1), which enters as minus ``a``'s."""
    d = _reductions.var_mean_grad(_ones_like(ans, t), np.asarray(a), mean, axis, ddof,
                                  keepdims)
    return _reduce(t * d if part == 0 else -t * d, a, axis, keepdims)


def std_jvp(t, ans, a, axis=None, ddof=0, keepdims=False):
    d = _reductions.std_grad(_ones_like(ans, t), ans, np.asarray(a), axis, ddof, keepdims)
    return _reduce(t * d, a, axis, keepdims)


def norm_jvp(t, ans, x, ord=None, axis=None, keepdims=False):
    d = _reductions.norm_grad(_ones_like(ans, t), ans, np.asarray(x), ord, axis, keepdims)
    if axis is None and ord is None:
        return _reduce(t * d, x, None, keepdims)
    return _reduce(t * d, x, axis, keepdims)


def cumprod_jvp(t, ans, a, axis=None):
    """d cumprod(a)_k = sum_{j <= k} t_j prod_{i <= k, i != j} a_i, exact with zeros."""
    a = np.asarray(a)
    if axis is None:
        return cumprod_jvp(np.ravel(t), np.ravel(ans), np.ravel(a), 0)
    if np.all(a != 0):
        return ans * np.cumsum(t / a, axis=axis)
    a_m = np.moveaxis(a, axis, -1)
    t_m = np.moveaxis(np.broadcast_to(t, a.shape), axis, -1)
    out = np.zeros(a_m.shape, dtype=np.result_type(a_m, t_m))
    n = a_m.shape[-1]
    for j in range(n):
        swapped = a_m.copy()
        swapped[..., j] = t_m[..., j]
        out[..., j:] += np.cumprod(swapped, axis=-1)[..., j:]
    return np.moveaxis(out, -1, axis)


def sort_jvp(t, a, axis=-1):
    """The tangent follows its element to where np.sort puts it (ties in stable order,
    as the adjoint)."""
    a = np.asarray(a)
    if axis is None:
        return np.ravel(t)[np.argsort(a, axis=None, kind="stable")]
    return np.take_along_axis(t, np.argsort(a, axis=axis, kind="stable"), axis=axis)


def solve_jvp_a(t, ans, a, b):
    """d solve(a, b) for a's tangent: -solve(a, t @ x)."""
    if np.ndim(b) == 1:
        return -np.linalg.solve(a, np.matmul(t, ans[..., None]))[..., 0]
    return -np.linalg.solve(a, np.matmul(t, ans))


def _as_matrix(v, b):
    """``v`` with a trailing axis of one when ``b`` (solve's right side) is a vector."""
    return v[..., None] if np.ndim(b) == 1 else v


def _solved_back(a, ct, b):
    """solve(a^T, ct): the adjoint solve_grad_a and solve_grad_b both make (matrix
    form)."""
    return np.linalg.solve(np.swapaxes(a, -1, -2), _as_matrix(ct, b))


def solve_grad_b_jvp_a(t, ct, a, b):
    """The tangent of solve_grad_b(ct, x, a, b) = solve(a^T, ct) for a's tangent t:
    -solve(a^T, t^T solve(a^T, ct))."""
    gb = _solved_back(a, ct, b)
    out = -np.linalg.solve(np.swapaxes(a, -1, -2), np.matmul(np.swapaxes(t, -1, -2), gb))
    if np.ndim(b) == 1:
        return out[..., 0]
    return tensor.sum_to_shape(out, np.shape(b))


def solve_grad_a_jvp_x(t, ct, a, b):
    """The tangent of solve_grad_a(ct, x, a, b) = -solve(a^T, ct) x^T for x's tangent
    t (x: solve's answer)."""
    gb = _solved_back(a, ct, b)
    out = -np.matmul(gb, np.swapaxes(_as_matrix(t, b), -1, -2))
    return tensor.sum_to_shape(out, np.shape(a))


def solve_grad_a_jvp_a(t, ct, x, a, b):
    """The tangent of solve_grad_a(ct, x, a, b) = -solve(a^T, ct) x^T for a's tangent
    t: solve(a^T, t^T solve(a^T, ct)) x^T."""
    gb = _solved_back(a, ct, b)
    dgb = np.linalg.solve(np.swapaxes(a, -1, -2), np.matmul(np.swapaxes(t, -1, -2), gb))
    out = np.matmul(dgb, np.swapaxes(_as_matrix(x, b), -1, -2))
    return tensor.sum_to_shape(out, np.shape(a))


def det_grad_jvp_a(t, ct, d, a):
    """The tangent of det_grad(ct, d, a) = (ct d) inv(a)^T for a's tangent t:
    -(ct d) (inv(a) t inv(a))^T. At a singular ``a`` (where det_grad takes the
    cofactors) the second derivative is refused."""
    try:
        inv = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise errors.HigherOrderNotSupported(
            "the second derivative of np.linalg.det at a singular matrix is not "
            "supported", hint="differentiate np.linalg.slogdet, or move the point "
            "off the singular matrix") from None
    w = np.asarray(ct * d)[..., None, None]
    return -(w * np.swapaxes(np.matmul(np.matmul(inv, t), inv), -1, -2))


def slogdet_grad_jvp_a(t, ct, sign, a):
    """The tangent of slogdet_grad(ct, (sign, logdet), a) = ct[1] inv(a)^T (a real
    ``a``: the sign is piecewise constant) for a's tangent t: -ct[1] (inv(a) t
    inv(a))^T. A complex ``a`` is refused."""
    if np.iscomplexobj(sign) or np.iscomplexobj(a) or np.iscomplexobj(t):
        raise errors.HigherOrderNotSupported(
            "the second derivative of np.linalg.slogdet of a complex matrix is not "
            "supported", hint="differentiate the real and imaginary parts apart")
    w = np.asarray(ct[1])[..., None, None]
    inv = np.linalg.inv(a)
    return -(w * np.swapaxes(np.matmul(np.matmul(inv, t), inv), -1, -2))


def cholesky_grad_jvp_ans(t, g, ans, upper=False):
    """The tangent of cholesky_grad(g, L, a) for the factor's tangent t. With
    P = tril(L^T G) (half its diagonal) and S = L^-T P L^-1 (whose symmetric part on
    one triangle is the adjoint): dP = tril(dL^T G) (half its diagonal), d(L^-1) =
    -L^-1 dL L^-1, and dS by the product rule."""
    mT = _linalg.mT
    L, G, dL = (mT(ans), mT(g), mT(t)) if upper else (ans, g, t)
    n = L.shape[-1]
    half = 1.0 - 0.5 * np.eye(n, dtype=np.result_type(L, G))
    P = np.tril(np.matmul(mT(L), G)) * half
    dP = np.tril(np.matmul(mT(dL), G)) * half
    Linv = np.linalg.inv(L)
    dLinv = -np.matmul(np.matmul(Linv, dL), Linv)
    dS = np.matmul(np.matmul(mT(dLinv), P), Linv) + \
        np.matmul(np.matmul(mT(Linv), dP), Linv) + np.matmul(np.matmul(mT(Linv), P), dLinv)
    out = np.tril(dS + mT(dS)) - np.eye(n, dtype=dS.dtype) * dS
    return mT(out) if upper else out


def _trace(m):
    return np.trace(m, axis1=-2, axis2=-1)


def det_jvp(t, ans, a):
    """d det(a) = det(a) tr(a^-1 t) (the cofactors' inner product with t where a is
    singular)."""
    try:
        return ans * _trace(np.linalg.solve(a, t))
    except np.linalg.LinAlgError:
        return np.sum(_linalg.cofactors(a) * t, axis=(-2, -1))


def slogdet_jvp(t, ans, a):
    """d (sign, logdet) = (0, tr(a^-1 t)): the sign is piecewise constant."""
    return np.zeros_like(ans[0], dtype=np.result_type(ans[1])), _trace(np.linalg.solve(a, t))


def cholesky_jvp(t, ans, a, upper=False):
    """dL = L Phi(L^-1 dA L^-T) for the symmetric matrix NumPy reads from one triangle
    of ``a`` (Phi: the lower triangle with half its diagonal)."""
    L = _linalg.mT(ans) if upper else ans
    tri = np.triu(t) if upper else np.tril(t)
    dA = tri + _linalg.mT(tri) - tri * np.eye(t.shape[-1], dtype=t.dtype)
    Linv = np.linalg.inv(L)
    x = np.matmul(np.matmul(Linv, dA), _linalg.mT(Linv))
    phi = np.tril(x) * (1.0 - 0.5 * np.eye(x.shape[-1], dtype=x.dtype))
    dL = np.matmul(L, phi)
    return _linalg.mT(dL) if upper else dL


def tanh_vjp_jvp(t, g, y):
    """The tangent of g * (1 - y * y) for y's tangent ``t``: one pass of the compiled
    kernel for plain float arrays of one shape and dtype (the same products in the
    same order), else the NumPy expression."""
    out = _kernels.elementwise_or_none(_kernels.TANH_VJP_JVP, g, y, t)
    if out is None:
        out = -2.0 * g * y * t
    return out


def logaddexp_vjp_partial(w, x, y):
    """w s (1 - s), s = 1 / (1 + exp(y - x)): logaddexp_vjp(w, x, y)'s derivative in x
    times w (its adjoint's weight)."""
    s = 1.0 / (1.0 + np.exp(y - x))
    return w * s * (1.0 - s)


def _norm_form(x, ord, axis):
    """Which formula norm_grad uses for these arguments (its case analysis, mirrored):
    'ratio' (g conj(x) / ||x||), 'power' (the vector p-norms), 'abs' (the norms whose
    gradient is a piecewise constant weight times d|x|), 'svd' (matrix 2, -2, 'nuc'),
    with the reduced axes."""
    nd = x.ndim
    axes = _reductions.reduced_axes(axis, nd)
    flat = ord is None or ord in ("f", "fro") and nd == 2 or ord == 2 and nd == 1
    if axis is None and flat:
        return "ratio", axes
    if len(axes) == 1:
        if ord is None or ord == 2:
            return "ratio", axes
        if ord in (0, 1, np.inf, -np.inf):
            return "abs", axes
        return "power", axes
    if ord in (None, "fro", "f"):
        return "ratio", axes
    if ord in (1, -1, np.inf, -np.inf):
        return "abs", axes
    return "svd", axes


def _second_order_real_only(x, ord):
    if np.iscomplexobj(x):
        raise errors.HigherOrderNotSupported(
            f"the second derivative of np.linalg.norm with ord={ord!r} of complex values "
            "is not supported", hint="differentiate the real and imaginary parts apart, "
            "or use ord=None")


def _safe_div(num, den):
    """num / den, and 0 where den is 0 (where the first derivative is 0 too)."""
    return np.where(den == 0, 0, num / np.where(den == 0, 1, den))


def norm_grad_jvp_ans(t, g, ans, x, ord=None, axis=None, keepdims=False):
    """The tangent of norm_grad(g, ans, x) for ans's tangent ``t``: only the 2-norm's
    ratio and the p-norms' power read ``ans``."""
    x = np.asarray(x)
    form, axes = _norm_form(x, ord, axis)
    ge = _reductions.expand_reduced(g, x, axes, keepdims)
    anse = _reductions.expand_reduced(ans, x, axes, keepdims)
    # a norm is real: the imaginary part a complex x's tangent leaves in ans's is not
    te = np.real(_reductions.expand_reduced(t, x, axes, keepdims))
    if form == "ratio":
        return _safe_div(-(ge * np.conj(x) * te), anse * anse)
    if form == "power":
        _second_order_real_only(x, ord)
        # d/d ans of g |x|^(p-1) sign(x) / ans^(p-1) = -(p-1) norm_grad / ans
        grad = _reductions.norm_grad(g, ans, x, ord, axis, keepdims)
        return _safe_div(-(ord - 1) * grad * te, anse)
    return np.zeros(x.shape, dtype=np.result_type(values.float_dtype(x), ge, te))


def norm_grad_jvp_x(t, g, ans, x, ord=None, axis=None, keepdims=False):
    """The tangent of norm_grad(g, ans, x) for x's tangent ``t``, ``ans`` held fixed
    (its own tangent is norm_grad_jvp_ans's)."""
    x = np.asarray(x)
    form, axes = _norm_form(x, ord, axis)
    ge = _reductions.expand_reduced(g, x, axes, keepdims)
    anse = _reductions.expand_reduced(ans, x, axes, keepdims)
    if form == "ratio":
        return _safe_div(ge * np.conj(t), anse)
    _second_order_real_only(x, ord)
    dtype = np.result_type(values.float_dtype(x), ge, t)
    if form == "abs":
        # sign(x) times weights that change only where the maximum or sum changes hands
        return np.zeros(x.shape, dtype=dtype)
    if form == "power":
        # d/dx of |x|^(p-1) sign(x) / ans^(p-1) = (p-1) (|x| / ans)^(p-2) / ans;
        # 0 at x = 0, as the first derivative's convention
        absx = np.abs(x)
        safe = np.where(anse == 0, 1, anse)
        with np.errstate(divide="ignore", invalid="ignore"):
            curv = np.where((absx == 0) | (anse == 0), 0,
                            (ord - 1) * (absx / safe) ** (ord - 2) / safe)
        return (ge * curv * t).astype(dtype, copy=False)
    return ge * _svd_norm_grad_jvp(t, x, ord, axes).astype(dtype, copy=False)


def _svd_norm_grad_jvp(t, x, ord, axes):
    """The tangent of U diag(w) V^T (the gradient of the matrix norms 2, -2 and 'nuc'
    of real matrices, w the weights of the singular values they read) for x's tangent
    ``t``, from the derivatives of the singular vectors: inside their span
    P = U^T t V gives [P_ij (w_j s_j - w_i s_i) + P_ji (w_j s_i - w_i s_j)] /
    (s_j^2 - s_i^2), which is w (P_ij - P_ji) / (s_i + s_j) when w_i = w_j (so ties of
    equal weight stay finite); outside it, t V S^-1 W V^T and U W S^-1 U^T t."""
    row, col = axes
    a = np.moveaxis(x, (row, col), (-2, -1))
    ta = np.moveaxis(t, (row, col), (-2, -1))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    if ord == "nuc":
        w = np.ones_like(s)
    else:
        pick = np.max if ord == 2 else np.min
        w = _reductions._share(s == pick(s, -1, keepdims=True), -1, s.dtype)
    v = _linalg.mT(vh)
    p = np.matmul(np.matmul(_linalg.mT(u), ta), v)
    pt = _linalg.mT(p)
    si, sj = s[..., :, None], s[..., None, :]
    wi, wj = w[..., :, None], w[..., None, :]
    same = wi == wj
    tied = _safe_div(wi * (p - pt), si + sj)
    apart = _safe_div(p * (wj * sj - wi * si) + pt * (wj * si - wi * sj),
                      np.where(same, 1, sj * sj - si * si))
    inside = np.matmul(np.matmul(u, np.where(same, tied, apart)), vh)
    ws = _safe_div(w, s)
    out_u = np.matmul(ta, v) - np.matmul(u, p)            # (I - U U^T) t V
    out_v = np.matmul(_linalg.mT(u), ta) - np.matmul(p, vh)       # U^T t (I - V V^T)
    outside = np.matmul(out_u * ws[..., None, :], vh) + np.matmul(u * ws[..., None, :], out_v)
    return np.moveaxis(inside + outside, (-2, -1), (row, col))


_LINEAR_PADS = ("constant", "edge", "reflect", "symmetric", "wrap", "linear_ramp", "mean",
                "empty")


def pad_jvp(t, array, pad_width, mode="constant", stat_length=None, reflect_type="even"):
    """np.pad is linear in the array for modes that copy or average it; its fill
    values (constant_values, end_values) contribute their own tangents."""
    if mode not in _LINEAR_PADS:
        # maximum, minimum, median select by value: row by row from the reverse rule
        stat = {} if stat_length is None else {"stat_length": stat_length}
        ans = np.pad(array, pad_width, mode=mode, **stat)

        def row(g, ans):
            return _shape.pad_grads(g, array, pad_width, mode, stat_length, 0, 0,
                                    reflect_type)[0]
        return runtime.jvp_via_vjp(row, 0, False, t, ans)
    kw = {}
    if mode in ("reflect", "symmetric"):
        kw["reflect_type"] = reflect_type
    if mode == "mean" and stat_length is not None:
        kw["stat_length"] = stat_length
    if mode == "constant":
        kw["constant_values"] = 0
    if mode == "linear_ramp":
        kw["end_values"] = 0
    return np.pad(t, pad_width, mode=mode, **kw)


def pad_jvp_fill(t, array, pad_width, mode, which):
    """The tangent from a fill value: the padding region filled with it."""
    zeros = np.zeros(np.shape(array), dtype=np.result_type(t, np.float64))
    if mode == "constant" and which == "constant_values":
        return np.pad(zeros, pad_width, mode="constant", constant_values=t)
    if mode == "linear_ramp" and which == "end_values":
        return np.pad(zeros, pad_width, mode="linear_ramp", end_values=t)
    return np.pad(zeros, pad_width)


def angle_jvp(t, z, deg=False):
    """d angle(z) = Im(dz / z) for complex z (angle is Im log z); 0 for real z."""
    scale = 57.29577951308232 if deg else 1.0
    if np.iscomplexobj(z):
        return np.imag(t / z) * scale
    return np.zeros(np.shape(z)) * np.real(t)


def angle_jvp_dz(t, tz, z, deg=False):
    """`angle_jvp(tz, z)`'s tangent along a tangent ``t`` of z: Im(-tz t / z**2)."""
    scale = 57.29577951308232 if deg else 1.0
    if np.iscomplexobj(z):
        return np.imag(-tz * t / (z * z)) * scale
    return np.zeros(np.shape(z)) * np.real(t)


# ----- Tangents of arrays written in place -----
# A derivative made by revsrc saves views and writes the values it overwrote back into
# their arrays, and reads the saved views after: it counts on a view seeing every write
# into its array. Forward mode over it must give the tangents the same sharing: a
# tangent shares memory with the tangent of an array exactly when the value does with
# the array.

def own_tangent(t, ans):
    """The tangent ``t`` of the new array ``ans``, as an array of its own laid out as
    ``ans`` (a rule may hand back another value's tangent, x * 1.0 -> x_dot; a view of
    the tangent must then be a view exactly when the same view of ``ans`` is one)."""
    if not isinstance(ans, np.ndarray):
        return np.array(t)
    out = np.empty_like(ans, dtype=np.result_type(t))
    out[...] = t
    return out


def view_tangent(t, ans, base, base_t, loc=None):
    """The tangent of ``ans``, which may be a view of ``base`` (its tangent ``base_t``,
    None for none): ``t``, computed from ``base_t`` as ``ans`` from ``base``, where
    ``ans`` is a view of ``base`` and ``t`` one of ``base_t``; an array of its own
    where ``ans`` is new (``t`` may be another value's tangent, passed through)."""
    shared = isinstance(ans, np.ndarray) and isinstance(base, np.ndarray) \
        and np.may_share_memory(ans, base)
    if not shared:
        return own_tangent(t, ans)
    if isinstance(t, np.ndarray) and isinstance(base_t, np.ndarray) \
            and np.may_share_memory(t, base_t):
        return t
    raise errors.HigherOrderNotSupported(
        "a derivative of a derivative through a write into this view: NumPy made the "
        "value a view of its array, but cannot make its derivative one", loc=loc,
        hint="make the view with basic indexing (a[1:], a[:, 0]) or transpose, "
             "or write into a copy (np.array(a))")


def select_tangent(fn, x, y, tx, ty):
    """The tangent of builtin ``fn(x, y)`` (min or max) of two tuples or lists: that of
    the operand it returns (compared item by item; ``x`` on ties, as Python does). The
    elementwise rule's ``g * (y < x)`` would repeat or empty a tuple."""
    second = (y < x) if fn is min else (y > x)
    return ty if second else tx


# ----- conversions to a dtype known only when the program runs -----
# x.astype(dt), np.array(v, dtype=dt) with dt a value: the analysis cuts a dtype written
# in the function; this one is decided here (the forward twin of astype_grad/array_grad).

def conversion_tangent(convert, t, dtype, rest=(), options=()):
    """The tangent of ``convert(x, dtype, *rest, **options)`` (x.astype, np.array, np.asarray,
    np.ascontiguousarray) given ``t``, x's tangent: zero for an integer, unsigned or
    bool ``dtype`` (NumPy truncates: a step function of x), else the same conversion
    of ``t`` (a view of it where the value is a view of x, as np.asarray(x) of its own
    dtype and x.astype(dt, copy=False) may be)."""
    if values.exact_dtype(dtype):
        return np.zeros(np.shape(t)) if np.ndim(t) else 0.0
    return convert(t, dtype, *rest, **dict(options))

