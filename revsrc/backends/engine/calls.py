"""What each IR call lowers to on the scalar engine (revsrc/backends/engine/lower.py).

A primitive's record names its engine lowering (``primitives.Lower``: one of
`_LOWERINGS`); a NumPy ufunc on floats needs none: it runs through NumPy's own float64
loop. `rule_for` finds the one for a function, `is_numpy` says whether a call's result
is a NumPy scalar (whose arithmetic is NumPy's, not Python's), and `NotLowerable` is
how the lowering says that the engine cannot run a program exactly.
"""
from __future__ import annotations

import numpy as np

from ... import _engine_ops as ops
from ... import primitives
from ... import runtime
from ...core import ir
from ..._kernels import ufunc_slot

__all__ = ["NotLowerable", "SLOT_NAMES", "fn_name", "intlike", "is_numpy", "rule_for"]

FORMAT = ops.FORMAT
_MATH1 = ops.MATH1_INDEX

class NotLowerable(Exception):
    """The program uses something the scalar engine cannot run exactly; ``loc`` is the
    user's line of the statement that does (when known)."""

    def __init__(self, message, loc=None, hint=None):
        super().__init__(message)
        self.loc = loc
        self.hint = hint


# ----- What each IR function lowers to -----
# A lowering rule takes (lowering, target, args, arg_kinds) and emits instructions.
# Kinds are 'b', 'i', 'f'; "intlike" is 'b' or 'i' (bools compute as ints).


def intlike(kinds):
    return all(k in "bi" for k in kinds)


def _op(lw, target, args, kinds, float_op, int_op=None):
    """One instruction over every argument; ``int_op`` when all are ints or bools."""
    op = int_op if int_op and intlike(kinds) else float_op
    if op == "MOV" and args[0] == target:
        return
    lw.nargs(args, len(FORMAT[op]) - 1)
    lw.emit(op, lw.w(target), *[lw.r(a) for a in args])


def _math1(lw, target, args, kinds, name):
    lw.nargs(args, 1)
    lw.emit("MATH1", lw.w(target), lw.r(args[0]), _MATH1[name])


def _minmax(lw, target, args, kinds, op):
    if len(args) < 2:
        raise NotLowerable(f"{op.lower()}() of one iterable argument")
    if len(args) == 2:
        lw.emit(op, lw.w(target), lw.r(args[0]), lw.r(args[1]))
    else:
        acc = lw.hidden(f"{op.lower()}")
        lw.emit(op, acc, lw.r(args[0]), lw.r(args[1]))
        for a in args[2:]:
            lw.emit(op, acc, acc, lw.r(a))
        lw.emit("MOV", lw.w(target), acc)
    _winner_type(lw, target, args, kinds)


def _minmax_tied(lw, target, args, kinds, op):
    # runtime.arith.max_tied/min_tied: max or min of the first two (the third counts ties)
    lw.nargs(args, 3)
    _minmax(lw, target, args[:2], kinds[:2], op)


def _ties(lw, target, args, kinds, beyond_op):
    # runtime.arith.max_ties/min_ties: 1 where y is beyond x, ties + 1 where equal, else ties
    lw.nargs(args, 3)
    x, y, ties = (lw.r(a) for a in args)
    beyond, same = lw.hidden("beyond"), lw.hidden("same")
    lw.emit(beyond_op, beyond, y, x)
    lw.emit("EQ", same, y, x)
    lw.emit("ADD", same, ties, same)
    lw.emit("SELECT", lw.w(target), beyond, lw.r(ir.Const(1.0)), same)


def _winner_type(lw, target, args, kinds):
    """max and min return the operand they select, with its type: max(7, 2.5) is the
    int 7, where the engine holds a float. Where an operand of another kind than the
    result's equals the result, it may be the one selected: the call runs in Python
    (RAISE FALLBACK), which gives the operand itself."""
    own = lw.kinds.get(target)
    for a, k in zip(args, kinds):
        if k == own:
            continue
        same = lw.hidden("selected")
        ok = lw.label()
        lw.emit("EQ", same, lw.r(a), lw.r(target))
        lw.emit("JZ", same, ok)
        lw.emit("RAISE", ops.ERROR["FALLBACK"])
        lw.place(ok)


def _to_int(lw, target, args, kinds, float_op):
    # int(), round(), math.floor/ceil/trunc: identity on ints, else float -> int
    lw.nargs(args, 1)
    if intlike(kinds):
        if args[0] != target:
            lw.emit("MOV", lw.w(target), lw.r(args[0]))
    else:
        lw.emit(float_op, lw.w(target), lw.r(args[0]))


def _truth(lw, target, args, kinds):
    lw.nargs(args, 1)
    if kinds[0] == "b":
        if args[0] != target:
            lw.emit("MOV", lw.w(target), lw.r(args[0]))
    else:
        lw.emit("TRUTH", lw.w(target), lw.r(args[0]))


def _scale(lw, target, args, kinds, factor):
    # math.degrees and math.radians: one multiplication by CPython's own constant
    lw.nargs(args, 1)
    lw.emit("MUL", lw.w(target), lw.r(args[0]), lw.r(ir.Const(factor)))


def _first(lw, target, args, kinds):
    # runtime.finalize_grad on numbers: its first argument (the second gives its form)
    if args[0] != target:
        lw.emit("MOV", lw.w(target), lw.r(args[0]))


def _log(lw, target, args, kinds):
    if len(args) == 1:
        lw.emit("LOG", lw.w(target), lw.r(args[0]))
    else:
        lw.nargs(args, 2)
        lw.emit("LOGB", lw.w(target), lw.r(args[0]), lw.r(args[1]))


