"""The values adjoints are made of, and the forms they take.

An array's adjoint is an array of its shape in a float (or complex) dtype, a number's
is a number, a list's or a tuple's is one adjoint per item (`pieces`, an object
array, so adding two adds item by item), and a dict's is one adjoint per key
(`DictGrad`). The helpers of every family (revsrc/runtime/grads/), the list and dict
operations (revsrc/runtime/containers.py) and the run time's own functions build
their results with these, so the forms agree wherever adjoints meet and are added.
"""
from __future__ import annotations

import numbers

import numpy as np


def float_dtype(x, g=None):
    """The dtype of a gradient for ``x``: its own when it is a float array."""
    dt = getattr(x, "dtype", None)
    if dt is not None and dt.kind in "fc":
        return dt
    gdt = getattr(g, "dtype", None)
    if gdt is not None and gdt.kind in "fc":
        return gdt
    return np.dtype(np.float64)


def is_complex(x):
    """Whether ``x`` holds complex values (a list: any of its items)."""
    dt = getattr(x, "dtype", None)
    if dt is not None:
        return dt.kind == "c"
    if isinstance(x, (list, tuple)):
        return any(is_complex(i) for i in x)
    return isinstance(x, complex)


def as_input(grad, x):
    """``grad`` in the form of ``x``: a Python float for a Python number, else an array;
    its real part when ``x`` is real (a real input's adjoint is real: the convention
    of JAX and autograd, see ``revsrc.rules``)."""
    if getattr(grad, "dtype", None) is not None and grad.dtype.kind == "c" \
            and not is_complex(x):
        grad = np.real(grad)
    if isinstance(x, numbers.Number) and not isinstance(x, np.generic):
        return grad[()] if isinstance(grad, np.ndarray) and grad.ndim == 0 else grad
    return grad


def as_adjoint(grad, x):
    """``grad`` as the adjoint of ``x``: `as_input`, in ``x``'s own float or complex
    dtype when it has one (helpers that compute in float64 give float32 back)."""
    grad = as_input(grad, x)
    dt = getattr(x, "dtype", None)
    if dt is not None and dt.kind in "fc" and isinstance(grad, np.ndarray) \
            and grad.dtype != dt:
        grad = grad.astype(dt)
    return grad


def is_number(g):
    """A Python float or int, or a 0-d float64/NumPy float scalar: spread as one value."""
    t = type(g)
    return t is float or t is int or t is np.float64 or \
        (t is np.ndarray and g.ndim == 0 and g.dtype.kind == "f")


def as_array(g, *like):
    """``g`` as an array; a Python number takes the float dtype of ``like`` (NumPy would
    make it float64, which would silently upcast a float32 adjoint)."""
    if isinstance(g, np.ndarray):
        return g
    if isinstance(g, numbers.Number) and not isinstance(g, np.generic):
        dtypes = [float_dtype(x) for x in like]
        return np.asarray(g, dtype=np.result_type(*dtypes) if dtypes else None)
    return np.asarray(g)


def pieces(items):
    """A 1-D object array of ``items``: indexable like the list, and adding two of them
    adds item by item (a list would concatenate)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def per_item(grad, x):
    """``grad`` for a list or tuple ``x`` as one adjoint per item (nested), so it adds
    to the adjoints other rules give the same list; unchanged for an array ``x``."""
    if isinstance(x, (list, tuple)):
        return pieces([per_item(grad[i], item) for i, item in enumerate(x)])
    if getattr(grad, "dtype", None) is not None and grad.dtype.kind == "c" \
            and not is_complex(x):
        return np.real(grad)   # a real item of a complex array
    return grad


def exact_dtype(dtype):
    """Whether ``dtype`` (as x.astype and np.array take it) is an integer, unsigned or
    bool type: a value converted to it is truncated, so it carries no derivative.
    False for None and for what is not a dtype (np.copy's ``order``)."""
    if dtype is None:
        return False
    try:
        return np.dtype(dtype).kind in "biu"
    except TypeError:
        return False


def zero_like(item):
    """A zero adjoint for ``item``: float zeros of its shape for an array, one zero per
    item for a list or a tuple (`pieces`), 0.0 for a number."""
    if isinstance(item, np.ndarray):
        return np.zeros(item.shape, dtype=float_dtype(item))
    if isinstance(item, (list, tuple)):
        return pieces([zero_like(i) for i in item])
    if isinstance(item, dict):
        return DictGrad({k: zero_like(v) for k, v in item.items()})
    return 0.0


class DictGrad(dict):
    """The adjoint of a dict: an adjoint per key. Adding two adds key by key (a key
    one lacks counts as zero); adding a number zero leaves it."""

    def __add__(self, other):
        if isinstance(other, dict):
            out = DictGrad(self)
            for k, v in other.items():
                out[k] = out[k] + v if k in out else v
            return out
        if np.ndim(other) == 0 and other == 0:
            return self
        return NotImplemented

    __radd__ = __add__


def dict_grad_of(x, index, g):
    """The adjoint of ``x[index]`` for a dict ``x``: ``g`` at ``index``, a zero like each
    other value."""
    out = DictGrad({k: zero_like(v) for k, v in x.items()})
    out[index] = out[index] + g
    return out


def spread_product(g, a, b):
    """``g`` as an array; a number standing for the whole product ``a @ b`` (a zero
    adjoint not yet broadcast, as a loop's first turn in reverse starts it) spread
    over the product's shape."""
    g = as_array(g, a, b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if g.ndim or (len(a_shape) <= 1 and len(b_shape) <= 1):
        return g
    if len(a_shape) == 1:
        shape = b_shape[:-2] + b_shape[-1:]
    elif len(b_shape) == 1:
        shape = a_shape[:-1]
    else:
        shape = np.broadcast_shapes(a_shape[:-2], b_shape[:-2]) + (a_shape[-2], b_shape[-1])
    return np.broadcast_to(g, shape)
