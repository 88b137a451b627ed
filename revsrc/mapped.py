"""``revsrc.vmap``: a scalar function, or a derivative, mapped over arrays.

The function's engine program (``revsrc.jit``'s for a function, the derivative's own
for a derivative) runs once per element in compiled code: no Python per element, the
GIL released, elements split across the machine's cores in chunks when the work pays
for a thread. Once the lanes tier has compiled it (revsrc/backends/engine/lanes.py),
each instruction runs over a block of elements at once, every element still running
its own path with a call's statements (so independent libm calls overlap). Each element is the run a call makes, so the results are those of
calling the function on each element, bit for bit: NumPy's loops are called as for a
0-d operand (their SIMD paths for whole arrays can differ in the last bit, and
``np.power(x, 0.5)`` takes a path of its own for a scalar exponent), never on the
array. An element the engine cannot represent exactly (an int beyond 2**53) runs the
function itself, in Python, its result kept only where the output array holds it
exactly (else E305). Arrays whose elements compute in NumPy's own arithmetic (float32,
float16, int32...) call the function on each element, as a loop over them would.
"""
from __future__ import annotations

import functools
import os
import threading
import time
from typing import Any, Callable, Optional

import numpy as np

from . import api, errors
from .core import kinds
from .frontend import arguments
from .executable import EngineFallback, plain
from . import mapped_calls, vmapped
from . import jitted
from .jitted import Jitted, jitted_of
from ._kernels import LaneMapper, Mapper

