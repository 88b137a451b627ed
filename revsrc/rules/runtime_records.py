"""Records of the runtime helpers that generated adjoints call.

A derivative is a program like any other, so the functions it calls are primitives
too: each has a record with its kind, and (see the composable-derivatives work)
rules of its own, so that a derivative can be transformed again.
"""
import numpy as np

from . import kind_rules as KR
from ..core import kinds as _kinds
from ..runtime import checkpoint as _checkpoint, containers
from ..runtime import inplace, tensor
from .. import runtime
from .. import _kernels
from ..primitives import declare, define, special
from .register import jvp_rule, primitive
from ..runtime import forward_grads as _forward, transpose_grads as _transpose
from ..runtime.grads import (calculus as _calculus, elementwise as _elementwise,
                             indexing as _indexing, linalg as _linalg,
                             reductions as _reductions, shape as _shape)


_like = KR.like_argument


# Sums an adjoint back to its input's shape: the input's kind and rank.
define("unbroadcast", runtime.unbroadcast, tensor.unbroadcast, kind=_like(1), linear=(0,))
declare(tensor.unbroadcast, loop_kernel=(_kernels.unbroadcast, 2), shape_reads=(1,))
# (no record: the zero adjoint of a value, shaped like it; prune reads this)
declare(runtime.expand_zero, shape_reads=(1,))
define("zeros_like", runtime.zeros_like, kind=_like(0), nondiff=True)
# a checkpointed loop's segment length and snapshot count: ints from the sizes of the
# loop's state, with no derivative (a Hessian of a long loop differentiates them again)
define("unit_length", _checkpoint.unit_length, kind=KR.constant(_kinds.INT), nondiff=True)
define("snapshot_count", _checkpoint.snapshot_count, kind=KR.constant(_kinds.INT),
       nondiff=True)
# on numbers it is float(g): a copy on the engine
@primitive("finalize_grad", runtime.finalize_grad, kind=_like(1), linear=(0,),
           engine=special("first"))
def finalize_grad(g, ans, grad, x):
    return runtime.unbroadcast(g, grad), None


declare(runtime.finalize_grad, pure=True, raises_on_scalars=False)
# the in-place add of adjoints (passes/prune.py writes it; it has no record: it is
# never differentiated)
declare(runtime.accumulate, loop_kernel=(_kernels.accumulate, 2))


define("zero_tangent", runtime.zero_tangent, kind=_like(0), nondiff=True)
# the tangents of arrays written in place, sharing memory as their values do
define("own_tangent", _forward.own_tangent, kind=_like(1), nondiff=True)
define("view_tangent", _forward.view_tangent, kind=_like(1), nondiff=True)
define("zero_items", runtime.zero_items, nondiff=True)
define("broadcast_like", runtime.broadcast_like, kind=_like(1), linear=(0,))
define("zero_at", runtime.zero_at, kind=_like(0), linear=(0,))


# the derivative of a value stored into an array: zero for an integer or bool array
@primitive("stored_derivative", runtime.stored_derivative, kind=_like(0), linear=(0,))
def stored_derivative_vjp(g, ans, d, dest):
    return runtime.stored_derivative(g, dest), None


# x op= v on an array (revsrc/passes/views.py): x + v kept in x's dtype, or NumPy's
# error; the derivative passes (zero when x holds integers or bools: the result's dtype)
define("array_dtype", inplace.array_dtype, nondiff=True)


@primitive("in_place", inplace.in_place, kind=_like(0))
def in_place_vjp(g, ans, new, dtype, op):
    return runtime.stored_derivative(g, ans), None, None


@jvp_rule("in_place")
def in_place_jvp(g, ans, new, dtype, op):
    return runtime.stored_derivative(g, ans), None, None


# the tangent of a conversion to a dtype given at run time: linear in the tangent,
# with the conversion's adjoint (zero for an integer or bool dtype) as its transpose
@primitive("conversion_tangent", _forward.conversion_tangent, kind=_like(1), linear=(1,))
def conversion_tangent_vjp(g, ans, convert, t, dtype, rest=(), options=()):
    return None, _shape.array_grad(g, t, dtype), None, None, None


