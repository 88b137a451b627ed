"""Issue 22, families 3-6: internal crashes, numbers beyond the machine's types and
false refusals. Each case gives the true value (checked against JAX with x64, or
central differences) or a coded refusal at the user's line."""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


# ----- 3. backend="jax" freezes hidden state -----

def masked(w, rng):
    mask = rng.random(w.shape) > 0.5
    return np.sum((w * mask) ** 2)


def counted(w, counter):
    k = next(counter)
    return np.sum(w * k)


class Steps:
    def __init__(self):
        self.n = 0

    def step(self):
        self.n += 1
        return self.n


def stepped(w, s):
    return np.sum(w * s.step())


def local_generator(w):
    it = iter([2.0, 3.0])
    return np.sum(w * next(it)) + np.sum(w.reshape(-1)) * next(it)


@pytest.mark.parametrize("fn,make,line", [
    (masked, lambda: np.random.default_rng(0), "rng.random(w.shape)"),
    (counted, lambda: __import__("itertools").count(), "next(counter)"),
    (stepped, Steps, "s.step()")], ids=["generator", "counter", "object"])
def test_jax_refuses_a_call_it_would_freeze(fn, make, line):
    state = make()
    revsrc.grad(fn)(np.ones(3), state)       # the default back end runs it each call
    with pytest.raises(errors.JaxNotLowered) as info:
        revsrc.grad(fn, backend="jax")(np.ones(3), state)
    text = str(info.value)
    assert line in text and "test_issue22_crashes.py" in text and "revsrc/" not in text


def test_jax_default_backend_advances_the_generator():
    rng = np.random.default_rng(0)
    grads = [revsrc.grad(masked)(np.ones(40), rng) for _ in range(3)]
    assert not np.array_equal(grads[0], grads[1])


def test_jax_runs_methods_of_values_and_its_own_iterators():
    w = np.array([1.0, 2.0])
    np.testing.assert_allclose(revsrc.grad(local_generator, backend="jax")(w), [5.0, 5.0])


# ----- 4. numbers beyond the machine's types -----

def nanoseconds(t):
    return int(t * 1e9)


def test_vmap_of_an_int_beyond_int64_is_refused_not_wrapped():
    ts = np.array([1.0, 1e10])
    with pytest.raises(errors.UnsupportedValue) as info:
        revsrc.vmap(nanoseconds)(ts)
    assert "10000000000000000000" in str(info.value) and "test_issue22" in str(info.value)
    assert revsrc.jit(nanoseconds)(1e10) == 10 ** 19
    big = revsrc.vmap(nanoseconds)(np.array([1.0, 9e9]))   # within int64: exact
    assert big.tolist() == [10 ** 9, 9 * 10 ** 18]


def times(x, n):
    return x * n


def test_an_int_beyond_2_53_takes_the_python_path():
    assert revsrc.grad(times)(1.5, 2 ** 60) == 2 ** 60
    d = revsrc.grad(times)
    assert d(1.5, 3) == 3.0 and d(1.5, 2 ** 60) == 2 ** 60 and d(1.5, -2 ** 70) == -2 ** 70
    assert revsrc.value_and_grad(times)(1.5, 2 ** 60) == (1.5 * 2 ** 60, 2 ** 60)
    assert revsrc.jit(times)(1.5, 2 ** 60) == 1.5 * 2 ** 60
    assert revsrc.jvp(times, (1.5, 2 ** 60), (1.0, None)) == (1.5 * 2 ** 60, 2 ** 60)
    xs = np.array([1.0, 2.0])
    assert revsrc.vmap(times, in_axes=(0, None))(xs, 2 ** 60).tolist() == \
        [2.0 ** 60, 2.0 ** 61]


# ----- 5. crashes -----

def test_grad_of_mean_of_an_empty_array_is_empty():
    g = revsrc.grad(np.mean)(np.zeros(0))
    want = jax.grad(jnp.mean)(jnp.zeros(0))
    assert g.shape == want.shape == (0,) and g.dtype == np.float64


