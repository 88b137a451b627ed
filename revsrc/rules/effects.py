"""Calls made for what they do to state that holds no gradient: logging (the module's
functions and a logger's methods) and seeding NumPy's global random generator; and
the test a ``try`` statement makes of each operation of its body.

They are statements (revsrc/frontend/lower/effect_calls.py) that run in the forward
sweep, once per call of the derivative, in the program's order, as ``print`` does:
so a log shows the values of that call, and ``np.random.seed(s)`` followed by
``np.random.randn(...)`` draws what the plain call draws (a draw is a value with no
gradient: the forward sweep keeps it, the reverse sweep reads it and never draws
again). None carries a gradient; a value they return is refused.
"""
import logging

import numpy as np

from ..core import kinds as K
from . import kind_rules as KR
from .register import no_derivative
from ..runtime import attempts as _attempts, vectorized as _vectorized

LOGGING_FUNCTIONS = (logging.debug, logging.info, logging.warning, logging.error,
                     logging.exception, logging.critical, logging.log)
# a logger's methods run as methods of a value with no gradient (ir.call_method)
LOGGER_METHODS = ("debug", "info", "warning", "error", "exception", "critical", "log")
STATE_CALLS = (np.random.seed,)

no_derivative(*LOGGING_FUNCTIONS, kind=KR.constant(K.NONE))
no_derivative(*STATE_CALLS, kind=KR.constant(K.NONE))

# The test a try statement's lowering makes before each operation of its body
# (revsrc/runtime/attempts.py): an int, which handler catches, with no gradient.
no_derivative(_attempts.attempt, kind=KR.constant(K.INT))

# np.vectorize's results checked as the plain call would cast them (a check with no
# result, revsrc/runtime/vectorized.py)
no_derivative(_vectorized.check_results, kind=KR.constant(K.NONE))
