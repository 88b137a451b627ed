# Small-array loops run compiled (included by _kernels.pyx; planned by
# revsrc/backends/smallarr.py, which says what the tier takes and why).
#
# A loop over small float64 arrays of fixed shapes runs here as one C loop over a
# fixed list of instructions on preallocated registers (one arena of doubles): no
# Python object per operation or per iteration. Each instruction calls what the
# Python path calls: NumPy's own ufunc inner loop (the `_Loop`s of _fused.pxi and
# _loop_kernels.pxi), np.matmul's own gufunc loop (the BLAS call NumPy makes for
# those strides), the fused adjoint kernels of _fused.pxi. So the bits are the
# Python path's.

from cpython.object cimport PyObject
from libc.string cimport memcmp

cdef extern from "Python.h":
    int PyErr_CheckSignals() except -1

cdef extern from *:
    """
    #ifndef FE_DIVBYZERO
    #define FE_DIVBYZERO 0
    #define FE_OVERFLOW 0
    #define FE_UNDERFLOW 0
    #define FE_INVALID 0
    #endif
    """
    int FE_DIVBYZERO, FE_OVERFLOW, FE_UNDERFLOW, FE_INVALID
    int feraiseexcept(int) nogil

cdef enum:
    SA_WIDTH = 12      # int64 words per instruction
    SA_UNARY = 0       # sub: _UNARY_UFUNCS index; out, a, n
    SA_BIN = 1         # sub: _ADD..; out, a, b, rows, cols, sa, ra, sb, rb (elements)
    SA_MATMUL = 2      # sub: is2_p; out, a, b, m, n, p, is1_m, is1_n, is2_n, os_m (elements)
    SA_TANHVJP = 3     # out, g, ans, n
    SA_MOV = 4         # out, a, n
    SA_FBIN = 5        # sub: _ADD..; out, a, b: Python floats (C doubles); n: 1 for
                       # NumPy scalars (NumPy's scalar math: / 0 is inf and a flag)
    SA_PUSH = 6        # out: tape offset in a row, a: register, n
    SA_POP = 7         # out: register, a: tape offset in a row, n
    SA_ROW = 8         # sub: base in views; out, a (base), n (row size), loop var, rows
    SA_DOT = 9         # out, a, b: indices into the run's arena views; np.dot's C function
    SA_LINALG = 10     # sub: SA_INV..; out, a, b, n (order), nrhs, a's 2 strides, b's 2
                       # (elements): np.linalg's gufunc loop
    SA_SIGNALS_EVERY = 256   # iterations between checks for Ctrl-C
    SA_SPREAD = 64     # a scalar operand is spread into a row of up to this many

    SA_DIVZERO = 1     # a Python float divided by zero: Python raises, the tier declines
    SA_INDEX = 2       # a row index out of range (or negative): Python's indexing decides
    SA_SINGULAR = 3    # np.linalg.inv or solve met a singular matrix: Python raises
    SA_NANS = 4        # arithmetic on two different NaNs: Python's decides which is kept

    # np.linalg's gufuncs (numpy.linalg._umath_linalg), by sub-opcode
    SA_INV = 0         # inv (m,m)->(m,m)
    SA_DET = 1         # det (m,m)->()
    SA_SOLVE1 = 2      # solve1 (m,m),(m)->(m): np.linalg.solve of a vector
    SA_SOLVE = 3       # solve (m,m),(m,n)->(m,n)
    SA_NLINALG = 4

cdef _Loop _MATMUL_F64
cdef _Loop _LINALG_F64[SA_NLINALG]
cdef bint _matmul_ready = 0


cdef int _sa_load() except -1:
    global _MATMUL_F64, _matmul_ready
    _load_loops()
    _load_unary()
    if not _matmul_ready:
        _MATMUL_F64 = _find_loop(np.matmul, cnp.NPY_DOUBLE)
        ul = np.linalg._umath_linalg
        for k, uf in enumerate((ul.inv, ul.det, ul.solve1, ul.solve)):
            _LINALG_F64[k] = _find_loop_or_null(uf, cnp.NPY_DOUBLE)
        _matmul_ready = 1
    return 0


def sa_linalg_ready():
    """Whether np.linalg's float64 loops were found (else the tier takes no loop
    that calls np.linalg)."""
    _sa_load()
    cdef int k
    for k in range(SA_NLINALG):
        if _LINALG_F64[k].fn == NULL:
            return False
    return True


