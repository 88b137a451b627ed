"""Round 15's backend="jax" refusals that the default backend computes, now computed on
JAX too: a 40-step ``for`` whose list grows (unrolled, as a short loop is), the Hessian
of a 40-step loop with an np.where (the forward-over-reverse placeholders were taken for
a None of the user's), and a dict aux of value_and_grad(has_aux=True) with no loop.
Each is checked against the default backend and central differences, with JAX's x64
on and off (the setting restored after)."""
import collections
import dataclasses

import numpy as np
import pytest

import revsrc
from revsrc import errors

jax = pytest.importorskip("jax")


@pytest.fixture(params=[True, False], ids=["x64_on", "x64_off"])
def x64(request):
    old = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", request.param)
    try:
        yield request.param
    finally:
        jax.config.update("jax_enable_x64", old)


def _close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=rtol, atol=atol)


def _central(f, x, h=1e-6):
    """Central differences of the scalar function ``f`` of a float or an array ``x``."""
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


# ----- r15_lv_grad_z0_backend_jax: a constant-trip loop whose list grows -----

def lotka_volterra(p, z):
    traj = []
    for _ in range(40):                     # >= 32 steps: rolled, unless it cannot be
        z = z + 0.02 * np.array([p[0]*z[0] - p[1]*z[0]*z[1], p[3]*z[0]*z[1] - p[2]*z[1]])
        traj.append(z[0])
    return np.sum(np.array(traj) ** 2)


P_LV, Z0 = np.array([1.1, 0.4, 0.4, 0.1]), np.array([1.0, 0.5])


def test_a_long_for_loop_whose_list_grows_unrolls(x64):
    want = revsrc.grad(lotka_volterra, argnums=1)(P_LV, Z0)
    _close(want, [182.88887477, -33.50344328], rtol=1e-9)
    _close(want, _central(lambda z: lotka_volterra(P_LV, z), Z0), rtol=1e-7)
    got = revsrc.grad(lotka_volterra, argnums=1, backend="jax")(P_LV, Z0)
    _close(got, want)
    got_p = revsrc.grad(lotka_volterra, argnums=0, backend="jax")(P_LV, Z0)
    _close(got_p, revsrc.grad(lotka_volterra, argnums=0)(P_LV, Z0))


def keeps_the_last_of_40(a):
    best = None
    x = a
    for _ in range(40):
        x = x * 0.9
        best = x
    if best is None:
        return a
    return best * a


def test_a_long_for_loop_with_a_none_before_it_unrolls():
    want = 2 * 0.9 ** 40 * 1.3
    _close(revsrc.grad(keeps_the_last_of_40)(1.3), want)
    _close(revsrc.grad(keeps_the_last_of_40, backend="jax")(1.3), want)


def collects(x):
    xs = []
    while x < 10.0:
        xs.append(x)
        x = x * 2.0
    return sum(xs)


def test_a_while_whose_list_grows_is_refused_saying_why():
    with pytest.raises(errors.JaxDataDependent) as info:
        revsrc.grad(collects, backend="jax")(0.5)
    text = str(info.value)
    assert info.value.code == "E602" and info.value.line == "while x < 10.0:"
    assert "its test is a traced value" in text and "trip count" not in text
    assert "its length goes from 0 to 1 items" in text
    # no JAX internals quoted
    assert "ValueError" not in text and "pytree" not in text and "key path" not in text


# ----- r15_jax_hessian_x64_off / r15_jax_hessian_scan_x64_on -----

IN = 1.5 + np.sin(0.4 * np.arange(40))


def reset(p, I):
    v = 0.0
    for t in range(40):                     # >= 32 steps: a lax loop
        v = np.where(v > 1.0, v - 1.0, v) + p * I[t]
    return v


def leaky_scan(p, I):
    v = 0.0
    acc = 0.0
    for t in range(40):
        v = v + 0.1 * (-v + p * I[t])
        v = np.where(v > 1.0, v - 1.0, v)
        acc = acc + v * v
    return acc


def until_five(p):
    v = p
    s = 0.0
    while v < 5.0:                          # a traced test: only a lax loop runs it
        v = np.where(v > 1.0, v * 1.5, v + 1.0)
        s = s + v * v * p
    return s


def test_hessian_of_a_long_loop_with_np_where(x64):
    assert revsrc.hessian(reset)(1.2, IN) == 0.0            # piecewise linear in p
    _close(revsrc.hessian(reset, backend="jax")(1.2, IN), 0.0)
    want = revsrc.hessian(leaky_scan)(1.2, IN)
    _close(want, 132.64552779013263)
    grad = revsrc.grad(leaky_scan)
    _close(want, _central(lambda p: grad(float(p), IN), 1.2), rtol=1e-6)
    _close(revsrc.hessian(leaky_scan, backend="jax")(1.2, IN), want)


