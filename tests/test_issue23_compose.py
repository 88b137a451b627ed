"""Issue 23's last compositions, each by itself: reverse over reverse of an array
program, derivatives of a ``revsrc.jit`` taking arrays, Hessians with respect to
containers, recursion on a run-time int, and the refusals' wording.

Each is checked against central differences (revsrc.testing) or, where JAX is
installed, against JAX with x64.
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads

X = np.array([0.4, -0.7, 1.1])


def array_f(x):
    return np.sum(np.sin(x) * x * x) + x[0] * x[1] - np.tanh(x[2]) * x[1]


def _hessian_fd(f, x, h=1e-4):
    """Central differences of central differences: f's Hessian at the array x."""
    n = x.size
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            out[i, j] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej)
                         + f(x - ei - ej)) / (4 * h * h)
    return out


# ----- Reverse over reverse on arrays: the printed program kept two variables apart
# that renumbering temporaries had given one name (`_t12_bar`) -----

def test_vjp_and_jacrev_of_grad_of_an_array_program():
    want = _hessian_fd(array_f, X)
    got = revsrc.jacrev(revsrc.grad(array_f))(X)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    _, back = revsrc.vjp(revsrc.grad(array_f), X)
    np.testing.assert_allclose(back(np.ones(3))[0], want.sum(axis=0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got, revsrc.hessian(array_f)(X), rtol=1e-12, atol=1e-12)


# ----- Derivatives of a revsrc.jit of a function of arrays: the jit compiles scalar
# functions (it refuses arrays itself), its derivatives read the function -----

@pytest.mark.parametrize("make", [
    lambda f: revsrc.vjp(f, X)[1](1.0)[0],
    lambda f: revsrc.jacrev(f)(X),
    lambda f: revsrc.jacfwd(f)(X),
    lambda f: revsrc.jvp(f, (X,), (np.ones(3),))[1],
    lambda f: revsrc.linearize(f, X)[1](np.ones(3)),
    lambda f: revsrc.grad(f)(X),
])
def test_derivatives_of_a_jit_taking_arrays_are_those_of_the_function(make):
    np.testing.assert_array_equal(make(revsrc.jit(array_f)), make(array_f))
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jit(array_f)(X)
    assert info.value.code == "E502"


# ----- Hessians with respect to containers: blocks nested as JAX nests them (the
# output's container outside, the argument's inside) -----

W, B = np.array([0.3, -0.5]), np.array([1.2, 0.7])


def by_dict(p):
    return np.sum(p["w"] ** 2 * p["b"]) + np.sin(p["b"][0]) * p["w"][1] * np.sum(p["w"])


def by_seq(p):
    w, b = p
    return np.sum(w ** 2 * b) + np.sin(b[0]) * w[1] * np.sum(w)


def by_args(w, b):
    return np.sum(w ** 2 * b) + np.sin(b[0]) * w[1] * np.sum(w)


def by_scalars(p):
    return p["a"] ** 2 * p["b"] + math.sin(p["a"]) * p["c"][0]


def _blocks():
    """The Hessian of by_args in (w, b): the reference, by a separate path."""
    return revsrc.hessian(by_args, argnums=(0, 1))(W, B)


def test_hessian_of_a_dict_argument():
    h = revsrc.hessian(by_dict)({"w": W, "b": B})
    ref = _blocks()
    assert set(h) == {"w", "b"} and all(set(h[k]) == {"w", "b"} for k in h)
    for i, ki in enumerate("wb"):
        for j, kj in enumerate("wb"):
            np.testing.assert_allclose(h[ki][kj], ref[i][j], rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("seq", [tuple, list])
@pytest.mark.parametrize("how", ["hessian", "jacfwd", "jacrev"])
def test_hessian_of_a_tuple_or_list_argument(seq, how):
    outer = {"hessian": lambda f: revsrc.hessian(f),
             "jacfwd": lambda f: revsrc.jacfwd(revsrc.grad(f)),
             "jacrev": lambda f: revsrc.jacrev(revsrc.grad(f))}[how]
    h = outer(by_seq)(seq((W, B)))
    ref = _blocks()
    assert type(h) is seq and all(type(row) is seq for row in h)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(h[i][j], ref[i][j], rtol=1e-12, atol=1e-13)


def test_hessian_of_a_dict_of_floats_and_a_tuple():
    p = {"a": 0.3, "b": 0.8, "c": (1.5,)}
    h = revsrc.hessian(by_scalars)(p)
    assert h["a"]["a"] == pytest.approx(2 * 0.8 - math.sin(0.3) * 1.5, rel=1e-14)
    assert h["a"]["b"] == h["b"]["a"] == pytest.approx(0.6, rel=1e-14)
    assert h["c"][0]["a"] == pytest.approx(math.cos(0.3), rel=1e-14)
    assert h["b"]["b"] == 0.0 and h["c"][0]["c"] == (0.0,)


def test_container_hessians_against_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def by_dict_jax(p):
        return jnp.sum(p["w"] ** 2 * p["b"]) + jnp.sin(p["b"][0]) * p["w"][1] * jnp.sum(p["w"])
    p = {"w": W, "b": B}
    with jax.enable_x64(True):
        want = jax.hessian(by_dict_jax)(p)
    got = revsrc.hessian(by_dict)(p)
    la, ta = jax.tree_util.tree_flatten(got)
    lb, tb = jax.tree_util.tree_flatten(want)
    assert ta == tb
    for a, b in zip(la, lb):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_hessian_in_two_array_arguments_of_different_shapes():
    def f(x, y):
        return np.sum(np.outer(x, y) ** 2) + np.sin(x[0]) * y[2]
    x, y = np.array([0.3, 0.4]), np.array([1.0, 2.0, 3.0])
    h = revsrc.hessian(f, argnums=(0, 1))(x, y)
    assert [[b.shape for b in row] for row in h] == [[(2, 2), (2, 3)], [(3, 2), (3, 3)]]
    flat = lambda v: f(v[:2], v[2:])
    full = _hessian_fd(flat, np.concatenate([x, y]))
    np.testing.assert_allclose(np.block([[h[0][0], h[0][1]], [h[1][0], h[1][1]]]), full,
                               rtol=1e-6, atol=1e-6)


# ----- A gradient penalty with parameters in a dict (or a tuple): the derivative
# called inside the differentiated function is given the container's leaves -----

XB = np.array([[1.0, 2.0], [0.5, -1.0]])
PW = {"W": np.array([[0.1, -0.2], [0.3, 0.4]]), "b": np.array([0.05, -0.1])}


def net_loss(p, x):
    return np.sum(np.tanh(x @ p["W"] + p["b"]) ** 2)


d_net_loss = revsrc.grad(net_loss)


def penalized(p, x):
    g = d_net_loss(p, x)
    return net_loss(p, x) + 0.1 * (np.sum(g["W"] * g["W"]) + np.sum(g["b"] * g["b"]))


def seq_loss(p, x):
    W, b = p
    return np.sum(np.tanh(x @ W + b) ** 2)


d_seq_loss = revsrc.grad(seq_loss)


def seq_penalized(W, b, x):
    gW, gb = d_seq_loss((W, b), x)
    return seq_loss((W, b), x) + 0.1 * (np.sum(gW * gW) + np.sum(gb * gb))


def _fd_grad_leaf(f, leaf, h=1e-6):
    g = np.zeros_like(leaf)
    for k in range(leaf.size):
        e = np.zeros(leaf.size)
        e[k] = h
        e = e.reshape(leaf.shape)
        g.flat[k] = (f(leaf + e) - f(leaf - e)) / (2 * h)
    return g


def test_gradient_penalty_with_dict_parameters():
    got = revsrc.grad(penalized)(PW, XB)
    assert set(got) == {"W", "b"}
    for k in PW:
        def along(v, k=k):
            return penalized({**PW, k: v}, XB)
        np.testing.assert_allclose(got[k], _fd_grad_leaf(along, PW[k]), rtol=1e-6, atol=1e-8)


def test_gradient_penalty_with_a_tuple_built_at_the_call():
    gW, gb = revsrc.grad(seq_penalized, argnums=(0, 1))(PW["W"], PW["b"], XB)
    np.testing.assert_allclose(gW, _fd_grad_leaf(lambda v: seq_penalized(v, PW["b"], XB),
                                                 PW["W"]), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, _fd_grad_leaf(lambda v: seq_penalized(PW["W"], v, XB),
                                                 PW["b"]), rtol=1e-6, atol=1e-8)


# ----- Recursion on an int argument: unrolled for the value given, as a tracer would
# (tests/test_int_recursion.py has the rest); the same recursion with the int written
# in the function unrolls too -----

def legendre(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return ((2 * n - 1) * x * legendre(n - 1, x) - (n - 1) * legendre(n - 2, x)) / n


def legendre_4(x):
    return legendre(4, x)


def _d_legendre_4(x):     # P4 = (35 x^4 - 30 x^2 + 3) / 8
    return (140.0 * x ** 3 - 60.0 * x) / 8.0


@pytest.mark.parametrize("make,want", [
    (lambda: revsrc.grad(legendre, argnums=1)(4, 0.3), _d_legendre_4(0.3)),
    (lambda: revsrc.hessian(legendre, argnums=1)(4, 0.3), (420.0 * 0.09 - 60.0) / 8.0),
    (lambda: revsrc.jvp(legendre, (4, 0.3), (None, 1.0))[1], _d_legendre_4(0.3)),
    (lambda: revsrc.grad(__import__("functools").partial(legendre, 4))(0.3),
     _d_legendre_4(0.3)),
    (lambda: revsrc.grad(legendre_4)(0.3), _d_legendre_4(0.3)),
])
def test_recursion_on_a_run_time_int_is_unrolled_for_its_value(make, want):
    assert make() == pytest.approx(want, rel=1e-12)


# ----- Refusals say what the user wrote, never revsrc's internal helpers -----

def with_prod(x):
    return np.prod(x) * np.sum(x)


def builds_a_list(x):
    ys = [x, 2.0 * x]
    return ys[0] * ys[1]


def _first_line(exc):
    return str(exc).split("\n")[0]


def test_a_second_derivative_through_a_helper_names_the_numpy_function():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.hessian(with_prod)(X)
    assert info.value.code == "E104"
    line = _first_line(info.value)
    assert "the derivative of np.prod" in line and "revsrc." not in line
    assert "prod_grad" not in str(info.value)


def test_jit_of_a_list_built_in_the_function_says_so():
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jit(builds_a_list)(0.3)
    assert info.value.code == "E502"
    line = _first_line(info.value)
    assert "a list built in the function" in line and "revsrc.core" not in line


def test_helpers_are_described_by_what_the_user_wrote():
    from revsrc import runtime
    from revsrc.core import ir
    from revsrc.runtime import containers
    from revsrc.runtime.grads import reductions
    assert runtime.described(reductions.prod_grad) == "the derivative of np.prod"
    assert "list or dict" in runtime.described(containers.value_grad)
    assert runtime.described(ir.make_list) == "a list built in the function"
    assert runtime.described(np.sin) == "numpy.sin"
    from revsrc.runtime.grads import mathfuncs, scipy_linalg
    assert runtime.described(scipy_linalg.cho_solve_grads) == \
        "the derivative of scipy.linalg.cho_solve"
    assert runtime.described(mathfuncs.fsum_grad) == "the derivative of math.fsum"
    for fn in (reductions.prod_grad, containers.value_grad, ir.make_list, ir.make_dict):
        assert "revsrc" not in runtime.described(fn) and "_grad" not in runtime.described(fn)


# ----- backend="jax": reverse over reverse through a branch on a traced value -----

def branchy(x):
    s = 0.0
    for i in range(3):
        if x[i] > 0.0:
            s = s + x[i] ** 2
        else:
            s = s - np.sin(x[i])
    return s


def test_jax_reverse_over_reverse_through_a_traced_branch_is_refused_with_a_code():
    pytest.importorskip("jax")
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jacrev(revsrc.grad(branchy, backend="jax"), backend="jax")(X)
    assert info.value.code == "E602"
    assert info.value.lineno == branchy.__code__.co_firstlineno + 3
    assert "revsrc.hessian" in info.value.hint
    # what the hint says: forward over reverse, on the JAX back end too
    want = np.diag([2.0, np.sin(-0.7), 2.0])   # (-sin x)'' = sin x
    np.testing.assert_allclose(revsrc.hessian(branchy, backend="jax")(X), want, rtol=1e-14)
    np.testing.assert_allclose(revsrc.hessian(branchy)(X), want, rtol=1e-14)


# ----- backend="jax" lowerings of last session's rules: the same numbers as NumPy's
# path (SciPy's solves and expm, math.lgamma and math.gamma) -----

A3 = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def _scipy_linalg():
    return pytest.importorskip("scipy.linalg")


def by_cho(x):
    import scipy.linalg as sl
    c = sl.cho_factor(A3 + np.outer(x, x), lower=True)
    return np.sum(sl.cho_solve(c, x) * x)


def by_lu(x):
    import scipy.linalg as sl
    lu = sl.lu_factor(A3 + np.diag(x))
    return np.sum(sl.lu_solve(lu, x, trans=1) * x)


def by_triangular(x):
    import scipy.linalg as sl
    return np.sum(sl.solve_triangular(A3 + np.outer(x, x), x, lower=False, trans=1) ** 2)


def by_expm(x):
    import scipy.linalg as sl
    return np.sum(sl.expm(A3 * x[0] * 0.3) @ x)


def by_ndtr(x):
    import scipy.special as ss
    return np.sum(ss.ndtr(x) * x + ss.log_ndtr(x) + ss.ndtri(0.5 + 0.3 * np.tanh(x)))


def by_gamma(x):
    return math.lgamma(x * x + 0.5) - math.gamma(-0.5 + 0.1 * x) + math.gamma(x) * x


@pytest.mark.parametrize("f", [by_cho, by_lu, by_triangular, by_expm, by_ndtr])
def test_jax_lowerings_of_scipy_rules_agree_with_numpy(f):
    pytest.importorskip("jax")
    _scipy_linalg()
    want = revsrc.grad(f)(X)
    np.testing.assert_allclose(np.asarray(revsrc.grad(f, backend="jax")(X)), want,
                               rtol=1e-12, atol=1e-14)
    h = 1e-6
    fd_ = np.array([(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(want, fd_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("x", [0.3, 1.7, 4.2])
def test_jax_lowering_of_math_gamma_functions(x):
    pytest.importorskip("jax")
    v, g = revsrc.value_and_grad(by_gamma, backend="jax")(x)
    assert float(v) == pytest.approx(by_gamma(x), rel=1e-13)
    assert float(g) == pytest.approx(revsrc.grad(by_gamma)(x), rel=1e-13)
    assert revsrc.grad(by_gamma)(x) == pytest.approx(
        (by_gamma(x + 1e-6) - by_gamma(x - 1e-6)) / 2e-6, rel=1e-7)


def by_quantiles(x, q):
    return np.quantile(x, q) ** 2 + np.sum(np.percentile(x, [10.0, 90.0])) * q


def by_nan_quantiles(m):
    return np.sum(np.nanquantile(m, [0.2, 0.7], axis=1, keepdims=True) ** 2)


def test_quantiles_lower_under_jax_with_the_numpy_paths_numbers():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = np.array([0.3, 1.2, -0.5, 2.0, 0.7])
    for q in (0.3, 0.0, 1.0, 0.75):
        want = revsrc.grad(by_quantiles, argnums=(0, 1), backend="python")(x, q)
        got = revsrc.grad(by_quantiles, argnums=(0, 1), backend="jax")(x, q)
        for w, g in zip(want, got):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-13, atol=1e-15)
        # no ties: JAX's own quantile gradient is the same
        jx = jax.grad(lambda v: jnp.quantile(v, q) ** 2 +
                      jnp.sum(jnp.percentile(v, jnp.array([10.0, 90.0]))) * q)(x)
        np.testing.assert_allclose(got[0], jx, rtol=1e-12, atol=1e-14)
    m = np.array([[0.3, 1.2, np.nan, 2.0], [0.7, 0.7, 0.1, -1.0]])
    np.testing.assert_allclose(revsrc.grad(by_nan_quantiles, backend="jax")(m),
                               revsrc.grad(by_nan_quantiles)(m), rtol=1e-13)
    m[1, 1] = 0.4       # away from the tie (where it has no derivative)
    check_grads(by_nan_quantiles, (m,))


# ----- jit of a function calling a second derivative: the adjoint's sum back to an
# input's shape is, on numbers, a copy, which the engine runs -----

def _cubic_sine(x):
    return np.sin(x) * x ** 3


_d2_cubic_sine = revsrc.grad(revsrc.grad(_cubic_sine))


def twice_the_curvature(x):
    return _d2_cubic_sine(x) * 2.0


def test_jit_of_a_function_calling_a_second_derivative():
    j = revsrc.jit(twice_the_curvature)
    for x in (0.4, -1.3, 2.0):
        s, c = math.sin(x), math.cos(x)
        want = 2.0 * (-s * x ** 3 + 6.0 * c * x ** 2 + 6.0 * s * x)
        assert j(x) == pytest.approx(want, rel=1e-13)
        assert j(x) == pytest.approx(twice_the_curvature(x), rel=1e-15)


# ----- Second derivatives of math's gamma functions: digamma on a float has a rule of
# its own (trigamma) -----

def gamma_mix(x):
    return math.lgamma(x) + 0.1 * math.gamma(x)


@pytest.mark.parametrize("x", [0.3, 2.3, 12.5, -1.7])
def test_hessian_of_math_gamma_functions(x):
    sp = pytest.importorskip("scipy.special")
    from revsrc.runtime.grads import mathfuncs
    assert mathfuncs.trigamma(x) == pytest.approx(float(sp.polygamma(1, x)), rel=1e-14)
    psi, psi1, gam = sp.digamma(x), sp.polygamma(1, x), sp.gamma(x)
    want = psi1 + 0.1 * gam * (psi ** 2 + psi1)
    assert revsrc.hessian(gamma_mix)(x) == pytest.approx(want, rel=1e-13)
    assert revsrc.grad(revsrc.grad(gamma_mix))(x) == pytest.approx(want, rel=1e-13)
    d = revsrc.grad(gamma_mix)
    assert revsrc.hessian(gamma_mix)(x) == pytest.approx(
        (d(x + 1e-6) - d(x - 1e-6)) / 2e-6, rel=1e-6)


def test_hessian_of_math_gamma_functions_under_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    want = jax.hessian(lambda x: jax.lax.lgamma(x) + 0.1 * jax.scipy.special.gamma(x))(2.3)
    assert float(revsrc.hessian(gamma_mix, backend="jax")(2.3)) == pytest.approx(
        float(want), rel=1e-12)
    assert revsrc.hessian(gamma_mix)(2.3) == pytest.approx(float(want), rel=1e-12)


# ----- Third derivatives through np.mean: its adjoint's transpose (reverse over
# reverse) is linear in its cotangent, and has a transpose of its own -----

def _pairwise_mean(x):
    return np.sum((x[:, None] - x[None, :]) ** 2 * 0.5) + np.sum(x * np.mean(x)) + \
        np.mean(np.sin(x) * x)


_d_pairwise_mean = revsrc.grad(_pairwise_mean)


def gradient_penalty_mean(x):
    return np.sum(_d_pairwise_mean(x) ** 2)


def test_third_derivatives_through_mean():
    x = np.array([0.4, -0.7, 1.1])
    h = revsrc.hessian(gradient_penalty_mean)(x)
    h_rev = revsrc.jacrev(revsrc.grad(gradient_penalty_mean))(x)
    d = revsrc.grad(gradient_penalty_mean)
    fd = np.stack([(d(x + e) - d(x - e)) / 2e-6 for e in np.eye(3) * 1e-6], axis=-1)
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(h_rev, h, rtol=1e-12, atol=1e-12)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def f_jax(v):
        return jnp.sum((v[:, None] - v[None, :]) ** 2 * 0.5) + jnp.sum(v * jnp.mean(v)) + \
            jnp.mean(jnp.sin(v) * v)
    want = jax.hessian(lambda v: jnp.sum(jax.grad(f_jax)(v) ** 2))(x)
    np.testing.assert_allclose(h, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h_rev, want, rtol=1e-12, atol=1e-12)
