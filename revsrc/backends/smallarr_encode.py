"""Small-array loops: one instruction encoded for the C loop (revsrc/_smallarr.pxi),
for revsrc/backends/smallarr_layout.py, which lays a loop's registers out.

Each operand is read as NumPy reads the array the Python path holds, so that NumPy's
loops and BLAS calls are the ones the Python path makes: a plain array with C
strides, a transposed matrix (("T", r, c): its register holds the (c, r) C-order
array whose view ``x.T`` it is, or an F-order result's data) with the view's strides,
a vector NumPy gives a new axis with that axis's stride 0. An elementwise operation
gives the same bits whatever the strides; a product's strides choose the BLAS call.
"""
from __future__ import annotations

from ..runtime import smallarr as rt
from .smallarr_views import transposed as _transposed, logical as _logical

__all__ = ["WIDTH", "SCALARS", "PRODUCTS", "size", "encode_op", "encode_dot",
           "encode_solve_grad", "encode_det_grad", "linalg_word"]

WIDTH = _WIDTH = 12
# Scalars: "f" a Python float, "s" a NumPy float64 scalar (what np.linalg.det and a
# vector @ a vector return, and NumPy's arithmetic on one), "i" the loop variable.
SCALARS = _SCALARS = ("f", "s", "i")


def size(shape):
    if shape in _SCALARS:
        return 1
    n = 1
    for d in _logical(shape):
        n *= d
    return n


_size = size


def _operand(name, shapes, offs, aliases, flip=False):
    """(register, logical shape, row stride, column stride), strides in elements, of a
    matrix as np.matmul reads it; ``flip``: its transpose (``np.swapaxes(b, -1, -2)``)."""
    shape = shapes[name]
    reg = offs[aliases[name]] if name in aliases else offs[name]
    if _transposed(shape):      # x.T of x (c, r): rows 1 apart, columns r
        (r, c), strides = shape[1:], (1, shape[1])
    else:
        (r, c), strides = shape, (shape[1], 1)
    if flip:
        return reg, (c, r), strides[1], strides[0]
    return reg, (r, c), strides[0], strides[1]


PRODUCTS = _PRODUCTS = ("matmul", "mgrad_a", "mgrad_b")


def encode_op(c, shapes, offs, aliases=None, out_shape=None):
    """The word of instruction ``c`` (not a push, pop, dot or adjoint of solve) that
    reads ``shapes`` and writes ``out_shape`` (else its register's)."""
    kind, sub, out, a, b = c[:5]
    aliases = aliases or {}
    w = [0] * _WIDTH
    O = offs[out]
    if kind in ("bin", "ubin", "accumulate"):
        return _encode_bin(c, shapes, offs, shapes[out] if out_shape is None else out_shape)
    if kind == "un":
        w[:5] = [rt.OP["un"], rt.UNARY[sub], O, offs[a], _size(shapes[a])]
        return w
    if kind in ("mov", "unbroadcast", "T"):
        # (a transpose: the same data, read with the other strides)
        w[:5] = [rt.OP["mov"], 0, O, offs[a], _size(shapes[a])]
        return w
    if kind == "tanh_vjp":
        w[:6] = [rt.OP["tanh_vjp"], 0, O, offs[a], offs[b], _size(shapes[a])]
        return w
    if kind == "row":
        A = shapes[a]
        w[:7] = [rt.OP["row"], 0, O, offs[a], _size(A[1:]), offs[b], A[0]]
        return w
    if kind in ("inv", "det", "solve"):
        n = shapes[a][0]
        sub = "solve1" if kind == "solve" and len(shapes[b]) == 1 else kind
        nrhs = shapes[b][1] if sub == "solve" else 1
        return linalg_word(sub, O, offs[a], offs[b] if b else 0, n, nrhs, (n, 1),
                           (nrhs, 1))
    if kind == "matmul":
        return _encode_matmul(O, a, b, shapes, offs, aliases)
    return _encode_matmul_grad(c, shapes, offs, aliases)