# x[index] with an index computed in the function, as the forward sweep reads it
# (runtime.take): getitem's rules.
@primitive("take_item", runtime.take, kind=KR.getitem_kind, linear=(0,))
def take_item_vjp(g, ans, x, index):
    return _indexing.getitem_grad(g, x, index), None


# The saved old values of an item assignment: linear in the array (forward over
# reverse carries the tangent's old values beside them; reverse over reverse scatters).
@primitive("copy_item", runtime.copy_item, kind=KR.array_kind, linear=(0,))
def copy_item_vjp(g, ans, x, index):
    return _indexing.getitem_grad(g, x, index), None


define("check_scalar_output", runtime.check_scalar_output, nondiff=True)
define("check_aux_pair", runtime.check_aux_pair, nondiff=True)
define("check_view", runtime.check_view, nondiff=True)
define("check_immutable", runtime.check_immutable, nondiff=True)
define("check_real_store", runtime.check_real_store, nondiff=True)
define("jvp_via_vjp", runtime.jvp_via_vjp, kind=_like(4), linear=(3,))


@primitive("add_tangents", runtime.add_tangents, kind=_like(0), linear=(0, 1))
def add_tangents_vjp(g, ans, a, b):
    return g, g


# A write through a view, laid back out as its base: linear, and its transpose is the
# view's own layout.
@primitive("view_back", runtime.view_back, kind=_like(1), linear=(0,))
def view_back_vjp(g, ans, new, base, fn, args=(), kwargs=()):
    return _transpose.view_forward(g, fn, args, kwargs), None, None, None, None


# ... and the view's layout, applied to an adjoint, is linear too, with view_back as
# its transpose (the adjoint it was applied to gives the base's shape): a derivative
# through such a write can be differentiated again.
@primitive("view_forward", _transpose.view_forward, kind=KR.array_kind, linear=(0,))
def view_forward_vjp(g, ans, gbar, fn, args=(), kwargs=()):
    return runtime.view_back(g, gbar, fn, args, kwargs), None, None, None


# A write through a view NumPy alone knows the layout of (revsrc/runtime/inplace.py):
# where the view lies is checked when it runs; the write is linear in the new values
# and the array, together.
define("check_shares", inplace.check_shares, nondiff=True)
define("shares", inplace.shares, nondiff=True)
define("item_view", inplace.item_view, nondiff=True)
define("index_view", inplace.index_view, nondiff=True)
define("check_apart", inplace.check_apart, nondiff=True)
define("check_new", inplace.check_new, nondiff=True)
define("view_positions", inplace.view_positions, nondiff=True)
define("check_item_alone", inplace.check_item_alone, nondiff=True)


@primitive("write_at", inplace.write_at, kind=_like(1), linear=(0, 1))
def write_at_vjp(g, ans, new, base, where):
    return (inplace.write_at_new_grad(g, new, base, where),
            inplace.write_at_base_grad(g, base, where), None)


# Its adjoints are linear in the adjoint: one picks where the view lies, its transpose
# spreads back there; the other takes those elements out, its own transpose.
@primitive("write_at_new_grad", inplace.write_at_new_grad, kind=_like(1), linear=(0,))
def write_at_new_grad_vjp(g, ans, gout, new, base, where):
    return _transpose.write_at_back(g, base, where), None, None, None


@primitive("write_at_base_grad", inplace.write_at_base_grad, kind=_like(1), linear=(0,))
def write_at_base_grad_vjp(g, ans, gout, base, where):
    return inplace.write_at_base_grad(g, base, where), None, None
define("tanh_vjp", tensor.tanh_vjp, kind=KR.elementwise_kind, linear=(0,))
define("relu_vjp", tensor.relu_vjp, kind=KR.elementwise_kind, linear=(0,))


@jvp_rule("tanh_vjp")
def tanh_vjp_jvp(g, ans, dy, y):
    return tensor.tanh_vjp(g, y), _forward.tanh_vjp_jvp(g, dy, y)


# logaddexp_vjp(d, x, y) = d s with s = 1 / (1 + exp(y - x)): linear in d, and
# d s (1 - s) for x (its negative for y)
@primitive("logaddexp_vjp", tensor.logaddexp_vjp, kind=KR.elementwise_kind, broadcast=True)
def logaddexp_vjp_vjp(g, ans, d, x, y):
    return (tensor.logaddexp_vjp(g, x, y), _forward.logaddexp_vjp_partial(g * d, x, y),
            -_forward.logaddexp_vjp_partial(g * d, x, y))


