"""Round 11, part m: derivatives of derivatives and structured outputs on a small model with a
dict of parameters -- hessians in dicts and argnums tuples, has_aux with dict aux, jacrev /
jacfwd / jvp / vjp with dict outputs, hvp, third derivatives, FFTs, and results that must not
share buffers between calls."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked  # noqa: F401

CASES = []
add = CASES.append

P = {"W": np.array([[0.1, 0.2], [0.3, -0.4]]), "b": np.array([0.1, -0.1]), "s": 1.5}
XM = np.array([[1.0, 2.0], [0.5, -1.0]])
TP = {"W": np.ones((2, 2)), "b": np.ones(2), "s": 1.0}


def model_loss(p, x):
    h = np.tanh(x @ p["W"] + p["b"])
    return np.sum(h ** 2) * p["s"]


def jl():
    return jaxify(model_loss)


add(pair("r11_hessian_dict_params", lambda: revsrc.hessian(model_loss)(P, XM), lambda: jax().jit(jax().hessian(jl()))(P, XM)))
add(pair("r11_jacfwd_of_grad_dict", lambda: revsrc.jacfwd(revsrc.grad(model_loss))(P, XM),
         lambda: jax().jit(jax().jacfwd(jax().grad(jl())))(P, XM)))
add(pair("r11_hessian_argnums_dict_and_array", lambda: revsrc.hessian(model_loss, argnums=(0, 1))(P, XM),
         lambda: jax().jit(jax().hessian(jl(), argnums=(0, 1)))(P, XM)))
add(pair("r11_hessian_argnums_1_array", lambda: revsrc.hessian(model_loss, argnums=1)(P, XM),
         lambda: jax().jit(jax().hessian(jl(), argnums=1))(P, XM)))
add(pair("r11_hvp_dict_params", lambda: revsrc.hvp(model_loss, (P, XM), (TP, None)),
         lambda: jax().jvp(lambda q: jax().grad(jl())(q, XM), (P,), (TP,))[1]))


def model_aux(p, x):
    v = model_loss(p, x)
    return v, {"double": v * 2, "h": np.tanh(x)}


add(pair("r11_has_aux_dict_aux", lambda: revsrc.grad(model_aux, has_aux=True)(P, XM),
         lambda: jax().grad(jaxify(model_aux), has_aux=True)(P, XM)))
add(pair("r11_value_and_grad_has_aux", lambda: revsrc.value_and_grad(model_aux, has_aux=True)(P, XM),
         lambda: jax().value_and_grad(jaxify(model_aux), has_aux=True)(P, XM)))


def dict_out(p, x):
    return {"a": np.tanh(x @ p["W"]), "b": p["s"] * p["b"]}


add(pair("r11_jacrev_dict_out_dict_in", lambda: revsrc.jacrev(dict_out)(P, XM), lambda: jax().jit(jax().jacrev(jaxify(dict_out)))(P, XM)))
add(pair("r11_jacfwd_dict_out_dict_in", lambda: revsrc.jacfwd(dict_out)(P, XM), lambda: jax().jit(jax().jacfwd(jaxify(dict_out)))(P, XM)))
add(pair("r11_jvp_dict_in_out", lambda: revsrc.jvp(dict_out, (P, XM), (TP, np.zeros((2, 2)))),
         lambda: jax().jvp(jaxify(dict_out), (P, XM), (TP, np.zeros((2, 2))))))


def vjp_dict():
    out, back = revsrc.vjp(dict_out, P, XM)
    return out, back({"a": np.ones((2, 2)), "b": np.array([1.0, 2.0])})


def vjp_dict_ref():
    out, back = jax().vjp(jaxify(dict_out), P, XM)
    return out, back({"a": np.ones((2, 2)), "b": np.array([1.0, 2.0])})


add(pair("r11_vjp_dict_output", vjp_dict, vjp_dict_ref))


def tuple_out(x):
    return (np.sin(x), np.sum(x ** 2))


XV = np.array([1.0, 2.0])
add(pair("r11_jacrev_tuple_output", lambda: revsrc.jacrev(tuple_out)(XV), lambda: jax().jit(jax().jacrev(jaxify(tuple_out)))(XV)))
add(pair("r11_jacfwd_tuple_output", lambda: revsrc.jacfwd(tuple_out)(XV), lambda: jax().jit(jax().jacfwd(jaxify(tuple_out)))(XV)))


def scalar2(x, y):
    return x ** 2 * y + math.sin(x * y)


add(pair("r11_hessian_scalar_argnums_pair", lambda: revsrc.hessian(scalar2, argnums=(0, 1))(0.7, 1.3),
         lambda: jax().jit(jax().hessian(jaxify(scalar2), argnums=(0, 1)))(0.7, 1.3)))
add(pair("r11_jacrev_of_grad_pair", lambda: revsrc.jacrev(revsrc.grad(scalar2, argnums=(0, 1)))(0.7, 1.3),
         lambda: jax().jacrev(jax().grad(jaxify(scalar2), argnums=(0, 1)))(0.7, 1.3)))
add(pair("r11_third_derivative", lambda: revsrc.grad(revsrc.grad(revsrc.grad(scalar2)))(0.7, 1.3),
         lambda: jax().grad(jax().grad(jax().grad(jaxify(scalar2))))(0.7, 1.3)))


def list_cubes(ps):
    return sum(np.sum(w ** 3) for w in ps)


add(pair("r11_hessian_list_of_arrays", lambda: revsrc.hessian(list_cubes)([np.array([1.0, 2.0]), np.array([0.5])]),
         lambda: jax().jit(jax().hessian(jaxify(list_cubes)))([np.array([1.0, 2.0]), np.array([0.5])])))


def fft_features(x):
    return np.real(np.fft.fft(x))[1] + np.sum(np.abs(np.fft.rfft(x)))


X4 = np.array([1.0, 2.0, 0.5, -1.0])
add(G("r11_fft_and_rfft_magnitudes", fft_features, (X4,), ref="jax"))


def spectral_filter(x):
    return np.sum(np.fft.irfft(np.fft.rfft(x) * np.array([1.0, 0.5, 0.2])) ** 2)


add(G("r11_rfft_filter_irfft", spectral_filter, (X4,), ref="jax"))


def power_complex(z):
    return np.sum(np.abs(z) ** 2)


add(pair("r11_grad_complex_input", lambda: revsrc.grad(power_complex)(np.array([1 + 2j, 3 - 1j])),
         lambda: jax().grad(jaxify(power_complex))(np.array([1 + 2j, 3 - 1j]))))


# results must not share buffers between calls
def rollout(z, A):
    for _ in range(50):
        z = z + 0.01 * np.tanh(A @ z)
    return np.sum(z ** 2)


AM = np.array([[0.1, 0.2], [-0.3, 0.4]])


def buffers_between_calls():
    d = revsrc.grad(rollout)
    g1 = d(np.array([1.0, 2.0]), AM)
    keep = g1.copy()
    d(np.array([-1.0, 0.5]), AM)
    h = revsrc.hessian(rollout)
    k1 = h(np.array([1.0, 2.0]), AM)
    keep2 = k1.copy()
    h(np.array([0.3, 0.2]), AM)
    return float(np.array_equal(g1, keep) and np.array_equal(k1, keep2))


add(pair("r11_results_not_overwritten_by_next_call", buffers_between_calls, lambda: 1.0, tol=0.0))


def same_array_twice():
    W = np.array([1.0, 1.0])

    def two(params):
        W1, W2 = params
        return np.sum(W1 * 2.0) + np.sum(W2 * 3.0)
    return revsrc.grad(two)([W, W])


add(pair("r11_same_array_two_leaves", same_array_twice, lambda: [np.array([2.0, 2.0]), np.array([3.0, 3.0])], tol=0.0))