def _encode_bin(c, shapes, offs, OUT):
    kind, sub, out, a, b = c[:5]
    w = [0] * _WIDTH
    O = offs[out]
    sub = "add" if kind == "accumulate" else sub
    A, B = shapes[a], shapes[b]
    if OUT == "f":
        w[:5] = [rt.OP["fbin"], rt.BINARY[sub], O, offs[a], offs[b]]
        return w
    if OUT == "s" and kind == "bin":
        # an operator on a NumPy scalar is NumPy's scalar math, C's arithmetic (a
        # NaN keeps the operand C keeps, where a ufunc's SIMD loop need not)
        w[:6] = [rt.OP["fbin"], rt.BINARY[sub], O, offs[a], offs[b], 1]
        return w
    if OUT == "s":      # a ufunc on scalars: its loop on one
        w[:11] = [rt.OP["bin"], rt.BINARY[sub], O, offs[a], offs[b], 1, 1, 1, 1, 1, 1]
        return w
    if _transposed(OUT) or not (_transposed(A) or _transposed(B)):
        # (all transposed alike: elementwise on the data as it lies)
        A, B = (s if s in _SCALARS else _logical(s) for s in (A, B))
        big = A if A not in _SCALARS and (B in _SCALARS or len(A) >= len(B)) else B
        with_row = len(big) == 2 and any(s not in _SCALARS and len(s) == 1 for s in (A, B))
        rows, cols = (big[0], big[1]) if with_row else (1, _size(big))

        def strides(s):
            if s in _SCALARS:
                return 0, 0
            if s == big:
                return 1, cols
            return 1, 0          # a row, the same for every row of the matrix
    else:
        # a C-order result of a transposed operand: read with its strides
        rows, cols = _logical(OUT)

        def strides(s):
            if s in _SCALARS:
                return 0, 0
            return (rows, 1) if _transposed(s) else (1, cols)
    sa, ra = strides(A)
    sb, rb = strides(B)
    w[:11] = [rt.OP["bin"], rt.BINARY[sub], O, offs[a], offs[b], rows, cols,
              sa, ra, sb, rb]
    return w


def _encode_matmul_grad(c, shapes, offs, aliases):
    """The adjoints of a @ b (runtime/grads/linalg.py's matmul_grad_a and _b) as they
    call NumPy: g @ b.T and a.T @ g for matrices; a vector a or b as NumPy promotes it
    (g[None, :], g[:, None]: a new axis of stride 0), np.multiply.outer for a vector
    times a vector's outer product, and ``g * b`` for two vectors (g a scalar)."""
    kind, O = c[0], offs[c[2]]
    g, a, b = c[3], c[4], c[5]
    A, B = _logical(shapes[a]), _logical(shapes[b])
    w = [0] * _WIDTH
    mul = rt.BINARY["multiply"]
    if len(A) == 1 and len(B) == 1:
        other = b if kind == "mgrad_a" else a
        w[:11] = [rt.OP["bin"], mul, O, offs[g], offs[other], 1, A[0], 0, 0, 1, 0]
        return w
    if len(A) == 1:
        k, n = B
        if kind == "mgrad_a":
            # np.matmul(g[None, :], b.T)[0]: one row (a new axis: stride 0) times b.T
            rb, _, s2n, s2p = _operand(b, shapes, offs, aliases, flip=True)
            return _mm(w, O, offs[g], rb, 1, n, k, 0, 1, s2n, s2p, k)
        # np.multiply.outer(a, g)
        w[:11] = [rt.OP["bin"], mul, O, offs[a], offs[g], k, n, 0, 1, 1, 0]
        return w
    if kind == "mgrad_a":
        m, k = A
        if len(B) == 1:
            # np.multiply.outer(g, b): g[i] times the row b, row by row
            w[:11] = [rt.OP["bin"], mul, O, offs[g], offs[b], m, k, 0, 1, 1, 0]
            return w
        n = B[1]    # g (m, n) @ b.T (n, k)
        rg, _, s1m, s1n = _operand(g, shapes, offs, aliases)
        rb, _, s2n, s2p = _operand(b, shapes, offs, aliases, flip=True)
        return _mm(w, O, rg, rb, m, n, k, s1m, s1n, s2n, s2p, k)
    m, k = A        # mgrad_b: a.T (k, m) @ g (m, p)
    ra, _, s1m, s1n = _operand(a, shapes, offs, aliases, flip=True)
    if len(B) == 1:
        return _mm(w, O, ra, offs[g], k, m, 1, s1m, s1n, 1, 0, 1)
    rg, _, s2n, s2p = _operand(g, shapes, offs, aliases)
    return _mm(w, O, ra, rg, k, m, B[1], s1m, s1n, s2n, s2p, B[1])


