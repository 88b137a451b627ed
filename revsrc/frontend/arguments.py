"""How a call's arguments become a program's parameters, and gradients come back.

A derivative's caller passes the arguments of the original callable. They are bound
to the parameters of the function revsrc transforms (a method's ``self`` and a
partial's arguments first, defaults filled in, ``*args`` as a tuple and ``**kwargs``
as a dict). Containers in a differentiated argument, and the ``*args`` and
``**kwargs`` containers themselves, are taken apart into their leaves (revsrc/pytree.py):
each leaf is a parameter of its own in the program, named after its path
(``params_W1``). A parameter bound statically (``self``) is no parameter at all.

The cache key of a program has one entry per parameter of the function:
`kinds.signature` of a plain value, ``("tree", treedef, leaf signatures)`` for a
container taken apart, and `STATIC`.
"""
from __future__ import annotations

import inspect

import numpy as np

from .. import errors
from ..core import kinds, pytree
from ..core.pytree import LEAF, TreeDef

STATIC = "static"
TREE = "tree"


def is_tree(entry):
    return isinstance(entry, tuple) and len(entry) == 3 and entry[0] == TREE


def flat_key(key):
    """The signature of each parameter of the program, in order."""
    out = []
    for e in key:
        if e == STATIC:
            continue
        if is_tree(e):
            out.extend(e[2])
        else:
            out.append(e)
    return tuple(out)


def plain_key(key):
    """Whether ``key`` has only plain entries (the program's parameters are the
    function's)."""
    return not any(e == STATIC or is_tree(e) for e in key)


