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
    aliases as _aliases, source as _source, check_products as _check_products
from .smallarr_encode import WIDTH as _WIDTH, SCALARS as _SCALARS, PRODUCTS as _PRODUCTS, \
    size as _size, encode_op as _encode_op, encode_dot as _encode_dot, \
    encode_solve_grad as _encode_solve_grad, encode_det_grad as _encode_det_grad

__all__ = ["layout"]


@dataclass
class Layout:
    code: np.ndarray          # int64 (k, 12)
    arena: np.ndarray         # the registers, constants filled in
    live: list                # (offset, size, transposed) per live-in (size 0: none)
    outs: list                # (offset, shape, slot popped last or None, size) per output
    slots: list               # (offset in a tape row, shape) per push
    entry: dict               # push slot -> live-in index: iteration 0 pushes that object
    row: int                  # doubles per tape row
    loopvar: int              # the loop variable's register, -1 if unread
    views: list               # (offset, shape, transposed): ndarrays on the arena;
                              # ("live", k, None): the k-th live-in itself
    batches: list             # accumulations done after the loop (`_batches`)
    brow: int                 # doubles per iteration of their stacked operands
    peel: int                 # words of the first iteration's code (0: none apart)
    distinct: list = ()       # (live-in, live-in) that must not share memory


# What reads a transposed matrix (its strides): products, and elementwise operations
# (the same bits whatever the strides)
_READS_TRANSPOSED = ("matmul", "mgrad_a", "mgrad_b", "bin", "ubin", "un", "mov",
                     "unbroadcast", "T", "zeros", "accumulate")


def _infer(c, sh):
    """The shape of instruction ``c``'s result from its operands' shapes ``sh``."""
    kind, sub, out, a, b = c[:5]
    g = c[5] if len(c) > 5 else None
    A = sh.get(a, None) if a is not None else None
    B = sh.get(b, None) if b is not None else None
    tagged = [r for r in c[3:] if r is not None and _transposed(sh.get(r))]
    if tagged and kind not in _READS_TRANSPOSED:
        raise _No
    if kind == "T":
        if _transposed(A):
            return (A[2], A[1])
        if A in _SCALARS or A is None or len(A) != 2:
            raise _No
        return A if A == (1, 1) else ("T", A[1], A[0])
    if kind == "zeros":     # np.zeros of the shape: C order
        if A in _SCALARS or A is None:
            raise _No
        return _logical(A)
    if kind == "detgrad":   # (g, ans, a)
        M = sh.get(g)
        if A not in ("f", "s") or B != "s" or _infer_linalg("det", M, None) != "s":
            raise _No
        return ("T", M[0], M[0]) if M[0] > 1 else M
    if tagged and kind not in _PRODUCTS:
        return _infer_elementwise(kind, A, B)
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
    if kind == "unbroadcast" and A in ("f", "s") and B in ("f", "s"):
        return A        # (unbroadcast returns a scalar adjoint itself)
    if kind in ("tanh_vjp", "unbroadcast"):
        if A is None or A != B or A in _SCALARS:
            raise _No
        return A
    if kind == "matmul":
        return _product_shape(A, B)
    if kind in ("mgrad_a", "mgrad_b"):
        G = sh.get(g, None)
        want = _product_shape(A, B)
        if want == "s":     # v @ w: g * w and g * v, g a scalar
            if G not in ("f", "s"):
                raise _No
        elif G in (None, "f", "s", "i") or _logical(G) != want:
            raise _No
        return _logical(A) if kind == "mgrad_a" else _logical(B)
    if kind in ("dot", "dgrad_a", "dgrad_b"):
        return _infer_dot(kind, A, B, sh.get(g, None))
    if kind == "row":
        if A in (None, "f", "s", "i") or len(A) < 2:
            raise _No
        return A[1:]
    raise _No


