"""The kernels loop bodies of array programs call instead of NumPy (revsrc/_loop_kernels.pxi,
"Small-array operations of loop bodies"; revsrc/prune.py, loop_kernels): the same
bits, dtype and shape as the NumPy expression, NumPy itself for anything else, and
NumPy's floating-point warnings and errors under the caller's np.errstate."""
import operator
import warnings

import numpy as np
import pytest

import revsrc
from revsrc import _kernels
from revsrc.runtime.grads import linalg as _helpers
from revsrc.testing import check_grads

BINARY = {
    "add": (_kernels.add, operator.add),
    "subtract": (_kernels.subtract, operator.sub),
    "multiply": (_kernels.multiply, operator.mul),
    "true_divide": (_kernels.true_divide, operator.truediv),
}

# (shape of a, shape of b): one shape, a matrix and a row either way round
PAIRS = [((7,), (7,)), ((16, 32), (16, 32)), ((3, 4, 5), (3, 4, 5)), ((16, 32), (32,)),
         ((32,), (16, 32)), ((1, 5), (5,)), ((0, 3), (3,)), ((0,), (0,))]


def _same(got, want):
    assert type(got) is type(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.flags.c_contiguous == want.flags.c_contiguous
    np.testing.assert_array_equal(got.view(np.uint8) if got.size else got,
                                  want.view(np.uint8) if want.size else want)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shapes", PAIRS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_kernels_give_numpys_bits(name, shapes, dtype):
    kernel, op = BINARY[name]
    r = np.random.default_rng(1)
    a = r.standard_normal(shapes[0]).astype(dtype)
    b = (r.standard_normal(shapes[1]) + 3.0).astype(dtype)
    _same(kernel(a, b), op(a, b))


@pytest.mark.parametrize("scalar", [2.5, -0.1, 1e-300])
@pytest.mark.parametrize("name", BINARY)
def test_binary_kernels_take_a_python_float_on_either_side(name, scalar):
    kernel, op = BINARY[name]
    a = np.random.default_rng(2).standard_normal((4, 6)) + 5.0
    _same(kernel(a, scalar), op(a, scalar))
    _same(kernel(scalar, a), op(scalar, a))


OTHERS = [
    (np.arange(6.0).reshape(2, 3), np.arange(2.0).reshape(2, 1)),        # a column
    (np.arange(6), np.arange(6)),                                        # ints
    (np.arange(6.0), np.arange(6, dtype=np.float32)),                    # mixed dtypes
    (np.arange(6, dtype=np.float32), 2.5),                               # weak float32 scalar
    (np.arange(6.0), np.float64(2.0)),                                   # a NumPy scalar
    (np.array(2.0), np.array(3.0)),                                      # 0-d
    (np.arange(12.0).reshape(3, 4).T, np.ones((4, 3))),                  # not contiguous
    (np.arange(3.0).view(np.ndarray).astype(">f8"), np.ones(3)),         # byte-swapped
    (np.ma.masked_array(np.arange(3.0), [0, 1, 0]), np.ones(3)),         # a subclass
    (np.arange(3.0) + 1j, np.ones(3)),                                   # complex
    (2.0, 3.0),                                                          # numbers
    ([1.0, 2.0], [3.0]),                                                 # lists (+, *)
]


@pytest.mark.parametrize("case", range(len(OTHERS)))
@pytest.mark.parametrize("name", BINARY)
def test_binary_kernels_leave_the_rest_to_python(name, case):
    kernel, op = BINARY[name]
    a, b = OTHERS[case]
    try:
        want = op(a, b)
    except TypeError as e:
        with pytest.raises(TypeError, match=str(e)[:20]):
            kernel(a, b)
        return
    got = kernel(a, b)
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(want))
        if isinstance(want, np.ma.MaskedArray):
            np.testing.assert_array_equal(got.mask, want.mask)
    else:
        assert got == want


def test_python_division_by_zero_still_raises():
    with pytest.raises(ZeroDivisionError):
        _kernels.true_divide(1.0, 0.0)


