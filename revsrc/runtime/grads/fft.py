"""Adjoints of the discrete Fourier transforms: each is linear, so its adjoint is
the transform the other way, with the length cut or padded back and, for the real
transforms, the halved spectrum's weights."""
from __future__ import annotations

import numpy as np

from ..values import as_adjoint, as_array


def _fit(x, n, axis):
    """``x`` cut or zero-padded to length ``n`` along ``axis`` (the adjoint of np.fft's
    own cut or padding to its ``n``)."""
    have = x.shape[axis]
    if have == n:
        return x
    if have > n:
        return np.take(x, np.arange(n), axis=axis)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, n - have)
    return np.pad(x, pad)


def fft_grad(g, a, n=None, axis=-1, norm=None, inverse=False):
    """The adjoint of np.fft.fft (ifft with ``inverse``): the DFT matrix is symmetric,
    so its transpose is the same transform, with the same normalization."""
    x = np.asarray(a)
    transform = np.fft.ifft if inverse else np.fft.fft
    out = transform(np.asarray(as_array(g, x)), axis=axis, norm=norm)
    return as_adjoint(_fit(out, x.shape[axis], axis), a)


def rfft_grad(g, a, n=None, axis=-1, norm=None):
    """The adjoint of np.fft.rfft: the half spectrum's adjoint, zero-extended to the
    full one, through the (symmetric) DFT; real, since the input is."""
    x = np.asarray(a)
    size = x.shape[axis] if n is None else n
    gv = np.asarray(as_array(g, x))
    full = _fit(gv, size, axis)
    return as_adjoint(_fit(np.real(np.fft.fft(full, axis=axis, norm=norm)), x.shape[axis], axis),
                 a)


def irfft_grad(g, a, n=None, axis=-1, norm=None):
    """The adjoint of np.fft.irfft. Its output is real and reads each coefficient k
    (0 < k < n/2) twice, as y_k and as conj(y_k), so y_k's adjoint is twice the inverse
    transform's coefficient; y_0 and, for even n, y_(n/2) are read once (their
    imaginary parts not at all)."""
    x = np.asarray(a)
    size = 2 * (x.shape[axis] - 1) if n is None else n
    gv = np.asarray(as_array(g, x))
    spec = np.fft.ifft(gv, axis=axis, norm=norm)
    half = np.take(spec, np.arange(size // 2 + 1), axis=axis)
    weight = np.full(size // 2 + 1, 2.0, dtype=spec.real.dtype)
    weight[0] = 1.0
    if size % 2 == 0:
        weight[-1] = 1.0
    shape = [1] * half.ndim
    shape[axis] = -1
    half = half * weight.reshape(shape)
    return as_adjoint(_fit(half, x.shape[axis], axis), a)


def fft_grad_back(w, n=None, axis=-1, norm=None, inverse=False):
    """The transpose of `fft_grad` in its adjoint: the transform itself (ifft with
    ``inverse``), which pads or cuts ``w`` to ``n`` as it does (derivatives of
    derivatives)."""
    transform = np.fft.ifft if inverse else np.fft.fft
    return transform(w, n, axis, norm)
