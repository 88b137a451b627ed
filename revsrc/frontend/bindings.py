"""What a function's names held when it was transformed: the guards of its programs.

The lowering takes what a function's globals, closure cells and the attributes of
objects known when transforming (a method's ``self``, a module, a callable object)
hold as fixed, and folds it into the program: a helper's body is inlined, ``ACT =
np.tanh`` becomes a call of ``np.tanh``, a revsrc derivative its program. Such a
program is right only while every one of those names still holds the same object.
`guards` lists them, for the functions a program was lowered from, in the form that
`_kernels.Guards` checks before every call (ir.Program.deps): (holder, name, value,
code). A name rebound, to another ``def`` or to anything else, makes the program
anew; rebound back, anew again.

Read from the functions' bytecode (which names each loads, and which attributes it
reads off them), next to the lowering rather than inside it, with the lowering's test
of what is fixed: a module or anything callable. What is not (a number, an array, a
tuple) the program reads when it runs, and is not guarded. A name guarded that the
program did not use costs a check per call, never a wrong number.

The attributes of the standard library's modules, NumPy's and SciPy's are guarded as
the user's are: a test or a notebook may monkeypatch ``math.sin`` or ``np.tanh``, and a
program made before must not keep the old function's rule. A module's dict has a
version (PEP 509), so such a guard costs one comparison of integers while the module
is not written to. Their functions are not scanned further: their source is not the
program's.

A function's body and defaults are taken as fixed too (`function_guards`), and so is
what `callee.unwrap` reads of the callable a derivative is made of (`callee_guards`):
a partial's function, arguments and keywords, the class attribute ``__call__`` of an
object.
"""
from __future__ import annotations

import dis
import functools
import sys
import types

from .. import runtime
from .._kernels import CONTENTS, FUNCTION

__all__ = ["guards", "snapshot", "changed", "same", "function_guards", "callee_guards",
           "attribute_guards", "merged"]

# the libraries the rules are written for: their functions are not scanned
_FIXED_PACKAGES = frozenset(sys.stdlib_module_names) | {"numpy", "scipy", "revsrc"}

_GLOBAL, _FREE, _LOCAL = "global", "free", "local"
_LOADS = {"LOAD_GLOBAL": _GLOBAL, "LOAD_DEREF": _FREE, "LOAD_CLASSDEREF": _FREE,
          "LOAD_FAST": _LOCAL, "LOAD_FAST_CHECK": _LOCAL, "LOAD_FAST_AND_CLEAR": _LOCAL}
_ATTRIBUTES = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


def guards(fn, static=None, known=()):
    """(holder, name, value, code) for each name that ``fn`` (called with the
    parameters in ``static`` bound to known values: a method's ``self``) and the
    functions it reaches through them take as fixed; none for a (holder, name)
    already in ``known`` (the lowering's own deps)."""
    found = _Found(known)
    _scan(fn, static or {}, found)
    return found.items


def function_guards(fn):
    """The guards on what the lowering reads of the function ``fn`` itself: its
    ``__code__`` (its body), ``__defaults__`` and ``__kwdefaults__`` (a dict: its
    items too), each by identity (`_kernels.FUNCTION`)."""
    kw = fn.__kwdefaults__
    out = [(fn, FUNCTION, (fn.__code__, fn.__defaults__, kw), None)]
    if type(kw) is dict:
        out.append((kw, CONTENTS, tuple(kw.items()), None))
    return out


def callee_guards(f):
    """The guards on what `callee.unwrap` takes of the callable ``f`` (a function, a
    bound method, a partial, an object with ``__call__``, a derivative or a jitted
    function made by revsrc: their function's), down to the function it reads."""
    made = getattr(f, "_revsrc_transformed", None) or getattr(f, "_revsrc_jitted", None)
    if made is not None and hasattr(made, "f"):
        return callee_guards(made.f)
    if isinstance(f, types.FunctionType):
        return function_guards(f)
    if isinstance(f, (types.MethodType, staticmethod)):
        return callee_guards(f.__func__)     # (a bound method's are read-only)
    if isinstance(f, functools.partial):
        out = [(f, "func", f.func, None), (f, "args", f.args, None),
               (f, "keywords", f.keywords, None)]
        if type(f.keywords) is dict:
            out.append((f.keywords, CONTENTS, tuple(f.keywords.items()), None))
        return out + callee_guards(f.func)
    if isinstance(f, (type, types.ModuleType, types.BuiltinFunctionType)) or _fixed(f):
        return []
    out = [(f, "__class__", type(f), None)]
    for klass in type(f).__mro__:            # where f(...) finds __call__
        raw = vars(klass).get("__call__", runtime.UNBOUND)
        out.append((vars(klass), "__call__", raw, None))
        if raw is not runtime.UNBOUND:
            if isinstance(raw, types.FunctionType):
                out += function_guards(raw)
            break
    return out


