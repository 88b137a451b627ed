# The compiled scalar engine (included by _kernels.pyx).
#
# A ScalarProgram is an int32 code array over a flat array of double registers.
# Each instruction is an opcode followed by its operands (register indices, jump
# targets as code offsets, or small immediates); revsrc/engine.py lowers an
# ir.Program into this form. The dispatch loop is one `noexcept nogil` C function
# with no Python work per instruction; errors set a code that the Python side turns
# into the exception Python would have raised, after the run.
#
# Every operation reproduces CPython's float semantics bit for bit: the same libm
# calls as the math module, CPython's own algorithms where it has them (float
# floor division and modulo, float ** float, math.pow, math.hypot, math.atan2),
# and NumPy's scalar semantics (no errors, nan/inf results) for the np.* opcodes.
# setup.py compiles with -ffp-contract=off, so a*b + c stays two roundings.
#
# Ints and bools live in doubles. Integer-kind registers always hold exact integer
# values (never -0.0); an integer operation whose exact result might not fit
# (|r| >= 2**53) stops the run with _E_FALLBACK and the caller takes the Python path.

from libc.errno cimport errno, ERANGE
from libc cimport math as cm

cdef extern from *:
    void __builtin_unreachable() noexcept nogil

cdef extern from "math.h" nogil:
    # glibc computes both with the same routines as sin() and cos(), so the results
    # are those of separate calls (tests/test_backends.py checks the bits)
    void sincos(double x, double *s, double *c)
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_FromDouble

# ----- Instruction set -----
# Order matters: _OPCODES below lists the same names, in the same order, with each
# instruction's operand format: w register written, r register read, x register
# read and written, j jump target, k small immediate (table index / message).

cdef enum:
    OP_HALT = 0
    OP_MOV
    OP_ADD
    OP_SUB
    OP_MUL
    OP_DIV
    OP_IADD
    OP_ISUB
    OP_IMUL
    OP_IDIV
    OP_FLOORDIV
    OP_MOD
    OP_IFLOORDIV
    OP_IMOD
    OP_POW
    OP_IPOW
    OP_NEG
    OP_INEG
    OP_ABS
    OP_LT
    OP_LE
    OP_GT
    OP_GE
    OP_EQ
    OP_NE
    OP_NOT
    OP_TRUTH
    OP_MIN
    OP_MAX
    OP_FTOI
    OP_FLOORI
    OP_CEILI
    OP_ROUNDI
    OP_SIN
    OP_COS
    OP_EXP
    OP_LOG
    OP_SQRT
    OP_MATH1
    OP_NPU1
    OP_LOGB
    OP_MPOW
    OP_ATAN2
    OP_HYPOT
    OP_COPYSIGN
    OP_NPU2
    OP_MULADD
    OP_MULSUB
    OP_SUBMUL
    OP_MUL3
    OP_JMP
    OP_LOOP
    OP_JZ
    OP_JNZ
    OP_JNLT
    OP_JNLE
    OP_JNGT
    OP_JNGE
    OP_JNEQ
    OP_JNNE
    OP_FORPREP
    OP_FORPREPUP
    OP_FORPREPDN
    OP_FORSTEP
    OP_FORUP
    OP_FORDN
    OP_PUSHF
    OP_PUSHI
    OP_POPF
    OP_POPI
    OP_ASSERT
    OP_RAISE
    OP_POPJZ
    OP_SINCOS
    OP_PUSHF2
    OP_PUSHF3
    OP_POPF2

ENGINE_OPCODES = (
    ("HALT", ""), ("MOV", "wr"),
    ("ADD", "wrr"), ("SUB", "wrr"), ("MUL", "wrr"), ("DIV", "wrr"),
    ("IADD", "wrr"), ("ISUB", "wrr"), ("IMUL", "wrr"), ("IDIV", "wrr"),
    ("FLOORDIV", "wrr"), ("MOD", "wrr"), ("IFLOORDIV", "wrr"), ("IMOD", "wrr"),
    ("POW", "wrr"), ("IPOW", "wrr"), ("NEG", "wr"), ("INEG", "wr"), ("ABS", "wr"),
    ("LT", "wrr"), ("LE", "wrr"), ("GT", "wrr"), ("GE", "wrr"), ("EQ", "wrr"), ("NE", "wrr"),
    ("NOT", "wr"), ("TRUTH", "wr"), ("MIN", "wrr"), ("MAX", "wrr"),
    ("FTOI", "wr"), ("FLOORI", "wr"), ("CEILI", "wr"), ("ROUNDI", "wr"),
    ("SIN", "wr"), ("COS", "wr"), ("EXP", "wr"), ("LOG", "wr"), ("SQRT", "wr"),
    ("MATH1", "wrk"), ("NPU1", "wrk"),
    ("LOGB", "wrr"), ("MPOW", "wrr"), ("ATAN2", "wrr"), ("HYPOT", "wrr"), ("COPYSIGN", "wrr"),
    ("NPU2", "wrrk"),
    ("MULADD", "wrrr"), ("MULSUB", "wrrr"), ("SUBMUL", "wrrr"), ("MUL3", "wrrr"),
    ("JMP", "j"), ("LOOP", "j"), ("JZ", "rj"), ("JNZ", "rj"),
    ("JNLT", "rrj"), ("JNLE", "rrj"), ("JNGT", "rrj"), ("JNGE", "rrj"),
    ("JNEQ", "rrj"), ("JNNE", "rrj"),
    ("FORPREP", "xrrrj"), ("FORPREPUP", "xrrrj"), ("FORPREPDN", "xrrrj"),
    ("FORSTEP", "xrrj"), ("FORUP", "xrrj"), ("FORDN", "xrrj"),
    ("PUSHF", "r"), ("PUSHI", "r"), ("POPF", "w"), ("POPI", "w"),
    ("ASSERT", "rk"), ("RAISE", "k"),
    ("POPJZ", "j"),
    ("SINCOS", "wwr"),
    ("PUSHF2", "rr"), ("PUSHF3", "rrr"), ("POPF2", "ww"),
)

