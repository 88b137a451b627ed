"""Round 12's findings of the misc family (issue misc12): NumPy float32/float16 scalar
arguments compute in their own precision on every path; loops over itertools.count
bounded by islice, zip or a break (never an endless list); constants and branches
known when transforming. Values against the plain call, gradients against central
differences."""
import itertools
import math
from itertools import count, islice

import numpy as np
import pytest

import revsrc


def fd(f, x, *rest, h=1e-6):
    if np.ndim(x) == 0:
        return (f(x + h, *rest) - f(x - h, *rest)) / (2 * h)
    g = np.zeros(np.shape(x))
    for i in np.ndindex(np.shape(x)):
        e = np.zeros(np.shape(x))
        e[i] = h
        g[i] = (f(x + e, *rest) - f(x - e, *rest)) / (2 * h)
    return g


# ----- NumPy float32 / float16 scalars: NumPy's arithmetic, as the plain call -----

def affine(x):
    return x * 3 + 0.1


def affine_loop(x):
    y = x
    for _ in range(5):
        y = y * 1.1 + 0.01
    return y


def powered(x, n):
    s = x
    for _ in range(n):
        s = s * x - 0.3 * math.sin(0.1)
    return s


SCALARS = [np.float32(0.1), np.float16(0.1), np.float32(-2.7), np.float16(1.5)]


@pytest.mark.parametrize("f", [affine, affine_loop])
@pytest.mark.parametrize("x", SCALARS, ids=lambda v: f"{type(v).__name__}({v})")
def test_low_precision_scalar_value_is_the_plain_calls(f, x):
    want = f(x)
    for value in (revsrc.value_and_grad(f)(x)[0], revsrc.jvp(f, (x,), (type(x)(1),))[0],
                  revsrc.vjp(f, x)[0], revsrc.jit(f)(x)):
        assert type(value) is type(want) and value == want
    # the gradient follows the argument's type, within its precision
    g = revsrc.grad(f)(x)
    assert type(g) is type(x)
    assert abs(float(g) - revsrc.grad(f)(float(x))) <= 4 * np.finfo(type(x)).eps * abs(float(g))
    assert type(revsrc.jvp(f, (x,), (type(x)(1),))[1]) is type(x)


def test_low_precision_scalar_repeated_calls_and_int_argument():
    vg = revsrc.value_and_grad(powered)
    for _ in range(3):       # a call after the engine program is installed too
        assert vg(1.3, 4)[0] == powered(1.3, 4)
        v, g = vg(np.float32(1.3), 4)
        assert type(v) is np.float32 and v == powered(np.float32(1.3), 4)
        assert abs(g - fd(powered, 1.3, 4)) < 1e-4 * abs(g)
    # np.float64 keeps running on the engine, with Python's digits
    v, g = vg(np.float64(1.3), 4)
    assert v == powered(1.3, 4) and g == vg(1.3, 4)[1]


# ----- itertools.count, bounded where it is read -----

def islice_series(x):
    s = 0.0
    for k in itertools.islice(itertools.count(1), 5):
        s += x ** k / k
    return s


def islice_stride(x, n=4):
    s = 0.0
    for k in islice(count(1, 2), n):
        s += x * k
    return s


def islice_start_step(x):
    return sum([x * k for k in islice(count(), 2, 8, 2)])


def islice_summed(x):
    return sum(islice(count(2, 3), 4)) * x


def islice_float_count(x):
    return sum(list(islice(count(0.5, 0.1), 4))) * x


def zip_with_count(xs):
    s = 0.0
    for k, v in zip(itertools.count(), xs):
        s += k * v * v
    return s


def zip_count_static(x):
    s = 0.0
    for k, w in zip(count(1), (1.0, 2.0, 3.0)):
        s += w * x ** k
    return s


def zip_count_down(x):
    s = 0.0
    for i, (k, v) in enumerate(zip(count(10, -1), [x, 2 * x, 3 * x])):
        s += i * k * v
    return s


def count_break(x):
    s = 0.0
    for k in itertools.count():
        if k >= 5:
            break
        s += x * k
    return s


def count_float_break(x):
    s = 0.0
    for t in count(0.5, 0.1):
        if t > 1.2:
            break
        s += x * t
    return s


def count_return(x):
    s = x
    for k in count(1):
        s = s * 0.5 + math.sin(s)
        if k == 6:
            return s
    return 0.0


def count_continue(x):
    s = 0.0
    for k in count():
        if k % 2:
            continue
        if k > 6:
            break
        s = s + x * k
    return s


@pytest.mark.parametrize("f", [islice_series, islice_stride, islice_start_step, islice_summed,
                               islice_float_count, zip_count_static, zip_count_down,
                               count_break, count_float_break, count_return, count_continue])
