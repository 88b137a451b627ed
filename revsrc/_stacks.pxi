# The typed stacks of generated adjoints (included by _kernels.pyx).
#
# ----- Stacks -----
# The generated adjoint saves overwritten values on a FloatStack and branch
# decisions / trip counts on an IntStack. Capacity doubles, so n pushes cost O(n).

cdef enum:
    _STACK_START = 64

# the slot of an int pushed as an object (`IntStack.big`)
cdef int64_t _BIG_MARK = -9223372036854775807 - 1


cdef class _Stack:
    """Storage shared by the typed stacks: 8-byte slots, capacity doubling."""
    cdef void* slots
    cdef Py_ssize_t size
    cdef Py_ssize_t cap

    def __cinit__(self, Py_ssize_t capacity=_STACK_START):
        if capacity < 1:
            capacity = 1
        self.slots = malloc(capacity * 8)
        if self.slots == NULL:
            raise MemoryError()
        self.size = 0
        self.cap = capacity

    def __dealloc__(self):
        free(self.slots)

    cdef int _grow(self) except -1 nogil:
        cdef Py_ssize_t cap = 2 * self.cap
        cdef void* grown = realloc(self.slots, cap * 8)
        if grown == NULL:
            with gil:
                raise MemoryError()
        self.slots = grown
        self.cap = cap
        return 0

    cdef int _empty(self) except -1 nogil:
        with gil:
            raise IndexError(f"pop from empty {type(self).__name__}")

    def clear(self):
        """Forget every value; the capacity is kept for reuse."""
        self.size = 0

    def __len__(self):
        return self.size

    @property
    def nbytes(self):
        """Bytes held by the values on the stack."""
        return self.size * 8

    @property
    def capacity(self):
        """Values the stack holds before it next grows."""
        return self.cap


cdef class FloatStack(_Stack):
    """A growable stack of C doubles.

    >>> s = FloatStack(); s.push(1.5); s.pop()
    1.5
    """

    cdef inline int cpush(self, double v) except -1 nogil:
        """C-level push for compiled callers."""
        if self.size == self.cap:
            self._grow()
        (<double*>self.slots)[self.size] = v
        self.size += 1
        return 0

    cdef inline double cpop(self) except? -1 nogil:
        """C-level pop for compiled callers; IndexError when empty."""
        if self.size == 0:
            self._empty()
        self.size -= 1
        return (<double*>self.slots)[self.size]

    cpdef void push(self, double v):
        self.cpush(v)

    cpdef double pop(self):
        return self.cpop()


cdef class IntStack(_Stack):
    """A growable stack of C int64 values.

    >>> s = IntStack(); s.push(3); s.pop()
    3
    """

    cdef inline int cpush(self, int64_t v) except -1 nogil:
        """C-level push for compiled callers."""
        if self.size == self.cap:
            self._grow()
        (<int64_t*>self.slots)[self.size] = v
        self.size += 1
        return 0

    cdef inline int64_t cpop(self) except? -1 nogil:
        """C-level pop for compiled callers; IndexError when empty."""
        if self.size == 0:
            self._empty()
        self.size -= 1
        return (<int64_t*>self.slots)[self.size]

    # Python ints past 64 bits (``m * m * m`` for a large m): kept as objects, by their
    # position, with a marker in the slot; the C-level push and pop never meet them
    cdef dict big

    cpdef void push(self, object v):
        cdef int64_t c
        try:
            c = v
        except OverflowError:
            if self.big is None:
                self.big = {}
            self.big[self.size] = v
            c = _BIG_MARK
        self.cpush(c)

    cpdef object pop(self):
        cdef int64_t c = self.cpop()
        if c == _BIG_MARK and self.big and self.size in self.big:
            return self.big.pop(self.size)
        return c

    def clear(self):
        """Forget every value; the capacity is kept for reuse."""
        self.size = 0
        self.big = None
