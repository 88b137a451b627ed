"""Small helpers the generated adjoint calls for arrays (never on the scalar path),
and `is_helper`: which functions are the run time's."""
from __future__ import annotations

import math
import os

import numpy as np

from .. import _kernels, errors
from . import guards, tensor, values
from ..core import ir, kinds

# REVSRC_POOL=0 turns the memory pool off (for A/B measurements, or a process that
# wants every freed block back in the C allocator at once).
_POOL = os.environ.get("REVSRC_POOL", "1") != "0"


def is_helper(fn):
    """Whether ``fn`` is one of revsrc's own functions that generated code calls as it
    is: the run time's (this package and revsrc._kernels) and the IR's operations
    (revsrc.core.ir: copy, make_tuple...). Such a function is printed by its module,
    never inlined from source, and, met in a derivative differentiated again, is a
    derivative's helper (E104) rather than a user's function with no rule (E202).
    The one test of it: passes and back ends ask here, not a module's name."""
    module = getattr(fn, "__module__", None) or ""
    return module in _HOMES or module.startswith(_INSIDE)


_HOMES = frozenset({__name__, _kernels.__name__, ir.__name__})
_INSIDE = __name__ + "."

# What the user wrote that a helper of revsrc's stands for, in refusals (E104, E502):
# the IR's operations by the Python that makes them, the derivatives of NumPy's
# functions by those functions
_WRITTEN = {"make_list": "a list built in the function",
            "make_tuple": "a tuple built in the function",
            "make_dict": "a dict built in the function",
            "make_node": "a container built in the function",
            "copy": "an assignment",
            "get_attribute": "reading an attribute",
            "call_method": "a method call"}
_SUFFIXES = ("_grad", "_vjp", "_jvp", "_back")


def described(fn):
    """What the user wrote that the run-time helper or IR operation ``fn`` stands for
    (``the derivative of np.prod`` for prod_grad), for messages that must not name
    revsrc's internals; a function that is not one of revsrc's by its own name."""
    name = getattr(fn, "__name__", None) or type(fn).__name__
    if not is_helper(fn):
        module = getattr(fn, "__module__", None)
        return f"{module}.{name}" if module and module != "builtins" else name
    if getattr(fn, "__module__", None) == ir.__name__:
        return _WRITTEN.get(name, "an operation of the function")
    module = getattr(fn, "__module__", None) or ""
    if module.endswith(".containers"):
        return "the derivative of reading or writing items of a list or dict"
    if module.endswith(".inplace"):
        return "the derivative of a write into an array in place (through an item or a view)"
    cut = min((name.find(s) for s in _SUFFIXES if s in name), default=-1)
    base = name[:cut] if cut > 0 else name
    if module.endswith("scipy_linalg"):
        return f"the derivative of scipy.linalg.{base}"
    if module.endswith(".special"):
        return f"the derivative of scipy.special.{base}"
    if module.endswith(".mathfuncs") and callable(getattr(math, base.split("_")[0], None)):
        return f"the derivative of math.{base.split('_')[0]}"   # math.prod, not np.prod
    for space, text in ((np, "np."), (np.linalg, "np.linalg."), (math, "math.")):
        if callable(getattr(space, base, None)):
            return f"the derivative of {text}{base}"
    if base in ("broadcast", "unbroadcast", "reduce_like", "broadcast_reduced"):
        return "the derivative of arrays of different shapes combined (broadcasting)"
    return "a step of the derivative revsrc wrote for this line"


# Sum an adjoint back to its input's shape (undoing NumPy broadcasting).
unbroadcast = tensor.unbroadcast


def finalize_grad(g, x):
    """The gradient ``g`` in the form of its argument ``x``: a float for a number, an
    array of ``x``'s shape and dtype for an array (what a derivative returns)."""
    if np.iscomplexobj(g) and not np.iscomplexobj(x):
        g = np.real(g)   # a real input's adjoint is real (the complex convention)
    if isinstance(x, np.ndarray):
        out = np.asarray(g, dtype=x.dtype)
        if out.shape != x.shape:
            out = np.broadcast_to(out, x.shape).copy()
        elif out is g and not isinstance(g, np.ndarray):
            out = out.copy()
        return out
    if isinstance(x, np.floating):
        return type(x)(g)
    return float(g)


# what a guard expects of a name that must stay unbound (revsrc/frontend/bindings.py)
UNBOUND = _kernels.UNBOUND