# One-argument libm functions reached through MATH1, with the math module's checks.
# _M1_MODE: 0 no check, 1 nan or inf from a finite input is a domain error, 2 as 1
# but inf from a finite input is an overflow.
ctypedef double (*_unary_fn)(double) noexcept nogil

ENGINE_MATH1 = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                "asinh", "acosh", "atanh", "exp", "expm1", "log", "log1p", "log2",
                "log10", "sqrt", "erf", "erfc", "fabs", "floor", "ceil", "trunc", "cbrt")
cdef _unary_fn _M1[26]
cdef int _M1_MODE[26]
cdef void _init_math1() noexcept:
    _M1[0] = cm.sin
    _M1[1] = cm.cos
    _M1[2] = cm.tan
    _M1[3] = cm.asin
    _M1[4] = cm.acos
    _M1[5] = cm.atan
    _M1[6] = cm.sinh
    _M1[7] = cm.cosh
    _M1[8] = cm.tanh
    _M1[9] = cm.asinh
    _M1[10] = cm.acosh
    _M1[11] = cm.atanh
    _M1[12] = cm.exp
    _M1[13] = cm.expm1
    _M1[14] = cm.log
    _M1[15] = cm.log1p
    _M1[16] = cm.log2
    _M1[17] = cm.log10
    _M1[18] = cm.sqrt
    _M1[19] = cm.erf
    _M1[20] = cm.erfc
    _M1[21] = cm.fabs
    _M1[22] = cm.floor
    _M1[23] = cm.ceil
    _M1[24] = cm.trunc
    _M1[25] = cm.cbrt
    _M1_MODE[:] = [1, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]


_init_math1()

# Parameter / output kinds, as bytes codes.
cdef enum:
    _K_F = 102    # 'f'
    _K_I = 105    # 'i'
    _K_B = 98     # 'b'

# ----- Run-time errors -----

cdef enum:
    _E_OK = 0
    _E_FDIV
    _E_IDIV
    _E_FFLOORDIV
    _E_IFLOORDIV
    _E_FMOD
    _E_IMOD
    _E_POW_ZERO
    _E_POW_RANGE
    _E_DOMAIN
    _E_RANGE
    _E_STEP0
    _E_RANGE_TYPE
    _E_INT_NAN
    _E_INT_INF
    _E_FALLBACK
    _E_POP
    _E_ASSERT
    _E_NOMEM
    _E_GLOBAL

ENGINE_ERRORS = ("", "float division by zero", "division by zero",
                 "float floor division by zero", "integer division or modulo by zero",
                 "float modulo", "integer modulo by zero",
                 "0.0 cannot be raised to a negative power", "", "math domain error",
                 "math range error", "range() arg 3 must not be zero",
                 "'float' object cannot be interpreted as an integer",
                 "cannot convert float NaN to integer",
                 "cannot convert float infinity to integer", "", "pop from empty stack",
                 "", "", "")


# Codes the lowering emits in RAISE instructions.
ENGINE_RAISE = {"range_step_zero": _E_STEP0, "range_float": _E_RANGE_TYPE}


class EngineFallback(Exception):
    """The engine cannot reproduce Python exactly for these inputs (an int beyond 2**53,
    a complex power, a global whose type changed); the caller runs the Python path."""


cdef object _engine_error(int code, int arg, list messages):
    cdef str msg = ENGINE_ERRORS[code]
    if code in (_E_FDIV, _E_IDIV, _E_FFLOORDIV, _E_IFLOORDIV, _E_FMOD, _E_IMOD, _E_POW_ZERO):
        return ZeroDivisionError(msg)
    if code == _E_POW_RANGE:
        return OverflowError(ERANGE, "Numerical result out of range")
    if code in (_E_DOMAIN, _E_STEP0, _E_INT_NAN):
        return ValueError(msg)
    if code in (_E_RANGE, _E_INT_INF):
        return OverflowError(msg)
    if code == _E_RANGE_TYPE:
        return TypeError(msg)
    if code == _E_POP:
        return IndexError(msg)
    if code == _E_ASSERT:
        m = messages[arg]
        return AssertionError(m) if m is not None else AssertionError()
    if code == _E_NOMEM:
        return MemoryError()
    return EngineFallback("the engine cannot run these inputs exactly")


# ----- NumPy's own float64 loops -----
# A NumPy function on floats runs through the very inner loop that NumPy runs for a
# float64 scalar on this machine (looked up once per ufunc in ufunc->functions), so
# the engine and the Python path agree to the last bit whatever SIMD code NumPy
# dispatched to (AVX-512 exp and arcsin, AVX2 tanh differ from libm by an ulp).
# The strides are 0, as NumPy passes them for 0-d operands: some loops take another
# path for a scalar operand (np.power(x, 0.5) is sqrt(x), so np.power(-0.0, 0.5) is
# -0.0, where the general path gives 0.0).

ctypedef void (*_uloop_fn)(char** args, cnp.npy_intp* dims, cnp.npy_intp* steps,
                           void* data) noexcept nogil

cdef struct _ULoop:
    _uloop_fn fn
    void* data

cdef enum:
    _MAX_ULOOPS = 256

cdef _ULoop _ULOOPS[_MAX_ULOOPS]
cdef int _n_uloops = 0
_uloop_slots = {}    # ufunc -> index into _ULOOPS (the ufunc stays referenced here)


cdef inline double _ufunc1(int k, double x) noexcept nogil:
    cdef double out = 0.0
    cdef char* args[2]
    cdef cnp.npy_intp n = 1
    cdef cnp.npy_intp steps[2]
    args[0] = <char*>&x
    args[1] = <char*>&out
    steps[0] = 0
    steps[1] = 0
    _ULOOPS[k].fn(args, &n, steps, _ULOOPS[k].data)
    return out


