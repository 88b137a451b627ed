"""What a ``backend="jax"`` program reads from Python state, read again at every call.

jax.jit runs the printed function once per static arguments and shapes, as it traces,
and keeps what it computed. Anything the program reads from Python objects at that
time (a module global, a closure cell, ``self.scale``, ``cfg.k`` of an argument that is
not differentiated, ``CFG["w"]`` of a global dict) would be frozen at its first value,
where the other backends read it when the program runs. So `hoist` takes those reads
out of the program: each becomes a parameter of the jitted function, with a function
that reads it from the objects at every call (`Hoisted.values`). A float or an array
read so is a traced argument (a new value costs no new trace); anything else is a
static one, compared by value or by identity as jax.jit compares static arguments, so a
change traces again rather than being missed.

A chain of reads (``self.cfg.k``, ``G["opts"].rate``) is one read, from its root: the
root is a module global, a closure cell, a constant object of the program (the
``self`` of a bound method, a class) or a parameter holding an object, a dict, a list
or a tuple that the program never assigns. A root only the hoisted reads used is no
longer passed (a parameter's value becomes None), so a new object of the same shape
of attributes is no new trace.

A read that fails at the call (an attribute a branch not taken would never read) is
passed as an `Unread`, and `read` raises its error only where the program reads it.

An attribute read that is no such chain (``layer.w`` for each ``layer`` of a list the
program walks) is made while tracing, and `watch` records it: before each call the
compiled program checks each read it recorded still gives what it gave (`Watched`:
the same object, or an equal number, string or array), and traces again if not.
Containers passed as static arguments are compared by their contents (`freeze`).
"""
from __future__ import annotations

import builtins
import operator
import threading

import numpy as np

from ...core import ir, kinds
from ...core.ir import Const, Op
from .load import loaded

__all__ = ["hoist", "Hoisted", "read", "Unread", "watch", "watch_item", "Watched", "recording", "freeze"]

# the operations that read Python state: an attribute or a constant item of an object
_READS = {builtins.getattr: "attr", ir.get_attribute: "attr", operator.getitem: "item"}
# kinds of parameters that may hold Python state (floats and arrays are values)
_HOLDERS = {kinds.ANY, kinds.DICT, kinds.LIST, kinds.TUPLE}
# constants whose attributes and items never change: nothing to read again
_FIXED = (str, bytes, bool, int, float, complex, type(None), range, slice, np.generic,
          np.ndarray)


class Unread:
    """A read that failed at the call: its error, raised by `read` where the program
    reads it. Compared by the error's type and text, so the same failure at every call
    is one trace."""
    __slots__ = ("error", "_key")

    def __init__(self, error):
        self.error = error
        self._key = (type(error), str(error))

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, Unread) and other._key == self._key


def read(value):
    """A value read at the call (what the printed program calls where it read it)."""
    if type(value) is Unread:
        raise value.error.with_traceback(None)
    return value


class Hoisted:
    """The program with its reads of Python state as parameters, and how to read them:
    ``values(call)`` is the values of the program's parameters at a call, then those
    reads'; ``dead``: the positions of parameters the program reads no longer."""

    def __init__(self, program, getters, dead):
        self.program, self.getters, self.dead = program, getters, dead

    def values(self, call):
        extra = []
        for get in self.getters:
            try:
                extra.append(get(call))
            except Exception as exc:     # raised where the program reads it, if it does
                extra.append(Unread(exc))
        if self.dead:
            call = [None if i in self.dead else v for i, v in enumerate(call)]
        return (*call, *extra)


def _root_getter(root):
    kind = root[0]
    if kind == "param":
        i = root[1]
        return lambda call: call[i]
    if kind == "global":
        ns, key = root[2], root[3]
        return lambda call: ns[key]
    if kind == "cell":
        cell = root[2]
        return lambda call: cell.cell_contents
    value = root[2]
    return lambda call: value


def _step_getter(parent, step):
    how, key = step
    if how == "attr":
        return lambda call: getattr(parent(call), key)
    return lambda call: parent(call)[key]


