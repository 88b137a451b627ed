"""Every refusal revsrc makes, each with a stable code.

E1xx  syntax the transformation does not support (E101-E104), values known while
      transforming used as they cannot be (E105), names not defined (E106)
E2xx  a call with no source and no rule
E3xx  values that cannot be differentiated
E4xx  side effects (I/O, writes to globals, arguments or attributes)
E5xx  backend requests that cannot be honoured
E6xx  the JAX backend (backend="jax"): JAX missing, or a program it cannot lower
"""
from __future__ import annotations


class RevsrcError(Exception):
    """Base class of every refusal: ``code``, ``message``, ``filename``, ``lineno``,
    ``col``, ``line`` and ``hint`` (what to do instead); its text has them all.

    >>> import revsrc
    >>> def f(x):
    ...     open("log.txt", "w").write(str(x))
    ...     return x * x
    >>> try:
    ...     revsrc.grad(f)(3.0)
    ... except revsrc.RevsrcError as err:
    ...     print(err.code, err.line)
    E401 open("log.txt", "w").write(str(x))
    """

    code = "E000"
    hint = None     # what to do instead, when a raise site does not say it better

    def __init__(self, message, loc=None, hint=None):
        self.message = message
        self.hint = hint if hint is not None else type(self).hint
        self.filename = loc.filename if loc else None
        self.lineno = loc.lineno if loc else None
        self.col = loc.col if loc else None
        self.line = loc.line if loc else None
        super().__init__(self._render())

    def _render(self):
        text = f"[{self.code}] {self.message}"
        if self.filename is not None:
            text += f"\n  at {self.filename}:{self.lineno}:{self.col}"
            if self.line:
                text += f"\n    {self.line}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


def copied(exc):
    """A new refusal of ``exc``'s class with its attributes (what ``copy.copy`` gives
    an exception, without importing the copy module at start-up); the caller sets its
    message again."""
    out = type(exc).__new__(type(exc))
    out.__dict__.update(exc.__dict__)
    out.args = exc.args
    return out


def located(exc, loc):
    """A copy of the refusal ``exc`` that names ``loc`` (the statement it came from),
    for one raised where no line was known."""
    out = copied(exc)
    RevsrcError.__init__(out, exc.message, loc=loc, hint=exc.hint)
    return out


class UnsupportedSyntax(RevsrcError):
    """A statement or expression the transformation does not follow (yield, a with
    block over anything but np.errstate, a set comprehension, a try whose body holds
    a loop...).

    >>> import revsrc
    >>> def f(x):
    ...     return sum({x, 2.0 * x})
    >>> revsrc.grad(f)(2.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.UnsupportedSyntax: [E101] ...
    """
    code = "E101"


class UnsupportedControlFlow(RevsrcError):
    """Control flow the adjoint cannot mirror: ``for ... else``, ``while ... else``,
    a ``while`` condition that computes a value the derivative needs.

    >>> import revsrc
    >>> def f(x):
    ...     for i in range(3):
    ...         x = x * x
    ...     else:
    ...         x = x + 1.0
    ...     return x
    >>> revsrc.grad(f)(2.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.UnsupportedControlFlow: [E102] ...
    """
    code = "E102"


class RecursionNotSupported(RevsrcError):
    """A function that calls itself where no int decides how deep: revsrc inlines
    calls (a recursion on an int argument, ``power(x, n - 1)``, is unrolled for its
    value), so write it as a loop.

    >>> import revsrc
    >>> def halve(x):
    ...     return x if x < 1.0 else halve(x / 2.0)
    >>> revsrc.grad(halve)(5.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.RecursionNotSupported: [E103] ...
    """
    code = "E103"


class HigherOrderNotSupported(RevsrcError):
    """A derivative that cannot be composed: a second derivative through a rule
    whose own derivative is not written yet (``np.prod``, ``np.linalg.det``...), a
    second derivative with respect to a namedtuple or a registered class, a
    derivative called on a value
    whose kind is only known at run time.

    >>> import numpy as np, revsrc
    >>> def f(x):
    ...     return np.prod(x)
    >>> revsrc.hessian(f)(np.array([1.0, 2.0]))
    Traceback (most recent call last):
        ...
    revsrc.errors.HigherOrderNotSupported: [E104] ...
    """
    code = "E104"