cdef inline double _ufunc2(int k, double x, double y) noexcept nogil:
    cdef double out = 0.0
    cdef char* args[3]
    cdef cnp.npy_intp n = 1
    cdef cnp.npy_intp steps[3]
    args[0] = <char*>&x
    args[1] = <char*>&y
    args[2] = <char*>&out
    steps[0] = 0
    steps[1] = 0
    steps[2] = 0
    _ULOOPS[k].fn(args, &n, steps, _ULOOPS[k].data)
    return out


def ufunc_slot(cnp.ufunc uf):
    """The engine's slot for ``uf``'s all-float64 inner loop (one or two inputs, one
    output), registering it on first use; ValueError when it has none."""
    global _n_uloops
    slot = _uloop_slots.get(uf)
    if slot is not None:
        return slot
    cdef int nargs = uf.nin + uf.nout, i, j
    cdef bint all_double
    if uf.nout != 1 or uf.nin not in (1, 2) or uf.signature is not None:
        raise ValueError(f"numpy.{uf.__name__} does not map one or two floats to one")
    for i in range(uf.ntypes):
        all_double = 1
        for j in range(nargs):
            if uf.types[i * nargs + j] != cnp.NPY_DOUBLE:
                all_double = 0
                break
        if all_double:
            if _n_uloops == _MAX_ULOOPS:
                raise ValueError("too many NumPy functions registered with the engine")
            _ULOOPS[_n_uloops].fn = <_uloop_fn>uf.functions[i]
            _ULOOPS[_n_uloops].data = uf.data[i]
            _uloop_slots[uf] = _n_uloops
            _n_uloops += 1
            return _n_uloops - 1
    raise ValueError(f"numpy.{uf.__name__} has no float64 loop")


def ufunc_call(int slot, *args):
    """Run registered loop ``slot`` on one or two floats, as the engine does (tests)."""
    if not 0 <= slot < _n_uloops:
        raise IndexError(slot)
    if len(args) == 1:
        return _ufunc1(slot, args[0])
    return _ufunc2(slot, args[0], args[1])


# ----- CPython's float algorithms, in C -----

cdef double _TWO53 = 9007199254740992.0


cdef inline bint _odd_integer(double x) noexcept nogil:
    return cm.fmod(cm.fabs(x), 2.0) == 1.0


cdef inline int _float_floordiv(double vx, double wx, double* out) noexcept nogil:
    """float.__floordiv__: CPython's float_divmod quotient."""
    cdef double mod, div, fd
    if wx == 0.0:
        return _E_FFLOORDIV
    mod = cm.fmod(vx, wx)
    div = (vx - mod) / wx
    if mod:
        if (wx < 0) != (mod < 0):
            div -= 1.0
    if div:
        fd = cm.floor(div)
        if div - fd > 0.5:
            fd += 1.0
    else:
        fd = cm.copysign(0.0, vx / wx)
    out[0] = fd
    return 0


cdef inline int _float_mod(double vx, double wx, double* out) noexcept nogil:
    """float.__mod__: the remainder takes the divisor's sign."""
    cdef double mod
    if wx == 0.0:
        return _E_FMOD
    mod = cm.fmod(vx, wx)
    if mod:
        if (wx < 0) != (mod < 0):
            mod += wx
    else:
        mod = cm.copysign(0.0, wx)
    out[0] = mod
    return 0


cdef inline int _float_pow(double iv, double iw, double* out) noexcept nogil:
    """float.__pow__ (``**``), with CPython's special cases before libm pow."""
    cdef bint negate = 0
    cdef double ix
    if iw == 0.0:
        out[0] = 1.0
        return 0
    if cm.isnan(iv):
        out[0] = iv
        return 0
    if cm.isnan(iw):
        out[0] = 1.0 if iv == 1.0 else iw
        return 0
    if cm.isinf(iw):
        iv = cm.fabs(iv)
        if iv == 1.0:
            out[0] = 1.0
        elif (iw > 0.0) == (iv > 1.0):
            out[0] = cm.fabs(iw)
        else:
            out[0] = 0.0
        return 0
    if cm.isinf(iv):
        if iw > 0.0:
            out[0] = iv if _odd_integer(iw) else cm.fabs(iv)
        else:
            out[0] = cm.copysign(0.0, iv) if _odd_integer(iw) else 0.0
        return 0
    if iv == 0.0:
        if iw < 0.0:
            return _E_POW_ZERO
        out[0] = iv if _odd_integer(iw) else 0.0
        return 0
    if iv < 0.0:
        if iw != cm.floor(iw):
            return _E_FALLBACK      # Python returns a complex number
        iv = -iv
        negate = _odd_integer(iw)
    if iv == 1.0:
        out[0] = -1.0 if negate else 1.0
        return 0
    errno = 0
    ix = cm.pow(iv, iw)
    if errno == 0:
        if cm.isinf(ix):
            return _E_POW_RANGE
    elif errno == ERANGE and ix == 0.0:
        errno = 0
    if errno != 0:
        return _E_POW_RANGE if errno == ERANGE else _E_DOMAIN
    out[0] = -ix if negate else ix
    return 0


cdef inline int _math_pow(double x, double y, double* out) noexcept nogil:
    """math.pow."""
    cdef double r
    cdef bint odd_y
    if not cm.isfinite(x) or not cm.isfinite(y):
        if cm.isnan(x):
            r = 1.0 if y == 0.0 else x
        elif cm.isnan(y):
            r = 1.0 if x == 1.0 else y
        elif cm.isinf(x):
            odd_y = cm.isfinite(y) and _odd_integer(y)
            if y > 0.0:
                r = x if odd_y else cm.fabs(x)
            elif y == 0.0:
                r = 1.0
            else:
                r = cm.copysign(0.0, x) if odd_y else 0.0
        else:
            if cm.fabs(x) == 1.0:
                r = 1.0
            elif y > 0.0 and cm.fabs(x) > 1.0:
                r = y
            elif y < 0.0 and cm.fabs(x) < 1.0:
                r = -y
            else:
                r = 0.0
        out[0] = r
        return 0
    r = cm.pow(x, y)
    if cm.isnan(r):
        return _E_DOMAIN
    if cm.isinf(r):
        return _E_DOMAIN if x == 0.0 else _E_RANGE
    out[0] = r
    return 0


