# cython: embedsignature=True
"""Compiled parts of revsrc: the typed stacks, the tensor kernels, the scalar engine.

Each tensor kernel is a ``noexcept nogil`` function on typed memoryviews (fused over
float32/float64) behind a thin ``def`` wrapper. The wrappers accept only what the
kernel can take directly (same shape, same float32/float64 dtype, C-contiguous) and
raise otherwise; ``revsrc.tensor`` normalizes inputs and falls back to NumPy.
Compiler directives are set once, in setup.py.
"""
from cpython.buffer cimport (PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release,
                            PyObject_GetBuffer)
from cython cimport floating
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, realloc

cimport numpy as cnp
import numpy as np

cnp.import_array()
cnp.import_ufunc()

# ----- Stacks -----
# The generated adjoint saves overwritten values on a FloatStack and branch
# decisions / trip counts on an IntStack. Capacity doubles, so n pushes cost O(n).

cdef enum:
    _STACK_START = 64


cdef class _Stack:
    """Storage shared by the typed stacks: 8-byte slots, capacity doubling."""
    cdef void* slots
    cdef Py_ssize_t size
    cdef Py_ssize_t cap

    def __cinit__(self, Py_ssize_t capacity=_STACK_START):
        if capacity < 1:
            capacity = 1
        self.slots = malloc(capacity * 8)
        if self.slots == NULL:
            raise MemoryError()
        self.size = 0
        self.cap = capacity

    def __dealloc__(self):
        free(self.slots)

    cdef int _grow(self) except -1 nogil:
        cdef Py_ssize_t cap = 2 * self.cap
        cdef void* grown = realloc(self.slots, cap * 8)
        if grown == NULL:
            with gil:
                raise MemoryError()
        self.slots = grown
        self.cap = cap
        return 0

    cdef int _empty(self) except -1 nogil:
        with gil:
            raise IndexError(f"pop from empty {type(self).__name__}")

    def clear(self):
        """Forget every value; the capacity is kept for reuse."""
        self.size = 0

    def __len__(self):
        return self.size

    @property
    def nbytes(self):
        """Bytes held by the values on the stack."""
        return self.size * 8

    @property
    def capacity(self):
        """Values the stack holds before it next grows."""
        return self.cap


cdef class FloatStack(_Stack):
    """A growable stack of C doubles.

    >>> s = FloatStack(); s.push(1.5); s.pop()
    1.5
    """

    cdef inline int cpush(self, double v) except -1 nogil:
        """C-level push for compiled callers."""
        if self.size == self.cap:
            self._grow()
        (<double*>self.slots)[self.size] = v
        self.size += 1
        return 0

    cdef inline double cpop(self) except? -1 nogil:
        """C-level pop for compiled callers; IndexError when empty."""
        if self.size == 0:
            self._empty()
        self.size -= 1
        return (<double*>self.slots)[self.size]

    cpdef void push(self, double v):
        self.cpush(v)

    cpdef double pop(self):
        return self.cpop()


cdef class IntStack(_Stack):
    """A growable stack of C int64 values.

    >>> s = IntStack(); s.push(3); s.pop()
    3
    """

    cdef inline int cpush(self, int64_t v) except -1 nogil:
        """C-level push for compiled callers."""
        if self.size == self.cap:
            self._grow()
        (<int64_t*>self.slots)[self.size] = v
        self.size += 1
        return 0

    cdef inline int64_t cpop(self) except? -1 nogil:
        """C-level pop for compiled callers; IndexError when empty."""
        if self.size == 0:
            self._empty()
        self.size -= 1
        return (<int64_t*>self.slots)[self.size]

    cpdef void push(self, int64_t v):
        self.cpush(v)

    cpdef int64_t pop(self):
        return self.cpop()


# ----- Scatter-add (fancy-index adjoints) -----

cdef Py_ssize_t _scatter_add_rows(floating[:, ::1] out,        # OUT
                                  const Py_ssize_t[::1] idx,   # IN
                                  const floating[:, ::1] vals  # IN
                                  ) noexcept nogil:
    """out[idx[k], :] += vals[k, :] for k in order; returns -1, or the first bad k."""
    cdef Py_ssize_t n = out.shape[0], m = out.shape[1]
    cdef Py_ssize_t k, j, i
    for k in range(idx.shape[0]):
        i = idx[k]
        if i < 0:
            i += n
        if i < 0 or i >= n:
            return k
        for j in range(m):
            out[i, j] += vals[k, j]
    return -1


