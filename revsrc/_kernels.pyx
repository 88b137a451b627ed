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


# ----- Scatter-add over trailing axes (the im2col adjoint) -----
# The adjoint of x[:, :, ii, jj] (full slices, then integer arrays of one shape on
# every remaining axis): the arrays become flat offsets once (checked once), and each
# leading row of g is added at them. np.add.at checks and dispatches per element, and
# scatter_add_rows would need one row number per (leading row, offset) pair.
# (A gather kernel for the forward x[:, :, ii, jj] was measured and removed: it only
# tied np.take over a flat index, which runtime.take uses; both are bound by memory.)

cdef Py_ssize_t _flat_offsets(list arrays, cnp.npy_intp* dims, Py_ssize_t naxes,
                              Py_ssize_t k, Py_ssize_t* off) except -2:
    """off[j] = the flat offset of (arrays[0][j], ..., arrays[-1][j]) in dims, negative
    indices counted from the end; returns -1, or the first j out of range."""
    cdef Py_ssize_t d, j, i, n
    cdef const Py_ssize_t* idx
    cdef cnp.ndarray a
    for j in range(k):
        off[j] = 0
    for d in range(naxes):
        a = <cnp.ndarray>arrays[d]
        idx = <const Py_ssize_t*>cnp.PyArray_DATA(a)
        n = dims[d]
        for j in range(k):
            i = idx[j]
            if i < 0:
                i += n
            if i < 0 or i >= n:
                return j
            off[j] = off[j] * n + i
    return -1


cdef object _index_arrays(tuple index, Py_ssize_t lead):
    """index[lead:] as C-contiguous intp arrays of one shape, or None."""
    cdef list arrays = []
    for a in index[lead:]:
        if type(a) is not np.ndarray or a.dtype.kind not in "iu":
            return None
        arrays.append(a)
    try:
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        return None
    return [np.ascontiguousarray(np.broadcast_to(a, shape), dtype=np.intp)
            for a in arrays], shape


def add_at_trailing(out, tuple index, g):
    """``np.add.at(out, index, g)`` for ``index`` = full slices, then integer arrays
    indexing every remaining axis of ``out``, and ``g`` of the indexed shape (broadcast
    to it if smaller); repeated positions accumulate in order.
    Returns False, changing nothing, when this kernel does not apply.

    out: C-contiguous float32/float64 ndarray, modified in place.
    """
    if type(out) is not np.ndarray or len(index) != out.ndim:
        return False
    cdef cnp.ndarray oa = <cnp.ndarray>out
    cdef int t = cnp.PyArray_TYPE(oa)
    if (t != cnp.NPY_DOUBLE and t != cnp.NPY_FLOAT) or not cnp.PyArray_ISNOTSWAPPED(oa) \
            or not cnp.PyArray_IS_C_CONTIGUOUS(oa) or not cnp.PyArray_ISWRITEABLE(oa):
        return False
    cdef Py_ssize_t lead = 0
    while lead < len(index) and type(index[lead]) is slice and index[lead] == slice(None):
        lead += 1
    if lead == len(index):
        return False
    found = _index_arrays(index, lead)
    if found is None:
        return False
    arrays, ishape = found
    cdef Py_ssize_t naxes = len(index) - lead
    cdef Py_ssize_t k = 1, outer = 1, inner = 1, d
    for d in ishape:
        k *= d
    for d in range(lead):
        outer *= out.shape[d]
    for d in range(lead, out.ndim):
        inner *= out.shape[d]
    res_shape = out.shape[:lead] + tuple(ishape)
    try:
        vals = np.ascontiguousarray(np.broadcast_to(np.asarray(g, dtype=out.dtype), res_shape))
    except ValueError:
        return False
    cdef cnp.ndarray offs = np.empty(k, dtype=np.intp)
    cdef Py_ssize_t* off = <Py_ssize_t*>cnp.PyArray_DATA(offs)
    if _flat_offsets(arrays, cnp.PyArray_DIMS(oa) + lead, naxes, k, off) >= 0:
        return False
    cdef void* po = cnp.PyArray_DATA(oa)
    cdef void* pv = cnp.PyArray_DATA(<cnp.ndarray>vals)
    with nogil:
        if t == cnp.NPY_DOUBLE:
            _scatter_add(<double*>po, <const double*>pv, off, outer, inner, k)
        else:
            _scatter_add(<float*>po, <const float*>pv, off, outer, inner, k)
    return True


cdef void _scatter_add(floating* out,          # OUT: outer rows of inner items
                       const floating* vals,   # IN: outer rows of k items
                       const Py_ssize_t* off,  # IN: k offsets into a row
                       Py_ssize_t outer, Py_ssize_t inner, Py_ssize_t k) noexcept nogil:
    """out[o, off[j]] += vals[o, j], j in order"""
    cdef Py_ssize_t o, j
    cdef floating* row
    cdef const floating* v
    for o in range(outer):
        row = out + o * inner
        v = vals + o * k
        for j in range(k):
            row[off[j]] += v[j]


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


# NumPy's own inner loops, looked up once: a fused kernel that needs exp runs NumPy's
# loops on L1-sized blocks of its operands, so it gets NumPy's SIMD speed and NumPy's
# bits, and touches main memory once instead of once per operation.
ctypedef void (*_loop_fn)(char** args, cnp.npy_intp* dims, cnp.npy_intp* steps,
                          void* data) noexcept nogil

