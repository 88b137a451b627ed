"""``grad``, ``value_and_grad`` and ``source``: the public entry points."""
from __future__ import annotations

import math

import functools
import operator
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from .passes import pipeline
from .passes.reverse import checkpoint
from .frontend import arguments, bindings, fence
from .frontend.lower import recursion
from . import errors, executable, runtime
from .core import kinds, pytree
from .backends.jax import jaxgen
from .frontend import callee as callee_mod
from ._kernels import Derivative, EngineCheckpoint, Guards
from .executable import Compiled, ProgramCache, deep_recursion
from .frontend.parse import parse_function

# programs kept per derivative: a new function passed as an argument (a lambda made
# in a loop) is a new key each time, and must not keep every program alive
_CACHE_LIMIT = 128

# which positional arguments to differentiate: one index, or several (a tuple of results)
Argnums = Union[int, Sequence[int]]


def unjitted(f):
    """What a transformation of ``f`` reads: the function behind one made by
    ``revsrc.jit`` (the same digits), a function calling a Jacobian or Hessian made
    by revsrc/compose.py (which its IR replaces by their programs), else ``f``."""
    jt = getattr(f, "_revsrc_jitted", None)
    if jt is not None and hasattr(jt, "f"):
        if hasattr(jt, "current"):
            jt.current()
        return jt.f
    as_function = getattr(f, "_revsrc_as_function", None)
    return as_function() if callable(as_function) else f


def describe(f):
    """(parsed source, `arguments.Binding`) of a callable to transform; a revsrc
    derivative has those of its function."""
    inner = pipeline.transformed_of(f)
    if inner is not None:
        inner.current()
        return inner.parsed, inner.binding
    c = callee_mod.unwrap(f)
    parsed = parse_function(c.fn)
    fence.check(parsed)
    return parsed, arguments.Binding(c, parsed)


