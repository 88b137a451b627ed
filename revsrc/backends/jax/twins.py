"""jax.numpy twins of the runtime helpers that generated code calls (``backend="jax"``).

Imported only by revsrc/backends/jax/printer.py, once JAX is known to be installed.

Two kinds of twin:

- *Rebound*: a helper module's own source run over jax.numpy. `rebound` makes a copy of
  a module's functions whose global ``np`` is `np_like` (jax.numpy under NumPy's names),
  so ``_reductions.mean_grad`` runs the same lines on traced arrays. One source, two
  namespaces: a helper's branches on shapes, axes and dtypes are static under
  ``jax.jit``; a helper that branches on values or writes in place stops the trace
  with JAX's error, which jaxgen turns into a coded refusal (E603). The rule table's
  test (tests/test_jax_backend.py) checks every rebound helper against NumPy's.
- *Written*: helpers whose NumPy form writes in place or calls a compiled kernel
  (``index_add``, the fused adjoints, ``zero_at``...) are written here with ``.at[]``
  and jnp expressions, the NumPy expression they replace as their reference.
"""
from __future__ import annotations

import contextlib
import functools
import numbers
import sys
import types

import jax
import jax.numpy as jnp
import numpy as np

from ... import errors, runtime
from . import argument_twins, inplace_twins, quantile_twins, scipy_twins
from .carry import Unset
from .pieces import pieces
from ...runtime import (arith, containers, forward_grads, guards, ieee, inplace, tensor,
                        transpose_grads, values)
from ...runtime.grads import (calculus as _calculus, common as _common,
                              elementwise as _elementwise, fft as _fft, indexing as _indexing,
                              linalg as _linalg, reductions as _reductions, shape as _shape)
from ...runtime import attempts, batched, dropped, smallarr, vectorized, vmap_grads
from ...runtime import checkpoint as _checkpoint
from ...runtime.grads import (mathfuncs as _mathfuncs, quantiles as _quantiles,
                              scipy_linalg as _scipy_linalg, spectral as _spectral)

Tracer = jax.core.Tracer


# ----- NumPy's names over jax.numpy -----

def _holds_traced(v):
    if isinstance(v, (jax.Array, Tracer)):
        return True
    if isinstance(v, (list, tuple)):
        return any(_holds_traced(i) for i in v)
    return False


class _Either:
    """A NumPy function and its jnp twin: NumPy's runs when no argument holds a JAX
    value (shapes, axes and sizes stay concrete Python and NumPy values while tracing,
    with NumPy's own results), jnp's otherwise; a list or tuple argument is the array it
    stands for, as in NumPy."""
    __slots__ = ("np_fn", "jnp_fn", "__name__")

    def __init__(self, np_fn, jnp_fn):
        self.np_fn = np_fn
        self.jnp_fn = jnp_fn
        self.__name__ = getattr(np_fn, "__name__", "fn")

    def __call__(self, *args, **kwargs):
        if not (any(_holds_traced(a) for a in args) or
                any(_holds_traced(v) for v in kwargs.values())):
            return self.np_fn(*args, **kwargs)
        if self.jnp_fn is None:
            raise NotImplementedError(f"jax.numpy has no {self.__name__}")
        if args and isinstance(args[0], (list, tuple)) and self.__name__ not in SEQUENCES:
            args = (jnp.asarray(args[0]),) + args[1:]
        if "kind" in kwargs and self.__name__ in ("sort", "argsort"):
            kwargs["stable"] = kwargs.pop("kind") == "stable"
        return self.jnp_fn(*args, **kwargs)

    def __getattr__(self, name):   # np.add.outer, np.maximum.accumulate
        return _Either(getattr(self.np_fn, name), getattr(self.jnp_fn, name, None))


# functions that take sequences of arrays as NumPy does
SEQUENCES = {"array", "asarray", "concatenate", "stack", "hstack", "vstack", "dstack",
              "column_stack", "block", "einsum", "select", "broadcast_arrays",
              "broadcast_shapes", "result_type", "zeros",
              "ones", "full", "empty", "iscomplexobj", "isscalar"}


