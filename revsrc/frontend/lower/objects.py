"""Objects known when transforming: attributes (of arrays, modules, static
containers), items of static containers, their methods, and building namedtuples,
dataclasses and objects whose ``__init__`` only stores attributes.
"""
from __future__ import annotations

import ast
import inspect
import math
import types

import numpy as np

from ...runtime import containers
from ... import errors, runtime
from ...core import ir, kinds, pytree
from ...core.ir import Const
from .. import bindings
from .dispatch import expression
from .classes import is_super_call
from .rebind import placed_dict
from .values import (MISSING, STATIC_NODES, BoundMethod, Known, Slot, VDict, VRecord,
                     VTuple, class_of, describe_static, is_static, is_static_value,
                     mentions_slot, short, static_node, vtuple)
from ...core.late import LateModule

# map, filter, np.vectorize and iterators kept for later (mapping.py): loaded when met
mapping = LateModule(__package__ + ".mapping")

_ATTRS_NONDIFF = {"shape", "ndim", "size", "dtype"}
_ATTRS_FN = {"T": np.transpose, "real": np.real, "imag": np.imag}



def _whole_statement(lowerer, node):
    """Whether the call ``node`` is what its statement does (``v = d.pop(k)``,
    ``d.pop(k)``), so that it runs exactly once where the statement runs: not an arm
    of a conditional expression or a comprehension, which may not run it."""
    stmt = lowerer.statement
    return isinstance(stmt, (ast.Assign, ast.Expr)) and stmt.value is node and (
        isinstance(stmt, ast.Expr) or all(isinstance(t, ast.Name) for t in stmt.targets))


def _static_pop(base, args, node, loc):
    """``d.pop(key[, default])`` on a dict made in the function, with a constant key,
    outside branches and loops: the static dict loses the key (every name holding it
    sees it, as in Python); a missing key gives the default, or is refused as
    Python's KeyError would stop the program."""
    if base.placed:
        raise placed_dict(ast.unparse(node.func.value), loc)
    key = args[0].value
    if key in base.keys:
        at = base.keys.index(key)
        value = base.values[at]
        del base.keys[at], base.values[at]
        return value
    if len(args) == 2:
        return args[1]
    raise errors.StaticValueError(f"the dict has no key {key!r} to pop (KeyError)", loc=loc,
                                  hint="give pop a default: d.pop(key, 0.0)")

