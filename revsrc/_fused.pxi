# Fused elementwise adjoints, and NumPy's inner loops looked up once, which they and
# _loop_kernels.pxi run (included by _kernels.pyx).
#
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


cdef extern from *:
    """
    /* out = g where x > 0, g / 2 where x == 0 (a tie, split as in np.maximum's rule),
       else 0. Every side is computed and then selected, so the loop vectorizes with no
       branch to mispredict (x's signs at random cost ~4 ns an element as branches).
       GCC if-converts floating-point selects only when it may assume no trap is
       watched; the values are IEEE's either way (not fast-math: no reassociation). */
    #if defined(__GNUC__) && !defined(__clang__)
    #define REVSRC_SELECTS __attribute__((optimize("no-trapping-math")))
    #else
    #define REVSRC_SELECTS
    #endif
    #define REVSRC_RELU_VJP(NAME, T)                                              \
    static REVSRC_SELECTS void NAME(Py_ssize_t n, const T* g, const T* x, T* out) \
    {                                                                             \
        const T zero = 0, half = 0.5;                                             \
        for (Py_ssize_t i = 0; i < n; i++) {                                      \
            T gi = g[i], xi = x[i], tie = gi * half;                              \
            tie = (xi == zero) ? tie : zero;                                      \
            out[i] = (xi > zero) ? gi : tie;                                      \
        }                                                                         \
    }
    REVSRC_RELU_VJP(revsrc_relu_vjp_f64, double)
    REVSRC_RELU_VJP(revsrc_relu_vjp_f32, float)
    """
    void _relu_vjp_f64 "revsrc_relu_vjp_f64"(Py_ssize_t n, const double* g, const double* x,
                                             double* out) noexcept nogil
    void _relu_vjp_f32 "revsrc_relu_vjp_f32"(Py_ssize_t n, const float* g, const float* x,
                                             float* out) noexcept nogil


cdef inline void _relu_vjp(Py_ssize_t n,
                           const floating* g,  # IN
                           const floating* x,  # IN
                           floating* out       # OUT
                           ) noexcept nogil:
    """out = g where x > 0, g / 2 where x == 0, else 0 (the C loops above)"""
    if floating is double:
        _relu_vjp_f64(n, g, x, out)
    else:
        _relu_vjp_f32(n, g, x, out)


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


cdef void _tanh_vjp_jvp(Py_ssize_t n,
                        const floating* g,    # IN
                        const floating* y,    # IN
                        const floating* t,    # IN
                        floating* out         # OUT
                        ) noexcept nogil:
    """out = -2 * g * y * t (left to right, as NumPy evaluates it): the tangent of
    tanh_vjp(g, y) for y's tangent t"""
    cdef floating m2 = -2
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = m2 * g[i] * y[i] * t[i]


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
    _TANH_VJP_JVP = 4

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_NAMES = {_TANH: "tanh_vjp", _RELU: "relu_vjp", _SIGMOID: "sigmoid_vjp",
          _LOGADDEXP: "logaddexp_vjp", _TANH_VJP_JVP: "tanh_vjp_jvp"}


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
    if typenum >= 0:
        # the shape too; a 0-d array's dims may be NULL, so the rank decides first
        # (a 0-d g once took an ans of any shape and gave its first item alone)
        if cnp.PyArray_NDIM(arr) != nd:
            return 0
        if nd > 0 and not cnp.PyArray_CompareLists(cnp.PyArray_DIMS(arr), dims, nd):
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
    elif which == _TANH_VJP_JVP:
        if not _plain_float_array(b, t, nd, dims):
            return None
        pb = cnp.PyArray_DATA(<cnp.ndarray>b)
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
            elif which == _TANH_VJP_JVP:
                _tanh_vjp_jvp(n, <double*>pg, <double*>pa, <double*>pb, <double*>po)
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
            elif which == _TANH_VJP_JVP:
                _tanh_vjp_jvp(n, <float*>pg, <float*>pa, <float*>pb, <float*>po)
            else:
                _logaddexp_vjp(n, <float*>pg, <float*>pa, <float*>pb, <float*>po,
                               &_LOOPS_F32, stride_a, stride_b)
    return out


cdef object _fused_or_raise(int which, object g, object a, object b=None):
    out = _fused(which, g, a, b)
    if out is not None:
        return out
    name = _NAMES[which]
    operands = (g, a) if which not in (_LOGADDEXP, _TANH_VJP_JVP) else (g, a, b)
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
    """Kernel ``which`` (TANH, RELU, SIGMOID, LOGADDEXP, TANH_VJP_JVP) on ``g, a[, b]``,
    or None when they are not arrays it can take directly (the caller then runs
    NumPy)."""
    if which < _TANH or which > _TANH_VJP_JVP:
        raise ValueError(f"no elementwise kernel {which}")
    return _fused(which, g, a, b)