cdef struct _Loop:
    _loop_fn fn
    void* data

cdef struct _Loops:     # one dtype's loops
    _Loop exp
    _Loop subtract
    _Loop add
    _Loop divide
    _Loop multiply
    _Loop maximum
    _Loop minimum

cdef _Loops _LOOPS_F64, _LOOPS_F32
cdef bint _loops_ready = 0


cdef _Loop _find_loop(cnp.ufunc uf, int typenum) except *:
    """``uf``'s inner loop with every operand of ``typenum``."""
    cdef _Loop out
    cdef int i, j, nargs = uf.nin + uf.nout
    cdef bint match
    for i in range(uf.ntypes):
        match = 1
        for j in range(nargs):
            if uf.types[i * nargs + j] != typenum:
                match = 0
                break
        if match:
            out.fn = <_loop_fn>uf.functions[i]
            out.data = uf.data[i]
            return out
    raise ValueError(f"numpy.{uf.__name__} has no loop for type {typenum}")


cdef _Loop _find_loop_or_null(cnp.ufunc uf, int typenum) except *:
    """`_find_loop`, or a loop with no function where NumPy has none of this type (the
    loop-body kernels then leave the work to NumPy)."""
    cdef _Loop out
    try:
        return _find_loop(uf, typenum)
    except ValueError:
        out.fn = NULL
        out.data = NULL
        return out


cdef _Loops _find_loops(int typenum) except *:
    cdef _Loops out
    out.exp = _find_loop(np.exp, typenum)
    out.subtract = _find_loop(np.subtract, typenum)
    out.add = _find_loop(np.add, typenum)
    out.divide = _find_loop(np.divide, typenum)
    out.multiply = _find_loop_or_null(np.multiply, typenum)
    out.maximum = _find_loop_or_null(np.maximum, typenum)
    out.minimum = _find_loop_or_null(np.minimum, typenum)
    return out


cdef int _load_loops() except -1:
    global _LOOPS_F64, _LOOPS_F32, _loops_ready
    if not _loops_ready:
        _LOOPS_F64 = _find_loops(cnp.NPY_DOUBLE)
        _LOOPS_F32 = _find_loops(cnp.NPY_FLOAT)
        _loops_ready = 1
    return 0


cdef inline void _run2(_Loop loop, const void* a, Py_ssize_t sa, const void* b,
                       Py_ssize_t sb, void* out, Py_ssize_t so,
                       cnp.npy_intp n) noexcept nogil:
    """out = loop(a, b) over n elements, strides in bytes (0: one value for all)."""
    cdef char* args[3]
    cdef cnp.npy_intp steps[3]
    args[0] = <char*>a
    args[1] = <char*>b
    args[2] = <char*>out
    steps[0] = sa
    steps[1] = sb
    steps[2] = so
    loop.fn(args, &n, steps, loop.data)


cdef inline void _run1(_Loop loop, const void* a, void* out, Py_ssize_t size,
                       cnp.npy_intp n) noexcept nogil:
    cdef char* args[2]
    cdef cnp.npy_intp steps[2]
    args[0] = <char*>a
    args[1] = <char*>out
    steps[0] = size
    steps[1] = size
    loop.fn(args, &n, steps, loop.data)


cdef enum:
    _BLOCK = 512          # elements per block: a few blocks of doubles stay in L1


cdef void _logaddexp_vjp(Py_ssize_t n,
                         const floating* g,  # IN
                         const floating* x,  # IN: n values, or one when sx is 0
                         const floating* y,  # IN: n values, or one when sy is 0
                         floating* out,      # OUT
                         _Loops* loops, Py_ssize_t sx, Py_ssize_t sy) noexcept nogil:
    """out = g / (1 + exp(y - x)), each operation NumPy's own loop on blocks: the
    adjoint of logaddexp(x, y) for x, which is g * exp(x - logaddexp(x, y)), without
    the cancellation in x - logaddexp(x, y) (and without reading logaddexp(x, y))"""
    cdef floating t[_BLOCK]
    cdef floating one = 1
    cdef Py_ssize_t size = sizeof(floating)
    cdef Py_ssize_t k = 0, m
    while k < n:
        m = n - k if n - k < _BLOCK else _BLOCK
        _run2(loops.subtract, y + k * sy, sy * size, x + k * sx, sx * size, t, size, m)
        _run1(loops.exp, t, t, size, m)
        _run2(loops.add, &one, 0, t, size, t, size, m)
        _run2(loops.divide, g + k, size, t, size, out + k, size, m)
        k += m


cdef enum:
    _TANH = 0
    _RELU = 1
    _SIGMOID = 2
    _LOGADDEXP = 3

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_NAMES = {_TANH: "tanh_vjp", _RELU: "relu_vjp", _SIGMOID: "sigmoid_vjp",
          _LOGADDEXP: "logaddexp_vjp"}


