"""``for`` loops with a data-dependent ``break`` or a step other than 1, checkpointed
under a memory bound with the online scheme (revsrc/passes/reverse/checkpoint/
online.py): the trip count is known only once the loop has run. The gradient is the
stored one bit for bit, on the Python path and the engine, over trip counts around
the unit length and the snapshot count, with the break at many points."""
import math
import re

import numpy as np
import pytest

import revsrc
from revsrc.testing import compare_grads

BACKENDS = ["python", "engine"]
PRIMES = (7, 13, 31, 101, 997)


def breaks_at(x, n, lim):
    s = x
    for i in range(n):
        s = math.sin(s) * 1.1 + 0.001 * i
        if i >= lim:
            break
        s = s * 0.99 + 0.01
    return s * x


def data_break(x, n):
    # the break depends on the values, not on the index
    s = x
    for i in range(n):
        s = s * 1.001 + math.sin(s) * 0.01
        if s > 2.0:
            break
    return s


def stepped(x, a, b, c):
    s = x
    for i in range(a, b, c):
        s = math.sin(s + 0.001 * i) * 1.05
    return s


def down_by_three(x, n):
    s = x
    for i in range(n, 0, -3):
        s = s * math.cos(0.001 * i) + 0.01
        if s > 5.0:
            break
    return s


def last_index(x, n, lim):
    # the loop variable after the loop is the one its last iteration had
    s = x
    i = 0
    for i in range(1, n, 2):
        s = math.sin(s) * 1.2 + 0.001 * i
        if s < lim:
            break
    return s * i


def array_break(y, n, lim):
    for i in range(n):
        y = np.sin(y) * 0.9 + 0.01 * i
        if np.sum(y) < lim:
            break
    return np.sum(y * y)


def inner_break(x, n):
    s = x
    for i in range(0, n, 2):
        for j in range(3):
            s = math.sin(s) + 0.1
            if s > 0.95:
                break
        s = s * 1.01
        if s > 3.0:
            break
    return s


def units_and_snapshots(df):
    m = re.search(r"units of (\d+) iterations, (\d+) snapshots", revsrc.source(df))
    return int(m.group(1)), int(m.group(2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_break_at_every_kind_of_point(backend):
    stored = revsrc.value_and_grad(breaks_at, backend=backend, memory=math.inf)
    ck = revsrc.value_and_grad(breaks_at, backend=backend, memory=200)
    ck(0.3, 3, 1)
    src = revsrc.source(ck)
    assert "online checkpointing" in src
    K, c = units_and_snapshots(ck)
    trips = {0, 1, 2, K - 1, K, K + 1, 2 * K, (c - 1) * K, c * K, c * K + 1, 5000,
             *PRIMES}
    for n in sorted(trips):
        for lim in sorted({-1, 0, 1, K - 1, K, K + 1, n // 2, n - 1, n, n + 3}):
            assert stored(0.3, n, lim) == ck(0.3, n, lim), (K, c, n, lim)


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_dependent_break(backend):
    stored = revsrc.grad(data_break, backend=backend, memory=math.inf)
    ck = revsrc.grad(data_break, backend=backend, memory=100)
    for x in (0.3, 1.5, 1.99, 2.5, -3.0):
        for n in (0, 1, 2, 3, 50, 997, 20011):
            assert stored(x, n) == ck(x, n), (x, n)
    compare_grads(lambda x: data_break(x, 500), lambda x: ck(x, 500), (0.3,))


@pytest.mark.parametrize("backend", BACKENDS)
def test_steps(backend):
    stored = revsrc.grad(stepped, backend=backend, memory=math.inf)
    ck = revsrc.grad(stepped, backend=backend, memory=100)
    for a, b, c in [(0, 10, 1), (0, 10, 2), (0, 1000, 3), (5, 2003, 7), (2000, 5, -7),
                    (0, -5, 1), (3, 3000, 1), (10, 0, -1), (7, 8, 5), (0, 40000, 13),
                    (-50, 50, 2), (50, -50, -2)]:
        assert stored(0.3, a, b, c) == ck(0.3, a, b, c), (a, b, c)
    assert "online checkpointing" in revsrc.source(ck, 0.3, 0, 9, 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_negative_step_with_break(backend):
    stored = revsrc.grad(down_by_three, backend=backend, memory=math.inf)
    ck = revsrc.grad(down_by_three, backend=backend, memory=100)
    for n in (0, 1, 2, 3, 4, 5, 6, 100, 3001, 9001):
        for x in (0.3, 4.0, 6.0):
            assert stored(x, n) == ck(x, n), (n, x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_loop_variable_after_the_loop(backend):
    stored = revsrc.value_and_grad(last_index, backend=backend, memory=math.inf)
    ck = revsrc.value_and_grad(last_index, backend=backend, memory=100)
    for n in (0, 1, 2, 3, 40, 401, 4001):
        for lim in (-2.0, 0.5, 0.9):
            assert stored(0.7, n, lim) == ck(0.7, n, lim), (n, lim)


@pytest.mark.parametrize("backend", BACKENDS)
def test_break_in_an_inner_loop_and_a_step(backend):
    stored = revsrc.grad(inner_break, backend=backend, memory=math.inf)
    ck = revsrc.grad(inner_break, backend=backend, memory=100)
    for n in (0, 1, 2, 3, 5, 29, 200, 1009, 6007):
        for x in (0.1, 0.3, 2.9):
            assert stored(x, n) == ck(x, n), (n, x)
    assert "online checkpointing" in revsrc.source(ck)


def test_array_state_with_a_break():
    y0 = np.linspace(0.1, 0.6, 6)
    stored = revsrc.grad(array_break, memory=math.inf)
    ck = revsrc.grad(array_break, memory=3000)
    for n in (0, 1, 2, 7, 50, 301):
        for lim in (-10.0, 0.5, 2.0, 2.9):
            assert np.array_equal(stored(y0, n, lim), ck(y0, n, lim)), (n, lim)
    assert "online checkpointing" in revsrc.source(ck)


def test_zero_step_and_float_bounds_refused_as_python_does():
    for mem in (100, math.inf):
        for backend in BACKENDS:
            ck = revsrc.grad(stepped, backend=backend, memory=mem)
            with pytest.raises(ValueError, match="must not be zero"):
                ck(0.3, 0, 5000, 0)
            with pytest.raises(TypeError, match="integer"):
                ck(0.3, 0, 5000.5, 1)


@pytest.mark.parametrize("f, args", [(breaks_at, (0.3, 300, 200)), (data_break, (0.3, 400)),
                                     (stepped, (0.3, 0, 900, 3)),
                                     (down_by_three, (0.3, 700))])
def test_hessian_through_the_online_for(f, args):
    stored = revsrc.hessian(f, memory=math.inf)(*args)
    assert revsrc.hessian(f, memory=100)(*args) == stored
    assert revsrc.jacfwd(revsrc.grad(f, memory=100))(*args) == stored


def test_default_bound_short_loop_is_stored_and_long_one_checkpointed():
    # under the default bound a short loop runs stored (its form built lazily)
    stored = revsrc.grad(breaks_at, memory=math.inf)
    df = revsrc.grad(breaks_at)
    assert df(0.3, 1000, 500) == stored(0.3, 1000, 500)
    assert "online checkpointing" in revsrc.source(df)
