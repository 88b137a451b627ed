"""Pytrees: nested containers whose leaves are numbers and arrays.

An argument in ``argnums`` may be a tuple, list, dict, namedtuple or dataclass (or a
class registered with `register_pytree`), nested to any depth. At the API boundary
revsrc takes it apart into its leaves, each a parameter of its own in the generated
program (``params["W1"]`` becomes ``params_W1``), and puts the gradient back together
in the same shape: same container types, keys, order and field names.

What the leaves may be, in a differentiated argument (as in JAX):

- float scalars and float (or complex) arrays carry gradients;
- ``None`` is an empty subtree: it has no leaves, and the gradient has ``None`` there;
- ints, bools, integer arrays, strings and other objects are refused (E301, naming
  the path: ``params["W1"][0]``); a set is refused too (its order is not defined).
  Keep such values in an argument you do not differentiate, or, in a dataclass, mark
  the field static: ``field(metadata={"static": True})``.
"""
from __future__ import annotations

import re
import sys
from typing import Any, Callable, Hashable, Iterable, List, Optional, Tuple

import numpy as np

from .. import errors
from . import kinds
from .record import record

# ----- The registry of container types -----

_REGISTRY: dict = {}   # class -> (flatten, unflatten)


def register_pytree(cls: type,
                    flatten: Callable[[Any], Tuple[Iterable[Any], Hashable]],
                    unflatten: Callable[[Hashable, List[Any]], Any]) -> type:
    """Make instances of ``cls`` containers revsrc takes apart and puts back together.

    ``flatten(obj)`` returns ``(children, aux)``: the values inside (each a leaf or a
    container itself) and whatever else rebuilding needs (hashable: it is part of the
    cache key, so a change in it transforms the function again).
    ``unflatten(aux, children)`` builds an instance from them. Inside a differentiated
    function an instance's attributes are read and its methods called as usual.

    >>> import numpy as np, revsrc
    >>> class Affine:
    ...     def __init__(self, W, b):
    ...         self.W, self.b = W, b
    >>> _ = revsrc.register_pytree(Affine, lambda a: ((a.W, a.b), None),
    ...                            lambda aux, ch: Affine(*ch))
    >>> leaves, tree = revsrc.tree_flatten(Affine(np.eye(2), 1.0))
    >>> len(leaves), revsrc.tree_unflatten(tree, leaves).b
    (2, 1.0)
    """
    if not isinstance(cls, type):
        raise TypeError(f"register_pytree takes a class, not {cls!r}")
    if cls in (tuple, list, dict, type(None)):
        raise ValueError(f"{cls.__name__} is a container revsrc already knows")
    _REGISTRY[cls] = (flatten, unflatten)
    return cls


# ----- Structures -----

LEAF = "leaf"


@record(frozen=True)
class TreeDef:
    """The shape of a pytree without its leaves: hashable, compared by structure.

    ``kind`` is "leaf", "none", "tuple", "list", "dict", "namedtuple", "dataclass" or
    "custom"; ``cls`` the container's class; ``aux`` the dict's keys, the
    dataclass's (field names, static fields) or a registered class's aux data;
    ``children`` one TreeDef per child.
    """
    kind: str
    cls: Any
    aux: Any
    children: Tuple["TreeDef", ...]

    def __init__(self, kind, cls=None, aux=None, children=()):
        _set = object.__setattr__
        _set(self, "kind", kind)
        _set(self, "cls", cls)
        _set(self, "aux", aux)
        _set(self, "children", children)

    @property
    def num_leaves(self) -> int:
        if self.kind == LEAF:
            return 1
        return sum(c.num_leaves for c in self.children)

    def keys(self):
        """The path entry of each child: ("key", k), ("index", i) or ("attr", name)."""
        if self.kind == "dict":
            return [("key", k) for k in self.aux]
        if self.kind in ("namedtuple",):
            return [("attr", f) for f in self.cls._fields]
        if self.kind == "dataclass":
            return [("attr", f) for f in self.aux[0]]
        return [("index", i) for i in range(len(self.children))]

    def __repr__(self):
        if self.kind == LEAF:
            return "*"
        if self.kind == "none":
            return "None"
        inner = ", ".join(
            (f"{k[1]!r}: {c!r}" if k[0] == "key" else
             f"{k[1]}={c!r}" if k[0] == "attr" else repr(c))
            for k, c in zip(self.keys(), self.children))
        if self.kind == "tuple":
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.kind == "list":
            return f"[{inner}]"
        if self.kind == "dict":
            return "{" + inner + "}"
        return f"{self.cls.__name__}({inner})"


_LEAF_DEF = TreeDef(LEAF)
_NONE_DEF = TreeDef("none")


def _is_namedtuple(cls):
    return issubclass(cls, tuple) and hasattr(cls, "_fields") and hasattr(cls, "_make")


