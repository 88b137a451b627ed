"""Small-array loops: transposed matrices, for revsrc/backends/smallarr_layout.py
(which lays a loop's registers out).

Why: ``P @ F.T`` in Python hands np.matmul a view of F with swapped strides, and the
strides choose NumPy's BLAS call (gemm with a transposed operand, or syrk when the
two operands are one buffer: ``x @ x.T``). So a transposed matrix, ("T", r, c), is
kept as the data of the (c, r) array it views, and read with the view's strides.
Where it is its source's value whenever read, the view has no register: a product
reads its source's register, and after the loop the view is np.transpose of the
source's result, as in Python (`aliases`). Elsewhere (a view saved, or its source
assigned after it) it has a register of its own, a copy of the source's data; then a
product that reads it must be one whose other operand is not the same buffer in
Python (`check_products`), else NumPy's syrk choice could differ, and the tier
refuses the loop (`No`).
"""
from __future__ import annotations

__all__ = ["No", "transposed", "logical", "aliases", "check_products", "source"]


class No(Exception):
    """These shapes are not the tier's."""


def transposed(shape):
    """Whether ``shape`` is a transposed alias's: ("T", rows, columns), its logical
    shape after the tag (np.transpose's view of a register, `aliases`)."""
    return type(shape) is tuple and len(shape) == 3 and shape[0] == "T"


def logical(shape):
    return shape[1:] if transposed(shape) else shape


def aliases(plan, shapes):
    """The transposed views (``t = np.transpose(x)``) taken as aliases of their
    source's register: {t: x}. NumPy's matmul reads a view with its strides, which choose its
    BLAS call (gemm transposed, or syrk for x @ x.T), so a product reads x's register
    with the view's strides and the same call follows. Taken only where that is the
    view's value: t assigned once and read after that in the body, by products alone,
    x not assigned after it; and where NumPy's choice of syrk (the two operands one
    buffer) is known: the other operand x itself, or a value computed in the body
    that no other name holds. The others get registers of their own."""
    out = {}
    code = plan.code
    for k, c in enumerate(code):
        if c[0] != "T" or transposed(shapes.get(c[3])) or not transposed(shapes.get(c[2])):
            continue
        t, x = c[2], c[3]
        if t in plan.liveins or sum(d[2] == t for d in code) != 1 or \
                any(d[2] == x for d in code[k + 1:]) or \
                any(t in d[3:] for d in code[:k + 1]):
            continue
        ok = True
        for j, d in enumerate(code[k + 1:], k + 1):
            if t not in d[3:]:
                continue
            other = d[4] if d[3] == t else d[3]
            if d[0] != "matmul" or \
                    other != x and not (_fresh(code, other, j) or _fresh(code, x, j)):
                ok = False
        if ok:
            out[t] = x
    return out


# results that are new arrays: never another name's buffer
_NEW = ("bin", "ubin", "un", "matmul", "mgrad_a", "mgrad_b", "dot", "dgrad_a",
        "dgrad_b", "tanh_vjp", "inv", "solve", "sgrad_a", "sgrad_b")


def _fresh(code, name, before):
    """Whether ``name``, read by instruction ``before``, holds an array computed earlier
    in the same iteration by an instruction that makes a new one (and so no other
    name's buffer, nor given to one)."""
    writes = [d for d in code[:before] if d[2] == name]
    return bool(writes) and all(d[0] in _NEW for d in code if d[2] == name) and \
        not any(d[0] in ("mov", "unbroadcast", "accumulate", "push") and name in d[3:]
                for d in code)      # (which would give its buffer another name)


# (the operands of a product, each with whether np.matmul reads it transposed)
def _read(c, shapes):
    kind = c[0]
    if kind == "matmul":
        return [(c[3], False), (c[4], False)]
    if kind == "mgrad_a":       # g @ b.T
        return [(c[3], False), (c[5], True)]
    if kind == "mgrad_b":       # a.T @ g
        return [(c[4], True), (c[3], False)]
    return []


def check_products(code, snaps, aliases, invariant=()):
    """For the products of a transposed matrix's copy (a register of its own) to be
    NumPy's: where Python hands np.matmul one buffer read two ways (``x @ x.T``),
    NumPy calls syrk, so the tier must pass one register. An operand made earlier in
    the iteration is a buffer no other name has (but what mov, unbroadcast and a
    transpose pass on); a live-in the loop never assigns (``invariant``) is its own
    buffer; anything else (a pop, a value from the iteration before) could be any
    buffer, and the product is refused (`No`). Returns (the pairs of live-ins that
    must be two buffers, checked at run time; {instruction: (the copy, the operand
    whose register it reads there)} where the two are one buffer)."""
    buf = {n: ("live", n) for n in invariant}
    distinct, same = set(), {}
    for k, c in enumerate(code):
        shapes = snaps[k][0]
        ops = [(n, flip ^ transposed(shapes.get(n))) for n, flip in _read(c, shapes)
               if shapes.get(n) not in (None, "f", "s", "i") and len(logical(shapes[n])) == 2]
        copies = [n for n, _ in ops if transposed(shapes.get(n)) and n not in aliases]
        if len(ops) == 2 and ops[0][1] != ops[1][1] and copies and \
                aliases.get(ops[0][0], ops[0][0]) != aliases.get(ops[1][0], ops[1][0]):
            bp, bq = (buf.get(n, ("any",)) for n, _ in ops)
            if bp == bq and bp[0] != "any":     # one buffer: one register, as NumPy
                t = copies[0]
                same[k] = (t, ops[1][0] if ops[0][0] == t else ops[0][0])
                continue
            if bp == bq or "any" in (bp[0], bq[0]) and "new" not in (bp[0], bq[0]):
                raise No
            if bp[0] == bq[0] == "live":
                distinct.add(tuple(sorted((bp[1], bq[1]))))
        if c[0] in ("mov", "unbroadcast", "T"):      # (the same bytes, too)
            buf[c[2]] = buf.get(c[3], ("any",))
        elif c[0] == "accumulate":     # (into a buffer other names may hold)
            buf[c[2]] = ("any",)
        elif c[0] == "pop" or c[2] is None:
            buf.pop(c[2], None)
        else:
            buf[c[2]] = ("new", k)
    return distinct, same


def source(plan, x):
    """Where a transposed view's source is found after the loop: ("out", j), the j-th
    result, or ("live", k), the k-th live-in (the view is of that same array, as in
    Python)."""
    if x in plan.outputs[1:]:
        return ("out", plan.outputs.index(x) - 1)
    return ("live", plan.liveins.index(x))