cdef inline double _math_atan2(double y, double x) noexcept nogil:
    """math.atan2 (CPython's m_atan2 special cases, then libm)."""
    cdef double pi = 3.141592653589793
    if cm.isnan(x) or cm.isnan(y):
        return cm.NAN
    if cm.isinf(y):
        if cm.isinf(x):
            if cm.copysign(1.0, x) == 1.0:
                return cm.copysign(0.25 * pi, y)
            return cm.copysign(0.75 * pi, y)
        return cm.copysign(0.5 * pi, y)
    if cm.isinf(x) or y == 0.0:
        if cm.copysign(1.0, x) == 1.0:
            return cm.copysign(0.0, y)
        return cm.copysign(pi, y)
    return cm.atan2(y, x)


cdef inline void _split(double x, double* hi, double* lo) noexcept nogil:
    # Veltkamp splitting: x == hi + lo exactly, each with at most 26 significant bits.
    cdef double t = x * 134217729.0
    hi[0] = t - (t - x)
    lo[0] = x - hi[0]


cdef inline void _two_prod(double x, double y, double* z, double* zz) noexcept nogil:
    # Dekker's product: z + zz == x * y exactly.
    cdef double xh, xl, yh, yl, p, q
    _split(x, &xh, &xl)
    _split(y, &yh, &yl)
    p = xh * yh
    q = xh * yl + xl * yh
    z[0] = p + q
    zz[0] = p - z[0] + q + xl * yl


cdef double _norm2(double a, double b, double mx) noexcept nogil:
    # The two-coordinate case of CPython's vector_norm: scaled squares summed in
    # doubled precision, then a square root with one differential correction.
    cdef double scale, x, h, csum = 1.0, frac1 = 0.0, frac2 = 0.0, p, pl, s
    cdef double v[2]
    cdef int e, i
    cm.frexp(mx, &e)
    if e < -1023:
        return 2.2250738585072014e-308 * _norm2(a / 2.2250738585072014e-308,
                                                b / 2.2250738585072014e-308,
                                                mx / 2.2250738585072014e-308)
    scale = cm.ldexp(1.0, -e)
    v[0] = a
    v[1] = b
    for i in range(2):
        x = v[i] * scale
        _two_prod(x, x, &p, &pl)
        s = csum + p
        frac2 += (csum - s) + p
        csum = s
        frac1 += pl
    h = cm.sqrt(csum - 1.0 + (frac1 + frac2))
    _two_prod(-h, h, &p, &pl)
    s = csum + p
    frac2 += (csum - s) + p
    csum = s
    frac1 += pl
    x = csum - 1.0 + (frac1 + frac2)
    h += x / (2.0 * h)
    return h / scale


cdef inline double _math_hypot(double x, double y) noexcept nogil:
    """math.hypot(x, y)."""
    cdef double a = cm.fabs(x), b = cm.fabs(y), mx = 0.0
    if a > mx:
        mx = a
    if b > mx:
        mx = b
    if cm.isinf(mx):
        return mx
    if cm.isnan(a) or cm.isnan(b):
        return cm.NAN
    if mx == 0.0:
        return mx
    return _norm2(a, b, mx)


cdef inline int _to_int(double x, double* out) noexcept nogil:
    """int(x) for a float: truncate; NaN and infinities raise as in Python."""
    if cm.isnan(x):
        return _E_INT_NAN
    if cm.isinf(x):
        return _E_INT_INF
    out[0] = cm.trunc(x) + 0.0      # + 0.0: an int is never -0.0
    return 0


cdef inline double _py_round(double x) noexcept nogil:
    # float.__round__ without ndigits: half to even.
    cdef double r = cm.round(x)
    if cm.fabs(x - r) == 0.5:
        r = 2.0 * cm.round(x / 2.0)
    return r


cdef inline bint _big(double x) noexcept nogil:
    return not (cm.fabs(x) < _TWO53)


# ----- The dispatch loop -----

cdef struct _VM:
    double* regs
    const int* code
    double* fdata
    Py_ssize_t fsize
    Py_ssize_t fcap
    int64_t* idata
    Py_ssize_t isize
    Py_ssize_t icap
    unsigned long long iters
    int err_pc
    int err_arg