TANH, RELU, SIGMOID, LOGADDEXP, TANH_VJP_JVP = _TANH, _RELU, _SIGMOID, _LOGADDEXP, \
    _TANH_VJP_JVP


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
    """g where x > 0, g / 2 where x == 0, else 0 (adjoint of np.maximum(x, 0.0)); same
    rules as tanh_vjp."""
    return _fused_or_raise(_RELU, g, x)


def sigmoid_vjp(g, ans):
    """g * ans * (1 - ans); same rules as tanh_vjp."""
    return _fused_or_raise(_SIGMOID, g, ans)


def tanh_vjp_jvp(g, y, t):
    """-2 * g * y * t, the tangent of tanh_vjp(g, y) for y's tangent t; same rules as
    tanh_vjp."""
    return _fused_or_raise(_TANH_VJP_JVP, g, y, t)


def logaddexp_vjp(g, x, y):
    """g / (1 + exp(y - x)), the adjoint of ``np.logaddexp(x, y)`` for x (swap x and y
    for y's); exp is NumPy's own loop, run on blocks. Same rules as tanh_vjp."""
    return _fused_or_raise(_LOGADDEXP, g, x, y)


# ----- Per-example outer products -----
# A weight's gradient per example, u[n, i] * v[n, j] (vmap of a matmul's adjoint): one
# product per item, the bits of the broadcast multiply and of einsum, written in one
# pass at memory speed (einsum's loop over a short last axis runs at half of it).

cdef extern from *:
    """
    /* (no parameter named I: complex.h makes that a macro) */
    static void revsrc_outer_rows(Py_ssize_t rows, Py_ssize_t ni, Py_ssize_t nj,
                                  const double* u, Py_ssize_t su,
                                  const double* v, Py_ssize_t sv,
                                  double* __restrict__ out)
    {
        for (Py_ssize_t n = 0; n < rows; n++) {
            const double* un = u + n * su;
            const double* __restrict__ vn = v + n * sv;
            for (Py_ssize_t i = 0; i < ni; i++) {
                const double ui = un[i];
                for (Py_ssize_t j = 0; j < nj; j++)
                    out[j] = ui * vn[j];
                out += nj;
            }
        }
    }
    """
    void _outer_rows "revsrc_outer_rows"(Py_ssize_t rows, Py_ssize_t ni, Py_ssize_t nj,
                                         const double* u, Py_ssize_t su,
                                         const double* v, Py_ssize_t sv,
                                         double* out) noexcept nogil


def outer_rows(u, v, bint bu, bint bv):
    """``u[n, i] * v[n, j]`` as a new (N, I, J) float64 array, for float64 arrays
    (native, aligned, C-contiguous) ``u`` of shape (N, I) if ``bu`` else (I,) and ``v``
    of shape (N, J) if ``bv`` else (J,), at least one batched; None for anything else
    (the caller runs NumPy)."""
    if not (bu or bv) or not (_plain_float_array(u, cnp.NPY_DOUBLE, 2 if bu else 1,
                                                 cnp.PyArray_DIMS(<cnp.ndarray>u))
                              if cnp.PyArray_CheckExact(u) else 0):
        return None
    if not (_plain_float_array(v, cnp.NPY_DOUBLE, 2 if bv else 1,
                               cnp.PyArray_DIMS(<cnp.ndarray>v))
            if cnp.PyArray_CheckExact(v) else 0):
        return None
    cdef cnp.ndarray a = <cnp.ndarray>u
    cdef cnp.ndarray b = <cnp.ndarray>v
    cdef Py_ssize_t rows = cnp.PyArray_DIMS(a)[0] if bu else cnp.PyArray_DIMS(b)[0]
    if bu and bv and cnp.PyArray_DIMS(b)[0] != rows:
        return None
    cdef Py_ssize_t ni = cnp.PyArray_DIMS(a)[1 if bu else 0]
    cdef Py_ssize_t nj = cnp.PyArray_DIMS(b)[1 if bv else 0]
    cdef cnp.npy_intp dims[3]
    dims[0] = rows
    dims[1] = ni
    dims[2] = nj
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(3, dims, cnp.NPY_DOUBLE, 0)
    cdef const double* pu = <const double*>cnp.PyArray_DATA(a)
    cdef const double* pv = <const double*>cnp.PyArray_DATA(b)
    cdef double* po = <double*>cnp.PyArray_DATA(out)
    cdef Py_ssize_t su = ni if bu else 0
    cdef Py_ssize_t sv = nj if bv else 0
    with nogil:
        _outer_rows(rows, ni, nj, pu, su, pv, sv, po)
    return out