@jvp_rule("logaddexp_vjp")
def logaddexp_vjp_jvp(g, ans, d, x, y):
    return (tensor.logaddexp_vjp(g, x, y), _forward.logaddexp_vjp_partial(g * d, x, y),
            -_forward.logaddexp_vjp_partial(g * d, x, y))


# ----- The helpers of the NumPy rules (revsrc/runtime/grads/) -----
# (name, argument whose kind and rank the gradient has, the arguments it is linear in:
# together, or ((i, j),) for each of them)
for _fn, _like_arg, _linear in [
    (_reductions.broadcast_reduced, 1, (0,)),
    (_reductions.mean_grad, 2, (0,)), (_reductions.extremum_grad, 2, (0,)),
    (_reductions.mean_where_grad, 2, (0,)),
    (_reductions.var_grad, 1, ((0, 1),)), (_reductions.cumsum_grad, 1, (0,)),
    (_elementwise.clip_grad_a, 1, (0,)), (_elementwise.clip_grad_min, 2, (0,)),
    (_elementwise.clip_grad_max, 3, (0,)), (_elementwise.where_grad, 0, (0,)),
    (_elementwise.real_grad, 1, (0,)), (_elementwise.imag_grad, 1, (0,)),
    (_linalg.dot_grad_a, 1, ((0, 2),)), (_linalg.dot_grad_b, 2, ((0, 1),)),
    (_linalg.matmul_grad_a, 1, ((0, 2),)), (_linalg.matmul_grad_b, 2, ((0, 1),)),
    (_linalg.inner_grad_a, 1, ((0, 2),)), (_linalg.inner_grad_b, 2, ((0, 1),)),
    (_linalg.outer_grad_a, 1, ((0, 2),)), (_linalg.outer_grad_b, 2, ((0, 1),)),
    (_reductions.multiply_outer_grad_a, 1, ((0, 2),)),
    (_reductions.multiply_outer_grad_b, 2, ((0, 1),)),
    (_reductions.outer_sum_a, 1, (0,)), (_reductions.outer_sum_b, 2, (0,)),
    (_calculus.diff_grad_back, 1, (0,)),
    (_linalg.tensordot_grad_a, 1, ((0, 2),)), (_linalg.tensordot_grad_b, 2, ((0, 1),)),
    (_linalg.cross_grad_a, 1, ((0, 2),)), (_linalg.cross_grad_b, 2, ((0, 1),)),
    (_linalg.trace_grad, 1, (0,)), (_indexing.getitem_grad, 1, (0,)),
    (_shape.array_grad, 1, (0,)), (_shape.transpose_grad, 0, (0,)),
    (_shape.concatenate_grad, None, (0,)), (_shape.stack_grad, None, (0,)),
    (_shape.hstack_grad, None, (0,)), (_shape.vstack_grad, None, (0,)),
    (_shape.split_grad, 2, (0,)), (_shape.tile_grad, 1, (0,)),
    (_shape.repeat_grad, 1, (0,)), (_shape.diag_grad, 1, (0,)),
    (_shape.diagonal_grad, 1, (0,)), (_shape.linspace_grad_start, 1, (0,)),
    (_shape.linspace_grad_stop, 2, (0,)), (_indexing.sort_grad, 1, (0,)),
    (_indexing.take_along_axis_grad, 1, (0,)), (_reductions.norm_grad, 2, ()),
    (_reductions.std_grad, 2, ()), (_reductions.prod_grad, 2, ()),
    (_reductions.cumprod_grad, 2, ()), (_elementwise.sinc_grad, 1, ()),
    (_linalg.einsum_grad, None, ()),
]:
    # ((i, j),): linear in each of i and j, not in both together
    _multi = _linear[0] if _linear and isinstance(_linear[0], tuple) else ()
    define(_fn.__name__, _fn, kind=_like(_like_arg) if _like_arg is not None else None,
           linear=() if _multi else _linear, multilinear=_multi)
define("take_grad_np", _indexing.take_grad, kind=_like(1), linear=(0,))


