"""Rolled ``for`` loops of a ``backend="jax"`` gradient in bounded memory.

A rolled loop (`loops.for_loop`) stacks what every iteration saves, one row per
iteration, so its memory grows with the trip count. Under a memory bound (``memory=``
on revsrc.grad, `DEFAULT_MEMORY` by default) an outermost rolled loop whose rows would
not fit in half of it runs in segments of ``K`` iterations instead, the device-side
form of what ``jax.checkpoint`` does to a scan for JAX's own differentiation
(revsrc differentiates the program itself, so the segments are written here): the
forward sweep keeps only each segment's starting values (a snapshot) and the rows of
the last segment; the adjoint's loop runs the segments last to first, each one's rows
recomputed from its snapshot by the same step and then undone, row by row, as before.

Two levels, so one extra forward run in all: ``K`` is the most rows that fit in half
the bound, made longer if the snapshots (one a segment) would not fit in the other
half; a loop for which no ``K`` does (``n * row * state`` beyond the bound's half
squared) keeps its rows. XLA may fuse the recomputed step otherwise than the first
run, so the gradient equals the stored one to rounding, not always bit for bit.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["unit", "forward", "reverse"]


def unit(budget, n, row_bytes, snap_bytes):
    """Iterations per segment for a loop of ``n`` iterations saving ``row_bytes`` each
    and carrying ``snap_bytes``, under ``budget`` bytes; None to keep every row."""
    half = int(budget) // 2
    if row_bytes <= 0 or n * row_bytes <= half:
        return None
    k = max(1, half // row_bytes)
    if snap_bytes and (n // k) * snap_bytes > half:
        k = max(k, -(-n * snap_bytes // half))   # fewer, longer segments
    return k if k < n else None


def forward(one, init, start, stride, n, k):
    """``one(i, values) -> (values, rows)`` for i in range(start, start + n * stride,
    stride) in segments of ``k``: (the values, the last segment's rows, the plan the
    adjoint's loop recomputes the others from)."""
    nseg, tail = divmod(n, k)
    if tail == 0:       # the last segment is saved as it runs: never recomputed
        nseg, tail = nseg - 1, k

    def advance(vals, s):
        i0 = start + stride * k * s
        out, _ = lax.scan(lambda v, j: (one(i0 + stride * j, v)[0], None), vals,
                          jnp.arange(k))
        return out, vals

    vals, snaps = lax.scan(advance, init, jnp.arange(nseg))
    t0 = start + stride * k * nseg
    vals, rows = lax.scan(lambda v, i: one(i, v), vals, t0 + stride * jnp.arange(tail))
    return vals, rows, (one, snaps, start, stride, k, nseg, tail)


def reverse(step, start, stride, n, tail_rows, order, plan, init):
    """The adjoint's loop ``step(k, rows, values)`` over ``n`` iterations (``k`` from
    ``start`` by ``stride``, undoing the forward's last iteration first), its rows
    ``tail_rows`` for the last segment and recomputed by ``plan`` for the others
    (``order``: which forward stack each of the adjoint's stacks is)."""
    fwd, snaps, fstart, fstride, k, nseg, tail = plan

    def back(vals, r0, count, rows):
        ks = start + stride * (n - 1 - (r0 + jnp.arange(count)))
        out, _ = lax.scan(lambda v, x: (step(x[0], x[1], v), None), vals, (ks, rows),
                          reverse=True)
        return out

    vals = back(init, nseg * k, tail, tail_rows)

    def segment(vals, s):
        snap = jax.tree_util.tree_map(lambda a: a[s], snaps)
        i0 = fstart + fstride * k * s
        _, rows = lax.scan(lambda v, j: fwd(i0 + fstride * j, v), snap, jnp.arange(k))
        return back(vals, s * k, k, [rows[i] for i in order]), None

    vals, _ = lax.scan(segment, vals, jnp.arange(nseg), reverse=True)
    return vals
