"""Round 13, part x: more edge values and types -- NumPy scalar arguments (float32, float64,
0-d), float32 through hessian and vmap, complex FFT inputs, np.angle, integer batches to
vmap, empty batches, inf in unused branches, nan-skipping reductions."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def poly(x):
    return x ** 3 - 2 * x


def dtype_and_value(g):
    return (type(g).__name__ if not isinstance(g, np.ndarray) else "ndarray:" + str(g.dtype), float(g))


add(pair("r13_x_np_float64_scalar_arg", lambda: float(revsrc.grad(poly)(np.float64(1.5))), lambda: 3 * 2.25 - 2, tol=0.0))
add(pair("r13_x_np_float32_scalar_arg_value", lambda: float(revsrc.grad(poly)(np.float32(1.5))), lambda: 3 * 2.25 - 2, tol=1e-6))
add(pair("r13_x_np_float32_scalar_arg_dtype", lambda: np.asarray(revsrc.grad(poly)(np.float32(1.5))).dtype == np.float32,
         lambda: np.asarray(jax().grad(poly)(np.float32(1.5))).dtype == np.float32, tol=0.0))
add(pair("r13_x_float32_hessian_dtype_value", lambda: revsrc.hessian(lambda x: np.sum(x ** 3))(np.array([1.0, 2.0], dtype=np.float32)),
         lambda: np.diag([6.0, 12.0]), tol=1e-6))
add(pair("r13_x_vmap_float32_batch", lambda: revsrc.vmap(poly)(np.array([0.5, 1.5], dtype=np.float32)),
         lambda: np.array([poly(np.float32(0.5)), poly(np.float32(1.5))], dtype=np.float32), tol=0.0))
add(pair("r13_x_vmap_int_batch", lambda: revsrc.vmap(lambda n: n * n + 1)(np.array([1, 2, 3])), lambda: np.array([2, 5, 10]), tol=0.0))
add(pair("r13_x_vmap_empty_batch", lambda: revsrc.vmap(revsrc.grad(poly))(np.zeros(0)).shape, lambda: (0,), tol=0.0))
add(pair("r13_x_jit_np_float64_arg", lambda: revsrc.jit(revsrc.grad(poly))(np.float64(1.5)), lambda: 4.75, tol=0.0))


def fft_complex_in(z):
    return np.sum(np.abs(np.fft.fft(z)) ** 2)


ZZ = np.array([1.0 + 0.5j, -0.3 + 0.2j, 0.7 - 1.0j, 0.1 + 0.0j])
# Parseval: sum |FFT z|^2 = N sum |z|^2; JAX's convention: grad = conj(d/dz) ... = 2 N z
add(pair("r13_x_fft_of_complex_input", lambda: revsrc.grad(fft_complex_in)(ZZ),
         lambda: jax().grad(lambda z: jax().numpy.sum(jax().numpy.abs(jax().numpy.fft.fft(z)) ** 2))(ZZ), tol=1e-12))


def angle_loss(x):
    z = x[0] + 1j * x[1]
    return np.angle(z * z) + np.abs(z)


add(G("r13_x_np_angle", angle_loss, (np.array([0.6, 0.3]),), ref="fd"))


def unused_inf(x):
    big = math.inf * x if x > 100 else 0.0
    return x * x + big


add(G("r13_x_inf_in_untaken_branch", unused_inf, (2.0,), ref=lambda: 4.0, tol=0.0))
add(G("r13_x_nansum_skips", lambda w: np.nansum(np.array([1.0, np.nan, 3.0]) * w), (np.array([0.5, 2.0, -1.0]),),
      ref=lambda: np.array([1.0, 0.0, 3.0]), tol=0.0))
add(G("r13_x_nanmean_skips", lambda w: np.nanmean(np.array([1.0, np.nan, 3.0]) * w), (np.array([0.5, 2.0, -1.0]),),
      ref=lambda: np.array([0.5, 0.0, 1.5]), tol=0.0))
add(G("r13_x_where_sqrt_negative", lambda x: np.sum(np.where(x > 0, np.sqrt(np.abs(x)), 0.0)), (np.array([-1.0, 4.0]),),
      ref=lambda: np.array([0.0, 0.25]), tol=0.0))
add(G("r13_x_pow_zero_base", lambda x: x ** 3.0 + x ** 2, (0.0,), ref=lambda: 0.0, tol=0.0))
add(G("r13_x_abs_at_zero", lambda x: abs(x) + np.abs(x), (0.0,), ref=lambda: 0.0, tol=0.0))
add(G("r13_x_huge_exp_overflow_inf", lambda x: math.exp(x) * 0.0 + x if x < 700 else x, (800.0,), ref=lambda: 1.0, tol=0.0))
add(G("r13_x_mixed_int_float_list", lambda xs: xs[0] * 2 + xs[1] ** 2, ([1.5, 2.5],), ref=lambda: [2.0, 5.0], tol=0.0))
add(G("r13_x_tuple_arg_with_int_not_diff", lambda x, cfg: x * cfg[0] + cfg[1] * len(cfg[2]), (1.5, (3, 0.5, "tag")), ref=lambda: 3.0, tol=0.0))
add(G("r13_x_bool_array_sum_as_count", lambda x, m: x * np.sum(m), (1.5, np.array([True, False, True])), ref=lambda: 2.0, tol=0.0))
add(G("r13_x_uint8_image_scaled", lambda w, img: np.sum(w * img.astype(float) / 255.0), (np.array([1.0, 2.0]), np.array([255, 51], dtype=np.uint8)),
      ref=lambda: np.array([1.0, 0.2]), tol=1e-15))
add(G("r13_x_int64_overflow_safe_float", lambda x, n: x * float(n), (1.5, 2 ** 62), ref=lambda: float(2 ** 62), tol=0.0))
add(G("r13_x_big_python_int_times_float", lambda x, n: x * n, (1.5, 10 ** 30), ref=lambda: 1e30, tol=0.0))
