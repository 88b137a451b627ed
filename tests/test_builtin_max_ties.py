"""builtin max/min of three or more items at a tie (issue 22, W2): the derivative is
split equally among all the tied items (1/n each), as the two-argument rule splits it
in halves and as np.max and JAX's jnp.max do, in reverse and forward mode, on the
engine, under jit, for items written out, a list written out, a list argument and a
sequence known only at run time. Away from ties, central differences."""
import itertools
import math

import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def max3(a, b, c):
    return max(a, b, c)


def min3(a, b, c):
    return min(a, b, c)


def max5(a, b, c, d, e):
    return max(a, b, c, d, e)


def min5(a, b, c, d, e):
    return min(a, b, c, d, e)


def max_plus_min(a, b, c, d):
    return 2.0 * max(a, b, c, d) + min(d, c, b, a)


def max_of_squares(a, b, c):
    return max(a * a, b * b, c * c) * (a + 2.0 * b)


def max_with_constant(a, b, c):
    return max(a, 1.0, b, c)     # the constant takes its share of a tie too, as in JAX


def jmax(*xs):
    return jnp.max(jnp.stack(xs))


def jmin(*xs):
    return jnp.min(jnp.stack(xs))


CASES = {      # revsrc's function, JAX's, the number of arguments
    "max3": (max3, jmax, 3),
    "min3": (min3, jmin, 3),
    "max5": (max5, jmax, 5),
    "min5": (min5, jmin, 5),
    "max_plus_min": (max_plus_min, lambda a, b, c, d: 2.0 * jmax(a, b, c, d) + jmin(a, b, c, d), 4),
    "max_of_squares": (max_of_squares, lambda a, b, c: jmax(a * a, b * b, c * c) * (a + 2.0 * b), 3),
    "max_with_constant": (max_with_constant, lambda a, b, c: jmax(a, jnp.float64(1.0), b, c), 3),
}

# tie patterns: every item tied, some of them (first, last, scattered), a tie that a
# later item passes, a tie below the extreme, none
POINTS = [(1.0, 1.0, 1.0, 1.0, 1.0), (2.0, 1.0, 2.0, 1.0, 2.0), (1.0, 2.0, 2.0, 1.0, 2.0),
          (2.0, 2.0, 3.0, 3.0, 0.5), (3.0, 1.0, 1.0, -2.0, 1.0), (-1.0, -1.0, -1.0, 0.5, 0.5),
          (0.3, -1.2, 2.5, 0.7, -0.4)]


def _args(point, n):
    return tuple(point[:n])


