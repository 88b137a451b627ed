"""The Jacobians, the Hessian and Hessian-vector products, and their derivatives.

`jacfwd` is one `jvp` per input dimension, `jacrev` one vector-Jacobian product per
output element, `hessian` forward mode over the gradient program; where the programs
batch (revsrc/columns.py), every direction or output element runs in one call. Derivatives are
ordinary functions, so these apply to them too (`_second`, and revsrc/nested.py for a
call of one inside a function revsrc transforms).
"""
from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from .. import api, columns, errors, nested
from ..core import pytree
from ..frontend import arguments
from ..api import Argnums
from .forward import (_backward, _device, _forward, _forward_text, _grad, _host, _memo,
                      _value, jvp, linearize, vjp)

# ----- Jacobians and Hessians -----

def _nums(argnums):
    return (tuple(argnums), True) if isinstance(argnums, (tuple, list)) else ((argnums,), False)


def _basis(x):
    """The unit vectors of the space of ``x`` (a float, or an array), in C order."""
    if isinstance(x, np.ndarray):
        for k in range(x.size):
            e = np.zeros(x.size, dtype=x.dtype)
            e[k] = 1
            yield e.reshape(x.shape)
    else:
        yield 1.0


def _assemble(columns, out_shape, x):
    """Stack per-direction results into an array of shape out_shape + shape(x)."""
    cols = [np.asarray(c, dtype=np.result_type(c, np.float64) if np.ndim(c) == 0 else None)
            for c in columns]
    if not isinstance(x, np.ndarray):
        return cols[0] if out_shape else float(cols[0])
    if not cols:          # an empty argument: no direction, an empty Jacobian
        dtype = x.dtype if x.dtype.kind in "fc" else np.float64
        return np.zeros(tuple(out_shape) + x.shape, dtype=dtype)
    stacked = np.stack(cols, axis=-1)
    return stacked.reshape(tuple(out_shape) + x.shape)


def _stacked(t, out_shape, x):
    """`_assemble` of columns given as one array ``t`` (the direction first, the
    batched columns of a plain output): the direction axis moved last in one copy."""
    moved = t.transpose(tuple(range(1, t.ndim)) + (0,))   # np.moveaxis, without its checks
    return moved.copy().reshape(tuple(out_shape) + x.shape)


def _zero_leaf(o):
    """A zero cotangent for the output leaf ``o``."""
    return np.zeros(np.shape(o)) if np.ndim(o) else 0.0


def _flat(x):
    """``pytree.tree_flatten(x)``, at once for an array (a Jacobian's usual argument and
    output: the walk was a tenth of a small Jacobian's time)."""
    return ([x], _LEAF) if type(x) is np.ndarray else pytree.tree_flatten(x)


_LEAF = pytree.tree_flatten(0.0)[1]


def _by_output(out, per_leaf_of_output):
    """Jacobians in JAX's nesting: the output's container outside, one block per output
    leaf (each in the form of the arguments) inside; a plain output gives its block."""
    leaves, td = _flat(out)
    blocks = [per_leaf_of_output(m, o) for m, o in enumerate(leaves)]
    return blocks[0] if td.kind == pytree.LEAF else pytree.tree_unflatten(td, blocks)