def test_hessian_of_a_traced_while_with_np_where(x64):
    want = revsrc.hessian(until_five)(0.7)
    grad = revsrc.grad(until_five)
    _close(want, _central(lambda p: grad(float(p)), 0.7), rtol=1e-6)
    _close(revsrc.hessian(until_five, backend="jax")(0.7), want)


# ----- r15_jax_value_and_grad_has_aux: a dict aux, no loop -----

def dict_aux(x):
    y = np.sum(x ** 2)
    return y, {"norm": np.sqrt(y)}


Pair = collections.namedtuple("Pair", "norm twice")


def namedtuple_aux(x):
    y = np.sum(x ** 2)
    return y, Pair(np.sqrt(y), 2.0 * y)


def test_value_and_grad_with_a_dict_or_namedtuple_aux(x64):
    x = np.array([3.0, 4.0])
    for fn in (dict_aux, namedtuple_aux):
        (value, aux), g = revsrc.value_and_grad(fn, has_aux=True, backend="jax")(x)
        (want_value, want_aux), want_g = revsrc.value_and_grad(fn, has_aux=True)(x)
        assert type(aux) is type(want_aux)
        _close(value, want_value)
        _close(list(dict(aux).values()) if isinstance(aux, dict) else list(aux),
               list(want_aux.values()) if isinstance(want_aux, dict) else list(want_aux))
        _close(g, want_g)
        _close(g, _central(lambda v: fn(v)[0], x), rtol=1e-7)
    (_, aux), _ = revsrc.value_and_grad(dict_aux, has_aux=True, backend="jax")(x)
    assert set(aux) == {"norm"} and float(aux["norm"]) == 5.0


def dict_state(x):
    s = {"a": x, "b": 0.0}
    for _ in range(40):
        s = {"a": s["a"] * 0.9, "b": s["b"] + np.sum(s["a"])}
    return s["b"]


def test_a_dict_rebuilt_in_a_long_loop_is_still_refused_at_its_line():
    with pytest.raises(errors.JaxNotLowered) as info:
        revsrc.grad(dict_state, backend="jax")(np.ones(3))
    assert info.value.code == "E603" and "inside a loop it compiles" in str(info.value)
    assert info.value.line.startswith('s = {"a": s["a"] * 0.9')


def dict_state_short(x):
    s = {"a": x, "b": 0.0}
    for _ in range(5):                      # under 32 steps: unrolled, the dict with it
        s = {"a": s["a"] * 0.9, "b": s["b"] + np.sum(s["a"])}
    return s["b"]


def dict_aux_after_a_long_loop(x):
    s = 0.0
    for i in range(40):
        s = s + np.sum(np.sin(x * i))
    return s, {"s": s, "first": x[0]}


def test_a_dict_in_a_short_loop_or_after_a_long_one_runs():
    x = np.array([0.3, -1.2, 2.0])
    want = sum(0.9 ** k for k in range(5)) * np.ones(3)
    _close(revsrc.grad(dict_state_short, backend="jax")(x), want)
    (value, aux), g = revsrc.value_and_grad(dict_aux_after_a_long_loop, has_aux=True,
                                            backend="jax")(x)
    (want_value, want_aux), want_g = revsrc.value_and_grad(dict_aux_after_a_long_loop,
                                                           has_aux=True)(x)
    _close(value, want_value)
    _close(g, want_g)
    _close(g, _central(lambda v: dict_aux_after_a_long_loop(v)[0], x), rtol=1e-7)
    assert set(aux) == {"s", "first"}
    _close([aux["s"], aux["first"]], [want_aux["s"], want_aux["first"]])


@dataclasses.dataclass
class Out:
    norm: float
    twice: float


def dataclass_aux(x):
    y = np.sum(x ** 2)
    return y, Out(np.sqrt(y), 2.0 * y)


def test_a_dataclass_aux_is_refused_without_naming_a_loop():
    x = np.array([3.0, 4.0])
    (_, aux), _ = revsrc.value_and_grad(dataclass_aux, has_aux=True)(x)
    assert aux == Out(5.0, 50.0)
    with pytest.raises(errors.JaxNotLowered) as info:
        revsrc.value_and_grad(dataclass_aux, has_aux=True, backend="jax")(x)
    text = str(info.value)
    assert info.value.code == "E603" and "dataclass" in text and "loop" not in text
    assert "TypeError" not in text
