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
    """Base class: ``code``, ``filename``, ``lineno``, ``col``, ``line``, ``hint``."""

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


def located(exc, loc):
    """A copy of the refusal ``exc`` that names ``loc`` (the statement it came from),
    for one raised where no line was known."""
    import copy
    out = copy.copy(exc)
    RevsrcError.__init__(out, exc.message, loc=loc, hint=exc.hint)
    return out


class UnsupportedSyntax(RevsrcError):
    """A statement or expression the transformation does not follow (try, yield,
    a with block over anything but np.errstate, a set comprehension...)."""
    code = "E101"


class UnsupportedControlFlow(RevsrcError):
    code = "E102"


class RecursionNotSupported(RevsrcError):
    code = "E103"


class HigherOrderNotSupported(RevsrcError):
    code = "E104"


class StaticValueError(RevsrcError):
    """A value known while transforming (a container with constant keys, an object,
    a call's arguments) used in a way it does not allow: a missing key or field, an
    index out of range, unpacking the wrong number of items, the wrong arguments to
    a function revsrc inlines, containers of different shapes returned, a container
    read after the branch that chose it. Python would fail on most of these when
    the line runs; revsrc finds them while transforming."""
    code = "E105"
    hint = ("check the key, index, field, attribute or number of items against the "
            "value it is taken from (revsrc reads it while transforming; Python would "
            "fail when the line runs)")


class UndefinedName(RevsrcError):
    """A name the function reads that is not defined where it is read (a global
    that does not exist, a closure variable not bound yet)."""
    code = "E106"
    hint = ("define the name before the function is called (a global), or before the "
            "nested function that reads it is called (a closure variable)")


class NoSource(RevsrcError):
    code = "E201"


class NoRule(RevsrcError):
    code = "E202"


class StaleSource(RevsrcError):
    """The source file no longer matches the function that is running."""
    code = "E204"


class NotDifferentiableArgument(RevsrcError):
    code = "E301"


class NonScalarOutput(RevsrcError):
    code = "E302"


class BadArgnums(RevsrcError):
    code = "E303"


class NotDifferentiableHere(RevsrcError):
    """The function has no derivative at the values it was called with (a matrix
    function at a rank-deficient matrix, eigenvectors of a repeated eigenvalue)."""
    code = "E304"


class UnsupportedValue(RevsrcError):
    """An argument of a type whose arithmetic differs from what the rules assume
    (np.matrix, masked arrays)."""
    code = "E305"


class SideEffect(RevsrcError):
    code = "E401"


class GlobalWrite(RevsrcError):
    code = "E402"


class MutatesArgument(RevsrcError):
    code = "E403"


class UnfollowableWrite(RevsrcError):
    """A write through a view or an alias whose target revsrc cannot follow."""
    code = "E404"


class EngineUnavailable(RevsrcError):
    code = "E501"


class NotCompilable(RevsrcError):
    """revsrc.jit / revsrc.vmap: a function the engine cannot compile, or arguments it
    cannot take."""
    code = "E502"


class JaxUnavailable(RevsrcError):
    """``backend="jax"`` without JAX installed (the ``jax`` extra)."""
    code = "E601"


class JaxDataDependent(RevsrcError):
    """``backend="jax"``: control flow that depends on a value computed from the
    differentiated arguments, which a compiled XLA program cannot follow (yet)."""
    code = "E602"


class JaxNotLowered(RevsrcError):
    """``backend="jax"``: an operation with no jax.numpy lowering."""
    code = "E603"


class JaxStepsExceeded(RevsrcError):
    """``backend="jax"``: a while loop that saves values for its adjoint still running
    after ``max_steps`` iterations (the bound of its save buffers)."""
    code = "E604"
