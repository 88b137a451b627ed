"""Methods that change a dict the function made, followed where its keys stay known
when transforming: ``d.pop(k)``, ``d.setdefault(k, v)`` and ``d.update(...)`` as
statements of their own (and as values: ``v = d.setdefault(k, x)``), outside branches
and loops; ``d.setdefault`` of a key the dict has is a read anywhere. Elsewhere they
are refused at the user's line (E101). Each gradient is checked against central
differences and each value against the plain call."""
import numpy as np
import pytest

import revsrc


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def pop_statement(x):
    d = {"a": x, "b": 3.0 * x}
    d.pop("a")
    d["c"] = x * x
    return sum(d.values())


def setdefault_statement(x):
    d = {"a": x}
    d.setdefault("s", 3.0 * x)
    d.setdefault("a", 100.0)          # there already: d["a"] stays x
    return d["s"] * d["a"]


def setdefault_value(x):
    d = {"a": np.sin(x)}
    v = d.setdefault("s", 3.0 * x)
    w = d.setdefault("a", 5.0)
    return v * w + d["s"]


def update_statement(x):
    d = {"a": x}
    d.update({"b": 2.0 * x}, c=x * x)
    d.update(a=3.0 * x)
    return d["a"] * d["b"] + d["c"]


def setdefault_in_unrolled_loop(x):
    d = {}
    for k in ("p", "q"):
        d.setdefault(k, 0.0)
    d["p"] += np.exp(x)
    return d["p"] + d["q"] * x


def setdefault_known_key_in_branch(x):
    d = {"a": x * x}
    if x > 0:
        v = d.setdefault("a", 1.0)     # a read: the key is there
    else:
        v = -x
    return v + d["a"]


@pytest.mark.parametrize("f", [pop_statement, setdefault_statement, setdefault_value,
                               update_statement, setdefault_in_unrolled_loop,
                               setdefault_known_key_in_branch])
@pytest.mark.parametrize("x", [0.7, 2.0])
def test_dict_method_gradient(f, x):
    v, g = revsrc.value_and_grad(f)(x)
    assert v == f(x)
    np.testing.assert_allclose(g, _fd(f, x), rtol=1e-7)


@pytest.mark.parametrize("f", [setdefault_value, update_statement])
def test_dict_methods_under_jit_and_second_order(f):
    x = 0.9
    assert revsrc.jit(f)(x) == f(x)
    h = revsrc.grad(revsrc.grad(f))(x)
    np.testing.assert_allclose(h, _fd(revsrc.grad(f), x), rtol=1e-6)


def setdefault_new_key_in_branch(x):
    d = {"a": x}
    if x > 0:
        d.setdefault("b", x)
    return d["a"]


def update_in_loop(x):
    d = {"a": x}
    for i in range(3):
        d.update(a=d["a"] * x)
    return d["a"]


@pytest.mark.parametrize("f, line, args", [
    (setdefault_new_key_in_branch, 'd.setdefault("b", x)', (0.5,)),
    (update_in_loop, 'd.update(a=d["a"] * x)', (0.5,)),
])
def test_dict_method_refused_at_the_line(f, line, args):
    with pytest.raises(revsrc.RevsrcError) as e:
        revsrc.grad(f)(*args)
    assert e.value.code == "E101"
    assert line in str(e.value)
    assert "revsrc/" not in str(e.value)
