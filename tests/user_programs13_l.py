"""Round 13, part l: edge values and types -- zeros, inf/nan, ints vs floats, float32, 0-d
arrays, empty arrays, huge/subnormal values, complex numbers, bool and integer arrays."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def norm_safe(x):
    n = np.sqrt(np.sum(x * x))
    if n == 0.0:
        return 0.0
    return n


add(G("r13_l_norm_at_zero_branch", norm_safe, (np.zeros(3),), ref=lambda: np.zeros(3), tol=0.0))
add(G("r13_l_norm_nonzero", norm_safe, (np.array([3.0, 4.0, 0.0]),), ref=lambda: np.array([0.6, 0.8, 0.0]), tol=1e-15))


def relu_sum(x):
    return np.sum(np.maximum(x, 0.0))


add(G("r13_l_relu_at_zero_tie", relu_sum, (np.array([0.0, 1.0, -1.0]),), ref=lambda: jax().grad(lambda x: jax().numpy.sum(jax().numpy.maximum(x, 0.0)))(np.array([0.0, 1.0, -1.0])), tol=0.0))


def masked_mean_nan(x):
    ok = ~np.isnan(x)
    return np.sum(np.where(ok, x, 0.0) ** 2) / np.sum(ok)


XN = np.array([1.0, np.nan, 2.0, np.nan])
add(G("r13_l_nan_masked_where", masked_mean_nan, (XN,), ref=lambda: np.array([1.0, 0.0, 2.0, 0.0]), tol=0.0))


def inf_clip(x):
    return np.sum(np.clip(x, -5.0, 5.0) * 2.0)


add(G("r13_l_inf_clipped", inf_clip, (np.array([np.inf, -np.inf, 1.0]),), ref=lambda: np.array([0.0, 0.0, 2.0]), tol=0.0))
add(pair("r13_l_inf_clipped_value", lambda: revsrc.value_and_grad(inf_clip)(np.array([np.inf, -np.inf, 1.0]))[0], lambda: 2.0, tol=0.0))


def exp_overflow_safe(x):
    return math.exp(min(x, 700.0))


add(G("r13_l_huge_min_clamp", exp_overflow_safe, (1e5,), ref=lambda: 0.0, tol=0.0))
add(G("r13_l_subnormal_input", lambda x: x * x + math.sin(x), (5e-320,), ref=lambda: 1.0, tol=0.0))
add(G("r13_l_subnormal_scale", lambda x: 1e300 * x * 1e10, (3e-310,), ref=lambda: 1e300 * 1e10, tol=1e-15))


def int_mix(x, n):
    return x ** n + n * x / 2


add(G("r13_l_int_exponent_arg", int_mix, (1.5, 3), ref=lambda: 3 * 1.5 ** 2 + 1.5, tol=1e-15))
add(VG("r13_l_int_exponent_value", int_mix, (1.5, 3), ref=lambda: 3 * 1.5 ** 2 + 1.5, tol=0.0))
add(G("r13_l_int_arg_refused", int_mix, (2, 3), ref=lambda: 15.0, tol=0.0))


def f32_loss(x):
    return np.sum(np.sin(x) * x)


X32 = np.array([0.5, 1.5, -0.25], dtype=np.float32)


def f32_case():
    g = revsrc.grad(f32_loss)(X32)
    return (str(np.asarray(g).dtype), np.asarray(g, float))


add(pair("r13_l_float32_dtype_kept", f32_case,
         lambda: (str(jax().grad(lambda x: jax().numpy.sum(jax().numpy.sin(x) * x))(jax().numpy.asarray(X32)).dtype),
                  (np.cos(X32.astype(float)) * X32 + np.sin(X32.astype(float)))), tol=1e-6))
add(G("r13_l_zero_d_array", lambda x: np.sin(x) * x, (np.array(0.7),), ref=lambda: np.cos(0.7) * 0.7 + np.sin(0.7), tol=1e-15))
add(pair("r13_l_zero_d_array_shape", lambda: np.shape(revsrc.grad(lambda x: np.sin(x) * x)(np.array(0.7))), lambda: (), tol=0.0))


def empty_sum(x, w):
    return np.sum(x ** 2) + w * np.sum(x)


add(G("r13_l_empty_array", empty_sum, (np.zeros(0), 2.0), argnums=(0, 1), ref=lambda: (np.zeros(0), 0.0), tol=0.0))
add(G("r13_l_empty_max_initial", lambda x, a: np.max(x, initial=a), (np.zeros(0), 1.5), argnums=1, ref=lambda: 1.0, tol=0.0))


def complex_mag(z):
    return np.sum(np.abs(z * (1 + 2j)) ** 2)


ZC = np.array([1.0 + 0.5j, -0.3 + 2.0j])
# |z(1+2i)|^2 = 5|z|^2: JAX's convention for real output, complex input: conj of d/dz... = 10 z
add(pair("r13_l_complex_input_real_output", lambda: revsrc.grad(complex_mag)(ZC),
         lambda: jax().grad(lambda z: jax().numpy.sum(jax().numpy.abs(z * (1 + 2j)) ** 2))(ZC), tol=1e-12))
add(pair("r13_l_complex_holomorphic", lambda: revsrc.grad(lambda z: z * z + 3 * z, holomorphic=True)(1.0 + 2.0j),
         lambda: 2 * (1.0 + 2.0j) + 3, tol=1e-15))


def real_of_complex_chain(x):
    z = x * np.exp(1j * x)
    return np.real(z * np.conj(z)) + np.imag(z)


add(G("r13_l_real_arg_complex_intermediate", real_of_complex_chain, (0.8,), ref=lambda: 2 * 0.8 + math.sin(0.8) + 0.8 * math.cos(0.8), tol=1e-14))


def bool_array_arg(x, mask):
    return np.sum(x[mask] ** 2) + np.sum(np.where(mask, 0.0, x))


MB = np.array([True, False, True, False])
XB = np.array([1.0, 2.0, 3.0, 4.0])
add(G("r13_l_bool_array_argument", bool_array_arg, (XB, MB), ref=lambda: np.array([2.0, 1.0, 6.0, 1.0]), tol=0.0))


def int_array_index(x, idx):
    return np.sum(x[idx] * np.arange(len(idx)))


add(G("r13_l_int_array_argument_gather", int_array_index, (XB, np.array([3, 0, 3, 1])), ref=lambda: np.array([1.0, 3.0, 0.0, 2.0]), tol=0.0))
add(G("r13_l_int_array_as_data", lambda w, n: np.sum(w * n), (XB, np.array([1, 2, 3, 4])), ref=lambda: np.array([1.0, 2.0, 3.0, 4.0]), tol=0.0))


def nan_grad_expected(x):
    return math.sqrt(x)


add(G("r13_l_sqrt_at_zero_inf", nan_grad_expected, (0.0,), ref=lambda: math.inf, tol=0.0))
add(G("r13_l_nan_input_propagates", lambda x: x * x, (math.nan,), ref=lambda: math.nan, tol=0.0))
add(G("r13_l_log_of_huge", lambda x: math.log(x), (1e308,), ref=lambda: 1e-308, tol=1e-15))
add(G("r13_l_bool_flag_python", lambda x, flag: x * 2 if flag else x * 3, (1.0, True), ref=lambda: 2.0, tol=0.0))
add(G("r13_l_int_div_floor", lambda x: x * (7 // 2) + (x // 1.0), (2.5,), ref=lambda: 3.0, tol=0.0))
