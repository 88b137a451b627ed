"""Round 15's findings (tests/user_programs15_*.py), fixed as rules:

- revsrc.vmap of a backend="jax" derivative with JAX's 64-bit mode off: jax.vmap traced
  the derivative in 32 bits, then it ran on float64 (JaxRuntimeError); traced with
  64-bit floats now, as the derivative itself runs;
- jacrev and hessian take holomorphic=True (TypeError before), as grad does and JAX's
  do; real arguments there are refused (E301);
- a cotangent or tangent of another shape, and vmap axes that do not fit, are refused
  with a code (E306, also a ValueError) rather than an internal ValueError."""
import math
import types

import numpy as np
import pytest

import revsrc

ZH = np.array([0.3 + 0.1j, -0.5 + 0.8j])


def holo_vec(z):
    return np.array([z[0] * z[1], np.exp(z[0]) + z[1] ** 2])


def holo_sum(z):
    return np.sum(z ** 3)


def sin_sq(x):
    return np.sum(np.sin(x) ** 2)


def test_vmap_of_a_jax_derivative_with_x64_off():
    jax = pytest.importorskip("jax")
    X = np.arange(6.0).reshape(3, 2) / 5
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", False)
    try:
        got = revsrc.vmap(revsrc.grad(sin_sq, backend="jax"))(X)
        vg = revsrc.vmap(revsrc.value_and_grad(sin_sq, backend="jax"))(X)
    finally:
        jax.config.update("jax_enable_x64", before)
    np.testing.assert_allclose(np.asarray(got), np.sin(2 * X), rtol=1e-14)
    assert np.asarray(got).dtype == np.float64
    np.testing.assert_allclose(np.asarray(vg[0]), [sin_sq(x) for x in X], rtol=1e-14)
    np.testing.assert_allclose(np.asarray(vg[1]), np.sin(2 * X), rtol=1e-14)


def test_jacrev_holomorphic_is_the_complex_jacobian():
    want = np.array([[ZH[1], ZH[0]], [np.exp(ZH[0]), 2 * ZH[1]]])
    np.testing.assert_allclose(revsrc.jacrev(holo_vec, holomorphic=True)(ZH), want,
                               rtol=1e-14)
    np.testing.assert_allclose(revsrc.jacfwd(holo_vec, holomorphic=True)(ZH), want,
                               rtol=1e-14)


def test_hessian_holomorphic_is_the_complex_second_derivative():
    H = revsrc.hessian(holo_sum, holomorphic=True)(ZH)
    np.testing.assert_allclose(H, np.diag(6 * ZH), rtol=1e-14, atol=1e-15)
    # along a complex direction: the complex derivative of the holomorphic gradient
    g = revsrc.grad(holo_sum, holomorphic=True)
    v = np.array([0.4 - 0.2j, 1.0 + 0.5j])
    h = 1e-6
    np.testing.assert_allclose(H @ v, (g(ZH + h * v) - g(ZH - h * v)) / (2 * h), rtol=1e-8)


@pytest.mark.parametrize("make", [
    lambda: revsrc.hessian(holo_sum, holomorphic=True),
    lambda: revsrc.jacrev(holo_vec, holomorphic=True),
    lambda: revsrc.jacfwd(holo_vec, holomorphic=True),
])
def test_holomorphic_refuses_real_arguments(make):
    with pytest.raises(revsrc.RevsrcError) as info:
        make()(ZH.real)
    assert info.value.code == "E301" and "complex" in info.value.message


def test_a_cotangent_of_another_shape_is_refused():
    out, back = revsrc.vjp(lambda x: x * 2.0, np.ones(3))
    np.testing.assert_array_equal(back(np.full(3, 0.5))[0], np.ones(3))
    for ct in (np.ones(4), 1.0, (np.ones(3),)):
        with pytest.raises(revsrc.RevsrcError) as info:
            back(ct)
        assert info.value.code == "E306" and isinstance(info.value, ValueError)
    out, back = revsrc.vjp(lambda x: (x * 2.0, np.sum(x)), np.ones(3))
    np.testing.assert_array_equal(back((np.ones(3), 1.0))[0], np.full(3, 3.0))
    with pytest.raises(revsrc.RevsrcError, match=r"shape \(2,\), the output \(\)"):
        back((np.ones(3), np.ones(2)))


