"""How each primitive maps over a batch axis: its ``batch`` fact, read by
revsrc/passes/batching.py (``revsrc.vmap`` of array programs).

The forms (each a function of revsrc/runtime/batched.py, or a change of the
statement itself):

- ``elementwise``: every operand broadcast against the others, the batched ones with
  their example axes aligned; a whole family: every record whose contributions are
  summed back to shapes (``broadcast``) gets it without a declaration here;
- ``reduction``: the ``axis`` (None: all of the example's) moved past the batch;
- ``matmul``, ``dot``, ``matmul_grad_a``, ``matmul_grad_b``: batched products for
  examples of rank 1 and 2 (other ranks: one call per example);
- ``getitem``: a fixed index after the batch axis, a batched integer index gathered
  row by row; ``reshape``, ``transpose``, ``joined`` (concatenate, stack), ``einsum``;
- ``unbroadcast``, ``sum_grad``, ``mean_grad``, ``result_like``, ``float``,
  ``broadcast_like``, ``finalize``: the run-time helpers the reverse and forward
  sweeps call, per example;
- ``copy``, ``pack``: a name for the same value, a tuple or list of values;
- ``real_part``: ``real_grad(g, x)``, Re(g) (``x`` gives only its kind), of a batched g.

A primitive with none runs once per example (`runtime.batched.loop`): exact, slower.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import runtime
from ..core import ir
from ..primitives import declare
from ..runtime import forward_grads, ieee, tensor
from ..runtime.grads import elementwise as _elementwise, linalg as _linalg, \
    reductions as _reductions

_FORMS = {
    "elementwise": [operator.neg, operator.pos, np.negative, np.positive, abs,
                    operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
                    operator.ne, np.floor, np.ceil, np.trunc, np.rint, np.sign,
                    np.signbit, np.isnan, np.isinf, np.isfinite, np.greater,
                    np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
                    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
                    np.floor_divide, np.zeros_like, np.ones_like, np.full_like,
                    tensor.tanh_vjp, tensor.relu_vjp, ieee.where,
                    forward_grads.tanh_vjp_jvp, _elementwise.where_grad],
    "reduction": [np.sum, np.mean, np.prod, np.nansum, np.nanmean, np.max, np.amax,
                  np.min, np.amin, np.nanmax, np.nanmin, np.var, np.std, np.any, np.all],
    "matmul": [operator.matmul, np.matmul],
    "dot": [np.dot],
    "matmul_grad_a": [_linalg.matmul_grad_a],
    "matmul_grad_b": [_linalg.matmul_grad_b],
    "getitem": [operator.getitem],
    "reshape": [np.reshape],
    "transpose": [np.transpose],
    "joined": [np.concatenate, np.stack],
    "einsum": [np.einsum],
    "unbroadcast": [tensor.unbroadcast],
    "real_part": [_elementwise.real_grad],
    "sum_grad": [_reductions.broadcast_reduced],
    "mean_grad": [_reductions.mean_grad],
    "result_like": [runtime.result_like],
    "float": [builtins.float],
    "broadcast_like": [runtime.broadcast_like],
    "finalize": [runtime.finalize_grad],
    "copy": [ir.copy],
    "pack": [ir.make_tuple, ir.make_list],
}

for _form, _fns in _FORMS.items():
    for _fn in _fns:
        declare(_fn, batch=_form)
