"""Issue 22, task rules22: code users write gives the true value or a coded refusal.

- ``raise`` and ``assert cond, "msg"`` under revsrc.jit and revsrc.vmap: the function
  runs; where the plain call raises, the user's exception (type and message) is
  raised, for each element under vmap (the engine hands the call to Python there).
- ``round(x, ndigits)`` under jit: Python's correctly rounded decimal, with Python's
  type; max/min of an int and a float give the winner with its own type.
- ``np.add.outer``, ``np.subtract.outer``, ``np.multiply.outer``: reverse, forward and
  second order, against JAX and central differences.
- NumPy's keywords: ``np.reshape(copy=)``, ``np.sum(where=, initial=)``,
  ``np.mean(where=)``, ``np.var(mean=)``, ``np.max``/``np.min(initial=, where=)``.
- Second order through ``np.diff``; ``np.linalg.lstsq`` at a constant rank-deficient
  matrix, differentiated in b alone; ``jacfwd(vmap(f))`` refused with E104.

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


# ----- 3. ufunc.outer -----

def outers(x, y):
    return np.sum(np.subtract.outer(x, y) ** 2 * np.multiply.outer(x, y)) \
        + np.sum(np.sin(np.add.outer(x, y)))


def outers_jax(x, y):
    return jnp.sum(jnp.subtract.outer(x, y) ** 2 * jnp.multiply.outer(x, y)) \
        + jnp.sum(jnp.sin(jnp.add.outer(x, y)))


def outers_nd(s, m):
    return np.sum(np.cos(np.multiply.outer(s, m)) * np.subtract.outer(s, m)) \
        + np.sum(np.add.outer(m, m[0]) ** 3)


def outers_nd_jax(s, m):
    return jnp.sum(jnp.cos(jnp.multiply.outer(s, m)) * jnp.subtract.outer(s, m)) \
        + jnp.sum(jnp.add.outer(m, m[0]) ** 3)


X = np.array([0.3, -1.2, 2.0])
Y = np.array([0.5, 1.5])
S = np.array([0.7, -0.4])
M = np.array([[0.1, 0.4, -0.3], [0.9, -0.2, 0.5]])


@pytest.mark.parametrize("f,fj,args", [(outers, outers_jax, (X, Y)),
                                       (outers_nd, outers_nd_jax, (S, M)),
                                       (outers_nd, outers_nd_jax, (0.7, M))])
def test_outer_gradients_against_jax_and_differences(f, fj, args):
    check_grads(f, args, argnums=(0, 1))
    got = revsrc.grad(f, argnums=(0, 1))(*args)
    want = jax.grad(fj, argnums=(0, 1))(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f,fj,args", [(outers, outers_jax, (X, Y)),
                                       (outers_nd, outers_nd_jax, (S, M))])
def test_outer_forward_mode(f, fj, args):
    check_jvp(f, args)
    tangents = tuple(np.cos(np.arange(np.size(a)) + 1.0).reshape(np.shape(a)) for a in args)
    got = revsrc.jvp(f, args, tangents)
    want = jax.jvp(fj, args, tangents)
    np.testing.assert_allclose(got[1], float(want[1]), rtol=1e-12)


@pytest.mark.parametrize("f,fj,args", [(outers, outers_jax, (X, Y)),
                                       (outers_nd, outers_nd_jax, (S, M))])
def test_outer_second_order(f, fj, args):
    for i in (0, 1):
        want = np.asarray(jax.hessian(fj, argnums=i)(*args))
        np.testing.assert_allclose(revsrc.hessian(f, argnums=i)(*args), want,
                                   rtol=1e-10, atol=1e-10)
        jr = revsrc.jacrev(revsrc.grad(f, argnums=i), argnums=i)(*args)
        np.testing.assert_allclose(jr, want, rtol=1e-10, atol=1e-10)


def test_outer_on_the_jax_backend():
    got = revsrc.grad(outers, argnums=(0, 1), backend="jax")(X, Y)
    want = jax.grad(outers_jax, argnums=(0, 1))(X, Y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)


def gp_kernel(theta, x):
    ell, sf = np.exp(theta)
    K = sf ** 2 * np.exp(-0.5 * np.subtract.outer(x, x) ** 2 / ell ** 2) + 0.1 * np.eye(x.size)
    return np.linalg.slogdet(K)[1]


def test_outer_of_a_constant_in_a_gp_likelihood_forward_and_reverse():
    theta, x = np.array([0.2, -0.3]), np.array([0.0, 0.4, 1.1, 1.9])
    check_grads(gp_kernel, (theta, x), argnums=(0, 1))
    check_jvp(gp_kernel, (theta, x), argnums=(0,))


# ----- 4. NumPy keyword variants -----

XK = np.array([0.3, -1.2, 2.0, 0.8, -0.4, 1.5])
MK = np.array([[-2.0, -1.0, 0.5], [1.0, 2.0, 3.0]])
MASK = np.array([[True, False, True], [True, True, False]])
WCOL = np.array([1.0, 2.0, 3.0])


def reshape_copy(x):
    return np.sum(np.reshape(x, (3, 2), copy=True) ** 2 * np.arange(6.0).reshape(3, 2))


def reshape_copy_jax(x):
    return jnp.sum(jnp.reshape(x, (3, 2)) ** 2 * jnp.arange(6.0).reshape(3, 2))


def sum_where(x):
    return np.sum(x ** 2, where=x > 0)


def sum_where_jax(x):
    return jnp.sum(x ** 2, where=x > 0)


def sum_axis_where_initial(m, c):
    return np.sum(np.sum(np.sin(m), axis=0, initial=c, where=MASK) * WCOL)


def sum_axis_where_initial_jax(m, c):
    return jnp.sum(jnp.sum(jnp.sin(m), axis=0, initial=c, where=MASK) * WCOL)


def sum_initial(x):
    return np.sum(x ** 2, initial=5.0)


def mean_where(x):
    return np.mean(x ** 2, where=x < 1.0)


def mean_where_jax(x):
    return jnp.mean(x ** 2, where=x < 1.0)


def mean_axis_where(m):
    return np.sum(np.mean(m ** 3, axis=0, where=MASK, keepdims=True) * WCOL)


def mean_axis_where_jax(m):
    return jnp.sum(jnp.mean(m ** 3, axis=0, where=MASK, keepdims=True) * WCOL)


@pytest.mark.parametrize("f,fj,args", [
    (reshape_copy, reshape_copy_jax, (XK,)), (sum_where, sum_where_jax, (XK,)),
    (sum_axis_where_initial, sum_axis_where_initial_jax, (MK, 0.5)),
    (mean_where, mean_where_jax, (XK,)), (mean_axis_where, mean_axis_where_jax, (MK,)),
])
def test_keyword_variants_against_jax_and_differences(f, fj, args):
    argnums = tuple(range(len(args)))
    check_grads(f, args, argnums=argnums)
    check_jvp(f, args)
    got = revsrc.grad(f, argnums=argnums)(*args)
    want = jax.grad(fj, argnums=argnums)(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-14)
    h = revsrc.hessian(f)(*args)
    np.testing.assert_allclose(h, np.asarray(jax.hessian(fj)(*args)), rtol=1e-10, atol=1e-12)


def test_sum_initial_adds_no_tangent():
    # (forward mode applied np.sum's initial to the tangent: 7.2 where the truth is 2.2)
    x = np.array([0.3, -1.2, 2.0])
    value, tangent = revsrc.jvp(sum_initial, (x,), (np.ones(3),))
    assert value == sum_initial(x)
    np.testing.assert_allclose(tangent, 2 * np.sum(x), rtol=1e-14)
    np.testing.assert_allclose(revsrc.grad(sum_initial)(x), 2 * x, rtol=1e-14)


def test_mean_without_where_inlines_as_before():
    def plain_mean(x):
        return np.mean(x * x)
    text = revsrc.source(revsrc.grad(plain_mean, backend="python"), XK)
    assert "mean_where" not in text and "mean_grad" in text


def max_where_initial(x):
    return np.max(x * 2.0, initial=-10.0, where=x > 0)


def var_given_mean(x):
    mu = np.mean(x)
    return np.var(x, mean=mu) + mu


def var_given_mean_jax(x):
    return jnp.var(x) + jnp.mean(x)


def var_axis_mean(m, mu):
    return np.sum(np.var(m, axis=0, mean=mu, keepdims=True, ddof=1) * WCOL)


def var_plain(x):
    return np.var(x * x, ddof=1)


def test_var_with_its_mean_given():
    check_grads(var_given_mean, (XK,))
    check_jvp(var_given_mean, (XK,))
    np.testing.assert_allclose(revsrc.grad(var_given_mean)(XK),
                               np.asarray(jax.grad(var_given_mean_jax)(XK)), rtol=1e-12)
    mu = np.array([[0.1, -0.2, 0.4]])     # not the mean: the mean's own derivative counts
    check_grads(var_axis_mean, (MK, mu), argnums=(0, 1))
    check_jvp(var_axis_mean, (MK, mu))


def test_var_without_mean_inlines_as_before():
    text = revsrc.source(revsrc.grad(var_plain, backend="python"), XK)
    assert "var_mean" not in text and "var_grad" in text


def max_where_initial_jax(x):
    return jnp.max(x * 2.0, initial=-10.0, where=x > 0)


def min_axis_where_initial(m, c):
    return np.sum(np.min(np.sin(m), axis=0, initial=c, where=MASK) * WCOL)


def min_axis_where_initial_jax(m, c):
    return jnp.sum(jnp.min(jnp.sin(m), axis=0, initial=c, where=MASK) * WCOL)


def max_initial(x):
    return np.max(x * x, initial=3.0)


def max_plain(x):
    return np.max(x * x)


@pytest.mark.parametrize("f,fj,args", [
    (max_where_initial, max_where_initial_jax, (XK,)),
    (min_axis_where_initial, min_axis_where_initial_jax, (MK, 0.2)),
    (min_axis_where_initial, min_axis_where_initial_jax, (MK, -0.5)),
])
def test_max_and_min_with_initial_and_where(f, fj, args):
    argnums = tuple(range(len(args)))
    check_grads(f, args, argnums=argnums)
    check_jvp(f, args)
    got = revsrc.grad(f, argnums=argnums)(*args)
    want = jax.grad(fj, argnums=argnums)(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-14)
    tangents = tuple(np.cos(np.arange(np.size(a)) + 1.0).reshape(np.shape(a)) for a in args)
    np.testing.assert_allclose(revsrc.jvp(f, args, tangents)[1],
                               float(jax.jvp(fj, args, tangents)[1]), rtol=1e-12)


def test_max_with_initial_alone():
    np.testing.assert_array_equal(revsrc.grad(max_initial)(XK), 2 * XK * (XK == 2.0))
    np.testing.assert_array_equal(revsrc.grad(max_initial)(XK * 0.1), np.zeros(6))
    text = revsrc.source(revsrc.grad(max_plain, backend="python"), XK)
    assert "extremum_where" not in text and "extremum_grad" in text


# ----- 5. np.diff twice, lstsq in b alone, jacfwd of vmap -----

def spring_chain(x, k=10.0, rest=1.0):
    d = np.diff(x)
    return 0.5 * k * np.sum((d - rest) ** 2) + 0.1 * np.sum(x ** 4)


def spring_chain_jax(x, k=10.0, rest=1.0):
    d = jnp.diff(x)
    return 0.5 * k * jnp.sum((d - rest) ** 2) + 0.1 * jnp.sum(x ** 4)


def diff_options(m):
    d = np.diff(np.sin(m), n=2, axis=0, prepend=0.5, append=m[:1] * 2.0)
    return np.sum(d ** 3)


def diff_options_jax(m):
    d = jnp.diff(jnp.sin(m), n=2, axis=0, prepend=0.5, append=m[:1] * 2.0)
    return jnp.sum(d ** 3)


XCH = np.array([0.0, 1.1, 1.9, 3.2, 4.0])
MD = np.array([[0.2, -0.5], [1.1, 0.3], [0.7, 2.0], [-0.4, 0.9]])


@pytest.mark.parametrize("f,fj,x", [(spring_chain, spring_chain_jax, XCH),
                                    (diff_options, diff_options_jax, MD)])
def test_second_order_through_diff(f, fj, x):
    want = np.asarray(jax.hessian(fj)(x))
    np.testing.assert_allclose(revsrc.hessian(f)(x), want, rtol=1e-10, atol=1e-10)
    rr = revsrc.jacrev(revsrc.grad(f))(x)          # reverse over reverse
    np.testing.assert_allclose(rr, want, rtol=1e-10, atol=1e-10)
    v = np.cos(np.arange(x.size) + 0.5).reshape(x.shape)
    np.testing.assert_allclose(revsrc.hvp(f, (x,), (v,)),
                               np.asarray(jax.jvp(jax.grad(fj), (x,), (v,))[1]),
                               rtol=1e-10, atol=1e-10)


def test_hessian_of_spring_chain_with_keyword():
    want = np.asarray(jax.hessian(lambda x: spring_chain_jax(x, k=5.0))(XCH))
    np.testing.assert_allclose(revsrc.hessian(spring_chain)(XCH, k=5.0), want, rtol=1e-12)


A_RANK1 = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])


def lstsq_rhs(b):
    c, *_ = np.linalg.lstsq(A_RANK1, b, rcond=None)
    return np.sum(c * np.array([1.0, -3.0]))


def lstsq_rhs_matrix(b):
    c, *_ = np.linalg.lstsq(A_RANK1, b, rcond=None)
    return np.sum(np.sin(c))


def lstsq_both(a, b):
    c, *_ = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(c)


@pytest.mark.parametrize("f,b", [(lstsq_rhs, np.array([1.0, 0.5, 2.0])),
                                 (lstsq_rhs_matrix, np.array([[1.0, 0.2], [0.5, -1.0], [2.0, 0.3]]))])
def test_lstsq_rank_deficient_matrix_differentiated_in_b(f, b):
    check_grads(f, (b,))
    P = np.linalg.pinv(A_RANK1)
    if f is lstsq_rhs:
        np.testing.assert_allclose(revsrc.grad(f)(b), P.T @ np.array([1.0, -3.0]), rtol=1e-12)
    check_jvp(f, (b,))


def test_lstsq_rank_deficient_matrix_differentiated_in_the_matrix_is_refused():
    with pytest.raises(revsrc.errors.RevsrcError) as info:
        revsrc.grad(lstsq_both)(A_RANK1, np.array([1.0, 0.5, 2.0]))
    assert info.value.code == "E304"
    # full rank: both, against differences
    a = np.array([[1.0, 2.0], [2.0, 4.5], [3.0, 6.0]])
    check_grads(lstsq_both, (a, np.array([1.0, 0.5, 2.0])), argnums=(0, 1))


def sin_times_scalar(x):
    return math.sin(x) * x


def test_jacfwd_of_vmap_is_the_diagonal_of_the_mapped_derivative():
    # (E104 before; a transformation of a mapped function is that of a call of it)
    x = np.array([0.3, 0.5])
    np.testing.assert_allclose(revsrc.jacfwd(revsrc.vmap(sin_times_scalar))(x),
                               np.diag(np.cos(x) * x + np.sin(x)), rtol=1e-14)
    # the rewrite the old refusal's hint gave agrees
    np.testing.assert_allclose(np.diag(revsrc.vmap(revsrc.grad(sin_times_scalar))(x)),
                               np.diag(np.cos(x) * x + np.sin(x)), rtol=1e-14)
