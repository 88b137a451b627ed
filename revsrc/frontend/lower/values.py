"""The values the lowering knows when it transforms a function, beside operands.

An operand (a variable name, or a ``Const``) is a value of the program. Some
things a name can hold are known before the program runs, and the lowering
keeps them as they are: containers whose items it knows (`VTuple`, `VDict`,
`VRecord`), a Python object (`Known`: a function, module, class), a nested
``def`` (`NestedDef`) or a method found on a static container (`BoundMethod`).
Reading a name after a branch revsrc cannot follow gives `Poisoned`. These are
plain classes so a test of what a value is reads ``isinstance(v, Known)`` and
never compares tags of tuples.
"""
from __future__ import annotations

import ast
import functools
import operator
import inspect
import os
import types

import numpy as np

from ... import errors
from ...core import pytree
from ...core.ir import Const
from ...core.late import LateModule

# the installation's paths, read only to tell a library's function from the user's
_sysconfig = LateModule("sysconfig")


class VTuple(tuple):
    """A tuple of operands known at transformation time (never materialized).

    Also a list or a namedtuple whose items are known (an argument taken apart at the
    API boundary, or an item of one): ``seq`` is "tuple" or "list", ``cls`` the
    namedtuple's class, ``probe`` an instance of it holding a `Slot` per item (its
    attributes say which item each reads). Items are operands or static containers.
    """
    seq = "tuple"
    cls = None
    probe = None


def vtuple(items, seq="tuple", cls=None, probe=None):
    t = VTuple(items)
    if seq != "tuple" or cls is not None:
        t.seq = seq
        t.cls = cls
    if probe is not None:
        t.probe = probe
    return t


class VDict:
    """A dict whose keys are known at transformation time, and so which value each
    subscript reads (an argument taken apart, or a literal with constant keys).
    ``owned``: made inside the function (so it may be changed). ``placed``: built as a
    value of the program (put in a list, passed to a call): that value is the same dict
    in Python, so a later change made here alone would not reach it."""

    def __init__(self, keys, values, owned=False):
        self.keys = list(keys)
        self.values = list(values)
        self.owned = owned
        self.placed = False

    def get(self, key, default=None):
        for k, v in zip(self.keys, self.values):
            if k == key:
                return v
        return default

    def put(self, key, value):
        """``d[key] = value``: the item replaced, or added last (Python's order)."""
        for i, k in enumerate(self.keys):
            if k == key:
                self.values[i] = value
                return
        self.keys.append(key)
        self.values.append(value)


class VRecord:
    """A dataclass or a registered container class whose fields are known: its
    attributes read the operands of its fields (through ``probe``, an instance that
    holds a `Slot` where each field's value is).

    With ``td`` None, an object made in the function (its class's ``__init__`` only
    stores attributes): ``probe`` is then its class, ``items_by_name`` its attributes,
    and ``building`` holds while its ``__init__`` is being inlined."""

    def __init__(self, td, items, probe):
        self.td = td
        self.items = list(items)
        self.probe = probe
        self.items_by_name = {}
        self.building = False


class Known:
    """A Python value known at transformation time: a function, module, class, ufunc
    (or a `NestedDef`/`BoundMethod` of the function being lowered)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class NestedDef:
    """A ``def`` (or a lambda bound to a name) inside the function, with the scope it
    was defined in: calls to it are inlined there."""
    __slots__ = ("scope", "node")

    def __init__(self, scope, node):
        self.scope = scope
        self.node = node


class NestedPartial:
    """``functools.partial(h, ...)`` of a nested def ``h`` (a `NestedDef`) on values
    known when transforming (``args`` and ``kwargs`` operands): a call to it is
    ``h``'s, inlined, with those given first."""
    __slots__ = ("nested", "args", "kwargs")

    def __init__(self, nested, args, kwargs):
        self.nested = nested
        self.args = list(args)
        self.kwargs = list(kwargs)


def plain_static(v):
    """Whether the static value ``v`` is a tuple, list or dict (nested ones too) of
    operands: one the program can build as a value whose items carry their adjoints."""
    if isinstance(v, VTuple):
        return v.cls is None and all(plain_static(i) for i in v)
    if isinstance(v, VDict):
        return all(plain_static(i) for i in v.values)
    return isinstance(v, (str, Const))


