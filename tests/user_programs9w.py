"""Round 9, the alternating-sign idiom `(-1) ** k` through every path revsrc offers:
plain calls through grad, value_and_grad, jvp, hessian, jit, vmap, backend="jax", and
the same series written with a sign variable (the usual workaround) for comparison."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def alt_series(x):
    s = 0.0
    for k in range(6):
        s += (-1) ** k * x ** k
    return s


def _alt_value(x):
    return sum(((-1.0) ** k) * x ** k for k in range(6))


def _alt_deriv(x):
    return sum(((-1.0) ** k) * k * x ** (k - 1) for k in range(1, 6))


CASES.append(pair("r9_alt_sign_value_and_grad",
                  lambda: revsrc.value_and_grad(alt_series)(0.4), lambda: (_alt_value(0.4), _alt_deriv(0.4)), tol=1e-12))
CASES.append(JV("r9_alt_sign_jvp", alt_series, (0.4,), (1.0,)))
CASES.append(H("r9_alt_sign_hessian", alt_series, (0.4,),
               ref=lambda: sum(((-1.0) ** k) * k * (k - 1) * 0.4 ** (k - 2) for k in range(2, 6)), tol=1e-10))
CASES.append(pair("r9_alt_sign_jit", lambda: revsrc.jit(alt_series)(0.4), lambda: alt_series(0.4), tol=0.0))
CASES.append(pair("r9_alt_sign_vmap", lambda: revsrc.vmap(alt_series)(np.array([0.1, 0.4])),
                  lambda: np.array([alt_series(0.1), alt_series(0.4)]), tol=0.0))
CASES.append(pair("r9_alt_sign_vmap_grad", lambda: revsrc.vmap(revsrc.grad(alt_series))(np.array([0.1, 0.4])),
                  lambda: np.array([_alt_deriv(0.1), _alt_deriv(0.4)]), tol=1e-12))
CASES.append(G("r9_alt_sign_backend_jax", alt_series, (0.4,), ref=lambda: _alt_deriv(0.4), tol=1e-12, backend="jax"))


def alt_series_signvar(x):
    s = 0.0
    sign = 1.0
    for k in range(6):
        s += sign * x ** k
        sign = -sign
    return s


CASES.append(G("r9_alt_sign_variable_workaround", alt_series_signvar, (0.4,), ref=lambda: _alt_deriv(0.4), tol=1e-12))


def alt_series_float(x):
    return sum((-1.0) ** k * x ** k for k in range(6))


CASES.append(G("r9_alt_sign_float_base_genexpr", alt_series_float, (0.4,), ref=lambda: _alt_deriv(0.4), tol=1e-12))


def alt_inside_math(x):
    return math.exp((-1) ** 2 * x) + math.exp(x * (-1) ** 3)


CASES.append(G("r9_alt_sign_constant_exponent_in_call", alt_inside_math, (0.3,), ref=lambda: math.exp(0.3) - math.exp(-0.3), tol=1e-12))
