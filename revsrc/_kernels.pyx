# cython: embedsignature=True
"""Compiled parts of revsrc: the typed stacks, the tensor kernels, the scalar engine.

Each tensor kernel is a ``noexcept nogil`` function on typed memoryviews (fused over
float32/float64) behind a thin ``def`` wrapper. The wrappers accept only what the
kernel can take directly (same shape, same float32/float64 dtype, C-contiguous) and
raise otherwise; ``revsrc.runtime.tensor`` normalizes inputs and falls back to NumPy.
Compiler directives are set once, in setup.py.
"""
from cpython.buffer cimport (PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release,
                            PyObject_GetBuffer)
from cython cimport floating
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset, strcpy

cimport numpy as cnp
import numpy as np

cnp.import_array()
cnp.import_ufunc()

# One extension, one include per subject: each reads the cimports above and what
# the includes before it define (the loop kernels run the fused section's NumPy loops).
include "_stacks.pxi"
include "_scatter.pxi"
include "_fused.pxi"
include "_loop_kernels.pxi"
include "_pool.pxi"
include "_guards.pxi"
include "_engine.pxi"
include "_derivative.pxi"
include "_engine_numpy.pxi"
include "_engine_map.pxi"
include "_engine_lanes.pxi"
include "_smallarr.pxi"