def _infer_elementwise(kind, A, B):
    """The shape of an elementwise result with a transposed operand: NumPy's order
    for it, F (transposed) where every operand is (its two axes longer than 1), else C
    (an operand with an axis of length 1 is C- and F-contiguous at once: C)."""
    if kind in ("mov", "unbroadcast"):
        if kind == "unbroadcast" and _logical(A) != _logical(B):
            raise _No
        return A        # the same array
    if kind == "accumulate":    # into acc in place, or acc + t: C either way
        if _transposed(A) or B in _SCALARS or _logical(A) != _logical(B):
            raise _No
        return A
    arrays = [s for s in (A, B) if s is not None and s not in _SCALARS]
    if kind in ("bin", "ubin") and (A is None or B is None):
        raise _No
    if "i" in (A, B) or len({_logical(s) for s in arrays}) != 1:
        raise _No
    L = _logical(arrays[0])
    if len(L) == 2 and min(L) > 1 and all(_transposed(s) for s in arrays):
        return ("T",) + L
    return L


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


def _walk(code, sh, pop_shapes, record):
    """One pass over the body ``code``; ``record`` gets (instruction index, operand
    shapes, result shape). Pushes of undefined registers record None."""
    k_pop = 0
    for k, c in enumerate(code):
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


def _passes(plan, sh, pop_shapes):
    """The shapes over the body: [(code, its instructions' (operand shapes, result) at
    the first iteration they run, at every later one)], and the shapes the body
    leaves, every register's. With a first iteration apart, its code is checked
    against the registers' shapes, and the body from what it leaves."""
    def walk(code, start, snaps=None):
        got, shapes = {}, dict(start)

        def record(k, ins, out):
            got[k] = (ins, out)
            if snaps is not None:   # (the shapes it reads, the shape it writes)
                snaps.append((dict(shapes), out))
        _walk(code, shapes, pop_shapes, record)
        shapes.update({c: "f" for c in plan.consts})
        shapes[plan.var] = "i"
        return got, shapes
    if plan.first is None:
        first, end = walk(plan.code, sh)
        snaps = []
        return [(plan.code, first, walk(plan.code, end, snaps)[0], snaps)], end
    first0, after = walk(plan.first, sh)
    first1, end = walk(plan.code, after)
    snaps0, snaps1 = [], []
    second1, again = walk(plan.code, end, snaps1)
    if again != end:
        raise _No
    return [(plan.first, first0, walk(plan.first, end, snaps0)[0], snaps0),
            (plan.code, first1, second1, snaps1)], end


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
    passes, end = _passes(plan, sh, pop_shapes)
    entry = {}
    code, first, second, _ = passes[-1]
    pushes = [k for k, c in enumerate(code) if c[0] == "push"]
    if pushes and plan.first is not None:
        raise _No
    for j, k in enumerate(pushes):
        if second[k][1] is None:
            raise _No
        if first[k] != second[k]:
            name = code[k][3]
            if name not in plan.liveins:
                raise _No
            entry[j] = plan.liveins.index(name)
    for code, first, second, snaps in passes:
        # a name's register keeps its size; its layout may change (x.T, then x.T + y)
        seen = set()     # (each (name, shape) once: the snapshots repeat most of them)
        for snap, _ in snaps:
            seen.update(snap.items())
        if any(_size(v) != _size(end[n]) for n, v in seen
               if n in end and v is not None and end[n] is not None):
            raise _No
        for k, c in enumerate(code):
            if c[0] != "push" and first[k] != second[k] and \
                    not _promoted(first[k], second[k]):
                raise _No
    every = (plan.first or []) + plan.code
    if any(c[0] in _LINALG + ("detgrad",) for c in every) and not rt.linalg_ready():
        raise _No
    aliases = _aliases(plan, end) if plan.first is None else {}
    assigned = {c[2] for c in every}
    invariant = [n for n in plan.liveins if n not in assigned]
    distinct, same = set(), []
    for code, _, _, snaps in passes:
        pairs, one = _check_products(code, snaps, aliases, invariant)
        distinct |= pairs
        same.append(one)
    # a pop whose iteration-0 save was no register's value must not be read after it
    if tape is not None:
        _check_pops(plan, pop_slot, tape.entry, tape)
    lay = _encode(plan, end, live, entry, pop_slot, tape, aliases,
                  [snaps for _, _, _, snaps in passes], same)
    lay.distinct = sorted((plan.liveins.index(a), plan.liveins.index(b)) for a, b in distinct)
    return lay