def _either_namespace(np_mod, jnp_mod, name):
    ns = types.ModuleType(name, f"{np_mod.__name__} or {jnp_mod.__name__}, per argument.")
    for attr in dir(np_mod):
        if attr.startswith("__"):
            continue
        value = getattr(np_mod, attr)
        if callable(value) and not isinstance(value, type):
            setattr(ns, attr, _Either(value, getattr(jnp_mod, attr, None)))
        else:
            setattr(ns, attr, value)   # constants, dtypes and scalar types: NumPy's
    return ns


def _np_like():
    ns = _either_namespace(np, jnp, "revsrc.np_or_jnp")
    ns.ndarray = (np.ndarray, jax.Array)   # for isinstance: either is an array
    ns.errstate = lambda **kw: contextlib.nullcontext()
    ns.linalg = _either_namespace(np.linalg, jnp.linalg, "revsrc.np_or_jnp.linalg")
    # eigh and eigvalsh read one triangle (UPLO), as NumPy's do (jnp's would average)
    for name in ("eigh", "eigvalsh"):
        setattr(ns.linalg, name, _Either(getattr(np.linalg, name), functools.partial(
            getattr(jnp.linalg, name), symmetrize_input=False)))
    ns.fft = _either_namespace(np.fft, jnp.fft, "revsrc.np_or_jnp.fft")
    return ns


np_like = _np_like()


_REBOUND = {}


def rebound(module, overrides=None):
    """A namespace with ``module``'s functions, their global ``np`` being `np_like`
    and their references to other revsrc modules (and to the functions imported from
    them) rebound the same way."""
    hit = _REBOUND.get(module)
    if hit is not None:
        return hit
    ns = types.ModuleType(module.__name__ + "_jnp")
    _REBOUND[module] = ns
    env = dict(vars(module))
    env["np"] = np_like
    done = {}

    def globals_of(fn):
        """The globals ``fn`` runs with: ``env`` for this module's own code; for a
        wrapper made by another module's decorator, that module's rebound globals."""
        if fn.__globals__ is vars(module):
            return env
        home = sys.modules.get(fn.__globals__.get("__name__"))
        return fn.__globals__ if _TWINS.get(home) is None else twin_module(home).__dict__

    def again(fn):
        """``fn`` with rebound globals; a decorated helper's wrapped function too."""
        hit = done.get(id(fn))
        if hit is not None:
            return hit
        closure = fn.__closure__
        if closure:
            closure = tuple(
                types.CellType(again(c.cell_contents))
                if isinstance(c.cell_contents, types.FunctionType)
                and c.cell_contents.__module__ == module.__name__ else c
                for c in closure)
        new = types.FunctionType(fn.__code__, globals_of(fn), fn.__name__, fn.__defaults__,
                                 closure)
        new.__kwdefaults__ = fn.__kwdefaults__
        new.__qualname__ = fn.__qualname__
        new.__doc__ = fn.__doc__
        done[id(fn)] = new
        return new

    for name, value in list(env.items()):
        if isinstance(value, types.ModuleType) and value is not module \
                and _TWINS.get(value) is not None:
            env[name] = twin_module(value)
        elif isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            env[name] = again(value)
        elif isinstance(value, types.FunctionType):
            home = sys.modules.get(value.__module__)
            if home is not module and _TWINS.get(home) is not None:
                env[name] = getattr(twin_module(home), value.__name__)  # imported by name
    for name in overrides or {}:
        if name in env:
            env["_rebound_" + name] = env[name]
    env.update(overrides or {})
    ns.__dict__.update(env)
    return ns


# ----- Written twins: revsrc/runtime/tensor.py -----

def sum_to_shape(g, shape):
    """jnp: sum `g` back to `shape` (NumPy's: revsrc.runtime.tensor.sum_to_shape)."""
    gshape = jnp.shape(g)
    shape = tuple(shape)
    if gshape == shape or gshape == ():
        return g
    lead = len(gshape) - len(shape)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(shape, gshape[lead:])):
        if jnp.broadcast_shapes(gshape, shape) == shape:
            # the product of a 0.0 placeholder adjoint, not yet of full shape (NumPy's
            # twin checks it is zero; a nonzero one would be a bug there)
            return jnp.broadcast_to(g, shape)
        raise ValueError(f"sum_to_shape: cannot sum shape {gshape} to {shape}")
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and gshape[lead + i] != 1)
    summed = jnp.sum(g, axis=axes) if axes else g
    return jnp.reshape(summed, shape)


