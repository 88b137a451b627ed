"""Read a function's source and parse it with the standard library's ``ast``."""
from __future__ import annotations

import ast
import dis
import inspect
import textwrap
import types
import weakref

from .. import errors
from ..core import source as src
from ..core.ir import Loc
from .lower.scope import params_of
from ..core.source import ast_nodes


class Parsed:
    """A function's definition node, with line numbers of the user's file. (A plain
    class: a dataclass's generated methods cost the import more than they give.)"""
    __slots__ = ("node", "filename", "lines", "_locs", "fenced")

    def __init__(self, node, filename, lines):
        self.node = node            # ast.FunctionDef or ast.Lambda
        self.filename = filename
        self.lines = lines          # the file's lines (1-based access through loc())
        # (line, column) -> its Loc: the lowering asks for the same places again and
        # again (each expression, then its statement), and every transformation of
        # the function again; a Loc is frozen, so one can be shared
        self._locs = {}
        self.fenced = False         # frontend/fence.py found nothing to refuse in it

    def __repr__(self):
        return f"Parsed({getattr(self.node, 'name', '<lambda>')} in {self.filename})"

    def loc(self, node):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return None
        col = getattr(node, "col_offset", 0)
        where = self._locs.get((lineno, col))
        if where is None:
            text = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
            where = self._locs[lineno, col] = Loc(self.filename, lineno, col + 1, text,
                                                  getattr(self.node, "name", "<lambda>"))
        return where


# Parsed definitions, per code object: an entry goes when its function's code does
# (an equal code object of another file replaces it: `parse_function`).
_cache = weakref.WeakKeyDictionary()
_by_function = {}     # functions without a __code__ (rare): a few, then forgotten
# The lines of the files read (revsrc/core/source.py keeps them)
_FILES_KEPT = src.FILES_KEPT
_files = src.files
_file_lines = src.text_lines


def _where(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return Loc(code.co_filename, code.co_firstlineno, 1, "")


def parse_function(fn):
    """The ``Parsed`` definition of ``fn``; raises ``NoSource`` when there is none."""
    code = getattr(fn, "__code__", None)
    hit = _cache.get(code) if code is not None else _by_function.get(fn)
    # code objects compare equal across files (the same text at the same line, another
    # file): a hit counts only for the file this code came from
    if hit is not None and (code is None or hit.filename == code.co_filename):
        return hit
    if getattr(fn, "_revsrc_derivative", False) or \
            getattr(fn, "_revsrc_composed", None) is not None:   # a Jacobian, a Hessian
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
    tree = _read(fn, code)
    filename = code.co_filename
    file_lines = _file_lines(filename, fn.__globals__)
    node = _find_definition(tree, fn)
    if code is not None:
        _check_current(fn, node, filename)
    parsed = Parsed(node, filename, file_lines)
    if code is not None:
        _cache[code] = parsed
    else:
        if len(_by_function) > 256:
            _by_function.clear()
        _by_function[fn] = parsed
    return parsed


def _read(fn, code):
    """The parsed definition of ``code`` (the function's own code, never what
    functools.wraps says it wraps), numbered as its file is."""
    try:
        lines, first = src.definition(code, fn.__globals__)
    except (OSError, TypeError) as exc:
        raise errors.NoSource(
            f"the source of {_name(fn)} cannot be read ({exc})", loc=_where(fn),
            hint="define the function in a file (not in an interactive prompt or exec)") \
            from None
    try:
        return src.numbered(lines, first)
    except SyntaxError:
        pass
    if code.co_name != "<lambda>":
        # a definition whose end the code's positions do not show: inspect tokenizes
        try:
            lines, first = inspect.getsourcelines(code)
            return src.numbered(lines, first)
        except (OSError, TypeError, SyntaxError):
            pass
    # A lambda in the middle of an expression: read where its code's positions are,
    # else parse the line as a fragment.
    alone = _lambda_at_positions(fn)
    if alone is not None:
        return alone
    tree = _parse_fragment(textwrap.dedent("".join(lines)), fn)
    ast.increment_lineno(tree, first - 1)
    return tree


def _check_current(fn, node, filename):
    """Refuse (E204) when the source read from the file is not the code that runs: the
    file was edited after the function was defined. The definition is compiled again
    (inside a function that binds its free variables, so they compile as they did) and
    its bytecode and constants compared with the running code's."""
    code = fn.__code__
    try:
        compiled = _compile_alone(node, code, filename)
    except Exception:    # a construct this check cannot rebuild: nothing to compare
        return
    if compiled is None or _same_code(compiled, code):
        return
    raise errors.StaleSource(
        f"the source of {_name(fn)} in {filename} is not the code that runs: the file "
        "was changed after the function was defined", loc=_where(fn),
        hint="reload the module (importlib.reload) or run the program again, so the code "
             "that runs and its source agree")


def _compile_alone(node, code, filename):
    node = type(node)(**vars(node))   # a shallow copy: only its decorators are dropped
    if isinstance(node, ast.Lambda):
        target = ast.Return(value=node)
    else:
        node.decorator_list = []
        target = node
    if not code.co_freevars:   # at module level, where its own name is a global
        if isinstance(target, ast.Return):
            target = _at_line_one(ast.Expr(value=node))
        module = ast.Module(body=[target], type_ignores=[])
        _as_pytest_compiled(module, code, filename)
        top = compile(module, filename, "exec", dont_inherit=True)
        inner = [c for c in top.co_consts if isinstance(c, types.CodeType)]
        return inner[0] if len(inner) == 1 else None
    cells = [_at_line_one(ast.Name(id=n, ctx=ast.Store())) for n in code.co_freevars]
    body = [_at_line_one(ast.Assign(targets=cells, value=_at_line_one(ast.Constant(None)))),
            _at_line_one(target) if target is not node else target]
    outer = _at_line_one(ast.FunctionDef(name="_revsrc_outer", args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[]), body=body, decorator_list=[], returns=None, type_comment=None))
    module = ast.Module(body=[outer], type_ignores=[])
    _as_pytest_compiled(module, code, filename)
    top = compile(module, filename, "exec", dont_inherit=True)
    outer_code = next(c for c in top.co_consts if isinstance(c, types.CodeType))
    inner = [c for c in outer_code.co_consts if isinstance(c, types.CodeType)]
    return inner[0] if len(inner) == 1 else None


