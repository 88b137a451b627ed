"""User programs, corpus 7l: revsrc.vmap over array programs and their derivatives --
in-place writes per example, negative in_axes/out_axes, jacrev per example, branches
and sorts and gathers that differ between examples, value_and_grad with two argnums,
vmap of vmap, and the int-destination store under vmap.  References: JAX x64 (jax.vmap
of jax.grad of the same source), the plain call per example, closed forms."""
import math

import numpy as np

import revsrc
from user_programs7_harness import jax, jaxify, pair

CASES = []
RNG = np.random.default_rng(7011)
X = RNG.normal(size=(4, 3))
W = RNG.normal(size=(3, 2))


def J():
    return jax()


def inplace_rows(x):
    y = x * 1.0
    y[0] = y[1] * y[2]
    y[1:] *= 2.0
    return np.sum(y ** 2)


def _inplace_ref(x):
    jnp = J().numpy
    y = x.at[0].set(x[1] * x[2])
    y = y.at[1:].multiply(2.0)
    return jnp.sum(y ** 2)


CASES.append(pair("r7_vmap_grad_inplace_per_example", lambda: revsrc.vmap(revsrc.grad(inplace_rows))(X),
                  lambda: J().vmap(J().grad(_inplace_ref))(X), tol=1e-10))
CASES.append(pair("r7_vmap_inplace_values_exact", lambda: revsrc.vmap(inplace_rows)(X),
                  lambda: np.array([inplace_rows(x) for x in X]), tol=0.0))


def layer(x, w):
    return np.tanh(x @ w)


CASES.append(pair("r7_vmap_in_axes_negative", lambda: revsrc.vmap(layer, in_axes=(-1, None))(X.T.copy(), W),
                  lambda: np.tanh(X @ W), tol=1e-12))
CASES.append(pair("r7_vmap_out_axes_negative", lambda: revsrc.vmap(layer, in_axes=(0, None), out_axes=-1)(X, W),
                  lambda: np.tanh(X @ W).T, tol=1e-12))
CASES.append(pair("r7_vmap_jacrev_per_example", lambda: revsrc.vmap(revsrc.jacrev(layer), in_axes=(0, None))(X, W),
                  lambda: J().vmap(J().jacrev(jaxify(layer)), in_axes=(0, None))(X, W), tol=1e-10))


def branch_sum(x):
    if np.sum(x) > 0:
        return np.sum(np.sin(x))
    return np.sum(x ** 2)


CASES.append(pair("r7_vmap_grad_branch_differs_per_example", lambda: revsrc.vmap(revsrc.grad(branch_sum))(X),
                  lambda: np.stack([np.cos(x) if x.sum() > 0 else 2 * x for x in X]), tol=1e-12))


def sort_median(x):
    s = np.sort(x)
    return s[0] * 2.0 + s[-1] ** 2 + np.median(x)


CASES.append(pair("r7_vmap_grad_sort_median", lambda: revsrc.vmap(revsrc.grad(sort_median))(X),
                  lambda: J().vmap(J().grad(jaxify(sort_median)))(X), tol=1e-12))


def gather_sq(x, idx):
    return np.sum(x[idx] ** 2)


IDX = np.array([[0, 0], [1, 2], [2, 2], [0, 1]])
CASES.append(pair("r7_vmap_grad_int_index_per_example", lambda: revsrc.vmap(revsrc.grad(gather_sq))(X, IDX),
                  lambda: J().vmap(J().grad(jaxify(gather_sq)))(X, IDX), tol=1e-12))


def int_store(x):
    y = np.zeros(3, dtype=int)
    y[0] = x[0] * 10.0
    return np.sum(y) + np.sum(x)


CASES.append(pair("r7_vmap_grad_float_into_int_array", lambda: revsrc.vmap(revsrc.grad(int_store))(X),
                  lambda: np.ones_like(X), tol=1e-12))


def slogdet_inv(x):
    M = np.outer(x, x) + np.eye(3)
    return np.linalg.slogdet(M)[1] + np.trace(np.linalg.inv(M))


CASES.append(pair("r7_vmap_grad_slogdet_inv", lambda: revsrc.vmap(revsrc.grad(slogdet_inv))(X),
                  lambda: J().vmap(J().grad(jaxify(slogdet_inv)))(X), tol=1e-10))
CASES.append(pair("r7_vmap_hessian_slogdet_E104", lambda: revsrc.vmap(revsrc.hessian(slogdet_inv))(X),
                  lambda: J().vmap(J().hessian(jaxify(slogdet_inv)))(X), tol=1e-8))


def cumsum_weighted(x, w):
    return np.sum(np.cumsum(x * w) ** 2)


CASES.append(pair("r7_vmap_grad_argnums1_unmapped", lambda: revsrc.vmap(revsrc.grad(cumsum_weighted, argnums=1),
                                                                         in_axes=(0, None))(X, X[0]),
                  lambda: J().vmap(J().grad(jaxify(cumsum_weighted), argnums=1), in_axes=(0, None))(X, X[0]),
                  tol=1e-10))
CASES.append(pair("r7_vmap_value_and_grad_two_argnums",
                  lambda: revsrc.vmap(revsrc.value_and_grad(cumsum_weighted, argnums=(0, 1)))(X, X),
                  lambda: J().vmap(J().value_and_grad(jaxify(cumsum_weighted), argnums=(0, 1)))(X, X), tol=1e-10))


def leaky_max(x):
    return np.where(x > 0, x, 0.01 * x).sum() + np.max(x) - np.min(np.abs(x))


CASES.append(pair("r7_vmap_grad_where_max_min_abs", lambda: revsrc.vmap(revsrc.grad(leaky_max))(X),
                  lambda: J().vmap(J().grad(jaxify(leaky_max)))(X), tol=1e-12))


def sin_times(x):
    return np.sin(x) * x


def sin_times_scalar(x):
    return math.sin(x) * x


CASES.append(pair("r7_vmap_of_vmap_array_fn", lambda: revsrc.vmap(revsrc.vmap(sin_times))(X),
                  lambda: np.sin(X) * X, tol=0.0))
CASES.append(pair("r7_vmap_of_vmap_of_grad_scalar", lambda: revsrc.vmap(revsrc.vmap(revsrc.grad(sin_times_scalar)))(X),
                  lambda: np.cos(X) * X + np.sin(X), tol=1e-12))
CASES.append(pair("r7_jacfwd_of_vmap", lambda: revsrc.jacfwd(revsrc.vmap(sin_times_scalar))(X[0]),
                  lambda: np.diag(np.cos(X[0]) * X[0] + np.sin(X[0])), tol=1e-12))
