# The scalar engine over blocks of lanes: revsrc.vmap's LaneMapper (included by
# _kernels.pyx after _engine_map.pxi, whose columns, counters and checks it shares).
#
# A program's lanes function (revsrc/backends/engine/lanes.py writes and compiles it)
# runs each instruction over a block of elements at once, each register a row of
# lanes. The LaneMapper hands out blocks from a shared counter to the threads that
# run it, fills each block's rows from the inputs, runs the block to the end (pausing
# for signals now and then) and writes each lane's outputs, or its error.

from libc.limits cimport INT_MAX
from libc.stdlib cimport calloc

ctypedef int (*rv_lanes_fn)(double* R, const double* U, int n, int* lpc, int* idx,
                            int* lerr, int* larg, double** fst, intptr_t* fsz,
                            intptr_t* fcp, int64_t** ist, intptr_t* isz, intptr_t* icp,
                            unsigned long long* iters, unsigned long long tick) noexcept nogil


cdef struct _LaneBlock:
    # one thread's block: rows of lanes, per-lane control and stacks
    double* R
    int* pc
    int* idx
    int* err
    int* arg
    double** fst
    intptr_t* fsz
    intptr_t* fcp
    int64_t** ist
    intptr_t* isz
    intptr_t* icp
    unsigned long long iters


cdef int _lanes_alloc(_LaneBlock* b, int rows, int width) noexcept nogil:
    memset(b, 0, sizeof(_LaneBlock))
    b.R = <double*>malloc((<size_t>rows * width + 1) * sizeof(double))
    b.pc = <int*>malloc(width * sizeof(int))
    b.idx = <int*>malloc(width * sizeof(int))
    b.err = <int*>malloc(width * sizeof(int))
    b.arg = <int*>malloc(width * sizeof(int))
    b.fst = <double**>calloc(width, sizeof(double*))
    b.ist = <int64_t**>calloc(width, sizeof(int64_t*))
    b.fsz = <intptr_t*>calloc(width, sizeof(intptr_t))
    b.fcp = <intptr_t*>calloc(width, sizeof(intptr_t))
    b.isz = <intptr_t*>calloc(width, sizeof(intptr_t))
    b.icp = <intptr_t*>calloc(width, sizeof(intptr_t))
    return not (b.R and b.pc and b.idx and b.err and b.arg and b.fst and b.ist and b.fsz
                and b.fcp and b.isz and b.icp)


cdef void _lanes_free(_LaneBlock* b, int width) noexcept nogil:
    cdef int l
    if b.fst != NULL:
        for l in range(width):
            free(b.fst[l])
    if b.ist != NULL:
        for l in range(width):
            free(b.ist[l])
    free(b.R); free(b.pc); free(b.idx); free(b.err); free(b.arg)
    free(b.fst); free(b.ist); free(b.fsz); free(b.fcp); free(b.isz); free(b.icp)


