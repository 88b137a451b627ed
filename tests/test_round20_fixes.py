"""Round 20's findings (tests/user_programs20_*.py), as rules:

- a derivative (jacfwd, jacrev, jvp) called inside a differentiated function, of a
  function with default arguments it leaves out, takes those defaults (a NameError
  from the spliced program before);
- backend="jax": a for loop long enough to roll into lax.scan whose body runs a while
  loop on a traced value unrolls instead (the while loop's stopped-at-the-bound flag
  leaked out of the scan: an UnexpectedTracerError before); in a while loop's body
  such a loop is refused (E602);
- jacfwd and hessian of a function at an empty array (no direction to push) give an
  empty Jacobian of the output's shape and the argument's, as jacrev and JAX do (an
  internal ValueError from np.stack before).
"""
import math

import numpy as np
import pytest

import revsrc


def _total(x):
    return np.sum(x ** 2) + 1.0


def _double(x):
    return 2.0 * x


@pytest.mark.parametrize("backend", [None, "jax"])
@pytest.mark.parametrize("make, f, x, shape", [
    (revsrc.hessian, _total, np.zeros(0), (0, 0)),
    (revsrc.jacfwd, _double, np.zeros(0), (0, 0)),
    (revsrc.jacfwd, _total, np.zeros(0), (0,)),
    (revsrc.jacfwd, _double, np.zeros((0, 3)), (0, 3, 0, 3)),
    (revsrc.jacfwd, _double, np.zeros(0, np.float32), (0, 0)),
])
def test_jacobians_at_an_empty_array_are_empty(make, f, x, shape, backend):
    if backend == "jax":
        pytest.importorskip("jax")
    got = make(f, backend=backend)(x)
    assert np.shape(got) == shape
    if backend is None:
        assert np.asarray(got).dtype == x.dtype
    rev = revsrc.jacrev(f)(x) if make is revsrc.jacfwd else revsrc.jacrev(revsrc.grad(f))(x)
    assert np.shape(rev) == shape


def test_jacfwd_away_from_empty_is_unchanged():
    x = np.array([0.5, -1.5, 2.0])
    np.testing.assert_array_equal(revsrc.jacfwd(_double)(x), 2.0 * np.eye(3))
    np.testing.assert_allclose(revsrc.hessian(_total)(x), 2.0 * np.eye(3), rtol=1e-15)


_T = np.linspace(0.0, 1.0, 8)


def salience(w):
    total = 0.0
    for h in range(1, 4):
        z = np.sum(np.exp(-1j * h * w * _T))      # a number reduced from a complex array
        total += np.abs(z) ** 2 + np.real(z * np.conj(z)) * 0.5
    return total


def salience_closed(w):
    # |sum_k exp(-i h w t_k)|^2 = sum_{k,l} cos(h w (t_k - t_l)); 1.5 of it per harmonic
    d = _T[:, None] - _T[None, :]
    return sum(1.5 * np.sum(np.cos(h * w * d)) for h in range(1, 4))


def salience_closed_grad(w):
    d = _T[:, None] - _T[None, :]
    return sum(-1.5 * np.sum(h * d * np.sin(h * w * d)) for h in range(1, 4))


def test_a_complex_number_saved_in_a_loop_keeps_its_imaginary_part():
    """Round 20: np.sum of a complex array is a number of a float's kind; saved in a loop
    for the adjoint it was stored as a double (a ComplexWarning and a wrong gradient)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no ComplexWarning
        for w in (1.3, -0.4):
            assert salience(w) == pytest.approx(salience_closed(w), rel=1e-12)
            assert revsrc.grad(salience)(w) == pytest.approx(salience_closed_grad(w),
                                                             rel=1e-10)
            step = 1e-5
            fd = (revsrc.grad(salience)(w + step) - revsrc.grad(salience)(w - step)) / (2 * step)
            assert revsrc.hessian(salience)(w) == pytest.approx(fd, rel=1e-6)
        ws = np.array([1.3, -0.4, 2.0])
        np.testing.assert_allclose(revsrc.vmap(revsrc.grad(salience))(ws),
                                   [salience_closed_grad(w) for w in ws], rtol=1e-10)
        assert revsrc.grad(salience, memory=1)(1.3) == pytest.approx(
            salience_closed_grad(1.3), rel=1e-10)


_C = np.array([0.0, 1.0, 2.0])


def _tuning(theta, kappa=2.0):
    return np.exp(kappa * np.cos(theta - _C))


def _scaled_sine(x, scale=3.0):
    return np.sum(np.sin(x) * scale)


def fisher(theta):
    return np.sum(revsrc.jacfwd(_tuning)(theta) ** 2)


def fisher_closed(theta):
    return np.sum((2.0 * np.sin(theta - _C) * _tuning(theta)) ** 2)


def by_jvp(theta):
    y, t = revsrc.jvp(_tuning, (theta,), (1.0,))
    return np.sum(t ** 2) + np.sum(y)


def by_jacobians(x):
    return np.sum(revsrc.jacfwd(_scaled_sine)(x) ** 2) + np.sum(revsrc.jacrev(_scaled_sine)(x))


@pytest.mark.parametrize("f, x", [(fisher, 0.3), (by_jvp, -0.7),
                                  (by_jacobians, np.array([0.3, -0.5]))])
def test_a_derivative_inside_takes_the_defaults_it_leaves_out(f, x):
    step = 1e-6
    if np.ndim(x):
        fd = np.array([(f(x + e) - f(x - e)) / (2 * step) for e in np.eye(len(x)) * step])
        np.testing.assert_allclose(revsrc.grad(f)(x), fd, rtol=1e-7)
    else:
        assert revsrc.grad(f)(x) == pytest.approx((f(x + step) - f(x - step)) / (2 * step),
                                                  rel=1e-7)
    if f is fisher:
        assert f(x) == pytest.approx(fisher_closed(x), rel=1e-12)


def _fold(x):
    while x > 1.0:
        x = 2.0 - x if x > 3.0 else 1.5 - x
    return x


def wavefolder(g, n):
    t = 0.0
    for k in range(n):
        t += _fold(g * math.sin(k))
    return t


@pytest.mark.parametrize("n", [31, 32, 40])
def test_a_traced_while_in_a_long_for_loop_under_jax(n):
    pytest.importorskip("jax")
    want = revsrc.grad(wavefolder)(3.3, n)
    step = 1e-7
    fd = (wavefolder(3.3 + step, n) - wavefolder(3.3 - step, n)) / (2 * step)
    assert want == pytest.approx(fd, rel=1e-6)
    assert revsrc.grad(wavefolder, backend="jax")(3.3, n) == pytest.approx(want, rel=1e-12)


def nested_whiles(x):
    while x > 1.0:
        y = x
        while y > 0.5:
            y = math.sin(y) * 0.9
        x = x * 0.5 + y * 0.1
    return x


def test_a_saving_while_in_a_traced_while_is_refused_under_jax():
    pytest.importorskip("jax")
    from revsrc import errors
    step = 1e-7
    fd = (nested_whiles(5.0 + step) - nested_whiles(5.0 - step)) / (2 * step)
    assert revsrc.grad(nested_whiles)(5.0) == pytest.approx(fd, rel=1e-6)
    with pytest.raises(errors.JaxDataDependent) as info:
        revsrc.grad(nested_whiles, backend="jax")(5.0)
    assert info.value.code == "E602" and "while loop in its body" in info.value.message
    assert info.value.lineno is not None
