"""Cotangents with structural zeros: the elements no path of the result reads.

The branch ``np.where`` did not choose and the nans ``np.nansum`` skipped get an adjoint
of exactly 0. The chain rule then multiplies that 0 by the partial derivative of the
element's own computation, which may be inf or nan there (``np.sqrt`` of a negative
number in the branch not chosen, the nan a nansum skipped): ``0 * nan`` is nan, and the
gradient would be nan where the function is smooth (central differences give a number;
JAX gives the nan). A product or a quotient with such an adjoint keeps those elements 0.

`Dropped` is that adjoint: an ndarray that remembers which of its elements are
structural zeros. Its products and quotients (the adjoint's next step) are plain arrays
with the nans those zeros made put back to 0. Every other operation sees a plain array
and gives one, so the mark never outlives the first step, and a write into the array
afterwards cannot leave a stale mark: an element marked but no longer 0 is not touched.
"""
from __future__ import annotations

import numpy as np
# the ufuncs linear in one operand: f(0, p) is 0 for a finite p, nan for an infinite
# or nan one; the operand positions that may be the adjoint
_LINEAR = {np.multiply: (0, 1), np.divide: (0,), np.true_divide: (0,),
           np.negative: (0,), np.positive: (0,), np.conjugate: (0,)}
_ND = np.ndarray
_SUM = np.add.reduce


class Dropped(np.ndarray):
    """An adjoint whose ``zeros`` mask marks its structural zeros (see the module)."""

    zeros = None
    plain = None       # the ndarray it views (so an operation need not make one)

    def __array_finalize__(self, obj):
        self.zeros = self.plain = None   # a view or a copy: a plain array that looks like one

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if out is None and method == "__call__" and len(inputs) == 2:
            a, b = inputs        # the usual step: a product or quotient of two operands
            pa = _plain(a) if type(a) is Dropped else a
            pb = _plain(b) if type(b) is Dropped else b
            plain = (pa, pb)
        else:
            plain = [_plain(x) if type(x) is Dropped else x for x in inputs]
        if out is not None:
            kwargs["out"] = tuple(o.view(_ND) if type(o) is Dropped else o for o in out)
            getattr(ufunc, method)(*plain, **kwargs)
            for o in out:
                if type(o) is Dropped:
                    o.zeros = None   # written in place: its mark no longer holds
            return out[0] if len(out) == 1 else out
        result = getattr(ufunc, method)(*plain, **kwargs)
        if method != "__call__":
            return result
        if isinstance(result, np.generic) and ufunc in _LINEAR:
            number, result = result, np.asarray(result)     # a 0-d adjoint's product
        else:
            number = None
        if type(result) is not _ND or result.dtype.kind not in "fc":
            return result
        if ufunc in _LINEAR:
            zeros, adjoints = None, []
            for i in _LINEAR[ufunc]:
                if i < len(inputs) and type(inputs[i]) is Dropped and \
                        inputs[i].zeros is not None:
                    mark = _on(inputs[i].zeros, result)
                    if mark is not None:
                        zeros = mark if zeros is None else zeros | mark
                        adjoints.append(plain[i])
            if zeros is None:
                return result if number is None else number
            total = _SUM(result, axis=None)
            if total != total:      # a nan in it (or infinities of both signs)
                _restore_zeros(result, adjoints, zeros)
            # a product of structural zeros is one: the mark goes on to the next step
            return _marked(result, zeros)
        if ufunc in (np.add, np.subtract) and len(inputs) == 2 and \
                type(inputs[0]) is Dropped and type(inputs[1]) is Dropped:
            za, zb = _on(inputs[0].zeros, result), _on(inputs[1].zeros, result)
            if za is not None and zb is not None:
                return dropped(result, za & zb)
        return result

    def __getitem__(self, key):
        out = _plain(self)[key]
        if type(out) is _ND and self.zeros is not None:
            zeros = self.zeros[key]          # a row of a batch of adjoints keeps its mark
            if zeros.shape == out.shape:
                return _marked(out, zeros)
        return out

    def __array_function__(self, func, types, args, kwargs):
        out = super().__array_function__(func, types, args, kwargs)
        return out.view(_ND) if type(out) is Dropped else out


def _plain(x):
    """The ndarray a `Dropped` views."""
    p = x.plain
    return x.view(_ND) if p is None else p


def _marked(array, zeros):
    out = array.view(Dropped)
    out.zeros, out.plain = zeros, array
    return out


def _on(mark, result):
    """``mark`` broadcast to ``result``'s shape (None where it cannot be)."""
    if mark is None or mark.shape == result.shape:
        return mark
    try:
        return np.broadcast_to(mark, result.shape)
    except ValueError:
        return None


def _restore_zeros(result, operands, zeros):
    """Put 0 back in ``result`` where it is nan and a marked adjoint among ``operands``
    (``zeros``: their marks) is still 0 there: 0 times an infinite or nan partial
    derivative. An element marked whose adjoint was written since (no longer 0) keeps
    its nan."""
    fix = zeros & np.isnan(result)
    if not fix.any():
        return
    still = np.zeros(result.shape, dtype=bool)
    for x in operands:
        still |= np.broadcast_to(x == 0, result.shape)
    fix &= still
    if fix.any():
        result[fix] = 0


def dropped(adjoint, zeros):
    """``adjoint`` marked with its structural zeros ``zeros`` (a bool array of its
    shape, or one that broadcasts to it: a batch of adjoints); the array itself where
    nothing is marked."""
    if not isinstance(adjoint, np.ndarray):
        return adjoint
    if type(zeros) is not _ND or zeros.dtype != np.bool_:
        zeros = np.asarray(zeros, dtype=bool)
    if not zeros.any():
        return adjoint
    if zeros.shape != adjoint.shape:
        try:
            zeros = np.broadcast_to(zeros, adjoint.shape)
        except ValueError:
            return adjoint
    return _marked(adjoint, zeros)
