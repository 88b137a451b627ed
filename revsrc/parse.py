"""Read a function's source and parse it with the standard library's ``ast``."""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import types
from dataclasses import dataclass

from . import errors
from .ir import Loc


@dataclass
class Parsed:
    """A function's definition node, with line numbers of the user's file."""
    node: ast.AST  # ast.FunctionDef or ast.Lambda
    filename: str
    lines: list  # the file's lines (1-based access through line())

    def loc(self, node):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return None
        text = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        return Loc(self.filename, lineno, getattr(node, "col_offset", 0) + 1, text,
                   getattr(self.node, "name", "<lambda>"))


_cache = {}


def _where(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return Loc(code.co_filename, code.co_firstlineno, 1, "")


def parse_function(fn):
    """The ``Parsed`` definition of ``fn``; raises ``NoSource`` when there is none."""
    code = getattr(fn, "__code__", None)
    key = code if code is not None else fn
    hit = _cache.get(key)
    if hit is not None:
        return hit
    if getattr(fn, "_revsrc_derivative", False):
        raise errors.HigherOrderNotSupported(
            f"{_name(fn)} is a derivative made by revsrc; differentiating it again "
            "is not supported yet",
            hint="compute higher derivatives with central differences of the gradient "
                 "for now")
    if not isinstance(fn, types.FunctionType):
        raise errors.NoSource(
            f"{_name(fn)} is not a Python function with source code",
            hint="revsrc differentiates functions defined with def in a .py file; "
                 "for compiled functions register a rule with revsrc.defvjp")
    try:
        # the function's own code, never what functools.wraps says it wraps
        # (inspect.getsourcelines(fn) would follow __wrapped__)
        lines, first = inspect.getsourcelines(code)
    except (OSError, TypeError) as exc:
        raise errors.NoSource(
            f"the source of {_name(fn)} cannot be read ({exc})", loc=_where(fn),
            hint="define the function in a file (not in an interactive prompt or exec)") \
            from None
    source = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        # A lambda in the middle of an expression: parse the line as a fragment.
        tree = _parse_fragment(source, fn)
    ast.increment_lineno(tree, first - 1)
    filename = code.co_filename
    try:
        with open(filename, encoding="utf-8") as fh:
            file_lines = fh.read().splitlines()
    except OSError:
        file_lines = [ln.rstrip("\n") for ln in linecache.getlines(filename)]
    node = _find_definition(tree, fn)
    parsed = Parsed(node, filename, file_lines)
    _cache[key] = parsed
    return parsed


def _parse_fragment(source, fn):
    stripped = source.strip()
    for cut in range(len(stripped), 0, -1):
        try:
            return ast.parse(stripped[:cut].rstrip(",)"))
        except SyntaxError:
            continue
    raise errors.NoSource(f"the source of {_name(fn)} cannot be parsed", loc=_where(fn))


def _find_definition(tree, fn):
    name = fn.__code__.co_name
    if name == "<lambda>":
        argnames = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
                 and [a.arg for a in n.args.args] == argnames]
        if len(found) != 1:
            raise errors.NoSource(
                "the lambda's source cannot be told apart from the code around it",
                loc=_where(fn), hint="define the function with def")
        return found[0]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    raise errors.NoSource(f"no definition of {name} found in its source", loc=_where(fn))


def _name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
