"""A rule function ``rule(g, ans, *params)``, parsed once for inlining.

A primitive's reverse and forward rules (revsrc/primitives.py) are plain Python
functions whose bodies the transformations inline: `Rule` reads the parameters when
the rule is registered and parses the body when a transformation first inlines it
(most of the hundreds of rules made at import are never inlined in a process).
"""
from __future__ import annotations

import ast
import inspect
import types

from . import source

__all__ = ["Rule"]


class Rule:
    """A rule function ``rule(g, ans, *params)``, parsed once for inlining (a plain class:
    a dataclass's generated methods cost the import more than they give)."""
    def __init__(self, fn, params, defaults):
        self.fn = fn
        # (the primal's parameter names, in order, and name -> default value; None:
        # read from the function when first asked, see `of`)
        self._signature = None if params is None else (params, defaults)
        self.outputs = []             # per param: ast expression or None
        self.body = []                # ast statements before the return
        self.globals = {}
        self.filename = ""
        self.loaded = False

    def __repr__(self):
        return f"Rule({getattr(self.fn, '__qualname__', self.fn)!r})"

    @property
    def params(self):
        return self._read()[0]

    @property
    def defaults(self):
        return self._read()[1]

    def _read(self):
        if self._signature is None:
            names, defaults = source.parameters(self.fn)
            self._signature = (names[2:], defaults)
        return self._signature

    @classmethod
    def of(cls, fn):
        code = getattr(fn, "__code__", None)
        if type(fn) is types.FunctionType and not hasattr(fn, "__wrapped__") and \
                not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) and \
                code.co_argcount >= 2 and code.co_varnames[:2] == ("g", "ans"):
            return cls(fn, None, None)   # (a plain rule: its parameters read when asked;
        names, defaults = source.parameters(fn)   # most of those made at import never are)
        if names[:2] != ["g", "ans"]:
            raise TypeError(f"rule {fn.__name__} must start with parameters (g, ans, ...)")
        return cls(fn, names[2:], defaults)

    def load(self):
        """Parse the body: statements before ``return``, one output per input."""
        if self.loaded:
            return self
        fn = self.fn
        node = source.parse(fn).body[0]
        body = [s for s in node.body
                if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        ret = body[-1]
        if not isinstance(ret, ast.Return) or any(isinstance(s, ast.Return)
                                                  for s in body[:-1]):
            raise TypeError(f"rule {fn.__name__} must end in its only return statement")
        value = ret.value
        outs = list(value.elts) if isinstance(value, ast.Tuple) else [value]
        outs = [None if (isinstance(o, ast.Constant) and o.value is None) else o
                for o in outs]
        outs += [None] * (len(self.params) - len(outs))
        self.body = body[:-1]
        self.outputs = outs
        self.globals = fn.__globals__
        self.filename = fn.__code__.co_filename
        self.loaded = True     # (its file's lines are not kept: no pass reads them)
        return self

    def differentiable(self, index):
        self.load()
        return index < len(self.outputs) and self.outputs[index] is not None

    def reads(self, name):
        """Whether the rule's body or outputs read the variable ``name``."""
        self.load()
        for part in list(self.body) + [o for o in self.outputs if o is not None]:
            for n in ast.walk(part):
                if isinstance(n, ast.Name) and n.id == name:
                    return True
        return False