_OUT_DTYPE = {"f": np.float64, "i": np.int64, "b": np.bool_}
_SCALAR_KIND = {float: "f", int: "i", bool: "b"}


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _Served:
    """A vmap result computed another way than the engine's lanes."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Mapped:
    """What ``revsrc.vmap`` returns."""
    _revsrc_per_lane = True     # mapped again: the outer map calls it per example

    def __init__(self, f, in_axes=0, threads=None, out_axes=0, axis_size=None):
        self.f = f
        self.in_axes = in_axes
        self.threads = threads
        # functions of arrays, other axes, pytrees: a batched program (vmapped.py)
        self.arrays = vmapped.ArrayMap(f, in_axes, out_axes, axis_size)
        self.plain_axes = out_axes == 0 and axis_size is None and _plain_axes(in_axes)
        tr = getattr(f, "_revsrc_transformed", None)
        if isinstance(tr, api.Transformed):      # a derivative
            self.tr = tr
        elif getattr(f, "_revsrc_composed", None) is not None or isinstance(f, Mapped):
            # a Jacobian or Hessian (revsrc/compose.py): a loop over programs, called
            # per element, each of which runs compiled
            self.tr = None
            functools.update_wrapper(self, f, updated=())
            return
        else:
            self.tr = jitted_of(f)
            if self.tr is None:
                self.tr = Jitted(f)
                self.tr.caller = "revsrc.vmap"
        self.params = self.tr.params
        functools.update_wrapper(self, f, updated=())

    def _axes(self, nargs):
        axes = self.in_axes
        if axes is None or isinstance(axes, int):
            axes = (axes,) * nargs
        axes = tuple(axes)
        if len(axes) != nargs:
            raise errors.MismatchedArguments(
                f"in_axes has {len(axes)} entries for {nargs} arguments")
        for a in axes:
            if a not in (0, None) or isinstance(a, bool):
                raise errors.MismatchedArguments(
                    f"in_axes entries must be 0 or None, not {a!r}")
        if all(a is None for a in axes):
            raise errors.MismatchedArguments(
                "vmap needs at least one argument mapped (in_axes=0)")
        return axes

    def _program(self, key, values):
        """(engine program, select), or None for a derivative whose program does not
        run on the engine (it is then called on each element: the same digits)."""
        entry = self.tr.compiled_for(key, values)
        if isinstance(self.tr, api.Transformed):
            if entry.engine is None:
                return None
            return entry.engine, self.tr.engine_select()
        return entry.engine, entry.select

    def _program_or_arrays(self, key, values, args):
        """`_program`'s, or the result `_Served` another way: arrays inside (v =
        np.array([e, 0.0])) are not the engine's; the function batched as an array
        program is (vmapped.py), else the engine's refusal stands."""
        try:
            return self._program(key, values)
        except errors.NotCompilable as exc:
            try:
                return _Served(self.arrays(args))
            except errors.RevsrcError:
                raise exc from None

    def _route(self, args, kwargs):
        """(args, axes, None) for the scalar path, or (args, axes, (result,)) when the
        call was served another way: keywords bound to their positions (not mapped),
        one call per slice, or the array programs' batching."""
        axes = None
        if kwargs:
            if not self.plain_axes:
                raise TypeError("revsrc.vmap: with in_axes other than 0 and None, pass "
                                "the arguments by position")
            n = len(args)   # in_axes is the positional arguments'; keywords are not mapped
            args = arguments.positional(self.f, args, kwargs)
            axes = self._axes(n) + (None,) * (len(args) - n)
            if self.tr is None or any(
                    not isinstance(a, (np.ndarray, float, int)) or np.ndim(a) > 1 or
                    (np.ndim(a) == 0 and ax is not None) for a, ax in zip(args, axes)):
                # a Jacobian, or rows of arrays: one call per slice (each compiled)
                return args, axes, (self._each(args, axes),)
        elif not self.plain_axes or self.tr is None or any(
                not isinstance(a, (np.ndarray, float, int)) or np.ndim(a) > 1 or
                (np.ndim(a) == 0) != (ax is None) for a, ax in
                zip(args, self._axes(len(args)) if _plain_axes(self.in_axes) else ())):
            # (an array passed unmapped, in_axes None: the function takes it whole)
            return args, None, (self.arrays(args),)
        return args, axes or self._axes(len(args)), None

    def _call(self, *args, **kwargs):
        args, axes, served = self._route(args, kwargs)
        if served is not None:
            return served[0]
        if _numpy_own(args, axes) or (isinstance(self.tr, api.Transformed) and
                                      self.tr.binding.static):
            # (a derivative of a bound method or an object with __call__: its object
            # is not a number the engine maps; each element is a call of it, compiled)
            return self._each(args, axes)
        loc = self.tr.parsed.loc(self.tr.parsed.node)
        columns, n = [], None
        for i, (arg, ax) in enumerate(zip(args, axes)):
            if ax is None:
                columns.append(None)
                continue
            a = np.asarray(arg)
            if a.ndim != 1:
                raise errors.NotCompilable(
                    f"revsrc.vmap maps 1-D arrays; argument {i} has shape {a.shape}",
                    loc=loc, hint="ravel it (the function is called on each element)")
            if a.dtype not in _ENGINE_DTYPES:
                raise errors.NotCompilable(
                    f"revsrc.vmap maps float, integer and bool arrays; argument {i} is "
                    f"{a.dtype}", loc=loc, hint="convert it with .astype(np.float64)")
            if n is not None and a.shape[0] != n:
                raise errors.MismatchedArguments(
                    f"mapped arguments have different lengths ({n} and "
                    f"{a.shape[0]})")
            n = a.shape[0]
            columns.append(a)
        values = self.tr.bind(tuple(self._element(c, arg, 0, n) for c, arg in zip(columns, args)),
                              {})
        extra = len(values) - len(args)          # parameters left to their defaults
        columns += [None] * extra
        key = tuple(kinds.signature(v) for v in values)
        if any(k not in kinds.SCALARS for k in key[len(args):]):
            # a default or a partial's argument that is an array (coeffs=C): the
            # function takes it whole, as an argument passed unmapped
            return self.arrays(args)
        for i, (k, c) in enumerate(zip(key, columns)):
            if k not in kinds.SCALARS:
                raise errors.NotCompilable(
                    f"revsrc.vmap: argument {i} ({self.params[i]}) is a "
                    f"{type(values[i]).__name__}, not an array or a float, int or bool",
                    loc=loc)
        found = self._program_or_arrays(key, values, args)
        if isinstance(found, _Served):
            return found.value
        if found is None or (self.tr is not None and not isinstance(self.tr, api.Transformed)
                             and self.tr.bool_arithmetic.get(key)):
            # (bools added or negated: an element's comparisons give NumPy's bools)
            return self._each(args, axes)
        program, select = found
        from .backends.engine import lanes, native
        native.attach(program, eager=True)
        lanes.request(program)
        regs = program._param_registers()
        out_kinds = program.out_kinds.decode()
        outs = [np.empty(n, dtype=_OUT_DTYPE[k]) for k in out_kinds]
        status = np.zeros(n, dtype=np.int8)
        inputs = [(c, regs[i]) for i, c in enumerate(columns) if c is not None]
        fixed = [(plain(values[i]), regs[i], kinds.CODE[key[i]])
                 for i, c in enumerate(columns) if c is None]
        try:
            mapper = _mapper(program, lanes.compiled(program), inputs, fixed,
                             list(zip(outs, program._out_registers())), status)
        except EngineFallback:             # a global changed type: Python for all
            status[:] = 1
            mapper = None
        failure = _run(mapper, n, self.threads) if mapper is not None else None
        stop = failure[0] if failure else n
        for i in np.flatnonzero(status[:stop]):
            self._python(int(i), columns, args, values, select, outs)
        if failure:
            exc = mapper.error(failure[1], failure[2])
            exc.add_note(f"revsrc.vmap: at element {failure[0]}")
            raise exc
        return _nest(outs, select)

    # not a plain method: a function revsrc transforms that calls a mapped function
    # reads no further than the call, which `_refuse_inside` refuses at its line
    __call__ = api.BoundCall()
    # (since issue 25: differentiated through, revsrc/mapped_calls.py, where it can be)
    _revsrc_lower_call = staticmethod(lambda site: mapped_calls.lower_call(site, _refuse_at))
    def per_example_derivative(self, diff, per_output):
        """For the reverse rule of a call inside a differentiated function
        (revsrc/runtime/vmap_grads.py): the derivative per example, mapped alike."""
        return mapped_calls.per_example_derivative(self, diff, per_output)

    # revsrc.jit returns it as it is (its elements run compiled already); the other
    # transformations refuse it (frontend/callee.py)
    _revsrc_mapped = True

    def _each(self, args, axes):
        """``f`` called on each slice along the first axis of the mapped arguments, the
        results stacked (as JAX's vmap stacks them)."""
        lengths = {np.shape(a)[0] for a, ax in zip(args, axes) if ax is not None}
        if len(lengths) != 1:
            raise errors.MismatchedArguments(
                f"mapped arguments have different lengths {sorted(lengths)}")
        n = lengths.pop()
        results = [self.f(*(a if ax is None else a[i] for a, ax in zip(args, axes)))
                   for i in range(n)]
        return _stacked(results)

    @staticmethod
    def _element(column, arg, i, n):
        if column is None:
            return arg
        if n == 0:      # nothing to map: a value of the array's kind, for the kinds
            return {"f": 1.0, "i": 1, "b": True}[column.dtype.kind]
        return column[i].item()

    def _python(self, i, columns, args, values, select, outs):
        """Element ``i`` through the function itself (the engine cannot run it)."""
        call = [self._element(c, a, i, 1) for c, a in zip(columns, args)]
        try:
            result = self.f(*call)
        except Exception as exc:
            exc.add_note(f"revsrc.vmap: at element {i}")
            raise
        for k, value in _leaves(result, select):
            if not _store(outs[k], i, value):
                raise errors.UnsupportedValue(
                    f"revsrc.vmap: element {i} gives {value!r}, which an array of "
                    f"{outs[k].dtype} cannot hold exactly",
                    loc=self.tr.parsed.loc(self.tr.parsed.node),
                    hint="map it with a Python loop, or return a float")