class Transformed:
    """The general (any argument kinds) path of a derivative made by revsrc."""

    def __init__(self, f, argnums, has_aux, backend, with_value, cotangent=False,
                 max_steps=None, holomorphic=False, memory=None):
        if backend not in executable.BACKENDS:
            raise ValueError(f"backend must be one of {executable.BACKENDS}, "
                             f"not {backend!r}")
        if backend == "jax":
            jaxgen.require()
        if max_steps is not None and (backend != "jax" or isinstance(max_steps, bool) or
                                      not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError("max_steps bounds the while loops of backend='jax' (a "
                             f"positive int), not {max_steps!r} with backend={backend!r}")
        self.max_steps = max_steps
        self._made = (f, argnums, has_aux, backend, with_value, cotangent, max_steps,
                      holomorphic)
        self._bounded = {}
        self.memory_given = memory is not None
        self.memory = checkpoint.parse_memory(memory)
        # backend='jax': its rolled loops run in segments inside the jit instead
        # (backends/jax/segments.py), the program itself keeps its loops
        self.jax_memory = None
        if backend == "jax":
            self.jax_memory, self.memory = self.memory, None
        self.holomorphic = holomorphic
        # a complex output is refused (unless holomorphic=True): by the programs on
        # arrays themselves (`executable.output_checked`); a scalar one run in Python
        # (where x ** 0.5 of a negative float is complex) is looked at in `_format`
        self.real_only = not (holomorphic or cotangent)
        self.f = f = unjitted(f)
        self.has_aux = has_aux
        self.backend = backend
        self.with_value = with_value
        self.cotangent = cotangent  # takes the output's cotangent as a last argument
        self.argnums_given = argnums   # as the user gave them (pickling makes it anew)
        self.tuple_argnums = isinstance(argnums, (tuple, list))
        self._describe()
        self.cache = ProgramCache(_CACHE_LIMIT)
        # keys whose cached program was built lazily (long loops stored behind a
        # test): only a call runs it; transforming it again takes the full form
        self.lazy = set()
        self.derivative = None  # the user-facing object, set by _make

    def _describe(self):
        """Read the function as it is now (source, parameters, defaults; a partial's
        arguments, an object's ``__call__``), guarding what was read (`made_with`)."""
        self.made_with = Guards(bindings.callee_guards(self.f))
        self.parsed, self.binding = describe(self.f)
        self.callee = self.binding.callee
        self.params = self.binding.params
        self.signature = self.binding.sig
        nums = tuple(self.argnums_given) if self.tuple_argnums else (self.argnums_given,)
        self.slots = self.binding.slots(nums, loc=self.parsed.loc(self.parsed.node))
        # the parameter of each slot (its only leaf, unless it is a container)
        self.argnums = tuple(i for i, _ in self.slots)

    def current(self):
        """Read the function anew if it changed since (`executable.read_anew`)."""
        if not self.made_with.current():
            executable.read_anew(self)
            self.lazy.clear()

    # ----- calling ---------------------------------------------------------
    def bind(self, args, kwargs):
        self.current()
        return self.binding.bind(args, kwargs)

    def plan(self, values):
        """``(key, the program's argument values, the Plan or None)`` for ``values``."""
        if self.binding.simple and not any(
                pytree.node_of(values[i]) is not None for i, _ in self.slots):
            return self.key(values), values, None
        plan = arguments.Plan(self.binding, values, self.slots,
                              loc=self.parsed.loc(self.parsed.node))
        return plan.key, plan.flat_values(), plan

    def key(self, values):
        key = tuple(map(jaxgen.signature if self.backend == "jax" else kinds.signature,
                        values))
        return arguments.valued_key(self.binding, key, values)

    def __call__(self, *args, **kwargs):   # (else self.bind makes it current)
        if self.backend == "jax":
            self.current()
        if self.backend == "jax" and not kwargs and not self.cotangent and \
                self.binding.simple and len(args) == len(self.params):
            # every argument an array (NumPy's or JAX's): no container to take apart, no
            # complex number to convert; the Python before the jitted call is what a
            # caller waits for (a JAX program runs while the rest of this runs)
            key = jaxgen.array_key(args)
            if key is not None:
                entry = self.cache.current(key)
                if entry is None:
                    entry = self._compile(key, args, None)
                select = entry.select
                if select is None:
                    select = entry.select = self._selector(key, entry)
                return select(entry.jax.call_arrays(args))
        if self.cotangent:
            values, scalars = self._complex_scalars(self.bind(args[:-1], kwargs))
            key, flat, plan = self.plan(values)
            key, flat = key + (kinds.signature(args[-1]),), flat + (args[-1],)
        else:
            values, scalars = self._complex_scalars(self.bind(args, kwargs))
            key, flat, plan = self.plan(values)
        entry = self.cache.current(key)
        if entry is None:
            entry = self._compile(key, values, plan, lazy=True)
        if entry.jax is not None:   # its gradients are finalized inside the jit
            return self._format(entry.jax(flat), key, flat, scalars, finalize=False,
                                entry=entry)
        try:
            outs = entry.run(flat)
        except EngineCheckpoint:   # a long loop: build its checkpointed form, run again
            entry = self._compile(key, values, plan)
            outs = entry.run(flat)
        return self._format(outs, key, flat, scalars, entry=entry)

    def _selector(self, key, entry):
        """What the call returns from the jitted program's outputs, for arguments that
        are all arrays: an item or two picked where each gradient is one array, else
        `_format`. Made once per entry: its Python runs while the program does."""
        groups = arguments.slot_leaves(self.binding, key, self.slots)
        if self.has_aux or any(td.kind != pytree.LEAF or len(ps) != 1 for td, ps in groups):
            return lambda outs: self._format(outs, key, (), finalize=False, entry=entry)
        n = len(groups)
        if self.tuple_argnums:
            if self.with_value:
                return lambda outs: (outs[0], tuple(outs[1:1 + n]))
            return lambda outs: tuple(outs[1:1 + n])
        if self.with_value:
            return lambda outs: (outs[0], outs[1])
        return operator.itemgetter(1)

    def _complex_scalars(self, values):
        """A complex number in argnums (Python's or NumPy's) runs as a 0-d complex array,
        whose rules follow the complex convention (see README); its gradient comes back
        as a complex number. Returns the values and the positions so changed."""
        changed = [i for i, _ in self.slots if i < len(values)
                   and isinstance(values[i], (complex, np.complexfloating))]
        if not changed:
            return values, ()
        values = list(values)
        for i in changed:
            values[i] = np.asarray(values[i], dtype=np.result_type(values[i], np.complex128))
        return tuple(values), tuple(changed)

    def compiled_for(self, key, values=None, plan=None):
        """The `executable.Compiled` entry for argument kinds ``key``: made before
        (and still valid), or now for arguments ``values`` (None: their kinds alone)."""
        self.current()
        entry = self.cache.current(key)
        if entry is None or key in self.lazy:
            entry = self._compile(key, values, plan)
        return entry

    def bounded(self, budget):
        """This derivative with the budget a ``revsrc.jit(..., memory=)`` gives the
        derivatives it inlines (itself when its own ``memory=`` was given)."""
        if self.memory_given or budget == self.memory or self.backend == "jax":
            return self
        if budget not in self._bounded:
            f, argnums, has_aux, backend, with_value, cotangent, steps, holo = self._made
            tr = Transformed(f, argnums, has_aux, backend, with_value, cotangent, steps,
                             holo, memory=math.inf if budget is None else budget)
            self._bounded[budget] = tr
        return self._bounded[budget]

    def program_for(self, key):
        """The program for argument kinds ``key`` as transformed, before a back end's
        pruning: what transforming this derivative again starts from
        (revsrc/passes/pipeline.py)."""
        return self.compiled_for(key).unpruned

    def _format(self, outs, key, flat, scalars=(), finalize=True, entry=None):
        groups = entry.groups if entry is not None else None
        if groups is None:     # the same for every call with this key: made once
            key = key[:-1] if self.cotangent else key
            groups = arguments.slot_leaves(self.binding, key, self.slots)
            if entry is not None:
                entry.groups = groups
        n = sum(len(ps) for _, ps in groups)
        grads = []
        k = 1
        for td, positions in groups:
            leaves = [complex(g) if p in scalars else _finalize(g, flat[p]) if finalize
                      else g for g, p in zip(outs[k:k + len(positions)], positions)]
            k += len(positions)
            grads.append(leaves[0] if td.kind == pytree.LEAF else
                         pytree.tree_unflatten(td, leaves))
        grad = tuple(grads) if self.tuple_argnums else grads[0]
        value = outs[0]
        if value.__class__ is not float and self.real_only and isinstance(value, complex):
            raise self._complex_refusal()
        if self.has_aux:
            aux = outs[1 + n]
            if self.with_value:
                return (value, aux), grad
            return grad, aux
        if self.with_value:
            return value, grad
        return grad

    def _complex_refusal(self):
        return runtime.complex_output(loc=self.parsed.loc(self.parsed.node))

    # ----- transforming ---------------------------------------------------
    def _check_wrt(self, key, values, plan):
        loc = self.parsed.loc(self.parsed.node)
        key = key[:-1] if self.cotangent else key
        if plan is not None:
            arguments.check_slots(plan, loc=loc)
        elif values is not None:
            for i, _ in self.slots:
                arguments.check_leaf(self.params[i], values[i], loc)
        flat = arguments.flat_key(key)
        for _, positions in arguments.slot_leaves(self.binding, key, self.slots):
            for p in positions:
                code = flat[p]
                if not (code == kinds.FLOAT or (isinstance(code, tuple)
                                                and code[0] == kinds.ARRAY
                                                and code[2].kind in "fc")):
                    raise errors.NotDifferentiableArgument(
                        f"cannot differentiate with respect to a value of kind {code!r}; "
                        "only float scalars and float arrays carry gradients", loc=loc,
                        hint="pass floats or float arrays, or exclude it from argnums")

    def _compile(self, key, values, plan=None, lazy=False):
        with deep_recursion():
            try:
                return self._compile_now(key, values, plan, lazy)
            except recursion.NeedsIntValues as exc:
                # a recursion its int arguments decide: made for their values
                flat = plan.flat_values() if plan is not None else values
                if not recursion.learn(exc, self.binding, flat):
                    raise
        return self._compile(arguments.revalued(self.binding, key, flat), values, plan, lazy)

    def _compile_now(self, key, values, plan=None, lazy=False):
        self._check_wrt(key, values, plan)
        flat_values = plan.flat_values() if plan is not None else values
        check_values(self.parsed, self._flat_names(key), arguments.flat_key(key),
                     flat_values)
        fkey = key[:-1] if self.cotangent else key
        positions = arguments.wrt_positions(self.binding, fkey, self.slots)
        # under backend='jax' the derivatives it differentiates again keep no bound
        token = checkpoint.INLINED.set((None,)) if self.backend == "jax" else None
        try:
            prog = unpruned = pipeline.grad_program(self.f, key, positions, self.has_aux,
                                                    cotangent=self.cotangent,
                                                    memory=self.memory,
                                                    lazy=lazy and self.memory is not None)
        finally:
            if token is not None:
                checkpoint.INLINED.reset(token)
        if lazy and checkpoint.is_lazy(prog):
            self.lazy.add(key)
        else:
            self.lazy.discard(key)
        on_arrays = any(isinstance(k, tuple) and k[0] == kinds.ARRAY
                        for k in arguments.flat_key(key))
        if self.holomorphic or (self.real_only and (on_arrays or self.backend == "jax")):
            # (scalar programs run on the engine, whose numbers are real)
            prog = unpruned = executable.output_checked(prog, _has_complex(key),
                                                        self.holomorphic)
        if self.backend == "jax":
            refusal = None if self.holomorphic or self.cotangent else self._complex_refusal
            entry = executable.for_jax(
                prog, jaxgen.grad_post(positions, self.with_value, self.has_aux, refusal),
                unpruned, max_steps=self.max_steps, memory=self.jax_memory)
            self.cache.store(key, entry)
            return entry
        if on_arrays:
            prog = pipeline.for_arrays(prog, value_returned=self.with_value)
        engine = None
        if self.backend in (None, "engine") and not self.has_aux:
            engine = executable.try_engine(prog, required=self.backend == "engine")
        entry = Compiled(prog, engine, unpruned)
        if engine is None:
            entry.fn  # compile now, so errors surface at the first call
        self.cache.store(key, entry)
        if engine is not None and arguments.plain_key(key) and self.binding.simple and \
                all(k in kinds.SCALARS for k in key):
            self.cache.install(key, entry, self.engine_select())
        return entry

    def _flat_names(self, key):
        names = []
        for name, e in zip(self.params, key):
            if e == arguments.STATIC:
                continue
            if arguments.is_tree(e):
                names.extend(pytree.path_text(name, p) for p in pytree.paths(e[1]))
            else:
                names.append(name)
        return names

    def engine_select(self):
        """How the outputs of its engine programs nest into the result, as
        `_kernels.Derivative.install` and revsrc.vmap take it."""
        n = len(self.argnums)
        grads = tuple(range(1, 1 + n)) if self.tuple_argnums else 1
        return (0, grads) if self.with_value else grads


def _has_complex(key):
    return any(isinstance(k, tuple) and k[0] == kinds.ARRAY and k[2].kind == "c"
               for k in arguments.flat_key(key))


def check_values(parsed, params, key, values):
    """Refuse arguments whose arithmetic the rules do not describe."""
    for i, code in enumerate(key):
        if isinstance(code, tuple) and code[0] == kinds.SUBCLASS:
            name = params[i] if i < len(params) else f"argument {i}"
            raise errors.UnsupportedValue(
                f"{name} is a {code[1]}, an ndarray subclass whose operators mean "
                "something else (np.matrix's * is a matrix product; a masked array skips "
                "masked elements): its derivative would be wrong", loc=parsed.loc(parsed.node),
                hint=f"pass np.asarray({name}) (for a masked array, fill or compress it "
                     "first)")


_finalize = runtime.finalize_grad


def _make(f, argnums, has_aux, backend, with_value, max_steps=None, holomorphic=False,
          memory=None):
    tr = Transformed(f, argnums, has_aux, backend, with_value, max_steps=max_steps,
                     holomorphic=holomorphic, memory=memory)
    derivative = _wrap(tr)
    tr.derivative = derivative
    return derivative


class BoundCall:
    """A ``__call__`` that is the object's ``_call`` through a descriptor that is not
    a function: revsrc's front end inlines a callable object whose ``__call__`` is a
    plain function, and must not inline revsrc's own."""

    def __get__(self, obj, cls=None):
        return self if obj is None else obj._call


class _PythonDerivative:
    """What grad returns with backend="python": calls the generated Python adjoint."""

    def __init__(self, tr):
        self._revsrc_transformed = tr
        functools.update_wrapper(self, tr.f)

    def _call(self, *args, **kwargs):
        return self._revsrc_transformed(*args, **kwargs)

    # not a plain method: a function revsrc transforms that calls this derivative
    # keeps the call (which revsrc/passes/pipeline.py replaces by its program)
    # instead of reading this method as a user's callable object
    __call__ = BoundCall()

    def __reduce__(self):
        return _reduce(self)


def _reduce(d):
    """Pickling a derivative: the function (by reference, as pickle does functions) and
    the options; the unpickled derivative transforms again when first called."""
    tr = d._revsrc_transformed
    budget = tr.jax_memory if tr.backend == "jax" else tr.memory
    # the default bound stays the default; no bound is math.inf
    memory = None if isinstance(budget, type(checkpoint.DEFAULT_MEMORY)) else \
        math.inf if budget is None else budget
    return _remade, (tr.f, tr.argnums_given, tr.has_aux, tr.backend, tr.with_value,
                     tr.max_steps, tr.holomorphic, memory)


def _remade(f, argnums, has_aux, backend, with_value, max_steps=None, holomorphic=False,
            memory=None):
    return _make(f, argnums, has_aux, backend, with_value, max_steps, holomorphic, memory)


def _wrap(tr):
    if tr.backend not in ("python", "jax"):
        d = tr.cache.front = Derivative(tr)   # runs installed engine programs itself
    else:
        d = _PythonDerivative(tr)
    try:
        d.__name__ = ("value_and_grad_" if tr.with_value else "grad_") + \
            pipeline.name_of(tr.f)
        d.__qualname__ = d.__name__
        d.__doc__ = f"Derivative of {callee_mod._name(tr.f)} made by revsrc."
        d.__wrapped__ = tr.f
    except (AttributeError, TypeError):
        pass
    d._revsrc_transformed = tr
    d._revsrc_derivative = True
    return d


def grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
         backend: Optional[str] = None, *, max_steps: Optional[int] = None,
         holomorphic: bool = False, memory: Union[int, str, None] = None
         ) -> Callable[..., Any]:
    """The gradient of ``f`` with respect to argument ``argnums``.

    ``f`` must return a scalar float (or ``(value, aux)`` with ``has_aux=True``).
    The result has ``f``'s signature and returns a float for a float argument,
    an array of the argument's shape and dtype for an array, a tuple of these for
    a tuple ``argnums``, and ``(grad, aux)`` with ``has_aux``. ``backend`` forces
    the generated Python adjoint (``"python"``) or the compiled scalar engine
    (``"engine"``); by default the engine runs whenever it can. With
    ``backend="jax"``, ``max_steps`` bounds a ``while`` loop whose test is a traced
    value and that saves values for the adjoint (default 1000, the rows of its save
    buffers): a loop still running there makes the call raise E604. A complex output
    is refused (E302), as JAX refuses it; ``holomorphic=True`` returns the complex
    derivative ``f'(z)`` of a holomorphic function of complex arguments instead.
    ``memory`` (bytes, or a string like ``"32MB"``) bounds what a long outermost
    ``for`` or ``while`` loop saves: it runs in segments recomputed in the adjoint sweep (the
    same bits; with ``backend="jax"``, its rolled ``for`` loops, equal to rounding); loops
    it does not cover are saved as without it.

    >>> import math, revsrc
    >>> def f(x, y):
    ...     return math.sin(x) * y + x * x
    >>> round(revsrc.grad(f)(0.7, 2.0), 9)
    2.929684375
    """
    return _make(f, argnums, has_aux, backend, with_value=False, max_steps=max_steps,
                 holomorphic=holomorphic, memory=memory)


