"""What a checkpointed loop asks at run time.

A loop whose state holds arrays cannot know, when it is transformed, how many bytes
one iteration saves or one snapshot takes: the arrays' sizes arrive with the
arguments. At the loop's entry the generated code asks here for its segment length
and its number of snapshots, from the budget and the arrays it starts from
(revsrc/passes/reverse/checkpoint; the Python path only).

A gradient is first built with its long loops stored, and a loop whose saves turn
out not to fit calls `needs_checkpointing`, which stops the run (the engine stops
the same way, with its own instruction): the caller then builds the checkpointed
form and calls again. Short loops so never pay for building the long form.
"""
from __future__ import annotations

import numpy as np

from .._kernels import EngineCheckpoint

_OBJECT = 112    # bytes a NumPy array object takes besides its data


def _size(v):
    return (v.nbytes + _OBJECT) if isinstance(v, np.ndarray) else 32


def unit_length(budget, fixed, objects, *state):
    """Iterations per segment: ``budget`` bytes over what one iteration saves
    (``fixed`` bytes of numbers and ``objects`` objects, each counted as large as the
    largest array of the loop's ``state``)."""
    largest = max([_size(v) for v in state] + [32])
    return max(1, int(budget) // (int(fixed) + int(objects) * largest or 1))


def snapshot_count(budget, *state):
    """How many snapshots of ``state`` (and their positions) fit in ``budget`` bytes."""
    return max(1, int(budget) // (sum(_size(v) for v in state) + 8))


def needs_checkpointing():
    """Stop a run of a gradient built with its loops stored: a loop's saves would
    exceed the memory bound (its caller builds the checkpointed form)."""
    raise EngineCheckpoint("a loop's saves would exceed the memory bound")
