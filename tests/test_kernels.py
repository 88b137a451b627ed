"""The compiled kernels and revsrc.tensor, each against the NumPy expression it replaces."""
import numpy as np
import pytest

from revsrc import _kernels
from revsrc.runtime import forward_grads, tensor

DTYPES = [np.float64, np.float32]
RTOL = {np.float64: 1e-12, np.float32: 1e-6}


def rng(seed=0):
    return np.random.default_rng(seed)


# ----- Stacks -----

@pytest.mark.parametrize("cls, values", [
    (_kernels.FloatStack, [0.0, -1.5, 1e300, float("inf"), 5e-324]),
    (_kernels.IntStack, [0, -1, 2**62, -(2**63), 2**63 - 1]),
])
def test_stack_push_pop_is_lifo(cls, values):
    s = cls()
    for v in values:
        s.push(v)
    assert len(s) == len(values)
    assert s.nbytes == 8 * len(values)
    assert [s.pop() for _ in values] == values[::-1]
    assert len(s) == 0


def test_float_stack_keeps_nan_and_signed_zero():
    s = _kernels.FloatStack()
    s.push(float("nan"))
    s.push(-0.0)
    z = s.pop()
    assert z == 0.0 and np.signbit(z)
    assert np.isnan(s.pop())


@pytest.mark.parametrize("cls", [_kernels.FloatStack, _kernels.IntStack])
def test_stack_grows_past_a_million(cls):
    n = 1_500_000
    s = cls(1)
    for i in range(n):
        s.push(i)
    assert len(s) == n
    assert s.capacity >= n
    assert s.nbytes == 8 * n
    for i in reversed(range(n - 10, n)):
        assert s.pop() == i
    s.clear()
    assert len(s) == 0 and s.nbytes == 0
    assert s.capacity >= n  # clear keeps the memory for the next sweep


@pytest.mark.parametrize("cls", [_kernels.FloatStack, _kernels.IntStack])
def test_stack_pop_empty_raises(cls):
    s = cls()
    with pytest.raises(IndexError):
        s.pop()
    s.push(1)
    s.pop()
    with pytest.raises(IndexError):
        s.pop()


def test_int_stack_keeps_ints_past_64_bits():
    # a Python int that does not fit is kept as it is (tests/test_big_ints.py)
    s = _kernels.IntStack()
    s.push(2**63)
    s.push(-1)
    assert (s.pop(), s.pop()) == (-1, 2**63)


# ----- scatter_add_rows -----