def test_a_tangent_of_another_shape_is_refused():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jvp(lambda x: np.sum(x * x), (np.ones(3),), (np.ones(2),))
    assert info.value.code == "E306" and isinstance(info.value, ValueError)



def _dict_loss(p, s):
    return np.mean(np.tanh(s @ p["W"] + p["b"]) @ p["v"])


_P = {"W": np.ones((3, 4)), "b": np.zeros(4), "v": np.ones(4)}


@pytest.mark.parametrize("call", [
    lambda: revsrc.hvp(_dict_loss, (_P, np.ones((5, 3))), ({"W": np.ones((3, 4))}, None)),
    lambda: revsrc.jvp(_dict_loss, (_P, np.ones((5, 3))),
                       ({"W": np.ones((3, 4))}, np.zeros((5, 3)))),
    lambda: revsrc.jvp(_dict_loss, (_P, np.ones((5, 3))), ([np.ones((3, 4))], None)),
])
def test_a_tangent_of_another_structure_is_refused(call):
    """A tangent dict missing some of its primal's keys, or a list for a dict (round
    19: an uncoded ValueError before)."""
    with pytest.raises(revsrc.RevsrcError) as info:
        call()
    assert info.value.code == "E306" and isinstance(info.value, ValueError)
    assert "structure" in info.value.message
    full = {k: np.ones_like(v) for k, v in _P.items()}
    out, tan = revsrc.jvp(_dict_loss, (_P, np.ones((5, 3))), (full, None))
    step = 1e-6
    moved = {k: v + step * full[k] for k, v in _P.items()}
    back = {k: v - step * full[k] for k, v in _P.items()}
    fd = (_dict_loss(moved, np.ones((5, 3))) - _dict_loss(back, np.ones((5, 3)))) / (2 * step)
    assert tan == pytest.approx(fd, rel=1e-6)


@pytest.mark.parametrize("call", [
    lambda: revsrc.vmap(lambda x: x * 2.0, in_axes=None)(1.0),
    lambda: revsrc.vmap(lambda a, b: a * b)(np.ones(3), np.ones(4)),
    lambda: revsrc.vmap(lambda a, b: np.sum(a * b))(np.ones((3, 2)), np.ones((4, 2))),
    lambda: revsrc.vmap(lambda a: np.sum(a), in_axes=2)(np.ones((3, 2))),
    lambda: revsrc.vmap(lambda a, b: np.sum(a * b), in_axes=(0,))(np.ones((3, 2)),
                                                                  np.ones((3, 2))),
])
def test_vmap_axes_that_do_not_fit_are_refused(call):
    with pytest.raises(revsrc.RevsrcError) as info:
        call()
    assert info.value.code == "E306" and isinstance(info.value, ValueError)


# ----- list(enumerate(xs)) and other builtins that read an enumerate once -----

def enum_list(x):
    s = 0.0
    for i, v in list(enumerate(x)):
        s += v ** 2 / (i + 1)
    return s


def enum_reversed_start(x):
    s = 0.0
    for i, v in reversed(list(enumerate(x, 1))):
        s += v ** 2 / i + s * 0.1
    return s


def enum_sorted(x):
    pairs = sorted(enumerate(x), key=lambda p: p[1])
    return sum(k * v * v for k, v in pairs)


def enum_tuple_keyword(xs):
    return sum(i * v * v for i, v in tuple(enumerate(xs, start=2)))


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", [enum_list, enum_reversed_start, enum_sorted,
                               enum_tuple_keyword])
def test_an_enumerate_read_once_is_followed(f):
    """E202 'enumerate has no derivative rule' before: the indices and the items, as
    zip(range(start, start + len(xs)), xs) read once."""
    x = np.array([1.0, -2.0, 0.5, 3.0])
    value, grad = revsrc.value_and_grad(f)(x)
    assert value == f(x)
    np.testing.assert_allclose(grad, _fd(f, x), rtol=1e-7, atol=1e-9)


def test_list_of_enumerate_closed_form_on_a_list():
    np.testing.assert_allclose(revsrc.grad(enum_list)([1.0, 2.0, 3.0]),
                               [2.0 * v / (i + 1) for i, v in enumerate([1.0, 2.0, 3.0])])


# ----- np.trapezoid at second order -----

XS = np.array([0.0, 0.4, 1.1, 1.5])