def unbroadcast(g, x):
    """jnp: sum_to_shape(g, shape(x)); a number stays a number."""
    if isinstance(x, numbers.Number) and not isinstance(x, np.generic):
        return jnp.sum(g) if jnp.ndim(g) else g
    return sum_to_shape(g, jnp.shape(x))


def index_add(g, shape, dtype, index):
    """jnp: zeros of `shape` with `g` added at `index` (repeated indices accumulate)."""
    return jnp.zeros(shape, dtype).at[inplace_twins.as_index(index)].add(g)


def tanh_vjp(g, ans):
    return g * (1.0 - ans * ans)


def relu_vjp(g, x):
    return jnp.where(jnp.greater(x, 0), g, jnp.where(jnp.equal(x, 0), g * 0.5, jnp.zeros_like(g)))


def sigmoid_vjp(g, ans):
    return g * ans * (1.0 - ans)


def logaddexp_vjp(g, x, y):
    return g / (1.0 + jnp.exp(y - x))


# ----- Written twins: revsrc/runtime/__init__.py -----

def _float_dtype(x):
    dt = jnp.result_type(x)
    return dt if dt.kind in "fc" else jnp.result_type(float)


def finalize_grad(g, x):
    """The gradient ``g`` as a JAX array of ``x``'s shape and (float) dtype."""
    out = jnp.asarray(g, dtype=_float_dtype(x))
    if jnp.shape(out) != jnp.shape(x):
        out = jnp.broadcast_to(out, jnp.shape(x))
    return out


def zeros_like(x):
    if isinstance(x, Unset):
        # the zero adjoint of a variable a traced branch left unassigned (a helper's
        # return value before its early return): never read, as the variable itself
        # is not; the branch's select takes the other arm's
        return x
    return jnp.zeros(jnp.shape(x), _float_dtype(x))


def zero_tangent(x):
    if isinstance(x, (tuple, list)):
        return type(x)(zero_tangent(i) for i in x)
    if isinstance(x, (jax.Array, np.ndarray)):
        return zeros_like(x)
    return 0.0


def broadcast_like(t, ans):
    return jnp.broadcast_to(t, jnp.shape(ans))


def expand_zero(g, like):
    shape = jnp.shape(like)
    if jnp.shape(g) == shape:
        return g
    if isinstance(g, Tracer):
        _refuse("a zero adjoint whose zeroness is computed at run time")
    if not np.any(g):
        return jnp.zeros(shape, _float_dtype(like))
    return g


take_grad = inplace_twins.take_grad
# what the printer calls for an item assignment and an index of integer arrays
set_at, as_index = inplace_twins.set_at, inplace_twins.as_index


def r_(items):
    return jnp.r_[tuple(items)]


def c_(items):
    return jnp.c_[tuple(items)]


def index_concat_grad(g, items, which):
    """grads.shape.index_concat_grad with a gather in place of np.add.at: where each
    element went is worked out from the items' shapes (static while tracing)."""
    if any(isinstance(it, str) for it in items):
        _refuse(f"np.{which}_ with a directive string")
    ids, bases = _shape.index_concat_layout(items, which)
    flat = jnp.ravel(g)
    grads = []
    for it, b in zip(items, bases):
        if b is None:
            grads.append(0.0)
            continue
        size = int(np.size(it))
        where = np.nonzero((ids >= b) & (ids < b + size))[0]
        out = jnp.zeros(size, dtype=flat.dtype).at[ids[where] - b].add(flat[where])
        grads.append(_as_adjoint(jnp.reshape(out, np.shape(it)), it))
    return pieces(grads)


def zero_at(g, index):
    if jnp.ndim(g) == 0:
        items = index if type(index) is tuple else (index,)
        if all(i is Ellipsis for i in items):
            return g * 0.0    # a 0-d array written whole: nothing old is left
        if isinstance(g, Tracer) or g != 0:
            _refuse("a scalar adjoint reaching an item assignment")
        return g
    return jnp.asarray(g).at[inplace_twins.as_index(index)].set(0)


