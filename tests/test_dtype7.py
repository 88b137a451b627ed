"""A value stored into an integer, unsigned or bool array carries no derivative.

NumPy truncates (or, for bool, tests) what it writes into such an array, so the
stored element is a step function of the value: its derivative is 0, in reverse mode
(the value's adjoint from that store) and in forward mode (the array's tangent there).
The dtype may be known only at run time (an argument's, an int literal's, one passed
in), so revsrc decides it then. Float32 and complex destinations keep the derivative.
Each program is checked against central differences at a point away from the steps,
and against JAX (x64) where one exists.
"""
import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads, check_jvp


def rows_int32(x):
    y = np.zeros((2, 3), dtype=np.int32)
    y[1] = x * 7.0
    return np.sum(y * x) + np.sum(x ** 2)


def labels_like(x, labels):
    y = np.empty_like(labels)      # the dtype is the argument's: known at run time
    y[:] = x * 3.0
    return np.sum(y * x) + np.sum(np.sin(x))


def dtype_argument(x, dt):
    y = np.zeros(3, dtype=dt)
    y[0] = x * 5.0
    return np.sum(y * 1.0) + x


def bool_mask_store(x):
    m = np.zeros(3, dtype=bool)
    m[:] = x                       # nonzero -> True
    return np.sum(m * x)


def loop_store(x):
    y = np.zeros(3, dtype=np.int64)
    for i in range(3):
        y[i] = x[i] * 10.0
    return np.sum(y) + np.sum(x ** 2)


def view_store(x):
    y = np.zeros(3, dtype=int)
    v = y[1:]
    v[0] = x * 10.0
    return np.sum(y) + x


def iadd_uint16(x):
    y = np.full(2, 7, dtype=np.uint16)
    y[1] += x[0] * 100.0
    return np.sum(y * x)


def fill_diagonal_int(x):
    M = np.zeros((2, 2), dtype=int)
    np.fill_diagonal(M, x * 2.5)
    return np.sum(M) + x


def squared_store(x):
    y = np.zeros(2, dtype=int)
    y[0] = x ** 2 * 10.0
    return np.sum(y) + x ** 3


def float32_store(x):
    y = np.zeros(3, dtype=np.float32)
    y[0] = x * 2.0
    return float(np.sum(y)) + x


def complex_store(x):
    y = np.zeros(2, dtype=complex)
    y[0] = x * 2.0
    return np.real(np.sum(y)) + x


X2 = np.array([1.23, 2.34])
X3 = np.array([1.23, 2.34, 0.71])
XU = np.array([1.2345, 2.34])      # 100 x[0] away from an integer


def test_row_store_int32():
    g = revsrc.grad(rows_int32)(X3)
    # y[1] = trunc(7 x): constant around X3; d/dx sum(y * x) = y[0] + y[1]
    np.testing.assert_allclose(g, np.trunc(7.0 * X3) + 2 * X3)
    check_grads(rows_int32, (X3,))


@pytest.mark.parametrize("labels", [np.array([1, 2]), np.array([1, 2], dtype=np.uint8),
                                    np.array([True, False])])
def test_dtype_of_an_argument(labels):
    g = revsrc.grad(labels_like)(X2, labels)
    y = (X2 * 3.0).astype(labels.dtype)
    np.testing.assert_allclose(g, y + np.cos(X2))
    check_grads(labels_like, (X2, labels), argnums=0)


def test_float_labels_keep_the_derivative():
    g = revsrc.grad(labels_like)(X2, np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, 6.0 * X2 + np.cos(X2))


@pytest.mark.parametrize("dt,want", [(int, 1.0), (np.int8, 1.0), (bool, 1.0),
                                     (float, 6.0), (np.float32, 6.0)])
def test_dtype_passed_in(dt, want):
    g = revsrc.grad(dtype_argument, argnums=0)
    assert g(1.23, dt) == pytest.approx(want)


@pytest.mark.parametrize("f,x", [(bool_mask_store, X3), (loop_store, X3),
                                 (view_store, 1.23), (iadd_uint16, XU),
                                 (fill_diagonal_int, 1.13), (squared_store, 1.23),
                                 (complex_store, 1.23)])
def test_against_central_differences(f, x):
    check_grads(f, (x,))


def test_float32_destination_keeps_the_derivative():
    check_grads(float32_store, (1.23,), rtol=1e-3)


def test_known_values():
    assert revsrc.grad(view_store)(1.23) == pytest.approx(1.0)
    np.testing.assert_allclose(revsrc.grad(bool_mask_store)(X3), np.ones(3))
    np.testing.assert_allclose(revsrc.grad(loop_store)(X3), 2 * X3)
    assert revsrc.grad(fill_diagonal_int)(1.13) == pytest.approx(1.0)
    assert revsrc.grad(float32_store)(1.23) == pytest.approx(3.0)
    assert revsrc.grad(complex_store)(1.23) == pytest.approx(3.0)


