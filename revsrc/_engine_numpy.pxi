# NumPy scalars on the compiled scalar engine (included by _kernels.pyx after _engine.pxi).
#
# NumPy's float64 scalars (np.sin(x), np.float64(x) for a float x) divide by zero and
# overflow into inf and nan, with a RuntimeWarning (or FloatingPointError, as
# np.errstate says), where Python's floats raise ZeroDivisionError or OverflowError.
# The engine computes as Python's floats do. A program that computes on NumPy scalars
# (``ScalarProgram.numpy_scalars``, set by revsrc/backends/engine/lower.py where running
# the program twice cannot show) and meets such an error runs on the Python path
# instead, as for an int beyond 2**53: there its NumPy scalars compute as the plain
# call's do, warnings and all.

# by error code: whether NumPy's float64 gives a number where the engine raises
cdef bint _NUMPY_DIFFERS[64]
assert RV_NERRORS <= 64
for _name in _engine_ops.NUMPY_DIFFERS:
    _NUMPY_DIFFERS[_engine_ops.ERROR[_name]] = 1


cdef inline bint _reruns(ScalarProgram prog, int err) noexcept nogil:
    """Whether error ``err`` of ``prog`` sends the run to the Python path (the caller
    reads it as RV_E_FALLBACK)."""
    return prog.numpy_scalars and 0 < err < RV_NERRORS and _NUMPY_DIFFERS[err]
