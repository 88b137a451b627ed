"""The stacks a derivative program saves values on, and the rewrites of the forward
program that come before the reverse pass plans it.

Saved values go on a float stack, an int stack (ints and bools) or an object stack.
A program made by revsrc already has stacks of its own: differentiating it again
moves them one level up (`shift_stacks`), so level 0 belongs to the new program,
and gives each an adjoint stack (`adjoint_stack`) along which the adjoints of its
values travel back. In loops, a primitive's companion (cos beside an active sin) is
computed in the forward sweep (`add_companions`), so the adjoint pops it instead of
calling libm again.
"""
from __future__ import annotations

from ... import primitives
from ...core import ir, kinds
from ...core.ir import For, Op, Pop, Push, While
from .. import analysis

STACK_OF = {kinds.FLOAT: "f", kinds.INT: "i", kinds.BOOL: "i"}
STACK_KIND = {"f": kinds.FLOAT, "i": kinds.INT, "o": kinds.ANY}


def adjoint_stack(stack):
    """Where the adjoints of the values on ``stack`` travel (same kind of stack)."""
    return stack + "b"


def _shifted(stack):
    """``stack`` one level up: "f" -> "f1", "f1" -> "f2", "o1b" -> "o2b"."""
    kind, rest = stack[0], stack[1:]
    digits = len(rest) - len(rest.lstrip("0123456789"))
    level = int(rest[:digits]) if digits else 0
    return f"{kind}{level + 1}{rest[digits:]}"


def shift_stacks(stmts):
    """``stmts`` with every stack of theirs one level up, leaving level 0 (the plain
    "f", "i", "o") to the transformation being applied to them."""
    out = []
    for s in stmts:
        if isinstance(s, Push):
            s = Push(s.value, _shifted(s.stack))
        elif isinstance(s, Pop):
            s = Pop(s.target, _shifted(s.stack))
        out.append(ir.map_children(s, shift_stacks))   # an inlined adjoint in a test too
    return out


def shift_stack_var(v):
    prefix = analysis.stack_var("")
    return analysis.stack_var(_shifted(v[len(prefix):])) if v.startswith(prefix) else v


def add_companions(stmts, names, kinds_, active, depth, found):
    """In loops, compute a primitive's *companion* (its record's: cos(x) beside an
    active math.sin(x)) in the forward sweep, so the adjoint pops it instead of
    calling libm again: the engine makes the pair one sincos() call. ``found`` maps
    id(the primitive's Op) to (companion function, argument, companion variable)."""
    out = []
    for s in stmts:
        other = _companion(s.fn) if isinstance(s, Op) else None
        if other is not None and depth > 0 and s.target in active \
                and len(s.args) == 1 and isinstance(s.args[0], str) and not s.kwargs \
                and kinds_.get(s.target) == "float" and kinds_.get(s.args[0]) == "float":
            name = names.temp()
            kinds_[name] = "float"
            out.append(Op(name, other, s.args, (), s.loc))
            found[id(s)] = (other, s.args[0], name)  # the statements live as long
        else:
            inner = depth + (1 if isinstance(s, (For, While)) else 0)
            # not a while's test body: its operations get no adjoint (a test that
            # computes a value the derivative needs is refused), so a companion
            # computed there would be computed for nothing
            s = ir.map_children(
                s, lambda b: add_companions(b, names, kinds_, active, inner, found),
                test_body=False)
        out.append(s)
    return out


def _companion(fn):
    prim = primitives.lookup(fn)
    return prim.alias(fn).companion if prim is not None else None