def test_second_order():
    # d2/dx2 (trunc(10 x^2) + x^3) = 6 x away from the steps
    assert revsrc.hessian(squared_store)(1.23) == pytest.approx(6 * 1.23)
    assert revsrc.grad(revsrc.grad(squared_store))(1.23) == pytest.approx(6 * 1.23)


@pytest.mark.parametrize("f,x", [(rows_int32, X3), (loop_store, X3), (view_store, 1.23),
                                 (iadd_uint16, XU), (squared_store, 1.23)])
def test_jvp(f, x):
    check_jvp(f, (x,))


def test_jvp_tangent_is_zero_there():
    _, t = revsrc.jvp(view_store, (1.23,), (1.0,))
    assert t == pytest.approx(1.0)
    _, t = revsrc.jvp(lambda x: labels_like(x, np.array([1, 2])), (X2,), (np.ones(2),))
    assert t == pytest.approx(np.sum(np.trunc(3.0 * X2)) + np.sum(np.cos(X2)))


def test_vmap_and_jit_of_grad():
    xs = np.array([1.23, 2.34, 0.71])
    np.testing.assert_allclose(revsrc.vmap(revsrc.grad(view_store))(xs), np.ones(3))
    assert revsrc.jit(revsrc.grad(view_store))(1.23) == pytest.approx(1.0)


def fancy_int32(x):
    y = np.zeros(4, dtype=np.int32)
    y[np.array([0, 2])] = x * 3.0
    return np.sum(y[:2] * x) + np.sum(x)


@pytest.mark.parametrize("backend", ["python", "jax"])
def test_backends(backend):
    if backend == "jax":
        pytest.importorskip("jax")
    g = revsrc.grad(fancy_int32, backend=backend)(X2)
    # y[:2] = [trunc(3 x0), 0]
    np.testing.assert_allclose(g, [np.trunc(3 * X2[0]) + 1.0, 1.0])
    g = revsrc.grad(view_store, backend=backend)(1.23)
    assert g == pytest.approx(1.0)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def jf(x):
        y = jnp.zeros(4, dtype=jnp.int32).at[jnp.array([0, 2])].set(
            (x * 3.0).astype(jnp.int32))
        return jnp.sum(y[:2] * x) + jnp.sum(x)

    np.testing.assert_allclose(revsrc.grad(fancy_int32)(X2), jax.grad(jf)(X2))


# -- conversions to a dtype known only at run time --------------------------------------------
# x.astype(int), np.array(v, dtype=int) with the dtype written in the function are cut by
# the analysis; passed in as an argument, the adjoint decides it at run time.

def convert_to(x, dt):
    y = (10.0 * x).astype(dt)
    z = np.asarray(10.0 * x, dtype=dt)
    w = np.array([x[0], x[1]], dtype=dt)
    return np.sum(y) + np.sum(z) + np.sum(w * x) + np.sum(x)


@pytest.mark.parametrize("backend", [None, "python", "jax"])
@pytest.mark.parametrize("dt", [int, np.uint8, "int32", bool, float, np.float32])
def test_conversion_to_a_dtype_passed_in(dt, backend):
    if backend == "jax":
        pytest.importorskip("jax")
    g = revsrc.grad(convert_to, backend=backend)(X2, dt)
    w = np.array([X2[0], X2[1]]).astype(dt).astype(float)
    if np.dtype(dt).kind in "biu":
        want = w + 1.0
    else:
        want = 20.0 + w + X2 + 1.0
    np.testing.assert_allclose(g, want, rtol=1e-6)
    if np.dtype(dt).kind in "biu":
        check_grads(convert_to, (X2, dt), argnums=0)


def test_conversion_jvp():
    # the dtype read from a closure: known when transforming
    for dt in (int, float):
        check_jvp(lambda x: convert_to(x, dt), (X2,))


def test_np_copy_order_is_not_a_dtype():
    def f(x):
        return np.sum(np.copy(x * 2.0, "C"))
    np.testing.assert_allclose(revsrc.grad(f)(X2), [2.0, 2.0])


def test_second_order_through_a_conversion_passed_in():
    def f(x, dt):
        w = np.array([x[0] ** 2, x[1] ** 2], dtype=dt) * 1.0
        return np.sum(w * x) + np.sum(x ** 3)
    for dt in (int, float):
        # reverse over reverse (forward mode through a dtype passed in is not cut yet)
        h = revsrc.jacrev(revsrc.grad(f))(X2, dt)
        if np.dtype(dt).kind in "biu":
            want = np.diag(6 * X2)          # w is constant there
        else:
            want = np.diag(6 * X2 + 6 * X2)   # d2/dx2 (x^3 + x^3)
        np.testing.assert_allclose(h, want, rtol=1e-6)
