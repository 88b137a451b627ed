"""What a variable holds, in one encoding shared by every stage.

The transformation is specialized per argument kind: the analysis infers a kind for
every variable, the API keys its cache on the arguments' kinds, and the scalar engine
keeps one register per scalar, tagged with a one-letter code that the compiled side
reads (``CODE``). Arrays also carry their rank (``ndim``) where it is known.
"""
from __future__ import annotations

import types

import numpy as np

BOOL = "bool"
INT = "int"
FLOAT = "float"
ARRAY = "array"
TUPLE = "tuple"
LIST = "list"
DICT = "dict"
NONE = "none"
ANY = "any"

SCALARS = (BOOL, INT, FLOAT)

# Numeric promotion order: bool < int < float < array.
_ORDER = {BOOL: 0, INT: 1, FLOAT: 2, ARRAY: 3}

# The one-letter codes of scalar kinds: argument signatures, engine registers and the
# compiled engine's parameter and output kinds ('f', 'i', 'b' in _engine.pxi).
CODE = {FLOAT: "f", INT: "i", BOOL: "b"}
FROM_CODE = {c: k for k, c in CODE.items()}


def join(a, b):
    """The kind of a variable that holds ``a`` at one point and ``b`` at another."""
    if a == b:
        return a
    if a is None:
        return b
    if b is None:
        return a
    if a in _ORDER and b in _ORDER:
        return a if _ORDER[a] > _ORDER[b] else b
    return ANY


def promote(kinds):
    """The kind of an arithmetic result on operands of ``kinds`` (bool + bool is int)."""
    k = BOOL
    for x in kinds:
        k = join(k, x)
    return INT if k == BOOL else k


def of_value(v):
    """The kind of a Python value (NumPy scalars count as the Python scalar they hold)."""
    if isinstance(v, (bool, np.bool_)):
        return BOOL
    if isinstance(v, (int, np.integer)):
        return INT
    if isinstance(v, (float, np.floating)):
        return FLOAT
    if isinstance(v, np.ndarray):
        return ARRAY
    if isinstance(v, tuple):
        return TUPLE
    if isinstance(v, list):
        return LIST
    if isinstance(v, dict):
        return DICT
    if v is None:
        return NONE
    return ANY


_EXACT = {float: FLOAT, int: INT, bool: BOOL}

FUNCTION = "function"


class Function(tuple):
    """The signature of a function passed as an argument (``reduce=np.sum``): the
    function itself, so a program is made for each function and calls it by name.
    Compared by identity (two functions are never merely equal)."""

    def __new__(cls, fn):
        return super().__new__(cls, (FUNCTION, id(fn)))

    def __init__(self, fn):
        self.fn = fn


def _is_function(v):
    """A function, a builtin, a ufunc or a NumPy function: a value a program can call
    by name (bound methods, partials and callable objects are not)."""
    if isinstance(v, types.BuiltinFunctionType):
        return isinstance(v.__self__, types.ModuleType) or v.__self__ is None
    return isinstance(v, (types.FunctionType, np.ufunc)) \
        or type(v).__name__ == "_ArrayFunctionDispatcher"


SUBCLASS = "ndarray subclass"


def signature(v):
    """What a transformation for argument ``v`` depends on: its kind, plus rank and
    dtype for an array. Hashable; the cache key of a derivative is one per argument.
    An ndarray subclass (np.matrix, a masked array) has arithmetic of its own: it is
    marked as such, and refused."""
    k = _EXACT.get(type(v))
    if k is not None:
        return k
    if type(v) is np.ndarray:
        return (ARRAY, v.ndim, v.dtype)
    if isinstance(v, np.ndarray):
        return (SUBCLASS, type(v).__name__)
    if _is_function(v):
        return Function(v)
    return of_value(v) if isinstance(v, np.generic) else ANY


INT_VALUE = "="


def int_value(v):
    """The signature of an int argument a program is made for the value of (a
    recursion its value decides is unrolled for it): another value is another key,
    so a call with it transforms again. Its kind is `INT`."""
    return (INT, INT_VALUE, int(v))


def value_of_signature(sig):
    """The int an `int_value` signature was made for, else None."""
    if isinstance(sig, tuple) and len(sig) == 3 and sig[0] == INT and sig[1] == INT_VALUE:
        return sig[2]
    return None


def kind_of_signature(sig):
    return sig[0] if isinstance(sig, tuple) else sig


def ndim_of_signature(sig):
    return sig[1] if isinstance(sig, tuple) and sig[0] == ARRAY else None