@pytest.mark.parametrize("f", [
    lambda c: np.trapezoid(c ** 3),
    lambda c: np.trapezoid(np.sin(c), x=XS),
    lambda c: np.trapezoid(c * c, dx=0.3),
    lambda c: np.sum(np.trapezoid(np.outer(c, c), axis=0)),
])
def test_hessian_through_trapezoid_in_its_values(f):
    """E104 before: y's adjoint is its own helper, linear in g and reading y for its
    shape, so forward over reverse goes through it."""
    c = np.array([0.5, -1.0, 1.0, 0.3])
    g = revsrc.grad(f)
    np.testing.assert_allclose(revsrc.hessian(f)(c), _fd(g, c, 1e-5), rtol=1e-7, atol=1e-9)


# ----- jit and vmap of a function reading a global namespace's attributes -----

CFG = types.SimpleNamespace(k=2.0, n=3)


class Settings:
    def __init__(self):
        self.a = 0.5

    @property
    def b(self):
        return 7.0


SETTINGS = Settings()


def scaled_square(x):
    return CFG.k * x * x


def settings_sum(x):
    s = 0.0
    for i in range(CFG.n):
        s = s + SETTINGS.a * math.sin(x * i)
    return s


def by_property(x):
    return SETTINGS.b * x


def test_jit_reads_a_namespace_attribute_on_every_call(monkeypatch):
    """E502 'the global CFG is not a float, int or bool' before: CFG.k is read when the
    program starts, as a global float is, so a change is seen."""
    monkeypatch.setattr(CFG, "k", 2.0)
    j = revsrc.jit(scaled_square)
    assert j(1.5) == scaled_square(1.5) == 4.5
    monkeypatch.setattr(CFG, "k", 5.0)
    assert j(1.5) == scaled_square(1.5) == 11.25
    xs = np.array([1.5, 2.0, -0.5])
    np.testing.assert_array_equal(revsrc.vmap(scaled_square)(xs),
                                  [scaled_square(x) for x in xs])
    monkeypatch.setitem(globals(), "CFG", types.SimpleNamespace(k=-1.0, n=1))
    assert j(1.5) == scaled_square(1.5) == -2.25


def test_jit_reads_attributes_of_a_plain_object_and_an_int_bound(monkeypatch):
    monkeypatch.setattr(CFG, "n", 3)
    monkeypatch.setattr(SETTINGS, "a", 0.5)
    j = revsrc.jit(settings_sum)
    assert j(0.7) == settings_sum(0.7)
    monkeypatch.setattr(CFG, "n", 5)
    monkeypatch.setattr(SETTINGS, "a", 2.0)
    assert j(0.7) == settings_sum(0.7)


def test_jit_of_a_changed_attribute_type_runs_as_python(monkeypatch):
    j = revsrc.jit(scaled_square)
    assert j(1.5) == scaled_square(1.5)
    monkeypatch.setattr(CFG, "k", "text")
    with pytest.raises(TypeError):
        j(1.5)


def test_jit_of_a_property_is_still_refused():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jit(by_property)(1.5)
    assert info.value.code == "E502"


# ----- local dicts: keys from an unrolled loop, .get in it, .pop -----

def dict_aug_loop(x):
    d = {"a": 0.0, "b": 0.0}
    for k, v in (("a", x), ("b", 2 * x), ("a", x * x)):
        d[k] += v
    return d["a"] * d["b"]


def dict_get_loop(x):
    d = {}
    for k, v in [("a", x), ("b", 2 * x), ("a", x * x)]:
        d[k] = d.get(k, 0.0) + v
    return d["a"] * d["b"]


def dict_loop_rebinding(x):
    s = 0.0
    for k, v in (("a", x), ("b", 2 * x)):
        x = x * 3.0
        s = s + v * x
    return s


def dict_pop(x):
    d = {"a": x, "b": 2 * x}
    e = d
    v = d.pop("a")
    return v * 10 + d["b"] + e.get("a", 5.0)


def dict_pop_default(x):
    d = {"a": x}
    z = d.pop("z", 3.0)
    a = d.pop("a")
    return z * x + a + d.get("a", 0.5)


@pytest.mark.parametrize("f", [dict_aug_loop, dict_get_loop, dict_loop_rebinding,
                               dict_pop, dict_pop_default])
