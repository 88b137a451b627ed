# The compiled scalar engine (included by _kernels.pyx): the Python side. A ScalarProgram
# is an int32 code array (opcode, then operands: registers, jump offsets, immediates) over
# double registers, lowered by revsrc/backends/engine/lower.py. The instruction set, its C
# semantics, the libm table and the error codes have one source, revsrc/_engine_ops.py,
# which the build turns into _engine_vm.h (rv_vm_run: one C dispatch loop, no Python work
# per instruction). An error sets a code that becomes Python's exception after the run.
# CPython's float algorithms and the stacks are in _engine_rt.h, shared with the native tier.

cimport cython
from libc.stdint cimport int64_t, intptr_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from cpython.exc cimport PyErr_CheckSignals
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_FromDouble

import builtins as _builtins
import errno as _errno

from revsrc import _engine_ops

cdef extern from "_engine_vm.h" nogil:
    ctypedef struct rv_uloop:
        void* fn
        void* data
    ctypedef struct rv_state:
        double* regs
        const int* code
        const rv_uloop* uloops
        double* fdata
        intptr_t fsize
        intptr_t fcap
        int64_t* idata
        intptr_t isize
        intptr_t icap
        unsigned long long iters
        unsigned long long tick_mask
        int resume
        int err_arg
    ctypedef int (*rv_run_fn)(rv_state*) noexcept nogil
    int rv_vm_run(rv_state* st) noexcept nogil
    void rv_aux_reset(rv_state* st) noexcept nogil
    void rv_aux_free(rv_state* st) noexcept nogil
    double rv_ufunc1(const rv_uloop* u, double x) noexcept nogil
    double rv_ufunc2(const rv_uloop* u, double x, double y) noexcept nogil
    # the codes the Python side acts on (all codes: _engine_ops.ERRORS)
    enum:
        RV_OP_HALT
        RV_E_FALLBACK
        RV_E_GLOBAL
        RV_E_ASSERT
        RV_E_PAUSE
        RV_E_CHECKPOINT
        RV_NOPS
        RV_NERRORS

# Parameter / output kinds, as bytes codes.
cdef enum:
    _K_F = 102    # 'f'
    _K_I = 105    # 'i'
    _K_B = 98     # 'b'

# ----- Run-time errors -----

assert len(_engine_ops.ERRORS) == RV_NERRORS, "_engine_vm.h is stale: rebuild"


class EngineFallback(Exception):
    """The engine cannot reproduce Python exactly for these inputs (an int beyond 2**53,
    a complex power, a global whose type changed); the caller runs the Python path."""


class EngineCheckpoint(Exception):
    """A gradient built with its long loops stored met a loop whose saves would exceed
    its memory bound: the caller builds the checkpointed form and calls again
    (revsrc/passes/reverse/checkpoint). Raised by the engine and by the Python path."""


cdef object _engine_error(int code, int arg, list messages):
    name, exc, msg = _engine_ops.ERRORS[code]
    if exc == "errno":
        return OverflowError(_errno.ERANGE, msg)
    if exc == "assert":
        m = messages[arg]
        return AssertionError(m) if m is not None else AssertionError()
    if exc == "checkpoint":
        return EngineCheckpoint(msg)
    if exc == "fallback" or exc is None or exc == "pause":
        return EngineFallback(msg)
    cls = getattr(_builtins, exc)
    return cls(msg) if msg else cls()


# ----- NumPy's own float64 loops -----
# A NumPy function on floats runs through the very inner loop that NumPy runs for a
# float64 scalar (see _engine_rt.h): each is registered once in a slot of _ULOOPS.

cdef enum:
    _MAX_ULOOPS = 256

cdef rv_uloop _ULOOPS[_MAX_ULOOPS]
cdef int _n_uloops = 0
_uloop_slots = {}    # ufunc -> index into _ULOOPS (the ufunc stays referenced here)


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
            _ULOOPS[_n_uloops].fn = <void*>uf.functions[i]
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
        return rv_ufunc1(&_ULOOPS[slot], args[0])
    return rv_ufunc2(&_ULOOPS[slot], args[0], args[1])


