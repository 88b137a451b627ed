"""Which variables hold real values on every path, from the arguments' dtypes.

A function piecewise constant on real numbers (np.sign: ``flat_on_reals``) has no
derivative there, and rules only for complex inputs. The analysis leaves it
unvaried where its operand is known real, so a derivative of code on real arrays
(a Hessian through np.abs, whose rule reads np.sign) does not carry its zero
derivative along. Known real: a parameter whose argument is a real number or a real
array, and what operations that keep values real compute from known real values
alone, at every assignment. Anything else is not known real (the rules then run,
and give 0 on real values at run time), so a mistake here can only cost time.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import runtime
from ..core import ir, kinds as kinds_mod
from ..core.ir import Const, Op, Pop, Push, SetItem
from ..runtime import tensor
from ..runtime.grads import elementwise as _elementwise

# real operands give a real result (not ``**``: (-8.0) ** (1 / 3) is complex in Python)
_KEEPS_REAL = frozenset([operator.add, operator.sub, operator.mul, operator.truediv,
                         operator.neg, operator.pos, operator.getitem, ir.copy, np.sum,
                         tensor.unbroadcast, runtime.unbroadcast, runtime.finalize_grad])
# a real result whatever the operand
_ALWAYS_REAL = frozenset([_elementwise.real_grad, np.real, np.imag, np.absolute, np.angle])


def _real_signature(sig):
    if sig in (kinds_mod.FLOAT, kinds_mod.INT, kinds_mod.BOOL):
        return True
    return isinstance(sig, tuple) and len(sig) == 3 and sig[0] == kinds_mod.ARRAY \
        and isinstance(sig[2], np.dtype) and sig[2].kind in "biuf"


def real_constant(value):
    """Whether a constant operand is a real number or a real array."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf"
    return isinstance(value, (bool, int, float, np.integer, np.floating))


def _operand_real(a, real):
    return a in real if isinstance(a, str) else real_constant(a.value)


def _op_real(s, real):
    fn = s.fn
    try:
        if fn in _ALWAYS_REAL:
            return True
        keeps = fn in _KEEPS_REAL or (isinstance(fn, np.ufunc) and not s.kwargs)
    except TypeError:     # an unhashable callable
        return False
    return keeps and all(_operand_real(a, real) for a in s.args) and \
        all(_operand_real(v, real) for _, v in s.kwargs)


def real_variables(params, flat_key, body):
    """The variables of ``body`` known to hold real values (see the module)."""
    stmts = list(ir.walk(body))
    real = {p for p, sig in zip(params, flat_key) if _real_signature(sig)}
    unreal = set(params) - real
    real |= {s.target for s in stmts if isinstance(s, (Op, Pop)) and s.target is not None
             and s.target not in unreal}
    changed = True
    while changed:
        changed = False
        pushed = {}     # stack -> whether every value pushed on it is real
        for s in stmts:
            if isinstance(s, Push):
                pushed[s.stack] = pushed.get(s.stack, True) and _operand_real(s.value, real)
        for s in stmts:
            if isinstance(s, Op):
                ok = s.target is None or _op_real(s, real)
            elif isinstance(s, SetItem):
                ok = _operand_real(s.value, real)
            elif isinstance(s, Pop):
                ok = pushed.get(s.stack, False)
            else:
                continue
            if not ok and s.target in real:
                real.discard(s.target)
                changed = True
    return real


def maybe_complex(params, flat_key, body):
    """The variables of ``body`` that may hold complex values: from a parameter whose
    argument is not a real number or real array, or a complex constant, through any
    operation but those whose result is always real. A number computed from real
    values alone is real whatever its function; one reduced from a complex array
    (``np.sum(np.exp(1j * phi))``) is not, though its kind is a number's."""
    stmts = list(ir.walk(body))
    found = {p for p, sig in zip(params, flat_key) if not _real_signature(sig)}

    def complex_operand(a):
        return a in found if isinstance(a, str) else \
            isinstance(a.value, (complex, np.complexfloating)) or \
            (isinstance(a.value, np.ndarray) and a.value.dtype.kind == "c")

    changed = True
    while changed:
        changed = False
        stacks = {s.stack for s in stmts if isinstance(s, Push) and complex_operand(s.value)}
        for s in stmts:
            if isinstance(s, Op) and s.target is not None:
                try:
                    always = s.fn in _ALWAYS_REAL
                except TypeError:     # an unhashable callable
                    always = False
                hit = not always and (any(complex_operand(a) for a in s.args) or
                                      any(complex_operand(v) for _, v in s.kwargs))
            elif isinstance(s, SetItem):
                hit = complex_operand(s.value)
            elif isinstance(s, Pop):
                hit = s.stack in stacks
            else:
                continue
            if hit and s.target not in found:
                found.add(s.target)
                changed = True
    return found

