"""NumPy's in-place functions on arrays the function made (revsrc/inplace.py):
np.add.at and np.fill_diagonal are followed as item assignments, through views, and
refused on arguments; x.flatten() is a copy, never a view."""
import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads

RNG = np.random.default_rng(20261130)


def scatter_twice(x, w):
    L = np.zeros((4, 4))
    i = np.array([0, 1, 1, 3])                 # a repeated index adds twice
    np.add.at(L, (i, i), w * x)
    np.add.at(L, (i, np.array([1, 2, 2, 0])), -w)
    return np.sum(np.sin(L) * np.arange(16.0).reshape(4, 4))


def histogram_by_bins(weights, bins):
    counts = np.zeros(3)
    np.add.at(counts, bins, weights)
    return np.sum(counts ** 2)


def scalar_added_at(x):
    y = x * 1.0
    np.add.at(y, [0, 2, 0], x[1] ** 2)         # one number to three places
    return np.sum(y ** 3)


def through_a_view(x):
    y = x * 1.0
    v = y[1:]
    np.add.at(v, [0, 0], 2.0 * x[0])           # reaches y through v
    return np.sum(y * y)


def gp_noise(A, log_noise):
    K = A @ A.T
    np.fill_diagonal(K, K.diagonal() + np.exp(log_noise))
    return np.sum(np.linalg.inv(K))


def masked_self_distance(x):
    d2 = (x[:, None] - x[None, :]) ** 2
    np.fill_diagonal(d2, np.inf)               # exp(-inf) = 0: not its own neighbour
    return np.sum(np.exp(-d2))


def tall_wrapped(x, v):
    A = np.zeros((5, 3))
    np.fill_diagonal(A, v, wrap=True)          # v's items in turn, again from the first
    return np.sum(A * x)


def cube_diagonal(x, s):
    T = x * 1.0
    np.fill_diagonal(T, s)
    return np.sum(np.tanh(T))


CASES = [
    (scatter_twice, (RNG.normal(size=4), RNG.normal(size=4)), (0, 1)),
    (histogram_by_bins, (RNG.normal(size=5), np.array([0, 2, 2, 1, 0])), 0),
    (scalar_added_at, (RNG.normal(size=3),), 0),
    (through_a_view, (RNG.normal(size=3),), 0),
    (gp_noise, (RNG.normal(size=(3, 3)), 0.3), (0, 1)),
    (masked_self_distance, (np.array([0.1, 0.5, 1.3]),), 0),
    (tall_wrapped, (RNG.normal(size=(5, 3)), np.array([1.0, 2.0])), (0, 1)),
    (cube_diagonal, (RNG.normal(size=(3, 3, 3)), 0.4), (0, 1)),
]


@pytest.mark.parametrize("f,args,argnums", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_central_differences(f, args, argnums):
    check_grads(f, args, argnums=argnums)


@pytest.mark.parametrize("f,args,argnums", CASES, ids=[c[0].__name__ for c in CASES])
def test_value_is_the_plain_call(f, args, argnums):
    value, _ = revsrc.value_and_grad(f, argnums=argnums)(*args)
    assert value == f(*args)


@pytest.mark.parametrize("f,args,argnums", CASES[:4] + CASES[5:],
                         ids=[c[0].__name__ for c in CASES[:4] + CASES[5:]])
def test_forward_mode_along_a_random_direction(f, args, argnums):
    nums = (argnums,) if isinstance(argnums, int) else argnums
    tangents = [RNG.normal(size=np.shape(a)) if i in nums else np.zeros(np.shape(a))
                for i, a in enumerate(args)]
    tangents = [t if np.ndim(a) else float(t) for t, a in zip(tangents, args)]
    float_args = [np.asarray(a, float) if np.ndim(a) else a for a in args]
    if f is histogram_by_bins:
        pytest.skip("an integer argument has no tangent")
    _, got = revsrc.jvp(f, tuple(float_args), tuple(tangents))
    eps = 1e-6
    plus = f(*[a + eps * t for a, t in zip(float_args, tangents)])
    minus = f(*[a - eps * t for a, t in zip(float_args, tangents)])
    assert got == pytest.approx((plus - minus) / (2 * eps), rel=1e-6, abs=1e-8)


def test_the_generated_code_writes_the_new_value_back():
    text = revsrc.source(revsrc.grad(masked_self_distance))
    assert "_inplace.fill_diagonal(d2, _inf, False)" in text
    assert "d2[...] = " in text


def add_at_argument(x):
    np.add.at(x, [0], 1.0)
    return np.sum(x)


def fill_diagonal_of_argument(K):
    np.fill_diagonal(K, 0.0)
    return np.sum(K)


@pytest.mark.parametrize("f", [add_at_argument, fill_diagonal_of_argument])
def test_writing_into_an_argument_is_refused(f):
    x = np.ones((2, 2))
    with pytest.raises(errors.MutatesArgument) as info:
        revsrc.grad(f)(x)
    assert info.value.code == "E403"
    assert info.value.lineno == f.__code__.co_firstlineno + 1
    assert np.array_equal(x, np.ones((2, 2)))      # nothing was changed


def add_at_missing_values(x):
    y = x * 1.0
    np.add.at(y, [0])
    return np.sum(y)


def add_at_into_an_item(x):
    y = [x * 1.0]
    np.add.at(y[0], [0], 1.0)
    return np.sum(y[0])


def test_a_call_revsrc_does_not_follow_is_refused():
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(add_at_missing_values)(np.ones(2))
    assert "indices, values" in str(info.value)
    with pytest.raises(errors.SideEffect) as info:
        revsrc.grad(add_at_into_an_item)(np.ones(2))
    assert info.value.code == "E401"


def flatten_then_write(x):
    y = x * 2.0
    z = y.flatten()
    z[0] = 10.0                  # a copy: y keeps its first element
    return np.sum(y * y) + np.sum(z)


def test_flatten_is_a_copy():
    x = np.ones((2, 2))
    value, g = revsrc.value_and_grad(flatten_then_write)(x)
    assert value == flatten_then_write(x)
    check_grads(flatten_then_write, (RNG.normal(size=(2, 3)),))
    assert g[0, 0] == 8.0        # 2 * y * 2 from the sum of squares, nothing from z


def scatter_then_fill(x, w):
    L = np.zeros((3, 3))
    i = np.array([0, 1, 1])
    np.add.at(L, (i, i), w * x)
    np.fill_diagonal(L, np.diagonal(L) + x ** 2)
    return np.sum(np.sin(L) * np.arange(9.0).reshape(3, 3))


def test_second_derivatives_through_the_in_place_functions():
    x, w = RNG.normal(size=3), RNG.normal(size=3)
    H = revsrc.hessian(scatter_then_fill)(x, w)
    g = revsrc.grad(scatter_then_fill)
    eps = 1e-5
    fd = np.array([(g(x + eps * e, w) - g(x - eps * e, w)) / (2 * eps) for e in np.eye(3)]).T
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-8)
    v = RNG.normal(size=3)
    _, hv = revsrc.jvp(g, (x, w), (v, np.zeros(3)))
    np.testing.assert_allclose(hv, H @ v, rtol=1e-10, atol=1e-12)
