"""Helpers for round 12's user programs (tests/user_programs12_*.py)."""
import numpy as np

import revsrc
from user_programs7_harness import _ref, pair


def VG(name, f, args, argnums=0, ref="fd", tol=1e-7, h=1e-5, kw=None, check=1e-4, **opts):
    """value_and_grad: the value must equal the plain call, the gradient the reference."""
    kw = kw or {}

    def got():
        v, g = revsrc.value_and_grad(f, argnums=argnums, **opts)(*args, **kw)
        return (v, g)
    r = _ref(f, args, argnums, ref, h, kw, check)
    return pair(name, got, lambda: (f(*args, **kw), r()), tol=tol)


def fdj(f, x, h=1e-6):
    """Central-difference Jacobian of an array function of one array (columns per input)."""
    x = np.asarray(x, float)
    y0 = np.asarray(f(x), float)
    J = np.zeros(y0.shape + x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        J[(Ellipsis,) + i] = (np.asarray(f(x + e), float) - np.asarray(f(x - e), float)) / (2 * h)
    return J
