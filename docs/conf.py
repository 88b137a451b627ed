"""Sphinx configuration of revsrc's documentation site.

The pages are Markdown, read by MyST-parser: the README, docs/architecture.md,
BENCHMARKS.md and examples/README.md were Markdown already, and the site includes
the last three as they are rather than keeping a reStructuredText copy in step with
them. Every ```python block of a page is run by tests/test_readme.py, as the README's
are. The API reference is autodoc over the docstrings, whose examples
tests/test_docstrings.py runs. Build: pip install ".[docs]" && sphinx-build docs docs/_build
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

try:
    import revsrc  # an install (CI, pip install -e .): autodoc documents that copy
except ImportError:
    # a checkout built in place (python setup.py build_ext --inplace)
    sys.path.insert(0, ROOT)
    import revsrc

project = "revsrc"
author = "the revsrc authors"
copyright = "the revsrc authors; Apache License 2.0"
release = version = revsrc.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",      # the docstrings' "Parameters / ----------" sections
]
source_suffix = {".md": "markdown"}
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3        # [text](#a-heading) links within and across pages

root_doc = "index"
exclude_patterns = ["_build"]
# `name` in a docstring is a reference to a Python object where one is documented
default_role = "py:obj"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = False

html_theme = "alabaster"
html_title = f"revsrc {release}"

# BENCHMARKS.md, which the site includes as it is, is written by
# bench/vs_frameworks.py --emit with its tables under H3 headings straight after the H1.
suppress_warnings = ["myst.header"]

# The gallery page is examples/README.md, which the gallery's own links are written
# for: `[x](train_mlp.py)`, `![plot](figures/x.png)`, `../BENCHMARKS.md` are relative
# to examples/. The page's source is that file with each relative link rewritten to
# where it points from docs/ (a .py becomes a download, an image is copied, a .md
# another page of this site), so a link that points nowhere still fails the -W build.
# Without examples/README.md, docs/gallery.md's own placeholder text is the page.
import re  # noqa: E402

GALLERY = os.path.join(ROOT, "examples", "README.md")
_LINK = re.compile(r"(\]\(|^\[[^\]]+\]:\s*)([^)\s]+)", re.M)
_PAGES = {"README.md": "index.md", "BENCHMARKS.md": "benchmarks.md"}


def _from_docs(target, base="examples"):
    if re.match(r"[a-zA-Z][\w+.-]*:|#|/", target):
        return target           # a URL, an anchor, an absolute path
    path, hash_, anchor = target.partition("#")
    full = os.path.normpath(os.path.join(base, path)).replace(os.sep, "/")
    if full in _PAGES:
        full = _PAGES[full]
    elif full.startswith("docs/") and full.endswith(".md"):
        full = full[len("docs/"):]
    else:
        full = "../" + full
    return full + hash_ + anchor


_HEADING_LINK = re.compile(r"^(#{1,6} .*?)\[([^\]]+)\]\(([^)\s]+)\)(.*)$", re.M)


def _unlink_headings(text):
    """A link in a heading (`### Title — [`x.py`](x.py)`) moves to a line of its own
    under it: Sphinx cannot put a download link in a page's table of contents."""
    while True:
        new = _HEADING_LINK.sub(r"\1\2\4\n\n[\2](\3)", text, count=1)
        if new == text:
            return text
        text = new


def _gallery_source(app, docname, source):
    if docname == "gallery" and os.path.exists(GALLERY):
        app.env.note_dependency(GALLERY)     # rebuilt when the gallery's text changes
        with open(GALLERY, encoding="utf-8") as f:
            text = _unlink_headings(f.read())
        source[0] = _LINK.sub(lambda m: m.group(1) + _from_docs(m.group(2)), text)


def setup(app):
    app.connect("source-read", _gallery_source)
    return {"parallel_read_safe": True}
