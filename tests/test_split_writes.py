"""Writes through the pieces of np.split and its kin and through an array's view
attributes (``y.T[0] = v``, ``z.imag[:] = v``, ``y.flat[3] = v``), and the refusals
next to them (whose messages name the user's variables, never revsrc's own).

A loop over ``np.split(y, n)`` writing into each piece changes ``y``; the adjoint of
the list of pieces starts as one zero per piece (it once started as an array shaped
like the stacked pieces, which NumPy could not add a piece's adjoint to). Each
gradient is checked against central differences and, where the program has a
functional twin, against JAX.
"""
import numpy as np
import pytest

import revsrc
from revsrc import testing

M2 = np.array([[0.4, -0.3], [1.1, 0.6]])
A3 = np.array([0.3, -1.2, 0.7])
A4 = np.array([0.5, -0.4, 1.3, 0.9])

A6 = np.array([0.2, 0.9, -0.5, 1.1, -0.8, 0.4])
BACKENDS = [None, "python"]


def split_zero(x):
    y = x * 1.0
    for p in np.split(y, 3):
        p[0] = 0.0
    return np.sum(y * x)


def split_write(x):
    y = x * 1.0
    for p in np.split(y, 3):
        p[0] = p[1] * 2.0
    return np.sum(y * y)


def split_imul_enumerate(x):
    y = x * 1.0
    for i, p in enumerate(np.array_split(y, 3)):
        p *= float(i + 1)
    return np.sum(np.sin(y) * x)


def split_slice_assign(x):
    y = x * 1.0
    for i, p in enumerate(np.array_split(y, 3)):
        p[:] = p * float(i + 1)
    return np.sum(np.sin(y) * x)


def split_read_only(x):
    y = x * 1.0
    s = 0.0
    for p in np.split(y, 3):
        s = s + p[0] * p[1]
    return s


def _split_write_twin(jnp, x):
    y = x * 1.0
    y = y.at[0::2].set(y[1::2] * 2.0)
    return jnp.sum(y * y)


def _split_zero_twin(jnp, x):
    y = (x * 1.0).at[0::2].set(0.0)
    return jnp.sum(y * x)


def _split_imul_twin(jnp, x):
    y = x * jnp.repeat(jnp.array([1.0, 2.0, 3.0]), 2)
    return jnp.sum(jnp.sin(y) * x)


CASES = [(split_zero, _split_zero_twin), (split_write, _split_write_twin),
         (split_slice_assign, _split_imul_twin), (split_read_only, None)]


@pytest.mark.parametrize("f,twin", CASES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_into_split_pieces(f, twin, backend):
    testing.check_grads(f, (A6,), backend=backend)
    if twin is None:
        return
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)
    np.testing.assert_allclose(revsrc.grad(f, backend=backend)(A6),
                               jax.grad(lambda x: twin(jnp, x))(A6), rtol=1e-12)
    v, _ = revsrc.value_and_grad(f, backend=backend)(A6)
    assert v == pytest.approx(f(A6.copy()), rel=1e-12)


def _refused(code, call, *words):
    with pytest.raises(revsrc.RevsrcError) as info:
        call()
    text = str(info.value)
    assert text.startswith(f"[{code}]"), text
    assert info.value.filename == __file__
    for w in words:
        assert w in text, text
    assert "_t" not in text.split("\n")[0], text
    return info.value


def test_augmented_writes_into_split_pieces_are_refused():
    def pieces_imul(x):
        y = x + 0.0
        pieces = np.array_split(y, 3)
        pieces[1] *= 3.0
        return np.sum(y * x)

    def hsplit_imul(x):
        y = x * 1.0
        a, b, c = np.hsplit(y, 3)
        b *= 2.0
        return np.sum(y * x)
    _refused("E404", lambda: revsrc.grad(split_imul_enumerate)(A6), "in place")
    e = _refused("E404", lambda: revsrc.grad(pieces_imul)(A6), "pieces is a list")
    assert e.lineno == pieces_imul.__code__.co_firstlineno + 3
    _refused("E404", lambda: revsrc.grad(hsplit_imul)(np.eye(3) + 0.5))


