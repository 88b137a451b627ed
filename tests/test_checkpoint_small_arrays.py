"""The small-array tier (revsrc/backends/smallarr.py) runs the loops of a checkpointed
gradient (``memory=``, revsrc/passes/reverse/checkpoint): the units advanced without
saving, and a unit recorded then reversed. The gradient is the stored one bit for bit,
over trip counts around the unit length and the snapshot count, and the compiled
loops did run (their plans count their runs)."""
import math

import numpy as np
import pytest

import revsrc
from loop_programs import rk4
from revsrc import api, primitives
from revsrc.runtime import checkpoint as ck_rt
from revsrc.testing import compare_grads


def rnn(W, x0, n):
    h = x0
    for i in range(n):
        h = np.tanh(W @ h) * 0.9 + h * 0.1
    return np.sum(h * h)


def _sizes(monkeypatch):
    """The unit length and snapshot count the generated code asks for, as it asks."""
    seen = {}

    def unit_length(*a):
        seen["K"] = k = _unit_length(*a)
        return k

    def snapshot_count(*a):
        seen["c"] = c = _snapshot_count(*a)
        return c

    _unit_length, _snapshot_count = ck_rt.unit_length, ck_rt.snapshot_count
    # their rule family registers them by the module's attributes: loaded before the
    # patch (a family that waits would otherwise register the patched functions)
    assert primitives.lookup(_unit_length) is not None
    assert primitives.lookup(_snapshot_count) is not None
    monkeypatch.setattr(ck_rt, "unit_length", unit_length)
    monkeypatch.setattr(ck_rt, "snapshot_count", snapshot_count)
    return seen


def _plans(df, args):
    return api._entry(df, args, {}).fn._revsrc_small_loops


def _same(a, b):
    (va, ga), (vb, gb) = a, b
    return type(va) is type(vb) and va == vb and ga.dtype == gb.dtype and \
        ga.tobytes() == gb.tobytes()


@pytest.mark.parametrize("budget", [20000, 60000, "1MB"])
def test_checkpointed_units_run_compiled_with_the_stored_bits(budget, monkeypatch):
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
    seen = _sizes(monkeypatch)
    y0 = np.linspace(0.1, 0.6, 6)
    stored = revsrc.value_and_grad(rk4, memory=math.inf)
    ck = revsrc.value_and_grad(rk4, memory=budget)
    ck(y0, 3)
    long = 2003 if budget != "1MB" else 20011
    ck(y0, long)        # builds the checkpointed form (the loop does not fit)
    K, c = seen["K"], seen["c"]
    assert long > K
    plans = _plans(ck, (y0, long))
    # the loop stored when it fits and its adjoint, the units advanced (forward and
    # reverse sweeps), the unit the forward sweep saves last and its adjoint, a unit
    # recorded and at once reversed
    assert len(plans) == 8
    trips = {0, 1, 2, K - 1, K, K + 1, 2 * K + 1, (c - 1) * K, c * K, c * K + 1,
             (c + 1) * K, 97, 101, long}
    for n in sorted(t for t in trips if 0 <= t <= 30000):
        before = sum(p.runs for p in plans)
        assert _same(stored(y0, n), ck(y0, n)), (budget, n, K, c)
        if n > 0:
            # the stored loop (n <= K), or the checkpointed one, ran compiled
            assert sum(p.runs for p in plans) >= before + 2, (budget, n)
    # with a snapshot for every unit (1MB) no unit is advanced in the reverse sweep
    assert sum(p.runs > 0 for p in plans) >= (7 if c * K >= long else len(plans))


def test_same_bits_with_the_tier_off(monkeypatch):
    y0 = np.linspace(0.1, 0.6, 6)
    out = []
    for on in ("1", "0"):
        monkeypatch.setenv("REVSRC_SMALL_ARRAYS", on)
        ck = revsrc.value_and_grad(rk4, memory=20000)
        out.append([ck(y0, n) for n in (0, 5, 64, 1009)])
        if on == "1":
            assert _plans(ck, (y0, 1009))
        else:
            assert not _plans(ck, (y0, 1009))
    assert all(_same(a, b) for a, b in zip(*out))


def test_matmul_state_and_the_weights_gradient(monkeypatch):
    monkeypatch.setenv("REVSRC_SMALL_ARRAYS", "1")
    rng = np.random.default_rng(3)
    W, x0 = rng.standard_normal((5, 5)) * 0.4, rng.standard_normal(5)
    stored = revsrc.grad(rnn, argnums=(0, 1), memory=math.inf)
    ck = revsrc.grad(rnn, argnums=(0, 1), memory=30000)
    for n in (0, 1, 2, 7, 97, 1500, 3):     # (3: the checkpointed form's stored loop)
        a, b = stored(W, x0, n), ck(W, x0, n)
        assert all(x.tobytes() == y.tobytes() for x, y in zip(a, b)), n
    plans = _plans(ck, (W, x0, 1500))
    assert len(plans) == 8 and all(p.runs > 0 for p in plans)
    g = revsrc.grad(rnn, argnums=(0, 1), memory=3000)
    compare_grads(lambda W, x: rnn(W, x, 40), lambda W, x: g(W, x, 40), (W, x0),
                  argnums=(0, 1))


def test_loops_paired_by_construction_are_taken_both_or_neither():
    from revsrc.backends import smallarr
    from revsrc.core import ir

    def saves():
        return ir.For("i", ir.Const(0), "n", ir.Const(1),
                      [ir.Push("y", "o"), ir.Op("y", np.sin, ("y",))])

    def pops():
        return ir.For("k", ir.Const(0), "n", ir.Const(1),
                      [ir.Pop("y", "o"), ir.Op("g", np.cos, ("y",))])

    def marked(*loops):
        for lp, side in loops:
            lp.paired = ("key", side)
        return smallarr._marked([ir.If("t", [lp], []) for lp, _ in loops])

    assert len(marked((saves(), "saves"), (pops(), "pops"))) == 2
    assert marked((saves(), "saves")) == {}
    assert marked((saves(), "saves"), (saves(), "saves"), (pops(), "pops")) == {}
    wrong = ir.For("k", ir.Const(0), "n", ir.Const(1), [ir.Pop("z", "o")])
    assert marked((saves(), "saves"), (wrong, "pops")) == {}