@jvp_rule("norm_grad")
def norm_grad_jvp(g, ans, dg, nans, x, ord=None, axis=None, keepdims=False):
    return (_reductions.norm_grad(g, nans, x, ord, axis, keepdims),
            _forward.norm_grad_jvp_ans(g, dg, nans, x, ord, axis, keepdims),
            _forward.norm_grad_jvp_x(g, dg, nans, x, ord, axis, keepdims))


# ----- Reverse rules: the transposes of the linear helpers (grad of grad) -----

# on numbers (all the engine has) it is g: jit of a second derivative runs it there
@primitive("unbroadcast", runtime.unbroadcast, engine=special("first"))
def unbroadcast_vjp(g, ans, grad, x):
    return _transpose.broadcast_back(g, grad), None


# ... and its transpose, linear in the adjoint too (the other argument gives the shape):
# reverse over reverse over reverse, and forward over reverse over reverse, go through it
@primitive("broadcast_back", _transpose.broadcast_back, kind=_like(1), linear=(0,))
def broadcast_back_vjp(g, ans, gbar, grad):
    return runtime.unbroadcast(g, gbar), None


@primitive("broadcast_like", runtime.broadcast_like)
def broadcast_like_vjp(g, ans, t, like):
    return runtime.unbroadcast(g, t), None


@primitive("sum_to_shape", tensor.sum_to_shape)
def sum_to_shape_vjp(g, ans, grad, shape):
    return _transpose.broadcast_back(g, grad), None


@primitive("zero_at", runtime.zero_at)
def zero_at_vjp(g, ans, grad, index):
    return runtime.zero_at(g, index), None


@primitive("take_grad", runtime.take_grad, kind=KR.array_kind, linear=(0,))
def take_grad_vjp(g, ans, grad, index):
    return _transpose.take_back(g, grad, index), None


@primitive("relu_vjp", tensor.relu_vjp)
def relu_vjp_vjp(g, ans, grad, x):
    return tensor.relu_vjp(g, x), None


@primitive("tanh_vjp", tensor.tanh_vjp)
def tanh_vjp_vjp(g, ans, grad, y):
    return tensor.tanh_vjp(g, y), -2.0 * g * grad * y


# np.tril's and np.triu's adjoint (rows summed for a 1-D argument): linear in g
@primitive("triangle_grad", _shape.triangle_grad, kind=_like(1), linear=(0,))
def triangle_grad_vjp(g, ans, gt, m):
    return _transpose.triangle_back(g, gt, m), None


@primitive("broadcast_reduced", _reductions.broadcast_reduced)
def broadcast_reduced_vjp(g, ans, grad, x, axis=None, keepdims=False):
    return _transpose.reduce_like(g, grad, x, axis, keepdims), None


declare(_reductions.broadcast_reduced, shape_reads=(1,))   # x: its shape alone


@primitive("mean_grad", _reductions.mean_grad)
def mean_grad_vjp(g, ans, grad, mean, a, axis=None, keepdims=False):
    return _transpose.mean_back(g, grad, mean, a, axis, keepdims), None, None


declare(_reductions.mean_grad, shape_reads=(1, 2))   # mean and a: their shapes and dtypes alone
# (np.mean's rule reads it only with where=: unread, the fold drops it)
declare(_reductions.mean_where_grad, effect_free=True)
declare(_reductions.var_mean_grad, effect_free=True)   # (np.var's, with mean=)
declare(_forward.var_mean_jvp, effect_free=True)
# (np.max's rule with initial= or where=: the branch not taken is dropped)
for _fn in (_reductions.extremum_where_grad, _forward.extremum_where_jvp,
            _reductions.extremum_grad, _forward.extremum_jvp):
    declare(_fn, effect_free=True)
# ... and that transpose, linear in its cotangent (the rest: shapes): forward over
# reverse over reverse (a Hessian of a gradient penalty through np.mean) goes through it
@primitive("mean_back", _transpose.mean_back, kind=_like(1), linear=(0,))
def mean_back_vjp(g, ans, gbar, grad, mean, a, axis=None, keepdims=False):
    return _reductions.mean_grad(g, mean, a, axis, keepdims), None, None, None


declare(_transpose.mean_back, shape_reads=(1, 2, 3))


@primitive("extremum_grad", _reductions.extremum_grad)
def extremum_grad_vjp(g, ans, grad, extremum, a, axis=None, keepdims=False):
    return _forward.extremum_jvp(g, extremum, a, axis, keepdims), None, None