def scatter_add_rows(out, idx, vals):
    """out[idx[k], :] += vals[k, :], in place; repeated indices accumulate.

    out: 2-D C-contiguous writable float32/float64 array (modified).
    idx: 1-D integer indices into out's rows (negative counts from the end).
    vals: (len(idx), out.shape[1]) values, cast to out's dtype.
    """
    if not isinstance(out, np.ndarray) or out.ndim != 2:
        raise ValueError("scatter_add_rows: out must be a 2-D ndarray")
    if out.dtype != np.float64 and out.dtype != np.float32:
        raise TypeError(f"scatter_add_rows: out must be float32 or float64, not {out.dtype}")
    cdef const Py_ssize_t[::1] iv = np.ascontiguousarray(idx, dtype=np.intp).reshape(-1)
    vals = np.ascontiguousarray(vals, dtype=out.dtype)
    if vals.ndim != 2 or vals.shape[0] != iv.shape[0] or vals.shape[1] != out.shape[1]:
        raise ValueError(
            f"scatter_add_rows: vals of shape {vals.shape} do not match "
            f"{iv.shape[0]} indices into rows of length {out.shape[1]}")
    cdef double[:, ::1] od
    cdef const double[:, ::1] vd
    cdef float[:, ::1] of
    cdef const float[:, ::1] vf
    cdef Py_ssize_t bad
    if out.dtype == np.float64:
        od = out
        vd = vals
        with nogil:
            bad = _scatter_add_rows(od, iv, vd)
    else:
        of = out
        vf = vals
        with nogil:
            bad = _scatter_add_rows(of, iv, vf)
    if bad >= 0:
        raise IndexError(
            f"index {iv[bad]} is out of bounds for axis 0 with size {out.shape[0]} "
            f"(rows before position {bad} were already added)")


# ----- Fused elementwise adjoints -----
# One pass, one allocation. Constants are typed as the operands so float32 math
# stays float32 and every result is bit-identical to the NumPy expression.
# These kernels take raw pointers rather than memoryviews: at 64x128 elements the
# whole loop takes ~2 us, and acquiring three memoryviews (plus the reshapes to
# 1-D) cost another ~2 us, which was the difference between beating NumPy and not.

cdef void _tanh_vjp(Py_ssize_t n,
                    const floating* g,    # IN
                    const floating* ans,  # IN
                    floating* out         # OUT
                    ) noexcept nogil:
    """out = g * (1 - ans * ans)"""
    cdef floating one = 1
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = g[i] * (one - ans[i] * ans[i])


cdef void _relu_vjp(Py_ssize_t n,
                    const floating* g,  # IN
                    const floating* x,  # IN
                    floating* out       # OUT
                    ) noexcept nogil:
    """out = g if x >= 0 else 0 (ties go to x, as in np.maximum's rule)"""
    cdef floating zero = 0, gi
    cdef Py_ssize_t i
    for i in range(n):
        gi = g[i]  # loaded unconditionally so the select vectorizes without branches
        out[i] = gi if x[i] >= zero else zero


cdef void _sigmoid_vjp(Py_ssize_t n,
                       const floating* g,    # IN
                       const floating* ans,  # IN
                       floating* out         # OUT
                       ) noexcept nogil:
    """out = g * ans * (1 - ans)"""
    cdef floating one = 1
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = g[i] * ans[i] * (one - ans[i])


cdef enum:
    _TANH = 0
    _RELU = 1
    _SIGMOID = 2

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)


cdef object _elementwise(int which, str name, g, a):
    if not (isinstance(g, np.ndarray) and isinstance(a, np.ndarray)):
        raise TypeError(f"{name}: both arguments must be ndarrays")
    dt = g.dtype
    # Native float dtypes are singletons, so `is` is both the fast and the strict test.
    if a.dtype is not dt or (dt is not _F64 and dt is not _F32):
        raise TypeError(f"{name}: need two float32 or two float64 arrays, not {dt} and {a.dtype}")
    if g.shape != a.shape:
        raise ValueError(f"{name}: shapes differ: {g.shape} vs {a.shape}")
    out = np.empty_like(g, order="C")
    cdef Py_buffer bg, ba, bo
    # PyBUF_C_CONTIGUOUS makes NumPy itself refuse strided inputs.
    PyObject_GetBuffer(g, &bg, PyBUF_C_CONTIGUOUS)
    try:
        PyObject_GetBuffer(a, &ba, PyBUF_C_CONTIGUOUS)
        try:
            PyObject_GetBuffer(out, &bo, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)
            _run_elementwise(which, dt is _F64, bg.len // bg.itemsize, bg.buf, ba.buf, bo.buf)
            PyBuffer_Release(&bo)
        finally:
            PyBuffer_Release(&ba)
    finally:
        PyBuffer_Release(&bg)
    return out


cdef void _run_elementwise(int which, bint f64, Py_ssize_t n,
                           void* g, void* a, void* out) noexcept:
    with nogil:
        if f64:
            if which == _TANH:
                _tanh_vjp(n, <double*>g, <double*>a, <double*>out)
            elif which == _RELU:
                _relu_vjp(n, <double*>g, <double*>a, <double*>out)
            else:
                _sigmoid_vjp(n, <double*>g, <double*>a, <double*>out)
        else:
            if which == _TANH:
                _tanh_vjp(n, <float*>g, <float*>a, <float*>out)
            elif which == _RELU:
                _relu_vjp(n, <float*>g, <float*>a, <float*>out)
            else:
                _sigmoid_vjp(n, <float*>g, <float*>a, <float*>out)


def tanh_vjp(g, ans):
    """g * (1 - ans * ans); g and ans: same shape, same float dtype, C-contiguous."""
    return _elementwise(_TANH, "tanh_vjp", g, ans)


def relu_vjp(g, x):
    """g where x >= 0 else 0 (adjoint of np.maximum(x, 0.0)); same rules as tanh_vjp."""
    return _elementwise(_RELU, "relu_vjp", g, x)


def sigmoid_vjp(g, ans):
    """g * ans * (1 - ans); same rules as tanh_vjp."""
    return _elementwise(_SIGMOID, "sigmoid_vjp", g, ans)


# ----- Scalar engine -----

include "_engine.pxi"
