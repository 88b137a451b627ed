"""Kind rules: what a primitive returns for operands of given kinds.

A primitive's record (revsrc/primitives.py) names one of these, or a function of its
own, as its ``kind``; the analysis (revsrc/passes/analysis.py) calls it for each
call of the primitive. They live with the records rather than with the encoding
(revsrc/core/kinds.py), which every layer reads and which knows no primitive.
"""
from __future__ import annotations

import numpy as np

from ..core.kinds import ANY, ARRAY, BOOL, FLOAT, INT, LIST, SCALARS, TUPLE, join, promote

# A primitive's record names one of these (or its own function): given the operation
# and a context that knows its operands' kinds and ranks, it returns the result's kind,
# or (kind, ndim) where the rank of an array result is known. None means "not known
# yet" (an operand's kind is still being inferred around a loop).


def _scalars(ks):
    return all(k in SCALARS for k in ks)


def _max_ndim(op, ctx, args=None):
    nds = []
    for a in op.args if args is None else args:
        k = ctx.kind(a)
        nds.append(0 if k in SCALARS else ctx.ndim(a))
    return max(nds) if nds and all(n is not None for n in nds) else None


def elementwise_kind(op, ctx):
    """Math and NumPy elementwise functions: an array of the broadcast rank if any
    operand is one, else a float."""
    ks = ctx.kinds(op.args)
    if ARRAY in ks:
        return ARRAY, _max_ndim(op, ctx)
    return FLOAT if _scalars(ks) else ANY


def magnitude_kind(op, ctx):
    """The builtin abs(): an int for an int or a bool (abs(True) is 1), as Python
    gives; else as `elementwise_kind` (math.fabs and np.abs have rules of their own)."""
    if all(k in (BOOL, INT) for k in ctx.kinds(op.args)):
        return INT
    return elementwise_kind(op, ctx)


def elementwise_keywords_kind(op, ctx):
    """As `elementwise_kind`, for functions whose operands may come by keyword
    (scipy.stats.norm.pdf(x, loc=..., scale=...))."""
    operands = list(op.args) + [v for _, v in op.kwargs]
    ks = ctx.kinds(operands)
    if ARRAY in ks:
        nds = [0 if k in SCALARS else ctx.ndim(a) for a, k in zip(operands, ks)]
        return ARRAY, (max(nds) if all(n is not None for n in nds) else None)
    return FLOAT if _scalars(ks) else ANY


def arith_kind(op, ctx):
    """Python's operators: NumPy's rules on arrays, Python's promotion on scalars."""
    ks = ctx.kinds(op.args)
    if ARRAY in ks:
        return ARRAY, _max_ndim(op, ctx)
    if not _scalars(ks):
        return ANY
    return promote(ks)


def truediv_kind(op, ctx):
    k = arith_kind(op, ctx)
    return FLOAT if k in (BOOL, INT) else k


def pow_kind(op, ctx):
    k = arith_kind(op, ctx)
    if k == INT:
        if len(op.args) > 2:
            return k        # pow(a, b, m): an int (a negative b takes an inverse mod m)
        base, e = op.args
        if ctx.kind(e) == BOOL or (type(getattr(e, "value", None)) is int and e.value >= 0):
            return k
        # 2 ** -1 is a float; a loop counter (never negative) keeps (-1) ** k an int,
        # for a base of magnitude <= 1 only: 3 ** k may outgrow the int64 that compiled
        # code and saved values hold, where Python's int does not
        counter = getattr(ctx, "nonnegative", lambda o: False)(e)
        small = ctx.kind(base) == BOOL or getattr(base, "value", None) in (-1, 0, 1)
        return INT if counter and small else ANY
    return k


def select_of_branches(op, ctx):
    """where(condition, x, y) on numbers: the kind of the branches together."""
    ks = ctx.kinds(op.args[1:])
    if ARRAY in ks:
        return ARRAY, _max_ndim(op, ctx)
    return FLOAT if _scalars(ks) else ANY


def select_kind(op, ctx, args=None):
    """max and min keep their operands' kind (max(True, False) is a bool)."""
    args = op.args if args is None else args
    ks = ctx.kinds(args)
    if ARRAY in ks:
        return ARRAY, _max_ndim(op, ctx, args)
    if not _scalars(ks):
        return ANY
    k = BOOL
    for x in ks:
        k = join(k, x)
    return k


def select_of_two_kind(op, ctx):
    """runtime.arith.max_tied and min_tied: the kind max and min give their first two
    operands (the third, a count of ties, is not a candidate)."""
    return select_kind(op, ctx, op.args[:2])