@primitive("var_grad", _reductions.var_grad)
def var_grad_vjp(g, ans, grad, a, axis=None, ddof=0, keepdims=False):
    return (_forward.var_jvp(g, grad, a, axis, ddof, keepdims),
            _transpose.var_grad_back_a(g, grad, a, axis, ddof, keepdims))


@primitive("cumsum_grad", _reductions.cumsum_grad)
def cumsum_grad_vjp(g, ans, grad, a, axis=None):
    return _transpose.cumsum_back(g, a, axis), None


# Masks are their own transposes.
@primitive("clip_grad_a", _elementwise.clip_grad_a)
def clip_grad_a_vjp(g, ans, grad, a, a_min, a_max):
    return _elementwise.clip_grad_a(g, a, a_min, a_max), None, None, None


@primitive("clip_grad_min", _elementwise.clip_grad_min)
def clip_grad_min_vjp(g, ans, grad, a, a_min, a_max):
    return _elementwise.clip_grad_min(g, a, a_min, a_max), None, None, None


@primitive("clip_grad_max", _elementwise.clip_grad_max)
def clip_grad_max_vjp(g, ans, grad, a, a_min, a_max):
    return _elementwise.clip_grad_max(g, a, a_min, a_max), None, None, None


@primitive("where_grad", _elementwise.where_grad)
def where_grad_vjp(g, ans, grad, condition, branch):
    return _elementwise.where_grad(g, condition, branch), None, None


# (np.real's adjoint, and abs()'s real part of its own: on numbers, all the scalar
# engine has, it is g)
@primitive("real_grad", _elementwise.real_grad, engine=special("first"))
def real_grad_vjp(g, ans, grad, x):
    # Re's transpose is Re again: in a derivative of a derivative the adjoint of a real
    # value may carry an imaginary part that no real change of it meets
    return _elementwise.real_grad(g, x), None


declare(_elementwise.real_grad, pure=True, raises_on_scalars=False)


# np.imag's adjoint -1j Re(g) and its transpose Im(w): each other's reverse rules
@primitive("imag_grad", _elementwise.imag_grad)
def imag_grad_vjp(g, ans, grad, x):
    return _elementwise.imag_grad_back(g, x), None


@primitive("imag_grad_back", _elementwise.imag_grad_back, kind=_like(1), linear=(0,))
def imag_grad_back_vjp(g, ans, w, x):
    return _elementwise.imag_grad(g, x), None


# np.angle's adjoint -1j Re(g) / z and tangent Im(t / z): linear in g (in t), and
# holomorphic in z (derivatives of derivatives; 0 for real z)
@primitive("angle_grad", _elementwise.angle_grad, kind=_like(1))
def angle_grad_vjp(g, ans, grad, z, deg=False):
    return (_elementwise.angle_grad_back(g, z, deg),
            _elementwise.angle_grad_dz(g, grad, z, deg), None)


@jvp_rule("angle_grad")
def angle_grad_jvp(g, ans, grad, z, deg=False):
    return _elementwise.angle_grad(g, z, deg), _elementwise.angle_grad_dz(g, grad, z, deg), None


@primitive("angle_jvp", _forward.angle_jvp, kind=_like(1))
def angle_jvp_vjp(g, ans, t, z, deg=False):
    return _elementwise.angle_grad(g, z, deg), _elementwise.angle_grad_dz(t, g, z, deg), None


@jvp_rule("angle_jvp")
def angle_jvp_jvp(g, ans, t, z, deg=False):
    return _forward.angle_jvp(g, z, deg), _forward.angle_jvp_dz(g, t, z, deg), None


# A bilinear product B(a, b): grad_a(g, a, b) is linear in g and in b, with transposes
# B(abar, b) in g and grad_b(g, abar, b) in b (and symmetrically for grad_b).

@primitive("dot_grad_a", _linalg.dot_grad_a)
def dot_grad_a_vjp(g, ans, grad, a, b):
    return np.dot(g, b), None, _linalg.dot_grad_b(grad, g, b)


declare(_linalg.dot_grad_a, loop_kernel=(_kernels.dot_grad_a, 3))


