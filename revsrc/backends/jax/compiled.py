"""A ``backend="jax"`` program compiled: the printed function (printer.py here) made by
its factory, one ``jax.jit`` of it per set of static argument positions, and what the
API layer asks of it.

- `Compiled`: the program with what it reads from Python state (module globals,
  closure cells, attributes and items of objects) as parameters read at each call
  (`_with_externals`, revsrc/backends/jax/state.py), the jitted function per static
  positions (arguments that are not floats or arrays are static, as with
  ``static_argnums``; unhashable ones by their contents, `_Static`), 64-bit mode while
  it traces and runs, and a failed trace turned into the refusal it means (E602,
  E603) at the user's line; a while loop stopped at ``max_steps`` raises E604 once
  the program has run.
- `signature` and `array_key`: the cache key of a call's values, with JAX's arrays as
  arrays (`array_key` is the one pass a call of arrays only makes).
- `grad_post` and `jvp_post`: what the jitted function returns, shaped inside the jit.
- `require` (revsrc/backends/jax/load.py): the JAX import the API layer asks for
  before it compiles anything.
"""
from __future__ import annotations

import builtins
import linecache
import math

import numpy as np

from ... import errors
from ...core import ir, kinds
from ...runtime import inplace
from ...runtime.grads import elementwise, reductions
from ..python import compile_program
from . import printer, state
from .load import ARRAY_TYPE, TRACED_TYPES, loaded, require

__all__ = ["require", "Compiled", "signature", "array_key", "grad_post", "jvp_post"]


def _structural_zeros(program):
    """Whether ``program`` calls a helper whose adjoint marks structural zeros."""
    marking = (elementwise.where_grad, reductions.nansum_grad, reductions.nanmean_grad,
               reductions.average_grads)
    return any(isinstance(s, ir.Op) and s.fn in marking for s in ir.walk(program.body))


def _all_finite(out):
    """Whether every number in ``out`` (arrays, numbers, nested tuples, lists and dicts)
    is finite; True for traced values, whose numbers are not known."""
    if isinstance(out, dict):
        return all(_all_finite(v) for v in out.values())
    if isinstance(out, (tuple, list)):
        return all(_all_finite(v) for v in out)
    if out is None or isinstance(out, require().helpers.Tracer):
        return True
    try:
        a = np.asarray(out)
    except Exception:      # noqa: BLE001 - not numbers: nothing to check
        return True
    if a.dtype.kind not in "fc":
        return True
    return bool(np.all(np.isfinite(a)))


def _with_externals(program):
    """``program`` with what it reads from Python state (module globals, closure cells,
    attributes and items of objects) as parameters (``_g_<name>``), and the `Hoisted`
    that reads them at each call (revsrc/backends/jax/state.py)."""
    hoisted = state.hoist(program)
    return hoisted.program, hoisted


_counter = [0]


