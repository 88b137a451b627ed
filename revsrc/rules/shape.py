"""Rules for functions that move, join, split or copy elements without changing them.

Functions that take a sequence (concatenate, stack...) receive a list the IR built
with ``ir.make_list``; their rule returns one adjoint per item, as an object array
(`revsrc.runtime.values.pieces`) that the transformation indexes item by item.
"""
import numpy as np

from .. import runtime
from ..runtime import tensor
from ..core import kinds as K
from ..primitives import alias, jvp_rule, primitive
from ..runtime import forward_grads as _forward
from ..runtime.grads import shape as _helpers

# ----- Reshaping -----


@primitive("reshape", np.reshape, kind=K.reshape_kind, linear=(0,), complex_ok=True)
def reshape(g, ans, a, shape=None, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@primitive("ravel", np.ravel, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def ravel(g, ans, a, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@primitive("flatten", tensor.flatten, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def flatten(g, ans, a, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@primitive("expand_dims", np.expand_dims, np.squeeze, np.atleast_1d, np.atleast_2d, np.atleast_3d, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def expand_dims(g, ans, a, axis=None):
    return np.reshape(g, np.shape(a))


@primitive("broadcast_to", np.broadcast_to, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def broadcast_to(g, ans, array, shape):
    return tensor.sum_to_shape(g, np.shape(array))


# ----- Axis order -----

@primitive("transpose", np.transpose, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def transpose(g, ans, a, axes=None):
    return _helpers.transpose_grad(g, axes)


@primitive("swapaxes", np.swapaxes, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def swapaxes(g, ans, a, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


@primitive("moveaxis", np.moveaxis, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def moveaxis(g, ans, a, source, destination):
    return np.moveaxis(g, destination, source)


@primitive("flip", np.flip, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def flip(g, ans, m, axis=None):
    return np.flip(g, axis)


@primitive("roll", np.roll, kind=K.array_kind, linear=(0,), complex_ok=True)
def roll(g, ans, a, shift, axis=None):
    return _helpers.roll_grad(g, shift, axis), None


@primitive("rot90", np.rot90, kind=K.array_kind, linear=(0,), complex_ok=True)
def rot90(g, ans, m, k=1, axes=(0, 1)):
    return np.rot90(g, -k, axes)


@primitive("rollaxis", np.rollaxis, kind=K.array_kind, linear=(0,), complex_ok=True)
def rollaxis(g, ans, a, axis, start=0):
    return _helpers.rollaxis_grad(g, a, axis, start)


@primitive("fliplr", np.fliplr, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def fliplr(g, ans, m):
    return np.fliplr(g)


@primitive("flipud", np.flipud, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def flipud(g, ans, m):
    return np.flipud(g)


# ----- Joining and splitting -----

@primitive("concatenate", np.concatenate, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def concatenate(g, ans, arrays, axis=0):
    return _helpers.concatenate_grad(g, arrays, axis)


# np.r_[a, b] and np.c_[a, b]: written as runtime.r_([a, b]) by the front end
@primitive("r_", runtime.r_, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def r_(g, ans, items):
    return _helpers.index_concat_grad(g, items, "r")


@primitive("c_", runtime.c_, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def c_(g, ans, items):
    return _helpers.index_concat_grad(g, items, "c")


@primitive("stack", np.stack, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def stack(g, ans, arrays, axis=0):
    return _helpers.stack_grad(g, arrays, axis)


@primitive("hstack", np.hstack, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def hstack(g, ans, tup):
    return _helpers.hstack_grad(g, tup)


# np.row_stack is np.vstack's old name (deprecated in NumPy 2.0).
@primitive("vstack", np.vstack, *[f for f in [getattr(np, "row_stack", None)] if f],
           kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True, jax="jnp.vstack")
def vstack(g, ans, tup):
    return _helpers.vstack_grad(g, tup)


@primitive("dstack", np.dstack, kind=K.array_kind, linear=(0,), complex_ok=True)
def dstack(g, ans, tup):
    return _helpers.dstack_grad(g, tup)


@primitive("column_stack", np.column_stack, kind=K.array_kind, linear=(0,), complex_ok=True)
def column_stack(g, ans, tup):
    return _helpers.column_stack_grad(g, tup)


@primitive("append", np.append, kind=K.array_kind, linear=(0, 1), complex_ok=True)
def append(g, ans, arr, values, axis=None):
    d = _helpers.append_grads(g, arr, values, axis)
    return d[0], d[1]


# Splits return a list of pieces; ``g`` holds one adjoint per piece.


@primitive("split", np.split, np.array_split, linear=(0,), complex_ok=True)
def split(g, ans, ary, indices_or_sections, axis=0):
    return _helpers.split_grad(g, ans, ary, axis), None


@primitive("vsplit", np.vsplit, linear=(0,), complex_ok=True)
def vsplit(g, ans, ary, indices_or_sections):
    return _helpers.split_grad(g, ans, ary, 0), None


@primitive("hsplit", np.hsplit, linear=(0,), complex_ok=True)
def hsplit(g, ans, ary, indices_or_sections):
    return _helpers.hsplit_grad(g, ans, ary), None


@primitive("dsplit", np.dsplit, linear=(0,), complex_ok=True)
def dsplit(g, ans, ary, indices_or_sections):
    return _helpers.split_grad(g, ans, ary, 2), None


# ----- Repeating and padding -----

@primitive("tile", np.tile, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def tile(g, ans, A, reps):
    return _helpers.tile_grad(g, A, reps), None


@primitive("repeat", np.repeat, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def repeat(g, ans, a, repeats, axis=None):
    return _helpers.repeat_grad(g, a, repeats, axis), None


# Every mode: constant (its values differentiated too), edge, reflect and symmetric
# (even or odd), wrap, linear_ramp (and its end values), maximum, minimum, mean,
# median, empty.
@primitive("pad", np.pad, kind=K.ALWAYS_ARRAY, complex_ok=True)
def pad(g, ans, array, pad_width, mode="constant", stat_length=None, constant_values=0,
        end_values=0, reflect_type="even"):
    d = _helpers.pad_grads(g, array, pad_width, mode, stat_length, constant_values,
                           end_values, reflect_type)
    return d[0], None, None, None, d[1], d[2], None


@jvp_rule("pad")
def pad_jvp(g, ans, array, pad_width, mode="constant", stat_length=None, constant_values=0,
            end_values=0, reflect_type="even"):
    return (_forward.pad_jvp(g, array, pad_width, mode, stat_length, reflect_type),
            None, None, None,
            _forward.pad_jvp_fill(g, array, pad_width, mode, "constant_values"),
            _forward.pad_jvp_fill(g, array, pad_width, mode, "end_values"), None)


# ----- Diagonals and triangles -----

@primitive("diag", np.diag, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def diag(g, ans, v, k=0):
    return _helpers.diag_grad(g, v, k)


@primitive("diagonal", np.diagonal, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def diagonal(g, ans, a, offset=0, axis1=0, axis2=1):
    return _helpers.diagonal_grad(g, a, offset, axis1, axis2)


@primitive("tril", np.tril, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def tril(g, ans, m, k=0):
    return np.tril(g, k)


@primitive("triu", np.triu, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def triu(g, ans, m, k=0):
    return np.triu(g, k)


# ----- Copies and construction from values -----

@primitive("array", np.array, np.asarray, np.copy, np.ascontiguousarray, kind=K.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def array(g, ans, a, dtype=None, copy=None):
    return _helpers.array_grad(g, a)


alias("array", np.ascontiguousarray, jax="jnp.asarray")  # JAX arrays have no layout


@primitive("full", np.full, kind=K.ALWAYS_ARRAY, linear=(1,), complex_ok=True)
def full(g, ans, shape, fill_value, dtype=None):
    return None, tensor.unbroadcast(g, fill_value)


@primitive("full_like", np.full_like, kind=K.ALWAYS_ARRAY, linear=(1,), complex_ok=True)
def full_like(g, ans, a, fill_value, dtype=None):
    return None, tensor.unbroadcast(g, fill_value)


@primitive("linspace", np.linspace, kind=K.ALWAYS_ARRAY, complex_ok=True)
def linspace(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return (_helpers.linspace_grad_start(g, start, stop, num, endpoint, axis),
            _helpers.linspace_grad_stop(g, start, stop, num, endpoint, axis))


# linspace is linear in (start, stop) together: each one's share of the tangent.
@jvp_rule("linspace")
def linspace_jvp(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return (np.linspace(g, 0.0 * g, num, endpoint, axis=axis),
            np.linspace(0.0 * g, g, num, endpoint, axis=axis))