@primitive("dot_grad_b", _linalg.dot_grad_b)
def dot_grad_b_vjp(g, ans, grad, a, b):
    return np.dot(a, g), _linalg.dot_grad_a(grad, a, g), None


declare(_linalg.dot_grad_b, loop_kernel=(_kernels.dot_grad_b, 3))


@primitive("matmul_grad_a", _linalg.matmul_grad_a)
def matmul_grad_a_vjp(g, ans, grad, a, b):
    return np.matmul(g, b), None, _linalg.matmul_grad_b(grad, g, b)


@primitive("matmul_grad_b", _linalg.matmul_grad_b)
def matmul_grad_b_vjp(g, ans, grad, a, b):
    return np.matmul(a, g), _linalg.matmul_grad_a(grad, a, g), None


@primitive("inner_grad_a", _linalg.inner_grad_a)
def inner_grad_a_vjp(g, ans, grad, a, b):
    return np.inner(g, b), None, _linalg.inner_grad_b(grad, g, b)


@primitive("inner_grad_b", _linalg.inner_grad_b)
def inner_grad_b_vjp(g, ans, grad, a, b):
    return np.inner(a, g), _linalg.inner_grad_a(grad, a, g), None


@primitive("outer_grad_a", _linalg.outer_grad_a)
def outer_grad_a_vjp(g, ans, grad, a, b):
    return np.outer(g, b), None, _linalg.outer_grad_b(grad, g, b)


@primitive("outer_grad_b", _linalg.outer_grad_b)
def outer_grad_b_vjp(g, ans, grad, a, b):
    return np.outer(a, g), _linalg.outer_grad_a(grad, a, g), None


@primitive("multiply_outer_grad_a", _reductions.multiply_outer_grad_a)
def multiply_outer_grad_a_vjp(g, ans, grad, a, b):
    return np.multiply.outer(g, b), None, _reductions.multiply_outer_grad_b(grad, g, b)


@primitive("multiply_outer_grad_b", _reductions.multiply_outer_grad_b)
def multiply_outer_grad_b_vjp(g, ans, grad, a, b):
    return np.multiply.outer(a, g), _reductions.multiply_outer_grad_a(grad, a, g), None


# (the transposes of summing over the other operand's axes: spreading along them)
@primitive("outer_sum_a", _reductions.outer_sum_a)
def outer_sum_a_vjp(g, ans, grad, a, b):
    return np.add.outer(g, np.zeros_like(b)), None, None


@primitive("outer_sum_b", _reductions.outer_sum_b)
def outer_sum_b_vjp(g, ans, grad, a, b):
    return np.add.outer(np.zeros_like(a), g), None, None


def _diff_part_kind(op, ctx):
    """`diff_grad`'s kind: that of the input it is the adjoint of (array, prepend or
    append, by its ``part``)."""
    part = op.args[6] if len(op.args) > 6 else None
    a = op.args[{0: 1, 1: 4, 2: 5}[getattr(part, "value", 0)]]
    return ctx.kind(a), ctx.ndim(a)


define("diff_grad", _calculus.diff_grad, kind=_diff_part_kind, linear=(0,))


# np.diff's adjoint for one input and the transpose of that: each other's rule
@primitive("diff_grad", _calculus.diff_grad)
def diff_grad_vjp(g, ans, grad, a, n=1, axis=-1, prepend=None, append=None, part=0):
    return (_calculus.diff_grad_back(g, a, n, axis, prepend, append, part), None, None, None,
            None, None, None)


@primitive("diff_grad_back", _calculus.diff_grad_back)
def diff_grad_back_vjp(g, ans, c, a, n=1, axis=-1, prepend=None, append=None, part=0):
    return (_calculus.diff_grad(g, a, n, axis, prepend, append, part), None, None, None,
            None, None, None)


@primitive("tensordot_grad_a", _linalg.tensordot_grad_a)
def tensordot_grad_a_vjp(g, ans, grad, a, b, axes=2):
    return np.tensordot(g, b, axes), None, _linalg.tensordot_grad_b(grad, g, b, axes), None


@primitive("tensordot_grad_b", _linalg.tensordot_grad_b)
def tensordot_grad_b_vjp(g, ans, grad, a, b, axes=2):
    return np.tensordot(a, g, axes), _linalg.tensordot_grad_a(grad, a, g, axes), None, None


# Scatters and gathers transpose into each other.