def _promoted(first, second):
    """Whether an instruction reads a Python float at iteration 0 where later ones read
    a NumPy scalar (``nll = nll + det``: nll starts 0.0), with the same result: the
    same register and the same instruction either way."""
    (ins1, out1), (ins2, out2) = first, second
    return out1 == out2 and out1 != "f" and len(ins1) == len(ins2) and all(
        x == y or {x, y} == {"f", "s"} for x, y in zip(ins1, ins2))


def _check_pops(plan, pop_slot, entry, tape):
    """A pop of an object iteration 0 saved that no register held (a tape's entry)
    leaves its register undefined: it must not be read after it, but by
    ``unbroadcast(g, x)`` where x is a scalar either way (a Python float first, NumPy
    scalars after: ``nll = 0.0``), which returns the scalar g whatever x is."""
    k_pop = 0
    for k, c in enumerate(plan.code):
        if c[0] != "pop":
            continue
        slot = pop_slot[k_pop]
        k_pop += 1
        if slot not in entry:
            continue
        scalar = type(entry[slot]) in (float, np.float64) and tape.slots[slot][2] in _SCALARS
        for d in plan.code[k + 1:]:
            if d[0] != "pop" and c[2] in d[3:] and not (
                    scalar and d[0] == "unbroadcast" and d[3] != c[2]):
                raise _No
            if d[2] == c[2]:
                break


class _Emitter:
    """Encodes instructions (`words`) over one register layout."""

    def __init__(self, plan, shapes, offs, aliases, tape, pop_slot, external, spare):
        self.plan, self.shapes, self.offs, self.aliases = plan, shapes, offs, aliases
        self.base = aliases
        self.tape, self.pop_slot, self.external = tape, pop_slot, external
        self.scratch, self.gb, self.dg, self.zero = spare
        self.slots, self.row, self.views = [], 0, []
        self.batches, self.hidden, self.brow = {}, {}, 0

    def words(self, code, snaps, same):
        """The words of ``code``; ``snaps[k]``: the shapes before instruction k;
        ``same[k]``: (a transposed copy, the operand whose register it reads)."""
        out = []
        k_pop = 0
        offs = self.offs
        for k, c in enumerate(code):
            kind = c[0]
            self.shapes, self.out = snaps[k]
            shapes = self.shapes
            self.aliases = dict(self.base, **dict([same[k]])) if k in same else self.base
            if k in self.hidden:
                # an accumulated product's operands, stacked for one GEMM after the loop
                for boff, name in self.hidden[k]:
                    out.append([rt.OP["push"], 0, boff, offs[name], _size(shapes[name])] +
                               [0] * (_WIDTH - 5))
                continue
            if kind == "accumulate" and c[2] in self.batches or c[2] in self.base:
                continue        # (a transposed view: its products read its source)
            if kind == "pop":
                k_pop += 1
                out.append(self._pop(c, self.pop_slot[k_pop - 1]))
            else:
                out.extend(self._op(c))
        return out

    def _pop(self, c, slot):
        off = self.tape.slots[slot][1]
        return [rt.OP["pop"], 0, self.offs[c[2]], off, _size(self.shapes[c[2]])] + \
            [0] * (_WIDTH - 5)

    def _op(self, c):
        kind, shapes, offs = c[0], self.shapes, self.offs
        w = [0] * _WIDTH
        if kind == "push":
            size = _size(shapes[c[3]])
            w[:5] = [rt.OP["push"], 0, self.row, offs[c[3]], size]
            self.slots.append((self.row, shapes[c[3]]))
            self.row += size
            return [w]
        if kind == "zeros":     # (a region of the arena nothing writes)
            w[:5] = [rt.OP["mov"], 0, offs[c[2]], self.zero, _size(shapes[c[2]])]
            return [w]
        if kind in ("dot", "dgrad_a", "dgrad_b"):
            return [_encode_dot(c, shapes, offs, self.views)]
        if kind in ("sgrad_a", "sgrad_b"):
            return _encode_solve_grad(c, shapes, offs, self.gb)
        if kind == "detgrad":
            return _encode_det_grad(c, shapes, offs, self.dg)
        if kind == "row" and c[3] in self.external:
            self.views.append(("live", self.plan.liveins.index(c[3]), None))
            A = shapes[c[3]]
            w[:7] = [rt.OP["row"], 1, offs[c[2]], len(self.views) - 1, _size(A[1:]),
                     offs[c[4]], A[0]]
            return [w]
        if c[2] in c[3:] and (kind in _PRODUCTS or kind in ("bin", "ubin", "accumulate") and
                              any(_transposed(shapes.get(r)) for r in c[3:5])):
            # (an elementwise result into an operand read with other strides, too)
            w = _encode_op(c, shapes, offs, self.aliases, self.out)
            w[2] = self.scratch
            return [w, [rt.OP["mov"], 0, offs[c[2]], self.scratch, _size(shapes[c[2]])] +
                    [0] * 7]
        return [_encode_op(c, shapes, offs, self.aliases, self.out)]


