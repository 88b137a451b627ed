"""Held-out-style user programs for issue 23's last constructs, in the style of
user_programs4.py (its Case, classify and checks): reverse over reverse on arrays,
derivatives of a revsrc.jit taking arrays, Hessians in dict, tuple and list
parameters and in two arrays of different shapes, gradient penalties with dict
parameters, third derivatives through broadcasting, recursion on a run-time int,
refusals worded by what the user wrote, and backend="jax" reverse over reverse
through a traced branch. Each is checked against central differences (or JAX).
"""
import math

import numpy as np

import revsrc
from user_programs4 import _jax, close, fd, fd_jac

CASES = []


def custom(name, family, **kw):
    from user_programs4 import Case

    def deco(check):
        CASES.append(Case(name, family, check=check, **kw))
        return check
    return deco


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def energy(q):
    r = q[1:] - q[:-1]
    return np.sum(0.5 * r ** 2 + 0.1 * r ** 4) + np.sum(np.cos(q))


X4 = np.array([0.3, -0.2, 0.9, 1.4])


@custom("i23_jacrev_of_grad_rosenbrock", "compose23")
def _c1():
    H = revsrc.jacrev(revsrc.grad(rosen))(X4)
    close(H, fd_jac(revsrc.grad(rosen), X4), rtol=1e-6, atol=1e-6)
    close(H, revsrc.hessian(rosen)(X4), rtol=1e-12, atol=1e-10)


@custom("i23_vjp_of_grad_chain_energy", "compose23")
def _c2():
    v = np.array([1.0, -0.5, 0.25, 2.0])
    _, back = revsrc.vjp(revsrc.grad(energy), X4)
    close(back(v)[0], fd_jac(revsrc.grad(energy), X4).T @ v, rtol=1e-6, atol=1e-7)


@custom("i23_third_derivative_broadcast", "compose23")
def _c3():
    # forward over reverse over reverse and reverse over reverse over reverse go
    # through broadcasting's transpose (a mean of an array)
    close(revsrc.hvp(_g_of_f, (X4,), (np.ones(4),)),
          fd_jac(revsrc.grad(_g_of_f), X4) @ np.ones(4), rtol=1e-5, atol=1e-6)
    H = revsrc.hessian(_g_of_f)(X4)
    close(H, fd_jac(revsrc.grad(_g_of_f), X4), rtol=1e-5, atol=1e-6)
    close(revsrc.jacrev(revsrc.grad(_g_of_f))(X4), H, rtol=1e-10, atol=1e-10)


def _f3(x):
    return np.sum(np.sin(x) * x[0]) + np.mean(x ** 3)


_d_f3 = revsrc.grad(_f3)


def _g_of_f(x):
    return np.sum(_d_f3(x) ** 2)


@custom("i23_jvp_of_jit_on_arrays", "compose23")
def _c4():
    jf = revsrc.jit(energy)
    t = np.array([0.1, 0.0, -0.2, 0.3])
    close(revsrc.jvp(jf, (X4,), (t,))[1], fd(lambda s: energy(X4 + s * t), 0.0), rtol=1e-6)
    close(revsrc.jacfwd(jf)(X4), revsrc.grad(energy)(X4), rtol=1e-14)
    close(revsrc.jacrev(jf)(X4), revsrc.grad(energy)(X4), rtol=1e-14)


def mlp_loss(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    out = h @ params["w2"]
    return np.mean((out - y) ** 2)


XS = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8]])
YS = np.array([0.2, -0.4, 0.9])
PARAMS = {"W1": np.array([[0.1, -0.3], [0.4, 0.2]]), "b1": np.array([0.05, -0.02]),
          "w2": np.array([0.7, -0.5])}


def _flat(p):
    return np.concatenate([p["W1"].ravel(), p["b1"], p["w2"]])


def _unflat(v):
    return {"W1": v[:4].reshape(2, 2), "b1": v[4:6], "w2": v[6:8]}