class Binding:
    """The parameters of a callee's function and how arguments bind to them."""

    def __init__(self, callee, parsed=None):
        self.callee = callee
        fn = callee.fn
        self.sig = inspect.signature(fn, follow_wrapped=False)
        self.params = list(self.sig.parameters)
        P = inspect.Parameter
        self.vararg = next((n for n, p in self.sig.parameters.items()
                            if p.kind is P.VAR_POSITIONAL), None)
        self.varkw = next((n for n, p in self.sig.parameters.items()
                           if p.kind is P.VAR_KEYWORD), None)
        positional = [n for n, p in self.sig.parameters.items()
                      if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
        self.positional = positional[len(callee.pre):]
        self.static = dict(callee.static)
        self.simple = not (callee.pre or callee.pre_kwargs or self.static or self.vararg
                           or self.varkw)
        self.name = callee.name
        # int parameters a recursion's depth is decided by: a program is made for
        # each of their values (kinds.int_value; frontend/lower/recursion.py)
        self.valued = frozenset()

    @property
    def npos(self):
        """The caller's positional parameters (None: any number, with *args)."""
        return None if self.vararg else len(self.positional)

    def bind(self, args, kwargs):
        """One value per parameter of the function (``*args`` a tuple, ``**kwargs`` a
        dict)."""
        if self.simple and not kwargs and len(args) == len(self.params):
            return tuple(args)
        c = self.callee
        try:
            ba = self.sig.bind(*c.pre, *args, **{**c.pre_kwargs, **kwargs})
        except TypeError as exc:
            raise TypeError(f"{self.name}(): {exc}") from None
        ba.apply_defaults()
        return tuple(ba.arguments[p] for p in self.params)

    def slots(self, nums, loc=None):
        """For each caller's argument number, (parameter index, path inside it)."""
        out = []
        npos = len(self.positional)
        for a in nums:
            if not isinstance(a, int) or isinstance(a, bool):
                raise errors.BadArgnums(f"argnums {a!r} is not an int", loc=loc)
            if self.vararg is None:
                if not -npos <= a < npos:
                    raise errors.BadArgnums(
                        f"argnums {a!r} does not name a positional parameter of "
                        f"{self.name} (it has {npos})", loc=loc,
                        hint=f"use an index from 0 to {npos - 1}")
                out.append((self.params.index(self.positional[a % npos]), ()))
            elif 0 <= a < npos:
                out.append((self.params.index(self.positional[a]), ()))
            elif a >= npos:
                out.append((self.params.index(self.vararg), (("index", a - npos),)))
            else:
                raise errors.BadArgnums(
                    f"argnums {a!r}: a negative index cannot name an item of "
                    f"*{self.vararg}", loc=loc, hint="count from the first argument")
        return out


class Plan:
    """How one call's values become the program's parameters (see the module's doc)."""

    def __init__(self, binding, values, slots, loc=None, signature=kinds.signature):
        self.binding = binding
        self.values = values
        self.slots = slots
        key = []
        self.trees = {}       # parameter index -> (TreeDef, leaves)
        wrt_params = {}
        for i, path in slots:
            wrt_params.setdefault(i, []).append(path)
        for i, (name, v) in enumerate(zip(binding.params, values)):
            if name in binding.static:
                key.append(STATIC)
                continue
            if name in (binding.vararg, binding.varkw):
                td, leaves = _one_level(v, wrt_params.get(i, ()), name, loc)
            elif i in wrt_params and pytree.is_container(v):
                leaves, td = pytree.tree_flatten(v)
            else:
                key.append(value_signature(v) if name in binding.valued else signature(v))
                continue
            self.trees[i] = (td, leaves)
            key.append((TREE, td, tuple(signature(x) for x in leaves)))
        self.key = tuple(key)

    def flat_values(self):
        out = []
        for i, (name, v) in enumerate(zip(self.binding.params, self.values)):
            if name in self.binding.static:
                continue
            if i in self.trees:
                out.extend(self.trees[i][1])
            else:
                out.append(v)
        return tuple(out)


def value_signature(v):
    """The signature of an argument a program is made for the value of, if an int."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return kinds.int_value(v)
    return kinds.signature(v)


def valued_key(binding, key, values):
    """``key`` (one plain entry per parameter) with those of `Binding.valued`
    parameters made for their values."""
    if not binding.valued:
        return key
    return tuple(value_signature(v) if p in binding.valued else e
                 for p, e, v in zip(binding.params, key, values))


def revalued(binding, key, flat):
    """``key`` (a `Plan`'s, perhaps with a cotangent's entry after) with the plain
    entries of `Binding.valued` parameters made for their values in ``flat`` (the
    program's arguments)."""
    out, pos = [], 0
    for p, e in zip(binding.params, key):
        if e == STATIC:
            out.append(e)
            continue
        if is_tree(e):
            out.append(e)
            pos += e[1].num_leaves
            continue
        out.append(value_signature(flat[pos]) if p in binding.valued else e)
        pos += 1
    return tuple(out) + tuple(key[len(binding.params):])


def _one_level(v, wrt_paths, name, loc):
    """The TreeDef of ``*args``/``**kwargs`` ``v``: one level, a differentiated item
    taken apart fully, every other item one leaf."""
    wrt = {p[0] for p in wrt_paths if p}
    if isinstance(v, tuple):
        for p in wrt:
            if p[1] >= len(v):
                raise errors.BadArgnums(
                    f"argnums names positional argument {p[1]} of *{name}, which has "
                    f"{len(v)}", loc=loc)
        keys = [("index", j) for j in range(len(v))]
        kind, cls, aux = "tuple", tuple, None
    else:
        keys = [("key", k) for k in v]
        kind, cls, aux = "dict", dict, tuple(v.keys())
    children, leaves = [], []
    for key, item in zip(keys, v if kind == "tuple" else v.values()):
        if key in wrt and pytree.is_container(item):
            lv, td = pytree.tree_flatten(item)
            children.append(td)
            leaves.extend(lv)
        else:
            children.append(TreeDef(LEAF))
            leaves.append(item)
    return TreeDef(kind, cls, aux, tuple(children)), leaves


def subtree(td, path):
    """The TreeDef at ``path`` inside ``td``, with the index of its first leaf."""
    start = 0
    for entry in path:
        keys = td.keys()
        j = keys.index(entry)
        start += sum(c.num_leaves for c in td.children[:j])
        td = td.children[j]
    return td, start


def slot_leaves(binding, key, slots):
    """For each slot: (the TreeDef of the differentiated value, the positions of its
    leaves among the program's parameters)."""
    offsets = {}
    pos = 0
    for i, e in enumerate(key):
        if e == STATIC:
            continue
        offsets[i] = pos
        pos += e[1].num_leaves if is_tree(e) else 1
    out = []
    for i, path in slots:
        e = key[i]
        if is_tree(e):
            sub, start = subtree(e[1], path)
            first = offsets[i] + start
            out.append((sub, list(range(first, first + sub.num_leaves))))
        else:
            out.append((TreeDef(LEAF), [offsets[i]]))
    return out


def wrt_positions(binding, key, slots):
    return [p for _, ps in slot_leaves(binding, key, slots) for p in ps]


def check_slots(plan, loc=None):
    """Refuse (E301) a differentiated argument holding a leaf with no gradient."""
    for i, path in plan.slots:
        name = plan.binding.params[i]
        if i in plan.trees:
            td, leaves = plan.trees[i]
            sub, start = subtree(td, path)
            shown = pytree.path_text(name, ()) if not path else \
                pytree.path_text(name, path)
            if sub.kind == LEAF:
                check_leaf(shown, leaves[start], loc)
            else:
                pytree.check_differentiable(shown, None, sub,
                                            leaves[start:start + sub.num_leaves], loc)
        else:
            check_leaf(name, plan.values[i], loc)


def check_leaf(name, v, loc):
    if isinstance(v, np.ndarray) and type(v) is not np.ndarray:
        raise errors.UnsupportedValue(
            f"{name} is a {type(v).__name__}, an ndarray subclass whose operators mean "
            "something else (np.matrix's * is a matrix product; a masked array skips "
            "masked elements): its derivative would be wrong", loc=loc,
            hint=f"pass np.asarray({name}) (for a masked array, fill or compress it first)")
    if pytree.float_leaf(v):
        return
    raise errors.NotDifferentiableArgument(
        f"cannot differentiate with respect to {name}={v!r:.60}, "
        f"{pytree.describe_leaf(v)}; only float scalars and float arrays carry "
        "gradients (and containers of them: tuples, lists, dicts, namedtuples, "
        "dataclasses)", loc=loc,
        hint=f"pass a float (e.g. float({name})) or exclude it from argnums")


def positional(f, args, kwargs):
    """The arguments of a call ``f(*args, **kwargs)`` all by position, as `grad` binds
    them (defaults filled in before a keyword's position): the Jacobians and `vmap`
    call their programs with positions alone. A keyword with no position (a
    keyword-only parameter, ``**kwargs``) is refused with E105."""
    if not kwargs:
        return args
    name = getattr(f, "__name__", "the function")
    try:
        ba = inspect.signature(f).bind(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        raise errors.StaticValueError(f"call to {name}: {exc}",
                                      hint="pass the arguments by position") from None
    ba.apply_defaults()
    if ba.kwargs:
        raise errors.StaticValueError(
            f"{name} takes {', '.join(map(repr, ba.kwargs))} by keyword only, which "
            "this derivative cannot pass", hint="make it a positional parameter, or "
            "bind it with functools.partial")
    return ba.args
