"""The placeholders of a ``backend="jax"`` program: the variables the reverse pass
saves before their first assignment start as None in the program revsrc writes (the
comment `PLACEHOLDERS` above them, revsrc/passes/reverse/forward.py). That None is no
value of the user's, so the printed program starts them as `loops.UNSET` instead: a lax
loop fills those with zeros of the loop's shapes, and only a None of the user's own is
None there (revsrc/backends/jax/carry.py, `fill`, refuses a traced loop over that one).

In a derivative of a derivative (hessian: forward over reverse) the run of placeholders
holds their tangents too, ``_t2 = zero_tangent(_t1); _t1_dot = _t2``: those are unset
with them, or the None after them would pass for the user's (E602 for a 32-step loop).
"""
from __future__ import annotations

from ...core import ir

__all__ = ["PLACEHOLDERS", "unset"]

PLACEHOLDERS = "saved before their first assignment"


def unset(program, unset_value):
    """``program`` with its placeholders (and their tangents) starting as
    ``unset_value`` (`loops.UNSET`)."""
    def fix(stmts):
        out, held = [], None    # held: name -> whether the run of placeholders unset it
        for s in stmts:
            if isinstance(s, ir.Comment) and s.text.startswith(PLACEHOLDERS):
                held = {}
            elif held is not None and _in_run(s, held):
                if _placeholder(s) or any(held.get(n) for n in ir.reads(s)):
                    held[s.target] = True
                    s = ir.Op(s.target, ir.copy, (ir.Const(unset_value),), loc=s.loc)
                else:
                    held[s.target] = False   # (0 and 0.0 start the typed stacks')
            else:
                held = None
            out.append(ir.map_children(s, fix))
        return out
    return ir.Program(program.name, program.params, fix(program.body), program.outputs,
                      program.kinds, forward_len=program.forward_len, names=program.names,
                      deps=program.deps)


def _placeholder(s):
    return s.fn is ir.copy and s.args == (ir.Const(None),)


def _in_run(s, held):
    """Whether ``s`` continues a run of placeholders that assigned ``held``: a constant
    copied, or an operation on what the run assigned only (a placeholder's tangent)."""
    if not isinstance(s, ir.Op) or s.target is None:
        return False
    if s.fn is ir.copy and len(s.args) == 1 and isinstance(s.args[0], ir.Const):
        return True
    names = ir.reads(s)
    return bool(names) and len(names) == len(s.args) + len(s.kwargs) and \
        all(n in held for n in names)
