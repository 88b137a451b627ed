"""NumPy float64 scalars on the compiled scalar engine, and jit refusals' names.

NumPy's float64 scalars (what np.sin(x), np.exp(x), np.float64(x) return for a float)
divide by zero and overflow into inf and nan with a RuntimeWarning, where Python's
floats raise ZeroDivisionError or OverflowError. The engine computes as Python's
floats do; where it would raise in a program that computes on NumPy scalars, the call
runs on the Python path. These programs check that every transformation (grad,
value_and_grad, jit, vmap, jvp, hessian) then gives the Python path's values, types
and warnings, bit for bit, and the plain call's value.

Also: jit on Python's int powers (2 ** -n is a float), and no refusal names one of
revsrc's temporaries (``_t3``).
"""
import math
import os
import re
import warnings

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads


def div_sin(x):
    return 1.0 / np.sin(x)


def pow_overflow(x):
    return np.exp(x) ** 2.0


def mod_zero(x):
    return np.float64(x) % 0.0


def floordiv_zero(x):
    return np.sin(x) // 0.0


def pow_negative(x):
    return np.sin(x) ** -1.0


def div_int_zero(x):
    return np.sin(x) / 0


def softmax_ratio(x):
    return np.exp(-x) / (np.exp(-x) + np.exp(-2 * x))


def sqrt_ratio(x):
    return np.sqrt(x) / np.sqrt(x)


# new programs of the family
def cot_in_loop(x):
    s = 0.0
    for k in range(1, 4):
        s = s + np.cos(x * k) / np.sin(x * k)
    return s


def log_pow(x):
    return np.log(x) ** -2.0 + x


def tanh_ratio_branch(x):
    t = np.tanh(x)
    if x > 0:
        return x / t
    return t / (x * 0.0)


def float64_cube_overflow(x):
    y = np.float64(x)
    return y ** 3.0 * 2.0


def inv_of_helper(x):
    return _helper(x) ** 0.5 / _helper(x)


def _helper(x):
    return np.float64(x) * x


CASES = [(div_sin, 0.0), (pow_overflow, 400.0), (mod_zero, 1.5), (floordiv_zero, 0.7),
         (pow_negative, 0.0), (div_int_zero, 0.3), (softmax_ratio, 800.0),
         (sqrt_ratio, 0.0), (cot_in_loop, 0.0), (log_pow, 1.0),
         (tanh_ratio_branch, -1.0), (float64_cube_overflow, 1e200), (inv_of_helper, 0.0)]
IDS = [f.__name__ for f, _ in CASES]


