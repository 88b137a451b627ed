"""Augmented assignment on an array behaves as NumPy's in-place operator.

``y += x`` on an array is NumPy's ``np.add(y, x, out=y, casting='same_kind')``: where
the result's dtype cannot be cast to ``y``'s (float into an int, bool or uint array),
NumPy raises; where it can, ``y`` keeps its dtype (a float32 array stays float32).
revsrc computes ``y = y + x``, which would silently change the dtype, so it tests the
dtype when the program runs and raises NumPy's own exception, on every backend. The
same holds for ``y[:] += x``, ``y[mask] += v`` and ``xs[i] += v`` (the item is an array
changed in place), but not for ``y[0] += 1.5`` (the element is a number: Python
rebinds it and NumPy truncates what is stored).
"""
import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads

X = np.array([1.5, 2.5, 3.5])


def int_iadd(x):
    y = np.zeros(3, int)
    y += x
    return np.sum(y * x)


def int_slice_iadd(x):
    y = np.zeros(3, int)
    y[:] += x
    return np.sum(y * x)


def int_imul(x):
    y = np.ones(3, int)
    y *= 2.5
    return np.sum(y * x)


def int_isub(x):
    y = np.zeros(3, int)
    y -= x
    return np.sum(y * x)


def bool_iadd(x):
    y = np.zeros(3, bool)
    y += x > 2.0
    y += x
    return np.sum(y * x)


def uint_iadd(x):
    y = np.zeros(3, np.uint8)
    y += np.ones(3, np.int64)
    return np.sum(y * x)


def int_mask_iadd(x):
    y = np.zeros(3, int)
    y[y == 0] += 1.5
    return np.sum(y * x)


def int_fancy_iadd(x):
    y = np.zeros(3, int)
    y[[0, 1]] += x[:2]
    return np.sum(y * x)


def int_idiv(x):
    y = np.ones(3, int)
    y /= 2
    return np.sum(y * x)


def aliased_int_iadd(x):
    y = np.zeros(3, int)
    z = y[:2]
    z += x[:2]
    return np.sum(y * x)


RAISING = [int_iadd, int_slice_iadd, int_imul, int_isub, bool_iadd, uint_iadd,
           int_mask_iadd, int_fancy_iadd, int_idiv, aliased_int_iadd]


def _numpy_error(f, *args):
    with pytest.raises(Exception) as info:
        f(*args)
    return info.type, str(info.value)


@pytest.mark.parametrize("f", RAISING, ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["grad", "jvp", "hessian"])
def test_raises_as_numpy(f, how):
    kind, message = _numpy_error(f, X)
    assert issubclass(kind, TypeError)
    run = {"grad": lambda: revsrc.grad(f)(X),
           "jvp": lambda: revsrc.jvp(f, (X,), (np.ones(3),)),
           "hessian": lambda: revsrc.hessian(f)(X)}[how]
    with pytest.raises(kind) as info:
        run()
    assert str(info.value) == message


@pytest.mark.parametrize("f", [int_iadd, int_slice_iadd, int_imul, int_fancy_iadd],
                         ids=lambda f: f.__name__)
def test_raises_on_jax(f):
    pytest.importorskip("jax")
    kind, message = _numpy_error(f, X)
    with pytest.raises(kind) as info:
        revsrc.grad(f, backend="jax")(X)
    assert str(info.value) == message


# -- where NumPy's cast is allowed, the target keeps its dtype --------------------------

def float32_iadd(x):
    y = np.zeros(3, np.float32)
    y += x
    return np.sum(y.astype(np.float64) * x) + (y.dtype == np.float32) * 100.0


def float32_aliased(x):
    y = np.zeros(3, np.float32)
    z = y[:2]
    z += x[:2]
    return np.sum(y * x) + (y.dtype == np.float32) * 100.0


def int_plus_int(x):
    y = np.zeros(3, int)
    y += np.arange(3)
    y *= 2
    return np.sum(y * x) + (y.dtype == np.int64) * 100.0


def float_plus_int(x):
    y = x * 1.0
    y += np.arange(3)
    y *= x
    return np.sum(y)


def int_element(x):
    y = np.zeros(3, int)
    y[0] += x[0]          # a number, rebound, then truncated into the array
    return np.sum(y * x)


def int32_plus_int64(x):
    y = np.zeros(3, np.int32)
    y += np.arange(3, dtype=np.int64)
    return np.sum(y * x) + (y.dtype == np.int32) * 100.0


def number_iadd(x):
    k = np.int64(2)
    k += 0.5              # a NumPy scalar: rebound to a float, as Python does
    return k * np.sum(x)


ALLOWED = [int_plus_int, float_plus_int, int_element,
           int32_plus_int64, number_iadd]


@pytest.mark.parametrize("f", ALLOWED, ids=lambda f: f.__name__)
def test_allowed_casts_keep_the_dtype(f):
    value, g = revsrc.value_and_grad(f)(X)
    assert value == pytest.approx(f(X))
    check_grads(f, (X,))


@pytest.mark.parametrize("f", ALLOWED, ids=lambda f: f.__name__)
def test_allowed_casts_forward(f):
    value, t = revsrc.jvp(f, (X,), (np.array([0.3, -0.2, 0.5]),))
    assert value == pytest.approx(f(X))
    eps = 1e-6
    d = np.array([0.3, -0.2, 0.5])
    want = (f(X + eps * d) - f(X - eps * d)) / (2 * eps)
    assert t == pytest.approx(want, rel=1e-4, abs=1e-6)


