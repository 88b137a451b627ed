"""Python ints past 64 bits in a differentiated program (issue 22, part 4: an int that
does not fit takes the Python path or is refused). A loop saving ``m * m * m`` for a
large ``m`` raised OverflowError from the int stack; backend="jax" raised JAX's
uncoded OverflowError."""
import math

import pytest

import revsrc
from revsrc import _kernels, errors


def cubes(x):
    t = 0.0
    for k in range(5):
        m = k * 1000000007
        t += m * m * m * x
    return t


def _exact_slope():
    return math.fsum(float((k * 1000000007) ** 3) for k in range(5))


def test_int_stack_keeps_big_ints():
    s = _kernels.IntStack()
    values = [3, 2 ** 70, -(2 ** 64), -2 ** 63, 7, 10 ** 30]
    for v in values:
        s.push(v)
    assert [s.pop() for _ in values] == values[::-1]
    s.push(2 ** 80)
    s.clear()
    s.push(-2 ** 63)       # the marker's value itself, pushed as an int64
    assert s.pop() == -2 ** 63


def test_gradient_through_big_ints():
    value, grad = revsrc.value_and_grad(cubes)(1.5)
    assert value == cubes(1.5)
    assert grad == pytest.approx(_exact_slope(), rel=1e-15)
    assert revsrc.jit(revsrc.grad(cubes))(1.5) == grad


def test_backend_jax_converts_ints_past_64_bits_as_python_does():
    # m * m * m outgrows int64; beside the float x Python converts it to a float, and so
    # does backend="jax" (it used to refuse: E603)
    pytest.importorskip("jax")
    value, grad = revsrc.value_and_grad(cubes, backend="jax")(1.5)
    assert value == pytest.approx(cubes(1.5), rel=1e-15)
    assert grad == pytest.approx(_exact_slope(), rel=1e-15)
