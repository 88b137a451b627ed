"""Every Python example in the README and in the documentation site's pages (docs/,
built by Sphinx) runs, and prints what the page says."""
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import revsrc

REPO = pathlib.Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
REFUSAL_TABLE = DOCS / "refusals.md"
# the README first, then the site's pages (not a local build of the site, docs/_build);
# architecture.md's python blocks are excerpts of revsrc's own source, not programs
EXCERPTS = {DOCS / "architecture.md"}
PAGES = [README] + sorted(p for p in DOCS.rglob("*.md")
                          if "_build" not in p.parts and p not in EXCERPTS)


def _blocks(page):
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


EXAMPLES = [(page.relative_to(REPO).as_posix(), i, code)
            for page in PAGES for i, code in enumerate(_blocks(page))]
BLOCKS = [code for _, _, code in EXAMPLES]


def _run(code, tmp_path):
    path = tmp_path / "example.py"
    path.write_text(code)
    # the revsrc these tests import (installed, or a checkout on PYTHONPATH)
    root = str(pathlib.Path(revsrc.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=root)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_readme_and_the_site_have_examples():
    assert len(_blocks(README)) >= 3
    assert REFUSAL_TABLE.exists() and (DOCS / "guide").is_dir()
    assert len(EXAMPLES) >= 25


def _needs_jax(code):
    return ("import jax" in code or 'backend="jax"' in code) and \
        importlib.util.find_spec("jax") is None


@pytest.mark.parametrize("index", range(len(BLOCKS)),
                         ids=[f"{page}-{i}" for page, i, _ in EXAMPLES])
def test_readme_example_runs(index, tmp_path):
    if _needs_jax(BLOCKS[index]):
        pytest.skip("JAX is not installed (the jax extra)")
    out = _run(BLOCKS[index], tmp_path)
    assert out.strip(), "every example prints its result"
    # each `print(...)  # expected` comment agrees with the line that print printed
    # (the examples print one line per print statement and run each print once)
    claims = re.findall(r"^\s*print\(.*\)(?:\s+# (.*))?$", BLOCKS[index], re.M)
    lines = out.strip().splitlines()
    assert len(claims) == len(lines), (claims, lines)
    for claim, line in zip(claims, lines):
        if re.match(r"[-\d\[(]", claim):
            wants = re.findall(r"-?\d+\.\d+", claim)
            gots = re.findall(r"-?\d+\.\d+", line)
            assert len(gots) >= len(wants), (claim, line)
            for want, got in zip(wants, gots):
                want = want.rstrip(".")
                assert got.startswith(want[:min(len(want), len(got))]), (claim, line)
        elif re.match(r"(True|False|inf|nan|E\d{3})\b", claim):
            assert line.split()[:len(claim.split())] == claim.split(), (claim, line)


def test_first_example_is_the_closed_form(tmp_path):
    out = _run(BLOCKS[0], tmp_path)
    assert float(out) == pytest.approx(np.cos(0.7) * 2.0 + 2 * 0.7, rel=1e-14)


def test_loss_example_gradient_matches_finite_differences(tmp_path):
    out = _run(_block_with("def loss(W, x, y, scale=1.0)") + "\nfrom revsrc.testing import check_grads\n"
               "check_grads(loss, (W, x, y), kwargs={'scale': 2.0})\nprint('ok')\n",
               tmp_path)
    assert out.strip().endswith("ok")


def test_user_rule_example_is_the_sigmoid(tmp_path):
    out = _run(_block_with("def softplus_rule"), tmp_path)
    values = [float(v) for v in re.findall(r"\d+\.\d+", out)]
    assert values == pytest.approx(list(1 / (1 + np.exp(-np.array([0.0, 1.0])))),
                                   rel=1e-6)


def _block_with(text):
    return next(b for b in BLOCKS if text in b)


def test_pytree_example_gradient_matches_finite_differences(tmp_path):
    block = _block_with("revsrc.tree_map(lambda p, g: p - 0.1 * g")
    out = _run(block.replace("params = revsrc.tree_map", "new = revsrc.tree_map")
               + "\nfrom revsrc.testing import check_grads\n"
               "check_grads(loss, (params, x, y))\n"
               "assert loss(new, x, y) < loss(params, x, y)\nprint('ok')\n", tmp_path)
    assert out.strip().endswith("ok")


def test_callables_example_is_the_closed_form(tmp_path):
    out = _run(_block_with("class Model:") + "\nfrom revsrc.testing import check_grads\n"
               "check_grads(m.loss, (np.array([0.1, -0.2]),))\n"
               "check_grads(fit, (np.array([0.8, 1.3]),))\nprint('ok')\n", tmp_path)
    lines = out.strip().splitlines()
    assert lines[-1] == "ok" and lines[2] == "12.0 1.0"


def test_every_refusal_code_is_in_the_readme_and_the_refusal_table():
    from revsrc import errors
    codes = {c.code for c in vars(errors).values() if isinstance(c, type)
             and issubclass(c, errors.RevsrcError) and c is not errors.RevsrcError}
    short = README.read_text().split("## What is refused", 1)[1].split("\n## ", 1)[0]
    full = REFUSAL_TABLE.read_text()
    for table in (short, full):
        missing = sorted(c for c in codes if f"| {c} |" not in table)
        assert not missing, missing
    # the full table's rows: code, what, examples, the usual rewrite
    rows = [r for r in full.splitlines() if re.match(r"\| E\d{3} \|", r)]
    assert all(r.count(" | ") >= 3 for r in rows), rows