def value_and_grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
                   backend: Optional[str] = None, *, max_steps: Optional[int] = None,
                   holomorphic: bool = False, memory: Union[int, str, None] = None
                   ) -> Callable[..., Any]:
    """``(f(...), grad(f)(...))`` computed in one forward and one adjoint sweep
    (``max_steps``, ``holomorphic``, ``memory``: see `grad`).

    >>> import revsrc
    >>> def f(x, y):
    ...     return x * y
    >>> revsrc.value_and_grad(f, argnums=1)(3.0, 2.0)
    (6.0, 3.0)
    """
    return _make(f, argnums, has_aux, backend, with_value=True, max_steps=max_steps,
                 holomorphic=holomorphic, memory=memory)


# made inside a function revsrc transforms (``d = revsrc.grad(h)`` in its body), on a
# function and options known then: frontend/lower/calls.py makes it while transforming,
# so it is called as one made at module level is
grad._revsrc_made_when_transforming = value_and_grad._revsrc_made_when_transforming = True


def _transformed(df):
    tr = getattr(df, "_revsrc_transformed", None) or getattr(df, "_revsrc_jitted", None)
    if tr is None:
        raise TypeError(f"{df!r} is not a derivative made by revsrc.grad or value_and_grad, "
                        "nor a function made by revsrc.jit")
    return tr


