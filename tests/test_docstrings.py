"""Every public name has a docstring with an example, and every example runs.

The public names are revsrc's `__all__`, revsrc.testing's checkers and the refusal
classes of revsrc.errors: what the site's API reference (docs/api.md) documents. The
examples are run with doctest, with the docstrings of the public modules (module,
functions and classes, private ones included), as a user's module would run them:
`__name__` is "__main__", since revsrc treats functions of its own modules as its own.
"""
import doctest
import importlib
import importlib.util
import inspect
import pathlib
import re

import pytest

import revsrc
import revsrc.errors
import revsrc.testing
from revsrc import primitives

PUBLIC_MODULES = ["revsrc", "revsrc.api", "revsrc.compose", "revsrc.jitted",
                  "revsrc.mapped", "revsrc.custom", "revsrc.testing", "revsrc.errors"]

PUBLIC = (
    [(f"revsrc.{n}", getattr(revsrc, n)) for n in revsrc.__all__ if n != "__version__"]
    + [(f"revsrc.testing.{n}", getattr(revsrc.testing, n))
       for n in revsrc.testing.__all__ + ["check_jvp"]]
    + [(f"revsrc.errors.{n}", c) for n, c in vars(revsrc.errors).items()
       if isinstance(c, type) and issubclass(c, revsrc.errors.RevsrcError)
       and c is not revsrc.errors.RevsrcError]
)

HAVE_JAX = importlib.util.find_spec("jax") is not None


def _tests():
    """The doctests of the public modules, then those of public names defined
    elsewhere (revsrc.stop_gradient, the pytree functions), each once."""
    finder = doctest.DocTestFinder()
    found, seen = [], set()

    def add(tests):
        for t in tests:
            key = (t.filename, t.lineno)
            if t.examples and key not in seen:
                seen.add(key)
                found.append(t)
    for name in PUBLIC_MODULES:
        add(finder.find(importlib.import_module(name), name, globs={"__name__": "__main__"}))
    for name, obj in PUBLIC:
        add(finder.find(obj, name, globs={"__name__": "__main__"}))
    return found


TESTS = _tests()


def test_the_api_reference_documents_every_public_name():
    assert len(PUBLIC) >= 40
    assert revsrc.__version__ and "__version__" in revsrc.__all__
    api = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    documented = set(re.findall(r"^\.\. auto(?:function|exception):: (\S+)$", api, re.M))
    missing = sorted(name for name, obj in PUBLIC
                     if name not in documented and f"revsrc.{obj.__name__}" not in documented)
    assert not missing, f"add these to docs/api.md: {missing}"


@pytest.mark.parametrize("name,obj", PUBLIC, ids=[n for n, _ in PUBLIC])
def test_public_name_has_a_docstring_with_an_example(name, obj):
    doc = inspect.getdoc(obj)
    assert doc, f"{name} has no docstring"
    assert ">>> " in doc, f"{name}'s docstring has no example (a >>> line doctest runs)"
    own = doctest.DocTestFinder(recurse=False).find(obj, name)
    assert own and own[0].examples, f"{name}'s example is not one doctest finds"


def _needs_jax(test):
    # a backend="jax" refusal can only be shown with JAX; JaxUnavailable's example
    # runs either way (it catches E601)
    return (any('backend="jax"' in e.source for e in test.examples)
            and "JaxUnavailable" not in test.docstring)


@pytest.mark.parametrize("test", TESTS, ids=[t.name for t in TESTS])
def test_docstring_example_runs(test):
    if _needs_jax(test) and not HAVE_JAX:
        pytest.skip("JAX is not installed (the jax extra)")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = []
    # the defvjp and nondiff examples register rules: forget them afterwards (the
    # rule table's own tests check that every rule in it has a test row)
    state = primitives.snapshot()
    try:
        runner.run(test, out=out.append)
    finally:
        primitives.restore(state)
    assert runner.failures == 0, "".join(out)
    assert runner.tries == len(test.examples)
