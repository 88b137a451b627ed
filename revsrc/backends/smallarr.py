"""Small-array loops run compiled: which loops of a program the tier takes, and their
plans (the run time is revsrc/runtime/smallarr.py, the C loop revsrc/_smallarr.pxi).

Why: a loop over small arrays (an ODE step on a 6-float state, an RNN step on 16x32)
spends nearly all its time in NumPy's per-call dispatch, about a microsecond per
operation whatever the size. The tier runs such a loop as one C loop over a fixed
list of instructions on preallocated float64 registers; each instruction calls what
the Python path calls (NumPy's own ufunc loop, np.matmul's own gufunc loop and so the
same BLAS call, revsrc's fused adjoint kernels), so the results are the same bits.

Design: the Python back end (`compile_program`) hands each ``for ... in range(...)``
loop of a program to `rewrite`, those nested in branches and loops included (the
checkpointed form of a long loop runs its units there). A loop is taken when its body is
straight-line code of operations this module maps to instructions (`_FUNCTIONS`):
``+ - * /`` on arrays, Python floats, NumPy float64 scalars and a matrix with a row;
``np.tanh exp log sin cos sqrt abs``, unary ``-``; ``@`` and the adjoints of ``@`` for
a matrix times a vector or a matrix, ``@`` of two vectors and its adjoints;
``np.transpose``, ``np.swapaxes(x, -1, -2)`` and transpose_grad of a matrix (kept as
its source's data and read with the view's strides, so that BLAS is called as NumPy
calls it: by products, elementwise, saved and popped; smallarr_views);
``np.linalg.inv``, ``det`` and ``solve``, the adjoints of ``solve`` and ``det``, and
so inv's (np.linalg's own gufunc loops, so LAPACK's bits); ``np.dot`` of matrices
and vectors and its adjoints (the C function np.dot calls, on ndarrays over the
registers); the tanh adjoint; zeros_like; ``unbroadcast`` and ``accumulate`` where no
broadcasting was undone; a row of an array indexed by the loop variable; pushes and
pops of saves. Branches on liveness flags (``if P_bar_live:``, which the reverse
sweep writes) are resolved by carrying the flags' constants through the body: the
first iteration apart, where its adjoints start at zero, then the same body for
every later one (smallarr_branches). A loop that saves is taken only with the
adjoint loop that pops those saves (same stacks, reversed), so that no other code
ever meets the tape. So a Kalman filter's gradient runs here, both loops. Not
taken: reductions, other branches, inner loops, a transposed matrix read by np.dot,
np.linalg, the tanh adjoint or a broadcast, a product of a transposed copy with an
array that might be its source (NumPy would call syrk). The loop becomes::

    _sa1 = run(start, stop, step, <stacks>, <values the loop reads first>, <flags>)
    if _sa1 is not None:
        i, x, ... = _sa1[0], _sa1[1], ...
    else:
        for i in range(...): ...          # the loop as before

and ``run`` decides from the values (their shapes and dtypes), once per combination
of shapes: every value a plain float64 array (C strides, or a transposed matrix's)
or Python float, the flags what the plan assumed, every instruction
taking those shapes, shapes the same from one iteration to the next. Anything else,
and a floating-point exception np.errstate does not ignore, runs the Python loop.
Where the loop saves, the whole tier is `_pairs`' decision, statement by statement,
for each block of statements alone; but a checkpointed loop's saving loop and its
adjoint, which sit in a branch of the forward sweep and one of the reverse sweep, are
paired where revolve writes them (`_marked`).

Batched weight gradients (``REVSRC_SMALL_ARRAYS_BATCH=1``, off by default): an
adjoint loop that accumulates a weight's adjoint ``W = accumulate(W, l.T @ r)``
stacks the factors instead and adds them with one np.dot after the loop. That sum has
other roundings than the Python path's (within 1e-13 of its norm on the RK4 and RNN
tests), so it is not the default; measured on a loaded 2-core machine it gained ~8%
on RK4 and lost on the RNN, where OpenBLAS threads the bigger GEMM
(smallarr_layout._batches).
"""
from __future__ import annotations

import operator
import os

import numpy as np

from .. import _kernels
from ..core import ir
from ..runtime import smallarr as rt
from ..runtime import tensor
from .. import runtime as _runtime
from ..runtime.grads import linalg as _linalg
from ..runtime.grads import shape as _shape
from . import smallarr_branches
from .printing import stack_name
from ..core.late import LateModule
from ..core.record import record

# The register layout loads when a loop is first taken (most programs have none).
smallarr_layout = LateModule(__package__ + ".smallarr_layout")

__all__ = ["rewrite", "plan_loop", "enabled"]

