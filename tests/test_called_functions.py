"""Functions called where they are made (``(lambda v: v * v)(x)``, a list of lambdas
called by index or in a comprehension) or taken from a global dict or tuple
(``FUNCS["a"](x)``: guarded like a global function, so rebinding the entry or the
global makes the program anew); a global list's item is refused (E101)."""
import math

import numpy as np
import pytest

import revsrc
from revsrc import testing

A3 = np.array([0.3, -1.2, 0.7])


# ----- functions called where they are made, or taken from a global dict or tuple -----

def lambda_called_inline(x):
    return sum([(lambda v: v * v)(xi) for xi in x])


def lambdas_in_a_list(x):
    acts = [lambda t: math.tanh(t), lambda t: math.sin(t), lambda t: t * t]
    return sum(a(b(x)) for a in acts for b in acts)


def lambdas_late_binding(x):
    k = 2.0
    acts = [lambda t: t * k, lambda t: t * t * k]
    k = 3.0
    return acts[0](x) + acts[1](x)     # 3x + 3x^2, as Python reads k when called


def lambdas_and_functions(x):
    acts = [lambda t: t * t, np.sin, math.tanh]
    return acts[0](x) + acts[1](x) + sum(a(x) for a in acts)


def test_lambdas():
    want = 2 * (2 * 0.3 + math.cos(0.3)) + 1 - math.tanh(0.3) ** 2
    assert revsrc.grad(lambdas_and_functions)(0.3) == pytest.approx(want, rel=1e-12)
    testing.check_grads(lambda_called_inline, (A3,))
    np.testing.assert_allclose(revsrc.grad(lambda_called_inline)(A3), 2 * A3)
    testing.check_grads(lambdas_in_a_list, (0.3,))
    assert revsrc.grad(lambdas_late_binding)(0.7) == pytest.approx(3.0 + 6.0 * 0.7)


FUNCS = {"a": np.tanh, "b": np.sin}
ACTS_T = (math.tanh, math.sin)
ACTS_L = [math.tanh, math.sin]


def uses_dict(x):
    return np.sum(FUNCS["a"](x) * FUNCS["b"](x))


def uses_tuple(x):
    return ACTS_T[0](x) + ACTS_T[1](x)


def uses_list(x):
    return ACTS_L[0](x)


def test_functions_from_a_global_dict_or_tuple():
    global FUNCS, ACTS_T
    keep = FUNCS, ACTS_T
    try:
        df, dt = revsrc.grad(uses_dict), revsrc.grad(uses_tuple)
        testing.check_grads(uses_dict, (A3,))
        assert dt(0.4) == pytest.approx(1 - math.tanh(0.4) ** 2 + math.cos(0.4))
        FUNCS["b"] = np.exp                 # an entry rebound: the program is made anew
        np.testing.assert_allclose(
            df(A3), (1 - np.tanh(A3) ** 2) * np.exp(A3) + np.tanh(A3) * np.exp(A3))
        FUNCS = {"a": np.sin, "b": np.cos}  # the global rebound
        np.testing.assert_allclose(df(A3), np.cos(2 * A3))
        ACTS_T = (math.sin, math.sin)
        assert dt(0.4) == pytest.approx(2 * math.cos(0.4))
    finally:
        FUNCS, ACTS_T = keep
        FUNCS.update(a=np.tanh, b=np.sin)
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(uses_list)(0.4)
    assert str(info.value).startswith("[E101]") and "ACTS_L[0]" in str(info.value)
    assert "tuple" in info.value.hint and info.value.filename == __file__