def test_count_loops(f):
    x = 0.7
    value, g = revsrc.value_and_grad(f)(x)
    assert value == f(x)
    assert abs(g - fd(f, x)) < 1e-6 * max(1.0, abs(g))
    assert revsrc.jvp(f, (x,), (1.0,)) == pytest.approx((f(x), g), rel=1e-12)
    h = revsrc.hessian(f)(x)
    assert abs(h - fd(revsrc.grad(f), x)) < 1e-5 * max(1.0, abs(h))


@pytest.mark.parametrize("f", [islice_series, islice_stride, islice_start_step,
                               zip_count_static, count_break, count_float_break,
                               count_return, count_continue])
def test_count_loops_compile(f):
    assert revsrc.jit(f)(0.7) == f(0.7)
    assert revsrc.jit(revsrc.grad(f))(0.7) == revsrc.grad(f)(0.7)


def test_zip_with_count_array():
    xs = np.array([1.0, 2.0, 3.0])
    assert np.array_equal(revsrc.grad(zip_with_count)(xs), [0.0, 4.0, 12.0])
    assert np.array_equal(revsrc.grad(zip_with_count)(xs[:0]), np.zeros(0))


def test_islice_count_negative_stop_raises_as_python():
    with pytest.raises(ValueError):
        islice_stride(0.7, -1)
    with pytest.raises(ValueError, match="Stop argument for islice"):
        revsrc.grad(islice_stride)(0.7, -1)
    assert revsrc.grad(islice_stride)(0.7, 0) == 0.0


def enumerate_count(x):
    s = 0.0
    for i, k in enumerate(count()):
        if i > 3:
            break
        s += x * k
    return s


def zip_float_count(xs):
    return sum(k * v for k, v in zip(count(0.5), xs))


def cycle_loop(xs):
    s = 0.0
    for v in itertools.cycle(xs):
        s = s + v
        if s > 10:
            break
    return s


def zip_strict_count(xs):
    return sum(k * v for k, v in zip(count(), xs, strict=True))


@pytest.mark.parametrize("f, arg", [(enumerate_count, 0.7), (zip_float_count, np.ones(3)),
                                    (cycle_loop, np.ones(3)), (zip_strict_count, np.ones(3))])
def test_endless_iterators_refused_before_running(f, arg):
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(f)(arg)
    assert info.value.code == "E101"
    assert "count" in str(info.value) or "cycle" in str(info.value)


# ----- values known when transforming: branches, attributes, constants, tables -----

def trapz_compat_ternary(x):
    return np.trapezoid(x ** 2, dx=0.1) if hasattr(np, "trapezoid") else np.trapz(x ** 2, dx=0.1)


def trapz_compat_if(x):
    if hasattr(np, "trapezoid"):
        return np.trapezoid(x ** 2, dx=0.1)
    return np.trapz(x ** 2, dx=0.1)


def untaken_ternary_arm(x):
    # the arm not taken would fail if it ran (no such attribute)
    return math.sin(x) if not hasattr(math, "no_such_function") else math.no_such_function(x)


def getattr_constant(x):
    f = getattr(math, "cos")
    g = getattr(math, "no_such", math.exp)
    return f(x) + g(x) + getattr(math, "sin")(x) * getattr(math, "pi")


@pytest.mark.parametrize("f", [trapz_compat_ternary, trapz_compat_if])
def test_version_compat_branches(f):
    xt = np.array([-0.5, 3.0, 0.4])
    g = revsrc.grad(f)(xt)
    np.testing.assert_allclose(g, fd(f, xt), rtol=1e-6)
    np.testing.assert_allclose(g, [-0.05, 0.6, 0.04], rtol=1e-14)


@pytest.mark.parametrize("f", [untaken_ternary_arm, getattr_constant])
def test_attributes_known_when_transforming(f):
    value, g = revsrc.value_and_grad(f)(0.3)
    assert value == f(0.3)
    assert abs(g - fd(f, 0.3)) < 1e-8
    assert revsrc.jit(f)(0.3) == f(0.3)


def getattr_by_name(x, name):
    return getattr(math, name)(x)


def test_getattr_by_run_time_name_refused_with_the_rewrite():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(getattr_by_name)(0.3, "sin")
    assert info.value.code == "E101" and "getattr" in str(info.value)
    assert "dict of functions" in str(info.value)


def local_tuple_of_functions(x):
    fs = (math.sin, math.cos)
    return fs[0](x) + fs[1](x) * fs[-1](2 * x)


def local_dict_constant_key(x):
    table = {"sq": lambda v: v * v, "tanh": math.tanh}
    return table["sq"](x) + table["tanh"](x)