cdef int _sa_linalg(double* R, const int64_t* w) noexcept:
    # np.linalg.inv, det and solve call these gufunc loops, which copy the matrix into
    # Fortran order and call LAPACK (gesv, getrf; det is sign * exp(sum of the logs of
    # |U's diagonal|)): calling the loop on the registers gives NumPy's bits. The loops
    # clear the floating-point flags; those raised before are kept. inv and solve run
    # under np.errstate(over, divide, under ignored; invalid: LinAlgError), so only
    # "invalid" (a singular matrix) counts there, and it makes Python run the loop.
    cdef char* args[3]
    cdef cnp.npy_intp dims[3]
    cdef cnp.npy_intp steps[10]
    cdef Py_ssize_t n = w[5], nrhs = w[6], j
    cdef int before = _fp_flags(), got
    cdef _Loop loop = _LINALG_F64[w[1]]
    if before:
        feclearexcept(REVSRC_FE_FLAGS)
    for j in range(10):
        steps[j] = 0
    dims[0] = 1
    dims[1] = n
    dims[2] = nrhs
    args[0] = <char*>(R + w[3])
    # the core strides NumPy passes: the matrix's rows and columns (w[7], w[8]: a
    # transposed view's in an adjoint), b's and the result's
    if w[1] == SA_INV or w[1] == SA_DET:
        args[1] = <char*>(R + w[2])
        steps[2] = w[7] * 8
        steps[3] = w[8] * 8
        steps[4] = n * 8        # inv's result: C order
        steps[5] = 8
    else:
        args[1] = <char*>(R + w[4])
        args[2] = <char*>(R + w[2])
        steps[3] = w[7] * 8
        steps[4] = w[8] * 8
        steps[5] = w[9] * 8
        if w[1] == SA_SOLVE1:
            steps[6] = 8
        else:
            steps[6] = w[10] * 8
            steps[7] = nrhs * 8
            steps[8] = 8
    loop.fn(args, dims, steps, loop.data)
    got = _fp_flags()
    if w[1] == SA_DET:
        before |= got
    elif got & FE_INVALID:
        return SA_SINGULAR
    if got:
        feclearexcept(REVSRC_FE_FLAGS)
    if before:
        feraiseexcept(before)
    return 0


cdef inline void _sa_matmul(double* out, double* a, double* b, const int64_t* w) noexcept nogil:
    # np.matmul's loop, one outer iteration; a missing (1-D) core dimension has stride 0
    cdef char* args[3]
    cdef cnp.npy_intp dims[4]
    cdef cnp.npy_intp steps[9]
    args[0] = <char*>a
    args[1] = <char*>b
    args[2] = <char*>out
    dims[0] = 1
    dims[1] = w[5]
    dims[2] = w[6]
    dims[3] = w[7]
    steps[0] = 0
    steps[1] = 0
    steps[2] = 0
    steps[3] = w[8] * 8
    steps[4] = w[9] * 8
    steps[5] = w[10] * 8
    steps[6] = w[1] * 8
    steps[7] = w[11] * 8
    steps[8] = 0 if w[7] == 1 else 8
    _MATMUL_F64.fn(args, dims, steps, _MATMUL_F64.data)


cdef inline void _sa_bin_spread(_Loop loop, double* R, const int64_t* w) noexcept:
    # NumPy's loops take a stride-0 operand by a slower path (~40 ns for 6 floats
    # against ~6): the one value is spread into a row first. Each result is still one
    # IEEE operation of the same two values in the same order, so the same bits.
    cdef double spread[SA_SPREAD]
    cdef Py_ssize_t r, j, cols = w[6]
    cdef double* a
    cdef double* b
    for r in range(w[5]):
        a = R + w[3] + r * w[8]
        b = R + w[4] + r * w[10]
        if w[7] == 0:
            for j in range(cols):
                spread[j] = a[0]
            a = spread
        if w[9] == 0:
            for j in range(cols):
                spread[j] = b[0]
            b = spread
        _run2(loop, a, 8, b, 8, R + w[2] + r * cols, 8, cols)


