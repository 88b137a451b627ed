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


def prod_grads(g, ans, iterable, start=1):
    """The adjoints of ``math.prod(iterable, start=start)``: each item's is ``g`` times
    the product of start and every other item (exclusive prefix and suffix products:
    exact when an item is zero); start's is ``g`` times the items' product."""
    items = list(iterable)
    n = len(items)
    before, acc = [], start
    for item in items:
        before.append(acc)
        acc = acc * item
    after, acc = [None] * n, 1
    for k in range(n - 1, -1, -1):
        after[k] = acc
        acc = acc * items[k]
    grads = [as_input(tensor.unbroadcast(g * before[k] * after[k], items[k]), items[k])
             for k in range(n)]
    start_bar = as_input(tensor.unbroadcast(g * acc, start), start)
    if isinstance(iterable, np.ndarray):
        return np.array(grads, dtype=float), start_bar
    return pieces(grads), start_bar