def _same(a, b):
    """Equal values and types, leaf by leaf, nan equal to nan."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
        return
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
        return
    assert type(a) is type(b), (a, b)
    assert (a == b) or (a != a and b != b), (a, b)
    if a == 0:
        assert math.copysign(1, a) == math.copysign(1, b)


def _run(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = call()
    return out, sorted({str(w.message) for w in seen})


TRANSFORMS = {
    "grad": lambda f, x, **kw: revsrc.grad(f, **kw)(x),
    "value_and_grad": lambda f, x, **kw: revsrc.value_and_grad(f, **kw)(x),
    "hessian": lambda f, x, **kw: revsrc.hessian(f, **kw)(x),
    "jvp": lambda f, x, **kw: revsrc.jvp(f, (x,), (1.0,), **kw),
}


@pytest.mark.parametrize("f,x", CASES, ids=IDS)
@pytest.mark.parametrize("how", sorted(TRANSFORMS))
def test_engine_matches_python_path(f, x, how):
    engine = _run(lambda: TRANSFORMS[how](f, x))
    python = _run(lambda: TRANSFORMS[how](f, x, backend="python"))
    _same(engine[0], python[0])
    assert engine[1] == python[1]
    assert engine[1], "NumPy's RuntimeWarning is shown"
    # the value is the plain call's
    with np.errstate(all="ignore"):
        plain = f(x)
    if how == "value_and_grad":
        _same(engine[0][0], plain)
    elif how == "jvp":
        _same(engine[0][0], plain)


@pytest.mark.parametrize("f,x", CASES, ids=IDS)
def test_jit_and_vmap_match_plain_call(f, x):
    with np.errstate(all="ignore"):
        plain = f(x)
        column = np.array([x, 0.5])
        each = np.array([f(v) for v in column])
        grads = np.array([revsrc.grad(f, backend="python")(v) for v in column])
    out, seen = _run(lambda: revsrc.jit(f)(x))
    _same(out, plain)
    assert seen
    mapped, seen = _run(lambda: revsrc.vmap(f)(column))
    np.testing.assert_array_equal(mapped, each)
    mapped, _ = _run(lambda: revsrc.vmap(revsrc.grad(f))(column))
    np.testing.assert_array_equal(mapped, grads)


def test_gradient_values_at_the_pole():
    # d/dx 1/sin(x) = -cos(x)/sin(x)^2: -inf at 0 (as the Python path gives)
    with np.errstate(all="ignore"):
        v, g = revsrc.value_and_grad(div_sin)(0.0)
        assert v == np.inf and g == -np.inf
        assert revsrc.grad(pow_negative)(0.0) == -np.inf
        assert math.isnan(revsrc.grad(sqrt_ratio)(0.0))


@pytest.mark.parametrize("f,x", [(div_sin, 0.7), (pow_overflow, 3.0), (softmax_ratio, 2.0),
                                 (cot_in_loop, 0.4), (log_pow, 2.0),
                                 (tanh_ratio_branch, 0.8), (inv_of_helper, 1.3)])
def test_gradients_away_from_the_edge(f, x):
    # the engine still runs these (no error): central differences agree
    check_grads(f, (x,))


def test_errstate_raise_gives_floating_point_error():
    with np.errstate(all="raise"):
        with pytest.raises(FloatingPointError):
            revsrc.grad(div_sin)(0.0)
        with pytest.raises(FloatingPointError):
            revsrc.jit(div_sin)(0.0)
        with pytest.raises(FloatingPointError):
            div_sin(0.0)


def test_errstate_ignore_is_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="ignore"):
            assert revsrc.grad(div_sin)(0.0) == -np.inf


def py_div(x):
    return 1.0 / math.sin(x)


def test_python_floats_keep_python_errors():
    # no NumPy scalar: Python's float raises, on every path
    with pytest.raises(ZeroDivisionError):
        revsrc.grad(py_div)(0.0)
    with pytest.raises(ZeroDivisionError):
        revsrc.jit(py_div)(0.0)
    with pytest.raises(ZeroDivisionError):
        revsrc.grad(py_div, backend="python")(0.0)


def test_engine_program_flag():
    g = revsrc.grad(div_sin)
    g(1.0)
    assert all(p.numpy_scalars for _, p, _ in g.programs)
    h = revsrc.grad(py_div)
    h(1.0)
    assert not any(p.numpy_scalars for _, p, _ in h.programs)


def test_native_tier_falls_back_too(monkeypatch):
    monkeypatch.setenv("REVSRC_NATIVE", "sync")
    monkeypatch.setenv("REVSRC_NATIVE_AFTER", "1")

    def f(x):
        return 2.0 / np.cos(x) + 1.0 / np.sin(x)
    g = revsrc.grad(f)
    for v in (0.5, 0.6, 0.7):
        g(v)
    progs = [p for _, p, _ in g.programs]
    native = [p.tier for p in progs]
    with np.errstate(all="ignore"):
        out = g(0.0)
        ref = revsrc.grad(f, backend="python")(0.0)
    _same(out, ref)
    if "native" not in native:
        pytest.skip("the native tier did not compile here (no C compiler)")
def test_vmap_on_lanes_falls_back_per_element(monkeypatch):
    from revsrc import mapped
    from revsrc.backends.engine import native
    if not native.enabled():
        pytest.skip("no C compiler")
    monkeypatch.setenv("REVSRC_NATIVE", "sync")
    used = []
    real = mapped._mapper

    def spy(program, compiled, *rest):
        used.append(compiled)
        return real(program, compiled, *rest)
    monkeypatch.setattr(mapped, "_mapper", spy)
    column = np.array([0.0, 0.5, 0.0, 1.5, -0.0, 2.0] * 5)
    with np.errstate(all="ignore"):
        for f in (div_sin, pow_negative, softmax_ratio):
            want = np.array([f(v) for v in column])
            np.testing.assert_array_equal(revsrc.vmap(f)(column), want)
            grads = np.array([revsrc.grad(f, backend="python")(v) for v in column])
            np.testing.assert_array_equal(revsrc.vmap(revsrc.grad(f))(column), grads)
    assert any(c is not None for c in used), "the lanes tier ran"


# ----- jit: refusals never name a temporary -----

def neg_pow(n):
    return 2 ** (-n)


def float_of_pow(n):
    return float(3 ** n)


def test_jit_int_pow_negative_exponent():
    assert revsrc.jit(neg_pow)(3) == 0.125
    assert type(revsrc.jit(neg_pow)(3)) is float
    assert revsrc.jit(neg_pow)(-3) == 8


def test_jit_float_of_big_int_power():
    assert revsrc.jit(float_of_pow)(50) == float(3 ** 50)
    assert revsrc.jit(float_of_pow)(5) == 243.0


_TEMP = re.compile(r"\b_t\d+\b")


def test_no_refusal_names_a_temporary():
    def kinds_message(name):
        from revsrc.backends.engine.lower import NotLowerable, _Lowering
        from revsrc.core import ir
        p = ir.Program("p", ["x"], [], ["x"], kinds={"x": "float", name: "any"})
        with pytest.raises(NotLowerable) as exc:
            _Lowering(p).kind_of(name)
        return str(exc.value)
    assert not _TEMP.search(kinds_message("_t2"))
    assert "user_var" in kinds_message("user_var")


def int_power_times_float(x, n):
    return x * 2 ** (-n) + x ** 2


def int_power_sum(n):
    return 2 ** (-n) + n ** 2


def test_jit_int_power_in_an_expression():
    # 2 ** (-n) is an int while n <= 0, and what follows from it too; a negative
    # exponent makes it a float: the function itself runs then
    for n in (3, -3, 0, 40, -40):
        got, want = revsrc.jit(int_power_sum)(n), int_power_sum(n)
        assert got == want and type(got) is type(want)
    for n in (2, -2):
        assert revsrc.jit(int_power_times_float)(1.5, n) == int_power_times_float(1.5, n)
    g = revsrc.grad(int_power_times_float)
    assert g(1.5, 3) == 0.125 + 3.0
    assert g(1.5, -3) == 8 + 3.0


def int_or_float(n):
    if n > 0:
        y = 2 ** (-n)
    else:
        y = 1.5
    return y * 2


def test_jit_refusal_names_the_variable_and_its_line():
    # y holds an int or a float as the branch goes: refused at the user's line
    with pytest.raises(errors.NotCompilable) as exc:
        revsrc.jit(int_or_float)(2)
    msg = str(exc.value)
    assert exc.value.code == "E502"
    assert "variable 'y'" in msg
    assert "y = 2 ** (-n)" in msg
    assert not _TEMP.search(msg)


def _refused_cases():
    """The cases of corpus 7 that are refused or crash today (its KNOWN; corpus 6's
    refusals are checked the same way by its own harness, `refusal_ok`)."""
    import importlib
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    out = []
    for corpus in ("test_user_programs7",):
        mod = importlib.import_module(corpus)
        out += [(corpus, c) for c in mod.CASES if c["name"] in mod.KNOWN]
    return out


@pytest.mark.parametrize("corpus,c", _refused_cases(), ids=lambda v: v if isinstance(v, str)
                         else v["name"])
def test_no_corpus_refusal_names_a_temporary(corpus, c):
    from user_programs6_harness import run_case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome, detail = run_case(c)
    assert not _TEMP.search(detail), f"{c['name']}: {detail}"
