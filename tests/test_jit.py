"""revsrc.jit: scalar functions compiled whole, derivatives they call inlined, with the
digits of plain Python; and what it refuses, with a code and a line."""
import inspect
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.backends.engine import native

from functions import CASES


def g(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


dg = revsrc.grad(g)


def newton(x):
    for _ in range(6):
        x = x - g(x) / dg(x)
    return x


def newton_all(count):
    total = 0.0
    for i in range(count):
        total += newton(0.4 + i * 1e-6)
    return total / count


def _same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a.hex() == b.hex() or (math.isnan(a) and math.isnan(b))
    return a == b and type(a) is type(b)


def test_newton_runs_compiled_with_the_digits_of_python():
    j = revsrc.jit(newton_all)
    for count in (1, 7, 2000):
        assert _same(j(count), newton_all(count))
    (kinds, program, _), = j.programs
    assert kinds == "i"
    assert program.stats()["loop_iterations"] >= 6 * 2000     # it ran in the engine
    assert _same(revsrc.jit(newton)(0.45), newton(0.45))


def test_work_shared_by_g_and_dg_is_computed_once():
    j = revsrc.jit(newton_all)
    listing = revsrc.disassemble(j, 10)
    # g(x) and dg's forward sweep both compute exp(-x*x) and cos(3x): once each now;
    # dg's adjoint needs sin(3x), computed with g's cos(3x) in one SINCOS
    assert listing.count(" EXP ") == 1 and listing.count(" SINCOS ") == 1
    assert " COS " not in listing and " SIN " not in listing
    assert any(" DIV g_ret, " in line for line in listing.splitlines())   # g(x) / dg(x)
    code = [ln for ln in revsrc.source(j, 10).splitlines() if not ln.strip().startswith("#")]
    assert sum("math.exp(" in ln for ln in code) == 1
    assert sum("math.cos(" in ln for ln in code) == 1


def test_newton_compiled_by_the_native_tier_matches():
    if not native.enabled():
        pytest.skip("no C compiler")
    j = revsrc.jit(newton_all)
    j(5)
    (_, program, _), = j.programs
    assert native.compile(program) and program.tier == "native"
    for count in (1, 5, 3000):
        assert _same(j(count), newton_all(count))


SCALAR = [c for c in CASES if "scalar" in c.tags]


@pytest.mark.parametrize("case", SCALAR, ids=[c.id for c in SCALAR])
def test_the_scalar_corpus_compiles_with_the_same_digits(case):
    want = case.fn(*case.args, **case.kwargs)
    try:
        got = revsrc.jit(case.fn)(*case.args, **case.kwargs)
    except errors.RevsrcError as exc:       # refused, with a code and a line
        assert exc.code == "E502" and exc.lineno is not None, exc
        assert case.id in _REFUSED, exc
        return
    assert _same(got, want), (got, want)


_REFUSED = {"for_over_global_tuple"}       # a global tuple: not a scalar


def _caller(d, n):
    """A function of n arguments that calls the derivative d (jit reads its source)."""
    if n == 1:
        def call(a):
            return d(a)
    elif n == 2:
        def call(a, b):
            return d(a, b)
    elif n == 3:
        def call(a, b, c):
            return d(a, b, c)
    else:
        def call(a, b, c, e):
            return d(a, b, c, e)
    return call


def _derivative_cases():
    out = []
    for case in SCALAR:
        if len(inspect.signature(case.fn).parameters) > 4 or case.id in _REFUSED:
            continue
        out.append(case)
    return out


@pytest.mark.parametrize("case", _derivative_cases(), ids=[c.id for c in _derivative_cases()])
def test_derivatives_of_the_corpus_inline_with_the_same_digits(case):
    py = revsrc.value_and_grad(case.fn, case.argnums, backend="python")
    values = py._revsrc_transformed.bind(case.args, case.kwargs) \
        if hasattr(py, "_revsrc_transformed") else case.args
    d = revsrc.value_and_grad(case.fn, case.argnums)
    want = py(*values)
    try:
        got = revsrc.jit(_caller(d, len(values)))(*values)
    except errors.RevsrcError as exc:
        assert exc.code == "E502" and exc.lineno is not None, exc
        with pytest.raises(errors.EngineUnavailable):     # the engine refuses it too
            revsrc.value_and_grad(case.fn, case.argnums, backend="engine")(*values)
        return
    assert _same(got, want), (got, want)


# ----- Python's semantics -----

def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
        if steps > 1000:
            return -1
    return steps


def first_root(lo, hi, tol=1e-12):
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if hi - lo < tol:
            return mid
        if g(lo) * g(mid) <= 0.0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def big_power(n):
    return n ** 20 + 1


def test_loops_branches_early_returns_and_defaults():
    j = revsrc.jit(collatz_steps)
    for n in (1, 6, 27, 97):
        assert _same(j(n), collatz_steps(n))
    r = revsrc.jit(first_root)
    assert _same(r(0.1, 0.8), first_root(0.1, 0.8))
    assert _same(r(0.1, 0.8, tol=1e-3), first_root(0.1, 0.8, tol=1e-3))


def test_values_beyond_the_engine_run_the_function_itself():
    j = revsrc.jit(big_power)
    assert j(3) == 3 ** 20 + 1 and type(j(3)) is int
    assert j(1000) == 1000 ** 20 + 1         # beyond 2**53: Python ints, exactly


def test_errors_are_python_errors():
    def inv(x):
        return 1.0 / x

    j = revsrc.jit(inv)
    with pytest.raises(ZeroDivisionError):
        j(0.0)
    with pytest.raises(ValueError, match="math domain error"):
        revsrc.jit(lambda_log)(-1.0)


def lambda_log(x):
    return math.log(x)


LEVEL = 2.0


def scaled(x):
    return LEVEL * x


def test_globals_are_read_at_call_time():
    global LEVEL
    j = revsrc.jit(scaled)
    try:
        assert j(1.5) == 3.0
        LEVEL = 4.0
        assert j(1.5) == 6.0
    finally:
        LEVEL = 2.0


inner = revsrc.jit(newton)


def two_newtons(x):
    return inner(x) + inner(x + 0.01)


def test_a_jitted_function_inside_another():
    assert _same(revsrc.jit(two_newtons)(0.4), two_newtons(0.4))


# ----- Refusals -----

def uses_an_array(x):
    v = np.ones(3) * x
    return float(np.sum(v))


def uses_gamma(x):
    y = x + 1.0
    return math.gamma(y)


def uses_try(x):
    y = x
    try:
        y = x * 2.0
    except* ValueError:
        y = 0.0
    return y


def with_aux(x):
    return x * x, x


daux = revsrc.grad(with_aux, has_aux=True)


def calls_aux(x):
    return daux(x)[0]


def calls_both(x):
    g_, aux = daux(x)
    return g_ + aux


def h(x, n):
    return x * n


dh_wrt_n = revsrc.grad(h, argnums=1)


def calls_dh(x):
    return dh_wrt_n(x, 3)


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn,code,text", [
    (uses_an_array, "E502", "np.ones(3)"),
    (uses_gamma, "E502", "math.gamma(y)"),
    (calls_dh, "E301", "dh_wrt_n(x, 3)"),
])
def test_what_cannot_be_compiled_is_refused_at_its_line(fn, code, text):
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.jit(fn)(0.5)
    assert info.value.code == code
    assert info.value.lineno == _line(fn, text), str(info.value)


def test_unsupported_syntax_is_refused_when_jitting():
    with pytest.raises(errors.UnsupportedSyntax):
        revsrc.jit(uses_try)


def test_array_arguments_are_refused():
    with pytest.raises(errors.NotCompilable, match="floats, ints and bools"):
        revsrc.jit(g)(np.ones(3))


def calls_dg(x):
    return dg(x) * x


def test_derivatives_with_aux_and_a_derivative_times_its_argument():
    for fn in (calls_dg, calls_aux, calls_both):
        assert _same(revsrc.jit(fn)(0.3), fn(0.3))


def test_docstring_example():
    import doctest
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    # run as a user's module runs it (functions of revsrc's own modules are not inlined)
    for test in doctest.DocTestFinder().find(revsrc.jit, "jit", globs={"__name__": "__main__"}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0
