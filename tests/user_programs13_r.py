"""Round 13, part r: revsrc.jit / revsrc.vmap / backend="engine" on scalar programs of this
round (SIR steps, pendulums, Kepler-like Newton, samplers' arithmetic): the docs promise
the digits of the plain call, so every value here is compared bit for bit (tol=0.0)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def same(name, f, *args):
    add(pair(name, lambda: revsrc.jit(f)(*args), lambda: f(*args), tol=0.0))


def sir_days(beta, gamma, thresh):
    S, I, R = 0.999, 0.001, 0.0
    day = 0
    while I < thresh and day < 400:
        new = beta * S * I
        S -= new
        I += new - gamma * I
        R += gamma * I
        day += 1
    return day, I, R


same("r13_r_jit_sir_days_tuple", sir_days, 0.35, 0.1, 0.05)
same("r13_r_jit_sir_days_never", sir_days, 0.05, 0.1, 0.05)


def int_float_mix(n, x):
    s = 0
    for k in range(n):
        s += k * k % 7 - (k // 3)
        if k % 4 == 3:
            s -= 1
    return s * x + (-7) // 2 + (-7) % 3 + 7.5 // -2 + math.fmod(-7.5, 2.0) + (-7.5) % 2.0


same("r13_r_jit_int_floor_mod_negative", int_float_mix, 23, 0.3)


def rounding(x):
    return round(x, 2) + round(x) + int(x) + math.floor(x) + math.ceil(-x) + math.trunc(-x) + abs(x) * math.copysign(1.0, -x)


same("r13_r_jit_rounding_pos", rounding, 2.675)
same("r13_r_jit_rounding_neg", rounding, -3.5)
same("r13_r_jit_rounding_half_even", rounding, 2.5)


def pow_mix(x, n):
    return x ** n + x ** -n + (-x) ** 3 + x ** 0.5 + 2 ** n + n ** 2 + math.pow(x, 1.5) + pow(n, 3, 5)


same("r13_r_jit_pow_mix", pow_mix, 1.7, 3)


def bool_arith(x):
    b = x > 1.0
    c = (x < 3.0) + b
    return c * x + b - (not b) + (b and x) + (b or 2.0)


same("r13_r_jit_bool_arith_true", bool_arith, 2.0)
same("r13_r_jit_bool_arith_false", bool_arith, 0.5)


def kepler(M, e):
    E = M if e < 0.8 else math.pi
    for _ in range(50):
        dE = (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
        E -= dE
        if abs(dE) < 1e-15:
            break
    return E


same("r13_r_jit_kepler", kepler, 1.3, 0.4)
same("r13_r_jit_kepler_high_e", kepler, 0.2, 0.95)
add(pair("r13_r_vmap_kepler_bits", lambda: revsrc.vmap(kepler, in_axes=(0, None))(np.array([0.1, 1.3, 2.9]), 0.6),
         lambda: np.array([kepler(m, 0.6) for m in (0.1, 1.3, 2.9)]), tol=0.0))
add(pair("r13_r_engine_vg_kepler_bits", lambda: revsrc.value_and_grad(kepler, backend="engine")(1.3, 0.4),
         lambda: revsrc.value_and_grad(kepler, backend="python")(1.3, 0.4), tol=0.0))
add(pair("r13_r_engine_value_is_plain", lambda: revsrc.value_and_grad(kepler, backend="engine")(1.3, 0.4)[0],
         lambda: kepler(1.3, 0.4), tol=0.0))


def lgamma_sum(a, n):
    s = 0.0
    for k in range(1, n + 1):
        s += math.lgamma(a + k) - math.lgamma(k) + math.log1p(a / k)
    return s + math.erf(a) + math.expm1(-a) + math.atan2(a, -1.0) + math.hypot(a, 3.0)


same("r13_r_jit_special_functions", lgamma_sum, 2.3, 12)
add(pair("r13_r_jit_grad_special_bits", lambda: revsrc.jit(revsrc.grad(lgamma_sum))(2.3, 12),
         lambda: revsrc.grad(lgamma_sum)(2.3, 12), tol=0.0))


def np_scalar_calls(x):
    return np.tanh(x) + np.exp(-x) * np.sin(x) + np.arcsinh(x) + np.log10(x) + np.cbrt(x) + np.sinc(x)


same("r13_r_jit_numpy_scalar_calls", np_scalar_calls, 0.7)


def pendulum_energy_drift(th0, n):
    th, om = th0, 0.0
    e0 = 0.5 * om * om - math.cos(th)
    worst = 0.0
    for i in range(n):
        om -= 0.01 * math.sin(th)
        th += 0.01 * om
        if i % 10 == 0:
            continue
        e = 0.5 * om * om - math.cos(th)
        worst = max(worst, abs(e - e0))
    return worst


same("r13_r_jit_continue_max_abs", pendulum_energy_drift, 1.2, 500)
add(pair("r13_r_jit_grad_continue_max_abs", lambda: revsrc.jit(revsrc.grad(pendulum_energy_drift))(1.2, 500),
         lambda: revsrc.grad(pendulum_energy_drift)(1.2, 500), tol=0.0))


def big_int_loop(n):
    f = 1
    for k in range(1, n + 1):
        f *= k
    return f % 1000003, float(f) / 1e30


same("r13_r_jit_big_int_factorial", big_int_loop, 30)


def inf_nan_ops(x):
    a = x * math.inf if x != 0 else 0.0
    return (math.isinf(a), math.isnan(a - a), max(a, 1.0), min(-a, 1.0))


add(pair("r13_r_jit_inf_nan_ops", lambda: revsrc.jit(inf_nan_ops)(2.0), lambda: (True, True, math.inf, -math.inf), tol=0.0))


def int_float_mix2(n, x):
    s = 0
    for k in range(n):
        s += k * k % 7 - (k // 3)
        if k % 4 == 3:
            s -= 1
    return s * x + (-7) // 2 + (-7) % 3 + 7.5 // -2 + (-7.5) % 2.0 + x % -0.7 + (-x) // 0.3


same("r13_r_jit_int_floor_mod_negative_nofmod", int_float_mix2, 23, 0.3)


def pow_mix2(x, n):
    return x ** n + x ** -n + (-x) ** 3 + x ** 0.5 + 2 ** n + n ** 2 + math.pow(x, 1.5) + 2.0 ** -n + (-2) ** n


same("r13_r_jit_pow_mix_two_arg", pow_mix2, 1.7, 3)


def special2(a, n):
    s = 0.0
    for k in range(1, n + 1):
        s += math.log1p(a / k) - math.log(k) * a
    return s + math.erf(a) + math.expm1(-a) + math.atan2(a, -1.0) + math.hypot(a, 3.0)


same("r13_r_jit_special_no_lgamma", special2, 2.3, 12)
add(pair("r13_r_jit_grad_special_no_lgamma_bits", lambda: revsrc.jit(revsrc.grad(special2))(2.3, 12),
         lambda: revsrc.grad(special2)(2.3, 12), tol=0.0))


def np_scalar2(x):
    return np.tanh(x) + np.exp(-x) * np.sin(x) + np.arcsinh(x) + np.log10(x) + np.cbrt(x)


same("r13_r_jit_numpy_scalar_no_sinc", np_scalar2, 0.7)
add(pair("r13_r_vmap_numpy_scalar_bits", lambda: revsrc.vmap(np_scalar2)(np.array([0.1, 0.7, 3.3])),
         lambda: np.array([np_scalar2(v) for v in (0.1, 0.7, 3.3)]), tol=0.0))
add(pair("r13_r_vmap_grad_numpy_scalar", lambda: revsrc.vmap(revsrc.grad(np_scalar2))(np.array([0.1, 0.7, 3.3])),
         lambda: np.array([fd_checked(np_scalar2, (v,))[0] for v in (0.1, 0.7, 3.3)]), tol=1e-7))
