"""Small-array loops: an adjoint loop's branches on liveness flags, resolved before the
tier plans the loop (revsrc/backends/smallarr.py).

Why: the reverse sweep writes ``if P_bar_live: ... else: P_bar = zeros`` where a flag
says whether an adjoint holds a value yet. The flags are Python bools the body sets to
constants (``P_bar_live = True``): False before the loop's first iteration, True after
it. The tier runs straight-line code, so the branches are resolved by carrying the
flags' constants through the body: the first iteration from the flags' values before
the loop (the constants the same block assigns them last), every later one from what
the first leaves, which must be what each later one leaves too (a fixed point). The
tier runs the first body once, then the other (`Resolved`). Where the values before the
loop are not known (a unit of a checkpointed loop), the fixed point alone is assumed.
Either way the flags the first iteration reads are checked at run time, and Python
runs the loop when they differ. A flag tested where its value is not known, read as a
value, or assigned anything but a constant, and the loop is not taken: nothing the
Python path computes changes.
"""
from __future__ import annotations

from ..core import ir
from ..core.record import record

__all__ = ["Resolved", "resolve"]


@record
class Resolved:
    first: object   # the first iteration's statements; None: the same as ``body``
    body: list      # every later iteration's statements
    entry: tuple    # (flag, value) the first iteration reads before assigning it
    final: tuple    # (flag, value) after the loop (two iterations or more)

    def __init__(self, first, body, entry, final):
        self.first = first
        self.body = body
        self.entry = entry
        self.final = final


def _constant(s):
    """The bool a statement assigns as a constant (``flag = True``), else None."""
    if isinstance(s, ir.Op) and s.fn is ir.copy and len(s.args) == 1 and \
            isinstance(s.args[0], ir.Const) and type(s.args[0].value) is bool:
        return s.args[0].value
    return None


def _flatten(stmts, env, assigned, flags, out, read):
    """Append to ``out`` the statements ``stmts`` runs with the flags ``env`` holds
    (updated as they are assigned, in ``assigned``); ``read`` gets the flags tested
    before this iteration assigned them. False where that is not known."""
    for s in stmts:
        if isinstance(s, ir.If):
            if not isinstance(s.test, str) or s.test not in env:
                return False
            if s.test not in assigned:
                read.setdefault(s.test, env[s.test])
            if not _flatten(s.body if env[s.test] else s.orelse, env, assigned, flags,
                            out, read):
                return False
        elif isinstance(s, ir.Op) and s.target in flags:
            value = _constant(s)
            if value is None:
                return False
            env[s.target] = value
            assigned.add(s.target)
        elif ir.children(s):
            return False
        else:
            if any(n in flags for n in ir.reads(s)) or any(n in flags for n in ir.writes(s)):
                return False
            out.append(s)
    return True


def _run(body, start, flags):
    """(the statements, the flags after, the flags read first, the flags assigned) of
    one iteration that starts with the flags ``start``; None where a branch is not
    resolved."""
    env = dict(start)
    out, read, assigned = [], {}, set()
    if not _flatten(body, env, assigned, flags, out, read):
        return None
    return out, env, read, assigned


def _before(stmts, flags):
    """The flags' values the statements before the loop (its block's) leave: those
    assigned a constant last at its top level, and not in a nested block after."""
    known, gone = {}, set()
    for s in reversed(stmts):
        for w in (n for t in ir.walk([s]) for n in ir.writes(t)):
            if w in flags and w not in known and w not in gone:
                value = _constant(s)
                if value is None:
                    gone.add(w)
                else:
                    known[w] = value
    return known


def _steady(run, start):
    """Whether an iteration starting from ``start``'s flags, ``run`` = (statements,
    flags after, flags read), leaves the flags it read as it found them: every later
    iteration then runs the same statements."""
    return all(run[1].get(f) == v for f, v in run[2].items()) and \
        all(start.get(f) == v for f, v in run[2].items())


def resolve(loop, before=()):
    """None when ``loop``'s body has no branch (taken as it is); False when its
    branches cannot be resolved; else the `Resolved` bodies."""
    if not any(isinstance(s, ir.If) for s in loop.body):
        return None
    flags = {s.target for s in ir.walk(loop.body) if _constant(s) is not None}
    if not flags:
        return False
    first = _run(loop.body, _before(before, flags), flags)
    if first is None:
        # not known before the loop: what the body's own top-level constants
        # suggest, if it is a fixed point
        guess = {s.target: _constant(s) for s in loop.body if _constant(s) is not None}
        first = _run(loop.body, guess, flags)
        if first is None or not _steady(first, guess):
            return False
        return Resolved(None, first[0], tuple(sorted(first[2].items())),
                        tuple(sorted((f, first[1][f]) for f in first[3])))
    body0, after, read0, assigned0 = first
    later = _run(loop.body, after, flags)
    if later is None or not _steady(later, after):
        return False
    body1, final, _, assigned1 = later
    same = len(body0) == len(body1) and all(a is b for a, b in zip(body0, body1))
    # (the flags after the loop: those it assigns; the others keep their values)
    return Resolved(None if same else body0, body1, tuple(sorted(read0.items())),
                    tuple(sorted((f, final[f]) for f in assigned0 | assigned1)))