cdef inline bint _plain_float_array(object a, int typenum, int nd,
                                    cnp.npy_intp* dims) noexcept:
    """``a`` is an exact ndarray of ``typenum``, native byte order, aligned,
    C-contiguous, of shape ``dims`` (or, with typenum -1, any float32/float64)."""
    if not cnp.PyArray_CheckExact(a):
        return 0
    cdef cnp.ndarray arr = <cnp.ndarray>a
    cdef int t = cnp.PyArray_TYPE(arr)
    if typenum >= 0 and t != typenum:
        return 0
    if t != cnp.NPY_DOUBLE and t != cnp.NPY_FLOAT:
        return 0
    if not (cnp.PyArray_IS_C_CONTIGUOUS(arr) and cnp.PyArray_ISALIGNED(arr)
            and cnp.PyArray_ISNOTSWAPPED(arr)):
        return 0
    if dims != NULL:
        if cnp.PyArray_NDIM(arr) != nd:
            return 0
        if not cnp.PyArray_CompareLists(cnp.PyArray_DIMS(arr), dims, nd):
            return 0
    return 1


cdef object _fused(int which, object g, object a, object b):
    """The kernel's result, or None when the operands are not exact ndarrays of one
    shape and one float32/float64 dtype, native, aligned and C-contiguous (``b`` is
    read only by the kernels of three operands)."""
    if not _plain_float_array(g, -1, 0, NULL):
        return None
    cdef cnp.ndarray ga = <cnp.ndarray>g
    cdef int t = cnp.PyArray_TYPE(ga)
    cdef int nd = cnp.PyArray_NDIM(ga)
    cdef cnp.npy_intp* dims = cnp.PyArray_DIMS(ga)
    # logaddexp's x and y may also be Python floats (np.logaddexp(0.0, z)): stride 0
    cdef double sa64 = 0.0, sb64 = 0.0
    cdef float sa32 = 0.0, sb32 = 0.0
    cdef Py_ssize_t stride_a = 1, stride_b = 1
    cdef void* pa
    cdef void* pb = NULL
    if which == _LOGADDEXP and type(a) is float:
        sa64 = <double>a
        sa32 = <float>sa64
        pa = <void*>&sa64 if t == cnp.NPY_DOUBLE else <void*>&sa32
        stride_a = 0
    elif _plain_float_array(a, t, nd, dims):
        pa = cnp.PyArray_DATA(<cnp.ndarray>a)
    else:
        return None
    if which == _LOGADDEXP:
        if type(b) is float:
            sb64 = <double>b
            sb32 = <float>sb64
            pb = <void*>&sb64 if t == cnp.NPY_DOUBLE else <void*>&sb32
            stride_b = 0
        elif _plain_float_array(b, t, nd, dims):
            pb = cnp.PyArray_DATA(<cnp.ndarray>b)
        else:
            return None
        if t == cnp.NPY_FLOAT and ((stride_a == 0 and <double>sa32 != sa64) or
                                   (stride_b == 0 and <double>sb32 != sb64)):
            return None  # a float that float32 cannot hold: NumPy decides the dtype
        _load_loops()
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(nd, dims, t, 0)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(ga)
    cdef void* pg = cnp.PyArray_DATA(ga)
    cdef void* po = cnp.PyArray_DATA(out)
    with nogil:
        if t == cnp.NPY_DOUBLE:
            if which == _TANH:
                _tanh_vjp(n, <double*>pg, <double*>pa, <double*>po)
            elif which == _RELU:
                _relu_vjp(n, <double*>pg, <double*>pa, <double*>po)
            elif which == _SIGMOID:
                _sigmoid_vjp(n, <double*>pg, <double*>pa, <double*>po)
            else:
                _logaddexp_vjp(n, <double*>pg, <double*>pa, <double*>pb, <double*>po,
                               &_LOOPS_F64, stride_a, stride_b)
        else:
            if which == _TANH:
                _tanh_vjp(n, <float*>pg, <float*>pa, <float*>po)
            elif which == _RELU:
                _relu_vjp(n, <float*>pg, <float*>pa, <float*>po)
            elif which == _SIGMOID:
                _sigmoid_vjp(n, <float*>pg, <float*>pa, <float*>po)
            else:
                _logaddexp_vjp(n, <float*>pg, <float*>pa, <float*>pb, <float*>po,
                               &_LOOPS_F32, stride_a, stride_b)
    return out


cdef object _fused_or_raise(int which, object g, object a, object b=None):
    out = _fused(which, g, a, b)
    if out is not None:
        return out
    name = _NAMES[which]
    operands = (g, a) if which != _LOGADDEXP else (g, a, b)
    if not all(isinstance(o, np.ndarray) for o in operands):
        raise TypeError(f"{name}: every argument must be an ndarray")
    dt = g.dtype
    if any(o.dtype != dt for o in operands) or (dt != _F64 and dt != _F32):
        raise TypeError(f"{name}: need float32 or float64 arrays of one dtype, not "
                        f"{', '.join(str(o.dtype) for o in operands)}")
    if any(o.shape != g.shape for o in operands):
        raise ValueError(f"{name}: shapes differ: {', '.join(str(o.shape) for o in operands)}")
    raise ValueError(f"{name}: need native-order, aligned, C-contiguous arrays")


def elementwise_or_none(int which, g, a, b=None):
    """Kernel ``which`` (TANH, RELU, SIGMOID, LOGADDEXP) on ``g, a[, b]``, or None when
    they are not arrays it can take directly (the caller then runs NumPy)."""
    if which < _TANH or which > _LOGADDEXP:
        raise ValueError(f"no elementwise kernel {which}")
    return _fused(which, g, a, b)