def lambda_def(node, name):
    """The ``def`` named ``name`` that the lambda ``node`` stands for."""
    fdef = ast.FunctionDef(name=name, args=node.args, body=[ast.Return(value=node.body)],
                           decorator_list=[], returns=None, type_comment=None,
                           type_params=[])
    ast.copy_location(fdef, node)
    ast.copy_location(fdef.body[0], node.body)
    return fdef


class BoundMethod:
    """A method of a static container's class, bound to the container (``fn`` a
    function, staticmethod or classmethod)."""
    __slots__ = ("obj", "fn")

    def __init__(self, obj, fn):
        self.obj = obj
        self.fn = fn


class Partial:
    """``functools.partial(fn, *args, **kwargs)`` made in the function on values known
    only when the program runs: ``args`` and ``kwargs`` are operands (taken when the
    partial was made, as Python binds them); a call of it calls ``fn`` on them and its
    own arguments."""
    __slots__ = ("fn", "args", "kwargs")

    def __init__(self, fn, args, kwargs):
        self.fn = fn
        self.args = list(args)
        self.kwargs = list(kwargs)


class Slot:
    """Stands for item ``i`` of a static container inside its probe instance."""
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


class Poisoned:
    """A name whose value depends on a branch revsrc cannot follow statically."""

    def __init__(self, why):
        self.why = why


STATIC_NODES = (VTuple, VDict, VRecord)
UNROLL_LIMIT = 64   # loops over static containers longer than this run as loops
MISSING = object()
_DATA_TYPES = (bool, int, float, complex, str, bytes, type(None), np.ndarray, np.generic,
               tuple, list, slice, type(Ellipsis))


def is_static_value(v):
    """A static container, or a `Known`: known at transformation time."""
    return isinstance(v, STATIC_NODES) or isinstance(v, Known)


def is_static(value):
    """Known at transformation time: modules, functions, classes, ufuncs."""
    if isinstance(value, _DATA_TYPES):
        return False
    return isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                              type, np.ufunc)) or callable(value)


def made_when_transforming(fn):
    """Whether a call of ``fn`` on values all known when transforming is made then
    (frontend/lower/calls.py, `made_derivative`): a ``functools.partial``, an
    ``operator.itemgetter`` or ``attrgetter`` (its calls are subscripts), or a revsrc
    transformation that marks itself so (``revsrc.grad``...)."""
    return fn in (functools.partial, operator.itemgetter, operator.attrgetter) or \
        getattr(fn, "_revsrc_made_when_transforming", False) is True


def constant_key(node):
    """The value of a subscript's key written as a constant (``"sq"``, ``0``, ``-1``),
    or MISSING."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
            isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return MISSING


def static_item(v, key):
    """The function at constant ``key`` of a tuple, list or dict made in the function
    (``fs = (math.sin, math.cos); fs[0]``, ``{"sq": lambda v: v * v}["sq"]``), or
    MISSING where ``v`` is no such container or that item no function."""
    if isinstance(v, VTuple) and type(key) is int and -len(v) <= key < len(v):
        item = v[key]
    elif isinstance(v, VDict) and isinstance(key, (str, int)) and key in v.keys:
        item = v.values[v.keys.index(key)]
    else:
        return MISSING
    if isinstance(item, Known):
        return item.value
    if isinstance(item, Const) and is_static(item.value) and \
            not isinstance(item.value, types.ModuleType):
        return item.value
    return MISSING


def known_or_const(value):
    """``value`` as the lowering holds it: `Known` if static, else a constant."""
    return Known(value) if is_static(value) else Const(value)


def inlinable(fn):
    """A Python function of the user's (not NumPy's, nor revsrc's own)."""
    if not isinstance(fn, types.FunctionType):
        return False
    module = getattr(fn, "__module__", "") or ""
    return not (module.startswith("numpy") or module.startswith("revsrc."))


