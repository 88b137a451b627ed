"""The elements no path of the result reads (the branch np.where did not choose, the
NaNs np.nansum and np.nanmean skip) keep an adjoint of exactly 0 through the chain
rule's products, where 0 * inf or 0 * nan would make the gradient NaN
(revsrc/runtime/dropped.py). Checked against central differences away from the kinks,
in grad, hessian, jacrev, jacfwd and vmap."""
import warnings

import numpy as np
import pytest

import revsrc
from revsrc.runtime.dropped import Dropped, dropped

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

X = np.array([4.0, -1.3, 2.5, -0.3, 0.7])


def fd(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def sqrt_where(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def log_where(x):
    return np.sum(np.where(x > 0, x * np.log(x), -x ** 2))


def recip_where(x):
    y = np.where(np.abs(x) > 0.5, 1.0 / (x - 0.6), 0.25 * x)
    return np.sum(y * y)


def arcsin_where(x):
    return np.sum(np.where(np.abs(x) < 1.0, np.arcsin(x), np.sign(x) * x))


@pytest.mark.parametrize("f", [sqrt_where, log_where, recip_where, arcsin_where])
def test_grad_of_a_where_whose_other_branch_is_nan(f):
    g = revsrc.grad(f)(X)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, fd(f, X), rtol=1e-6, atol=1e-8)


def test_the_mark_does_not_hide_another_paths_adjoint():
    # x reaches the result through the where (the negative elements: structural 0)
    # and through x * x, whose adjoint 2x adds to the same elements
    def f(x):
        return np.sum(np.where(x > 0, np.sqrt(x), 0.0)) + np.sum(x * x)
    g = revsrc.grad(f)(X)
    np.testing.assert_allclose(g, np.where(X > 0, 0.5 / np.sqrt(np.abs(X)), 0.0) + 2 * X,
                               rtol=1e-13)


def test_a_nan_the_function_itself_has_stays_nan():
    # the NaN is in the branch chosen: the value is NaN, and so is its gradient
    def f(x):
        return np.sum(np.where(x > -10, np.sqrt(x), 0.0))
    assert np.isnan(f(X))
    assert np.isnan(revsrc.grad(f)(X)[1])


def test_nansum_and_nanmean_skip_the_nans_in_the_gradient_too():
    data = np.array([1.0, np.nan, 3.0, np.nan, 2.0])

    def f(w):
        return np.nansum(data * w) + np.nanmean(data * w ** 2)
    w = 1.3
    g = revsrc.grad(f)(w)
    assert g == pytest.approx(6.0 + 2 * w * 2.0, rel=1e-14)
    assert g == pytest.approx(fd(lambda v: np.array(f(v[0])), np.array([w]))[0], rel=1e-6)

    def h(v):
        return np.nansum(np.log(v) * v)       # log of the negative elements: NaN, skipped
    v = np.array([2.0, -1.0, 0.5])
    gh = revsrc.grad(h)(v)
    np.testing.assert_allclose(gh, [np.log(2.0) + 1, 0.0, np.log(0.5) + 1], rtol=1e-14)


def test_hessian_jacrev_jacfwd_and_vmap_keep_the_zeros():
    def k(x):
        return np.sum(np.where(x > 0, np.sqrt(x), 0.0) * x)

    def y(x):
        return np.where(x > 0, np.sqrt(x), 0.0)
    pos = X > 0
    d2 = np.where(pos, 0.75 / np.sqrt(np.abs(X)), 0.0)
    np.testing.assert_allclose(revsrc.hessian(k)(X), np.diag(d2), rtol=1e-12, atol=0)
    jac = np.diag(np.where(pos, 0.5 / np.sqrt(np.abs(X)), 0.0))
    np.testing.assert_allclose(revsrc.jacrev(y)(X), jac, rtol=1e-13, atol=0)
    np.testing.assert_allclose(revsrc.jacfwd(y)(X), jac, rtol=1e-13, atol=0)
    rows = np.stack([X, -X, X[::-1]])
    per_row = revsrc.vmap(revsrc.grad(sqrt_where))(rows)
    np.testing.assert_array_equal(per_row, np.stack([revsrc.grad(sqrt_where)(r) for r in rows]))
    assert np.all(np.isfinite(per_row))


def test_a_where_in_a_loop():
    def f(x):
        s = 0.0
        for k in range(3):
            s = s + np.sum(np.where(x > k, np.log(x - k), 0.0))
        return s
    x = np.array([0.5, 1.5, 2.5, 3.5])
    g = revsrc.grad(f)(x)
    np.testing.assert_allclose(g, fd(f, x), rtol=1e-6)


def test_gradients_come_back_as_plain_arrays():
    g = revsrc.grad(lambda_free_where)(X)
    assert type(g) is np.ndarray
    jr = revsrc.jacrev(lambda_free_rows)(X)
    assert type(jr) is np.ndarray


def lambda_free_where(x):
    return np.sum(np.where(x > 0, x, 0.0))


def lambda_free_rows(x):
    return np.where(x > 0, x, 0.0)


def test_the_mark_itself():
    a = dropped(np.array([1.0, 0.0, 0.0]), np.array([False, True, False]))
    assert type(a) is Dropped
    p = np.array([2.0, np.nan, np.inf])
    out = a * p
    # the marked 0 times nan is 0; the unmarked 0 times inf stays nan (IEEE)
    assert out[0] == 2.0 and out[1] == 0.0 and np.isnan(out[2])
    assert type(np.sum(out)) is not Dropped
    assert type(np.stack([a, a])) is np.ndarray      # any other operation: a plain array
    b = a.copy()                                     # a copy is no longer marked
    assert np.isnan((b * p)[1])
    a[1] = 5.0                                       # written: its nan is kept
    assert (a * np.array([1.0, np.inf, 1.0]))[1] == np.inf
    # nothing to mark: the array itself
    plain = np.ones(3)
    assert dropped(plain, np.zeros(3, bool)) is plain


def scalar_where(x):
    return np.where(x > 0, np.sqrt(x), 0.0) * 2.0 + x


def test_a_where_on_python_floats():
    for x, want in ((-1.0, 1.0), (4.0, 1.5), (0.0, 1.0)):
        g = revsrc.grad(scalar_where)(x)
        assert type(g) is float and g == want
        assert revsrc.jit(revsrc.grad(scalar_where))(x) == want
    np.testing.assert_array_equal(revsrc.vmap(revsrc.grad(scalar_where))(np.array([-1.0, 4.0])),
                                  [1.0, 1.5])
    assert revsrc.hessian(scalar_where)(-1.0) == 0.0
    assert revsrc.hessian(scalar_where)(4.0) == pytest.approx(-0.5 * 4.0 ** -1.5, rel=1e-15)


def test_forward_mode_of_nansum_and_nanmean_skips_the_nans():
    data = np.array([1.0, np.nan, 3.0])

    def f(w):
        return np.nansum(data * w * w) + np.nanmean(data * w)
    w = np.array([0.5, 2.0, -1.0])
    want = np.where(np.isnan(data), 0.0, 2 * data * w + data / 2.0)
    np.testing.assert_allclose(revsrc.jacfwd(f)(w), want, rtol=1e-14)
    np.testing.assert_allclose(revsrc.grad(f)(w), want, rtol=1e-14)
    np.testing.assert_allclose(fd(f, w), want, rtol=1e-6)
    v = np.array([1.0, 0.5, -2.0])
    assert revsrc.jvp(f, (w,), (v,))[1] == pytest.approx(want @ v, rel=1e-14)

    def mean_rows(m):
        return np.sum(np.nanmean(m * np.array([[1.0, np.nan], [2.0, 3.0]]), axis=1) ** 2)
    m = np.array([[0.4, 0.7], [1.1, -0.3]])
    np.testing.assert_allclose(revsrc.jacfwd(mean_rows)(m), revsrc.grad(mean_rows)(m),
                               rtol=1e-13)