def test_local_dicts_are_followed(f):
    value, grad = revsrc.value_and_grad(f)(1.5)
    assert value == f(1.5)
    h = 1e-6
    np.testing.assert_allclose(grad, (f(1.5 + h) - f(1.5 - h)) / (2 * h), rtol=1e-7)


def test_dict_pop_refusals():
    def missing(x):
        d = {"a": x}
        v = d.pop("z")
        return v

    def in_branch(x):
        # (a pop in an arm of a conditional expression: followed while transforming,
        # it would drop the key on both paths: d.get("a", 100.0) gave 100 at x < 0)
        d = {"a": x, "b": 2 * x}
        v = d.pop("a") if x > 0 else 0.0
        return v + d.get("a", 100.0)
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(missing)(1.5)
    assert info.value.code == "E105" and "KeyError" in info.value.message
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(in_branch)(1.5)
    assert info.value.code == "E101" and "statement of its own" in info.value.message


# ----- np.polyval at second order in its coefficients -----

def polyval_fit(c, x=np.linspace(-1, 1, 7)):
    return np.trapezoid(np.polyval(c, x) ** 2, x)


def polyval_list(c0, c1):
    return np.sum(np.polyval([c0, c1, 2.0], np.array([0.3, 0.7])) ** 2)


def test_hessian_through_polyval_in_its_coefficients():
    c = np.array([0.5, -1.0, 2.0, 0.3])
    np.testing.assert_allclose(revsrc.hessian(polyval_fit)(c),
                               _fd(revsrc.grad(polyval_fit), c, 1e-5), rtol=1e-7, atol=1e-9)
    x = np.array([0.3, 0.7])
    H = revsrc.hessian(polyval_list, argnums=(0, 1))(0.4, -0.3)
    # sum (c0 x^2 + c1 x + 2)^2: second derivatives 2 sum x^4, 2 sum x^3, 2 sum x^2
    want = 2 * np.array([[np.sum(x ** 4), np.sum(x ** 3)], [np.sum(x ** 3), np.sum(x ** 2)]])
    np.testing.assert_allclose(np.array(H, dtype=float), want, rtol=1e-13)


def test_polyval_second_order_in_its_points_is_refused():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.hessian(lambda x: np.sum(np.polyval([0.5, -1.0, 2.0], x) ** 2))(
            np.array([0.2, -0.4]))
    assert info.value.code == "E104"


# ----- vmap of a scalar function that builds arrays inside -----

XV = np.linspace(0.1, 1.0, 4)


def builds_an_array(e):
    v = np.array([e, 0.3 * e, -1.5])
    return np.sum(np.exp(v) * XV[:3]) + math.sin(e)


def test_vmap_of_a_function_building_arrays_runs_batched():
    """E502 'the global XV is not a float' before (the engine takes numbers): the
    function runs batched as an array program, each value that of its own call."""
    es = np.linspace(-1.0, 1.0, 7)
    np.testing.assert_allclose(revsrc.vmap(builds_an_array)(es),
                               [builds_an_array(e) for e in es], rtol=1e-14)
    np.testing.assert_allclose(revsrc.vmap(revsrc.grad(builds_an_array))(es),
                               [revsrc.grad(builds_an_array)(e) for e in es], rtol=1e-14)
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jit(builds_an_array)(0.5)
    assert info.value.code == "E502"


# ----- round 16: holomorphic Hessian of a complex number, list(enumerate(zip(...))) -----

def test_hessian_holomorphic_of_a_complex_number():
    """E301 'only float scalars have tangents' before: f'' of a complex number is the
    holomorphic derivative of f'."""
    def f(z):
        return z ** 3 + 2 * z
    z = 1.0 + 2.0j
    assert revsrc.hessian(f, holomorphic=True)(z) == pytest.approx(6 * z, rel=1e-15)
    assert revsrc.hessian(f, holomorphic=True)(np.complex128(z)) == pytest.approx(6 * z)


def enumerate_zip(ws, xs):
    s = 0.0
    for i, (w, x) in reversed(list(enumerate(zip(ws, xs)))):
        s = s * 0.5 + w * x ** 2 / (i + 1)
    return s


def test_list_of_enumerate_of_zip_is_followed():
    ws, xs = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    value, grad = revsrc.value_and_grad(enumerate_zip)(ws, xs)
    assert value == enumerate_zip(ws, xs)
    np.testing.assert_allclose(grad, _fd(lambda w: enumerate_zip(w, xs), ws), rtol=1e-7)
