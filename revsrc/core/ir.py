"""The intermediate representation shared by every stage after parsing.

A program is a list of statements over named variables. Each ``Op`` is one
operation (``target = fn(*args, **kwargs)``); control flow stays structured
(``If``, ``For`` over a range, ``While``, ``Break``), so the reverse sweep can
mirror it and both backends (Python source, compiled scalar engine) read the
same tree. Operands are variable names (``str``) or ``Const`` values.

The traversal at the end of the module (`children`, `map_children`, `map_operands`,
`walk`, `rename`) is the one description of which fields of a statement hold
statement lists and operands; passes walk and rebuild the tree through it.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple, Union

from .pytree import rebuild
from .record import FRESH, record

# The statements are records (revsrc/core/record.py): each writes its __init__, and
# the decorator adds the rest (repr, field-wise ==) without dataclass's import cost.


@record(frozen=True)
class Const:
    value: Any

    def __init__(self, value):
        object.__setattr__(self, "value", value)

    def __repr__(self):
        return f"Const({self.value!r})"


Operand = Union[str, Const]


@record(frozen=True)
class Loc:
    """Where a statement came from in the user's source."""
    filename: str
    lineno: int
    col: int
    line: str  # the user's source line, stripped
    func: str  # the function the line belongs to

    def __init__(self, filename, lineno, col, line, func=""):
        _set = object.__setattr__
        _set(self, "filename", filename)
        _set(self, "lineno", lineno)
        _set(self, "col", col)
        _set(self, "line", line)
        _set(self, "func", func)


@record
class Op:
    """``target = fn(*args, **dict(kwargs))``; ``target`` is None for a check."""
    target: Optional[str]
    fn: Any
    args: Tuple[Operand, ...]
    kwargs: Tuple[Tuple[str, Operand], ...]
    loc: Optional[Loc]

    def __init__(self, target, fn, args, kwargs=(), loc=None):
        self.target = target
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.loc = loc


@record
class SetItem:
    """``target[index] = value`` on an array created inside the function."""
    target: str
    index: Operand
    value: Operand
    loc: Optional[Loc]

    def __init__(self, target, index, value, loc=None):
        self.target = target
        self.index = index
        self.value = value
        self.loc = loc


@record
class If:
    test: Operand
    body: list
    orelse: list
    loc: Optional[Loc]

    def __init__(self, test, body, orelse, loc=None):
        self.test = test
        self.body = body
        self.orelse = orelse
        self.loc = loc


@record
class For:
    """``for var in range(start, stop, step): body`` with Python's range semantics.

    ``label`` names the loop for `Leave` (break) until the control pass has run.
    """
    var: str
    start: Operand
    stop: Operand
    step: Operand
    body: list
    loc: Optional[Loc]
    label: Optional[str]

    def __init__(self, var, start, stop, step, body, loc=None, label=None):
        self.var = var
        self.start = start
        self.stop = stop
        self.step = step
        self.body = body
        self.loc = loc
        self.label = label


@record
class While:
    """Run ``test_body``; while ``test`` is true run ``body`` then ``test_body`` again."""
    test_body: list
    test: Operand
    body: list
    loc: Optional[Loc]
    label: Optional[str]

    def __init__(self, test_body, test, body, loc=None, label=None):
        self.test_body = test_body
        self.test = test
        self.body = body
        self.loc = loc
        self.label = label


@record
class Break:
    """Leave the innermost loop (after the control pass: only as a loop body's last
    statement, ``if stop: break``)."""
    loc: Optional[Loc]

    def __init__(self, loc=None):
        self.loc = loc


@record
class Block:
    """A region that `Leave` can exit: a function body (return), a loop body
    (continue). Only before the control pass (revsrc/control.py)."""
    label: str
    body: list
    loc: Optional[Loc]

    def __init__(self, label, body, loc=None):
        self.label = label
        self.body = body
        self.loc = loc


@record
class Leave:
    """Exit the innermost enclosing `Block` or loop labelled ``label``: return,
    break and continue, before the control pass rewrites them into flags."""
    label: str
    loc: Optional[Loc]

    def __init__(self, label, loc=None):
        self.label = label
        self.loc = loc


