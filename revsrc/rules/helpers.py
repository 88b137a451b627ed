"""Records of the runtime helpers that generated adjoints call.

A derivative is a program like any other, so the functions it calls are primitives
too: each has a record with its kind, and (see the composable-derivatives work)
rules of its own, so that a derivative can be transformed again.
"""
from .. import kinds as K
from .. import runtime, tensor
from ..primitives import define, jvp_rule, primitive
from . import _forward, _helpers


def _like(index):
    """The kind and rank of argument ``index`` (a number stays a number)."""
    def rule(op, ctx):
        a = op.args[index]
        return ctx.kind(a), ctx.ndim(a)
    rule.__name__ = f"like_argument_{index}"
    return rule


# Sums an adjoint back to its input's shape: the input's kind and rank.
define("unbroadcast", runtime.unbroadcast, tensor.unbroadcast, kind=_like(1), linear=(0,))
define("zeros_like", runtime.zeros_like, kind=_like(0), nondiff=True)
@primitive("finalize_grad", runtime.finalize_grad, kind=_like(1), linear=(0,))
def finalize_grad(g, ans, grad, x):
    return runtime.unbroadcast(g, grad), None


define("zero_tangent", runtime.zero_tangent, kind=_like(0), nondiff=True)
define("broadcast_like", runtime.broadcast_like, kind=_like(1), linear=(0,))
define("zero_at", runtime.zero_at, kind=_like(0), linear=(0,))
define("copy_item", runtime.copy_item, nondiff=True)
define("check_scalar_output", runtime.check_scalar_output, nondiff=True)
define("tanh_vjp", tensor.tanh_vjp, kind=K.elementwise_kind, linear=(0,))
define("relu_vjp", tensor.relu_vjp, kind=K.elementwise_kind, linear=(0,))


@jvp_rule("tanh_vjp")
def tanh_vjp_jvp(g, ans, dy, y):
    return tensor.tanh_vjp(g, y), _forward.tanh_vjp_jvp(g, dy, y)


# ----- The helpers of the NumPy rules (revsrc/rules/_helpers.py) -----
# (name, argument whose kind and rank the gradient has, the arguments it is linear in)
_H = _helpers
for _fn, _like_arg, _linear in [
    (_H.broadcast_reduced, 1, (0,)), (_H.sum_list_grad, 1, (0,)), (_H.mean_grad, 2, (0,)),
    (_H.extremum_grad, 2, (0,)), (_H.var_grad, 1, (0, 1)), (_H.cumsum_grad, 1, (0,)),
    (_H.clip_grad_a, 1, (0,)), (_H.clip_grad_min, 2, (0,)), (_H.clip_grad_max, 3, (0,)),
    (_H.where_grad, 0, (0,)), (_H.real_grad, 1, (0,)), (_H.imag_grad, 1, (0,)),
    (_H.dot_grad_a, 1, (0, 2)), (_H.dot_grad_b, 2, (0, 1)),
    (_H.matmul_grad_a, 1, (0, 2)), (_H.matmul_grad_b, 2, (0, 1)),
    (_H.inner_grad_a, 1, (0, 2)), (_H.inner_grad_b, 2, (0, 1)),
    (_H.outer_grad_a, 1, (0, 2)), (_H.outer_grad_b, 2, (0, 1)),
    (_H.tensordot_grad_a, 1, (0, 2)), (_H.tensordot_grad_b, 2, (0, 1)),
    (_H.trace_grad, 1, (0,)), (_H.getitem_grad, 1, (0,)), (_H.array_grad, 1, (0,)),
    (_H.transpose_grad, 0, (0,)), (_H.concatenate_grad, None, (0,)),
    (_H.stack_grad, None, (0,)), (_H.hstack_grad, None, (0,)), (_H.vstack_grad, None, (0,)),
    (_H.split_grad, 2, (0,)), (_H.tile_grad, 1, (0,)), (_H.repeat_grad, 1, (0,)),
    (_H.pad_grad, 1, (0,)), (_H.diag_grad, 1, (0,)), (_H.diagonal_grad, 1, (0,)),
    (_H.linspace_grad_start, 1, (0,)), (_H.linspace_grad_stop, 2, (0,)),
    (_H.sort_grad, 1, (0,)), (_H.take_grad, 1, (0,)), (_H.take_along_axis_grad, 1, (0,)),
    (_H.norm_grad, 2, ()), (_H.std_grad, 2, ()), (_H.prod_grad, 2, ()),
    (_H.cumprod_grad, 2, ()), (_H.sinc_grad, 1, ()), (_H.einsum_grad, None, ()),
    (_H.det_grad, 2, ()), (_H.slogdet_grad, 1, ()), (_H.solve_grad_a, 2, ()),
    (_H.solve_grad_b, 3, ()), (_H.cholesky_grad, 2, ()),
    (tensor.sum_to_shape, None, (0,)),
]:
    define(_fn.__name__, _fn, kind=_like(_like_arg) if _like_arg is not None else None,
           linear=_linear)


@jvp_rule("norm_grad")
def norm_grad_jvp(g, ans, dg, nans, x, ord=None, axis=None, keepdims=False):
    return (_helpers.norm_grad(g, nans, x, ord, axis, keepdims),
            _forward.norm_grad_jvp_ans(g, dg, nans, x, ord, axis, keepdims),
            _forward.norm_grad_jvp_x(g, dg, nans, x, ord, axis, keepdims))