def _entry(df, args, kwargs):
    """The compiled signature of ``df`` for these arguments (transforming if needed);
    without arguments, the signature compiled last (float arguments if none was)."""
    tr = _transformed(df)
    if args or kwargs:
        values = tr.bind(args, kwargs)
        if not hasattr(tr, "plan"):   # revsrc.jit: numbers only
            return tr.compiled_for(tuple(kinds.signature(v) for v in values), values)
        key, _, plan = tr.plan(values)
        return tr.compiled_for(key, values, plan)
    if tr.cache:
        key = list(tr.cache)[-1]
        if key in getattr(tr, "lazy", ()):     # built without its checkpointed loops
            return tr.compiled_for(key)
        return tr.cache[key]
    b = tr.binding
    values = tuple(() if p == b.vararg else {} if p == b.varkw else 1.0 for p in tr.params)
    key = tuple(arguments.STATIC if p in b.static else
                (arguments.TREE, pytree.tree_structure(v), ()) if p in (b.vararg, b.varkw)
                else kinds.FLOAT for p, v in zip(tr.params, values))
    return tr._compile(key, values)


def source(df: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The generated adjoint source of ``df`` for arguments like ``args``.

    Without arguments: for the argument kinds transformed most recently (float
    arguments if ``df`` was never called). For a function made by revsrc/compose.py
    (``linearize``'s, a Jacobian, a Hessian): the forward-mode program it runs.

    >>> import math, revsrc
    >>> def f(x):
    ...     return math.sin(x) * x
    >>> text = revsrc.source(revsrc.grad(f), 2.0)
    >>> text.splitlines()[0], "math.cos(x)" in text
    ('def f_adjoint(x):', True)
    """
    own = getattr(df, "_revsrc_source", None)
    if callable(own) and getattr(df, "_revsrc_transformed", None) is None:
        return own(*args, **kwargs)
    return _entry(df, args, kwargs).text


def disassemble(df: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The compiled scalar engine's program of ``df`` for arguments like ``args``
    (without arguments: the kinds transformed most recently), one instruction per line;
    for a derivative over arrays, its loops that run compiled on small arrays.
    A derivative that does not run on the engine is refused (E501).

    >>> import math, revsrc
    >>> def f(x):
    ...     return math.sin(x) * x
    >>> revsrc.disassemble(revsrc.grad(f), 2.0).startswith("; f_adjoint")
    True
    """
    entry = _entry(df, args, kwargs)
    if entry.engine is None and entry.jax is None and entry.python:
        # its loops over small arrays that run compiled (revsrc/backends/smallarr.py)
        loops = getattr(entry.fn, "_revsrc_small_loops", None)
        if loops:
            return "\n".join(p.disassemble() for p in loops)
    if entry.engine is None:
        raise errors.EngineUnavailable(
            "this derivative does not run on the scalar engine for these arguments",
            hint="the engine runs functions whose values are all floats, ints and bools")
    return entry.engine.disassemble()