@pytest.mark.parametrize("name", ["multiply", "true_divide", "subtract"])
def test_floating_point_errors_follow_errstate(name):
    kernel, op = BINARY[name]
    a = np.array([1e300, 1.0, np.inf, 0.0])
    b = {"multiply": np.array([1e300, 2.0, 0.0, 1.0]),
         "true_divide": np.array([1e-300, 0.0, 1.0, 0.0]),
         "subtract": np.array([-1e308 * 1.5, 0.0, np.inf, 1.0])}[name]
    with warnings.catch_warnings(record=True) as want_w:
        warnings.simplefilter("always")
        want = op(a, b)
    with warnings.catch_warnings(record=True) as got_w:
        warnings.simplefilter("always")
        got = kernel(a, b)
    assert want_w, "the case must raise a floating-point warning in NumPy"
    assert [str(w.message) for w in got_w] == [str(w.message) for w in want_w]
    np.testing.assert_array_equal(got, want)
    with np.errstate(all="raise"):
        with pytest.raises(FloatingPointError):
            kernel(a, b)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(kernel(a, b), want)


UNARY = {
    "tanh": (_kernels.tanh, np.tanh), "exp": (_kernels.exp, np.exp),
    "log": (_kernels.log, np.log), "sin": (_kernels.sin, np.sin),
    "cos": (_kernels.cos, np.cos), "sqrt": (_kernels.sqrt, np.sqrt),
    "np_negative": (_kernels.np_negative, np.negative),
    "negative": (_kernels.negative, operator.neg),
    "absolute": (_kernels.absolute, np.absolute),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(5,), (16, 32), (3, 4, 5), (0,), (1000,), (70, 70)])
@pytest.mark.parametrize("name", UNARY)
def test_unary_kernels_give_numpys_bits(name, shape, dtype):
    kernel, numpy_fn = UNARY[name]
    x = (4.0 * np.random.default_rng(3).standard_normal(shape)).astype(dtype)
    if name in ("log", "sqrt"):
        x = np.abs(x) + dtype(0.01)
    _same(kernel(x), numpy_fn(x))


@pytest.mark.parametrize("x", [np.array(0.5), 0.5, np.arange(4), np.arange(4.0)[::2],
                               np.arange(3.0) + 1j, [0.1, 0.2], True, -3])
@pytest.mark.parametrize("name", UNARY)
def test_unary_kernels_leave_the_rest_to_numpy(name, x):
    kernel, numpy_fn = UNARY[name]
    try:
        want = numpy_fn(x)
    except TypeError:
        with pytest.raises(TypeError):
            kernel(x)
        return
    got = kernel(x)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["log", "sqrt"])
def test_unary_kernels_warn_as_numpy_does(name):
    kernel, numpy_fn = UNARY[name]
    x = np.array([-1.0, 0.0, 2.0])
    with warnings.catch_warnings(record=True) as want_w:
        warnings.simplefilter("always")
        want = numpy_fn(x)
    with warnings.catch_warnings(record=True) as got_w:
        warnings.simplefilter("always")
        got = kernel(x)
    assert want_w and [str(w.message) for w in got_w] == [str(w.message) for w in want_w]
    np.testing.assert_array_equal(got, want)
    with np.errstate(all="raise"), pytest.raises(FloatingPointError):
        kernel(x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shapes", [((16, 32), (16, 32)), ((16, 32), (32,)), ((32,), (16, 32))],
                         ids=str)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_and_minimum_kernels_give_numpys_bits(name, shapes, dtype):
    kernel, numpy_fn = getattr(_kernels, name), getattr(np, name)
    r = np.random.default_rng(8)
    a = r.standard_normal(shapes[0]).astype(dtype)
    b = r.standard_normal(shapes[1]).astype(dtype)
    a.flat[0] = np.nan
    _same(kernel(a, b), numpy_fn(a, b))
    _same(kernel(a, 0.0) if dtype is np.float64 else numpy_fn(a, 0.0), numpy_fn(a, 0.0))
    assert kernel([1.0, 5.0], [3.0, 2.0]).tolist() == numpy_fn([1.0, 5.0], [3.0, 2.0]).tolist()


DOTS = [((16, 32), (32, 8)), ((5,), (5, 3)), ((4, 5), (5,)), ((6,), (6,)),
        ((2, 3, 4), (4, 2)), ((3, 4), (4, 5))]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("shapes", DOTS, ids=str)