@custom("i23_hessian_of_mlp_dict_params", "compose23")
def _c5():
    H = revsrc.hessian(mlp_loss)(PARAMS, XS, YS)
    full = fd_jac(lambda v: _flat(revsrc.grad(mlp_loss)(_unflat(v), XS, YS)), _flat(PARAMS))
    offsets = {"W1": (0, 4), "b1": (4, 6), "w2": (6, 8)}
    for a, (i0, i1) in offsets.items():
        for b, (j0, j1) in offsets.items():
            block = full[i0:i1, j0:j1].reshape(np.shape(PARAMS[a]) + np.shape(PARAMS[b]))
            close(H[a][b], block, rtol=1e-5, atol=1e-6, what=f"H[{a}][{b}]")


def tuple_loss(p, x):
    W, b = p
    return np.sum(np.log1p(np.exp(x @ W + b)))


@custom("i23_hessian_of_tuple_and_list_params", "compose23")
def _c6():
    W, b = np.array([[0.2, -0.1], [0.3, 0.5]]), np.array([0.1, -0.2])
    for seq in (tuple, list):
        H = revsrc.hessian(tuple_loss)(seq((W, b)), XS)
        assert type(H) is seq and type(H[0]) is seq
        Hb = revsrc.hessian(lambda_free_tuple_loss, argnums=(0, 1))(W, b, XS)
        for i in range(2):
            for j in range(2):
                close(H[i][j], Hb[i][j], rtol=1e-12, atol=1e-12)


def lambda_free_tuple_loss(W, b, x):
    return np.sum(np.log1p(np.exp(x @ W + b)))


@custom("i23_hessian_argnums_two_shapes", "compose23")
def _c7():
    a, B = np.array([0.3, -0.6]), np.array([[0.5, 0.1], [0.2, -0.4], [1.0, 0.3]])
    H = revsrc.hessian(_two_shapes, argnums=(0, 1))(a, B)
    assert H[0][1].shape == (2, 3, 2) and H[1][0].shape == (3, 2, 2)
    g1 = lambda B_: revsrc.grad(_two_shapes, argnums=0)(a, B_)   # noqa: E731
    close(H[0][1], fd_jac(g1, B), rtol=1e-5, atol=1e-6)


def _two_shapes(a, B):
    return np.sum(np.tanh(B @ a)) + a[0] * np.sum(B ** 2)


_d_mlp = revsrc.grad(mlp_loss)


def penalized_mlp(params, x, y):
    g = _d_mlp(params, x, y)
    return mlp_loss(params, x, y) + 0.01 * sum(np.sum(g[k] ** 2) for k in ("W1", "b1", "w2"))


@custom("i23_gradient_penalty_dict_params", "compose23")
def _c8():
    got = revsrc.grad(penalized_mlp)(PARAMS, XS, YS)
    want = fd(lambda v: penalized_mlp(_unflat(v), XS, YS), _flat(PARAMS))
    close(_flat(got), want, rtol=1e-5, atol=1e-7)


