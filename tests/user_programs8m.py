"""Round 8 user programs, batch m: less common NumPy/SciPy calls as they turn up in
notebooks (reductions with where= and initial=, ufunc.reduce, logaddexp, searchsorted
interpolation, flip/roll with computed shifts, scipy.stats and scipy.special
softmax/logsumexp with b=, np.errstate, random draws from a Generator made inside,
namedtuple parameters), checked against JAX x64, closed forms or self-checked
central differences."""
import collections
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(92)
XU = rng.normal(size=7)


def sum_where(x):
    return np.sum(x ** 2, where=x > 0) + np.mean(x, where=x < 0)


add(G("r8_sum_mean_with_where_kwarg", sum_where, (XU,)))


def max_initial(x):
    return np.max(x, initial=0.5) + np.sum(x, keepdims=True)[0]


add(G("r8_max_initial_keepdims", max_initial, (XU,)))


def ufunc_reduce(x):
    return np.add.reduce(x ** 2) + np.maximum.reduce(x) + np.multiply.reduce(x[:3])


add(G("r8_ufunc_reduce_add_max_mul", ufunc_reduce, (XU,)))


def logaddexp_chain(x):
    acc = -np.inf
    for v in x:
        acc = np.logaddexp(acc, v)
    return acc + np.logaddexp.reduce(x)


add(G("r8_logaddexp_from_minus_inf_and_reduce", logaddexp_chain, (XU,)))


def searchsorted_interp(y, q):
    xs = np.linspace(0, 1, len(y))
    i = np.clip(np.searchsorted(xs, q) - 1, 0, len(y) - 2)
    t = (q - xs[i]) / (xs[i + 1] - xs[i])
    return np.sum((1 - t) * y[i] + t * y[i + 1])


add(G("r8_searchsorted_linear_interp", searchsorted_interp, (XU, np.array([0.05, 0.41, 0.93])), argnums=(0, 1)))


def flip_roll(x, k):
    return np.sum(np.flip(x) * np.roll(x, k) * np.arange(len(x)))


add(G("r8_flip_roll_int_shift_arg", flip_roll, (XU, 3), ref="jax"))


def scipy_stats_logpdf(mu, sigma, x):
    from scipy.stats import norm
    return np.sum(norm.logpdf(x, loc=mu, scale=sigma))


add(G("r8_scipy_stats_norm_logpdf", scipy_stats_logpdf, (0.2, 1.3, XU), argnums=(0, 1)))


def scipy_softmax_lse_b(z, w):
    from scipy.special import logsumexp, softmax
    return logsumexp(z, b=w) + np.sum(softmax(z) * np.arange(len(z)))


add(G("r8_scipy_logsumexp_b_and_softmax", scipy_softmax_lse_b, (XU, np.abs(XU) + 0.1), argnums=(0, 1)))


def errstate_log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(x > 0, np.log(x), 0.0)
    return np.sum(y * x)


add(pair("r8_errstate_log_where", lambda: revsrc.grad(errstate_log)(XU),
         lambda: np.where(XU > 0, np.log(np.abs(XU)) + 1, 0.0), tol=1e-12))


def rng_inside(theta):
    r = np.random.default_rng(0)
    z = r.normal(size=100)
    return np.mean(np.exp(theta * z))


add(pair("r8_generator_made_inside_function", lambda: revsrc.grad(rng_inside)(0.3),
         lambda: np.mean(np.random.default_rng(0).normal(size=100) * np.exp(0.3 * np.random.default_rng(0).normal(size=100))), tol=1e-12))


def rng_inside_loop(theta, n):
    r = np.random.default_rng(1)
    x = 0.0
    for _ in range(n):
        x = 0.9 * x + theta * r.normal()
    return x ** 2


def _rng_loop_ref():
    return fd_checked(rng_inside_loop, (0.4, 50))


add(pair("r8_generator_draw_per_iteration", lambda: revsrc.grad(rng_inside_loop)(0.4, 50), _rng_loop_ref, tol=1e-8))
add(pair("r8_generator_draw_per_iteration_memory", lambda: revsrc.grad(rng_inside_loop, memory=64)(0.4, 50), _rng_loop_ref, tol=1e-8))


Layer = collections.namedtuple("Layer", ["W", "b"])


def namedtuple_mlp(layers, x):
    for L in layers:
        x = np.tanh(x @ L.W + L.b)
    return np.sum(x ** 2)


