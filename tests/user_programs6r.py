"""User programs, corpus 6r: NumPy 2 keyword spellings and dtypes under hessian,
jacfwd and vmap.  References: JAX x64 (the spellings jax.numpy shares) or central
differences."""
import numpy as np

import revsrc
from user_programs6_harness import adder, fd_hess, jax, jaxify

CASES = []
X = np.array([0.4, -1.2, 0.9, 2.1])
MB = np.array([[0.4, -1.2, 0.9, 2.1], [1.05, 0.3, -0.7, 0.2], [-0.5, 0.8, 1.6, -1.1]])


J = jax


add = adder(CASES)


def r_keepdims_softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    p = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(p * x)


def r_clip_kw(x):
    return np.sum(np.clip(x, min=-1.0, max=1.0) ** 3 + x ** 2)


def r_std_correction(x):
    return np.std(x, correction=1) * np.mean(x ** 2)


def r_concat_pow(x):
    return np.sum(np.pow(np.concat([x, x[:2]]), 2) * np.arange(6.0))


def r_linspace_num(x):
    return np.sum(np.linspace(x[0], x[1], num=4) ** 3)


add("np2h_keepdims_softmax", lambda: revsrc.hessian(r_keepdims_softmax)(X),
    lambda: J().hessian(jaxify(r_keepdims_softmax))(X))
add("np2h_clip_min_max", lambda: revsrc.hessian(r_clip_kw)(X),
    lambda: fd_hess(r_clip_kw, (X,), {}, 0, 1e-4), tol=1e-5)
add("np2h_std_correction", lambda: revsrc.hessian(r_std_correction)(X),
    lambda: fd_hess(r_std_correction, (X,), {}, 0, 1e-4), tol=1e-5)
add("np2h_concat_pow", lambda: revsrc.hessian(r_concat_pow)(X),
    lambda: fd_hess(r_concat_pow, (X,), {}, 0, 1e-4), tol=1e-5)
add("np2h_linspace_num", lambda: revsrc.hessian(r_linspace_num)(X),
    lambda: J().hessian(jaxify(r_linspace_num))(X))
add("np2v_vmap_grad_keepdims_softmax", lambda: revsrc.vmap(revsrc.grad(r_keepdims_softmax))(MB),
    lambda: J().vmap(J().grad(jaxify(r_keepdims_softmax)))(MB))
add("np2v_vmap_grad_clip_kw", lambda: revsrc.vmap(revsrc.grad(r_clip_kw))(MB),
    lambda: np.stack([2 * x + np.where(np.abs(x) < 1.0, 3 * x ** 2, 0.0) for x in MB]))
add("np2v_vmap_hessian_linspace", lambda: revsrc.vmap(revsrc.hessian(r_linspace_num))(MB),
    lambda: J().vmap(J().hessian(jaxify(r_linspace_num)))(MB))


def r_f32_hess(x):
    return np.sum(np.tanh(x) * x)


X32 = X.astype(np.float32)
add("np2d_hessian_float32_dtype", lambda: [revsrc.hessian(r_f32_hess)(X32).dtype == np.float32],
    lambda: [True], tol=0.0)
add("np2d_vmap_grad_float32_rows", lambda: revsrc.vmap(revsrc.grad(r_f32_hess))(MB.astype(np.float32)),
    lambda: J().vmap(J().grad(jaxify(r_f32_hess)))(MB), tol=1e-5)
add("np2d_jacfwd_int_array_in_program",
    lambda: revsrc.jacfwd(lambda x: x * np.arange(4) + (x > 0))(X),
    lambda: np.diag(np.arange(4.0)))
