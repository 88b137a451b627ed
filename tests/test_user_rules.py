"""The public extension API: ``revsrc.defvjp`` and ``revsrc.nondiff`` for users' functions.

Registrations are global, so every test runs inside `registry`, which puts the rule
table back as it was afterwards (the refusal tests elsewhere rely on math.remainder
having no rule).
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors, primitives, rules
from revsrc.testing import check_grads


@pytest.fixture(autouse=True)
def registry():
    saved = primitives.snapshot()
    yield
    primitives.restore(saved)


# ----- A user's function with source, given its own rule -----

def softplus(x):
    return np.log1p(np.exp(x))


def softplus_rule(g, ans, x):
    return g / (1.0 + np.exp(-x))


def uses_softplus(x):
    return np.sum(softplus(x) * np.cos(x))


def test_defvjp_call_form_replaces_inlining():
    x = np.linspace(-3.0, 3.0, 7)
    before = revsrc.source(revsrc.grad(uses_softplus), x)
    assert "log1p" in before  # no rule: softplus is inlined and differentiated
    assert revsrc.defvjp(softplus, softplus_rule) is softplus_rule
    df = revsrc.grad(uses_softplus)
    check_grads(uses_softplus, (x,))
    check_grads(uses_softplus, (np.float32(0.3) * np.ones(4, np.float32),), rtol=1e-3)
    forward, reverse = revsrc.source(df, x).split("reverse sweep")
    assert "softplus(x)" in forward and "log1p" not in forward  # called, not inlined
    assert "np.exp(" in reverse and "log1p" not in reverse  # the rule's body, inlined


# ----- A function with no Python source -----

def uses_remainder(x):
    return math.remainder(x, 1.7) * x + math.sin(x)


def test_function_without_source_is_refused_until_it_has_a_rule():
    with pytest.raises(errors.NoRule) as info:
        revsrc.grad(uses_remainder)(2.0)
    assert info.value.code == "E202"
    assert "remainder" in str(info.value)

    @revsrc.defvjp(math.remainder)
    def remainder_rule(g, ans, x, y):
        return g, -(g * round(x / y))

    assert callable(remainder_rule) and remainder_rule(2.0, 0.0, 5.0, 2.0) == (2.0, -4.0)
    for x in (2.0, 0.3, 1.2):
        check_grads(uses_remainder, (x,))
        check_grads(uses_remainder, (x,), backend="python")


def uses_remainder2(x, y):
    return math.remainder(x, 1.3) * y + math.remainder(x + y, 2.9)


def test_decorator_form_for_a_builtin():
    with pytest.raises(errors.NoRule, match="remainder"):
        revsrc.grad(uses_remainder2)(1.5, 0.5)

    @revsrc.defvjp(math.remainder)
    def remainder_rule(g, ans, x, y):
        return g, -(g * round(x / y))

    check_grads(uses_remainder2, (1.5, 0.5), argnums=(0, 1))
    check_grads(uses_remainder2, (3.2, 1.1), argnums=(0, 1))


# ----- Several arguments, keywords, broadcasting -----

def smooth_abs(x, eps=1e-2):
    return np.sqrt(x * x + eps)


def uses_smooth_abs(x, e):
    return np.sum(smooth_abs(x, eps=e) + smooth_abs(x))


def test_rule_with_several_arguments_keywords_and_broadcasting():
    def smooth_abs_rule(g, ans, x, eps=1e-2):
        return g * x / ans, g * 0.5 / ans

    revsrc.defvjp(smooth_abs, smooth_abs_rule, broadcast=True)
    x = np.linspace(-1.0, 1.0, 5)
    check_grads(uses_smooth_abs, (x, 0.2), argnums=(0, 1))
    check_grads(uses_smooth_abs, (x, np.full(5, 0.3)), argnums=(0, 1))
    check_grads(uses_smooth_abs, (x[:, None] * np.ones(3), np.full(3, 0.3)), argnums=(0, 1))
    check_grads(uses_smooth_abs, (0.4, 0.2), argnums=(0, 1))


def scaled(x, k):
    return x * k


def uses_scaled(x, k):
    return np.sum(scaled(x, k) ** 2)


def test_none_means_no_gradient_for_that_argument():
    @revsrc.defvjp(scaled)
    def scaled_rule(g, ans, x, k):
        return g * k, None

    x = np.arange(3.0)
    gx, gk = revsrc.grad(uses_scaled, (0, 1))(x, 2.0)
    np.testing.assert_allclose(gx, 2.0 * (2.0 * x) * 2.0)
    assert gk == 0.0


def test_a_rule_must_start_with_g_and_ans():
    with pytest.raises(TypeError, match=r"\(g, ans"):
        @revsrc.defvjp(scaled)
        def bad_rule(x, k):
            return x, k


# ----- nondiff -----

def stop_gradient(x):
    return x * 1.0


def uses_stop_gradient(x):
    return np.sum(x * stop_gradient(x))


def test_nondiff_stops_the_gradient():
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(revsrc.grad(uses_stop_gradient)(x), 2.0 * x)
    assert revsrc.nondiff(stop_gradient) is stop_gradient
    np.testing.assert_allclose(revsrc.grad(uses_stop_gradient)(x), x)


def uses_floor_remainder(x):
    return math.floor(math.remainder(x, 0.7) * 10.0) + x


def test_nondiff_for_a_builtin():
    with pytest.raises(errors.NoRule):
        revsrc.grad(uses_floor_remainder)(2.5)
    revsrc.nondiff(math.remainder)
    assert revsrc.grad(uses_floor_remainder)(2.5) == 1.0


def test_the_registry_is_restored_between_tests():
    assert rules.lookup(softplus) is None
    assert rules.lookup(math.remainder) is None
    assert rules.lookup(stop_gradient) is None
