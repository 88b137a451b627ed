# The scalar engine over arrays: revsrc.vmap's Mapper (included by _kernels.pyx,
# after _engine.pxi, whose programs it runs).
#
# ----- Mapping a program over arrays (revsrc.vmap) -----
# Lanes (threads) take chunks of elements from a shared counter and run the program on
# each element with a state of their own, without the GIL: the same run as a call,
# element by element, with NumPy's loops called as for 0-d operands.

cdef extern from *:
    """
    static inline Py_ssize_t rv_fetch_add(Py_ssize_t *p, Py_ssize_t v)
    { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
    static inline Py_ssize_t rv_load(Py_ssize_t *p)
    { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void rv_store_min(Py_ssize_t *p, Py_ssize_t v)
    {
        Py_ssize_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (v < old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED,
                                                         __ATOMIC_RELAXED)) {}
    }
    """
    Py_ssize_t rv_fetch_add(Py_ssize_t* p, Py_ssize_t v) noexcept nogil
    Py_ssize_t rv_load(Py_ssize_t* p) noexcept nogil
    void rv_store_min(Py_ssize_t* p, Py_ssize_t v) noexcept nogil

cdef enum:
    _D_F64 = 0
    _D_I64 = 1
    _D_BOOL = 2
    _MAX_IO = 64


cdef struct _Column:
    char* data
    Py_ssize_t stride
    int dtype
    int reg