cdef int _sa_step(const int64_t* code, Py_ssize_t ncode, double* R, double* row_w,
                  double* row_r, PyObject** views) except -1:
    """One iteration of the body; ``row_w``/``row_r``: the tape rows pushed to and
    popped from. Returns 0, or SA_DIVZERO."""
    cdef Py_ssize_t k, r
    cdef int fl
    cdef const int64_t* w
    cdef _Loop loop
    cdef double x, y
    for k in range(ncode):
        w = code + k * SA_WIDTH
        if w[0] == SA_BIN:
            loop = _binary_loop(<int>w[1], cnp.NPY_DOUBLE)
            if (w[7] == 0 or w[9] == 0) and w[6] <= SA_SPREAD:
                _sa_bin_spread(loop, R, w)
            else:
                for r in range(w[5]):
                    _run2(loop, R + w[3] + r * w[8], w[7] * 8, R + w[4] + r * w[10],
                          w[9] * 8, R + w[2] + r * w[6], 8, w[6])
        elif w[0] == SA_UNARY:
            # NumPy's negative and absolute loops clear the flags when done (dropping
            # their own spurious ones), and so those of the instructions before: kept
            fl = _fp_flags()
            _run1(_UNARY_F64[w[1]], R + w[3], R + w[2], 8, w[4])
            if fl:
                feraiseexcept(fl)
        elif w[0] == SA_MATMUL:
            _sa_matmul(R + w[2], R + w[3], R + w[4], w)
        elif w[0] == SA_TANHVJP:
            _tanh_vjp[double](w[5], R + w[3], R + w[4], R + w[2])
        elif w[0] == SA_MOV:
            memcpy(R + w[2], R + w[3], w[4] * 8)
        elif w[0] == SA_FBIN:
            x = R[w[3]]
            y = R[w[4]]
            if x != x and y != y and memcmp(&x, &y, 8):
                # two NaNs: which one the result keeps is the compiled code's choice
                # (CPython's and NumPy's scalar math keep the second, this loop need not)
                return SA_NANS
            if w[1] == _ADD:
                R[w[2]] = x + y
            elif w[1] == _SUBTRACT:
                R[w[2]] = x - y
            elif w[1] == _MULTIPLY:
                R[w[2]] = x * y
            else:
                if y == 0.0 and not w[5]:
                    return SA_DIVZERO
                R[w[2]] = x / y
        elif w[0] == SA_PUSH:
            memcpy(row_w + w[2], R + w[3], w[4] * 8)
        elif w[0] == SA_POP:
            memcpy(R + w[2], row_r + w[3], w[4] * 8)
        elif w[0] == SA_ROW:
            r = <Py_ssize_t>R[w[5]]
            if r < 0 or r >= w[6]:
                return SA_INDEX
            if w[1]:    # a row of the caller's own array (views[w[3]]), not copied in
                memcpy(R + w[2], <double*>cnp.PyArray_DATA(<cnp.ndarray>views[w[3]]) +
                       r * w[4], w[4] * 8)
            else:
                memcpy(R + w[2], R + w[3] + r * w[4], w[4] * 8)
        elif w[0] == SA_DOT:
            # what np.dot calls, into the output register's view (NumPy copies through a
            # temporary when it overlaps an operand): its BLAS call, its special cases.
            # It clears the flags first (and reports its own): those before are kept
            fl = _fp_flags()
            _matrix_product(<object>views[w[3]], <object>views[w[4]],
                            <cnp.PyArrayObject*>views[w[2]])
            if fl:
                feraiseexcept(fl)
        elif w[0] == SA_LINALG:
            r = _sa_linalg(R, w)
            if r:
                return r
    return 0


def sa_run(const int64_t[:, ::1] code, double[::1] arena, Py_ssize_t niter,
           double[::1] tape_w, double[::1] tape_r, Py_ssize_t row, Py_ssize_t loopvar,
           double start, double step, tuple views=(), Py_ssize_t row_w=-1,
           Py_ssize_t peel=0):
    """Run ``niter`` iterations of ``code`` on the registers in ``arena``: pushes fill
    ``tape_w`` row by row (iteration order), pops read ``tape_r`` from its last row.
    ``loopvar``: the loop variable's register (-1: none), set to start + i * step.
    Returns the floating-point flags raised, or -1 when a Python float was divided by
    zero, np.linalg met a singular matrix or scalar arithmetic two different NaNs (the
    caller then lets Python run the loop). ``views``: ndarrays on ``arena``
    for the instructions that call NumPy's C API. Checks for Ctrl-C every
    SA_SIGNALS_EVERY iterations. ``peel``: the first ``peel`` instructions are the
    first iteration's body, the rest every later one's (an adjoint loop whose branches
    on liveness flags resolve one way at the first iteration and another after it)."""
    _sa_load()
    cdef double* R = &arena[0]
    cdef double* tw = &tape_w[0] if tape_w.shape[0] else NULL
    cdef double* tr = &tape_r[0] if tape_r.shape[0] else NULL
    cdef Py_ssize_t ntr = tape_r.shape[0] // row if row else 0
    cdef Py_ssize_t i, ncode = code.shape[0] - peel
    cdef const int64_t* c0 = &code[0, 0] if code.shape[0] else NULL
    cdef const int64_t* c = c0 + peel * SA_WIDTH if c0 != NULL else NULL
    cdef int rc
    if row_w < 0:
        row_w = row
    _clear_fp_flags()
    for i in range(niter):
        if loopvar >= 0:
            R[loopvar] = start + i * step
        rc = _sa_step(c0 if i == 0 and peel else c, peel if i == 0 and peel else ncode,
                      R, tw + i * row_w if tw != NULL else NULL,
                      tr + (ntr - 1 - i) * row if tr != NULL else NULL,
                      <PyObject**>&(<PyTupleObject*>views).ob_item[0] if views else NULL)
        if rc:
            return -1
        if i % SA_SIGNALS_EVERY == SA_SIGNALS_EVERY - 1:
            PyErr_CheckSignals()
    return _fp_flags()


def sa_flags_names(int flags):
    """The names np.geterr uses for the floating-point ``flags`` raised."""
    names = []
    if flags & FE_DIVBYZERO:
        names.append("divide")
    if flags & FE_OVERFLOW:
        names.append("over")
    if flags & FE_UNDERFLOW:
        names.append("under")
    if flags & FE_INVALID:
        names.append("invalid")
    return names


def sa_ready():
    """Whether this build can run the tier: NumPy's float64 loops found, and the C
    library can test the floating-point flags (else every loop runs in Python)."""
    _sa_load()
    cdef int k
    for k in range(_NUNARY):
        if _UNARY_F64[k].fn == NULL:
            return False
    return REVSRC_FE_FLAGS != 0 and _LOOPS_F64.multiply.fn != NULL
