"""The little plumbing every example shares: its self-check and its figure.

The examples are meant to be read, so what they share that is not about
differentiation lives here: `check` makes a failed check end the program with a
non-zero status (CI runs every example), and `figure` gives a Matplotlib figure when
Matplotlib is installed and None otherwise, so that an example runs and checks
itself without it. Figures go to examples/figures/NAME.png, small (dpi 80).
"""
import contextlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_failures = []


def check(ok, what):
    """Print one line for a check; remember a failure (`done` exits on it)."""
    print(f"check: {what}: {'ok' if ok else 'FAILED'}")
    if not ok:
        _failures.append(what)


def check_gradient(f, args, what, **options):
    """revsrc.testing.check_grads (revsrc's gradient against central differences) as
    a check: a mismatch is reported and fails the example instead of raising."""
    import revsrc.testing

    try:
        revsrc.testing.check_grads(f, args, **options)
    except AssertionError as err:
        print(err)
        check(False, what)
    else:
        check(True, what)


def done():
    """Exit with status 1 if any check failed."""
    if _failures:
        print(f"{len(_failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)


@contextlib.contextmanager
def figure(name, ncols=1, width=5.0, height=3.6):
    """Yield (fig, axes) to draw on and save examples/figures/NAME.png after, or
    (None, None) when Matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no figure")
        yield None, None
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height))
    yield fig, axes
    fig.tight_layout()
    os.makedirs(os.path.join(HERE, "figures"), exist_ok=True)
    path = os.path.join(HERE, "figures", f"{name}.png")
    fig.savefig(path, dpi=80)
    plt.close(fig)
    print(f"figure: {os.path.relpath(path)}")