TANH, RELU, SIGMOID, LOGADDEXP = _TANH, _RELU, _SIGMOID, _LOGADDEXP


def add_into(acc, t):
    """acc += t with NumPy's own add loop, when both are plain float32/float64 arrays of
    one shape (not 0-d: acc + t of those is a scalar) and dtype (native, aligned,
    C-contiguous) and acc is writable; returns
    whether it did (else the caller adds). Without the ufunc machinery this costs ~0.1 us
    beyond the loop, where np.add(acc, t, out=acc) costs ~0.6 us."""
    if not _plain_float_array(acc, -1, 0, NULL):
        return False
    cdef cnp.ndarray a = <cnp.ndarray>acc
    if cnp.PyArray_NDIM(a) == 0 or not cnp.PyArray_ISWRITEABLE(a) or \
            not _plain_float_array(t, cnp.PyArray_TYPE(a), cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a)):
        return False
    _load_loops()
    cdef _Loop loop = _LOOPS_F64.add if cnp.PyArray_TYPE(a) == cnp.NPY_DOUBLE else _LOOPS_F32.add
    cdef Py_ssize_t size = cnp.PyArray_ITEMSIZE(a)
    cdef void* pa = cnp.PyArray_DATA(a)
    cdef void* pt = cnp.PyArray_DATA(<cnp.ndarray>t)
    cdef cnp.npy_intp n = cnp.PyArray_SIZE(a)
    with nogil:
        _run2(loop, pa, size, pt, size, pa, size, n)
    return True


def tanh_vjp(g, ans):
    """g * (1 - ans * ans); g and ans: same shape, same float dtype, C-contiguous."""
    return _fused_or_raise(_TANH, g, ans)


def relu_vjp(g, x):
    """g where x >= 0 else 0 (adjoint of np.maximum(x, 0.0)); same rules as tanh_vjp."""
    return _fused_or_raise(_RELU, g, x)


def sigmoid_vjp(g, ans):
    """g * ans * (1 - ans); same rules as tanh_vjp."""
    return _fused_or_raise(_SIGMOID, g, ans)


def logaddexp_vjp(g, x, y):
    """g / (1 + exp(y - x)), the adjoint of ``np.logaddexp(x, y)`` for x (swap x and y
    for y's); exp is NumPy's own loop, run on blocks. Same rules as tanh_vjp."""
    return _fused_or_raise(_LOGADDEXP, g, x, y)


# ----- Small-array operations of loop bodies -----
# An RNN step is a dozen NumPy calls on 16 x 32 arrays, and most of each call is
# NumPy's dispatch, not arithmetic: a + b costs ~0.5 us where the add loop takes
# ~0.1, a bias row added to a batch (16, 32) + (32,) ~1.2 us, np.dot's Python-level
# wrapper ~0.25 us. Inside loops over arrays, generated code calls these instead
# (revsrc/prune.py, loop_kernels). Each runs NumPy's own float32/float64 loop
# (looked up once, as for the fused adjoints), or the same C function np.dot runs,
# so the bits are NumPy's; anything else, and any floating-point exception raised
# while it ran, goes back to NumPy itself, which then warns or raises as the
# user's np.errstate says.

cdef extern from *:
    """
    #include <fenv.h>
    #if defined(FE_DIVBYZERO) && defined(FE_OVERFLOW) && defined(FE_UNDERFLOW) && defined(FE_INVALID)
    #define REVSRC_FE_FLAGS (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
    #else
    #define REVSRC_FE_FLAGS 0
    #endif
    """
    int feclearexcept(int) nogil
    int fetestexcept(int) nogil
    # the flags NumPy's errstate speaks of; 0 where the C library cannot test them,
    # and then every kernel here leaves the work to NumPy
    int REVSRC_FE_FLAGS

cdef extern from "numpy/arrayobject.h":
    object _matrix_product "PyArray_MatrixProduct2"(object, object, cnp.PyArrayObject*)
    object _transpose "PyArray_Transpose"(cnp.PyArrayObject*, cnp.PyArray_Dims*)

cdef inline int _fp_flags() noexcept nogil:
    # not "inexact", which is up after most arithmetic
    return fetestexcept(REVSRC_FE_FLAGS)


cdef inline void _clear_fp_flags() noexcept nogil:
    # feclearexcept is slow (on x86 it rewrites the x87 environment too, ~0.3 us): only
    # when a flag is up
    if _fp_flags():
        feclearexcept(REVSRC_FE_FLAGS)


cdef enum:
    # below this many elements the loop takes less time than handing the GIL over and back
    _NOGIL_FROM = 4096

cdef enum:
    _ADD = 0
    _SUBTRACT = 1
    _MULTIPLY = 2
    _DIVIDE = 3
    _MAXIMUM = 4
    _MINIMUM = 5


cdef inline _Loop _binary_loop(int op, int t) noexcept:
    cdef _Loops* loops = &_LOOPS_F64 if t == cnp.NPY_DOUBLE else &_LOOPS_F32
    if op == _ADD:
        return loops.add
    if op == _SUBTRACT:
        return loops.subtract
    if op == _MULTIPLY:
        return loops.multiply
    if op == _MAXIMUM:
        return loops.maximum
    if op == _MINIMUM:
        return loops.minimum
    return loops.divide


