"""Checkpointed loops (``memory=``, revsrc/passes/reverse/checkpoint/): the gradient
is the stored one bit for bit, on the Python path and the engine, over trip counts
around the unit length and the snapshot count; the recomputations are revolve's
optimum; loops it does not cover are left as they were."""
import math
import random
import re
import sys

import numpy as np
import pytest

import revsrc
from loop_programs import rk4
from revsrc.passes.reverse.checkpoint import DEFAULT_MEMORY, parse_memory
from revsrc.testing import compare_grads

BACKENDS = ["python", "engine"]


def branchy(x, n):
    s = x
    for i in range(n):
        if s > 0.5:
            s = math.sin(s) * 1.1 + 0.01 * i
        else:
            s = s * s + 0.3
    return s


def uses_index(x, y, n):
    s = x
    t = y
    for i in range(2, n):
        s = s * math.cos(x * i) + t
        t = t * 0.9 + math.sin(s) / i
    return s + t


def nested(x, n, m):
    s = x
    for i in range(n):
        for j in range(m):
            s = math.sin(s + 0.1 * j) * 1.05
        s = s * x + 0.01
    return s


def accumulates(x, n):
    # s is never read by the adjoint, but the recomputation assigns it again: the
    # value returned must be the forward sweep's
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * i)
    return s


def invariant_rebound(x, n):
    # a is only read by a branch test in the loop and is assigned again later: the
    # recomputation must see the value it had in the loop
    a = x
    s = x
    for i in range(n):
        if s > a:
            s = s * 0.5
        else:
            s = s * 1.3 + 0.01 * x
    a = 2.0
    return s * a


def segment(df):
    m = re.search(r"units of (\d+) iterations", revsrc.source(df))
    return int(m.group(1)) if m else None


def budget_for(k, per_iter):
    return 2 * k * per_iter


