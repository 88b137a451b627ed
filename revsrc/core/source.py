"""The lines of a function's definition, found from its code object alone.

``inspect.getsourcelines`` first maps a code object back to its module, taking the
real path of the file of every module in ``sys.modules`` (the better part of the
first transformation's time in a fresh process), and then tokenizes the file from
the definition on to find where its block ends. Neither is needed: the code object
names its file and first line (that of its first decorator), and the positions of
its instructions (and of those of the functions, lambdas and comprehensions nested
in it) reach the last line of its body. Only lines after the last instruction (a
closing bracket on a line of its own, a trailing comment) are left to find, by their
indentation. The caller parses what is returned and, where that fails (a construct
this reading does not foresee), asks ``inspect`` as before.

Lambdas end where the logical line that holds them ends, as ``inspect`` says: they
are read with its block finder, on the lines of the file alone.

A plain function's parameters are read from its code too (`parameters`): the rules
made at import are hundreds, and inspect.signature on each was a tenth of the import.

`ast_nodes` is ``ast.walk`` as a list, for the front end's many walks over a
function's tree: ast.walk's nested generators were a tenth of a first derivative.
"""
from __future__ import annotations

import ast
import collections
import inspect
import linecache
import textwrap
import types

__all__ = ["ast_nodes", "definition", "file_lines", "numbered", "parameters", "parse",
           "text_lines"]


# The lines of the files read, without their newlines, shared by every definition in
# one file: at most FILES_KEPT files, the least recently used dropped first.
FILES_KEPT = 64
files = collections.OrderedDict()    # filename -> (linecache's lines, text_lines)


def file_lines(filename, module_globals=None):
    """The lines (ending in newlines) of ``filename`` as linecache holds them, read
    again when the file changed on disk since linecache read it; [] when there is no
    such file (an interactive prompt, a string given to exec that nobody registered).
    ``module_globals`` (a function's ``__globals__``) lets linecache ask the module's
    loader where there is no file (a module imported from a zip), as inspect does."""
    linecache.checkcache(filename)
    return linecache.getlines(filename, module_globals)


def text_lines(filename, module_globals=None):
    """`file_lines` without the newlines, converted once per version of the file."""
    raw = file_lines(filename, module_globals)
    held = files.get(filename)
    if held is not None and held[0] is raw:
        files.move_to_end(filename)
        return held[1]
    lines = [ln.rstrip("\r\n") for ln in raw]
    files[filename] = (raw, lines)
    while len(files) > FILES_KEPT:
        files.popitem(last=False)
    return lines


def definition(code, module_globals=None):
    """``(lines, first)``: the lines of the definition of ``code`` in its file, from
    its first decorator (or ``def``, or the line with ``lambda``) to its last line,
    and the 1-based number of the first (``module_globals``: see `file_lines`).
    Raises OSError (as inspect does) when the source cannot be read."""
    lines = file_lines(code.co_filename, module_globals)
    if not lines:
        raise OSError("could not get source code")
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines):
        raise OSError("lineno is out of bounds")
    while start > 0 and not _starts_definition(lines[start]):
        start -= 1
    if code.co_name == "<lambda>":
        return inspect.getblock(lines[start:]), start + 1
    return lines[start:_end(code, lines, start)], start + 1


def parse(fn):
    """The ``ast.Module`` holding the definition of the function ``fn`` (``__wrapped__``
    followed, as inspect does), its line numbers those of its file; inspect's reading
    where this one does not parse. Raises OSError when there is no source."""
    fn = inspect.unwrap(fn)
    try:
        lines, first = definition(fn.__code__, getattr(fn, "__globals__", None))
        return numbered(lines, first)
    except (OSError, SyntaxError):
        lines, first = inspect.getsourcelines(fn)
        return numbered(lines, first)


def numbered(lines, first):
    """``lines`` (from line ``first`` of a file, dedented) parsed with the file's line
    numbers: blank lines before them number them, cheaper than ast.increment_lineno's
    walk over every node afterwards."""
    return ast.parse("\n" * (first - 1) + textwrap.dedent("".join(lines)))


def parameters(fn):
    """(parameter names, {name: default}) of ``fn``, as inspect.signature gives them:
    read from a plain function's code, else from inspect.signature."""
    code = getattr(fn, "__code__", None)
    if type(fn) is not types.FunctionType or hasattr(fn, "__wrapped__") or \
            code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        sig = inspect.signature(fn)
        return list(sig.parameters), {n: p.default for n, p in sig.parameters.items()
                                      if p.default is not inspect.Parameter.empty}
    n = code.co_argcount
    names = list(code.co_varnames[:n + code.co_kwonlyargcount])
    given = fn.__defaults__ or ()
    defaults = dict(zip(names[n - len(given):n], given))
    defaults.update(fn.__kwdefaults__ or {})
    return names, defaults


def shallow_copy(node):
    """A new ``ast`` node of ``node``'s type with the same fields and position (what
    ``copy.copy`` gives, without importing the copy module at start-up)."""
    new = type(node).__new__(type(node))
    new.__dict__.update(node.__dict__)
    return new


def deep_copy(node):
    """A copy of the ``ast`` tree ``node`` (a node, a list of them, or a field's plain
    value) whose nodes are all new (what ``copy.deepcopy`` gives an ``ast`` tree)."""
    if isinstance(node, list):
        return [deep_copy(item) for item in node]
    if not isinstance(node, _AST):
        return node
    new = shallow_copy(node)
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, (list, _AST)):
            setattr(new, name, deep_copy(value))
    return new


def ast_nodes(node):
    """Every node of the tree under ``node`` (itself first), in ``ast.walk``'s order
    (breadth first, children in field order): the same nodes, a list, three times
    faster."""
    found = [node]
    append = found.append
    for n in found:        # (a list iterated while it grows: each node's children
        for name in n._fields:     # are appended behind it, as ast.walk's queue)
            value = getattr(n, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
            elif isinstance(value, _AST):
                append(value)
    return found


_AST = ast.AST


def _end(code, lines, start):
    """The index after the last line of the definition that begins at ``start``."""
    indent = _indent(lines[start])
    # the def's line, after the decorators (which share its indentation)
    header = next((k for k in range(start, len(lines))
                   if _indent(lines[k]) == indent and _is_def(lines[k])), start)
    end = max(_last_line(code), header + 1)
    k = end
    while k < len(lines):
        text = lines[k]
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            if _indent(text) <= indent:
                break
            end = k + 1
        k += 1
    return end


def _last_line(code):
    last = 0
    for _, end, _, _ in code.co_positions():
        if end is not None and end > last:
            last = end
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            last = max(last, _last_line(const))
    return last


def _starts_definition(line):
    """Whether ``line`` can begin a definition: a def, a decorator, or a line with the
    keyword lambda (inspect.findsource looks for the same, with a regular expression
    that would cost this module's import more than all it reads)."""
    if _is_def(line) or line.lstrip().startswith("@"):
        return True
    at = line.find("lambda")
    while at >= 0:
        before = line[at - 1] if at else " "
        after = line[at + 6:at + 7]
        if not (before.isalnum() or before == "_") and (after == ":" or after.isspace()):
            return True
        at = line.find("lambda", at + 1)
    return False


def _is_def(line):
    words = line.split(None, 2)
    return bool(words) and (words[0] == "def" or words[:2] == ["async", "def"])


def _indent(text):
    return len(text) - len(text.lstrip())