# Arrays whose elements the engine maps as the Python numbers they hold (``.item()``):
# float64 rounds as Python's float; an int64 element is a Python int (exact, where
# NumPy's would wrap), a bool a Python bool
_ENGINE_DTYPES = (np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_))


def _numpy_own(args, axes):
    """Whether an element computes in NumPy's own arithmetic, which the engine does
    not have: a mapped float32, float16 or fixed-width int array other than int64 (an
    element rounds in float32, or wraps at 2**31), or such a NumPy scalar passed
    whole (as `jitted.numpy_arithmetic` tells). Those map by calling the function on
    each element, as JAX's vmap and a loop over the array compute them."""
    for a, ax in zip(args, axes):
        if ax is None:
            if jitted.numpy_arithmetic((a,)) == jitted.OWN:
                return True
        elif isinstance(a, np.ndarray) and a.dtype.kind in "fiu" and \
                a.dtype not in _ENGINE_DTYPES:
            return True
    return False


def _store(out, i, value):
    """Put an element's Python result in the output array, if the array holds it
    exactly: an int beyond 2**53 in a float64 array would lose digits, a float in an
    int64 array its fraction (the output's dtype comes from the engine program's
    kind, which an element run in Python may not match). False if it does not."""
    try:
        out[i] = value
    except (OverflowError, TypeError, ValueError):
        return False
    if out.dtype == np.bool_:
        return isinstance(value, (bool, np.bool_))
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (int, np.integer)):
        return int(out[i]) == int(value)
    if isinstance(value, (float, np.floating)):
        return out.dtype.kind == "f" and (out[i] == value or value != value)
    return False


def _mapper(program, compiled, inputs, fixed, outputs, status):
    """The program's lanes function over blocks of elements once it is compiled
    (revsrc/backends/engine/lanes.py); until then, and without a C compiler, the
    program one element at a time. Both give each element the digits of a call."""
    if compiled is not None:
        return LaneMapper(program, compiled.address, compiled.rows, compiled.width,
                          compiled, inputs, fixed, outputs, status)
    return Mapper(program, inputs, fixed, outputs, status, 1)


def _plain_axes(axes):
    """Whether ``in_axes`` maps first axes only, of whole arguments (the scalar path)."""
    if isinstance(axes, (tuple, list)):
        return all(a is None or (type(a) is int and a == 0) for a in axes)
    return axes is None or (type(axes) is int and axes == 0)


