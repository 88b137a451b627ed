"""Round 13, part zc: a module-level revsrc derivative called inside the differentiated
function on values of different origins -- global tuple/dict of derivatives, a list
argument, a local list, a range-made float, np.linspace items, a generator over constants."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def u(x, th):
    return th * math.sin(x)


du = revsrc.grad(u, argnums=0)
DT = (du,)
DD = {"du": du}
R1 = math.cos(0.3)
R2 = math.cos(0.3) + math.cos(0.5)


def m_tuple(th):
    return DT[0](0.3, th)


def m_dict(th):
    return DD["du"](0.3, th)


def m_list_arg(th, xs):
    s = 0.0
    for x in xs:
        s += du(x, th)
    return s


def m_local_list(th):
    xs = [0.3, 0.5]
    s = 0.0
    for x in xs:
        s += du(x, th)
    return s


def m_range_float(th):
    s = 0.0
    for k in range(2):
        s += du(0.3 + 0.2 * k, th)
    return s


def m_linspace(th):
    s = 0.0
    for x in np.linspace(0.3, 0.5, 2):
        s += du(x, th)
    return s


def m_gen_const(th):
    return sum(du(x, th) for x in (0.3, 0.5))


def m_helper_builds(th):
    d = revsrc.grad(u)
    return d(0.3, th)


add(G("r13_zc_derivative_in_global_tuple", m_tuple, (2.0,), ref=lambda: R1, tol=1e-15))
add(G("r13_zc_derivative_in_global_dict", m_dict, (2.0,), ref=lambda: R1, tol=1e-15))
add(G("r13_zc_derivative_over_list_argument", m_list_arg, (2.0, [0.3, 0.5]), ref=lambda: R2, tol=1e-15))
add(G("r13_zc_derivative_over_local_list", m_local_list, (2.0,), ref=lambda: R2, tol=1e-15))
add(G("r13_zc_derivative_over_range_floats", m_range_float, (2.0,), ref=lambda: R2, tol=1e-15))
add(G("r13_zc_derivative_over_linspace", m_linspace, (2.0,), ref=lambda: R2, tol=1e-15))
add(G("r13_zc_derivative_generator_constants", m_gen_const, (2.0,), ref=lambda: R2, tol=1e-15))
add(G("r13_zc_derivative_made_in_helper", m_helper_builds, (2.0,), ref=lambda: R1, tol=1e-15))
add(pair("r13_zc_derivative_over_list_argument_jit", lambda: revsrc.jit(revsrc.grad(m_range_float))(2.0), lambda: R2, tol=1e-15))
