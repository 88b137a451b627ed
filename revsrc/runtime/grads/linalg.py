"""Adjoints of linear algebra: products (dot, matmul, inner, outer, tensordot,
einsum, kron, cross), traces, determinants, solves, factorizations (cholesky, eigh,
eig, svd), pseudo-inverses and least squares.

Batched where NumPy is (the last two axes are the matrix); an adjoint that depends on
a gauge (the phases of eigenvectors, repeated eigenvalues) is refused when the output
adjoint would read it, never given a wrong value."""
from __future__ import annotations

import numpy as np

from .. import tensor
from ..values import as_adjoint, as_array, as_input, float_dtype, spread_product
from .common import adjoint_of, not_differentiable, real_only, refuse


def mT(a):
    return np.swapaxes(a, -1, -2)


_ndarray = np.ndarray
_dot = np.dot


@adjoint_of(1)
def dot_grad_a(g, a, b):
    """Adjoint of np.dot(a, b) for a: g contracted with b over b's kept axes."""
    if type(g) is _ndarray and type(a) is _ndarray and type(b) is _ndarray \
            and g.ndim == 2 and a.ndim == 2 and b.ndim == 2:
        return _dot(g, b.T)  # the common case, in loops too: one call, no bookkeeping
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return as_input(tensor.sum_to_shape(np.multiply(g, b), np.shape(a)), a)
    if b_nd == 1:
        return np.multiply.outer(g, b)
    # g has axes a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
    b_kept = list(range(b_nd - 2)) + [b_nd - 1]
    g_axes = list(range(a_nd - 1, np.ndim(g)))
    return np.tensordot(g, b, axes=(g_axes, b_kept))


@adjoint_of(2)
def dot_grad_b(g, a, b):
    """Adjoint of np.dot(a, b) for b."""
    if type(g) is _ndarray and type(a) is _ndarray and type(b) is _ndarray \
            and a.ndim == 2 and g.ndim == b.ndim and (g.ndim == 2 or g.ndim == 1):
        return _dot(a.T, g)  # matrix-matrix and matrix-vector, one BLAS call
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return as_input(tensor.sum_to_shape(np.multiply(g, a), np.shape(b)), b)
    g = as_array(g, a, b)
    a_lead = list(range(a_nd - 1))
    out = np.tensordot(a, g, axes=(a_lead, a_lead))  # axes: a[-1], b.shape[:-2], b[-1]
    if b_nd == 1:
        return out
    return np.moveaxis(out, 0, -2)


@adjoint_of(1)
def matmul_grad_a(g, a, b):
    """Adjoint of a @ b for a: g @ b^T, with 1-D promotion and batch broadcasting undone."""
    if type(g) is _ndarray and type(a) is _ndarray and type(b) is _ndarray \
            and g.ndim == 2 and a.ndim == 2 and b.ndim == 2:
        ga = np.matmul(g, b.T)   # matrices: the product below, without its bookkeeping
        if ga.shape == a.shape:
            return ga
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    g = spread_product(g, a, b)
    if b_nd == 1:
        ga = np.multiply.outer(g, b) if a_nd > 1 else g * b
    else:
        gx = g[..., None, :] if a_nd == 1 else g
        ga = np.matmul(gx, mT(b))
        if a_nd == 1:
            ga = ga[..., 0, :]
    return tensor.sum_to_shape(ga, np.shape(a))


@adjoint_of(2)
def matmul_grad_b(g, a, b):
    """Adjoint of a @ b for b: a^T @ g."""
    if type(g) is _ndarray and type(a) is _ndarray and type(b) is _ndarray \
            and g.ndim == 2 and a.ndim == 2 and b.ndim == 2:
        gb = np.matmul(a.T, g)   # matrices: the product below, without its bookkeeping
        if gb.shape == b.shape:
            return gb
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    g = spread_product(g, a, b)
    if a_nd == 1:
        if b_nd == 1:
            gb = g * a
        else:
            gb = np.multiply.outer(a, g) if g.ndim == 1 else a[:, None] * g[..., None, :]
    else:
        gx = g[..., None] if b_nd == 1 else g
        gb = np.matmul(mT(a), gx)
        if b_nd == 1:
            gb = gb[..., 0]
    return tensor.sum_to_shape(gb, np.shape(b))