cdef int _rows(_Loop loop, bint a_is_big, char* pbig, char* pother, Py_ssize_t sb,
               char* pout, Py_ssize_t rows, Py_ssize_t cols, Py_ssize_t size) noexcept nogil:
    """out = big op other row by row (other: one row, a whole array or one value, by
    its stride sb); returns the floating-point flags the loop raised."""
    cdef Py_ssize_t i, step = cols * size
    _clear_fp_flags()
    for i in range(rows):
        if a_is_big:
            _run2(loop, pbig + i * step, size, pother, sb, pout + i * step, size, cols)
        else:
            _run2(loop, pother, sb, pbig + i * step, size, pout + i * step, size, cols)
    return _fp_flags()


cdef int _unary(_Loop loop, void* x, void* out, Py_ssize_t size,
                Py_ssize_t n) noexcept nogil:
    _clear_fp_flags()
    _run1(loop, x, out, size, n)
    return _fp_flags()


cdef object _binary(int op, object a, object b):
    """``a op b`` through NumPy's loop when a and b are plain float arrays of one
    dtype (native, aligned, C-contiguous, not 0-d) of one shape, or a matrix and a
    row of its width either way round, or a float64 array and a Python float;
    None for anything else and when the loop raised a floating-point exception."""
    cdef cnp.ndarray big
    cdef int t, nd
    cdef cnp.npy_intp* dims
    cdef Py_ssize_t size, rows, cols, sb
    cdef char* pother
    cdef double scalar
    cdef bint a_is_big
    # the operand of more axes (a when equal) is the one the result takes its shape from
    cdef bint a_ok = _plain_float_array(a, -1, 0, NULL) and cnp.PyArray_NDIM(<cnp.ndarray>a) > 0
    cdef bint b_ok = _plain_float_array(b, -1, 0, NULL) and cnp.PyArray_NDIM(<cnp.ndarray>b) > 0
    if a_ok and not (b_ok and cnp.PyArray_NDIM(<cnp.ndarray>b) > cnp.PyArray_NDIM(<cnp.ndarray>a)):
        big = <cnp.ndarray>a
        a_is_big = 1
    elif b_ok:
        big = <cnp.ndarray>b
        a_is_big = 0
    else:
        return None
    t = cnp.PyArray_TYPE(big)
    nd = cnp.PyArray_NDIM(big)
    dims = cnp.PyArray_DIMS(big)
    size = cnp.PyArray_ITEMSIZE(big)
    other = b if a_is_big else a
    rows = 1
    cols = cnp.PyArray_SIZE(big)
    if type(other) is float:
        if t != cnp.NPY_DOUBLE:
            return None  # NumPy's weak-scalar rules for float32 stay NumPy's
        scalar = <double>other
        pother = <char*>&scalar
        sb = 0
    elif _plain_float_array(other, t, nd, dims):
        pother = <char*>cnp.PyArray_DATA(<cnp.ndarray>other)
        sb = size
    elif nd == 2 and _plain_float_array(other, t, 1, dims + 1):
        pother = <char*>cnp.PyArray_DATA(<cnp.ndarray>other)
        sb = size
        rows = dims[0]
        cols = dims[1]
    else:
        return None
    _load_loops()
    cdef _Loop loop = _binary_loop(op, t)
    if loop.fn == NULL or REVSRC_FE_FLAGS == 0:
        return None
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(nd, dims, t, 0)
    cdef char* pbig = <char*>cnp.PyArray_DATA(big)
    cdef char* pout = <char*>cnp.PyArray_DATA(out)
    cdef int raised
    if rows * cols >= _NOGIL_FROM:
        with nogil:
            raised = _rows(loop, a_is_big, pbig, pother, sb, pout, rows, cols, size)
    else:
        raised = _rows(loop, a_is_big, pbig, pother, sb, pout, rows, cols, size)
    if raised:
        return None
    return out


def add(a, b):
    """``a + b``; NumPy's add loop without its dispatch on small plain float arrays,
    Python's ``+`` for anything else."""
    out = _binary(_ADD, a, b)
    return a + b if out is None else out


def subtract(a, b):
    """``a - b``, as `add`."""
    out = _binary(_SUBTRACT, a, b)
    return a - b if out is None else out


def multiply(a, b):
    """``a * b``, as `add`."""
    out = _binary(_MULTIPLY, a, b)
    return a * b if out is None else out


def true_divide(a, b):
    """``a / b``, as `add`."""
    out = _binary(_DIVIDE, a, b)
    return a / b if out is None else out


# The ufuncs themselves, called by name: the same loops, and the ufunc for anything
# else (np.add of two lists adds them; np.true_divide(1.0, 0.0) is inf, not an error).

def np_add(a, b):
    """``np.add(a, b)``, as `add` with the ufunc for anything else."""
    out = _binary(_ADD, a, b)
    return np.add(a, b) if out is None else out


def np_subtract(a, b):
    """``np.subtract(a, b)``, as `np_add`."""
    out = _binary(_SUBTRACT, a, b)
    return np.subtract(a, b) if out is None else out


def np_multiply(a, b):
    """``np.multiply(a, b)``, as `np_add`."""
    out = _binary(_MULTIPLY, a, b)
    return np.multiply(a, b) if out is None else out


def np_true_divide(a, b):
    """``np.true_divide(a, b)``, as `np_add`."""
    out = _binary(_DIVIDE, a, b)
    return np.true_divide(a, b) if out is None else out


