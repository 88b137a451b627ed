"""Adjoints of the math module's gamma functions and its sum and product of a
sequence (``math.lgamma``, ``math.gamma``, ``math.fsum``, ``math.prod``).

The math module has no digamma, and its rules must not need SciPy: `digamma` here
shifts x up by the recurrence psi(x) = psi(x + 1) - 1/x until x >= 10, then sums the
asymptotic series (its error there is below 1e-16 relative); negative x go through the
reflection psi(1 - x) - pi / tan(pi x).
"""
from __future__ import annotations

import math

import numpy as np

from .. import tensor
from ..values import as_input, pieces

# B_2k / (2k) for k = 1..7: the asymptotic series' coefficients
_SERIES = (1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12)


def _each(f, x):
    """``f`` of each element of the array ``x`` (a batch of floats, under vmap)."""
    return np.array([f(v) for v in np.ravel(x)], dtype=float).reshape(np.shape(x))


def digamma(x):
    """psi(x) = d/dx log|Gamma(x)| for a Python float (nan at the poles); elementwise
    on an array."""
    if np.ndim(x):
        return _each(digamma, x)
    x = float(x)
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    if x < 0.0:
        return digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < 10.0:
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series, power = 0.0, inv2
    for c in _SERIES:
        series += c * power
        power *= inv2
    return shift + math.log(x) - 0.5 / x - series


# B_2k for k = 1..7: the trigamma asymptotic series' coefficients (of 1 / x^(2k+1))
_TRI_SERIES = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6)


def trigamma(x):
    """psi'(x), digamma's derivative, for a Python float (nan at the poles): shifted
    up by psi'(x) = psi'(x + 1) + 1/x^2 until x >= 10, then the asymptotic series;
    negative x through the reflection pi^2 / sin^2(pi x) - psi'(1 - x). Elementwise
    on an array."""
    if np.ndim(x):
        return _each(trigamma, x)
    x = float(x)
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    if x < 0.0:
        return (math.pi / math.sin(math.pi * x)) ** 2 - trigamma(1.0 - x)
    shift = 0.0
    while x < 10.0:
        shift += 1.0 / (x * x)
        x += 1.0
    inv2 = 1.0 / (x * x)
    series, power = 0.0, inv2 / x
    for c in _TRI_SERIES:
        series += c * power
        power *= inv2
    return shift + 1.0 / x + 0.5 * inv2 + series


def fsum_grad(g, iterable):
    """The adjoint of ``math.fsum(iterable)``: ``g`` for every item."""
    if isinstance(iterable, np.ndarray):
        return np.full(iterable.shape, float(g))
    return pieces([as_input(g, item) for item in iterable])


def fsum_grad_back(gbar):
    """The transpose of `fsum_grad` (g to one g per item): the sum of the items of
    ``gbar`` (reverse over reverse)."""
    return float(math.fsum(float(v) for v in np.ravel(np.asarray(gbar, dtype=object))))


def _items(iterable):
    return list(iterable)


def _prefix_suffix(items, start):
    """For each k, start times the product of the items before it, and the product
    of those after it (exclusive prefix and suffix products: exact when an item is
    zero); and the product of all the items (without start)."""
    n = len(items)
    before, acc = [], start
    for item in items:
        before.append(acc)
        acc = acc * item
    after, acc = [None] * n, 1
    for k in range(n - 1, -1, -1):
        after[k] = acc
        acc = acc * items[k]
    return before, after, acc


def _shaped(grads, iterable, items):
    if isinstance(iterable, np.ndarray):
        return np.array(grads, dtype=float)
    return pieces([as_input(tensor.unbroadcast(v, items[k]), items[k])
                   for k, v in enumerate(grads)])


def prod_items_grad(g, iterable, start=1):
    """The adjoint of the items of ``math.prod(iterable, start=start)``: each item's
    is ``g`` times start times the product of every other item."""
    items = _items(iterable)
    before, after, _ = _prefix_suffix(items, start)
    return _shaped([g * before[k] * after[k] for k in range(len(items))], iterable, items)


def prod_start_grad(g, iterable, start=1):
    """The adjoint of ``start`` in ``math.prod(iterable, start=start)``: ``g`` times
    the items' product."""
    _, _, acc = _prefix_suffix(_items(iterable), 1)
    return as_input(tensor.unbroadcast(g * acc, start), start)


def _tangents(t, n):
    """The items' tangents as a list (a zero where an item has none)."""
    if t is None:
        return [0.0] * n
    out = list(t)
    return [0.0 if v is None else v for v in out]


def prod_items_grad_dx(g, t, iterable, start=1):
    """The tangent of `prod_items_grad` along the items' tangents ``t``: item k's is
    g start sum_{m != k} t_m prod_{j != k, m} x_j (the product's second derivatives,
    exact with zeros)."""
    items = _items(iterable)
    n = len(items)
    ts = _tangents(t, n)
    out = []
    for k in range(n):
        rest = items[:k] + items[k + 1:]
        rest_t = ts[:k] + ts[k + 1:]
        before, after, _ = _prefix_suffix(rest, start)
        acc = 0.0
        for m in range(n - 1):
            acc = acc + rest_t[m] * before[m] * after[m]
        out.append(g * acc)
    return _shaped(out, iterable, items)


def prod_start_grad_dx(g, t, iterable, start=1):
    """g times the sum over k of t_k times start times the product of every item but
    the k-th: the tangent of `prod_start_grad` along the items' tangents ``t`` (with
    start 1), and the transpose of `prod_items_grad` in g (``t`` its cotangent)."""
    items = _items(iterable)
    ts = _tangents(t, len(items))
    before, after, _ = _prefix_suffix(items, start)
    acc = 0.0
    for k in range(len(items)):
        acc = acc + ts[k] * before[k] * after[k]
    return as_input(tensor.unbroadcast(g * acc, start), start)
