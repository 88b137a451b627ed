"""revsrc: reverse-mode automatic differentiation by source transformation.

>>> import math, revsrc
>>> def f(x, y):
...     return math.sin(x) * y + x * x
>>> round(revsrc.grad(f)(0.7, 2.0), 9)
2.929684375

The public names are in ``__all__``; ``revsrc.__version__`` is the version string.
"""
__version__ = "0.1.0"

import gc as _gc

# The import makes some hundred thousand objects that live as long as the process
# (modules, functions, rule records). The cyclic collector's young generations would
# examine them again and again while they are made (an eighth of the import): they
# are made with it paused, then handed to the oldest generation at once (freeze and
# unfreeze move them there without a collection). Nothing is left uncollected: a
# full collection still examines them. (Not when the caller has frozen objects of
# its own, which unfreeze would release, or has the collector off.)
_collecting = _gc.isenabled()
_gc.disable()
try:
    try:
        from . import _kernels  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised by a broken install only
        raise ImportError(
            "revsrc's compiled kernels (revsrc._kernels) are missing or failed to load "
            f"({exc}). Reinstall with a C compiler available: pip install . "
            "(from a source checkout, python setup.py build_ext --inplace also works)."
        ) from exc

    import importlib
    from typing import Any, Callable, Optional

    from . import custom as _custom
    from .api import disassemble, grad, source, value_and_grad
    from .errors import RevsrcError
    from .core.pytree import (register_pytree, tree_flatten, tree_leaves, tree_map,
                              tree_structure, tree_unflatten)
    from .runtime.arith import stop_gradient
finally:
    if _collecting:
        if _gc.get_freeze_count() == 0:
            _gc.freeze()
            _gc.unfreeze()
        _gc.enable()


def defvjp(func: Callable[..., Any], rule: Optional[Callable[..., Any]] = None, *,
           broadcast: bool = False) -> Callable[..., Any]:
    """Register ``rule(g, ans, *args)`` as the derivative of ``func``.

    Use it directly, ``revsrc.defvjp(func, rule)``, or as a decorator. ``g`` is the
    adjoint of the output, ``ans`` the output, ``args`` the inputs. The rule returns
    one expression per argument of ``func`` (``None`` for an argument with no
    gradient). ``broadcast=True`` sums each contribution back to its argument's
    shape, for elementwise functions.

    >>> import numpy as np, revsrc
    >>> def softplus(x):
    ...     return np.log1p(np.exp(x))
    >>> @revsrc.defvjp(softplus, broadcast=True)
    ... def softplus_rule(g, ans, x):
    ...     return g / (1.0 + np.exp(-x))
    >>> def f(x):
    ...     return np.sum(softplus(x))
    >>> np.round(revsrc.grad(f)(np.array([0.0, 1.0])), 6)
    array([0.5     , 0.731059])
    """
    register = _custom.vjp(func, broadcast=broadcast)
    if rule is None:
        return register
    register(rule)
    return rule


def nondiff(*funcs: Callable[..., Any]) -> Any:
    """Mark ``funcs`` as having no derivative (their outputs carry no gradient).

    >>> import revsrc
    >>> def threshold(x):
    ...     return 1.0 if x > 0.5 else 0.0
    >>> _ = revsrc.nondiff(threshold)
    >>> def f(x):
    ...     return x * threshold(x)
    >>> revsrc.grad(f)(2.0)
    1.0
    """
    return _custom.mark_nondiff(*funcs)


# The other transformations load when a program first names one (``revsrc.jit``,
# ``from revsrc import vmap``): they build on grad's modules, and a script that only
# differentiates never pays for theirs (they were a sixth of ``import revsrc``).
_LATE = {"jvp": "compose", "vjp": "compose", "linearize": "compose", "jacfwd": "compose",
         "jacrev": "compose", "jacobian": "compose", "hessian": "compose", "hvp": "compose",
         "jit": "jitted", "vmap": "mapped"}


def __getattr__(name):
    home = _LATE.get(name)
    if home is None:
        raise AttributeError(f"module 'revsrc' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value      # (read once: later reads find it here)
    return value


def __dir__():
    return sorted(set(globals()) | set(_LATE))


__all__ = ["grad", "value_and_grad", "jvp", "vjp", "linearize", "jacfwd", "jacrev",
           "jacobian", "hessian", "hvp", "jit", "vmap", "source", "disassemble", "defvjp",
           "nondiff", "stop_gradient", "register_pytree", "tree_flatten", "tree_unflatten",
           "tree_leaves", "tree_structure", "tree_map", "RevsrcError", "__version__"]