def maximum(a, b):
    """``np.maximum(a, b)``, as `np_add`."""
    out = _binary(_MAXIMUM, a, b)
    return np.maximum(a, b) if out is None else out


def minimum(a, b):
    """``np.minimum(a, b)``, as `np_add`."""
    out = _binary(_MINIMUM, a, b)
    return np.minimum(a, b) if out is None else out


# The one-argument ufuncs of loop bodies, by position: their loops per dtype, looked
# up on first use
_UNARY_UFUNCS = (np.tanh, np.exp, np.log, np.sin, np.cos, np.sqrt, np.negative,
                 np.absolute)
cdef enum:
    _NUNARY = 8
cdef _Loop _UNARY_F64[_NUNARY]
cdef _Loop _UNARY_F32[_NUNARY]
cdef bint _unary_ready = 0


cdef int _load_unary() except -1:
    global _unary_ready
    cdef int k
    if not _unary_ready:
        for k in range(_NUNARY):
            _UNARY_F64[k] = _find_loop_or_null(_UNARY_UFUNCS[k], cnp.NPY_DOUBLE)
            _UNARY_F32[k] = _find_loop_or_null(_UNARY_UFUNCS[k], cnp.NPY_FLOAT)
        _unary_ready = 1
    return 0


cdef object _unary_kernel(int which, object x):
    """ufunc ``which`` of _UNARY_UFUNCS on ``x`` through NumPy's own loop for a plain
    float array (not 0-d); None for anything else and when the loop raised a
    floating-point exception."""
    cdef cnp.ndarray xa, out
    cdef int raised, t
    cdef _Loop loop
    if not (_plain_float_array(x, -1, 0, NULL) and cnp.PyArray_NDIM(<cnp.ndarray>x) > 0):
        return None
    xa = <cnp.ndarray>x
    _load_unary()
    t = cnp.PyArray_TYPE(xa)
    out = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(xa), cnp.PyArray_DIMS(xa), t, 0)
    loop = _UNARY_F64[which] if t == cnp.NPY_DOUBLE else _UNARY_F32[which]
    if loop.fn == NULL or REVSRC_FE_FLAGS == 0:
        return None
    if cnp.PyArray_SIZE(xa) >= _NOGIL_FROM:
        with nogil:
            raised = _unary(loop, cnp.PyArray_DATA(xa), cnp.PyArray_DATA(out),
                            cnp.PyArray_ITEMSIZE(xa), cnp.PyArray_SIZE(xa))
    else:
        raised = _unary(loop, cnp.PyArray_DATA(xa), cnp.PyArray_DATA(out),
                        cnp.PyArray_ITEMSIZE(xa), cnp.PyArray_SIZE(xa))
    return None if raised else out


def tanh(x):
    """``np.tanh(x)`` through NumPy's own loop for a plain float array (not 0-d), the
    ufunc for anything else."""
    out = _unary_kernel(0, x)
    return np.tanh(x) if out is None else out


def exp(x):
    """``np.exp(x)``, as `tanh`."""
    out = _unary_kernel(1, x)
    return np.exp(x) if out is None else out


def log(x):
    """``np.log(x)``, as `tanh`."""
    out = _unary_kernel(2, x)
    return np.log(x) if out is None else out


def sin(x):
    """``np.sin(x)``, as `tanh`."""
    out = _unary_kernel(3, x)
    return np.sin(x) if out is None else out


def cos(x):
    """``np.cos(x)``, as `tanh`."""
    out = _unary_kernel(4, x)
    return np.cos(x) if out is None else out


def sqrt(x):
    """``np.sqrt(x)``, as `tanh`."""
    out = _unary_kernel(5, x)
    return np.sqrt(x) if out is None else out


def np_negative(x):
    """``np.negative(x)``, as `tanh`."""
    out = _unary_kernel(6, x)
    return np.negative(x) if out is None else out


def negative(x):
    """``-x``: as `np_negative` for a plain float array, Python's ``-`` for anything else."""
    out = _unary_kernel(6, x)
    return -x if out is None else out


def absolute(x):
    """``np.abs(x)``, as `tanh`."""
    out = _unary_kernel(7, x)
    return np.absolute(x) if out is None else out


cdef object _product(object a, object b):
    """What np.dot returns for exact ndarrays: the C function it calls, with a 0-d
    result unwrapped to a NumPy scalar as np.dot does."""
    out = _matrix_product(a, b, NULL)
    if cnp.PyArray_CheckExact(out) and cnp.PyArray_NDIM(<cnp.ndarray>out) == 0:
        return out[()]
    return out


def dot(a, b):
    """``np.dot(a, b)``: for two exact ndarrays the C function np.dot itself calls."""
    if cnp.PyArray_CheckExact(a) and cnp.PyArray_CheckExact(b):
        return _product(a, b)
    return np.dot(a, b)


def unbroadcast(g, x):
    """revsrc.runtime.tensor.unbroadcast(g, x): ``g`` itself when both are exact ndarrays of one
    shape (nothing was broadcast: the common case in loops), else that function."""
    if cnp.PyArray_CheckExact(g) and cnp.PyArray_CheckExact(x):
        nd = cnp.PyArray_NDIM(<cnp.ndarray>g)
        if nd == cnp.PyArray_NDIM(<cnp.ndarray>x) and cnp.PyArray_CompareLists(
                cnp.PyArray_DIMS(<cnp.ndarray>g), cnp.PyArray_DIMS(<cnp.ndarray>x), nd):
            return g
    from revsrc.runtime.tensor import unbroadcast as general
    return general(g, x)


