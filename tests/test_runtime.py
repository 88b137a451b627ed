"""The run-time layer (revsrc/runtime/): what generated programs call sits at the bottom
of the package, and one function says which functions those are."""
import ast
import math
import pathlib

import numpy as np

import revsrc
from revsrc import _kernels, runtime
from revsrc.core import ir, pytree
from revsrc.runtime import containers, guards, values
from revsrc.runtime.grads import linalg

RUNTIME = pathlib.Path(runtime.__file__).parent


def _user_fn(x):
    return x


def test_is_helper_names_the_functions_generated_code_calls():
    for fn in (runtime.finalize_grad, runtime.result_like, guards.raise_error,
               containers.append, values.pieces, linalg.dot_grad_a, _kernels.dot_grad_a,
               ir.copy, ir.make_dict):
        assert runtime.is_helper(fn), fn
    # revsrc's public functions, the user's, NumPy's and math's are not
    for fn in (revsrc.grad, revsrc.stop_gradient, pytree.tree_flatten, _user_fn, np.sum,
               math.sin, len, None):
        assert not runtime.is_helper(fn), fn


def test_a_decorated_helper_is_named_by_its_own_module():
    # generated code prints it as _linalg.dot_grad_a: the name must be found there
    fn = linalg.dot_grad_a
    assert fn.__module__ == linalg.__name__ and getattr(linalg, fn.__name__) is fn


def _revsrc_imports(path):
    """(line, module imported, at module level) for each import of a revsrc module."""
    tree = ast.parse(path.read_text())
    package = ["revsrc"] + list(path.relative_to(RUNTIME.parent).with_suffix("").parts[:-1])
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            names = [name] if node.module else [f"{name}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for n in names:
            if n == "revsrc" or n.startswith("revsrc."):
                yield node.lineno, n, id(node) in top


def test_the_run_time_imports_nothing_above_it_and_nothing_in_functions():
    allowed = ("revsrc.runtime", "revsrc.core", "revsrc.errors", "revsrc._kernels")
    bad = []
    for path in sorted(RUNTIME.rglob("*.py")):
        for line, name, at_top in _revsrc_imports(path):
            if not at_top or not any(name == a or name.startswith(a + ".") for a in allowed):
                bad.append(f"{path.relative_to(RUNTIME.parent)}:{line} {name}")
    assert bad == []
