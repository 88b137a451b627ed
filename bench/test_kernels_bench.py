"""Each compiled kernel against the NumPy expression it replaces.

    pytest bench/test_kernels_bench.py --benchmark-only

One benchmark group per kernel and shape; a kernel that does not beat NumPy in its
groups has no reason to exist and is removed (the NumPy expression stays as the
fallback in revsrc.tensor).
"""
import numpy as np
import pytest

from revsrc import _kernels, runtime
from revsrc.runtime import tensor
from revsrc.runtime.grads import linalg as _linalg

# (16, 32): one RNN step's hidden state; (64, 128): a dense layer's activations;
# (20000,): the logistic-regression margins; (16, 27, 900): a 3x3x3 im2col conv batch;
# (1_000_000,): memory-bound.
SHAPES = {"16x32": (16, 32), "64x128": (64, 128), "20000": (20_000,),
          "16x27x900": (16, 27, 900), "1e6": (1_000_000,)}

ELEMENTWISE = {
    "tanh_vjp": (lambda g, a: g * (1.0 - a * a), np.tanh),
    "relu_vjp": (lambda g, x: np.where(x >= 0.0, g, np.zeros_like(g)), lambda z: z),
    "sigmoid_vjp": (lambda g, a: g * a * (1.0 - a), lambda z: 1.0 / (1.0 + np.exp(-z))),
}


def _operands(shape, dtype, forward):
    r = np.random.default_rng(0)
    g = r.standard_normal(shape).astype(dtype)
    a = forward(r.standard_normal(shape)).astype(dtype)
    return g, a


