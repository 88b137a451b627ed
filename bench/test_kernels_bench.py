"""Each compiled kernel against the NumPy expression it replaces.

    pytest bench/test_kernels_bench.py --benchmark-only

One benchmark group per kernel and shape; a kernel that does not beat NumPy in its
groups has no reason to exist and is removed (the NumPy expression stays as the
fallback in revsrc.tensor).
"""
import numpy as np
import pytest

from revsrc import _kernels, tensor

# (64, 128): a dense layer's activations; (16, 27, 900): a 3x3x3 im2col conv
# batch; (1_000_000,): memory-bound.
SHAPES = {"64x128": (64, 128), "16x27x900": (16, 27, 900), "1e6": (1_000_000,)}

ELEMENTWISE = {
    "tanh_vjp": (lambda g, a: g * (1.0 - a * a), np.tanh),
    "relu_vjp": (lambda g, x: g * (x >= 0.0), lambda z: z),
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