class ObjectLowering:
    """Attributes, static items and objects (a part of `Lowerer`)."""

    @expression(ast.Attribute)
    def _attribute(self, sc, node, out, into, loc):
        base = self._expr(sc, node.value, out)
        if isinstance(base, STATIC_NODES):
            return self._static_attribute(sc, base, node.attr, out, into, loc)
        if isinstance(base, Known):
            return self._known_attribute(base.value, node.attr, out, into, loc)
        stored = self._stored_number(base, node.attr, out, into, loc)
        if stored is not None:
            return stored
        method = self._stored_function(base, node.attr)
        if method is not None:    # f = PH.force, PH a global object: as PH.force(...) calls
            return Known(method)
        base = self._materialize(base, out, loc)
        if node.attr in _ATTRS_NONDIFF:
            return self._emit(out, getattr, (base, Const(node.attr)), into, loc)
        fn = _ATTRS_FN.get(node.attr)
        if fn is not None:
            return self._emit(out, fn, (base,), into, loc)
        if node.attr in containers.RESULT_FIELDS:   # np.linalg.eigh(a).eigenvalues
            return self._emit(out, containers.result_field, (base, Const(node.attr)), into,
                              loc)
        # an attribute of a value that carries no gradient (a config object, an
        # argument not differentiated): read when the program runs; refused where a
        # differentiated value reaches it (revsrc/passes/analysis.py)
        return self._emit(out, ir.get_attribute, (base, Const(node.attr)), into, loc)

    def _known_attribute(self, value, name, out, into, loc):
        """``value.name`` (also ``getattr(value, "name")``) of a module, class or
        function known when transforming."""
        try:
            attr = getattr(value, name)
        except AttributeError:
            raise errors.StaticValueError(
                f"{short(value)} has no attribute {name!r}", loc=loc) from None
        if is_static(attr):
            self._depend_attribute(value, name, attr)
            return Known(attr)
        if isinstance(value, types.ModuleType):
            # NumPy's and math's constants are fixed; a user module's may be rebound
            if value in (math, np) or attr is None:
                return Const(attr)
            return self._emit(out, ir.load_global, (Const(vars(value)), Const(name)),
                              into, loc)
        return self._emit(out, getattr, (Const(value), Const(name)), into, loc)

    def _depend_attribute(self, value, name, attr):
        """Guard ``value.name`` (``attr``), taken as fixed: a module's entry; for an
        object's method or a class's attribute, the object's class, the instance's own
        dict and the class dict it came from (rebinding any makes the program anew)."""
        if isinstance(value, types.ModuleType):
            self._depend(vars(value), name, attr)
        elif not bindings.is_fixed(value):
            self.deps.extend(bindings.attribute_guards(value, name))

    def _stored_number(self, base, attr, out, into, loc):
        """``G.attr`` where G is a global or closure variable holding an object and
        attr a number or an array in its ``__dict__`` (``CFG.k = 0.7``): read when the
        program runs, as a global is, with its kind the program's. G is guarded by
        identity and the attribute by kind, so the engine can take the program."""
        held = self.loaded.get(base) if isinstance(base, str) else None
        if held is None:
            return None
        holder, name, obj = held
        own = getattr(obj, "__dict__", None)
        if not isinstance(own, dict) or attr not in own or isinstance(
                obj, (types.ModuleType, type)) or \
                type(obj).__getattribute__ is not object.__getattribute__ or \
                any(hasattr(type(k.__dict__.get(attr)), "__set__")
                    for k in type(obj).__mro__ if attr in k.__dict__):
            return None
        value = own[attr]
        if kinds.of_value(value) not in kinds.SCALARS + (kinds.ARRAY,):
            return None
        self.deps.append((holder, name, obj, None))
        self.deps.append((own, attr, "kind", kinds.signature(value)))
        return self._emit(out, ir.load_global, (Const(own), Const(attr)), into, loc)

    def _static_attribute(self, sc, base, attr, out, into, loc):
        """``base.attr`` on a static container: a namedtuple's or dataclass's field,
        a property, a static field, a class attribute."""
        if isinstance(base, VDict) or (isinstance(base, VTuple) and base.cls is None):
            raise errors.UnsupportedSyntax(
                f"attribute .{attr} of {describe_static(base)} is not supported", loc=loc)
        if isinstance(base, VRecord) and base.td is None:   # an object made in the function
            if attr in base.items_by_name:
                return base.items_by_name[attr]
            cls = base.probe
            probe = None
        else:
            if isinstance(base, VTuple) and attr in base.cls._fields:
                return base[base.cls._fields.index(attr)]
            probe = base.probe
            if probe is None:
                raise errors.UnsupportedSyntax(
                    f"the attributes of {describe_static(base)} cannot be read: its class's "
                    "unflatten does not build an instance revsrc can look into", loc=loc)
            cls = type(probe)
        found = inspect.getattr_static(cls if probe is None else probe, attr, MISSING)
        if isinstance(found, property) and found.fget is not None:
            return self._inline_callable(sc, found.fget, [base], [], out, into, loc)
        if found is MISSING:
            raise errors.StaticValueError(f"{cls.__name__} has no attribute {attr!r}",
                                           loc=loc)
        if probe is not None and (attr in getattr(probe, "__dict__", {}) or isinstance(
                inspect.getattr_static(cls, attr, None), types.MemberDescriptorType)):
            return self._from_probe(base, getattr(probe, attr), loc)
        if isinstance(found, (types.FunctionType, staticmethod, classmethod)):
            return Known(BoundMethod(base, found))
        if probe is None and isinstance(found, types.MemberDescriptorType):
            raise errors.StaticValueError(      # a slot __init__ did not set
                f"'{cls.__name__}' object has no attribute {attr!r}", loc=loc)
        if hasattr(type(found), "__get__") or hasattr(type(found), "__set__"):
            # a descriptor (functools.cached_property, one of the user's): what it gives
            # depends on the instance, which revsrc does not build
            raise errors.UnsupportedSyntax(
                f"{cls.__name__}.{attr} is a descriptor ({type(found).__name__}); revsrc "
                "reads plain attributes, properties and methods of objects built in the "
                "function", loc=loc, hint="use a @property, or store the value in __init__")
        value = getattr(cls, attr)
        if is_static(value):
            return Known(value)
        # class-level data: read when the program runs (it may be changed)
        return self._emit(out, getattr, (Const(cls), Const(attr)), into, loc)

    def _from_probe(self, base, v, loc):
        items = base.items if isinstance(base, VRecord) else list(base)
        if isinstance(v, Slot):
            return items[v.i]
        if type(v) in (tuple, list):
            return vtuple([self._from_probe(base, x, loc) for x in v],
                          "list" if type(v) is list else "tuple")
        if type(v) is dict:
            return VDict(list(v.keys()), [self._from_probe(base, x, loc) for x in v.values()])
        if mentions_slot(v):
            raise errors.UnsupportedSyntax(
                f"an attribute of {describe_static(base)} is computed from its children "
                "by its class (its unflatten), so which values it holds is not known when "
                "transforming", loc=loc,
                hint="store the children as attributes, unchanged, in unflatten")
        if is_static(v):
            return Known(v)
        return Const(v)   # a static field (part of the container's structure)

    def _static_item(self, sc, node, base, idx, loc):
        """``base[idx]`` on a static container with a constant index (None: not
        static, the container is built and indexed as a value)."""
        if not isinstance(idx, Const):
            return None
        k = idx.value
        if isinstance(base, VTuple):
            if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
                if not -len(base) <= k < len(base):
                    raise errors.StaticValueError(
                        f"index {k} is out of range for {describe_static(base)}", loc=loc)
                return base[int(k)]
            if isinstance(k, slice):
                return vtuple(base[k], base.seq if base.cls is None else "tuple")
            return None
        if isinstance(base, VDict):
            try:
                hash(k)
            except TypeError:
                return None
            got = base.get(k, MISSING)
            if got is MISSING:
                raise errors.StaticValueError(
                    f"key {k!r} is not in {describe_static(base)} (its keys: "
                    f"{', '.join(repr(x) for x in base.keys[:8])}"
                    f"{'...' if len(base.keys) > 8 else ''})", loc=loc)
            return got
        raise errors.StaticValueError(f"{describe_static(base)} cannot be subscripted",
                                       loc=loc)

    def _dunder_call(self, sc, base, name, args, out, into, loc):
        """``base[i]`` (``name`` ``__getitem__``), ``len(base)`` (``__len__``) on an
        object whose class is the user's and defines that method: the method inlined
        with ``self`` the object; None where it defines none."""
        if not isinstance(base, VRecord) or not isinstance(
                inspect.getattr_static(class_of(base), name, None), types.FunctionType):
            return None
        found = self._static_attribute(sc, base, name, out, None, loc)
        if not (isinstance(found, Known) and isinstance(found.value, BoundMethod)):
            return None
        return self._inline_callable(sc, found.value.fn, [found.value.obj] + list(args), [],
                                     out, into, loc)

    def _container_method(self, sc, base, name, node, out, into, loc):
        """``base.name(...)`` on a static container: dict views, namedtuple helpers,
        and methods of a namedtuple's, dataclass's or registered class's own class
        (inlined with ``self`` the container)."""
        args, kwargs = self._call_args(sc, node, out, loc)
        if isinstance(base, VDict):
            if name in ("items", "keys", "values") and not args and not kwargs:
                mapping.check_kept_dict_view(sc, node, name, loc)
                if name == "keys":
                    return vtuple([Const(k) for k in base.keys], "list")
                if name == "values":
                    return vtuple(list(base.values), "list")
                return vtuple([VTuple((Const(k), v)) for k, v in zip(base.keys, base.values)],
                              "list")
            if name == "get" and 1 <= len(args) <= 2 and not kwargs and \
                    isinstance(args[0], Const):
                return base.get(args[0].value, args[1] if len(args) == 2 else Const(None))
            if name == "copy" and not args and not kwargs:
                return VDict(base.keys, base.values, owned=True)
            if name == "pop" and 1 <= len(args) <= 2 and not kwargs and \
                    isinstance(args[0], Const) and base.owned and \
                    not (self.cond_depth or self.loop_depth) and _whole_statement(self, node):
                return _static_pop(base, args, node, loc)
            if name == "setdefault" and 1 <= len(args) <= 2 and not kwargs and \
                    isinstance(args[0], Const) and args[0].value in base.keys:
                return base.get(args[0].value)        # there: a read, changing nothing
            if name in ("setdefault", "update") and self._may_change(base, node):
                if base.placed:
                    raise placed_dict(ast.unparse(node.func.value), loc)
                return self._static_dict_write(base, name, args, kwargs, out, loc)
            if name in ("pop", "setdefault", "update"):
                raise errors.UnsupportedSyntax(
                    f"d.{name}(...) is followed on a dict made in the function, with "
                    "constant keys, as a statement of its own outside branches and loops"
                    + (" (or where the key is already in the dict)"
                       if name == "setdefault" else ""), loc=loc,
                    hint="d[k] = d.get(k, v) for d.setdefault(k, v); d[k] = v per key for "
                         "d.update(...); for d.pop, build the dict without the key: "
                         "{k: v for k, v in d.items() if k != key}")
            if name == "pop":
                raise errors.UnsupportedSyntax(
                    "d.pop(key) is followed on a dict made in the function, with a "
                    "constant key, as a statement of its own (v = d.pop(key)) outside "
                    "branches and loops", loc=loc,
                    hint="read the item and build the dict without it: "
                         "{k: v for k, v in d.items() if k != key}")
        elif isinstance(base, VTuple) and base.cls is not None and name == "_asdict":
            return VDict(list(base.cls._fields), list(base), owned=True)
        elif isinstance(base, VTuple) and base.cls is not None and name == "_replace":
            items = list(base)
            for k, v in kwargs:
                if k not in base.cls._fields:
                    raise errors.StaticValueError(f"{base.cls.__name__} has no field {k!r}",
                                                   loc=loc)
                items[base.cls._fields.index(k)] = self._snapshot_deep(v, out, loc)
            return vtuple(items, cls=base.cls, probe=base.probe)
        elif isinstance(base, VTuple) and base.cls is None and name == "copy" and \
                base.seq == "list" and not args:
            return vtuple(list(base), "list")
        elif not isinstance(base, VTuple) or base.cls is not None:
            found = self._static_attribute(sc, base, name, out, None, loc)
            if isinstance(found, Known):
                fn = found.value
                if isinstance(fn, BoundMethod):
                    obj, f = fn.obj, fn.fn
                    if isinstance(f, staticmethod):
                        return self._inline_callable(sc, f.__func__, args, kwargs, out,
                                                     into, loc)
                    if isinstance(f, classmethod):
                        return self._inline_callable(sc, f.__func__,
                                                     [Known(class_of(obj))] + args,
                                                     kwargs, out, into, loc)
                    return self._inline_callable(sc, f, [obj] + args, kwargs, out, into, loc)
        raise errors.UnsupportedSyntax(
            f"method .{name}() of {describe_static(base)} is not supported", loc=loc,
            hint="dicts: .items(), .keys(), .values(), .get(key), .copy(); "
                 "namedtuples: ._replace(...), ._asdict(); and the methods of your own "
                 "classes")

    def _dict_method_statement(self, sc, call, out):
        """``d.pop(k)``, ``d.setdefault(k, v)``, ``d.update(...)`` as statements, on a
        name holding a dict the lowering knows: the change is followed as in a value
        (`_container_method`). False for any other call."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in ("pop", "setdefault", "update")
                and isinstance(func.value, ast.Name)
                and isinstance(sc.env.get(func.value.id), VDict)):
            return False
        self._expr(sc, call, out)
        return True

    def _may_change(self, base, node):
        """Whether the call ``node`` may change the static dict ``base`` in place: one
        the function made, outside branches and loops, the call its whole statement
        (so it runs exactly once where the statement runs)."""
        return base.owned and not (self.cond_depth or self.loop_depth) and \
            _whole_statement(self, node)

    def _static_dict_write(self, base, name, args, kwargs, out, loc):
        """``d.setdefault(key[, default])`` of a key ``d`` lacks (the default stored and
        returned) or ``d.update(other, **kw)`` with ``other`` a dict whose keys are
        known (None returned), on a static dict `_may_change` allows."""
        if name == "setdefault":
            if kwargs or not 1 <= len(args) <= 2 or not isinstance(args[0], Const):
                raise errors.UnsupportedSyntax(
                    "d.setdefault(key, default) is followed with a constant key", loc=loc,
                    hint="d[k] = d.get(k, v)")
            pairs = [(args[0].value, args[1] if len(args) == 2 else Const(None))]
        else:
            if len(args) > 1 or (args and not isinstance(args[0], VDict)):
                raise errors.UnsupportedSyntax(
                    "d.update(...) is followed with a dict whose keys are known when "
                    "transforming (a dict literal, or one the function made), and keywords",
                    loc=loc, hint="assign each key: d[k] = v")
            pairs = list(zip(args[0].keys, args[0].values)) if args else []
            pairs += list(kwargs)
        for key, value in pairs:
            if not is_static_value(value):
                value = self._snapshot(self._materialize(value, out, loc), out, loc)
            base.put(key, value)
        return value if name == "setdefault" else Const(None)

    def _given_to(self, cls, out, loc):
        """How ``cls``'s defaults are bound (`InliningLowering._given`): what its
        constructor holds (a namedtuple's __new__, a dataclass's __init__) is guarded,
        so defaults rebound make the program anew."""
        made = cls.__new__ if pytree.node_of_class(cls) == "namedtuple" else cls.__init__
        if isinstance(made, types.FunctionType):
            self.deps.extend(bindings.function_guards(made))
        return lambda name, value: self._given(cls.__name__, name, value, out, loc)

    def _construct(self, sc, cls, args, kwargs, out, loc):
        """``Cls(...)`` for a namedtuple, a dataclass or a class whose ``__init__``
        only stores its arguments: a static container of the operands."""
        if pytree.node_of_class(cls) == "namedtuple":
            bound = _bind_class(cls, cls, args, kwargs, loc, self._given_to(cls, out, loc))
            items = [self._snapshot_deep(bound[f], out, loc) for f in cls._fields]
            return vtuple(items, cls=cls, probe=cls._make([Slot(i) for i in range(len(items))]))
        if pytree.node_of_class(cls) == "dataclass":
            if getattr(cls, "__post_init__", None) is not None or any(
                    not f.init for f in pytree.dataclass_fields(cls)):
                raise errors.UnsupportedSyntax(
                    f"{cls.__name__} has __post_init__ or fields set outside __init__: "
                    "revsrc builds dataclasses only from their fields", loc=loc,
                    hint="build it outside the function and pass it in")
            bound = _bind_class(cls, cls, args, kwargs, loc, self._given_to(cls, out, loc))
            fields = pytree.dataclass_fields(cls)
            static = [f for f in fields if f.metadata.get("static", False)]
            fixed = []
            for f in static:
                v = bound[f.name]
                if not isinstance(v, Const):
                    raise errors.UnsupportedSyntax(
                        f"static field {f.name} of {cls.__name__} gets a value computed in "
                        "the function", loc=loc, hint="pass a constant")
                fixed.append((f.name, v.value))
            names = tuple(f.name for f in fields if f not in static)
            td = pytree.TreeDef("dataclass", cls, (names, tuple(fixed)),
                                tuple(pytree.TreeDef(pytree.LEAF) for _ in names))
            items = [self._snapshot_deep(bound[n], out, loc) for n in names]
            return static_node(td, items)
        raise errors.UnsupportedSyntax(  # pragma: no cover - _is_record_class says which
            f"{cls.__name__} cannot be built in a differentiated function", loc=loc)

    def _make_object(self, sc, cls, args, kwargs, out, loc):
        """``Cls(...)`` for a class whose ``__init__`` only sets attributes: its
        ``__init__`` inlined on a static object that records them; its methods are
        inlined with ``self`` that object, its attributes read what was stored."""
        try:    # an abstract class (abc.ABC's, methods left abstract): Python's TypeError
            object.__new__(cls)
        except TypeError as exc:
            raise errors.StaticValueError(str(exc), loc=loc) from None
        obj = VRecord(None, [], cls)
        if cls.__init__ is object.__init__:       # no __init__ of its own
            if args or kwargs:
                raise errors.StaticValueError(f"{cls.__name__}() takes no arguments", loc=loc)
            return obj
        obj.building = True
        try:
            self._inline_callable(sc, cls.__init__, [obj] + list(args), kwargs, out, None,
                                  loc)
        finally:
            obj.building = False
        return obj


def is_record_class(cls):
    """A class whose instances revsrc can build in a function: a namedtuple, a
    dataclass."""
    return pytree.node_of_class(cls) in ("namedtuple", "dataclass")


def _bind_class(cls, fn, args, kwargs, loc, given):
    try:
        sig = inspect.signature(fn)
        ba = sig.bind(*range(len(args)), **{k: ("kw", k) for k, _ in kwargs})
    except (TypeError, ValueError) as exc:
        raise errors.StaticValueError(f"{cls.__name__}(): {exc}", loc=loc) from None
    kw = dict(kwargs)
    out = {}
    for name, p in sig.parameters.items():
        if name in ba.arguments:
            m = ba.arguments[name]
            out[name] = kw[m[1]] if isinstance(m, tuple) else args[m]
        elif p.default is not inspect.Parameter.empty:
            out[name] = given(name, p.default)
    return out


# ----- super() in a method -----

def super_method(lowerer, sc, func, out, loc):
    """What ``super().name`` (``func``) is in a method whose object is known when
    transforming (a bound method's ``self``, an object made in the function): the
    attribute Python finds in the classes after the method's own class in the
    object's MRO, bound to the object, so the call is inlined as any method's is.
    The class that holds it, and that the classes between hold no such name, are
    guarded (a redefined method makes the program anew)."""
    call = func.value
    if call.args:
        cls = lowerer._expr(sc, call.args[0], out)
        cls = cls.value if isinstance(cls, Known) and isinstance(cls.value, type) else None
        obj = lowerer._expr(sc, call.args[1], out)
    else:
        cell = sc.cells.get("__class__")
        cls = cell.cell_contents if cell is not None else None
        code = sc.fn.__code__ if sc.fn is not None else None
        first = code.co_varnames[0] if code is not None and code.co_argcount else None
        scope, obj = sc, None
        while scope is not None and obj is None and first is not None:
            obj, scope = scope.env.get(first), scope.enclosing
    if isinstance(obj, Known):
        kind = obj.value if isinstance(obj.value, type) else type(obj.value)
    elif isinstance(obj, VRecord) and obj.td is None:
        kind = obj.probe
    else:
        kind = None
    if not isinstance(cls, type) or kind is None or cls not in kind.__mro__:
        raise errors.UnsupportedSyntax(
            "super() is followed in a method of an object known when transforming (a "
            "bound method's self, an object made in the function)", loc=loc,
            hint="call the base class's method by name: Base.method(self, ...)")
    after = kind.__mro__[kind.__mro__.index(cls) + 1:]
    for k in after:
        raw = vars(k).get(func.attr, MISSING)
        lowerer.deps.append((vars(k), func.attr,
                             runtime.UNBOUND if raw is MISSING else raw,
                             getattr(raw, "__code__", None)))
        if raw is not MISSING:
            break
    else:
        raise errors.StaticValueError(
            f"super() of {kind.__name__} has no attribute {func.attr!r}", loc=loc)
    if isinstance(obj, Known):
        return getattr(super(cls, obj.value), func.attr)
    if not isinstance(raw, (types.FunctionType, staticmethod, classmethod)) and not (
            raw is object.__init__ and func.attr == "__init__"):
        raise errors.UnsupportedSyntax(
            f"super().{func.attr} is not a method of {kind.__name__}'s classes", loc=loc,
            hint="call the base class's method by name: Base.method(self, ...)")
    return BoundMethod(obj, raw)
