"""Reverse over reverse on the scalar engine (issue 23).

``revsrc.grad(revsrc.grad(f))`` of a scalar function with a loop and a branch saves on
the stacks of two levels ("f", "i" and the inner gradient's "f1", "i1", "f1b"), whose
pushes and pops interleave. The engine holds those other stacks beside its float and
int one (PUSHX/POPX), so such a derivative runs there, on the VM and compiled by the
native tier, with the digits of the generated Python; a derivative whose stacks are
more than the engine holds is refused with E501 under backend="engine" and runs as
Python by default.
"""
import math
import re

import numpy as np
import pytest

import revsrc
from loop_programs import looped, looped_jax


def until(x):
    # a data-dependent trip count, and a NumPy scalar function
    y, k = x, 0
    while abs(y) < 4.0 and k < 20:
        y = y * 1.7 + np.tanh(x) * 0.25
        k += 1
    return y * y


def two(x, a):
    s = 0.0
    for i in range(4):
        if i % 2 == 0 and x > a:
            s = s + math.cos(x * a) * i
        else:
            s = s + x * x / (1.0 + a * a)
    return s


POINTS = [-1.7, -0.4, 0.25, 0.9, 1.3, 2.6]


def _central(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / (2 * h)


def _on_engine(d, *args):
    """Whether the derivative ``d`` runs its program for ``args`` on the engine, with
    stacks beside the float and int one."""
    text = revsrc.disassemble(d, *args)
    return "POPX" in text and "PUSHX" in text


@pytest.mark.parametrize("f", [looped, until], ids=["loop-branch", "while"])
def test_grad_of_grad_runs_on_the_engine_with_pythons_digits(f):
    engine = revsrc.grad(revsrc.grad(f), backend="engine")
    python = revsrc.grad(revsrc.grad(f), backend="python")
    default = revsrc.grad(revsrc.grad(f))
    for x in POINTS:
        got = engine(x)
        assert got == python(x), x
        assert default(x) == got
    assert _on_engine(default, 0.9)


@pytest.mark.parametrize("f", [looped, until], ids=["loop-branch", "while"])
def test_hessian_on_the_engine_with_pythons_digits(f):
    engine = revsrc.hessian(f, backend="engine")
    python = revsrc.hessian(f, backend="python")
    for x in POINTS:
        assert engine(x) == python(x), x


@pytest.mark.parametrize("f", [looped, until], ids=["loop-branch", "while"])
def test_second_and_third_derivatives_against_central_differences(f):
    d1 = revsrc.grad(f, backend="python")
    d2 = revsrc.grad(revsrc.grad(f), backend="engine")
    d3 = revsrc.grad(revsrc.grad(revsrc.grad(f)), backend="engine")
    for x in POINTS:
        np.testing.assert_allclose(d2(x), _central(d1, x), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(d3(x), _central(d2, x), rtol=1e-5, atol=1e-6)
    assert d3(0.9) == revsrc.grad(revsrc.grad(revsrc.grad(f)), backend="python")(0.9)


def test_mixed_second_derivatives_in_two_arguments():
    gx = revsrc.grad(two, argnums=0)
    engine = revsrc.grad(gx, argnums=(0, 1), backend="engine")
    python = revsrc.grad(gx, argnums=(0, 1), backend="python")
    for x, a in [(0.3, 0.7), (1.2, 0.5), (-0.8, 0.2)]:
        got = engine(x, a)
        assert got == python(x, a)
        np.testing.assert_allclose(got[0], _central(lambda t: gx(t, a), x), rtol=1e-6)
        np.testing.assert_allclose(got[1], _central(lambda t: gx(x, t), a), rtol=1e-6)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    with jax.enable_x64(True):
        d2 = jax.grad(jax.grad(looped_jax))
        d3 = jax.grad(d2)
        for x in POINTS:
            want2, want3 = float(d2(jnp.float64(x))), float(d3(jnp.float64(x)))
            np.testing.assert_allclose(revsrc.grad(revsrc.grad(looped), backend="engine")(x),
                                       want2, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(
                revsrc.grad(revsrc.grad(revsrc.grad(looped)), backend="engine")(x),
                want3, rtol=1e-11, atol=1e-12)


def test_native_tier_and_vmap_give_the_same_digits():
    from revsrc.backends.engine import native
    if native.compiler() is None:
        pytest.skip("no C compiler: the native tier is off")
    d = revsrc.grad(revsrc.grad(looped), backend="engine")
    python = revsrc.grad(revsrc.grad(looped), backend="python")
    d(0.9)
    prog = d.programs[0][1]
    assert native.compile_many([prog])
    assert prog.tier == "native"
    for x in POINTS:
        assert d(x) == python(x)
    xs = np.linspace(-2.0, 2.0, 33)
    mapped = revsrc.vmap(revsrc.grad(revsrc.grad(looped)), threads=2)(xs)
    np.testing.assert_array_equal(mapped, [python(float(x)) for x in xs])


def test_jit_of_a_second_derivative_keeps_the_digits():
    d2 = revsrc.grad(revsrc.grad(looped))

    def newton(x):
        for _ in range(3):
            x = x - 0.1 * d2(x)
        return x
    assert revsrc.jit(newton)(0.9) == newton(0.9)


def test_too_many_stacks_is_refused_on_the_engine_and_runs_as_python():
    d = looped
    for _ in range(5):
        d = revsrc.grad(d)
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(revsrc.grad(revsrc.grad(revsrc.grad(revsrc.grad(looped)))),
                    backend="engine")(0.9)
    assert info.value.code == "E501"
    assert re.search(r"more than \d+ stacks", str(info.value))
    # the default runs the generated Python instead
    d4 = revsrc.grad(revsrc.grad(revsrc.grad(revsrc.grad(looped))), backend="python")
    np.testing.assert_allclose(d(0.9), _central(d4, 0.9), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("f", [looped, until], ids=["loop-branch", "while"])
def test_forward_over_reverse_over_reverse_keeps_each_stacks_order(f):
    # restores of one stack never move past one another in the peephole: a pop fused
    # into a later copy below another pop of its stack took the other's value
    engine = revsrc.hessian(revsrc.grad(f), backend="engine")
    python = revsrc.hessian(revsrc.grad(f), backend="python")
    for x in POINTS:
        assert engine(x) == python(x), x
