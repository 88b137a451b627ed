"""Operators on objects made in the function (`VRecord` of the user's class): ``-p``,
``+p``, ``~p`` and ``p + q``, ``2.0 * p``... call the special methods Python calls
(``__neg__``, ``__add__``, ``__rmul__``), inlined, in Python's order: the left
operand's method, then the right one's reflected method where the left gave
``NotImplemented`` or has none, a subclass's reflected method first.
"""
from __future__ import annotations

import inspect
import operator

from ... import errors
from ...core.ir import Const
from .values import STATIC_NODES, Known, VRecord, class_of

_UNARY = {operator.neg: ("__neg__", "-"), operator.pos: ("__pos__", "+"),
          operator.invert: ("__invert__", "~")}
_BINARY = {operator.add: ("add", "+"), operator.sub: ("sub", "-"),
           operator.mul: ("mul", "*"), operator.truediv: ("truediv", "/"),
           operator.floordiv: ("floordiv", "//"), operator.mod: ("mod", "%"),
           operator.pow: ("pow", "**"), operator.matmul: ("matmul", "@"),
           operator.and_: ("and", "&"), operator.or_: ("or", "|"),
           operator.xor: ("xor", "^"), operator.lshift: ("lshift", "<<"),
           operator.rshift: ("rshift", ">>")}
_NUMBERS = (bool, int, float, complex)


def made_object(v):
    """An object of the user's class made in the function."""
    return isinstance(v, VRecord) and v.td is None


def unary(lowerer, sc, fn, a, out, into, loc):
    """``-a``, ``+a``, ``~a`` for an object made in the function: its class's method
    inlined (Python's TypeError, coded, where it has none); None for another operand."""
    if fn not in _UNARY or not made_object(a):
        return None
    name, sign = _UNARY[fn]
    got = lowerer._dunder_call(sc, a, name, [], out, into, loc)
    if got is None:
        raise errors.StaticValueError(
            f"bad operand type for unary {sign}: '{class_of(a).__name__}'", loc=loc)
    return got


def binary(lowerer, sc, fn, a, b, out, into, loc):
    """``a op b`` where an operand is an object made in the function: the methods
    Python tries, in its order, inlined; the first that does not give
    ``NotImplemented`` is the value. None where neither operand is such an object."""
    if fn not in _BINARY or not (made_object(a) or made_object(b)):
        return None
    name, sign = _BINARY[fn]
    for obj, method, other in _tries(a, b, name):
        if method is None:
            raise _refused(obj, sign, loc)
        scratch = []
        got = lowerer._dunder_call(sc, obj, method, [other], scratch, None, loc)
        if got is None or _not_implemented(got):
            continue
        out.extend(scratch)
        if into is None:
            return got
        if isinstance(got, STATIC_NODES):
            got = lowerer._materialize(got, out, loc)
        return lowerer._expr_copy(got, into, out, loc)
    raise errors.StaticValueError(
        f"unsupported operand type(s) for {sign}: '{_type_name(a)}' and '{_type_name(b)}'",
        loc=loc)


def _tries(a, b, name):
    """(object, method name, other operand) in the order Python tries them; a method
    None where what runs next is not known when transforming (refused)."""
    left = (a, f"__{name}__", b) if made_object(a) else None
    right = (b, f"__r{name}__", a) if made_object(b) else None
    if left is not None and right is not None:
        ka, kb = class_of(a), class_of(b)
        if ka is kb:
            return [left]      # the same class: its reflected method is not tried
        if issubclass(kb, ka) and _method(kb, right[1]) is not _method(ka, right[1]):
            return [right, left]
        return [left, right]
    if left is not None:
        if not _number(b) and not _defers(class_of(a)):
            # a.__op__ may give NotImplemented, and then b's reflected method runs: an
            # array's would apply the operator to each of its items
            return [left, (a, None, b)]
        return [left]
    if not _number(a) and not _defers(class_of(b)):
        return [(b, None, a)]
    return [right]       # a number's (or a deferring array's) method gives NotImplemented


def _refused(obj, sign, loc):
    cls = class_of(obj).__name__
    return errors.UnsupportedSyntax(
        f"'{sign}' of a {cls} object made in the function and a value the program "
        f"computes: Python may call that value's own operator, which for an array applies "
        f"it to each item, and revsrc cannot tell which runs", loc=loc,
        hint=f"give {cls} the class attribute __array_ufunc__ = None (NumPy then defers "
             "to its methods), or call the method by name")


def _method(cls, name):
    return inspect.getattr_static(cls, name, None)


def _defers(cls):
    """Whether NumPy arrays and scalars give ``NotImplemented`` for the class's objects
    (``__array_ufunc__ = None``), so that its reflected methods run."""
    return _method(cls, "__array_ufunc__") is None and \
        any("__array_ufunc__" in vars(k) for k in cls.__mro__)


def _number(v):
    return isinstance(v, Const) and type(v.value) in _NUMBERS


def _not_implemented(v):
    return isinstance(v, (Const, Known)) and v.value is NotImplemented


def _type_name(v):
    if made_object(v):
        return class_of(v).__name__
    return type(v.value).__name__ if isinstance(v, Const) else "value"
