"""Round 15's helpers on top of round 7's harness: a value_and_grad case whose value
must equal the plain call bit for bit, central-difference Jacobians, and a case that
checks two calls of a transformation give the same bits."""
import numpy as np

import revsrc
from user_programs7_harness import _ref, jax, pair


def VG(name, f, args, argnums=0, ref="fd", tol=1e-7, h=1e-5, check=1e-4, kw=None, **opts):
    """value_and_grad against (the plain call, ref's gradient); the value must also
    equal the plain call exactly (the third leaf is 1.0 when it does)."""
    kw = kw or {}
    r = _ref(f, args, argnums, ref, h, kw, check)

    def got():
        v, g = revsrc.value_and_grad(f, argnums=argnums, **opts)(*args, **kw)
        plain = f(*args, **kw)
        same = float(np.array_equal(np.asarray(v), np.asarray(plain), equal_nan=True))
        return (v, g, same)

    def exp():
        return (f(*args, **kw), r(), 1.0)
    return pair(name, got, exp, tol=tol)


def fdj(f, x, h=1e-6):
    """Central-difference Jacobian of f at x: shape out + in."""
    x = np.asarray(x, dtype=float)
    y0 = np.asarray(f(x), dtype=float)
    J = np.zeros(y0.shape + x.shape)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        J[(Ellipsis,) + idx] = (np.asarray(f(x + e), float) - np.asarray(f(x - e), float)) / (2 * h)
    return J


def SAME(name, thunk):
    """Two calls of thunk give the same bits."""
    return pair(name, thunk, thunk, tol=0.0)


def EXACT(name, got, ref):
    """got() equals ref() bit for bit."""
    return pair(name, got, ref, tol=0.0)


def x64_off(thunk):
    """thunk run with JAX's default of 32-bit floats (jax_enable_x64 off), as a user who
    never changed it runs it; the setting is restored after."""
    def run():
        j = jax()
        old = j.config.read("jax_enable_x64")
        j.config.update("jax_enable_x64", False)
        try:
            return thunk()
        finally:
            j.config.update("jax_enable_x64", old)
    return run