def is_dataclass(cls):
    """Whether ``cls`` is a dataclass. Asked of the dataclasses module only once it is
    loaded: no class is a dataclass before (importing it was a fortieth of ``import
    revsrc``, for programs that have none)."""
    found = sys.modules.get("dataclasses")
    return found is not None and found.is_dataclass(cls)


def dataclass_fields(cls):
    """The fields of the dataclass ``cls`` (`is_dataclass` has said it is one)."""
    return sys.modules["dataclasses"].fields(cls)


def _static_fields(cls):
    return [f for f in dataclass_fields(cls) if f.metadata.get("static", False)]


def node_of(x):
    """(kind, cls, aux, children) of container ``x``, or None for a leaf."""
    t = type(x)
    if x is None:
        return "none", None, None, []
    if t is tuple:
        return "tuple", tuple, None, list(x)
    if t is list:
        return "list", list, None, list(x)
    if t is dict:
        return "dict", dict, tuple(x.keys()), list(x.values())
    entry = _REGISTRY.get(t)
    if entry is not None:
        children, aux = entry[0](x)
        return "custom", t, aux, list(children)
    if _is_namedtuple(t):
        return "namedtuple", t, None, list(x)
    if is_dataclass(t) and not isinstance(x, type):
        static = _static_fields(t)
        names = tuple(f.name for f in dataclass_fields(t) if f not in static)
        fixed = tuple((f.name, getattr(x, f.name)) for f in static)
        return "dataclass", t, (names, fixed), [getattr(x, n) for n in names]
    return None


def node_of_class(cls):
    """The kind of container instances of ``cls`` are, or None."""
    if cls in (tuple, list, dict):
        return cls.__name__
    if cls in _REGISTRY:
        return "custom"
    if _is_namedtuple(cls):
        return "namedtuple"
    if is_dataclass(cls):
        return "dataclass"
    return None


def is_container(x) -> bool:
    """Whether ``x`` is a pytree node (None counts: an empty one)."""
    return node_of(x) is not None


def tree_flatten(tree: Any) -> Tuple[List[Any], TreeDef]:
    """``(leaves, treedef)``: the leaves in order (dicts in their insertion order).

    >>> import revsrc
    >>> leaves, treedef = revsrc.tree_flatten({"W": 1.0, "layers": [(2.0, None), 3.0]})
    >>> leaves, treedef
    ([1.0, 2.0, 3.0], {'W': *, 'layers': [(*, None), *]})
    """
    leaves: List[Any] = []

    def walk(x):
        node = node_of(x)
        if node is None:
            leaves.append(x)
            return _LEAF_DEF
        kind, cls, aux, children = node
        if kind == "none":
            return _NONE_DEF
        return TreeDef(kind, cls, aux, tuple(walk(c) for c in children))
    return leaves, walk(tree)


def tree_unflatten(treedef: TreeDef, leaves: Iterable[Any]) -> Any:
    """The pytree of shape ``treedef`` holding ``leaves``.

    >>> import revsrc
    >>> leaves, treedef = revsrc.tree_flatten({"W": 1.0, "b": (2.0, 3.0)})
    >>> revsrc.tree_unflatten(treedef, [x * 10.0 for x in leaves])
    {'W': 10.0, 'b': (20.0, 30.0)}
    """
    it = iter(leaves)
    out = _build(treedef, it)
    rest = next(it, _END)
    if rest is not _END:
        raise ValueError(f"too many leaves for the structure {treedef!r}")
    return out


_END = object()


def _build(td, it):
    if td.kind == LEAF:
        v = next(it, _END)
        if v is _END:
            raise ValueError("too few leaves for the structure")
        return v
    if td.kind == "none":
        return None
    children = [_build(c, it) for c in td.children]
    return rebuild(td, children)


def rebuild(td, children):
    """A container of ``td``'s type and aux holding ``children`` (its own level only)."""
    if td.kind == "tuple":
        return tuple(children)
    if td.kind == "list":
        return list(children)
    if td.kind == "dict":
        return dict(zip(td.aux, children))
    if td.kind == "namedtuple":
        return td.cls._make(children)
    if td.kind == "dataclass":
        names, fixed = td.aux
        obj = object.__new__(td.cls)
        for name, value in list(zip(names, children)) + list(fixed):
            object.__setattr__(obj, name, value)
        return obj
    if td.kind == "custom":
        return _REGISTRY[td.cls][1](td.aux, list(children))
    raise AssertionError(td.kind)


def tree_leaves(tree: Any) -> List[Any]:
    """The leaves of ``tree``, in order.

    >>> import revsrc
    >>> revsrc.tree_leaves({"W": 1.0, "b": [2.0, 3.0]})
    [1.0, 2.0, 3.0]
    """
    return tree_flatten(tree)[0]


