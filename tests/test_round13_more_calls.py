"""Round 13, second batch: callees written as expressions, an object of a class with no
``__init__`` made in the function, and a column view written with ``+=`` in a loop.

- ``(sq if flag else cube)(x)`` is ``sq(x) if flag else cube(x)``;
  ``getattr(obj, "name")(x)`` with a constant name is ``obj.name(x)``;
  ``make_pow(3)(x)`` calls what the factory returns (all were E101);
- ``Cfg().apply(x)`` for a class with methods and no ``__init__`` (E202);
- ``c = A[:, j]; c += v`` in a loop over j: the index tuple's kind is known (the view's
  rank), so the write is followed as it is outside a loop (E404)."""
import numpy as np
import pytest

import revsrc
from revsrc import errors


def _fd(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    if x.ndim == 0:
        return (f(float(x) + h) - f(float(x) - h)) / (2 * h)
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


def sq(t):
    return t * t


def cube(t):
    return t * t * t


def chosen(x, flag):
    return (sq if flag else cube)(x) + (np.sin if flag else np.cos)(x)


def make_pow(k):
    def p(t):
        return t ** k
    return p


def factory(x):
    return make_pow(3)(x) + make_pow(2)(x)


class Physics:
    def force(self, m, v):
        return m * 9.81 - 0.5 * v * abs(v)


PH = Physics()


def by_getattr(x):
    return getattr(PH, "force")(2.0, x) + getattr(np, "tanh")(x)


@pytest.mark.parametrize("flag", [True, False])
def test_a_conditional_callee(flag):
    x = 1.1
    got = revsrc.grad(chosen)(x, flag)
    assert got == pytest.approx(_fd(lambda t: chosen(t, flag), x), rel=1e-8)
    assert revsrc.value_and_grad(chosen)(x, flag)[0] == chosen(x, flag)


@pytest.mark.parametrize("f", [factory, by_getattr])
def test_callees_known_when_transforming(f):
    x = 0.8
    assert revsrc.grad(f)(x) == pytest.approx(_fd(f, x), rel=1e-8)


def test_getattr_with_a_missing_constant_name_is_pythons_error():
    def missing(x):
        return getattr(PH, "no_such")(x)
    with pytest.raises(errors.RevsrcError, match="no_such"):
        revsrc.grad(missing)(0.8)


class Scale:
    def apply(self, x, scale=np.array([1.0, 2.0, 3.0])):
        return np.sum(np.sin(x) * scale)


def no_init_inline(x):
    return Scale().apply(x)


def no_init_named(x):
    s = Scale()
    return s.apply(x) * 2.0


@pytest.mark.parametrize("f", [no_init_inline, no_init_named])
def test_a_class_with_no_init_made_in_the_function(f):
    x = np.array([0.3, -0.5, 1.1])
    np.testing.assert_allclose(revsrc.grad(f)(x), _fd(f, x), rtol=1e-8, atol=1e-10)


def test_a_class_with_no_init_given_arguments_is_refused_as_python_does():
    def bad(x):
        return Scale(2.0).apply(x)
    with pytest.raises(TypeError):
        Scale(2.0)
    with pytest.raises(errors.RevsrcError, match="takes no arguments"):
        revsrc.grad(bad)(np.ones(3))


def columns_in_loop(x):
    A = np.zeros((3, 3))
    for j in range(3):
        c = A[:, j]
        c += x * (j + 1)
    return np.sum(A * np.arange(9).reshape(3, 3))


def rows_in_loop(x):
    A = np.ones((3, 3))
    for i in range(3):
        r = A[i, :]
        r *= x[i]
        r += x
    return np.sum(A ** 2)


@pytest.mark.parametrize("f", [columns_in_loop, rows_in_loop])
def test_a_view_written_with_an_augmented_assignment_in_a_loop(f):
    x = np.array([0.5, -1.0, 2.0])
    v, g = revsrc.value_and_grad(f)(x)
    assert v == f(x)
    np.testing.assert_allclose(g, _fd(f, x), rtol=1e-7, atol=1e-9)
    if f is columns_in_loop:
        np.testing.assert_allclose(g, np.arange(9).reshape(3, 3) @ [1.0, 2.0, 3.0])


def bubble(y0):
    y = y0.copy()
    for i in range(3):
        swapped = False
        for j in range(2):
            if y[j] > y[j + 1]:
                y[j], y[j + 1] = y[j + 1], y[j]
                swapped = True
        if not swapped:
            break
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def test_jax_backend_refuses_a_traced_flag_that_ends_a_loop():
    pytest.importorskip("jax")
    y = np.array([3.0, 1.0, 2.0])
    np.testing.assert_array_equal(revsrc.grad(bubble)(y), [3.0, 1.0, 2.0])
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(bubble, backend="jax")(y)
    assert info.value.code in ("E602", "E603")
    assert "if not swapped" in str(info.value)


def method_named(x):
    fn = PH.force
    return fn(2.0, x)


def method_by_getattr_named(x):
    fn = getattr(PH, "force")
    return fn(2.0, x) * x


@pytest.mark.parametrize("f", [method_named, method_by_getattr_named])
def test_a_global_objects_method_kept_in_a_name(f):
    x = 0.8
    assert revsrc.grad(f)(x) == pytest.approx(_fd(f, x), rel=1e-8)


def test_a_method_kept_in_a_name_sees_the_method_rebound():
    g = revsrc.grad(method_named)
    assert g(0.8) == pytest.approx(-0.8, rel=1e-14)
    saved = Physics.force
    try:
        Physics.force = lambda self, m, v: m * v * v
        assert g(0.8) == pytest.approx(2 * 2.0 * 0.8, rel=1e-14)
    finally:
        Physics.force = saved
