"""Three passes over a finished array program: the value grad does not return,
accumulators added in place, and loop bodies' small operations sent to kernels.

``revsrc.grad`` returns the gradient alone, but the reverse transformation writes one
program for ``grad`` and ``value_and_grad``: ``outputs[0]`` is the value. For ``grad``,
`drop_value` rewrites the program so that the forward sweep computes only what the
adjoint reads, as ``jax.jit(jax.grad(f))`` does:

- ``outputs[0]`` becomes None;
- a forward operation whose result nothing reads is removed (and so on backwards);
- an operation whose result is read only for its shape and dtype (the adjoints of
  ``np.mean``, ``np.sum`` and broadcasting read nothing else of their input) becomes
  `runtime.result_like`: an array of that shape and dtype, whose values are never computed.

In logistic regression, ``np.mean(np.logaddexp(0.0, m))`` is the loss: NumPy's logaddexp
(two libm calls per element) is most of the forward sweep, and its adjoint
(``logaddexp_vjp``) reads the margins, not the loss.

Only top-level operations of the forward sweep, assigned once, are touched: those read
for their shape alone (by operations whose records declare ``shape_reads``), and those
read by nothing whose records declare them ``effect_free`` (revsrc/primitives.py);
loops, branches and saves are left as they are.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import primitives, runtime
from ..core import ir, kinds
from ..core.ir import Comment, Const, Op, Program


def _like_fn(fn, args, kwargs):
    """What `runtime.result_like` takes for ``fn(*args)`` (a ufunc, np.sum or np.mean),
    or None."""
    if kwargs:
        return None
    fn = primitives.fact(fn, "array_ufunc") or fn   # on arrays, an operator is a ufunc
    if isinstance(fn, np.ufunc):   # elementwise ones (np.matmul is a gufunc: not here)
        return fn if fn.nout == 1 and len(args) == fn.nin and fn.signature is None \
            else None
    return fn if fn in (np.sum, np.mean) and len(args) == 1 else None


def _shape_only(op, name):
    """Whether ``op`` reads ``name`` for its shape and dtype only."""
    if not isinstance(op, Op) or op.kwargs and any(v == name for _, v in op.kwargs):
        return False
    if op.fn is runtime.result_like:
        return True       # every argument
    allowed = primitives.fact(op.fn, "shape_reads") or ()   # (the adjoints of np.mean...)
    positions = [i for i, a in enumerate(op.args) if a == name]
    return bool(positions) and all(i in allowed for i in positions)


def drop_value(prog: Program) -> Program:
    """``prog`` for a caller that does not read ``outputs[0]`` (see the module)."""
    return _unread_dropped(prog, [Const(None)] + list(prog.outputs[1:]),
                           "grad does not return the value")


def drop_unread(prog: Program) -> Program:
    """``prog`` without the top-level operations of its forward sweep that nothing
    reads (as `drop_value`, every output kept): a forward-mode program of a gradient
    computes the tangent of the function's value, which nothing returns."""
    return _unread_dropped(prog, list(prog.outputs), "nothing reads it")


def _unread_dropped(prog, outputs, why):
    body = list(prog.body)
    fwd = prog.forward_len
    writes = {}
    for s in ir.walk(body):
        for w in ir.writes(s):
            writes[w] = writes.get(w, 0) + 1

    def readers(name):
        out = [s for s in ir.walk(body) if name in ir.reads(s)]
        if any(o == name for o in outputs):
            out.append(None)  # read by the caller
        return out

    changed = False
    for i in range(fwd - 1, -1, -1):
        s = body[i]
        if not (isinstance(s, Op) and s.target is not None and writes.get(s.target) == 1
                and prog.kinds.get(s.target) in ("array", "float")):
            continue
        who = readers(s.target)
        if not who and primitives.fact(s.fn, "effect_free"):
            what = getattr(s.fn, "__name__", "this value")
            body[i] = Comment(f"({what}: not computed, {why})")
            changed = True
        elif who and None not in who and all(_shape_only(r, s.target) for r in who) \
                and prog.kinds.get(s.target) in ("array", "float") \
                and _like_fn(s.fn, s.args, s.kwargs) is not None:
            like = _like_fn(s.fn, s.args, s.kwargs)
            body[i] = Op(s.target, runtime.result_like, (Const(like),) + tuple(s.args), loc=s.loc)
            changed = True
    if not changed and prog.outputs[0] == outputs[0]:
        return prog
    return Program(prog.name, prog.params, body, outputs, prog.kinds, forward_len=fwd,
                   names=prog.names, deps=prog.deps)


