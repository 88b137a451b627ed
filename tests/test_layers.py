"""The package's shape: imports point down the layers, no import cycle, imports inside
functions only where a module is optional or loads late, and the size budget.

The layers, lowest first (docs/architecture.md has the same table):

    0  core/, errors                 the IR, its traversal, kinds encoding, names, pytrees
    1  runtime/, _kernels, _engine_* what generated programs call; the engine's sources
    2  primitives                    the record of each operation
    3  rules/                        the records, filled in (never the machinery above)
    4  frontend/                     Python source -> IR
    5  passes/                       IR -> IR, and the pipeline that orders them
    6  backends/                     Program -> Python, the engine, native C, JAX
    7  api, compose, jitted, ...     what users call
    8  revsrc (__init__), testing    the public names, and tools built on them

A module may import its own layer and the layers below it. These tests read the source
with `ast`, so they see imports inside functions as well as at the top of a module.
"""
import ast
import os

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "revsrc")

LAYERS = [
    ("core", "errors"),
    ("runtime", "_kernels", "_engine_ops", "_engine_c"),
    ("primitives",),
    ("rules",),
    ("frontend",),
    ("passes",),
    ("backends",),
    ("api", "compose", "jitted", "mapped", "mapped_calls", "vmapped", "columns", "nested", "custom",
     "executable"),
    ("", "testing"),   # revsrc/__init__.py, and check_grads, built on the public names
]

# Imports of revsrc modules inside a function body that are allowed, as (importing
# module, imported module): the native tier loads late (its threads and disk cache are
# not set up for programs that never get hot), and modules that import an optional
# library at their top (JAX, SciPy) load when a program first needs them.
LATE_IMPORTS = {
    ("revsrc.executable", "revsrc.backends.engine.native"),
    ("revsrc.backends.jax.load", "revsrc.backends.jax.loops"),
    ("revsrc.backends.jax.load", "revsrc.backends.jax.twins"),
    ("revsrc.jitted", "revsrc.backends.engine.native"),
    ("revsrc.mapped", "revsrc.backends.engine.native"),
    ("revsrc.mapped", "revsrc.backends.engine.lanes"),
    ("revsrc.rules", "revsrc.rules.special"),
    ("revsrc.rules", "revsrc.rules.stats"),
    ("revsrc.rules", "revsrc.rules.scipy_linalg"),
}

# Budget: lines per module, class and function. What is over it today is listed with
# its size, so the list can only shrink (a listed item may not grow).
MODULE_LINES, CLASS_LINES, FUNCTION_LINES = 600, 400, 80
OVER_BUDGET = {
}


def _modules():
    out = {}
    for d, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                rel = os.path.relpath(path, os.path.dirname(ROOT))[:-3].replace(os.sep, ".")
                out[rel[: -len(".__init__")] if rel.endswith(".__init__") else rel] = path
    return out


MODULES = _modules()
KNOWN = set(MODULES) | {"revsrc._kernels"}


def _targets(module, path, node):
    """The revsrc modules an import statement names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in KNOWN]
    if node.level:
        package = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    if base != "revsrc" and not base.startswith("revsrc."):
        return []
    out = []
    for a in node.names:
        full = f"{base}.{a.name}"
        out.append(full if full in KNOWN else base)
    return [t for t in out if t in KNOWN]


def _imports():
    """(importer, imported, lineno, inside a function) for every revsrc import."""
    found = []
    for module, path in MODULES.items():
        tree = ast.parse(open(path).read())
        inside = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside.update(id(n) for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom)))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, path, node):
                    if target != module:
                        found.append((module, target, node.lineno, id(node) in inside))
    return found


IMPORTS = _imports()


def layer_of(module):
    name = module[len("revsrc."):] if module.startswith("revsrc.") else ""
    head = name.split(".")[0]
    for level, members in enumerate(LAYERS):
        if head in members:
            return level
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_imports_point_down():
    upward = [f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)}) at line {ln}"
              for a, b, ln, _ in IMPORTS if layer_of(b) > layer_of(a)]
    assert not upward, "\n".join(upward)


def test_no_import_cycle():
    graph = {}
    for a, b, _, _ in IMPORTS:
        graph.setdefault(a, set()).add(b)
    # Tarjan's strongly connected components, iteratively
    index, low, on, stack, cycles = {}, {}, set(), [], []
    for root in sorted(MODULES):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    assert not cycles, cycles


def test_imports_inside_functions_only_for_late_or_optional_modules():
    hidden = sorted({(a, b) for a, b, _, inside in IMPORTS if inside} - LATE_IMPORTS)
    assert not hidden, "imports inside a function body (move them to the top):\n" + \
        "\n".join(f"{a} -> {b}" for a, b in hidden)


def _sizes():
    out = {}
    for module, path in MODULES.items():
        src = open(path).read()
        rel = os.path.relpath(path, os.path.dirname(ROOT))
        out[rel] = (len(src.splitlines()), MODULE_LINES)
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ClassDef):
                out[f"{rel}:{node.name}"] = (node.end_lineno - node.lineno + 1, CLASS_LINES)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = f"{rel}:{node.name}"
                size = node.end_lineno - node.lineno + 1
                if key not in out or out[key][0] < size:
                    out[key] = (size, FUNCTION_LINES)
    # the hand-written Cython and C: one extension, one include per subject
    for d, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith((".pyx", ".pxi")) or f == "_engine_rt.h":
                path = os.path.join(d, f)
                rel = os.path.relpath(path, os.path.dirname(ROOT))
                out[rel] = (len(open(path).read().splitlines()), MODULE_LINES)
    return out


SIZES = _sizes()


def test_size_budget():
    over = []
    for what, (size, budget) in sorted(SIZES.items()):
        allowed = OVER_BUDGET.get(what, budget)
        if size > allowed:
            over.append(f"{what} has {size} lines; the budget is {budget}"
                        + (f" (listed at {allowed}: a listed item may only shrink)"
                           if what in OVER_BUDGET else ""))
    assert not over, "\n".join(over)


def test_the_exception_list_names_what_is_over_budget():
    stale = [w for w, n in OVER_BUDGET.items() if w not in SIZES or SIZES[w][0] <= SIZES[w][1]]
    assert not stale, f"no longer over budget (remove from OVER_BUDGET): {stale}"
