"""Rules for functions that move, join, split or copy elements without changing them.

Functions that take a sequence (concatenate, stack...) receive a list the IR built
with ``ir.make_list``; their rule returns one adjoint per item, as an object array
(`_helpers.pieces`) that the transformation indexes item by item.
"""
import numpy as np

from .. import tensor
from . import _helpers, vjp

# ----- Reshaping -----


@vjp(np.reshape)
def reshape(g, ans, a, shape=None, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@vjp(np.ravel)
def ravel(g, ans, a, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@vjp(np.expand_dims, np.squeeze, np.atleast_1d, np.atleast_2d, np.atleast_3d)
def expand_dims(g, ans, a, axis=None):
    return np.reshape(g, np.shape(a))


@vjp(np.broadcast_to)
def broadcast_to(g, ans, array, shape):
    return tensor.sum_to_shape(g, np.shape(array))


# ----- Axis order -----

@vjp(np.transpose)
def transpose(g, ans, a, axes=None):
    return _helpers.transpose_grad(g, axes)


@vjp(np.swapaxes)
def swapaxes(g, ans, a, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


@vjp(np.moveaxis)
def moveaxis(g, ans, a, source, destination):
    return np.moveaxis(g, destination, source)


@vjp(np.flip)
def flip(g, ans, m, axis=None):
    return np.flip(g, axis)


@vjp(np.fliplr)
def fliplr(g, ans, m):
    return np.fliplr(g)


@vjp(np.flipud)
def flipud(g, ans, m):
    return np.flipud(g)


# ----- Joining and splitting -----

@vjp(np.concatenate)
def concatenate(g, ans, arrays, axis=0):
    return _helpers.concatenate_grad(g, arrays, axis)


@vjp(np.stack)
def stack(g, ans, arrays, axis=0):
    return _helpers.stack_grad(g, arrays, axis)


@vjp(np.hstack)
def hstack(g, ans, tup):
    return _helpers.hstack_grad(g, tup)


@vjp(np.vstack)
def vstack(g, ans, tup):
    return _helpers.vstack_grad(g, tup)


@vjp(np.split, np.array_split)
def split(g, ans, ary, indices_or_sections, axis=0):
    return _helpers.split_grad(g, ans, ary, axis), None


# ----- Repeating and padding -----

@vjp(np.tile)
def tile(g, ans, A, reps):
    return _helpers.tile_grad(g, A, reps), None


@vjp(np.repeat)
def repeat(g, ans, a, repeats, axis=None):
    return _helpers.repeat_grad(g, a, repeats, axis), None


@vjp(np.pad)
def pad(g, ans, array, pad_width, mode="constant"):
    return _helpers.pad_grad(g, array, pad_width, mode), None


# ----- Diagonals and triangles -----

@vjp(np.diag)
def diag(g, ans, v, k=0):
    return _helpers.diag_grad(g, v, k)


@vjp(np.diagonal)
def diagonal(g, ans, a, offset=0, axis1=0, axis2=1):
    return _helpers.diagonal_grad(g, a, offset, axis1, axis2)


@vjp(np.tril)
def tril(g, ans, m, k=0):
    return np.tril(g, k)


@vjp(np.triu)
def triu(g, ans, m, k=0):
    return np.triu(g, k)


# ----- Copies and construction from values -----

@vjp(np.array, np.asarray, np.copy, np.ascontiguousarray)
def array(g, ans, a, dtype=None, copy=None):
    return _helpers.array_grad(g, a)


@vjp(np.full)
def full(g, ans, shape, fill_value, dtype=None):
    return None, tensor.unbroadcast(g, fill_value)


@vjp(np.full_like)
def full_like(g, ans, a, fill_value, dtype=None):
    return None, tensor.unbroadcast(g, fill_value)


@vjp(np.linspace)
def linspace(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return (_helpers.linspace_grad_start(g, start, stop, num, endpoint, axis),
            _helpers.linspace_grad_stop(g, start, stop, num, endpoint, axis))