def _stacked(results):
    if results and isinstance(results[0], tuple):
        return tuple(_stacked([r[k] for r in results]) for k in range(len(results[0])))
    return np.stack([np.asarray(r) for r in results])


def _leaves(result, select):
    if type(select) is int:
        yield select, result
        return
    for r, s in zip(result, select):
        yield from _leaves(r, s)


def _nest(outs, select):
    if type(select) is int:
        return outs[select]
    return tuple(_nest(outs, s) for s in select)


def _run(mapper, n, threads):
    """Map all n elements: a first few here, to time them; the rest here and, when it
    pays, in threads. Returns (index, code, arg) of the first error, or None."""
    if n == 0:
        return None
    first = min(n, 16)
    mapper.start_at(0, first)
    t0 = time.perf_counter()
    results = [mapper.run(first, True)]
    per = (time.perf_counter() - t0) / first
    if results[0][0] < 0 and first < n:
        rest = n - first
        lanes = max(1, threads or _cores())
        if per * rest < 1e-3:            # under a millisecond: not worth a thread
            lanes = 1
        lanes = min(lanes, rest)
        chunk = max(1, min(4096, rest // (8 * lanes), int(2e-4 / max(per, 1e-9))))
        mapper.start_at(first, chunk)
        if lanes == 1:
            results.append(mapper.run(-1, True))
        else:
            got, crashed = [None] * (lanes - 1), []

            def lane(k):
                try:
                    got[k] = mapper.run(-1, False)
                except BaseException as exc:  # MemoryError: raised in the caller
                    crashed.append(exc)
                    mapper.stop()

            workers = [threading.Thread(target=lane, args=(k,), daemon=True)
                       for k in range(lanes - 1)]
            for t in workers:
                t.start()
            try:
                results.append(mapper.run(-1, True))
                for t in workers:
                    t.join()
            except BaseException:
                mapper.stop()
                for t in workers:
                    t.join()
                raise
            if crashed:
                raise crashed[0]
            results += got
    failures = [r for r in results if r is not None and r[0] >= 0]
    return min(failures) if failures else None


def vmap(f: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0,
         axis_size: Optional[int] = None, *,
         threads: Optional[int] = None) -> Callable[..., Any]:
    """``f`` mapped over the first axis of 1-D arrays, compiled.

    ``f`` is a scalar function (compiled as ``revsrc.jit`` compiles it) or a revsrc
    derivative (a Jacobian or Hessian, which runs many programs, is called on each
    slice along the first axis instead, its results stacked). ``in_axes`` is 0 (map every argument), or one entry per argument: 0 to
    map it, None to pass it to every call as it is. The elements of float64, int64
    and bool arrays run compiled, as the Python numbers they hold; those of other
    dtypes (float32, float16, int32...) compute in NumPy's arithmetic, which the
    engine does not have: ``f`` is called on each of them, in Python, as a loop over
    the array calls it. Returns an array per output of ``f`` (float64, int64 or bool
    when compiled), nested as ``f``'s results: element ``i`` is
    bit for bit what ``f`` returns for the arguments' elements ``i``. The elements run
    in compiled code without the GIL, on ``threads`` cores (default: all the process
    may use) when the work is worth it.

    >>> import math, numpy as np, revsrc
    >>> def g(x):
    ...     return math.exp(-x * x) * math.cos(3.0 * x)
    >>> xs = np.linspace(0.0, 1.0, 5)
    >>> bool(np.all(revsrc.vmap(g)(xs) == np.array([g(x) for x in xs.tolist()])))
    True
    >>> values, grads = revsrc.vmap(revsrc.value_and_grad(g))(xs)
    """
    return Mapped(f, in_axes, threads, out_axes, axis_size)


def _refuse_inside(site):
    _refuse_at(site.loc)


def _refuse_at(loc):
    raise errors.HigherOrderNotSupported(
        "a function mapped by revsrc.vmap is called inside a function revsrc transforms: "
        "its elements run compiled, outside the transformation", loc=loc,
        hint="call the function itself on the array where NumPy broadcasting allows, or "
             "map the derivative instead: revsrc.vmap(revsrc.grad(f))")


# revsrc.vmap(f) called inside a function revsrc transforms, and its result called
# there: refused as a mapped function made outside is (frontend/lower/calls.py)
vmap._revsrc_refuse_value_call = _refuse_at
# revsrc.vmap(f, in_axes=...) on values known when transforming is made then, and its
# calls go through Mapped._revsrc_lower_call (frontend/lower/calls.py, made_derivative)
vmap._revsrc_made_when_transforming = True
