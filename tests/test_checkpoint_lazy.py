"""Checkpointed forms built lazily (revsrc/passes/reverse/checkpoint): a gradient is
first built with its long loops stored behind the bound's test; only a call whose
loop would not fit builds the checkpointed form and runs again. Short loops never
build it (their first call costs what it did without a bound), and every call, before
and after the rebuild, gives the stored gradient bit for bit."""
import math

import numpy as np
import pytest

import revsrc
from revsrc.passes.reverse.checkpoint import online, revolve

BACKENDS = ["python", "engine"]


def recurrence(x, n):
    for i in range(n):
        if x > 1.0:
            x = x - 0.002 * math.sin(x) * x
        else:
            x = x + 0.003 * math.cos(x) + 0.001 * x * x
    return x


def until(x, t):
    s = 0.0
    while s < t:
        s = s + x * 0.001 + 0.01
        x = x * 0.999 + 0.0001 * math.sin(s)
    return s * x


def broken(x, n, lim):
    s = x
    for i in range(1, n, 2):
        s = math.sin(s) * 1.1 + 0.001 * i
        if i >= lim:
            break
    return s


def arrays(x, n):
    for i in range(n):
        x = np.sin(x) * 0.9 + 0.01
    return np.sum(x)


def _built(monkeypatch):
    """The checkpointed forms built from now on, by kind."""
    made = []
    for mod, kind in ((revolve, "for"), (online, "while")):
        real = mod.forward

        def spy(*a, _real=real, _kind=kind, **k):
            made.append(_kind)
            return _real(*a, **k)
        monkeypatch.setattr(mod, "forward", spy)
    return made


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, short, long_", [(recurrence, (0.3, 10), (0.3, 3000)),
                                             (until, (0.3, 0.1), (0.3, 40.0)),
                                             (broken, (0.3, 9, 50), (0.3, 9000, 7001))])
def test_built_only_when_a_call_needs_it(monkeypatch, backend, f, short, long_):
    made = _built(monkeypatch)
    df = revsrc.grad(f, backend=backend, memory="4KB")
    stored = revsrc.grad(f, backend=backend, memory=math.inf)
    tr = df._revsrc_transformed
    assert df(*short) == stored(*short)
    assert made == [] and len(tr.lazy) == 1        # short: the stored form alone
    assert df(*long_) == stored(*long_)              # long: built, run again
    assert len(made) == 1 and not tr.lazy
    for args in (short, long_, short):               # the checkpointed form from now on
        assert df(*args) == stored(*args)
    assert len(made) == 1


def test_default_bound_first_call_builds_one_form(monkeypatch):
    made = _built(monkeypatch)
    df = revsrc.grad(recurrence)
    assert df(0.3, 1000) == revsrc.grad(recurrence, memory=math.inf)(0.3, 1000)
    assert made == []
    entry = next(iter(df._revsrc_transformed.cache.values()))
    assert "long loop: stored if its saves fit" in entry.text


def test_lazy_engine_program_stops_with_its_own_instruction():
    df = revsrc.grad(recurrence, memory="4KB")
    df(0.3, 5)
    code = revsrc.disassemble(df)      # the full form: what a long call would run
    assert "checkpointed loop" in revsrc.source(df) and code
    entry = next(iter(df._revsrc_transformed.cache.values()))
    assert entry.engine is not None


def test_arrays_python_path(monkeypatch):
    made = _built(monkeypatch)
    df = revsrc.grad(arrays, memory="10KB")
    stored = revsrc.grad(arrays, memory=math.inf)
    x = np.linspace(0.1, 1.0, 20)
    assert np.array_equal(df(x, 3), stored(x, 3)) and made == []
    assert np.array_equal(df(x, 400), stored(x, 400)) and made == ["for"]
    assert np.array_equal(df(x, 3), stored(x, 3))


