"""Which of the user's classes revsrc builds inside a function (objects.py,
`_make_object`): their ``__init__`` only stores attributes of ``self``, itself or
through a base class's ``__init__`` (``super().__init__(w)``, ``Base.__init__(self, w)``),
with ``type`` or ``abc.ABCMeta`` their metaclass, and ``__slots__`` or not.
"""
from __future__ import annotations

import abc
import ast
import builtins
import inspect
import textwrap
import types

from .scope import params_of
from .values import MISSING, is_library

_METACLASSES = (type, abc.ABCMeta)
_STATELESS = (object, abc.ABC)    # bases that give an instance nothing of their own
_DEPTH = 20                       # base __init__ calls followed, at most


def is_super_call(node):
    """``super()`` or ``super(C, obj)``, as written (the name ``super`` itself)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "super" and not node.keywords and len(node.args) in (0, 2)


def plain_init_class(cls):
    """A user's class whose ``__init__`` only sets attributes of ``self`` (``self.W, self.b
    = W, b``), or calls a base class's that does, with no ``__new__``, ``__setattr__`` or
    properties among them: an instance made in the function is a static object
    (`VRecord` with no td)."""
    if type(cls) not in _METACLASSES or any(
            k in vars(b) for b in cls.__mro__ if b is not object
            for k in ("__new__", "__setattr__")):
        return False
    owner, init = _next_init(cls, 0)
    if owner is object:   # no __init__ of its own (class Cfg: def apply(...)): no attributes
        return not any(is_library(b) for b in cls.__mro__ if b not in _STATELESS)
    return _stores_only(cls, init, 0)


def _next_init(cls, start):
    """(the class, its ``__init__``) Python finds from ``cls.__mro__[start]`` on."""
    for b in cls.__mro__[start:]:
        if "__init__" in vars(b):
            return b, vars(b)["__init__"]
    return object, object.__init__     # pragma: no cover - object is in every MRO


def _stores_only(cls, init, depth):
    """Whether ``init`` (an ``__init__`` a ``cls`` instance runs) only sets attributes of
    its first parameter, or calls a base class's ``__init__`` that does."""
    if not isinstance(init, types.FunctionType) or is_library(init) or depth > _DEPTH:
        return False
    try:
        node = ast.parse(textwrap.dedent(inspect.getsource(init))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return False
    if not isinstance(node, ast.FunctionDef) or not params_of(node).positional:
        return False
    me = params_of(node).positional[0]

    def settable(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            return all(settable(e) for e in t.elts)
        return isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
            t.value.id == me and not isinstance(
                inspect.getattr_static(cls, t.attr, None), property)

    for stmt in node.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and
                                          isinstance(stmt.value, ast.Constant)):
            continue
        if isinstance(stmt, ast.Assign) and all(settable(t) for t in stmt.targets):
            continue
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and settable(stmt.target):
            continue
        if isinstance(stmt, ast.Expr) and _base_init_plain(cls, init, stmt.value, me, depth):
            continue
        return False
    return True


def _base_init_plain(cls, init, call, me, depth):
    """Whether ``call`` (a statement of ``init``) is ``super().__init__(...)``,
    ``super(C, me).__init__(...)`` or ``C.__init__(me, ...)``, with C a class of
    ``cls.__mro__``, reaching an ``__init__`` that only stores attributes (or
    ``object.__init__``, given nothing, as Python requires)."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and
            call.func.attr == "__init__"):
        return False
    base = call.func.value
    given = list(call.args)
    if is_super_call(base):
        if base.args:
            start = _resolved(init, base.args[0])
            if not (isinstance(base.args[1], ast.Name) and base.args[1].id == me):
                return False
        else:
            cell = dict(zip(init.__code__.co_freevars, init.__closure__ or ()))
            start = cell["__class__"].cell_contents if "__class__" in cell else None
        if start not in cls.__mro__:
            return False
        owner, reached = _next_init(cls, cls.__mro__.index(start) + 1)
    elif isinstance(base, ast.Name):
        start = _resolved(init, base)
        if not (isinstance(start, type) and start in cls.__mro__ and given and
                isinstance(given[0], ast.Name) and given[0].id == me):
            return False
        owner, reached = _next_init(start, 0)
        given = given[1:]
        if owner is object:      # Base.__init__(self) of a class with none: not followed
            return False
    else:
        return False
    if owner is object:
        return not given and not call.keywords
    return _stores_only(cls, reached, depth + 1)


def _resolved(fn, name):
    """What the name ``name`` (an ast.Name) reads in ``fn``: a closure variable, a global,
    a builtin; None for any other expression or a name bound nowhere."""
    if not isinstance(name, ast.Name):
        return None
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    if name.id in cells:
        try:
            return cells[name.id].cell_contents
        except ValueError:
            return None
    found = fn.__globals__.get(name.id, MISSING)
    return getattr(builtins, name.id, None) if found is MISSING else found


# ----- __slots__ -----

def slot_refused(cls, attr):
    """Python's message where an instance of ``cls`` cannot hold attribute ``attr`` (its
    classes all have ``__slots__``, none naming it); None where it can."""
    if any("__slots__" not in vars(b) for b in cls.__mro__ if b is not object):
        return None      # an instance with a __dict__
    slots = {k for b in cls.__mro__ for k, v in vars(b).items()
             if isinstance(v, types.MemberDescriptorType) or k == "__dict__"}
    if "__dict__" in slots or attr in slots:
        return None
    return f"'{cls.__name__}' object has no attribute {attr!r} (its classes' __slots__ " \
           "do not name it, and it has no __dict__)"
