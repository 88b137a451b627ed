"""Global lists, tuples and dicts of numbers, read as constants by ``revsrc.jit``.

The engine computes on numbers: a global ``COEFS = [1.0, 2.0]`` or ``CFG = {"k": 2.0}``
that a jitted function reads cannot be a value of its program. While ``FOLD`` is set
(`revsrc.jit` and `revsrc.vmap` compiling a function), such a global whose items are
Python floats, ints and bools (at most `LIMIT` of them; a dict's keys strings, ints or
bools) is taken as the container of those constants, as a literal written in the
function would be: ``sum(c * x ** i for i, c in enumerate(COEFS))`` is unrolled,
``CFG["k"]`` is the number. The program is then right while the name holds that very
container with those very items, which its guards check on every call (in C: the
items compared by identity, revsrc/_guards.pxi): the
name rebound, an item assigned, appended or removed, a key added, and the program is
made anew from the new items, as Python would read them.
"""
from __future__ import annotations

import contextvars

from ..._kernels import CONTENTS
from ...core.ir import Const
from .values import VDict, vtuple

__all__ = ["FOLD", "LIMIT", "folded"]

FOLD = contextvars.ContextVar("revsrc_fold_numbers", default=False)

# beyond this many items a container is not unrolled into the program
LIMIT = 256

_NUMBERS = (float, int, bool)
_KEYS = (str, int, bool)


def _snapshot(container):
    """What the guard on ``container``'s items compares (`_kernels.CONTENTS`)."""
    return tuple(container.items()) if type(container) is dict else tuple(container)


def folded(holder, name, value):
    """(static value, guards) for the global ``name`` of ``holder`` holding ``value``,
    if it is a container of numbers `FOLD` takes as constants; else None."""
    if not FOLD.get() or type(value) not in (list, tuple, dict) or len(value) > LIMIT:
        return None
    if type(value) is dict:
        if not all(type(k) in _KEYS and type(v) in _NUMBERS for k, v in value.items()):
            return None
        static = VDict(list(value), [Const(v) for v in value.values()])
    else:
        if not all(type(v) in _NUMBERS for v in value):
            return None
        static = vtuple([Const(v) for v in value], seq="list" if type(value) is list
                        else "tuple")
    guards = [(holder, name, value, None)]
    if type(value) is not tuple:         # a tuple's items never change
        guards.append((value, CONTENTS, _snapshot(value), None))
    return static, guards

