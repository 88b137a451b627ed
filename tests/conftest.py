"""Stop before collection, with the fix, when the tests would import a source tree
whose compiled kernels were never built.

`python -m pytest` puts the current directory first on sys.path, so from a checkout
it imports ./revsrc ahead of any installed copy. After `pip install .` that tree has
no compiled kernels, and every test module would fail to import.
"""
import gc
import importlib.machinery
import importlib.util
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent


def pytest_sessionstart(session):
    spec = importlib.util.find_spec("revsrc")
    if spec is None or spec.origin is None:
        return                      # the test modules report the missing package
    package = pathlib.Path(spec.origin).resolve().parent
    built = any((package / ("_kernels" + s)).is_file()
                for s in importlib.machinery.EXTENSION_SUFFIXES)
    if package.parent != REPO or built:
        return
    pytest.exit(
        f"revsrc is imported from the source tree {package}, where its compiled kernels "
        "are not built (`python -m pytest` puts the current directory first on "
        "sys.path). For development, install in editable mode, which builds them in "
        "place: pip install -e \".[test]\". To test a regular install (pip install "
        "\".[test]\"), run the `pytest` command instead, which does not add the "
        "current directory.", returncode=4)


def pytest_collection_finish(session):
    """The collected tests, the modules and what they built stay for the whole run: the
    cyclic collector need not scan them again in every full collection (the full runs
    hold some 500,000 objects; the collector took about 6% of their time)."""
    gc.collect()
    gc.freeze()
