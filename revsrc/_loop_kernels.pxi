# Small-array operations of loop bodies (included by _kernels.pyx).
#
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
