"""Small-array loops: a plan's registers laid out for one combination of shapes, and
its instructions encoded for the C loop (revsrc/_smallarr.pxi).

Called by `runtime.smallarr.SmallLoop.run` the first time it meets the shapes (the
result is cached per combination). Shapes are inferred over the body twice: the first
pass sees the values the loop starts from (iteration 0), the second what the body
leaves (every later iteration); an instruction whose operands' shapes differ between
them, or that does not take them, refuses the layout (False) and Python runs the loop.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..runtime import smallarr as rt
from .smallarr_views import No as _No, transposed as _transposed, logical as _logical, \
    aliases as _aliases, source as _source

__all__ = ["layout"]

_WIDTH = 12


@dataclass
class Layout:
    code: np.ndarray          # int64 (k, 12)
    arena: np.ndarray         # the registers, constants filled in
    live: list                # (offset, size) per live-in (size 0: not a register)
    outs: list                # (offset, shape, slot popped last or None, size) per output
    slots: list               # (offset in a tape row, shape) per push
    entry: dict               # push slot -> live-in index: iteration 0 pushes that object
    row: int                  # doubles per tape row
    loopvar: int              # the loop variable's register, -1 if unread
    views: list               # (offset, shape, transposed): ndarrays on the arena;
                              # ("live", k, None): the k-th live-in itself
    batches: list             # accumulations done after the loop (`_batches`)
    brow: int                 # doubles per iteration of their stacked operands


# Scalars: "f" a Python float, "s" a NumPy float64 scalar (what np.linalg.det and a
# vector @ a vector return, and NumPy's arithmetic on one), "i" the loop variable.
_SCALARS = ("f", "s", "i")


def _size(shape):
    return 1 if shape in _SCALARS else int(np.prod(shape))


def _infer(c, sh):
    """The shape of instruction ``c``'s result from its operands' shapes ``sh``."""
    kind, sub, out, a, b = c[:5]
    g = c[5] if len(c) > 5 else None
    A = sh.get(a, None) if a is not None else None
    B = sh.get(b, None) if b is not None else None
    if kind != "matmul" and any(_transposed(sh.get(r)) for r in c[3:] if r is not None):
        raise _No       # a transposed view is read by products only (`_aliases`)
    if kind == "T":
        if A in _SCALARS or A is None or len(A) != 2:
            raise _No
        return ("T", A[1], A[0])
    if kind in _LINALG:
        return _infer_linalg(kind, A, B)
    if kind in ("sgrad_a", "sgrad_b"):       # (g, x, a): x = solve(a, b), x's shape b's
        M = sh.get(g)
        if c[2] in c[3:] or A != B or _infer_linalg("solve", M, B) != B:
            raise _No
        return M if kind == "sgrad_a" else B
    if kind in ("bin", "ubin", "accumulate"):
        if A is None or B is None or A == "i" or B == "i":
            raise _No
        if A in _SCALARS and B in _SCALARS:
            if kind == "accumulate" or (kind == "bin" and A == "f" and B == "f"):
                # (two Python floats: Python's arithmetic, SA_FBIN)
                if kind != "bin":
                    raise _No
                return "f"
            return "s"      # a NumPy scalar's arithmetic, or a ufunc on two floats
        if A in _SCALARS or B in _SCALARS or A == B:
            if kind == "accumulate" and A != B:
                raise _No
            return B if A in _SCALARS else A
        if len(A) == 2 and B == A[1:] or len(B) == 2 and A == B[1:]:
            return A if len(A) == 2 else B
        raise _No
    if kind in ("un", "mov"):
        if A is None or A == "i" or (kind == "un" and A == "f"):
            raise _No
        return A
    if kind in ("tanh_vjp", "unbroadcast"):
        if A is None or A != B or A in _SCALARS:
            raise _No
        return A
    if kind == "matmul":
        return _product_shape(A, B)
    if kind in ("mgrad_a", "mgrad_b"):
        G = sh.get(g, None)
        want = _product_shape(A, B)
        if G in (None, "f", "s", "i") or want == "s":
            raise _No
        if G != want:
            raise _No
        return A if kind == "mgrad_a" else B
    if kind in ("dot", "dgrad_a", "dgrad_b"):
        return _infer_dot(kind, A, B, sh.get(g, None))
    if kind == "row":
        if A in (None, "f", "s", "i") or len(A) < 2:
            raise _No
        return A[1:]
    raise _No


def _product_shape(A, B):
    """a @ b's shape: a matrix times a vector or a matrix, a vector times a matrix or
    a vector (a NumPy scalar, "s"); either may be a transposed view."""
    if A in (None, "f", "s", "i") or B in (None, "f", "s", "i"):
        raise _No
    A, B = _logical(A), _logical(B)
    if A[-1] != B[0] or (len(A), len(B)) not in ((2, 1), (2, 2), (1, 2), (1, 1)):
        raise _No
    return A[:-1] + B[1:] or "s"


# np.linalg's functions the tier runs (their gufunc loops, _smallarr.pxi SA_LINALG)
_LINALG = ("inv", "det", "solve")


def _infer_linalg(kind, A, B):
    if A in (None, "f", "s", "i") or len(A) != 2 or A[0] != A[1]:
        raise _No
    if kind == "inv":
        return A
    if kind == "det":
        return "s"
    if B in (None, "f", "s", "i") or len(B) not in (1, 2) or B[0] != A[0]:
        raise _No
    return B


def _infer_dot(kind, A, B, G):
    if any(s in (None, "f", "s", "i") or _transposed(s) for s in (A, B)) or len(A) != 2 or len(B) not in (1, 2) \
            or A[1] != B[0]:
        raise _No
    out = (A[0],) if len(B) == 1 else (A[0], B[1])
    if kind == "dot":
        return out
    if G != out or (kind == "dgrad_a" and len(B) != 2):
        raise _No
    return A if kind == "dgrad_a" else B


def _walk(plan, sh, pop_shapes, record):
    """One pass over the body; ``record`` gets (instruction index, operand shapes,
    result shape). Pushes of undefined registers record None."""
    k_pop = 0
    for k, c in enumerate(plan.code):
        if c[0] == "push":
            record(k, (sh.get(c[3]),), sh.get(c[3]))
            continue
        if c[0] == "pop":
            sh[c[2]] = pop_shapes[k_pop]
            k_pop += 1
            record(k, (), sh[c[2]])
            continue
        if c[0] in ("mgrad_a", "mgrad_b", "dgrad_a", "dgrad_b"):
            # (kind, sub, out, g, a, b): operands as _infer reads them
            c = (c[0], c[1], c[2], c[4], c[5], c[3])
        out = _infer(c, sh)
        record(k, tuple(sh.get(r) for r in c[3:] if r is not None), out)
        sh[c[2]] = out


def layout(plan, key, tape):
    """The `Layout` of ``plan`` for the live-in shapes ``key``, or False."""
    try:
        return _layout(plan, key, tape)
    except _No:
        return False


def _layout(plan, key, tape):
    live = key[:len(plan.liveins)]
    sh = {n: d for n, d in zip(plan.liveins, live) if d is not None}
    sh.update({c: "f" for c in plan.consts})
    sh[plan.var] = "i"
    pops = [c for c in plan.code if c[0] == "pop"]
    pop_shapes, pop_slot = [], []
    if tape is not None:
        if len(tape.slots) != len(pops):
            raise _No
        for i in range(len(pops)):
            j = len(pops) - 1 - i
            pop_shapes.append(tape.slots[j][2])
            pop_slot.append(j)
    first, second = {}, {}
    _walk(plan, dict(sh), pop_shapes, lambda k, ins, out: first.__setitem__(k, (ins, out)))
    end = dict(sh)
    _walk(plan, end, pop_shapes, lambda k, ins, out: None)
    end.update({c: "f" for c in plan.consts})
    end[plan.var] = "i"
    _walk(plan, dict(end), pop_shapes, lambda k, ins, out: second.__setitem__(k, (ins, out)))
    entry = {}
    pushes = [k for k, c in enumerate(plan.code) if c[0] == "push"]
    for j, k in enumerate(pushes):
        if second[k][1] is None:
            raise _No
        if first[k] != second[k]:
            name = plan.code[k][3]
            if name not in plan.liveins:
                raise _No
            entry[j] = plan.liveins.index(name)
    for k, c in enumerate(plan.code):
        if c[0] != "push" and first[k] != second[k] and not _promoted(first[k], second[k]):
            raise _No
    if any(c[0] in _LINALG for c in plan.code) and not rt.linalg_ready():
        raise _No
    for k, c in enumerate(plan.code):
        if c[0] in ("push", "pop") and _transposed(end.get(c[3] or c[2])):
            raise _No
    aliases = _aliases(plan, end)
    # a pop whose iteration-0 save was no register's value must not be read after it
    if tape is not None:
        _check_pops(plan, pop_slot, tape.entry)
    return _encode(plan, end, live, entry, pop_slot, tape, aliases)


def _promoted(first, second):
    """Whether an instruction reads a Python float at iteration 0 where later ones read
    a NumPy scalar (``nll = nll + det``: nll starts 0.0), with the same result: the
    same register and the same instruction either way."""
    (ins1, out1), (ins2, out2) = first, second
    return out1 == out2 and out1 != "f" and len(ins1) == len(ins2) and all(
        x == y or {x, y} == {"f", "s"} for x, y in zip(ins1, ins2))


def _check_pops(plan, pop_slot, entry):
    k_pop = 0
    for k, c in enumerate(plan.code):
        if c[0] != "pop":
            continue
        slot = pop_slot[k_pop]
        k_pop += 1
        if slot not in entry:
            continue
        for d in plan.code[k + 1:]:
            if d[0] != "pop" and c[2] in d[3:]:
                raise _No
            if d[2] == c[2]:
                break


def _encode(plan, shapes, live, entry, pop_slot, tape, aliases):
    # a live-in read only for its rows (xs[t]) is read where it is, not copied in
    external = {n for n in plan.liveins if n not in plan.outputs and all(
        n not in c[3:] or (c[0] == "row" and c[3] == n and c[4] != n) for c in plan.code)}
    offs, total = {}, 0
    for name in sorted(set(shapes) - external - set(aliases), key=str):
        offs[name] = total
        total += _size(shapes[name])
    # a product whose result overwrites one of its operands (T = T @ A) is computed
    # into a scratch register first: NumPy's loops read the operand while writing
    scratch = total
    total += max([_size(shapes[c[2]]) for c in plan.code
                  if c[0] in _PRODUCTS and c[2] in c[3:]] or [0])
    gb = total      # the adjoint of solve for a: the solve before the product
    total += max([_size(shapes[c[3]]) for c in plan.code if c[0] == "sgrad_a"] or [0])
    arena = np.zeros(total, np.float64)
    for name, v in plan.consts.items():
        arena[offs[name]] = v
    words, slots, row, views = [], [], 0, []
    batches, hidden, brow = _batches(plan, shapes, offs)
    k_pop = 0
    for k, c in enumerate(plan.code):
        w = [0] * _WIDTH
        kind = c[0]
        if k in hidden:
            # an accumulated product's operands, stacked for one GEMM after the loop
            for boff, name in hidden[k]:
                words.append([rt.OP["push"], 0, boff, offs[name], _size(shapes[name])] +
                             [0] * (_WIDTH - 5))
            continue
        if kind == "accumulate" and c[2] in batches or kind == "T":
            continue        # (a transposed view: its products read its source)
        if kind == "push":
            size = _size(shapes[c[3]])
            w[:5] = [rt.OP["push"], 0, row, offs[c[3]], size]
            slots.append((row, shapes[c[3]]))
            row += size
        elif kind == "pop":
            off = tape.slots[pop_slot[k_pop]][1]
            k_pop += 1
            w[:5] = [rt.OP["pop"], 0, offs[c[2]], off, _size(shapes[c[2]])]
        elif kind in ("dot", "dgrad_a", "dgrad_b"):
            w = _encode_dot(c, shapes, offs, views)
        elif kind in ("sgrad_a", "sgrad_b"):
            *first, w = _encode_solve_grad(c, shapes, offs, gb)
            words.extend(first)
        elif kind == "row" and c[3] in external:
            views.append(("live", plan.liveins.index(c[3]), None))
            A = shapes[c[3]]
            w[:7] = [rt.OP["row"], 1, offs[c[2]], len(views) - 1, _size(A[1:]),
                     offs[c[4]], A[0]]
        elif kind in _PRODUCTS and c[2] in c[3:]:
            w = _encode_op(c, shapes, offs, aliases)
            w[2] = scratch
            words.append(w)
            w = [rt.OP["mov"], 0, offs[c[2]], scratch, _size(shapes[c[2]])] + [0] * 7
        else:
            w = _encode_op(c, shapes, offs, aliases)
        words.append(w)
    code = np.array(words, np.int64).reshape(-1, _WIDTH)
    # a live-in whose shape is not its register's is only pushed before the body
    # assigns it (a tape's entry object): nothing to copy in
    # (a Python float enters the register of a NumPy scalar: `_promoted`)
    live_regs = [(offs[n], _size(shapes[n])) if d is not None and n in offs and (
        d == shapes[n] or {d, shapes[n]} == {"f", "s"}) else (0, 0) for n, d in zip(
        plan.liveins, live)]
    last = {}
    k_pop = 0
    for c in plan.code:
        if c[0] == "pop":
            last[c[2]] = pop_slot[k_pop]
            k_pop += 1
        elif c[2] is not None:
            last[c[2]] = None
    outs = [(offs[n], shapes[n], last.get(n), _size(shapes[n])) if n not in aliases else
            (None, _source(plan, aliases[n]), None, 0) for n in plan.outputs[1:]]
    read_var = any(c[0] == "row" for c in plan.code)
    return Layout(code, arena, live_regs, outs, slots, entry, row,
                  offs[plan.var] if read_var else -1, views,
                  list(batches.values()), brow)


# The products whose sum over the steps an adjoint loop accumulates into a weight's
# adjoint: (instruction, how its left and right factors are read: l.T @ r).
def _factors(c, shapes):
    """(left, right, rows, left width, right width) with product = left.T @ right, for
    an instruction whose result is such a product, else None."""
    kind = c[0]
    if kind not in ("mgrad_a", "mgrad_b", "dgrad_b"):
        return None
    g, a, b = c[3], c[4], c[5]
    A, B = shapes[a], shapes[b]
    if len(A) != 2:
        return None
    if kind == "mgrad_a":
        # np.multiply.outer(g, b) = g[None].T @ b[None]
        return (g, b, 1, A[0], A[1]) if len(B) == 1 else None
    G = shapes[g]
    # a.T @ g, g a matrix or a vector
    return (a, g, A[0], A[1], 1 if len(G) == 1 else G[1])


def batching():
    """Whether item 2 is on: ``REVSRC_SMALL_ARRAYS_BATCH=1`` (off by default: the sum
    then has other roundings than the Python path's, within 1e-13 of its norm)."""
    return os.environ.get("REVSRC_SMALL_ARRAYS_BATCH", "0").strip() == "1"


def _batches(plan, shapes, offs):
    """Item 2 of the design: in a loop that does not save, ``W = accumulate(W, t)``
    where ``t = l.T @ r`` is read nowhere else and ``W`` only by such accumulations:
    the factors are stacked row by row, and W gets W + L.T @ R (one np.dot) after the
    loop. Returns ({W: batch}, {producer index: [(row offset, name)]}, row size)."""
    if any(c[0] == "push" for c in plan.code) or not batching():
        return {}, {}, 0
    producer = {c[2]: k for k, c in enumerate(plan.code) if c[0] not in ("push", "pop")}
    groups = {}
    for k, c in enumerate(plan.code):
        if c[0] != "accumulate" or c[2] != c[3]:
            continue
        p = producer.get(c[4])
        f = _factors(plan.code[p], shapes) if p is not None and p < k else None
        groups.setdefault(c[2], []).append((k, p, f))
    batches, hidden, brow = {}, {}, 0
    for W, items in groups.items():
        if any(f is None for _, _, f in items) or \
                len({(f[3], f[4]) for _, _, f in items}) != 1:
            continue
        temps = {plan.code[p][2] for _, p, _ in items}
        ok = all(W not in c[3:] or (c[0] == "accumulate" and c[2] == W)
                 for c in plan.code) and \
            sum(c[2] == W for c in plan.code) == len(items) and \
            all(sum(t in c[3:] for c in plan.code) == 1 and
                sum(c[2] == t for c in plan.code) == 1 for t in temps)
        if not ok or len(temps) != len(items):
            continue
        lw, rw = items[0][2][3], items[0][2][4]
        lsize = sum(f[2] * lw for _, _, f in items)
        start, loff = brow, brow
        roff = brow + lsize
        parts = []
        for k, p, (left, right, rows, _, _) in items:
            hidden[p] = [(loff, left), (roff, right)]
            c = plan.code[p]
            parts.append((c[2], c[0], loff - start, roff - start, rows, offs[c[2]],
                          shapes[c[3]], shapes[c[4]], shapes[c[5]]))
            loff += rows * lw
            roff += rows * rw
        brow = roff
        batches[W] = (offs[W], shapes[W], start, lsize, roff - start - lsize, lw, rw, parts)
    return batches, hidden, brow


_PRODUCTS = ("matmul", "mgrad_a", "mgrad_b")


def _encode_op(c, shapes, offs, aliases=None):
    kind, sub, out, a, b = c[:5]
    w = [0] * _WIDTH
    O = offs[out]
    if kind in ("bin", "ubin", "accumulate"):
        sub = "add" if kind == "accumulate" else sub
        A, B = shapes[a], shapes[b]
        if shapes[out] == "f":
            w[:5] = [rt.OP["fbin"], rt.BINARY[sub], O, offs[a], offs[b]]
            return w
        if shapes[out] == "s" and kind == "bin":
            # an operator on a NumPy scalar is NumPy's scalar math, C's arithmetic (a
            # NaN keeps the operand C keeps, where a ufunc's SIMD loop need not)
            w[:6] = [rt.OP["fbin"], rt.BINARY[sub], O, offs[a], offs[b], 1]
            return w
        if shapes[out] == "s":      # a ufunc on scalars: its loop on one
            w[:11] = [rt.OP["bin"], rt.BINARY[sub], O, offs[a], offs[b], 1, 1, 1, 1, 1, 1]
            return w
        big = A if A not in _SCALARS and (B in _SCALARS or len(A) >= len(B)) else B
        with_row = len(big) == 2 and any(s not in _SCALARS and len(s) == 1 for s in (A, B))
        rows, cols = (big[0], big[1]) if with_row else (1, _size(big))

        def strides(s):
            if s in _SCALARS:
                return 0, 0
            if s == big:
                return 1, cols
            return 1, 0          # a row, the same for every row of the matrix
        sa, ra = strides(A)
        sb, rb = strides(B)
        w[:11] = [rt.OP["bin"], rt.BINARY[sub], O, offs[a], offs[b], rows, cols,
                  sa, ra, sb, rb]
        return w
    if kind == "un":
        w[:5] = [rt.OP["un"], rt.UNARY[sub], O, offs[a], _size(shapes[a])]
        return w
    if kind in ("mov", "unbroadcast"):
        w[:5] = [rt.OP["mov"], 0, O, offs[a], _size(shapes[a])]
        return w
    if kind == "tanh_vjp":
        w[:6] = [rt.OP["tanh_vjp"], 0, O, offs[a], offs[b], _size(shapes[a])]
        return w
    if kind == "row":
        A = shapes[a]
        w[:7] = [rt.OP["row"], 0, O, offs[a], _size(A[1:]), offs[b], A[0]]
        return w
    if kind in _LINALG:
        n = shapes[a][0]
        sub = "solve1" if kind == "solve" and len(shapes[b]) == 1 else kind
        nrhs = shapes[b][1] if sub == "solve" else 1
        return _linalg_word(sub, O, offs[a], offs[b] if b else 0, n, nrhs, (n, 1),
                            (nrhs, 1))
    if kind == "matmul":
        return _encode_matmul(O, a, b, shapes, offs, aliases or {})
    g, a, b = c[3], c[4], c[5]
    G, A, B = shapes[g], shapes[a], shapes[b]
    if len(A) == 1:
        k, n = B
        if kind == "mgrad_a":
            # np.matmul(g[None, :], b.T)[0]: one row (a new axis: stride 0) times b.T
            return _mm(w, O, offs[g], offs[b], 1, n, k, 0, 1, 1, n, k)
        # np.multiply.outer(a, g)
        w[:11] = [rt.OP["bin"], rt.BINARY["multiply"], O, offs[a], offs[g], k, n,
                  0, 1, 1, 0]
        return w
    if kind == "mgrad_a":
        m, k = A
        if len(B) == 1:
            # np.multiply.outer(g, b): g[i] times the row b, row by row
            w[:11] = [rt.OP["bin"], rt.BINARY["multiply"], O, offs[g], offs[b], m, k,
                      0, 1, 1, 0]
            return w
        n = B[1]    # g (m, n) @ b.T (n, k)
        return _mm(w, O, offs[g], offs[b], m, n, k, n, 1, 1, n, k)
    m, k = A        # mgrad_b: a.T (k, m) @ g (m, p)
    p = 1 if len(B) == 1 else B[1]
    return _mm(w, O, offs[a], offs[g], k, m, p, 1, k, p, 1 if len(B) == 2 else 0, p)


def _encode_dot(c, shapes, offs, views):
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


def _linalg_word(sub, out, a, b, n, nrhs, a_strides, b_strides):
    return [rt.OP["linalg"], rt.LINALG[sub], out, a, b, n, nrhs, *a_strides,
            *b_strides, 0]


def _encode_solve_grad(c, shapes, offs, scratch):
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
        return [_linalg_word(sub, out, a, g, n, k, (1, n), (k, 1))]
    solve = _linalg_word("solve", scratch, a, g, n, k, (1, n), (1, 0) if len(X) == 1
                         else (k, 1))
    # gb (n, k) @ x.T (k, n): x[:, None].T's strides are (0, 1); x.T's (1, k)
    prod = _mm([0] * _WIDTH, out, scratch, x, n, k, n, k, 1,
               0 if len(X) == 1 else 1, 1 if len(X) == 1 else k, n)
    neg = [rt.OP["un"], rt.UNARY["negative"], out, out, n * n] + [0] * (_WIDTH - 5)
    return [solve, prod, neg]


def _encode_matmul(O, a, b, shapes, offs, aliases):
    """a @ b as np.matmul's loop sees it: the strides NumPy gives it (a missing core
    dimension's 0; a transposed view's, read from its source's register)."""
    def operand(name, first):
        shape = shapes[name]
        if _transposed(shape):      # x.T of x (c, r): rows 1 apart, columns r
            return offs[aliases[name]], shape[1:], 1, shape[1]
        if len(shape) == 1:
            return (offs[name], shape, 0, 1) if first else (offs[name], shape, 1, 0)
        return offs[name], shape, shape[1], 1
    ra, A, s1m, s1n = operand(a, True)
    rb, B, s2n, s2p = operand(b, False)
    m = A[0] if len(A) == 2 else 1
    p = B[1] if len(B) == 2 else 1
    return _mm([0] * _WIDTH, O, ra, rb, m, A[-1], p, s1m, s1n, s2n, s2p,
               p if len(A) == 2 else 0)


def _mm(w, out, a, b, m, n, p, is1_m, is1_n, is2_n, is2_p, os_m):
    w[:12] = [rt.OP["matmul"], is2_p, out, a, b, m, n, p, is1_m, is1_n, is2_n, os_m]
    return w