cdef int _vm_run(_VM* vm) noexcept nogil:
    cdef double* r = vm.regs
    cdef const int* code = vm.code
    cdef const int* ip = code
    cdef double* fdata = vm.fdata
    cdef Py_ssize_t fsize = vm.fsize, fcap = vm.fcap
    cdef int64_t* idata = vm.idata
    cdef Py_ssize_t isize = vm.isize, icap = vm.icap
    cdef unsigned long long iters = 0
    cdef int op, err = 0, fi
    cdef double a, b, v
    cdef int64_t ia, ib, iq
    cdef void* grown
    while True:
        op = ip[0]
        if op == OP_MOV:
            r[ip[1]] = r[ip[2]]
            ip += 3
        elif op == OP_ADD:
            r[ip[1]] = r[ip[2]] + r[ip[3]]
            ip += 4
        elif op == OP_SUB:
            r[ip[1]] = r[ip[2]] - r[ip[3]]
            ip += 4
        elif op == OP_MUL:
            r[ip[1]] = r[ip[2]] * r[ip[3]]
            ip += 4
        elif op == OP_MULADD:
            r[ip[1]] = r[ip[2]] * r[ip[3]] + r[ip[4]]
            ip += 5
        elif op == OP_MULSUB:
            r[ip[1]] = r[ip[2]] * r[ip[3]] - r[ip[4]]
            ip += 5
        elif op == OP_SUBMUL:
            r[ip[1]] = r[ip[2]] - r[ip[3]] * r[ip[4]]
            ip += 5
        elif op == OP_MUL3:
            r[ip[1]] = r[ip[2]] * r[ip[3]] * r[ip[4]]
            ip += 5
        elif op == OP_DIV:
            b = r[ip[3]]
            if b == 0.0:
                err = _E_FDIV
                break
            r[ip[1]] = r[ip[2]] / b
            ip += 4
        elif op == OP_SIN:
            a = r[ip[2]]
            v = cm.sin(a)
            if cm.isnan(v) and not cm.isnan(a):
                err = _E_DOMAIN
                break
            r[ip[1]] = v
            ip += 3
        elif op == OP_SINCOS:
            a = r[ip[3]]
            sincos(a, &v, &b)
            if cm.isnan(v) and not cm.isnan(a):
                err = _E_DOMAIN
                break
            r[ip[1]] = v
            r[ip[2]] = b
            ip += 4
        elif op == OP_COS:
            a = r[ip[2]]
            v = cm.cos(a)
            if cm.isnan(v) and not cm.isnan(a):
                err = _E_DOMAIN
                break
            r[ip[1]] = v
            ip += 3
        elif op == OP_EXP:
            a = r[ip[2]]
            v = cm.exp(a)
            if cm.isinf(v) and cm.isfinite(a):
                err = _E_RANGE
                break
            r[ip[1]] = v
            ip += 3
        elif op == OP_LOG:
            a = r[ip[2]]
            v = cm.log(a)
            if (cm.isnan(v) and not cm.isnan(a)) or (cm.isinf(v) and cm.isfinite(a)):
                err = _E_DOMAIN
                break
            r[ip[1]] = v
            ip += 3
        elif op == OP_SQRT:
            a = r[ip[2]]
            if a < 0.0:
                err = _E_DOMAIN
                break
            r[ip[1]] = cm.sqrt(a)
            ip += 3
        elif op == OP_NEG:
            r[ip[1]] = -r[ip[2]]
            ip += 3
        elif op == OP_JMP:
            ip = code + ip[1]
        elif op == OP_LOOP:
            iters += 1
            ip = code + ip[1]
        elif op == OP_JZ:
            if r[ip[1]] == 0.0:
                ip = code + ip[2]
            else:
                ip += 3
        elif op == OP_JNZ:
            if r[ip[1]] != 0.0:
                ip = code + ip[2]
            else:
                ip += 3
        elif op == OP_JNLT:
            if not (r[ip[1]] < r[ip[2]]):
                ip = code + ip[3]
            else:
                ip += 4
        elif op == OP_JNLE:
            if not (r[ip[1]] <= r[ip[2]]):
                ip = code + ip[3]
            else:
                ip += 4
        elif op == OP_JNGT:
            if not (r[ip[1]] > r[ip[2]]):
                ip = code + ip[3]
            else:
                ip += 4
        elif op == OP_JNGE:
            if not (r[ip[1]] >= r[ip[2]]):
                ip = code + ip[3]
            else:
                ip += 4
        elif op == OP_JNEQ:
            if not (r[ip[1]] == r[ip[2]]):
                ip = code + ip[3]
            else:
                ip += 4
        elif op == OP_JNNE:
            if not (r[ip[1]] != r[ip[2]]):
                ip = code + ip[3]
            else:
                ip += 4
        elif op == OP_LT:
            r[ip[1]] = 1.0 if r[ip[2]] < r[ip[3]] else 0.0
            ip += 4
        elif op == OP_LE:
            r[ip[1]] = 1.0 if r[ip[2]] <= r[ip[3]] else 0.0
            ip += 4
        elif op == OP_GT:
            r[ip[1]] = 1.0 if r[ip[2]] > r[ip[3]] else 0.0
            ip += 4
        elif op == OP_GE:
            r[ip[1]] = 1.0 if r[ip[2]] >= r[ip[3]] else 0.0
            ip += 4
        elif op == OP_EQ:
            r[ip[1]] = 1.0 if r[ip[2]] == r[ip[3]] else 0.0
            ip += 4
        elif op == OP_NE:
            r[ip[1]] = 1.0 if r[ip[2]] != r[ip[3]] else 0.0
            ip += 4
        elif op == OP_FORUP:
            v = r[ip[1]] + r[ip[3]]
            if v < r[ip[2]]:
                r[ip[1]] = v
                iters += 1
                ip = code + ip[4]
            else:
                ip += 5
        elif op == OP_FORDN:
            v = r[ip[1]] + r[ip[3]]
            if v > r[ip[2]]:
                r[ip[1]] = v
                iters += 1
                ip = code + ip[4]
            else:
                ip += 5
        elif op == OP_FORSTEP:
            b = r[ip[3]]
            v = r[ip[1]] + b
            if (v < r[ip[2]]) if b > 0.0 else (v > r[ip[2]]):
                r[ip[1]] = v
                iters += 1
                ip = code + ip[4]
            else:
                ip += 5
        elif op == OP_FORPREPUP:
            a = r[ip[2]]
            if a < r[ip[3]]:
                r[ip[1]] = a
                iters += 1
                ip += 6
            else:
                ip = code + ip[5]
        elif op == OP_FORPREPDN:
            a = r[ip[2]]
            if a > r[ip[3]]:
                r[ip[1]] = a
                iters += 1
                ip += 6
            else:
                ip = code + ip[5]
        elif op == OP_FORPREP:
            a = r[ip[2]]
            b = r[ip[4]]
            if b == 0.0:
                err = _E_STEP0
                break
            if (a < r[ip[3]]) if b > 0.0 else (a > r[ip[3]]):
                r[ip[1]] = a
                iters += 1
                ip += 6
            else:
                ip = code + ip[5]
        elif op == OP_PUSHF:
            if fsize == fcap:
                grown = realloc(fdata, 2 * fcap * sizeof(double))
                if grown == NULL:
                    err = _E_NOMEM
                    break
                fdata = <double*>grown
                fcap = 2 * fcap
            fdata[fsize] = r[ip[1]]
            fsize += 1
            ip += 2
        elif op == OP_PUSHI:
            if isize == icap:
                grown = realloc(idata, 2 * icap * sizeof(int64_t))
                if grown == NULL:
                    err = _E_NOMEM
                    break
                idata = <int64_t*>grown
                icap = 2 * icap
            a = r[ip[1]]
            if not (cm.fabs(a) < 9.2e18):
                err = _E_FALLBACK
                break
            idata[isize] = <int64_t>a
            isize += 1
            ip += 2
        elif op == OP_PUSHF2 or op == OP_PUSHF3:
            # saves gathered by the lowering: one capacity check for all of them
            fi = 2 if op == OP_PUSHF2 else 3
            if fsize + fi > fcap:
                grown = realloc(fdata, (2 * fcap + fi) * sizeof(double))
                if grown == NULL:
                    err = _E_NOMEM
                    break
                fdata = <double*>grown
                fcap = 2 * fcap + fi
            fdata[fsize] = r[ip[1]]
            fdata[fsize + 1] = r[ip[2]]
            if fi == 3:
                fdata[fsize + 2] = r[ip[3]]
            fsize += fi
            ip += fi + 1
        elif op == OP_POPF2:
            if fsize < 2:
                err = _E_POP
                break
            r[ip[1]] = fdata[fsize - 1]
            r[ip[2]] = fdata[fsize - 2]
            fsize -= 2
            ip += 3
        elif op == OP_POPF:
            if fsize == 0:
                err = _E_POP
                break
            fsize -= 1
            r[ip[1]] = fdata[fsize]
            ip += 2
        elif op == OP_POPI:
            if isize == 0:
                err = _E_POP
                break
            isize -= 1
            r[ip[1]] = <double>idata[isize]
            ip += 2
        elif op == OP_POPJZ:
            # a branch decision popped and taken in one dispatch
            if isize == 0:
                err = _E_POP
                break
            isize -= 1
            if idata[isize] == 0:
                ip = code + ip[1]
            else:
                ip += 2
        elif op == OP_IADD:
            v = r[ip[2]] + r[ip[3]]
            if _big(v):
                err = _E_FALLBACK
                break
            r[ip[1]] = v
            ip += 4
        elif op == OP_ISUB:
            v = r[ip[2]] - r[ip[3]]
            if _big(v):
                err = _E_FALLBACK
                break
            r[ip[1]] = v
            ip += 4
        elif op == OP_IMUL:
            v = r[ip[2]] * r[ip[3]]
            if _big(v):
                err = _E_FALLBACK
                break
            r[ip[1]] = v + 0.0
            ip += 4
        elif op == OP_IDIV:
            b = r[ip[3]]
            if b == 0.0:
                err = _E_IDIV
                break
            r[ip[1]] = r[ip[2]] / b
            ip += 4
        elif op == OP_FLOORDIV:
            err = _float_floordiv(r[ip[2]], r[ip[3]], &v)
            if err:
                break
            r[ip[1]] = v
            ip += 4
        elif op == OP_MOD:
            err = _float_mod(r[ip[2]], r[ip[3]], &v)
            if err:
                break
            r[ip[1]] = v
            ip += 4
        elif op == OP_IFLOORDIV or op == OP_IMOD:
            a = r[ip[2]]
            b = r[ip[3]]
            if b == 0.0:
                err = _E_IFLOORDIV if op == OP_IFLOORDIV else _E_IMOD
                break
            if _big(a) or _big(b):
                err = _E_FALLBACK
                break
            ia = <int64_t>a
            ib = <int64_t>b
            iq = ia // ib    # cdivision: truncates toward zero
            if (ia - iq * ib) != 0 and ((ia < 0) != (ib < 0)):
                iq -= 1
            if op == OP_IFLOORDIV:
                r[ip[1]] = <double>iq
            else:
                r[ip[1]] = <double>(ia - iq * ib)
            ip += 4
        elif op == OP_POW:
            err = _float_pow(r[ip[2]], r[ip[3]], &v)
            if err:
                break
            r[ip[1]] = v
            ip += 4
        elif op == OP_IPOW:
            a = r[ip[2]]
            b = r[ip[3]]
            if b < 0.0:
                err = _float_pow(a, b, &v)
                if err:
                    break
            else:
                v = cm.pow(a, b)
                if _big(v):
                    err = _E_FALLBACK
                    break
            r[ip[1]] = v
            ip += 4
        elif op == OP_INEG:
            r[ip[1]] = 0.0 - r[ip[2]]
            ip += 3
        elif op == OP_ABS:
            r[ip[1]] = cm.fabs(r[ip[2]])
            ip += 3
        elif op == OP_NOT:
            r[ip[1]] = 1.0 if r[ip[2]] == 0.0 else 0.0
            ip += 3
        elif op == OP_TRUTH:
            r[ip[1]] = 0.0 if r[ip[2]] == 0.0 else 1.0
            ip += 3
        elif op == OP_MIN:
            a = r[ip[2]]
            b = r[ip[3]]
            r[ip[1]] = b if b < a else a
            ip += 4
        elif op == OP_MAX:
            a = r[ip[2]]
            b = r[ip[3]]
            r[ip[1]] = b if b > a else a
            ip += 4
        elif op == OP_FTOI:
            err = _to_int(r[ip[2]], &v)
            if err:
                break
            r[ip[1]] = v
            ip += 3
        elif op == OP_FLOORI:
            err = _to_int(cm.floor(r[ip[2]]), &v)
            if err:
                break
            r[ip[1]] = v
            ip += 3
        elif op == OP_CEILI:
            err = _to_int(cm.ceil(r[ip[2]]), &v)
            if err:
                break
            r[ip[1]] = v
            ip += 3
        elif op == OP_ROUNDI:
            err = _to_int(_py_round(r[ip[2]]), &v)
            if err:
                break
            r[ip[1]] = v
            ip += 3
        elif op == OP_MATH1:
            a = r[ip[2]]
            fi = ip[3]
            v = _M1[fi](a)
            if _M1_MODE[fi]:
                if cm.isnan(v) and not cm.isnan(a):
                    err = _E_DOMAIN
                    break
                if cm.isinf(v) and cm.isfinite(a):
                    err = _E_RANGE if _M1_MODE[fi] == 2 else _E_DOMAIN
                    break
            r[ip[1]] = v
            ip += 4
        elif op == OP_NPU1:
            r[ip[1]] = _ufunc1(ip[3], r[ip[2]])
            ip += 4
        elif op == OP_LOGB:
            # math.log(x, base) == cm.log(x) / cm.log(base), each checked as math.log
            a = r[ip[2]]
            b = r[ip[3]]
            v = cm.log(a)
            if (cm.isnan(v) and not cm.isnan(a)) or (cm.isinf(v) and cm.isfinite(a)):
                err = _E_DOMAIN
                break
            a = cm.log(b)
            if (cm.isnan(a) and not cm.isnan(b)) or (cm.isinf(a) and cm.isfinite(b)):
                err = _E_DOMAIN
                break
            if a == 0.0:
                err = _E_FDIV
                break
            r[ip[1]] = v / a
            ip += 4
        elif op == OP_MPOW:
            err = _math_pow(r[ip[2]], r[ip[3]], &v)
            if err:
                break
            r[ip[1]] = v
            ip += 4
        elif op == OP_ATAN2:
            r[ip[1]] = _math_atan2(r[ip[2]], r[ip[3]])
            ip += 4
        elif op == OP_HYPOT:
            r[ip[1]] = _math_hypot(r[ip[2]], r[ip[3]])
            ip += 4
        elif op == OP_COPYSIGN:
            r[ip[1]] = cm.copysign(r[ip[2]], r[ip[3]])
            ip += 4
        elif op == OP_NPU2:
            r[ip[1]] = _ufunc2(ip[4], r[ip[2]], r[ip[3]])
            ip += 5
        elif op == OP_ASSERT:
            if r[ip[1]] == 0.0:
                vm.err_arg = ip[2]
                err = _E_ASSERT
                break
            ip += 3
        elif op == OP_RAISE:
            err = ip[1]
            break
        elif op == OP_HALT:
            break
        else:
            # every opcode comes from the lowering: telling the compiler so lets the
            # dispatch jump through its table without a range check
            __builtin_unreachable()
    vm.err_pc = <int>(ip - code)
    vm.fdata = fdata
    vm.fsize = fsize
    vm.fcap = fcap
    vm.idata = idata
    vm.isize = isize
    vm.icap = icap
    vm.iters += iters
    return err


