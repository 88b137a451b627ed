"""``revsrc.vmap`` of functions of arrays: the function's program batched
(revsrc/passes/batching.py), compiled once per argument kinds, run once per call.

The conventions are JAX's: ``in_axes`` and ``out_axes`` are ints, None, or pytrees
of them (a prefix of the arguments' or results' structure); any axis, negative too;
``axis_size`` when no argument is mapped. A revsrc derivative is batched as the
program it is (so ``vmap(grad(loss), in_axes=(None, 0, 0))`` gives per-example
gradients from one program over the batch). What the batch cannot take at once
(control flow decided by an example's values, a derivative made by several programs)
runs the function once per example, the results stacked: exact, slower. A derivative
with ``backend="jax"`` maps through ``jax.vmap``.
"""
from __future__ import annotations

import numpy as np

from . import api, errors, runtime
from .backends import python as emit
from ._kernels import Guards
from .core import ir, kinds, pytree
from .frontend import arguments
from .passes import batching, pipeline
from .runtime import batched as B


class ArrayMap:
    """The batched programs of one function (or derivative), by argument kinds."""

    def __init__(self, f, in_axes, out_axes, axis_size):
        self.f = f
        self.in_axes = in_axes
        self.out_axes = out_axes
        self.axis_size = axis_size
        self.cache = {}
        self.made = {}    # what each function's program took as fixed (its Guards)

    def __call__(self, args):
        flat_axes = self._axes(args)
        moved, example, n = self._moved(args, flat_axes)
        tr = pipeline.transformed_of(self.f)
        if tr is not None and tr.backend == "jax":
            return self._jax(args)
        out, zs = None, None
        if n > 0 and not _per_lane_only(self.f):
            try:
                out, zs = self._batched(tr, moved, example, n)
            except batching.PerLane:
                out = None
            except Exception:    # per example: the function's own error, if it is one
                out = None
        if out is None:
            out, zs = self._per_lane(moved, flat_axes, n), None
        return self._out(out, zs, n)

    # ----- arguments ------------------------------------------------------------
    def _axes(self, args):
        """One axis (or None) per leaf of each argument."""
        axes = self.in_axes
        if isinstance(axes, list):
            axes = tuple(axes)
        if not isinstance(axes, tuple):
            axes = (axes,) * len(args)
        if len(axes) != len(args):
            raise errors.MismatchedArguments(
                f"vmap in_axes has {len(axes)} entries for {len(args)} "
                "arguments")
        return [_prefix(pytree.tree_flatten(a)[1], ax, "in_axes") for a, ax in zip(args, axes)]

    def _moved(self, args, flat_axes):
        """(the arguments with each mapped leaf's axis first, one example of them, the
        batch size)."""
        sizes, moved, example = set(), [], []
        for a, axes in zip(args, flat_axes):
            leaves, td = pytree.tree_flatten(a)
            mv, ex = [], []
            for leaf, ax in zip(leaves, axes):
                if ax is None:
                    mv.append(leaf)
                    ex.append(leaf)
                    continue
                arr = np.asarray(leaf)
                if not -arr.ndim <= ax < arr.ndim:
                    raise errors.MismatchedArguments(
                        f"vmap in_axes {ax} is out of range for an argument "
                        f"of shape {arr.shape}")
                arr = np.moveaxis(arr, ax, 0)
                sizes.add(arr.shape[0])
                mv.append(arr)
                ex.append(arr[0] if arr.shape[0] else None)
            moved.append(pytree.tree_unflatten(td, mv))
            example.append(pytree.tree_unflatten(td, ex))
        if self.axis_size is not None:
            sizes.add(self.axis_size)
        if not sizes:
            raise errors.MismatchedArguments(
                "vmap needs a mapped argument (in_axes) or axis_size")
        if len(sizes) != 1:
            raise errors.MismatchedArguments(
                f"vmap got mapped axes of different sizes {sorted(sizes)}")
        return moved, example, sizes.pop()

    # ----- the batched program --------------------------------------------------
    def _batched(self, tr, moved, example, n):
        if tr is not None:
            if tr.cotangent:
                raise batching.PerLane("a vjp's function")
            return self._derivative(tr, moved, example, n)
        return self._function(moved, example, n)

    def _compiled(self, key, prog, mask, owner=None):
        """The batched form of ``prog``: kept here, and for a derivative on the
        derivative itself (a vmap made anew for each call finds it there), as long as
        ``prog`` is the program it has."""
        kept = owner.__dict__.setdefault("_revsrc_vmap", {}) if owner is not None else {}
        hit = self.cache.get((key, mask)) or kept.get((key, mask))
        if hit is None or hit[0] is not prog:
            bprog, outs = batching.batch_program(prog, mask)
            fn, _ = emit.compile_program(bprog)
            hit = kept[key, mask] = (prog, fn, outs)
        self.cache[key, mask] = hit
        return hit[1:]

    def _derivative(self, tr, moved, example, n):
        ve = tr.bind(tuple(example), {})
        key, flat_e, plan = tr.plan(ve)
        entry = tr.compiled_for(key, ve, plan)
        flat_b = tr.plan(tr.bind(tuple(moved), {}))[1]
        mask = tuple(b is not e for b, e in zip(flat_b, flat_e))
        fn, zs = self._compiled(key, entry.unpruned, mask, owner=tr)
        outs = list(runtime.run_pooled(fn, tuple(flat_b) + (n,)))
        groups = arguments.slot_leaves(tr.binding, key, tr.slots)
        k = 1
        for _, positions in groups:
            for p in positions:
                outs[k] = _grad_of(outs[k], zs[k], flat_e[p], n)
                k += 1
        outs = [o if z or i in range(1, k) else _lifted(o, z, n)
                for i, (o, z) in enumerate(zip(outs, zs))]
        return tr._format(outs, key, flat_e, finalize=False, entry=entry), True

    def _function(self, moved, example, n):
        f = api.unjitted(self.f)
        try:
            _, binding = api.describe(f)
        except errors.RevsrcError as exc:     # no source to read: per example
            raise batching.PerLane(str(exc)) from None
        ve = binding.bind(tuple(example), {})
        slots = [(i, ()) for i, v in enumerate(ve)
                 if pytree.is_container(v) and binding.params[i] not in binding.static]
        plan = arguments.Plan(binding, ve, slots)
        flat_e = plan.flat_values()
        flat_b = arguments.Plan(binding, binding.bind(tuple(moved), {}), slots).flat_values()
        mask = tuple(b is not e for b, e in zip(flat_b, flat_e))
        key = plan.key
        made = self.made.get((key, mask))
        if made is None or (made.n and not made.current(kinds.signature)):
            # (made anew when a name its program took as fixed was rebound)
            self.cache.pop((key, mask), None)
            try:
                low = pipeline.lower(f, key)
            except errors.RevsrcError as exc:  # not ours to read: plain Python per example
                raise batching.PerLane(str(exc)) from None
            if low.aux is not None or not isinstance(low.result, str):
                raise batching.PerLane("a result the program does not compute")
            prog = ir.Program(pipeline.name_of(f), list(low.params), low.body,
                              [low.result], dict(low.kinds), names=low.names)
            self._compiled(key, prog, mask)
            self.made[key, mask] = Guards(low.deps)
        fn, zs = self.cache[key, mask][1:]
        out = runtime.run_pooled(fn, tuple(flat_b) + (n,))
        return _tree_lifted(out[0], zs[0], n), True

    # ----- per example ----------------------------------------------------------
    def _per_lane(self, moved, flat_axes, n):
        results = []
        for i in range(n):
            call = []
            for a, axes in zip(moved, flat_axes):
                leaves, td = pytree.tree_flatten(a)
                call.append(pytree.tree_unflatten(
                    td, [lf if ax is None else lf[i] for lf, ax in zip(leaves, axes)]))
            results.append(self.f(*call))
        if not results:
            raise ValueError("vmap of a function that runs per example, over an empty batch")
        leaves0, td = pytree.tree_flatten(results[0])
        cols = [pytree.tree_flatten(r)[0] for r in results]
        return pytree.tree_unflatten(td, [np.stack([np.asarray(c[k]) for c in cols])
                                          for k in range(len(leaves0))])

    def _jax(self, args):
        import jax
        mapped = jax.vmap(self.f, in_axes=_jax_axes(self.in_axes), out_axes=self.out_axes,
                          axis_size=self.axis_size)
        if jax.config.jax_enable_x64:
            return mapped(*args)
        with jax.enable_x64(True):  # traced as the derivative runs: float64 stays float64
            return mapped(*args)

    # ----- results --------------------------------------------------------------
    def _out(self, out, zs, n):
        leaves, td = pytree.tree_flatten(out)
        axes = _prefix(td, self.out_axes, "out_axes")
        done = []
        for leaf, ax in zip(leaves, axes):
            a = np.asarray(leaf)
            if ax is None:
                if n and not all(np.array_equal(a[0], a[i], equal_nan=a.dtype.kind in "fc")
                                 for i in range(1, n)):
                    raise errors.MismatchedArguments(
                        "vmap out_axes=None for a result that differs "
                        "between examples")
                done.append(a[0] if n else a)
                continue
            if not -a.ndim <= ax < a.ndim:
                raise errors.MismatchedArguments(
                    f"vmap out_axes {ax} is out of range for a result of "
                    f"rank {a.ndim - 1}")
            done.append(np.moveaxis(a, 0, ax))
        return pytree.tree_unflatten(td, done)


