"""When the native tier (native.py) takes an engine program over: its switch, and the
watch for a program that gets hot.

Kept apart from the tier itself so that a program that never gets hot never loads it:
native.py's imports (ctypes, subprocess, hashlib, threading, the C translator) cost a
fresh process more than its whole first derivative does. The caller's callback, which
the engine calls once when the program has done enough work, imports the tier.

- ``REVSRC_NATIVE=0`` turns the tier off; ``REVSRC_NATIVE=sync`` compiles in the
  calling thread before going on (for tests and benchmarks).
- ``REVSRC_NATIVE_AFTER`` is how much work (runs plus loop iterations) makes a
  derivative's program hot (default 100,000).
"""
from __future__ import annotations

import os

__all__ = ["HOT_AFTER", "MAX_WORDS", "attach", "eligible", "mode"]

HOT_AFTER = 100_000
MAX_WORDS = 60_000          # bigger programs stay on the VM (the compiler would crawl)


def mode():
    """'off', 'sync' or 'background', from ``REVSRC_NATIVE``."""
    v = os.environ.get("REVSRC_NATIVE", "1").strip().lower()
    if v in ("0", "off", "no", "false"):
        return "off"
    if v == "sync":
        return "sync"
    return "background"


def eligible(program):
    return program.ncode <= MAX_WORDS


def attach(program, when_hot):
    """Call ``when_hot(program)`` (which hands it to the native tier) once ``program``
    is hot, counted from the environment at the time it is attached."""
    if mode() == "off" or not eligible(program):
        return
    try:
        after = int(os.environ.get("REVSRC_NATIVE_AFTER", HOT_AFTER))
    except ValueError:
        after = HOT_AFTER
    program.notify_when_hot(after, when_hot)
