"""Round 12, part k: edge values and types -- zeros, inf/nan inputs, ints vs floats,
float32, 0-d arrays, empty arrays, huge and subnormal values, complex numbers."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


def pnorm(x, p=2.0):
    return np.sum(np.abs(x) ** p) ** (1.0 / p)


def dtype_of(v):
    return str(np.asarray(v).dtype)


# grad of sqrt-based norm at zero: JAX gives nan; |x|^p with p=3 at 0 has gradient 0 (0^2 * sign)
add(pair("r12_abs_cubed_at_zero", lambda: revsrc.grad(lambda x: np.sum(np.abs(x) ** 3))(np.array([0.0, -1.0])),
         lambda: np.array([0.0, -3.0]), tol=0.0))
add(pair("r12_relu_at_zero_like_jax", lambda: revsrc.grad(lambda x: np.sum(np.maximum(x, 0.0)))(np.array([0.0, 1.0, -1.0])),
         lambda: np.asarray(jax().grad(lambda x: jax().numpy.sum(jax().numpy.maximum(x, 0.0)))(np.array([0.0, 1.0, -1.0]))), tol=0.0))
# |x| at 0: any subgradient in [-1, 1] is right (JAX says 1, autograd 0)
add(pair("r12_abs_at_zero_subgradient", lambda: -1.0 <= revsrc.grad(lambda x: abs(x))(0.0) <= 1.0, lambda: True, tol=0.0))
add(pair("r12_np_abs_at_zero_subgradient", lambda: bool(np.all(np.abs(revsrc.grad(lambda x: np.sum(np.abs(x)))(np.zeros(2))) <= 1.0)),
         lambda: True, tol=0.0))
add(pair("r12_int_input_value_and_grad", lambda: revsrc.grad(lambda x, n: x ** n, argnums=0)(2.0, 3), lambda: 12.0, tol=0.0))
add(pair("r12_float_power_int_exponent_neg_base", lambda: revsrc.grad(lambda x: x ** 3)(-2.0), lambda: 12.0, tol=0.0))
add(pair("r12_float32_grad_dtype", lambda: dtype_of(revsrc.grad(lambda x: np.sum(np.sin(x) * x))(np.array([0.5, 1.0], dtype=np.float32))),
         lambda: "float32", tol=0.0))
add(pair("r12_float32_grad_value", lambda: revsrc.grad(lambda x: np.sum(np.sin(x) * x))(np.array([0.5, 1.0], dtype=np.float32)),
         lambda: (np.sin(np.float32([0.5, 1.0])) + np.float32([0.5, 1.0]) * np.cos(np.float32([0.5, 1.0]))), tol=1e-6))
add(pair("r12_float32_scalar_np_float32", lambda: dtype_of(revsrc.grad(lambda x: x * x)(np.float32(1.5))), lambda: "float32", tol=0.0))
add(pair("r12_zero_d_array_input", lambda: revsrc.grad(lambda x: np.sin(x) * x)(np.array(0.7)),
         lambda: np.array(math.sin(0.7) + 0.7 * math.cos(0.7)), tol=1e-15))
add(pair("r12_zero_d_array_shape", lambda: np.shape(revsrc.grad(lambda x: np.sin(x) * x)(np.array(0.7))), lambda: (), tol=0.0))
add(pair("r12_empty_array_sum", lambda: revsrc.grad(lambda x: np.sum(x ** 2) + 1.0)(np.zeros(0)), lambda: np.zeros(0), tol=0.0))
add(pair("r12_empty_array_shape", lambda: revsrc.grad(lambda x: np.sum(x ** 2))(np.zeros((0, 3))).shape, lambda: (0, 3), tol=0.0))
add(pair("r12_empty_loop_returns_arg", lambda: revsrc.grad(lambda x, n: sum(x * k for k in range(n)) + x)(2.0, 0), lambda: 1.0, tol=0.0))
add(pair("r12_inf_input_exp_neg", lambda: revsrc.grad(lambda x: math.exp(-x))(math.inf), lambda: 0.0 if False else -0.0, tol=0.0))
add(pair("r12_nan_propagates", lambda: revsrc.grad(lambda x: np.sum(x * x))(np.array([np.nan, 1.0])), lambda: np.array([np.nan, 2.0]), tol=0.0))


def safe_log(x):
    return np.log(np.where(x > 0, x, 1.0))


add(pair("r12_where_safe_log_zero", lambda: revsrc.grad(lambda x: np.sum(safe_log(x)))(np.array([0.0, 2.0])),
         lambda: np.array([0.0, 0.5]), tol=0.0))


def where_unsafe(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x)), 0.0))


# at 0 the branch chosen is the constant 0.0: its derivative, 0 (an `if x > 0` gives the
# same); the branch not chosen (sqrt at 0, whose derivative is inf) keeps an adjoint of
# exactly 0 (revsrc/runtime/dropped.py), where JAX gives 0 * inf = nan; 4.0: 1 / (2 sqrt 4)
add(pair("r12_where_sqrt_at_zero_branch_taken", lambda: revsrc.grad(where_unsafe)(np.array([0.0, 4.0])),
         lambda: np.array([0.0, 0.25]), tol=0.0))
add(pair("r12_huge_value_logaddexp", lambda: revsrc.grad(lambda x: np.logaddexp(x, 0.0))(800.0), lambda: 1.0, tol=0.0))
add(pair("r12_subnormal_input", lambda: revsrc.grad(lambda x: x * x * 1e300)(5e-324), lambda: 2 * 5e-324 * 1e300, tol=1e-12))
add(pair("r12_hypot_huge", lambda: revsrc.grad(math.hypot, argnums=(0, 1))(3e300, 4e300), lambda: (0.6, 0.8), tol=1e-15))
add(pair("r12_bool_mask_arith", lambda: revsrc.grad(lambda x: np.sum(x * (x > 0)))(np.array([-1.0, 2.0])), lambda: np.array([0.0, 1.0]), tol=0.0))
add(pair("r12_int_array_argument_refused_or_ok", lambda: revsrc.grad(lambda x, i: x[i] ** 2)(np.array([1.0, 2.0, 3.0]), np.int64(2)),
         lambda: np.array([0.0, 0.0, 6.0]), tol=0.0))


def complex_holo(z):
    return np.sum(z ** 2 + 1j * z)


add(pair("r12_complex_holomorphic", lambda: revsrc.grad(complex_holo, holomorphic=True)(np.array([1.0 + 2.0j, 0.5 - 1.0j])),
         lambda: 2 * np.array([1.0 + 2.0j, 0.5 - 1.0j]) + 1j, tol=1e-15))


def complex_inside_real_out(x):
    z = x[0] + 1j * x[1]
    w = np.exp(z) * np.conj(z)
    return np.abs(w) ** 2


add(G("r12_complex_intermediate_real_loss", complex_inside_real_out, (np.array([0.3, -0.7]),), ref="fd", tol=1e-7))


def complex_real_grad_jax_convention(z):
    return np.real(z * np.conj(z)) + np.imag(z)


add(pair("r12_complex_input_real_loss_vs_jax", lambda: revsrc.grad(complex_real_grad_jax_convention)(np.complex128(1.0 + 2.0j)),
         lambda: complex(jax().grad(jaxify(complex_real_grad_jax_convention))(np.complex128(1.0 + 2.0j))), tol=1e-15))
add(pair("r12_int_promoted_division", lambda: revsrc.grad(lambda x, n: x / n + n / x, argnums=0)(2.0, 3), lambda: 1 / 3 - 3 / 4, tol=1e-15))
add(pair("r12_int_argument_to_float_only_grad", lambda: revsrc.grad(lambda x: x * x)(3), lambda: 6.0, tol=0.0))
add(pair("r12_max_with_nan", lambda: revsrc.grad(lambda x: np.max(x))(np.array([1.0, np.nan, 0.5])),
         lambda: np.asarray(jax().grad(lambda x: jax().numpy.max(x))(np.array([1.0, np.nan, 0.5]))), tol=0.0))
add(pair("r12_sqrt_zero_inf_like_jax", lambda: revsrc.grad(lambda x: np.sum(np.sqrt(x)))(np.array([0.0, 1.0])),
         lambda: np.array([np.inf, 0.5]), tol=0.0))
add(pair("r12_vmap_float32_input", lambda: revsrc.vmap(lambda x: x * x + 1.0)(np.array([1.5, 2.0], dtype=np.float32)),
         lambda: np.array([3.25, 5.0], dtype=np.float32), tol=0.0))
add(pair("r12_vmap_float32_dtype", lambda: dtype_of(revsrc.vmap(lambda x: x * x + 1.0)(np.array([1.5, 2.0], dtype=np.float32))),
         lambda: "float32", tol=0.0))
add(pair("r12_vmap_empty_batch", lambda: revsrc.vmap(revsrc.grad(lambda x: x ** 3))(np.zeros(0)), lambda: np.zeros(0), tol=0.0))
add(pair("r12_jit_int_inputs_int_result", lambda: revsrc.jit(lambda a, b: a * b + 1)(2 ** 40, 3), lambda: 3 * 2 ** 40 + 1, tol=0.0))
add(pair("r12_jit_int_overflow_bigint", lambda: revsrc.jit(lambda a: a * a * a)(2 ** 30) == 2 ** 90, lambda: True, tol=0.0))


# -- NumPy float32 / float16 scalars: the value must be the plain call's (NumPy's arithmetic)
def affine(x):
    return x * 3 + 0.1


def affine_loop(x):
    y = x
    for _ in range(5):
        y = y * 1.1 + 0.01
    return y


F32 = np.float32(0.1)
add(pair("r12_value_and_grad_float32_scalar_value", lambda: revsrc.value_and_grad(affine)(F32)[0], lambda: affine(F32), tol=0.0))
add(pair("r12_value_and_grad_float32_scalar_loop_value", lambda: revsrc.value_and_grad(affine_loop)(F32)[0], lambda: affine_loop(F32), tol=0.0))
add(pair("r12_value_and_grad_float16_scalar_value", lambda: revsrc.value_and_grad(affine)(np.float16(0.1))[0],
         lambda: affine(np.float16(0.1)), tol=0.0))
add(pair("r12_jvp_float32_scalar_primal_out", lambda: revsrc.jvp(affine, (F32,), (np.float32(1.0),))[0], lambda: affine(F32), tol=0.0))
add(pair("r12_vjp_float32_scalar_primal_out", lambda: revsrc.vjp(affine, F32)[0], lambda: affine(F32), tol=0.0))
add(pair("r12_grad_float32_scalar_loop", lambda: revsrc.grad(affine_loop)(F32), lambda: np.float32(1.1) ** 5, tol=1e-7))
add(pair("r12_jit_float32_scalar_value", lambda: revsrc.jit(affine_loop)(F32), lambda: affine_loop(F32), tol=0.0))
add(pair("r12_value_and_grad_float32_array_value", lambda: revsrc.value_and_grad(lambda x: np.sum(x * 3 + 0.1))(np.array([0.1, 0.2], dtype=np.float32))[0],
         lambda: np.sum(np.array([0.1, 0.2], dtype=np.float32) * 3 + 0.1), tol=0.0))


# -- real losses of complex arrays, JAX's convention (d/d re - i d/d im)
ZC = np.array([1.0 + 2.0j, -0.5 + 0.3j])
HM = np.array([[2.0, 1j], [-1j, 3.0]])
SM = np.array([[2.0, 1j], [0.5, 1.0]])


def cx_angle(z):
    return np.sum(np.angle(z))


def cx_hermitian_form(z):
    return np.real(np.conj(z) @ HM @ z)


def cx_fft_power(z):
    return np.sum(np.abs(np.fft.fft(z)) ** 2)


def cx_solve(z):
    return np.sum(np.abs(np.linalg.solve(SM, z)) ** 2)


def cx_abs_sqrt(z):
    return np.sum(np.abs(np.sqrt(z)))


def cx_vdot(z):
    return np.real(np.vdot(z, z * 2j + 1))


for _n, _f in (("r12_complex_angle_sum", cx_angle), ("r12_complex_hermitian_form", cx_hermitian_form),
               ("r12_complex_fft_power", cx_fft_power), ("r12_complex_linalg_solve", cx_solve),
               ("r12_complex_abs_sqrt", cx_abs_sqrt), ("r12_complex_vdot", cx_vdot)):
    add(pair(_n, (lambda f: lambda: revsrc.grad(f)(ZC))(_f),
             (lambda f: lambda: np.asarray(jax().grad(jaxify(f))(ZC)))(_f), tol=1e-10))


# -- second derivatives through the modulus of a complex intermediate
def modsq_scalar(a):
    return abs(a + 0.5j) ** 2            # = a^2 + 0.25: second derivative 2


def modsq_array(x):
    return np.sum(np.abs(x[:2] + 1j * x[2:]) ** 2)      # = sum x^2: Hessian 2 I


def modulus_array(x):
    return np.sum(np.abs(x[:2] + 1j * x[2:]))


def conj_product_array(x):
    z = x[:2] + 1j * x[2:]
    return np.sum((z * np.conj(z)).real)


def real_exp_array(x):
    return np.sum(np.real(np.exp(x[:2] + 1j * x[2:])))


X4 = np.array([0.3, -1.2, 0.8, 2.0])


def _modulus_hessian():
    a, b = X4[:2], X4[2:]
    r = np.hypot(a, b)
    return np.block([[np.diag(b * b / r ** 3), np.diag(-a * b / r ** 3)], [np.diag(-a * b / r ** 3), np.diag(a * a / r ** 3)]])


def _real_exp_hessian():
    a, b = X4[:2], X4[2:]
    e = np.exp(a)
    return np.block([[np.diag(e * np.cos(b)), np.diag(-e * np.sin(b))], [np.diag(-e * np.sin(b)), np.diag(-e * np.cos(b))]])


add(pair("r12_grad_abs_complex_sq_scalar", lambda: revsrc.grad(modsq_scalar)(0.3), lambda: 0.6, tol=1e-14))
add(pair("r12_hessian_abs_complex_sq_scalar", lambda: revsrc.hessian(modsq_scalar)(0.3), lambda: 2.0, tol=1e-12))
add(pair("r12_grad_grad_abs_complex_sq_scalar", lambda: revsrc.grad(revsrc.grad(modsq_scalar))(0.3), lambda: 2.0, tol=1e-12))
add(pair("r12_hessian_np_abs_complex_sq_array", lambda: revsrc.hessian(modsq_array)(X4), lambda: 2 * np.eye(4), tol=1e-12))
add(pair("r12_hvp_np_abs_complex_sq_array", lambda: revsrc.hvp(modsq_array, (X4,), (np.ones(4),)), lambda: 2 * np.ones(4), tol=1e-12))
add(pair("r12_hessian_np_abs_complex_modulus", lambda: revsrc.hessian(modulus_array)(X4), _modulus_hessian, tol=1e-12))
add(pair("r12_hessian_complex_conj_product", lambda: revsrc.hessian(conj_product_array)(X4), lambda: 2 * np.eye(4), tol=1e-12))
add(pair("r12_hessian_real_exp_complex", lambda: revsrc.hessian(real_exp_array)(X4), _real_exp_hessian, tol=1e-12))


def abs_z_squared_product(x):
    z = x[:2] + 1j * x[2:]
    return np.sum(np.abs(z * z))           # = sum |z|^2: Hessian 2 I


def abs_exp_z(x):
    z = x[:2] + 1j * x[2:]
    return np.sum(np.abs(np.exp(z)))       # = sum exp(re z): Hessian diag(e^a, 0)


def norm_complex(x):
    return np.linalg.norm(x[:2] + 1j * x[2:])


def angle_sum(x):
    return np.sum(np.angle(x[:2] + 1j * x[2:]))


def fft_power_real_args(x):
    return np.sum(np.abs(np.fft.fft(x[:2] + 1j * x[2:])) ** 2)      # Parseval: 2 sum x^2


add(pair("r12_hessian_abs_of_z_times_z", lambda: revsrc.hessian(abs_z_squared_product)(X4), lambda: 2 * np.eye(4), tol=1e-12))
add(pair("r12_hessian_abs_of_exp_z", lambda: revsrc.hessian(abs_exp_z)(X4),
         lambda: np.diag(np.concatenate([np.exp(X4[:2]), np.zeros(2)])), tol=1e-12))
add(pair("r12_hessian_norm_of_complex", lambda: revsrc.hessian(norm_complex)(X4),
         lambda: (np.eye(4) - np.outer(X4, X4) / (X4 @ X4)) / np.sqrt(X4 @ X4), tol=1e-12))
add(pair("r12_hessian_angle_of_complex", lambda: revsrc.hessian(angle_sum)(X4),
         lambda: (lambda a, b, r2: np.block([[np.diag(2 * a * b / r2 ** 2), np.diag((b * b - a * a) / r2 ** 2)],
                                             [np.diag((b * b - a * a) / r2 ** 2), np.diag(-2 * a * b / r2 ** 2)]]))(X4[:2], X4[2:], X4[:2] ** 2 + X4[2:] ** 2),
         tol=1e-12))
add(pair("r12_hessian_fft_power_parseval", lambda: revsrc.hessian(fft_power_real_args)(X4), lambda: 4 * np.eye(4), tol=1e-12))
