"""The gradient checker must pass correct gradients and reject wrong ones."""

import doctest
import math

import numpy as np
import pytest

import revsrc
import revsrc.testing
from revsrc.testing import check_grads, compare_grads


def cubic(x):
    return x ** 3 - 2.0 * x


def d_cubic(x):
    return 3.0 * x ** 2 - 2.0


def sin_times(x, y):
    return math.sin(x) * y


def d_sin_times(x, y):
    return math.cos(x) * y, math.sin(x)


def quad_form(x, A):
    return float(x @ A @ x)


def d_quad_form(x, A):
    return (A + A.T) @ x


A3 = np.array([[2.0, 0.5, -1.0], [0.0, 1.0, 0.3], [0.7, -0.2, 3.0]])
X3 = np.array([0.3, -1.2, 0.8])


# ----- correct gradients pass -----

@pytest.mark.parametrize("x", [-2.5, 0.0, 0.7, 1e3])
def test_scalar_correct_passes(x):
    compare_grads(cubic, d_cubic, (x,))


def test_scalar_accuracy_well_below_default_rtol():
    # The extrapolated stencil is far more accurate than the default rtol needs.
    compare_grads(math.exp, math.exp, (3.0,), rtol=1e-9, atol=0.0)
    compare_grads(math.log, lambda x: 1.0 / x, (0.2,), rtol=1e-9, atol=0.0)
    compare_grads(math.tanh, lambda x: 1.0 - math.tanh(x) ** 2, (0.4,), rtol=1e-9, atol=0.0)


def test_tuple_argnums_correct_passes():
    compare_grads(sin_times, d_sin_times, (0.4, 1.5), argnums=(0, 1))
    compare_grads(sin_times, lambda x, y: math.sin(x), (0.4, 1.5), argnums=1)


def test_array_correct_passes():
    compare_grads(quad_form, d_quad_form, (X3, A3), rtol=1e-9, atol=0.0)


def test_float32_array_gets_float64_differences():
    x32 = X3.astype(np.float32)
    compare_grads(quad_form, lambda x, A: d_quad_form(x, A).astype(np.float32),
                  (x32, A3), rtol=1e-5)


def test_kwargs_are_passed():
    def f(x, scale=1.0):
        return scale * x * x

    compare_grads(f, lambda x, scale=1.0: 2.0 * scale * x, (1.5,), kwargs={"scale": 3.0})
    with pytest.raises(AssertionError):
        # the same gradient evaluated without the keyword is wrong
        compare_grads(f, lambda x, scale=1.0: 2.0 * x, (1.5,), kwargs={"scale": 3.0})


# ----- wrong gradients fail -----

def test_scalar_slightly_wrong_fails():
    with pytest.raises(AssertionError, match=r"argnum 0 .*rel err"):
        compare_grads(cubic, lambda x: d_cubic(x) * (1.0 + 1e-4), (0.7,))


def test_scalar_wrong_sign_fails():
    with pytest.raises(AssertionError, match="analytic"):
        compare_grads(math.sin, lambda x: -math.cos(x), (0.3,))


def test_nan_gradient_fails():
    with pytest.raises(AssertionError):
        compare_grads(math.sin, lambda x: float("nan"), (0.3,))


def test_second_of_tuple_wrong_fails_and_names_it():
    with pytest.raises(AssertionError, match="argnum 1"):
        compare_grads(sin_times, lambda x, y: (math.cos(x) * y, math.cos(x)), (0.4, 1.5),
                      argnums=(0, 1))


def test_tuple_argnums_needs_tuple():
    with pytest.raises(AssertionError, match="tuple"):
        compare_grads(sin_times, lambda x, y: math.cos(x) * y, (0.4, 1.5), argnums=(0, 1))


def test_scalar_needs_float_gradient():
    with pytest.raises(AssertionError, match="must be a float"):
        compare_grads(cubic, lambda x: np.array([d_cubic(x)]), (0.7,))


@pytest.mark.parametrize("index", [0, 1, 2])
def test_array_one_wrong_entry_fails(index):
    def wrong(x, A):
        g = d_quad_form(x, A)
        g[index] += 1e-3
        return g

    with pytest.raises(AssertionError, match=r"argnum 0 \(array shape \(3,\), direction"):
        compare_grads(quad_form, wrong, (X3, A3))


def test_array_transposed_rule_fails():
    # A classic bug: A @ x instead of (A + A.T) @ x.
    with pytest.raises(AssertionError):
        compare_grads(quad_form, lambda x, A: 2.0 * A @ x, (X3, A3))


def test_array_wrong_shape_fails():
    with pytest.raises(AssertionError, match="shape"):
        compare_grads(quad_form, lambda x, A: d_quad_form(x, A)[None, :], (X3, A3))


def test_array_wrong_dtype_fails():
    x32 = X3.astype(np.float32)
    with pytest.raises(AssertionError, match="dtype"):
        compare_grads(quad_form, d_quad_form, (x32, A3.astype(np.float64)))


def test_array_scalar_gradient_fails():
    with pytest.raises(AssertionError, match="must be an ndarray"):
        compare_grads(quad_form, lambda x, A: 1.0, (X3, A3))


def test_non_scalar_output_is_reported():
    with pytest.raises(AssertionError, match="must return a scalar"):
        compare_grads(lambda x: x * np.ones(2), lambda x: 2.0, (1.0,))


def test_bad_argnum_is_an_error():
    with pytest.raises(ValueError):
        compare_grads(cubic, d_cubic, (0.7,), argnums=1)


# ----- check_grads goes through revsrc.grad -----

def test_check_grads_uses_revsrc_grad(monkeypatch):
    calls = []

    def fake_grad(f, argnums=0, has_aux=False, backend=None):
        calls.append((f, argnums, backend))
        return lambda *args, **kwargs: d_cubic(*args) + 1e-3

    monkeypatch.setattr(revsrc, "grad", fake_grad, raising=False)
    with pytest.raises(AssertionError, match="argnum 0"):
        check_grads(cubic, (0.7,), backend="python")
    assert calls == [(cubic, 0, "python")]


def test_check_grads_accepts_correct_fake(monkeypatch):
    def fake_grad(f, argnums=0, has_aux=False, backend=None):
        return d_sin_times

    monkeypatch.setattr(revsrc, "grad", fake_grad, raising=False)
    check_grads(sin_times, (0.4, 1.5), argnums=(0, 1))


def test_check_grads_real():
    if not hasattr(revsrc, "grad"):
        pytest.fail("revsrc.grad does not exist yet")
    check_grads(sin_times, (0.4, 1.5), argnums=(0, 1))
    check_grads(cubic, (-1.3,))


def test_docstring_examples():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    names = ["compare_grads"] + (["check_grads"] if hasattr(revsrc, "grad") else [])
    for name in names:
        for test in finder.find(getattr(revsrc.testing, name), name):
            runner.run(test)
    assert runner.failures == 0
