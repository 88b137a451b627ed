"""Round 13 helpers: value_and_grad cases that check the value against the plain call,
a central-difference Jacobian checked at two step sizes, and a quick runner."""
import numpy as np

import revsrc
from user_programs7_harness import _ref, _agree, pair, ag, agify, jax, jaxify, fd_checked  # noqa: F401


def VG(name, f, args, argnums=0, ref="fd", tol=1e-6, h=1e-5, kw=None, check=1e-4, **opts):
    """value_and_grad: the value must equal the plain call, the gradient the reference."""
    kw = kw or {}

    def got():
        v, g = revsrc.value_and_grad(f, argnums=argnums, **opts)(*args, **kw)
        return (v, g)
    r = _ref(f, args, argnums, ref, h, kw, check)
    return pair(name, got, lambda: (f(*args, **kw), r()), tol=tol)


def _fdj(f, x, h):
    x = np.asarray(x, float)
    y0 = np.asarray(f(x), float)
    J = np.zeros(y0.shape + x.shape)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        J[(Ellipsis,) + idx] = (np.asarray(f(x + e), float) - np.asarray(f(x - e), float)) / (2 * h)
    return J


def fdj(f, x, h=1e-5):
    a, b = _fdj(f, x, h), _fdj(f, x, h / 3)
    _agree([a], [b], 1e-4)
    return b


def run_module(name):
    import importlib
    import warnings
    from user_programs6_harness import run_case
    m = importlib.import_module(name)
    counts = {}
    for c in m.CASES:
        import time
        t0 = time.time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, det = run_case(c)
        dt = time.time() - t0
        counts[out] = counts.get(out, 0) + 1
        if out != "ok" or dt > 0.5:
            print(f"{c['name']}: {out} ({dt:.2f}s) {det[:300]}")
    print(name, len(m.CASES), counts)
