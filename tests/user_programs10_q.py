"""Round 10, series and recurrences from acoustics, optics and numerical analysis with
integer-driven signs and exponents: alternating series with (-1) ** k, Fourier-series
square waves, Bessel J0 by its power series, Fresnel-like integrals by Simpson, Padé
approximants, Chebyshev recurrences with an int order, binomial expansions with
math.comb, each by grad, jit and vmap."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []


def log1p_series(x, n=40):
    s = 0.0
    for k in range(1, n + 1):
        s += (-1) ** (k + 1) * x ** k / k
    return s


CASES.append(G("r10_alternating_series_log1p", log1p_series, (0.3,), ref=lambda: 1 / 1.3))
CASES.append(pair("r10_jit_alternating_series", lambda: revsrc.jit(log1p_series)(0.3), lambda: log1p_series(0.3), tol=0.0))
CASES.append(pair("r10_vmap_alternating_series", lambda: revsrc.vmap(log1p_series)(np.array([0.1, 0.3, -0.2])),
                  lambda: np.array([log1p_series(v) for v in (0.1, 0.3, -0.2)]), tol=0.0))


def square_wave(t, n_terms=15):
    s = 0.0
    for k in range(n_terms):
        m = 2 * k + 1
        s += math.sin(m * t) / m
    return 4 / math.pi * s


CASES.append(G("r10_fourier_square_wave", square_wave, (0.7,), ref="jax"))
CASES.append(pair("r10_jit_fourier_square_wave", lambda: revsrc.jit(square_wave)(0.7), lambda: square_wave(0.7), tol=0.0))


def bessel_j0(x, terms=25):
    s = 0.0
    for m in range(terms):
        s += (-1) ** m / math.factorial(m) ** 2 * (x / 2) ** (2 * m)
    return s


# J0' = -J1
def bessel_j1(x, terms=25):
    return sum((-1) ** m / (math.factorial(m) * math.factorial(m + 1)) * (x / 2) ** (2 * m + 1) for m in range(terms))


CASES.append(G("r10_bessel_j0_series", bessel_j0, (2.4,), ref=lambda: -bessel_j1(2.4), tol=1e-9))
CASES.append(pair("r10_jit_bessel_j0", lambda: revsrc.jit(bessel_j0)(2.4), lambda: bessel_j0(2.4), tol=0.0))


def fresnel_c(x, n=40):
    h = x / n
    s = math.cos(0.0) + math.cos(math.pi / 2 * x * x)
    for i in range(1, n):
        t = i * h
        s += (4 if i % 2 else 2) * math.cos(math.pi / 2 * t * t)
    return s * h / 3


CASES.append(G("r10_fresnel_simpson_mod_weights", fresnel_c, (1.1,), ref=lambda: math.cos(math.pi / 2 * 1.21), tol=1e-6))
CASES.append(pair("r10_jit_fresnel_simpson", lambda: revsrc.jit(fresnel_c)(1.1), lambda: fresnel_c(1.1), tol=0.0))


def pade_exp(x):
    # (3,3) Padé of exp
    num = 1 + x / 2 + x * x / 10 + x ** 3 / 120
    den = 1 - x / 2 + x * x / 10 - x ** 3 / 120
    return num / den


CASES.append(G("r10_pade_exp_33", pade_exp, (0.4,), ref="jax"))


def chebyshev_T(n, x):
    if n == 0:
        return 1.0
    t0, t1 = 1.0, x
    for _ in range(n - 1):
        t0, t1 = t1, 2 * x * t1 - t0
    return t1


# T_n'(cos th) = n sin(n th) / sin th
CASES.append(G("r10_chebyshev_int_order", chebyshev_T, (7, math.cos(0.6)), argnums=1,
               ref=lambda: 7 * math.sin(4.2) / math.sin(0.6)))
CASES.append(pair("r10_vmap_chebyshev_int_order", lambda: revsrc.vmap(chebyshev_T, in_axes=(None, 0))(5, np.array([0.1, 0.5, -0.9])),
                  lambda: np.array([chebyshev_T(5, v) for v in (0.1, 0.5, -0.9)]), tol=0.0))


def binomial_expansion(x, y, n=6):
    return sum(math.comb(n, k) * x ** k * y ** (n - k) for k in range(n + 1))


CASES.append(G("r10_math_comb_binomial_expansion", binomial_expansion, (0.3, 0.9), argnums=(0, 1),
               ref=lambda: (6 * 1.2 ** 5, 6 * 1.2 ** 5)))


def int_pow_sign_mix(x, k):
    return (-1) ** k * x ** k + (-2.0) ** k * x


CASES.append(pair("r10_jit_negative_int_base_powers", lambda: [revsrc.jit(int_pow_sign_mix)(1.3, k) for k in range(5)],
                  lambda: [int_pow_sign_mix(1.3, k) for k in range(5)], tol=0.0))
CASES.append(G("r10_grad_negative_int_base_powers", int_pow_sign_mix, (1.3, 3), ref=lambda: -3 * 1.69 - 8.0))


def zeta_partial(s, n=200):
    return sum(k ** -s for k in range(1, n + 1))


CASES.append(G("r10_zeta_partial_int_base", zeta_partial, (2.5,), ref=lambda: -sum(math.log(k) * k ** -2.5 for k in range(1, 201))))
CASES.append(pair("r10_jit_zeta_partial_int_base", lambda: revsrc.jit(zeta_partial)(2.5), lambda: zeta_partial(2.5), tol=0.0))


def leibniz_pi(n):
    return 4 * sum((-1) ** k / (2 * k + 1) for k in range(n))


CASES.append(pair("r10_jit_leibniz_int_only", lambda: revsrc.jit(leibniz_pi)(1000), lambda: leibniz_pi(1000), tol=0.0))


def int_floor_div_index(x, n=12):
    s = 0.0
    for i in range(n):
        s += x ** (i // 3) * (i % 4)
    return s


CASES.append(G("r10_floordiv_mod_exponents", int_floor_div_index, (1.2,),
               ref=lambda: sum((i // 3) * 1.2 ** (i // 3 - 1) * (i % 4) for i in range(12))))
CASES.append(pair("r10_jit_floordiv_mod_exponents", lambda: revsrc.jit(int_floor_div_index)(1.2), lambda: int_floor_div_index(1.2), tol=0.0))