class StaticValueError(RevsrcError):
    """A value known while transforming (a container with constant keys, an object,
    a call's arguments) used in a way it does not allow: a missing key or field, an
    index out of range, unpacking the wrong number of items, the wrong arguments to
    a function revsrc inlines, containers of different shapes returned, a container
    read after the branch that chose it. Python would fail on most of these when
    the line runs; revsrc finds them while transforming.

    >>> import revsrc
    >>> def f(params):
    ...     return params["w"] * params["b"]
    >>> revsrc.grad(f)({"w": 1.0})
    Traceback (most recent call last):
        ...
    revsrc.errors.StaticValueError: [E105] ...
    """
    code = "E105"
    hint = ("check the key, index, field, attribute or number of items against the "
            "value it is taken from (revsrc reads it while transforming; Python would "
            "fail when the line runs)")


class UndefinedName(RevsrcError):
    """A name the function reads that is not defined where it is read (a global
    that does not exist, a closure variable not bound yet).

    >>> import revsrc
    >>> def f(x):
    ...     return x * undefined_scale
    >>> revsrc.grad(f)(1.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.UndefinedName: [E106] ...
    """
    code = "E106"
    hint = ("define the name before the function is called (a global), or before the "
            "nested function that reads it is called (a closure variable)")


class NoSource(RevsrcError):
    """A function with no Python source to transform and no rule: a builtin
    (give it one with `revsrc.defvjp`), a function made by ``exec`` or ``eval``.

    >>> import math, revsrc
    >>> revsrc.grad(math.remainder)(1.5, 1.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.NoSource: [E201] ...
    """
    code = "E201"


class NoRule(RevsrcError):
    """A call with no derivative rule on a differentiated value: a C function, a
    library function whose source revsrc cannot transform, an unknown method.

    >>> import math, revsrc
    >>> def f(x):
    ...     return math.remainder(x, 1.0)
    >>> revsrc.grad(f)(1.5)
    Traceback (most recent call last):
        ...
    revsrc.errors.NoRule: [E202] ...
    """
    code = "E202"


class StaleSource(RevsrcError):
    """The source file no longer matches the function that is running.

    >>> import pathlib, sys, tempfile, revsrc
    >>> folder = tempfile.mkdtemp()
    >>> sys.path.insert(0, folder)
    >>> module = pathlib.Path(folder, "stale_example.py")
    >>> _ = module.write_text("def f(x):\\n    return x * x\\n")
    >>> import stale_example
    >>> _ = module.write_text("def f(x):\\n    return x + x + 1.0\\n")   # edited after import
    >>> revsrc.grad(stale_example.f)(1.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.StaleSource: [E204] ...
    >>> sys.path.remove(folder); del sys.modules["stale_example"]
    """
    code = "E204"


class NotDifferentiableArgument(RevsrcError):
    """Differentiating with respect to something that is not a float or a float
    array: an int, bool, string, integer array or other object in ``argnums`` (or a
    leaf of a container there, named by its path), a set.

    >>> import revsrc
    >>> def f(n):
    ...     return n * 2
    >>> revsrc.grad(f)(3)
    Traceback (most recent call last):
        ...
    revsrc.errors.NotDifferentiableArgument: [E301] ...
    """
    code = "E301"


class NonScalarOutput(RevsrcError):
    """``grad`` of a function that does not return a scalar (use `revsrc.jacobian`
    or `revsrc.vjp` for a vector output); a complex output of a complex array.

    >>> import numpy as np, revsrc
    >>> def f(x):
    ...     return x * 2.0
    >>> revsrc.grad(f)(np.array([1.0, 2.0]))
    Traceback (most recent call last):
        ...
    revsrc.errors.NonScalarOutput: [E302] ...
    """
    code = "E302"


