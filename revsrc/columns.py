"""The columns of a forward-mode Jacobian (``jacfwd``, ``hessian``) all at once: the
forward-mode program batched over its tangent (revsrc/passes/batching.py), run once
with every basis direction as one example, instead of once per direction. The rows
of a reverse-mode Jacobian (``jacrev``) likewise: the adjoint program batched over
the output's cotangent, run once with every output element's unit cotangent.

The program is the one `revsrc.jvp` (or the vjp behind ``jacrev``) runs (its entry in
the transformation's cache), batched once per argument kinds and kept beside it.
Where it cannot be batched (a branch on a tangent's value, a JAX program, an argument
that is a number, an output in a dict or a list), the directions run one by one as
before, with the same values. ``REVSRC_BATCHED_COLUMNS=0`` in the environment turns
the batched columns and rows off.
"""
from __future__ import annotations

import math
import os

import numpy as np

from . import runtime
from .backends import python as emit
from .core import kinds, pytree
from .frontend import arguments
from .passes import batching
from .runtime import batched as B

_KEY = "_revsrc_batched"     # on a forward program's cache entry: its batched programs
_ROWS = "_revsrc_batched_rows"   # on a vjp transformation: its adjoints batched
_GROUPS = "_revsrc_rows_leaves"   # and its slots' leaves' positions, by argument kinds


def enabled():
    return os.environ.get("REVSRC_BATCHED_COLUMNS") != "0"


def columns(fw, args, a, j, td, leaves, x, has_aux, basis, tangents_for):
    """(output, aux, one output tangent per basis direction of leaf ``j`` of argument
    ``a``: a list, or from the batched program an array with the direction first).
    ``basis(x)`` yields the directions; ``tangents_for(e)`` the tangents of every
    argument for direction ``e``."""
    # REVSRC_BATCHED_COLUMNS=0 turns it off: direction by direction, as before
    if enabled() and fw.backend != "jax" and \
            isinstance(x, np.ndarray) and x.dtype == np.float64 and x.size > 1:
        found = _batched(fw, args, a, x, tangents_for)
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


def at_once(fw, args, a):
    """(output, its columns for argument ``a``, the direction first) for the usual
    Jacobian: a float64 array of two or more numbers in ``a``, every argument a float
    array by position, an array or a number out; else None (a computed output of
    another form is computed again by `columns`, which handles every form)."""
    x = args[a] if 0 <= a < len(args) else None
    if type(x) is not np.ndarray or x.dtype != np.float64 or x.size < 2 or \
            fw.backend is not None or fw.has_aux or fw.array_key(args) is None or \
            not enabled():
        return None
    found = _batched(fw, args, a, x, None)
    if found is None or not (type(found[0]) is np.ndarray or
                             isinstance(found[0], (float, np.floating))):
        return None
    return found[0], found[2]


def _batched(fw, args, a, x, tangents_for):
    """The columns from one run of the batched forward program, or None."""
    key = fw.array_key(args) if args[a] is x else None
    if key is not None:     # float arrays by position: what `_check` would give, at once
        flat, wrt = tuple(args), (a,)
    else:
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
    try:
        outs = runtime.run_pooled(fn, flat + (_basis(x.shape), n))
    except Exception:      # direction by direction: the same error, if it is one
        kept[key, wrt] = (entry, False)
        return None
    # the value and aux are the same in every lane (lifted where the program merged
    # them with batched values): lane 0's
    out, t = (outs[0][0] if zs[0] is True else outs[0]), outs[1]
    aux = None
    if len(outs) > 2:
        aux = outs[2][0] if zs[2] is True else outs[2]
    if zs[1] is True and type(t) is np.ndarray and type(out) is np.ndarray and \
            t.dtype == out.dtype and t.dtype.kind in "fc" and t.shape[1:] == out.shape \
            and t.shape[:1] == (n,):
        return out, aux, t          # the usual: every column already as below
    return _shaped(kept, key, wrt, entry, out, aux, t, zs, n)


def _shaped(kept, key, wrt, entry, out, aux, t, zs, n):
    """(out, aux, the columns ``t`` as one array of the output's dtype and shape, the
    direction first), or None (remembered) where ``t`` has no direction axis."""
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
    # the columns as one array, the direction first (jacfwd moves it last at once)
    return out, aux, np.asarray(t, dtype=dtype)


_BASES = {}      # shape -> its directions, read-only (a few, of small arguments)


def _basis(shape):
    """Every unit direction of an array of ``shape``, the direction first: made once
    for a small argument and kept read-only (a program that wrote into its tangent
    would raise, and its directions then run one by one)."""
    found = _BASES.get(shape)
    if found is None:
        n = math.prod(shape)
        if n > 1024:
            return np.eye(n).reshape((n,) + shape)
        if len(_BASES) > 64:
            _BASES.clear()
        found = _BASES[shape] = np.eye(n).reshape((n,) + shape)
        found.flags.writeable = False
    return found


# ----- the rows of a reverse-mode Jacobian -----

def cotangent_mask(td, m):
    """Which leaves of a cotangent shaped ``td`` carry the batch when leaf ``m`` does,
    as the batching pass takes a parameter (a tuple per tuple), or None where the
    program reads the cotangent through a container the batch cannot take (a dict,
    a list: per row)."""
    count = [0]

    def walk(t):
        if t.kind == pytree.LEAF:
            count[0] += 1
            return count[0] - 1 == m
        if t.kind != "tuple":
            raise batching.PerLane("a cotangent in a container other than a tuple")
        return tuple(walk(c) for c in t.children)
    try:
        return walk(td)
    except batching.PerLane:
        return None


_CHUNK = 2 ** 20     # a batch's cotangents at most this many numbers (8 MB): in chunks