def legendre(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return ((2 * n - 1) * x * legendre(n - 1, x) - (n - 1) * legendre(n - 2, x)) / n


def legendre_series(x, n):
    return legendre(n, x) + 0.5 * legendre(3, x)


@custom("i23_recursion_on_run_time_degree", "compose23")
def _c9():
    # unrolled for each degree given, as a tracer would
    for n in (5, 2, 5):
        close(revsrc.grad(legendre_series)(0.4, n),
              fd(lambda x: legendre_series(x, n), 0.4), rtol=1e-7)


def legendre_6(x):
    return legendre(6, x) * x


@custom("i23_recursion_written_degree_hessian", "compose23")
def _c10():
    close(revsrc.hessian(legendre_6)(0.4), fd(revsrc.grad(legendre_6), 0.4), rtol=1e-6)
    close(revsrc.grad(legendre_6)(0.4), fd(legendre_6, 0.4), rtol=1e-7)


def prod_model(x):
    return np.prod(1.0 + x) * np.sum(x)


@custom("i23_hessian_through_prod_worded", "compose23", doc=("E104",))
def _c11():
    try:
        revsrc.hessian(prod_model)(X4)
    except revsrc.RevsrcError as e:
        assert "revsrc." not in str(e).split("\n")[0] and "np.prod" in str(e), str(e)
        raise


def branchy_loss(x):
    s = 0.0
    for i in range(4):
        if x[i] > 0.0:
            s = s + x[i] ** 3
        else:
            s = s + np.sin(x[i])
    return s


@custom("i23_jax_jacrev_of_grad_traced_branch", "compose23", doc=("E602",), needs_jax=True)
def _c12():
    try:
        revsrc.jacrev(revsrc.grad(branchy_loss, backend="jax"), backend="jax")(X4)
    except revsrc.RevsrcError:
        # the hint's way works: forward over reverse, on the JAX back end
        close(revsrc.hessian(branchy_loss, backend="jax")(X4),
              fd_jac(revsrc.grad(branchy_loss), X4), rtol=1e-6, atol=1e-7)
        raise
    _jax()


# ----- One program per construct issue 23 names (its "Done when"): recursion on an
# int, try/except, map/filter, logging, np.random.seed, SciPy, quantiles, the math
# module, np.vectorize, and compositions. Each against central differences (and
# JAX where it has the function). -----

def chebyshev(n, x):
    if n == 0:
        return np.ones_like(x)
    if n == 1:
        return x
    return 2.0 * x * chebyshev(n - 1, x) - chebyshev(n - 2, x)


def chebyshev_fit(c, x, n):
    # a series whose degree is an argument: unrolled for each n given
    s = 0.0
    for k in range(n):
        s = s + c[k] * chebyshev(k, x)
    return np.sum(s ** 2)


XC = np.array([-0.6, 0.1, 0.8])


@custom("i23_recursion_int_degree_series_loop", "compose23")
def _c13():
    c = np.array([0.5, -0.2, 0.3, 0.1, -0.05])
    for n in (3, 5):
        close(revsrc.grad(chebyshev_fit)(c, XC, n), fd(lambda v: chebyshev_fit(v, XC, n), c),
              rtol=1e-6, atol=1e-8)
        close(revsrc.grad(chebyshev_fit, argnums=1)(c, XC, n),
              fd(lambda v: chebyshev_fit(c, v, n), XC), rtol=1e-6, atol=1e-8)
    close(revsrc.jit(legendre_series)(0.4, 6), legendre_series(0.4, 6), rtol=0, atol=0)
    close(revsrc.hessian(legendre_series)(0.4, 6),
          fd(lambda x: revsrc.grad(legendre_series)(x, 6), 0.4), rtol=1e-6)


def safe_ratio(x, y):
    try:
        r = x / y
    except ZeroDivisionError:
        r = x * 1e3
    else:
        r = r + np.sin(x)
    finally:
        x = x * 1.0
    return r * x


@custom("i23_try_except_else_finally", "compose23")
def _c14():
    for y in (0.7, 0.0):
        close(revsrc.grad(safe_ratio)(1.3, y), fd(lambda x: safe_ratio(x, y), 1.3), rtol=1e-7)


def mapped_filtered(x):
    pos = list(filter(lambda t: t > 0.0, x))
    return sum(map(lambda t: t * t, pos)) + sum(map(np.sin, x))


@custom("i23_map_filter_run_time_sequence", "compose23")
def _c15():
    x = np.array([0.3, -1.2, 0.8, -0.1])
    close(revsrc.grad(mapped_filtered)(x), fd(mapped_filtered, x), rtol=1e-7)


import logging  # noqa: E402

_LOG = logging.getLogger("revsrc.corpus.i23")


def logged_step(x):
    logging.debug("x=%s", x)
    _LOG.info("norm %s", np.sum(x ** 2))
    y = np.tanh(x) * 2.0
    if np.sum(y) > 1e9:
        _LOG.warning("never mind %d", 3)
    return np.sum(y ** 2)


@custom("i23_logging_calls", "compose23")
def _c16():
    close(revsrc.grad(logged_step)(X4), fd(logged_step, X4), rtol=1e-7)


def noisy_loss(w):
    np.random.seed(7)
    noise = np.random.randn(4)
    return np.sum((w - noise) ** 2 * 0.5)


@custom("i23_np_random_seed_then_draw", "compose23")
def _c17():
    np.random.seed(7)
    noise = np.random.randn(4)
    close(revsrc.grad(noisy_loss)(X4), X4 - noise, rtol=1e-13)


def probit_nll(w, x, y):
    import scipy.special as sp
    z = x @ w
    return -np.sum(y * sp.log_ndtr(z) + (1.0 - y) * sp.log_ndtr(-z)) + sp.ndtri(0.7) * w[0]


def cholesky_quad(a):
    import scipy.linalg as sl
    m = np.array([[2.0, 0.3], [0.3, 1.0]]) + a * np.eye(2)
    c = sl.cho_factor(m)
    return np.sum(sl.cho_solve(c, np.array([1.0, -0.5]))) + np.sum(sl.expm(0.1 * m))


@custom("i23_scipy_special_and_linalg", "compose23")
def _c18():
    w = np.array([0.4, -0.3])
    y = np.array([1.0, 0.0, 1.0])
    close(revsrc.grad(probit_nll)(w, XS, y), fd(lambda v: probit_nll(v, XS, y), w), rtol=1e-6)
    close(revsrc.grad(cholesky_quad)(0.5), fd(cholesky_quad, 0.5), rtol=1e-6)
    jax = _jax()
    if jax is not None:
        from jax.scipy.special import log_ndtr, ndtri
        jp = jax.numpy
        want = jax.grad(lambda v: -jp.sum(y * log_ndtr(XS @ v) + (1.0 - y) * log_ndtr(-(XS @ v)))
                        + ndtri(0.7) * v[0])(w)
        close(revsrc.grad(probit_nll)(w, XS, y), want, rtol=1e-12)


def quantile_loss(x):
    return np.quantile(x, 0.3) ** 2 + np.percentile(x, 80.0) + np.nanquantile(x, 0.5)


@custom("i23_quantiles_numpy_and_jax", "compose23")
def _c19():
    close(revsrc.grad(quantile_loss)(X4), fd(quantile_loss, X4), rtol=1e-6)
    if _jax() is not None:
        close(revsrc.grad(quantile_loss, backend="jax")(X4), revsrc.grad(quantile_loss)(X4),
              rtol=1e-13)


def math_module(x):
    return math.lgamma(x) + math.gamma(x) * 0.1 + math.fsum([x, x * x, 1.0]) + \
        math.prod([x, x, 2.0])


@custom("i23_math_lgamma_gamma_fsum_prod", "compose23")
def _c20():
    close(revsrc.grad(math_module)(2.3), fd(math_module, 2.3), rtol=1e-7)
    close(revsrc.jvp(math_module, (2.3,), (1.0,))[1], fd(math_module, 2.3), rtol=1e-7)
    close(revsrc.hessian(math_gamma)(2.3), fd(revsrc.grad(math_gamma), 2.3), rtol=1e-6)


def math_gamma(x):
    return math.lgamma(x) * math.gamma(x)


@custom("i23_hessian_through_math_module", "compose23", doc=("E104",))
def _c20b():
    # the adjoints of math.fsum and math.prod have no derivative of their own yet (as
    # np.prod's, above)
    revsrc.hessian(math_module)(2.3)


def _smooth_step(t):
    return t * t * (3.0 - 2.0 * t) if t < 1.0 else 1.0


_vstep = np.vectorize(_smooth_step)


def vectorized_loss(x):
    return np.sum(_vstep(x) * x)


@custom("i23_np_vectorize_scalar_function", "compose23")
def _c21():
    x = np.array([0.2, 0.5, 1.5, 0.9])
    close(revsrc.grad(vectorized_loss)(x), fd(vectorized_loss, x), rtol=1e-6)


def _sine_cubic(x):
    return math.sin(x) * x ** 3


_d2 = revsrc.grad(revsrc.grad(_sine_cubic))


def curvature_twice(x):
    return _d2(x) * 2.0


@custom("i23_jit_vmap_of_second_derivatives", "compose23")
def _c22():
    j = revsrc.jit(curvature_twice)
    close(j(0.4), curvature_twice(0.4), rtol=0, atol=0)
    close(j(0.4), fd(lambda x: 2.0 * revsrc.grad(_sine_cubic)(x), 0.4), rtol=1e-7)
    xs = np.array([0.1, 0.4, 1.3])
    close(revsrc.vmap(revsrc.hessian(_sine_cubic))(xs), [_d2(float(v)) for v in xs],
          rtol=1e-14)
    close(revsrc.jacrev(revsrc.jacfwd(lambda_free_vector))(np.array([0.3, -0.7])),
          fd_jac(revsrc.jacfwd(lambda_free_vector), np.array([0.3, -0.7])), rtol=1e-6,
          atol=1e-8)


def lambda_free_vector(x):
    return np.array([np.sin(x[0]) * x[1], x[0] ** 2 + np.cos(x[1])])