def jacfwd(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
           backend: Optional[str] = None, holomorphic: bool = False) -> Callable[..., Any]:
    """The Jacobian of ``f`` with respect to argument(s) ``argnums``, by forward mode:
    one `jvp` per input dimension. Shape: output's shape + argument's shape (for a
    container argument or output, containers of those, nested as JAX nests them).

    >>> import numpy as np, revsrc
    >>> revsrc.jacfwd(lambda x: x * x)(np.array([1.0, 3.0]))
    array([[2., 0.],
           [0., 6.]])

    ``holomorphic=True`` (complex arguments, as JAX requires them): the complex
    Jacobian, which forward mode gives of any function of complex arrays.
    """
    nums, many = _nums(argnums)
    if _composed(f) is not None:
        return _second(f, nums, many, has_aux, backend)

    def jacobian_fwd(*args, **kwargs):
        args, fw = arguments.positional(f, args, kwargs), _forward(f, has_aux, backend)
        if holomorphic:
            _complex_arguments(args, nums, "jacfwd")
        if not many and not has_aux:
            jac = _at_once(fw, args, nums[0])
            if jac is not None:
                return jac
        cols = {}      # (argument, its leaf) -> one output tangent per basis direction
        out = aux = None
        for a in nums:
            leaves, td = _flat(args[a])
            for j, x in enumerate(leaves):

                def tangents_for(e, a=a, j=j, td=td, n=len(leaves)):
                    tangents = [None] * len(args)
                    tangents[a] = e if td.kind == pytree.LEAF else pytree.tree_unflatten(
                        td, [e if k == j else None for k in range(n)])
                    return tangents
                # every direction through one batched program (revsrc/columns.py)
                out, aux, cols[a, j] = columns.columns(fw, args, a, j, td, leaves, _host(x),
                                                       has_aux, _basis, tangents_for)
        if out is None:   # an empty array: the output's shape from a plain call
            out = _value(f, args)[0] if has_aux else _value(f, args)

        def block(m, o):
            jacs = []
            for a in nums:
                leaves, td = _flat(args[a])
                per_leaf = [_stacked(cols[a, j], np.shape(_host(o)), _host(x))
                            if isinstance(cols[a, j], np.ndarray) else
                            _assemble([_host(_output_leaf(t, out, m)) for t in cols[a, j]],
                                      np.shape(_host(o)), _host(x))
                            for j, x in enumerate(leaves)]
                jacs.append(per_leaf[0] if td.kind == pytree.LEAF else
                            pytree.tree_unflatten(td, per_leaf))
            return tuple(jacs) if many else jacs[0]
        jac = _device(_by_output(out, block), backend)
        return (jac, aux) if has_aux else jac
    jacobian_fwd.__name__ = f"jacfwd_{getattr(f, '__name__', 'f')}"
    return _mark(jacobian_fwd, f, nums, many, has_aux, backend)


def _at_once(fw, args, a):
    """The usual forward-mode Jacobian (a float64 array argument and output, the
    arguments float arrays by position) from the batched program's columns, without
    the walk over containers that `jacfwd` makes for the others; else None."""
    found = columns.at_once(fw, args, a)
    if found is None:
        return None
    out, t = found
    return _stacked(t, np.shape(out), args[a])


def _output_leaf(t, out, m):
    """Leaf ``m`` of the tangent ``t`` of the output ``out`` (0 for one it lacks)."""
    if not pytree.is_container(out):
        return t
    leaves, want = pytree.tree_leaves(t), pytree.tree_leaves(out)
    return leaves[m] if len(leaves) == len(want) else _zero_leaf(want[m])


def jacrev(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
           backend: Optional[str] = None, holomorphic: bool = False) -> Callable[..., Any]:
    """The Jacobian of ``f`` with respect to argument(s) ``argnums``, by reverse mode:
    one vector-Jacobian product per output element (an output array's all in one run
    of the adjoint batched over its cotangent, where it batches). Shape: output's
    shape + argument's shape (for a container argument or output, containers of
    those, nested as JAX nests them).

    >>> import numpy as np, revsrc
    >>> revsrc.jacrev(lambda x: np.sin(x) * 2.0)(np.array([0.0, 0.0]))
    array([[2., 0.],
           [0., 2.]])

    ``holomorphic=True`` (complex arguments): the complex Jacobian f'(z) of a
    holomorphic ``f``, as JAX's; for such a function it is forward mode's, which gives
    it (`jacfwd`).
    """
    nums, many = _nums(argnums)
    if _composed(f) is not None:
        return _second(f, nums, many, has_aux, backend)
    if holomorphic:
        fwd = jacfwd(f, argnums, has_aux, backend, holomorphic=True)

        def jacobian_holomorphic(*args, **kwargs):
            return fwd(*args, **kwargs)
        jacobian_holomorphic.__name__ = f"jacrev_{getattr(f, '__name__', 'f')}"
        return jacobian_holomorphic

    def jacobian_rev(*args, **kwargs):
        args, tr = arguments.positional(f, args, kwargs), _backward(f, nums, has_aux, backend)
        fp = None if has_aux else _fingerprint(args)
        if fp is not None:
            found = _rows_as_before(tr, args, nums, many, fp)
            if found is not None:
                return found
        out = _value(f, args)
        aux = None
        if has_aux:
            out, aux = out
        out_leaves, out_td = _flat(out)
        if any(map(np.iscomplexobj, out_leaves)):   # as JAX's (jacfwd: a complex Jacobian)
            raise errors.NonScalarOutput(
                f"{getattr(f, '__name__', 'the function')} returned complex numbers; jacrev "
                "requires real-valued outputs", hint="use revsrc.jacfwd for the complex "
                "Jacobian, or take np.real or np.abs of the output")
        out_leaves = [_host(o) for o in out_leaves]

        def block(m, o):
            o = np.asarray(o, dtype=float) if np.ndim(o) else float(o)

            def cotangent(e):
                return e if out_td.kind == pytree.LEAF else pytree.tree_unflatten(
                    out_td, [e if k == m else _zero_leaf(ol) for k, ol in enumerate(out_leaves)])
            # every row through one adjoint batched over the cotangent (revsrc/columns.py)
            size = int(np.size(o))
            stacked = columns.rows(
                tr, args, cotangent(np.zeros(np.shape(o))),
                lambda lo, hi: cotangent(_unit_rows(lo, hi, size).reshape(
                    (hi - lo,) + np.shape(o))), columns.cotangent_mask(out_td, m), size)
            if stacked is None:
                stacked = _row_by_row(tr, args, nums, has_aux, _basis(o), cotangent)
            return _rev_blocks(args, nums, many, stacked, o)
        jac = _device(_by_output(out, lambda m, o: block(m, out_leaves[m])), backend)
        if fp is not None and type(out) is np.ndarray and out.dtype.kind == "f":
            tr.__dict__.setdefault(_SHAPES, {})[fp] = out.shape
        return (jac, aux) if has_aux else jac
    jacobian_rev.__name__ = f"jacrev_{getattr(f, '__name__', 'f')}"
    return _mark(jacobian_rev, f, nums, many, has_aux, backend)


