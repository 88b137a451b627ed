"""``revsrc.jit``: a scalar function compiled whole onto the engine.

The function's IR comes from ``revsrc.passes.pipeline`` as for any transformation
(plain Python helpers inlined, loops, branches and early returns in structured form,
each call to a revsrc derivative replaced by the derivative's program for the argument
kinds at the call), but is not differentiated. Calls to other jitted functions are
inlined the same way. Tuples the inlined programs build (``value_and_grad``'s
``(value, grad)``) are read item by item, work the inlined programs share (``g(x)``
and ``dg(x)`` at the same ``x`` both compute ``exp(-x*x)``) is computed once
(`revsrc.passes.cse`), and the whole program runs on the engine: the VM at once, the native
tier as soon as it has compiled it. The digits are those of plain Python.

A function the engine cannot compile is refused with a coded error (E502) naming the
line; nothing falls back silently. At run time a value the engine cannot represent
exactly (an int beyond 2**53) runs the function itself, in Python, and so does a
NumPy scalar whose arithmetic is NumPy's own (a float32 rounds in float32, an int32
wraps: `numpy_arithmetic`), so that the result has the plain call's dtype and bits.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Union

import numpy as np

from .passes import analysis, pipeline
from .passes.reverse import checkpoint
from . import errors, primitives, runtime
from .frontend import arguments, bindings, fence
from .frontend import callee as callee_mod
from .frontend.lower import numbers, recursion
from .core import ir, kinds, pytree
from .backends.engine import lower as engine
from .executable import Compiled, EngineFallback, ProgramCache, read_anew
from ._kernels import Derivative, Guards
from .core.ir import Const, Op
from .core.names import function_name
from .frontend.parse import parse_function


class Jitted:
    """The general path of a jitted function: new argument kinds, NumPy scalars,
    keyword arguments, and values the engine defers to Python."""

    def __init__(self, f, memory=None):
        # a bound method, partial, object with __call__ or primitive: a function of
        # the same parameters that calls it (revsrc/frontend/callee.py), which the
        # lowering inlines as grad inlines it (a method's object bound statically)
        self.given = f
        # the budget of the derivatives it calls (None: theirs)
        self.memory = None if memory is None else (checkpoint.parse_memory(memory),)
        self.cache = ProgramCache()   # its `front`: the user-facing object, set by `jit`
        self._describe()
        self.caller = "revsrc.jit"     # what its refusals name (revsrc.vmap's own: that)

    def _describe(self):
        """Read the function as it is now (its source, parameters and defaults), and
        guard what was read (`made_with`)."""
        self.made_with = Guards(bindings.callee_guards(self.given))
        f = callee_mod.as_function(self.given)
        self.f = f
        parsed = parse_function(f)
        fence.check(parsed)
        self.parsed = parsed
        node = parsed.node
        self.signature = inspect.signature(f)
        self.params = [a.arg for a in node.args.args + node.args.kwonlyargs]
        # per signature: whether its program does arithmetic on bools alone, which
        # NumPy's bools do otherwise (`bool_arithmetic`)
        self.bool_arithmetic = {}
        self.valued = frozenset()     # int parameters a recursion's depth is decided by

    def current(self):
        """Read the function anew if it changed since (`executable.read_anew`)."""
        if not self.made_with.current():
            read_anew(self)

    def bind(self, args, kwargs):
        self.current()
        if not kwargs and len(args) == len(self.params):
            return tuple(args)
        try:
            ba = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.f.__name__}(): {exc}") from None
        ba.apply_defaults()
        return tuple(ba.arguments[p] for p in self.params)

    def __call__(self, *args, **kwargs):
        values = self.bind(args, kwargs)
        key = tuple(kinds.signature(v) for v in values)
        if self.valued:
            key = self._valued_key(key, values)
        flat = values
        if kinds.ANY in key:       # a tuple (or list, dict...) of numbers: its items
            key, flat = _taken_apart(key, values)
        entry = self.cache.current(key) or self._compile(key, values)
        numpy = numpy_arithmetic(flat)
        if numpy == OWN or (numpy == FLOAT64 and self.bool_arithmetic.get(key, True)):
            return self.f(*args, **kwargs)
        try:
            outs = entry.run(flat)
        except EngineFallback:   # an int beyond 2**53, a complex power: Python
            return self.f(*args, **kwargs)
        except Exception:
            if numpy is None:
                raise
            # where Python's float raises (1.0 / 0.0), NumPy's float64 gives inf or
            # nan: the call itself says which
            return self.f(*args, **kwargs)
        return _selected(outs, entry.select)

    def _valued_key(self, key, values):
        """``key`` made for the values of the int parameters a recursion's depth is
        decided by (frontend/lower/recursion.py): a program for each."""
        return tuple(arguments.value_signature(v) if p in self.valued else k
                     for p, k, v in zip(self.params, key, values))

    def compiled_for(self, key, values):
        """The `executable.Compiled` entry for argument kinds ``key``: made before (and
        still valid), or now for arguments ``values``."""
        self.current()
        return self.cache.current(key) or self._compile(key, values)

    def _compile(self, key, values):
        loc = self.parsed.loc(self.parsed.node)
        for i, (k, v) in enumerate(zip(key, values)):
            if arguments.is_tree(k):
                continue
            if kinds.kind_of_signature(k) not in kinds.SCALARS:
                raise errors.NotCompilable(
                    f"revsrc.jit compiles functions of floats, ints and bools onto the "
                    f"scalar engine, by design; argument {i} ({self.params[i]}) is a "
                    f"{type(v).__name__}", loc=loc,
                    hint=f"call {getattr(self.f, '__name__', 'the function')} itself: "
                         "on arrays the revsrc derivatives it calls run their NumPy "
                         "programs already (backend='jax' compiles them with XLA); map a "
                         "scalar function over an array with revsrc.vmap")
        token = checkpoint.INLINED.set(self.memory)
        folding = numbers.FOLD.set(True)      # global containers of numbers: constants
        try:
            prog, select = pipeline.jit_program(self.f, key, _inline_callees, _outputs)
        except recursion.NeedsIntValues as exc:
            if exc.fn is not self.f or exc.params <= self.valued:
                raise
            self.valued |= exc.params
            return self._compile(self._valued_key(key, values), values)
        finally:
            numbers.FOLD.reset(folding)
            checkpoint.INLINED.reset(token)
        _check_outputs(prog, self.f)
        self.bool_arithmetic[key] = bool_arithmetic(prog)
        try:
            program = engine.lower(prog)
        except engine.NotLowerable as exc:
            raise errors.NotCompilable(f"{self.caller} cannot compile {self.f.__name__}: {exc}",
                                       loc=exc.loc or loc, hint=exc.hint) from None
        from .backends.engine import native   # loaded late: start-up time
        native.attach(program, eager=True)
        # where the engine defers, the function itself runs (`__call__`)
        entry = Compiled(prog, program, python=False)
        entry.select = select     # how its outputs nest into the result
        self.cache.store(key, entry)
        if all(k in kinds.SCALARS for k in key):
            self.cache.install(key, entry, select)
        return entry


OWN = "own"
FLOAT64 = "float64"


def _taken_apart(key, values):
    """(key, values) with each container argument whose leaves are all numbers (a
    tuple of floats, a namedtuple, a dict of ints) taken apart: its key entry the
    container's structure and its leaves' kinds, and its leaves a parameter each
    (revsrc/frontend/arguments.py), so a different structure is another program.
    Anything else stays as it is (and is refused by `_compile`)."""
    new_key, flat = [], []
    for k, v in zip(key, values):
        if k == kinds.ANY and pytree.is_container(v):
            leaves, td = pytree.tree_flatten(v)
            sigs = tuple(kinds.signature(x) for x in leaves)
            if leaves and all(kinds.kind_of_signature(s) in kinds.SCALARS for s in sigs):
                new_key.append((arguments.TREE, td, sigs))
                flat.extend(leaves)
                continue
        new_key.append(k)
        flat.append(v)
    return tuple(new_key), tuple(flat)


def numpy_arithmetic(values):
    """How NumPy scalars among ``values`` compute, where the engine computes as Python
    does: None if there are none; ``FLOAT64`` if they are all np.float64, which
    rounds as Python's float and differs only where Python raises (1.0 / 0.0 is inf,
    ``(-8.0) ** (1/3)`` nan) and in arithmetic on the NumPy bools its comparisons give
    (`bool_arithmetic`); ``OWN`` if any computes otherwise (float32 and float16
    round in their own precision, fixed-width ints wrap, np.bool_ + np.bool_ is a
    bool, np.int64 ** -1 raises): then only the call itself gives its digits."""
    found = None
    for v in values:
        if isinstance(v, np.generic):
            if type(v) is not np.float64:
                return OWN
            found = FLOAT64
    return found


def bool_arithmetic(prog):
    """Whether ``prog`` adds, multiplies, negates... bools alone. Python's bools are
    ints there (True + True is 2); NumPy's are not (np.True_ + np.True_ is True,
    np.True_ // np.True_ an int8, -np.True_ raises), and a comparison of a np.float64
    gives one: such a program runs the call itself for NumPy arguments."""
    for s in ir.walk(prog.body):
        if isinstance(s, Op) and s.args and primitives.fact(s.fn, "int_preserving") and \
                s.fn not in (max, min, ir.copy) and \
                all(_kind_in(a, prog.kinds) == kinds.BOOL for a in s.args):
            return True
    return False


def _kind_in(a, found):
    return kinds.of_value(a.value) if isinstance(a, Const) else found.get(a)


def _selected(outs, select):
    if type(select) is int:
        return outs[select]
    return tuple(_selected(outs, s) for s in select)


def jit(f: Callable[..., Any], memory: Union[int, str, None] = None) -> Callable[..., Any]:
    """``f`` compiled onto the scalar engine, with the digits of calling ``f``.

    ``f`` (a function, or as for ``grad`` a bound method, a ``functools.partial``,
    an object with ``__call__`` or a primitive such as ``math.sin``, whose objects'
    number attributes are read as constants, guarded: rebinding one makes the program
    anew) takes and returns floats, ints and bools (or tuples of them); NumPy scalars
    other than ``np.float64`` (``np.float32``, ``np.int32``, ``np.bool_``...) compute in NumPy's
    arithmetic, and such a call runs ``f`` itself. Plain Python
    helpers it calls are inlined, and so are the revsrc derivatives it calls
    (``revsrc.grad``, ``revsrc.value_and_grad``): their programs for the argument
    kinds at the call, with the work they share with the rest computed once. Loops,
    branches and early returns work as in ``grad``. A function that cannot be
    compiled is refused with ``RevsrcError`` E502 naming the line. A derivative made by
    revsrc (``grad``, ``hessian``, ``jacfwd``...) runs its compiled programs already:
    ``jit`` returns it as it is. ``memory`` (bytes, a string like ``"32MB"``, or
    ``math.inf`` for none) bounds the saves of the long loops of the derivatives it
    calls that were made without their own ``memory=`` (see `revsrc.grad`).

    >>> import math, revsrc
    >>> def g(x):
    ...     return math.exp(-x * x) * math.cos(3.0 * x)
    >>> dg = revsrc.grad(g)
    >>> def newton(x):
    ...     for _ in range(6):
    ...         x = x - g(x) / dg(x)
    ...     return x
    >>> revsrc.jit(newton)(0.4) == newton(0.4)
    True
    """
    if getattr(f, "_revsrc_derivative", False) or jitted_of(f) is not None or \
            getattr(f, "_revsrc_composed", None) is not None:
        if memory is not None:
            raise errors.NotCompilable(
                "memory= on revsrc.jit bounds the derivatives a function calls, and this "
                "is a derivative made by revsrc", hint="give memory= to the derivative "
                "itself: revsrc.grad(f, memory=...)")
        return f   # a derivative made by revsrc runs its compiled programs already
    if getattr(type(f), "_revsrc_mapped", False):
        if memory is not None:
            raise errors.NotCompilable(
                "memory= on revsrc.jit bounds the derivatives a function calls, and this "
                "is a function mapped by revsrc.vmap", hint="give memory= to the "
                "derivatives the mapped function calls")
        return f   # so does a function mapped by revsrc.vmap, element by element
    jt = Jitted(f, memory)
    d = jt.cache.front = Derivative(jt)   # runs installed engine programs itself
    try:
        d.__name__ = getattr(f, "__name__", "jitted")
        d.__qualname__ = getattr(f, "__qualname__", d.__name__)
        d.__doc__ = f.__doc__
        d.__wrapped__ = f
    except (AttributeError, TypeError):
        pass
    d._revsrc_jitted = jt
    d._revsrc_lower_call = functools.partial(_lower_call, jt)
    return d


def _lower_call(jt, site):
    """A jitted function called inside a function revsrc transforms: its function's
    IR, which has the same digits (the jit only compiles it). A call whose arguments'
    kinds are not known yet (``x = h(x)`` in a loop) stays, for the jit's own inlining
    (`_inline_jitted`), which guesses them."""
    s = site.op
    if s.kwargs:
        return [s]
    try:
        args = jt.bind(tuple(s.args), {})
        for a in args:
            if isinstance(a, str):
                site.kind(a)
    except (TypeError, errors.HigherOrderNotSupported):
        return [s]
    args = [a if isinstance(a, (str, Const)) else Const(a) for a in args]   # defaults
    return site.inline(jt.f, args, f"{function_name(jt.f)}_j")


def jitted_of(f):
    """The `Jitted` behind a function made by ``revsrc.jit``, or None."""
    jt = getattr(f, "_revsrc_jitted", None)
    return jt if isinstance(jt, Jitted) else None


# ----- The jit's own stages (`pipeline.jit_program` runs them) -----

def _check_outputs(prog, f):
    """Refuse a jitted program that returns anything but floats, ints and bools."""
    for o in prog.outputs:
        k = prog.kinds.get(o) if isinstance(o, str) else None
        if k in (kinds.ARRAY, kinds.TUPLE, kinds.LIST, kinds.DICT, kinds.NONE):
            raise errors.NotCompilable(
                f"revsrc.jit compiles functions that return floats, ints and bools (or "
                f"tuples of them); {f.__name__} returns a value of kind {k!r}",
                loc=_def_loc(f))


def _def_loc(f):
    parsed = parse_function(f)
    return parsed.loc(parsed.node)


def _inline_callees(params, key, body, names, deps):
    """The jit's stage after lowering: jitted callees inlined (`_inline_jitted`), then
    the number attributes of objects read as constants (`_attributes_folded`)."""
    return _attributes_folded(_inline_jitted(params, key, body, names, deps), deps)


def _attributes_folded(body, deps):
    """``body`` with each read of an attribute of an object known when transforming
    (``self.dt`` of a bound method jitted, ``cls.g`` of a classmethod) that holds a
    Python float, int or bool made that constant: the engine computes on numbers, and
    grad reads such attributes when its program runs. The program is then right while
    the attribute holds that very object: where it was found, and that it stays
    unbound in the dicts looked at before, are guarded (``deps``), so ``obj.dt = 0.1``
    makes the program anew. Any other attribute is left as it is (and refused by the
    engine's lowering, E502)."""
    if not any(isinstance(s, Op) and s.fn is getattr for s in ir.walk(body)):
        return body

    def fold(stmts):
        out = []
        for s in stmts:
            found = _held_number(s) if isinstance(s, Op) and s.fn is getattr else None
            if found is None:
                out.append(ir.map_children(s, fold))
                continue
            value, guards = found
            deps.extend(guards)
            out.append(Op(s.target, ir.copy, (Const(value),), loc=s.loc))
        return out
    return fold(body)


def _held_number(s):
    """(value, guards) for ``getattr(obj, "name")`` of a Python number held in an
    instance's or a class's dict, found as Python finds it; None for anything else."""
    if len(s.args) != 2 or s.kwargs or not all(isinstance(a, Const) for a in s.args):
        return None
    obj, name = s.args[0].value, s.args[1].value
    if type(name) is not str:
        return None
    classes = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    own = [] if isinstance(obj, type) else [obj]
    if own and (type(getattr(obj, "__dict__", None)) is not dict or any(
            name in vars(k) and hasattr(type(vars(k)[name]), "__get__") for k in classes)):
        return None     # slots, a property or another descriptor: read when it runs
    chain = [vars(o) for o in own] + [vars(k) for k in classes]
    guards = []
    for holder in chain:
        if name in holder:
            value = holder[name]
            if type(value) not in (float, int, bool):
                return None
            guards.append((holder, name, value, None))
            return value, guards
        guards.append((holder, name, runtime.UNBOUND, None))
    return None


def _inline_jitted(params, key, body, names, deps):
    """``body`` with each call to a jitted function replaced by that function's IR for
    the kinds of its arguments (its names prefixed); what that IR takes as fixed is
    added to ``deps``, so that rebinding a helper of the callee makes the caller anew."""
    if not any(isinstance(s, Op) and jitted_of(s.fn) for s in ir.walk(body)):
        return body
    for _ in range(50):
        # a jitted call's result is taken as a float while its arguments' kinds are
        # inferred (a loop through it, x = h(x), has kinds then); a wrong guess shows
        # as arguments of other kinds, or a result that is not a float, and is refused
        found, _ = analysis.infer_kinds(params, list(key), [None] * len(params),
                                        _guessed(body))
        progress = []

        def expand(stmts):
            out = []
            for s in stmts:
                if isinstance(s, Op) and jitted_of(s.fn) is not None:
                    sig = [_arg_kind(a, found) for a in s.args]
                    if s.kwargs or not all(k in kinds.SCALARS for k in sig):
                        raise errors.NotCompilable(
                            "revsrc.jit inlines a jitted function called with floats, ints "
                            "and bools, by position", loc=s.loc)
                    progress.append(s)
                    out.extend(_inline_one(s, sig, names, deps))
                    continue
                out.append(ir.map_children(s, expand))
            return out
        body = expand(body)
        if not progress:
            return body
    return body


def _guessed(stmts):
    out = []
    for s in stmts:
        if isinstance(s, Op) and s.target is not None and jitted_of(s.fn) is not None:
            out.append(Op(s.target, ir.copy, (Const(0.0),)))
            continue
        out.append(ir.map_children(s, _guessed))
    return out


def _arg_kind(a, found):
    if isinstance(a, Const):
        return kinds.of_value(a.value)
    return found.get(a)


def _inline_one(s, sig, names, deps):
    jt = jitted_of(s.fn)
    try:
        args = jt.bind(tuple(s.args), {})
    except TypeError as exc:
        raise errors.NotCompilable(str(exc), loc=s.loc) from None
    args = [a if isinstance(a, (str, Const)) else Const(a) for a in args]   # defaults
    sig = [_arg_kind(a, {}) if isinstance(a, Const) else k for a, k in
           zip(args, sig + [None] * (len(args) - len(sig)))]
    low = pipeline.lower(jt.f, tuple(sig))
    deps.extend(low.deps)
    inner = ir.names_in(low.body) | set(low.params) | \
        ({low.result} if isinstance(low.result, str) else set())
    prefix = names.prefix(function_name(jt.f), inner)
    for n in inner:
        names.reserve(prefix + n)
    out = [Op(prefix + p, ir.copy, (a,), loc=s.loc) for p, a in zip(low.params, args)]
    out += ir.rename(low.body, lambda n: prefix + n)
    result = prefix + low.result if isinstance(low.result, str) else low.result
    out.append(Op(s.target, ir.copy, (result,), loc=s.loc))
    return out


def _outputs(body, result, found, items, names, f):
    """(body, outputs, select): the result, or the leaves of a returned tuple (whose
    items `cse.scalarize_tuples` knows), as outputs; ``select`` nests them back (as
    Derivative.install takes it)."""
    if not isinstance(result, str) or found.get(result) != kinds.TUPLE:
        return body, [result], 0
    writes = [s for s in ir.walk(body) if isinstance(s, Op) and s.target == result]

    def made_of(s):       # the items a write of the result is made of, if known
        if s.fn is ir.make_tuple:
            return s.args
        return items.get(result) if s.fn is ir.copy else None
    shapes = {_shape(made_of(s), items) if made_of(s) is not None else None for s in writes}
    if len(shapes) != 1 or None in shapes:
        raise errors.NotCompilable(
            f"revsrc.jit compiles functions that return floats, ints and bools, or tuples "
            f"of them of one shape; {f.__name__} returns something else", loc=_def_loc(f))
    shape = shapes.pop()
    outs = [names.fresh(f"{result}_") for _ in range(_count(shape))]
    select = _numbered(shape, iter(range(len(outs))))

    def split(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.target == result:
                leaves = [x for a in made_of(s) for x in _leaves(a, items)]
                out += [Op(o, ir.copy, (x,), loc=s.loc) for o, x in zip(outs, leaves)]
                continue
            out.append(ir.map_children(s, split))
        return out
    return split(body), outs, select


def _shape(args, items):
    """The nesting of a tuple made of ``args``: 0 for a leaf, a tuple of shapes."""
    return tuple(_shape(items[a], items) if isinstance(a, str) and a in items else 0
                 for a in args)


def _leaves(name, items):
    if isinstance(name, str) and name in items:
        return [x for a in items[name] for x in _leaves(a, items)]
    return [name]


def _count(shape):
    return 1 if shape == 0 else sum(_count(x) for x in shape)


def _numbered(shape, counter):
    if shape == 0:
        return next(counter)
    return tuple(_numbered(x, counter) for x in shape)


# revsrc.jit(h) made inside a function revsrc transforms, on a function known then:
# made while transforming (frontend/lower/calls.py), and called as one made at module
# level is (`_lower_call`: h's own IR, the same digits)
jit._revsrc_made_when_transforming = True
# and of a def made in that function, it is that def (it computes what the def does)
jit._revsrc_computes_as_given = True
