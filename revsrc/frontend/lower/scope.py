"""One function being lowered: its names, how each resolves, and what its source says
about them (parameters, the names it assigns, its returns).

`params_of` is the one place the front end reads a function's parameters from its
``ast`` node: inlining binds them, the lowering of an item assignment refuses a
write into one, and a lambda's value reads them, all from the same lists.
"""
from __future__ import annotations

import ast

from ...core.record import FRESH, record
from ...core.source import ast_nodes


@record(frozen=True, uncompared=("defaults",))
class Params:
    """A function's parameters, by how a call may pass them."""
    positional: tuple      # positional-only, then positional-or-keyword
    by_keyword: tuple      # positional-or-keyword, then keyword-only
    vararg: str | None     # *args
    kwonly: tuple
    kwarg: str | None      # **kwargs
    defaults: dict         # name -> ast node (not compared)

    def __init__(self, positional, by_keyword, vararg, kwonly, kwarg, defaults=FRESH):
        _set = object.__setattr__
        _set(self, "positional", positional)
        _set(self, "by_keyword", by_keyword)
        _set(self, "vararg", vararg)
        _set(self, "kwonly", kwonly)
        _set(self, "kwarg", kwarg)
        _set(self, "defaults", {} if defaults is FRESH else defaults)

    @property
    def names(self):
        """Every parameter in signature order (``*args`` and ``**kwargs`` too)."""
        return list(self.positional) + ([self.vararg] if self.vararg else []) + \
            list(self.kwonly) + ([self.kwarg] if self.kwarg else [])


def params_of(node):
    """The `Params` of a ``def`` or ``lambda`` node."""
    a = node.args
    positional = tuple(x.arg for x in a.posonlyargs + a.args)
    kwonly = tuple(x.arg for x in a.kwonlyargs)
    defaults = dict(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    defaults.update((x.arg, d) for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    return Params(positional, tuple(x.arg for x in a.args) + kwonly,
                  a.vararg.arg if a.vararg is not None else None, kwonly,
                  a.kwarg.arg if a.kwarg is not None else None, defaults)


def param_names(node):
    """A function's parameters in signature order (``*args`` and ``**kwargs`` too)."""
    return params_of(node).names


def positional_names(fn):
    """The positional parameters of function object ``fn`` (the `Params.positional`
    of its source, read from its code so a function without source has them too)."""
    code = fn.__code__
    return code.co_varnames[:code.co_argcount]


class Scope:
    """One function being lowered: its names and how each resolves."""

    def __init__(self, parsed, prefix, globals_, cells, enclosing=None, fn=None,
                 rule_mode=False):
        self.parsed = parsed
        self.prefix = prefix
        self.globals = globals_
        self.cells = cells  # name -> cell
        self.enclosing = enclosing
        self.fn = fn
        self.rule_mode = rule_mode
        self.env = {}    # source name -> operand or static value (lower/values.py)
        self.defs = {}   # nested def name -> ast.FunctionDef
        # id of a nested def -> (the def, its defaults taken when it ran: param -> operand)
        self.def_defaults = {}
        self.locals = set()
        self.loops = []  # stack of (continue label, break label) of enclosing loops
        self.exit_label = None  # the label `return` leaves
        # the errstate blocks entered and not left: (token, settings, loop depth, loc),
        # so that a return, break or continue leaving them leaves them (as Python does)
        self.errstates = []
        self.ret_var = None
        self.aux_var = None
        self.has_aux = False
        self.ret_items = None
        self.ret_skeleton = None  # a helper's static container result (see _return)
        self.ret_plain = False    # a helper returned a plain value somewhere
        self.store_counts = {}
        self.given = {}   # parameter -> the static container the caller gave it
        self.branch_vars = set()   # names an `if` made variables (names.py, _branches)
        self.no_static = 0  # > 0 inside a loop the program runs: no static bindings

    def child(self):
        """A scope of its own inside this one (a comprehension's): it sees this
        scope's names, and binds its own."""
        return Scope(self.parsed, self.prefix, self.globals, self.cells, enclosing=self,
                     fn=self.fn, rule_mode=self.rule_mode)


class RuleSource:
    """Stands in for a parsed user function while a rule's body is lowered (rules
    have no locations of their own: instances get the primal's)."""

    def __init__(self, rule):
        self.rule = rule
        self.node = None

    def loc(self, node):
        return None


def all_names(node):
    """Every name a function's source mentions (its nested functions' too)."""
    out = set()
    for n in ast_nodes(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
    return out


def assigned_names(body):
    """(the names ``body`` assigns, the names of the functions it defines)."""
    names = set()
    defs = set()

    def target(t):
        if isinstance(t, ast.Name):
            names.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e)

    for node in _statements(body):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                target(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            target(node.target)
        elif isinstance(node, ast.For):
            target(node.target)
        elif isinstance(node, ast.FunctionDef):
            defs.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names, defs


def _statements(body):
    """Every statement in ``body``, at any depth (nested functions' too; the handlers
    of a try): what `assigned_names` looks for are statements, and no statement is
    inside an expression, so the expressions' nodes (most of a tree) are not walked."""
    found = list(body)
    for n in found:        # (a list iterated while it grows)
        for name in n._fields:
            value = getattr(n, name, None)
            if isinstance(value, list):
                found.extend(v for v in value if isinstance(v, _HOLDS_STATEMENTS))
    return found


_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler) + \
    ((ast.match_case,) if hasattr(ast, "match_case") else ())


def own_defs(body):
    """The names of the functions ``body`` defines in its own scope (not those
    nested functions define): local names for the whole body, as in Python."""
    found = set()
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.FunctionDef):
            found.add(n.name)
            continue
        if isinstance(n, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return found


def return_statements(body):
    """The return statements of a function body, not of the functions nested in it."""
    found = []
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Return):
            found.append(n)
        if isinstance(n, (ast.FunctionDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return found


def leaves_loop(body):
    """(whether ``body`` breaks out of its loop, whether it breaks or continues), not
    counting loops nested in it."""
    brk = cont = False
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Break):
            brk = True
        elif isinstance(n, ast.Continue):
            cont = True
        if isinstance(n, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return brk, brk or cont


def ends_in_return(body):
    last = body[-1] if body else None
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return ends_in_return(last.body) and ends_in_return(last.orelse)
    return False