def compare_kind(op, ctx):
    ks = ctx.kinds(op.args)
    if ARRAY in ks:
        return ARRAY, _max_ndim(op, ctx)
    return BOOL if _scalars(ks) else ANY


def same_kind(op, ctx):
    """The kind (and rank) of the first operand."""
    a = op.args[0]
    return ctx.kind(a), ctx.ndim(a)


def like_argument(index):
    """The kind rule "the kind and rank of argument ``index``" (a number stays a
    number): what a helper returning an adjoint shaped as one of its inputs has."""
    def rule(op, ctx):
        a = op.args[index]
        return ctx.kind(a), ctx.ndim(a)
    rule.__name__ = f"like_argument_{index}"
    return rule


def constant(kind):
    def rule(op, ctx):
        return kind
    rule.__name__ = f"always_{kind}"
    return rule


def outer_kind(op, ctx):
    """A ufunc's outer product (np.subtract.outer): an array with a's axes, then b's; a
    float of two numbers."""
    ks = ctx.kinds(op.args[:2])
    if _scalars(ks):
        return FLOAT
    if not all(k in SCALARS or k == ARRAY for k in ks):
        return ANY
    nds = [0 if k in SCALARS else ctx.ndim(a) for a, k in zip(op.args, ks)]
    return ARRAY, (sum(nds) if all(n is not None for n in nds) else None)


def round_kind(op, ctx):
    """The builtin round(): an int given one operand (or ndigits None); given ndigits,
    the operand's own kind (round(2.675, 2) is a float, round(1234, -2) an int, and a
    bool rounds to an int)."""
    digits = op.args[1] if len(op.args) > 1 else dict(op.kwargs).get("ndigits")
    if digits is None or _const_is(digits, None):
        return INT
    k = ctx.kind(op.args[0])
    if k == ARRAY:
        return ARRAY, ctx.ndim(op.args[0])
    return INT if k == BOOL else k


def always_array(op, ctx):
    """Functions that return an array whatever they are given (np.stack of a list)."""
    return ARRAY


ALWAYS_ARRAY = always_array


def array_of_values(op, ctx):
    """np.array and its kin: an array, of the rank its values give where it is known
    (0 for a number, an array's own, one more than the items' of a tuple or list the
    program builds from numbers or from arrays of one rank); at least 1 for
    np.ascontiguousarray; unknown with ndmin=."""
    if not op.args or any(k == "ndmin" for k, _ in op.kwargs):
        return ARRAY
    rank = _values_rank(op.args[0], ctx, 3)
    if rank is None:
        return ARRAY
    if op.fn is np.ascontiguousarray:
        rank = max(rank, 1)
    return ARRAY, rank


def _values_rank(a, ctx, depth):
    if not isinstance(a, str):       # a constant
        value = getattr(a, "value", None)
        return np.ndim(value) if isinstance(value, (np.ndarray, int, float, bool)) else None
    k = ctx.kind(a)
    if k in SCALARS:
        return 0
    if k == ARRAY:
        return ctx.ndim(a)
    parts = ctx.items(a) or ctx.list_items(a)
    if not parts or depth == 0:
        return None
    ranks = {_values_rank(p, ctx, depth - 1) for p in parts}
    return None if len(ranks) != 1 or None in ranks else ranks.pop() + 1


def same_rank_array(op, ctx):
    """np.transpose and its kin: an array of its operand's rank (0-d of a number)."""
    k = ctx.kind(op.args[0])
    return ARRAY, (0 if k in SCALARS else ctx.ndim(op.args[0]) if k == ARRAY else None)


def array_of_shape(op, ctx):
    """np.zeros(shape) and its kin: an array, of rank len(shape) when it is known."""
    return _of_shape(op.args[0] if op.args else dict(op.kwargs).get("shape"), ctx)


def reshape_kind(op, ctx):
    """np.reshape(a, shape): an array of rank len(shape) when it is known."""
    kw = dict(op.kwargs)
    return _of_shape(op.args[1] if len(op.args) > 1 else kw.get("shape", kw.get("newshape")),
                     ctx)


def _of_shape(shape, ctx):
    value = getattr(shape, "value", None) if not isinstance(shape, str) else None
    if type(value) is tuple and any(type(d) is not int for d in value):
        return ARRAY
    if type(value) is int or (isinstance(shape, str) and ctx.kind(shape) == INT):
        return ARRAY, 1
    if type(value) is tuple:
        return ARRAY, len(value)
    return ARRAY


