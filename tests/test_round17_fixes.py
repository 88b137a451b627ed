"""Round 17's findings (tests/user_programs17_*.py), fixed as rules:

- np.sign is flat on real numbers, and a number's kind was taken to say it is real:
  np.abs of a complex number reduced from an array (np.sum, np.mean, z.sum() of
  exp(1j * phi)) lost the derivative of its rule's np.sign in second derivatives (a
  wrong Hessian, with the gradient right). A number computed from complex values is
  not known real now."""
import numpy as np
import pytest

import revsrc


def order_parameter(phi):
    return np.abs(np.sum(np.exp(1j * phi)))


def mean_order(phi):
    return np.abs(np.mean(np.exp(1j * phi))) ** 2


def method_sum(phi):
    z = (np.exp(1j * phi) * np.array([1.0, 0.5, 2.0])).sum()
    return np.log(np.abs(z))


def dft_power(w):
    n = np.arange(16.0)
    x = np.sin(0.3 * n)
    return np.abs(np.sum(x * np.exp(-1j * w * n))) ** 2


def _fd_hessian(f, x, h=1e-5):
    g = revsrc.grad(f)
    return np.array([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(x.size)])


def test_abs_of_a_complex_sum_closed_form():
    """|e^{i p0} + e^{i p1}| = 2 |cos((p0 - p1) / 2)|: its Hessian has cross terms."""
    p = np.array([0.3, -0.4])
    c = -0.5 * np.cos((p[0] - p[1]) / 2)          # d^2/dd^2 of 2 cos(d / 2), d = p0 - p1
    want = np.array([[c, -c], [-c, c]])
    np.testing.assert_allclose(revsrc.hessian(order_parameter)(p), want, rtol=1e-12)
    np.testing.assert_allclose(revsrc.jacrev(revsrc.grad(order_parameter))(p), want,
                               rtol=1e-12)


@pytest.mark.parametrize("f", [order_parameter, mean_order, method_sum])
def test_second_derivatives_of_abs_of_reduced_complex(f):
    p = np.array([0.3, -0.4, 1.1])
    H = revsrc.hessian(f)(p)
    np.testing.assert_allclose(H, _fd_hessian(f, p), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(revsrc.jacrev(revsrc.grad(f))(p), H, rtol=1e-10, atol=1e-12)


def test_dft_bin_curvature_by_grad_of_grad():
    d2 = revsrc.grad(revsrc.grad(dft_power))
    dg = revsrc.grad(dft_power)
    h = 1e-6
    want = (dg(0.35 + h) - dg(0.35 - h)) / (2 * h)
    np.testing.assert_allclose(d2(0.35), want, rtol=1e-6)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    p = np.array([0.3, -0.4, 1.1])
    want = jax.hessian(lambda q: jnp.abs(jnp.sum(jnp.exp(1j * q))))(jnp.asarray(p))
    np.testing.assert_allclose(revsrc.hessian(order_parameter)(p), np.asarray(want),
                               rtol=1e-12, atol=1e-14)


def _helper_with_early_return(r):
    t = r[0] + r[1]
    if t < 1e-8:
        return np.ones(2)
    return r * t


def early_return_in_a_helper(r):
    return np.sum(_helper_with_early_return(r) ** 2)


def lagged(x, lags=np.arange(1, 3)):
    return np.sum(np.array([np.sum(x[:-L] * x[L:]) for L in lags]) ** 2)


def test_jax_backend_helper_with_an_early_return_on_a_traced_test():
    """The adjoint of a helper's return value before its early return was zeros of an
    unassigned placeholder under backend='jax' (an internal TypeError); it is never read,
    and the branch's select takes the other arm's."""
    pytest.importorskip("jax")
    r = np.array([0.1, 0.2])
    np.testing.assert_allclose(revsrc.grad(early_return_in_a_helper, backend="jax")(r),
                               revsrc.grad(early_return_in_a_helper)(r), rtol=1e-14)
    np.testing.assert_allclose(revsrc.hessian(early_return_in_a_helper, backend="jax")(r),
                               revsrc.hessian(early_return_in_a_helper)(r), rtol=1e-13)


def test_jax_backend_slice_bound_from_an_array_is_refused_at_the_line():
    pytest.importorskip("jax")
    with pytest.raises(revsrc.RevsrcError) as e:
        revsrc.grad(lagged, backend="jax")(np.arange(1.0, 7.0))
    assert e.value.code == "E603"
    assert "x[:-L]" in str(e.value) and "slice bound" in str(e.value)
    got = revsrc.grad(lagged, backend="jax")(np.arange(1.0, 7.0), (1, 2))
    np.testing.assert_allclose(got, revsrc.grad(lagged)(np.arange(1.0, 7.0)), rtol=1e-14)


def _morse(r):
    return 4.7 * (1.0 - np.exp(-1.9 * (r - 0.74))) ** 2


def test_transformations_of_a_mapped_function_itself():
    """jacrev, jacfwd and jvp of revsrc.vmap(f) (E104 before): f's derivative on the
    diagonal, as the call rule gives for a function calling the mapped one."""
    rs = np.array([0.7, 1.0, 1.6])
    d1 = np.array([revsrc.grad(_morse)(r) for r in rs])
    m = revsrc.vmap(_morse)
    np.testing.assert_allclose(revsrc.jacrev(m)(rs), np.diag(d1), rtol=1e-13)
    np.testing.assert_allclose(revsrc.jacfwd(m)(rs), np.diag(d1), rtol=1e-13)
    out, t = revsrc.jvp(m, (rs,), (np.ones(3),))
    np.testing.assert_array_equal(out, m(rs))
    np.testing.assert_allclose(t, d1, rtol=1e-13)


def test_a_mapped_derivative_transformed_again_is_refused():
    with pytest.raises(revsrc.RevsrcError) as e:
        revsrc.jacrev(revsrc.vmap(revsrc.grad(_morse)))(np.array([0.7, 1.0]))
    assert e.value.code == "E104"


def _last_item_written(e):
    n = e.shape[0]
    y = e * 1.0
    y[n - 1] -= 0.5
    return np.sum(y ** 2)


def _diagonal_matrix_written(h):
    H = np.diag(h)
    H[1, 2] = -0.3
    H[0, n_last(h)] += h[0]
    return np.sum(H ** 2)


def n_last(h):
    return h.shape[0] - 1


@pytest.mark.parametrize("f", [_last_item_written, _diagonal_matrix_written])
def test_jax_backend_writes_into_arrays_the_function_made(f):
    """An item written at an index computed from a shape, a matrix made by np.diag of a
    vector: whether the write reaches another array is known from the index's ints and
    the shapes (E603 'view or copy' before)."""
    pytest.importorskip("jax")
    x = np.array([0.3, 0.5, 0.9])
    np.testing.assert_allclose(revsrc.grad(f, backend="jax")(x), revsrc.grad(f)(x),
                               rtol=1e-13)


def _squeezed_view_written(x):
    y = x * 1.0
    z = y[1:2].reshape(())     # a 0-d view of y: a write into it reaches y
    z[...] = 2.0 * x[0]
    return np.sum(y ** 2)


def test_jax_backend_still_refuses_a_zero_d_view_it_cannot_tell():
    pytest.importorskip("jax")
    x = np.array([0.3, 0.5, 0.9])
    try:
        got = revsrc.grad(_squeezed_view_written, backend="jax")(x)
    except revsrc.RevsrcError as e:
        assert e.code in ("E603", "E404")
    else:
        np.testing.assert_allclose(got, revsrc.grad(_squeezed_view_written)(x), rtol=1e-13)
