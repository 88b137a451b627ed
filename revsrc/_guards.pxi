# Guards (included by _kernels.pyx): does every name a program took as fixed still
# hold what it held when the program was made?
#
# A program folds in what some names held when it was transformed: the functions it
# inlined, ``ACT = np.tanh``, a derivative, ``self.act`` (revsrc/frontend/bindings.py
# lists them, as ir.Program.deps). A compiled derivative checks them on every call,
# before it runs, so `Guards` turns the list into a table once and checks it in C.
# A dict that has not been written since its guards last held (a module's globals,
# in a loop inside a function) is not even looked up: CPython gives each dict a
# version that changes with every write to it (PEP 509, read here on 3.11 and 3.12),
# and such a guard costs one comparison of integers. Elsewhere it is a lookup.

cimport cython
from cpython.dict cimport PyDict_GetItem, PyDict_Next

cdef extern from *:
    """
    /* The version of a dict with its own table (a module's globals), 0 for none: a
       dict that shares its values with an object's (an instance's __dict__) is
       looked up every time. */
    #if PY_VERSION_HEX < 0x030D0000
    #if defined(__GNUC__)
    #pragma GCC diagnostic push
    #pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    #endif
    static inline unsigned long long rv_dict_version(PyObject *d) {
        PyDictObject *mp = (PyDictObject *)d;
        return mp->ma_values == NULL ? (unsigned long long)mp->ma_version_tag : 0;
    }
    #if defined(__GNUC__)
    #pragma GCC diagnostic pop
    #endif
    #else
    static inline unsigned long long rv_dict_version(PyObject *d) { (void)d; return 0; }
    #endif
    /* The mapping behind a mapping proxy (a class's __dict__): its only field, the
       same in every CPython since 3.3. A class's own dict has a version. */
    typedef struct { PyObject_HEAD PyObject *mapping; } rv_proxy;
    static inline PyObject* rv_proxy_mapping(PyObject *p) { return ((rv_proxy *)p)->mapping; }
    /* A function's __defaults__ and __kwdefaults__ as Python reads them (None for none). */
    static inline PyObject* rv_or_none(PyObject *p) { return p == NULL ? Py_None : p; }
    static inline PyObject* rv_type_of(PyObject *o) { return (PyObject *)Py_TYPE(o); }
    """
    unsigned long long rv_dict_version(PyObject* d)
    PyObject* rv_proxy_mapping(PyObject* p)
    PyObject* rv_or_none(PyObject* p)
    PyObject* rv_type_of(PyObject* o)
    PyObject* PyFunction_GET_DEFAULTS(PyObject*)
    PyObject* PyFunction_GET_KW_DEFAULTS(PyObject*)
    bint PyCell_Check(object)
    PyObject* PyCell_GET(PyObject*)
    bint PyFunction_Check(object)
    PyObject* PyFunction_GET_CODE(PyObject*)
    Py_ssize_t PyList_GET_SIZE(object)
    PyObject* PyList_GET_ITEM(object, Py_ssize_t)
    Py_ssize_t PyTuple_GET_SIZE(object)
    PyObject* PyTuple_GET_ITEM(object, Py_ssize_t)
    Py_ssize_t PyDict_GET_SIZE(object)

cdef enum:
    _IN_DICT = 0      # a globals dict, a module's, an instance's __dict__
    _IN_CELL = 1      # a closure cell
    _ELSEWHERE = 2    # a class's mapping proxy, an object's slot
    _KIND = 3         # a global read when the program runs: only its kind is fixed
    _CONTENTS = 4     # a list or dict whose items a program took as constants
    _FUNCTION = 5     # a function whose body and defaults a program took as fixed
    _CLASS = 6        # an object whose class (its methods, its __call__) a program took

cdef struct _Guard:
    PyObject* holder      # borrowed: `Guards.deps` keeps each alive
    PyObject* name
    PyObject* value
    PyObject* code        # a function's __code__ (or a _KIND's kind); NULL for none
    unsigned long long seen   # the holder's version when the guard last held; 0: none
    int how

cdef object _UNBOUND = object()
# what a guard expects of a name that must stay unbound: an instance attribute that
# would hide the class attribute a program was made with
UNBOUND = _UNBOUND

cdef object _CONTENTS_OF = object()
# the "name" of a guard on a list's or dict's items (revsrc/frontend/lower/numbers.py):
# (container, CONTENTS, snapshot, None), the snapshot a tuple of its items (of a
# dict's (key, value) pairs), each compared by identity, in order
CONTENTS = _CONTENTS_OF

cdef object _FUNCTION_OF = object()
# the "name" of a guard on what a function a program was lowered from holds
# (revsrc/frontend/bindings.py, `function_guards`): (function, FUNCTION, (__code__,
# __defaults__, __kwdefaults__), None), each compared by identity
FUNCTION = _FUNCTION_OF


cdef bint _same_contents(object container, object snapshot):
    """Whether the list or dict ``container`` holds the objects of ``snapshot``."""
    cdef Py_ssize_t i, n = PyTuple_GET_SIZE(snapshot)
    cdef Py_ssize_t pos = 0
    cdef PyObject* k
    cdef PyObject* v
    cdef PyObject* pair
    if type(container) is list:
        if PyList_GET_SIZE(container) != n:
            return False
        for i in range(n):
            if PyList_GET_ITEM(container, i) != PyTuple_GET_ITEM(snapshot, i):
                return False
        return True
    if PyDict_GET_SIZE(container) != n:
        return False
    i = 0
    while PyDict_Next(container, &pos, &k, &v):
        pair = PyTuple_GET_ITEM(snapshot, i)
        if k != PyTuple_GET_ITEM(<object>pair, 0) or v != PyTuple_GET_ITEM(<object>pair, 1):
            return False
        i += 1
    return True

