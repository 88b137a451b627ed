"""Second derivatives through in-place writes and views (issue 22).

A derivative made by revsrc saves the values an item assignment overwrites and
writes them back in its adjoint sweep; differentiating that derivative again (forward
over reverse: hessian, hvp, jvp and jacfwd of grad; reverse over reverse: jacrev and
grad of grad) must carry those saved values' derivatives too. Each program here
writes into an array in place (slices, single items, fancy and boolean indices,
every augmented operator, views and views of views, in loops and in helpers), and
each second-order entry point is checked against central differences of
``revsrc.grad`` (itself checked against central differences of the function), and
against ``jax.hessian`` (x64) of a functional twin where one is written.
"""
import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads


# ----- The programs -----

def slice_imul(x):
    y = x * 1.0
    y[1:] *= x[0]
    return np.sum(y)


def slice_iadd_square(x):
    y = x * 1.0
    y[1:] += x[:-1] ** 2
    return np.sum(y * y)


def slice_isub_product(x):
    y = np.sin(x)
    y[:3] -= x[3:] * x[0]
    return np.sum(y ** 3)


def slice_idiv(x):
    y = x + 2.0
    y[::2] /= x[1] + 3.0
    return np.sum(y * x)


def slice_assign(x):
    y = x * x
    y[2:5] = np.cos(x[:3]) * x[5]
    return np.sum(y * y)


def slice_assign_self(x):
    y = x * 1.0
    y[1:] = y[1:] * x[0]
    return np.sum(y)


def item_assign(x):
    y = x ** 2
    y[0] = x[1] * x[2]
    y[3] = y[0] * x[4]
    return np.sum(y * x)


def item_imul_repeated(x):
    y = x * 1.0
    y[2] *= x[2]
    y[2] *= x[3]
    return np.sum(y * y)


def fancy_imul(x):
    y = x * 1.0
    y[[0, 2, 4]] *= x[1]
    return np.sum(y * y)


def fancy_assign(x):
    y = np.exp(x)
    idx = np.array([5, 1, 3])
    y[idx] = x[idx] ** 3
    return np.sum(y * x)


def fancy_iadd_gather(x):
    y = x * x
    y[[1, 4]] += y[[0, 3]] * x[5]
    return np.sum(np.sin(y))


def mask_imul(x):
    y = x * 1.0
    y[x > 0.0] *= x[0]
    return np.sum(y * y)


def where_then_inplace(x):
    y = np.where(x > 0.0, x * x, -x)
    y[1:4] *= y[0]
    return np.sum(y)


def write_then_overwrite(x):
    y = x * 1.0
    y[1:] *= x[0]
    y[2:] = y[2:] * y[1:-1]
    return np.sum(y)


def view_imul(x):
    y = x * 1.0
    v = y[1:]
    v *= x[0]
    return np.sum(y * y)


def view_before_imul(x):
    y = x * 1.0
    v = y[1:]
    y *= x
    return np.sum(v)


def view_before_assign(x):
    y = x * 2.0
    v = y[2:]
    y[:] = np.sin(x) * x[0]
    return np.sum(v * v)


def view_of_view_imul(x):
    y = x * 1.0
    v = y[1:]
    w = v[::2]
    w *= x[0] ** 2
    return np.sum(y * x)


def view_base_read_after(x):
    y = np.cos(x)
    v = y[:4]
    v *= x[1:5]
    return np.sum(y * y) + np.sum(v)


def reshape_view_write(x):
    y = x * 1.0
    m = y.reshape(2, 3)
    m[0] *= x[5]
    m[:, 1] += x[0] * x[1]
    return np.sum(y * y)


def matrix_row_write(x):
    m = np.reshape(x * 1.0, (2, 3))
    m[1] = m[0] * m[1]
    m[:, 0] *= x[2]
    return np.sum(m * m)


def loop_recurrence(x):
    y = x * 1.0
    for i in range(1, 6):
        y[i] = y[i - 1] * x[i] + np.sin(y[i])
    return np.sum(y)


def loop_slice_imul(x):
    y = x * 1.0
    for i in range(3):
        y[i + 1:] *= x[i]
    return np.sum(y * y)


