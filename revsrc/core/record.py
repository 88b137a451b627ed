"""Record classes: what ``@dataclass`` gives them, without its cost at import.

``dataclasses.dataclass`` compiles each generated method from source when the class
is made and builds a signature for its docstring: about 0.2 ms a class, and revsrc's
IR, rule records and pass states are thirty classes (a sixth of ``import revsrc``).
A class decorated with `record` writes its ``__init__`` itself (compiled once, into
the module's bytecode cache, like any method), and `record` adds the rest without
compiling anything:

- the fields are the class's annotations, in order; ``__init__`` must take exactly
  them, in that order (checked here, so the two cannot drift apart);
- ``__repr__`` is ``Name(field=value, ...)`` (unless the class writes one);
- with ``eq`` (the default) ``__eq__`` compares the fields of two instances of the
  same class (those in ``uncompared`` left out), and the class is unhashable, unless
  ``frozen``: then it hashes the same tuple of fields, and assigning or deleting an
  attribute raises `FrozenInstanceError` (its ``__init__`` sets fields with
  ``object.__setattr__``).

These are dataclass's semantics for those options. Instances are plain objects whose
fields are their ``__dict__`` (revsrc/core/ir.py's ``replace`` relies on it). A field
whose default is a new container per instance takes `FRESH` as its default and makes
the container when given it.
"""
from __future__ import annotations

import operator

__all__ = ["record", "FRESH", "FrozenInstanceError"]


class _Fresh:
    """The default of a field whose value is made anew for each instance."""
    __slots__ = ()

    def __repr__(self):
        return "FRESH"


FRESH = _Fresh()


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen record."""


def record(cls=None, *, frozen=False, eq=True, uncompared=()):
    """Give ``cls`` ``__repr__`` and (``eq``) ``__eq__`` and ``__hash__`` over its
    annotated fields, as ``@dataclass(frozen=frozen, eq=eq)`` would; ``cls`` writes
    ``__init__``."""
    if cls is None:
        return lambda c: record(c, frozen=frozen, eq=eq, uncompared=uncompared)
    names = tuple(cls.__dict__.get("__annotations__", {}))
    code = cls.__dict__["__init__"].__code__
    taken = code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]
    if taken != names:
        raise TypeError(f"{cls.__qualname__}.__init__ takes {taken}, its fields are {names}")
    if "__repr__" not in cls.__dict__:
        def __repr__(self):
            shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
            return f"{self.__class__.__qualname__}({shown})"
        _attach(cls, "__repr__", __repr__)
    if eq:
        _compare(cls, tuple(n for n in names if n not in uncompared), frozen)
    if frozen:
        _freeze(cls, frozenset(names))
    return cls


def _compare(cls, compared, frozen):
    if len(compared) == 1:       # attrgetter of one name gives the value, not a tuple
        one = operator.attrgetter(compared[0])

        def fields(obj):
            return (one(obj),)
    elif compared:
        fields = operator.attrgetter(*compared)
    else:
        def fields(obj):
            return ()

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return fields(self) == fields(other)
        return NotImplemented

    def __hash__(self):
        return hash(fields(self))

    _attach(cls, "__eq__", __eq__)
    cls.__hash__ = _attach(cls, "__hash__", __hash__) if frozen else None


def _freeze(cls, names):
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    _attach(cls, "__setattr__", __setattr__)
    _attach(cls, "__delattr__", __delattr__)


def _attach(cls, name, fn):
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    fn.__module__ = cls.__module__
    setattr(cls, name, fn)
    return fn
