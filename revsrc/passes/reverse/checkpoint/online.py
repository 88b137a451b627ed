"""Checkpointing a loop whose trip count is known only once it has run: a ``while``
loop, or a ``for`` loop with a ``break`` or a step other than 1.

The first ``K`` iterations run stored (saving, as without a budget), so a short loop
pays one comparison an iteration. If the loop goes on, it runs on unsaved and takes
a snapshot every ``K`` iterations; after every ``h = c // 64`` snapshots the spacing
doubles, so ``n`` iterations take about ``h * log2(n / (h*K))`` snapshots, and ``c``
of them reach past ``K * 2**64`` iterations. The reverse sweep takes the stretches
between snapshots last to first and reverses each with revolve
(`revolve.Units.reverse_loop`), with the snapshots the earlier stretches leave free;
then the stored first ``K`` iterations, as a stored loop's reverse sweep does.

A ``for`` loop runs here as iterations ``0, 1, ...`` of a counter below its trip
count without a break (its bounds read once, on entry, as ``range`` reads them), each
setting the loop variable ``start + index * step`` first; a ``break`` leaves the
iteration it is in, which is counted (its saves are made), so the reverse sweep
starts from it as the stored one does.
"""
from __future__ import annotations

import operator

from ....core import ir
from ....core.ir import Break, Comment, Const, For, If, Op, Pop, Push, While
from ....runtime import checkpoint as rt
from ..plan import breaks
from .revolve import Units, copied

__all__ = ["forward", "lazy_forward", "reverse"]

_LEVELS = 64


def _units(plan, s, saving, scope, body=None):
    """The `Units` of loop ``s`` and, for a ``for`` loop, the statements that read its
    bounds and trip count on entry (else None) and the trip-count variable."""
    if not isinstance(s, For):
        return Units(plan, s, saving, scope, body), None, None
    if body is not None:        # the reverse sweep: the forward sweep's bounds
        return Units(plan, s, saving, scope, body, counted=scope.bounds), None, None
    names = [plan.names.fresh(p) for p in ("_st", "_sp", "_e", "_L")]
    for v in names:
        plan.kinds[v] = "int"
    st, sp, e, L = names
    scope.bounds = (st, sp)
    U = Units(plan, s, saving, scope, body, counted=(st, sp))
    entry = [U.op(st, ir.copy, s.start), U.op(sp, ir.copy, s.step), U.op(e, ir.copy, s.stop)]
    # a zero step is refused by range() here, as the stored loop refuses it (its
    # bounds are ints: `scope.applies`)
    if not isinstance(s.step, Const):
        entry.append(For(U.int("_d"), st, st, sp, [], loc=s.loc))
    # len(range(st, e, sp)): (e - st + sp - 1) // sp upward, (st - e - sp - 1) // -sp down
    t0, up = U.calc("_up", operator.gt, sp, 0, kind="bool")
    a, m = U.int("_a"), U.int("_m")
    entry += [t0, If(up, [U.op(a, operator.sub, e, st), U.op(a, operator.add, a, sp),
                          U.op(a, operator.sub, a, 1), U.op(L, operator.floordiv, a, sp)],
                     [U.op(a, operator.sub, st, e), U.op(a, operator.sub, a, sp),
                      U.op(a, operator.sub, a, 1), U.op(m, operator.neg, sp),
                      U.op(L, operator.floordiv, a, m)], loc=s.loc),
              U.op(L, max, L, 0)]
    return U, entry, L


def _test(U, s, n, L, first=False):
    """(test statements, test variable) of an iteration ``n`` of loop ``s``."""
    if L is None:
        return (s.test_body if first else copied(s.test_body)), s.test
    t, go = U.calc("_in", operator.lt, n, L, kind="bool")
    return [t], go


