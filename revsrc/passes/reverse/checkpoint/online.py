"""Checkpointing a ``while`` loop, whose trip count is known only once it has run.

The first ``K`` iterations run stored (saving, as without a budget), so a short loop
pays one comparison an iteration. If the loop goes on, it runs on unsaved and takes
a snapshot every ``K`` iterations; after every ``h = c // 64`` snapshots the spacing
doubles, so ``n`` iterations take about ``h * log2(n / (h*K))`` snapshots, and ``c``
of them reach past ``K * 2**64`` iterations. The reverse sweep takes the stretches
between snapshots last to first and reverses each with revolve
(`revolve.Units.reverse_loop`), with the snapshots the earlier stretches leave free;
then the stored first ``K`` iterations, as a stored loop's reverse sweep does.
"""
from __future__ import annotations

import operator

from ....core import ir
from ....core.ir import Break, Comment, If, Op, Pop, Push, While
from ....runtime import checkpoint as rt
from .revolve import Units, copied

__all__ = ["forward", "lazy_forward", "reverse"]

_LEVELS = 64


def forward(plan, s, saving, stored, scope):
    """The forward sweep of while loop ``s`` (``stored``, its stored form, is not used:
    its first part is written here with a way out after ``K`` iterations)."""
    U = Units(plan, s, saving, scope)
    # the stored first unit and the one being reversed take a quarter each
    out = U.sizes((0.25, 0.5))
    n1, ns, n2, sp, lv, nx, h = (U.int(p) for p in ("_n", "_ns", "_n", "_sp", "_lv",
                                                    "_nx", "_h"))
    s0, stop = U.calc("_out", operator.ge, n1, U.K, kind="bool")
    first = [U.op(n1, operator.add, n1, 1)] + saving + [s0, If(stop, [Break()], [])]
    out += [U.op(n1, ir.copy, 0), While(s.test_body, s.test, first, loc=s.loc),
            Push(n1, "i"), U.op(ns, ir.copy, 0), U.op(n2, ir.copy, 0)]
    m0, more = U.calc("_more", operator.ge, n1, U.K, kind="bool")
    f0, full = U.calc("_full", operator.ge, lv, h, kind="bool")
    d0, due = U.calc("_due", operator.eq, n2, nx, kind="bool")
    take = U.push_snap(n2) + [U.op(ns, operator.add, ns, 1), U.op(lv, operator.add, lv, 1),
                              f0, If(full, [U.op(sp, operator.add, sp, sp),
                                            U.op(lv, ir.copy, 0)], []),
                              U.op(nx, operator.add, nx, sp)]
    rest = [d0, If(due, take, [])] + copied(s.body) + [U.op(n2, operator.add, n2, 1)]
    later = [U.op(sp, ir.copy, U.K), U.op(lv, ir.copy, 0), U.op(nx, ir.copy, 0),
             U.op(h, operator.floordiv, U.c, _LEVELS), U.op(h, max, h, 1),
             While(copied(s.test_body), s.test, rest, loc=s.loc)]
    out += [m0, If(more, later, [], loc=s.loc)]
    out += U.sized()[0] + [Push(ns, "i"), Push(n2, "i")]
    head = Comment(f"checkpointed loop: stored for its first unit, then {U.describe()}, "
                   f"the spacing doubling as they fill (online checkpointing)", loc=s.loc)
    return [head] + out


def lazy_forward(plan, s, saving, stored, scope):
    """The forward sweep of while loop ``s`` built lazily: stored, counting its trips
    and stopping the run when it goes past its first ``K`` (``stored`` is None)."""
    U = Units(plan, s, saving, scope)
    out = U.sizes((0.25, 0.5))
    n = U.int("_n")
    t, over = U.calc("_over", operator.gt, n, U.K, kind="bool")
    check = [U.op(n, operator.add, n, 1), t,
             If(over, [Op(None, rt.needs_checkpointing, (), loc=s.loc)], [], loc=s.loc)]
    head = Comment(f"long loop: stored for its first unit, then checkpointed with "
                   f"{U.describe()} (online checkpointing, revsrc builds that form "
                   f"when a call needs it)", loc=s.loc)
    return [head] + out + [U.op(n, ir.copy, 0), While(s.test_body, s.test, check + saving,
                                                      loc=s.loc), Push(n, "i")]


def reverse(plan, s, saving, scope, body, stored):
    """The reverse sweep of checkpointed while loop ``s``: its stretches last to first,
    then the stored first unit (``stored``)."""
    U = Units(plan, s, saving, scope, body)
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
    return out + stored