@record
class Push:
    """Save ``value`` on a stack: 'f' float, 'i' int/bool, 'o' any object."""
    value: Operand
    stack: str

    def __init__(self, value, stack):
        self.value = value
        self.stack = stack


@record
class Pop:
    target: str
    stack: str

    def __init__(self, target, stack):
        self.target = target
        self.stack = stack


@record
class Comment:
    """A source comment in the generated code (ignored by the engine); ``loc``: the
    user's line it speaks of (an error raised below it is reported there)."""
    text: str
    loc: Optional[Loc]

    def __init__(self, text, loc=None):
        self.text = text
        self.loc = loc


@record
class Program:
    """A complete adjoint: parameters in, ``outputs`` out.

    ``outputs[0]`` is the function's value, then one gradient per argnum,
    then (with has_aux) the auxiliary value last.
    """
    name: str
    params: list
    body: list
    outputs: list
    kinds: dict
    forward_len: int  # body[:forward_len] is the forward sweep
    names: Any        # the naming authority its variables came from (names.Names)
    deps: list        # what it inlined (runtime.deps_current)

    def __init__(self, name, params, body, outputs, kinds=FRESH, forward_len=0, names=None,
                 deps=FRESH):
        self.name = name
        self.params = params
        self.body = body
        self.outputs = outputs
        self.kinds = {} if kinds is FRESH else kinds
        self.forward_len = forward_len
        self.names = names
        self.deps = [] if deps is FRESH else deps


# ---------------------------------------------------------------------------
# Special operations. Each is an ordinary function so that the Python backend
# can call it and the rule table can key on it.

def copy(x):
    """``target = x`` (no new object)."""
    return x


def make_tuple(*items):
    return items


def make_list(*items):
    return list(items)


def make_dict(*items):
    """A dict from alternating keys and values (carries no gradient: for aux outputs)."""
    return dict(zip(items[::2], items[1::2]))


def make_node(kind, *items):
    """A namedtuple (``kind`` its class) or a dataclass or registered container
    (``kind`` its pytree.TreeDef) holding ``items`` (carries no gradient)."""
    if isinstance(kind, type):
        return kind._make(items)
    return rebuild(kind, list(items))


def get_attribute(obj, name):
    """``obj.name`` of a value that carries no gradient."""
    return getattr(obj, name)


def call_method(obj, name, *args, **kwargs):
    """``obj.name(*args, **kwargs)`` of a value that carries no gradient."""
    return getattr(obj, name)(*args, **kwargs)


def truth(x):
    """``bool(x)`` for a condition."""
    return bool(x)


def load_global(namespace, key):
    """Read a module global (or closure cell) at run time, so rebinding it is seen."""
    return namespace[key]


class Defaults(dict):
    """What a called function, partial or class was given ahead of the call and holds
    as data that may change in place (an array default, ``def fk(q, L=L0)``), by
    parameter name: a program reads it with `load_global` when it runs, as a module's
    global, and prints it as ``_<name>_defaults['L']``."""

    def __init__(self, owner, items):
        super().__init__(items)
        self.owner = owner


def load_cell(cell):
    return cell.cell_contents


def check_assert(test, message):
    if not test:
        raise AssertionError(message)


# ---------------------------------------------------------------------------
# Traversal. Which fields of a statement hold statement lists, and which hold the
# operands it reads and the names it assigns, is written down here once: every pass
# walks and rebuilds statements through these functions, so none can forget a
# while loop's test body (the statements computing its condition).

# statement type -> the fields holding statement lists, in program order
_CHILDREN = {If: ("body", "orelse"), For: ("body",), While: ("test_body", "body"),
             Block: ("body",)}


def replace(s, **changes):
    """A copy of the statement ``s`` with ``changes`` to its fields (the statements are
    plain records: their fields are their ``__dict__``). Going through ``__init__``
    would cost several times as much, and passes rebuild
    statements in their inner loops."""
    new = object.__new__(type(s))
    d = new.__dict__
    d.update(s.__dict__)
    d.update(changes)
    return new


def children(s):
    """The statement lists ``s`` holds, in program order (``()`` for none): an If's
    body and orelse, a For's body, a While's test_body and body, a Block's body."""
    return tuple(getattr(s, f) for f in _CHILDREN.get(type(s), ()))


