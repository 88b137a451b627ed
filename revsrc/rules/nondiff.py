"""NumPy functions whose outputs carry no gradient: indices, tests, counts, shapes,
rounding (piecewise constant), and arrays built from shapes alone.

Functions whose outputs do depend smoothly on a float input are deliberately absent
(np.bincount and np.histogram with ``weights``, np.heaviside's second argument,
np.random.*, which is a side effect): a call to one with a differentiated argument
is refused rather than given a zero gradient.
"""
import numpy as np

from ..core import kinds as K
from . import kind_rules as KR
from .register import no_derivative

no_derivative(
    # indices and order
    np.argmax, np.argmin, np.nonzero, np.flatnonzero, np.argwhere,
    np.searchsorted, np.digitize, np.unravel_index, np.ravel_multi_index,
    # rounding: piecewise constant (np.sign is too on real numbers: rules/elementwise.py)
    np.floor, np.ceil, np.trunc, np.rint, np.round, np.around, np.fix,
    np.floor_divide, np.signbit,
    # tests and comparisons
    np.isnan, np.isinf, np.isfinite, np.isclose, np.allclose, np.array_equal,
    np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor, np.any, np.all,
    np.count_nonzero, np.iscomplexobj, np.isrealobj,
    # integer and bitwise operations
    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift,
    np.right_shift, np.gcd, np.lcm,
    # shapes and types
    np.shape, np.ndim, np.size, np.result_type, np.broadcast_shapes,
)

# Arrays built from shapes alone (always arrays, whatever the arguments).
# np.argsort's kind= is jnp's stable= (revsrc/backends/jax/argument_twins.py)
no_derivative(np.argsort, jax="_jaxgen.argsort")
no_derivative(np.zeros, np.ones, np.empty, kind=KR.array_of_shape)
no_derivative(np.zeros_like, np.ones_like, np.empty_like, kind=KR.array_like_first)
no_derivative(np.eye, np.identity, np.tri, kind=KR.constant((K.ARRAY, 2)))
no_derivative(np.arange, kind=KR.constant((K.ARRAY, 1)))
no_derivative(np.indices, kind=KR.constant(K.ARRAY))
