"""Round 12's complex family: second derivatives through abs(), np.sign, np.angle,
np.imag and the FFTs of complex values, and hypot's subgradient at the origin.

np.sign was registered as piecewise constant, which it is on real numbers only: of a
complex z it is z / |z|, and abs()'s rule g conj(sign z) lost its derivative (Hessians
through |z| were wrong). abs()'s adjoint of a complex z now reads only the real part of
g. The adjoints of np.angle, np.imag and the FFTs have rules of their own. Each case is
checked in every composition of the two modes against central differences of the
gradient and, where JAX is installed, against jax.hessian.
"""
import math

import numpy as np
import pytest

import revsrc

X4 = np.array([0.3, -1.2, 0.8, 2.0])


def z_of(x):
    return x[:2] + 1j * x[2:]


def modulus(x):
    return np.sum(np.abs(x[:2] + 1j * x[2:]))


def modulus_cubed(x):
    return np.sum(np.abs(x[:2] + 1j * x[2:]) ** 3)


def abs_times_complex(x):
    # |z| times a complex number: only the real part of |z|'s adjoint counts
    return np.sum(np.real(np.abs(x[:2] + 1j * x[2:]) * (1.0 + 2.0j)) * x[:2])


def abs_of_square(x):
    z = x[:2] + 1j * x[2:]
    return np.sum(np.abs(z * z) * x[2:])


def abs_of_exp_and_sqrt(x):
    z = x[:2] + 1j * x[2:]
    return np.sum(np.abs(np.exp(z)) + np.abs(np.sqrt(z + 3.0)) ** 3)


def log_of_abs(x):
    return np.sum(np.log(np.abs(x[:2] + 1j * x[2:])) * x[:2])


def angles(x):
    z = x[:2] + 1j * x[2:]
    return np.sum(np.angle(z) * x[:2] + np.angle(z, deg=True) ** 2)


def imag_parts(x):
    z = x[:2] + 1j * x[2:]
    return np.sum(np.imag(z * z * z) + np.imag(np.exp(z)) * x[:2])


def fft_power(x):
    return np.sum(np.abs(np.fft.fft(x[:2] + 1j * x[2:])) ** 3)


def fft_padded(x):
    z = x[:2] + 1j * x[2:]
    return np.sum(np.abs(np.fft.ifft(z * z, n=3, norm="ortho")) ** 2 * np.arange(1.0, 4.0))


def real_ffts(x):
    s = np.fft.rfft(x * x)
    return np.sum(np.abs(s) ** 2) + np.sum(np.fft.irfft(s * (1.0 + 0.5j)) ** 2)


def sign_of_complex(x):
    z = x[:2] + 1j * x[2:]
    return np.sum(np.real(np.sign(z) * (z + 0.5j)) ** 2 + np.imag(np.sign(z)))


def scalar_builtin_abs(x):
    return abs(x[0] + 0.5j) ** 2 + abs(x[1] * 1j + x[2]) + abs(x[3] + 1j * x[0]) ** 3


CASES = [modulus, modulus_cubed, abs_times_complex, abs_of_square, abs_of_exp_and_sqrt,
         log_of_abs, angles, imag_parts, fft_power, fft_padded, real_ffts, sign_of_complex,
         scalar_builtin_abs]
# JAX gives jnp.sign no derivative (of a complex z / |z| too): differences only there
NOT_LIKE_JAX = {"sign_of_complex"}

MODES = {
    "hessian": lambda f, x: revsrc.hessian(f)(x),
    "jacfwd_jacrev": lambda f, x: revsrc.jacfwd(revsrc.jacrev(f))(x),
    "jacrev_grad": lambda f, x: revsrc.jacrev(revsrc.grad(f))(x),
    "jacfwd_jacfwd": lambda f, x: revsrc.jacfwd(revsrc.jacfwd(f))(x),
    "jacrev_jacfwd": lambda f, x: revsrc.jacrev(revsrc.jacfwd(f))(x),
    "hvp": lambda f, x: np.stack([revsrc.hvp(f, (x,), (e,)) for e in np.eye(x.size)]),
}


