"""The compiled scalar engine and the generated Python adjoint agree to the last bit.

The engine lowers the same inlined rules the Python backend prints, so on every
scalar program of the corpus that the engine accepts, both give identical floats.
"""
import math

import pytest

import revsrc
from revsrc.backends.engine import lower as engine
from revsrc.core import kinds
from revsrc.passes.pipeline import grad_program
from revsrc.testing import check_grads

from functions import CASES

SCALAR = [c for c in CASES if "scalar" in c.tags]


def _eligible(case):
    tr = revsrc.grad(case.fn, case.argnums)._revsrc_transformed
    values = tr.bind(case.args, case.kwargs)
    key = tuple(kinds.signature(v) for v in values)
    if not all(k in kinds.SCALARS for k in key):
        return False
    prog = grad_program(case.fn, key, tr.argnums, False)
    try:
        engine.lower(prog)
    except engine.NotLowerable:
        return False
    return True


ENGINE_CASES = [c for c in SCALAR if _eligible(c)]


def test_most_of_the_scalar_corpus_runs_on_the_engine():
    assert len(ENGINE_CASES) >= 0.8 * len(SCALAR), \
        sorted(set(c.id for c in SCALAR) - set(c.id for c in ENGINE_CASES))


def _same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("case", ENGINE_CASES, ids=[c.id for c in ENGINE_CASES])
def test_engine_matches_python_bit_for_bit(case):
    py = revsrc.value_and_grad(case.fn, case.argnums, backend="python")
    en = revsrc.value_and_grad(case.fn, case.argnums, backend="engine")
    a = py(*case.args, **case.kwargs)
    b = en(*case.args, **case.kwargs)
    assert _same(a, b), (a, b)
    # and the default picks the engine for these, with the same answer
    auto = revsrc.value_and_grad(case.fn, case.argnums)
    assert _same(auto(*case.args, **case.kwargs), a)


def test_engine_is_refused_for_arrays():
    import numpy as np

    def f(x):
        return np.sum(x * x)

    with pytest.raises(revsrc.errors.EngineUnavailable) as info:
        revsrc.grad(f, backend="engine")(np.ones(3))
    assert info.value.code == "E501"


def test_disassembly_names_user_variables():
    def f(x):
        for i in range(10):
            x = x * 0.9 + math.sin(x)
        return x

    df = revsrc.grad(f)
    df(0.5)
    text = revsrc.disassemble(df)
    assert "x" in text and len(text.splitlines()) > 5


def test_numpy_scalar_arguments():
    import numpy as np

    def g(x, n):
        for i in range(n):
            x = x - 0.1 * math.sin(x)
        return x * x

    dg = revsrc.grad(g)
    want = dg(0.3, 4)
    got = dg(np.float64(0.3), np.int64(4))
    assert got == want and isinstance(got, np.float64)
    # a float32 computes in float32, as the plain call does (NumPy's arithmetic, the
    # generated Python): its value bit for bit, its gradient within float32's rounding
    got32 = dg(np.float32(0.3), 4)
    assert isinstance(got32, np.float32)
    assert abs(got32 - revsrc.grad(g)(float(np.float32(0.3)), 4)) < 1e-6
    assert got32 == revsrc.grad(g, backend="python")(np.float32(0.3), 4)
    value, _ = revsrc.value_and_grad(g)(np.float32(0.3), 4)
    assert type(value) is np.float32 and value == g(np.float32(0.3), 4)


SCALE = 2.0


def scaled(x):
    return SCALE * x * x


@pytest.mark.parametrize("backend", [None, "python"])
def test_globals_are_read_at_call_time(backend):
    global SCALE
    d = revsrc.grad(scaled, backend=backend)
    try:
        assert d(1.5) == 6.0
        SCALE = 3.0
        assert d(1.5) == 9.0  # the rebinding is seen, not a stale snapshot
    finally:
        SCALE = 2.0


def recurrence(x):
    for i in range(1000):
        if x > 1.0:
            x = x - 0.002 * math.sin(x) * x
        else:
            x = x + 0.003 * math.cos(x) + 0.001 * x * x
    return x


def test_recurrence_uses_the_fused_instructions_and_matches_python():
    d = revsrc.value_and_grad(recurrence)
    fast = d(0.3)
    text = revsrc.disassemble(d)
    for op in ("SINCOS", "POPJZ", "PUSHF3", "PUSHF2", "POPF2"):
        assert op in text, op
    # no counter, no saved trip count: range(1000) is known at transformation time
    assert "POPI" not in text.replace("POPJZ", "")
    assert fast == revsrc.value_and_grad(recurrence, backend="python")(0.3)
    h = 1e-6
    numeric = (recurrence(0.3 + h) - recurrence(0.3 - h)) / (2 * h)
    assert fast[1] == pytest.approx(numeric, rel=1e-6)


def loop_n(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * i
    return s


def test_source_and_disassemble_show_the_program_for_the_arguments_given():
    df = revsrc.grad(loop_n)
    for_int = revsrc.disassemble(df, 1.0, 3)
    for_float = revsrc.disassemble(df, 1.0, 3.0)   # range(3.0) raises: a RAISE
    assert for_int != for_float
    assert "RAISE" in for_float and "RAISE" not in for_int
    assert revsrc.disassemble(df) == for_float      # the kinds transformed last
    assert revsrc.disassemble(df, 2.0, 5) == for_int


def softplus_m(x):
    return math.log1p(math.exp(x))


def softplus_m_rule(g, ans, x):
    return g / (1.0 + math.exp(-x))


def sum_softplus(x):
    s = 0.0
    for i in range(4):
        s = s + softplus_m(x * i - 1.0)
    return s


def test_a_users_scalar_rule_runs_on_the_engine():
    from revsrc import primitives
    saved = primitives.snapshot()
    try:
        revsrc.defvjp(softplus_m, softplus_m_rule)
        engine = revsrc.value_and_grad(sum_softplus, backend="engine")
        python = revsrc.value_and_grad(sum_softplus, backend="python")
        for x in (-1.3, 0.2, 0.7):
            assert engine(x) == python(x)
        listing = revsrc.disassemble(engine, 0.2)
        assert "log1p" in listing and "softplus_m_" in listing  # its body, inlined
        check_grads(sum_softplus, (0.4,), backend="engine")
    finally:
        primitives.restore(saved)