class BadArgnums(RevsrcError):
    """An ``argnums`` that names no positional parameter of the function.

    >>> import revsrc
    >>> def f(x):
    ...     return x * x
    >>> revsrc.grad(f, argnums=2)(1.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.BadArgnums: [E303] ...
    """
    code = "E303"


class MismatchedArguments(RevsrcError, ValueError):
    """Values that do not fit the transformation they are given to: a cotangent or a
    tangent shaped otherwise than its value, or vmap's ``in_axes``, ``out_axes`` and
    ``axis_size`` that do not fit the arguments and results. A ValueError too (what
    JAX raises for these).

    >>> import numpy as np, revsrc
    >>> out, back = revsrc.vjp(lambda x: x * 2.0, np.ones(3))
    >>> back(np.ones(4))
    Traceback (most recent call last):
        ...
    revsrc.errors.MismatchedArguments: [E306] ...
    """
    code = "E306"


class NotDifferentiableHere(RevsrcError):
    """The function has no derivative at the values it was called with (a matrix
    function at a rank-deficient matrix, eigenvectors of a repeated eigenvalue).

    >>> import numpy as np, revsrc
    >>> def f(A):
    ...     w, V = np.linalg.eigh(A)
    ...     return np.sum(V[:, 0])
    >>> revsrc.grad(f)(np.eye(2))
    Traceback (most recent call last):
        ...
    revsrc.errors.NotDifferentiableHere: [E304] ...
    """
    code = "E304"


class UnsupportedValue(RevsrcError):
    """An argument of a type whose arithmetic differs from what the rules assume
    (np.matrix, masked arrays).

    >>> import numpy as np, revsrc
    >>> def f(A):
    ...     return np.sum(A * A)
    >>> revsrc.grad(f)(np.matrix([[1.0, 2.0]]))
    Traceback (most recent call last):
        ...
    revsrc.errors.UnsupportedValue: [E305] ...
    """
    code = "E305"


class SideEffect(RevsrcError):
    """Side effects: I/O, a discarded call that can only act through its side
    effects (``np.copyto``, ``out=``), writing an attribute.

    >>> import numpy as np, revsrc
    >>> def f(x):
    ...     c = np.zeros(2)
    ...     np.multiply(x, x, out=c)
    ...     return np.sum(c)
    >>> revsrc.grad(f)(np.array([1.0, 2.0]))
    Traceback (most recent call last):
        ...
    revsrc.errors.SideEffect: [E401] ...
    """
    code = "E401"


class GlobalWrite(RevsrcError):
    """A write to a global or to an enclosing function's variable (``global``,
    ``nonlocal``): pass the value in and return the new one.

    >>> import revsrc
    >>> calls = 0
    >>> def f(x):
    ...     global calls
    ...     calls = calls + 1
    ...     return x * x
    >>> revsrc.grad(f)(1.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.GlobalWrite: [E402] ...
    """
    code = "E402"


class MutatesArgument(RevsrcError):
    """A change to an argument in place (an array, list or dict the caller passed),
    which the caller would see: work on a copy.

    >>> import numpy as np, revsrc
    >>> def f(x):
    ...     x[0] = 1.0
    ...     return np.sum(x * x)
    >>> revsrc.grad(f)(np.array([3.0, 2.0]))
    Traceback (most recent call last):
        ...
    revsrc.errors.MutatesArgument: [E403] ...
    """
    code = "E403"


class UnfollowableWrite(RevsrcError):
    """A write through a view or an alias whose target revsrc cannot follow.

    >>> import revsrc
    >>> def f(x):
    ...     rows = [[0.0] * 2] * 2       # both rows are one list
    ...     rows[0][0] = x
    ...     return rows[1][0]
    >>> revsrc.grad(f)(1.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.UnfollowableWrite: [E404] ...
    """
    code = "E404"