class Compiled:
    """One program printed against jnp: its text, the Python function, and one
    ``jax.jit`` of it per set of static argument positions."""

    def __init__(self, program, post, max_steps=None, memory=None):
        J = require()
        self.program, self.hoisted = _with_externals(program)
        self.externals = bool(self.hoisted.getters or self.hoisted.dead)
        self.nparams = len(program.params)
        self.text, refs, self.line_locs, self.loop_locs = printer.source(self.program)
        self.max_steps = J.loops.MAX_STEPS if max_steps is None else int(max_steps)
        self.memory = memory    # the bound of a rolled loop's saves (loops.segments)
        self.bounded = {}   # static positions -> the loops that may stop at max_steps
        self.zeros_program = program if _structural_zeros(program) else None
        self.on_numpy = None    # that program on NumPy (`_zeros_kept`), made when needed
        names = sorted(refs)
        factory = ["def _revsrc_factory(" + ", ".join(["jnp", "jax", "lax", "math", "np"]
                                                       + names) + "):"]
        factory += ["    " + line if line else "" for line in self.text.splitlines()]
        factory.append(f"    return {self.program.name}")
        full = "\n".join(factory) + "\n"
        _counter[0] += 1
        self.filename = f"<revsrc jax {self.program.name} #{_counter[0]}>"
        code = compile(full, self.filename, "exec")
        linecache.cache[self.filename] = (len(full), None, full.splitlines(True), self.filename)
        namespace = {"__builtins__": builtins}
        exec(code, namespace)
        self.fn = namespace["_revsrc_factory"](J.jnp, J.jax, J.lax, math, np,
                                               *(refs[n] for n in names))
        self.post = post
        self.jitted = {}
        self.watched = {}   # static positions -> the attribute reads its traces made

    def __call__(self, values):
        """Run on the parameters' ``values`` (plus the externals, read now)."""
        return self._zeros_kept(self._run(values), values)

    def _zeros_kept(self, out, values):
        """``out``, or where it holds a nan or an inf and the program gives some
        adjoints structural zeros (np.where's arm not taken, the nans np.nansum skips:
        revsrc/runtime/dropped.py, which jnp arrays cannot carry, so 0 * nan stayed
        nan), the same program run on NumPy for these values, as the default back end
        runs it. Inside the caller's own jax.jit (traced values) ``out`` stays."""
        if self.zeros_program is None or _all_finite(out):
            return out
        if self.on_numpy is None:
            self.on_numpy = compile_program(self.zeros_program)[0]
        got = self.on_numpy(*values)
        with require().jax.enable_x64(True):    # (post shapes with jnp, as in the jit)
            return self.post(got, tuple(values[:self.nparams]))

    def _run(self, values):
        J = require()
        if self.externals:
            values = self.hoisted.values(values)
        static = tuple(i for i, v in enumerate(values)
                       if type(v) not in TRACED_TYPES and not _traced(v))
        run = self.jitted.get(static)
        if run is not None and static in self.watched and \
                not all(w.current() for w in self.watched[static]):
            del self.watched[static]    # what the trace read has changed: trace again
            run = None
        if run is None:
            run = self.jitted[static] = self._jit(static)
        if static:
            values = tuple(_Static(v) if i in static and not _hashable(v) else v
                           for i, v in enumerate(values))
        try:
            if J.jax.config.jax_enable_x64:
                out, stopped = run(*values)
            else:
                with J.jax.enable_x64(True):
                    out, stopped = run(*values)
        except Exception as exc:
            self._raise(exc)
        if stopped:
            self._check_bounds(static, stopped)
        return out

    def call_arrays(self, values):
        """`__call__` for values that are all arrays (so none is static): the least
        Python before the jitted call, which is what a caller waits for."""
        run = self.jitted.get(())
        if run is None or self.externals or self.watched or not _x64():
            return self(values)
        try:
            out, stopped = run(*values)
        except Exception as exc:
            self._raise(exc)
        if stopped:
            self._check_bounds((), stopped)
        return self._zeros_kept(out, values)

    def _raise(self, exc):
        """Raise ``exc`` from a trace of the generated code as the refusal it means."""
        if _from_read(exc.__traceback__):
            raise exc.with_traceback(None)   # reading the user's object failed: theirs
        if _from_read(exc.__traceback__, inplace.raise_cast_error):
            raise exc.with_traceback(None)   # x op= v NumPy refuses: the user's error
        if isinstance(exc, errors.RevsrcError):
            if exc.filename is None:
                raise self._located(exc) from None
            raise exc
        refusal = self._refusal(exc)
        if refusal is None:
            raise exc
        raise refusal from exc

    def _check_bounds(self, static, stopped):
        """E604 if a while loop stopped at ``max_steps`` with its test still true (its
        floats are NaN then): once the program has run, not inside a caller's trace."""
        if any(isinstance(f, require().helpers.Tracer) for f in stopped):
            return          # inside a caller's jax.jit or vmap: the NaNs tell
        for site, flag in zip(self.bounded.get(static, ()), stopped):
            if bool(flag):
                raise errors.JaxStepsExceeded(
                    f"backend='jax': this while loop was still running after "
                    f"max_steps={self.max_steps} iterations, the bound of the values it "
                    "saves for the adjoint; its results are NaN",
                    loc=self.loop_locs.get(site),
                    hint="pass a larger max_steps= to grad/value_and_grad, or use "
                         "backend=None for this function")

    def _jit(self, static):
        J = require()
        fn, post, n = self.fn, self.post, self.nparams
        loops = J.loops

        def traced(*args):
            args = tuple(a.value if isinstance(a, _Static) else a for a in args)
            bounds = loops.LoopState(self.max_steps, self.memory)
            loops.states().append(bounds)
            reads = []
            state.recording().append(reads)
            try:
                out = post(fn(*args), args[:n])
            finally:
                loops.states().pop()
                state.recording().pop()
            self._check_size(loops.trace_size(out))
            self.bounded[static] = tuple(site for site, _ in bounds.overflows)
            if reads:
                self.watched.setdefault(static, []).extend(reads)
            return out, tuple(flag for _, flag in bounds.overflows)
        traced.__name__ = self.program.name
        return J.jax.jit(traced, static_argnums=static)

    def _check_size(self, size):
        """E605 for a trace too large to compile (its unrolled loops), before XLA
        spends minutes and gigabytes on it."""
        limit = require().loops.MAX_TRACE
        if size is None or size <= limit:
            return
        # at the outermost loop (the first line of the loops of its file), which
        # multiplies the others
        fors = [loc for what, loc in self.line_locs.values() if what == "for" and loc]
        loc = min((x for x in fors if x.filename == fors[0].filename),
                  key=lambda x: x.lineno) if fors else None
        raise errors.JaxTraceTooLarge(
            f"backend='jax': this program traces to {size} operations, over the "
            f"{limit} that XLA compiles in reasonable time and memory; its Python loops "
            "unroll (a loop of fewer than 32 iterations, or one whose body uses its "
            "loop variable as a Python int, as in a[i] += ..., is traced once per "
            "iteration, and nested loops multiply)", loc=loc,
            hint="use backend=None for this function, or write the inner loops with "
                 "array operations (np.where, broadcasting) instead of per-item "
                 "Python loops")

    def _where(self, tb):
        """(what, Loc) of the innermost line of the generated code in traceback ``tb``."""
        found = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                found = tb.tb_lineno - 2   # the factory's def line, and 0-based
            tb = tb.tb_next
        if found is None:
            return None
        return self.line_locs.get(found, ("op", None))

    def _located(self, exc):
        where = self._where(exc.__traceback__)
        if where is None or where[1] is None:
            return exc
        return type(exc)(exc.message, loc=where[1], hint=exc.hint)

    def _refusal(self, exc):
        """The coded refusal for a trace that stopped at the generated code, or None."""
        J = require()
        jax_errors = (J.jax.errors.ConcretizationTypeError,
                      J.jax.errors.TracerArrayConversionError,
                      J.jax.errors.TracerBoolConversionError,
                      J.jax.errors.TracerIntegerConversionError,
                      J.jax.errors.NonConcreteBooleanIndexError)
        if isinstance(exc, OverflowError):
            where = self._where(exc.__traceback__)
            return errors.JaxNotLowered(
                "backend='jax' computes ints in 64 bits, and a Python int here does not "
                "fit in them", loc=where[1] if where else None,
                hint="use backend=None for this function (Python ints have no limit)")
        if not isinstance(exc, jax_errors + (AttributeError, NotImplementedError, TypeError,
                                             ValueError, IndexError)):
            return None
        where = self._where(exc.__traceback__)
        if where is None:
            return None
        what, loc = where
        if what == "if":
            return errors.JaxDataDependent(
                "backend='jax' compiles the derivative with jax.jit, and this is a "
                "branch on a value computed from the differentiated arguments that "
                "cannot run as a select of both arms (it leaves a loop, raises, "
                "changes a list in place, or, in reverse mode over a derivative, both "
                "saves and restores values)", loc=loc,
                hint="use backend=None for this function, write the branch as "
                     "np.where(cond, a, b), or take second derivatives forward over "
                     "reverse (revsrc.hessian, revsrc.jacfwd of the gradient)")
        if what in ("while", "for"):
            control = "while loop" if what == "while" else "loop"
            return errors.JaxDataDependent(
                f"backend='jax' compiles the derivative with jax.jit, and this "
                f"{control} on a value computed from the differentiated arguments "
                f"cannot run as a lax loop ({type(exc).__name__}: "
                f"{(str(exc).strip().splitlines() or [''])[0][:160]})", loc=loc,
                hint="use backend=None for this function")
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, IndexError) and "static" in first:
            return errors.JaxNotLowered(
                "backend='jax': a slice bound here is a traced value (jax.jit traces "
                "array arguments, an integer array's items too), and jax.numpy slices "
                "only by Python ints", loc=loc,
                hint="pass such bounds as Python ints (a tuple of them, not an array), "
                     "or use backend=None for this function")
        return errors.JaxNotLowered(
            f"backend='jax': this operation has no jax.numpy lowering for these "
            f"values ({type(exc).__name__}: {first[:160]})", loc=loc,
            hint="use backend=None for this function")