def map_children(s, fn, test_body=True):
    """``s`` rebuilt with ``fn(list)`` for each statement list it holds (a new
    statement, its ``loc`` and ``label`` kept); ``s`` itself if it holds none.

    ``test_body=False`` keeps a While's test_body as it is, for a pass that must not
    rewrite a loop's condition (the call says why)."""
    fields = _CHILDREN.get(type(s))
    if fields is None:
        return s
    return replace(s, **{f: fn(getattr(s, f)) for f in fields
                         if test_body or f != "test_body"})


def operands(s):
    """The operands (names and Consts) ``s`` reads itself, not its children's. A
    SetItem reads its target: it writes into the object the name holds."""
    if isinstance(s, Op):
        return list(s.args) + [v for _, v in s.kwargs]
    if isinstance(s, SetItem):
        return [s.target, s.index, s.value]
    if isinstance(s, (If, While)):
        return [s.test]
    if isinstance(s, For):
        return [s.start, s.stop, s.step]
    if isinstance(s, Push):
        return [s.value]
    return []


def map_operands(s, fn, targets=False):
    """``s`` rebuilt with ``fn(n)`` for each name ``n`` among its `operands` (and with
    ``targets``, for each name it assigns too); Consts are kept, and so are its
    children. Always a new statement (``loc`` and ``label`` kept), so that a copy
    made with it shares no statement with its original."""
    def o(x):
        return fn(x) if isinstance(x, str) else x

    t = o if targets else (lambda x: x)
    if isinstance(s, Op):
        return replace(s, target=t(s.target), args=tuple(o(a) for a in s.args),
                       kwargs=tuple((k, o(v)) for k, v in s.kwargs))
    if isinstance(s, SetItem):   # its target once: read, and written into
        return replace(s, target=o(s.target), index=o(s.index), value=o(s.value))
    if isinstance(s, (If, While)):
        return replace(s, test=o(s.test))
    if isinstance(s, For):
        return replace(s, var=t(s.var), start=o(s.start), stop=o(s.stop), step=o(s.step))
    if isinstance(s, Push):
        return replace(s, value=o(s.value))
    if isinstance(s, Pop):
        return replace(s, target=t(s.target))
    return replace(s)


def walk(stmts):
    """Yield every statement in ``stmts``, depth first, in program order."""
    for s in stmts:
        yield s
        for f in _CHILDREN.get(type(s), ()):
            yield from walk(getattr(s, f))


def reads(s):
    """Variable names a single statement reads (not its children)."""
    if type(s) is Op:      # most statements: spelled out, for the passes' inner loops
        found = [a for a in s.args if isinstance(a, str)]
        if s.kwargs:
            found.extend(v for _, v in s.kwargs if isinstance(v, str))
        return found
    return [o for o in operands(s) if isinstance(o, str)]


def writes(s):
    """Variable names a single statement assigns (not its children)."""
    if isinstance(s, Op):
        return [s.target] if s.target is not None else []
    if isinstance(s, SetItem):
        return [s.target]
    if isinstance(s, For):
        return [s.var]
    if isinstance(s, Pop):
        return [s.target]
    return []


def rename(stmts, fn):
    """A copy of ``stmts`` (no statement shared) with every variable name ``n``, read
    or assigned, at any depth, replaced by ``fn(n)``."""
    return [map_children(map_operands(s, fn, targets=True), lambda b: rename(b, fn))
            for s in stmts]


def names_in(stmts):
    """Every variable name ``stmts`` read or assign, at any depth."""
    found = set()
    for s in walk(stmts):
        found.update(reads(s))
        found.update(writes(s))
    return found


def dominates(d, w):
    """Whether the statement at path ``d`` always runs before the one at ``w``. A path
    is ``((id(list), index), ...)`` from the body down to a statement, one step per
    statement list (`children`) entered."""
    if len(d) > len(w):
        return False
    for k in range(len(d) - 1):
        if d[k] != w[k]:
            return False
    last = len(d) - 1
    return d[last][0] == w[last][0] and d[last][1] < w[last][1]
