"""Composable derivatives: jvp, vjp, the Jacobians, the Hessian, Hessian-vector products.

These follow JAX's names and conventions. Each is a few lines over two programs that
revsrc writes: the forward-mode program of `revsrc.jvp` (the value and a directional
derivative) and the reverse-mode program of `revsrc.vjp` (the value and the
cotangent pulled back to the inputs). Derivatives are ordinary functions, so these
apply to them too: `hessian` is forward mode over reverse mode.
"""
from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from . import api, errors, executable, nested
from .frontend import arguments
from .backends import python as emit
from .backends.jax import compiled as jaxgen
from .core import kinds, pytree
from .passes import pipeline, prune
from .api import Argnums
from .executable import Compiled, ProgramCache

_FORWARD = weakref.WeakKeyDictionary()   # function -> {what: its transformation}


class _Forward:
    """The forward-mode transformation of one function, cached per argument kinds."""

    def __init__(self, f, has_aux=False, backend=None):
        if backend not in executable.BACKENDS:
            raise ValueError(f"backend must be one of {executable.BACKENDS}, "
                             f"not {backend!r}")
        if backend == "jax":
            jaxgen.require()
        self.f = f = api.unjitted(f)
        self.parsed, self.binding = api.describe(f)
        self.params = self.binding.params
        self.has_aux = has_aux
        self.backend = backend
        self.cache = ProgramCache()     # by (key, positions with tangents)

    def _signature(self, v):
        return _signature(v, self.backend)

    def entry(self, primals, wrt):
        """The program for arguments like ``primals`` (plain values: no containers
        taken apart), with tangents at positions ``wrt``."""
        values = self.binding.bind(tuple(primals), {})
        plan = arguments.Plan(self.binding, values, [],
                              signature=self._signature)
        return self._entry(plan.key, plan.flat_values(), tuple(wrt))

    def _entry(self, key, flat, wrt):
        hit = self.cache.current((key, wrt))
        if hit is None:
            with executable.deep_recursion():
                hit = self._build(key, flat, wrt)
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
            # loop bodies on arrays through the kernels (the forward-over-reverse of an
            # RNN's loss steps through its loop); the program as made stays for reuse
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
        if len(tangents) != len(primals):
            raise TypeError(f"{len(primals)} primals but {len(tangents)} tangents")
        values = self.binding.bind(primals, {})
        nums = [i for i, t in enumerate(tangents) if t is not None]
        loc = self.parsed.loc(self.parsed.node)
        slots = self.binding.slots(nums, loc=loc)
        plan = arguments.Plan(self.binding, values, slots, loc=loc,
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
                    raise ValueError(f"the tangent of {where} has shape {np.shape(t)}, "
                                     f"its primal {np.shape(x)}")
                wrt.append(p)
                if isinstance(x, np.ndarray):
                    t = np.asarray(t, dtype=x.dtype)
                elif self.backend == "jax" and isinstance(self._signature(x), tuple):
                    t = jaxgen.require().jnp.asarray(t, dtype=x.dtype)   # a JAX array
                else:
                    t = float(t)
                flat_tangents.append(t)
        return plan.key, flat, tuple(wrt), flat_tangents


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


def _forward(f, has_aux=False, backend=None):
    return _memo(f, ("jvp", has_aux, backend), lambda: _Forward(f, has_aux, backend))


def _grad(f, argnums, backend, memory=None):
    return _memo(f, ("grad", argnums if not isinstance(argnums, list) else tuple(argnums),
                     backend, memory), lambda: api.grad(f, argnums, backend=backend,
                                                        memory=memory))


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

    def f_jvp(*tangents):
        return fw(primals, list(tangents))[1]
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
    out = _device(f(*primals), backend)
    if has_aux:
        out, aux = out

    def vjp_fn(ct):
        grads = tr(*primals, ct)
        if has_aux:
            grads = grads[0]
        found = dict(zip(wrt, grads))
        return tuple(found.get(i) for i in range(len(primals)))
    vjp_fn.__name__ = f"vjp_{getattr(f, '__name__', 'f')}"
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


# ----- Jacobians and Hessians -----

def _nums(argnums):
    return (tuple(argnums), True) if isinstance(argnums, (tuple, list)) else ((argnums,), False)


def _basis(x):
    """The unit vectors of the space of ``x`` (a float, or an array), in C order."""
    if isinstance(x, np.ndarray):
        for k in range(x.size):
            e = np.zeros(x.size, dtype=x.dtype)
            e[k] = 1
            yield e.reshape(x.shape)
    else:
        yield 1.0


def _assemble(columns, out_shape, x):
    """Stack per-direction results into an array of shape out_shape + shape(x)."""
    cols = [np.asarray(c, dtype=np.result_type(c, np.float64) if np.ndim(c) == 0 else None)
            for c in columns]
    if not isinstance(x, np.ndarray):
        return cols[0] if out_shape else float(cols[0])
    stacked = np.stack(cols, axis=-1)
    return stacked.reshape(tuple(out_shape) + x.shape)


def _zero_leaf(o):
    """A zero cotangent for the output leaf ``o``."""
    return np.zeros(np.shape(o)) if np.ndim(o) else 0.0


def _by_output(out, per_leaf_of_output):
    """Jacobians in JAX's nesting: the output's container outside, one block per output
    leaf (each in the form of the arguments) inside; a plain output gives its block."""
    leaves, td = pytree.tree_flatten(out)
    blocks = [per_leaf_of_output(m, o) for m, o in enumerate(leaves)]
    return blocks[0] if td.kind == pytree.LEAF else pytree.tree_unflatten(td, blocks)


def jacfwd(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
           backend: Optional[str] = None) -> Callable[..., Any]:
    """The Jacobian of ``f`` with respect to argument(s) ``argnums``, by forward mode:
    one `jvp` per input dimension. Shape: output's shape + argument's shape (for a
    container argument or output, containers of those, nested as JAX nests them).

    >>> import numpy as np, revsrc
    >>> revsrc.jacfwd(lambda x: x * x)(np.array([1.0, 3.0]))
    array([[2., 0.],
           [0., 6.]])
    """
    nums, many = _nums(argnums)
    if _composed(f) is not None:
        return _second(f, nums, many, has_aux, backend)

    def jacobian_fwd(*args, **kwargs):
        args, fw = api.positional(f, args, kwargs), _forward(f, has_aux, backend)
        cols = {}      # (argument, its leaf) -> one output tangent per basis direction
        out = aux = None
        for a in nums:
            leaves, td = pytree.tree_flatten(args[a])
            for j, x in enumerate(leaves):
                cols[a, j] = []
                for e in _basis(_host(x)):
                    tangents = [None] * len(args)
                    if td.kind == pytree.LEAF:
                        tangents[a] = e
                    else:
                        tangents[a] = pytree.tree_unflatten(
                            td, [e if k == j else None for k in range(len(leaves))])
                    res = fw(args, tangents)
                    out, t = res[0], res[1]
                    aux = res[2] if has_aux else None
                    cols[a, j].append(t)
        if out is None:   # an empty array: the output's shape from a plain call
            out = f(*args)[0] if has_aux else f(*args)

        def block(m, o):
            jacs = []
            for a in nums:
                leaves, td = pytree.tree_flatten(args[a])
                per_leaf = [_assemble([_host(_output_leaf(t, out, m)) for t in cols[a, j]],
                                      np.shape(_host(o)), _host(x))
                            for j, x in enumerate(leaves)]
                jacs.append(per_leaf[0] if td.kind == pytree.LEAF else
                            pytree.tree_unflatten(td, per_leaf))
            return tuple(jacs) if many else jacs[0]
        jac = _device(_by_output(out, block), backend)
        return (jac, aux) if has_aux else jac
    jacobian_fwd.__name__ = f"jacfwd_{getattr(f, '__name__', 'f')}"
    return _mark(jacobian_fwd, f, nums, many, has_aux, backend)


def _output_leaf(t, out, m):
    """Leaf ``m`` of the tangent ``t`` of the output ``out`` (0 for one it lacks)."""
    if not pytree.is_container(out):
        return t
    leaves, want = pytree.tree_leaves(t), pytree.tree_leaves(out)
    return leaves[m] if len(leaves) == len(want) else _zero_leaf(want[m])


def jacrev(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
           backend: Optional[str] = None) -> Callable[..., Any]:
    """The Jacobian of ``f`` with respect to argument(s) ``argnums``, by reverse mode:
    one vector-Jacobian product per output element. Shape: output's shape +
    argument's shape (for a container argument or output, containers of those, nested
    as JAX nests them).

    >>> import numpy as np, revsrc
    >>> revsrc.jacrev(lambda x: np.sin(x) * 2.0)(np.array([0.0, 0.0]))
    array([[2., 0.],
           [0., 2.]])
    """
    nums, many = _nums(argnums)
    if _composed(f) is not None:
        return _second(f, nums, many, has_aux, backend)

    def jacobian_rev(*args, **kwargs):
        args, tr = api.positional(f, args, kwargs), _backward(f, nums, has_aux, backend)
        out = f(*args)
        aux = None
        if has_aux:
            out, aux = out
        out_leaves, out_td = pytree.tree_flatten(out)
        if any(map(np.iscomplexobj, out_leaves)):   # as JAX's (jacfwd: a complex Jacobian)
            raise errors.NonScalarOutput(
                f"{getattr(f, '__name__', 'the function')} returned complex numbers; jacrev "
                "requires real-valued outputs", hint="use revsrc.jacfwd for the complex "
                "Jacobian, or take np.real or np.abs of the output")
        out_leaves = [_host(o) for o in out_leaves]

        def block(m, o):
            rows = [[] for _ in nums]
            for e in _basis(np.asarray(o, dtype=float) if np.ndim(o) else float(o)):
                ct = e if out_td.kind == pytree.LEAF else pytree.tree_unflatten(
                    out_td, [e if k == m else _zero_leaf(ol) for k, ol in enumerate(out_leaves)])
                grads = tr(*args, ct)
                if has_aux:
                    grads = grads[0]
                for k, g in enumerate(grads):
                    rows[k].append(pytree.tree_leaves(g))
            return _rev_blocks(args, nums, many, rows, o)
        jac = _device(_by_output(out, lambda m, o: block(m, out_leaves[m])), backend)
        return (jac, aux) if has_aux else jac
    jacobian_rev.__name__ = f"jacrev_{getattr(f, '__name__', 'f')}"
    return _mark(jacobian_rev, f, nums, many, has_aux, backend)


def _rev_blocks(args, nums, many, rows, out):
    """The rows of one output leaf's Jacobian stacked, per argument in ``nums``."""
    jacs = []
    for a, r in zip(nums, rows):
        leaves, td = pytree.tree_flatten(args[a])
        per_leaf = []
        for j, x in enumerate(leaves):
            stacked = np.stack([np.asarray(_host(row[j])) for row in r], axis=0).reshape(
                np.shape(out) + np.shape(_host(x)))
            per_leaf.append(stacked if (np.shape(out) or isinstance(_host(x), np.ndarray))
                            else float(stacked))
        jacs.append(per_leaf[0] if td.kind == pytree.LEAF else
                    pytree.tree_unflatten(td, per_leaf))
    return tuple(jacs) if many else jacs[0]


jacobian = jacrev


def hessian(f: Callable[..., Any], argnums: Argnums = 0,
            backend: Optional[str] = None,
            memory: Optional[Union[int, str]] = None) -> Callable[..., Any]:
    """The Hessian of a scalar ``f``: forward mode over its gradient program (one
    `jvp` of ``revsrc.grad(f)`` per input dimension). Shape: argument's shape twice.
    ``memory``: as for `revsrc.grad` (the gradient program's long loops).

    >>> import numpy as np, revsrc
    >>> revsrc.hessian(lambda x: np.sum(x ** 3))(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    nums, many = _nums(argnums)
    if _composed(f) is not None:
        if api.unjitted(f) is f:
            raise _not_again(f)
        f = api.unjitted(f)   # a function calling it (revsrc/nested.py)
    if not many:
        h = jacfwd(_grad(f, argnums, backend, memory), argnums, backend=backend)
        h.__name__ = h.__qualname__ = f"hessian_{getattr(f, '__name__', 'f')}"
        return h

    def hessian_blocks(*args, **kwargs):
        # block (i, j): the Jacobian in argument j of the gradient in argument i
        return tuple(tuple(jacfwd(_grad(f, i, backend, memory), j, backend=backend)(*args, **kwargs)
                           for j in nums) for i in nums)
    hessian_blocks.__name__ = f"hessian_{getattr(f, '__name__', 'f')}"
    return _mark(hessian_blocks, None, nums, many, False, backend)


# ----- Derivatives of the functions above -----
# A Jacobian made here is a Python loop over programs, not a function revsrc reads:
# its own Jacobian is taken from the function it differentiates, one Hessian per
# output element (forward over reverse, as `hessian`).

def _mark(fn, f, nums, many, has_aux, backend):
    """``fn`` (a Jacobian or Hessian made here) marked as such: ``jit`` returns it as
    it is, ``vmap`` maps it element by element, and a Jacobian of it differentiates
    ``f`` twice (`_second`)."""
    fn._revsrc_composed = (f, nums, many, has_aux, backend)
    if f is not None:
        fn._revsrc_source = lambda *args: _forward_text(_forward(f, has_aux, backend),
                                                        args, nums)
    fn._revsrc_lower_call = functools.partial(nested.lower_jacobian, _grad, fn)
    if f is not None:
        fn._revsrc_as_function = functools.partial(nested.caller, fn, f)
    fn.__qualname__ = fn.__name__     # refusals name it so, not by compose's locals
    return fn


def _composed(f):
    found = getattr(f, "_revsrc_composed", None)
    return found if isinstance(found, tuple) else None


def _not_again(f):
    return errors.HigherOrderNotSupported(
        f"{getattr(f, '__name__', 'this function')} is a derivative made by revsrc; "
        "of its Jacobians, only the Jacobian in one argument of a Jacobian in one "
        "argument (without has_aux) of a function of at most four positional arguments "
        "is supported",
        hint="use revsrc.hessian for second derivatives, or differentiate the function "
             "itself")




def _second(jac, nums, many, has_aux, backend):
    """The Jacobian in argument b (``nums``) of the Jacobian ``jac`` in argument a of a
    function f: f's second derivatives, of shape f's output + a's shape + b's shape
    (the mixed partials commute, so jacfwd and jacrev of jacfwd and jacrev agree). Each
    output element's is the forward-mode Jacobian of its gradient, as in `hessian`."""
    f, inner, inner_many, inner_aux, _ = _composed(jac)
    if f is None or many or inner_many or inner_aux or has_aux or \
            getattr(f, "_revsrc_derivative", False) or _composed(f) is not None:
        # the Jacobian of a function calling ``jac``, whose IR has its program
        # (revsrc/nested.py), where that can be written
        calling = api.unjitted(jac)
        if calling is jac:
            raise _not_again(jac)
        return jacfwd(calling, nums if many else nums[0], has_aux, backend)
    (a,), (b,) = inner, nums

    def second_derivative(*args):
        if not 1 <= len(args) < len(nested.ITEMS):
            raise _not_again(jac)
        out = f(*args)
        if not np.ndim(out) and not isinstance(out, (list, tuple)):
            return jacfwd(_grad(f, a, backend), b, backend=backend)(*args)
        shape = np.shape(out)
        make = nested.ITEMS[len(args)]
        blocks = [jacfwd(_grad(_memo(f, ("item", len(args), k), lambda k=k: make(f, k)),
                               a, backend), b, backend=backend)(*args)
                  for k in range(int(np.prod(shape)))]
        inner_shape = np.shape(_host(args[a])) + np.shape(_host(args[b]))
        return _device(np.reshape(np.stack([np.asarray(_host(x)) for x in blocks]),
                                  shape + inner_shape), backend)
    second_derivative.__name__ = f"jacobian_{getattr(jac, '__name__', 'f')}"
    return _mark(second_derivative, None, nums, many, has_aux, backend)


def hvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        argnums: Argnums = 0, backend: Optional[str] = None) -> Any:
    """The Hessian of a scalar ``f`` at ``primals`` times ``tangents`` (one per
    argument, None for none), without forming the Hessian: forward mode over the
    gradient program, one sweep.

    >>> import numpy as np, revsrc
    >>> revsrc.hvp(lambda x: np.sum(x ** 3), (np.array([1.0, 2.0]),), (np.array([1.0, 0.0]),))
    array([6., 0.])
    """
    return jvp(_grad(f, argnums, backend), primals, tangents, backend=backend)[1]



# ----- Called inside a function revsrc transforms (revsrc/nested.py) -----

jvp._revsrc_lower_call = nested.lower_jvp
hvp._revsrc_lower_call = functools.partial(nested.lower_hvp, _grad)