def attribute_guards(base, attr):
    """The guards on ``base.attr`` as the lowering took it (an object's method or a
    class's attribute): the object's class (``o.__class__ = B``), the instance's own
    dict (an attribute set there later hides the class's), the class dict it came from."""
    found = _Found((), everything=True)
    _attribute(base, attr, found)
    return found.items


def merged(deps, more):
    """``deps`` and the guards of ``more`` on a (holder, name) not guarded in it."""
    taken = {(id(d[0]), d[1]) for d in deps}
    return list(deps) + [d for d in more if (id(d[0]), d[1]) not in taken]


def snapshot(fn):
    """(holder, name, value) for every name the callable ``fn`` (a function, a method, a
    partial, an object with ``__call__``) and the functions it reaches read, numbers and
    arrays too: what a pullback (revsrc.vjp, revsrc.linearize) must find unchanged when
    it runs the program again, since its output was computed with them."""
    found = _Found((), everything=True)
    _follow(fn, found)
    return [(holder, name, value) for holder, name, value, _ in found.items]


def changed(snap):
    """The first name of ``snap`` (from `snapshot`) that holds another value now, or None.
    A number or a string equal to the one taken counts as the same."""
    for holder, name, value in snap:
        if not same(_current(holder, name), value):
            return name
    return None


def same(now, value):
    """Whether ``now`` is still ``value``: the same object, or an equal number or string."""
    return now is value or type(now) is type(value) and \
        type(value) in (int, float, bool, complex, str) and now == value


def _current(holder, name):
    if isinstance(holder, types.CellType):
        try:
            return holder.cell_contents
        except ValueError:
            return runtime.UNBOUND
    if isinstance(holder, (dict, types.MappingProxyType)):
        return holder.get(name, runtime.UNBOUND)
    try:
        return getattr(holder, name)
    except Exception:   # noqa: BLE001 - whatever the attribute raises now, it changed
        return runtime.UNBOUND


class _Found:
    """The guards found so far, one per (holder, name), and the functions scanned;
    ``everything``: names holding numbers and arrays too (a `snapshot`)."""

    def __init__(self, known, everything=False):
        self.items = []
        self.taken = {(id(d[0]), d[1]) for d in known}
        self.scanned = set()
        self.everything = everything

    def add(self, holder, name, value):
        if (id(holder), name) in self.taken:
            return
        self.taken.add((id(holder), name))
        code = value.__code__ if isinstance(value, types.FunctionType) else None
        self.items.append((holder, name, value, code))


def _fixed(value):
    """Whether ``value`` (a module, or what it defines) is a fixed library's."""
    module = value.__name__ if isinstance(value, types.ModuleType) else \
        getattr(value, "__module__", None)
    return isinstance(module, str) and module.partition(".")[0] in _FIXED_PACKAGES


is_fixed = _fixed     # (the lowering asks it of the objects it reads attributes of)


def _known_now(value):
    """Folded into a program by the lowering (its test: a module or anything callable),
    rather than read when the program runs."""
    return isinstance(value, types.ModuleType) or callable(value)


def _scan(fn, static, found):
    code = fn.__code__
    key = (code, tuple(map(id, static.values())))
    if key in found.scanned:
        return
    found.scanned.add(key)
    if found.everything:      # its body and defaults gave the output too
        for attr in ("__code__", "__defaults__", "__kwdefaults__"):
            found.add(fn, attr, getattr(fn, attr))
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    globals_ = fn.__globals__
    for how, name, attributes in _loads(code, frozenset()):
        if how == _LOCAL:
            if name not in static:
                continue
            value = static[name]
        elif how == _FREE:
            cell = cells.get(name)
            try:
                value = cell.cell_contents
            except (AttributeError, ValueError):   # not a cell of fn's; not bound yet
                continue
            if not (found.everything or _known_now(value)):
                continue
            found.add(cell, name, value)
        else:
            value = globals_.get(name, runtime.UNBOUND)
            if value is runtime.UNBOUND or not (found.everything or _known_now(value)):
                continue      # a builtin; a global read when the program runs
            found.add(globals_, name, value)
        _follow(value, found)
        for attr in attributes:
            value = _attribute(value, attr, found)
            if value is None:
                break
            _follow(value, found)


