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


def _plan(x, s, axes):
    """(axes, lengths) of np.fft.fftn's transform of ``x``: every axis, or the last
    len(s) with only ``s`` given, each of its own length unless ``s`` gives one."""
    if axes is None:
        axes = tuple(range(-len(s), 0)) if s is not None else tuple(range(x.ndim))
    axes = [int(ax) for ax in axes]
    lengths = [x.shape[ax] for ax in axes] if s is None else [int(n) for n in s]
    return axes, lengths


def fftn_grad(g, a, s=None, axes=None, norm=None, inverse=False):
    """The adjoint of np.fft.fftn (ifftn with ``inverse``; fft2, ifft2): one 1-D
    transform per axis in turn, so the adjoints of those (`fft_grad`) in the other
    order, each from the shape its own transform read (the real part only at the
    first, where the input is real)."""
    x = np.asarray(a)
    axes, lengths = _plan(x, s, axes)
    shapes = [x.shape]
    for ax, n in zip(axes, lengths):
        shape = list(shapes[-1])
        shape[ax] = n
        shapes.append(tuple(shape))
    out = np.asarray(g)
    for k in reversed(range(len(axes))):
        like = a if k == 0 else np.broadcast_to(np.zeros((), dtype=complex), shapes[k])
        out = fft_grad(out, like, lengths[k], axes[k], norm, inverse)
    return out


def fftn_grad_back(w, s=None, axes=None, norm=None, inverse=False):
    """The transpose of `fftn_grad` in its adjoint: the transform itself."""
    transform = np.fft.ifftn if inverse else np.fft.fftn
    if axes is None and s is not None:     # (NumPy 2 warns at s without axes)
        axes = tuple(range(-len(s), 0))
    return transform(w, s, axes, norm)

