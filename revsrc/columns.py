"""The columns of a forward-mode Jacobian (``jacfwd``, ``hessian``) all at once: the
forward-mode program batched over its tangent (revsrc/passes/batching.py), run once
with every basis direction as one example, instead of once per direction.

The program is the one `revsrc.jvp` runs (its entry in the forward transformation's
cache), batched once per argument kinds and tangent position and kept beside it.
Where it cannot be batched (a branch on a tangent's value, a JAX program, an argument
that is a number), the directions run one by one as before, with the same values.
``REVSRC_BATCHED_COLUMNS=0`` in the environment turns the batched columns off.
"""
from __future__ import annotations

import os

import numpy as np

from . import runtime
from .backends import python as emit
from .passes import batching

_KEY = "_revsrc_batched"     # on a forward program's cache entry: its batched programs


def columns(fw, args, a, j, td, leaves, x, has_aux, basis, tangents_for):
    """(output, aux, one output tangent per basis direction of leaf ``j`` of argument
    ``a``). ``basis(x)`` yields the directions; ``tangents_for(e)`` the tangents of
    every argument for direction ``e``."""
    # REVSRC_BATCHED_COLUMNS=0 turns it off: direction by direction, as before
    if os.environ.get("REVSRC_BATCHED_COLUMNS") != "0" and fw.backend != "jax" and \
            isinstance(x, np.ndarray) and x.dtype == np.float64 and x.size > 1:
        found = _batched(fw, args, x, tangents_for)
        if found is not None:
            return found
    out = aux = None
    cols = []
    for e in basis(x):
        res = fw(args, tangents_for(e))
        out, t = res[0], res[1]
        aux = res[2] if has_aux else None
        cols.append(t)
    return out, aux, cols


def _batched(fw, args, x, tangents_for):
    """The columns from one run of the batched forward program, or None."""
    one = np.zeros(x.shape, dtype=x.dtype)
    key, flat, wrt, flat_tangents = fw._check(args, tangents_for(one))
    if len(flat_tangents) != 1:
        return None
    entry = fw._entry(key, flat, wrt)
    kept = fw.__dict__.setdefault(_KEY, {})
    hit = kept.get((key, wrt))
    found = hit[1] if hit is not None and hit[0] is entry else None  # made for this entry
    if found is None:
        mask = (False,) * len(flat) + (True,)
        try:
            bprog, zs = batching.batch_program(entry.unpruned, mask)
        except batching.PerLane:
            found = False
        else:   # a container's tangent: direction by direction
            found = False if any(isinstance(z, tuple) for z in zs) else \
                (emit.compile_program(bprog)[0], zs)
        kept[key, wrt] = (entry, found)
    if found is False:
        return None
    fn, zs = found
    n = x.size
    basis = np.eye(n, dtype=x.dtype).reshape((n,) + x.shape)
    try:
        outs = runtime.run_pooled(fn, tuple(flat) + (basis, n))
    except Exception:      # direction by direction: the same error, if it is one
        kept[key, wrt] = (entry, False)
        return None
    # the value and aux are the same in every lane (lifted where the program merged
    # them with batched values): lane 0's
    out, t = (outs[0][0] if zs[0] is True else outs[0]), outs[1]
    aux = None
    if len(outs) > 2:
        aux = outs[2][0] if zs[2] is True else outs[2]
    if not zs[1]:                      # the same tangent for every direction
        t = np.broadcast_to(np.asarray(t), (n,) + np.shape(t))
    t = np.asarray(t)
    want = np.shape(out)
    if t.ndim == 0 or t.shape[0] != n:
        kept[key, wrt] = (entry, False)
        return None
    if t.shape[1:] != want:
        t = np.broadcast_to(t.reshape(t.shape[:1] + (1,) * (len(want) - t.ndim + 1) +
                                      t.shape[1:]), (n,) + want)
    dtype = np.result_type(out, np.float64) if np.ndim(out) == 0 else \
        (out.dtype if isinstance(out, np.ndarray) and out.dtype.kind in "fc" else None)
    return out, aux, [np.asarray(t[k], dtype=dtype) for k in range(n)]
