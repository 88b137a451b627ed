"""Programs that run: the layer the API modules (grad, vjp, jvp, jit, vmap) share.

Each API object turns a function into one program per signature of argument kinds.
The programs are kept in a `ProgramCache` while every name they took as fixed (the
functions they inlined, the NumPy function or derivative a global held, an attribute
of ``self``: revsrc/frontend/bindings.py) still holds what it held. A signature's `Compiled` entry runs its program on the
compiled scalar engine when the program lowered onto it (`try_engine`), else as the
generated Python; a value the engine cannot represent exactly (an int beyond 2**53)
makes that one call run in Python. With backend="jax" the entry holds the program's
jnp form instead (`for_jax`).

Written once here, so that the API modules share it instead of importing each
other's private names; the per-call path (`ProgramCache.current`, `Compiled.run`)
adds no call over what each of them did inline.
"""
from __future__ import annotations

import contextlib
import operator
import sys
import types
import warnings

import numpy as np

from . import errors, runtime
from ._kernels import Guards
from .backends.engine import lower as engine
from .backends.engine import tier
from .backends.engine.lower import EngineFallback
from .backends.jax import jaxgen
from .core import ir, kinds
from .core.late import LateModule
from .passes import pipeline

# The Python back end loads with the first program that runs on it (or an error to
# place): a program on numbers runs on the engine.
emit = LateModule("revsrc.backends.python")

__all__ = ["BACKENDS", "Compiled", "EngineFallback", "ProgramCache", "deep_recursion",
           "engine_args", "for_jax", "read_anew", "may_be_complex", "output_checked", "plain",
           "try_engine"]

BACKENDS = (None, "python", "engine", "jax")


class Compiled:
    """One signature's program and the forms it runs in: ``engine`` (the scalar
    engine's program, or None), the generated Python (compiled when first needed),
    or with backend="jax" ``jax`` (its jnp form, revsrc/backends/jax/compiled.py)."""
    __slots__ = ("_fn", "_text", "program", "engine", "unpruned", "jax", "groups",
                 "select", "python", "guards")

    def __init__(self, program, engine, unpruned=None, jax=None, python=True):
        self._fn = None
        self._text = None
        self.groups = None     # the gradient's tree structure (`api.Transformed._format`)
        self.select = None     # how the outputs nest into the result (jit; JAX's selector)
        self.program = program
        # what the program took as fixed, checked before each call (ProgramCache)
        self.guards = Guards(program.deps)
        self.engine = engine
        self.jax = jax
        # before the back end's pruning, for transforming it again (revsrc/passes/pipeline.py)
        self.unpruned = unpruned if unpruned is not None else program
        # where the engine defers, run the generated Python (else the caller is told
        # with EngineFallback: revsrc.jit calls the function itself)
        self.python = python

    def _build(self):
        with deep_recursion():
            self._fn, self._text = emit.compile_program(self.program)

    @property
    def fn(self):
        if self._fn is None:
            self._build()
        return self._fn

    @property
    def text(self):
        if self.jax is not None:
            return self.jax.text
        if self._text is None:
            self._build()
        return self._text

    def run(self, args):
        """The program's outputs for ``args``: on the engine, else in Python."""
        if self.engine is not None:
            try:
                return self.engine.run(engine_args(args))
            except EngineFallback:  # a value the engine cannot represent exactly
                if not self.python:
                    raise
        fn = self._fn
        if fn is None:
            fn = self.fn
        try:
            return runtime.run_pooled(fn, args)
        except errors.RevsrcError as exc:
            _locate(fn, exc)
            raise


def _locate(fn, exc):
    """A refusal raised at run time inside a helper (a rule's variant with no
    derivative) is reported at the user's line that the failing statement of the
    generated ``fn`` comes from: raised so located, if it can be."""
    if exc.filename is not None:
        return
    loc = emit.user_loc(fn, exc.__traceback__)
    if loc is not None:
        raise errors.located(exc, loc) from None


def plain(v):
    """A NumPy scalar as the Python number the engine takes."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def engine_args(args):
    """``args`` as the engine takes them: np.float64 as the float it rounds like. Any
    other NumPy scalar computes in NumPy's own arithmetic (a float32 rounds in float32,
    an int32 wraps, np.bool_ + np.bool_ is a bool), which only the generated Python
    reproduces: EngineFallback sends the call there, so the value is the plain call's."""
    for v in args:
        if isinstance(v, np.generic):
            break
    else:
        return args
    out = []
    for v in args:
        if isinstance(v, np.generic):
            if type(v) is not np.float64:
                raise EngineFallback(f"a NumPy {type(v).__name__} computes in its own arithmetic")
            v = v.item()
        out.append(v)
    return tuple(out)


