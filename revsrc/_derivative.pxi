# The user's derivative (included by _kernels.pyx after _engine.pxi): what
# ``revsrc.grad`` returns for scalar programs. It runs an installed ScalarProgram when the
# arguments' types match one, and the general path otherwise; Python calls it through
# PEP 590's vectorcall, so a call builds no argument tuple.
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

cdef extern from "Python.h":
    # PEP 590: a Derivative is called without building an argument tuple
    ctypedef PyObject* (*vectorcallfunc)(PyObject*, PyObject* const*, size_t, PyObject*)
    Py_ssize_t PyVectorcall_NARGS(size_t nargsf)
    unsigned long Py_TPFLAGS_HAVE_VECTORCALL
    ctypedef struct PyTupleObject:
        PyObject* ob_item[1]
    ctypedef struct _VectorcallType "PyTypeObject":
        Py_ssize_t tp_vectorcall_offset
        unsigned long tp_flags


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
    # what the installed programs took as fixed when they were made (`deps`); a
    # rebound name sends every call to ``slow``, which makes the derivative anew
    cdef Guards _guards
    # the vectorcall slot (PEP 590), set for every instance: `_derivative_vectorcall`
    cdef vectorcallfunc _vectorcall

    def __cinit__(self, *args, **kwargs):
        self._vectorcall = <vectorcallfunc>_derivative_vectorcall

    def __init__(self, slow):
        self.slow = slow
        self._installs = []
        self._guards = Guards([])

    @property
    def deps(self):
        """What the installed programs took as fixed: ir.Program.deps (`Guards`)."""
        return list(self._guards.deps)

    @deps.setter
    def deps(self, deps):
        self._guards = Guards(deps)

    def __reduce__(self):
        # the function and the options; the copy transforms again when first called
        from revsrc import api
        return api._reduce(self)

    def clear(self):
        """Forget every installed program (a name they took as fixed was rebound)."""
        self._installs = []
        self._guards = Guards([])

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
        # calls through a tuple (PyObject_Call, functools.partial, ...); Python's own
        # calls take `_derivative_vectorcall`
        if kwargs:
            return self.slow(*args, **kwargs)
        return _derivative_run(self, <PyObject**>&(<PyTupleObject*>args).ob_item[0],
                               len(args))


cdef object _derivative_run(Derivative self, PyObject** args, Py_ssize_t n):
    """The engine when the arguments match an installed program, else ``slow``."""
    cdef _Install inst
    cdef ScalarProgram prog
    cdef Py_ssize_t i
    cdef int err
    cdef bint ok
    if self._guards.n and not self._guards.check(None):
        self.clear()
        return self.slow(*_args_tuple(args, n))
    for inst in self._installs:
        prog = inst.prog
        if prog.nparams != n:
            continue
        if prog.busy:           # running in another thread, without the GIL
            out = _call_copy(inst, _args_tuple(args, n), self.slow)
            if out is _NO_MATCH:
                continue
            return out
        ok = 1
        for i in range(n):
            if not _store_scalar(prog.regs, prog.param_regs[i], <object>args[i],
                                 inst.kinds[i]):
                ok = 0
                break
        if not ok:
            continue
        err = prog._execute()
        if err:
            if err == RV_E_FALLBACK or err == RV_E_GLOBAL or err == RV_E_CHECKPOINT:
                return self.slow(*_args_tuple(args, n))
            prog._raise(err)
        return _select(prog, inst.select)
    return self.slow(*_args_tuple(args, n))


cdef tuple _args_tuple(PyObject** args, Py_ssize_t n):
    cdef tuple out = PyTuple_New(n)
    cdef Py_ssize_t i
    for i in range(n):
        Py_INCREF(<object>args[i])
        PyTuple_SET_ITEM(out, i, <object>args[i])
    return out


cdef object _derivative_vectorcall(object self, PyObject** args, size_t nargsf,
                                   PyObject* kwnames):
    cdef Py_ssize_t n = PyVectorcall_NARGS(nargsf), i
    cdef dict kwargs
    if kwnames is not NULL and len(<tuple>kwnames):
        kwargs = {}
        for i in range(len(<tuple>kwnames)):
            kwargs[(<tuple>kwnames)[i]] = <object>args[n + i]
        return (<Derivative>self).slow(*_args_tuple(args, n), **kwargs)
    return _derivative_run(<Derivative>self, args, n)


cdef _vectorcall_ready():
    # every instance holds `_derivative_vectorcall` at the same offset: tell the type
    cdef Derivative probe = Derivative.__new__(Derivative)
    cdef _VectorcallType* t = <_VectorcallType*>Derivative
    t.tp_vectorcall_offset = <Py_ssize_t>(<char*>&probe._vectorcall - <char*><PyObject*>probe)
    t.tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL


_vectorcall_ready()


_NO_MATCH = object()


cdef object _call_copy(_Install inst, tuple args, object slow):
    """Derivative.__call__ on a copy of a program that another thread is running."""
    cdef ScalarProgram p = inst.prog._borrow()
    cdef Py_ssize_t i
    cdef int err
    try:
        for i in range(len(args)):
            if not _store_scalar(p.regs, p.param_regs[i], args[i], inst.kinds[i]):
                return _NO_MATCH
        err = p._execute()
        if err:
            if err == RV_E_FALLBACK or err == RV_E_GLOBAL or err == RV_E_CHECKPOINT:
                return slow(*args)
            p._raise(err)
        return _select(p, inst.select)
    finally:
        inst.prog._give_back(p)


cdef object _select(ScalarProgram prog, object select):
    cdef Py_ssize_t i, n
    cdef tuple out
    if type(select) is int:
        return prog._out(select)
    n = len(<tuple>select)
    out = PyTuple_New(n)
    for i in range(n):
        item = _select(prog, (<tuple>select)[i])
        Py_INCREF(item)
        PyTuple_SET_ITEM(out, i, item)
    return out


cdef _check_select(object select, int nout):
    if type(select) is int:
        if not 0 <= select < nout:
            raise ValueError(f"select {select} is not an output index (< {nout})")
    elif type(select) is tuple:
        for s in select:
            _check_select(s, nout)
    else:
        raise TypeError("select must be an int or a tuple of selects")
