"""Attributes of global modules and plain objects (``CFG.k`` of a SimpleNamespace of
settings) read by a compiled program: found in the IR, given the kind of the value the
attribute holds now, and read again on every call, as a global float is
(revsrc/backends/engine/lower.py)."""
from __future__ import annotations

import types

from ..core import ir, kinds


class AttributeOf:
    """``namespace[key]``'s attributes by name (``spec[attr]``), what the engine's
    prologue reads for ``G.attr``: the global looked up again on every call."""
    __slots__ = ("namespace", "key")

    def __init__(self, namespace, key):
        self.namespace, self.key = namespace, key

    def __getitem__(self, attr):
        return getattr(self.namespace[self.key], attr)

    def get(self, attr, default=None):
        return getattr(self.namespace.get(self.key), attr, default)

    def __repr__(self):
        return f"<the attributes of the global {self.key!r}>"


def attribute_roots(body):
    """The targets of global reads whose every use is ``target.attr`` (a constant
    name): {target: None} (the engine's lowering fills in where each lives)."""
    loads, bad = set(), set()
    for s in ir.walk(body):
        if isinstance(s, ir.Op) and s.fn is ir.load_global and isinstance(s.target, str):
            loads.add(s.target)
            continue
        attr = isinstance(s, ir.Op) and s.fn is ir.get_attribute and not s.kwargs and \
            len(s.args) == 2 and isinstance(s.args[1], ir.Const)
        for name in ir.reads(s):
            if not (attr and s.args[0] == name and name not in s.args[1:]):
                bad.add(name)
    return dict.fromkeys(loads - bad)


def plain_object(value):
    """A module or a plain object (a SimpleNamespace, an instance whose class reads
    attributes as object does), whose attributes are read without running code."""
    if isinstance(value, (types.ModuleType, types.SimpleNamespace)):
        return True
    cls = type(value)
    return hasattr(value, "__dict__") and not isinstance(value, type) and \
        cls.__getattribute__ is object.__getattribute__ and \
        not hasattr(cls, "__getattr__") and cls.__module__ not in ("builtins", "numpy")


def as_global_reads(body):
    """``body`` with each ``t = G.attr`` of a global module or plain object ``G``
    that holds ``attr`` itself (a float, int or bool now) made a global read,
    ``t = load_global(AttributeOf(globals, "G"), "attr")``: its kind is that of the
    value, and a compiled program reads it again on every call."""
    roots = attribute_roots(body)
    where = {}
    for s in ir.walk(body):
        if isinstance(s, ir.Op) and s.fn is ir.load_global and s.target in roots and \
                all(isinstance(a, ir.Const) for a in s.args) and \
                isinstance(s.args[0].value, dict):
            namespace, key = s.args[0].value, s.args[1].value
            if plain_object(namespace.get(key)):
                where[s.target] = (namespace, key)
    if not where:
        return body

    def rewrite(stmts):
        out = []
        for s in stmts:
            if isinstance(s, ir.Op) and s.fn is ir.get_attribute and s.args[0] in where:
                namespace, key = where[s.args[0]]
                attr = s.args[1].value
                obj = namespace[key]
                held = getattr(obj, "__dict__", {}).get(attr)
                if type(held) in (float, int, bool) and not hasattr(type(obj), attr):
                    s = ir.replace(s, fn=ir.load_global,
                                   args=(ir.Const(AttributeOf(namespace, key)), ir.Const(attr)))
            out.append(ir.map_children(s, rewrite))
        return out
    return rewrite(body)
