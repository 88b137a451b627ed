"""revsrc.jit of functions that take tuples (and lists, namedtuples, dicts) of
numbers, as arguments or defaults: each container is taken apart into a parameter per
item, and another structure is another program. An item read at an index known only
when the program runs (``doses[j]``) is chosen among the items. Every result is
compared with the plain call bit for bit."""
import collections
import math

import numpy as np
import pytest

import revsrc


def weighted(x, ws=(1.0, 2.0, 3.0)):
    s = 0.0
    for w in ws:
        s += w * math.sin(x)
    return s


def indexed(x, ws):
    s = 0.0
    j = 0
    while j < len(ws):
        s += ws[j] * x ** j
        j += 1
    return s


def dosing(ke, doses=(50.0, 30.0, 30.0), times=(0.0, 6.0, 12.0), dt=0.1, T=20.0):
    c, t, j, trough = 0.0, 0.0, 0, 1e9
    while t < T - 1e-9:
        if j < len(doses) and t >= times[j] - 1e-9:
            c += doses[j]
            j += 1
        c = c * math.exp(-ke * dt)
        if t > 5.0:
            trough = min(trough, c)
        t += dt
    return trough + 0.01 * c


Gains = collections.namedtuple("Gains", "kp ki")


def pi_step(e, g, steps=3):
    acc = 0.0
    u = 0.0
    for _ in range(steps):
        acc += e
        u = g.kp * e + g.ki * acc
        e = e - 0.1 * u
    return u


def nested(x, p):
    (a, b), c = p
    return a * x + b * x * x + c["k"]


def out_of_range(x, ws, j):
    return ws[j] * x


@pytest.mark.parametrize("f, args", [
    (weighted, (0.3,)),
    (weighted, (0.3, (0.5, -1.5))),
    (weighted, (0.3, [0.5, -1.5, 2.0, 4.0])),
    (indexed, (0.7, (1.0, 2.0, 3.0))),
    (indexed, (0.7, (1, 2, 3))),
    (dosing, (0.25,)),
    (dosing, (0.4, (10.0, 20.0))),
    (pi_step, (1.0, Gains(0.5, 0.1))),
    (nested, (1.5, ((2.0, 3.0), {"k": 4.0}))),
])
def test_jit_takes_containers_of_numbers(f, args):
    assert revsrc.jit(f)(*args) == f(*args)


def test_another_structure_is_another_program():
    j = revsrc.jit(indexed)
    for ws in [(1.0, 2.0), (1.0, 2.0, 3.0, 4.0), (1.0,), [0.5, 0.25]]:
        assert j(1.3, ws) == indexed(1.3, ws)


def test_index_out_of_range_raises_as_python():
    j = revsrc.jit(out_of_range)
    assert j(2.0, (1.0, 2.0), -1) == 4.0
    with pytest.raises(IndexError):
        j(2.0, (1.0, 2.0), 2)


def test_a_container_holding_an_array_is_refused():
    with pytest.raises(revsrc.RevsrcError) as e:
        revsrc.jit(weighted)(0.3, (np.ones(2), 1.0))
    assert e.value.code == "E502"
    assert "argument 1 (ws)" in str(e.value)
