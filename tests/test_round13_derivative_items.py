"""Round 13: a revsrc derivative called inside a function on the items of a list (a
global list or tuple of floats, a list argument, a local list, np.linspace).

The inlined derivative is made for a float argument; where the program cannot tell an
item's kind (a list's items), the item is checked to be a float when the program runs
(`runtime.float_argument`) instead of the call being refused (E104 named the loop
variable, or an internal temporary ``_t1``). An item that is no float is refused there."""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors


def u(x, th):
    return th[0] * math.sin(th[1] * x) + th[2] * x * x


du = revsrc.grad(u, argnums=0)
XS = [0.1, 0.4]
XT = (0.1, 0.4)
XI = [1, 2]


def over_global_list(th):
    s = 0.0
    for x in XS:
        s += du(x, th) ** 2
    return s


def indexed_global_list(th):
    s = 0.0
    for i in range(2):
        s += du(XS[i], th) ** 2
    return s


def over_global_tuple(th):
    s = 0.0
    for x in XT:
        s = s + du(x, th) ** 2
    return s


def over_linspace(th):
    return sum(du(x, th) ** 2 for x in np.linspace(0.1, 0.4, 2))


def over_argument(th, xs):
    s = 0.0
    for x in xs:
        s += du(x, th) ** 2
    return s


def written_out(th):
    return du(0.1, th) ** 2 + du(0.4, th) ** 2


def over_int_list(th):
    s = 0.0
    for x in XI:
        s += du(x, th) ** 2
    return s


TH = np.array([0.8, 1.2, -0.1])


@pytest.mark.parametrize("f", [over_global_list, indexed_global_list, over_global_tuple,
                               over_linspace])
def test_a_derivative_called_on_list_items(f):
    expected = revsrc.grad(written_out)(TH)
    np.testing.assert_allclose(revsrc.grad(f)(TH), expected, rtol=1e-14)
    assert revsrc.value_and_grad(f)(TH)[0] == pytest.approx(written_out(TH), rel=1e-15)


def test_a_list_argument_and_the_closed_form():
    th = np.array([1.0, 1.0, 0.0])
    got = revsrc.grad(over_argument)(th, [0.3, 0.5])
    # d/dx u = th0 th1 cos(th1 x) + 2 th2 x: the loss sums its squares
    h = 1e-6
    fd = [(over_argument(th + h * e, [0.3, 0.5]) - over_argument(th - h * e, [0.3, 0.5]))
          / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(got, fd, rtol=1e-7, atol=1e-9)


def test_second_derivatives_through_the_checked_items():
    H = revsrc.hessian(over_global_list)(TH)
    np.testing.assert_allclose(H, revsrc.hessian(written_out)(TH), rtol=1e-13, atol=1e-14)


def test_an_int_item_is_refused_where_it_is_read():
    with pytest.raises(errors.HigherOrderNotSupported, match="made for a float") as info:
        revsrc.grad(over_int_list)(TH)
    assert info.value.code == "E104"


def test_jax_backend():
    pytest.importorskip("jax")
    np.testing.assert_allclose(revsrc.grad(over_global_list, backend="jax")(TH),
                               revsrc.grad(written_out)(TH), rtol=1e-13)
