"""The functions revsrc.vjp and revsrc.linearize return, called inside a function revsrc
transforms (issue 23's composition matrix: grad, jit, vmap... of them).

``out, back = revsrc.vjp(f, x)`` then ``back(ct)`` inside a transformed function: the
call of ``back`` becomes the pullback's program (the gradient of f's output weighted
by ``ct``), ``out`` f's, so the closure is never a value of the program; the same for
``linearize``'s ``f_jvp(t)`` (the forward-mode program). Where the primals changed
between the two calls, or the pullback would reach an int, it is refused at the line.
"""

import numpy as np
import pytest

import revsrc
from revsrc import errors
from loop_programs import looped, looped_jax


def two(x, w):
    return np.sum(np.tanh(w * x) * x) + w[0] * x[1]


def pulled(x):
    out, back = revsrc.vjp(looped, x)
    return back(2.0 * out)[0]


def pulled_two(x, w):
    out, back = revsrc.vjp(two, x, w)
    gx, gw = back(1.5)
    return np.sum(gx * gw) + out


def pushed(x):
    _, f_jvp = revsrc.linearize(looped, x)
    return f_jvp(0.25 + x)


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f", [pulled, pushed])
def test_grad_of_a_returned_closure_matches_central_differences(f):
    for x in (-0.4, 0.9, 1.6):
        np.testing.assert_allclose(revsrc.grad(f)(x), _central(f, x), rtol=1e-6, atol=1e-8)
        assert revsrc.grad(f)(x) == revsrc.grad(f, backend="python")(x)


@pytest.mark.parametrize("f", [pulled, pushed])
def test_jit_and_vmap_of_a_returned_closure(f):
    assert revsrc.jit(f)(0.9) == f(0.9)
    xs = np.array([-0.4, 0.9, 1.6])
    np.testing.assert_array_equal(revsrc.vmap(f)(xs), [f(float(x)) for x in xs])


def test_a_pullback_of_two_array_arguments():
    x, w = np.array([0.3, -0.8, 1.2]), np.array([0.5, 1.5, -0.7])
    g = revsrc.grad(pulled_two, argnums=(0, 1))(x, w)
    for k, arg in enumerate((x, w)):
        num = np.zeros(3)
        for i in range(3):
            e = np.zeros(3)
            e[i] = 1e-6
            plus = pulled_two(x + e, w) if k == 0 else pulled_two(x, w + e)
            minus = pulled_two(x - e, w) if k == 0 else pulled_two(x, w - e)
            num[i] = (plus - minus) / 2e-6
        np.testing.assert_allclose(g[k], num, rtol=1e-6, atol=1e-8)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def pulled_jax(x):
        out, back = jax.vjp(looped_jax, x)
        return back(2.0 * out)[0]

    with jax.enable_x64(True):
        for x in (-0.4, 0.9, 1.6):
            want = float(jax.grad(pulled_jax)(jnp.float64(x)))
            np.testing.assert_allclose(revsrc.grad(pulled)(x), want, rtol=1e-12)


def moved(x):
    out, back = revsrc.vjp(looped, x)
    x = x + 1.0          # the primal changed: back is the vjp at the old x
    return back(out)[0] * x


def of_an_int(x, n):
    out, back = revsrc.vjp(np.multiply, x, n)
    return back(1.0)[0]


def with_aux(x):
    out, back, aux = revsrc.vjp(lambda_free, x, has_aux=True)
    return back(1.0)[0]


def lambda_free(x):
    return x * x, x


def test_what_stays_refused_is_refused_at_the_line():
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(moved)(0.9)
    assert info.value.code == "E101"
    assert info.value.lineno == moved.__code__.co_firstlineno + 3
    with pytest.raises(errors.HigherOrderNotSupported) as info:
        revsrc.grad(of_an_int)(0.9, 3)
    assert info.value.code == "E104"
    assert "float arguments" in str(info.value)
    assert info.value.lineno == of_an_int.__code__.co_firstlineno + 2
    with pytest.raises(errors.HigherOrderNotSupported) as info:
        revsrc.grad(with_aux)(0.9)
    assert info.value.code == "E104" and "has_aux" in str(info.value)
