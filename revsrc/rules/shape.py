"""Rules for functions that move, join, split or copy elements without changing them.

Functions that take a sequence (concatenate, stack...) receive a list the IR built
with ``ir.make_list``; their rule returns one adjoint per item, as an object array
(`revsrc.runtime.values.pieces`) that the transformation indexes item by item.
"""
import numpy as np

from .. import runtime
from ..runtime import tensor
from . import kind_rules as KR
from ..primitives import alias, declare
from .register import jvp_rule, primitive
from ..runtime import forward_grads as _forward
from ..runtime.grads import shape as _helpers

# ----- Reshaping -----


@primitive("reshape", np.reshape, kind=KR.reshape_kind, linear=(0,), complex_ok=True)
def reshape(g, ans, a, shape=None, order="C", copy=None):
    # (copy= says whether NumPy may return a view: the values, and so the adjoint,
    # are the same either way)
    return np.reshape(g, np.shape(a), order=order)


declare(np.reshape, effect_free=True, view="maybe")


@primitive("ravel", np.ravel, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def ravel(g, ans, a, order="C"):
    return np.reshape(g, np.shape(a), order=order)


declare(np.ravel, view="maybe")


@primitive("flatten", tensor.flatten, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def flatten(g, ans, a, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@primitive("expand_dims", np.expand_dims, np.squeeze, np.atleast_1d, np.atleast_2d, np.atleast_3d, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def expand_dims(g, ans, a, axis=None):
    return np.reshape(g, np.shape(a))


declare(np.expand_dims, view="always")
declare(np.squeeze, view="always")
declare(np.atleast_1d, view="maybe")
declare(np.atleast_2d, view="maybe")
declare(np.atleast_3d, view="maybe")


@primitive("broadcast_to", np.broadcast_to, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def broadcast_to(g, ans, array, shape):
    return tensor.sum_to_shape(g, np.shape(array))


declare(np.broadcast_to, view="always")


# ----- Axis order -----

@primitive("transpose", np.transpose, kind=KR.same_rank_array, linear=(0,), complex_ok=True)
def transpose(g, ans, a, axes=None):
    return _helpers.transpose_grad(g, axes)


declare(np.transpose, effect_free=True, view="always")
# NumPy 2's spellings have no record (they are refused when differentiated)
for _fn in (getattr(np, "matrix_transpose", None), getattr(np, "permute_dims", None)):
    if _fn is not None:
        declare(_fn, view="always")


@primitive("swapaxes", np.swapaxes, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def swapaxes(g, ans, a, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


declare(np.swapaxes, view="always")


@primitive("moveaxis", np.moveaxis, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def moveaxis(g, ans, a, source, destination):
    return np.moveaxis(g, destination, source)


declare(np.moveaxis, view="always")


@primitive("flip", np.flip, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def flip(g, ans, m, axis=None):
    return np.flip(g, axis)


declare(np.flip, view="always")


@primitive("roll", np.roll, kind=KR.array_kind, linear=(0,), complex_ok=True)
def roll(g, ans, a, shift, axis=None):
    return np.roll(g, _helpers.negated_shift(shift), axis), None


@primitive("rot90", np.rot90, kind=KR.array_kind, linear=(0,), complex_ok=True)
def rot90(g, ans, m, k=1, axes=(0, 1)):
    return np.rot90(g, -k, axes)


declare(np.rot90, view="always")


@primitive("rollaxis", np.rollaxis, kind=KR.array_kind, linear=(0,), complex_ok=True)
def rollaxis(g, ans, a, axis, start=0):
    return _helpers.rollaxis_grad(g, a, axis, start)


declare(np.rollaxis, view="always")


@primitive("fliplr", np.fliplr, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def fliplr(g, ans, m):
    return np.fliplr(g)


declare(np.fliplr, view="always")


@primitive("flipud", np.flipud, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def flipud(g, ans, m):
    return np.flipud(g)


declare(np.flipud, view="always")


# ----- Joining and splitting -----

@primitive("concatenate", np.concatenate, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True,
           jax="_jaxgen.concatenate")
def concatenate(g, ans, arrays, axis=0):
    return _helpers.concatenate_grad(g, arrays, axis)


# np.r_[a, b] and np.c_[a, b]: written as runtime.r_([a, b]) by the front end
@primitive("r_", runtime.r_, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def r_(g, ans, items):
    return _helpers.index_concat_grad(g, items, "r")


@primitive("c_", runtime.c_, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def c_(g, ans, items):
    return _helpers.index_concat_grad(g, items, "c")


@primitive("stack", np.stack, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def stack(g, ans, arrays, axis=0):
    return _helpers.stack_grad(g, arrays, axis)


@primitive("hstack", np.hstack, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def hstack(g, ans, tup):
    return _helpers.hstack_grad(g, tup)


# np.row_stack is np.vstack's old name (deprecated in NumPy 2.0).
@primitive("vstack", np.vstack, *[f for f in [getattr(np, "row_stack", None)] if f],
           kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True, jax="jnp.vstack")
def vstack(g, ans, tup):
    return _helpers.vstack_grad(g, tup)


@primitive("dstack", np.dstack, kind=KR.array_kind, linear=(0,), complex_ok=True)
def dstack(g, ans, tup):
    return _helpers.dstack_grad(g, tup)


@primitive("column_stack", np.column_stack, kind=KR.array_kind, linear=(0,), complex_ok=True)
def column_stack(g, ans, tup):
    return _helpers.column_stack_grad(g, tup)


@primitive("append", np.append, kind=KR.array_kind, linear=(0, 1), complex_ok=True)
def append(g, ans, arr, values, axis=None):
    d = _helpers.append_grads(g, arr, values, axis)
    return d[0], d[1]


# Splits return a list of pieces; ``g`` holds one adjoint per piece.


@primitive("split", np.split, np.array_split, linear=(0,), complex_ok=True)
def split(g, ans, ary, indices_or_sections, axis=0):
    return _helpers.split_grad(g, ans, ary, axis), None


# lists of views
declare(np.split, view="maybe")
declare(np.array_split, view="maybe")
if hasattr(np, "unstack"):   # no record: refused when differentiated
    declare(np.unstack, view="maybe")


@primitive("vsplit", np.vsplit, linear=(0,), complex_ok=True)
def vsplit(g, ans, ary, indices_or_sections):
    return _helpers.split_grad(g, ans, ary, 0), None


declare(np.vsplit, view="maybe")


@primitive("hsplit", np.hsplit, linear=(0,), complex_ok=True)
def hsplit(g, ans, ary, indices_or_sections):
    return _helpers.hsplit_grad(g, ans, ary), None


declare(np.hsplit, view="maybe")


@primitive("dsplit", np.dsplit, linear=(0,), complex_ok=True)
def dsplit(g, ans, ary, indices_or_sections):
    return _helpers.split_grad(g, ans, ary, 2), None


declare(np.dsplit, view="maybe")


# ----- Repeating and padding -----

@primitive("tile", np.tile, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def tile(g, ans, A, reps):
    return _helpers.tile_grad(g, A, reps), None


@primitive("repeat", np.repeat, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def repeat(g, ans, a, repeats, axis=None):
    return _helpers.repeat_grad(g, a, repeats, axis), None


# Every mode: constant (its values differentiated too), edge, reflect and symmetric
# (even or odd), wrap, linear_ramp (and its end values), maximum, minimum, mean,
# median, empty.
@primitive("pad", np.pad, kind=KR.ALWAYS_ARRAY, complex_ok=True)
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

@primitive("diag", np.diag, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def diag(g, ans, v, k=0):
    return _helpers.diag_grad(g, v, k)


# np.diag of a matrix is a view of its diagonal (of a vector, a new matrix)
declare(np.diag, view="maybe")


@primitive("diagonal", np.diagonal, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def diagonal(g, ans, a, offset=0, axis1=0, axis2=1):
    return _helpers.diagonal_grad(g, a, offset, axis1, axis2)


declare(np.diagonal, view="always")


@primitive("tril", np.tril, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def tril(g, ans, m, k=0):
    return _helpers.triangle_grad(np.tril(g, k), m)


@primitive("triu", np.triu, kind=KR.ALWAYS_ARRAY, linear=(0,), complex_ok=True)
def triu(g, ans, m, k=0):
    return _helpers.triangle_grad(np.triu(g, k), m)


# ----- Copies and construction from values -----

@primitive("array", np.array, np.asarray, np.copy, np.ascontiguousarray, kind=KR.array_of_values,
           linear=(0,), complex_ok=True)
def array(g, ans, a, dtype=None, copy=None, device=None):   # device="cpu" (NumPy 2)
    return _helpers.array_grad(g, a, dtype)


alias("array", np.ascontiguousarray, jax="_jaxgen.ascontiguousarray")  # (no layout in JAX)
# a view when it can be one (np.asanyarray has no record: refused when differentiated)
declare(np.asarray, view="maybe")
declare(np.ascontiguousarray, view="maybe")
declare(np.asanyarray, view="maybe")


@primitive("full", np.full, kind=KR.ALWAYS_ARRAY, linear=(1,), complex_ok=True)
def full(g, ans, shape, fill_value, dtype=None):
    return None, tensor.unbroadcast(g, fill_value)


@primitive("full_like", np.full_like, kind=KR.ALWAYS_ARRAY, linear=(1,), complex_ok=True)
def full_like(g, ans, a, fill_value, dtype=None):
    return None, tensor.unbroadcast(g, fill_value)


@primitive("linspace", np.linspace, kind=KR.ALWAYS_ARRAY, complex_ok=True)
def linspace(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return (_helpers.linspace_grad_start(g, start, stop, num, endpoint, axis),
            _helpers.linspace_grad_stop(g, start, stop, num, endpoint, axis))


# linspace is linear in (start, stop) together: each one's share of the tangent.
@jvp_rule("linspace")
def linspace_jvp(g, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return (np.linspace(g, 0.0 * g, num, endpoint, axis=axis),
            np.linspace(0.0 * g, g, num, endpoint, axis=axis))