@primitive("getitem_grad", _indexing.getitem_grad)
def getitem_grad_vjp(g, ans, grad, x, index):
    return g[index], None, None


@primitive("take_grad_np", _indexing.take_grad)
def take_grad_np_vjp(g, ans, grad, a, indices, axis=None):
    return np.take(g, indices, axis=axis), None, None, None


@primitive("take_along_axis_grad", _indexing.take_along_axis_grad)
def take_along_axis_grad_vjp(g, ans, grad, arr, indices, axis):
    return np.take_along_axis(g, indices, axis), None, None, None


@primitive("sort_grad", _indexing.sort_grad)
def sort_grad_vjp(g, ans, grad, a, axis=-1):
    return _forward.sort_jvp(g, a, axis), None, None


@primitive("transpose_grad", _shape.transpose_grad)
def transpose_grad_vjp(g, ans, grad, axes=None):
    return np.transpose(g, axes), None


@primitive("trace_grad", _linalg.trace_grad)
def trace_grad_vjp(g, ans, grad, a, offset=0, axis1=0, axis2=1):
    return np.trace(g, offset, axis1, axis2), None, None, None, None


@primitive("diag_grad", _shape.diag_grad)
def diag_grad_vjp(g, ans, grad, v, k=0):
    return np.diag(g, k), None, None


@primitive("diagonal_grad", _shape.diagonal_grad)
def diagonal_grad_vjp(g, ans, grad, a, offset=0, axis1=0, axis2=1):
    return np.diagonal(g, offset, axis1, axis2), None, None, None, None


@primitive("tile_grad", _shape.tile_grad)
def tile_grad_vjp(g, ans, grad, A, reps):
    return _transpose.tile_back(g, A, reps), None, None


@primitive("repeat_grad", _shape.repeat_grad)
def repeat_grad_vjp(g, ans, grad, a, repeats, axis=None):
    return _transpose.repeat_back(g, a, repeats, axis), None, None, None


# the adjoint of x.astype(dtype) with a dtype given at run time (zero for an integer or
# bool one): linear in g, its own transpose as array_grad is
@primitive("astype_grad", _elementwise.astype_grad, kind=_like(1), linear=(0,))
def astype_grad_vjp(g, ans, grad, x, dtype=None):
    return _elementwise.astype_grad(g, grad, dtype), None, None


@primitive("array_grad", _shape.array_grad)
def array_grad_vjp(g, ans, grad, a, dtype=None):
    # array_grad is its own transpose: g (real for a real adjoint), zero for an
    # integer or bool dtype (array_grad is then the constant zero)
    return _shape.array_grad(g, grad, dtype), None, None


# ----- The adjoints of NumPy's in-place functions (revsrc/inplace.py) -----
# Each is linear in its first argument; its reverse rule is its transpose, which is
# another of them.

@primitive("add_at_values_grad", inplace.add_at_values_grad, kind=_like(3), linear=(0,))
def add_at_values_grad(g, ans, gout, a, indices, values):
    return (inplace.add_at_values_tangent(inplace.spread_like_picked(g, a, indices), a,
                                          indices), None, None, None)


@primitive("add_at_values_tangent", inplace.add_at_values_tangent, kind=_like(1),
           linear=(0,))
def add_at_values_tangent(g, ans, t, a, indices):
    return inplace.add_at_values_grad(g, a, indices, t), None, None


@primitive("fill_diagonal_a_grad", inplace.fill_diagonal_a_grad, kind=_like(1), linear=(0,))
def fill_diagonal_a_grad(g, ans, gout, a, wrap=False):
    return inplace.fill_diagonal_a_grad(g, a, wrap), None, None


@primitive("fill_diagonal_val_grad", inplace.fill_diagonal_val_grad, kind=_like(2),
           linear=(0,))
def fill_diagonal_val_grad(g, ans, gout, a, val, wrap=False):
    return inplace.fill_diagonal_val_tangent(g, a, val, wrap), None, None, None


@primitive("fill_diagonal_val_tangent", inplace.fill_diagonal_val_tangent, kind=_like(1),
           linear=(0,))
def fill_diagonal_val_tangent(g, ans, t, a, val, wrap=False):
    return inplace.fill_diagonal_val_grad(g, a, t, wrap), None, None, None