def copy_item(x, index):
    return x[inplace_twins.as_index(index)]  # arrays are values: nothing changes it


def check_scalar_output(value, loc=None, complex_ok=False):
    if isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, bool):
        return
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape == () and dtype is not None and \
            np.dtype(dtype).kind in ("fiuc" if complex_ok else "fiu"):
        return
    if isinstance(value, complex) and complex_ok:
        return
    if shape == () and dtype is not None and np.dtype(dtype).kind == "c" or \
            isinstance(value, complex):
        raise runtime.complex_output(loc)
    what = f"an array of shape {shape}" if shape is not None else type(value).__name__
    raise errors.NonScalarOutput(
        f"the function returned {what}; grad needs a scalar float output", loc=loc,
        hint="reduce it first (np.sum, np.mean), or differentiate one element")


def check_immutable(value, loc=None, what=None):
    if isinstance(value, (jax.Array, np.ndarray, list, dict)):   # a number is a jax.Array here
        kind = "number or array" if isinstance(value, jax.Array) else type(value).__name__
        raise errors.UnfollowableWrite(what or f"this changes a {kind} in place, which revsrc "
            "could not follow here (its kind was not known before the call)", loc=loc,
            hint="write x = x + y (a new value), or make x a local copy")


def float_argument(value, loc=None):
    # a traced float64 number is what a float is under jax.jit
    if isinstance(value, (jax.Array, Tracer)) and jnp.ndim(value) == 0 and \
            jnp.result_type(value) == jnp.float64:
        return value
    return runtime.float_argument(value, loc)


def check_view(view, base, loc=None):
    _refuse("a write through a view (reshape/ravel view or copy, which JAX arrays "
            "cannot tell)", loc=loc, hint="write into the source array directly")


def take(x, index):
    return x[inplace_twins.as_index(index)]


def accumulate(acc, t):
    return acc + t


def jvp_via_vjp(*args, **kwargs):
    _refuse("a forward-mode tangent computed from a reverse rule element by element "
            "(a primitive with no forward rule)")


# ----- Written twins: revsrc/runtime/values.py and revsrc/runtime/grads/ -----

def _batched_contraction(g, other, other_last):
    """For a 2-D operand of a batched ``a @ b``: the batch axes and one matrix axis of
    ``g`` and ``other`` contracted in one dot (XLA's form; NumPy's twin multiplies per
    batch and sums after), or None for any other layout."""
    nb = jnp.ndim(other) - 2
    if nb < 1 or jnp.ndim(g) != jnp.ndim(other) or jnp.shape(g)[:nb] != jnp.shape(other)[:nb]:
        return None
    batch = list(range(nb))
    g_axis = nb + 1 if other_last else nb
    o_axis = nb + 1 if other_last else nb
    return jnp.tensordot(g, other, axes=(batch + [g_axis], batch + [o_axis]))


def matmul_grad_a(g, a, b):
    """jnp: the adjoint of a @ b for a 2-D ``a`` and a batched ``b``, as one dot;
    otherwise the NumPy helper's own source (`rebound`)."""
    if jnp.ndim(a) == 2 and not isinstance(g, numbers.Number):
        ga = _batched_contraction(g, b, other_last=True)
        if ga is not None:
            return _as_adjoint(ga, a)
    return _original(_linalg, "matmul_grad_a")(g, a, b)


def matmul_grad_b(g, a, b):
    """jnp: the adjoint of a @ b for a 2-D ``b`` and a batched ``a``, as one dot."""
    if jnp.ndim(b) == 2 and not isinstance(g, numbers.Number):
        gb = _batched_contraction(a, g, other_last=False)
        if gb is not None:
            return _as_adjoint(gb, b)
    return _original(_linalg, "matmul_grad_b")(g, a, b)


def sort_grad(g, a, axis=-1):
    """jnp: the adjoint of np.sort, a permutation (NumPy's writes in place)."""
    if isinstance(a, (list, tuple)) or jnp.iscomplexobj(a):
        return _original(_indexing, "sort_grad")(g, a, axis)
    dt = _float_dtype(a)
    if axis is None:
        order = jnp.argsort(jnp.ravel(a), stable=True)
        out = jnp.zeros(jnp.size(a), dt).at[order].set(g)
        return jnp.reshape(out, jnp.shape(a))
    order = jnp.argsort(a, axis=axis, stable=True)
    return jnp.put_along_axis(jnp.zeros(jnp.shape(a), dt), order, g, axis=axis, inplace=False)


