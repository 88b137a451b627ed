"""What a ``try`` statement's lowering calls to learn, when the program runs, whether
an operation of the try body raises one of the exceptions its handlers catch
(revsrc/frontend/lower/trying.py).

`attempt` runs the operation once and says which handler would catch what it raised
(0: nothing raised); the program then runs the operation itself, with its rule, only
where it did not raise, and the handler that caught otherwise. An exception no handler
catches is raised from here, at the user's line, as the user's own call raises it.
"""
from __future__ import annotations


def attempt(handlers, fn, *args, **kwargs):
    """0 when ``fn(*args, **kwargs)`` returns; else the number (from 1) of the first
    of ``handlers`` (one tuple of exception classes per ``except`` clause) that
    catches what it raised; re-raised when none does."""
    try:
        fn(*args, **kwargs)
    except BaseException as exc:
        for k, classes in enumerate(handlers):
            if isinstance(exc, classes):
                return k + 1
        raise
    return 0