def _loads(code, enclosing):
    """(how, name, attributes) for each name ``code`` and the functions nested in it
    load: how it is found (a global, a closure cell of the function scanned, or a
    local of it, ``enclosing`` holding the cells of the functions around ``code``),
    and the attributes then read off it (``np.linalg.norm``: linalg, norm)."""
    chain = None
    for opname, argval in _instructions(code):
        if opname in _ATTRIBUTES and chain is not None:
            chain[2].append(argval)
            continue
        if opname == "EXTENDED_ARG":
            continue
        if chain is not None:
            yield chain
            chain = None
        how = _LOADS.get(opname)
        if how is not None and isinstance(argval, str):
            name = argval
            if how == _FREE and (name in code.co_cellvars or name in enclosing):
                how = _LOCAL
            chain = (how, name, [])
    if chain is not None:
        yield chain
    inner = enclosing | frozenset(code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _loads(const, inner)


# The (operation name, argument value) pairs `_loads` reads, as dis.get_instructions
# gives them, read straight from the bytecode for the operations it looks at: dis
# computes every instruction's position, line and shown argument, and was most of
# the scan (a fifth of a millisecond for the RK4 of bench/). How an argument names
# a variable is the CPython version's (3.11 to 3.13 here); another version, or code
# without the table of its variables, goes through dis.
_OPNAMES = dis.opname
_HALVED = frozenset(n for n in ("LOAD_GLOBAL",) + (("LOAD_ATTR",) if sys.version_info >= (3, 12)
                                                   else ()))
_BY_NAME = frozenset({"LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD"})
_BY_SLOT = frozenset(_LOADS) - {"LOAD_GLOBAL"}
_FAST_SCAN = (3, 11) <= sys.version_info[:2] <= (3, 13)
_CACHE_OP = dis.opmap.get("CACHE", -1)
_EXTENDED = dis.opmap["EXTENDED_ARG"]


def _instructions(code):
    slot_name = getattr(code, "_varname_from_oparg", None)
    if not _FAST_SCAN or slot_name is None:
        return [(ins.opname, ins.argval) for ins in dis.get_instructions(code)]
    raw = code.co_code       # (as compiled: CPython's specializations undone)
    names = code.co_names
    out = []
    extended = 0
    for i in range(0, len(raw), 2):
        op = raw[i]
        if op == _CACHE_OP:
            continue         # (dis does not show the inline caches)
        arg = raw[i + 1] | extended
        extended = arg << 8 if op == _EXTENDED else 0
        opname = _OPNAMES[op]
        if opname in _BY_NAME:
            value = names[arg >> 1 if opname in _HALVED else arg]
        elif opname in _BY_SLOT:
            value = slot_name(arg)
        else:
            value = None     # (no other operation's argument is read)
        out.append((opname, value))
    return out


def _attribute(base, attr, found):
    """``base.attr`` if the lowering takes it as fixed (None otherwise), guarded
    where it is found: the module's dict, the instance's dict, its class's."""
    if isinstance(base, types.ModuleType):
        value = vars(base).get(attr, runtime.UNBOUND)
        if value is runtime.UNBOUND or not (found.everything or _known_now(value)):
            return None     # read when the program runs; a module's __getattr__
        found.add(vars(base), attr, value)   # np.tanh too: it may be monkeypatched
        return value
    try:
        value = getattr(base, attr)
    except Exception:   # the lowering refuses it, with the user's line
        return None
    if not (found.everything or _known_now(value)):
        return None
    if not isinstance(base, type):      # its class found it (o.__class__ = B rebinds)
        found.add(base, "__class__", type(base))
    own = getattr(base, "__dict__", None)
    own = own if type(own) is dict else None     # a class's is a mapping proxy
    home = None
    for klass in base.__mro__ if isinstance(base, type) else type(base).__mro__:
        if attr in vars(klass):
            home = vars(klass)
            break
    raw = home[attr] if home is not None else None
    if home is not None and hasattr(type(raw), "__set__"):   # a property, a slot
        if isinstance(raw, types.MemberDescriptorType):
            found.add(base, attr, value)       # a slot's value, read through getattr
        else:
            found.add(home, attr, raw)
    elif own is not None and attr in own:
        found.add(own, attr, value)
    elif home is not None:
        found.add(home, attr, raw)
        if own is not None:   # set on the instance later, it would hide the class's
            found.add(own, attr, runtime.UNBOUND)
    else:
        found.add(base, attr, value)           # a class's __getattr__
    return value


def _follow(value, found):
    """Scan what the lowering inlines of ``value``: a user's function, method,
    callable object, partial, or the methods of a user's class."""
    if _fixed(value) or getattr(value, "_revsrc_transformed", None) is not None or \
            getattr(value, "_revsrc_jitted", None) is not None:
        return   # a derivative's or a jitted function's programs carry their own guards
    if isinstance(value, types.FunctionType):
        _scan(value, {}, found)
    elif isinstance(value, types.MethodType):
        if isinstance(value.__func__, types.FunctionType) and not _fixed(value.__func__):
            _scan(value.__func__, _bound_self(value.__func__, value.__self__), found)
    elif isinstance(value, functools.partial):
        _follow(value.func, found)
    elif isinstance(value, type):
        for klass in value.__mro__[:-1]:
            for raw in vars(klass).values():
                inner = raw.fget if isinstance(raw, property) else \
                    getattr(raw, "__func__", raw)       # a static or class method's
                if isinstance(inner, types.FunctionType) and not _fixed(inner):
                    _scan(inner, {}, found)
    elif not isinstance(value, types.ModuleType):
        call = getattr(type(value), "__call__", None)
        if isinstance(call, types.FunctionType) and not _fixed(call):
            _scan(call, _bound_self(call, value), found)


def _bound_self(fn, value):
    code = fn.__code__
    return {code.co_varnames[0]: value} if code.co_argcount else {}