# ----- Programs -----

cdef enum:
    _STACK0 = 256


cdef class ScalarProgram:
    """An assembled engine program: code, registers, stacks and the I/O mapping.

    Built by revsrc.engine.lower; ``run(args)`` returns one value per program output.
    Not reentrant across threads without the GIL (the GIL is held for the whole run).
    """
    cdef _VM vm
    cdef int* code
    cdef double* regs
    cdef readonly int ncode
    cdef readonly int nregs
    cdef readonly int nparams
    cdef int* param_regs
    cdef bytes param_kinds
    cdef int nout
    cdef int* out_regs
    cdef bytes out_kinds
    cdef list globals_spec      # [(register, namespace or cell, key or None, kind)]
    cdef list messages
    cdef unsigned long long runs
    cdef readonly tuple code_list
    cdef readonly tuple reg_init

    def __cinit__(self):
        self.vm.fdata = <double*>malloc(_STACK0 * sizeof(double))
        self.vm.idata = <int64_t*>malloc(_STACK0 * sizeof(int64_t))
        if self.vm.fdata == NULL or self.vm.idata == NULL:
            raise MemoryError()
        self.vm.fcap = _STACK0
        self.vm.icap = _STACK0

    def __init__(self, code, reg_init, param_regs, param_kinds, out_regs, out_kinds,
                 globals_spec=(), messages=()):
        cdef Py_ssize_t i
        self.code_list = tuple(int(c) for c in code)
        self.reg_init = tuple(float(v) for v in reg_init)
        self.ncode = len(self.code_list)
        self.nregs = len(self.reg_init)
        self.nparams = len(param_regs)
        self.nout = len(out_regs)
        if len(param_kinds) != self.nparams or len(out_kinds) != self.nout:
            raise ValueError("one kind per parameter and per output")
        self.code = <int*>malloc((self.ncode + 1) * sizeof(int))
        self.regs = <double*>malloc((self.nregs + 1) * sizeof(double))
        self.param_regs = <int*>malloc((self.nparams + 1) * sizeof(int))
        self.out_regs = <int*>malloc((self.nout + 1) * sizeof(int))
        if not (self.code and self.regs and self.param_regs and self.out_regs):
            raise MemoryError()
        for i in range(self.ncode):
            self.code[i] = self.code_list[i]
        self.code[self.ncode] = OP_HALT
        for i in range(self.nregs):
            self.regs[i] = self.reg_init[i]
        for i in range(self.nparams):
            self.param_regs[i] = param_regs[i]
        for i in range(self.nout):
            self.out_regs[i] = out_regs[i]
        self.param_kinds = param_kinds.encode() if isinstance(param_kinds, str) else bytes(param_kinds)
        self.out_kinds = out_kinds.encode() if isinstance(out_kinds, str) else bytes(out_kinds)
        self.globals_spec = [tuple(g) for g in globals_spec]
        self.messages = list(messages)
        self.vm.regs = self.regs
        self.vm.code = self.code

    def __dealloc__(self):
        free(self.code)
        free(self.regs)
        free(self.param_regs)
        free(self.out_regs)
        free(self.vm.fdata)
        free(self.vm.idata)

    cdef int _prologue(self) except -1:
        """Read the globals the program uses; 1 if one has the wrong type (fallback)."""
        cdef tuple g
        for g in self.globals_spec:
            if g[2] is None:
                val = g[1].cell_contents
            else:
                val = g[1][g[2]]
            if not _store_scalar(self.regs, g[0], val, g[3]):
                return 1
        return 0

    cdef int _execute(self) except -1:
        """Run the loaded program; returns the engine's error code (0 on success)."""
        cdef int err
        if self.globals_spec and self._prologue():
            return _E_GLOBAL
        self.vm.fsize = 0
        self.vm.isize = 0
        self.runs += 1
        err = _vm_run(&self.vm)
        if self.vm.fcap > (1 << 22) and self.vm.fsize == 0:
            self._shrink()
        return err

    cdef void _shrink(self) noexcept:
        # Keep big stacks from outliving a big run by more than one call's worth.
        cdef void* p = realloc(self.vm.fdata, _STACK0 * sizeof(double))
        if p != NULL:
            self.vm.fdata = <double*>p
            self.vm.fcap = _STACK0
        p = realloc(self.vm.idata, _STACK0 * sizeof(int64_t))
        if p != NULL:
            self.vm.idata = <int64_t*>p
            self.vm.icap = _STACK0

    cdef object _raise(self, int err):
        if err == _E_GLOBAL:
            raise EngineFallback("a global read by the program changed type")
        raise _engine_error(err, self.vm.err_arg, self.messages)

    cdef inline object _out(self, int k):
        cdef double v = self.regs[self.out_regs[k]]
        cdef char c = self.out_kinds[k]
        if c == _K_F:
            return v
        if c == _K_I:
            return PyLong_FromDouble(v)
        return v != 0.0

    def run(self, args):
        """Run on ``args`` (a tuple of float / int / bool matching the parameter
        kinds); return a tuple with one Python value per program output."""
        cdef Py_ssize_t i
        cdef int err
        args = tuple(args)
        if len(args) != self.nparams:
            raise TypeError(f"expected {self.nparams} arguments, got {len(args)}")
        for i in range(self.nparams):
            if not _store_scalar(self.regs, self.param_regs[i], args[i], self.param_kinds[i]):
                raise TypeError(f"argument {i} ({args[i]!r}) does not match kind "
                                f"{chr(self.param_kinds[i])!r} (or is an int beyond 2**53)")
        err = self._execute()
        if err:
            self._raise(err)
        return tuple([self._out(i) for i in range(self.nout)])

    def stats(self):
        """Counters since construction: runs, and loop-body iterations executed
        inside the engine (For and While together)."""
        return {"runs": self.runs, "loop_iterations": self.vm.iters,
                "float_stack_capacity": self.vm.fcap, "int_stack_capacity": self.vm.icap}


