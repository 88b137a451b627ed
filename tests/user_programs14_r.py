"""Round 14, part r: complex arithmetic and FFTs inside real losses, linearize at points
on different branches, vmap of loops whose lanes stop at different iterations, while
loops under memory=, jvp with int and zero tangents."""
import math
import cmath

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

X8 = np.array([0.3, -0.1, 0.8, 0.2, -0.5, 0.4, 0.0, 0.9])


def spectral_loss(x):
    F = np.fft.rfft(x)
    p = np.abs(F) ** 2
    return np.sum(p[1:4]) / np.sum(p)


add(G("r14_r_rfft_power_ratio", spectral_loss, (X8,), ref="fd", tol=1e-8))


def fft_filter(x):
    F = np.fft.fft(x)
    k = np.fft.fftfreq(len(x))
    F = F * np.exp(-(k / 0.2) ** 2)
    y = np.fft.ifft(F).real
    return np.sum(y ** 3)


add(G("r14_r_fft_gaussian_filter_ifft_real", fft_filter, (X8,), ref="fd", tol=1e-8))


def phasor(params):
    amp, ph, w = params
    t = np.linspace(0.0, 1.0, 6)
    z = amp * np.exp(1j * (w * t + ph))
    target = np.cos(3.0 * t) + 0.5j * np.sin(3.0 * t)
    return np.sum(np.abs(z - target) ** 2) + np.angle(z[2]) ** 2


add(G("r14_r_phasor_fit_angle", phasor, (np.array([0.8, 0.1, 2.5]),), ref="fd", tol=1e-7))


def cmath_loop(x):
    z = complex(x, 0.5)
    for _ in range(4):
        z = cmath.exp(0.3 * z) + z * z * 0.1
    return z.real * z.imag + abs(z)


add(pair("r14_r_cmath_loop_real_out", lambda: revsrc.grad(cmath_loop)(0.4), lambda: fd_checked(cmath_loop, (0.4,))[0], tol=1e-7))


def complex_arg_nonholo(z):
    return np.sum(np.abs(z) ** 2 + z.real * 2.0)


ZZ = np.array([1.0 + 2.0j, -0.5 + 0.3j])
add(pair("r14_r_grad_wrt_complex_nonholomorphic_jax_convention", lambda: revsrc.grad(complex_arg_nonholo)(ZZ),
         lambda: jax().grad(jaxify(complex_arg_nonholo))(ZZ), tol=1e-13))


def piecewise(x):
    if x[0] > 0:
        return np.array([x[0] ** 2, x[1] * x[0]])
    return np.array([-x[0], x[1] ** 3])


add(pair("r14_r_linearize_positive_branch", lambda: revsrc.linearize(piecewise, np.array([0.5, 2.0]))[1](np.array([1.0, -1.0])),
         lambda: np.array([1.0, 2.0 - 0.5]), tol=1e-14))
add(pair("r14_r_linearize_negative_branch", lambda: revsrc.linearize(piecewise, np.array([-0.5, 2.0]))[1](np.array([1.0, -1.0])),
         lambda: np.array([-1.0, -12.0]), tol=1e-14))


def _lin_twice():
    y, fj = revsrc.linearize(piecewise, np.array([0.5, 2.0]))
    return y, fj(np.array([1.0, 0.0])), fj(np.array([0.0, 1.0]))


add(pair("r14_r_linearize_called_twice", _lin_twice, lambda: (np.array([0.25, 1.0]), np.array([1.0, 2.0]), np.array([0.0, 0.5])), tol=1e-14))


def collatz_like(x, cap=50):
    # a while loop whose iteration count depends on x
    y = x
    n = 0
    while y > 1.0 and n < cap:
        if n % 2 == 0:
            y = y * 0.7
        else:
            y = y - 0.3
        n += 1
    return y * n


XS = np.array([0.5, 1.5, 3.0, 10.0, 40.0])


def _collatz_grad(x):
    y, n, dy = x, 0, 1.0
    while y > 1.0 and n < 50:
        if n % 2 == 0:
            y, dy = y * 0.7, dy * 0.7
        else:
            y = y - 0.3
        n += 1
    return dy * n


