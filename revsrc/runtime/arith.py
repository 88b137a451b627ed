"""Functions the front end writes into programs for what is not a function call in
the user's code: ``x.astype(dtype)`` (a method, keyed in the rule table as the
function `astype`), the steps of ``max(a, b, c, ...)`` and ``min(...)`` (`max_tied`),
and `stop_gradient` (revsrc's own, public as ``revsrc.stop_gradient``). Their records
are in revsrc/rules/arith.py."""
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


# ``max(a, b, c, ...)`` (and min) of items written out: the front end folds them two at
# a time, from the third on with these, which carry how many of the items before equal
# the greatest so far, so that the rule (revsrc/rules/arith.py) splits a tie equally
# among all the tied items (1/3 each for three), as the two-argument rule splits it
# in halves, np.max among equal elements and JAX likewise.

def max_tied(x, y, ties):
    """``max(x, y)``, where ``x`` is the greatest of the items before ``y`` and
    ``ties`` of those equal it."""
    return max(x, y)


def min_tied(x, y, ties):
    """``min(x, y)``, where ``x`` is the least of the items before ``y`` and ``ties``
    of those equal it."""
    return min(x, y)


def max_ties(x, y, ties):
    """How many of the items up to ``y`` equal ``max(x, y)`` (``x``, ``ties``: as for
    `max_tied`): 1 when ``y`` is greater, one more when it is equal, else ``ties``
    (also when either is NaN: max keeps ``x``)."""
    if y > x:
        return 1.0
    return ties + 1.0 if y == x else ties


def min_ties(x, y, ties):
    """`max_ties` for ``min``: 1 when ``y`` is less, one more when equal, else ``ties``."""
    if y < x:
        return 1.0
    return ties + 1.0 if y == x else ties


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
