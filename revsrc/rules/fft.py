"""Rules for the discrete Fourier transforms of ``np.fft``.

Each transform is linear, and the DFT matrix is symmetric, so the adjoint of fft is
fft itself (and of ifft, ifft), with the same ``norm``; the adjoint of a cut or
zero-padded length (``n``) pads or cuts back. A real input's adjoint is the real part.
"""
import numpy as np

from . import kind_rules as KR
from .register import primitive
from ..runtime.grads import fft as _helpers

# ----- Complex transforms -----


@primitive("fft", np.fft.fft, kind=KR.array_kind, linear=(0,), complex_ok=True)
def fft(g, ans, a, n=None, axis=-1, norm=None):
    return _helpers.fft_grad(g, a, n, axis, norm, False)


@primitive("ifft", np.fft.ifft, kind=KR.array_kind, linear=(0,), complex_ok=True)
def ifft(g, ans, a, n=None, axis=-1, norm=None):
    return _helpers.fft_grad(g, a, n, axis, norm, True)


# ----- Real transforms -----

@primitive("rfft", np.fft.rfft, kind=KR.array_kind, linear=(0,), complex_ok=True)
def rfft(g, ans, a, n=None, axis=-1, norm=None):
    return _helpers.rfft_grad(g, a, n, axis, norm)


@primitive("irfft", np.fft.irfft, kind=KR.array_kind, linear=(0,), complex_ok=True)
def irfft(g, ans, a, n=None, axis=-1, norm=None):
    return _helpers.irfft_grad(g, a, n, axis, norm)
