"""Round 10, derivatives at the edge points applied code meets: 0 ** y and x ** 0 at
x = 0 (a rate of zero, an empty compartment), x ** 1, np.sinc at 0, |x| ** 3 and
x * |x| at 0, np.power with an int exponent array, a softplus written naively at large
arguments, a norm of a nonzero vector near underflow, hypot at the origin's
neighbourhood, each against the mathematical limit that JAX x64 also gives."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []


def zero_base_power(x, y):
    return x ** y


# d/dy 0 ** y = 0 ** y * log 0 -> 0 for y > 0 (JAX gives 0)
CASES.append(G("r10_zero_base_power_dy", zero_base_power, (0.0, 2.5), argnums=1, ref="jax"))
CASES.append(G("r10_zero_base_power_dx", zero_base_power, (0.0, 2.5), argnums=0, ref="jax"))


def np_power_zero_base(x, y):
    return np.sum(np.power(x, y))


CASES.append(G("r10_np_power_zero_base_dy", np_power_zero_base, (np.array([0.0, 1.5, 2.0]), np.array([2.0, 0.5, 3.0])),
               argnums=(0, 1), ref="jax"))


def int_zero_exponent(x):
    return x ** 0 + 3.0 * x


CASES.append(G("r10_int_zero_exponent_at_zero", int_zero_exponent, (0.0,), ref=lambda: 3.0))


def int_one_exponent(x):
    return x ** 1


CASES.append(G("r10_int_one_exponent_at_zero", int_one_exponent, (0.0,), ref=lambda: 1.0))


def float_two_exponent(x):
    return x ** 2.0 + math.pow(x, 3.0)


CASES.append(G("r10_float_exponents_at_zero", float_two_exponent, (0.0,), ref=lambda: 0.0))


def np_power_int_array(x):
    return np.sum(np.power(x, np.array([0, 1, 2, 3])))


CASES.append(G("r10_np_power_int_exponents_at_zero", np_power_int_array, (np.zeros(4),), ref="jax"))


def sinc_at_zero(x):
    return np.sinc(x)


CASES.append(G("r10_np_sinc_at_zero", sinc_at_zero, (0.0,), ref="jax"))
CASES.append(G("r10_np_sinc_near_zero", sinc_at_zero, (1e-9,), ref="jax"))


def cubic_abs(x):
    return abs(x) ** 3 + x * abs(x)


CASES.append(G("r10_abs_cubed_at_zero", cubic_abs, (0.0,), ref=lambda: 0.0))
# x |x| is not twice differentiable at 0 (one-sided 2 and -2): autograd's sign(0) = 0
# convention gives 0, as revsrc's first-derivative convention does (JAX says 2)
CASES.append(H("r10_hessian_abs_cubed_at_zero", cubic_abs, (0.0,), ref="ag"))


def softplus_stable(x):
    return np.sum(np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))))


# softplus is smooth: its derivative at 0 is 1/2 (autograd and central differences agree;
# JAX's abs'(0) = 1 gives 0)
CASES.append(G("r10_softplus_stable_large", softplus_stable, (np.array([-800.0, -30.0, 0.0, 30.0, 800.0]),), ref="ag"))
CASES.append(G("r10_softplus_stable_at_zero_fd", softplus_stable, (np.array([0.0]),)))


def hypot_tiny(x, y):
    return math.hypot(x, y)


CASES.append(G("r10_hypot_tiny_args", hypot_tiny, (3e-200, 4e-200), argnums=(0, 1), ref=lambda: (0.6, 0.8)))


def log_of_exp(x):
    return math.log(math.exp(x))


CASES.append(G("r10_log_exp_identity_large", log_of_exp, (700.0,), ref=lambda: 1.0))


def sqrt_of_square_positive(x):
    return np.sqrt(x * x)


CASES.append(G("r10_sqrt_square_negative", sqrt_of_square_positive, (-2.5,), ref=lambda: -1.0))


def exp_minus_big(x):
    return math.exp(-x) * x


CASES.append(G("r10_exp_underflow_to_zero", exp_minus_big, (800.0,), ref=lambda: 0.0))


def atan2_origin_neighbour(y, x):
    return math.atan2(y, x)


CASES.append(G("r10_atan2_tiny", atan2_origin_neighbour, (1e-160, 1e-160), argnums=(0, 1), ref=lambda: (0.5e160, -0.5e160), tol=1e-4))
# (x * x + y * y is subnormal there: 1e-5 of the digits go; JAX overflows to inf)


def arccos_near_one(x):
    return np.arccos(x)


CASES.append(G("r10_arccos_near_one", arccos_near_one, (1 - 1e-12,), ref="jax", tol=1e-6))


def logsumexp_minus_inf(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


CASES.append(G("r10_logsumexp_with_minus_inf", logsumexp_minus_inf, (np.array([-np.inf, 0.0, 1.0]),),
               ref=lambda: np.array([0.0, 1 / (1 + math.e), math.e / (1 + math.e)])))


def mean_of_inf(x):
    return np.mean(np.tanh(x))


CASES.append(G("r10_tanh_at_infinity", mean_of_inf, (np.array([np.inf, -np.inf, 0.0]),), ref=lambda: np.array([0.0, 0.0, 1 / 3])))


def huge_times_tiny(x):
    return (x * 1e300) * 1e-300


CASES.append(G("r10_huge_times_tiny_scaling", huge_times_tiny, (2.0,), ref=lambda: 1.0, tol=1e-12))


def relu(z):
    return np.maximum(z, 0.0)


def relu_odd_part(x):
    # relu(x) - relu(-x) == x everywhere
    return np.sum(relu(x) - relu(-x))


XZ = np.array([0.0, 1.5, -2.0])
CASES.append(G("r10_relu_difference_identity_at_zero", relu_odd_part, (XZ,), ref="ag"))


def min_plus_max(x):
    # np.minimum(x, 0) + np.maximum(x, 0) == x everywhere
    return np.sum(np.minimum(x, 0.0) + np.maximum(x, 0.0))


CASES.append(G("r10_min_plus_max_identity_at_zero", min_plus_max, (XZ,), ref=lambda: np.ones(3)))
