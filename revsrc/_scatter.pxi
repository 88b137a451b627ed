# Scatter-add kernels: the adjoints of fancy indexing (included by _kernels.pyx).
#
# ----- Scatter-add (fancy-index adjoints) -----

cdef Py_ssize_t _scatter_add_rows(floating[:, ::1] out,        # OUT
                                  const Py_ssize_t[::1] idx,   # IN
                                  const floating[:, ::1] vals  # IN
                                  ) noexcept nogil:
    """out[idx[k], :] += vals[k, :] for k in order; returns -1, or the first bad k."""
    cdef Py_ssize_t n = out.shape[0], m = out.shape[1]
    cdef Py_ssize_t k, j, i
    for k in range(idx.shape[0]):
        i = idx[k]
        if i < 0:
            i += n
        if i < 0 or i >= n:
            return k
        for j in range(m):
            out[i, j] += vals[k, j]
    return -1


def scatter_add_rows(out, idx, vals):
    """out[idx[k], :] += vals[k, :], in place; repeated indices accumulate.

    out: 2-D C-contiguous writable float32/float64 array (modified).
    idx: 1-D integer indices into out's rows (negative counts from the end).
    vals: (len(idx), out.shape[1]) values, cast to out's dtype.
    """
    if not isinstance(out, np.ndarray) or out.ndim != 2:
        raise ValueError("scatter_add_rows: out must be a 2-D ndarray")
    if out.dtype != np.float64 and out.dtype != np.float32:
        raise TypeError(f"scatter_add_rows: out must be float32 or float64, not {out.dtype}")
    cdef const Py_ssize_t[::1] iv = np.ascontiguousarray(idx, dtype=np.intp).reshape(-1)
    vals = np.ascontiguousarray(vals, dtype=out.dtype)
    if vals.ndim != 2 or vals.shape[0] != iv.shape[0] or vals.shape[1] != out.shape[1]:
        raise ValueError(
            f"scatter_add_rows: vals of shape {vals.shape} do not match "
            f"{iv.shape[0]} indices into rows of length {out.shape[1]}")
    cdef double[:, ::1] od
    cdef const double[:, ::1] vd
    cdef float[:, ::1] of
    cdef const float[:, ::1] vf
    cdef Py_ssize_t bad
    if out.dtype == np.float64:
        od = out
        vd = vals
        with nogil:
            bad = _scatter_add_rows(od, iv, vd)
    else:
        of = out
        vf = vals
        with nogil:
            bad = _scatter_add_rows(of, iv, vf)
    if bad >= 0:
        raise IndexError(
            f"index {iv[bad]} is out of bounds for axis 0 with size {out.shape[0]} "
            f"(rows before position {bad} were already added)")


# ----- Scatter-add over trailing axes (the im2col adjoint) -----
# The adjoint of x[:, :, ii, jj] (full slices, then integer arrays of one shape on
# every remaining axis): the arrays become flat offsets once (checked once), and each
# leading row of g is added at them. np.add.at checks and dispatches per element, and
# scatter_add_rows would need one row number per (leading row, offset) pair.
# (A gather kernel for the forward x[:, :, ii, jj] was measured and removed: it only
# tied np.take over a flat index, which runtime.take uses; both are bound by memory.)

cdef Py_ssize_t _flat_offsets(list arrays, cnp.npy_intp* dims, Py_ssize_t naxes,
                              Py_ssize_t k, Py_ssize_t* off) except -2:
    """off[j] = the flat offset of (arrays[0][j], ..., arrays[-1][j]) in dims, negative
    indices counted from the end; returns -1, or the first j out of range."""
    cdef Py_ssize_t d, j, i, n
    cdef const Py_ssize_t* idx
    cdef cnp.ndarray a
    for j in range(k):
        off[j] = 0
    for d in range(naxes):
        a = <cnp.ndarray>arrays[d]
        idx = <const Py_ssize_t*>cnp.PyArray_DATA(a)
        n = dims[d]
        for j in range(k):
            i = idx[j]
            if i < 0:
                i += n
            if i < 0 or i >= n:
                return j
            off[j] = off[j] * n + i
    return -1


cdef object _index_arrays(tuple index, Py_ssize_t lead):
    """index[lead:] as C-contiguous intp arrays of one shape, or None."""
    cdef list arrays = []
    for a in index[lead:]:
        if type(a) is not np.ndarray or a.dtype.kind not in "iu":
            return None
        arrays.append(a)
    try:
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        return None
    return [np.ascontiguousarray(np.broadcast_to(a, shape), dtype=np.intp)
            for a in arrays], shape


def add_at_trailing(out, tuple index, g):
    """``np.add.at(out, index, g)`` for ``index`` = full slices, then integer arrays
    indexing every remaining axis of ``out``, and ``g`` of the indexed shape (broadcast
    to it if smaller); repeated positions accumulate in order.
    Returns False, changing nothing, when this kernel does not apply.

    out: C-contiguous float32/float64 ndarray, modified in place.
    """
    if type(out) is not np.ndarray or len(index) != out.ndim:
        return False
    cdef cnp.ndarray oa = <cnp.ndarray>out
    cdef int t = cnp.PyArray_TYPE(oa)
    if (t != cnp.NPY_DOUBLE and t != cnp.NPY_FLOAT) or not cnp.PyArray_ISNOTSWAPPED(oa) \
            or not cnp.PyArray_IS_C_CONTIGUOUS(oa) or not cnp.PyArray_ISWRITEABLE(oa):
        return False
    cdef Py_ssize_t lead = 0
    while lead < len(index) and type(index[lead]) is slice and index[lead] == slice(None):
        lead += 1
    if lead == len(index):
        return False
    found = _index_arrays(index, lead)
    if found is None:
        return False
    arrays, ishape = found
    cdef Py_ssize_t naxes = len(index) - lead
    cdef Py_ssize_t k = 1, outer = 1, inner = 1, d
    for d in ishape:
        k *= d
    for d in range(lead):
        outer *= out.shape[d]
    for d in range(lead, out.ndim):
        inner *= out.shape[d]
    res_shape = out.shape[:lead] + tuple(ishape)
    try:
        vals = np.ascontiguousarray(np.broadcast_to(np.asarray(g, dtype=out.dtype), res_shape))
    except ValueError:
        return False
    cdef cnp.ndarray offs = np.empty(k, dtype=np.intp)
    cdef Py_ssize_t* off = <Py_ssize_t*>cnp.PyArray_DATA(offs)
    if _flat_offsets(arrays, cnp.PyArray_DIMS(oa) + lead, naxes, k, off) >= 0:
        return False
    cdef void* po = cnp.PyArray_DATA(oa)
    cdef void* pv = cnp.PyArray_DATA(<cnp.ndarray>vals)
    with nogil:
        if t == cnp.NPY_DOUBLE:
            _scatter_add(<double*>po, <const double*>pv, off, outer, inner, k)
        else:
            _scatter_add(<float*>po, <const float*>pv, off, outer, inner, k)
    return True


cdef void _scatter_add(floating* out,          # OUT: outer rows of inner items
                       const floating* vals,   # IN: outer rows of k items
                       const Py_ssize_t* off,  # IN: k offsets into a row
                       Py_ssize_t outer, Py_ssize_t inner, Py_ssize_t k) noexcept nogil:
    """out[o, off[j]] += vals[o, j], j in order"""
    cdef Py_ssize_t o, j
    cdef floating* row
    cdef const floating* v
    for o in range(outer):
        row = out + o * inner
        v = vals + o * k
        for j in range(k):
            row[off[j]] += v[j]