@pytest.mark.parametrize("impl", ["kernel", "numpy"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise(benchmark, name, shape, dtype, impl):
    expr, forward = ELEMENTWISE[name]
    g, a = _operands(SHAPES[shape], np.dtype(dtype), forward)
    benchmark.group = f"{name} {shape} {dtype}"
    fn = getattr(tensor, name) if impl == "kernel" else expr
    out = benchmark(fn, g, a)
    np.testing.assert_array_equal(out, expr(g, a))


@pytest.mark.parametrize("impl", ["kernel", "numpy"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
def test_logaddexp_vjp(benchmark, shape, dtype, impl):
    """The kernel against the rule's NumPy expression, g * exp(x - logaddexp(x, y))."""
    r = np.random.default_rng(0)
    g, x, y = (r.standard_normal(SHAPES[shape]).astype(dtype) for _ in range(3))
    ans = np.logaddexp(x, y)
    benchmark.group = f"logaddexp_vjp {shape} {dtype}"

    def rule(g, x, y):
        return g * np.exp(x - ans)

    fn = tensor.logaddexp_vjp if impl == "kernel" else rule
    out = benchmark(fn, g, x, y)
    np.testing.assert_allclose(out, rule(g, x, y), rtol=1e-12 if dtype == "float64" else 1e-5)


# The im2col gather of bench/workloads.py's convolution, and a smaller one: what the
# generated code runs (runtime.take: np.take over a flat index) against fancy indexing
# followed by the reshape, which must copy. (A gather kernel was measured here too and
# removed: it tied np.take, both bound by memory.)
def _im2col_case(batch, channels, size, k=3):
    out = size - k + 1
    oi, oj = np.divmod(np.arange(out * out), out)
    ki, kj = np.divmod(np.arange(k * k), k)
    ii, jj = ki[:, None] + oi[None, :], kj[:, None] + oj[None, :]
    x = np.random.default_rng(2).standard_normal((batch, channels, size, size))
    return x, (slice(None), slice(None), ii, jj), (batch, channels * k * k, out * out)


GATHERS = {"16x3x32x32 k=3": (16, 3, 32), "4x8x16x16 k=3": (4, 8, 16)}


@pytest.mark.parametrize("impl", ["runtime.take", "fancy + reshape"])
@pytest.mark.parametrize("case", GATHERS)
def test_im2col_gather(benchmark, case, impl):
    x, index, cols = _im2col_case(*GATHERS[case])
    benchmark.group = f"im2col gather {case}"

    fn = {"runtime.take": lambda: np.reshape(runtime.take(x, index), cols),
          "fancy + reshape": lambda: np.reshape(x[index], cols)}[impl]
    pooled = _kernels.pool_enter()  # as in generated code: no page faults on either side
    try:
        out = benchmark(fn)
    finally:
        _kernels.pool_exit(pooled)
    np.testing.assert_array_equal(out, np.reshape(x[index], cols))


@pytest.mark.parametrize("impl", ["index_add (kernel)", "row scatter", "zeros + add.at"])
@pytest.mark.parametrize("case", GATHERS)
def test_im2col_scatter_add(benchmark, case, impl):
    """The adjoint of the im2col gather: zeros with g added at the gathered positions."""
    x, index, _ = _im2col_case(*GATHERS[case])
    g = np.random.default_rng(3).standard_normal(x[index].shape)
    benchmark.group = f"im2col scatter-add {case}"

    def with_add_at():
        out = np.zeros(x.shape)
        np.add.at(out, index, g)
        return out

    def rows():
        out = np.zeros(x.shape)
        assert tensor._scatter_rows(out, index, g)
        return out

    fn = {"index_add (kernel)": lambda: tensor.index_add(g, x.shape, np.float64, index),
          "row scatter": rows, "zeros + add.at": with_add_at}[impl]
    pooled = _kernels.pool_enter()
    try:
        out = benchmark(fn)
    finally:
        _kernels.pool_exit(pooled)
    np.testing.assert_array_equal(out, with_add_at())


# Embedding-style scatter: 4096 lookups (many repeated) into a 10000x64 table,
# and a conv-sized one: 16*900 rows of 27 gathered into a 3000x27 matrix.
SCATTER = {
    "10000x64 k=4096": ((10_000, 64), 4096),
    "3000x27 k=14400": ((3_000, 27), 14_400),
    "1000x1000 k=1000": ((1_000, 1_000), 1_000),
}


def _scatter_operands(case):
    (n, m), k = SCATTER[case]
    r = np.random.default_rng(1)
    idx = r.integers(0, n, k).astype(np.intp)
    vals = r.standard_normal((k, m))
    return (n, m), idx, vals


@pytest.mark.parametrize("impl", ["kernel", "numpy add.at"])
@pytest.mark.parametrize("case", SCATTER)
def test_scatter_add_rows(benchmark, case, impl):
    shape, idx, vals = _scatter_operands(case)
    benchmark.group = f"scatter_add_rows {case}"
    out = np.zeros(shape)
    if impl == "kernel":
        benchmark(_kernels.scatter_add_rows, out, idx, vals)
    else:
        benchmark(np.add.at, out, idx, vals)


@pytest.mark.parametrize("impl", ["index_add", "zeros + add.at"])
@pytest.mark.parametrize("case", SCATTER)
def test_index_add(benchmark, case, impl):
    """The whole fancy-index adjoint as generated code calls it."""
    shape, idx, vals = _scatter_operands(case)
    benchmark.group = f"index_add {case}"

    def with_add_at():
        out = np.zeros(shape)
        np.add.at(out, idx, vals)
        return out

    if impl == "index_add":
        out = benchmark(tensor.index_add, vals, shape, np.float64, idx)
    else:
        out = benchmark(with_add_at)
    np.testing.assert_allclose(out, with_add_at(), rtol=1e-12)


# sum_to_shape stays Python over np.sum (a reduction NumPy already does in one
# vectorized pass); these record what it costs on the paths generated code hits.
SUM_CASES = {
    "same shape": ((64, 128), (64, 128)),
    "bias (64,128)->(128,)": ((64, 128), (128,)),
    "keepdims (64,128)->(64,1)": ((64, 128), (64, 1)),
    "scalar (64,128)->()": ((64, 128), ()),
}


@pytest.mark.parametrize("case", SUM_CASES)
def test_sum_to_shape(benchmark, case):
    gshape, shape = SUM_CASES[case]
    benchmark.group = "sum_to_shape"
    g = np.ones(gshape)
    benchmark(tensor.sum_to_shape, g, shape)


# The memory pool: the convolution's whole generated adjoint, with and without it. In a
# process that has already freed big blocks (this one, after the benchmarks above) glibc
# keeps them and the two tie; in a fresh process the pool is what saves the page faults:
# see the 'no memory pool' row of the conv table in BENCHMARKS.md (~8x).
@pytest.mark.parametrize("impl", ["pool", "no pool"])
def test_pool_conv_adjoint(benchmark, impl):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import revsrc
    import workloads as wl
    from revsrc import api

    data = wl.conv_data()
    df = revsrc.grad(wl.conv_loss)
    entry = api._entry(df, data, {})
    benchmark.group = "memory pool: conv adjoint"
    if impl == "pool":
        benchmark(runtime.run_pooled, entry.fn, data)
    else:
        benchmark(entry.fn, *data)


# In-place accumulation of a loop's weight adjoint (runtime.accumulate), RNN-sized and
# MLP-sized: NumPy's own add loop without the ufunc call, against acc + t.
ACC_SHAPES = {"32x32": (32, 32), "128x128": (128, 128)}


@pytest.mark.parametrize("impl", ["add_into", "acc + t", "np.add(out=acc)"])
@pytest.mark.parametrize("shape", ACC_SHAPES)
def test_add_into(benchmark, shape, impl):
    r = np.random.default_rng(4)
    acc, t = r.standard_normal(ACC_SHAPES[shape]), r.standard_normal(ACC_SHAPES[shape])
    benchmark.group = f"accumulate {shape}"
    fn = {"add_into": runtime.accumulate, "acc + t": lambda a, b: a + b,
          "np.add(out=acc)": lambda a, b: np.add(a, b, out=a)}[impl]
    benchmark(fn, acc, t)


# The operations of a loop body (revsrc/prune.py, loop_kernels) on one RNN step's
# arrays (16 x 32 hidden state, a bias row, 32 x 32 weights) and on a dense layer's:
# NumPy's own loops and np.dot's C function without NumPy's dispatch.
LOOP_SHAPES = {"16x32": (16, 32), "256x512": (256, 512)}


def _loop_operands(shape):
    r = np.random.default_rng(5)
    a, b = r.standard_normal(shape), r.standard_normal(shape)
    return a, b, r.standard_normal(shape[-1:]), r.standard_normal((shape[-1], shape[-1]))


LOOP_OPS = {
    "a + b": (_kernels.add, lambda a, b: a + b, lambda a, b, row, w: (a, b)),
    "a + row": (_kernels.add, lambda a, b: a + b, lambda a, b, row, w: (a, row)),
    "a * 0.5": (_kernels.multiply, lambda a, b: a * b, lambda a, b, row, w: (a, 0.5)),
    "tanh": (_kernels.tanh, np.tanh, lambda a, b, row, w: (a,)),
    "exp": (_kernels.exp, np.exp, lambda a, b, row, w: (a,)),
    "-a": (_kernels.negative, lambda a: -a, lambda a, b, row, w: (a,)),
    "maximum(a, 0.0)": (_kernels.maximum, np.maximum, lambda a, b, row, w: (a, 0.0)),
    "dot": (_kernels.dot, np.dot, lambda a, b, row, w: (a, w)),
    "dot_grad_a": (_kernels.dot_grad_a, _linalg.dot_grad_a, lambda a, b, row, w: (b, a, w)),
    "dot_grad_b": (_kernels.dot_grad_b, _linalg.dot_grad_b, lambda a, b, row, w: (b, a, w)),
}


@pytest.mark.parametrize("impl", ["kernel", "numpy"])
@pytest.mark.parametrize("shape", LOOP_SHAPES)
@pytest.mark.parametrize("op", LOOP_OPS)
def test_loop_kernels(benchmark, op, shape, impl):
    kernel, numpy_fn, pick = LOOP_OPS[op]
    args = pick(*_loop_operands(LOOP_SHAPES[shape]))
    benchmark.group = f"loop body {op} {shape}"
    benchmark(kernel if impl == "kernel" else numpy_fn, *args)