def tree_structure(tree: Any) -> TreeDef:
    """The structure of ``tree`` without its leaves (its `TreeDef`, which prints each
    leaf as ``*``); ``num_leaves`` counts them.

    >>> import revsrc
    >>> treedef = revsrc.tree_structure({"W": 1.0, "b": (2.0, None)})
    >>> treedef, treedef.num_leaves
    ({'W': *, 'b': (*, None)}, 2)
    """
    return tree_flatten(tree)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """``f`` applied leaf by leaf to ``tree`` (and to the matching leaves of ``rest``,
    which must have the same structure); the result has ``tree``'s structure.

    >>> import revsrc
    >>> revsrc.tree_map(lambda p, g: p - 0.1 * g, {"w": 1.0}, {"w": 2.0})
    {'w': 0.8}
    """
    leaves, td = tree_flatten(tree)
    others = []
    for r in rest:
        lv, td2 = tree_flatten(r)
        if td2 != td:
            raise ValueError(f"tree_map: structures differ: {td!r} and {td2!r}")
        others.append(lv)
    return tree_unflatten(td, [f(*xs) for xs in zip(leaves, *others)])


# ----- Paths -----

def paths(td: TreeDef, prefix=()):
    """The path of each leaf of ``td`` (a tuple of path entries), in order."""
    if td.kind == LEAF:
        return [prefix]
    out = []
    for key, child in zip(td.keys(), td.children):
        out.extend(paths(child, prefix + (key,)))
    return out


def path_text(name, path):
    """``params["W1"][0]``: how the user would write the leaf at ``path``."""
    text = name
    for kind, k in path:
        text += f".{k}" if kind == "attr" else f"[{k!r}]"
    return text


def path_name(name, path):
    """An identifier for the leaf at ``path``: ``params_W1``, ``layers_0_1``."""
    parts = [name]
    for _, k in path:
        part = re.sub(r"\W", "_", str(k)).strip("_")
        parts.append(part or "item")
    return "_".join(parts)


# ----- What a differentiated argument may hold -----

def float_leaf(v):
    """Whether ``v`` carries a gradient: a float, or a float or complex array."""
    code = kinds.signature(v)
    if code == kinds.ANY and (type(v).__module__ or "").startswith("jax"):
        # a JAX array (backend="jax" takes them as they are)
        code = (kinds.ARRAY, getattr(v, "ndim", None), np.dtype(getattr(v, "dtype", "O")))
    return code == kinds.FLOAT or (isinstance(code, tuple) and code[0] == kinds.ARRAY
                                   and code[2].kind in "fc")


def describe_leaf(v):
    if isinstance(v, np.ndarray):
        return f"an array of dtype {v.dtype}"
    if isinstance(v, (bool, np.bool_)):
        return "a bool"
    if isinstance(v, (int, np.integer)):
        return "an int"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, (set, frozenset)):
        return "a set (not a container revsrc takes apart: its order is not defined)"
    return f"a {type(v).__name__}"


def check_differentiable(name, value, td: Optional[TreeDef] = None, leaves=None, loc=None):
    """Refuse (E301) a differentiated argument with a leaf that carries no gradient,
    naming its path."""
    if td is None:
        leaves, td = tree_flatten(value)
    for path, leaf in zip(paths(td), leaves):
        if float_leaf(leaf):
            continue
        where = path_text(name, path)
        if isinstance(leaf, np.ndarray) and type(leaf) is not np.ndarray:
            what = f"an ndarray subclass ({type(leaf).__name__})"
        else:
            what = describe_leaf(leaf)
        hint = ("pass a float or a float array there, or keep the value in an argument "
                "you do not differentiate")
        if td.kind == "dataclass" or any(k == "attr" for k, _ in path):
            hint += " (a dataclass field can be marked field(metadata={'static': True}))"
        raise errors.NotDifferentiableArgument(
            f"cannot differentiate with respect to {where}, {what}; only float scalars "
            "and float arrays carry gradients (None is an empty subtree)", loc=loc,
            hint=hint)


def flatten_up_to(td, tree, name="the tangent"):
    """The leaves of ``tree`` at the leaves of structure ``td`` (None everywhere below
    a None)."""
    if tree is None:
        return [None] * td.num_leaves
    if td.kind == LEAF:
        return [tree]
    node = node_of(tree)
    if node is None or node[0] != td.kind or node[1] is not td.cls or \
            (td.kind == "dict" and tuple(node[2]) != td.aux) or len(node[3]) != len(td.children):
        raise errors.MismatchedArguments(
            f"the tangent of {name} does not have its primal's structure {td!r}",
            hint="give the tangent the same containers and keys as its primal, with None "
                 "(or zeros) for what does not change")
    out = []
    for child_td, child in zip(td.children, node[3]):
        out.extend(flatten_up_to(child_td, child, name))
    return out
