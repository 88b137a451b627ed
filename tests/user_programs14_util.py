"""Helpers of round 14's user programs: value_and_grad cases (the value against the plain
call, the gradient against a reference) and a checked central-difference Jacobian."""
import numpy as np

import revsrc
from user_programs7_harness import _agree, _ref, pair


def VG(name, f, args, argnums=0, ref="fd", tol=1e-6, h=1e-5, check=1e-4, **opts):
    def got():
        v, g = revsrc.value_and_grad(f, argnums=argnums, **opts)(*args)
        return (v, g)

    r0 = _ref(f, args, argnums, ref, h, {}, check)

    def r():
        return (f(*args), r0())
    return pair(name, got, r, tol=tol)


def fdj(f, x, h=1e-6, check=1e-4):
    """The Jacobian of f at x by central differences, checked at two step sizes."""
    x = np.asarray(x, float)

    def one(hh):
        y0 = np.asarray(f(x), float)
        J = np.zeros(y0.shape + x.shape)
        for idx in np.ndindex(x.shape):
            xp, xm = x.copy(), x.copy()
            xp[idx] += hh
            xm[idx] -= hh
            J[(Ellipsis,) + idx] = (np.asarray(f(xp), float) - np.asarray(f(xm), float)) / (2 * hh)
        return J
    a, b = one(h), one(h / 3.0)
    _agree([a], [b], check)
    return b


def run(modname):
    """Runs a module's cases, printing each outcome (for writing the corpus)."""
    import importlib
    import time
    import warnings
    from user_programs6_harness import run_case
    m = importlib.import_module(modname)
    for c in m.CASES:
        t0 = time.time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, det = run_case(c)
        dt = time.time() - t0
        print(f"{out:8s} {dt:5.2f}s {c['name']}  {det[:300] if out != 'ok' else ''}")