# ----- item assignments into an array's view attributes, and into a call's value -----

def t_write(x):
    y = x * 1.0
    y.T[0] = x[1] * 2.0
    return np.sum(y ** 2 * x)


def imag_write(x):
    z = x * (1.0 + 0.5j)
    z.imag[:] = x * x
    return np.sum(np.abs(z) ** 2)


def real_of_real_write(x):
    y = x * 1.0
    y.real[0] = 3.0 * x[2]
    return np.sum(y * x)


def reshape_t_write(x):
    y = x * 1.0
    r = y.reshape(2, 2)
    r.T[0, 1] = x[3] ** 2
    return np.sum(y * x)


def flat_write(x):
    y = x * 1.0
    y.flat[3] = x[0, 0] * 2.0
    return np.sum(y * y)


def split_item_slice(x):
    y = x * 1.0
    np.split(y, 2)[0][:] = x[3]
    return np.sum(y * x)


def asarray_of_list(x):
    y = np.asarray([x[0], x[1], x[2]])
    y[0] = y[1] * y[2]
    return np.sum(y * y)


ATTRIBUTE_WRITES = [(t_write, M2), (imag_write, A3), (real_of_real_write, A3),
                    (reshape_t_write, A4), (flat_write, M2), (split_item_slice, A4),
                    (asarray_of_list, A3)]


@pytest.mark.parametrize("f,x", ATTRIBUTE_WRITES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_through_view_attributes(f, x, backend):
    testing.check_grads(f, (x,), backend=backend)
    assert revsrc.value_and_grad(f, backend=backend)(x)[0] == pytest.approx(f(x.copy()))


def test_view_attribute_writes_against_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def jt(x):
        y = (x * 1.0).at[:, 0].set(x[1] * 2.0)
        return jnp.sum(y ** 2 * x)

    def jflat(x):
        y = (x * 1.0).reshape(-1).at[3].set(x[0, 0] * 2.0).reshape(x.shape)
        return jnp.sum(y * y)
    np.testing.assert_allclose(revsrc.grad(t_write)(M2), jax.grad(jt)(M2), rtol=1e-12)
    np.testing.assert_allclose(revsrc.grad(flat_write)(M2), jax.grad(jflat)(M2), rtol=1e-12)


class _Holder:
    def __init__(self):
        self.w = np.zeros(3)


HOLDER = _Holder()


def test_item_assignments_that_stay_refused():
    def attribute_of_object(x):
        HOLDER.w[0] = x[0]
        return np.sum(HOLDER.w * x)

    def flat_of_argument(x):
        x.flat[0] = 1.0
        return np.sum(x)

    def flat_of_a_copy(x):
        y = (x * 1.0).T
        y.flat[1] = 3.0      # a transposed view: .flat goes through a copy
        return np.sum(y * x.T)
    _refused("E101", lambda: revsrc.grad(attribute_of_object)(A3), ".T, .real")
    _refused("E403", lambda: revsrc.grad(flat_of_argument)(A3))
    _refused("E404", lambda: revsrc.grad(flat_of_a_copy)(M2))


def test_a_write_message_names_no_temporary():
    def f(x):
        lst = [x[0] * 1.0, x[1] * 2.0]
        y = np.asarray(lst)
        y[0] = y[1] * 3.0
        return np.sum(y * y)
    _refused("E404", lambda: revsrc.grad(f)(A3), "y shares its value with lst")


def test_messages_name_the_users_variables():
    def second_version(x):
        v = x[:1] * 1.0
        v = x[1:]
        v[0] = 3.0 * v[1]
        return np.sum(v)

    def view_in_a_loop(x):
        y = x * 1.0
        t = y[:2] * 1.0
        t = y[1:]
        for i in range(2):
            t[0] = 2.0
            y = y * 2.0
        return np.sum(y)
    e = _refused("E403", lambda: revsrc.grad(second_version)(A3), "(through v)")
    assert "@" not in str(e)
    _refused("E404", lambda: revsrc.grad(view_in_a_loop)(A3), "t shares memory with y")
