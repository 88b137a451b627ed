"""Rules for the discrete Fourier transforms of ``np.fft``.

Each transform is linear, and the DFT matrix is symmetric, so the adjoint of fft is
fft itself (and of ifft, ifft), with the same ``norm``; the adjoint of a cut or
zero-padded length (``n``) pads or cuts back. A real input's adjoint is the real part.

NumPy imports ``numpy.fft`` when ``np.fft`` is first read, and a program that calls a
transform has read it: `register` records the rules then (revsrc/rules/__init__.py
calls it at once if it is loaded, else when a lookup first meets one of its
functions), so that ``import revsrc`` does not import it.
"""
import sys

import numpy as np

from . import kind_rules as KR
from ..primitives import declare
from .register import primitive
from ..runtime.grads import fft as _helpers

MODULE = "numpy.fft"


# ----- Complex transforms -----

def fft(g, ans, a, n=None, axis=-1, norm=None):
    return _helpers.fft_grad(g, a, n, axis, norm, False)


def ifft(g, ans, a, n=None, axis=-1, norm=None):
    return _helpers.fft_grad(g, a, n, axis, norm, True)


# over several axes: a 1-D transform per axis in turn
def fftn(g, ans, a, s=None, axes=None, norm=None):
    return _helpers.fftn_grad(g, a, s, axes, norm, False)


def ifftn(g, ans, a, s=None, axes=None, norm=None):
    return _helpers.fftn_grad(g, a, s, axes, norm, True)


def fft2(g, ans, a, s=None, axes=(-2, -1), norm=None):
    return _helpers.fftn_grad(g, a, s, axes, norm, False)


def ifft2(g, ans, a, s=None, axes=(-2, -1), norm=None):
    return _helpers.fftn_grad(g, a, s, axes, norm, True)


# ----- Real transforms -----

def rfft(g, ans, a, n=None, axis=-1, norm=None):
    return _helpers.rfft_grad(g, a, n, axis, norm)


def irfft(g, ans, a, n=None, axis=-1, norm=None):
    return _helpers.irfft_grad(g, a, n, axis, norm)


# ----- Shifts -----
# A permutation of the items along ``axes``: the adjoint is the inverse permutation
# (for an odd length fftshift and ifftshift differ by one place).

def fftshift(g, ans, x, axes=None):
    return np.fft.ifftshift(g, axes), None


def ifftshift(g, ans, x, axes=None):
    return np.fft.fftshift(g, axes), None


# ----- The adjoints' own rules (derivatives of derivatives) -----
# Each adjoint is linear in ``g``, so its tangent is itself of the tangent, and its
# transpose is the transform it is the adjoint of (the pairing Re(sum(a * b)) is
# symmetric, so the adjoint's adjoint is the map itself).

def fft_grad(g, ans, grad, a, n=None, axis=-1, norm=None, inverse=False):
    return _helpers.fft_grad_back(g, n, axis, norm, inverse), None, None, None, None, None


def fft_grad_back(g, ans, w, n=None, axis=-1, norm=None, inverse=False):
    return _helpers.fft_grad(g, w, n, axis, norm, inverse), None, None, None, None


def fftn_grad(g, ans, grad, a, s=None, axes=None, norm=None, inverse=False):
    return _helpers.fftn_grad_back(g, s, axes, norm, inverse), None, None, None, None, None


def fftn_grad_back(g, ans, w, s=None, axes=None, norm=None, inverse=False):
    return _helpers.fftn_grad(g, w, s, axes, norm, inverse), None, None, None, None


def rfft_grad(g, ans, grad, a, n=None, axis=-1, norm=None):
    return np.fft.rfft(g, n, axis, norm), None, None, None, None


def irfft_grad(g, ans, grad, a, n=None, axis=-1, norm=None):
    return np.fft.irfft(g, n, axis, norm), None, None, None, None


_like = KR.like_argument


def register():
    """Record the rules above for numpy.fft's functions (loaded by now); each returns
    a new array (the ``view`` fact, revsrc/rules/copies.py)."""
    npfft = sys.modules[MODULE]
    for rule in (fft, ifft, rfft, irfft, fftn, ifftn, fft2, ifft2):
        fn = getattr(npfft, rule.__name__)
        primitive(rule.__name__, fn, kind=KR.array_kind, linear=(0,), complex_ok=True)(rule)
        declare(fn, view="never")
    for rule in (fftshift, ifftshift):
        fn = getattr(npfft, rule.__name__)
        primitive(rule.__name__, fn, kind=_like(0), linear=(0,), complex_ok=True)(rule)
        declare(fn, view="never")
    for rule, like in ((fft_grad, 1), (fft_grad_back, 0), (rfft_grad, 1), (irfft_grad, 1),
                       (fftn_grad, 1), (fftn_grad_back, 0)):
        primitive(rule.__name__, getattr(_helpers, rule.__name__), kind=_like(like),
                  linear=(0,))(rule)