def _spare(code, shapes, total):
    """Offsets of the scratch registers after ``total``: a product into one of its
    operands (T = T @ A: NumPy's loops read the operand while writing, so the result
    goes here first), the solve before the product in solve's adjoint for a, det's
    adjoint's inverse and factor, the zeros zeros_like copies; and the new total."""
    out = []
    for sizes in ([_size(shapes[c[2]]) for c in code if c[2] in c[3:] and c[0] in
                   _PRODUCTS + ("bin", "ubin", "accumulate")],
                  [_size(shapes[c[3]]) for c in code if c[0] == "sgrad_a"],
                  [_size(shapes[c[5]]) + 1 for c in code if c[0] == "detgrad"],
                  [_size(shapes[c[2]]) for c in code if c[0] == "zeros"]):
        out.append(total)
        total += max(sizes or [0])
    return out, total


def _encode(plan, shapes, live, entry, pop_slot, tape, aliases, snaps, same):
    every = (plan.first or []) + plan.code
    # a live-in read only for its rows (xs[t]) is read where it is, not copied in
    external = {n for n in plan.liveins if n not in plan.outputs and all(
        n not in c[3:] or (c[0] == "row" and c[3] == n and c[4] != n) for c in every)}
    offs, total = {}, 0
    for name in sorted(set(shapes) - external - set(aliases), key=str):
        offs[name] = total
        total += _size(shapes[name])
    spare, total = _spare(every, shapes, total)
    arena = np.zeros(total, np.float64)
    for name, v in plan.consts.items():
        arena[offs[name]] = v
    em = _Emitter(plan, shapes, offs, aliases, tape, pop_slot, external, spare)
    if plan.first is None:
        em.batches, em.hidden, em.brow = _batches(plan, shapes, offs)
    first = em.words(plan.first, snaps[0], same[0]) if plan.first is not None else []
    words = first + em.words(plan.code, snaps[-1], same[-1])
    code = np.array(words, np.int64).reshape(-1, _WIDTH)
    # a live-in whose shape is not its register's is only pushed before the body
    # assigns it (a tape's entry object): nothing to copy in
    # (a Python float enters the register of a NumPy scalar: `_promoted`)
    live_regs = [(offs[n], _size(shapes[n]), _transposed(d)) if d is not None and n in offs
                 and (d == shapes[n] or {d, shapes[n]} == {"f", "s"}) else (0, 0, False)
                 for n, d in zip(plan.liveins, live)]
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
    read_var = any(c[0] == "row" for c in every)
    return Layout(code, arena, live_regs, outs, em.slots, entry, em.row,
                  offs[plan.var] if read_var else -1, em.views,
                  list(em.batches.values()), em.brow, len(first))


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