def test_source_and_transforming_again_take_the_full_form():
    df = revsrc.grad(recurrence, memory="4KB")
    stored = revsrc.grad(recurrence, memory=math.inf)
    df(0.3, 5)                            # cached lazily
    assert "units of" in revsrc.source(df)
    assert "units of" in revsrc.source(df, 0.3, 5)
    # revsrc.jit inlines the derivative: the full form, right for a long loop too
    jf = revsrc.jit(lambda x, n: df(x, n) * 2.0)
    assert jf(0.3, 3000) == stored(0.3, 3000) * 2.0
    h = revsrc.grad(lambda x, n: df(x, n), memory="4KB")
    hs = revsrc.grad(lambda x, n: stored(x, n), memory=math.inf)
    # differentiating the checkpointed program again sums its adjoints in another
    # order than differentiating the stored one: equal to rounding, not bit for bit
    assert h(0.3, 3000) == pytest.approx(hs(0.3, 3000), rel=1e-13)
    assert h(0.3, 7) == hs(0.3, 7)


def test_vjp_and_value_and_grad_rebuild():
    stored = revsrc.value_and_grad(until, memory=math.inf)
    df = revsrc.value_and_grad(until, memory="4KB")
    for t in (0.1, 50.0, 0.1):
        assert df(0.3, t) == stored(0.3, t)
    out, back = revsrc.vjp(until, 0.3, 50.0, memory="4KB")
    out_s, back_s = revsrc.vjp(until, 0.3, 50.0, memory=math.inf)
    assert out == out_s and back(1.5) == back_s(1.5)


def test_hessian_after_a_lazy_call():
    df = revsrc.grad(recurrence, memory="4KB")
    df(0.3, 10)
    h = revsrc.hessian(recurrence, argnums=0, memory="2KB")(0.3, 3000)
    hs = revsrc.hessian(recurrence, argnums=0, memory=math.inf)(0.3, 3000)
    assert h == hs


def test_native_tier_stops_the_lazy_program_too(monkeypatch):
    from revsrc.backends.engine import native
    monkeypatch.setenv("REVSRC_NATIVE", "sync")
    if native.compiler() is None:
        pytest.skip("no C compiler for the native tier")
    df = revsrc.grad(broken, memory="4KB")
    stored = revsrc.grad(broken, memory=math.inf)
    assert df(0.3, 9, 50) == stored(0.3, 9, 50)
    lazy = df.programs[0][1]
    native.attach(lazy, eager=True)
    assert lazy.tier == "native"
    assert df(0.3, 9000, 7001) == stored(0.3, 9000, 7001)     # stopped, built, run again
    assert df.programs[0][1] is not lazy
    assert df(0.3, 9, 50) == stored(0.3, 9, 50)


def announced(x, n):
    print("start")
    for i in range(n):
        x = math.sin(x) * 1.01 + 0.001
    return x


@pytest.mark.parametrize("backend", ["python", None])
def test_a_program_that_prints_is_built_whole(capsys, backend):
    # running its forward sweep again would print twice: no lazy form
    df = revsrc.grad(announced, backend=backend, memory="2KB")
    stored = revsrc.grad(announced, backend=backend, memory=math.inf)
    for n in (5, 3000):
        assert df(0.3, n) == stored(0.3, n)
    assert not df._revsrc_transformed.lazy
    assert capsys.readouterr().out == "start\n" * 4


def stepped_arrays(y0, n):
    y = y0
    for i in range(0, n, 2):
        y = y + 0.01 * (np.sin(y) * 0.5 - 0.1 * y)
    return np.sum(y * y)


def test_lazy_stepped_loop_stays_straight_line():
    # a step without a break: the test is on entry, the loop as it was, so the
    # small-array tier still takes it under the default bound
    y0 = np.linspace(0.1, 0.6, 6)
    stored = revsrc.grad(stepped_arrays, memory=math.inf)
    df = revsrc.grad(stepped_arrays)
    assert np.array_equal(df(y0, 100), stored(y0, 100))
    tr = df._revsrc_transformed
    assert tr.lazy
    assert "_smallarr" in next(iter(tr.cache.values())).text
    small = revsrc.grad(stepped_arrays, memory="2KB")
    for n in (0, 1, 2, 3, 100, 3001):
        assert np.array_equal(small(y0, n), stored(y0, n)), n