def prod_grad(g, ans, a, axis=None, keepdims=False):
    """jnp: d prod / d a_i. NumPy's twin branches on whether ``a`` has a zero; both
    of its forms are computed here and one is selected, so each gives NumPy's value."""
    a = jnp.asarray(a)
    if a.ndim == 0:
        return g
    if a.size == 0:         # nothing to spread the adjoint over (the product was 1)
        return jnp.zeros(a.shape, jnp.result_type(g, a))
    helpers = twin_module(_reductions)
    axes = helpers.reduced_axes(axis, a.ndim)
    ge = helpers.expand_reduced(g, a, axis, keepdims)
    anse = helpers.expand_reduced(ans, a, axis, keepdims)
    rest = [i for i in range(a.ndim) if i not in axes]
    moved = jnp.transpose(a, rest + list(axes))
    flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
    ones = jnp.ones(flat.shape[:-1] + (1,), dtype=flat.dtype)
    before = jnp.cumprod(jnp.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = jnp.flip(jnp.cumprod(jnp.flip(jnp.concatenate([flat[..., 1:], ones], axis=-1),
                                          axis=-1), axis=-1), axis=-1)
    others = (before * after).reshape(moved.shape)
    others = jnp.transpose(others, np.argsort(rest + list(axes)))
    no_zero = jnp.all(a != 0)
    safe = jnp.where(no_zero, a, 1)
    return jnp.where(no_zero, ge * anse / safe, ge * others)


def _as_adjoint(grad, x):
    """As NumPy's helpers give it: a real input's adjoint real, in its dtype."""
    if jnp.iscomplexobj(grad) and not jnp.iscomplexobj(x):
        grad = jnp.real(grad)
    dt = _float_dtype(x)
    return grad if grad.dtype == dt else grad.astype(dt)


def _refuse(what, loc=None, hint=None):
    raise errors.JaxNotLowered(
        f"backend='jax' has no jax.numpy lowering for {what}", loc=loc,
        hint=hint or "use backend=None or 'python' for this function")


_TENSOR = {f.__name__: f for f in (sum_to_shape, unbroadcast, index_add, tanh_vjp,
                                   relu_vjp, sigmoid_vjp, logaddexp_vjp)}
_RUNTIME = {f.__name__: f for f in (finalize_grad, zeros_like, zero_tangent, broadcast_like,
                                    expand_zero, take_grad, zero_at, copy_item,
                                    check_scalar_output, check_immutable, check_view, take,
                                    float_argument,
                                    accumulate, jvp_via_vjp, unbroadcast, r_, c_)}
_RUNTIME["run_pooled"] = lambda fn, args: fn(*args)
_RUNTIME["view_back"] = inplace_twins.view_back
_RUNTIME["stored_derivative"] = inplace_twins.stored_derivative

def as_items(g, seq):
    """jnp: ``g`` in the form of the sequence it is the adjoint of; an array's adjoint is
    an array (NumPy's, revsrc.runtime.containers.as_items, fills one item by item)."""
    if isinstance(seq, (np.ndarray, jax.Array, Tracer)) and np.ndim(g) != 0:
        dt = _float_dtype(seq)
        return jnp.reshape(jnp.stack([jnp.asarray(x, dt) for x in g]), jnp.shape(seq))
    return g


# ----- The twin table of each run-time module -----

# module -> {name: written twin} (the rest of the module rebound over jax.numpy), or
# None: the module has no jnp lowering, and a call to it is refused (E603). Keyed by
# the module object, so a module that moves keeps its table (and one that is new must
# be given one: tests/test_jax_backend.py checks every module of revsrc.runtime).
_TWINS = {}


def register_twins(module, twins):
    """Give the run-time ``module`` its written twins (a dict, maybe empty), or None
    for no jnp lowering at all. Each twin replaces a function of ``module`` by name: a
    name the module does not have (its function moved) is an error here, not a twin
    that silently replaces nothing."""
    strays = [name for name in twins or () if not callable(getattr(module, name, None))]
    if strays:
        raise AssertionError(f"{module.__name__} has no {', '.join(strays)} to twin")
    _TWINS[module] = None if twins is None else dict(twins)


def registered(module):
    """Whether ``module`` has been given its twin table (empty or None included)."""
    return module in _TWINS


register_twins(tensor, _TENSOR)
register_twins(runtime, _RUNTIME)
register_twins(values, {"pieces": pieces})
register_twins(_common, {})
register_twins(_reductions, {"prod_grad": prod_grad})
# math.hypot of other than two coordinates: jnp's (the Python back end keeps math's digits)
register_twins(_elementwise, {
    "hypot_of": lambda xs: jnp.sqrt(sum(jnp.square(x) for x in xs)) if len(xs) else 0.0,
    "hypot_of_grad": lambda g, xs, ans: pieces([g * (x / ans) for x in xs]),
    "hypot_of_tangent": lambda t, xs, ans: 0.0 * t if np.ndim(t) == 0 and not isinstance(
        t, (list, tuple, np.ndarray)) else sum(ti * (x / ans) for ti, x in zip(t, xs))})
register_twins(_calculus, {})
register_twins(_fft, {})
register_twins(_linalg, {"matmul_grad_a": matmul_grad_a, "matmul_grad_b": matmul_grad_b})
register_twins(_spectral, {})
register_twins(_shape, {"index_concat_grad": index_concat_grad})
register_twins(_indexing, {"sort_grad": sort_grad})
# IEEE derivative code on numbers: jnp's operations are IEEE already
register_twins(ieee, {"div": jnp.divide, "pow": jnp.power, "log": jnp.log, "where": jnp.where})
# lists, tuples and dicts are Python values under jax.jit too
register_twins(containers, {"as_items": as_items})
# jnp arrays are never written in place: a tangent shares nothing to keep apart
register_twins(forward_grads, {"own_tangent": lambda t, ans: t, **inplace_twins.FORWARD,
                               "view_tangent": lambda t, ans, base, base_t, loc=None: t})
register_twins(transpose_grads, {})
register_twins(arith, {})
# raise, assert, f-strings and errstate blocks; NumPy's in-place functions as values
register_twins(guards, None)
register_twins(inplace, inplace_twins.TWINS)
# try statements' tests, np.vectorize's check, and batched programs (backend="jax"
# maps through jax.vmap): no jnp lowering
for _module in (attempts, vectorized, batched):
    register_twins(_module, None)
# the quantiles' adjoint: every quantile at once (NumPy's loops over them)
register_twins(_quantiles, quantile_twins.TWINS)
# the gamma functions' adjoints: digamma is JAX's (NumPy's twin is a loop on a float)
register_twins(_mathfuncs, {"digamma": jax.scipy.special.digamma,
                             "trigamma": lambda x: jax.scipy.special.polygamma(1, x)})


# SciPy's solves and expm in the adjoints: jax.scipy.linalg's, with the same arguments
register_twins(_scipy_linalg, scipy_twins.TWINS)
# checkpointed loops' sizes: memory= does not apply to backend='jax'
register_twins(_checkpoint, None)
# small-array loops run compiled: only the Python back end's programs call it
register_twins(smallarr, None)
# a revsrc.vmap'd function called inside: its adjoint maps revsrc's own derivative (no
# jnp lowering: backend="jax" refuses the call, E603)
register_twins(vmap_grads, None)
# adjoints marked with their structural zeros (the branch np.where did not choose):
# generated code never calls it; under jax.jit the zero times a nan is nan, as in JAX
register_twins(dropped, None)


def _original(module, name):
    """``module``'s rebound function ``name`` that a written twin replaces, for the twins
    that fall back to it."""
    return twin_module(module).__dict__["_rebound_" + name]


def twin_module(module):
    """The jnp namespace standing for the revsrc ``module`` in generated jnp code."""
    return rebound(module, _TWINS.get(module))


def twin_of(fn):
    """The jnp twin of a revsrc function, or None."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    if _TWINS.get(module) is None:
        return None, None
    ns = twin_module(module)
    twin = getattr(ns, getattr(fn, "__name__", ""), None)
    return (ns, twin) if callable(twin) else (None, None)
