"""Round 8 user programs, batch l: transformations at their edges on ordinary programs
(vmap with in_axes=1, out_axes and array programs, vmap of hessian and jacfwd, jit of
jvp, hessian and jvp of while loops, complex holomorphic grads, float32 through
vmap, backend="jax" with memory=), checked against JAX x64, closed forms or
self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(91)
XM = rng.normal(size=(3, 4))


def colnorm(v):
    return np.sqrt(np.sum(v ** 2) + 1.0)


add(pair("r8_vmap_in_axes_1_columns", lambda: revsrc.vmap(colnorm, in_axes=1)(XM),
         lambda: np.sqrt(np.sum(XM ** 2, axis=0) + 1.0), tol=1e-12))
add(pair("r8_vmap_grad_in_axes_1_out_axes_1", lambda: revsrc.vmap(revsrc.grad(colnorm), in_axes=1, out_axes=1)(XM),
         lambda: XM / np.sqrt(np.sum(XM ** 2, axis=0) + 1.0), tol=1e-12))


def quad_form(x, A):
    return x @ A @ x + np.sum(np.sin(x))


AQ = rng.normal(size=(3, 3))
add(pair("r8_vmap_hessian_array_program", lambda: revsrc.vmap(revsrc.hessian(quad_form), in_axes=(0, None))(XM.T, AQ),
         lambda: jax().vmap(jax().hessian(jaxify(quad_form)), in_axes=(0, None))(XM.T, AQ), tol=1e-10))


def vec_out(x):
    return np.array([x[0] * x[1], np.exp(x[2]), x[0] - x[2]])


def vec_out_j(x):
    return jax().numpy.array([x[0] * x[1], jax().numpy.exp(x[2]), x[0] - x[2]])


add(pair("r8_vmap_jacfwd_batch_of_jacobians", lambda: revsrc.vmap(revsrc.jacfwd(vec_out))(XM.T),
         lambda: jax().vmap(jax().jacfwd(vec_out_j))(XM.T), tol=1e-12))


def scalar_prog(x, y):
    s = 0.0
    for k in range(1, 6):
        s += math.sin(k * x) * y ** k / k
    return s


def jvp_prog(x, y):
    return revsrc.jvp(scalar_prog, (x, y), (1.0, 0.5))[1]


add(pair("r8_jit_of_jvp_scalar", lambda: revsrc.jit(jvp_prog)(0.3, 0.7),
         lambda: jax().jvp(jaxify(scalar_prog), (0.3, 0.7), (1.0, 0.5))[1], tol=1e-12))
add(pair("r8_jvp_of_jit_scalar", lambda: revsrc.jvp(revsrc.jit(scalar_prog), (0.3, 0.7), (1.0, 0.5)),
         lambda: jax().jvp(jaxify(scalar_prog), (0.3, 0.7), (1.0, 0.5)), tol=1e-12))
add(pair("r8_grad_of_jit_scalar", lambda: revsrc.grad(revsrc.jit(scalar_prog), argnums=(0, 1))(0.3, 0.7),
         lambda: jax().grad(jaxify(scalar_prog), argnums=(0, 1))(0.3, 0.7), tol=1e-12))


def while_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-13 * a:
        x = 0.5 * (x + a / x)
    return x


add(pair("r8_hessian_of_newton_while", lambda: revsrc.hessian(while_sqrt)(3.0), lambda: -0.25 * 3.0 ** -1.5, tol=1e-8))
add(pair("r8_jvp_of_newton_while", lambda: revsrc.jvp(while_sqrt, (3.0,), (2.0,)), lambda: (math.sqrt(3.0), 2 * 0.5 / math.sqrt(3.0)), tol=1e-10))
add(pair("r8_vmap_of_newton_while", lambda: revsrc.vmap(while_sqrt)(np.array([0.5, 2.0, 9.0, 1e6])),
         lambda: np.array([while_sqrt(v) for v in (0.5, 2.0, 9.0, 1e6)]), tol=0.0))
add(pair("r8_vmap_grad_of_newton_while", lambda: revsrc.vmap(revsrc.grad(while_sqrt))(np.array([0.5, 2.0, 9.0, 1e6])),
         lambda: 0.5 / np.sqrt(np.array([0.5, 2.0, 9.0, 1e6])), tol=1e-9))


def holo(z):
    return np.sum(np.exp(z) * z ** 2)


ZC = np.array([0.3 + 0.4j, -0.5 + 0.1j])
add(pair("r8_holomorphic_grad_complex_array", lambda: revsrc.grad(holo, holomorphic=True)(ZC),
         lambda: np.exp(ZC) * (ZC ** 2 + 2 * ZC), tol=1e-12))


def real_of_complex(x):
    z = x * np.exp(1j * x)
    return np.sum(np.abs(z) ** 2 + z.real)


add(G("r8_complex_intermediate_real_output", real_of_complex, (np.array([0.3, 1.2, -0.7]),), ref="jax"))


def f32_scalar(x):
    return math.sin(x) * x


add(pair("r8_vmap_float32_array", lambda: revsrc.vmap(revsrc.grad(f32_scalar))(np.array([0.5, 1.0], dtype=np.float32)),
         lambda: np.array([math.cos(v) * v + math.sin(v) for v in np.array([0.5, 1.0], dtype=np.float32)], dtype=np.float32), tol=1e-6))


def long_loop_jax(x, a):
    for _ in range(100):
        x = x + 0.01 * np.tanh(a * x)
    return np.sum(x ** 2)


add(pair("r8_backend_jax_with_memory", lambda: revsrc.grad(long_loop_jax, argnums=(0, 1), backend="jax", memory="2KB")(XM[0], 1.3),
         lambda: revsrc.grad(long_loop_jax, argnums=(0, 1))(XM[0], 1.3), tol=1e-12))
add(G("r8_long_loop_default_vs_fd", long_loop_jax, (XM[0], 1.3), argnums=(0, 1)))


def mixed_axis_vmap(x, W):
    return np.tanh(W @ x)


add(pair("r8_vmap_matrix_program_in_axes_none", lambda: revsrc.vmap(mixed_axis_vmap, in_axes=(0, None))(XM.T, AQ),
         lambda: np.tanh(XM.T @ AQ.T), tol=1e-12))


def jit_many_args(a, b, c, n):
    t = 0.0
    for i in range(n):
        t = t * a + b * math.cos(c * i)
    return t


add(pair("r8_jit_grad_argnums_with_int", lambda: revsrc.jit(revsrc.grad(jit_many_args, argnums=(0, 2)))(0.9, 1.1, 0.3, 12),
         lambda: fd_checked(jit_many_args, (0.9, 1.1, 0.3, 12), argnums=(0, 2)), tol=1e-7))
add(pair("r8_vmap_jit_grad_scalar", lambda: revsrc.vmap(revsrc.jit(revsrc.grad(jit_many_args)), in_axes=(0, None, None, None))(np.array([0.5, 0.9]), 1.1, 0.3, 12),
         lambda: np.array([fd_checked(jit_many_args, (a, 1.1, 0.3, 12)) for a in (0.5, 0.9)]).ravel(), tol=1e-7))


def hvp_dict(p):
    return np.sum(p["w"] ** 3) * p["s"] + p["s"] ** 2


add(pair("r8_hvp_dict_argument", lambda: revsrc.hvp(hvp_dict, ({"w": np.array([1.0, 2.0]), "s": 0.5},), ({"w": np.array([1.0, 0.0]), "s": 1.0},)),
         lambda: {"w": np.array([6 * 1.0 * 0.5 * 1.0 + 3 * 1.0, 3 * 4.0]), "s": 3 * 1.0 + 2.0}, tol=1e-12))


def vjp_two_args(x, W):
    return np.tanh(W @ x)


add(pair("r8_vjp_two_array_args", lambda: revsrc.vjp(vjp_two_args, XM[:, 0], AQ)[1](np.ones(3)),
         lambda: jax().vjp(jaxify(vjp_two_args), XM[:, 0], AQ)[1](np.ones(3)), tol=1e-12))
add(pair("r8_jacrev_argnums_tuple_arrays", lambda: revsrc.jacrev(vjp_two_args, argnums=(0, 1))(XM[:, 0], AQ),
         lambda: jax().jacrev(jaxify(vjp_two_args), argnums=(0, 1))(XM[:, 0], AQ), tol=1e-12))
