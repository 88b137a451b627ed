"""Two functions the front end writes into programs for what is not a function call
in the user's code: ``x.astype(dtype)`` (a method, keyed in the rule table as the
function `astype`) and `stop_gradient` (revsrc's own, public as
``revsrc.stop_gradient``). Their records are in revsrc/rules/arith.py."""
from __future__ import annotations

from typing import TypeVar

import numpy as np


def astype(x, dtype, copy=True):
    """``x.astype(dtype, copy=copy)`` as a function the rule table can key on (with
    ``copy=False`` it may return ``x`` itself: revsrc/passes/views.py follows it as a
    view)."""
    return np.asarray(x).astype(dtype, copy=copy)


def conj_method(x):
    """``x.conj()`` (and ``x.conjugate()``) as a function the rule table can key on: NumPy's
    method returns an array that is not complex itself, not a copy, so a write through the
    result reaches ``x`` (revsrc/passes/views.py follows it as a view)."""
    if isinstance(x, np.ndarray) and x.dtype.kind != "c":
        return x
    return np.conjugate(x)


_T = TypeVar("_T")


def stop_gradient(x: _T) -> _T:
    """``x``, as a value that carries no derivative: its gradient (and tangent) is
    zero, on every path (the generated Python, the scalar engine, forward mode).

    >>> import revsrc
    >>> def f(x):
    ...     return x * revsrc.stop_gradient(x)
    >>> revsrc.grad(f)(3.0)
    3.0
    """
    return x


# public as revsrc.stop_gradient: its help and the generated code name it so
stop_gradient.__module__ = "revsrc"
