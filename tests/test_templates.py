"""Binding a rule to a call site (`templates.bind`, `templates.on_numbers`), shared by
reverse and forward mode.

A NumPy scalar constant (np.float64(3.0)) is a number: NumPy's arithmetic treats it
as the Python float it holds, and `kinds.of_value` says so too. So a call whose
operands are numbers and such constants takes its rule on numbers in both modes,
where a 0-d array constant does not. Such a constant reaches a call site through a
rule: a rule's module constants are inlined into the derivative program, which
forward mode (a Hessian) or reverse mode (a second derivative) then differentiates.
"""
import math
import operator

import numpy as np
import pytest

import revsrc
from revsrc import errors, primitives
from revsrc.core.ir import Const, Op
from revsrc.passes import templates


@pytest.fixture(autouse=True)
def registry():
    saved = primitives.snapshot()
    yield
    primitives.restore(saved)


@pytest.mark.parametrize("value, numbers", [
    (2.0, True), (2, True), (np.float64(2.0), True), (np.int64(2), True),
    (np.float32(2.0), True), (np.array(2.0), False), (np.ones(3), False)])
def test_a_numpy_scalar_constant_is_a_number(value, numbers):
    op = Op("t", operator.mul, ("x", Const(value)))
    assert templates.on_numbers(op, {"x": "float"}) is numbers
    assert not templates.on_numbers(op, {"x": "array"})


def _rule(g, ans, x, axis=None, scale=2.0):
    return g * scale


def test_bind_fills_parameters_then_defaults():
    rule = primitives.Rule.of(_rule).load()
    env = templates.bind(rule, Op("t", np.sum, ("x",), (("scale", Const(3.0)),)), "t", "t_bar")
    assert env == {"g": "t_bar", "ans": "t", "x": "x", "axis": Const(None),
                   "scale": Const(3.0)}
    assert "g" not in templates.bind(rule, Op("t", np.sum, ("x",)), "t")


@pytest.mark.parametrize("op", [Op("t", np.sum, ("x",), (("keepdims", Const(True)),)),
                                Op("t", np.sum, ("x", Const(0), Const(1.0), Const(1)))])
def test_bind_refuses_what_the_rule_does_not_name(op):
    with pytest.raises(errors.NoRule) as info:
        templates.bind(primitives.Rule.of(_rule).load(), op, "t", "t_bar")
    assert info.value.code == "E202"


# ----- a rule whose module constant is a NumPy scalar, against a Python float -----

_K_NP = np.float64(3.0)
_K_PY = 3.0


def wave_np(x):
    return math.sin(3.0 * x)


def wave_py(x):
    return math.sin(3.0 * x)


def wave_np_rule(g, ans, x):
    return g * (_K_NP * _K_NP * math.cos(_K_NP * x) / (_K_NP + x * 0.0))


def wave_py_rule(g, ans, x):
    return g * (_K_PY * _K_PY * math.cos(_K_PY * x) / (_K_PY + x * 0.0))


def _uses(wave):
    def f(x):
        return wave(x) * x + x ** 2 / _K_NP
    return f


def _central(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_a_numpy_scalar_constant_differentiates_as_a_python_float():
    revsrc.defvjp(wave_np, wave_np_rule)
    revsrc.defvjp(wave_py, wave_py_rule)
    f_np, f_py = _uses(wave_np), _uses(wave_py)
    for x in (0.3, -1.2):
        grad = revsrc.grad(f_np)(x)
        assert grad == revsrc.grad(f_py)(x)
        assert grad == pytest.approx(_central(f_np, x), rel=1e-7)
        _, tangent = revsrc.jvp(f_np, (x,), (1.0,))
        assert tangent == revsrc.jvp(f_py, (x,), (1.0,))[1]
        assert tangent == pytest.approx(grad, rel=1e-12)
        hess = revsrc.hessian(f_np)(x)
        assert hess == revsrc.hessian(f_py)(x)
        assert hess == pytest.approx(_central(revsrc.grad(f_np), x), rel=1e-6)
