"""User programs, corpus 6c: Jacobians and Hessians of array functions with several
outputs and several arguments (tuples, dicts), checked against JAX x64."""
import numpy as np

import revsrc
from user_programs6_harness import adder, fd_hess, jax, jaxify

CASES = []
RNG = np.random.default_rng(62)


J = jax


add = adder(CASES)


def both(name, tr, f, args, tol=1e-9, **kw):
    """revsrc.<tr>(f, **kw)(*args) against jax.<tr>(f, **kw)(*args)."""
    add(name, lambda: getattr(revsrc, tr)(f, **kw)(*args),
        lambda: getattr(J(), tr)(jaxify(f), **kw)(*args), tol)


X4 = np.array([0.3, -1.1, 0.8, 2.0])
W23 = RNG.normal(size=(2, 3))
B2 = np.array([0.1, -0.4])
V3 = np.array([0.5, 1.5, -0.2])


def polar_and_radius(x):
    r = np.sqrt(np.sum(x * x))
    return x / r, r


both("jacfwd_tuple_output", "jacfwd", polar_and_radius, (X4,))
both("jacrev_tuple_output", "jacrev", polar_and_radius, (X4,))


def layer(W, b, x):
    return np.tanh(W @ x + b)


both("jacrev_argnums_pair", "jacrev", layer, (W23, B2, V3), argnums=(0, 1))
both("jacfwd_argnums_pair", "jacfwd", layer, (W23, B2, V3), argnums=(0, 1))
both("jacfwd_matrix_arg", "jacfwd", layer, (W23, B2, V3))
both("jacrev_argnums2", "jacrev", layer, (W23, B2, V3), argnums=2)


def matrix_out(x):
    return np.outer(np.sin(x), x[:2]) + np.diag(x)[:, :2]


both("jacfwd_matrix_output", "jacfwd", matrix_out, (X4,))
both("jacrev_matrix_output", "jacrev", matrix_out, (X4,))


def inv_fn(A):
    return np.linalg.inv(A)


A3 = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3)
both("jacrev_matrix_inverse_4d", "jacrev", inv_fn, (A3,))
both("jacfwd_matrix_inverse_4d", "jacfwd", inv_fn, (A3,))


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


both("jacrev_softmax", "jacrev", softmax, (X4,))
both("jacfwd_softmax", "jacfwd", softmax, (X4,))


def dict_out(p):
    return {"a": p["w"] * p["s"], "b": np.sum(p["w"] ** 2)}


PDICT = {"s": 1.7, "w": np.array([0.2, -0.3, 0.9])}
both("jacrev_dict_in_dict_out", "jacrev", dict_out, (PDICT,))
both("jacfwd_dict_in_dict_out", "jacfwd", dict_out, (PDICT,))


def logsumexp(z):
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


both("hessian_logsumexp", "hessian", logsumexp, (X4,))


def mlp_scalar(W, b, x):
    return np.sum(np.tanh(W @ x + b) ** 2) + 0.1 * np.sum(W * W)


both("hessian_matrix_arg_4d", "hessian", mlp_scalar, (W23, B2, V3))
both("hessian_argnums_blocks", "hessian", mlp_scalar, (W23, B2, V3), argnums=(0, 1))
both("hessian_argnums_0_2", "hessian", mlp_scalar, (W23, B2, V3), argnums=(0, 2))


def tuple_param_loss(params, x):
    W, b = params
    return np.sum(np.sin(W @ x + b) ** 2)


both("hessian_tuple_params", "hessian", tuple_param_loss, ((W23, B2), V3))


def dict_param_loss(p, x):
    return np.sum((p["W"] @ x + p["b"]) ** 3) + p["c"] ** 2 * np.sum(p["b"])


PD2 = {"W": W23, "b": B2, "c": 0.7}
both("hessian_dict_params_nested", "hessian", dict_param_loss, (PD2, V3))
add("jacfwd_of_jacrev_dict", lambda: revsrc.jacfwd(revsrc.jacrev(dict_param_loss))(PD2, V3),
    lambda: J().jacfwd(J().jacrev(jaxify(dict_param_loss)))(PD2, V3))


def gauss_nll(mu, log_sigma, y):
    s = np.exp(log_sigma)
    return np.sum(0.5 * ((y - mu) / s) ** 2 + log_sigma)


YG = RNG.normal(size=7)
both("hessian_gauss_nll_blocks", "hessian", gauss_nll, (0.3, -0.2, YG), argnums=(0, 1))


def abs_clip(x):
    return np.sum(np.clip(x, -1.0, 1.5) ** 2 * np.abs(x)) + np.max(x) ** 2


both("hessian_clip_abs_max", "hessian", abs_clip, (X4,))


def where_branch(x):
    return np.sum(np.where(x > 0, x ** 3, np.sin(x)))


both("hessian_where", "hessian", where_branch, (X4,))


def loop_fn(x):
    y = x
    for i in range(5):
        y = y + 0.1 * np.sin(y[::-1]) * (i + 1)
    return y


both("jacfwd_loop", "jacfwd", loop_fn, (X4,))
both("jacrev_loop", "jacrev", loop_fn, (X4,))


def scalar_out_jac(x):
    return np.sum(x ** 3)


both("jacrev_scalar_output", "jacrev", scalar_out_jac, (X4,))
both("jacfwd_scalar_input_vector_output", "jacfwd", lambda t: np.array([np.cos(t), np.sin(t), t * t]), (0.4,))


def jac_aux(x):
    y = np.sin(x) * x
    return y, np.sum(y)


both("jacrev_has_aux", "jacrev", jac_aux, (X4,), has_aux=True)
both("jacfwd_has_aux", "jacfwd", jac_aux, (X4,), has_aux=True)


