"""Small-array loops: transposed views as aliases of their source's register, for
revsrc/backends/smallarr_layout.py (which lays a loop's registers out).

Why: ``P @ F.T`` in Python hands np.matmul a view of F with swapped strides, and the
strides choose NumPy's BLAS call (gemm with a transposed operand, or syrk when the
two operands are one buffer: ``x @ x.T``); copying F.T into a register of its own
would change the call and so possibly the rounding. So the tier gives the view no
register: a product reads its source's register with the view's strides, and after
the loop the view is np.transpose of the source's result, as in Python. That holds
only where the view is its source's value when read, and where NumPy's syrk choice
can be known from the plan (`aliases`); anything else is refused (`No`), and Python
runs the loop.
"""
from __future__ import annotations

__all__ = ["No", "transposed", "logical", "aliases", "source"]


class No(Exception):
    """These shapes are not the tier's."""


def transposed(shape):
    """Whether ``shape`` is a transposed alias's: ("T", rows, columns), its logical
    shape after the tag (np.transpose's view of a register, `aliases`)."""
    return type(shape) is tuple and len(shape) == 3 and shape[0] == "T"


def logical(shape):
    return shape[1:] if transposed(shape) else shape


def aliases(plan, shapes):
    """The transposed views (``t = np.transpose(x)``) as aliases of their source's
    register: {t: x}. NumPy's matmul reads a view with its strides, which choose its
    BLAS call (gemm transposed, or syrk for x @ x.T), so a product reads x's register
    with the view's strides and the same call follows. Taken only where that is the
    view's value: t assigned once and read after that in the body, by products alone,
    x not assigned after it; and where NumPy's choice of syrk (the two operands one
    buffer) is known: the other operand x itself, or a value computed in the body
    that no other name holds."""
    out = {}
    code = plan.code
    for k, c in enumerate(code):
        if c[0] != "T":
            continue
        t, x = c[2], c[3]
        if t in plan.liveins or sum(d[2] == t for d in code) != 1 or \
                any(d[2] == x for d in code[k + 1:]) or \
                any(t in d[3:] for d in code[:k + 1]):
            raise No
        for j, d in enumerate(code[k + 1:], k + 1):
            if t not in d[3:]:
                continue
            if d[0] != "matmul":
                raise No
            other = d[4] if d[3] == t else d[3]
            if other != x and not (_fresh(code, other, j) or _fresh(code, x, j)):
                raise No
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


def source(plan, x):
    """Where a transposed view's source is found after the loop: ("out", j), the j-th
    result, or ("live", k), the k-th live-in (the view is of that same array, as in
    Python)."""
    if x in plan.outputs[1:]:
        return ("out", plan.outputs.index(x) - 1)
    return ("live", plan.liveins.index(x))
