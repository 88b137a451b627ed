"""jax.numpy twins of the SciPy adjoints' helpers (revsrc/runtime/grads/scipy_linalg.py).

That module's adjoints call SciPy's solves and expm through one function,
``_scipy_linalg``; under ``backend="jax"`` it gives jax.scipy.linalg, whose functions
take the same arguments. What NumPy's module does by a loop on values or an item
assignment is written here in jnp.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp


def lu_permutation(piv, n):
    """jnp: the row order LAPACK's swaps ``piv`` make (a loop over values in NumPy's)."""
    return jax.lax.linalg.lu_pivots_to_permutation(jnp.asarray(piv, jnp.int32), n)


def expm_frechet(a, e):
    """jnp: expm_frechet, the block matrix written with .at[] (NumPy's fills it)."""
    n = a.shape[-1]
    dt = jnp.result_type(a, e)
    big = jnp.zeros(a.shape[:-2] + (2 * n, 2 * n), dtype=dt)
    big = big.at[..., :n, :n].set(a).at[..., n:, n:].set(a).at[..., :n, n:].set(e)
    return jax.scipy.linalg.expm(big)[..., :n, n:]


TWINS = {"_scipy_linalg": lambda: jax.scipy.linalg, "_permutation": lu_permutation,
         "expm_frechet": expm_frechet}