def deps_current(deps):
    """Whether every name a program took as fixed when it was made (ir.Program.deps:
    the functions it inlined, the objects it called, the globals it reads and their
    kinds) still holds what it held then (`_kernels.Guards`, kinds checked)."""
    return _kernels.Guards(deps).current(kinds.signature)


def zeros_like(x):
    """The zero adjoint of array ``x``: zeros of its shape, in its float dtype. A list
    of arrays where the analysis took an array (``np.split``'s pieces) gets one zero
    per item, as `zero_items` (np.asarray would stack the items)."""
    if isinstance(x, (list, tuple)):
        return values.zero_like(x)
    x = np.asarray(x)
    return np.zeros(x.shape, x.dtype if x.dtype.kind in "fc" else np.float64)


def zero_items(x):
    """The zero adjoint of a list or a tuple ``x``: one zero per item (nested), in
    the form of the adjoints rules give lists (an object array)."""
    return values.zero_like(x)


def zero_tangent(x):
    """A zero derivative for the value ``x``: 0.0 for a number, float zeros of its shape
    for an array, the same structure of zeros for a tuple or a list."""
    if isinstance(x, np.ndarray):
        return zeros_like(x)
    if isinstance(x, (tuple, list)):
        return type(x)(zero_tangent(i) for i in x)
    if isinstance(x, slice):   # an item of np.r_[...]: the range it stands for
        return np.zeros(np.shape(np.r_[x]))
    return 0.0


