"""Round 14, part k: edge values and types -- zeros, inf/nan, ints vs floats, float32,
0-d arrays, empty arrays, huge and subnormal values, complex numbers, bool and int arrays
as arguments, Python ints past 2**53."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def norm_plus(x):
    return np.linalg.norm(x) + np.sum(x ** 2)


# documented (guide/api.md): the subgradient 0 at a kink, np.linalg.norm at the zero vector
add(pair("r14_norm_at_zero_subgradient", lambda: revsrc.grad(norm_plus)(np.zeros(3)), lambda: np.zeros(3), tol=0.0))


def sqrt_sum(x):
    return math.sqrt(x * x + 0.0)


add(pair("r14_sqrt_of_square_at_zero", lambda: np.isnan(revsrc.grad(sqrt_sum)(0.0)) or revsrc.grad(sqrt_sum)(0.0) == 0.0, lambda: True, tol=0.0))


def with_inf(x, cap):
    return min(x * 2.0, cap) + x


add(pair("r14_min_with_inf_cap", lambda: revsrc.grad(with_inf)(3.0, math.inf), lambda: 3.0, tol=0.0))
add(pair("r14_grad_wrt_inf_cap", lambda: revsrc.grad(with_inf, argnums=1)(3.0, math.inf), lambda: 0.0, tol=0.0))


def nan_guard(x):
    y = np.where(np.isnan(x), 0.0, x)
    return np.sum(y ** 2)


XN = np.array([1.0, np.nan, -2.0])
add(pair("r14_nan_guard_where", lambda: revsrc.grad(nan_guard)(XN), lambda: np.array([2.0, 0.0, -4.0]), tol=0.0))


def nansum_loss(x):
    return np.nansum(x ** 2) + np.nanmax(x)


add(pair("r14_nansum_nanmax", lambda: revsrc.grad(nansum_loss)(XN), lambda: np.array([3.0, 0.0, -4.0]), tol=0.0))


def int_float_mix(x, n):
    return x ** n + n * x + (n // 2) * x * x


add(pair("r14_int_argument_power", lambda: revsrc.grad(int_float_mix)(1.5, 3), lambda: 3 * 2.25 + 3 + 2 * 1.5, tol=1e-14))
add(pair("r14_int_input_to_grad", lambda: revsrc.grad(lambda x: x * x * 1.5)(2), lambda: 6.0, tol=0.0))


def f32_loss(x):
    return np.sum(np.tanh(x) * x)


X32 = np.array([0.5, -1.0, 2.0], dtype=np.float32)
add(pair("r14_float32_grad_dtype", lambda: str(revsrc.grad(f32_loss)(X32).dtype), lambda: "float32", tol=0.0))
add(pair("r14_float32_grad_values", lambda: revsrc.grad(f32_loss)(X32),
         lambda: (np.tanh(X32) + X32 * (1 - np.tanh(X32) ** 2)).astype(np.float32), tol=1e-6))
add(pair("r14_float32_value_and_grad_value", lambda: revsrc.value_and_grad(f32_loss)(X32)[0], lambda: f32_loss(X32), tol=0.0))


def zero_d(x):
    return x * np.sin(x)


X0D = np.array(0.7)
add(pair("r14_zero_d_array_grad", lambda: revsrc.grad(zero_d)(X0D), lambda: np.sin(0.7) + 0.7 * np.cos(0.7), tol=1e-14))
add(pair("r14_zero_d_array_grad_shape", lambda: np.shape(revsrc.grad(zero_d)(X0D)), lambda: (), tol=0.0))


def empty_ok(x, extra):
    return np.sum(x ** 2) + np.sum(extra * 3.0)


add(pair("r14_empty_array_argument", lambda: revsrc.grad(empty_ok, argnums=(0, 1))(np.array([1.0, 2.0]), np.zeros(0)),
         lambda: (np.array([2.0, 4.0]), np.zeros(0)), tol=0.0))
add(pair("r14_empty_loop_zero_grad", lambda: revsrc.grad(lambda x: sum(v * v for v in x[:0]) + 0.0 * x[0])(np.array([1.0])),
         lambda: np.array([0.0]), tol=0.0))


def huge(x):
    return x * 1e300 * 1e-300 + math.exp(x) * 1e-300


add(pair("r14_huge_scales", lambda: revsrc.grad(huge)(700.0), lambda: 1.0 + math.exp(700.0) * 1e-300, tol=1e-14))
add(pair("r14_subnormal_input", lambda: revsrc.grad(lambda x: x * x + 3.0 * x)(5e-324), lambda: 3.0, tol=0.0))


def complex_holo(z):
    return np.sum(z ** 2 * np.exp(1j * z))


ZC = np.array([0.3 + 0.2j, -0.5 + 1.0j])
add(pair("r14_complex_holomorphic", lambda: revsrc.grad(complex_holo, holomorphic=True)(ZC),
         lambda: 2 * ZC * np.exp(1j * ZC) + 1j * ZC ** 2 * np.exp(1j * ZC), tol=1e-13))


def complex_to_real(x):
    z = x[0] + 1j * x[1]
    w = z * z * np.exp(z)
    return abs(w) ** 2 + w.real


add(G("r14_complex_intermediate_real_out", complex_to_real, (np.array([0.4, -0.3]),), ref="fd", tol=1e-8))


def mask_arg(x, m):
    return np.sum(x[m] ** 2) + np.sum(np.where(m, 0.0, x))


MB = np.array([True, False, True])
add(pair("r14_bool_array_argument", lambda: revsrc.grad(mask_arg)(np.array([1.0, 2.0, 3.0]), MB), lambda: np.array([2.0, 1.0, 6.0]), tol=0.0))


def int_idx_arg(x, idx):
    return np.sum(x[idx] * np.arange(1.0, len(idx) + 1))


add(pair("r14_int_array_argument_repeats", lambda: revsrc.grad(int_idx_arg)(np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2])),
         lambda: np.array([2.0, 0.0, 4.0]), tol=0.0))


def bigint(x, n):
    return x * (n % 1000) + x * x * (n // 2 ** 60)


N_BIG = 2 ** 70 + 123
add(pair("r14_python_int_past_2_53", lambda: revsrc.grad(bigint)(1.5, N_BIG), lambda: float(N_BIG % 1000) + 3.0 * (N_BIG // 2 ** 60), tol=1e-14))
add(pair("r14_python_int_past_2_53_float_mult", lambda: revsrc.grad(lambda x: x * (2 ** 53 + 1))(1.0), lambda: float(2 ** 53 + 1), tol=0.0))
add(pair("r14_jit_bigint_value", lambda: revsrc.jit(bigint)(1.5, N_BIG), lambda: bigint(1.5, N_BIG), tol=0.0))


def inf_input(x):
    return np.sum(np.exp(-x))


add(pair("r14_inf_input_exp", lambda: revsrc.grad(inf_input)(np.array([np.inf, 1.0])), lambda: np.array([-0.0, -math.exp(-1.0)]), tol=0.0))


def abs_at_zero(x):
    return abs(x) + np.abs(x) + max(x, 0.0)


# documented (guide/api.md): abs at 0 has derivative 0, a tie of max splits it 1/2 each
add(pair("r14_abs_max_at_zero_documented", lambda: revsrc.grad(abs_at_zero)(0.0), lambda: 0.5, tol=0.0))
add(pair("r14_abs_max_away_from_zero", lambda: revsrc.grad(abs_at_zero)(-0.25), lambda: -2.0, tol=0.0))
add(pair("r14_vmap_int_array_input", lambda: revsrc.vmap(lambda k: k * k + 1)(np.array([1, 2, 3])), lambda: np.array([2, 5, 10]), tol=0.0))
add(pair("r14_vmap_int_array_dtype", lambda: str(revsrc.vmap(lambda k: k * k + 1)(np.array([1, 2, 3])).dtype), lambda: str(np.array([2]).dtype), tol=0.0))
