"""grad on arrays does not compute the value it does not return (revsrc.prune)."""
import numpy as np
import pytest

import revsrc
from revsrc import prune


def softplus_loss(w, X, y):
    z = np.dot(X, w)
    return np.mean(np.logaddexp(0.0, -y * z))


def value_feeds_adjoint(x):
    t = np.exp(x)
    return np.sum(t * t)


def with_aux(x):
    s = np.sum(np.tanh(x))
    return s * 2.0, s


def data(seed=0, n=200, d=4):
    r = np.random.default_rng(seed)
    return r.standard_normal(d), r.standard_normal((n, d)), np.sign(r.standard_normal(n))


def test_grad_skips_logaddexp_and_mean_value_and_grad_keeps_them():
    w, X, y = data()
    g_src = revsrc.source(revsrc.grad(softplus_loss), w, X, y)
    vg_src = revsrc.source(revsrc.value_and_grad(softplus_loss), w, X, y)
    assert "= np.logaddexp(" not in g_src and "result_like(np.logaddexp" in g_src
    assert "return (None, w_bar)" in g_src
    assert "= np.logaddexp(" in vg_src and "result_like" not in vg_src
    g = revsrc.grad(softplus_loss)(w, X, y)
    v, g2 = revsrc.value_and_grad(softplus_loss)(w, X, y)
    assert v == softplus_loss(w, X, y)           # the value: NumPy's, bit for bit
    np.testing.assert_array_equal(g, g2)         # the same adjoint either way
    m = -y * (X @ w)
    np.testing.assert_allclose(g, X.T @ (-y / (1.0 + np.exp(-m))) / len(y), rtol=1e-12)


def test_a_value_the_adjoint_reads_is_kept():
    x = np.linspace(-1.0, 1.0, 7)
    src = revsrc.source(revsrc.grad(value_feeds_adjoint), x)
    assert "np.exp(x)" in src                    # the adjoint reads exp(x)
    np.testing.assert_allclose(revsrc.grad(value_feeds_adjoint)(x), 2 * np.exp(2 * x),
                               rtol=1e-12)


def test_has_aux_keeps_what_aux_returns():
    x = np.linspace(-1.0, 1.0, 5)
    g, aux = revsrc.grad(with_aux, has_aux=True)(x)
    assert aux == np.sum(np.tanh(x))
    np.testing.assert_allclose(g, 2.0 * (1.0 - np.tanh(x) ** 2), rtol=1e-12)


def test_scalar_programs_are_not_pruned():
    import math

    def f(x):
        return math.sin(x) * x

    src = revsrc.source(revsrc.grad(f, backend="python"), 0.5)
    assert "return (_ret," in src


@pytest.mark.parametrize("fn, args, shape, dtype", [
    (np.logaddexp, (0.0, np.ones(3, np.float32)), (3,), np.float32),
    (np.multiply, (np.ones((2, 1)), np.ones(4)), (2, 4), np.float64),
    (np.true_divide, (np.ones(3, np.int64), 2), (3,), np.float64),
    (np.add, (np.ones(3, np.int32), 2), (3,), np.int32),
    (np.mean, (np.ones((3, 4), np.int64),), (), np.float64),
    (np.sum, (np.ones(5, np.float32),), (), np.float32),
])
def test_result_like_has_numpys_shape_and_dtype(fn, args, shape, dtype):
    out = prune.result_like(fn, *args)
    want = fn(*args)
    assert out.shape == np.shape(want) == shape
    assert out.dtype == np.result_type(want) == dtype
    assert not out.flags.writeable


def test_result_like_refuses_what_numpy_refuses():
    with pytest.raises(ValueError):
        prune.result_like(np.add, np.ones(3), np.ones(4))