@cython.final
cdef class Mapper:
    """One mapping of a program over arrays: ``run(lo, hi)`` maps elements [lo, hi)
    chunk by chunk in the calling thread (several threads may run it at once).

    ``inputs``: per mapped parameter (1-D array of float64, int64 or bool, register);
    ``fixed``: per unmapped parameter (Python scalar, register, kind);
    ``outputs``: per program output (1-D array of float64, int64 or bool, register);
    ``status``: an int8 array, set to 1 where an element needs the Python path.
    """
    cdef ScalarProgram prog
    cdef rv_run_fn fn
    cdef double* base
    cdef _Column ins[_MAX_IO]
    cdef _Column outs[_MAX_IO]
    cdef int nin, nout
    cdef signed char* status
    cdef Py_ssize_t n, next, chunk, first_error
    cdef int cancel
    cdef list keep
    cdef public object interrupt

    def __cinit__(self):
        self.base = NULL

    def __init__(self, ScalarProgram prog, inputs, fixed, outputs, status, Py_ssize_t chunk):
        cdef Py_ssize_t i
        cdef cnp.ndarray a
        self.prog = prog
        self.fn = prog.run_fn
        self.keep = [inputs, outputs, status]
        if len(inputs) > _MAX_IO or len(outputs) > _MAX_IO:
            raise ValueError("too many inputs or outputs to map")
        self.base = <double*>malloc((prog.nregs + 1) * sizeof(double))
        if self.base == NULL:
            raise MemoryError()
        for i in range(prog.nregs):
            self.base[i] = prog.reg_init[i]
        if prog.globals_spec:      # read once: every element sees the same globals
            for g in prog.globals_spec:
                val = g[1].cell_contents if g[2] is None else g[1][g[2]]
                if not _store_scalar(self.base, g[0], val, g[3]):
                    raise EngineFallback("a global read by the program changed type")
        for val, reg, kind in fixed:
            if not _store_scalar(self.base, reg, val, ord(kind)):
                if type(val) is int and kind == "i":   # beyond 2**53: Python for all
                    raise EngineFallback(f"{val!r} is an int beyond 2**53")
                raise TypeError(f"{val!r} does not match kind {kind!r}")
        self.n = len(status)
        self.nin = len(inputs)
        for i, (arr, reg) in enumerate(inputs):
            a = arr
            if a.ndim != 1 or a.shape[0] != self.n:
                raise ValueError("mapped inputs must be 1-D arrays of one length")
            self.ins[i].data = <char*>a.data
            self.ins[i].stride = a.strides[0]
            self.ins[i].dtype = _dtype_code(a)
            self.ins[i].reg = reg
        self.nout = len(outputs)
        for i, (arr, reg) in enumerate(outputs):
            a = arr
            if a.ndim != 1 or a.shape[0] != self.n or not a.flags.writeable:
                raise ValueError("outputs must be writable 1-D arrays of the inputs' length")
            self.outs[i].data = <char*>a.data
            self.outs[i].stride = a.strides[0]
            self.outs[i].dtype = _dtype_code(a)
            self.outs[i].reg = reg
        a = status
        if a.dtype != np.int8 or not a.flags.c_contiguous:
            raise ValueError("status must be a contiguous int8 array")
        self.status = <signed char*>a.data
        self.chunk = chunk if chunk > 0 else 1
        self.next = 0
        self.first_error = self.n

    def __dealloc__(self):
        free(self.base)

    def start_at(self, Py_ssize_t i, Py_ssize_t chunk):
        """Hand out elements from ``i`` on (those before it are done), ``chunk`` at a
        time."""
        self.next = i
        self.chunk = chunk if chunk > 0 else 1

    def stop(self):
        """Make every lane stop at its next element."""
        self.cancel = 1

    def run(self, Py_ssize_t limit=-1, bint signals=False):
        """Map chunks until none is left (or ``limit`` elements are handed out); with
        ``signals``, check for Ctrl-C now and then. Returns (error index, code, arg)
        of this lane's first error, or (-1, 0, 0)."""
        cdef rv_state st
        cdef Py_ssize_t lo, hi, i, end = self.n if limit < 0 else min(self.n, limit)
        cdef int err = 0, code = 0, arg = 0, interrupted = 0
        cdef Py_ssize_t err_at = -1
        cdef double last = 0.0
        cdef int nregs = self.prog.nregs
        import time
        clock = time.perf_counter
        memset(&st, 0, sizeof(rv_state))
        st.regs = <double*>malloc((nregs + 1) * sizeof(double))
        st.fdata = <double*>malloc(_STACK0 * sizeof(double))
        st.idata = <int64_t*>malloc(_STACK0 * sizeof(int64_t))
        if st.regs == NULL or st.fdata == NULL or st.idata == NULL:
            free(st.regs)
            free(st.fdata)
            free(st.idata)
            raise MemoryError()
        memcpy(st.regs, self.base, nregs * sizeof(double))
        st.fcap = _STACK0
        st.icap = _STACK0
        st.code = self.prog.code
        st.uloops = _ULOOPS
        st.tick_mask = self.prog.vm.tick_mask
        if signals:
            last = clock()
        try:
            with nogil:
                while not self.cancel:
                    lo = rv_fetch_add(&self.next, self.chunk)
                    if lo >= end or lo >= rv_load(&self.first_error):
                        break
                    hi = min(lo + self.chunk, end)
                    for i in range(lo, hi):
                        err = self._element(&st, i)
                        while err == RV_E_PAUSE and not self.cancel:
                            if signals:
                                with gil:
                                    interrupted = self._signals()
                                if interrupted:
                                    break
                            err = self.fn(&st)
                        if err == RV_E_PAUSE:       # cancelled
                            break
                        if err == RV_E_FALLBACK or _reruns(self.prog, err):
                            self.status[i] = 1
                        elif err:
                            err_at = i
                            code = err
                            arg = st.err_arg
                            rv_store_min(&self.first_error, i)
                            break
                        elif not self._store(&st, i):
                            self.status[i] = 1      # an int int64 cannot hold: Python
                    if err_at >= 0 or interrupted or err == RV_E_PAUSE:
                        break
                    if signals:
                        with gil:
                            if clock() - last > 0.005:
                                last = clock()
                                interrupted = self._signals()
                        if interrupted:
                            break
        finally:
            free(st.regs)
            free(st.fdata)
            free(st.idata)
            rv_aux_free(&st)
        if interrupted:
            raise self.interrupt
        return (err_at, code, arg)

    cdef int _signals(self):
        try:
            PyErr_CheckSignals()
        except BaseException as exc:
            self.interrupt = exc
            self.cancel = 1
            return 1
        return 0

    cdef inline int _element(self, rv_state* st, Py_ssize_t i) noexcept nogil:
        cdef int p
        cdef char* at
        cdef int64_t iv
        cdef double* r = st.regs
        # every element starts from the registers a call starts from: a parameter the
        # program assigns (a default, an unmapped argument) must not carry over
        memcpy(r, self.base, self.prog.nregs * sizeof(double))
        for p in range(self.nin):
            at = self.ins[p].data + i * self.ins[p].stride
            if self.ins[p].dtype == _D_F64:
                r[self.ins[p].reg] = (<double*>at)[0]
            elif self.ins[p].dtype == _D_I64:
                iv = (<int64_t*>at)[0]
                if iv > (<int64_t>1 << 53) or iv < -(<int64_t>1 << 53):
                    return RV_E_FALLBACK
                r[self.ins[p].reg] = <double>iv
            else:
                r[self.ins[p].reg] = 1.0 if (<unsigned char*>at)[0] else 0.0
        st.fsize = 0
        st.isize = 0
        rv_aux_reset(st)
        st.resume = 0
        return self.fn(st)

    cdef inline int _store(self, rv_state* st, Py_ssize_t i) noexcept nogil:
        """Write element ``i``'s outputs; 0 where an int output is beyond int64 (the
        engine's ints are doubles, so int(1e19) is exact there, but not castable)."""
        cdef int o
        cdef char* at
        cdef double v
        for o in range(self.nout):
            at = self.outs[o].data + i * self.outs[o].stride
            v = st.regs[self.outs[o].reg]
            if self.outs[o].dtype == _D_F64:
                (<double*>at)[0] = v
            elif self.outs[o].dtype == _D_I64:
                if not (-9223372036854775808.0 <= v < 9223372036854775808.0):
                    return 0
                (<int64_t*>at)[0] = <int64_t>v
            else:
                (<unsigned char*>at)[0] = 1 if v != 0.0 else 0
        return 1

    def error(self, int code, int arg):
        """The exception for an element's error."""
        return _engine_error(code, arg, self.prog.messages)


cdef int _dtype_code(cnp.ndarray a) except -1:
    if a.dtype == np.float64:
        return _D_F64
    if a.dtype == np.int64:
        return _D_I64
    if a.dtype == np.bool_:
        return _D_BOOL
    raise TypeError(f"cannot map over an array of {a.dtype}")
