"""What input checks and messages run: ``raise``, ``assert`` messages, f-strings.

They run in the forward sweep as they run in Python (a ``raise`` raises the user's
own exception, an assertion's message is built only when it fails) and carry no
gradient: an f-string of a differentiated value is text.
"""
from __future__ import annotations

import numpy as np

# the floating-point error settings to restore, one per errstate block entered and not
# left yet (an exception inside one leaves it: the derivative's caller restores them)
ENTERED = []


def raise_error(exc, *args, **kwargs):
    """``raise exc(*args, **kwargs)`` (an exception class), or ``raise exc`` (an
    exception, or a class given no arguments)."""
    if args or kwargs:
        exc = exc(*args, **kwargs)
    raise exc


def raise_error_from(exc, cause):
    """``raise exc from cause``."""
    raise exc from cause


def fail_assert(message):
    """An ``assert`` whose test failed, with the message the user wrote."""
    raise AssertionError(message)


def fstring(template, *values):
    """An f-string: ``template`` is the same text in ``str.format`` syntax, with
    ``values`` its fields in order (``f"{x!r:>8}"`` is ``"{0!r:>8}".format(x)``)."""
    return template.format(*values)


def errstate_enter(**settings):
    """Enter ``with np.errstate(**settings)``; returns the settings it replaced."""
    old = np.seterr(**settings)
    ENTERED.append(old)
    return old


def errstate_exit(old, **settings):
    """Leave the errstate block entered with the settings ``old`` replaced."""
    np.seterr(**old)
    if ENTERED:
        ENTERED.pop()


def restore_errstate():
    """After a derivative raised inside errstate blocks: the settings from before."""
    if ENTERED:
        np.seterr(**ENTERED[0])
        ENTERED.clear()
