"""Binomial checkpointing (Griewank's revolve) of a loop whose trip count is known on
entry, written as IR, so both back ends run it.

The loop's iterations are grouped into units of ``K`` (one unit's saves fit in half
the budget). With ``c`` snapshots and ``L`` units, revolve's schedule recomputes the
fewest units: ``t(L, c) = r*L - C(c+r, c+1)`` unit runs besides the ``L`` that save,
``r`` the least with ``C(c+r, c) >= L``. Its recursion: to reverse units ``[p, b)``
from a snapshot at ``p`` with ``f`` free snapshots, advance ``m`` units, take a
snapshot, reverse ``[p+m, b)`` with ``f-1``, then ``[p, p+m)`` with ``f``; with none
free, run forward to the last unit each time. `split` picks an ``m`` that attains
the optimum: the least one with both halves in the range where ``r`` holds, so
``t(m, f+1) + t(b-p-m, f) + m = t(b-p, f+1)``.

The snapshots are used last in, first out, so they live on the stacks the saves use.
The forward sweep follows the schedule's first descent (advancing and taking
snapshots) and saves the last unit; the reverse sweep is one loop over the top
snapshot: drop it when its unit is reversed, else split again or run forward to the
last unit still to reverse, save it and reverse it.
"""
from __future__ import annotations

import operator

import numpy as np

from ....core import ir
from ....core.ir import Comment, Const, For, If, Op, Pop, Push, While
from ....runtime import checkpoint as rt

__all__ = ["Units", "forward", "lazy_forward", "reverse", "copied"]


def copied(stmts):
    """``stmts`` with no statement shared with the original."""
    return [ir.map_children(ir.replace(st), copied) for st in stmts]


def _arg(a):
    return a if isinstance(a, (str, Const)) else Const(a)


