"""Newton's method from 200,000 starting points: basins of attraction, compiled.

f(x) = sin(3x) + x/2 - 0.3 has several roots; which one Newton's method finds depends
on where it starts, in an intricate way near the critical points. The derivative is
revsrc.grad(f); newton() is plain Python that calls it. revsrc.vmap(newton) runs it
on every start compiled, on all cores, and revsrc.jit(count_roots) compiles a whole
loop over starts, derivative calls included. Both give exactly the digits of plain
Python, which the example checks.

    python examples/newton_basins.py
"""
import math
import time

import numpy as np

import revsrc
from _gallery import check, done, figure


def f(x):
    return math.sin(3.0 * x) + 0.5 * x - 0.3


df = revsrc.grad(f)


def newton(x):
    for _ in range(60):
        step = f(x) / df(x)
        x = x - step
        if abs(step) < 1e-13:
            break
    return x


def count_roots(lo, hi, n, root):
    """How many of n evenly spaced starts in [lo, hi] converge to `root`."""
    hits = 0
    for i in range(n):
        x = newton(lo + (hi - lo) * i / (n - 1))
        if abs(x - root) < 1e-9:
            hits += 1
    return hits


def main():
    starts = np.linspace(-3.0, 3.0, 200_000)
    t0 = time.perf_counter()
    roots = revsrc.vmap(newton)(starts)
    t1 = time.perf_counter()
    sample = np.arange(0, len(starts), 4001)
    plain = np.array([newton(float(x)) for x in starts[sample]])
    print(f"vmap: {len(starts)} starts in {t1 - t0:.2f} s, the first call's compilation included")
    check(np.array_equal(roots[sample], plain), "vmap gives the digits of plain Python")

    residuals = np.abs(revsrc.vmap(f)(roots))
    converged = residuals < 1e-12
    found = np.unique(np.round(roots[converged], 9))
    print(f"{converged.mean():.1%} of the starts converge within 60 steps, to the roots {found}")
    check(len(found) == 3, "the three roots of f")
    fast = revsrc.jit(count_roots)
    share = fast(-3.0, 3.0, 20_001, float(found[0])) / 20_001
    check(share == count_roots(-3.0, 3.0, 20_001, float(found[0])) / 20_001,
          "jit gives the count of plain Python")
    print(f"{share:.1%} of the starts converge to the root {found[0]:.6f}")

    with figure("newton_basins", width=7.0, height=3.2) as (fig, ax):
        if fig is not None:
            xs = starts[::20]
            ax.plot(xs, [f(x) for x in xs], "k", lw=1, label="f(x)")
            ax.axhline(0.0, color="0.7", lw=0.5)
            which = np.searchsorted(found, np.round(roots[::20], 9)).clip(0, 2)
            colours = np.where(converged[::20], which, -1)
            ax.scatter(xs, np.full(len(xs), -1.9), c=colours, cmap="viridis", marker="|", s=80,
                       vmin=-1, vmax=2)
            ax.plot(found, np.zeros(len(found)), "ro", label="roots")
            ax.set_xlabel("start x0 (band: the root Newton finds; purple: none)")
            ax.set_ylim(-2.2, 2.2)
            ax.legend(fontsize=8, loc="upper left")
    done()


if __name__ == "__main__":
    main()
