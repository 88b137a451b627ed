"""The sdist holds what a build and the test suite need; the wheel holds the compiled
module and the Python package, and none of the sources.

Both are built as `python -m build` builds them: the sdist from a copy of this tree,
then the wheel from the unpacked sdist, so the wheel also shows that the sdist builds.
That takes about a minute and fetches the build requirements from the package index
(as any install does). `.ci/run` builds them once and passes them in
REVSRC_TEST_SDIST and REVSRC_TEST_WHEEL; these tests then check those files. Installing
each into a fresh venv and running the suite against it is left to `.ci/run`.

`pytest -m "not packaging"` leaves these tests out.
"""
import fnmatch
import importlib.machinery
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.packaging

# Cython sources and templates under revsrc/, as MANIFEST.in globs them.
CYTHON_SOURCES = ("*.pyx", "*.pxi", "*.pxd", "*.in", "*.tp")
# What builds and test runs leave behind; none of it belongs in either archive.
GENERATED = ("*.c", "*.html", "*.so", "*.pyd", "*.pyc", "*.pyo")


def _matches(name, patterns):
    return any(fnmatch.fnmatch(pathlib.PurePosixPath(name).name, p) for p in patterns)


def _build(tmp):
    """Build the sdist from a clean copy of the tree, and the wheel from the sdist."""
    src = tmp / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
        ".hypothesis", ".benchmarks", *GENERATED))
    out = tmp / "dist"
    run = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(src)],
                         capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return sdist, wheel


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    given = [os.environ.get("REVSRC_TEST_SDIST"), os.environ.get("REVSRC_TEST_WHEEL")]
    if any(given):
        assert all(given), "set both REVSRC_TEST_SDIST and REVSRC_TEST_WHEEL, or neither"
        return tuple(pathlib.Path(p) for p in given)
    return _build(tmp_path_factory.mktemp("packaging"))


@pytest.fixture(scope="module")
def sdist(dists):
    """{path inside the sdist's top directory: bytes}"""
    with tarfile.open(dists[0]) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        top = {m.name.split("/", 1)[0] for m in members}
        assert len(top) == 1, top
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in members}


@pytest.fixture(scope="module")
def wheel(dists):
    """{path inside the wheel: bytes}"""
    with zipfile.ZipFile(dists[1]) as whl:
        return {name: whl.read(name) for name in whl.namelist() if not name.endswith("/")}


def _pyproject(key):
    text = (REPO / "pyproject.toml").read_text()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return re.search(rf'^{key}\s*=\s*"([^"]+)"', project, re.M).group(1)


def _metadata(text, field):
    return re.findall(rf"^{field}: (.*)$", text, re.M)


def test_sdist_has_what_a_build_and_the_tests_need(sdist):
    needed = {"pyproject.toml", "setup.py", "MANIFEST.in", "LICENSE", "README.md",
              "BENCHMARKS.md", "revsrc/__init__.py", "revsrc/_kernels.pyx",
              "revsrc/_engine.pxi", "examples/gradients.py", "tests/test_install.py",
              "tests/test_packaging.py", "tests/golden_programs.py"}
    assert needed <= set(sdist), sorted(needed - set(sdist))
    assert any(n.startswith("tests/golden/") for n in sdist)
    assert any(n.startswith("bench/") for n in sdist)


def test_sdist_resolves_every_cython_include_and_cimport(sdist):
    """Each `include "x"` and each cimport of a revsrc module is a file in the sdist."""
    wanted = set()
    for name, data in sdist.items():
        if not name.startswith("revsrc/") or not _matches(name, ("*.pyx", "*.pxi", "*.pxd")):
            continue
        here = pathlib.PurePosixPath(name).parent
        text = data.decode()
        for inc in re.findall(r'^\s*include\s+"([^"]+)"', text, re.M):
            wanted.add(str(here / inc))
        for mod in re.findall(r"^\s*(?:from\s+(\S+)\s+cimport|cimport\s+(\S+))", text, re.M):
            mod = mod[0] or mod[1]
            if mod.startswith("."):
                wanted.add(str(here / (mod.lstrip(".").replace(".", "/") + ".pxd")))
            elif mod.startswith("revsrc."):
                wanted.add(mod.replace(".", "/") + ".pxd")
    assert "revsrc/_engine.pxi" in wanted       # the check sees _kernels.pyx's include
    assert wanted <= set(sdist), sorted(wanted - set(sdist))


def test_sdist_has_every_cython_source_and_template_of_the_tree(sdist):
    on_disk = {p.relative_to(REPO).as_posix() for p in (REPO / "revsrc").rglob("*")
               if p.is_file() and _matches(p.name, CYTHON_SOURCES)}
    assert {"revsrc/_kernels.pyx", "revsrc/_engine.pxi"} <= on_disk
    assert on_disk <= set(sdist), sorted(on_disk - set(sdist))


def test_sdist_has_every_file_git_tracks(sdist):
    """Dotfiles (.gitignore, .ci/) are the only tracked files left out."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an unpacked sdist has no history to compare)")
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout.split("\n")
    tracked = {n for n in listed if n and not n.startswith(".") and (REPO / n).is_file()}
    assert "revsrc/_kernels.pyx" in tracked
    assert tracked <= set(sdist), sorted(tracked - set(sdist))


def test_sdist_has_no_generated_files(sdist):
    generated = sorted(n for n in sdist if _matches(n, GENERATED))
    assert generated == []
    assert "revsrc/_kernels.pyx" in sdist


def test_sdist_metadata_has_the_license_and_python_bound(sdist):
    info = sdist["PKG-INFO"].decode()
    assert _metadata(info, "License-Expression") == ["Apache-2.0"]
    assert _metadata(info, "License-File") == ["LICENSE"]
    assert _metadata(info, "Requires-Python") == [_pyproject("requires-python")]
    assert b"Apache License" in sdist["LICENSE"] and b"Version 2.0" in sdist["LICENSE"]


def test_wheel_has_the_compiled_module_and_no_sources(wheel):
    kernels = [n for n in wheel if n.startswith("revsrc/_kernels.")]
    assert len(kernels) == 1, kernels
    assert any(kernels[0].endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES), kernels
    sources = sorted(n for n in wheel if _matches(n, CYTHON_SOURCES + ("*.c", "*.html")))
    assert sources == []


def test_wheel_has_only_the_package_and_its_metadata(wheel):
    tops = {n.split("/", 1)[0] for n in wheel}
    assert tops == {"revsrc", "revsrc-%s.dist-info" % _pyproject("version")}, tops


def test_wheel_has_every_module_of_the_sdist(sdist, wheel):
    modules = {n for n in sdist if n.startswith("revsrc/") and n.endswith(".py")}
    assert {"revsrc/__init__.py", "revsrc/rules/__init__.py"} <= modules
    assert modules <= set(wheel), sorted(modules - set(wheel))


def test_both_have_the_typing_marker(sdist, wheel):
    """PEP 561: type checkers read revsrc's hints only when py.typed ships."""
    assert "revsrc/py.typed" in sdist and "revsrc/py.typed" in wheel


def test_wheel_metadata_has_the_license(wheel):
    info = next(v for n, v in wheel.items() if n.endswith(".dist-info/METADATA")).decode()
    assert _metadata(info, "License-Expression") == ["Apache-2.0"]
    licenses = [n for n in wheel if ".dist-info/licenses/" in n]
    assert [pathlib.PurePosixPath(n).name for n in licenses] == ["LICENSE"], licenses