def add_tangents(a, b):
    """The sum of two derivatives of one value: item by item for a tuple or a list
    (``+`` would join them), None standing for a zero."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, (tuple, list)):
        return type(a)(add_tangents(x, y) for x, y in zip(a, b))
    return a + b


def broadcast_like(t, ans):
    """``t`` (a tangent) broadcast to the shape of ``ans`` (a read-only view)."""
    if type(t) is np.ndarray and type(ans) is np.ndarray and t.shape == ans.shape:
        out = t.view()      # already of the shape: broadcast_to's view, without its setup
        out.flags.writeable = False
        return out
    if type(t) is np.ndarray and type(ans) is np.ndarray and t.ndim <= ans.ndim:
        if t.ndim < ans.ndim:
            t = t.reshape((1,) * (ans.ndim - t.ndim) + t.shape)
        return tensor.broadcast_view(t, ans.shape)
    return np.broadcast_to(t, np.shape(ans))


def run_pooled(fn, args):
    """``fn(*args)`` with NumPy drawing array data from revsrc's memory pool.

    Large temporaries of a generated adjoint are freed and allocated again on every
    call; fresh pages cost a page fault each on first touch (the whole of the im2col
    convolution's time on the machines we measured). The pool keeps freed blocks for
    the next call, bounded (see ``revsrc._kernels.pool_set_limit``); the values are
    NumPy's, only their memory is reused. Arrays that outlive the call (the gradients
    returned) are ordinary arrays, and go back to the pool when they are freed.
    """
    if not _POOL:
        try:
            return fn(*args)
        finally:
            if guards.ENTERED:
                guards.restore_errstate()
    prev = _kernels.pool_enter()
    try:
        return fn(*args)
    finally:
        _kernels.pool_exit(prev)
        if guards.ENTERED:
            guards.restore_errstate()


_RESULTS_LIKE = {}      # (ufunc, operand dtypes, shapes) -> result_like's array


def result_like(fn, *args):
    """A read-only array of the shape and dtype ``fn(*args)`` has, without computing it:
    ``fn`` is a one-output ufunc, or np.sum / np.mean over a whole array (what
    revsrc.passes.prune puts in place of a value read only for its shape)."""
    if isinstance(fn, np.ufunc):
        dtypes = tuple(a.dtype if isinstance(a, (np.ndarray, np.generic)) else type(a)
                       for a in args)
        shapes = tuple(np.shape(a) for a in args)
        key = (fn, dtypes, shapes)
        out = _RESULTS_LIKE.get(key)
        if out is None:      # (a read-only view of one zero: shared by every call)
            dtype = fn.resolve_dtypes(dtypes + (None,))[-1]
            out = np.broadcast_to(np.zeros((), dtype), np.broadcast_shapes(*shapes))
            if len(_RESULTS_LIKE) >= 256:
                _RESULTS_LIKE.clear()
            _RESULTS_LIKE[key] = out
        return out
    x = np.asarray(args[0])
    out = np.asarray(fn(np.zeros(1, dtype=x.dtype)))
    out.flags.writeable = False
    return out


def expand_zero(g, like):
    """``g``, or zeros shaped like ``like`` when ``g`` is a zero adjoint that has not
    been broadcast to full shape yet (a 0.0 placeholder, or a product of one)."""
    shape = np.shape(like)
    if np.shape(g) == shape:
        return g
    if not np.any(g):
        dtype = like.dtype if isinstance(like, np.ndarray) and like.dtype.kind in "fc" \
            else np.float64
        return np.zeros(shape, dtype=dtype)
    return g


def take_grad(g, index):
    """``g[index]``, where a scalar ``g`` stands for an array of that value: the adjoint
    of the value written by ``x[index] = value``. Where an integer index repeats an
    element, NumPy keeps the last write, so only the last one gets the adjoint."""
    if np.ndim(g) == 0:
        if g == 0 or last_writes(None, index) is None:
            return g
        raise errors.UnfollowableWrite(
            "this assignment writes some elements more than once (a repeated index), "
            "and revsrc cannot tell here which write NumPy kept",
            hint="write each element once (np.unique the index), or use np.add.at")
    out = g[index]
    keep = last_writes(np.shape(g), index)
    if keep is not None:
        out = np.where(keep, out, np.zeros((), dtype=out.dtype))
    return out


def stored_derivative(d, dest):
    """The derivative ``d`` of a value written into ``dest`` (``dest[i] = v``): ``d``
    itself, or zero when ``dest`` holds integers or bools. NumPy truncates what it
    stores there (a step function of ``v``: derivative 0), and reads from such an
    array carry no derivative either. ``dest`` a float, complex or object array, or a
    list: ``d`` as it is (one dtype test). The dtype may be known only now (an array
    from np.empty_like(labels), an int literal), so the test is made here."""
    dt = getattr(dest, "dtype", None)
    if dt is None or dt.kind not in "biu":
        return d
    if isinstance(d, np.ndarray):
        return np.zeros_like(d)
    return 0.0


def _fancy(index):
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, list) or (isinstance(p, np.ndarray) and p.ndim > 0
                                       and p.dtype.kind in "iu") for p in parts)


def last_writes(shape, index):
    """For ``x[index] = value`` on an array of ``shape``: a boolean array of the shape
    of ``x[index]``, True where that element of ``value`` is the one NumPy leaves
    (the last write to its place); None when no place is written twice (no integer
    array in ``index``, or no repeat). ``shape`` None: only whether one may repeat."""
    if not _fancy(index):
        return None
    if shape is None:
        return True
    owner = np.full(shape, -1, dtype=np.intp)
    ids = np.arange(owner[index].size, dtype=np.intp).reshape(np.shape(owner[index]))
    owner[index] = ids
    keep = owner[index] == ids
    return None if keep.all() else keep


def _check_whole(index):
    items = index if type(index) is tuple else (index,)
    if not all(i is Ellipsis for i in items):
        raise AssertionError("a scalar adjoint reached an item assignment")


def zero_at(g, index):
    """A copy of ``g`` with ``g[index] = 0`` (``g`` itself is never changed)."""
    if np.ndim(g) == 0:
        if g == 0:
            return g
        # a 0-d array written whole (y[()] = v, y[...] = v): nothing of the old value
        # is left; any other index is refused by NumPy before the adjoint runs
        _check_whole(index)
        return g * 0.0
    out = np.array(g, copy=True)
    out[index] = 0
    return out


def copy_item(x, index):
    """The values ``x[index]`` holds now, copied (saved before an item assignment)."""
    return np.array(x[index], copy=True)


def check_scalar_output(value, loc=None, complex_ok=False):
    """Refuse a non-scalar output before the adjoint sweep runs on it, and a complex
    one unless ``complex_ok`` (grad's holomorphic=True)."""
    if isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, bool):
        return
    if isinstance(value, np.ndarray) and value.shape == () and \
            value.dtype.kind in ("fiuc" if complex_ok else "fiu"):
        return
    if isinstance(value, (complex, np.complexfloating)):
        if complex_ok:
            return
        raise complex_output(loc)
    shape = getattr(value, "shape", None)
    if shape == () and np.iscomplexobj(value):
        raise complex_output(loc)
    what = f"an array of shape {shape}" if shape is not None else type(value).__name__
    raise errors.NonScalarOutput(
        f"the function returned {what}; grad needs a scalar float output", loc=loc,
        hint="reduce it first (np.sum, np.mean), or differentiate one element")