def test_dot_kernel_is_np_dot(shapes, dtype):
    r = np.random.default_rng(4)
    a = (10 * r.standard_normal(shapes[0])).astype(dtype)
    b = (10 * r.standard_normal(shapes[1])).astype(dtype)
    want = np.dot(a, b)
    got = _kernels.dot(a, b)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    # a matrix with its own transpose (NumPy's syrk path) and a transposed view
    m = a if a.ndim == 2 else a.reshape(1, -1)
    np.testing.assert_array_equal(_kernels.dot(m, m.T), np.dot(m, m.T))


def test_dot_kernel_leaves_subclasses_and_lists_to_numpy():
    m = np.ma.masked_array(np.arange(6.0).reshape(2, 3), [[0, 1, 0], [0, 0, 0]])
    got, want = _kernels.dot(m, np.ones((3, 2))), np.dot(m, np.ones((3, 2)))
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(_kernels.dot([[1.0, 2.0]], [3.0, 4.0]), np.dot([[1.0, 2.0]], [3.0, 4.0]))
    with pytest.raises(ValueError):
        _kernels.dot(np.ones((2, 3)), np.ones((2, 3)))


GRAD_DOTS = [((16, 32), (32, 8)), ((5,), (5, 3)), ((4, 5), (5,)), ((6,), (6,)),
             ((2, 3, 4), (4, 2)), ((3, 4), (4, 5)), ((), (3,)), ((3, 4), ())]


@pytest.mark.parametrize("shapes", GRAD_DOTS, ids=str)
def test_dot_grad_kernels_are_the_rules_helpers(shapes):
    r = np.random.default_rng(5)
    a = r.standard_normal(shapes[0])
    b = r.standard_normal(shapes[1])
    g = r.standard_normal(np.shape(np.dot(a, b)))
    for kernel, helper in [(_kernels.dot_grad_a, _helpers.dot_grad_a),
                           (_kernels.dot_grad_b, _helpers.dot_grad_b)]:
        want = helper(g, a, b)
        got = kernel(g, a, b)
        assert type(got) is type(want)
        np.testing.assert_array_equal(got, want)


# ----- the pass: which operations of a program it sends to the kernels -----

def rnn(W, U, xs, h0, b):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(np.dot(h, W) + np.dot(xs[t], U) + b)
    d = h * 0.5 - 0.1
    return np.sum(d * d) / 2.0


def _rnn_data(dtype=np.float64):
    r = np.random.default_rng(6)
    return (0.5 * r.standard_normal((8, 8)).astype(dtype), r.standard_normal((4, 8)).astype(dtype),
            r.standard_normal((5, 3, 4)).astype(dtype), r.standard_normal((3, 8)).astype(dtype),
            r.standard_normal(8).astype(dtype))


def test_loop_bodies_call_the_kernels_and_straight_code_stays_numpy():
    g = revsrc.grad(rnn, argnums=(0, 1, 4))
    data = _rnn_data()
    g(*data)
    src = revsrc.source(g)
    loops = [ln.strip() for ln in src.splitlines() if ln.startswith("        ")]
    straight = [ln.strip() for ln in src.splitlines()
                if ln.startswith("    ") and not ln.startswith("        ")]
    for name in ("dot", "add", "tanh", "dot_grad_a", "dot_grad_b"):
        assert any(f"_kernels.{name}(" in ln for ln in loops), (name, src)
    assert not any("_kernels." in ln for ln in straight), src
    # the loop's own counter arithmetic is not sent to a kernel
    assert not any("_kernels" in ln and "range" in ln for ln in loops)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rnn_gradient_with_kernels_is_right(dtype):
    data = _rnn_data(dtype)
    got = revsrc.grad(rnn, argnums=(0, 1, 4))(*data)
    if dtype is np.float32:
        want64 = revsrc.grad(rnn, argnums=(0, 1, 4))(*[d.astype(np.float64) for d in data])
        for g32, g64 in zip(got, want64):
            assert g32.dtype == np.float32
            np.testing.assert_allclose(g32, g64, rtol=2e-4, atol=2e-5)
        return
    assert [g.shape for g in got] == [data[0].shape, data[1].shape, data[4].shape]
    check_grads(rnn, data, argnums=(0, 1, 3, 4), directions=4)