_MappingProxy = type(type.__dict__)


cdef inline object _held(object holder, object name):
    """What ``name`` holds now in ``holder``; UNBOUND if nothing."""
    cdef PyObject* p
    if type(holder) is dict:
        p = PyDict_GetItem(holder, name)     # borrowed; NULL when absent, never raises
        return _UNBOUND if p == NULL else <object>p
    if PyCell_Check(holder):
        p = PyCell_GET(<PyObject*>holder)    # NULL for a cell not bound (or deleted)
        return _UNBOUND if p == NULL else <object>p
    if type(holder) is _MappingProxy:
        return holder.get(name, _UNBOUND)
    return getattr(holder, name, _UNBOUND)


@cython.final
cdef class Guards:
    """ir.Program.deps, checked in C: one tuple per name a program took as fixed.

    (holder, name, value, code): the holder a globals or instance dict, a closure
    cell, a class's mapping proxy or an object (a slot); ``value`` compared by
    identity (UNBOUND: the name must stay unbound); ``code`` a function's
    ``__code__`` (None for any other value). Or (holder, name, "kind", kind
    signature): a global the program reads when it runs, whose kind is the program's,
    checked when a ``signature`` function (kinds.signature) is given (the engine
    checks it itself as it loads the global). Or (container, CONTENTS, snapshot,
    None): a list or dict that still holds the items (the keys) of ``snapshot``.
    """
    cdef readonly tuple deps
    cdef readonly Py_ssize_t n
    cdef _Guard* items

    def __cinit__(self, deps):
        cdef _Guard* g
        cdef Py_ssize_t i
        self.deps = tuple(deps)
        self.n = len(self.deps)
        self.items = <_Guard*>malloc(max(self.n, 1) * sizeof(_Guard))
        if self.items == NULL:
            raise MemoryError()
        for i in range(self.n):
            holder, name, value, code = self.deps[i]
            g = &self.items[i]
            g.holder = <PyObject*>holder
            g.name = <PyObject*>name
            g.value = <PyObject*>value
            g.seen = 0
            g.code = NULL
            if name is _CONTENTS_OF:
                g.how = _CONTENTS
            elif name is _FUNCTION_OF:
                if not PyFunction_Check(holder) or type(value) is not tuple or len(value) != 3:
                    raise TypeError("a FUNCTION guard is (function, FUNCTION, (code, "
                                    "defaults, kwdefaults), None)")
                g.how = _FUNCTION
            elif type(value) is str:
                g.how = _KIND
                g.code = <PyObject*>code
            elif type(name) is str and name == "__class__" and not PyCell_Check(holder) \
                    and type(holder) not in (dict, _MappingProxy):
                g.how = _CLASS    # (obj, "__class__", its class, None): Py_TYPE compared
            else:
                if type(holder) is _MappingProxy and \
                        type(<object>rv_proxy_mapping(<PyObject*>holder)) is dict:
                    # a class's __dict__: its own dict, which has a version (the proxy,
                    # kept by `deps`, keeps the dict alive)
                    g.holder = rv_proxy_mapping(<PyObject*>holder)
                g.how = _IN_DICT if type(<object>g.holder) is dict else \
                    _IN_CELL if PyCell_Check(holder) else _ELSEWHERE
                if code is not None and PyFunction_Check(value):
                    g.code = <PyObject*>code

    def __dealloc__(self):
        free(self.items)

    cdef inline bint check(self, object signature) except -1:
        cdef Py_ssize_t i
        cdef _Guard* g
        cdef PyObject* p
        cdef unsigned long long version
        for i in range(self.n):
            g = &self.items[i]
            if g.how == _IN_DICT:
                version = rv_dict_version(g.holder)
                if version == 0 or version != g.seen:   # else not written since it held
                    p = PyDict_GetItem(<object>g.holder, <object>g.name)
                    if p == NULL:
                        p = <PyObject*>_UNBOUND
                    if p != g.value:
                        return False
                    g.seen = version
            elif g.how == _IN_CELL:
                p = PyCell_GET(g.holder)
                if p != g.value:
                    return False
            elif g.how == _CONTENTS:
                version = rv_dict_version(g.holder) if type(<object>g.holder) is dict else 0
                if version == 0 or version != g.seen:   # a dict not written: unchanged
                    if not _same_contents(<object>g.holder, <object>g.value):
                        return False
                    g.seen = version
            elif g.how == _FUNCTION:
                if PyFunction_GET_CODE(g.holder) != PyTuple_GET_ITEM(<object>g.value, 0) or \
                        rv_or_none(PyFunction_GET_DEFAULTS(g.holder)) != \
                        PyTuple_GET_ITEM(<object>g.value, 1) or \
                        rv_or_none(PyFunction_GET_KW_DEFAULTS(g.holder)) != \
                        PyTuple_GET_ITEM(<object>g.value, 2):
                    return False
                continue
            elif g.how == _CLASS:
                if rv_type_of(g.holder) != g.value:
                    return False
            elif g.how == _ELSEWHERE:
                if _held(<object>g.holder, <object>g.name) is not <object>g.value:
                    return False
            else:
                if signature is None:
                    continue
                now = _held(<object>g.holder, <object>g.name)
                if now is _UNBOUND or signature(now) != <object>g.code:
                    return False
                continue
            if g.code != NULL and PyFunction_GET_CODE(g.value) != g.code:
                return False      # the function's __code__ was replaced
        return True

    def current(self, signature=None):
        """Whether every name still holds what it held (kinds checked with
        ``signature``)."""
        return self.check(signature)