class ProgramCache(dict):
    """`Compiled` entries by signature of argument kinds.

    An entry stays valid while every name its program took as fixed still holds
    what it held (its `_kernels.Guards`). A stale one empties the cache, and the
    fast path of ``front`` (the `_kernels.Derivative` its engine programs were
    installed into), so that every entry is made anew. At most ``limit`` entries are
    kept, the oldest dropped first: a function passed as an argument (a lambda made
    in a loop) is a new signature each time, and must not keep every program alive.
    """
    __slots__ = ("front", "limit")

    def __init__(self, limit=None):
        super().__init__()
        self.front = None
        self.limit = limit

    def current(self, key):
        """The entry for ``key`` made before, if it is still valid."""
        entry = self.get(key)
        if entry is not None and entry.guards.n and \
                not entry.guards.current(kinds.signature):
            self.clear()
            if self.front is not None:
                self.front.clear()
            return None
        return entry

    def store(self, key, entry):
        if self.limit is not None and len(self) >= self.limit:
            self.pop(next(iter(self)))   # the oldest
        self[key] = entry

    def install(self, key, entry, select):
        """Let ``front`` run ``entry``'s engine program for scalar arguments of kinds
        ``key`` without calling back into Python; it checks the program's
        dependencies itself, as `current` does."""
        front = self.front
        if front is None:
            return
        front.install([kinds.CODE[k] for k in key], entry.engine, select)
        # one guard per name and value, however many programs took it as fixed: the
        # front checks them all on every call
        deps = list(front.deps)
        held = {(id(d[0]), d[1], id(d[2])) for d in deps}
        for d in entry.program.deps:
            if (id(d[0]), d[1], id(d[2])) not in held:
                held.add((id(d[0]), d[1], id(d[2])))
                deps.append(d)
        front.deps = deps


def read_anew(owner):
    """``owner`` (an api.Transformed, a jitted.Jitted, a forward-mode front) after what
    it read of its function when it was made changed (its ``made_with`` guards failed:
    ``f.__code__``, ``f.__defaults__`` or a partial's keywords replaced, an object's
    class given another ``__call__``): it reads the function anew (``owner._describe()``)
    and forgets every program, as a rebound name makes them anew."""
    owner._describe()
    owner.cache.clear()
    if owner.cache.front is not None:
        owner.cache.front.clear()


@contextlib.contextmanager
def deep_recursion(limit=20000):
    """Transformations recurse along the nesting of the user's code: a 400-deep elif
    chain is legal Python, so the recursion limit is raised while transforming."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def try_engine(prog, required):
    """The scalar engine's program of ``prog`` (users' rules expanded), handed to the
    native tier to compile once it proves hot; None where the engine cannot run it
    (refused with E501 when ``required``)."""
    try:
        program = engine.lower(pipeline.expanded(prog))
    except engine.NotLowerable as exc:
        if required:
            raise errors.EngineUnavailable(
                f"this function cannot run on the compiled scalar engine: {exc}",
                loc=exc.loc, hint="use backend=None (automatic) or backend='python'")
        return None
    tier.attach(program, _compile_hot)
    return program


def _compile_hot(program):
    """The engine's call once ``program`` is hot: the native tier compiles it."""
    from .backends.engine import native   # loaded late: start-up time
    native.request(program)


def for_jax(prog, post, unpruned=None, max_steps=None, memory=None):
    """The entry of ``prog`` with backend="jax": its jnp form under jax.jit, whose
    outputs ``post`` shapes inside the jit (XLA removes what the outputs do not need,
    so the program stays unpruned); ``memory``: the bound of its rolled loops' saves."""
    return Compiled(prog, None, unpruned,
                    jax=jaxgen.Compiled(pipeline.expanded(prog), post, max_steps=max_steps,
                                        memory=memory))


# ----- A complex output of real arguments -----

def output_checked(prog, complex_arguments, holomorphic):
    """The gradient program ``prog`` whose forward sweep ends by checking that its
    output is a real number (``complex_arguments``: it has some), or with
    ``holomorphic`` may be a complex number too; ``prog`` itself where there is nothing
    to check."""
    out = prog.outputs[0]
    fwd = prog.forward_len
    checks = [i for i in range(fwd) if isinstance(prog.body[i], ir.Op)
              and prog.body[i].fn is runtime.check_scalar_output]
    body = list(prog.body)
    if holomorphic:
        if not checks:
            return prog
        for i in checks:
            body[i] = ir.replace(body[i], args=tuple(body[i].args[:2]) + (ir.Const(True),))
    elif checks or not isinstance(out, str) or not (complex_arguments or may_be_complex(prog)):
        return prog
    else:
        where = None
        for s in ir.walk(prog.body[:fwd]):
            if isinstance(s, ir.Op) and s.target == out and s.loc is not None:
                where = s.loc
        body.insert(fwd, ir.Op(None, runtime.check_scalar_output, (out, ir.Const(where))))
        fwd += 1
    return ir.Program(prog.name, prog.params, body, prog.outputs, prog.kinds,
                      forward_len=fwd, names=prog.names, deps=prog.deps)


