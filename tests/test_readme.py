"""Every Python example in the README runs, and prints what the README says."""
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import revsrc

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


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


def test_readme_has_examples():
    assert len(BLOCKS) >= 3


def _needs_jax(code):
    return ("import jax" in code or 'backend="jax"' in code) and \
        importlib.util.find_spec("jax") is None


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, tmp_path):
    if _needs_jax(BLOCKS[index]):
        pytest.skip("JAX is not installed (the jax extra)")
    out = _run(BLOCKS[index], tmp_path)
    assert out.strip(), "every example prints its result"
    # each `print(...)  # expected` comment agrees with what was printed
    claims = re.findall(r"print\(.*\)\s+# ([-\d\[(].*)", BLOCKS[index])
    for claim, line in zip(claims, out.strip().splitlines()):
        for want, got in zip(re.findall(r"-?\d+\.\d+", claim),
                             re.findall(r"-?\d+\.\d+", line)):
            want = want.rstrip(".")
            assert got.startswith(want[:min(len(want), len(got))]), (claim, line)


def test_first_example_is_the_closed_form(tmp_path):
    out = _run(BLOCKS[0], tmp_path)
    assert float(out) == pytest.approx(np.cos(0.7) * 2.0 + 2 * 0.7, rel=1e-14)


def test_loss_example_gradient_matches_finite_differences(tmp_path):
    out = _run(BLOCKS[1] + "\nfrom revsrc.testing import check_grads\n"
               "check_grads(loss, (W, x, y), kwargs={'scale': 2.0})\nprint('ok')\n",
               tmp_path)
    assert out.strip().endswith("ok")


def test_user_rule_example_is_the_sigmoid(tmp_path):
    out = _run(BLOCKS[2], tmp_path)
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


def test_every_refusal_code_is_in_the_readme_table():
    from revsrc import errors
    table = README.read_text().split("## What is refused", 1)[1]
    codes = {c.code for c in vars(errors).values() if isinstance(c, type)
             and issubclass(c, errors.RevsrcError) and c is not errors.RevsrcError}
    missing = sorted(c for c in codes if f"| {c} |" not in table)
    assert not missing, missing
