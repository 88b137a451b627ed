"""revsrc.vjp's pullback and revsrc.linearize's tangent map run the program again when
called. A name the function reads that holds another value by then (a global, a closure
cell, an attribute, a function) would give the derivative of another function than the
one that produced the output: round 10 found 2 cos(0.3) computed as 5 cos(0.3) after
``SCALE = 5.0``. They refuse (E204) instead; JAX's pullback keeps the forward pass's
values, which is the right number, so the unchanged case is checked against it."""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors

SCALE = 2.0


def scaled(x):
    return SCALE * math.sin(x)


ACT = math.sin


def net(x):
    return ACT(x) * 2.0


def _set_scale(v):
    global SCALE
    SCALE = v


@pytest.fixture(autouse=True)
def _restore_scale():
    yield
    _set_scale(2.0)


@pytest.mark.parametrize("make", ["vjp", "linearize"])
def test_global_number_rebound(make):
    if make == "vjp":
        out, back = revsrc.vjp(scaled, 0.3)
        call = lambda: back(1.0)[0]      # noqa: E731
    else:
        out, back = revsrc.linearize(scaled, 0.3)
        call = lambda: back(1.0)         # noqa: E731
    assert out == scaled(0.3)
    assert call() == pytest.approx(2.0 * math.cos(0.3), rel=1e-15)
    _set_scale(5.0)
    with pytest.raises(errors.StaleSource) as info:
        call()
    assert info.value.code == "E204" and "'SCALE'" in str(info.value)
    _set_scale(2.0)                      # the same value again: computes
    assert call() == pytest.approx(2.0 * math.cos(0.3), rel=1e-15)


def test_closure_cell_rebound():
    def driver():
        rate = 0.5

        def decay(t):
            return math.exp(-rate * t)
        out, back = revsrc.vjp(decay, 2.0)
        first = back(1.0)[0]
        rate = 1.5
        return first, back
    first, back = driver()
    assert first == pytest.approx(-0.5 * math.exp(-1.0), rel=1e-15)
    with pytest.raises(errors.StaleSource):
        back(1.0)


def test_attribute_and_function_rebound():
    class Cell:
        def __init__(self, k):
            self.k = k

        def rate(self, c):
            return self.k * c * c
    cell = Cell(2.0)
    _, tangent = revsrc.linearize(cell.rate, 1.5)
    assert tangent(1.0) == pytest.approx(6.0, rel=1e-15)
    cell.k = 3.0
    with pytest.raises(errors.StaleSource) as info:
        tangent(1.0)
    assert "'k'" in str(info.value)

    global ACT
    _, back = revsrc.vjp(net, 0.4)
    assert back(1.0)[0] == pytest.approx(2.0 * math.cos(0.4), rel=1e-15)
    ACT = math.cos
    try:
        with pytest.raises(errors.StaleSource) as info:
            back(1.0)
        assert "'ACT'" in str(info.value)
    finally:
        ACT = math.sin


def test_against_jax_when_unchanged():
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        _, jback = jax.vjp(lambda x: SCALE * jax.numpy.sin(x), 0.3)
        want = float(jback(1.0)[0])
    _, back = revsrc.vjp(scaled, 0.3)
    assert back(1.0)[0] == pytest.approx(want, rel=1e-15)


def test_arrays_the_function_reads():
    weights = np.array([1.0, 2.0])

    def weighted(x):
        return np.sum(weights * x)
    _, back = revsrc.vjp(weighted, np.array([1.0, 1.0]))
    np.testing.assert_array_equal(back(1.0)[0], weights)


@pytest.mark.parametrize("make", ["vjp", "linearize"])
def test_item_of_a_dict_argument_changed(make):
    def f(p):
        return p["w"] ** 3 * math.sin(p["b"])
    p = {"w": 1.0, "b": 0.5}
    if make == "vjp":
        _, back = revsrc.vjp(f, p)
        call = lambda: back(1.0)[0]["w"]                     # noqa: E731
    else:
        _, back = revsrc.linearize(f, p)
        call = lambda: back({"w": 1.0, "b": 0.0})            # noqa: E731
    assert call() == pytest.approx(3.0 * math.sin(0.5), rel=1e-15)
    p["w"] = 5.0
    with pytest.raises(errors.StaleSource) as info:
        call()
    assert info.value.code == "E204"
    p["w"] = 1.0
    assert call() == pytest.approx(3.0 * math.sin(0.5), rel=1e-15)