def rows(tr, args, example, batch, mask, size, value=None):
    """The rows of one output leaf's Jacobian from runs of the adjoint program of
    ``tr`` (a vjp transformation) batched over its cotangent: per slot of ``tr``, per
    leaf, an array of shape (``size``,) + the leaf's shape in the dtype the
    derivative gives it; or None (then the caller runs row by row). ``example``: one
    row's cotangent; ``batch(lo, hi)``: those of rows lo..hi, the batch first where
    ``mask`` says. A large output runs in chunks of rows (memory: each intermediate
    of the adjoint is as many times larger as a chunk has rows). ``value``: a list
    that gets the function's value, for a caller that guessed the output's shape (a
    failure then is not remembered: the caller goes the ordinary way)."""
    if not enabled() or tr.backend == "jax" or mask is None or size < 2:
        return None
    step = min(size, _CHUNK // size)
    if step < 2:
        return None
    found = _adjoint(tr, args, example, mask)
    if found is None:
        return None
    fn, zs, flat, groups, forget = found
    if value is not None:
        def forget():
            return None
    parts = []
    for lo in range(0, size, step):
        n = min(size, lo + step) - lo
        try:
            outs = runtime.run_pooled(fn, tuple(flat) + (batch(lo, lo + n), n))
        except Exception:      # row by row: the same error, if it is one
            return forget()
        part = _rows_of(outs, zs, flat, groups, n)
        if part is None:
            return forget()
        if value is not None and not parts:
            value.append(outs[0][0] if zs[0] is True else outs[0])
        parts.append(part)
    if len(parts) == 1:
        return parts[0]
    return [[np.concatenate([p[k][j] for p in parts]) for j in range(len(leaves))]
            for k, leaves in enumerate(parts[0])]


def _adjoint(tr, args, example, mask):
    """(the batched adjoint, whether each output is batched, the program's
    arguments, the slots' leaves' positions, what marks it as unbatchable), or None."""
    b = tr.binding
    arrays = b.simple and not b.valued and len(args) == len(tr.params)
    for v in args if arrays else ():
        if type(v) is not np.ndarray or v.dtype.kind != "f":
            arrays = False
            break
    if arrays:
        # float arrays by position (the usual Jacobian): no complex number to
        # convert, no container to take apart; the key is their signatures, as
        # `tr.plan` gives it
        values = flat = tuple(args)
        key, plan = tuple(map(kinds.signature, values)), None
    else:
        values, scalars = tr._complex_scalars(tr.bind(tuple(args), {}))
        if scalars:   # a complex number in argnums: row by row (its gradient is a number)
            return None
        key, flat, plan = tr.plan(values)
    key = key + (kinds.signature(example),)
    kept = tr.__dict__.setdefault(_ROWS, {})
    hit = kept.get((key, mask))
    known = tr.__dict__.setdefault(_GROUPS, {})     # slot_leaves, by key
    groups = known.get(key)
    if groups is None:
        groups = known[key] = arguments.slot_leaves(tr.binding, key[:-1], tr.slots)
    if not arrays and not all(isinstance(flat[p], float) or (
            isinstance(flat[p], np.ndarray) and flat[p].dtype.kind in "fc")
            for _, ps in groups for p in ps):
        return None   # np.float32 and the like: row by row, in their own dtype
    entry = tr.cache.current(key)
    if entry is None:     # as a call makes it
        entry = tr._compile(key, values, plan, lazy=True)
    if entry.jax is not None or key in tr.lazy:
        # a long loop's saves are bounded for one call (memory=): a batch would hold
        # as many times more; row by row keeps the bound
        return None
    found = hit[1] if hit is not None and hit[0] is entry.unpruned else None
    if found is None:
        try:
            bprog, zs = batching.batch_program(entry.unpruned, (False,) * len(flat) + (mask,))
        except batching.PerLane:
            found = False
        else:
            found = (emit.compile_program(bprog)[0], zs)
        kept[key, mask] = (entry.unpruned, found)
    if found is False:
        return None

    def forget():
        kept[key, mask] = (entry.unpruned, False)
    return found + (flat, groups, forget)


def _rows_of(outs, zs, flat, groups, n):
    """The gradients among a batched adjoint's outputs, per slot and leaf, each of
    shape (n,) + its leaf's; None if one is not batched as a gradient is."""
    per_slot, k = [], 1
    seen = None
    for _, positions in groups:
        leaves = []
        for p in positions:
            g, z, x = outs[k], zs[k], flat[p]
            k += 1
            if z is True and _fresh(g, x, n):
                if seen is None:
                    seen = {id(v) for v in flat}
                if id(g) not in seen:
                    leaves.append(g)      # the program's own new array: no copy
                    seen.add(id(g))
                    continue
            if isinstance(z, tuple) or (z and np.shape(g)[:1] != (n,)):
                return None
            if g is None:
                g, z = np.zeros(np.shape(x)), False
            leaves.append(B.finalize(g, x, z, False, n))
            if seen is None:
                seen = {id(v) for v in flat}
            seen.add(id(leaves[-1]))
        per_slot.append(leaves)
    return per_slot


def _fresh(g, x, n):
    """Whether the batched gradient ``g`` of ``x`` is as `batched.finalize` would give
    it and an array of its own (not a view, not read-only; a batched value the program
    computed, so not a constant it holds): then it needs no copy."""
    if type(g) is not np.ndarray or not g.flags.owndata or not g.flags.writeable:
        return False
    if type(x) is np.ndarray:
        return g.dtype == x.dtype and g.shape[:1] == (n,) and g.shape[1:] == x.shape
    return g.dtype == np.float64 and g.shape == (n,) + np.shape(x)