def _from_read(tb, fn=None):
    """Whether traceback ``tb`` ends in `state.read` (or ``fn``): a read of Python state
    that failed at the call, raised where the program reads it."""
    code = (fn or state.read).__code__
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return True
        tb = tb.tb_next
    return False


class _Static:
    """A static argument that is not hashable (a list of ints, a dict of flags), compared
    and hashed by its contents, so jax.jit traces again when they change."""
    __slots__ = ("value", "_key")

    def __init__(self, value):
        self.value = value
        self._key = state.freeze(value)

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, _Static) and type(other.value) is type(self.value) \
            and self._key == other._key


def _hashable(v):
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _x64():
    return loaded().jax.config.jax_enable_x64


def _traced(v):
    """Whether ``v`` is passed to jax.jit as a traced value: floats, complex numbers,
    arrays (NumPy's, JAX's, tracers), and lists, tuples and dicts of them."""
    if isinstance(v, (bool, np.bool_, int, np.integer, str)) or v is None:
        return False
    if isinstance(v, (float, complex, np.floating, np.complexfloating, np.ndarray)):
        return True
    J = require()
    if isinstance(v, J.jax.Array):
        return True
    if isinstance(v, (list, tuple)):
        return len(v) > 0 and all(_traced(i) for i in v)
    if isinstance(v, dict):
        return len(v) > 0 and all(_traced(i) for i in v.values())
    return False