def is_library(fn):
    """Whether ``fn`` comes from an installed package or the standard library (not
    the user's own code)."""
    try:
        path = inspect.getsourcefile(fn) or ""
    except TypeError:
        return False
    path = os.path.realpath(path)
    return any(path.startswith(r + os.sep) for r in _library_roots())


@functools.lru_cache(maxsize=1)
def _library_roots():
    """The standard library's and the installed packages' folders (sysconfig's paths
    expand their templates on every call: ~0.2 ms each)."""
    paths = _sysconfig.get_paths()
    return frozenset(os.path.realpath(paths[k]) for k in ("stdlib", "purelib", "platlib"))


def user_callable(fn):
    """A bound method, partial or object with ``__call__`` whose code revsrc can read."""
    if isinstance(fn, types.MethodType):
        return isinstance(fn.__func__, types.FunctionType) and \
            not isinstance(fn.__self__, types.ModuleType)
    if isinstance(fn, functools.partial):
        return True
    if isinstance(fn, type) or isinstance(fn, (types.FunctionType, types.BuiltinFunctionType)):
        return False
    return isinstance(getattr(type(fn), "__call__", None), types.FunctionType)


def static_node(td, items):
    """The static container of shape ``td`` (one level: a pytree.TreeDef) holding
    ``items``."""
    if td.kind == "tuple":
        return vtuple(items)
    if td.kind == "list":
        return vtuple(items, "list")
    if td.kind == "dict":
        return VDict(td.aux, items)
    try:
        probe = pytree.rebuild(td, [Slot(i) for i in range(len(items))])
    except Exception:
        probe = None
    if td.kind == "namedtuple":
        return vtuple(items, cls=td.cls, probe=probe)
    return VRecord(td, items, probe)


def describe_static(v):
    if isinstance(v, VDict):
        return "a dict" if v.owned else "a dict argument"
    if isinstance(v, VTuple):
        if v.cls is not None:
            return f"a {v.cls.__name__} (namedtuple)"
        return "a list" if v.seq == "list" else "a tuple"
    if isinstance(v, VRecord):
        return f"a {class_of(v).__name__}"
    if isinstance(v, Known):
        return short(v.value)
    return repr(v)


def short(value):
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    return name if name else f"a {type(value).__name__}"


def class_of(v):
    if isinstance(v, VRecord):
        return v.probe if v.td is None else v.td.cls
    if isinstance(v, VTuple):
        return v.cls or (list if v.seq == "list" else tuple)
    return dict


def mentions_slot(v, depth=0):
    if isinstance(v, Slot):
        return True
    if depth > 4:
        return False
    if isinstance(v, np.ndarray) and v.dtype == object:
        return any(mentions_slot(x, depth + 1) for x in v.flat)
    if isinstance(v, (tuple, list, set, frozenset)):
        return any(mentions_slot(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return any(mentions_slot(x, depth + 1) for x in v.values())
    return False


def sequence(v):
    """What iterating static container ``v`` gives."""
    if isinstance(v, VDict):
        return [Const(k) for k in v.keys]
    if isinstance(v, VTuple):
        return list(v)
    raise errors.StaticValueError(f"{describe_static(v)} is not a sequence")


def spread(v):
    """The operands ``*v`` spreads into a call, for a container known when transforming;
    None otherwise."""
    if isinstance(v, VTuple):
        return list(v)
    if isinstance(v, VDict):
        return [Const(k) for k in v.keys]
    if isinstance(v, Const) and isinstance(v.value, (tuple, list)):
        return [Const(x) for x in v.value]
    if isinstance(v, Known) and type(v.value) in (tuple, list):
        return [Const(x) for x in v.value]   # a global tuple
    return None


def record(v):
    """A dataclass object or a namedtuple whose fields the lowering holds: a literal
    list or tuple of them stays static, as one of objects made in the function does
    (its items are read field by field, and a loop over it is unrolled)."""
    return isinstance(v, VRecord) or (isinstance(v, VTuple) and v.cls is not None)


def made_object(v):
    """An object made in the function (a `VRecord` with no td), or a static container
    holding one."""
    if isinstance(v, VRecord):
        return v.td is None or any(made_object(i) for i in v.items)
    if isinstance(v, VTuple):
        return any(made_object(i) for i in v)
    return False
