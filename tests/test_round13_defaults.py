"""Round 13: a helper's array (or list) default, a partial's array argument and a
NamedTuple's array default are read when the program runs, as a global array is.
They were inlined as constants, which no pass can fold or hash: grad crashed with
"The truth value of an array ... is ambiguous" or "unhashable type"."""
import functools
from typing import NamedTuple

import numpy as np
import pytest

import revsrc
from revsrc import errors

L0 = np.array([1.0, 0.8])


def fk(q, L=L0):
    return np.sum(np.sin(q) * L)


def fk_kw(q, *, L=L0):
    return np.sum(np.sin(q) * L)


def fk_zip(q, L=L0):
    p = 0.0
    for qi, li in zip(q, L):
        p = p + np.cos(qi) * li
    return p


def fk_list(q, L=[1.0, 0.8]):       # noqa: B006 - a user's list default
    return q[0] * L[0] + q[1] * L[1] * q[1]


def fk_pair(q, Ls=(L0, 2.0 * L0)):
    return np.sum(q * Ls[0]) + np.sum(q * q * Ls[1])


def ik_step(q, q0=np.array([0.1, 0.2])):
    z = q0.copy()
    z = z + q
    return np.sum(z ** 2)


class Arm(NamedTuple):
    q: np.ndarray
    L: np.ndarray = L0


def arm_loss(q):
    a = Arm(q)
    return np.sum(np.tanh(a.q) * a.L)


PART_KW = functools.partial(fk, L=2.0 * L0)
PART_POS = functools.partial(lambda L, q: np.sum(q * q * L), L0)

CASES = {
    "positional": lambda q: fk(q),
    "keyword_only": lambda q: fk_kw(q),
    "zip_over_default": lambda q: fk_zip(q),
    "list": lambda q: fk_list(q),
    "tuple_of_arrays": lambda q: fk_pair(q),
    "copied": lambda q: ik_step(q),
    "namedtuple": arm_loss,
    "partial_keyword": lambda q: PART_KW(q),
    "partial_positional": lambda q: PART_POS(q),
}


def _central(f, q, h=1e-6):
    out = np.zeros_like(q)
    for i in range(q.size):
        e = np.zeros_like(q)
        e[i] = h
        out[i] = (f(q + e) - f(q - e)) / (2 * h)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_array_defaults_differentiate(name):
    f = CASES[name]
    q = np.array([0.3, 0.5])
    value, grad = revsrc.value_and_grad(f)(q)
    assert value == f(q)
    np.testing.assert_allclose(grad, _central(f, q), rtol=1e-7, atol=1e-9)


def test_a_default_changed_in_place_is_seen():
    f = CASES["positional"]
    q = np.array([0.3, 0.5])
    g = revsrc.grad(f)
    before = g(q).copy()
    saved = L0.copy()
    try:
        L0[0] = 5.0
        after = g(q)
        np.testing.assert_allclose(after, np.cos(q) * L0, rtol=1e-14)
        assert after[0] != before[0]
    finally:
        L0[:] = saved


def test_hessian_and_jax_backend_through_an_array_default():
    q = np.array([0.3, 0.5])
    np.testing.assert_allclose(revsrc.hessian(CASES["positional"])(q),
                               -np.diag(np.sin(q) * L0), rtol=1e-13, atol=1e-15)
    pytest.importorskip("jax")
    np.testing.assert_allclose(revsrc.grad(CASES["positional"], backend="jax")(q),
                               np.cos(q) * L0, rtol=1e-13)


def scalar_list(x, c=[2.0, 3.0]):     # noqa: B006
    return x * c[0] + x * x * c[1]


def scalar_array(x, c=np.array([2.0, 3.0])):
    return x * c[0] + x * x * c[1]


def test_scalar_list_default_is_a_jit_constant_and_an_array_default_refused():
    f = lambda x: scalar_list(x)                       # noqa: E731
    assert revsrc.grad(f)(0.7) == pytest.approx(2.0 + 2 * 0.7 * 3.0, rel=1e-15)
    assert revsrc.jit(f)(0.7) == f(0.7)
    xs = np.array([0.7, 0.8])
    np.testing.assert_array_equal(revsrc.vmap(f)(xs), [f(0.7), f(0.8)])
    h = lambda x: scalar_array(x)                      # noqa: E731
    assert revsrc.grad(h)(0.7) == pytest.approx(2.0 + 2 * 0.7 * 3.0, rel=1e-15)
    with pytest.raises(errors.NotCompilable, match="the default 'c' of scalar_array"):
        revsrc.jit(h)(0.7)


def test_the_adjoint_names_the_default():
    g = revsrc.grad(CASES["positional"])
    g(np.array([0.3, 0.5]))
    assert "_fk_defaults['L']" in revsrc.source(g)
