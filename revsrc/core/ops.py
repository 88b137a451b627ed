"""Python's in-place operators and the operations they compute.

``x op= y`` calls an in-place operator (``operator.iadd``); on a number it is the
plain operation (``operator.add``), on an array a write into it. The front end writes
``x op= y`` with the in-place operator, and the pass that follows writes through
views and aliases (revsrc/passes/views.py) turns it back into the plain operation
where nothing else can see the difference. Both read these tables.
"""
from __future__ import annotations

import operator

# In-place operators (what ``x op= y`` calls) and the operation they compute.
INPLACE = {
    operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
    operator.itruediv: operator.truediv, operator.ifloordiv: operator.floordiv,
    operator.imod: operator.mod, operator.ipow: operator.pow,
    operator.imatmul: operator.matmul, operator.iand: operator.and_,
    operator.ior: operator.or_, operator.ixor: operator.xor,
    operator.ilshift: operator.lshift, operator.irshift: operator.rshift,
}
OF_BINARY = {v: k for k, v in INPLACE.items()}   # x + y -> the in-place x += y
