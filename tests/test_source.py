"""The generated adjoint is part of the product: readable, stable, deterministic."""
import os
import pathlib
import subprocess
import sys
import traceback

import numpy as np

import pytest

import revsrc
from revsrc.testing import check_grads

import golden_programs

HERE = pathlib.Path(__file__).parent
GOLDEN_DIR = HERE / "golden"


@pytest.mark.parametrize("name", sorted(golden_programs.GOLDEN))
def test_golden_source(name):
    fn, args, argnums = golden_programs.GOLDEN[name]
    text = revsrc.source(revsrc.grad(fn, argnums=argnums, backend="python"), *args)
    path = GOLDEN_DIR / f"{name}.txt"
    if os.environ.get("REVSRC_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"generated source of {name} changed; " \
        "rerun with REVSRC_UPDATE_GOLDEN=1 if the change is intended"


@pytest.mark.parametrize("name", sorted(golden_programs.GOLDEN))
def test_golden_programs_differentiate_correctly(name):
    fn, args, argnums = golden_programs.GOLDEN[name]
    check_grads(fn, args, argnums=argnums)


def test_source_reads_like_code():
    fn, args, _ = golden_programs.GOLDEN["loop_with_branch"]
    text = revsrc.source(revsrc.grad(fn, backend="python"), *args)
    lines = text.splitlines()
    assert lines[0] == "def loop_with_branch_adjoint(x, n):"
    assert any(line.strip().startswith("x_bar") for line in lines)
    assert any(line.strip() == "# adjoint of line " + str(fn.__code__.co_firstlineno + 4)
               + ": x = x - 0.1 * math.sin(x)" for line in lines)
    # one operation per line: no line has two binary operators
    for line in lines:
        code = line.split("#")[0]
        if "=" in code and "range(" not in code:
            rhs = code.split("=", 1)[1]
            assert sum(rhs.count(op) for op in (" + ", " - ", " * ", " / ")) <= 1, line


_DETERMINISM = """
import sys
sys.path.insert(0, {tests!r})
import revsrc, golden_programs
for name in sorted(golden_programs.GOLDEN):
    fn, args, argnums = golden_programs.GOLDEN[name]
    print(revsrc.source(revsrc.grad(fn, argnums=argnums, backend="python"), *args))
"""


def test_source_is_deterministic_across_processes(tmp_path):
    outs = []
    # the revsrc under test (installed, or a checkout on PYTHONPATH), not the cwd
    root = str(pathlib.Path(revsrc.__file__).resolve().parent.parent)
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=root)
        run = subprocess.run([sys.executable, "-c", _DETERMINISM.format(tests=str(HERE))],
                             capture_output=True, text=True, env=env, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        outs.append(run.stdout)
    assert outs[0] == outs[1]
    assert "def calls_helper_adjoint" in outs[0]


def test_traceback_shows_generated_lines():
    def f(x, y):
        return x / y

    df = revsrc.grad(f, backend="python")
    with pytest.raises(ZeroDivisionError) as info:
        df(1.0, 0.0)
    text = "".join(traceback.format_exception(info.value))
    assert "<revsrc f_adjoint" in text
    assert "_ret = x / y" in text


def test_derivative_is_an_ordinary_function():
    def g(x):
        return math.exp(-x * x)

    import math
    dg = revsrc.grad(g)
    values = [dg(0.1 * i) for i in range(5)]
    expected = [-2 * 0.1 * i * math.exp(-(0.1 * i) ** 2) for i in range(5)]
    assert values == pytest.approx(expected, rel=1e-12)
    assert dg.__name__ == "grad_g"
    assert list(map(dg, [0.3]))[0] == dg(0.3)


def conv_loss(K, x, ii, jj):
    cols = np.reshape(x[:, :, ii, jj], (2, 27, 16))
    out = np.matmul(np.reshape(K, (8, 27)), cols)
    r = np.maximum(out, 0.0)
    return np.sum(r * r)


def test_only_the_differentiated_argument_gets_adjoint_work():
    rng = np.random.default_rng(0)
    K = rng.standard_normal((8, 3, 3, 3))
    x = rng.standard_normal((2, 3, 6, 6))
    oi, oj = np.divmod(np.arange(16), 4)
    ki, kj = np.divmod(np.arange(9), 3)
    ii, jj = ki[:, None] + oi[None, :], kj[:, None] + oj[None, :]
    dK = revsrc.grad(conv_loss)
    text = revsrc.source(dK, K, x, ii, jj)
    assert "K_bar" in text
    assert "x_bar" not in text and "cols_bar" not in text and "index_add" not in text
    check_grads(conv_loss, (K, x, ii, jj))