def test_loop_value_is_numpys_bit_for_bit():
    data = _rnn_data()
    value, _ = revsrc.value_and_grad(rnn)(*data)
    assert value == rnn(*data)


def scaled_growth(x, n):
    y = x
    for _ in range(n):
        y = y * 1e200
    return np.sum(y)


def test_overflow_in_a_loop_warns_and_raises_as_numpy_does():
    x = np.array([1.0, 2.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        g = revsrc.grad(scaled_growth)(x, 3)
    assert any("overflow" in str(m.message) for m in w)
    np.testing.assert_array_equal(g, [np.inf, np.inf])
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            revsrc.grad(scaled_growth)(x, 3)


def in_block(x, n):
    y = x
    with np.errstate(over="raise"):
        for _ in range(n):
            y = y * 1e200
    return np.sum(y)


def test_errstate_in_the_users_code_still_raises():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(revsrc.grad(in_block)(x, 1), [1e200, 1e200])
    with pytest.raises(FloatingPointError):
        revsrc.grad(in_block)(x, 3)


# ----- found by a tester: the ufuncs by name fall back to themselves, complex adjoints

def shape_arithmetic(x):
    s = 0.0
    for _ in range(2):
        n = np.prod(np.multiply(x.shape, 2))     # an array of ints, not a repeated tuple
        m = np.add(x.shape, 1)
        s = s + np.sum(x) * n + np.sum(x) * m[0]
    return s


def list_ufuncs(x, lst):
    s = 0.0
    for _ in range(2):
        s = s + np.sum(np.add(lst, lst)) * x + np.sum(np.multiply(lst, lst))
    return s


class _Config:
    a = 1.0


def divides_an_attribute(x, cfg):
    s = 0.0
    for _ in range(1):
        q = np.multiply(cfg.a, 2.0)
        s = s + np.sum(x) * np.true_divide(cfg.a, 0.0) + q
    return s


def test_ufuncs_by_name_in_loops_are_the_ufuncs():
    x = np.ones((3, 4))
    value, g = revsrc.value_and_grad(shape_arithmetic)(x)
    assert value == shape_arithmetic(x)
    np.testing.assert_array_equal(g, np.full(x.shape, 2 * (48 + 4)))
    lst = [1.0, 2.0]
    value, (gx, glst) = revsrc.value_and_grad(list_ufuncs, argnums=(0, 1))(1.5, lst)
    assert value == list_ufuncs(1.5, lst)
    assert gx == 12.0 and list(glst) == [2 * (2 * 1.5 + 2 * 1.0), 2 * (2 * 1.5 + 2 * 2.0)]


def test_a_ufunc_on_python_numbers_in_a_loop_keeps_numpys_rules():
    x = np.ones(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        value, g = revsrc.value_and_grad(divides_an_attribute)(x, _Config())
    assert any("divide by zero" in str(m.message) for m in w)
    assert value == np.inf and type(value) is np.float64
    np.testing.assert_array_equal(g, [np.inf] * 3)


def complex_dots(W, A, B, C):
    s = 0.0
    for _ in range(1):
        h = np.abs(np.dot(A, W))        # A complex, W real
        z = np.dot(B, h)                # h's adjoint through dot_grad_b: kept real
        h2 = np.abs(np.dot(h, C))       # C complex
        y = np.dot(h2, np.ones((2, 2)) + 0.5j)  # h2's adjoint through dot_grad_a
        s = s + np.sum(np.abs(z) ** 2) + np.sum(np.abs(y) ** 2)
    return s


def test_a_real_arrays_adjoint_stays_real_through_complex_dots_in_a_loop():
    r = np.random.default_rng(0)
    W = r.standard_normal((3, 2))
    A = r.standard_normal((3, 3)) + 1j * r.standard_normal((3, 3))
    B = r.standard_normal((4, 3)) + 1j * r.standard_normal((4, 3))
    C = r.standard_normal((2, 2)) + 1j * r.standard_normal((2, 2))
    g = revsrc.grad(complex_dots)(W, A, B, C)
    assert g.dtype == np.float64
    check_grads(complex_dots, (W, A, B, C), directions=4)


def test_forward_over_reverse_through_a_loop_with_kernels():
    # revsrc.hvp runs the jvp program of the gradient, whose loop goes through the kernels
    data = _rnn_data()
    v = np.random.default_rng(7).standard_normal(data[0].shape)
    got = revsrc.hvp(rnn, data, (v, None, None, None, None))
    g = revsrc.grad(rnn)
    eps = 1e-5
    plus = g(data[0] + eps * v, *data[1:])
    minus = g(data[0] - eps * v, *data[1:])
    np.testing.assert_allclose(got, (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)


def elementwise_steps(x, w):
    y = x
    for _ in range(3):
        z = np.exp(-np.abs(y)) + np.log(1.0 + y * y) + np.sqrt(y * y + 1.0)
        y = np.maximum(np.sin(z) * w, np.cos(z) - 0.5) - np.minimum(y, 0.2) * 0.1
        y = -y + np.negative(0.5 * y)
    return np.sum(y * y)


def test_elementwise_loop_with_kernels_is_right():
    r = np.random.default_rng(9)
    x, w = r.standard_normal((4, 5)), r.standard_normal(5)
    vg = revsrc.value_and_grad(elementwise_steps, argnums=(0, 1))
    value, _ = vg(x, w)
    assert value == elementwise_steps(x, w)
    src = revsrc.source(vg)
    for name in ("exp", "absolute", "log", "sqrt", "maximum", "minimum", "sin", "cos",
                 "negative", "np_negative"):
        assert f"_kernels.{name}(" in src, name
    check_grads(elementwise_steps, (x, w), argnums=(0, 1), directions=4)


def test_unbroadcast_and_accumulate_kernels_are_the_runtimes():
    from revsrc import runtime
    from revsrc.runtime import tensor
    r = np.random.default_rng(10)
    g, x, row = r.standard_normal((4, 3)), r.standard_normal((4, 3)), r.standard_normal(3)
    assert _kernels.unbroadcast(g, x) is g
    for other in (row, 2.0, np.float64(2.0), r.standard_normal((1, 3)), [1.0, 2.0, 3.0]):
        want = tensor.unbroadcast(g, other)
        got = _kernels.unbroadcast(g, other)
        assert type(got) is type(want)
        np.testing.assert_array_equal(got, want)
    acc = np.zeros((4, 3))
    assert _kernels.accumulate(acc, g) is acc
    np.testing.assert_array_equal(acc, g)
    for a, t in ((0.0, g), (np.zeros(3), 2.0), (np.zeros((4, 3), np.float32), g)):
        want = runtime.accumulate(np.copy(a) if isinstance(a, np.ndarray) else a, t)
        got = _kernels.accumulate(np.copy(a) if isinstance(a, np.ndarray) else a, t)
        assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shapes", [((100, 64), (100, 64)), ((100, 64), (64,)), ((8192,), (8192,))],
                         ids=str)
def test_binary_kernels_on_arrays_that_release_the_gil(shapes):
    # 4,096 elements and more run without the GIL: the same bits and the same warnings
    r = np.random.default_rng(11)
    a, b = r.standard_normal(shapes[0]), r.standard_normal(shapes[1])
    for name, (kernel, op) in BINARY.items():
        _same(kernel(a, b), op(a, b))
    big = np.full(shapes[0], 1e300)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        _kernels.multiply(big, big)


def test_kernels_from_threads_keep_each_threads_errstate():
    import threading
    r = np.random.default_rng(12)
    a = r.standard_normal((100, 64))
    big = np.full((100, 64), 1e300)
    want = a * a + a
    problems = []

    def plain():
        for _ in range(200):
            got = _kernels.add(_kernels.multiply(a, a), a)
            if not np.array_equal(got, want):
                problems.append("value")

    def overflowing():
        for _ in range(200):
            with np.errstate(over="raise"):
                try:
                    _kernels.multiply(big, big)
                    problems.append("no error")
                except FloatingPointError:
                    pass

    threads = [threading.Thread(target=f) for f in (plain, overflowing, plain, overflowing)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert problems == []