def complex_output(loc=None):
    """The refusal of a complex output where grad needs a real one (as JAX's)."""
    return errors.NonScalarOutput(
        "the function returned a complex number; grad requires real-valued outputs",
        loc=loc, hint="take np.real or np.abs of it, or pass holomorphic=True for the "
                      "complex derivative of a holomorphic function")


def jvp_via_vjp(row_rule, i, broadcast, t, ans, *args, **kwargs):
    """J t for input ``i`` of a primitive with only a reverse rule: element by element
    of the output (of every item, for a tuple of outputs), each the adjoint of input
    ``i`` (``row_rule``: the rule's output ``i`` alone) for a unit adjoint of that
    element, r, as d(out) = Re(sum(r t)).

    In the complex convention of ``revsrc.rules`` an adjoint is d/d(re) - i d/d(im),
    so a complex output element takes two: 1 for its real part, -1j for its
    imaginary part."""
    items = list(ans) if isinstance(ans, tuple) else [ans]
    results = []
    for k, item in enumerate(items):
        item = np.asarray(item)
        is_complex = np.iscomplexobj(item)
        out = np.zeros(item.shape, dtype=np.complex128 if is_complex else np.float64)
        flat = out.reshape(-1)
        for j in range(item.size):
            for unit in ((1.0, -1j) if is_complex else (1.0,)):
                e = np.zeros(item.shape, dtype=item.dtype if is_complex else np.float64)
                e.reshape(-1)[j] = unit
                g = e if len(items) == 1 else tuple(
                    e if n == k else np.zeros(np.shape(x), dtype=np.result_type(x, 0.0))
                    for n, x in enumerate(items))
                row = row_rule(g, ans, *args, **kwargs)
                if row is None:
                    continue
                if broadcast:
                    row = tensor.unbroadcast(row, args[i])
                part = _real_inner(row, t)
                flat[j] += part if unit == 1.0 else 1j * part
        results.append(out if item.ndim else out[()])
    return tuple(results) if isinstance(ans, tuple) else results[0]


def _real_inner(row, t):
    """Re(sum(row t)), item by item where the input is a list or a tuple of arrays."""
    if isinstance(t, (list, tuple)):
        return sum(_real_inner(r, u) for r, u in zip(row, t) if r is not None)
    return np.sum(np.real(np.asarray(row) * np.asarray(t)))


def check_real_store(a, value, loc=None):
    """``a[i] = value`` with a complex number into a real array: NumPy refuses a
    Python complex (TypeError) and keeps only the real part of a NumPy one (with a
    ComplexWarning); either way it is not what the code says, and revsrc refuses it."""
    if isinstance(value, (complex, np.complexfloating)) and \
            np.asarray(a).dtype.kind not in "cO":
        raise errors.UnsupportedValue(
            "this stores a complex number into a real array: NumPy refuses a Python "
            "complex and keeps only the real part of a NumPy one", loc=loc,
            hint="store its real part (np.real(v)), or make the array complex "
                 "(dtype=complex)")


def float_argument(value, loc=None):
    """``value``, which a revsrc derivative called inside was inlined for as a float
    though the program could not tell its kind (an item of a global list): a Python or
    NumPy float64 when it runs, else refused here."""
    if type(value) is not float and type(value) is not np.float64:
        raise errors.HigherOrderNotSupported(
            "a revsrc derivative called inside was made for a float here, and this value "
            f"is a {type(value).__name__}", loc=loc,
            hint="pass floats (float(v)) or float arrays")
    return value


def check_immutable(value, loc=None, what=None):
    """``x op= y`` on a value of unknown kind runs as ``x = x op y``: right for a
    number, but an array (or a list) would be changed in place, where others see it."""
    if isinstance(value, (np.ndarray, list, dict)):
        raise errors.UnfollowableWrite(
            what or f"this changes a {type(value).__name__} in place, which revsrc could "
            "not follow here (its kind was not known before the call)", loc=loc,
            hint="write x = x + y (a new value), or make x a local copy")