# ----- Programs -----

cdef enum:
    _STACK0 = 256


# A run pauses at a loop's back edge every tick_mask + 1 iterations, so that Ctrl-C
# is seen within milliseconds: the pause comes after at most about _TICK_WORDS code
# words (a loop body is at most the whole program), whatever the program's size.
cdef enum:
    _TICK_WORDS = 1 << 22
    _TICK_MIN = 256


cdef unsigned long long _tick_mask(int ncode) noexcept:
    cdef unsigned long long n = _TICK_MIN
    while n * 2 * <unsigned long long>(ncode if ncode > 0 else 1) <= _TICK_WORDS:
        n *= 2
    return n - 1


cdef class ScalarProgram:
    """An assembled engine program: code, registers, stacks and the I/O mapping.

    Built by revsrc.backends.engine.lower.lower; ``run(args)`` returns one value per program output.

    A run starts with the GIL held (a short run pays nothing for it). A long one pauses
    every few milliseconds at a loop's back edge, checks for signals (Ctrl-C raises
    KeyboardInterrupt there) and goes on without the GIL: the run touches no Python
    object. A thread that calls the program while another runs it uses a copy.
    """
    cdef rv_state vm
    cdef rv_run_fn run_fn       # the VM, or the program compiled by the native tier
    cdef readonly bint busy     # a run of this state is in progress without the GIL
    cdef ScalarProgram _spare   # a copy for threads that find the program busy
    cdef tuple _io              # (parameter registers, output registers)
    cdef object _native         # what keeps the compiled code loaded (native tier)
    cdef unsigned long long work    # runs plus loop iterations, for the native tier
    cdef unsigned long long hot_at  # call on_hot when work reaches it
    cdef public object on_hot
    cdef object __weakref__
    cdef int* code
    cdef double* regs
    cdef readonly int ncode
    cdef readonly int nregs
    cdef readonly int nparams
    cdef int* param_regs
    cdef readonly bytes param_kinds
    cdef int nout
    cdef int* out_regs
    cdef readonly bytes out_kinds
    cdef list globals_spec      # [(register, namespace or cell, key or None, kind)]
    cdef list messages
    cdef unsigned long long runs
    cdef readonly tuple code_list
    cdef readonly tuple reg_init
    cdef public bint numpy_scalars  # NumPy's errors fall back to Python (_engine_numpy.pxi)

    def __cinit__(self):
        self.vm.fdata = <double*>malloc(_STACK0 * sizeof(double))
        self.vm.idata = <int64_t*>malloc(_STACK0 * sizeof(int64_t))
        if self.vm.fdata == NULL or self.vm.idata == NULL:
            raise MemoryError()
        self.vm.fcap = _STACK0
        self.vm.icap = _STACK0
        self.vm.uloops = _ULOOPS
        self.run_fn = rv_vm_run
        self.hot_at = <unsigned long long>-1

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
        self.code[self.ncode] = RV_OP_HALT
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
        self.vm.tick_mask = _tick_mask(self.ncode)
        self._io = (tuple(param_regs), tuple(out_regs))

    def __dealloc__(self):
        free(self.code)
        free(self.regs)
        free(self.param_regs)
        free(self.out_regs)
        free(self.vm.fdata)
        free(self.vm.idata)
        rv_aux_free(&self.vm)

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
        """Run the loaded program; returns the engine's error code (0 on success).
        Not for a busy program (see `_borrow`)."""
        cdef int err
        if self.globals_spec and self._prologue():
            return RV_E_GLOBAL
        self.vm.fsize = 0
        self.vm.isize = 0
        rv_aux_reset(&self.vm)
        self.vm.resume = 0
        self.runs += 1
        cdef unsigned long long before = self.vm.iters
        err = self.run_fn(&self.vm)
        if err == RV_E_PAUSE:
            err = self._long_run()
        if err and _reruns(self, err):
            err = RV_E_FALLBACK
        if self.vm.fcap > (1 << 22) and self.vm.fsize == 0:
            self._shrink()
        self.work += 1 + (self.vm.iters - before)
        if self.work >= self.hot_at:
            self._hot()
        return err

    cdef void _hot(self) noexcept:
        # once: the native tier is told that this program is worth compiling
        self.hot_at = <unsigned long long>-1
        if self.on_hot is not None:
            try:
                self.on_hot(self)
            except BaseException as exc:  # the run's result stands whatever happens
                import warnings
                warnings.warn(f"revsrc native tier: {exc!r}", RuntimeWarning)

    def notify_when_hot(self, unsigned long long work, callback):
        """Call ``callback(program)`` once, after the run that brings runs plus loop
        iterations (since construction) to ``work``."""
        self.on_hot = callback
        self.hot_at = work
        if self.work >= work:
            self._hot()

    def use_native(self, size_t run_address, keep):
        """Run from now on with the compiled ``int (*)(rv_state *)`` at
        ``run_address`` (0: the VM again); ``keep`` keeps its library loaded."""
        self.run_fn = <rv_run_fn>run_address if run_address else rv_vm_run
        self._native = keep if run_address else None
        if self._spare is not None:
            self._spare.run_fn = self.run_fn

    def _out_registers(self):
        return list(self._io[1])

    def _param_registers(self):
        return list(self._io[0])

    @property
    def tier(self):
        """'native' when the program runs compiled by the native tier, else 'vm'."""
        return "vm" if self.run_fn == rv_vm_run else "native"

    cdef int _long_run(self) except -1:
        """The rest of a run that paused: signals checked at every pause, the GIL
        released in between."""
        cdef int err = RV_E_PAUSE
        cdef rv_run_fn fn
        self.busy = 1
        try:
            while err == RV_E_PAUSE:
                PyErr_CheckSignals()        # raises KeyboardInterrupt on Ctrl-C
                fn = self.run_fn            # the native tier may have arrived meanwhile
                with nogil:
                    err = fn(&self.vm)
        finally:
            self.busy = 0
        return err

    cdef ScalarProgram _borrow(self):
        """This program, or a copy of it with its own registers and stacks when a run
        of this one is in progress in another thread."""
        cdef ScalarProgram c
        if not self.busy:
            return self
        c = self._spare
        if c is not None and not c.busy:
            self._spare = None
            return c
        c = ScalarProgram(self.code_list, self.reg_init, self._io[0], self.param_kinds,
                          self._io[1], self.out_kinds, self.globals_spec, self.messages)
        c.run_fn = self.run_fn
        c._native = self._native
        c.numpy_scalars = self.numpy_scalars
        return c

    cdef void _give_back(self, ScalarProgram c):
        if c is not self:
            self.runs += 1
            self._spare = c

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
        cdef ScalarProgram p
        args = tuple(args)
        if len(args) != self.nparams:
            raise TypeError(f"expected {self.nparams} arguments, got {len(args)}")
        p = self._borrow()
        try:
            for i in range(self.nparams):
                if not _store_scalar(p.regs, p.param_regs[i], args[i], p.param_kinds[i]):
                    if type(args[i]) is int and p.param_kinds[i] == _K_I:
                        # an int beyond 2**53, which a double cannot hold: Python
                        raise EngineFallback(f"argument {i} is an int beyond 2**53")
                    raise TypeError(f"argument {i} ({args[i]!r}) does not match kind "
                                    f"{chr(p.param_kinds[i])!r} (or is an int beyond 2**53)")
            err = p._execute()
            if err:
                p._raise(err)
            return tuple([p._out(i) for i in range(p.nout)])
        finally:
            self._give_back(p)

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


def bind_uloops(size_t table, slots):
    """Fill a native program's table of NumPy loops (at address ``table``) with the
    loops in engine ``slots``, in order: function pointers handed over at load time."""
    cdef rv_uloop* t = <rv_uloop*>table
    cdef Py_ssize_t i
    for i, slot in enumerate(slots):
        if not 0 <= slot < _n_uloops:
            raise IndexError(slot)
        t[i] = _ULOOPS[<int>slot]


# The sizes of the tables compiled into this module (tests compare them with the source).
ENGINE_BUILT_TABLES = {"instructions": RV_NOPS, "errors": RV_NERRORS}