NL = [Layer(rng.normal(size=(3, 3)) * 0.5, np.zeros(3)), Layer(rng.normal(size=(3, 2)) * 0.5, np.ones(2) * 0.1)]
XN = rng.normal(size=(4, 3))


def _nt_ref():
    g = jax().grad(jaxify(lambda W1, b1, W2, b2, x: np.sum(np.tanh(np.tanh(x @ W1 + b1) @ W2 + b2) ** 2)), argnums=(0, 1, 2, 3))(NL[0].W, NL[0].b, NL[1].W, NL[1].b, XN)
    return [Layer(g[0], g[1]), Layer(g[2], g[3])]


add(pair("r8_list_of_namedtuple_layers", lambda: revsrc.grad(namedtuple_mlp)(NL, XN), _nt_ref, tol=1e-10))


def vectorize_call(x):
    f = np.vectorize(lambda v: v * v if v > 0 else -v)
    return np.sum(f(x))


add(G("r8_np_vectorize_lambda", vectorize_call, (XU,)))


def histogram_weights(w, x):
    h, _ = np.histogram(x, bins=4, range=(-2, 2), weights=w)
    return np.sum(h ** 2)


add(G("r8_histogram_weights", histogram_weights, (np.abs(XU), XU)))


def cumsum_axis_flip(A):
    return np.sum(np.cumsum(A, axis=1)[:, ::-1] * np.cumsum(A, axis=0))


add(G("r8_cumsum_axis_both_reverse", cumsum_axis_flip, (rng.normal(size=(3, 4)),), ref="jax"))


def norm_axis_rows(A):
    n = np.linalg.norm(A, axis=1)
    return np.sum(n) + np.sum(np.linalg.norm(A, axis=0, keepdims=True))


add(G("r8_norm_axis_keepdims", norm_axis_rows, (rng.normal(size=(3, 4)),), ref="jax"))


def arange_from_value(x):
    n = int(x * 3)
    ks = np.arange(n)
    return np.sum(np.sin(ks * x))


add(G("r8_int_of_value_sets_length", arange_from_value, (2.3,)))


def power_negative_base(x):
    return np.sum(np.cbrt(x) + x ** 3 + np.abs(x) ** 0.5)


add(G("r8_cbrt_negative_values", power_negative_base, (np.array([-2.0, 0.5, 3.0]),), ref="jax"))


def nan_to_num_guard(x):
    y = np.log(x)
    y = np.nan_to_num(y, nan=0.0, neginf=-10.0)
    return np.sum(y * 2)


add(pair("r8_nan_to_num_after_log", lambda: revsrc.grad(nan_to_num_guard)(np.array([-1.0, 0.0, 2.0])),
         lambda: jax().grad(jaxify(nan_to_num_guard))(np.array([-1.0, 0.0, 2.0])), tol=1e-12))


def isclose_branch(x):
    if np.isclose(x[0], x[1]):
        return np.sum(x)
    return np.prod(x)


add(pair("r8_isclose_branch", lambda: (revsrc.grad(isclose_branch)(np.array([1.0, 1.0 + 1e-12])), revsrc.grad(isclose_branch)(np.array([1.0, 2.0]))),
         lambda: (np.array([1.0, 1.0]), np.array([2.0, 1.0])), tol=1e-12))


def allclose_any_all(x):
    s = np.sum(x ** 2)
    if np.all(x > -5) and np.any(x > 1):
        s = s * 2
    return s


add(G("r8_all_any_branch", allclose_any_all, (XU,)))


def linalg_multi_dot(A, B, C):
    return np.sum(np.linalg.multi_dot([A, B, C]))


add(G("r8_multi_dot", linalg_multi_dot, (rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4, 2))), argnums=(0, 1, 2), ref="jax"))


def trace_offset(A):
    return np.trace(A, offset=1) + np.sum(np.diag(A, k=-1) ** 2) + np.sum(np.diagonal(A))


add(G("r8_trace_offset_diag_k", trace_offset, (rng.normal(size=(4, 4)),), ref="jax"))


def lstsq_rank_deficient(x):
    A = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    c, *_ = np.linalg.lstsq(A, x, rcond=None)
    return np.sum(c)


add(G("r8_lstsq_rank_deficient_wrt_rhs", lstsq_rank_deficient, (np.array([1.0, 0.5, 2.0]),)))