def check_view(view, base, loc=None):
    """A write through ``view`` is written back into ``base``: only right if NumPy
    made ``view`` share ``base``'s memory (reshape and ravel copy when they must)."""
    if isinstance(view, np.ndarray) and isinstance(base, np.ndarray) and \
            np.shares_memory(view, base):
        return
    raise errors.UnfollowableWrite(
        "this writes into a value that NumPy copied here instead of viewing its source, "
        "so the source does not change; revsrc cannot tell which one the code meant",
        loc=loc, hint="write into the source array directly, or copy explicitly")


def view_back(new, base, fn, args=(), kwargs=()):
    """``new``, the new contents of the view ``fn(base, *args)``, laid out as ``base``:
    the inverse of the view's layout."""
    kw = dict(kwargs)
    if fn in (np.reshape, np.ravel, np.squeeze, np.expand_dims, np.atleast_1d,
              np.atleast_2d, np.atleast_3d):
        return np.reshape(new, np.shape(base))
    if fn is np.transpose:
        axes = args[0] if args else kw.get("axes")
        return np.transpose(new) if axes is None else np.transpose(new, np.argsort(axes))
    if fn is np.swapaxes:
        return np.swapaxes(new, *args)
    if fn is np.moveaxis:
        src, dst = (list(args) + [kw.get("source"), kw.get("destination")])[:2]
        return np.moveaxis(new, dst, src)
    if fn in (np.flip, np.fliplr, np.flipud):
        return fn(new, *args, **kw)
    if fn is np.rot90:
        k = args[0] if args else kw.get("k", 1)
        axes = args[1] if len(args) > 1 else kw.get("axes", (0, 1))
        return np.rot90(new, -k, axes)
    if fn in (np.diagonal, np.broadcast_to, np.diag):
        raise errors.UnfollowableWrite(
            f"a write through np.{fn.__name__}(...), which NumPy makes read-only")
    if fn is np.real:
        return new + 1j * np.imag(base) if np.iscomplexobj(base) else new
    if fn is np.imag:
        return np.real(base) + 1j * new
    raise errors.UnfollowableWrite(f"a write through {getattr(fn, '__name__', fn)}")


def check_aux_pair(value, loc=None):
    """With has_aux=True the function returns (value, aux): refuse anything else."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return
    raise errors.NonScalarOutput(
        f"with has_aux=True the function must return a pair (value, aux), not "
        f"{type(value).__name__}", loc=loc, hint="return value, aux")


def take(x, index):
    """``x[index]``, gathering through ``np.take`` when NumPy's fancy indexing is slow.

    The fast case is the im2col pattern: full slices, then two or more integer arrays
    on the trailing axes (``x[:, :, ii, jj]``). Those are turned into one flat index
    and gathered with ``np.take``, several times faster than fancy indexing with
    several arrays. Every other index is plain ``x[index]``.
    """
    if type(index) is tuple and type(x) is np.ndarray and len(index) == x.ndim:
        k = 0
        while k < len(index) and type(index[k]) is slice and index[k] == _FULL:
            k += 1
        arrays = index[k:]
        if len(arrays) >= 2 and all(type(a) is np.ndarray and a.dtype.kind in "iu"
                                    for a in arrays):
            try:
                trailing = x.shape[k:]
                flat = np.ravel_multi_index(np.broadcast_arrays(*arrays), trailing)
            except ValueError:  # negative or out-of-range: let NumPy decide
                return x[index]
            base = x.reshape(x.shape[:k] + (-1,))
            return np.take(base, flat, axis=k)
    return x[index]


_FULL = slice(None)


def accumulate(acc, t):
    """``acc + t``, added into ``acc`` itself when it is an array the adjoint owns.

    Generated code calls it only for an accumulator nothing else reads (see
    ``revsrc.prune.accumulate_in_place``): its first value is a number (0.0), so
    its array was made by an earlier ``acc + t`` and no other name holds it. The
    values are those of ``acc + t``; only the allocation is saved.
    """
    if _kernels.add_into(acc, t):
        return acc
    return acc + t


def r_(items):
    """``np.r_[items]`` (items: arrays, numbers and slices), as a call revsrc can
    differentiate: the generated code spells np.r_[a, b] as runtime.r_([a, b])."""
    return np.r_[tuple(items)]


def c_(items):
    """``np.c_[items]``, as `r_` spells np.r_."""
    return np.c_[tuple(items)]

