"""Forward and reverse mode on one function: `jvp`, `linearize`, `vjp`.

Each is a few lines over a program revsrc writes: the forward-mode program (the value
and a directional derivative) and the reverse-mode program (the value and the
cotangent pulled back to the inputs), cached per function and argument kinds. The
Jacobians and Hessians (revsrc/compose/jacobians.py) are loops over these.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from .. import api, errors, executable
from ..frontend import arguments, bindings
from ..frontend.lower import recursion
from ..backends import python as emit
from ..backends.jax import jaxgen
from ..core import kinds, pytree
from ..passes import pipeline, prune
from .._kernels import Guards
from ..executable import Compiled, ProgramCache

_FORWARD = weakref.WeakKeyDictionary()   # function -> {what: its transformation}


class _Forward:
    """The forward-mode transformation of one function, cached per argument kinds."""

    def __init__(self, f, has_aux=False, backend=None):
        if backend not in executable.BACKENDS:
            raise ValueError(f"backend must be one of {executable.BACKENDS}, "
                             f"not {backend!r}")
        if backend == "jax":
            jaxgen.require()
        self.f = api.unjitted(f)
        self.has_aux = has_aux
        self.backend = backend
        self.cache = ProgramCache()     # by (key, positions with tangents)
        self._describe()

    def _describe(self):
        """Read the function as it is now, guarding what was read (`made_with`)."""
        self.made_with = Guards(bindings.callee_guards(self.f))
        self.parsed, self.binding = api.describe(self.f)
        self.params = self.binding.params

    def current(self):
        """Read the function anew if it changed since (`executable.read_anew`)."""
        if not self.made_with.current():
            executable.read_anew(self)

    def _signature(self, v):
        return _signature(v, self.backend)

    def entry(self, primals, wrt):
        """The program for arguments like ``primals`` (plain values: no containers
        taken apart), with tangents at positions ``wrt``."""
        self.current()
        values = self.binding.bind(tuple(primals), {})
        plan = arguments.Plan(self.binding, values, [],
                              signature=self._signature)
        return self._entry(plan.key, plan.flat_values(), tuple(wrt))

    def _entry(self, key, flat, wrt):
        hit = self.cache.current((key, wrt))
        if hit is None:
            with executable.deep_recursion():
                try:
                    hit = self._build(key, flat, wrt)
                except recursion.NeedsIntValues as exc:
                    # a recursion its int arguments decide: made for their values
                    if not recursion.learn(exc, self.binding, flat):
                        raise
                    return self._entry(arguments.revalued(self.binding, key, flat),
                                       flat, wrt)
        return hit

    def _build(self, key, flat, wrt):
        api.check_values(self.parsed, [f"argument {i}" for i in range(len(flat))],
                         arguments.flat_key(key), flat)
        prog = pipeline.jvp_program(self.f, key, wrt, self.has_aux,
                                    compile_python=emit.compile_program)
        if self.backend == "jax":
            hit = executable.for_jax(prog, jaxgen.jvp_post(self.has_aux))
            self.cache.store((key, wrt), hit)
            return hit
        engine = None
        if self.backend in (None, "engine"):
            engine = executable.try_engine(prog, required=self.backend == "engine")
        if engine is None:
            # without what nothing reads (the tangent of a gradient's function value) on
            # arrays, where no engine runs the same program (on numbers the engine's
            # program computes it, and both paths show the same NumPy warnings);
            # loop bodies on arrays through the kernels (the forward-over-reverse of an
            # RNN's loss steps through its loop); the program as made stays for reuse
            if kinds.ARRAY in prog.kinds.values():
                prog = prune.drop_unread(prog)
            hit = Compiled(prune.loop_kernels(prog), None, prog)
            hit.fn  # compile now, so errors surface at the first call
        else:
            hit = Compiled(prog, engine)
        self.cache.store((key, wrt), hit)
        return hit

    def __call__(self, primals, tangents):
        key, flat, wrt, flat_tangents = self._check(primals, tangents)
        entry = self._entry(key, flat, wrt)
        args = flat + tuple(flat_tangents)
        if entry.jax is not None:  # shaped inside the jit (jaxgen.jvp_post)
            outs = entry.jax(args)
            return outs if self.has_aux else outs[:2]
        outs = entry.run(args)
        out, tangent = outs[0], _like(outs[1], outs[0])
        if self.has_aux:
            return out, tangent, outs[2]
        return out, tangent

    def _check(self, primals, tangents):
        """(key, the program's argument values, the positions with tangents, those
        tangents): containers are taken apart, a tangent shaped like its primal."""
        if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
            raise TypeError("jvp takes primals and tangents as tuples (or lists), "
                            "one entry per positional argument")
        primals, tangents = tuple(primals), list(tangents)
        self.current()
        if len(tangents) != len(primals):
            raise errors.MismatchedArguments(
                f"{len(primals)} primals but {len(tangents)} tangents",
                hint="give one tangent per primal (None for one with no tangent)")
        found = self._check_arrays(primals, tangents)
        if found is not None:
            return found
        values = self.binding.bind(primals, {})
        nums = [i for i, t in enumerate(tangents) if t is not None]
        loc = self.parsed.loc(self.parsed.node)
        slots = self.binding.slots(nums, loc=loc)
        # a revsrc derivative differentiates its own argnums: a container among them
        # is taken apart (as that derivative's program is made) with or without tangents
        inner = getattr(getattr(self.f, "_revsrc_transformed", None), "slots", ())
        apart = [sl for sl in inner if sl[0] not in nums]
        plan = arguments.Plan(self.binding, values, slots + apart, loc=loc,
                              signature=self._signature)
        flat = plan.flat_values()
        wrt, flat_tangents = [], []
        groups = arguments.slot_leaves(self.binding, plan.key, slots)
        for i, (td, positions) in zip(nums, groups):
            name = pytree.path_text(self.params[slots[nums.index(i)][0]],
                                    slots[nums.index(i)][1])
            for p, path, t in zip(positions, pytree.paths(td),
                                  pytree.flatten_up_to(td, tangents[i], name)):
                x = flat[p]
                where = pytree.path_text(name, path)
                float_arg = pytree.float_leaf(x)
                if t is None or (not float_arg and _is_zero(t)):
                    continue
                if not float_arg:
                    raise errors.NotDifferentiableArgument(
                        f"argument {where} is {pytree.describe_leaf(x)}; only float "
                        "scalars and float arrays have tangents (pass None for it)",
                        loc=loc)
                if np.shape(t) != np.shape(x):
                    raise errors.MismatchedArguments(
                        f"the tangent of {where} has shape {np.shape(t)}, its primal "
                        f"{np.shape(x)}", hint="give each tangent its primal's shape")
                wrt.append(p)
                if isinstance(x, np.ndarray):
                    t = np.asarray(t, dtype=x.dtype)
                elif self.backend == "jax" and isinstance(self._signature(x), tuple):
                    t = jaxgen.require().jnp.asarray(t, dtype=x.dtype)   # a JAX array
                else:
                    t = float(t)
                flat_tangents.append(t)
        return plan.key, flat, tuple(wrt), flat_tangents


    def _check_arrays(self, primals, tangents):
        """`_check` at once where every argument is a float array (NumPy's own type)
        taken by position and every tangent is of its shape: the key is the
        arguments' signatures, the values and positions are the arguments' (a
        Jacobian's columns ask this on every call). None: `_check` works it out."""
        key = self.array_key(primals)
        if key is None:
            return None
        wrt, flat_tangents = [], []
        for p, (x, t) in enumerate(zip(primals, tangents)):
            if t is None:
                continue
            if np.shape(t) != x.shape:
                return None     # _check's error
            wrt.append(p)
            flat_tangents.append(np.asarray(t, dtype=x.dtype))
        return key, primals, tuple(wrt), flat_tangents

    def array_key(self, primals):
        """The key of `_check_arrays`'s case (every argument a float array, NumPy's own
        type, taken by position): the arguments' signatures; else None."""
        b = self.binding
        if self.backend == "jax" or not b.simple or b.valued or \
                not len(primals) == len(self.params) == len(b.positional):
            return None
        for x in primals:
            if type(x) is not np.ndarray or x.dtype.kind != "f":
                return None
        return tuple(map(kinds.signature, primals))


def _signature(v, backend):
    return jaxgen.signature(v) if backend == "jax" else kinds.signature(v)


def _host(x):
    """A JAX array as the NumPy array of its values (for building bases and stacking
    Jacobians' columns); anything else unchanged."""
    if isinstance(x, (np.ndarray, float, int, tuple, list)) or x is None:
        return x
    return np.asarray(x) if hasattr(x, "__array__") and hasattr(x, "shape") else x


def _device(x, backend):
    """With backend="jax", results as JAX arrays."""
    if backend != "jax":
        return x
    J = jaxgen.require()
    with J.jax.enable_x64(True):   # float64 values stay float64 (see revsrc/jaxgen.py)
        return J.jax.tree_util.tree_map(J.jnp.asarray, x)


def _is_zero(t):
    try:
        return not np.any(t)
    except Exception:
        return False


def _like(t, out):
    """A tangent in the form of its primal output (a float for a float)."""
    if isinstance(out, np.ndarray):
        t = np.asarray(t, dtype=out.dtype if out.dtype.kind in "fc" else None)
        return np.broadcast_to(t, out.shape).copy() if t.shape != out.shape else t
    if isinstance(out, (float, np.floating)) and not isinstance(t, np.ndarray):
        return type(out)(t) if isinstance(out, np.floating) else float(t)
    return t


def _memo(f, key, build):
    """``build()``, remembered for ``f`` and ``key`` as long as ``f`` lives: in a weak
    dictionary, or on a revsrc derivative itself (which is not weak-referenceable)."""
    try:
        per_f = _FORWARD.setdefault(f, {})
    except TypeError:
        per_f = getattr(f, "__dict__", None)
        if per_f is None:
            return build()
        per_f = per_f.setdefault("_revsrc_memo", {})
    hit = per_f.get(key)
    if hit is None:
        hit = per_f[key] = build()
    return hit


def _value(f, args):
    """``f(*args)``, for a function made by ``revsrc.jit`` by the function it compiles
    (the same digits): the jit compiles scalar functions, and its derivatives, which
    read that function, take arrays too."""
    jt = getattr(f, "_revsrc_jitted", None)
    return jt.f(*args) if jt is not None and hasattr(jt, "f") else f(*args)


def _forward(f, has_aux=False, backend=None):
    return _memo(f, ("jvp", has_aux, backend), lambda: _Forward(f, has_aux, backend))


def _grad(f, argnums, backend, memory=None, holomorphic=False):
    return _memo(f, ("grad", argnums if not isinstance(argnums, list) else tuple(argnums),
                     backend, memory, holomorphic),
                 lambda: api.grad(f, argnums, backend=backend, memory=memory,
                                  holomorphic=holomorphic))


def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False, backend: Optional[str] = None) -> Tuple[Any, ...]:
    """``(f(*primals), J tangents)``: the value and its directional derivative.

    ``tangents`` has one entry per argument, shaped like it (None for an argument
    with no tangent, as for ints). Computed by a forward-mode program revsrc writes
    (no tape), with loops and branches; scalar programs run on the compiled engine.

    >>> import math, revsrc
    >>> def f(x, y):
    ...     return math.sin(x) * y
    >>> out, t = revsrc.jvp(f, (0.5, 2.0), (1.0, 0.0))
    >>> round(t, 12) == round(math.cos(0.5) * 2.0, 12)
    True
    """
    return _forward(f, has_aux, backend)(primals, tangents)


def linearize(f: Callable[..., Any], *primals: Any,
              backend: Optional[str] = None) -> Tuple[Any, Callable[..., Any]]:
    """``(f(*primals), f_jvp)``, where ``f_jvp(*tangents)`` is the derivative of ``f``
    at ``primals`` applied to ``tangents`` (one per argument, None for none).

    >>> import revsrc
    >>> out, f_jvp = revsrc.linearize(lambda x: x * x * x, 2.0)
    >>> out, f_jvp(1.0)
    (8.0, 12.0)
    """
    fw = _forward(f, False, backend)
    out = fw(primals, [None] * len(primals))[0]

    taken = _taken(f, primals)
    frozen = _frozen(primals)

    def f_jvp(*tangents):
        _unchanged(taken, "revsrc.linearize")
        return fw(frozen, list(tangents))[1]
    f_jvp.__name__ = f"jvp_{getattr(f, '__name__', 'f')}"
    f_jvp._revsrc_source = lambda *args: _forward_text(fw, primals, None)
    return out, f_jvp


def _forward_text(fw, primals, nums):
    """The source of ``fw``'s forward-mode program at ``primals``, with tangents for
    arguments ``nums`` (None: every float argument)."""
    if not primals:      # as revsrc.source does for a derivative: float arguments
        primals = tuple(1.0 for _ in fw.params)
    nums = _float_positions(primals) if nums is None else nums
    tangents = [p if i in nums else None for i, p in enumerate(primals)]
    key, flat, wrt, _ = fw._check(tuple(primals), tangents)
    return fw._entry(key, flat, wrt).text


# ----- Reverse mode -----

def _backward(f, argnums, has_aux, backend, memory=None):
    """The transformation of ``f`` whose program takes the output's cotangent last."""
    return _memo(f, ("vjp", argnums, has_aux, backend, memory),
                 lambda: api.Transformed(f, argnums, has_aux, backend, False, cotangent=True,
                                         memory=memory))


def _float_positions(primals, backend=None):
    """The arguments that carry gradients: floats, float arrays and containers whose
    leaves all are."""
    out = []
    for i, p in enumerate(primals):
        leaves = pytree.tree_leaves(p)
        if leaves and all(pytree.float_leaf(x) for x in leaves):
            out.append(i)
    return tuple(out)


def vjp(f: Callable[..., Any], *primals: Any, has_aux: bool = False,
        backend: Optional[str] = None,
        memory: Optional[Union[int, str]] = None) -> Tuple[Any, ...]:
    """``(f(*primals), vjp_fn)``: ``vjp_fn(ct)`` pulls a cotangent ``ct`` of the output
    (shaped like it: a number, an array, a tuple) back to one cotangent per argument
    (None for an argument that is not a float or a float array).

    Each call of ``vjp_fn`` runs the program revsrc writes for it: the forward sweep
    again, then the adjoint sweep from ``ct``. ``memory``: as for `revsrc.grad`.

    >>> import numpy as np, revsrc
    >>> out, back = revsrc.vjp(lambda x: x * x, np.array([1.0, 2.0]))
    >>> back(np.array([1.0, 1.0]))
    (array([2., 4.]),)
    """
    wrt = _float_positions(primals, backend)
    if not wrt:
        raise errors.NotDifferentiableArgument(
            "vjp needs at least one float or float array argument")
    tr = _backward(f, wrt, has_aux, backend, memory)
    out = _device(_value(f, primals), backend)
    if has_aux:
        out, aux = out

    taken = _taken(f, primals)
    frozen = _frozen(primals)

    def vjp_fn(ct):
        _unchanged(taken, "revsrc.vjp")
        _cotangent_fits(ct, out)
        grads = tr(*frozen, ct)
        if has_aux:
            grads = grads[0]
        found = dict(zip(wrt, grads))
        return tuple(found.get(i) for i in range(len(primals)))
    vjp_fn.__name__ = f"vjp_{getattr(f, '__name__', 'f')}"
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _cotangent_fits(ct, out):
    """E306 unless the cotangent ``ct`` has the output's structure and shapes."""
    ct_leaves, ct_td = pytree.tree_flatten(ct)
    out_leaves, out_td = pytree.tree_flatten(out)
    if ct_td != out_td:
        def shown(tree, td):
            return pytree.describe_leaf(tree) if td.kind == pytree.LEAF else f"a {td!r}"
        raise errors.MismatchedArguments(
            f"the cotangent is {shown(ct, ct_td)}, the output {shown(out, out_td)}",
            hint="give vjp_fn a cotangent shaped as the function's output")
    for c, o in zip(ct_leaves, out_leaves):
        if c is not None and np.shape(c) != np.shape(o):
            raise errors.MismatchedArguments(
                f"the cotangent has shape {np.shape(c)}, the output {np.shape(o)}",
                hint="give vjp_fn a cotangent shaped as the function's output")


def _frozen(primals):
    """``primals`` with their arrays copied: a pullback or a tangent map runs the
    program again at the point it was made at, though the caller writes into an
    argument's array afterwards (JAX's keeps what its forward pass computed)."""
    return tuple(pytree.tree_map(lambda x: x.copy() if isinstance(x, np.ndarray) else x, p)
                 for p in primals)


def _taken(f, primals):
    """What a pullback or a tangent map must find unchanged when it runs the program
    again: the names ``f`` reads, and the leaves of its arguments' containers."""
    return bindings.snapshot(f), primals, pytree.tree_leaves(primals)


def _unchanged(taken, made_by):
    """Refuse to run a pullback or a tangent map again once a name its function reads,
    or an item of a container it was given, holds another value: its output came from
    the old one (JAX's keeps what the forward pass computed; revsrc's runs the program
    again)."""
    snap, primals, leaves = taken
    name = bindings.changed(snap)
    if name is not None:
        raise errors.StaleSource(
            f"{name!r}, which the function reads, holds another value than when {made_by} "
            "was called, so this function would no longer differentiate the function "
            "that gave its output", hint=f"call {made_by} again after changing {name!r}, or "
            "pass the value as an argument")
    now = pytree.tree_leaves(primals)
    if len(now) != len(leaves) or not all(map(bindings.same, now, leaves)):
        raise errors.StaleSource(
            f"an item of a container given to {made_by} was changed since, so this "
            "function would no longer differentiate at the point that gave its output",
            hint=f"call {made_by} again after the change, or give it a copy")
