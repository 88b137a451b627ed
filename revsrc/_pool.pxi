# The memory pool for array data of generated adjoints (included by _kernels.pyx).
#
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