_SHAPES = "_revsrc_output_shapes"   # on a vjp transformation: its output's, by arguments'


def _fingerprint(args):
    """The shapes and dtypes of float-array arguments (None for anything else)."""
    if all(type(a) is np.ndarray and a.dtype.kind == "f" for a in args):
        return tuple((a.shape, a.dtype) for a in args)
    return None


def _rows_as_before(tr, args, nums, many, fp):
    """The Jacobian of an output that was a float array of some shape for arguments of
    these shapes, from the batched adjoint without a call of the function first for
    that shape (a twelfth of a small jacrev): the program's value must have it, else
    None (then the ordinary way: the shape can depend on values)."""
    shape = tr.__dict__.get(_SHAPES, {}).get(fp)
    if shape is None or tr.backend == "jax":
        return None
    size, value = math.prod(shape), []
    stacked = columns.rows(tr, args, np.zeros(shape), lambda lo, hi: _unit_rows(
        lo, hi, size).reshape((hi - lo,) + shape), True, size, value)
    if stacked is None or not value:
        return None
    v = value[0]
    if type(v) is not np.ndarray or v.shape != shape or v.dtype.kind != "f":
        return None
    return _rev_blocks(args, nums, many, stacked, v)


_UNITS = {}      # (lo, hi, size) -> those rows, read-only (a few, of small outputs)


def _unit_rows(lo, hi, size):
    """Rows lo..hi of the identity of order ``size``: made once for a small output and
    kept read-only (a program that wrote into its cotangent would raise, and its rows
    then run one by one)."""
    if size > 1024:
        return np.eye(hi - lo, size, k=lo)
    found = _UNITS.get((lo, hi, size))
    if found is None:
        if len(_UNITS) > 64:
            _UNITS.clear()
        found = _UNITS[lo, hi, size] = np.eye(hi - lo, size, k=lo)
        found.flags.writeable = False
    return found


def _row_by_row(tr, args, nums, has_aux, basis, cotangent):
    """One vector-Jacobian product per output element: per argument in ``nums``, per
    leaf, the rows stacked."""
    rows = [[] for _ in nums]
    for e in basis:
        grads = tr(*args, cotangent(e))
        if has_aux:
            grads = grads[0]
        for k, g in enumerate(grads):
            rows[k].append(pytree.tree_leaves(g))
    if not rows or not rows[0]:    # an empty output: no rows, each of its argument's shape
        return [[np.zeros((0,) + np.shape(x), dtype=x.dtype if isinstance(x, np.ndarray) and
                          x.dtype.kind in "fc" else np.float64)
                 for x in map(_host, pytree.tree_leaves(args[a]))] for a in nums]
    return [[np.stack([np.asarray(_host(row[j])) for row in r], axis=0)
             for j in range(len(r[0]))] for r in rows]