def array_like_first(op, ctx):
    """np.zeros_like(a) and its kin: an array of a's rank."""
    if op.args and isinstance(op.args[0], str) and ctx.kind(op.args[0]) == ARRAY \
            and ctx.ndim(op.args[0]) is not None:
        return ARRAY, ctx.ndim(op.args[0])
    return ARRAY


def reduction_kind(op, ctx):
    """np.sum and friends: a float for a full reduction, else an array."""
    if ctx.kind(op.args[0]) == ANY:
        return ANY
    kw = dict(op.kwargs)
    axis, keep = kw.get("axis"), kw.get("keepdims")
    full = len(op.args) == 1 and (axis is None or getattr(axis, "value", 0) is None) \
        and (keep is None or getattr(keep, "value", True) is False)
    if full:
        return FLOAT
    return ARRAY if ctx.kind(op.args[0]) == ARRAY else ANY


def _given(op, position, name):
    """The operand passed as argument ``position`` or keyword ``name``, or None."""
    if len(op.args) > position:
        return op.args[position]
    return dict(op.kwargs).get(name)


def _const_is(o, value):
    return getattr(o, "value", object()) is value


def average_kind(op, ctx):
    """np.average: a pair with ``returned``, else as a reduction."""
    ret = _given(op, 3, "returned")
    if ret is not None and not _const_is(ret, False):
        return ANY
    if ctx.kind(op.args[0]) == ANY:
        return ANY
    axis, keep = _given(op, 1, "axis"), _given(op, 4, "keepdims")
    if (axis is None or _const_is(axis, None)) and (keep is None or _const_is(keep, False)):
        return FLOAT
    return ARRAY if ctx.kind(op.args[0]) == ARRAY else ANY


def logsumexp_kind(op, ctx):
    """scipy.special.logsumexp: a pair with ``return_sign``, else as a reduction."""
    sign = _given(op, 4, "return_sign")
    if sign is not None and not _const_is(sign, False):
        return ANY
    return reduction_kind(op, ctx)


def norm_kind(op, ctx):
    """np.linalg.norm: a float unless an axis (or keepdims) keeps some axes."""
    if ctx.kind(op.args[0]) == ANY:
        return ANY
    kw = dict(op.kwargs)
    axis = op.args[2] if len(op.args) > 2 else kw.get("axis")
    keep = op.args[3] if len(op.args) > 3 else kw.get("keepdims")
    if (axis is None or getattr(axis, "value", 0) is None) and \
            (keep is None or getattr(keep, "value", True) is False):
        return FLOAT
    return ARRAY


def gradient_kind(op, ctx):
    """np.gradient: an array for a 1-D ``f`` or one axis given, else a tuple."""
    f = op.args[0]
    if ctx.kind(f) != ARRAY:
        return ANY
    axis = dict(op.kwargs).get("axis")
    if ctx.ndim(f) == 1 or type(getattr(axis, "value", None)) is int:
        return ARRAY, ctx.ndim(f)
    return ANY


def trapezoid_kind(op, ctx):
    """np.trapezoid: a float for a 1-D ``y``, else an array of one axis fewer."""
    y = op.args[0]
    if ctx.kind(y) != ARRAY:
        return ANY
    nd = ctx.ndim(y)
    if nd == 1:
        return FLOAT
    return (ARRAY, nd - 1) if nd else ANY


def svd_kind(op, ctx):
    """np.linalg.svd: the singular values alone with compute_uv=False, else a tuple."""
    uv = _given(op, 2, "compute_uv")
    if uv is not None and _const_is(uv, False) and ctx.kind(op.args[0]) == ARRAY:
        nd = ctx.ndim(op.args[0])
        return ARRAY, (nd - 1 if nd else None)
    return ANY


def dot_kind(op, ctx):
    if ANY in ctx.kinds(op.args):
        return ANY
    nds = [ctx.ndim(a) if ctx.kind(a) == ARRAY else 0 for a in op.args]
    if nds == [1, 1]:
        return FLOAT
    return ARRAY if ARRAY in ctx.kinds(op.args) else ANY


def vdot_kind(op, ctx):
    """np.vdot: the inner product of the two arrays flattened, a number."""
    return ANY if ANY in ctx.kinds(op.args) else FLOAT