def test_grad_of_mean_over_an_empty_axis():
    g = revsrc.grad(lambda a: np.sum(np.mean(a, axis=0)))(np.zeros((0, 3)))
    assert g.shape == (0, 3)


def h_two(x, y):
    return np.sum(x ** 2 * np.cos(x[0])) * np.sum(np.sin(y) * y)


def h_two_jax(x, y):
    return jnp.sum(x ** 2 * jnp.cos(x[0])) * jnp.sum(jnp.sin(y) * y)


def h_floats(x, y):
    return x ** 3 * math.sin(y)


def test_hessian_of_two_array_arguments_is_blocks():
    x, y = np.array([0.3, -1.2]), np.array([0.5, 1.5, -0.7])
    ours = revsrc.hessian(h_two, argnums=(0, 1))(x, y)
    theirs = jax.hessian(h_two_jax, argnums=(0, 1))(x, y)
    assert isinstance(ours, tuple) and all(isinstance(r, tuple) and len(r) == 2 for r in ours)
    for i in range(2):
        for j in range(2):
            assert ours[i][j].shape == theirs[i][j].shape
            np.testing.assert_allclose(ours[i][j], theirs[i][j], rtol=1e-10, atol=1e-12)


def test_hessian_of_two_floats_is_blocks():
    ours = revsrc.hessian(h_floats, argnums=(0, 1))(1.3, 0.4)
    theirs = jax.hessian(lambda x, y: x ** 3 * jnp.sin(y), argnums=(0, 1))(1.3, 0.4)
    assert all(isinstance(r, tuple) for r in ours)
    for i in range(2):
        for j in range(2):
            assert ours[i][j] == pytest.approx(float(theirs[i][j]), rel=1e-12)


def polar(p):
    return [p[0] * np.cos(p[1]), p[0] * np.sin(p[1])]


def polar_jax(p):
    return jnp.stack([p[0] * jnp.cos(p[1]), p[0] * jnp.sin(p[1])])


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("inner", ["jacfwd", "jacrev"])
def test_jacobian_of_a_jacobian(outer, inner):
    p = np.array([1.5, 0.3])
    ours = getattr(revsrc, outer)(getattr(revsrc, inner)(polar))(p)
    theirs = getattr(jax, outer)(getattr(jax, inner)(polar_jax))(p)
    assert ours.shape == theirs.shape == (2, 2, 2)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


def two(x, y):
    return x * np.sin(y) * np.sum(x)


