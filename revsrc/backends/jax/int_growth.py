"""Ints a rolled ``backend="jax"`` loop may carry past 64 bits (revsrc/backends/jax/loops.py
asks before it rolls a ``for`` into lax.scan). JAX computes ints in 64 bits and wraps
silently; Python's ints have no limit. A body that grows a carried int by a product, a
power or a shift, or adds two carried ints, runs as Python's loop instead (unrolled in
the trace, its ints concrete and exact); a counter that grows by steps still rolls."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["carries_growing_ints"]

# int operations that may carry a value past 64 bits when they repeat: a product, a
# power or a shift of a carried int (3 ** k, a factorial), or a sum of two of them
# (Fibonacci); a carried int plus something else (a counter) grows by steps
_GROWS = frozenset({"mul", "integer_pow", "pow", "shift_left"})
_SUMS = frozenset({"add", "sub"})


def _int_kind(v):
    dtype = getattr(getattr(v, "aval", None), "dtype", None)
    return dtype is not None and jnp.issubdtype(dtype, jnp.integer)


def _has_body(param):
    """Whether an equation's parameter is a jaxpr (a loop's or call's body) or holds
    some (a branch's arms)."""
    if isinstance(param, (tuple, list)):
        return any(_has_body(p) for p in param)
    return hasattr(param, "eqns") or hasattr(param, "jaxpr")


def _grows_ints(jaxpr, tainted):
    """Whether ``jaxpr`` may grow an int of ``tainted`` (its int inputs carried from one
    iteration to the next) by an operation of `_GROWS` or a sum of two of them: JAX
    computes ints in 64 bits and wraps, where Python's ints have no limit. A call with
    a body of its own (a nested loop, a branch) that takes one is taken to grow it."""
    tainted = set(tainted)
    for eqn in jaxpr.eqns:
        hit = [v for v in eqn.invars if not hasattr(v, "val") and v in tainted]  # not a Literal
        if not hit:
            continue
        name = eqn.primitive.name
        if any(_int_kind(o) for o in eqn.outvars):
            if name in _GROWS or (name in _SUMS and len(hit) > 1):
                return True
            if any(_has_body(p) for p in eqn.params.values()):
                return True
        tainted.update(o for o in eqn.outvars if _int_kind(o))
    return False


def carries_growing_ints(one, i0, init):
    """Whether a rolled loop's body ``one(i, values)`` may carry an int past 64 bits
    (`_grows_ints`): the Python loop unrolls then, its ints exact."""
    leaves = jax.tree_util.tree_leaves(init)
    if not any(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               or _int_kind(v) for v in leaves):
        return False
    closed = jax.make_jaxpr(one)(i0, init)
    carried = closed.jaxpr.invars[1:]         # i0's variable first, then init's leaves
    return _grows_ints(closed.jaxpr, [v for v in carried if _int_kind(v)])