@adjoint_of(1)
def inner_grad_a(g, a, b):
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return as_input(tensor.sum_to_shape(np.multiply(g, b), np.shape(a)), a)
    # ans axes: a.shape[:-1] + b.shape[:-1]
    g_axes = list(range(a_nd - 1, np.ndim(g)))
    return np.tensordot(g, b, axes=(g_axes, list(range(b_nd - 1))))


@adjoint_of(2)
def inner_grad_b(g, a, b):
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return as_input(tensor.sum_to_shape(np.multiply(g, a), np.shape(b)), b)
    g_axes = list(range(a_nd - 1))
    return np.tensordot(g, a, axes=(g_axes, g_axes))


@adjoint_of(1)
def outer_grad_a(g, a, b):
    return np.reshape(np.dot(g, np.ravel(b)), np.shape(a))


@adjoint_of(2)
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


@adjoint_of(1)
def tensordot_grad_a(g, a, b, axes=2):
    ax_a, ax_b, a_free, b_free = _tensordot_split(a, b, axes)
    g_b = list(range(len(a_free), len(a_free) + len(b_free)))
    # the result's axes: a_free, then b's contracted axes in b's order
    out = np.tensordot(g, b, axes=(g_b, b_free))
    return np.transpose(out, np.argsort(a_free + [ax_a[ax_b.index(j)] for j in sorted(ax_b)]))


@adjoint_of(2)
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
    g = as_array(g, *operands)
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
        return as_adjoint(np.array(np.transpose(full, perm), dtype=dtype), operands[k])
    # repeated letters (a diagonal): write onto the diagonal of a zero array
    res = np.zeros(x.shape, dtype=dtype)
    view = np.einsum(f"{target}->{unique}", res)
    view[...] = full
    return as_adjoint(res, operands[k])


def trace_grad(g, a, offset=0, axis1=0, axis2=1):
    a = np.asarray(a)
    n, m = a.shape[axis1], a.shape[axis2]
    eye = np.eye(n, m, k=offset, dtype=float_dtype(a, g))
    out = as_array(g, a)[..., None, None] * eye
    return np.moveaxis(out, (-2, -1), (axis1 % a.ndim, axis2 % a.ndim))


def det_grad(g, ans, a):
    """d det(A) / dA = det(A) inv(A)^T (batched); the cofactors where A is singular."""
    g = as_array(g, a)
    try:
        return (g * ans)[..., None, None] * mT(np.linalg.inv(a))
    except np.linalg.LinAlgError:
        return g[..., None, None] * cofactors(a)


def cofactors(a):  # d det(A) / dA at any A: det U det V^H conj(U) diag(prod of other s) conj(V^H)
    u, s, vh = np.linalg.svd(a)
    one = np.ones_like(s[..., :1])
    others = np.cumprod(np.concatenate([one, s[..., :-1]], -1), -1) * np.cumprod(
        np.concatenate([one, s[..., :0:-1]], -1), -1)[..., ::-1]
    return (np.linalg.det(u) * np.linalg.det(vh))[..., None, None] * (
        np.conj(u) * others[..., None, :]) @ np.conj(vh)


def slogdet_grad(g, ans, a):
    """The adjoint of np.linalg.slogdet for ``a``. With h = log det A (whose derivative
    is inv(A)^T), logdet = Re h and sign = exp(i Im h): the sign is piecewise constant
    for a real ``a``, and turns with Im h for a complex one."""
    sign = np.asarray(ans[0])
    h_bar = np.asarray(as_array(g[1], a)) + 0j * sign
    if np.iscomplexobj(sign):
        h_bar = h_bar - 1j * np.real(1j * np.asarray(as_array(g[0], a)) * sign)
    return as_adjoint(h_bar[..., None, None] * mT(np.linalg.inv(a)), a)


@adjoint_of(3)
def solve_grad_b(g, ans, a, b):
    if np.ndim(b) == 1:
        return np.linalg.solve(mT(a), g)
    return tensor.sum_to_shape(np.linalg.solve(mT(a), g), np.shape(b))


