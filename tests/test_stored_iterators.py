"""An iterator kept in a name and looped over later (``it = zip(ks, ys); for k, y in
it:``) runs as the loop over it written in place does; it crashed with "object of type
'zip' has no len()" (found in review). A count kept in a name stays refused (E101)."""
import itertools

import numpy as np
import pytest

import revsrc
from revsrc import errors


def zipped(x):
    t = 0.0
    it = zip([0, 1, 2], [1.0, 2.0, 3.0])
    for k, y in it:
        t = t + k * y * x * x
    return t


def enumerated(x):
    t = 0.0
    it = enumerate([1.0, 2.0, 4.0])
    for k, y in it:
        t = t + k * y * np.sin(x)
    return t


def reversed_horner(x):
    t = 0.0
    it = reversed([1.0, 2.0, 3.0])
    for c in it:
        t = t * x + c
    return t


def counted(x):
    t = 0.0
    it = zip(itertools.count(), [1.0, 2.0])
    for k, y in it:
        t = t + k * y * x
    return t


def mapped(x):
    t = 0.0
    it = map(float, [1, 2, 3])
    for c in it:
        t = t + c * np.sin(x)
    return t


@pytest.mark.parametrize("f", [zipped, enumerated, reversed_horner, counted])
def test_a_stored_iterator_looped_over(f):
    x, h = 0.7, 1e-6
    assert revsrc.value_and_grad(f)(x)[0] == f(x)
    assert revsrc.grad(f)(x) == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-7)


def endless(x):
    t = 0.0
    it = itertools.count()
    for k in it:
        if k >= 3:
            break
        t = t + k * x
    return t


def differentiated_items(x):
    t = 0.0
    it = enumerate([x, 2.0 * x])
    for k, y in it:
        t = t + k * y
    return t


@pytest.mark.parametrize("f,code", [(endless, "E101"), (mapped, "E101"),
                                    (differentiated_items, "E202")])
def test_what_stays_refused(f, code):
    # a count kept in a name (what bounds it is not seen), a map kept in a name (read
    # once), an enumerate of differentiated values kept in a name: coded refusals
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(f)(0.7)
    assert info.value.code == code