class _Paths:
    """The read each hoisted statement stands for, as a path from its root, and one
    parameter (and getter) per distinct path."""

    def __init__(self, program):
        self.program = program
        self.names = {}      # path key -> parameter name
        self.getters = {}    # path key -> getter
        self.taken = set(program.params) | ir.names_in(program.body)

    def param(self, path, label):
        key = _ident(path)
        name = self.names.get(key)
        if name is None:
            base = "_g_" + "".join(c if c.isalnum() else "_" for c in label)
            name, k = base, 1
            while name in self.taken:
                k += 1
                name = f"{base}{k}"
            self.taken.add(name)
            self.names[key] = name
            get = _root_getter(path[0])
            for step in path[1:]:
                get = _step_getter(get, step)
            self.getters[key] = get
        return name


def _path(s, roots):
    """The path of the read ``s`` makes (a root, then attribute and item steps), or None
    if it reads no Python state."""
    if type(s) is not Op or s.target is None or s.kwargs:
        return None
    if s.fn is ir.load_global:
        ns, key = s.args[0].value, s.args[1].value
        return (("global", id(ns), ns, key),)
    if s.fn is ir.load_cell:
        cell = s.args[0].value
        return (("cell", id(cell), cell),)
    how = _READS.get(s.fn)
    if how is None or len(s.args) != 2 or not isinstance(s.args[1], Const):
        return None
    key = s.args[1].value
    if how == "attr" and not isinstance(key, str):
        return None
    try:
        hash(key)
    except TypeError:
        return None
    obj = s.args[0]
    if isinstance(obj, Const):
        if isinstance(obj.value, _FIXED):
            return None
        base = (("const", id(obj.value), obj.value),)
    else:
        base = roots.get(obj)
        if base is None:
            return None
    return base + ((how, key),)


def _label(path, program):
    root = path[0]
    parts = [program.params[root[1]] if root[0] == "param" else
             root[3] if root[0] == "global" else ""]
    parts += [str(step[1]) for step in path[1:]]
    return "_".join(p for p in parts if p) or "cell"


def hoist(program):
    """`Hoisted`: ``program`` with every read of Python state a parameter read at the
    call. Module globals and cells are read with ``copy`` (they cannot fail), attributes
    and items with `read`."""
    writers = {}
    for s in ir.walk(program.body):
        for n in ir.writes(s):
            writers.setdefault(n, []).append(s)
    roots = {p: (("param", i),) for i, p in enumerate(program.params)
             if p not in writers and program.kinds.get(p) in _HOLDERS}
    paths = {}     # id(statement) -> its path
    changed = True
    while changed:      # a chain's links may come in any order (loops, branches)
        changed = False
        for s in ir.walk(program.body):
            if id(s) in paths:
                continue
            p = _path(s, roots)
            if p is None:
                continue
            paths[id(s)] = p
            changed = True
            mine = [paths.get(id(w)) for w in writers[s.target]]
            if all(m is not None and _ident(m) == _ident(p) for m in mine):
                roots[s.target] = p     # the same read wherever it is assigned
    if not paths:
        return Hoisted(program, [], frozenset())
    table = _Paths(program)

    made = set()    # the statements that read a parameter for a hoisted read

    def rewrite(stmts):
        out = []
        for s in stmts:
            p = paths.get(id(s))
            if p is not None:
                fn = ir.copy if s.fn in (ir.load_global, ir.load_cell) else read
                s = Op(s.target, fn, (table.param(p, _label(p, program)),), loc=s.loc)
                made.add(id(s))
            out.append(ir.map_children(s, rewrite))
        return out

    body = rewrite(program.body)
    body, dead = _drop_unread(program, body, made)
    used = ir.names_in(body) | {o for o in program.outputs if isinstance(o, str)}
    keys = [k for k, n in table.names.items() if n in used]
    prog = ir.Program(program.name, list(program.params) + [table.names[k] for k in keys],
                      body, program.outputs, program.kinds,
                      forward_len=program.forward_len, names=program.names,
                      deps=program.deps)
    return Hoisted(prog, [table.getters[k] for k in keys], dead)


def _ident(path):
    """What tells two paths apart: the root's kind and identity (and a global's
    name), then the steps."""
    root = path[0]
    head = root[:2] + ((root[3],) if root[0] == "global" else ())
    return (head,) + path[1:]