# IR function -> (instruction, sub-opcode). "bin" keeps Python's float arithmetic on two
# floats (the loop kernels and operators do); "ubin" is a ufunc called by name, whose
# result on two floats is a NumPy scalar (not taken).
_FUNCTIONS = {}
for _name in ("add", "subtract", "multiply", "divide"):
    _k = "true_divide" if _name == "divide" else _name
    _FUNCTIONS[getattr(_kernels, _k)] = ("bin", _name)
    _FUNCTIONS[getattr(_kernels, "np_" + _k)] = ("ubin", _name)
    _FUNCTIONS[getattr(np, _k)] = ("ubin", _name)
for _op, _name in ((operator.add, "add"), (operator.sub, "subtract"),
                   (operator.mul, "multiply"), (operator.truediv, "divide")):
    _FUNCTIONS[_op] = ("bin", _name)
for _name in rt.UNARY:
    _FUNCTIONS[getattr(np, _name)] = ("un", _name)
for _name in ("tanh", "exp", "log", "sin", "cos", "sqrt", "negative", "absolute"):
    _FUNCTIONS[getattr(_kernels, _name)] = ("un", _name)
_FUNCTIONS[_kernels.np_negative] = ("un", "negative")
_FUNCTIONS[operator.neg] = ("un", "negative")
_FUNCTIONS[operator.matmul] = ("matmul", None)
_FUNCTIONS[np.matmul] = ("matmul", None)
_FUNCTIONS[_linalg.matmul_grad_a] = ("mgrad_a", None)
_FUNCTIONS[_linalg.matmul_grad_b] = ("mgrad_b", None)
_FUNCTIONS[tensor.tanh_vjp] = ("tanh_vjp", None)
_FUNCTIONS[_kernels.unbroadcast] = ("unbroadcast", None)
_FUNCTIONS[tensor.unbroadcast] = ("unbroadcast", None)
_FUNCTIONS[_kernels.accumulate] = ("accumulate", None)
_FUNCTIONS[_kernels.dot] = ("dot", None)
_FUNCTIONS[np.dot] = ("dot", None)
_FUNCTIONS[_kernels.dot_grad_a] = ("dgrad_a", None)
_FUNCTIONS[_kernels.dot_grad_b] = ("dgrad_b", None)
_FUNCTIONS[ir.copy] = ("mov", None)
_FUNCTIONS[np.transpose] = ("T", None)
_FUNCTIONS[np.swapaxes] = ("swap", None)
_FUNCTIONS[_shape.transpose_grad] = ("tgrad", None)
_FUNCTIONS[_runtime.zeros_like] = ("zeros", None)
_FUNCTIONS[_linalg.det_grad] = ("detgrad", None)
_FUNCTIONS[np.linalg.inv] = ("inv", None)
_FUNCTIONS[np.linalg.det] = ("det", None)
_FUNCTIONS[np.linalg.solve] = ("solve", None)
_FUNCTIONS[_linalg.solve_grad_a] = ("sgrad_a", None)
_FUNCTIONS[_linalg.solve_grad_b] = ("sgrad_b", None)
_FUNCTIONS[operator.getitem] = ("row", None)


def _reg(arg, consts):
    if isinstance(arg, ir.Const):
        v = arg.value
        if type(v) not in (float, int) or abs(v) > 2 ** 53:
            return None
        name = f"={float(v)!r}"
        consts[name] = float(v)
        return name
    return arg


def _transpose_args(kind, s, args):
    """The operand of a transpose (np.transpose(x), np.swapaxes(x, -1, -2),
    transpose_grad(g, None)), or None for other axes."""
    extra = s.args[1:]
    if kind == "swap":
        axes = {a.value for a in extra if isinstance(a, ir.Const) and type(a.value) is int}
        return args[:1] if len(extra) == 2 and axes in ({-1, -2}, {0, 1}) else None
    if kind == "tgrad":
        return args[:1] if len(extra) == 1 and isinstance(extra[0], ir.Const) and \
            extra[0].value is None else None
    return args if len(args) == 1 else None


def _instruction(s, loop, consts):
    """The instruction of statement ``s`` (a tuple), False for a comment, None when
    the tier does not run it."""
    if isinstance(s, ir.Comment):
        return False
    if isinstance(s, ir.Push):
        a = _reg(s.value, consts)
        return None if a is None else ("push", s.stack, None, a, None)
    if isinstance(s, ir.Pop):
        return ("pop", s.stack, s.target, None, None)
    if not isinstance(s, ir.Op) or s.target is None or s.kwargs:
        return None
    try:
        spec = _FUNCTIONS.get(s.fn)
    except TypeError:       # an unhashable callable
        return None
    if spec is None:
        return None
    kind, sub = spec
    if kind in ("swap", "tgrad"):
        args = _transpose_args(kind, s, [_reg(s.args[0], consts)] if s.args else [])
        kind = "T"
    else:
        args = [_reg(a, consts) for a in s.args]
    if args is None or any(a is None for a in args) or s.target == loop.var or \
            all(isinstance(a, ir.Const) for a in s.args):
        return None     # (constants alone: Python's int arithmetic is not this tier's)
    if kind == "row" and (len(args) != 2 or args[1] != loop.var):
        return None
    if kind in ("mgrad_a", "mgrad_b", "dgrad_a", "dgrad_b", "detgrad"):
        if len(args) != 3:
            return None
    elif kind in ("sgrad_a", "sgrad_b"):
        if len(args) != 4:
            return None
        args = args[:3]     # (g, x, a): b is read for its shape alone, x's
    elif kind in ("un", "mov", "T", "inv", "det", "zeros"):
        if len(args) != 1:
            return None
    elif len(args) != 2:
        return None
    return (kind, sub, s.target, *args, *([None] * (3 - len(args))))[:6]