def signature(v):
    """`kinds.signature`, with JAX arrays (and tracers) as arrays of their rank."""
    if type(v) is np.ndarray:     # the common case first: this runs at every call
        return (kinds.ARRAY, v.ndim, v.dtype)
    if type(v) is ARRAY_TYPE[0]:  # a JAX array: its aval is one attribute read, where
        aval = v.aval              # .ndim and .dtype are properties that build it
        return (kinds.ARRAY, len(aval.shape), aval.dtype)
    if type(v) in TRACED_TYPES and type(v) is not float and type(v) is not np.ndarray:
        return (kinds.ARRAY, v.ndim, v.dtype)   # a JAX array (its dtype is NumPy's)
    k = kinds.signature(v)
    J = loaded()
    if k == kinds.ANY and J is not None and isinstance(v, J.jax.Array):
        return (kinds.ARRAY, v.ndim, np.dtype(v.dtype))
    return k


def array_key(values):
    """The signatures of ``values`` when every one is an array (NumPy's or JAX's),
    else None: the key of a call that can go straight to the jitted program."""
    jax_array = ARRAY_TYPE[0]
    out = []
    for v in values:
        t = type(v)
        if t is np.ndarray:
            out.append((kinds.ARRAY, v.ndim, v.dtype))
        elif t is jax_array:
            aval = v.aval
            out.append((kinds.ARRAY, len(aval.shape), aval.dtype))
        else:
            return None
    return tuple(out)


# ----- What the jitted function returns -----

def grad_post(argnums, with_value, has_aux, refuse_complex=None):
    """Inside the jit: the value (if wanted), each gradient as its argument's shape and
    dtype, and aux. ``refuse_complex``: what makes the refusal to raise, as it traces,
    for a complex value (grad without holomorphic=True), or None."""
    J = require()
    finalize = J.helpers.finalize_grad
    n = len(argnums)

    def post(outs, args):
        if refuse_complex is not None and outs[0] is not None and \
                J.jnp.iscomplexobj(outs[0]):
            raise refuse_complex()
        grads = tuple(finalize(g, args[a]) for g, a in zip(outs[1:1 + n], argnums))
        value = outs[0] if with_value else None
        aux = outs[1 + n] if has_aux else None
        return (value,) + grads + ((aux,) if has_aux else ())
    return post


def jvp_post(has_aux):
    """Inside the jit: the value, its tangent shaped like it, and aux."""
    J = require()
    jnp = J.jnp

    def post(outs, args):
        out, t = outs[0], outs[1]
        return (out, _tangent_like(jnp, t, out)) + ((outs[2],) if has_aux else ())
    return post


def _tangent_like(jnp, t, out):
    """The tangent ``t`` shaped like the value ``out``, leaf by leaf through tuples,
    lists and dicts (a gradient of a dict argument is a dict)."""
    if t is None:
        return None
    if isinstance(out, dict) and isinstance(t, dict):
        return {k: _tangent_like(jnp, t.get(k), v) for k, v in out.items()}
    if isinstance(out, (tuple, list)):
        return type(out)(_tangent_like(jnp, u, o) for u, o in zip(t, out))
    dt = jnp.result_type(out)
    t = jnp.asarray(t, dtype=dt if dt.kind in "fc" else None)
    return jnp.broadcast_to(t, jnp.shape(out)) if jnp.shape(t) != jnp.shape(out) else t