cdef bint _store_scalar(double* regs, int reg, object val, int kind) except -1:
    """Store ``val`` in ``regs[reg]`` if its exact type matches ``kind``."""
    cdef int overflow = 0
    cdef long long n
    t = type(val)
    if kind == _K_F:
        if t is not float:
            return 0
        regs[reg] = PyFloat_AS_DOUBLE(val)
        return 1
    if kind == _K_I:
        if t is not int:
            return 0
        n = PyLong_AsLongLongAndOverflow(val, &overflow)
        if overflow or n > 9007199254740992 or n < -9007199254740992:
            return 0
        regs[reg] = <double>n
        return 1
    if t is not bool:
        return 0
    regs[reg] = 1.0 if val is True else 0.0
    return 1


# ----- The user's derivative -----

cdef class _Install:
    cdef bytes kinds
    cdef ScalarProgram prog
    cdef object select


cdef class Derivative:
    """What ``revsrc.grad`` returns: calls the engine when the arguments' types match
    an installed signature, and ``slow`` (the general path) otherwise."""
    cdef public object slow
    cdef dict __dict__
    cdef list _installs

    def __init__(self, slow):
        self.slow = slow
        self._installs = []

    def install(self, kinds, ScalarProgram program, select):
        """Use ``program`` when the arguments' types are ``kinds`` ('f'/'i'/'b' per
        parameter); ``select`` picks and nests the outputs to return."""
        cdef _Install inst = _Install()
        inst.kinds = "".join(kinds).encode()
        if len(inst.kinds) != program.nparams or inst.kinds.strip(b"fib") != b"":
            raise ValueError(f"bad kinds {kinds!r} for a program of {program.nparams} parameters")
        _check_select(select, program.nout)
        inst.prog = program
        inst.select = select
        self._installs = [i for i in self._installs if (<_Install>i).kinds != inst.kinds]
        self._installs.append(inst)

    @property
    def programs(self):
        cdef _Install i
        return [(i.kinds.decode(), i.prog, i.select) for i in self._installs]

    def __call__(self, *args, **kwargs):
        cdef _Install inst
        cdef Py_ssize_t n = len(args), i
        cdef int err
        cdef bint ok
        if kwargs:
            return self.slow(*args, **kwargs)
        for inst in self._installs:
            if inst.prog.nparams != n:
                continue
            ok = 1
            for i in range(n):
                if not _store_scalar(inst.prog.regs, inst.prog.param_regs[i], args[i],
                                     inst.kinds[i]):
                    ok = 0
                    break
            if not ok:
                continue
            err = inst.prog._execute()
            if err:
                if err == _E_FALLBACK or err == _E_GLOBAL:
                    return self.slow(*args)
                inst.prog._raise(err)
            return _select(inst.prog, inst.select)
        return self.slow(*args)


cdef object _select(ScalarProgram prog, object select):
    cdef Py_ssize_t i, n
    if type(select) is int:
        return prog._out(select)
    n = len(select)
    out = [None] * n
    for i in range(n):
        out[i] = _select(prog, select[i])
    return tuple(out)


cdef _check_select(object select, int nout):
    if type(select) is int:
        if not 0 <= select < nout:
            raise ValueError(f"select {select} is not an output index (< {nout})")
    elif type(select) is tuple:
        for s in select:
            _check_select(s, nout)
    else:
        raise TypeError("select must be an int or a tuple of selects")
