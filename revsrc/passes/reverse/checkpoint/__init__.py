"""Checkpointing long loops, so a gradient's saves fit in a memory budget.

A reverse-mode gradient saves what its adjoint needs from every iteration, so its
memory grows with the trip count. A budget (``memory=`` on revsrc.grad, and by
default `DEFAULT_MEMORY`) bounds it: an outermost loop whose saves would not fit
runs in *units* of ``K`` iterations, the saves of one unit at a time (`scope` says
which loops, `revolve` and `online` write them):

- a ``for i in range(...)`` loop knows its trip count on entry: if its saves fit it
  runs stored, as without a budget (one comparison); otherwise the units are reversed
  with binomial checkpointing (Griewank's revolve) with ``c`` snapshots;
- a ``while`` loop, or a ``for`` loop with a ``break`` or a step other than 1 (whose
  trip count is known only once it has run), runs its first ``K`` iterations stored;
  if it goes on, it runs on
  unsaved with a snapshot every ``K`` iterations, the spacing doubling after every
  ``c // 64`` snapshots, so their number grows with the logarithm of the trip count;
  each stretch between two snapshots is reversed with revolve.

Half the budget goes to one unit's saves and half to snapshots (a while loop's
first stored unit takes a quarter of it, and the unit being reversed another).

A gradient is first built *lazily*: each such loop stored, behind a test of the
same bound (a ``for`` loop's trip count on entry, a while loop's count as it runs)
that stops the run when it fails (`runtime.checkpoint.needs_checkpointing`). Only
then is the checkpointed form built, and the call made again with it, so a program
whose loops are short pays nothing for the forms it never needs (its first call
included). `is_lazy` tells such a program apart. A program that prints, logs, draws
random numbers, reads a clock or calls a method (`shows_twice`) is built whole at
once instead: running its forward sweep again would show.

Recomputation runs the same code on the same values, so the gradient is the stored
one bit for bit. It is done on the IR, so the Python path and the scalar engine both
run it unchanged.
"""
from __future__ import annotations

import contextvars
import math

from ....core import ir
from ....core.ir import For, Op, While
from ....core.late import LateModule
from ....runtime import checkpoint as rt
from . import revolve
from .scope import DefaultBudget, applies, shows_twice

# (the checkpointing of while loops, and of for loops with a break or a step: loaded
# with the first such loop a budget checkpoints)
online = LateModule(__name__ + ".online")

__all__ = ["DEFAULT_MEMORY", "INLINED", "parse_memory", "applies", "forward", "reverse",
           "rewritten", "is_lazy", "shows_twice"]

# 256 MB: a fixed size, so a program gets the same schedule on every machine; a loop
# whose saves fit in half of it (about 10^7 steps of a scalar recurrence) runs stored
# as before, and a 10^8-step one grows by about 130 MB instead of 2.7 GB.
DEFAULT_MEMORY = DefaultBudget(256 * 1000 ** 2)

# ``(budget,)`` while ``revsrc.jit(f, memory=...)`` compiles ``f``: the budget of the
# derivatives ``f`` calls that were made without their own ``memory=``
INLINED = contextvars.ContextVar("revsrc_inlined_memory", default=None)


def parse_memory(memory):
    """The budget from ``memory=``: `DEFAULT_MEMORY` for None, None (no bound) for
    ``math.inf``, else a byte count from an int or a string like "32MB" or "1.5 GiB"."""
    if memory is None:
        return DEFAULT_MEMORY
    bad = ValueError(f"memory must be a byte count or a string like '32MB', "
                     f"not {memory!r}")
    if isinstance(memory, bool):
        raise bad
    if isinstance(memory, (int, float)):
        value = memory
    elif isinstance(memory, str):
        text = memory.strip().upper().replace(" ", "")
        units = {"KIB": 1024, "MIB": 1024 ** 2, "GIB": 1024 ** 3, "KB": 1000,
                 "MB": 1000 ** 2, "GB": 1000 ** 3, "K": 1000, "M": 1000 ** 2,
                 "G": 1000 ** 3, "B": 1}
        scale = 1
        for unit, size in units.items():
            if text.endswith(unit):
                text, scale = text[:-len(unit)], size
                break
        try:
            value = float(text) * scale
        except ValueError:
            raise bad from None
    else:
        raise bad
    if value == math.inf:
        return None
    if not value >= 1:
        raise ValueError(f"memory must be at least one byte, not {memory!r}")
    return int(value)


def forward(plan, s, site, saving, stored, scope):
    """The forward sweep of loop ``s`` (``stored``: its stored forward sweep). A lazy
    plan gets the stored loop behind the bound's test, and no checkpointed reverse
    sweep (the stored one is its reverse)."""
    if getattr(plan, "lazy", False):
        make = online.lazy_forward if scope.online else revolve.lazy_forward
        return make(plan, s, saving, stored, scope)
    make = online.forward if scope.online else revolve.forward
    out = make(plan, s, saving, stored, scope)
    plan.checkpointed[site] = (s, saving, scope)
    return out


def reverse(plan, site, body, stored):
    """The reverse sweep of the checkpointed loop at ``site``, ``body`` its resolved
    adjoint body and ``stored`` the reverse sweep of its stored form."""
    s, saving, scope = plan.checkpointed[site]
    make = online.reverse if scope.online else revolve.reverse
    return make(plan, s, saving, scope, body, stored)


def rewritten(plan):
    """Variables the reverse sweep's recomputation assigns again."""
    found = set()
    for s, saving, scope in plan.checkpointed.values():
        test = s.test_body if isinstance(s, While) else []
        for st in ir.walk(saving + s.body + test):
            found.update(ir.writes(st))
        found.update(scope.snap)
        if isinstance(s, For):
            found.add(s.var)
    return found


def is_lazy(program):
    """Whether ``program`` was built lazily and has a loop that may stop its run."""
    return any(isinstance(st, Op) and st.fn is rt.needs_checkpointing
               for st in ir.walk(program.body))