def matmul_kind(op, ctx):
    """a @ b: the rank NumPy's matmul gives (a vector operand loses its axis)."""
    if len(op.args) != 2 or any(ctx.kind(a) != ARRAY for a in op.args):
        return array_kind(op, ctx)
    na, nb = (ctx.ndim(a) for a in op.args)
    if na is None or nb is None:
        return ARRAY
    if na == 1 and nb == 1:
        return FLOAT
    if na == 1 or nb == 1:
        return ARRAY, max(na, nb) - 1
    return ARRAY, max(na, nb)


def array_kind(op, ctx):
    """NumPy functions that return arrays (when given one)."""
    return ARRAY if ARRAY in ctx.kinds(op.args) else ANY


def array_of_broadcast(op, ctx):
    """np.where and the like: an array even of numbers (0-d then)."""
    ks = ctx.kinds(op.args)
    if ANY in ks:
        return ANY
    return ARRAY, _max_ndim(op, ctx)


def derivative_kind(tr, op, ctx):
    """What a revsrc derivative returns: each gradient has its argument's kind."""
    if tr.with_value or tr.has_aux or tr.tuple_argnums:
        return TUPLE
    if tr.slots[0][1] or tr.binding.static:
        return ANY   # a container's gradient, or a method's (refused where inlined)
    n = tr.argnums[0] - len(tr.callee.pre)
    a = op.args[n] if 0 <= n < len(op.args) else None
    if a is None:
        return ANY
    k = ctx.kind(a)
    if k in (BOOL, INT):
        return ANY   # refused where the call is inlined
    return k, ctx.ndim(a)


def generic_kind(fn, op, ctx):
    """Kind of a call to a function with no kind rule of its own."""
    tr = getattr(fn, "_revsrc_transformed", None)
    if tr is not None and not op.kwargs:
        return derivative_kind(tr, op, ctx)
    if isinstance(fn, np.ufunc) and fn.nout == 1:
        # a comparison, test or bitwise ufunc: its float64 loop may return bools
        if any(t.startswith("d" * fn.nin + "->?") for t in fn.types):
            return compare_kind(op, ctx)
        return elementwise_kind(op, ctx)
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("numpy") and ARRAY in ctx.kinds(op.args):
        return ARRAY
    return ANY


def index_drop(index, ndim):
    """How many axes basic indexing with ``index`` removes (None if not basic)."""
    items = index if isinstance(index, tuple) else (index,)
    drop = add = 0
    for it in items:
        if isinstance(it, bool):
            return None
        if isinstance(it, int):
            drop += 1
        elif it is None:
            add += 1
        elif isinstance(it, slice) or it is Ellipsis:
            continue
        else:
            return None
    if drop - add == ndim and add == 0:
        return ndim
    return drop - add if drop - add < ndim else None


def _index_part(operand, ctx):
    """An index tuple's item as `index_drop` reads it: its value where constant, 0 for
    an int computed when the program runs, else a marker that is no basic index."""
    if not isinstance(operand, str):     # a constant
        return operand.value
    return 0 if ctx.kind(operand) == INT else object()


def getitem_kind(op, ctx):
    base, idx = op.args[0], op.args[1]
    if ctx.kind(base) != ARRAY:
        return ANY
    nd = ctx.ndim(base)
    value = getattr(idx, "value", None) if not isinstance(idx, str) else None
    if nd is not None and not isinstance(idx, str):
        drop = index_drop(value, nd)
        if drop is not None:
            return FLOAT if drop == nd else (ARRAY, nd - drop)
    if nd is not None and isinstance(idx, str) and ctx.kind(idx) == INT:
        return (FLOAT, None) if nd == 1 else (ARRAY, nd - 1)
    parts = ctx.items(idx) if isinstance(idx, str) else ()
    if nd is not None and parts:       # A[:, j], a tuple made in the program
        drop = index_drop(tuple(_index_part(p, ctx) for p in parts), nd)
        if drop is not None:
            return FLOAT if drop == nd else (ARRAY, nd - drop)
    if isinstance(idx, str) and (ctx.kind(idx) in (ARRAY, LIST) or
                                 ARRAY in ctx.kinds(ctx.items(idx))):
        return ARRAY  # advanced indexing (an array or a list index) always makes an array
    items = value if type(value) is tuple else (value,)
    if not isinstance(idx, str) and all(type(i) is slice or i is None or i is Ellipsis
                                        for i in items):
        return ARRAY  # slices keep every axis: an array, whatever the rank
    return ANY


def getattr_kind(op, ctx):
    attr = getattr(op.args[1], "value", None)
    return INT if attr in ("ndim", "size") else ANY