@cython.final
cdef class LaneMapper:
    """Mapper's interface (start_at, run, stop, error) over a lanes function.

    ``address``: the compiled ``rv_lanes_run``; ``rows``: {register: row} of the
    registers that differ between lanes; ``width``: lanes per block; the rest as for
    Mapper. ``keep`` keeps the function's library loaded.
    """
    cdef ScalarProgram prog
    cdef rv_lanes_fn fn
    cdef double* base
    cdef int* row_reg           # row -> register
    cdef int nrows, width
    cdef _Column ins[_MAX_IO]
    cdef int in_row[_MAX_IO]
    cdef _Column outs[_MAX_IO]
    cdef int out_row[_MAX_IO]   # -1: the register is the same in every lane
    cdef int nin, nout
    cdef signed char* status
    cdef Py_ssize_t n, next, chunk, first_error
    cdef int cancel
    cdef list keep
    cdef public object interrupt

    def __cinit__(self):
        self.base = NULL
        self.row_reg = NULL

    def __init__(self, ScalarProgram prog, size_t address, dict rows, int width, keep,
                 inputs, fixed, outputs, status):
        cdef Py_ssize_t i
        cdef cnp.ndarray a
        self.prog = prog
        self.fn = <rv_lanes_fn>address
        self.width = width
        self.keep = [keep, inputs, outputs, status]
        if len(inputs) > _MAX_IO or len(outputs) > _MAX_IO:
            raise ValueError("too many inputs or outputs to map")
        self.base = <double*>malloc((prog.nregs + 1) * sizeof(double))
        self.nrows = len(rows)
        self.row_reg = <int*>malloc((self.nrows + 1) * sizeof(int))
        if self.base == NULL or self.row_reg == NULL:
            raise MemoryError()
        for reg, row in rows.items():
            self.row_reg[row] = reg
        for i in range(prog.nregs):
            self.base[i] = prog.reg_init[i]
        if prog.globals_spec:      # read once: every element sees the same globals
            for g in prog.globals_spec:
                val = g[1].cell_contents if g[2] is None else g[1][g[2]]
                if not _store_scalar(self.base, g[0], val, g[3]):
                    raise EngineFallback("a global read by the program changed type")
        for val, reg, kind in fixed:
            if not _store_scalar(self.base, reg, val, ord(kind)):
                if type(val) is int and kind == "i":
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
            self.in_row[i] = rows[reg]
        self.nout = len(outputs)
        for i, (arr, reg) in enumerate(outputs):
            a = arr
            if a.ndim != 1 or a.shape[0] != self.n or not a.flags.writeable:
                raise ValueError("outputs must be writable 1-D arrays of the inputs' length")
            self.outs[i].data = <char*>a.data
            self.outs[i].stride = a.strides[0]
            self.outs[i].dtype = _dtype_code(a)
            self.outs[i].reg = reg
            self.out_row[i] = rows.get(reg, -1)
        a = status
        if a.dtype != np.int8 or not a.flags.c_contiguous:
            raise ValueError("status must be a contiguous int8 array")
        self.status = <signed char*>a.data
        self.chunk = width
        self.next = 0
        self.first_error = self.n

    def __dealloc__(self):
        free(self.base)
        free(self.row_reg)

    def start_at(self, Py_ssize_t i, Py_ssize_t chunk):
        """Hand out elements from ``i`` on, ``chunk`` at a time (whole blocks)."""
        self.next = i
        self.chunk = max(self.width, (chunk + self.width - 1) // self.width * self.width)

    def stop(self):
        self.cancel = 1

    def run(self, Py_ssize_t limit=-1, bint signals=False):
        """As Mapper.run: map chunks until none is left; (error index, code, arg) of
        this thread's first error, or (-1, 0, 0)."""
        cdef _LaneBlock blk
        cdef Py_ssize_t lo, hi, at, end = self.n if limit < 0 else min(self.n, limit)
        cdef int err = 0, code = 0, arg = 0, interrupted = 0, m
        cdef Py_ssize_t err_at = -1
        cdef double last = 0.0
        cdef unsigned long long tick = self.prog.vm.tick_mask + 1
        import time
        clock = time.perf_counter
        if _lanes_alloc(&blk, self.nrows, self.width):
            _lanes_free(&blk, self.width)
            raise MemoryError()
        if signals:
            last = clock()
        try:
            with nogil:
                while not self.cancel and err_at < 0:
                    lo = rv_fetch_add(&self.next, self.chunk)
                    if lo >= end or lo >= rv_load(&self.first_error):
                        break
                    hi = min(lo + self.chunk, end)
                    at = lo
                    while at < hi and not self.cancel:
                        m = <int>min(<Py_ssize_t>self.width, hi - at)
                        self._load(&blk, at, m)
                        err = self.fn(blk.R, self.base, m, blk.pc, blk.idx, blk.err, blk.arg,
                                      blk.fst, blk.fsz, blk.fcp, blk.ist, blk.isz, blk.icp,
                                      &blk.iters, blk.iters + tick)
                        while err == RV_E_PAUSE and not self.cancel:
                            if signals:
                                with gil:
                                    interrupted = self._signals()
                                if interrupted:
                                    break
                            err = self.fn(blk.R, self.base, m, blk.pc, blk.idx, blk.err,
                                          blk.arg, blk.fst, blk.fsz, blk.fcp, blk.ist,
                                          blk.isz, blk.icp, &blk.iters, blk.iters + tick)
                        if err != 0:        # cancelled, interrupted (or a bad program)
                            break
                        err_at = self._store(&blk, at, m, &code, &arg)
                        if err_at >= 0:
                            rv_store_min(&self.first_error, err_at)
                            break
                        at += m
                    if err != 0 or interrupted:
                        break
                    if signals:
                        with gil:
                            if clock() - last > 0.005:
                                last = clock()
                                interrupted = self._signals()
                        if interrupted:
                            break
        finally:
            _lanes_free(&blk, self.width)
        if interrupted:
            raise self.interrupt
        if err != 0 and err != RV_E_PAUSE:
            raise EngineFallback("the lanes program stopped")
        return (err_at, code, arg)

    cdef int _signals(self):
        try:
            PyErr_CheckSignals()
        except BaseException as exc:
            self.interrupt = exc
            self.cancel = 1
            return 1
        return 0

    cdef void _load(self, _LaneBlock* b, Py_ssize_t at, int m) noexcept nogil:
        """Lanes 0..m-1 get elements at..at+m-1, from the registers a call starts from."""
        cdef int r, l, p, W = self.width
        cdef double v
        cdef double* row
        cdef char* src
        cdef int64_t iv
        for r in range(self.nrows):
            v = self.base[self.row_reg[r]]
            row = b.R + <size_t>r * W
            for l in range(m):
                row[l] = v
        for l in range(m):
            b.pc[l] = 0
            b.err[l] = 0
            b.fsz[l] = 0
            b.isz[l] = 0
        for p in range(self.nin):
            row = b.R + <size_t>self.in_row[p] * W
            src = self.ins[p].data + at * self.ins[p].stride
            if self.ins[p].dtype == _D_F64:
                for l in range(m):
                    row[l] = (<double*>(src + l * self.ins[p].stride))[0]
            elif self.ins[p].dtype == _D_I64:
                for l in range(m):
                    iv = (<int64_t*>(src + l * self.ins[p].stride))[0]
                    if iv > (<int64_t>1 << 53) or iv < -(<int64_t>1 << 53):
                        b.pc[l] = INT_MAX           # out of the run: Python
                        b.err[l] = RV_E_FALLBACK
                    row[l] = <double>iv
            else:
                for l in range(m):
                    row[l] = 1.0 if (<unsigned char*>(src + l * self.ins[p].stride))[0] else 0.0

    cdef Py_ssize_t _store(self, _LaneBlock* b, Py_ssize_t at, int m, int* code,
                           int* arg) noexcept nogil:
        """Write each lane's outputs; the index of the first lane that failed (its
        code and argument set), or -1."""
        cdef int l, o, e
        cdef char* dst
        cdef double v
        for l in range(m):
            e = b.err[l]
            if e == RV_E_FALLBACK or e == RV_E_GLOBAL or _reruns(self.prog, e):
                self.status[at + l] = 1
                continue
            if e:
                code[0] = e
                arg[0] = b.arg[l]
                return at + l
            for o in range(self.nout):
                dst = self.outs[o].data + (at + l) * self.outs[o].stride
                if self.out_row[o] >= 0:
                    v = b.R[<size_t>self.out_row[o] * self.width + l]
                else:
                    v = self.base[self.outs[o].reg]
                if self.outs[o].dtype == _D_F64:
                    (<double*>dst)[0] = v
                elif self.outs[o].dtype == _D_I64:
                    if not (-9223372036854775808.0 <= v < 9223372036854775808.0):
                        self.status[at + l] = 1
                        break
                    (<int64_t*>dst)[0] = <int64_t>v
                else:
                    (<unsigned char*>dst)[0] = 1 if v != 0.0 else 0
        return -1

    def error(self, int code, int arg):
        """The exception for an element's error."""
        return _engine_error(code, arg, self.prog.messages)
