"""The batching transformation: a program over one example becomes the program over
a batch of them (``revsrc.vmap`` of array programs).

Each variable is batched (its value carries the batch as its first axis), the same
for every example, or, for a tuple or list the program builds, an entry per item.
That is known from the parameters before anything runs, so it is decided here once
per statement: an operation with no batched operand stays as it is; one with a
batched operand becomes its primitive's batched form (the ``batch`` fact,
revsrc/rules/batching.py, calling revsrc/runtime/batched.py), or, for a primitive
with none, one call per example (`batched.loop`), exact by construction.

Control flow decided by a batched value (an ``if`` on an example's number, a loop
whose count differs between examples) is not batched here: `PerLane` says so, and
the caller runs the function once per example, which is exact. A loop or branch
whose test is the same for every example is batched: a variable it makes batched
on some path is batched (lifted: the same value for every example) on all of them.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import primitives
from ..core import ir
from ..core.ir import Const, For, If, Op, Pop, Push, SetItem, While
from ..runtime import batched as B, ieee
from ..runtime.grads.reductions import broadcast_reduced
from .reverse.checkpoint.scope import shows_twice

N = "_vmap_n"     # the program's parameter holding the batch size


class PerLane(Exception):
    """A statement the batch cannot take at once: the function runs per example."""


def batch_program(prog, mapped):
    """(the batched program, whether each output is batched). ``mapped``: whether each
    parameter of ``prog`` is batched. Raises `PerLane`."""
    if any(isinstance(s, SetItem) or (isinstance(s, Op) and _container_op(s.fn))
           for s in ir.walk(prog.body)):
        # writes into arrays through views the program follows, lists and dicts as
        # values: per example (exact)
        raise PerLane("an item assignment or a container")
    if shows_twice(prog.body) or any(isinstance(s, Op) and s.fn is next
                                     for s in ir.walk(prog.body)):
        # a random draw, next(it), a method call, a print, a clock: an operation with no batched
        # operand would run once for the whole batch, where a loop over the examples
        # runs it once for each (each example draws its own numbers): per example
        raise PerLane("a random draw or another effect")
    stacks = {}
    for _ in range(20):     # until the stacks that hold batched values are all known
        # a tuple parameter: whether each item is batched (a tuple per tuple)
        env = {p: m if isinstance(m, tuple) else bool(m) for p, m in zip(prog.params, mapped)}
        bt = _Batcher(prog.kinds)
        bt.stacks = dict(stacks)
        body = bt.block(prog.body, env)
        if bt.stacks == stacks:
            break
        stacks = bt.stacks
    else:   # pragma: no cover - the set only grows, and is finite
        raise PerLane("the saved values' stacks do not settle")
    outs = []
    for o in prog.outputs:
        outs.append(env.get(o, False) if isinstance(o, str) else False)
    new = ir.Program(prog.name + "_batched", list(prog.params) + [N], body,
                     list(prog.outputs), dict(prog.kinds), names=prog.names)
    return new, outs


def _container_op(fn):
    return fn in (ir.make_list, ir.make_dict) or \
        getattr(fn, "__module__", "") == "revsrc.runtime.containers"


def form_of(fn):
    """The batching form of ``fn`` (its ``batch`` fact; ``elementwise`` for the
    family of broadcasting records and for ufuncs), or None."""
    form = primitives.fact(fn, "batch")
    if form is not None:
        return form
    if isinstance(fn, np.ufunc) and fn.nout == 1:
        return "elementwise"
    prim = primitives.lookup(fn)
    if prim is not None and prim.broadcast:
        return "elementwise"
    return None


def _twin(fn):
    """The NumPy function computing ``fn`` on arrays (``math.log``: ``np.log``;
    ``operator.truediv``: ``np.true_divide``), where ``fn`` may raise on numbers."""
    if isinstance(fn, np.ufunc) or fn is np.where:
        return None
    alt = primitives.fact(fn, "array_ufunc")
    if alt is not None:
        return alt
    if getattr(fn, "__module__", None) == "math" or primitives.family_of(fn) == "math":
        name = primitives.fact(fn, "numpy_name") or getattr(fn, "__name__", "")
        return getattr(np, name, None)
    if fn is ieee.where:
        return np.where
    return None


def _join(a, b):
    if a == b:
        return a
    if isinstance(a, tuple) or isinstance(b, tuple):
        raise PerLane("a tuple batched differently on two paths")
    return True


class _Batcher:
    def __init__(self, kinds):
        self.kinds = kinds
        self.stacks = {}          # stack -> whether it holds batched values

    def z(self, env, o):
        return env.get(o, False) if isinstance(o, str) else False

    # ----- statement lists ------------------------------------------------------
    def block(self, stmts, env):
        out = []
        for s in stmts:
            out.extend(self.stmt(s, env))
        return out

    def stmt(self, s, env):
        if isinstance(s, Op):
            return self.op(s, env)
        if isinstance(s, SetItem):
            return self.setitem(s, env)
        if isinstance(s, If):
            return self.if_(s, env)
        if isinstance(s, (For, While)):
            return self.loop(s, env)
        if isinstance(s, Push):
            return self.push(s, env)
        if isinstance(s, Pop):
            if self.stacks.get(s.stack):
                env[s.target] = True
                return [Pop(s.target, self._stack(s.stack))]
            env[s.target] = False
            return [s]
        return [s]

    def _stack(self, stack):
        return "o" + stack + "v"      # a list, beside the stack of the same name

    def push(self, s, env):
        zv = self.z(env, s.value)
        if isinstance(zv, tuple):
            raise PerLane("a tuple saved for the reverse sweep")
        if not zv and not self.stacks.get(s.stack):
            return [s]
        self.stacks[s.stack] = True
        out = []
        value = s.value
        if not zv:
            value = "_vmap_lift" + str(id(s))
            out.append(Op(value, B.lift, (s.value, N)))
        out.append(Push(value, self._stack(s.stack)))
        return out

    def if_(self, s, env):
        if self.z(env, s.test):
            raise PerLane("a branch on a value that differs between examples")
        e1, e2 = dict(env), dict(env)
        body, orelse = self.block(s.body, e1), self.block(s.orelse, e2)
        merged = self._merge(env, [e1, e2])
        body += self._lifts(e1, merged)
        orelse += self._lifts(e2, merged)
        env.clear()
        env.update(merged)
        return [ir.replace(s, body=body, orelse=orelse)]

    def _merge(self, env, paths):
        merged = dict(env)
        for e in paths:
            for k, v in e.items():
                merged[k] = _join(merged[k], v) if k in merged else v
        return merged

    def _lifts(self, env, want):
        return [Op(k, B.lift, (k, N)) for k, v in want.items()
                if v is True and env.get(k, False) is False and k in env]

    def loop(self, s, env):
        tests = [s.start, s.stop, s.step] if isinstance(s, For) else [s.test]
        if isinstance(s, For):
            if any(self.z(env, t) for t in tests):
                raise PerLane("a loop whose count differs between examples")
            env[s.var] = False
        want = dict(env)
        for _ in range(50):          # the batched set grows to a fixed point
            trial = dict(want)
            for c in ir.children(s):
                self.block(c, trial)
            new = self._merge(want, [trial])
            if new == want:
                break
            want = new
        else:   # pragma: no cover - statuses only grow, and are few
            raise PerLane("a loop's batched values do not settle")
        if isinstance(s, While) and self.z(want, s.test):
            raise PerLane("a while loop whose test differs between examples")
        before = self._lifts(env, {k: v for k, v in want.items() if k in env})
        inner = dict(want)
        parts = []
        for c in ir.children(s):
            e = dict(inner)
            part = self.block(c, e)
            part += self._lifts(e, want)
            parts.append(part)
            inner = e
        env.clear()
        env.update(want)
        fields = ("body",) if isinstance(s, For) else ("test_body", "body")
        return before + [ir.replace(s, **dict(zip(fields, parts)))]

    # ----- item assignment ------------------------------------------------------
    def setitem(self, s, env):
        zt, zi, zv = (self.z(env, s.target), self.z(env, s.index), self.z(env, s.value))
        if not (zt or zi or zv):
            return [s]
        if any(isinstance(z, tuple) for z in (zt, zi, zv)):
            raise PerLane("an item assignment into a tuple or list of batched values")
        out = []
        if not zt:
            out.append(Op(s.target, B.lift, (s.target, N), loc=s.loc))
            env[s.target] = True
        out.append(Op(s.target, B.setitem, (s.target, s.index, s.value, Const(zi),
                                            Const(zv), N), loc=s.loc))
        return out

    # ----- operations -----------------------------------------------------------
    def op(self, s, env):
        zs = tuple(self.z(env, a) for a in s.args)
        zk = {k: self.z(env, v) for k, v in s.kwargs}
        fn = s.fn
        if fn is ir.make_tuple or fn is ir.make_list:
            if s.target is not None:
                env[s.target] = zs if any(zs) else False
            return [s]
        if fn is operator.getitem and zs and isinstance(zs[0], tuple) and \
                isinstance(s.args[1], Const) and not zs[1]:
            env[s.target] = zs[0][s.args[1].value]
            return [s]
        if not any(zs) and not any(zk.values()):
            if s.target is not None:
                env[s.target] = False
            return [s]
        if fn is ir.copy:
            env[s.target] = zs[0]
            return [s]
        if s.target is None:
            if zk:
                raise PerLane("a check with keyword operands")
            return [Op(None, B.check, (Const(fn), N, Const(zs)) + tuple(s.args), loc=s.loc)]
        env[s.target] = True
        new = self.batched(s, fn, zs, zk)
        return [new] if isinstance(new, Op) else new

    def batched(self, s, fn, zs, zk):
        form = form_of(fn)
        structured = any(isinstance(z, tuple) for z in zs) or any(zk.values())
        args, kw, loc, t = tuple(s.args), s.kwargs, s.loc, s.target
        if form == "elementwise" and not structured:
            alt = _twin(fn)
            if isinstance(alt, np.ufunc) and len(args) != alt.nin:
                alt = None     # math.log(x, base): np.log's second operand is its out
            if primitives.family_of(fn) == "math" or primitives.fact(fn, "raises_on_scalars"):
                # it may raise on an example's number: its twin, checked
                if alt is None:
                    return self.loop_op(s, zs, zk)
                return Op(t, B.elementwise_checked, (Const(fn), Const(alt), N, Const(zs))
                          + args, loc=loc)
            return _elementwise(t, alt or fn, zs, args, kw, loc)
        two = len(args) == 2 and not kw and not structured
        if form in ("matmul", "dot") and two:
            f = B.matmul if form == "matmul" else B.dot
            return Op(t, f, args + (Const(zs[0]), Const(zs[1]), N), loc=loc)
        if form in ("matmul_grad_a", "matmul_grad_b") and len(args) == 3 and not kw \
                and not structured:
            f = B.matmul_grad_a if form == "matmul_grad_a" else B.matmul_grad_b
            return Op(t, f, args + tuple(Const(z) for z in zs) + (N,), loc=loc)
        if form == "reduction" and zs == (True,) and not kw:   # over all of each example
            return Op(t, B.reduction_all, (Const(fn), N) + args, loc=loc)
        if form == "reduction" and not structured:
            return Op(t, B.reduction, (Const(fn), N, Const(zs), Const(zk)) + args, kw,
                      loc=loc)
        if form in ("sum_grad", "mean_grad") and not structured and not kw:
            return self.reduced_grad(s, form, zs)
        if form == "real_part" and two and zs[0] is True:
            # Re of the adjoint, read from it alone: the batched adjoint's own
            return Op(t, fn, args, loc=loc)
        if form == "unbroadcast" and two:
            return Op(t, B.unbroadcast, args + (Const(zs[0]), Const(zs[1]), N), loc=loc)
        if form in ("broadcast_like", "finalize") and two:
            f = B.broadcast_like if form == "broadcast_like" else B.finalize
            extra = (N,) if form == "finalize" else ()
            return Op(t, f, args + (Const(zs[0]), Const(zs[1])) + extra, loc=loc)
        if form == "getitem" and len(args) == 2 and not kw and not isinstance(zs[1], tuple):
            return Op(t, B.getitem, args + (Const(zs[0]), Const(zs[1]), N), loc=loc)
        if form == "result_like" and not structured and not kw:
            return Op(t, B.result_like, (args[0], N, Const(zs[1:])) + args[1:], loc=loc)
        if form == "float" and len(args) == 1 and not kw and zs[0] is True:
            return Op(t, B.as_float, args, loc=loc)
        if form == "reshape" and zs[0] is True and not any(zs[1:]) and len(args) >= 2:
            return Op(t, B.reshape, args, kw, loc=loc)
        if form == "transpose" and zs[0] is True and not any(zs[1:]) and not kw:
            return Op(t, B.transpose, args, loc=loc)
        if form == "joined" and len(args) <= 2 and not any(zs[1:]) and \
                not any(zk.values()) and isinstance(zs[0], tuple):
            return Op(t, B.joined, (Const(fn), N, Const(zs[0])) + args, kw, loc=loc)
        if form == "einsum" and args and isinstance(args[0], Const) and \
                isinstance(args[0].value, str) and not zs[0] and not kw and not structured:
            return Op(t, B.einsum, (args[0], N, Const(zs[1:])) + args[1:], loc=loc)
        return self.loop_op(s, zs, zk)

    def reduced_grad(self, s, form, zs):
        rule = s.fn
        if form == "sum_grad":    # broadcast_reduced(g, x, axis, keepdims): no ans
            args = (s.args[0], Const(None)) + tuple(s.args[1:])
            zs = (zs[0], False) + zs[1:]
            rule = _sum_grad
        else:
            args = tuple(s.args)
        return Op(s.target, B.reduced_grad, (Const(rule), Const(form == "mean_grad"), N,
                                             Const(zs)) + args, loc=s.loc)

    def loop_op(self, s, zs, zk):
        return Op(s.target, B.loop, (Const(s.fn), N, Const(zs), Const(zk)) + tuple(s.args),
                  s.kwargs, loc=s.loc)


_PAIRS = {(True, False): B.elementwise_bu, (False, True): B.elementwise_ub,
          (True, True): B.elementwise_bb}


def _elementwise(t, fn, zs, args, kw, loc):
    """The statement of an elementwise operation: the operation itself where the
    batched operands' axes need no moving whatever the ranks (one batched operand, the
    others numbers written in the program), a form of two operands that tests the
    ranks once, else `batched.elementwise`."""
    if not zs[0]:
        fn = B.out_of_place(fn)     # an in-place operator cannot write into it
    special = fn in B._LIKE or fn is np.where
    if not special and sum(zs) == 1 and all(
            z or (isinstance(a, Const) and np.ndim(a.value) == 0 and
                  not isinstance(a.value, (list, tuple)))
            for a, z in zip(args, zs)):
        return Op(t, fn, args, kw, loc=loc)
    if not special and not kw and zs in _PAIRS:
        return Op(t, _PAIRS[zs], (Const(fn),) + args, loc=loc)
    return Op(t, B.elementwise, (Const(fn), Const(zs)) + args, kw, loc=loc)


def _sum_grad(g, ans, x, axis=None, keepdims=False):
    """``broadcast_reduced`` in the form of ``mean_grad``'s operands."""
    return broadcast_reduced(g, x, axis, keepdims)