@adjoint_of(2)
def solve_grad_a(g, ans, a, b):
    gb = np.linalg.solve(mT(a), g[..., None] if np.ndim(b) == 1 else g)
    x = ans[..., None] if np.ndim(b) == 1 else ans
    return tensor.sum_to_shape(-np.matmul(gb, mT(x)), np.shape(a))


def cholesky_grad(g, ans, a, upper=False):
    """The adjoint of np.linalg.cholesky, which reads only one triangle of ``a``.

    With S = L^-T Phi(L^T G) L^-1 (Murray 2016, Phi = lower triangle with half its
    diagonal), the gradient for a symmetric perturbation is (S + S^T)/2; NumPy reads
    the lower triangle (the upper with upper=True), so the gradient of the function it
    computes puts S + S^T on that triangle off the diagonal and S's diagonal on it.
    """
    real_only(a, "np.linalg.cholesky")
    L = mT(ans) if upper else ans
    G = mT(g) if upper else g
    n = L.shape[-1]
    phi = np.tril(np.matmul(mT(L), G))
    phi = phi * (1.0 - 0.5 * np.eye(n, dtype=phi.dtype))
    Linv = np.linalg.inv(L)
    S = np.matmul(np.matmul(mT(Linv), phi), Linv)
    sym = S + mT(S)
    diag = np.eye(n, dtype=S.dtype)
    grad = np.tril(sym) - diag * S
    return mT(grad) if upper else grad


def cross_grad_a(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """d a of np.cross, c = a x b: b x g, linear in g and in b (cross_grad_b: g x a)."""
    return _cross_adjoint(g, a, b, axisa, axisb, axisc, axis, 0)


def cross_grad_b(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return _cross_adjoint(g, a, b, axisa, axisb, axisc, axis, 1)


def _cross_adjoint(g, a, b, axisa, axisb, axisc, axis, which):
    # 2-vectors are 3-vectors with z = 0 (two make the z component alone, no axis)
    if axis is not None:
        axisa = axisb = axisc = axis
    am = np.moveaxis(np.asarray(a), axisa, -1)
    bm = np.moveaxis(np.asarray(b), axisb, -1)
    na, nb = am.shape[-1], bm.shape[-1]

    def to3(v):
        return np.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, 3 - v.shape[-1])])
    gv = np.asarray(as_array(g, am, bm))
    g3 = np.stack([np.zeros_like(gv)] * 2 + [gv], axis=-1) if na == nb == 2 else \
        np.moveaxis(gv, axisc, -1)
    if which == 0:
        grad = np.cross(to3(bm), g3)[..., :na]
        return as_adjoint(np.moveaxis(tensor.sum_to_shape(grad, am.shape), -1, axisa), a)
    grad = np.cross(g3, to3(am))[..., :nb]
    return as_adjoint(np.moveaxis(tensor.sum_to_shape(grad, bm.shape), -1, axisb), b)


def matrix_power_grad(g, a, n):
    """d A^n: sum_k (A^T)^k G (A^T)^(n-1-k); a negative n goes through inv(A)."""
    x = np.asarray(a)
    g = np.asarray(as_array(g, x))
    if n == 0:
        return as_adjoint(np.zeros(x.shape, dtype=np.result_type(x, g)), a)
    base = x if n > 0 else np.linalg.inv(x)
    bt = mT(base)
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
    return as_adjoint(total, a)


