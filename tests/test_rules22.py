"""Issue 22, task rules22: code users write gives the true value or a coded refusal.

- ``raise`` and ``assert cond, "msg"`` under revsrc.jit and revsrc.vmap: the function
  runs; where the plain call raises, the user's exception (type and message) is
  raised, for each element under vmap (the engine hands the call to Python there).
- ``round(x, ndigits)`` under jit: Python's correctly rounded decimal, with Python's
  type; max/min of an int and a float give the winner with its own type.

(PYTEST_DONT_REWRITE: the users' asserts below must raise Python's own messages.)
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads, check_jvp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)


def _raised(call):
    try:
        call()
    except Exception as exc:   # noqa: BLE001 - the exception is what is compared
        return type(exc), str(exc)
    return None


# ----- 1. raise and assert under jit and vmap -----

def checked_square(x):
    if x < 0.0:
        raise ValueError("negative input")
    return x * x


def asserted_log(x):
    assert x > 0.0, "x must be positive"
    return math.log(x)


def asserted_fstring(x):
    assert x > 0.0, f"x={x} must be positive"
    return x * 2.0


def raise_in_loop(x, n):
    s = 0.0
    for i in range(n):
        if x * i > 5.0:
            raise RuntimeError(f"too big at {i}: {x * i}")
        s += x * i
    return s


def assert_without_message(x):
    assert x != 1.0
    return x + 1.0


@pytest.mark.parametrize("f,args", [
    (checked_square, (2.5,)), (checked_square, (-1.0,)), (asserted_log, (2.0,)),
    (asserted_log, (-1.0,)), (asserted_fstring, (3.0,)), (asserted_fstring, (-3.0,)),
    (raise_in_loop, (1.0, 4)), (raise_in_loop, (2.0, 4)),
])
def test_jit_raises_the_users_exception(f, args):
    want = _raised(lambda: f(*args))
    jf = revsrc.jit(f)
    assert _raised(lambda: jf(*args)) == want
    if want is None:
        assert jf(*args) == f(*args)
    assert _raised(lambda: jf(*args)) == want      # the cached program, again


def test_jit_assert_without_a_message():
    # (revsrc's message is the test's text, as under grad: Python's is empty)
    jf = revsrc.jit(assert_without_message)
    assert jf(2.0) == 3.0
    with pytest.raises(AssertionError):
        jf(1.0)


@pytest.mark.parametrize("f", [checked_square, asserted_log, asserted_fstring])
def test_vmap_raises_the_first_failing_elements_exception(f):
    xs = np.array([1.0, 2.5, -1.0, -4.0])
    with pytest.raises(Exception) as info:
        revsrc.vmap(f)(xs)
    assert (type(info.value), str(info.value)) == _raised(lambda: f(-1.0))
    assert any("element 2" in n for n in getattr(info.value, "__notes__", []))


@pytest.mark.parametrize("f", [checked_square, asserted_log, asserted_fstring])
def test_vmap_where_no_element_raises(f):
    xs = np.array([1.0, 2.5, 3.0, 0.5])
    got = revsrc.vmap(f)(xs)
    np.testing.assert_array_equal(got, np.array([f(x) for x in xs]))


def test_vmap_raise_in_loop_with_a_fixed_argument():
    v = revsrc.vmap(raise_in_loop, in_axes=(0, None))
    np.testing.assert_array_equal(v(np.array([0.5, 1.0]), 4), [3.0, 6.0])
    with pytest.raises(RuntimeError, match="too big at 3: 6.0"):
        v(np.array([0.5, 2.0, 1.0]), 4)


def test_grad_of_a_raising_function_unchanged():
    g = revsrc.grad(checked_square)
    assert g(3.0) == 6.0
    assert _raised(lambda: g(-1.0)) == (ValueError, "negative input")
    assert _raised(lambda: revsrc.jit(g)(-1.0)) == (ValueError, "negative input")


# ----- 2. round with digits, and max/min's type -----

def round_digits(x):
    return round(x, 2) * x + float(int(x * 10)) / 10


def round_n(x, n):
    return round(x, n)


def round_none(x):
    return round(x, None)


def round_kw(x):
    return round(x, ndigits=1) + 1.0


@pytest.mark.parametrize("f,args", [
    (round_digits, (1.2345,)), (round_n, (2.675, 2)), (round_n, (0.125, 2)),
    (round_n, (1234.5, -2)), (round_n, (1234, -2)), (round_n, (1250, -2)),
    (round_n, (7, 3)), (round_n, (True, 2)), (round_n, (1e300, -301)),
    (round_n, (float("inf"), 2)), (round_n, (float("nan"), 1)), (round_n, (2.5, 0)),
    (round_none, (2.5,)), (round_none, (3.5,)), (round_kw, (0.35,)),
])
def test_jit_round_with_digits_as_python(f, args):
    want = f(*args)
    got = revsrc.jit(f)(*args)
    assert type(got) is type(want)
    assert got == want or (got != got and want != want)


def test_vmap_round_with_digits():
    xs = np.array([2.675, 0.125, 1.005, -2.5])
    got = revsrc.vmap(round_n, in_axes=(0, None))(xs, 2)
    np.testing.assert_array_equal(got, [round(x, 2) for x in xs.tolist()])


def test_grad_through_round_with_digits():
    # round is piecewise constant: d/dx (round(x, 2) * x) = round(x, 2)
    assert revsrc.grad(round_digits)(1.2345) == round(1.2345, 2)
    assert revsrc.jit(revsrc.grad(round_digits))(1.2345) == round(1.2345, 2)


def mixed_max(n, x):
    return max(n, x) * 2


def mixed_min3(x, n, y):
    return min(x, n, y)


@pytest.mark.parametrize("args", [(7, 2.5), (2, 2.5), (3, 3.0), (-1, -1.5), (True, 0.25)])
def test_jit_max_keeps_the_winners_type(args):
    want = mixed_max(*args)
    got = revsrc.jit(mixed_max)(*args)
    assert type(got) is type(want) and got == want


@pytest.mark.parametrize("args", [(2.5, 1, 3.0), (0.5, 1, 3.0), (1.0, 1, 0.0)])
def test_jit_min_keeps_the_winners_type(args):
    want = mixed_min3(*args)
    got = revsrc.jit(mixed_min3)(*args)
    assert type(got) is type(want) and got == want
