"""Rules for functions that move, join, split or copy elements without changing them.

Functions that take a sequence (concatenate, stack...) receive a list the IR built
with ``ir.make_list``; their rule returns one adjoint per item, as an object array
(`_helpers.pieces`) that the transformation indexes item by item.
"""
import numpy as np

from .. import tensor
from .. import kinds as K
from ..primitives import jvp_rule, primitive
from . import _helpers

# ----- Reshaping -----


@primitive("reshape", np.reshape, kind=K.ALWAYS_ARRAY, linear=(0,))
def reshape(g, ans, a, shape=None, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@primitive("ravel", np.ravel, kind=K.ALWAYS_ARRAY, linear=(0,))
def ravel(g, ans, a, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@primitive("expand_dims", np.expand_dims, np.squeeze, np.atleast_1d, np.atleast_2d, np.atleast_3d, kind=K.ALWAYS_ARRAY, linear=(0,))
def expand_dims(g, ans, a, axis=None):
    return np.reshape(g, np.shape(a))


@primitive("broadcast_to", np.broadcast_to, kind=K.ALWAYS_ARRAY, linear=(0,))
def broadcast_to(g, ans, array, shape):
    return tensor.sum_to_shape(g, np.shape(array))


# ----- Axis order -----

@primitive("transpose", np.transpose, kind=K.ALWAYS_ARRAY, linear=(0,))
def transpose(g, ans, a, axes=None):
    return _helpers.transpose_grad(g, axes)


@primitive("swapaxes", np.swapaxes, kind=K.ALWAYS_ARRAY, linear=(0,))
def swapaxes(g, ans, a, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


@primitive("moveaxis", np.moveaxis, kind=K.ALWAYS_ARRAY, linear=(0,))
def moveaxis(g, ans, a, source, destination):
    return np.moveaxis(g, destination, source)


@primitive("flip", np.flip, kind=K.ALWAYS_ARRAY, linear=(0,))
def flip(g, ans, m, axis=None):
    return np.flip(g, axis)


@primitive("fliplr", np.fliplr, kind=K.ALWAYS_ARRAY, linear=(0,))
def fliplr(g, ans, m):
    return np.fliplr(g)


@primitive("flipud", np.flipud, kind=K.ALWAYS_ARRAY, linear=(0,))
def flipud(g, ans, m):
    return np.flipud(g)


# ----- Joining and splitting -----

@primitive("concatenate", np.concatenate, kind=K.ALWAYS_ARRAY, linear=(0,))
def concatenate(g, ans, arrays, axis=0):
    return _helpers.concatenate_grad(g, arrays, axis)


@primitive("stack", np.stack, kind=K.ALWAYS_ARRAY, linear=(0,))
def stack(g, ans, arrays, axis=0):
    return _helpers.stack_grad(g, arrays, axis)


@primitive("hstack", np.hstack, kind=K.ALWAYS_ARRAY, linear=(0,))
def hstack(g, ans, tup):
    return _helpers.hstack_grad(g, tup)


@primitive("vstack", np.vstack, kind=K.ALWAYS_ARRAY, linear=(0,))
def vstack(g, ans, tup):
    return _helpers.vstack_grad(g, tup)


@primitive("split", np.split, np.array_split, linear=(0,))
def split(g, ans, ary, indices_or_sections, axis=0):
    return _helpers.split_grad(g, ans, ary, axis), None


# ----- Repeating and padding -----

@primitive("tile", np.tile, kind=K.ALWAYS_ARRAY, linear=(0,))
def tile(g, ans, A, reps):
    return _helpers.tile_grad(g, A, reps), None


@primitive("repeat", np.repeat, kind=K.ALWAYS_ARRAY, linear=(0,))
def repeat(g, ans, a, repeats, axis=None):
    return _helpers.repeat_grad(g, a, repeats, axis), None


@primitive("pad", np.pad, kind=K.ALWAYS_ARRAY, linear=(0,))
def pad(g, ans, array, pad_width, mode="constant"):
    return _helpers.pad_grad(g, array, pad_width, mode), None


# ----- Diagonals and triangles -----

@primitive("diag", np.diag, kind=K.ALWAYS_ARRAY, linear=(0,))
def diag(g, ans, v, k=0):
    return _helpers.diag_grad(g, v, k)


@primitive("diagonal", np.diagonal, kind=K.ALWAYS_ARRAY, linear=(0,))
def diagonal(g, ans, a, offset=0, axis1=0, axis2=1):
    return _helpers.diagonal_grad(g, a, offset, axis1, axis2)


@primitive("tril", np.tril, kind=K.ALWAYS_ARRAY, linear=(0,))
def tril(g, ans, m, k=0):
    return np.tril(g, k)


@primitive("triu", np.triu, kind=K.ALWAYS_ARRAY, linear=(0,))
def triu(g, ans, m, k=0):
    return np.triu(g, k)


# ----- Copies and construction from values -----

@primitive("array", np.array, np.asarray, np.copy, np.ascontiguousarray, kind=K.ALWAYS_ARRAY, linear=(0,))
def array(g, ans, a, dtype=None, copy=None):
    return _helpers.array_grad(g, a)


@primitive("full", np.full, kind=K.ALWAYS_ARRAY, linear=(1,))
def full(g, ans, shape, fill_value, dtype=None):
    return None, tensor.unbroadcast(g, fill_value)


@primitive("full_like", np.full_like, kind=K.ALWAYS_ARRAY, linear=(1,))
def full_like(g, ans, a, fill_value, dtype=None):
    return None, tensor.unbroadcast(g, fill_value)


@primitive("linspace", np.linspace, kind=K.ALWAYS_ARRAY)
def linspace(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return (_helpers.linspace_grad_start(g, start, stop, num, endpoint, axis),
            _helpers.linspace_grad_stop(g, start, stop, num, endpoint, axis))


# linspace is linear in (start, stop) together: each one's share of the tangent.
@jvp_rule("linspace")
def linspace_jvp(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return (np.linspace(g, 0.0 * g, num, endpoint, axis=axis),
            np.linspace(0.0 * g, g, num, endpoint, axis=axis))
