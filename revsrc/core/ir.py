"""The intermediate representation shared by every stage after parsing.

A program is a list of statements over named variables. Each ``Op`` is one
operation (``target = fn(*args, **kwargs)``); control flow stays structured
(``If``, ``For`` over a range, ``While``, ``Break``), so the reverse sweep can
mirror it and both backends (Python source, compiled scalar engine) read the
same tree. Operands are variable names (``str``) or ``Const`` values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Tuple, Union


@dataclass(frozen=True)
class Const:
    value: Any

    def __repr__(self):
        return f"Const({self.value!r})"


Operand = Union[str, Const]


@dataclass(frozen=True)
class Loc:
    """Where a statement came from in the user's source."""
    filename: str
    lineno: int
    col: int
    line: str  # the user's source line, stripped
    func: str = ""  # the function the line belongs to


@dataclass
class Op:
    """``target = fn(*args, **dict(kwargs))``; ``target`` is None for a check."""
    target: Optional[str]
    fn: Any
    args: Tuple[Operand, ...]
    kwargs: Tuple[Tuple[str, Operand], ...] = ()
    loc: Optional[Loc] = None


@dataclass
class SetItem:
    """``target[index] = value`` on an array created inside the function."""
    target: str
    index: Operand
    value: Operand
    loc: Optional[Loc] = None


@dataclass
class If:
    test: Operand
    body: list
    orelse: list
    loc: Optional[Loc] = None


@dataclass
class For:
    """``for var in range(start, stop, step): body`` with Python's range semantics.

    ``label`` names the loop for `Leave` (break) until the control pass has run.
    """
    var: str
    start: Operand
    stop: Operand
    step: Operand
    body: list
    loc: Optional[Loc] = None
    label: Optional[str] = None


@dataclass
class While:
    """Run ``test_body``; while ``test`` is true run ``body`` then ``test_body`` again."""
    test_body: list
    test: Operand
    body: list
    loc: Optional[Loc] = None
    label: Optional[str] = None


@dataclass
class Break:
    """Leave the innermost loop (after the control pass: only as a loop body's last
    statement, ``if stop: break``)."""
    loc: Optional[Loc] = None


@dataclass
class Block:
    """A region that `Leave` can exit: a function body (return), a loop body
    (continue). Only before the control pass (revsrc/control.py)."""
    label: str
    body: list
    loc: Optional[Loc] = None


@dataclass
class Leave:
    """Exit the innermost enclosing `Block` or loop labelled ``label``: return,
    break and continue, before the control pass rewrites them into flags."""
    label: str
    loc: Optional[Loc] = None


@dataclass
class Push:
    """Save ``value`` on a stack: 'f' float, 'i' int/bool, 'o' any object."""
    value: Operand
    stack: str


@dataclass
class Pop:
    target: str
    stack: str


@dataclass
class Comment:
    """A source comment in the generated code (ignored by the engine); ``loc``: the
    user's line it speaks of (an error raised below it is reported there)."""
    text: str
    loc: Optional[Loc] = None


@dataclass
class Program:
    """A complete adjoint: parameters in, ``outputs`` out.

    ``outputs[0]`` is the function's value, then one gradient per argnum,
    then (with has_aux) the auxiliary value last.
    """
    name: str
    params: list
    body: list
    outputs: list
    kinds: dict = field(default_factory=dict)
    forward_len: int = 0  # body[:forward_len] is the forward sweep
    names: Any = None     # the naming authority its variables came from (names.Names)
    deps: list = field(default_factory=list)  # what it inlined (runtime.deps_current)


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
    from .pytree import rebuild
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


def load_cell(cell):
    return cell.cell_contents


def check_assert(test, message):
    if not test:
        raise AssertionError(message)


def map_bodies(s, fn):
    """``s`` rebuilt with ``fn`` applied to each statement list it holds (itself if none)."""
    if isinstance(s, If):
        return If(s.test, fn(s.body), fn(s.orelse), loc=s.loc)
    if isinstance(s, For):
        return For(s.var, s.start, s.stop, s.step, fn(s.body), loc=s.loc, label=s.label)
    if isinstance(s, While):
        return While(s.test_body, s.test, fn(s.body), loc=s.loc, label=s.label)
    if isinstance(s, Block):
        return Block(s.label, fn(s.body), loc=s.loc)
    return s


def walk(stmts):
    """Yield every statement in ``stmts``, depth first, in program order."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk(s.body)
            yield from walk(s.orelse)
        elif isinstance(s, For):
            yield from walk(s.body)
        elif isinstance(s, While):
            yield from walk(s.test_body)
            yield from walk(s.body)
        elif isinstance(s, Block):
            yield from walk(s.body)


def reads(s):
    """Variable names a single statement reads (not its children)."""
    if isinstance(s, Op):
        ops = list(s.args) + [v for _, v in s.kwargs]
    elif isinstance(s, SetItem):
        ops = [s.target, s.index, s.value]
    elif isinstance(s, If):
        ops = [s.test]
    elif isinstance(s, For):
        ops = [s.start, s.stop, s.step]
    elif isinstance(s, While):
        ops = [s.test]
    elif isinstance(s, Push):
        ops = [s.value]
    else:
        ops = []
    return [o for o in ops if isinstance(o, str)]


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
