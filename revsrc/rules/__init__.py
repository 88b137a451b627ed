"""The one rule table.

A rule says how an output adjoint ``g`` flows back to each input of a primitive,
written as an ordinary Python function ``rule(g, ans, *inputs)`` that returns one
expression per input (``None`` for an input with no gradient). The reverse
transformation inlines the rule's body into the generated adjoint, so the Python
backend prints it and the scalar engine lowers the same operations.

Rules for elementwise operations are registered with ``broadcast=True``: the
transformation sums each contribution back to its input's shape once, so no rule
handles broadcasting itself.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass, field


@dataclass
class Rule:
    fn: object
    vjp: object
    params: list          # the primal's parameter names, in order
    defaults: dict        # parameter name -> default value
    broadcast: bool
    outputs: list = field(default_factory=list)  # per param: ast expr or None
    body: list = field(default_factory=list)     # ast statements before the return
    globals: dict = field(default_factory=dict)
    filename: str = ""
    lines: list = field(default_factory=list)

    def differentiable(self, index):
        return index < len(self.outputs) and self.outputs[index] is not None


_RULES = {}
_NONDIFF = {}


def _key(fn):
    try:
        hash(fn)
        return fn
    except TypeError:
        return id(fn)


def lookup(fn):
    """The ``Rule`` for ``fn``, ``"nondiff"``, or None."""
    key = _key(fn)
    rule = _RULES.get(key)
    if rule is not None:
        if not rule.outputs and rule.vjp is not None:
            _load(rule)
        return rule
    if key in _NONDIFF:
        return "nondiff"
    return None


def registered():
    """Every primal function that has a rule (for the coverage test)."""
    return [r.fn for r in _RULES.values()]


def registered_nondiff():
    return list(_NONDIFF.values())


def vjp(*fns, broadcast=False):
    """Register the decorated function as the reverse rule of each of ``fns``.

    The rule's parameters are ``g`` (the output adjoint), ``ans`` (the output),
    then the primal's parameters by name, with defaults where the primal has them.
    It returns one expression per primal parameter (``None`` for none)::

        @vjp(math.sin)
        def sin(g, ans, x):
            return g * math.cos(x)
    """
    def register(rule_fn):
        sig = inspect.signature(rule_fn)
        names = list(sig.parameters)
        if names[:2] != ["g", "ans"]:
            raise TypeError(f"rule {rule_fn.__name__} must start with parameters (g, ans, ...)")
        params = names[2:]
        defaults = {n: p.default for n, p in sig.parameters.items()
                    if p.default is not inspect.Parameter.empty}
        for fn in fns:
            _RULES[_key(fn)] = Rule(fn, rule_fn, params, defaults, broadcast)
        return rule_fn
    return register


def mark_nondiff(*fns):
    """Mark functions as having no derivative (their outputs carry no gradient)."""
    for fn in fns:
        _NONDIFF[_key(fn)] = fn
    return fns[0] if len(fns) == 1 else fns


def _load(rule):
    """Parse the rule's body once: statements before ``return``, one output per input."""
    fn = rule.vjp
    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    node = tree.body[0]
    body = [s for s in node.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    ret = body[-1]
    if not isinstance(ret, ast.Return) or any(isinstance(s, ast.Return) for s in body[:-1]):
        raise TypeError(f"rule {fn.__name__} must end in its only return statement")
    value = ret.value
    outs = list(value.elts) if isinstance(value, ast.Tuple) else [value]
    outs = [None if (isinstance(o, ast.Constant) and o.value is None) else o for o in outs]
    outs += [None] * (len(rule.params) - len(outs))
    rule.body = body[:-1]
    rule.outputs = outs
    rule.globals = fn.__globals__
    rule.filename = fn.__code__.co_filename
    try:
        with open(rule.filename, encoding="utf-8") as fh:
            rule.lines = fh.read().splitlines()
    except OSError:
        rule.lines = []


def _register_builtin_rules():
    from . import arith, math_  # noqa: F401  (registration happens on import)
    for name in ("ufuncs", "reductions", "linalg", "shape", "indexing", "nondiff"):
        try:
            __import__(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise


nondiff = mark_nondiff  # the short name rule modules use while they are imported
_register_builtin_rules()
nondiff = mark_nondiff  # importing rules/nondiff.py rebinds the name to that module