def _tri_read(grad, lower=True):
    """The gradient of a function of the symmetric matrix np.linalg builds from one
    triangle of its argument (eigh, svd and pinv with hermitian=True): each entry of
    that triangle stands for both of its mirrored entries."""
    tri = np.tril(grad) + np.tril(mT(grad), -1) if lower else \
        np.triu(grad) + np.triu(mT(grad), 1)
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
    skew = np.abs(m - mT(m))
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
    real_only(a, "np.linalg.eigh")
    w, v = ans
    gw, gv = _pieces_of(g, 2)
    dt = np.result_type(v, as_array(gw, v), as_array(gv, v))
    inner = np.zeros(v.shape, dtype=dt)
    inner = inner + np.asarray(gw)[..., None, :] * np.eye(v.shape[-1], dtype=v.dtype) \
        if np.any(gw) else inner
    if np.any(gv):
        m = np.matmul(mT(v), gv)
        f, tied = _spectral_gap(w, w.dtype)
        _check_gauge(m, tied, "np.linalg.eigh at a repeated eigenvalue, for a result "
                     "that depends on the choice of eigenvectors, has no derivative",
                     "use only basis-independent quantities (projectors, v @ v.T, "
                     "eigenvalues), or separate the repeated eigenvalues")
        inner = inner + f * m
    grad = np.matmul(np.matmul(v, inner), mT(v))
    return as_adjoint(_tri_read(grad, UPLO.upper() == "L"), a)


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
    gw = np.asarray(as_array(gw, w))
    if np.any(tied) and (np.any(gv) or np.any(tied & (gw[..., :, None] != gw[..., None, :]))):
        not_differentiable("np.linalg.eig at a repeated eigenvalue has no derivative",
                           "separate the repeated eigenvalues, or use np.linalg.eigh "
                           "for a symmetric matrix")
    dt = np.result_type(v, w, gw, as_array(gv, v))
    inner = np.zeros(v.shape, dtype=dt) + gw[..., None, :] * np.eye(n, dtype=dt)
    if np.any(gv):
        gv = np.asarray(gv)
        m = np.matmul(mT(v), gv)
        mj = np.diagonal(m, axis1=-2, axis2=-1)
        # unit length: Re c_j = -Re (V^H V (F o P))_jj
        b = -np.real(mj)[..., None, :] * mT(np.matmul(np.conj(mT(v)), v))
        if np.iscomplexobj(v):
            # the largest component k_j stays real: Im c_j = -Im (V (F o P))_kj / v_kj
            k = np.argmax(np.abs(v), axis=-2)
            vk = np.take_along_axis(v, k[..., None, :], axis=-2)[..., 0, :]
            rows = np.take_along_axis(v, k[..., :, None], axis=-2)
            b = b - 1j * (np.imag(mj) / np.real(vk))[..., None, :] * mT(rows)
        inner = inner + f * (m + b)
    vinv_t = mT(np.linalg.inv(v))
    return as_adjoint(np.matmul(np.matmul(vinv_t, inner), mT(v)), a)


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
        grad = np.conj(np.matmul(u * np.asarray(as_array(g, s))[..., None, :], vh))
        return as_adjoint(_tri_read(grad) if hermitian else grad, a)
    real_only(x, "np.linalg.svd's singular vectors")
    u, s, vh = ans
    gu, gs, gvh = _pieces_of(g, 3)
    gu, gvh = np.asarray(as_array(gu, u)), np.asarray(as_array(gvh, vh))
    if full_matrices and m != n:
        if np.any(gu[..., :, k:]) or np.any(gvh[..., k:, :]):
            not_differentiable(
                "the extra singular vectors np.linalg.svd returns with full_matrices=True "
                "are any basis of a complement and have no derivative",
                "pass full_matrices=False, or use only the first min(m, n) vectors")
        u, gu = u[..., :, :k], np.broadcast_to(gu, u.shape)[..., :, :k]
        vh, gvh = vh[..., :k, :], np.broadcast_to(gvh, vh.shape)[..., :k, :]
    v, gv = mT(vh), mT(gvh)
    dt = np.result_type(u, as_array(gs, s), gu, gv)
    inner = np.asarray(as_array(gs, s))[..., None, :] * np.eye(k, dtype=dt)
    grad = 0
    uses_vectors = np.any(gu) or np.any(gv)
    if uses_vectors:
        f, tied = _spectral_gap(s * s, s.dtype)
        mu, mv = np.matmul(mT(u), gu), np.matmul(mT(v), gv)
        _check_gauge(mu + mv, tied, "np.linalg.svd at a repeated singular value, for a "
                     "result that depends on the choice of singular vectors, has no "
                     "derivative", "separate the repeated singular values")
        if np.any(s == 0) and (m > k or n > k):
            not_differentiable("np.linalg.svd's singular vectors have no derivative at a "
                               "zero singular value", "use only the singular values there")
        j, kk = f * mu, f * mv
        inner = inner + (j + mT(j)) * s[..., None, :] + s[..., :, None] * (kk + mT(kk))
        sinv = 1 / s
        if m > k:
            rest = gu - np.matmul(u, mu)
            grad = grad + np.matmul(rest * sinv[..., None, :], vh)
        if n > k:
            rest = gv - np.matmul(v, mv)
            grad = grad + np.matmul(u * sinv[..., None, :], mT(rest))
    grad = grad + np.matmul(np.matmul(u, inner), vh)
    return as_adjoint(_tri_read(grad) if hermitian else grad, a)