@pytest.mark.parametrize("backend", BACKENDS)
def test_branchy_bit_for_bit(backend):
    stored = revsrc.value_and_grad(branchy, backend=backend)
    ck = revsrc.value_and_grad(branchy, backend=backend, memory=budget_for(4, 24))
    ck(0.3, 5)
    k = segment(ck)
    assert k == 4
    for n in [0, 1, 2, k - 1, k, k + 1, 2 * k, 2 * k + 1, 7, 13, 97, 1000, 20011]:
        for x in (0.3, 0.7, -1.2):
            assert stored(x, n) == ck(x, n), (x, n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_loop_variable_read_by_adjoint(backend):
    stored = revsrc.grad(uses_index, argnums=(0, 1), backend=backend)
    ck = revsrc.grad(uses_index, argnums=(0, 1), backend=backend, memory=100)
    ck(0.4, 0.2, 10)
    k = segment(ck)
    assert k is not None and k >= 1
    for n in [0, 1, 2, 3, k + 1, k + 2, k + 3, 2 * k + 5, 101, 500]:
        assert stored(0.4, 0.2, n) == ck(0.4, 0.2, n), n
    compare_grads(lambda x, y: uses_index(x, y, 40), lambda x, y: ck(x, y, 40),
                  (0.4, 0.2), argnums=(0, 1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_loops(backend):
    stored = revsrc.grad(nested, backend=backend)
    ck = revsrc.grad(nested, backend=backend, memory=200)
    ck(0.5, 3, 2)
    src = revsrc.source(ck)
    assert src.count("checkpointed loop: stored if") == 1   # the outer loop only
    for n, m in [(0, 3), (1, 0), (1, 3), (5, 2), (17, 3), (64, 1), (31, 7)]:
        assert stored(0.5, n, m) == ck(0.5, n, m), (n, m)


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_kept_and_invariants(backend):
    for f in (accumulates, invariant_rebound):
        stored = revsrc.value_and_grad(f, backend=backend)
        ck = revsrc.value_and_grad(f, backend=backend, memory=64)
        ck(0.8, 3)
        assert segment(ck) is not None, f.__name__
        for n in [0, 1, 2, 3, 4, 5, 11, 50]:
            for x in (0.8, 1.7):
                assert stored(x, n) == ck(x, n), (f.__name__, x, n)


def while_loop(x):
    s = x
    k = 0
    while s < 100.0:
        s = s * 1.5 + math.sin(s)
        k += 1
    return s


def draws(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) * (1.0 + 0.01 * random.random())
    return s


def np_draws(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) * (1.0 + 0.01 * np.random.uniform())
    return s


def prints(x, n):
    s = x
    for i in range(n):
        print("step", i)
        s = math.sin(s) * 1.1
    return s


def array_state(x, n):
    v = np.array([x, 2.0 * x])
    for i in range(n):
        v = np.sin(v) * 1.1
    return float(np.sum(v))


def while_steps(x, n):
    # a trip count known only as it runs; the test reads a value the body carries
    s = x
    k = 0
    while k < n:
        if s > 0.5:
            s = math.sin(s) * 1.1 + 0.01 * k
        else:
            s = s * s + 0.3
        k = k + 1
    return s


def while_growth(x, limit):
    s = x
    t = 0.0
    while s < limit:
        s = s * 1.01 + math.sin(s) * 0.01
        t = t + math.cos(s) * 0.001
    return s + t


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_bit_for_bit(backend):
    stored = revsrc.value_and_grad(while_steps, backend=backend)
    ck = revsrc.value_and_grad(while_steps, backend=backend, memory=budget_for(4, 24))
    ck(0.3, 5)
    src = revsrc.source(ck)
    # a quarter of the budget for a unit: 48 bytes, 2 iterations of 24
    assert "units of 2 iterations" in src and "online" in src
    for n in [0, 1, 2, 3, 4, 5, 8, 9, 13, 97, 1000, 20011]:
        for x in (0.3, 0.7, -1.2):
            assert stored(x, n) == ck(x, n), (x, n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_unknown_trips(backend):
    stored = revsrc.value_and_grad(while_growth, backend=backend)
    ck = revsrc.value_and_grad(while_growth, backend=backend, memory=100)
    for x, limit in [(5.0, 1.0), (0.5, 0.6), (0.5, 3.0), (0.2, 50.0), (1.0, 1e4)]:
        assert stored(x, limit) == ck(x, limit), (x, limit)
    assert "online" in revsrc.source(ck)
    compare_grads(lambda x: while_growth(x, 3.0), lambda x: ck(x, 3.0)[1], (0.5,))


@pytest.mark.parametrize("f, args", [(prints, (0.3, 3)), (prints, (0.3, 40))])
def test_loops_not_covered_pass_through(f, args):
    # a print would print twice: such a loop is saved as it was (a for loop with a
    # break or a step is checkpointed: tests/test_checkpoint_online_for.py)
    stored = revsrc.grad(f, memory=math.inf)
    ck = revsrc.grad(f, memory=64)
    random.seed(1)
    np.random.seed(1)
    a = stored(*args)
    random.seed(1)
    np.random.seed(1)
    assert a == ck(*args)
    assert "checkpointed" not in revsrc.source(ck)


def while_in_for(x, n):
    s = x
    for i in range(n):
        k = 0
        while k < i % 3:
            s = math.sin(s) + 0.1
            k += 1
        s = s * 1.01
    return s


def for_in_while(x, n):
    s = x
    k = 0
    while k < n:
        for j in range(k % 4):
            s = math.sin(s) * 1.02 + 0.05
        k += 1
    return s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [while_in_for, for_in_while])
def test_mixed_nesting(backend, f):
    stored = revsrc.grad(f, backend=backend)
    ck = revsrc.grad(f, backend=backend, memory=100)
    for n in [0, 1, 2, 3, 5, 8, 29, 200]:
        assert stored(0.3, n) == ck(0.3, n), n
    assert revsrc.source(ck).count("checkpointed loop:") == 2   # outer loop, both sweeps


@pytest.mark.parametrize("f", [draws, np_draws])
def test_random_draws_refused_under_a_budget(f):
    # recomputing a segment would draw other numbers: refused at the user's loop
    with pytest.raises(revsrc.RevsrcError, match=r"E401.*random") as info:
        revsrc.grad(f, memory=64)(0.3, 40)
    assert info.value.lineno is not None
    # under the default bound the loop stays stored: the numbers of a plain run
    random.seed(1)
    np.random.seed(1)
    a = revsrc.grad(f, memory=math.inf)(0.3, 40)
    random.seed(1)
    np.random.seed(1)
    df = revsrc.grad(f)
    assert df(0.3, 40) == a
    assert "checkpointed" not in revsrc.source(df)


def test_unbounded_nothing_changes():
    df = revsrc.grad(branchy, memory=math.inf)
    df(0.3, 5)
    assert "checkpointed" not in revsrc.source(df)


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_bound(backend):
    # by default a loop is checkpointed past DEFAULT_MEMORY, and a short one runs
    # stored: one comparison on entry
    df = revsrc.value_and_grad(branchy, backend=backend)
    stored = revsrc.value_and_grad(branchy, backend=backend, memory=math.inf)
    for n in (0, 1, 1000):
        assert df(0.3, n) == stored(0.3, n)
    src = revsrc.source(df)
    k = segment(df)
    assert "stored if its saves fit" in src and k == DEFAULT_MEMORY // 2 // 24


def test_memory_values():
    assert parse_memory(None) is DEFAULT_MEMORY == 256_000_000
    assert parse_memory(math.inf) is None
    assert parse_memory(1000) == 1000
    assert parse_memory("32MB") == 32_000_000
    assert parse_memory("1.5 KiB") == 1536
    assert parse_memory("2g") == 2_000_000_000
    for bad in ("lots", True, 0, "-5MB", [3]):
        with pytest.raises(ValueError):
            parse_memory(bad)
    with pytest.raises(ValueError):
        revsrc.grad(branchy, memory="many")


def test_pickled_derivative_keeps_memory():
    import pickle
    ck = revsrc.grad(branchy, memory=192)
    again = pickle.loads(pickle.dumps(ck))
    assert again(0.3, 50) == revsrc.grad(branchy)(0.3, 50)
    assert segment(again) == 4


@pytest.mark.parametrize("f, args", [(branchy, (0.3, 37)), (while_steps, (0.3, 37)),
                                     (nested, (0.5, 9, 3)), (uses_index, (0.4, 0.2, 23))])
def test_hessian_through_checkpointed_loop(f, args):
    stored = revsrc.hessian(f)(*args)
    ck = revsrc.hessian(f, memory=100)
    assert ck(*args) == stored
    assert revsrc.jacfwd(revsrc.grad(f, memory=100))(*args) == stored


def test_hessian_blocks_and_vjp_take_memory():
    stored = revsrc.hessian(uses_index, argnums=(0, 1))(0.4, 0.2, 31)
    assert revsrc.hessian(uses_index, argnums=(0, 1), memory=100)(0.4, 0.2, 31) == stored
    out, back = revsrc.vjp(lambda x: branchy(x, 45), 0.3, memory=100)
    out0, back0 = revsrc.vjp(lambda x: branchy(x, 45), 0.3)
    assert out == out0 and back(2.0) == back0(2.0)


def test_checkpointed_gradient_inside_jit():
    dg = revsrc.grad(branchy, memory=100)

    def user(x, n):
        return dg(x, n) * 2.0
    assert revsrc.jit(user)(0.3, 37) == 2.0 * revsrc.grad(branchy)(0.3, 37)


def _same_bits(a, b):
    la, _ = revsrc.tree_flatten(a)
    lb, _ = revsrc.tree_flatten(b)
    return len(la) == len(lb) and all(
        np.asarray(x).dtype == np.asarray(y).dtype
        and np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)
        for x, y in zip(la, lb))


def test_user_programs_with_loops_keep_their_bits():
    # every loop-bearing gradient case of the user-program corpus, with a tiny budget
    # (segments of a few iterations): the same value and gradient, bit for bit
    import copy
    import inspect
    import sys
    import os
    sys.path.insert(0, os.path.dirname(__file__))
    import user_programs as up
    checkpointed = 0
    for c in up.CASES:
        if c["t"] != "grad" or c.get("expect") != "correct":
            continue
        fn, args, kw, an = c["fn"], c["args"], c["kw"], c["argnums"]
        try:
            text = inspect.getsource(fn)
        except (OSError, TypeError):
            continue
        if "for " not in text and "while " not in text:
            continue
        try:
            np.random.seed(0)
            stored = revsrc.value_and_grad(fn, argnums=an)(*copy.deepcopy(args), **kw)
        except Exception:
            continue
        d = revsrc.value_and_grad(fn, argnums=an, memory=64)
        np.random.seed(0)
        assert _same_bits(stored, d(*copy.deepcopy(args), **kw)), c["name"]
        checkpointed += "checkpointed loop" in revsrc.source(d)
    assert checkpointed >= 10


# ----- revolve: the recomputations are the optimum for the snapshots it has -----
def simple(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) * 0.9 + 0.1
    return s


def revolve_optimum(L, c):
    """Griewank's t(L, c): the fewest unit runs besides the L that save, with c
    snapshots (the first at the start), r the least with C(c+r, c) >= L."""
    if L <= 1:
        return 0
    r = 0
    while math.comb(c + r, c) < L:
        r += 1
    return r * L - math.comb(c + r, c + 1)


def brute_optimum(L, c, memo={}):
    if L <= 1:
        return 0
    if c == 1:
        return L * (L - 1) // 2
    if (L, c) not in memo:
        memo[L, c] = min(m + brute_optimum(L - m, c - 1) + brute_optimum(m, c)
                         for m in range(1, L))
    return memo[L, c]


def units_and_snapshots(df):
    m = re.search(r"units of (\d+) iterations, (\d+) snapshots", revsrc.source(df))
    return int(m.group(1)), int(m.group(2))


def sin_calls(fn, *args):
    """(fn(*args), how many times it called math.sin), counted by a profile hook:
    replacing math.sin by a counting function would make the derivative anew (its
    guards see the module attribute rebound)."""
    calls = [0]
    sin = math.sin

    def hook(frame, event, arg):
        if event == "c_call" and arg is sin:
            calls[0] += 1
    sys.setprofile(hook)
    try:
        out = fn(*args)
    finally:
        sys.setprofile(None)
    return out, calls[0]


@pytest.mark.parametrize("budget", [48, 100, 200, 400])
def test_recomputations_are_revolves_optimum(budget):
    # math.sin runs once an iteration: the runs beyond the n that save are the
    # recomputations, counted in units of K iterations
    stored = revsrc.grad(simple, backend="python", memory=math.inf)
    df = revsrc.grad(simple, backend="python", memory=budget)
    df(0.3, 2)
    K, c = units_and_snapshots(df)
    for L in [2, 3, 5, c - 1, c, c + 1, 13, 31, 57]:
        if L < 2:
            continue
        n = L * K
        want = stored(0.3, n)
        got, calls = sin_calls(df, 0.3, n)
        assert got == want
        assert calls - n == K * revolve_optimum(L, c), (K, c, L)
        if L <= 31:
            assert revolve_optimum(L, c) == brute_optimum(L, c)


@pytest.mark.parametrize("backend", BACKENDS)
def test_trip_counts_around_the_snapshots(backend):
    stored = revsrc.value_and_grad(branchy, backend=backend, memory=math.inf)
    for budget in (50, 100, 200):
        ck = revsrc.value_and_grad(branchy, backend=backend, memory=budget)
        ck(0.3, 3)
        K, c = units_and_snapshots(ck)
        trips = {0, 1, 2, K - 1, K, K + 1, (c - 1) * K, c * K, c * K + 1, (c + 1) * K,
                 7, 13, 31, 101, 997, 10007}
        for n in sorted(t for t in trips if t >= 0):
            for x in (0.3, -1.2):
                assert stored(x, n) == ck(x, n), (budget, n, x)


def array_while(y0, t_end):
    y = y0
    t = 0.0
    while t < t_end:
        y = y + 0.01 * np.cos(y) * y
        t = t + 0.01
    return np.sum(y)


@pytest.mark.parametrize("budget", [3000, 20000, "1MB"])
def test_array_state_bit_for_bit(budget):
    y0 = np.linspace(0.1, 0.6, 6)
    stored = revsrc.value_and_grad(rk4, memory=math.inf)
    ck = revsrc.value_and_grad(rk4, memory=budget)
    for n in [0, 1, 2, 3, 7, 50, 301]:
        (a, ga), (b, gb) = stored(y0, n), ck(y0, n)
        assert a == b and np.array_equal(ga, gb), n
    assert "sized from the arrays on entry" in revsrc.source(ck)
    compare_grads(lambda y: rk4(y, 20), lambda y: ck(y, 20)[1], (y0,))
    stored = revsrc.grad(array_while, memory=math.inf)
    ck = revsrc.grad(array_while, memory=budget)
    for t_end in (-1.0, 0.005, 0.3, 2.0):
        assert np.array_equal(stored(y0, t_end), ck(y0, t_end)), t_end
    assert "online" in revsrc.source(ck)


def writes_into_state(y0, n):
    y = y0.copy()
    for i in range(n):
        y = np.sin(y) * 1.01
        y[0] = y[0] + 0.1
    return np.sum(y)


def test_array_written_in_place_stays_stored():
    y0 = np.linspace(0.1, 0.6, 6)
    stored = revsrc.grad(writes_into_state, memory=math.inf)
    ck = revsrc.grad(writes_into_state, memory=1000)
    assert np.array_equal(stored(y0, 30), ck(y0, 30))
    assert "checkpointed" not in revsrc.source(ck)


def break_inside(x, n):
    s = x
    for i in range(n):
        for j in range(i % 5):
            s = math.sin(s) + 0.1
            if s > 0.95:
                break
        s = s * 1.01
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_break_in_an_inner_loop(backend):
    stored = revsrc.grad(break_inside, backend=backend, memory=math.inf)
    ck = revsrc.grad(break_inside, backend=backend, memory=100)
    for n in [0, 1, 2, 3, 5, 8, 29, 200, 1009]:
        assert stored(0.3, n) == ck(0.3, n), n
    assert "revolve" in revsrc.source(ck)


@pytest.mark.parametrize("f, args", [(while_growth, (0.2, 50.0)), (while_in_for, (0.3, 41)),
                                     (for_in_while, (0.3, 29))])
def test_hessian_through_online_and_nested(f, args):
    stored = revsrc.hessian(f, memory=math.inf)(*args)
    assert revsrc.hessian(f, memory=100)(*args) == stored


def test_jit_gives_its_budget_to_the_derivatives_it_calls():
    dg = revsrc.grad(branchy)

    def user(x, n):
        return dg(x, n) * 2.0
    want = 2.0 * revsrc.grad(branchy, memory=math.inf)(0.3, 37)
    jitted = revsrc.jit(user, memory=100)
    assert jitted(0.3, 37) == want
    assert jitted(-1.2, 1001) == 2.0 * revsrc.grad(branchy, memory=math.inf)(-1.2, 1001)
    from revsrc.core import ir, kinds
    jt = jitted._revsrc_jitted
    prog = jt.cache.current(tuple(kinds.signature(v) for v in (0.3, 37))).program
    notes = [s.text for s in ir.walk(prog.body) if isinstance(s, ir.Comment)]
    assert any("revolve" in t and "units of 2 iterations" in t for t in notes)
    assert revsrc.jit(user, memory=math.inf)(0.3, 37) == want
    with pytest.raises(revsrc.errors.NotCompilable, match="memory"):
        revsrc.jit(dg, memory="1MB")
    with pytest.raises(ValueError, match="memory"):
        revsrc.jit(user, memory="lots")


def fixed_trips(x):
    s = x
    for i in range(1000):
        s = math.sin(s) * 0.99 + 0.01
    return s


def test_known_short_trip_count_is_unchanged():
    # range(1000) fits the default bound: the program is the one without a bound
    df = revsrc.grad(fixed_trips)
    plain = revsrc.grad(fixed_trips, memory=math.inf)
    assert df(0.3) == plain(0.3)
    assert revsrc.source(df) == revsrc.source(plain)
    ck = revsrc.grad(fixed_trips, memory=1000)
    assert ck(0.3) == plain(0.3) and "revolve" in revsrc.source(ck)


def test_hessian_through_checkpointed_array_loop():
    y0 = np.linspace(0.1, 0.6, 6)
    for n in (0, 1, 5, 17):
        stored = revsrc.hessian(rk4, memory=math.inf)(y0, n)
        assert np.array_equal(revsrc.hessian(rk4, memory=3000)(y0, n), stored), n