def _reads(body, outputs):
    found = {o for o in outputs if isinstance(o, str)}
    for s in ir.walk(body):
        found.update(ir.reads(s))
    return found


def _drop_unread(program, body, made):
    """``body`` without the hoisted reads that only the reads taken out of the program
    used (a root whose attributes are now parameters), and the positions of the
    parameters nothing reads now."""
    before = _reads(program.body, program.outputs)
    after = _reads(body, program.outputs)
    gone = before - after

    def drop(stmts):
        return [ir.map_children(s, drop) for s in stmts
                if not (id(s) in made and s.target in gone)]
    if gone:
        body = drop(body)
    dead = frozenset(i for i, p in enumerate(program.params)
                     if p in gone and program.kinds.get(p) in _HOLDERS)
    return body, dead


# ----- Reads made while tracing, checked at each call -----

def freeze(v):
    """What tells the contents of ``v`` apart, hashable: containers item by item,
    arrays by their values (a trace holds them as constants), other objects as they
    hash (by identity unless they say otherwise)."""
    if isinstance(v, (list, tuple)):
        return (type(v).__name__,) + tuple(freeze(i) for i in v)
    if isinstance(v, dict):
        return ("dict",) + tuple(sorted((repr(k), freeze(x)) for k, x in v.items()))
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.tobytes())
    try:
        hash(v)
        return v
    except TypeError:
        return ("id", id(v))


_SCALARS = (bool, int, float, complex, str, bytes, type(None), np.generic)


class Watched:
    """A read made while tracing: ``obj.name`` (or ``obj[name]``, ``item``) gave
    ``value``. `current` tells whether it still gives the same: an equal number or
    string, an array of equal values, a list, tuple or dict of the same contents, or
    the same object (``value`` is held, so its identity stays its own)."""
    __slots__ = ("obj", "name", "item", "value", "how", "snap")

    def __init__(self, obj, name, item, value):
        self.obj, self.name, self.item, self.value = obj, name, item, value
        if isinstance(value, _SCALARS):
            self.how, self.snap = "scalar", None
        elif isinstance(value, np.ndarray):
            self.how, self.snap = "array", (value.dtype, value.shape, value.tobytes())
        elif isinstance(value, (list, tuple, dict)):
            self.how, self.snap = "items", freeze(value)
        else:
            self.how, self.snap = "object", None

    def current(self):
        try:
            now = self.obj[self.name] if self.item else getattr(self.obj, self.name)
            was, how = self.value, self.how
            if how == "object":
                return now is was
            if how == "scalar":
                return now is was or type(now) is type(was) and bool(now == was)
            if how == "array":
                return type(now) is np.ndarray and (now.dtype, now.shape) == self.snap[:2] \
                    and now.tobytes() == self.snap[2]
            return now is was and freeze(now) == self.snap
        except Exception:   # gone, or not comparable: trace again, to be sure
            return False


_local = threading.local()
# receivers whose attributes are functions of their value (x.shape, z.real)
_VALUES = (np.ndarray, np.generic, bool, int, float, complex, str, bytes, tuple, slice,
           range, type(None))


def recording():
    """The stack of lists the traces under way record their reads in."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _record(obj, name, item, value):
    stack = recording()
    if stack and not isinstance(obj, _VALUES):
        J = loaded()
        if J is None or not isinstance(obj, J.jax.Array) and \
                not isinstance(value, J.jax.core.Tracer):
            stack[-1].append(Watched(obj, name, item, value))
    return value


def watch(obj, name):
    """``obj.name`` in a traced program, recorded for the trace under way when ``obj``
    is a Python object with state and the value is not a traced one."""
    return _record(obj, name, False, getattr(obj, name))


def watch_item(obj, key):
    """``obj[key]`` of a value of a kind known only at run time, recorded as `watch`
    records an attribute when ``obj`` is an object of the user's own class (lists and
    dicts are static arguments compared by their contents, or values of the trace)."""
    value = obj[key]
    if isinstance(obj, (list, dict)):
        return value
    return _record(obj, key, True, value)