def _code(stmts, loop, consts):
    code = []
    for s in stmts:
        c = _instruction(s, loop, consts)
        if c is None:
            return None
        if c:
            code.append(c)
    return code


def plan_loop(loop, name="loop", before=()):
    """A `rt.SmallLoop` for ``loop`` (an ir.For), or None when its body has something
    the tier does not run. ``before``: the statements before it in its block (where
    its branches' flags get their first values, smallarr_branches)."""
    res = smallarr_branches.resolve(loop, before)
    if res is False:
        return None
    consts = {}
    code = _code(loop.body if res is None else res.body, loop, consts)
    first = None if res is None or res.first is None else _code(res.first, loop, consts)
    if code is None or (res is not None and res.first is not None and first is None):
        return None
    both = (first or []) + code
    if any(c[3] == loop.var or c[4] == loop.var for c in both if c[0] != "row"):
        return None
    pushes = any(c[0] == "push" for c in both)
    pops = any(c[0] == "pop" for c in both)
    if pushes and pops:
        return None
    if first is not None and [c for c in first if c[0] in ("push", "pop")] != \
            [c for c in code if c[0] in ("push", "pop")]:
        return None     # (every iteration saves or pops the same)
    stacks = sorted({c[1] for c in code if c[0] in ("push", "pop")})
    if stacks and not any(st[0] == "o" for st in stacks):
        return None
    written, liveins = [], []
    for c in both:
        for r in c[3:]:
            if r is not None and r not in written and r not in liveins and r not in consts \
                    and r != loop.var:
                liveins.append(r)
        if c[2] is not None and c[2] not in written:
            written.append(c[2])
    flags_in, flags_out = (res.entry, res.final) if res is not None else ((), ())
    flags_out = tuple((n, v) for n, v in flags_out if n not in written)
    return rt.SmallLoop(name, code, loop.var, stacks, liveins, [loop.var] + written,
                        consts, smallarr_layout.layout, first=first, flags=(flags_in, flags_out))


@record
class _Pair:
    index: int
    plan: object
    pushes: tuple
    pops: tuple

    def __init__(self, index, plan, pushes=(), pops=()):
        self.index = index
        self.plan = plan
        self.pushes = pushes
        self.pops = pops


def rewrite(program):
    """``program`` with each loop the tier can take wrapped as in the module's
    docstring (the same program when there is none); the plans are listed on the
    result as ``small_loops`` for `revsrc.disassemble`.

    Loops nested in branches and other loops are taken too, block by block: the
    checkpointed form of a long loop (revsrc/passes/reverse/checkpoint) runs its
    units there, a unit recorded and at once reversed in one block."""
    if not enabled():
        return program
    taken = []
    parts = _parts(program.body, taken, [0], _marked(program.body))
    if not taken:
        return program
    body = [st for part in parts for st in part]
    fwd = sum(len(part) for part in parts[:program.forward_len])
    out = ir.replace(program, body=body, forward_len=fwd)
    out.small_loops = taken
    return out


def _marked(body):
    """The plans of loops paired by construction (``paired``, set by
    revsrc/passes/reverse/checkpoint/revolve.py: a loop that saves and the adjoint loop
    that pops those saves, in blocks apart), by the loop's id: both loops of a pair or
    neither, each found once in the program, the pops those pushes reversed."""
    sides = {}
    for st in ir.walk(body):
        mark = getattr(st, "paired", None) if isinstance(st, ir.For) else None
        if mark is not None:
            sides.setdefault(mark[0], []).append((mark[1], st))
    out = {}
    for key, found in sides.items():
        if sorted(side for side, _ in found) != ["pops", "saves"]:
            continue        # a pass dropped or copied one of them: neither is taken
        (_, a), (_, b) = sorted(found, key=lambda f: f[0] != "saves")
        fwd, rev = plan_loop(a, "saves"), plan_loop(b, "pops")
        if fwd is None or rev is None or not fwd.pushes or fwd.pops or rev.pushes:
            continue
        pushes = tuple((c[1], c[3]) for c in fwd.code if c[0] == "push")
        pops = tuple((c[1], c[2]) for c in rev.code if c[0] == "pop")
        if tuple(reversed(pushes)) == pops:
            out[id(a)], out[id(b)] = fwd, rev
    return out