@pytest.mark.parametrize("point", POINTS, ids=[str(p) for p in POINTS])
@pytest.mark.parametrize("name", list(CASES))
def test_gradient_matches_jax(name, point):
    f, fj, n = CASES[name]
    args = _args(point, n)
    argnums = tuple(range(n))
    got = revsrc.grad(f, argnums=argnums)(*args)
    want = jax.grad(fj, argnums=argnums)(*[jnp.float64(a) for a in args])
    np.testing.assert_allclose(got, [float(w) for w in want], rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("point", POINTS, ids=[str(p) for p in POINTS])
@pytest.mark.parametrize("name", list(CASES))
def test_engine_forward_mode_and_jit_agree(name, point):
    f, _, n = CASES[name]
    args = _args(point, n)
    argnums = tuple(range(n))
    g = revsrc.grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(revsrc.grad(f, argnums=argnums, backend="engine")(*args), g,
                               rtol=1e-15)
    np.testing.assert_allclose(revsrc.jit(revsrc.grad(f, argnums=argnums))(*args), g,
                               rtol=1e-15)
    np.testing.assert_allclose(revsrc.jacfwd(f, argnums=argnums)(*args), g, rtol=1e-14)
    t = tuple(0.5 - 0.25 * i for i in range(n))
    value, tangent = revsrc.jvp(f, args, t)
    assert value == f(*args)
    assert tangent == pytest.approx(sum(gi * ti for gi, ti in zip(g, t)), rel=1e-14, abs=1e-15)


def test_away_from_ties_central_differences():
    rng = np.random.default_rng(22)
    for name, (f, _, n) in CASES.items():
        args = tuple(float(v) for v in rng.normal(size=n))
        check_grads(f, args, argnums=tuple(range(n)))


def test_every_order_of_a_three_way_tie_among_four():
    # whichever places hold the tie, each tied item gets 1/3 and the other none
    for low in range(4):
        args = [2.0] * 4
        args[low] = 1.0
        g = revsrc.grad(lambda a, b, c, d: max(a, b, c, d), argnums=(0, 1, 2, 3))(*args)
        want = [0.0 if i == low else 1.0 / 3.0 for i in range(4)]
        np.testing.assert_allclose(g, want, rtol=1e-15)
        g = revsrc.grad(lambda a, b, c, d: min(a, b, c, d), argnums=(0, 1, 2, 3))(*[-a for a in args])
        np.testing.assert_allclose(g, want, rtol=1e-15)


def list_written_out(v):
    return max([v[0], v[1], v[2], v[3]]) + min((v[3], v[2], v[1]))


def list_argument(xs):
    return max(xs) * 2.0 + min(xs)


def array_iterated(v):
    return max(v) + 3.0 * min(v)      # a sequence known only at run time


def list_built_in_a_loop(v):
    xs = []
    for i in range(4):
        xs.append(v[i] * 1.0)
    return max(xs) - min(xs[1:])


def starred(v):
    xs = (v[0], v[1], v[2], v[3])
    return max(*xs)


def jax_of(f):
    def fj(v):
        return {"list_written_out": jmax(v[0], v[1], v[2], v[3]) + jmin(v[3], v[2], v[1]),
                "array_iterated": jnp.max(v) + 3.0 * jnp.min(v),
                "list_built_in_a_loop": jnp.max(v) - jnp.min(v[1:]),
                "starred": jnp.max(v)}[f.__name__]
    return fj


SEQUENCES = [list_written_out, array_iterated, list_built_in_a_loop, starred]
SEQ_POINTS = [np.ones(4), np.array([2.0, 1.0, 2.0, 2.0]), np.array([1.0, 3.0, 1.0, 3.0]),
              np.array([0.4, -1.3, 2.2, 0.9])]


@pytest.mark.parametrize("v", SEQ_POINTS, ids=[str(list(p)) for p in SEQ_POINTS])
@pytest.mark.parametrize("f", SEQUENCES, ids=[f.__name__ for f in SEQUENCES])
def test_sequences_match_jax(f, v):
    got = revsrc.grad(f)(v)
    np.testing.assert_allclose(got, jax.grad(jax_of(f))(jnp.asarray(v)), rtol=1e-14,
                               atol=1e-15)
    np.testing.assert_allclose(revsrc.jacfwd(f)(v), got, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("xs", [[1.0, 1.0, 1.0], [2.0, 1.0, 2.0, 2.0], [0.5, -0.1, 0.7]])
def test_list_argument_matches_jax(xs):
    got = revsrc.grad(list_argument)(xs)
    want = jax.grad(lambda v: 2.0 * jnp.max(v) + jnp.min(v))(jnp.asarray(xs))
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(revsrc.grad(list_argument, backend="engine")(xs), got,
                               rtol=1e-15)


def test_hessian_at_a_tie_matches_jax():
    def f(v):
        return max(v[0] ** 2, v[1] ** 2, v[2] ** 2) + v[0] * min(v[0], v[1], v[2])

    def fj(v):
        return jnp.max(v ** 2) + v[0] * jnp.min(v)

    for v in (np.ones(3), np.array([1.0, -1.0, 1.0]), np.array([0.3, 0.8, -0.5])):
        np.testing.assert_allclose(revsrc.hessian(f)(v), jax.hessian(fj)(jnp.asarray(v)),
                                   rtol=1e-13, atol=1e-14)


def test_nan_follows_the_item_python_returns():
    nan = math.nan
    # max keeps its first item when a NaN is compared: a NaN first is returned, a
    # NaN later is passed over; the tied items that are returned share the derivative
    g = revsrc.grad(max3, argnums=(0, 1, 2))(nan, 1.0, 1.0)
    assert g == (1.0, 0.0, 0.0)
    g = revsrc.grad(max3, argnums=(0, 1, 2))(1.0, nan, 1.0)
    assert g == (0.5, 0.0, 0.5)
    assert revsrc.grad(max3, argnums=(0, 1, 2), backend="engine")(1.0, nan, 1.0) == g
    assert revsrc.grad(array_iterated)(np.array([1.0, nan, 1.0, 0.0])).tolist() == [0.5, 0.0, 0.5, 3.0]


@pytest.mark.parametrize("args", list(itertools.product([3, 2.0, 3.0, True], repeat=3)))
def test_value_and_type_are_pythons(args):
    # max/min give the item they select, with its type (max(3, 3.0, 2) is the int 3)
    for f in (max3, min3):
        got = revsrc.jit(f)(*args)
        assert got == f(*args) and type(got) is type(f(*args))
    value, _ = revsrc.value_and_grad(lambda a, b, c: max(a, b, c) * 1.0, argnums=2)(
        args[0], args[1], 1.5)
    assert value == max(args[0], args[1], 1.5) * 1.0