def forward(plan, s, saving, stored, scope):
    """The forward sweep of loop ``s`` (``stored``, its stored form, is not used: its
    first part is written here with a way out after ``K`` iterations)."""
    U, entry, L = _units(plan, s, saving, scope)
    # the stored first unit and the one being reversed take a quarter each
    out = U.sizes((0.25, 0.5)) + (entry or [])
    n1, ns, n2, sp, lv, nx, h, cut = (U.int(p) for p in ("_n", "_ns", "_n", "_sp", "_lv",
                                                         "_nx", "_h", "_cut"))
    s0, stop = U.calc("_out", operator.ge, n1, U.K, kind="bool")
    first = U.var_at(n1) + [U.op(n1, operator.add, n1, 1)] + saving
    first += [s0, If(stop, [U.op(cut, ir.copy, 1), Break()], [])]
    tb, tv = _test(U, s, n1, L, first=True)
    out += [U.op(n1, ir.copy, 0), U.op(cut, ir.copy, 0), While(tb, tv, first, loc=s.loc),
            Push(n1, "i"), U.op(ns, ir.copy, 0), U.op(n2, ir.copy, n1)]
    f0, full = U.calc("_full", operator.ge, lv, h, kind="bool")
    d0, due = U.calc("_due", operator.eq, n2, nx, kind="bool")
    take = U.push_snap(n2) + [U.op(ns, operator.add, ns, 1), U.op(lv, operator.add, lv, 1),
                              f0, If(full, [U.op(sp, operator.add, sp, sp),
                                            U.op(lv, ir.copy, 0)], []),
                              U.op(nx, operator.add, nx, sp)]
    # the counter first: an iteration a break leaves is counted
    rest = [d0, If(due, take, [])] + U.var_at(n2) + [U.op(n2, operator.add, n2, 1)]
    rest += copied(s.body)
    tb, tv = _test(U, s, n2, L)
    later = [U.op(sp, ir.copy, U.K), U.op(lv, ir.copy, 0), U.op(nx, ir.copy, n1),
             U.op(h, operator.floordiv, U.c, _LEVELS), U.op(h, max, h, 1),
             While(tb, tv, rest, loc=s.loc)]
    m0, more = U.calc("_more", operator.ne, cut, 0, kind="bool")
    out += [m0, If(more, later, [], loc=s.loc)]
    out += U.sized()[0] + [Push(ns, "i"), Push(n2, "i")]
    head = Comment(f"checkpointed loop: stored for its first unit, then {U.describe()}, "
                   f"the spacing doubling as they fill (online checkpointing)", loc=s.loc)
    return [head] + out


def lazy_forward(plan, s, saving, stored, scope):
    """The forward sweep of loop ``s`` built lazily: its stored form (``stored``, None
    for a while loop), counting its trips and stopping the run when it goes past its
    first ``K``."""
    U, entry, L = _units(plan, s, saving, scope)
    out = U.sizes((0.25, 0.5))
    n = U.int("_n")
    t, over = U.calc("_over", operator.gt, n, U.K, kind="bool")
    stop = [Op(None, rt.needs_checkpointing, (), loc=s.loc)]
    check = [U.op(n, operator.add, n, 1), t, If(over, stop, [], loc=s.loc)]
    head = Comment(f"long loop: stored for its first unit, then checkpointed with "
                   f"{U.describe()} (online checkpointing, revsrc builds that form "
                   f"when a call needs it)", loc=s.loc)
    if isinstance(s, For) and not breaks(s.body):
        # a step without a break: the trip count is known on entry, and the loop
        # itself stays as it was (straight-line code the small-array tier can take)
        return [head] + out + entry + [U.op(n, ir.copy, L), t,
                                       If(over, stop, [], loc=s.loc)] + stored
    out = [head] + out + [U.op(n, ir.copy, 0)]
    if isinstance(s, While):
        return out + [While(s.test_body, s.test, check + saving, loc=s.loc), Push(n, "i")]
    # the stored for loop, with the count in front of its body
    loops = [i for i, st in enumerate(stored) if isinstance(st, For) and st.var == s.var]
    i = loops[-1]
    loop = stored[i]
    stored = list(stored)
    stored[i] = For(loop.var, loop.start, loop.stop, loop.step, check + loop.body,
                    loc=loop.loc)
    return out + stored


def reverse(plan, s, saving, scope, body, stored):
    """The reverse sweep of checkpointed loop ``s``: its stretches last to first, then
    the stored first unit (a while loop's ``stored``; a for loop's written here)."""
    U, _, _ = _units(plan, s, saving, scope, body)
    U.sizes((0.25, 0.5))
    ns, end, pos, b, u, cf = (U.int(p) for p in ("_ns", "_end", "_pos", "_b", "_u", "_cf"))
    g0, go = U.calc("_go", operator.gt, ns, 0, kind="bool")
    stretch = [Pop(pos, "i"), Push(pos, "i"), U.op(U.st, ir.copy, pos),
               U.op(U.e, ir.copy, end), U.op(b, operator.sub, U.e, U.st),
               U.op(b, operator.add, b, U.K), U.op(b, operator.sub, b, 1),
               U.op(b, operator.floordiv, b, U.K), U.op(u, ir.copy, 1),
               U.op(cf, operator.sub, U.c, ns), U.op(cf, operator.add, cf, 1)]
    stretch += U.reverse_loop(b, u, cf) + [U.op(end, ir.copy, U.st),
                                           U.op(ns, operator.sub, ns, 1)]
    out = [Comment(f"checkpointed loop: {U.describe()}, stretches last to first, then "
                   f"the stored first unit", loc=s.loc),
           Pop(end, "i"), Pop(ns, "i")] + U.sized()[1]
    out += [While([g0], go, stretch, loc=s.loc)]
    if not isinstance(s, For):
        return out + stored
    # the first unit (at most K iterations, 0 to n1): its saves are on the stacks
    return out + [Pop(U.e, "i"), U.op(U.st, ir.copy, 0)] + U.adjoint(Const(0))