def norm_fn(x):
    return np.linalg.norm(x) ** 3 + np.linalg.norm(x, 1)


both("hessian_norms", "hessian", norm_fn, (X4,))


def cross_entropy(W, X, labels):
    logits = X @ W
    m = np.max(logits, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(logits - m), axis=1))
    return np.mean(lse - logits[np.arange(X.shape[0]), labels])


WC = RNG.normal(size=(3, 4)) * 0.5
XC = RNG.normal(size=(5, 3))
LC = np.array([0, 3, 1, 1, 2])
both("hessian_softmax_cross_entropy_matrix", "hessian", cross_entropy, (WC, XC, LC))


def hvp_dict():
    V = {"W": np.ones_like(W23), "b": np.array([1.0, -1.0]), "c": 0.5}
    return revsrc.hvp(dict_param_loss, (PD2, V3), (V, None))


def hvp_dict_ref():
    V = {"W": np.ones_like(W23), "b": np.array([1.0, -1.0]), "c": 0.5}
    g = J().grad(jaxify(dict_param_loss))
    return J().jvp(lambda p: g(p, V3), (PD2,), (V,))[1]


add("hvp_dict_params", hvp_dict, hvp_dict_ref)


def float32_jac(x):
    return np.tanh(x) * np.float32(2.0)


X32 = X4.astype(np.float32)
add("jacrev_float32_dtype", lambda: revsrc.jacrev(float32_jac)(X32),
    lambda: J().jacrev(jaxify(float32_jac))(X32.astype(np.float64)), tol=1e-5)


def kw_hess(x, scale=1.0):
    return scale * np.sum(x ** 4)


add("hessian_keyword_argument",
    lambda: revsrc.hessian(kw_hess)(X4, scale=2.0),
    lambda: J().hessian(jaxify(kw_hess))(X4, scale=2.0))
add("jacrev_keyword_argument",
    lambda: revsrc.jacrev(lambda x, k=1.0: np.sin(k * x))(X4, k=3.0),
    lambda: J().jacrev(lambda x, k=1.0: J().numpy.sin(k * x))(X4, k=3.0))


def logdet_quad(A):
    sign, ld = np.linalg.slogdet(A)
    return ld + np.sum(A * A)


add("hessian_slogdet_documented_E104", lambda: revsrc.hessian(logdet_quad)(A3),
    lambda: J().hessian(jaxify(logdet_quad))(A3))


def solve_sum(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2)


add("jacrev_of_solve_wrt_b_vector_out",
    lambda: revsrc.jacrev(lambda b: np.linalg.solve(A3, b))(V3),
    lambda: np.linalg.inv(A3))


def stats(x):
    return np.array([np.mean(x), np.var(x), np.std(x), np.median(x)])


both("jacrev_stats", "jacrev", stats, (X4,))
both("jacfwd_stats", "jacfwd", stats, (X4,))


def cumulative(x):
    return np.cumsum(x) * np.cumprod(x)


both("jacrev_cumsum_cumprod", "jacrev", cumulative, (X4,))


def einsum_fn(A, x):
    return np.einsum("ij,j->i", A, x) ** 2


both("jacfwd_einsum_two_args", "jacfwd", einsum_fn, (W23, V3), argnums=(0, 1))


def stack_concat(x):
    return np.concatenate([np.stack([x, x ** 2]).ravel(), x[:2] * 3.0])


both("jacrev_stack_concat_ravel", "jacrev", stack_concat, (X4,))


def hessian_of_hessian_trace(x):
    return np.trace(revsrc.hessian(rosen_like)(x))


def rosen_like(x):
    return np.sum((x[1:] - x[:-1] ** 2) ** 2)


add("grad_of_hessian_trace_array_documented",
    lambda: revsrc.grad(hessian_of_hessian_trace)(X4),
    lambda: J().grad(lambda x: J().numpy.trace(J().hessian(jaxify(rosen_like))(x)))(X4))


def fd_check_hess():
    return revsrc.hessian(lambda v: np.sum(np.exp(v) * v[::-1]))(X4)


add("hessian_reversed_view_fd", fd_check_hess,
    lambda: fd_hess(lambda v: np.sum(np.exp(v) * v[::-1]), (X4,), {}, 0, 1e-4), tol=1e-5)


HESS_ROSEN = revsrc.hessian(rosen_like)


def global_hessian_trace(x):
    return np.trace(HESS_ROSEN(x))


add("grad_of_global_hessian_trace",
    lambda: revsrc.grad(global_hessian_trace)(X4),
    lambda: J().grad(lambda x: J().numpy.trace(J().hessian(jaxify(rosen_like))(x)))(X4))

D_ROSEN = revsrc.grad(rosen_like)


def grad_norm_penalty(x):
    g = D_ROSEN(x)
    return rosen_like(x) + 0.5 * np.sum(g * g)


def _jax_penalty(x):
    g = J().grad(jaxify(rosen_like))(x)
    return jaxify(rosen_like)(x) + 0.5 * J().numpy.sum(g * g)


add("hessian_of_gradient_penalty", lambda: revsrc.hessian(grad_norm_penalty)(X4),
    lambda: J().hessian(_jax_penalty)(X4))
add("grad_of_gradient_penalty", lambda: revsrc.grad(grad_norm_penalty)(X4),
    lambda: J().grad(_jax_penalty)(X4))
add("jacfwd_of_grad_of_gradient_penalty",
    lambda: revsrc.jacfwd(revsrc.grad(grad_norm_penalty))(X4),
    lambda: J().hessian(_jax_penalty)(X4))
