"""Rules with many variants, swept: every combination of their options against
central differences (the declarative table in test_rules.py has one row per variant
that matters; these are the cross products, as autograd's own suite runs them)."""
import itertools

import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads

_rng = np.random.default_rng(4321)
W = _rng.standard_normal(4096)


def _wsum(y):
    w = np.reshape(W[:np.size(y)], np.shape(y))
    return np.sum(y * np.asarray(w, dtype=np.result_type(y)))


def _values(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ----- np.cross: every axisa, axisb, axisc and axis (autograd's 108 cases) -----

def cross_axes(x, y, axisa, axisb, axisc, axis):
    return _wsum(np.cross(x, y, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis))


CROSS = list(itertools.product([-1, 0, 1], [-1, 0, 1], [-1, 0, 1], [None, -1, 0, 1]))


@pytest.mark.parametrize("axisa,axisb,axisc,axis", CROSS)
def test_cross(axisa, axisb, axisc, axis):
    args = (_values(3, 3, seed=1), _values(3, 3, seed=2), axisa, axisb, axisc, axis)
    check_grads(cross_axes, args, argnums=(0, 1))


def cross_axes_2d(x, y, axisa, axisb):
    return _wsum(np.cross(x, y, axisa=axisa, axisb=axisb))


@pytest.mark.parametrize("na,nb", [(2, 3), (3, 2), (2, 2)])
@pytest.mark.parametrize("axisa,axisb", [(-1, -1), (0, -1), (-1, 0), (0, 0)])
def test_cross_two_components(na, nb, axisa, axisb):
    """2-component vectors: differentiated where NumPy takes them (before 2.5), and
    the derivative raises NumPy's own error where NumPy refuses them."""
    x = np.moveaxis(_values(4, na, seed=3), -1, axisa)
    y = np.moveaxis(_values(4, nb, seed=4), -1, axisb)
    try:
        cross_axes_2d(x, y, axisa, axisb)
    except ValueError as e:
        with pytest.raises(ValueError, match="3-dimensional vectors"):
            revsrc.grad(cross_axes_2d, argnums=(0, 1))(x, y, axisa, axisb)
        assert "3-dimensional" in str(e)
        return
    check_grads(cross_axes_2d, (x, y, axisa, axisb), argnums=(0, 1))


# ----- np.pad: every mode, at widths inside and beyond the array -----

def pad_mode(x, mode):
    return _wsum(np.sin(np.pad(x, ((4, 1), (0, 6)), mode=mode)))


def pad_odd(x, mode):
    return _wsum(np.sin(np.pad(x, ((4, 1), (0, 6)), mode=mode, reflect_type="odd")))


def pad_stat(x, mode, length):
    return _wsum(np.sin(np.pad(x, ((4, 1), (0, 6)), mode=mode, stat_length=length)))


MODES = ["constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
         "reflect", "symmetric", "wrap"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(3, 2), (2, 5), (1, 3)])
def test_pad_modes(mode, shape):
    check_grads(pad_mode, (_values(*shape, seed=5), mode))


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("shape", [(3, 2), (2, 5)])
def test_pad_odd_reflections(mode, shape):
    check_grads(pad_odd, (_values(*shape, seed=6), mode))


@pytest.mark.parametrize("mode", ["maximum", "mean", "median", "minimum"])
@pytest.mark.parametrize("length", [1, 2, ((1, 3), (2, 1))])
def test_pad_stat_lengths(mode, length):
    check_grads(pad_stat, (_values(3, 4, seed=7), mode, length))


# ----- np.linalg.norm: every ord, over every axis it takes -----

def norm_of(x, ord, axis, keepdims):
    return _wsum(np.linalg.norm(x, ord, axis, keepdims))


VECTOR_ORDS = [None, 1, 2, 3, 4, 0.5, -1, -2.5, np.inf, -np.inf]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), (-1, False)])
def test_vector_norms(ord, axis, keepdims):
    x = _values(3, 4, seed=8) if axis is not None else _values(5, seed=8)
    check_grads(norm_of, (x, ord, axis, keepdims))


@pytest.mark.parametrize("ord", MATRIX_ORDS)
@pytest.mark.parametrize("shape,axis,keepdims", [((3, 4), None, False), ((3, 4), (0, 1), True),
                                                 ((3, 4), (1, 0), False),
                                                 ((3, 4, 5), (2, 0), False)])
def test_matrix_norms(ord, shape, axis, keepdims):
    check_grads(norm_of, (_values(*shape, seed=9), ord, axis, keepdims), rtol=1e-5)


# ----- np.einsum: subscripts with '...', repeated letters and sublists -----

def einsum_two(a, b, spec):
    return _wsum(np.einsum(spec, a, b))


EINSUM = [
    ("ij,jk->ik", (3, 4), (4, 2)), ("ij,jk", (3, 4), (4, 2)), ("ij,ij->i", (3, 4), (3, 4)),
    ("...ij,...jk->...ik", (2, 3, 4), (4, 5)), ("...i,...i", (2, 3), (3,)),
    ("i...,i...->...", (3, 2, 2), (3, 1, 2)), ("ii,i->i", (3, 3), (3,)),
    ("ij,k->ijk", (2, 3), (4,)), ("bij,bjk->bik", (2, 3, 4), (2, 4, 2)),
    ("i,i->", (4,), (4,)),
]


@pytest.mark.parametrize("spec,sa,sb", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum(spec, sa, sb):
    check_grads(einsum_two, (_values(*sa, seed=10), _values(*sb, seed=11), spec),
                argnums=(0, 1))


def einsum_sublists(a, b):
    return _wsum(np.einsum(a, [Ellipsis, 0, 1], b, [1, 2], [2, Ellipsis, 0]))


def test_einsum_sublists_with_ellipsis():
    check_grads(einsum_sublists, (_values(2, 3, 4, seed=12), _values(4, 5, seed=13)),
                argnums=(0, 1))


# ----- np.fft: lengths cut and padded, every normalization, along each axis -----

def fft_of(x, kind, n, axis, norm):
    if kind == "fft":
        y = np.fft.fft(x, n, axis, norm)
    elif kind == "ifft":
        y = np.fft.ifft(x, n, axis, norm)
    elif kind == "rfft":
        y = np.fft.rfft(x, n, axis, norm)
    else:
        y = np.fft.irfft(x, n, axis, norm)
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


@pytest.mark.parametrize("kind", ["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("n", [None, 3, 8])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_fft(kind, n, axis, norm):
    check_grads(fft_of, (_values(5, 4, seed=14), kind, n, axis, norm))