def _rev_blocks(args, nums, many, stacked, out):
    """One output leaf's Jacobian from its rows stacked (per argument in ``nums``, per
    leaf), in the form of the arguments."""
    if not many and type(args[nums[0]]) is np.ndarray and type(out) is np.ndarray:
        x = args[nums[0]]       # the usual: one array argument, an array out
        return stacked[0][0].reshape(out.shape + x.shape)
    jacs = []
    for a, per_arg in zip(nums, stacked):
        leaves, td = _flat(args[a])
        per_leaf = []
        for x, rows in zip(leaves, per_arg):
            block = rows.reshape(np.shape(out) + np.shape(_host(x)))
            per_leaf.append(block if (np.shape(out) or isinstance(_host(x), np.ndarray))
                            else float(block))
        jacs.append(per_leaf[0] if td.kind == pytree.LEAF else
                    pytree.tree_unflatten(td, per_leaf))
    return tuple(jacs) if many else jacs[0]


jacobian = jacrev


def hessian(f: Callable[..., Any], argnums: Argnums = 0,
            backend: Optional[str] = None,
            memory: Optional[Union[int, str]] = None,
            holomorphic: bool = False) -> Callable[..., Any]:
    """The Hessian of a scalar ``f``: forward mode over its gradient program (one
    `jvp` of ``revsrc.grad(f)`` per input dimension). Shape: argument's shape twice.
    ``memory``: as for `revsrc.grad` (the gradient program's long loops).

    >>> import numpy as np, revsrc
    >>> revsrc.hessian(lambda x: np.sum(x ** 3))(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])

    ``holomorphic=True``: the complex second derivative of a holomorphic ``f`` of
    complex arguments (the gradient taken with ``holomorphic=True``).
    """
    nums, many = _nums(argnums)
    if _composed(f) is not None:
        if api.unjitted(f) is f:
            raise _not_again(f)
        f = api.unjitted(f)   # a function calling it (revsrc/nested.py)
    if holomorphic:
        grad_z = _grad(f, argnums, backend, memory, True)

        def hessian_holomorphic(*args, **kwargs):
            given = arguments.positional(f, args, kwargs)
            _complex_arguments(given, nums, "hessian")
            if not many and isinstance(given[nums[0]], (complex, np.complexfloating)):
                # a complex number (forward mode takes float scalars): f'' as the
                # holomorphic derivative of f'
                return _grad(grad_z, argnums, backend, memory, True)(*args, **kwargs)
            return jacfwd(grad_z, argnums, backend=backend)(*args, **kwargs)
        hessian_holomorphic.__name__ = f"hessian_{getattr(f, '__name__', 'f')}"
        return hessian_holomorphic
    if not many:
        h = jacfwd(_grad(f, argnums, backend, memory), argnums, backend=backend)
        h.__name__ = h.__qualname__ = f"hessian_{getattr(f, '__name__', 'f')}"
        return h

    def hessian_blocks(*args, **kwargs):
        # entry i: the Jacobian in all the arguments of the gradient in argument i, laid
        # out as jacfwd lays it out (as JAX does): a tuple over them at each leaf of that
        # gradient (block (i, j) for array arguments)
        return tuple(jacfwd(_grad(f, i, backend, memory), nums, backend=backend)(*args, **kwargs)
                     for i in nums)
    hessian_blocks.__name__ = f"hessian_{getattr(f, '__name__', 'f')}"
    return _mark(hessian_blocks, None, nums, many, False, backend)


# ----- Derivatives of the functions above -----
# A Jacobian made here is a Python loop over programs, not a function revsrc reads:
# its own Jacobian is taken from the function it differentiates, one Hessian per
# output element (forward over reverse, as `hessian`).

def _mark(fn, f, nums, many, has_aux, backend):
    """``fn`` (a Jacobian or Hessian made here) marked as such: ``jit`` returns it as
    it is, ``vmap`` maps it element by element, and a Jacobian of it differentiates
    ``f`` twice (`_second`)."""
    fn._revsrc_composed = (f, nums, many, has_aux, backend)
    if f is not None:
        fn._revsrc_source = lambda *args: _forward_text(_forward(f, has_aux, backend),
                                                        args, nums)
    fn._revsrc_lower_call = functools.partial(nested.lower_jacobian, _grad, fn)
    if f is not None:
        fn._revsrc_as_function = functools.partial(nested.caller, fn, f)
    fn.__qualname__ = fn.__name__     # refusals name it so, not by compose's locals
    return fn