def local_dict_run_time_key(x, kind):
    table = {"relu": lambda v: max(v, 0.0), "tanh": math.tanh,
             "soft": lambda v: math.log1p(math.exp(v)), "cube": lambda v: v * v * v}
    return table[kind](x) * 2.0


def test_local_tables_of_functions():
    for f in (local_tuple_of_functions, local_dict_constant_key):
        value, g = revsrc.value_and_grad(f)(0.4)
        assert value == f(0.4) and abs(g - fd(f, 0.4)) < 1e-8
    for kind in ("relu", "tanh", "soft", "cube"):
        value, g = revsrc.value_and_grad(local_dict_run_time_key)(0.4, kind)
        assert value == local_dict_run_time_key(0.4, kind)
        assert abs(g - fd(local_dict_run_time_key, 0.4, kind)) < 1e-8
        assert revsrc.hessian(local_dict_run_time_key)(0.4, kind) == pytest.approx(
            fd(revsrc.grad(local_dict_run_time_key), 0.4, kind), abs=1e-6)
    with pytest.raises(KeyError):
        revsrc.grad(local_dict_run_time_key)(0.4, "gelu")


def inf_start_running_min(x):
    best = float("inf")
    for k in range(3):
        v = (x - k) ** 2
        if v < best:
            best = v
    return best


def nan_literal(x):
    return math.sqrt(x) if x >= 0 else float("nan") + float("-inf") * 0.0


def test_float_of_string_constants():
    xs = np.array([1.3, 0.2, 2.6])
    assert revsrc.jit(inf_start_running_min)(1.3) == inf_start_running_min(1.3)
    np.testing.assert_array_equal(revsrc.vmap(inf_start_running_min)(xs),
                                  [inf_start_running_min(v) for v in xs])
    assert abs(revsrc.grad(inf_start_running_min)(1.3) - 0.6) < 1e-12
    assert math.isnan(revsrc.jit(nan_literal)(-1.0))
    assert revsrc.jit(nan_literal)(4.0) == 2.0


GK = 2.0


def globals_lookup(x):
    GK = 10.0     # a local of the same name: globals()["GK"] is still the global
    return globals()["GK"] * x + GK * 0.0


def test_globals_constant_key_is_a_global_read():
    global GK
    df = revsrc.grad(globals_lookup)
    assert df(1.0) == 2.0
    GK = 7.0
    try:
        assert df(1.0) == 7.0
    finally:
        GK = 2.0


def jit_inner(a, b):
    return math.exp(a) * math.sin(b) + a * b


def uses_jit_inside(x):
    f = revsrc.jit(jit_inner)
    return f(x, 2 * x) ** 2


def test_jit_made_inside():
    g = revsrc.grad(uses_jit_inside)(0.3)
    assert abs(g - fd(uses_jit_inside, 0.3)) < 1e-7
    assert abs(g - 7.896211940972) < 1e-9


def jit_of_nested_def(x):
    def h(a):
        return a * x + math.sin(a)
    f = revsrc.jit(h)
    return f(x) * 2.0


def grad_of_nested_def(x):
    def h(a):
        return a * x
    return revsrc.grad(h)(x)


def test_jit_of_a_def_made_inside_is_the_def():
    g = revsrc.grad(jit_of_nested_def)(0.7)
    assert abs(g - fd(jit_of_nested_def, 0.7)) < 1e-7
    assert revsrc.jit(jit_of_nested_def)(0.7) == jit_of_nested_def(0.7)


def test_grad_of_a_def_made_inside_refused_without_internal_names():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(grad_of_nested_def)(0.7)
    assert info.value.code == "E101" and "defined inside" in str(info.value)
    assert "NestedDef" not in str(info.value) and "object at" not in str(info.value)


def zip_count_read_once(xs):
    pairs = list(zip(count(), xs))
    return sum(k * v * v for k, v in pairs)


def sorted_zip_count(xs):
    s = 0.0
    for k, v in sorted(zip(count(1), xs)):
        s += k * v
    return s


def test_zip_with_count_read_at_once():
    xs = np.array([1.0, 2.0, 3.0])
    for f in (zip_count_read_once, sorted_zip_count):
        value, g = revsrc.value_and_grad(f)(xs)
        assert value == f(xs)
        np.testing.assert_allclose(g, fd(f, xs), rtol=1e-7)


def count_kept_in_a_name(x):
    c = count(1)
    s = 0.0
    for k in c:
        if k > 3:
            break
        s += x * k
    return s


def count_made_a_list(x):
    ks = list(itertools.islice(itertools.count(), 3)) + list(itertools.count())
    return x * len(ks)


@pytest.mark.parametrize("f", [count_kept_in_a_name, count_made_a_list])
def test_endless_count_never_materialized(f):
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(f)(0.5)
    assert info.value.code == "E101" and "count" in str(info.value)