def accumulate(acc, t):
    """revsrc.runtime.accumulate(acc, t): ``t`` added into ``acc`` in place when add_into
    takes them, else ``acc + t``."""
    if add_into(acc, t):
        return acc
    return acc + t


cdef inline bint _real(object x, int nd) noexcept:
    """x is an exact float32/float64 ndarray of rank nd (any rank when nd is -1)."""
    if not cnp.PyArray_CheckExact(x):
        return 0
    cdef int t = cnp.PyArray_TYPE(<cnp.ndarray>x)
    if t != cnp.NPY_DOUBLE and t != cnp.NPY_FLOAT:
        return 0
    return nd < 0 or cnp.PyArray_NDIM(<cnp.ndarray>x) == nd


def dot_grad_a(g, a, b):
    """The adjoint of ``np.dot(a, b)`` for a: ``np.dot(g, b.T)`` for real float
    matrices, else revsrc.runtime.grads.linalg.dot_grad_a (which also keeps a real
    argument's adjoint real when an operand is complex)."""
    if _real(g, 2) and _real(a, 2) and _real(b, 2):
        return _product(g, _transpose(<cnp.PyArrayObject*>b, NULL))
    from revsrc.runtime.grads.linalg import dot_grad_a as general
    return general(g, a, b)


def dot_grad_b(g, a, b):
    """The adjoint of ``np.dot(a, b)`` for b: ``np.dot(a.T, g)`` for a real float
    matrix ``a`` and ``g`` of b's rank (1 or 2), else revsrc.runtime.grads.linalg.dot_grad_b."""
    cdef int nd
    if _real(a, 2) and _real(g, -1) and _real(b, -1):
        nd = cnp.PyArray_NDIM(<cnp.ndarray>g)
        if nd == cnp.PyArray_NDIM(<cnp.ndarray>b) and (nd == 1 or nd == 2):
            return _product(_transpose(<cnp.PyArrayObject*>a, NULL), g)
    from revsrc.runtime.grads.linalg import dot_grad_b as general
    return general(g, a, b)


# ----- Memory pool (array data of generated adjoints) -----
# On the machines we measured, most of a large array's cost in generated code is not
# arithmetic but first touch: glibc serves big blocks with fresh mmap() pages and
# returns them on free, so every temporary of the im2col convolution page-faults
# again on every call (2,300 faults, ~10 ms, for a 1.3 ms gradient). XLA reuses its
# buffers; this is the same idea through NumPy's own hook (NEP 49): while a
# generated adjoint runs, NumPy allocates array data through this handler, which
# keeps freed blocks of 16 KiB and more for reuse (bounded in count and bytes).
# Values are untouched: only where the bytes live changes.

from cpython.pycapsule cimport PyCapsule_New
from cpython.pythread cimport (PyThread_type_lock, PyThread_allocate_lock,
                               PyThread_acquire_lock, PyThread_release_lock, WAIT_LOCK)
from cpython.ref cimport PyObject, Py_XDECREF

cdef extern from "numpy/ndarraytypes.h":
    ctypedef struct PyDataMemAllocator:
        void* ctx
        void* (*malloc)(void* ctx, size_t size) noexcept nogil
        void* (*calloc)(void* ctx, size_t nelem, size_t elsize) noexcept nogil
        void* (*realloc)(void* ctx, void* ptr, size_t new_size) noexcept nogil
        void (*free)(void* ctx, void* ptr, size_t size) noexcept nogil
    ctypedef struct PyDataMem_Handler:
        char name[127]
        unsigned char version
        PyDataMemAllocator allocator

cdef extern from "numpy/arrayobject.h":
    PyObject* PyDataMem_SetHandler(PyObject* handler) except NULL

cdef enum:
    _POOL_HEADER = 64          # bytes before each block: its capacity (keeps 16-byte alignment)
    _POOL_MIN = 16384          # smaller blocks go straight to malloc/free
    _POOL_PAGE = 4096          # cached capacities are whole pages
    _POOL_SLOTS = 64

cdef struct _PoolState:
    void* blocks[_POOL_SLOTS]      # free blocks (their bases), newest last
    size_t caps[_POOL_SLOTS]
    Py_ssize_t n
    size_t held                    # bytes in free blocks
    size_t limit                   # most bytes kept
    size_t hits
    size_t misses

cdef _PoolState _pool
_pool.n = 0
_pool.held = 0
_pool.limit = 128 * 1024 * 1024
_pool.hits = 0
_pool.misses = 0
cdef PyThread_type_lock _pool_lock = PyThread_allocate_lock()


cdef inline size_t _pool_capacity(size_t size) noexcept nogil:
    cdef size_t total = size + _POOL_HEADER
    if total < _POOL_MIN:
        return total
    return (total + _POOL_PAGE - 1) // _POOL_PAGE * _POOL_PAGE


