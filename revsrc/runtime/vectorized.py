"""What the lowering of ``np.vectorize(f)(x, ...)`` calls at run time
(revsrc/frontend/lower/mapping.py): the call is ``f`` applied to each element, the
results gathered with ``np.array``; np.vectorize gives them the dtype of the first
result, and this check refuses a call whose results would be cast otherwise (an int
first, floats after), so no value differs from the plain call's.
"""
from __future__ import annotations

import numpy as np

from .. import errors


def check_results(results):
    """Refuse (E305) results np.vectorize would cast to its first result's dtype, or
    none at all (np.vectorize refuses an empty input without otypes)."""
    if len(results) == 0:
        raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
    first = np.asarray(results[0]).dtype
    if np.asarray(results).dtype != first:
        raise errors.UnsupportedValue(
            f"np.vectorize would cast every result to the first one's dtype ({first}), "
            "which the derivative does not follow",
            hint="return the same type from every call (a float: 1.0, not 1), or pass "
                 "otypes=[float]")