def _prefix(td, axes, what):
    """The axis of each leaf of ``td`` from ``axes``, a prefix of its structure."""
    if axes is None or isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        return [None if axes is None else int(axes)] * td.num_leaves
    if isinstance(axes, bool) or td.kind == pytree.LEAF:
        raise errors.MismatchedArguments(
            f"vmap {what} entries are ints or None, not {axes!r}")
    node = pytree.node_of(axes)
    if node is None or node[0] != td.kind or len(node[3]) != len(td.children):
        raise errors.MismatchedArguments(
            f"vmap {what} {axes!r} does not match the structure {td!r}")
    out = []
    for child_td, child in zip(td.children, node[3]):
        out.extend(_prefix(child_td, child, what))
    return out


def _per_lane_only(f):
    """A Jacobian or Hessian (several programs), a mapped function: called per example."""
    return getattr(f, "_revsrc_composed", None) is not None or \
        getattr(f, "_revsrc_per_lane", False)


def _jax_axes(axes):
    return tuple(axes) if isinstance(axes, list) else axes


def _lifted(v, z, n):
    return v if z is True else B.lift(v, n)


def _tree_lifted(v, z, n):
    if isinstance(z, tuple):
        return type(v)(_tree_lifted(x, zz, n) for x, zz in zip(v, z))
    return _lifted(v, z, n)


def _grad_of(g, z, x, n):
    """A gradient output as the derivative returns it, for each example of ``x``."""
    if g is None:
        g = np.zeros(np.shape(x)) if isinstance(x, np.ndarray) else 0.0
        z = False
    g = _lifted(g, z, n)
    if isinstance(x, np.ndarray):
        out = np.asarray(g, dtype=x.dtype)
        if out.shape[1:] != x.shape:
            out = np.array(np.broadcast_to(out.reshape(out.shape[:1] + (1,) * (
                x.ndim - out.ndim + 1) + out.shape[1:]), (n,) + x.shape))
        return out
    return np.asarray(g, dtype=np.float64)
