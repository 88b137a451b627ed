"""IEEE arithmetic for derivative code on numbers.

A derivative can be infinite where its function is finite: d sqrt(x)/dx at 0,
d x**0.5/dx at 0. Python's float operators raise there (ZeroDivisionError,
ValueError: math domain error, OverflowError), NumPy's and C's give inf or nan, as
JAX does. The rules' derivative code on numbers calls these functions in place of
``/``, ``**``, math.log and np.where, so a derivative is a number wherever its
function has a value; the engine runs them as the instructions DIV_IEEE, POW_IEEE,
LOG_IEEE and SELECT. Where Python does not raise they are Python's own operations,
so the digits are Python's (and the engine's, which reproduces them).

    >>> div(1.0, 0.0), div(-1.0, 0.0), pow(0.0, -0.5), log(0.0)
    (inf, -inf, inf, -inf)
"""
from __future__ import annotations

import math

import numpy as np

_INF = float("inf")
_NAN = float("nan")


def div(a, b):
    """a / b, inf or nan for a zero ``b`` (IEEE), as NumPy's divide."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def pow(a, b):  # noqa: A001 (the name derivative code reads: _ieee.pow)
    """a ** b, with C's pow where Python raises or gives a complex: inf for 0 to a
    negative power or an overflow, nan for a negative number to a fractional one.
    A NumPy float64 is taken as the Python float it equals (the same C pow), so that
    a side a rule computes and then discards (``where(k == 0, 0.0, k * x ** (k - 1))``
    at x = 0) raises no NumPy warning the user's own program would not."""
    if type(a) is np.float64:
        a = float(a)
    try:
        out = a ** b
    except (ZeroDivisionError, OverflowError):
        with np.errstate(all="ignore"):
            return float(np.power(float(a), float(b)))
    if type(out) is complex:
        return _NAN
    return out


def log(x):
    """math.log(x), -inf at 0 and nan below it."""
    try:
        return math.log(x)
    except ValueError:
        return -_INF if x == 0 else _NAN


def where(condition, x, y):
    """``x`` if ``condition`` else ``y``: np.where on numbers (both already computed)."""
    return x if condition else y