# ----- Accumulating adjoints in place -----

def accumulate_in_place(prog: Program) -> Program:
    """``x_bar = x_bar + t`` becomes ``x_bar = runtime.accumulate(x_bar, t)`` (an
    in-place add) for an accumulator whose every other write is a number (its 0.0
    start) or fresh zeros (``runtime.zeros_like``) and whose every read is such an
    accumulation or a program output: then its array was made by the first
    ``0.0 + t`` or the zeros, and no other name can hold it. The
    weight adjoint of a loop (``W_bar`` of an RNN) is the case: one allocation and
    one temporary fewer per iteration."""
    stmts = list(ir.walk(prog.body))
    adjoint = prog.names.is_adjoint if prog.names is not None else (lambda name: False)
    candidates = {}
    for s in stmts:
        if isinstance(s, Op) and s.fn is operator.add and s.target and \
                adjoint(s.target) and len(s.args) == 2 and s.args[0] == s.target \
                and s.args[1] != s.target and not s.kwargs:
            candidates.setdefault(s.target, []).append(s)
    ok = set()
    for name, accs in candidates.items():
        good = True
        for s in stmts:
            if s in accs:
                continue
            if name in ir.writes(s):
                # a number, or fresh zeros (the typed zero of a join): nobody else's
                fresh = isinstance(s, Op) and (
                    s.fn is runtime.zeros_like or
                    (s.fn is ir.copy and len(s.args) == 1 and isinstance(s.args[0], Const)
                     and type(s.args[0].value) in (int, float)))
                if not fresh:
                    good = False
            if name in ir.reads(s):
                good = False
        if good:
            ok.add(name)
    if not ok:
        return prog

    def rewrite(body):
        out = []
        for s in body:
            if isinstance(s, Op) and s.target in ok and s.fn is operator.add \
                    and s.args[0] == s.target:
                s = Op(s.target, runtime.accumulate, s.args, loc=s.loc)
            out.append(ir.map_children(s, rewrite))   # candidates: found at any depth
        return out

    return Program(prog.name, prog.params, rewrite(prog.body), prog.outputs, prog.kinds,
                   forward_len=prog.forward_len, names=prog.names, deps=prog.deps)


# ----- Loop bodies: NumPy's loops without NumPy's dispatch -----

def loop_kernels(prog: Program) -> Program:
    """Inside the loops of an array program, ``_t2 = _t1 + _t4`` becomes
    ``_t2 = _kernels.add(_t1, _t4)`` (and so for every operation whose record declares
    a ``loop_kernel``: each kernel gives its value bit for bit (revsrc/_kernels.pyx,
    "Small-array operations of loop bodies") and calls it for anything it does not
    take).

    A step of an RNN is a dozen NumPy calls on small arrays, and most of each call's
    time is NumPy's dispatch; the kernels run the same inner loops without it. Code
    outside loops keeps NumPy's spelling (it runs once, so the saving is small there);
    operations on known scalars are left alone (a kernel would only add a call)."""
    known = prog.kinds or {}

    def scalar(o):
        return isinstance(o, Const) or known.get(o) in kinds.SCALARS

    def rewrite(body, in_loop):
        out = []
        for s in body:
            if in_loop and isinstance(s, Op) and not s.kwargs:
                hit = primitives.fact(s.fn, "loop_kernel")
                if hit is not None and len(s.args) == hit[1] and \
                        not all(scalar(a) for a in s.args):
                    s = Op(s.target, hit[0], s.args, loc=s.loc)
            loop = isinstance(s, (ir.For, ir.While))   # (a while's test runs each time)
            out.append(ir.map_children(s, lambda b: rewrite(b, in_loop or loop)))
        return out

    return Program(prog.name, prog.params, rewrite(prog.body, False), prog.outputs,
                   prog.kinds, forward_len=prog.forward_len, names=prog.names,
                   deps=prog.deps)