def _at_line_one(node):
    """``node``, made here, at what ast.fix_missing_locations would give it (line 1,
    column 0): the definition's own nodes all have theirs, so its walk over every
    node of the definition (a fifth of this check) is not needed."""
    node.lineno = node.end_lineno = 1
    node.col_offset = node.end_col_offset = 0
    return node


def _mentions(code, name):
    return name in code.co_names or any(
        _mentions(c, name) for c in code.co_consts if isinstance(c, types.CodeType))


def _as_pytest_compiled(module, code, filename):
    """A function of a test module that pytest imported has its asserts rewritten
    (its code calls ``@pytest_ar``, a name no source can spell): the definition is
    rewritten the same way before it is compared."""
    if not _mentions(code, "@pytest_ar"):
        return
    try:
        from _pytest.assertion.rewrite import rewrite_asserts
        with open(filename, "rb") as fh:
            source = fh.read()
        rewrite_asserts(module, source, filename)
        ast.fix_missing_locations(module)
    except Exception:   # noqa: BLE001 (then the plain compile is compared)
        return


def _same_code(a, b):
    """The same instructions, names and constants (nested code compared alike).

    Instructions are compared by operation and argument value, not as bytes: CPython
    3.11 rewrites a function's bytecode as it runs (``math.cos(x)`` turns from
    LOAD_METHOD into LOAD_GLOBAL-with-NULL and LOAD_ATTR, and ``np.sum(x)`` after a
    local ``import numpy as np`` into PUSH_NULL, LOAD_FAST and LOAD_ATTR), and jump
    offsets follow. Where a call's NULL is pushed says nothing of the source, so
    PUSH_NULL is not compared."""
    if a.co_varnames != b.co_varnames or a.co_argcount != b.co_argcount:
        return False
    if _same_tables(a, b) and _words(a) == _words(b):
        return True
    ia, ib = _instructions(a), _instructions(b)
    if len(ia) != len(ib):
        return False
    for (op_a, arg_a), (op_b, arg_b) in zip(ia, ib):
        if op_a != op_b:
            return False
        if isinstance(arg_a, types.CodeType) and isinstance(arg_b, types.CodeType):
            if not _same_code(arg_a, arg_b):
                return False
        elif isinstance(arg_a, str) and isinstance(arg_b, str) and "<locals>" in arg_a:
            # a nested class's __qualname__ names where it was compiled
            if arg_a.split("<locals>.")[-1] != arg_b.split("<locals>.")[-1]:
                return False
        elif type(arg_a) is not type(arg_b) or (
                arg_a != arg_b and not (arg_a != arg_a and arg_b != arg_b)):
            return False
    return True


# The common case, read from the bytecode without disassembling it (dis's walk was most
# of a first derivative's check): the same operations and raw arguments, normalized as
# `_instructions` normalizes them, over the same tables of names, constants and cells,
# give the same (operation, argument value) pairs. Anything else is left to the
# instruction-wise comparison below, which decides.
# Operation names differ between CPython versions (3.12 dropped PRECALL, 3.13 made
# LOAD_METHOD a pseudo-operation): a name this interpreter lacks never occurs in its
# bytecode, so it is left out (-1 matches no opcode).
_SKIPPED = frozenset(dis.opmap[n] for n in ("RESUME", "PRECALL", "NOP", "CACHE",
                                            "EXTENDED_ARG", "PUSH_NULL") if n in dis.opmap)
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
_EXTENDED_ARG, _LOAD_GLOBAL = dis.opmap["EXTENDED_ARG"], dis.opmap["LOAD_GLOBAL"]
_LOAD_METHOD, _LOAD_ATTR = dis.opmap.get("LOAD_METHOD", -1), dis.opmap["LOAD_ATTR"]