@pytest.mark.parametrize("f", [float32_iadd, float32_aliased], ids=lambda f: f.__name__)
def test_float32_stays_float32(f):
    # the value is 100 more when y is still float32 at the end; derivative x32 + x
    value, g = revsrc.value_and_grad(f)(X)
    assert value == pytest.approx(f(X), rel=1e-12)
    want = X.astype(np.float32) + X
    if f is float32_aliased:
        want[2] = 0.0
    np.testing.assert_allclose(g, want, rtol=1e-6)
    value, t = revsrc.jvp(f, (X,), (np.ones(3),))
    assert value == pytest.approx(f(X), rel=1e-12)
    assert t == pytest.approx(np.sum(want), rel=1e-6)


def test_int_element_known_value():
    np.testing.assert_allclose(revsrc.grad(int_element)(X), [1.0, 0.0, 0.0])


@pytest.mark.parametrize("f", [float32_iadd, int_plus_int, float_plus_int, int_element],
                         ids=lambda f: f.__name__)
def test_allowed_on_jax(f):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    np.testing.assert_allclose(revsrc.grad(f, backend="jax")(X), revsrc.grad(f)(X),
                               rtol=1e-6)


def test_hessian_through_an_in_place_update():
    def f(x):
        y = x * x
        y += np.sin(x)
        y *= x
        return np.sum(y)

    h = revsrc.hessian(f)(X)
    np.testing.assert_allclose(h, np.diag(6 * X + 2 * np.cos(X) - X * np.sin(X)),
                               rtol=1e-8)


# -- forward mode through a conversion whose dtype is a value -----------------------------
# x.astype(dt), np.array(v, dtype=dt), np.asarray(v, dtype=dt) with dt passed in: an int or
# bool dtype truncates (a step function: derivative 0), a float one keeps the tangent.

def astype_to(x, dt):
    return np.sum((x ** 2).astype(dt) * 1.0) + np.sum(np.sin(x))


def array_to(x, dt):
    return np.sum(np.array(x ** 2, dtype=dt) * x)


def asarray_to(x, dt):
    return np.sum(np.asarray(x ** 2, dtype=dt) * x)


def asarray_written(x, dt):
    y = np.asarray(x * 2.0, dtype=dt)    # a new array: written, and x is not changed
    y[0] = 5.0
    return np.sum(y * x) + np.sum(x)


def astype_no_copy(x, dt):
    y = (x * 3.0).astype(dt, copy=False)
    return np.sum(y * y)


CONVERSIONS = [astype_to, array_to, asarray_to, asarray_written, astype_no_copy]
XC = np.array([1.3, 2.6])


def _central(f, x, dt, eps=1e-6):
    return np.array([(f(x + eps * e, dt) - f(x - eps * e, dt)) / (2 * eps)
                     for e in np.eye(len(x))])


def _central_hessian(f, x, dt, eps=1e-4):
    g = revsrc.grad(f)
    return np.array([(g(x + eps * e, dt) - g(x - eps * e, dt)) / (2 * eps)
                     for e in np.eye(len(x))])


@pytest.mark.parametrize("f", CONVERSIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dt", [int, np.int32, bool, np.uint8, float, np.float64])
def test_conversion_forward(f, dt):
    want = _central(f, XC, dt)
    np.testing.assert_allclose(revsrc.jacfwd(f)(XC, dt), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(revsrc.grad(f)(XC, dt), want, rtol=1e-6, atol=1e-6)
    value, t = revsrc.jvp(lambda x: f(x, dt), (XC,), (np.array([0.7, -0.4]),))
    assert value == pytest.approx(f(XC, dt))
    assert t == pytest.approx(want @ [0.7, -0.4], rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("f", CONVERSIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dt", [int, bool, float])
def test_conversion_second_order(f, dt):
    want = _central_hessian(f, XC, dt)
    np.testing.assert_allclose(revsrc.hessian(f)(XC, dt), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(revsrc.jacfwd(revsrc.jacfwd(f))(XC, dt), want,
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f", CONVERSIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dt", [int, float])
def test_conversion_vmap_of_jacfwd(f, dt):
    xs = np.stack([XC, XC + 1.0])
    got = revsrc.vmap(revsrc.jacfwd(f), in_axes=(0, None))(xs, dt)
    np.testing.assert_allclose(got, [_central(f, x, dt) for x in xs], rtol=1e-6, atol=1e-6)


def test_conversion_known_values():
    # trunc(x**2) carries no derivative: only sin's remains
    np.testing.assert_allclose(revsrc.jacfwd(astype_to)(XC, int), np.cos(XC))
    np.testing.assert_allclose(revsrc.jacfwd(astype_to)(XC, float), 2 * XC + np.cos(XC))
    np.testing.assert_allclose(revsrc.hessian(array_to)(XC, int), np.zeros((2, 2)))


def test_conversion_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def jf(x, dt):
        return jnp.sum(jnp.asarray(x ** 2, dtype=dt) * x)

    for dt in (int, float):
        np.testing.assert_allclose(revsrc.jacfwd(asarray_to)(XC, dt),
                                   jax.jacfwd(jf)(XC, dt), rtol=1e-12)
        np.testing.assert_allclose(revsrc.hessian(asarray_to)(XC, dt),
                                   jax.hessian(jf)(XC, dt), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [int, float])
def test_conversion_forward_on_jax(dt):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    np.testing.assert_allclose(revsrc.jacfwd(array_to, backend="jax")(XC, dt),
                               revsrc.jacfwd(array_to)(XC, dt), rtol=1e-12)
