"""Records of the runtime helpers that generated adjoints call.

A derivative is a program like any other, so the functions it calls are primitives
too: each has a record with its kind, and (see the composable-derivatives work)
rules of its own, so that a derivative can be transformed again.
"""
from .. import kinds as K
from .. import runtime, tensor
from ..primitives import define


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
define("zero_at", runtime.zero_at, kind=_like(0), linear=(0,))
define("copy_item", runtime.copy_item, nondiff=True)
define("check_scalar_output", runtime.check_scalar_output, nondiff=True)
define("tanh_vjp", tensor.tanh_vjp, kind=K.elementwise_kind, linear=(0,))
define("relu_vjp", tensor.relu_vjp, kind=K.elementwise_kind, linear=(0,))