class Units:
    """The IR of one checkpointed loop, in units of ``K`` iterations from ``st`` to
    ``e``: advancing unsaved, saving, reversing, taking and restoring snapshots."""

    def __init__(self, plan, s, saving, scope, body=None, counted=None):
        self.plan, self.s, self.scope, self.loc = plan, s, scope, s.loc
        test = s.test_body if isinstance(s, While) else []
        self.body = body
        self.st, self.e = self.int("_st"), self.int("_e")
        self.K = self.c = None
        # ``counted``: (start, step) of a ``for`` loop run as iterations 0, 1, ...
        # (a step or a break): each iteration sets its variable start + index * step
        self.counted = counted
        self.iv = s.var if isinstance(s, For) and not counted else self.int("_i")
        head = self.var_at(self.iv)
        self.plain, self.saving = head + s.body + test, head + saving + test

    def var_at(self, index):
        """The statements setting a counted loop's variable for iteration ``index``."""
        if not self.counted:
            return []
        start, step = self.counted
        if step == Const(1):
            return [self.op(self.s.var, operator.add, start, index)]
        t = self.int("_o")
        return [self.op(t, operator.mul, index, step),
                self.op(self.s.var, operator.add, start, t)]

    def int(self, prefix, kind="int"):
        v = self.plan.names.fresh(prefix)
        self.plan.kinds[v] = kind
        return v

    def op(self, target, fn, *args):
        return Op(target, fn, tuple(_arg(a) for a in args), loc=self.loc)

    def calc(self, prefix, fn, *args, kind="int"):
        """(statement, its target): ``fresh = fn(*args)``."""
        t = self.int(prefix, kind)
        return self.op(t, fn, *args), t

    def sizes(self, share):
        """``K`` and ``c`` from ``share`` of the budget (halves: ``(1/2, 1/2)``):
        constants for numbers, asked at run time for arrays; the statements that ask."""
        budget, sc = self.plan.memory, self.scope
        kb, cb = int(budget * share[0]), int(budget * share[1])
        if not sc.arrays:
            self.K = Const(max(1, kb // ((sc.fixed + 8 * sc.objects) or 1)))
            self.c = Const(max(1, cb // (8 * len(sc.snap) + 8)))
            return []
        self.K, self.c = self.int("_K"), self.int("_cs")
        return [self.op(self.K, rt.unit_length, kb, sc.fixed, sc.objects, *sc.snap),
                self.op(self.c, rt.snapshot_count, cb, *sc.snap)]

    def sized(self):
        """The pushes (forward) and pops (reverse) of run-time ``K`` and ``c``."""
        names = [] if isinstance(self.K, Const) else [self.K, self.c]
        return [Push(v, "i") for v in names], [Pop(v, "i") for v in reversed(names)]

    def describe(self):
        if isinstance(self.K, Const):
            return f"units of {self.K.value} iterations, {self.c.value} snapshots"
        return "units and snapshots sized from the arrays on entry"

    # ----- running units -----
    def _range(self, u0, u1):
        a, lo = self.calc("_a", operator.mul, u0, self.K)
        b, hi = self.calc("_h", operator.mul, u1, self.K)
        return [a, self.op(lo, operator.add, self.st, lo), b,
                self.op(hi, operator.add, self.st, hi), self.op(hi, min, hi, self.e)], lo, hi

    def advance(self, u0, u1):
        """Run units ``[u0, u1)`` without saving."""
        pre, lo, hi = self._range(u0, u1)
        return pre + [For(self.iv, lo, hi, Const(1), copied(self.plain), loc=self.loc)]

    def record(self, u):
        """Run unit ``u``, saving."""
        pre, lo, hi = self._unit(u)
        return pre + [For(self.iv, lo, hi, Const(1), copied(self.saving), loc=self.loc)]

    def _unit(self, u):
        a, u1 = self.calc("_u", operator.add, u, 1)
        pre, lo, hi = self._range(u, u1)
        return [a] + pre, lo, hi

    def adjoint(self, u):
        """Unit ``u``'s adjoint iterations, last to first."""
        pre, lo, hi = self._unit(u)
        a, last = self.calc("_m", operator.sub, hi, 1)
        b, before = self.calc("_l", operator.sub, lo, 1)
        j = self.int("_k")
        inner = []
        if isinstance(self.s, For) and self.plan.needed(self.s.var):
            inner = self.var_at(j) if self.counted else [Op(self.s.var, ir.copy, (j,))]
        return pre + [a, b, For(j, last, before, Const(-1), inner + copied(self.body),
                                loc=self.loc)]

    # ----- snapshots: the state, then its position -----
    def push_snap(self, pos):
        out = []
        for v in self.scope.snap:
            if v in self.scope.arrays:
                # a copy: a write into the array after the loop must not reach it
                st, t = self.calc("_snap", np.copy, v, kind="array")
                out += [st, Push(t, "o")]
            else:
                out.append(Push(v, self.plan.stack(v)))
        return out + [Push(pos, "i")]

    def repush(self, pos):
        return [Push(v, self.plan.stack(v)) for v in self.scope.snap] + [Push(pos, "i")]

    def pop_snap(self, pos):
        return [Pop(pos, "i")] + [Pop(v, self.plan.stack(v)) for v in reversed(self.scope.snap)]

    # ----- the schedule -----
    def split(self, R, cc):
        """Statements setting ``m``, revolve's first snapshot for ``R`` units from a
        snapshot with ``cc - 1`` free (``cc >= 2``); and ``m``."""
        rr, beta = self.int("_rr"), self.int("_bt")
        t1, lt = self.calc("_lt", operator.lt, beta, R, kind="bool")
        t = self.int("_t")
        grow = [self.op(rr, operator.add, rr, 1), self.op(t, operator.add, cc, rr),
                self.op(t, operator.mul, beta, t), self.op(beta, operator.floordiv, t, rr)]
        out = [self.op(rr, ir.copy, 0), self.op(beta, ir.copy, 1),
               While([t1], lt, grow, loc=self.loc)]
        cr, b1, b2, b3, m = (self.int(p) for p in ("_cr", "_b1", "_b2", "_b3", "_sm"))
        out += [self.op(cr, operator.add, cc, rr),                 # beta = C(cc+r, cc)
                self.op(t, operator.mul, beta, rr), self.op(b1, operator.floordiv, t, cr),
                self.op(t, operator.sub, rr, 1), self.op(b2, operator.mul, b1, t),
                self.op(t, operator.sub, cr, 1), self.op(b2, operator.floordiv, b2, t),
                self.op(t, operator.mul, beta, cc), self.op(b3, operator.floordiv, t, cr),
                self.op(t, operator.sub, R, b3), self.op(m, max, b2, t),
                self.op(m, max, m, 1)]
        return out, m

    def reverse_loop(self, b, u, cfree):
        """Reverse units ``[0, b)`` (counted from ``st``) from the ``u`` snapshots on
        top of the stacks, with ``cfree`` snapshots for this loop in all."""
        pos, p = self.int("_pos"), self.int("_p")
        d0, d = self.calc("_d", operator.eq, p, b, kind="bool")
        R, fr, x = self.int("_R"), self.int("_fr"), self.int("_x")
        s0, sp = self.calc("_sp", operator.gt, x, 0, kind="bool")
        cc, to, pos2 = self.int("_cc"), self.int("_to"), self.int("_pos")
        pick, m = self.split(R, cc)
        # one run forward, to a new snapshot's unit or to the last unit left
        deeper = [self.op(cc, operator.add, fr, 1)] + pick + [self.op(to, operator.add, p, m)]
        snap = [self.op(pos2, operator.mul, to, self.K),
                self.op(pos2, operator.add, self.st, pos2)]
        snap += self.push_snap(pos2) + [self.op(u, operator.add, u, 1)]
        last = self.record(to) + self.adjoint(to) + [self.op(b, ir.copy, to)]
        keep = self.repush(pos) + [
            self.op(R, operator.sub, b, p), self.op(fr, operator.sub, cfree, u),
            self.op(x, operator.sub, R, 1), self.op(x, min, x, fr), s0,
            If(sp, deeper, [self.op(to, operator.sub, b, 1)], loc=self.loc)]
        keep += self.advance(p, to) + [If(sp, snap, last, loc=self.loc)]
        body = self.pop_snap(pos) + [self.op(p, operator.sub, pos, self.st),
                                     self.op(p, operator.floordiv, p, self.K), d0,
                                     If(d, [self.op(u, operator.sub, u, 1)], keep, loc=self.loc)]
        g0, go = self.calc("_go", operator.gt, u, 0, kind="bool")
        return [While([g0], go, body, loc=self.loc)]


def _pair(stmts, plan, loop, role, side):
    """Mark the loop of ``stmts`` (the last top-level one) as one side of a pair: the
    loop that saves and the adjoint loop that pops those saves, in blocks apart (a
    branch of the forward sweep, a branch of the reverse sweep), so the small-array
    tier (revsrc/backends/smallarr.py) can take both: the stored loop when its saves
    fit, and the unit the forward sweep saves last."""
    loops = [st for st in stmts if isinstance(st, For)]
    if loops:
        loops[-1].paired = ((id(plan), id(loop), role), side)
    return stmts


def forward(plan, s, saving, stored, scope):
    """The forward sweep of ``for`` loop ``s``: stored if its saves fit, else
    revolve's first descent and the last unit saved."""
    U = Units(plan, s, saving, scope)
    out = U.sizes((0.5, 0.5))
    l, L, p, u, pos, to, more = (U.int(n) for n in ("_n", "_L", "_p", "_u", "_pos", "_to",
                                                    "_more"))
    out += [U.op(U.e, ir.copy, s.stop), U.op(U.st, ir.copy, s.start),
            U.op(l, operator.sub, U.e, U.st), U.op(l, max, l, 0)]
    f0, fit = U.calc("_fit", operator.le, l, U.K, kind="bool")
    R, cu, x = U.int("_R"), U.int("_cu"), U.int("_x")
    g0, go = U.calc("_go", operator.gt, x, 0, kind="bool")
    m0, on = U.calc("_on", operator.gt, more, 0, kind="bool")
    cc = U.int("_cc")
    pick, m = U.split(R, cc)
    # one run forward a turn: to revolve's next snapshot, or to the last unit
    deeper = [U.op(cc, operator.add, cu, 1)] + pick + [U.op(to, operator.add, p, m)]
    step = [U.op(R, operator.sub, L, p), U.op(x, operator.sub, R, 1),
            U.op(cu, operator.sub, U.c, u), U.op(x, min, x, cu), g0,
            If(go, deeper, [U.op(to, operator.sub, L, 1)], loc=s.loc)]
    snap = [U.op(p, ir.copy, to), U.op(pos, operator.mul, p, U.K),
            U.op(pos, operator.add, U.st, pos)] + U.push_snap(pos)
    step += U.advance(p, to) + [If(go, snap + [U.op(u, operator.add, u, 1)],
                                   [U.op(more, ir.copy, 0)], loc=s.loc)]
    ck = [U.op(L, operator.add, l, U.K), U.op(L, operator.sub, L, 1),
          U.op(L, operator.floordiv, L, U.K), U.op(p, ir.copy, 0), U.op(u, ir.copy, 1),
          U.op(pos, ir.copy, U.st)] + U.push_snap(pos)
    ck += [U.op(more, ir.copy, 1), While([m0], on, step, loc=s.loc)]
    ck += _pair(U.record(to), plan, s, "last", "saves")
    ck += [Push(U.st, "i"), Push(U.e, "i")] + U.sized()[0] + [Push(u, "i"), Push(Const(0), "i")]
    head = Comment(f"checkpointed loop: stored if its saves fit, else {U.describe()} "
                   f"(binomial checkpointing, revolve)", loc=s.loc)
    stored = _pair(stored, plan, s, "stored", "saves")
    return [head] + out + [f0, If(fit, stored + [Push(Const(1), "i")], ck, loc=s.loc)]


def lazy_forward(plan, s, saving, stored, scope):
    """The forward sweep of ``for`` loop ``s`` built lazily: stored, after a test that
    stops the run if its saves would not fit."""
    U = Units(plan, s, saving, scope)
    out = U.sizes((0.5, 0.5))
    n = U.int("_n")
    out += [U.op(U.e, ir.copy, s.stop), U.op(U.st, ir.copy, s.start),
            U.op(n, operator.sub, U.e, U.st)]
    t, over = U.calc("_over", operator.gt, n, U.K, kind="bool")
    head = Comment(f"long loop: stored if its saves fit, else checkpointed with "
                   f"{U.describe()} (binomial checkpointing, revsrc builds that form "
                   f"when a call needs it)", loc=s.loc)
    stop = [Op(None, rt.needs_checkpointing, (), loc=s.loc)]
    return [head] + out + [t, If(over, stop, [], loc=s.loc)] + stored


def reverse(plan, s, saving, scope, body, stored):
    """The reverse sweep of checkpointed ``for`` loop ``s``."""
    U = Units(plan, s, saving, scope, body)
    U.sizes((0.5, 0.5))
    flag, u, l, b = U.int("_ck"), U.int("_u"), U.int("_n"), U.int("_b")
    ck = [Pop(u, "i")] + U.sized()[1] + [Pop(U.e, "i"), Pop(U.st, "i"),
                                         U.op(l, operator.sub, U.e, U.st),
                                         U.op(b, operator.add, l, U.K),
                                         U.op(b, operator.sub, b, 1),
                                         U.op(b, operator.floordiv, b, U.K),
                                         U.op(b, operator.sub, b, 1)]
    ck += _pair(U.adjoint(b), plan, s, "last", "pops") + U.reverse_loop(b, u, U.c)
    stored = _pair(list(stored), plan, s, "stored", "pops")
    return [Comment(f"checkpointed loop: {U.describe()}, reversed last to first",
                    loc=s.loc), Pop(flag, "i"), If(flag, stored, ck, loc=s.loc)]