# grad refuses a complex output as JAX does (unless holomorphic=True): the kinds the
# analysis infers do not tell a complex number from a real one, so the refusal is the
# program's own check of its output (runtime.check_scalar_output), which keeps the value
# computed. Programs that cannot make a complex number from real arguments go without
# it, and without computing a value grad does not return: `may_be_complex` tells them.

# NumPy's functions that return complex numbers for real arguments (by name, with the
# modules all of whose functions may)
_COMPLEX_MAKERS = frozenset({"eig", "eigvals", "roots", "sort_complex"})
_COMPLEX_MODULES = ("numpy.fft", "numpy.lib.scimath", "numpy.emath", "cmath")
_REAL_MODULES = ("numpy", "math", "operator", "_operator", "builtins", "revsrc")
_RUNTIME_READS = frozenset({ir.load_cell})
_SCALAR_POW = frozenset({operator.pow, operator.ipow, pow})
_PLAIN = (type(None), bool, int, float, str, slice, type(Ellipsis), ir.Loc,
          types.ModuleType, np.bool_, np.integer, np.floating)


def may_be_complex(prog):
    """Whether the forward sweep of the gradient program ``prog``, given real arguments,
    may compute a complex output: a name may hold a complex number where a statement
    reading one that may, or making one (a complex constant, a call that can make one,
    a value read when the program runs: a global, an object's attribute), writes it.
    Errs towards True (that only costs computing the value)."""
    stmts = prog.body[:prog.forward_len]
    guarded = {(id(d[0]), d[1]) for d in prog.deps if isinstance(d[2], str) and d[2] == "kind"}
    found = set()
    pushed = False
    while True:      # to a fixed point: a loop carries a name back to its start
        before = len(found), pushed
        for s in ir.walk(stmts):
            if isinstance(s, ir.Push) and s.value in found:
                pushed = True
            written = ir.writes(s)
            if not written:
                continue
            if (isinstance(s, ir.Pop) and pushed) or \
                    any(n in found for n in ir.reads(s)) or \
                    (isinstance(s, ir.Op) and _makes_complex(s, prog.kinds, guarded)):
                found.update(written)
        if (len(found), pushed) == before:
            break
    out = prog.outputs[0]
    return isinstance(out, str) and out in found


def _makes_complex(s, kinds_of, guarded):
    fn = s.fn
    if fn is ir.load_global:
        return _complex_global(s, guarded)
    operands = list(s.args) + [v for _, v in s.kwargs]
    if any(isinstance(a, ir.Const) and not _real_const(a.value) for a in operands):
        return True
    if fn in _RUNTIME_READS:   # a closure cell's value: its kind is not guarded
        return True
    if fn in _SCALAR_POW:
        # Python's float power of a negative base is complex (NumPy's is nan)
        return kinds_of.get(s.target) != kinds.ARRAY
    return not _real_function(fn)


def _complex_global(s, guarded):
    """Whether a global the program reads when it runs may be complex. Where its kind
    (an array's dtype too) is guarded (``guarded``: frontend/lower/names.py), the
    program is made anew if a real number or array it holds now is replaced by a
    complex one: what it holds now tells."""
    namespace, key = (a.value if isinstance(a, ir.Const) else None for a in s.args[:2])
    if (id(namespace), key) not in guarded:
        return True
    value = namespace.get(key) if isinstance(namespace, dict) else None
    if type(value) in (float, int, bool):
        return False
    return not (type(value) is np.ndarray and value.dtype.kind in "biuf")


def _real_const(v):
    if isinstance(v, _PLAIN):
        return not (isinstance(v, str) and _complex_dtype(v))
    if isinstance(v, (tuple, list)):
        return all(_real_const(x) for x in v)
    if isinstance(v, np.ndarray):
        return v.dtype.kind not in "cO"
    if isinstance(v, (type, np.dtype)):
        return not _complex_dtype(v)
    return _real_function(v)


def _complex_dtype(v):
    try:
        with warnings.catch_warnings():   # a string such as "a" is a deprecated alias
            warnings.simplefilter("ignore", DeprecationWarning)
            return np.dtype(v).kind in "cO"
    except (TypeError, ValueError):   # not a dtype: a subscripts string, a class
        return False


def _real_function(fn):
    """Whether ``fn`` returns real numbers for real arguments."""
    if isinstance(fn, type):
        return not _complex_dtype(fn)
    if isinstance(fn, np.ufunc):   # by its loops for real arguments (if it has some)
        loops = [t.partition("->") for t in fn.types]
        real = [out for ins, _, out in loops if not any(c in ins for c in "FDGO")]
        return bool(real) and not any(c in out for out in real for c in "FDGO")
    if isinstance(fn, np.vectorize) or not callable(fn):
        return False
    module = getattr(fn, "__module__", None) or ""
    if module.startswith(_COMPLEX_MODULES) or getattr(fn, "__name__", "") in _COMPLEX_MAKERS:
        return False
    return module.partition(".")[0] in _REAL_MODULES