cdef void* _pool_take(size_t cap) noexcept nogil:
    """A free block of capacity ``cap`` from the pool (its base), or NULL."""
    cdef Py_ssize_t i, best = -1
    cdef void* base = NULL
    PyThread_acquire_lock(_pool_lock, WAIT_LOCK)
    for i in range(_pool.n - 1, -1, -1):   # newest first: most likely still in cache
        if _pool.caps[i] == cap:
            best = i
            break
    if best >= 0:
        base = _pool.blocks[best]
        _pool.held -= cap
        _pool.n -= 1
        for i in range(best, _pool.n):
            _pool.blocks[i] = _pool.blocks[i + 1]
            _pool.caps[i] = _pool.caps[i + 1]
        _pool.hits += 1
    else:
        _pool.misses += 1
    PyThread_release_lock(_pool_lock)
    return base


cdef void* _pool_malloc(void* ctx, size_t size) noexcept nogil:
    cdef size_t cap = _pool_capacity(size)
    cdef void* base = NULL
    if cap >= _POOL_MIN:
        base = _pool_take(cap)
    if base == NULL:
        base = malloc(cap)
        if base == NULL:
            return NULL
    (<size_t*>base)[0] = cap
    return <char*>base + _POOL_HEADER


cdef void* _pool_calloc(void* ctx, size_t nelem, size_t elsize) noexcept nogil:
    cdef size_t size
    if elsize != 0 and nelem > (<size_t>-1 - _POOL_PAGE - _POOL_HEADER) // elsize:
        return NULL
    size = nelem * elsize
    cdef void* p = _pool_malloc(ctx, size)
    if p != NULL:
        memset(p, 0, size)
    return p


cdef void _pool_free(void* ctx, void* ptr, size_t size) noexcept nogil:
    if ptr == NULL:
        return
    cdef void* base = <char*>ptr - _POOL_HEADER
    cdef size_t cap = (<size_t*>base)[0]
    cdef void* old = NULL
    cdef Py_ssize_t i
    if cap < _POOL_MIN or cap > _pool.limit:
        free(base)
        return
    PyThread_acquire_lock(_pool_lock, WAIT_LOCK)
    # Make room: the oldest blocks go first.
    while _pool.n > 0 and (_pool.n == _POOL_SLOTS or _pool.held + cap > _pool.limit):
        old = _pool.blocks[0]
        _pool.held -= _pool.caps[0]
        _pool.n -= 1
        for i in range(_pool.n):
            _pool.blocks[i] = _pool.blocks[i + 1]
            _pool.caps[i] = _pool.caps[i + 1]
        PyThread_release_lock(_pool_lock)
        free(old)
        PyThread_acquire_lock(_pool_lock, WAIT_LOCK)
    _pool.blocks[_pool.n] = base
    _pool.caps[_pool.n] = cap
    _pool.n += 1
    _pool.held += cap
    PyThread_release_lock(_pool_lock)


cdef void* _pool_realloc(void* ctx, void* ptr, size_t new_size) noexcept nogil:
    if ptr == NULL:
        return _pool_malloc(ctx, new_size)
    cdef size_t cap = (<size_t*>(<char*>ptr - _POOL_HEADER))[0]
    if new_size + _POOL_HEADER <= cap:
        return ptr
    cdef void* out = _pool_malloc(ctx, new_size)
    if out == NULL:
        return NULL
    memcpy(out, ptr, cap - _POOL_HEADER)
    _pool_free(ctx, ptr, 0)
    return out


cdef PyDataMem_Handler _pool_handler
strcpy(_pool_handler.name, b"revsrc_pool")
_pool_handler.version = 1
_pool_handler.allocator.ctx = NULL
_pool_handler.allocator.malloc = _pool_malloc
_pool_handler.allocator.calloc = _pool_calloc
_pool_handler.allocator.realloc = _pool_realloc
_pool_handler.allocator.free = _pool_free

cdef object _pool_capsule = PyCapsule_New(&_pool_handler, b"mem_handler", NULL)


def pool_enter():
    """Make the pool NumPy's data allocator in the current context; returns the
    previous handler, for `pool_exit`."""
    cdef PyObject* old = PyDataMem_SetHandler(<PyObject*>_pool_capsule)
    cdef object prev = <object>old
    Py_XDECREF(old)
    return prev


def pool_exit(prev):
    """Restore the handler `pool_enter` returned."""
    cdef PyObject* old = PyDataMem_SetHandler(<PyObject*>prev)
    Py_XDECREF(old)


def pool_stats():
    """(free blocks held, bytes held, byte limit, hits, misses)."""
    return _pool.n, _pool.held, _pool.limit, _pool.hits, _pool.misses


def pool_release():
    """Free every block the pool holds (arrays in use are not affected)."""
    cdef void* base
    while True:
        PyThread_acquire_lock(_pool_lock, WAIT_LOCK)
        if _pool.n == 0:
            PyThread_release_lock(_pool_lock)
            return
        _pool.n -= 1
        base = _pool.blocks[_pool.n]
        _pool.held -= _pool.caps[_pool.n]
        PyThread_release_lock(_pool_lock)
        free(base)


def pool_set_limit(Py_ssize_t nbytes):
    """Keep at most ``nbytes`` of free blocks (0 keeps none); returns the old limit."""
    if nbytes < 0:
        raise ValueError("pool_set_limit: nbytes must be >= 0")
    old = _pool.limit
    _pool.limit = nbytes
    if _pool.held > _pool.limit:
        pool_release()
    return old


# ----- Scalar engine -----

include "_engine.pxi"
