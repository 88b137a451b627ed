"""User programs, corpus 5w: the math module (two-argument log, multi-argument hypot, ...)."""
import math

from user_programs5_harness import case

CASES = []


def m_log_base(x):
    return math.log(x, 2.0)


CASES.append(case("math_grad_log_base", m_log_base, (1.5,)))
CASES.append(case("math_jvp_log_base", m_log_base, (1.5,), t="jvp", tangents=1.0))


def m_log_base_active(x):
    return math.log(8.0, x)


CASES.append(case("math_grad_log_base_active", m_log_base_active, (1.5,)))
CASES.append(case("math_jvp_log_base_active", m_log_base_active, (1.5,), t="jvp", tangents=1.0))


def m_log_both(x):
    return math.log(x * 3, x)


CASES.append(case("math_grad_log_both", m_log_both, (1.5,)))
CASES.append(case("math_jvp_log_both", m_log_both, (1.5,), t="jvp", tangents=1.0))


def m_pow_active_exp(x):
    return math.pow(2.0, x)


CASES.append(case("math_grad_pow_active_exp", m_pow_active_exp, (1.5,)))
CASES.append(case("math_jvp_pow_active_exp", m_pow_active_exp, (1.5,), t="jvp", tangents=1.0))


def m_hypot3(x):
    return math.hypot(x, 2 * x, 0.5)


CASES.append(case("math_grad_hypot3", m_hypot3, (1.5,)))
CASES.append(case("math_jvp_hypot3", m_hypot3, (1.5,), t="jvp", tangents=1.0))


def m_dist_(x):
    return math.dist((x, 1.0), (0.0, x * x))


CASES.append(case("math_grad_dist", m_dist_, (1.5,)))
CASES.append(case("math_jvp_dist", m_dist_, (1.5,), t="jvp", tangents=1.0))


def m_degrees_(x):
    return math.degrees(x) + math.radians(x)


CASES.append(case("math_grad_degrees", m_degrees_, (1.5,)))
CASES.append(case("math_jvp_degrees", m_degrees_, (1.5,), t="jvp", tangents=1.0))


def m_cbrt_(x):
    return math.cbrt(-x) + math.exp2(x)


CASES.append(case("math_grad_cbrt", m_cbrt_, (1.5,)))
CASES.append(case("math_jvp_cbrt", m_cbrt_, (1.5,), t="jvp", tangents=1.0))


def m_sumprod_(x):
    return sum(a * b for a, b in zip([x, 2.0], [x, x]))


CASES.append(case("math_grad_sumprod", m_sumprod_, (1.5,)))
CASES.append(case("math_jvp_sumprod", m_sumprod_, (1.5,), t="jvp", tangents=1.0))


def m_log1p_expm1(x):
    return math.log1p(x) * math.expm1(x)


CASES.append(case("math_grad_log1p_expm1", m_log1p_expm1, (1.5,)))
CASES.append(case("math_jvp_log1p_expm1", m_log1p_expm1, (1.5,), t="jvp", tangents=1.0))


def m_atan2_(x):
    return math.atan2(x, 1.0 - x)


CASES.append(case("math_grad_atan2", m_atan2_, (1.5,)))
CASES.append(case("math_jvp_atan2", m_atan2_, (1.5,), t="jvp", tangents=1.0))


def m_ldexp_(x):
    return math.ldexp(x, 3)


CASES.append(case("math_grad_ldexp", m_ldexp_, (1.5,)))
CASES.append(case("math_jvp_ldexp", m_ldexp_, (1.5,), t="jvp", tangents=1.0))


def m_fabs_(x):
    return math.fabs(-x) * math.copysign(x, -2.0)


CASES.append(case("math_grad_fabs", m_fabs_, (1.5,)))
CASES.append(case("math_jvp_fabs", m_fabs_, (1.5,), t="jvp", tangents=1.0))


def m_erfc_big(x):
    return math.erfc(x * 10)


CASES.append(case("math_grad_erfc_big", m_erfc_big, (0.15,)))
CASES.append(case("math_jvp_erfc_big", m_erfc_big, (0.15,), t="jvp", tangents=1.0))


def m_gamma_(x):
    return math.gamma(x) + math.lgamma(x)


CASES.append(case("math_grad_gamma", m_gamma_, (1.5,)))
CASES.append(case("math_jvp_gamma", m_gamma_, (1.5,), t="jvp", tangents=1.0))


def m_prod_(x):
    return math.prod([x, x + 1, 2.0])


CASES.append(case("math_grad_prod", m_prod_, (1.5,)))
CASES.append(case("math_jvp_prod", m_prod_, (1.5,), t="jvp", tangents=1.0))




def m_remainder_(x):
    return math.remainder(x, 1.0)


CASES.append(case("math_grad_remainder", m_remainder_, (1.5,)))
CASES.append(case("math_jvp_remainder", m_remainder_, (1.5,), t="jvp", tangents=1.0))


def m_isclose_branch(x):
    return x * 2 if math.isclose(x, 1.5) else x


CASES.append(case("math_isclose_branch_jit", m_isclose_branch, (1.5,), t="jit"))
