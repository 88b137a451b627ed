"""A negative literal as the base of a power, an item or an attribute (round 9's W1).

``(-1) ** n`` folds to the constant -1 under ``**``; printed without parentheses it read
``-1 ** n``, which Python parses as ``-(1 ** n)``: the alternating series of users
(Leibniz, Taylor, Chebyshev weights) got the wrong sign, in value and gradient. Every
program here is checked against its own plain call and against central differences, on
each back end."""
import math

import numpy as np
import pytest

import revsrc


def alternating(x, n):
    t = 0.0
    for k in range(n):
        t += (-1) ** k * x ** (2 * k + 1) / (2 * k + 1)
    return t


def fixed_power(x):
    n = 2
    return (-1) ** n * x + (-2.0) ** n * x * x


def float_base_array(x):
    k = np.arange(4)
    return np.sum((-1.0) ** k * x ** k)


def attribute_of_negative(x):
    return (-2.5).imag + (-2.0).__abs__() * x + (-3) ** 3 * math.sin(x)


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


CASES = [(fixed_power, (0.3,)), (float_base_array, (0.3,)), (attribute_of_negative, (0.7,)),
         (alternating, (0.5, 9))]


@pytest.mark.parametrize("backend", ["python", None])
@pytest.mark.parametrize("f,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_value_and_gradient(f, args, backend):
    kw = {} if backend is None else {"backend": backend}
    value, grad = revsrc.value_and_grad(f, **kw)(*args)
    assert value == f(*args)
    rest = args[1:]
    np.testing.assert_allclose(grad, _central(lambda t: f(t, *rest), args[0]), rtol=1e-7)


def test_sign_of_the_series_derivative():
    # d/dx of the Leibniz series of atan is 1 / (1 + x^2) up to the truncation
    g = revsrc.grad(alternating)(0.5, 30)
    assert abs(g - 1 / (1 + 0.25)) < 1e-12


def test_jit_and_vmap_agree_with_python():
    d = revsrc.grad(alternating)
    assert revsrc.jit(d)(0.5, 9) == d(0.5, 9)
    xs = np.array([0.1, 0.2, 0.3])
    mapped = revsrc.vmap(fixed_power)(xs)
    assert list(mapped) == [fixed_power(x) for x in xs]


def test_the_source_keeps_the_parentheses():
    text = revsrc.source(revsrc.grad(fixed_power))
    assert "(-1) ** n" in text and "-1 ** n" not in text.replace("(-1) ** n", "")


def test_jax_backend():
    pytest.importorskip("jax")
    value, grad = revsrc.value_and_grad(fixed_power, backend="jax")(0.3)
    assert abs(value - fixed_power(0.3)) < 1e-15
    assert abs(grad - _central(fixed_power, 0.3)) < 1e-7
