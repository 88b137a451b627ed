"""backend="jax" and ``x op= v`` on a 0-d array the function made: NumPy's in-place
operator keeps the array's dtype and raises where the result cannot be cast to it
('same_kind'), whatever the rank; a traced 0-d value looks like a number, so the kind
revsrc knows when transforming decides. Numbers (and NumPy scalars, immutable) are
rebound as before."""
import numpy as np
import pytest

import revsrc

pytest.importorskip("jax")


def int_array_plus_float(x):
    y = np.array(3)
    y += 1.5
    return x * y


def float_array_plus_float(x):
    y = np.array(3.0)
    y += x
    y *= 2.0
    return y * x


def float32_array_keeps_its_dtype(x):
    y = np.array(1.0, dtype=np.float32)
    y += 0.1
    return x * float(y)


def scalar_index_rebound(x):
    v = np.array([0.2, 0.9, 0.4]) * x
    i = np.argmax(v)
    i += 1.5            # a NumPy int scalar: rebound to a float
    return x * i


@pytest.mark.parametrize("backend", [None, "jax"])
def test_int_array_refuses_a_float_result(backend):
    with pytest.raises(TypeError, match="same_kind"):
        int_array_plus_float(2.0)
    with pytest.raises(TypeError, match="same_kind"):
        revsrc.grad(int_array_plus_float, backend=backend)(2.0)


@pytest.mark.parametrize("f", [float_array_plus_float, float32_array_keeps_its_dtype,
                               scalar_index_rebound])
def test_values_and_gradients_as_python(f):
    for backend in (None, "jax"):
        value, grad = revsrc.value_and_grad(f, backend=backend)(0.7)
        assert value == pytest.approx(f(0.7), rel=1e-12)
        assert grad == pytest.approx((f(0.7 + 1e-6) - f(0.7 - 1e-6)) / 2e-6, rel=1e-6)