def _hypot(lw, target, args, kinds):
    if len(args) != 2:
        raise NotLowerable("math.hypot with other than two coordinates")
    lw.emit("HYPOT", lw.w(target), lw.r(args[0]), lw.r(args[1]))


def _check_assert(lw, target, args, kinds):
    lw.nargs(args, 2)
    if not isinstance(args[1], ir.Const):
        raise NotLowerable("an assert message computed at run time")
    lw.messages.append(args[1].value)
    lw.emit("ASSERT", lw.r(args[0]), len(lw.messages) - 1)


def _unpack_check(lw, target, args, kinds):
    """containers.check_unpack on a sequence the engine would have to read: not lowered
    (the Python path checks it); a tuple of known length has no check left (cse)."""
    raise NotLowerable("unpacking a sequence whose length is known only at run time")


def _factorial(lw, target, args, kinds):
    """math.factorial(n): 2 * 3 * ... * n in ints (IMUL defers to Python past 2**53);
    a negative n (ValueError) or a float (TypeError) defers to Python, which raises."""
    lw.nargs(args, 1)
    if not intlike(kinds):
        lw.emit("RAISE", ops.ERROR["FALLBACK"])
        return
    n, one = lw.r(args[0]), lw.r(ir.Const(1))
    negative, ok = lw.hidden("negative"), lw.label()
    lw.emit("LT", negative, n, lw.r(ir.Const(0)))
    lw.emit("JZ", negative, ok)
    lw.emit("RAISE", ops.ERROR["FALLBACK"])
    lw.place(ok)
    product, k, stop = lw.hidden("factorial"), lw.hidden("k"), lw.hidden("stop")
    top, end = lw.label(), lw.label()
    lw.emit("MOV", product, one)
    lw.emit("IADD", stop, n, one)
    lw.emit("FORPREPUP", k, lw.r(ir.Const(2)), stop, one, end)
    lw.place(top)
    lw.emit("IMUL", product, product, k)
    lw.emit("FORUP", k, stop, one, top)
    lw.place(end)
    lw.emit("MOV", lw.w(target), product)


# A record's engine spec (primitives.Lower) names one of these.
_LOWERINGS = {"op": _op, "math1": _math1, "minmax": _minmax, "minmax_tied": _minmax_tied,
              "ties": _ties, "to_int": _to_int,
              "truth": _truth, "log": _log, "hypot": _hypot, "assert": _check_assert,
              "unpack": _unpack_check, "scale": _scale, "first": _first,
              "factorial": _factorial}


# ----- NumPy functions on scalars -----
# Every NumPy ufunc that maps one or two float64 values to one runs through NumPy's
# own inner loop for float64 (see _engine.pxi): the engine needs no instruction per
# function and gives NumPy's digits on every CPU, SIMD or not.

# engine slot -> ufunc name, filled as lowering meets ufuncs: disassembly and the
# native tier's comments name a program's NumPy loops by it
SLOT_NAMES = {}
_UFUNC_KINDS = {}         # (ufunc, argument kinds) -> True when NumPy computes in float64
_SAMPLE = {"i": 3, "f": 0.5}


def _computes_in_float64(fn, kinds):
    """Whether NumPy evaluates ``fn`` on Python values of these kinds in float64
    (ints may select an integer loop: np.square(3) is an int64)."""
    key = (fn, kinds)
    hit = _UFUNC_KINDS.get(key)
    if hit is None:
        with np.errstate(all="ignore"):
            try:
                out = fn(*[_SAMPLE[k] for k in kinds])
            except (TypeError, ValueError):
                out = None
        hit = _UFUNC_KINDS[key] = type(out) is np.float64
    return hit


def _ufunc_rule(fn):
    try:
        slot = ufunc_slot(fn)
    except ValueError:
        return None
    SLOT_NAMES[slot] = fn.__name__
    op = "NPU1" if fn.nin == 1 else "NPU2"

    def rule(lw, target, args, kinds):
        lw.nargs(args, fn.nin)
        if "b" in kinds:
            raise NotLowerable(f"numpy.{fn.__name__} of a bool (NumPy computes it in "
                               f"another precision)")
        if not _computes_in_float64(fn, "".join(kinds)):
            raise NotLowerable(f"numpy.{fn.__name__} of ints (NumPy computes it in int64)")
        lw.emit(op, lw.w(target), *[lw.r(a) for a in args], slot)
    return rule


_NP_RULES = {}


def rule_for(fn):
    """The lowering of a call to ``fn``, from its primitive record; None if none."""
    prim = primitives.lookup(fn)
    if prim is None:
        return None
    spec = prim.alias(fn).engine
    if spec is not None:
        lowering = _LOWERINGS[spec.how]
        return lambda lw, target, args, kinds: lowering(lw, target, args, kinds, *spec.args)
    if isinstance(fn, np.ufunc):
        rule = _NP_RULES.get(fn)
        if rule is None:
            rule = _NP_RULES[fn] = _ufunc_rule(fn)
        return rule
    return None


def is_numpy(fn):
    """Whether ``fn`` is NumPy's (a ufunc, np.float64, ...): on scalars it returns a
    NumPy scalar, whose arithmetic is NumPy's."""
    if isinstance(fn, (np.ufunc, type)) and issubclass(type(fn) if isinstance(fn, np.ufunc)
                                                      else fn, (np.ufunc, np.generic)):
        return True
    mod = getattr(fn, "__module__", None) or ""
    return mod == "numpy" or mod.startswith("numpy.")


def fn_name(fn):
    if runtime.is_helper(fn):       # what the user wrote, not revsrc's internals
        return runtime.described(fn)
    mod = getattr(fn, "__module__", None) or type(fn).__module__
    return f"{mod}.{getattr(fn, '__name__', repr(fn))}"
