"""Which NumPy functions return a new array: the ``view`` fact "never".

A write into an array is followed through every value that may share its memory
(revsrc/passes/views.py). What may share it is decided the safe way round: a value
made by a function not known to copy may be a view of its operands (``np.einsum``
returns one for ``"ii->i"``, ``np.array(a, copy=False)`` and ``a.view()`` do), and a
write through it, or into what it may view, is checked when it runs. The functions
below never return memory of an argument (unless given ``out=``, which the pass
sees): their results are new arrays, and a write into an operand does not reach them.
Ufuncs and the operators are new arrays by what they are (views.py asks them
directly); ``view="always"``/``"maybe"`` are declared with each function's record.
A function missing here is only checked more, never taken for a copy.
"""
from __future__ import annotations

import numpy as np

from ..primitives import declare

_NEW = (
    # reductions and statistics
    np.all, np.any, np.amax, np.amin, np.max, np.min, np.argmax, np.argmin, np.sum,
    np.prod, np.mean, np.average, np.median, np.std, np.var, np.nansum, np.nanmean,
    np.nanmax, np.nanmin,
    np.cumsum, np.cumprod, np.count_nonzero, np.allclose, np.array_equal, np.isclose,
    np.trace, np.cov, np.gradient, np.trapezoid, np.interp, np.polyval,
    np.convolve,
    # products
    np.dot, np.inner, np.outer, np.tensordot, np.kron, np.cross,
    # new arrays from shapes and values
    np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like,
    np.full_like, np.eye, np.identity, np.arange, np.linspace, np.tri, np.indices,
    np.copy,
    # joins, repeats and rearrangements that copy
    np.concatenate, np.stack, np.vstack, np.hstack, np.dstack, np.column_stack,
    np.append, np.tile, np.repeat, np.roll, np.pad, np.tril, np.triu, np.sort,
    np.argsort, np.partition, np.where, np.select, np.take, np.take_along_axis,
    np.clip, np.around, np.round, np.fix, np.sinc, np.angle, np.searchsorted,
    np.digitize, np.nonzero, np.flatnonzero, np.argwhere, np.unravel_index,
    np.ravel_multi_index,
    # linear algebra and transforms
    np.linalg.cholesky, np.linalg.det, np.linalg.eig, np.linalg.eigh, np.linalg.inv,
    np.linalg.lstsq, np.linalg.norm, np.linalg.pinv,
    np.linalg.slogdet, np.linalg.solve, np.linalg.svd,
    # (np.fft's transforms: declared with their rules, revsrc/rules/fft.py)
    # Not here: np.diff(a, n=0) and np.linalg.matrix_power(a, 1) return ``a`` itself
)
if hasattr(np, "row_stack"):
    _NEW += (np.row_stack,)

for _fn in _NEW:
    declare(_fn, view="never")