class EngineUnavailable(RevsrcError):
    """``backend="engine"`` for a function the compiled scalar engine cannot run
    (arrays, calls without a scalar rule); the default backend runs it in Python.

    >>> import numpy as np, revsrc
    >>> def f(x):
    ...     return np.sum(x * x)
    >>> revsrc.grad(f, backend="engine")(np.array([1.0]))
    Traceback (most recent call last):
        ...
    revsrc.errors.EngineUnavailable: [E501] ...
    """
    code = "E501"


class NotCompilable(RevsrcError):
    """revsrc.jit / revsrc.vmap: a function the engine cannot compile, or arguments it
    cannot take.

    >>> import numpy as np, revsrc
    >>> def f(x):
    ...     return np.sum(np.array([x, x]))
    >>> revsrc.jit(f)(1.0)
    Traceback (most recent call last):
        ...
    revsrc.errors.NotCompilable: [E502] ...
    """
    code = "E502"


class JaxUnavailable(RevsrcError):
    """``backend="jax"`` without JAX installed (the ``jax`` extra:
    ``pip install "revsrc[jax]"``). A program that should run with or without JAX can
    fall back to the default backend:

    >>> import revsrc
    >>> def f(x):
    ...     return x * x
    >>> try:
    ...     slope = float(revsrc.grad(f, backend="jax")(3.0))
    ... except revsrc.errors.JaxUnavailable:       # E601: JAX is not installed
    ...     slope = revsrc.grad(f)(3.0)
    >>> slope
    6.0
    """
    code = "E601"


class JaxDataDependent(RevsrcError):
    """``backend="jax"``: control flow that depends on a value computed from the
    differentiated arguments, which a compiled XLA program cannot follow (yet).

    >>> import numpy as np, revsrc
    >>> def f(x):
    ...     while np.sum(x) < 10.0:
    ...         x = np.concatenate([x, x])      # the loop's x changes shape
    ...     return np.sum(x)
    >>> revsrc.grad(f, backend="jax")(np.array([1.0, 2.0]))
    Traceback (most recent call last):
        ...
    revsrc.errors.JaxDataDependent: [E602] ...
    """
    code = "E602"


class JaxNotLowered(RevsrcError):
    """``backend="jax"``: an operation with no jax.numpy lowering.

    >>> import numpy as np, revsrc
    >>> def f(x):
    ...     return np.sum(np.partition(x, 1)[:1])
    >>> revsrc.grad(f, backend="jax")(np.array([3.0, 1.0, 2.0]))
    Traceback (most recent call last):
        ...
    revsrc.errors.JaxNotLowered: [E603] ...
    """
    code = "E603"


class JaxStepsExceeded(RevsrcError):
    """``backend="jax"``: a while loop that saves values for its adjoint still running
    after ``max_steps`` iterations (the bound of its save buffers).

    >>> import revsrc
    >>> def f(x):
    ...     while x < 100.0:
    ...         x = x * x
    ...     return x
    >>> revsrc.grad(f, backend="jax", max_steps=2)(1.5)
    Traceback (most recent call last):
        ...
    revsrc.errors.JaxStepsExceeded: [E604] ...
    """
    code = "E604"


class JaxTraceTooLarge(RevsrcError):
    """``backend="jax"``: a traced program too large to compile, refused before XLA
    compiles it. Python loops with a static trip count under 32, or whose body uses
    its loop variable statically (``force[i] += ...``), unroll: nested ones multiply,
    and XLA's compile time and memory grow faster than the program.

    >>> import numpy as np, revsrc
    >>> from revsrc.backends.jax import loops
    >>> def f(x):
    ...     s = 0.0
    ...     for i in range(x.shape[0]):
    ...         for j in range(x.shape[0]):
    ...             s = s + x[i] * x[j]
    ...     return s
    >>> bound, loops.MAX_TRACE = loops.MAX_TRACE, 100   # lowered, for a short example
    >>> try:
    ...     revsrc.grad(f, backend="jax")(np.ones(8))
    ... finally:
    ...     loops.MAX_TRACE = bound
    Traceback (most recent call last):
        ...
    revsrc.errors.JaxTraceTooLarge: [E605] ...
    """
    code = "E605"
