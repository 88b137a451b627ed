"""Complex outputs: what grad and its kin do with a function that returns complex numbers.

As JAX: grad, value_and_grad, hessian and jacrev refuse a complex output (E302),
whatever the arguments are (the analysis does not tell complex from real, so each
gradient program on arrays that may make a complex number checks its output: see
revsrc/executable.py, `may_be_complex`); ``holomorphic=True`` gives the complex
derivative f'(z) instead, of a complex scalar as of an array; jacfwd gives the complex
Jacobian and vjp takes a complex cotangent. A program that cannot make a complex
number has no check, and grad still does not compute the value it does not return.
"""
import numpy as np
import pytest

import revsrc
from revsrc import executable, testing

X3 = np.array([0.3, -1.2, 0.7])
CG = np.array([1.0 + 2.0j, 0.5 - 1.0j, -0.3 + 0.1j])   # a complex global


class _Holder:
    def __init__(self):
        self.w = CG.copy()


HOLDER = _Holder()


def c_exp_sum(x):
    return np.sum(np.exp(1j * x))


def c_mean(x):
    return np.mean(x * 1j + x)


def c_prod(x):
    return np.prod(x + 1j)


def c_branch(x):
    if x[0] > 0:
        return np.sum(np.exp(1j * x))
    return 0.0


def c_fft(x):
    return np.sum(np.fft.fft(x))


def c_global(x):
    return np.sum(x * CG)


def c_attribute(x):
    return np.sum(x * HOLDER.w)


def c_astype(x):
    return np.sum(np.sin(x).astype(complex))


def c_loop(x):
    s = 0.0
    for i in range(3):
        s = s * 1j + x[i]
    return s


def c_plus_constant(x):
    return np.sum(x * x) + 1j


COMPLEX = [c_exp_sum, c_mean, c_prod, c_branch, c_fft, c_global, c_attribute, c_astype,
           c_loop, c_plus_constant]


def _refused(call):
    with pytest.raises(revsrc.RevsrcError) as info:
        call()
    assert str(info.value).startswith("[E302]"), str(info.value)
    assert "_t" not in str(info.value).split("\n")[0]
    return info.value


