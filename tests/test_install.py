"""revsrc imports with its compiled kernels, and the version is the one in pyproject.toml."""
import importlib.machinery
import importlib.util
import os
import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent


def _pyproject_version():
    text = (REPO / "pyproject.toml").read_text()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return re.search(r'^version\s*=\s*"([^"]+)"', project, re.M).group(1)


def test_compiled_kernels_import():
    from revsrc import _kernels

    assert callable(_kernels.scatter_add_rows)
    stack = _kernels.FloatStack()
    stack.push(2.5)
    assert stack.pop() == 2.5


def test_kernels_are_an_extension_module_on_disk():
    spec = importlib.util.find_spec("revsrc._kernels")
    assert spec is not None and spec.origin is not None
    path = pathlib.Path(spec.origin)
    assert path.is_file()
    assert any(path.name.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES), path


def test_version_matches_pyproject():
    spec = importlib.util.find_spec("revsrc")
    init = [p for p in (spec.submodule_search_locations or []) if (pathlib.Path(p) / "__init__.py").is_file()]
    if not init:
        pytest.skip("revsrc/__init__.py has not landed yet")
    import revsrc

    assert revsrc.__version__ == _pyproject_version()


def test_installed_copy_is_the_one_under_test():
    """.ci/run sets REVSRC_TEST_INSTALLED=1: the tests must not see the source tree."""
    if os.environ.get("REVSRC_TEST_INSTALLED") != "1":
        pytest.skip("only checked when testing an installed revsrc (.ci/run)")
    spec = importlib.util.find_spec("revsrc")
    locations = [pathlib.Path(p).resolve() for p in spec.submodule_search_locations]
    assert all(REPO not in p.parents and p != REPO for p in locations), locations


_BROKEN = """
import importlib.abc, sys

class _NoKernels(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "revsrc._kernels":
            raise ImportError("simulated: the extension module is missing")
        return None

sys.meta_path.insert(0, _NoKernels())
try:
    import revsrc
except ImportError as exc:
    print("ImportError:", exc)
else:
    print("imported")
"""


def test_missing_kernels_fail_loudly_with_a_fix():
    """A broken install (no compiled kernels) must not fall back to something slow."""
    import os
    import pathlib
    import subprocess
    import sys

    import revsrc

    root = str(pathlib.Path(revsrc.__file__).resolve().parent.parent)
    run = subprocess.run([sys.executable, "-c", _BROKEN], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=root), timeout=60)
    out = run.stdout
    assert out.startswith("ImportError:"), out + run.stderr
    assert "compiled kernels" in out and "pip install" in out


def test_public_names():
    import revsrc

    assert set(revsrc.__all__) >= {"grad", "value_and_grad", "source", "defvjp", "nondiff",
                                   "RevsrcError"}
    for name in revsrc.__all__:
        assert hasattr(revsrc, name)