def _fd_of_grad(f, x, h=1e-6):
    g = revsrc.grad(f)
    return np.stack([(g(x + e) - g(x - e)) / (2 * h) for e in np.eye(x.size) * h], axis=1)


def _fd(f, x, h=1e-5):
    return np.array([(f(x + e) - f(x - e)) / (2 * h) for e in np.eye(x.size) * h])


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_matches_central_differences(f):
    np.testing.assert_allclose(revsrc.grad(f)(X4), _fd(f, X4), rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_second_derivatives_match_central_differences(f, mode):
    h = np.asarray(MODES[mode](f, X4), dtype=float)
    np.testing.assert_allclose(h, _fd_of_grad(f, X4), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(h, h.T, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [f for f in CASES if f.__name__ not in NOT_LIKE_JAX],
                         ids=[f.__name__ for f in CASES if f.__name__ not in NOT_LIKE_JAX])
def test_hessian_matches_jax(f):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    import types
    scope = dict(f.__globals__, np=jnp)
    theirs = types.FunctionType(f.__code__, scope, f.__name__)
    with jax.enable_x64(True):
        want = np.asarray(jax.hessian(theirs)(jnp.asarray(X4)))
    np.testing.assert_allclose(revsrc.hessian(f)(X4), want, rtol=1e-10, atol=1e-10)


# ----- The corpus' own cases, exactly -----

def modsq_scalar(a):
    return abs(a + 0.5j) ** 2            # a^2 + 0.25


def test_modulus_squared_of_a_scalar():
    assert revsrc.hessian(modsq_scalar)(0.3) == pytest.approx(2.0, abs=1e-12)
    assert revsrc.grad(revsrc.grad(modsq_scalar))(0.3) == pytest.approx(2.0, abs=1e-12)


def parseval(x):
    return np.sum(np.abs(np.fft.fft(x[:2] + 1j * x[2:])) ** 2)      # 2 sum x^2


def test_parseval_hessian():
    np.testing.assert_allclose(revsrc.hessian(parseval)(X4), 4 * np.eye(4), atol=1e-12)


# ----- Third derivatives (scalar: the derivative of a Hessian) -----

def cube_modulus(a):
    return abs(a + 0.5j) ** 3


def sign_product(a):
    return np.real(np.sign(a + 0.5j) * (a + 2j))


@pytest.mark.parametrize("f", [cube_modulus, sign_product])
def test_third_derivatives(f):
    d2 = revsrc.grad(revsrc.grad(f))
    want = (d2(0.3 + 1e-5) - d2(0.3 - 1e-5)) / 2e-5
    assert revsrc.grad(revsrc.grad(revsrc.grad(f)))(0.3) == pytest.approx(want, rel=1e-7)
    assert revsrc.jacfwd(revsrc.hessian(f))(0.3) == pytest.approx(want, rel=1e-7)


def angle_times(a):
    return np.angle(a + 0.5j) * a


def test_third_derivative_of_angle_is_refused():
    # (its second derivatives have rules; theirs do not yet: documented under E104)
    with pytest.raises(revsrc.errors.HigherOrderNotSupported) as e:
        revsrc.grad(revsrc.grad(revsrc.grad(angle_times)))(0.3)
    assert e.value.code == "E104"


# ----- np.sign of real numbers stays flat, and compiles -----

def sign_real(x):
    return np.sign(x) * x ** 2 + abs(x) ** 3 + math.fabs(x) * x


def sign_real_array(x):
    return np.sum(np.sign(x) * x ** 2 + np.abs(x) ** 3)


def test_sign_of_real_numbers_has_no_derivative():
    for x in (0.7, -0.4, 0.0):
        want = (2.0 if x > 0 else -2.0 if x < 0 else 0.0) + 6 * abs(x) + \
            (2.0 if x > 0 else -2.0 if x < 0 else 0.0)
        assert revsrc.hessian(sign_real)(x) == pytest.approx(want, abs=1e-12)
        assert revsrc.jit(revsrc.hessian(sign_real))(x) == pytest.approx(want, abs=1e-12)
        assert revsrc.jit(revsrc.grad(revsrc.grad(sign_real)))(x) == \
            pytest.approx(want, abs=1e-12)
    # the engine runs the first derivative as before: np.sign's value, no rule of its own
    text = revsrc.disassemble(revsrc.grad(sign_real))
    assert "np.sign" in text and "real_grad" not in text


def test_jit_of_a_jvp_through_abs():
    got = revsrc.jit(lambda x: revsrc.jvp(sign_real, (x,), (1.0,))[1])(0.7)
    assert got == revsrc.jvp(sign_real, (0.7,), (1.0,))[1]


def test_sign_of_real_arrays_at_every_order():
    x = np.array([0.5, -1.0, 0.0])
    want = np.diag([2.0 + 3.0, -2.0 + 6.0, 0.0])
    for h in (revsrc.hessian(sign_real_array)(x),
              revsrc.jacrev(revsrc.grad(sign_real_array))(x),
              revsrc.jacfwd(revsrc.jacfwd(sign_real_array))(x)):
        np.testing.assert_allclose(h, want, atol=1e-12)


# ----- hypot at the origin: the subgradient 0, as np.linalg.norm -----

def np_hypot_zero(x):
    return np.sum(np.hypot(x, 0.0))


def math_hypot_zero(x):
    return math.hypot(x, 0.0)


def math_hypot_three(x):
    return math.hypot(x, 0.0, 0.0) + math.hypot(0.0, x)


def test_np_hypot_at_the_origin():
    x = np.array([0.0, -3.0, 4.0])
    np.testing.assert_array_equal(revsrc.grad(np_hypot_zero)(x), [0.0, -1.0, 1.0])
    np.testing.assert_array_equal(revsrc.hessian(np_hypot_zero)(x), np.zeros((3, 3)))


def test_math_hypot_at_the_origin_on_every_path():
    for f in (math_hypot_zero, math_hypot_three):
        assert revsrc.grad(f)(0.0) == 0.0
        assert revsrc.jit(revsrc.grad(f))(0.0) == 0.0
        assert revsrc.jvp(f, (0.0,), (1.0,))[1] == 0.0
    assert revsrc.hessian(math_hypot_zero)(0.0) == 0.0
    assert revsrc.jit(revsrc.hessian(math_hypot_zero))(0.0) == 0.0
    assert revsrc.grad(math_hypot_zero)(-2.0) == -1.0
    assert revsrc.grad(math_hypot_three)(-2.0) == -2.0


def test_hypot_elsewhere_keeps_its_digits():
    def f(x, y):
        return math.hypot(x, y)
    for x, y in ((3.0, 4.0), (1e300, 2e300), (-0.1, 0.7)):
        r = math.hypot(x, y)
        assert revsrc.grad(f, (0, 1))(x, y) == (x / r, y / r)


def test_hypot_at_the_origin_with_jax():
    pytest.importorskip("jax")
    x = np.array([0.0, -3.0])
    np.testing.assert_array_equal(revsrc.grad(np_hypot_zero, backend="jax")(x), [0.0, -1.0])


# ----- Which values are known real (revsrc/passes/realness.py) -----

def sign_made_complex(x):
    y = x * 1.0
    for _ in range(2):
        y = y * 1j          # complex from the first turn on: not known real
    return np.sum(np.real(np.sign(y + 0.5) * y))


def test_sign_of_a_value_made_complex_in_a_loop_is_differentiated():
    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(revsrc.grad(sign_made_complex)(x), _fd(sign_made_complex, x),
                               rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(revsrc.hessian(sign_made_complex)(x),
                               _fd_of_grad(sign_made_complex, x), rtol=1e-6, atol=1e-6)


def test_sign_of_real_arrays_writes_no_rule():
    # a real array argument: np.sign there has no derivative, so none is written
    x = np.array([0.5, -1.0])
    assert "_INF" not in revsrc.source(revsrc.grad(sign_real_array), x)
    assert "np.real(" not in revsrc.source(revsrc.grad(sign_real_array), x)
    # a complex one: the rule runs
    text = revsrc.source(revsrc.grad(sign_of_complex_argument), x + 1j)
    assert "np.real(" in text


def sign_of_complex_argument(z):
    return np.sum(np.real(np.sign(z) * z))
