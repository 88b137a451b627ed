"""What the adjoint helpers of every family share: coded refusals raised while an
adjoint runs, and the two decorators that give a helper's result the form of its
argument (one adjoint per item of a list, the real part for a real input)."""
from __future__ import annotations

import numpy as np

from ... import errors
from ..values import as_input, is_complex, per_item


def real_only(x, what):
    """Refuse complex values where a rule does not follow the complex convention (the
    transformation is to refuse them before; this keeps the number from being wrong)."""
    if is_complex(x):
        refuse(f"{what} of complex values has no derivative rule",
               "differentiate real inputs here (e.g. the real and imaginary parts apart)")


def refuse(message, hint):
    """A coded refusal (E202) raised by the adjoint at run time, for a variant of a
    primitive that has no derivative rule."""
    raise errors.NoRule(message, hint=hint)


def not_differentiable(message, hint):
    """A coded refusal (E304): the function has no derivative at these values."""
    raise errors.NotDifferentiableHere(message, hint=hint)


def items_of(position):
    """Decorate a helper whose argument at ``position`` may be a list: its adjoint comes
    back one item at a time (see `per_item`)."""
    def wrap(fn):
        def helper(*args):
            return per_item(fn(*args), args[position])
        helper.__module__ = fn.__module__   # generated code names it by fn's module
        helper.__name__ = fn.__name__
        helper.__qualname__ = fn.__qualname__
        helper.__doc__ = fn.__doc__
        return helper
    return wrap


def adjoint_of(position):
    """Decorate a helper that returns the adjoint of its argument at ``position``: a real
    argument gets the real part (its product with a complex operand is complex)."""
    def wrap(fn):
        def helper(*args):
            out = fn(*args)
            if type(out) is np.ndarray and out.dtype.kind == "f":
                return out   # the common case: a real array (one check, in loops too)
            return as_input(out, args[position])
        helper.__module__ = fn.__module__   # generated code names it by fn's module
        helper.__name__ = fn.__name__
        helper.__qualname__ = fn.__qualname__
        helper.__doc__ = fn.__doc__
        return helper
    return wrap