def two_jax(x, y):
    return x * jnp.sin(y) * jnp.sum(x)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("a,b", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_jacobian_of_a_jacobian_in_other_arguments(outer, a, b):
    x, y = np.array([0.3, 0.7]), np.array([1.1, -0.4])
    ours = getattr(revsrc, outer)(revsrc.jacfwd(two, a), b)(x, y)
    theirs = getattr(jax, outer)(jax.jacfwd(two_jax, a), b)(x, y)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


def test_jacobian_of_a_scalar_jacobian():
    assert revsrc.jacfwd(revsrc.jacrev(lambda t: t ** 3))(2.0) == 12.0


def test_unsupported_compositions_are_refused_without_internal_names():
    x = np.array([0.3, 0.7])
    cases = [lambda: revsrc.jacfwd(revsrc.jacfwd(two, argnums=(0, 1)))(x, x),
             lambda: revsrc.jacfwd(revsrc.hessian(g_scalar))(x),
             lambda: revsrc.grad(revsrc.hessian(g_scalar))(x)]
    for case in cases:
        with pytest.raises(errors.HigherOrderNotSupported) as info:
            case()
        assert "compose" not in str(info.value) and "<locals>" not in str(info.value)


def g_scalar(x):
    return np.sum(np.sin(x) * x ** 2)


def g_scalar_jax(x):
    return jnp.sum(jnp.sin(x) * x ** 2)


def test_vmap_of_hessian():
    xs = np.array([[0.1, 0.2], [1.0, -0.5], [2.0, 0.3]])
    ours = revsrc.vmap(revsrc.hessian(g_scalar))(xs)
    theirs = jax.vmap(jax.hessian(g_scalar_jax))(xs)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


def test_jit_of_hessian_and_of_grad():
    x = np.array([0.4, -1.1])
    np.testing.assert_allclose(revsrc.jit(revsrc.hessian(g_scalar))(x),
                               jax.hessian(g_scalar_jax)(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(revsrc.jit(revsrc.grad(g_scalar))(x),
                               jax.grad(g_scalar_jax)(x), rtol=1e-12, atol=1e-14)

    def s(t):
        return math.exp(-t * t) * math.cos(3.0 * t)
    assert revsrc.jit(revsrc.grad(s))(0.7) == revsrc.grad(s)(0.7)


# ----- 6. false refusals -----

def imports_numpy(x):
    import numpy as np
    return np.sum(x * x)


def imports_pi(x):
    from math import pi
    return x * pi


def calls_vmap(x):
    return np.sum(revsrc.vmap(math.sin)(x))


def test_an_import_in_the_body_is_not_a_changed_file():
    np.testing.assert_allclose(revsrc.grad(imports_numpy)(np.array([1.0, 2.0])), [2.0, 4.0])
    assert revsrc.grad(imports_pi)(1.0) == math.pi


def test_a_call_of_vmap_is_not_a_changed_file():
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(calls_vmap)(np.array([1.0, 2.0]))
    assert info.value.code != "E204"
    assert "test_issue22_crashes.py" in str(info.value)


def complex_square(z):
    return np.sum(z * z)


def complex_mix(z):
    return np.sum(np.sin(z) * z)


def test_grad_of_a_complex_output_is_refused():
    z = np.array([1.0 + 2.0j, 0.3 - 0.5j])
    for d in (revsrc.grad(complex_square), revsrc.value_and_grad(complex_mix)):
        with pytest.raises(errors.NonScalarOutput) as info:
            d(z)
        assert "test_issue22_crashes.py" in str(info.value)
    with pytest.raises(TypeError):
        jax.grad(lambda z: jnp.sum(z * z))(z)


def test_grad_of_a_complex_output_is_refused_on_jax_too():
    z = np.array([1.0 + 2.0j, 0.3 - 0.5j])
    with pytest.raises(errors.NonScalarOutput):
        revsrc.grad(complex_mix, backend="jax")(z)
    ours = revsrc.grad(complex_mix, backend="jax", holomorphic=True)(z)
    theirs = jax.grad(lambda z: jnp.sum(jnp.sin(z) * z), holomorphic=True)(z)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_grad_holomorphic():
    z = np.array([1.0 + 2.0j, 0.3 - 0.5j])
    ours = revsrc.grad(complex_mix, holomorphic=True)(z)
    theirs = jax.grad(lambda z: jnp.sum(jnp.sin(z) * z), holomorphic=True)(z)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    value, g = revsrc.value_and_grad(complex_square, holomorphic=True)(z)
    assert value == pytest.approx(complex(np.sum(z * z)))
    np.testing.assert_allclose(g, 2 * z)


def test_real_output_of_complex_arguments_still_differentiates():
    z = np.array([1.0 + 2.0j, 0.3 - 0.5j])
    np.testing.assert_allclose(revsrc.grad(lambda z: np.sum(np.abs(z) ** 2))(z), 2 * np.conj(z))


# ----- the empty index of a 0-d array (found by the fourth tester) -----

def zero_d_item(x):
    return x[()] ** 2 + np.sum(x * 3.0)


@pytest.mark.parametrize("backend", ["python", None, "jax"])
def test_the_empty_index_of_a_0d_array_is_printed_as_python_spells_it(backend):
    x = np.array(1.5)
    g = revsrc.grad(zero_d_item, backend=backend)(x)
    assert float(g) == pytest.approx(2 * 1.5 + 3.0, rel=1e-15)
    assert float(jax.grad(lambda v: v[()] ** 2 + jnp.sum(v * 3.0))(jnp.asarray(x))) == \
        pytest.approx(float(g), rel=1e-15)
    assert float(revsrc.hessian(zero_d_item)(x)) == pytest.approx(2.0, rel=1e-15)
    assert "x[()]" in revsrc.source(revsrc.grad(zero_d_item, backend="python"), x)