def _complex_arguments(args, nums, name):
    """A TypeError-like refusal (E301, as JAX's TypeError) of a real argument given to
    a Jacobian taken with ``holomorphic=True``."""
    for a in nums:
        for leaf in _flat(args[a])[0]:
            if not np.iscomplexobj(_host(leaf)):
                raise errors.NotDifferentiableArgument(
                    f"{name} with holomorphic=True takes complex arguments; argument {a} "
                    f"has a leaf of dtype {np.result_type(_host(leaf))}",
                    hint="pass complex values (x + 0j), or leave holomorphic=False")


def _composed(f):
    found = getattr(f, "_revsrc_composed", None)
    return found if isinstance(found, tuple) else None


def _not_again(f):
    return errors.HigherOrderNotSupported(
        f"{getattr(f, '__name__', 'this function')} is a derivative made by revsrc; "
        "of its Jacobians, only the Jacobian in one argument of a Jacobian in one "
        "argument (without has_aux) of a function of at most four positional arguments "
        "is supported",
        hint="use revsrc.hessian for second derivatives, or differentiate the function "
             "itself")




def _second(jac, nums, many, has_aux, backend):
    """The Jacobian in argument b (``nums``) of the Jacobian ``jac`` in argument a of a
    function f: f's second derivatives, of shape f's output + a's shape + b's shape
    (the mixed partials commute, so jacfwd and jacrev of jacfwd and jacrev agree). Each
    output element's is the forward-mode Jacobian of its gradient, as in `hessian`."""
    f, inner, inner_many, inner_aux, _ = _composed(jac)
    if f is None or many or inner_many or inner_aux or has_aux or \
            getattr(f, "_revsrc_derivative", False) or _composed(f) is not None:
        # the Jacobian of a function calling ``jac``, whose IR has its program
        # (revsrc/nested.py), where that can be written
        calling = api.unjitted(jac)
        if calling is jac:
            raise _not_again(jac)
        return jacfwd(calling, nums if many else nums[0], has_aux, backend)
    (a,), (b,) = inner, nums

    def second_derivative(*args):
        if not 1 <= len(args) < len(nested.ITEMS):
            raise _not_again(jac)
        out = _value(f, args)
        if not np.ndim(out) and not isinstance(out, (list, tuple)):
            return jacfwd(_grad(f, a, backend), b, backend=backend)(*args)
        shape = np.shape(out)
        make = nested.ITEMS[len(args)]
        blocks = [jacfwd(_grad(_memo(f, ("item", len(args), k), lambda k=k: make(f, k)),
                               a, backend), b, backend=backend)(*args)
                  for k in range(int(np.prod(shape)))]
        inner_shape = np.shape(_host(args[a])) + np.shape(_host(args[b]))
        return _device(np.reshape(np.stack([np.asarray(_host(x)) for x in blocks]),
                                  shape + inner_shape), backend)
    second_derivative.__name__ = f"jacobian_{getattr(jac, '__name__', 'f')}"
    return _mark(second_derivative, None, nums, many, has_aux, backend)


def hvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        argnums: Argnums = 0, backend: Optional[str] = None) -> Any:
    """The Hessian of a scalar ``f`` at ``primals`` times ``tangents`` (one per
    argument, None for none), without forming the Hessian: forward mode over the
    gradient program, one sweep.

    >>> import numpy as np, revsrc
    >>> revsrc.hvp(lambda x: np.sum(x ** 3), (np.array([1.0, 2.0]),), (np.array([1.0, 0.0]),))
    array([6., 0.])
    """
    return jvp(_grad(f, argnums, backend), primals, tangents, backend=backend)[1]



# ----- Called inside a function revsrc transforms (revsrc/nested.py) -----

jvp._revsrc_lower_call = nested.lower_jvp
hvp._revsrc_lower_call = functools.partial(nested.lower_hvp, _grad)
# revsrc.vjp and revsrc.linearize: their value, and a call of the function they return
# (frontend/lower/calls.py writes it as nested.returned_call)
vjp._revsrc_lower_call = linearize._revsrc_lower_call = nested.lower_made
vjp._revsrc_value_call = linearize._revsrc_value_call = nested.returned_call
vjp._revsrc_returns, linearize._revsrc_returns = "vjp", "linearize"
nested.returned_call._revsrc_lower_call = functools.partial(nested.lower_returned, _grad)
# made inside a function (``H = revsrc.hessian(h)`` in its body): made while
# transforming, then called as one made at module level (frontend/lower/calls.py)
for _maker in (jacfwd, jacrev, hessian):
    _maker._revsrc_made_when_transforming = True