add(pair("r14_r_vmap_while_lanes_stop_differently", lambda: revsrc.vmap(collatz_like)(XS), lambda: np.array([collatz_like(x) for x in XS]), tol=0.0))
add(pair("r14_r_vmap_grad_while_lanes", lambda: revsrc.vmap(revsrc.grad(collatz_like))(XS), lambda: np.array([_collatz_grad(x) for x in XS]), tol=1e-14))
add(pair("r14_r_jit_grad_while_lanes", lambda: [revsrc.jit(revsrc.grad(collatz_like))(x) for x in XS], lambda: [_collatz_grad(x) for x in XS], tol=1e-14))


def early_exit(x):
    for k in range(20):
        if x > 5.0:
            return x * k
        x = x * 1.4 + 0.1
    return -x


add(pair("r14_r_vmap_early_return_in_loop", lambda: revsrc.vmap(revsrc.value_and_grad(early_exit))(np.array([0.2, 1.0, 6.0, -1.0])),
         lambda: (np.array([early_exit(x) for x in (0.2, 1.0, 6.0, -1.0)]),
                  np.array([fd_checked(early_exit, (x,), h=1e-7)[0] for x in (0.2, 1.0, 6.0, -1.0)])), tol=1e-6))


def damped_while(a, steps=300):
    x = np.array([1.0, 0.0, 0.5])
    k = 0
    while k < steps:
        x = x + 0.01 * np.array([x[1], -a * x[0] - 0.1 * x[1], -x[2] * x[0]])
        k += 1
        if np.abs(x).max() < 1e-3:
            break
    return np.sum(x ** 2)


add(pair("r14_r_while_memory_checkpoint", lambda: revsrc.grad(damped_while, memory=10)(2.0),
         lambda: fd_checked(damped_while, (2.0,))[0], tol=1e-6))
add(pair("r14_r_while_memory_same_as_plain", lambda: revsrc.grad(damped_while, memory=10)(2.0), lambda: revsrc.grad(damped_while)(2.0), tol=1e-12))


def int_and_float(x, n):
    return x ** n


add(pair("r14_r_jvp_zero_tangent", lambda: revsrc.jvp(lambda x, y: x * y, (2.0, 3.0), (0.0, 1.0)), lambda: (6.0, 2.0), tol=0.0))
add(pair("r14_r_jvp_array_int_tangent", lambda: revsrc.jvp(lambda x: np.sum(x ** 2), (np.array([1.0, 2.0]),), (np.array([1.0, 1.0]),)), lambda: (5.0, 6.0), tol=0.0))
add(pair("r14_r_hvp_tuple_argnums", lambda: revsrc.hvp(lambda a, b: a * a * b + b ** 3, (2.0, 3.0), (1.0, 0.0), argnums=(0, 1)),
         lambda: (6.0, 4.0), tol=1e-14))


def cmath_loop_literal(x):
    z = x + 0.5j
    for _ in range(4):
        z = cmath.exp(0.3 * z) + z * z * 0.1
    return z.real * z.imag + abs(z) + cmath.phase(z)


add(pair("r14_r_cmath_loop_imag_literal", lambda: revsrc.grad(cmath_loop_literal)(0.4), lambda: fd_checked(cmath_loop_literal, (0.4,))[0], tol=1e-7))
add(pair("r14_r_cmath_loop_hessian", lambda: revsrc.hessian(cmath_loop_literal)(0.4),
         lambda: (fd_checked(cmath_loop_literal, (0.4 + 1e-4,))[0] - fd_checked(cmath_loop_literal, (0.4 - 1e-4,))[0]) / 2e-4, tol=1e-5))


def np_complex_loop(x):
    z = x + 0.5j
    for _ in range(4):
        z = np.exp(0.3 * z) + z * z * 0.1
    return z.real * z.imag + abs(z) + np.angle(z)


add(pair("r14_r_np_complex_loop", lambda: revsrc.grad(np_complex_loop)(0.4), lambda: fd_checked(np_complex_loop, (0.4,))[0], tol=1e-7))
add(pair("r14_r_np_complex_loop_hessian", lambda: revsrc.hessian(np_complex_loop)(0.4),
         lambda: (fd_checked(np_complex_loop, (0.4 + 1e-4,))[0] - fd_checked(np_complex_loop, (0.4 - 1e-4,))[0]) / 2e-4, tol=1e-5))