def scatter_reference(out, idx, vals):
    ref = out.copy()
    np.add.at(ref, idx, vals)
    return ref


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_rows_accumulates_repeats(dtype):
    r = rng()
    out = r.standard_normal((50, 7)).astype(dtype)
    idx = np.concatenate([r.integers(-50, 50, 200), [3, 3, 3, -1, 49]]).astype(np.intp)
    vals = r.standard_normal((idx.size, 7)).astype(dtype)
    ref = scatter_reference(out, idx, vals)
    _kernels.scatter_add_rows(out, idx, vals)
    np.testing.assert_allclose(out, ref, rtol=RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_rows_empty(dtype):
    out = np.ones((4, 3), dtype)
    _kernels.scatter_add_rows(out, np.zeros(0, np.intp), np.zeros((0, 3), dtype))
    assert (out == 1).all()
    empty = np.zeros((0, 3), dtype)
    _kernels.scatter_add_rows(empty, [], np.zeros((0, 3)))
    zero_width = np.zeros((4, 0), dtype)
    _kernels.scatter_add_rows(zero_width, [1, 1], np.zeros((2, 0)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_rows_normalizes_idx_and_vals(dtype):
    r = rng(1)
    out = np.zeros((6, 4), dtype)
    idx = np.array([5, 0, 5, 2, 2, 2], dtype=np.int32)[::-1]  # other dtype, negative stride
    vals = r.standard_normal((4, 6)).T  # Fortran-ordered, float64
    ref = scatter_reference(out, idx, vals.astype(dtype))
    _kernels.scatter_add_rows(out, idx, vals)
    np.testing.assert_allclose(out, ref, rtol=RTOL[dtype])


def test_scatter_add_rows_refuses_bad_input():
    out = np.zeros((3, 2))
    with pytest.raises(IndexError):
        _kernels.scatter_add_rows(out, [0, 3], np.ones((2, 2)))
    with pytest.raises(IndexError):
        _kernels.scatter_add_rows(out, [-4], np.ones((1, 2)))
    with pytest.raises(ValueError):
        _kernels.scatter_add_rows(out, [0, 1], np.ones((3, 2)))
    with pytest.raises(ValueError):
        _kernels.scatter_add_rows(np.zeros((3, 2, 1)), [0], np.ones((1, 2)))
    with pytest.raises(ValueError):
        _kernels.scatter_add_rows(np.zeros((2, 3)).T, [0], np.ones((1, 2)))  # not C-contiguous
    with pytest.raises(TypeError):
        _kernels.scatter_add_rows(np.zeros((3, 2), np.int64), [0], np.ones((1, 2)))


# ----- Fused elementwise adjoints -----

ELEMENTWISE = {
    "tanh_vjp": (lambda g, a: g * (1 - a * a), np.tanh),
    "relu_vjp": (lambda g, x: np.where(x >= 0, g, np.zeros_like(g)), lambda z: z),
    "sigmoid_vjp": (lambda g, a: g * a * (1 - a), lambda z: 1 / (1 + np.exp(-z))),
}
SHAPES = [(), (1,), (0,), (5, 0), (64, 128), (3, 4, 5), (10001,)]


def operands(shape, dtype, forward, seed=0):
    r = rng(seed)
    g = np.asarray(r.standard_normal(shape), dtype)
    a = np.asarray(forward(r.standard_normal(shape)), dtype)
    return g, a


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_elementwise_kernel_matches_numpy(name, dtype, shape):
    expr, forward = ELEMENTWISE[name]
    g, a = operands(shape, dtype, forward)
    got = getattr(_kernels, name)(g, a)
    want = expr(g, a)
    assert got.shape == want.shape and got.dtype == want.dtype == dtype
    # Same operations in the same order and precision: equal to the last bit.
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype])


def test_relu_vjp_edges():
    x = np.array([-1.0, -0.0, 0.0, 5e-324, np.nan, np.inf, -np.inf, 2.0])
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, np.inf])
    # a tie (x == 0, either sign) gets half of g, as np.maximum's rule splits it
    want = np.array([0.0, 1.0, 1.5, 4.0, 0.0, 6.0, 0.0, np.inf])
    np.testing.assert_array_equal(_kernels.relu_vjp(g, x), want)
    np.testing.assert_array_equal(tensor.relu_vjp(g[::-1], x[::-1]), want[::-1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_vjp_bits_match_numpys_form(dtype):
    """The kernel computes every side and selects (no branches): its bits, signed zeros
    and NaNs included, are those of NumPy's np.where form, x at random signs, ties
    and NaNs, g with negatives, zeros of both signs, infinities and NaNs."""
    r = rng(3)
    x = r.standard_normal(4099)
    x[::7] = 0.0
    x[1::11] = -0.0
    x[2::13] = np.nan
    g = r.standard_normal(4099)
    g[::5] = -0.0
    g[1::17] = np.inf
    g[2::19] = -np.inf
    g[3::23] = np.nan
    x, g = x.astype(dtype), g.astype(dtype)
    want = np.where(np.greater(x, 0), g, np.where(np.equal(x, 0), g * dtype(0.5),
                                                  np.zeros_like(g)))
    got = _kernels.relu_vjp(g, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_kernel_refuses_what_it_cannot_take(name):
    kernel = getattr(_kernels, name)
    a = np.ones((4, 4))
    with pytest.raises(ValueError):
        kernel(a[:, ::2], a[:, ::2])
    with pytest.raises(ValueError):
        kernel(a, np.ones((4, 1)))
    with pytest.raises(TypeError):
        kernel(a, a.astype(np.float32))
    with pytest.raises(TypeError):
        kernel(a.astype(np.int64), a.astype(np.int64))
    with pytest.raises(TypeError):
        kernel(1.0, 2.0)


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_wrappers_fall_back_to_numpy(name, dtype):
    expr, forward = ELEMENTWISE[name]
    helper = getattr(tensor, name)
    g, a = operands((6, 8), dtype, forward, seed=3)
    cases = [
        (g, a),                                  # kernel path
        (g[:, ::2], a[:, ::2]),                  # non-contiguous
        (g.T, a.T),                              # Fortran order
        (g, a[:1]),                              # broadcasting
        (g, a.astype(np.float64 if dtype == np.float32 else np.float32)),  # mixed dtypes
        (g.astype(np.float16), a.astype(np.float16)),
        (2.0, a),                                # scalar adjoint
        (g[0, 0], a[0, 0]),                      # NumPy scalars
    ]
    for gi, ai in cases:
        got = helper(gi, ai)
        want = expr(gi, ai)
        assert np.shape(got) == np.shape(want)
        assert np.result_type(got) == np.result_type(want)
        np.testing.assert_allclose(got, want, rtol=RTOL[dtype])


# ----- logaddexp_vjp: g / (1 + exp(y - x)), exp by NumPy's own loop on blocks -----

def logaddexp_operands(shape, dtype, seed=0, scale=8.0):
    r = rng(seed)
    g = np.asarray(r.standard_normal(shape), dtype)
    x = np.asarray(scale * r.standard_normal(shape), dtype)
    y = np.asarray(scale * r.standard_normal(shape), dtype)
    return g, x, y


def logaddexp_expr(g, x, y):
    """The kernel's NumPy expression (its oracle, bit for bit)."""
    return g / (1.0 + np.exp(y - x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(511,), (512,), (513,), (20_000,), (7, 300)])
def test_logaddexp_vjp_matches_numpy(dtype, shape):
    g, x, y = logaddexp_operands(shape, dtype)
    got = _kernels.logaddexp_vjp(g, x, y)
    want = logaddexp_expr(g, x, y)
    assert got.shape == np.shape(want) and got.dtype == want.dtype == dtype
    # NumPy's exp loop on the same differences: equal to the last bit.
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_logaddexp_vjp_is_the_rules_value(dtype):
    """The rule's g * exp(x - logaddexp(x, y)), to the rule's accuracy (its x - ans
    cancels: the scale of x and y bounds how close they can be)."""
    g, x, y = logaddexp_operands((4000,), dtype, seed=2, scale=3.0)
    rule = g * np.exp(x - np.logaddexp(x, y))
    np.testing.assert_allclose(_kernels.logaddexp_vjp(g, x, y), rule,
                               rtol=1e-13 * 64 if dtype == np.float64 else 1e-5)
    np.testing.assert_allclose(_kernels.logaddexp_vjp(g, y, x), g * np.exp(y - np.logaddexp(x, y)),
                               rtol=1e-13 * 64 if dtype == np.float64 else 1e-5)


def test_logaddexp_vjp_edges():
    x = np.array([0.0, -np.inf, np.inf, np.nan, 700.0, -745.0, 1e308, 5e-324, np.inf])
    y = np.array([0.0, 0.0, 1.0, 0.0, -700.0, 0.0, 1e308, -5e-324, np.inf])
    g = np.array([1.0, 2.0, np.inf, 1.0, 3.0, 1.0, 1.0, -0.0, 1.0])
    with np.errstate(all="ignore"):
        want = logaddexp_expr(g, x, y)
        np.testing.assert_array_equal(_kernels.logaddexp_vjp(g, x, y), want)
        np.testing.assert_array_equal(tensor.logaddexp_vjp(g, y, x), logaddexp_expr(g, y, x))
    # the limits: all of g to the larger input, none to the smaller
    assert want[1] == 0.0 and want[2] == np.inf and want[4] == 3.0 and want[5] == 0.0


@pytest.mark.parametrize("dtype", DTYPES)
def test_logaddexp_vjp_wrapper_falls_back_to_numpy(dtype):
    g, x, y = logaddexp_operands((6, 8), dtype, seed=5)
    other = np.float64 if dtype == np.float32 else np.float32
    cases = [
        (g, x, y),
        (g[:, ::2], x[:, ::2], y[:, ::2]),       # non-contiguous
        (g, x[:1], y),                           # broadcasting
        (g, x.astype(other), y),                 # mixed dtypes
        (1.0, x, y),                             # scalar adjoint
        (g, x, y.T.copy().T),                    # Fortran order
    ]
    for gi, xi, yi in cases:
        got = tensor.logaddexp_vjp(gi, xi, yi)
        want = logaddexp_expr(gi, xi, yi)
        assert np.shape(got) == np.shape(want)
        assert np.result_type(got) == np.result_type(want)
        np.testing.assert_array_equal(got, want)


def test_logaddexp_vjp_refuses_what_it_cannot_take():
    a = np.ones((4, 4))
    with pytest.raises(ValueError):
        _kernels.logaddexp_vjp(a, a, a[:, ::2])
    with pytest.raises(ValueError):
        _kernels.logaddexp_vjp(a, a, np.ones(4))
    with pytest.raises(TypeError):
        _kernels.logaddexp_vjp(a, a, a.astype(np.float32))
    with pytest.raises(TypeError):
        _kernels.logaddexp_vjp(a, 1, a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [0.0, -3.5, 0.1])
def test_logaddexp_vjp_takes_a_python_float_beside_an_array(dtype, scalar):
    """softplus: np.logaddexp(0.0, z), the number as NumPy takes it (a float32 that
    cannot hold it is left to NumPy, which decides the result's dtype)."""
    g, z, _ = logaddexp_operands((1000,), dtype, seed=4)
    for x, y in ((scalar, z), (z, scalar)):
        got = tensor.logaddexp_vjp(g, x, y)
        want = logaddexp_expr(g, x, y)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    fits = dtype == np.float64 or float(np.float32(scalar)) == scalar
    assert (_kernels.elementwise_or_none(_kernels.LOGADDEXP, g, scalar, z) is not None) == fits


def test_elementwise_kernels_refuse_byteswapped_and_subclasses():
    a = np.linspace(-1, 1, 12)
    swapped = a.astype(a.dtype.newbyteorder())
    assert _kernels.elementwise_or_none(_kernels.TANH, a, swapped) is None
    class Sub(np.ndarray):
        pass

    sub = a.view(Sub)
    assert _kernels.elementwise_or_none(_kernels.TANH, sub, sub) is None
    np.testing.assert_array_equal(tensor.tanh_vjp(a, swapped), a * (1 - swapped * swapped))


# ----- runtime.take and add_at_trailing: im2col gathers and their adjoints -----

def _im2col(size=8, k=3):
    out = size - k + 1
    oi, oj = np.divmod(np.arange(out * out), out)
    ki, kj = np.divmod(np.arange(k * k), k)
    return ki[:, None] + oi[None, :], kj[:, None] + oj[None, :]


ii8, jj8 = _im2col()
TRAILING = {
    "im2col": ((2, 3, 8, 8), (slice(None), slice(None), ii8, jj8)),
    "broadcast arrays": ((2, 3, 8, 8), (slice(None), slice(None), ii8[:, :1], jj8[:1, :])),
    "negative": ((4, 5, 6), (slice(None), np.array([-1, 0, -5, 4]), np.array([2, -6, 0, 5]))),
    "one array": ((4, 7), (slice(None), np.array([[6, 0], [3, 3]]))),
    "no leading": ((5, 6), (np.array([0, 4, 4, 1]), np.array([5, 5, 0, 2]))),
    "repeats": ((3, 4, 4), (slice(None), np.array([1, 1, 1, 2]), np.array([0, 0, 0, 3]))),
    "uint": ((3, 4, 4), (slice(None), np.array([1, 3], np.uint16), np.array([2, 0], np.uint8))),
    "empty": ((3, 4, 4), (slice(None), np.zeros(0, np.intp), np.zeros(0, np.intp))),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
@pytest.mark.parametrize("case", TRAILING)
def test_runtime_take_matches_fancy_indexing(case, dtype):
    from revsrc import runtime
    shape, index = TRAILING[case]
    x = (rng(8).standard_normal(shape) * 100).astype(dtype)
    got = runtime.take(x, index)
    want = x[index]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("index", [
    (slice(None), np.array([0, 8]), np.array([0, 0])),          # out of range
    (slice(None), np.array([0, -9]), np.array([0, 0])),         # negative out of range
    (slice(None), np.array([0.0, 1.0]), np.array([0, 0])),      # float index
    (slice(None), np.array([0, 1]), np.array([0, 1, 2])),       # shapes do not broadcast
    (slice(1, None), np.array([0, 1]), np.array([0, 1])),       # not a full slice
    (slice(None), np.array([0, 1]), slice(None)),               # an array not trailing
    (slice(None), slice(None)),                                 # too few entries
])
def test_add_at_trailing_declines_and_numpy_decides(index):
    assert _kernels.add_at_trailing(np.zeros((2, 8, 8)), index, 1.0) is False


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", TRAILING)
def test_add_at_trailing_matches_add_at(case, dtype):
    shape, index = TRAILING[case]
    r = rng(9)
    g = r.standard_normal(np.zeros(shape)[index].shape).astype(dtype)
    want = np.zeros(shape, dtype)
    np.add.at(want, index, g)
    got = np.zeros(shape, dtype)
    assert _kernels.add_at_trailing(got, index, g) is True
    # the same additions in the same order: equal to the last bit
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(tensor.index_add(g, shape, dtype, index), want)


def test_add_at_trailing_broadcasts_g_and_refuses_what_it_cannot_take():
    shape, index = TRAILING["im2col"]
    want = np.zeros(shape)
    np.add.at(want, index, 2.5)
    got = np.zeros(shape)
    assert _kernels.add_at_trailing(got, index, 2.5)
    np.testing.assert_array_equal(got, want)
    assert _kernels.add_at_trailing(np.zeros(shape, np.int64), index, 1) is False
    assert _kernels.add_at_trailing(np.zeros(shape).T, index, 1.0) is False
    ro = np.zeros(shape)
    ro.flags.writeable = False
    assert _kernels.add_at_trailing(ro, index, 1.0) is False
    assert _kernels.add_at_trailing(np.zeros(shape), index, np.ones(7)) is False


# ----- add_into: acc += t with NumPy's own add loop -----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(32, 32)])
def test_add_into_matches_numpy(dtype, shape):
    r = rng(10)
    acc = np.asarray(r.standard_normal(shape) * 1e3, dtype)
    t = np.asarray(r.standard_normal(shape), dtype)
    want = acc + t
    if acc.ndim == 0:
        assert _kernels.add_into(acc, t) is False  # a 0-d result of acc + t is a scalar
        return
    assert _kernels.add_into(acc, t) is True
    np.testing.assert_array_equal(acc, want)


def test_add_into_declines_what_it_cannot_take():
    a = np.ones((4, 4))
    ro = np.ones((4, 4))
    ro.flags.writeable = False
    for acc, t in [(a, np.ones(4)), (a, np.ones((4, 4), np.float32)), (a[:, ::2], a[:, ::2]),
                   (ro, a), (a.astype(np.int64), a.astype(np.int64)), (a, 1.0), (1.0, a)]:
        before = np.array(acc, copy=True)
        assert _kernels.add_into(acc, t) is False
        np.testing.assert_array_equal(acc, before)


# ----- sum_to_shape / unbroadcast -----

@pytest.mark.parametrize("gshape, shape", [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((3, 4), (1, 4)),
    ((3, 4), (3, 1)),
    ((3, 4), (1, 1)),
    ((3, 4), ()),
    ((2, 3, 4), (3, 1)),
    ((2, 1, 4), (1, 1, 4)),
    ((5,), (1,)),
    ((0, 4), (4,)),
    ((), ()),
])
def test_sum_to_shape_reverses_broadcasting(gshape, shape):
    g = rng().standard_normal(gshape)
    got = tensor.sum_to_shape(g, shape)
    assert np.shape(got) == shape
    # The oracle: the adjoint of broadcast_to is the transpose of a 0/1 matrix.
    x_size = int(np.prod(shape))
    basis = np.eye(x_size).reshape((x_size,) + shape)
    want = np.array([np.sum(np.broadcast_to(b, gshape) * g) for b in basis]).reshape(shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_sum_to_shape_fast_path_returns_the_same_object():
    g = np.ones((3, 4))
    assert tensor.sum_to_shape(g, (3, 4)) is g
    assert tensor.sum_to_shape(g, [3, 4]) is not None
    assert tensor.sum_to_shape(2.5, ()) == 2.5
    zero_d = np.array(1.0)
    assert tensor.sum_to_shape(zero_d, ()) is zero_d


def test_sum_to_shape_refuses_incompatible_shapes():
    with pytest.raises(ValueError):
        tensor.sum_to_shape(np.ones((3, 4)), (3,))
    with pytest.raises(ValueError):
        tensor.sum_to_shape(np.ones(4), (2, 4))
    with pytest.raises(ValueError):
        tensor.sum_to_shape(np.ones(4), (3, 4))  # nonzero and too small: a real error


def test_sum_to_shape_scalar_and_zero_adjoints():
    # the generated code starts adjoints at 0.0; a scalar stands for a filled array
    assert tensor.sum_to_shape(1.0, (3,)) == 1.0
    assert tensor.sum_to_shape(np.float64(0.0), (2, 3)) == 0.0
    # 0.0 times a row vector: zeros that NumPy has not broadcast to full shape yet
    out = tensor.sum_to_shape(0.0 * np.ones(4), (3, 4))
    assert out.shape == (3, 4) and not out.any()


def test_unbroadcast_gives_scalars_to_scalars():
    g = np.arange(6.0).reshape(2, 3)
    for x in (2.0, 3, True):
        got = tensor.unbroadcast(g, x)
        assert np.ndim(got) == 0 and not isinstance(got, np.ndarray)
        assert got == 15.0
    assert tensor.unbroadcast(1.5, 2.0) == 1.5
    assert tensor.unbroadcast(np.array(1.5), 2.0) == 1.5
    np.testing.assert_array_equal(tensor.unbroadcast(g, np.ones(3)), [3.0, 5.0, 7.0])
    np.testing.assert_array_equal(tensor.unbroadcast(g, np.ones((2, 1))), [[3.0], [12.0]])
    assert tensor.unbroadcast(g, np.float64(1.0)) == 15.0


# ----- index_add -----

def _mask(shape, seed=0):
    return rng(seed).random(shape) > 0.5


INDICES = [
    np.s_[2],
    np.s_[-1],
    np.s_[1:4],
    np.s_[::2],
    np.s_[::-3, 1],
    np.s_[..., 2],
    np.s_[None, 1:],
    np.s_[1, ..., None, ::2],
    np.s_[np.int64(3)],
    np.array([0, 1, 0, -1, 5, 5]),
    [4, 4, 4],
    np.array([[0, 1], [1, 1]]),
    np.s_[:, np.array([2, 2, -7, 0])],
    np.s_[..., np.array([3, 3, 1])],
    np.s_[:, np.array([0, 0]), np.array([1, 1])],
    np.s_[np.array([[0], [5]]), :, np.array([1, 2, 1])],
    np.s_[np.array([1, 1]), 2],
    np.s_[2, :, np.array([0, 0])],
    np.s_[1:5, np.array([1, 1])],
    np.s_[None, np.array([2, 2])],
    np.s_[np.array([1, 1]), None],
    np.s_[np.array(3)],
    np.s_[:, :, np.array([], dtype=np.intp)],
    np.s_[np.array([], dtype=np.intp)],
    _mask((6, 7, 5)),
    np.s_[:, _mask((7,), 1)],
    np.s_[_mask((6, 7), 2), np.array([0])],
    np.s_[:, _mask((7, 5), 3)],
    np.s_[_mask((6,), 4), 1:3, np.array([2, 2, 2])[:1]],
    np.s_[np.True_],
    np.s_[...],
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", INDICES, ids=range(len(INDICES)))
def test_index_add_matches_add_at(index, dtype):
    shape = (6, 7, 5)
    x = np.zeros(shape, dtype)
    g = rng().standard_normal(x[index].shape).astype(dtype)
    want = np.zeros(shape, dtype)
    np.add.at(want, index, g)
    got = tensor.index_add(g, shape, dtype, index)
    assert got.shape == shape and got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=0)


def test_index_add_broadcasts_a_scalar_adjoint_and_casts():
    got = tensor.index_add(1.0, (4, 2), np.float32, np.array([1, 1, 3]))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [[0, 0], [2, 2], [0, 0], [1, 1]])
    got = tensor.index_add(np.float64(2.0), (3,), np.float64, 1)
    np.testing.assert_array_equal(got, [0, 2, 0])


def test_index_add_other_dtypes_use_add_at():
    got = tensor.index_add(np.ones(3, np.complex128), (4,), np.complex128, [0, 0, 2])
    np.testing.assert_array_equal(got, [2, 0, 1, 0])


@pytest.mark.parametrize("index", [
    np.array([0, 6]),
    np.s_[:, np.array([7])],
    np.s_[:, np.array([0]), np.array([-6])],
    np.s_[:, np.array([1.5])],
    _mask((5,)),
])
def test_index_add_raises_like_numpy(index):
    shape = (6, 7, 5)
    g = 1.0  # broadcasts to whatever the index would have selected
    with pytest.raises(IndexError):
        np.add.at(np.zeros(shape), index, g)
    with pytest.raises(IndexError):
        tensor.index_add(g, shape, np.float64, index)


# ----- Memory pool -----

@pytest.fixture
def pool():
    """The pool, emptied before and after (its counters are process-wide)."""
    _kernels.pool_release()
    limit = _kernels.pool_set_limit(64 * 2**20)
    yield _kernels
    _kernels.pool_set_limit(limit)
    _kernels.pool_release()


def _pooled(fn):
    prev = _kernels.pool_enter()
    try:
        return fn()
    finally:
        _kernels.pool_exit(prev)


def test_pool_serves_arrays_inside_and_not_outside(pool):
    handler_name = np._core.multiarray.get_handler_name
    inside = _pooled(lambda: np.ones(10_000))
    assert handler_name(inside) == "revsrc_pool"
    assert handler_name(np.ones(10_000)) == handler_name()  # restored after the call
    assert handler_name() != "revsrc_pool"


def test_pool_reuses_a_freed_block(pool):
    def churn():
        a = np.ones(100_000)
        p = a.ctypes.data
        del a
        b = np.empty(100_000)
        return p, b.ctypes.data

    first, second = _pooled(churn)
    assert first == second
    n, held, limit, hits, misses = pool.pool_stats()
    assert hits >= 1


def test_pool_zeros_are_zero_after_reuse(pool):
    def dirty_then_zeros():
        a = np.full(50_000, 7.0)
        del a
        return np.zeros(50_000)

    assert not _pooled(dirty_then_zeros).any()


def test_pool_values_are_numpy_values(pool):
    r = rng(3)
    x = r.standard_normal((300, 200))
    want = np.tanh(x.T @ x) + np.exp(-x).sum(axis=0)
    got = _pooled(lambda: np.tanh(x.T @ x) + np.exp(-x).sum(axis=0))
    np.testing.assert_array_equal(got, want)


def test_pool_realloc_keeps_contents(pool):
    def grow():
        a = np.arange(5_000, dtype=np.float64)
        a.resize(40_000, refcheck=False)
        return a

    a = _pooled(grow)
    np.testing.assert_array_equal(a[:5_000], np.arange(5_000))
    assert not a[5_000:].any()


def test_pool_is_bounded_and_released(pool):
    pool.pool_set_limit(1 << 20)
    _pooled(lambda: [np.ones(50_000) for _ in range(10)])  # ten 400 KB blocks freed
    n, held, limit, _, _ = pool.pool_stats()
    assert held <= limit == 1 << 20 and n <= 2
    pool.pool_release()
    assert pool.pool_stats()[:2] == (0, 0)
    pool.pool_set_limit(0)
    _pooled(lambda: np.ones(50_000))
    assert pool.pool_stats()[:2] == (0, 0)


def test_pool_handler_restored_after_an_exception(pool):
    def fail():
        np.ones(20_000)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        _pooled(fail)
    assert np._core.multiarray.get_handler_name() != "revsrc_pool"


def _scaled_energy(w, x):
    y = np.tanh(x * w)
    return np.sum(y * y)


def test_generated_adjoint_allocates_from_the_pool(pool):
    import revsrc
    handler_name = np._core.multiarray.get_handler_name
    w, x = np.full(40_000, 0.5), rng(4).standard_normal(40_000)
    g = revsrc.grad(_scaled_energy)(w, x)
    assert handler_name(g) == "revsrc_pool"
    assert handler_name() != "revsrc_pool"
    hits = pool.pool_stats()[3]
    again = revsrc.grad(_scaled_energy)(w, x)
    assert pool.pool_stats()[3] > hits  # the second call reuses the first one's blocks
    np.testing.assert_array_equal(again, g)
    y = np.tanh(x * w)
    np.testing.assert_allclose(g, 2.0 * y * (1.0 - y * y) * x, rtol=1e-12)


# ----- Fusion facts in generated code -----

def _softplus_loss(w, X, y):
    z = np.dot(X, w)
    return np.mean(np.logaddexp(0.0, -y * z))


def _logaddexp_both(a, b):
    return np.sum(np.logaddexp(a, b) * b)


def test_softplus_adjoint_runs_the_fused_kernel():
    import revsrc
    r = rng(6)
    w, X = r.standard_normal(5), r.standard_normal((300, 5))
    y = np.sign(r.standard_normal(300))
    df = revsrc.grad(_softplus_loss)
    assert "_tensor.logaddexp_vjp(" in revsrc.source(df, w, X, y)
    m = -y * (X @ w)
    want = X.T @ (-y / (1.0 + np.exp(-m))) / 300.0
    np.testing.assert_allclose(df(w, X, y), want, rtol=1e-12)


@pytest.mark.parametrize("ashape, bshape", [((4, 3), (4, 3)), ((4, 1), (1, 3)), ((3,), (4, 3))])
def test_logaddexp_fusion_for_both_inputs_sums_broadcasts_back(ashape, bshape):
    import revsrc
    r = rng(7)
    a, b = r.standard_normal(ashape), r.standard_normal(bshape)
    ga, gb = revsrc.grad(_logaddexp_both, argnums=(0, 1))(a, b)
    src = revsrc.source(revsrc.grad(_logaddexp_both, argnums=(0, 1)), a, b)
    assert src.count("_tensor.logaddexp_vjp(") == 2
    s = np.logaddexp(a, b)
    pa, pb = np.exp(a - s), np.exp(b - s)
    bb = np.broadcast_to(b, s.shape)
    want_a = tensor.sum_to_shape(bb * pa, ashape)
    want_b = tensor.sum_to_shape(bb * pb + s, bshape)
    assert ga.shape == ashape and gb.shape == bshape
    np.testing.assert_allclose(ga, want_a, rtol=1e-12)
    np.testing.assert_allclose(gb, want_b, rtol=1e-12)


def test_unbroadcast_of_a_bias_row_is_numpys_sum_bit_for_bit():
    rng = np.random.default_rng(11)
    for dtype in (np.float64, np.float32):
        for rows, cols in [(16, 32), (1, 5), (300, 7), (3, 1)]:
            g = rng.standard_normal((rows, cols)).astype(dtype)
            b = np.zeros(cols, dtype)
            got = tensor.unbroadcast(g, b)
            want = np.sum(g, axis=0)
            assert got.dtype == want.dtype and got.shape == (cols,)
            assert np.array_equal(got, want)


# ----- tanh_vjp_jvp: -2 * g * y * t, the forward-over-reverse term of tanh -----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_tanh_vjp_jvp_matches_numpy(dtype, shape):
    r = rng(4)
    g, y, t = (np.asarray(r.standard_normal(shape), dtype) for _ in range(3))
    got = _kernels.tanh_vjp_jvp(g, y, t)
    want = -2.0 * g * y * t
    assert got.shape == want.shape and got.dtype == want.dtype == dtype
    assert got.tobytes() == want.tobytes()     # the same products in the same order


def test_tanh_vjp_jvp_edges_and_fallback():
    v = np.array([np.inf, -np.inf, -0.0, 0.0, np.nan, 1e308, -1e-320, 5e-324, 1.5])
    g, y, t = (a.ravel() for a in np.meshgrid(v, v, v))
    with np.errstate(all="ignore"):
        want = -2.0 * g * y * t
        got = _kernels.tanh_vjp_jvp(g, y, t)
        # bits equal, signed zeros and infs included; a NaN's sign and payload are not
        # NumPy's to promise (its baseline SSE loop and its AVX-512 loop give NaNs of
        # opposite signs for 0 * inf * nan), so NaNs are compared by position
        nan = np.isnan(want)
        assert nan.any() and np.array_equal(np.isnan(got), nan)
        assert got[~nan].tobytes() == want[~nan].tobytes()
        # what the kernel cannot take runs the NumPy expression: broadcasting, views,
        # mixed dtypes, numbers
        for args in [(t[:9], g[:9], 0.5), (t[::2], g[::2], y[::2]),
                     (t[:4].reshape(2, 2), g[:2], y[:2].astype(np.float32))]:
            np.testing.assert_array_equal(forward_grads.tanh_vjp_jvp(*args),
                                          -2.0 * args[1] * args[2] * args[0])
    with pytest.raises(ValueError):
        _kernels.tanh_vjp_jvp(g, y, t[:3])
    with pytest.raises(TypeError):
        _kernels.tanh_vjp_jvp(g[:3], y[:3], np.ones(3, np.float32))


@pytest.mark.parametrize("bu, bv", [(True, True), (False, True), (True, False)])
@pytest.mark.parametrize("shape", [(256, 32, 128), (5, 1, 8), (3, 7, 1), (0, 4, 3), (2, 0, 5)])
def test_outer_rows_bits_match_the_broadcast_multiply(bu, bv, shape):
    """Per-example outer products (vmap of a matmul's adjoint) are one product per
    item: the same bits as NumPy's broadcast multiply, with infs and nans where it has
    them."""
    n, i, j = shape
    rng = np.random.default_rng(sum(shape))
    u = rng.normal(size=(n, i) if bu else (i,))
    v = rng.normal(size=(n, j) if bv else (j,))
    if u.size and v.size:
        u.flat[0], v.flat[-1] = np.inf, np.nan
    got = _kernels.outer_rows(u, v, bu, bv)
    want = (u if bu else u[None])[:, :, None] * (v if bv else v[None])[:, None, :]
    assert got.shape == (n, i, j) and got.dtype == np.float64
    np.testing.assert_array_equal(got, np.broadcast_to(want, (n, i, j)))


def test_outer_rows_declines_what_it_cannot_take():
    u, v = np.ones((4, 3)), np.ones((4, 5))
    assert _kernels.outer_rows(u.astype(np.float32), v, True, True) is None
    assert _kernels.outer_rows(np.ones((3, 4)).T, v, True, True) is None   # not C-contiguous
    assert _kernels.outer_rows(u, np.ones((5, 5)), True, True) is None       # rows differ
    assert _kernels.outer_rows(u, v, False, True) is None                    # u not 1-D
    assert _kernels.outer_rows(u[0], v[0], False, False) is None             # nothing batched
    assert _kernels.outer_rows([[1.0]], v, True, True) is None