def _check_rank(s, cutoff, what):
    if np.any(s <= cutoff):
        not_differentiable(f"{what} at a rank-deficient matrix has no derivative (its "
                           "value jumps when the rank changes)",
                           "regularize (e.g. add a small multiple of the identity) or "
                           "solve a full-rank problem")


def _pinv_adjoint(gp, a, p):
    """dA from the adjoint of P = pinv(A) (Golub and Pereyra, for constant rank):
    -P^T G P^T + conj((I - A P) G^T P P^H) + conj(P^H P G^T (I - P A))."""
    ph = np.conj(mT(p))
    ap = np.matmul(a, p)
    pa = np.matmul(p, a)
    eye_m = np.eye(ap.shape[-1], dtype=ap.dtype)
    eye_n = np.eye(pa.shape[-1], dtype=pa.dtype)
    gt = mT(gp)
    first = -np.matmul(np.matmul(mT(p), gp), mT(p))
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
    gp = np.asarray(as_array(g, ans))
    grad = _pinv_adjoint(gp, x, ans)
    return as_adjoint(_tri_read(grad) if hermitian else grad, a)


def lstsq_grads(g, ans, a, b, rcond=None, matrix=True):
    """(d a, d b) of np.linalg.lstsq, which returns (x, residuals, rank, s): x = P b
    with P = pinv(A) at full rank, the residuals |A x - b|^2 (A^T r = 0 there, so
    only their explicit terms count) and the singular values."""
    x, res, rank, s = ans
    gx, gres, _, gs = _pieces_of(g, 4)
    av, bv = np.asarray(a), np.asarray(b)
    vec = bv.ndim == 1
    b2 = bv[:, None] if vec else bv
    x2 = x[:, None] if vec else x
    gx2 = np.asarray(as_array(gx, x))
    gx2 = np.broadcast_to(gx2, x.shape)[:, None] if vec else np.broadcast_to(gx2, x.shape)
    dt = np.result_type(av, bv, gx2, float)
    grad_a = np.zeros(av.shape, dtype=dt)
    grad_b = np.zeros(b2.shape, dtype=dt)
    if np.any(gx2):
        # P cut where lstsq cuts (s <= rcond s_max, machine precision for rcond < 0)
        cut = np.finfo(dt).eps * max(av.shape) if rcond is None else rcond
        p = np.linalg.pinv(av, cut if cut >= 0 else np.finfo(dt).eps)
        grad_b = grad_b + np.matmul(mT(p), gx2)
        if matrix:   # (without: b alone, in which x = P b is linear at any rank)
            if rank < min(av.shape):
                not_differentiable("np.linalg.lstsq at a rank-deficient matrix has no "
                                   "derivative (its solution jumps when the rank changes)",
                                   "regularize, or solve a full-rank problem")
            grad_a = grad_a + _pinv_adjoint(np.matmul(gx2, mT(b2)), av, p)
    gres = np.asarray(as_array(gres, res))
    if res.size and np.any(gres):
        r = np.matmul(av, x2) - b2
        grad_a = grad_a + 2 * np.matmul(np.conj(r) * gres, mT(x2))
        grad_b = grad_b - 2 * np.conj(r) * gres
    gs = np.asarray(as_array(gs, s))
    if np.any(gs):
        u, _, vh = np.linalg.svd(av, full_matrices=False)
        grad_a = grad_a + np.conj(np.matmul(u * gs, vh))
    return as_adjoint(grad_a, a), as_adjoint(grad_b[:, 0] if vec else grad_b, b)
