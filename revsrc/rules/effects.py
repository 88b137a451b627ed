"""Calls made for what they do to state that holds no gradient: logging (the module's
functions and a logger's methods) and seeding NumPy's global random generator; and
the test a ``try`` statement makes of each operation of its body.

They are statements (revsrc/frontend/lower/effect_calls.py) that run in the forward
sweep, once per call of the derivative, in the program's order, as ``print`` does:
so a log shows the values of that call, and ``np.random.seed(s)`` followed by
``np.random.randn(...)`` draws what the plain call draws (a draw is a value with no
gradient: the forward sweep keeps it, the reverse sweep reads it and never draws
again). None carries a gradient; a value they return is refused.

``logging`` and ``numpy.random`` are not imported here: together they were a third
of ``import revsrc``. A program can only call their functions once its module has
imported them, so their records are registered then: at once if they are loaded when
revsrc is, else when a lookup first meets one of their functions
(`primitives.defer`), and `effect_functions` reads them from ``sys.modules``.
"""
import sys

from ..core import kinds as K
from ..primitives import defer
from . import kind_rules as KR
from .register import no_derivative
from ..runtime import attempts as _attempts, vectorized as _vectorized

LOGGING_NAMES = ("debug", "info", "warning", "error", "exception", "critical", "log")
# a logger's methods run as methods of a value with no gradient (ir.call_method)
LOGGER_METHODS = LOGGING_NAMES
# (module, its functions called for their effect on state)
MODULES = (("logging", LOGGING_NAMES), ("numpy.random", ("seed",)))


def effect_functions():
    """The logging functions and ``np.random.seed``, of those modules loaded now (a
    function of a module not loaded cannot be in a program yet)."""
    found = ()
    for module, names in MODULES:
        mod = sys.modules.get(module)
        if mod is not None:
            found += tuple(getattr(mod, n) for n in names)
    return found


def _register(module, names):
    mod = sys.modules[module]
    no_derivative(*(getattr(mod, n) for n in names), kind=KR.constant(K.NONE))


def _claims(module, names):
    def claims(fn):
        # (runs on every lookup that misses, until it holds: the module's name first)
        if getattr(fn, "__module__", None) != module:
            return False
        mod = sys.modules.get(module)
        return mod is not None and any(fn is getattr(mod, n, None) for n in names)
    return claims


def register_loaded():
    """Register the records of the modules above that are loaded now (for tests and
    tools that list the rule table, after importing them: `rules.load_optional`)."""
    for module, names in MODULES:
        if module in sys.modules:
            _register(module, names)


for _module, _names in MODULES:
    if _module in sys.modules:
        _register(_module, _names)
    else:
        defer(_claims(_module, _names),
              lambda module=_module, names=_names: _register(module, names))

# The test a try statement's lowering makes before each operation of its body
# (revsrc/runtime/attempts.py): an int, which handler catches, with no gradient.
no_derivative(_attempts.attempt, kind=KR.constant(K.INT))

# np.vectorize's results checked as the plain call would cast them (a check with no
# result, revsrc/runtime/vectorized.py)
no_derivative(_vectorized.check_results, kind=KR.constant(K.NONE))
