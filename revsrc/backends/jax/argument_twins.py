"""NumPy functions whose jax.numpy twins take some of their arguments otherwise, adapted
so that a ``backend="jax"`` program calls them as NumPy's are called: np.sort's and
np.argsort's ``kind=`` (jnp's takes ``stable=``), and np.concatenate's pieces given as
lists, tuples or numbers (jnp's takes arrays only), and np.ascontiguousarray's one axis at
least (JAX arrays have no layout: jnp.asarray). Printed as ``_jaxgen.<name>``.
"""
from __future__ import annotations

import jax.numpy as jnp


def _stability(kwargs):
    """``kwargs`` with NumPy's ``kind=`` as jnp's ``stable=`` (only 'stable' and
    'mergesort' promise to keep equal items in order)."""
    if "kind" in kwargs:
        kwargs = dict(kwargs)
        kind = kwargs.pop("kind")
        kwargs.setdefault("stable", kind in ("stable", "mergesort"))
    return kwargs


def sort(a, axis=-1, **kwargs):
    return jnp.sort(a, axis, **_stability(kwargs))


def argsort(a, axis=-1, **kwargs):
    return jnp.argsort(a, axis, **_stability(kwargs))


def concatenate(arrays, axis=0, **kwargs):
    pieces = [p if hasattr(p, "shape") else jnp.asarray(p) for p in arrays]
    return jnp.concatenate(pieces, axis, **kwargs)


def ascontiguousarray(a, dtype=None, **kwargs):
    return jnp.atleast_1d(jnp.asarray(a, dtype))


FORWARD = [sort, argsort, concatenate, ascontiguousarray]