def _same_tables(a, b):
    if a.co_names != b.co_names or a.co_cellvars != b.co_cellvars or \
            a.co_freevars != b.co_freevars or len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not _same_code(x, y):
                return False
        elif type(x) is not type(y) or (x != y and not (x != x and y != y)):
            return False
    return True


def _words(code):
    """(opcode, argument) of each instruction `_instructions` keeps: a jump's target
    dropped, LOAD_GLOBAL's NULL bit dropped (its name index kept), LOAD_METHOD read
    as LOAD_ATTR."""
    raw = code.co_code       # (as compiled: CPython's specializations undone)
    out = []
    extended = 0
    for i in range(0, len(raw), 2):
        op = raw[i]
        arg = raw[i + 1] | extended if op >= dis.HAVE_ARGUMENT else None
        extended = arg << 8 if op == _EXTENDED_ARG else 0
        if op in _SKIPPED:
            continue
        if op in _JUMPS:
            arg = None
        elif op == _LOAD_GLOBAL:
            arg >>= 1
        elif op == _LOAD_METHOD:
            op = _LOAD_ATTR
        out.append((op, arg))
    return out


_SAME_OP = {"LOAD_METHOD": "LOAD_ATTR"}


def _instructions(code):
    jumps = set(dis.hasjrel) | set(dis.hasjabs)
    out = []
    for ins in dis.get_instructions(code):
        if ins.opname in ("RESUME", "PRECALL", "NOP", "CACHE", "EXTENDED_ARG", "PUSH_NULL"):
            continue
        arg = None if ins.opcode in jumps else ins.argval
        out.append((_SAME_OP.get(ins.opname, ins.opname), arg))
    return out
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
        found = [n for n in ast_nodes(tree) if isinstance(n, ast.Lambda)
                 and list(params_of(n).positional) == argnames]
        if len(found) > 1:   # else the one whose bytecode is fn's
            found = [n for n in found if _compiles_to(n, fn.__code__)][:1]
        if len(found) != 1:
            raise errors.NoSource(
                "the lambda's source cannot be told apart from the code around it",
                loc=_where(fn), hint="define the function with def")
        return found[0]
    # (the definition read is the tree's first statement, almost always: the top level
    # is what a breadth-first walk meets first, so looking there first finds the same)
    for nodes in (tree.body, None):
        for node in nodes if nodes is not None else ast_nodes(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.name == name:
                return node
    raise errors.NoSource(f"no definition of {name} found in its source", loc=_where(fn))


def _body_span(fn):
    """((line, column), (end line, end column)) the positions of fn's instructions
    span in its file (columns in UTF-8 bytes): a lambda's body; None if unknown."""
    spans = [p for p in fn.__code__.co_positions()
             if None not in p and not (p[2] == 0 and p[3] == 0)]
    if not spans:
        return None
    return min((p[0], p[2]) for p in spans), max((p[1], p[3]) for p in spans)


def _lambda_at_positions(fn):
    """A module holding the lambda ``fn`` alone, read where the positions of its
    instructions are (from the last ``lambda`` before its body to the body's end),
    numbered as its file is; None where that does not parse to a lambda with fn's
    parameters. Several lambdas on a line, or one per line in a dict literal, are so
    told apart."""
    code = fn.__code__
    span = _body_span(fn)
    lines = _file_lines(code.co_filename, fn.__globals__)
    if span is None or not 0 < span[0][0] <= span[1][0] <= len(lines):
        return None
    (l0, c0), (l1, c1) = span
    raw = [ln.encode("utf-8") for ln in lines]
    first, col = l0, raw[l0 - 1].rfind(b"lambda", 0, c0)
    while col < 0 and first > max(1, l0 - 5):
        first -= 1
        col = raw[first - 1].rfind(b"lambda")
    if col < 0:
        return None
    text = raw[first - 1][col:] if first < l1 else raw[first - 1][col:c1]
    if first < l1:
        text = b"\n".join([text] + raw[first:l1 - 1] + [raw[l1 - 1][:c1]])
    try:
        node = ast.parse("(" + text.decode("utf-8") + "\n)", mode="eval").body
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None
    argnames = list(code.co_varnames[:code.co_argcount])
    if not isinstance(node, ast.Lambda) or list(params_of(node).positional) != argnames:
        return None
    for n in ast.walk(node):
        if hasattr(n, "lineno"):
            if n.lineno == 1:
                n.col_offset += col - 1
            if getattr(n, "end_lineno", None) == 1:
                n.end_col_offset += col - 1
            n.lineno += first - 1
            n.end_lineno = (n.end_lineno or 1) + first - 1
    return ast.Module(body=[ast.Expr(value=node)], type_ignores=[])


def _compiles_to(node, code):
    try:
        compiled = _compile_alone(node, code, code.co_filename)
    except Exception:    # a construct that cannot be compiled alone: not told apart
        return False
    return compiled is not None and _same_code(compiled, code)


def _name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