def encode_det_grad(c, shapes, offs, scratch):
    """The adjoint of det(a) (runtime/grads/linalg.py's det_grad) as NumPy computes it:
    ``(g * ans)[..., None, None] * mT(np.linalg.inv(a))``: inv's gufunc loop into
    ``scratch``, the 0-d product's multiply loop, then the product of that value with
    each element, in the order the F-order result's data lies (inv's C order)."""
    out, g, ans, a = offs[c[2]], offs[c[3]], offs[c[4]], offs[c[5]]
    n = shapes[c[5]][0]
    mul = rt.BINARY["multiply"]
    s = scratch + n * n
    return [linalg_word("inv", scratch, a, 0, n, 1, (n, 1), (1, 1)),
            [rt.OP["bin"], mul, s, g, ans, 1, 1, 1, 1, 1, 1, 0],
            [rt.OP["bin"], mul, out, s, scratch, 1, n * n, 0, 0, 1, 0, 0]]


def encode_dot(c, shapes, offs, views):
    """np.dot(a, b); its adjoints np.dot(g, b.T) and np.dot(a.T, g) (as the loop
    kernels compute them), on views of the registers."""
    def view(name, transposed=False):
        views.append((offs[name], shapes[name], transposed))
        return len(views) - 1
    kind, out = c[0], c[2]
    if kind == "dot":
        a, b = view(c[3]), view(c[4])
    elif kind == "dgrad_a":
        a, b = view(c[3]), view(c[5], True)
    else:
        a, b = view(c[4], True), view(c[3])
    w = [0] * _WIDTH
    w[:5] = [rt.OP["dot"], 0, view(out), a, b]
    return w


def linalg_word(sub, out, a, b, n, nrhs, a_strides, b_strides):
    return [rt.OP["linalg"], rt.LINALG[sub], out, a, b, n, nrhs, *a_strides,
            *b_strides, 0]


def encode_solve_grad(c, shapes, offs, scratch):
    """The adjoints of x = np.linalg.solve(a, b) (runtime/grads/linalg.py), as their
    NumPy calls see the operands: for b, solve(a.T, g) (a.T a view: a's register with
    its strides); for a, -(gb @ x.T) with gb = solve(a.T, g), a vector g and x taken
    as columns (g[:, None], x[:, None]: a new axis of stride 0)."""
    kind, out, g, x, a = c[0], offs[c[2]], offs[c[3]], offs[c[4]], offs[c[5]]
    X = shapes[c[4]]
    n = X[0]
    k = X[1] if len(X) == 2 else 1
    if kind == "sgrad_b":
        sub = "solve1" if len(X) == 1 else "solve"
        return [linalg_word(sub, out, a, g, n, k, (1, n), (k, 1))]
    solve = linalg_word("solve", scratch, a, g, n, k, (1, n), (1, 0) if len(X) == 1
                         else (k, 1))
    # gb (n, k) @ x.T (k, n): x[:, None].T's strides are (0, 1); x.T's (1, k)
    prod = _mm([0] * _WIDTH, out, scratch, x, n, k, n, k, 1,
               0 if len(X) == 1 else 1, 1 if len(X) == 1 else k, n)
    neg = [rt.OP["un"], rt.UNARY["negative"], out, out, n * n] + [0] * (_WIDTH - 5)
    return [solve, prod, neg]


def _encode_matmul(O, a, b, shapes, offs, aliases):
    """a @ b as np.matmul's loop sees it: the strides NumPy gives it (a missing core
    dimension's 0; a transposed matrix's, its register or its source's)."""
    def operand(name, first):
        shape = shapes[name]
        if len(_logical(shape)) == 2:
            return _operand(name, shapes, offs, aliases)
        return (offs[name], shape, 0, 1) if first else (offs[name], shape, 1, 0)
    ra, A, s1m, s1n = operand(a, True)
    rb, B, s2n, s2p = operand(b, False)
    m = A[0] if len(A) == 2 else 1
    p = B[1] if len(B) == 2 else 1
    return _mm([0] * _WIDTH, O, ra, rb, m, A[-1], p, s1m, s1n, s2n, s2p,
               p if len(A) == 2 else 0)


def _mm(w, out, a, b, m, n, p, is1_m, is1_n, is2_n, is2_p, os_m):
    w[:12] = [rt.OP["matmul"], is2_p, out, a, b, m, n, p, is1_m, is1_n, is2_n, os_m]
    return w