@pytest.mark.parametrize("f", COMPLEX, ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", [None, "python"])
def test_grad_refuses_a_complex_output_of_real_arguments(f, backend):
    e = _refused(lambda: revsrc.grad(f, backend=backend)(X3))
    assert "real-valued" in str(e) and "holomorphic=True" in str(e)
    assert e.filename == __file__       # at the user's function
    _refused(lambda: revsrc.value_and_grad(f, backend=backend)(X3))


@pytest.mark.parametrize("f", [c_exp_sum, c_mean, c_global], ids=lambda f: f.__name__)
def test_second_derivatives_and_jacrev_refuse_it(f):
    _refused(lambda: revsrc.hessian(f)(X3))
    _refused(lambda: revsrc.jacfwd(revsrc.grad(f))(X3))
    _refused(lambda: revsrc.jacrev(lambda x: x * 1j + x)(X3))


def test_the_jax_backend_refuses_it():
    pytest.importorskip("jax")
    _refused(lambda: revsrc.grad(c_mean, backend="jax")(X3))
    _refused(lambda: revsrc.hessian(c_mean, backend="jax")(X3))


def test_a_scalar_complex_output_is_refused():
    def f(x):
        return x * (1.0 + 1.0j)

    def root(x):
        return x ** 0.5          # Python's power of a negative float is complex
    _refused(lambda: revsrc.grad(f)(0.5))
    _refused(lambda: revsrc.value_and_grad(root)(-4.0))
    assert revsrc.grad(root)(4.0) == pytest.approx(0.25)


def test_the_global_read_when_it_runs():
    """A global read when the program runs may become complex after transforming."""
    global CG
    keep = CG
    try:
        CG = np.array([1.0, 2.0, 3.0])
        df = revsrc.grad(c_global)
        np.testing.assert_allclose(df(X3), CG)
        CG = keep
        _refused(lambda: df(X3))
    finally:
        CG = keep


def _real_with_complex_inside(x):
    z = np.exp(1j * x) * CG
    return np.sum(np.abs(z) ** 2 + np.real(z * z)) + np.sum(np.imag(z))


def test_a_real_output_with_complex_values_inside():
    testing.check_grads(_real_with_complex_inside, (X3,))
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def jf(x):
        z = jnp.exp(1j * x) * CG
        return jnp.sum(jnp.abs(z) ** 2 + jnp.real(z * z)) + jnp.sum(jnp.imag(z))
    np.testing.assert_allclose(revsrc.grad(_real_with_complex_inside)(X3),
                               jax.grad(jf)(X3), rtol=1e-10)


def test_jacfwd_and_vjp_of_a_complex_output_follow_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def f(x):
        return np.exp(1j * x) * x

    def jf(x):
        return jnp.exp(1j * x) * x
    np.testing.assert_allclose(revsrc.jacfwd(f)(X3), jax.jacfwd(jf)(X3), rtol=1e-12)
    ct = np.array([1.0 + 0.5j, -0.3 + 2.0j, 0.2 - 0.1j])
    out, back = revsrc.vjp(f, X3)
    jout, jback = jax.vjp(jf, X3)
    np.testing.assert_allclose(out, jout, rtol=1e-12)
    np.testing.assert_allclose(back(ct)[0], jback(ct)[0], rtol=1e-12)


# ----- holomorphic=True -----

def h_poly(z):
    return z ** 3 + 2.0 * z


def h_exp_sin(z):
    return np.exp(z) * np.sin(z)


def h_cube(z):
    return z * z * z


HOLO = [(h_poly, lambda z: 3 * z ** 2 + 2), (h_exp_sin, lambda z: np.exp(z) * (np.sin(z) + np.cos(z))),
        (h_cube, lambda z: 3 * z ** 2)]


@pytest.mark.parametrize("f,df", HOLO, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("backend", [None, "python"])
def test_holomorphic_scalar(f, df, backend):
    z = 0.3 - 1.4j
    g = revsrc.grad(f, holomorphic=True, backend=backend)(z)
    assert isinstance(g, complex)
    assert g == pytest.approx(df(z), rel=1e-12)
    # the complex derivative as a limit along the real and the imaginary axis
    h = 1e-6
    assert (f(z + h) - f(z - h)) / (2 * h) == pytest.approx(g, rel=1e-7)
    assert (f(z + 1j * h) - f(z - 1j * h)) / (2j * h) == pytest.approx(g, rel=1e-7)
    v, g2 = revsrc.value_and_grad(f, holomorphic=True, backend=backend)(z)
    assert v == pytest.approx(f(z), rel=1e-12) and g2 == pytest.approx(g, rel=1e-12)
    # without holomorphic=True: refused, as JAX
    _refused(lambda: revsrc.grad(f, backend=backend)(z))


def test_holomorphic_scalar_against_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)
    z = 0.7 + 0.2j
    want = jax.grad(lambda z: jnp.exp(z) * jnp.sin(z), holomorphic=True)(z)
    assert revsrc.grad(h_exp_sin, holomorphic=True)(z) == pytest.approx(complex(want),
                                                                           rel=1e-12)
    assert revsrc.grad(h_exp_sin, holomorphic=True, backend="jax")(z) == \
        pytest.approx(complex(want), rel=1e-12)


def test_holomorphic_still_needs_a_scalar():
    def f(z):
        return z * z
    with pytest.raises(revsrc.RevsrcError, match=r"^\[E302\]"):
        revsrc.grad(f, holomorphic=True)(np.array([1.0 + 1.0j, 2.0]))


# ----- what the check costs a real program: nothing -----

def _loss(x):
    return np.sum(np.sin(x) * x)


W = np.ones(3)


def _loss_reading_a_global(x):
    return np.sum(np.sin(x) * W)


def _loss_reading_an_attribute(x):
    return np.sum(np.sin(x) * HOLDER.w.real)


def test_a_real_program_is_not_checked_and_its_value_not_computed():
    for f in (_loss, _loss_reading_a_global):
        # (a global's kind, an array's dtype too, is guarded: a complex one makes the
        # program anew, `test_the_global_read_when_it_runs`)
        src = revsrc.source(revsrc.grad(f), X3)
        assert "check_scalar_output" not in src and "= np.sum(" not in src
    # an object's attribute read when the program runs may be complex: checked
    src = revsrc.source(revsrc.grad(_loss_reading_an_attribute), X3)
    assert "check_scalar_output" in src


def test_may_be_complex():
    def program(f):
        df = revsrc.grad(f, backend="python")
        revsrc.source(df, X3)      # transformed, not run
        return list(df._revsrc_transformed.cache.values())[-1].unpruned

    assert not executable.may_be_complex(program(_loss))
    for f in COMPLEX + [_real_with_complex_inside]:
        assert executable.may_be_complex(program(f)), f.__name__
