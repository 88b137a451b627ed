"""JAX is optional (the ``jax`` extra): `require` imports it once, or refuses with E601
naming the extra to install.

The modules of this package that import JAX at their top (revsrc/backends/jax/loops.py,
twins.py) are imported here, after JAX, so nothing else in revsrc imports JAX before a
``backend="jax"`` call asks for it. The printer and the compiled program both ask, which
is why the gate is a module of its own rather than a function of either.
"""
from __future__ import annotations

import types

import numpy as np

from ... import errors

__all__ = ["require", "loaded", "TRACED_TYPES", "ARRAY_TYPE"]

_jax = None   # the modules, once imported

# the types of values jax.jit traces: Python's float, NumPy's arrays, and JAX's array
# type once JAX is loaded
TRACED_TYPES = {float, np.ndarray}
ARRAY_TYPE = [None]   # JAX's array type, once JAX is loaded


def require():
    """Import JAX, or refuse with the extra to install."""
    global _jax
    if _jax is not None:
        return _jax
    try:
        import jax
        import jax.numpy as jnp
        import jax.scipy.special  # noqa: F401
        import jax.scipy.stats  # noqa: F401
        from jax import lax
    except ImportError as exc:
        raise errors.JaxUnavailable(
            f"backend='jax' needs JAX, which is not installed ({exc})",
            hint="pip install 'revsrc[jax]' (or pip install jax)") from None
    from . import loops, twins
    _jax = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, helpers=twins, loops=loops)
    TRACED_TYPES.add(type(jnp.zeros(())))
    ARRAY_TYPE[0] = type(jnp.zeros(()))
    return _jax


def loaded():
    """The modules `require` returns if JAX is loaded already, else None."""
    return _jax
