"""The README's example program prints what closed-form derivatives say it should;
train_mlp.py's loss falls; and every example is on the gallery page, examples/README.md,
with its figure. (The examples check their own results: .ci/run runs each of them.)"""
import importlib.util
import math
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "gradients.py"


def _f(x, y):
    return math.sin(x) * y + x * x


def _df_dx(x, y):
    return math.cos(x) * y + 2.0 * x


def _df_dy(x, y):
    return math.sin(x)


def _g(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


def _dg(x):
    return math.exp(-x * x) * (-2.0 * x * math.cos(3.0 * x) - 3.0 * math.sin(3.0 * x))


def _newton(x):
    for _ in range(6):
        x = x - _g(x) / _dg(x)
    return x


def _same_revsrc_env():
    """Environment in which the example imports the revsrc this test run imports."""
    spec = importlib.util.find_spec("revsrc")
    env = dict(os.environ)
    if spec is not None and spec.submodule_search_locations:
        parent = str(pathlib.Path(list(spec.submodule_search_locations)[0]).parent)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [parent, env.get("PYTHONPATH")]))
    return env


def test_gradients_example_output():
    run = subprocess.run([sys.executable, "examples/gradients.py"], cwd=REPO, env=_same_revsrc_env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2, run.stdout

    first = f"{_df_dx(0.7, 2.0):.9f} {_f(0.7, 2.0) * 2.0 + _df_dy(0.7, 2.0):.9f}"
    assert lines[0] == first

    dg_fig, root_fig, residual_fig = lines[1].split()
    assert dg_fig == f"{_dg(0.3):.9f}"
    assert root_fig == f"{_newton(0.4):.9f}"
    # The root is pi/6; the residual's last digit depends on rounding, only its size counts.
    assert abs(float(root_fig) - math.pi / 6) < 1e-9
    assert abs(float(residual_fig)) < 1e-15


MLP = REPO / "examples" / "train_mlp.py"


def _load_mlp():
    # the examples import their shared helper (examples/_gallery.py) as a sibling
    sys.path.insert(0, str(MLP.parent))
    try:
        spec = importlib.util.spec_from_file_location("train_mlp", MLP)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(MLP.parent))
    return module


def test_train_mlp_prints_a_falling_loss():
    run = subprocess.run([sys.executable, str(MLP)], cwd=REPO, env=_same_revsrc_env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    losses = [float(line.split()[-1]) for line in run.stdout.splitlines() if line.startswith("step")]
    assert len(losses) == 6
    assert all(b < a for a, b in zip(losses, losses[1:]))
    assert losses[-1] < 0.05 * losses[0]


def test_train_mlp_gradient_matches_finite_differences():
    from revsrc.testing import check_grads
    mlp = _load_mlp()
    x, y = mlp.make_data(n=20)
    params = mlp.init_params(hidden=5)
    check_grads(mlp.loss, (params, x, y))
    value, grads = mlp.revsrc.value_and_grad(mlp.loss)(params, x, y)
    assert value == mlp.loss(params, x, y)
    assert list(grads) == ["W1", "b1", "W2", "b2"]
    # one step of the example's update lowers the loss
    stepped = {k: params[k] - 0.1 * grads[k] for k in params}
    assert mlp.loss(stepped, x, y) < value


# ----- the gallery (examples/README.md): cheap checks; CI runs the examples themselves -----

GALLERY = REPO / "examples"


def _examples():
    """The example programs: every examples/*.py but the shared helpers (_*.py)."""
    return sorted(p.name for p in GALLERY.glob("*.py") if not p.name.startswith("_"))


def test_there_are_at_least_fifteen_examples():
    assert len(_examples()) >= 15, _examples()


def test_every_example_is_on_the_gallery_page_with_its_figure():
    page = (GALLERY / "README.md").read_text()
    for name in _examples():
        assert f"({name})" in page, f"{name} is not linked from examples/README.md"
        if name == "gradients.py":      # the README's first example prints two lines only
            continue
        figure = f"figures/{name[:-3]}.png"
        assert f"({figure})" in page, f"examples/README.md does not show {figure}"
        assert (GALLERY / figure).is_file(), f"examples/{figure} is missing"


def test_every_example_checks_itself():
    """Each example ends through _gallery.done(), which exits 1 if a check failed."""
    for name in _examples():
        if name == "gradients.py":
            continue
        text = (GALLERY / name).read_text()
        assert "done()" in text and "check" in text, name
