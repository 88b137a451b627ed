"""Python's and NumPy's value rules the printed ``backend="jax"`` program keeps where a
trace would lose them (revsrc/backends/jax/printer.py prints calls of these): an int
past 64 bits beside a float, converted as Python converts it, and a 0-d array the
function made, which a trace would take for a number."""
from __future__ import annotations

import numpy as np

__all__ = ["ARRAY_MAKERS", "MIXED", "array_dtype_of_array", "wide_int"]

# NumPy functions that always return a new ndarray, of any rank (0-d included)
ARRAY_MAKERS = frozenset({np.array, np.zeros, np.ones, np.full, np.empty, np.zeros_like,
                           np.ones_like, np.full_like, np.empty_like, np.copy})


def array_dtype_of_array(x):
    """``inplace.array_dtype`` of a value revsrc knows to be an array when transforming,
    whatever its rank (a 0-d ``np.array(3)`` traces like a number): its dtype as a 0-d
    zero, so that ``y += 1.5`` on it raises as NumPy's in-place operator does."""
    return np.zeros((), np.dtype(getattr(x, "dtype", np.float64)))


def wide_int(v):
    """``v`` as Python's mixed arithmetic takes it beside a float: an int past 64 bits
    (a factorial, a power of 3 in an unrolled loop) as the float Python converts it to
    (JAX would refuse to parse it); any other value as it is."""
    if type(v) is int and not -2 ** 63 <= v < 2 ** 63:
        return float(v)
    return v


# arithmetic records whose int operand Python converts to float beside a float one
MIXED = frozenset({"add", "sub", "mul", "truediv", "pow"})