def loop_view_imul(x):
    y = x * 1.0
    v = y[1:4]
    for i in range(2):
        v *= x[0] + x[i + 4]
    return np.sum(y * x)


def while_write(x):
    y = x * 1.0
    i = 0
    while i < 4:
        y[i + 1] += y[i] * y[i]
        i += 1
    return np.sum(y)


def loop_data_dependent_write(x):
    y = x * 1.0
    for i in range(5):
        if y[i] > 0.0:
            y[i + 1] *= y[i]
        else:
            y[i + 1] -= x[i] ** 2
    return np.sum(y * y)


def _scale_tail(a, s):
    a[1:] *= s


def helper_imul(x):
    y = x * 1.0
    _scale_tail(y, x[0] * x[1])
    return np.sum(y * y)


def _write_view(v, s):
    v[:] = v * s + s


def helper_writes_view(x):
    y = np.sin(x)
    _write_view(y[2:], x[0])
    return np.sum(y * x)


def add_at_write(x):
    y = x * 1.0
    np.add.at(y, np.array([0, 0, 3]), x[1:4] * x[5])
    return np.sum(y * y)


def two_args(x, w):
    y = x * w
    y[1:] *= w[0] * x[0]
    return np.sum(y * y)


CASES = [slice_imul, slice_iadd_square, slice_isub_product, slice_idiv, slice_assign,
         slice_assign_self, item_assign, item_imul_repeated, fancy_imul, fancy_assign,
         fancy_iadd_gather, mask_imul, where_then_inplace, write_then_overwrite,
         view_imul, view_before_imul, view_before_assign, view_of_view_imul,
         view_base_read_after, reshape_view_write, matrix_row_write, loop_recurrence,
         loop_slice_imul, loop_view_imul, while_write, loop_data_dependent_write,
         helper_imul, helper_writes_view, add_at_write]

X = np.array([0.7, -1.3, 0.4, 1.1, -0.6, 0.9])
V = np.array([0.3, -0.5, 1.2, 0.8, -1.1, 0.25])


def _fd_hessian(g, x, h=1e-5):
    """Columns of the Jacobian of ``g``: Richardson-extrapolated central differences."""
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = 1.0
        d1 = (g(x + h * e) - g(x - h * e)) / (2 * h)
        d2 = (g(x + h / 2 * e) - g(x - h / 2 * e)) / h
        cols.append((4 * d2 - d1) / 3)
    return np.stack(cols, axis=-1)


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-7)


@pytest.fixture(scope="module")
def reference():
    """Per program: its Hessian by central differences of its (checked) gradient."""
    out = {}
    for f in CASES:
        check_grads(f, (X,))
        out[f.__name__] = _fd_hessian(revsrc.grad(f), X)
    return out


@pytest.mark.parametrize("backend", [None, "python"], ids=["auto", "python"])
@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_forward_over_reverse(f, backend, reference):
    H = reference[f.__name__]
    _close(revsrc.hessian(f, backend=backend)(X), H)
    _close(revsrc.hvp(f, (X,), (V,), backend=backend), H @ V)
    _close(revsrc.jvp(revsrc.grad(f, backend=backend), (X,), (V,), backend=backend)[1],
           H @ V)
    _close(revsrc.jacfwd(revsrc.grad(f, backend=backend), backend=backend)(X), H)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_reverse_over_reverse(f, reference):
    H = reference[f.__name__]
    _close(revsrc.jacrev(revsrc.grad(f))(X), H)
    dg = revsrc.grad(f)

    def component(x):
        return dg(x)[2]
    _close(revsrc.grad(component)(X), H[2])


def test_two_arguments():
    w = np.array([1.2, -0.4, 0.8, 0.5, -0.9, 1.4])
    blocks = revsrc.hessian(two_args, argnums=(0, 1))(X, w)
    gx = revsrc.grad(two_args, 0)
    gw = revsrc.grad(two_args, 1)
    _close(blocks[0][0], _fd_hessian(lambda t: gx(t, w), X))
    _close(blocks[0][1], _fd_hessian(lambda t: gx(X, t), w))
    _close(blocks[1][0], _fd_hessian(lambda t: gw(t, w), X))
    _close(blocks[1][1], _fd_hessian(lambda t: gw(X, t), w))
    _close(blocks[0][1], blocks[1][0].T)