def _block(stmts, taken, seen, marked):
    return [st for part in _parts(stmts, taken, seen, marked) for st in part]


def _parts(stmts, taken, seen, marked):
    """What replaces each statement of ``stmts`` (a list of statements): a loop the
    tier takes wrapped (its plan appended to ``taken``), a statement holding blocks
    with those rewritten alike, anything else itself. Each block is decided alone
    (`_pairs`): a loop that saves is taken only with the loop of the same block that
    pops its tape, so no tape outlives its block; but for the loops paired by
    construction (``marked``, `_marked`). (``seen[0]`` counts the candidate loops,
    for their names.)"""
    found = []
    for k, s in enumerate(stmts):
        if isinstance(s, ir.For) and id(s) not in marked:
            seen[0] += 1
            plan = plan_loop(s, f"loop{seen[0]}", stmts[:k])
            if plan is not None:
                found.append(_Pair(k, plan, tuple((c[1], c[3]) for c in plan.code if c[0] == "push"),
                                   tuple((c[1], c[2]) for c in plan.code if c[0] == "pop")))
    take = _pairs(stmts, found)
    out = []
    for k, s in enumerate(stmts):
        plan = take.get(k) or marked.get(id(s))
        if plan is not None:
            if plan.name in ("saves", "pops"):
                seen[0] += 1
                plan.name = f"loop{seen[0]}"
            taken.append(plan)
            out.append(_wrap(s, plan, len(taken)))
        elif ir.children(s):
            out.append([ir.map_children(s, lambda b: _block(b, taken, seen, marked))])
        else:
            out.append([s])
    return out


def _touched(stmt):
    return {t.stack for t in ir.walk([stmt]) if isinstance(t, (ir.Push, ir.Pop))}


def _pairs(body, found):
    """Which candidate loops to take: every loop without saves, and a loop that saves
    only with the loop that pops its tape. Decided by following each object stack
    through the top-level statements: a loop taken puts one tape on its first object
    stack, a top-level push one item, a top-level pop takes one, and the loop that pops
    the saves must find that loop's tape on top. A stack that anything else touches
    (a branch, a loop not taken) has no loop taken on it."""
    by_index = {p.index: p for p in found}
    take = {p.index: p.plan for p in found if not p.pushes and not p.pops}
    blocked = set()
    for k, st in enumerate(body):
        if k not in by_index and not isinstance(st, (ir.Push, ir.Pop)):
            blocked |= _touched(st)
    stacks = {}
    for k, st in enumerate(body):
        p = by_index.get(k)
        if p is not None and (p.pushes or p.pops):
            names = set(p.plan.stacks)
            if names & blocked:
                continue
            owner = stacks.setdefault(next(n for n in p.plan.stacks if n[0] == "o"), [])
            if p.pushes:
                owner.append(p)
            elif owner and isinstance(owner[-1], _Pair) and \
                    tuple(reversed(owner[-1].pushes)) == p.pops:
                q = owner.pop()
                take[q.index], take[k] = q.plan, p.plan
            else:
                return {i: pl for i, pl in take.items() if not by_index[i].pushes
                        and not by_index[i].pops}
        elif isinstance(st, ir.Push):
            stacks.setdefault(st.stack, []).append(None)
        elif isinstance(st, ir.Pop):
            items = stacks.setdefault(st.stack, [])
            if items and items[-1] is not None:
                # a plain pop would meet a tape: take no loop that saves
                return {i: pl for i, pl in take.items() if not by_index[i].pushes
                        and not by_index[i].pops}
            if items:
                items.pop()
    return take


def enabled():
    """``REVSRC_SMALL_ARRAYS=0`` turns the tier off (for comparisons); else whether this
    build can run it."""
    if os.environ.get("REVSRC_SMALL_ARRAYS", "1").strip().lower() in ("0", "off", "no", "false"):
        return False
    return bool(_kernels.sa_ready())


def _wrap(loop, plan, n):
    res = f"_sa{n}"
    ok = f"_saok{n}"
    args = (ir.Const(plan), loop.start, loop.stop, loop.step, *[stack_name(st) for st in plan.stacks],
            *plan.liveins, *[n for n, _ in plan.flags_in])
    unpack = [ir.Op(name, operator.getitem, (res, ir.Const(k)))
              for k, name in enumerate(plan.outputs + [n for n, _ in plan.flags_out])]
    return [ir.Op(res, rt.run_loop, args, loc=loop.loc),
            ir.Op(ok, operator.is_not, (res, ir.Const(None))),
            ir.If(ok, unpack, [loop], loc=None)]
