"""Round 15, part p: backend="jax" on this round's programs -- scans of 40+ steps with
np.where branches, while loops with max_steps, traced break, containers, globals and
int arguments between calls, value_and_grad / hessian / jacfwd, and JAX's default
configuration (x64 off)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj, x64_off  # noqa: F401

CASES = []
add = CASES.append


def leaky_scan(p, I):
    v = 0.0
    acc = 0.0
    for t in range(40):
        v = v + 0.1 * (-v + p * I[t])
        v = np.where(v > 1.0, v - 1.0, v)
        acc = acc + v * v
    return acc


IN = 1.5 + np.sin(0.4 * np.arange(40))
add(pair("r15_jax_scan_where_reset", lambda: revsrc.grad(leaky_scan, backend="jax")(1.2, IN),
         lambda: revsrc.grad(leaky_scan)(1.2, IN), tol=1e-12))
add(pair("r15_jax_scan_where_reset_wrt_input", lambda: revsrc.grad(leaky_scan, argnums=1, backend="jax")(1.2, IN),
         lambda: fd_checked(leaky_scan, (1.2, IN), argnums=1)[0], tol=1e-6))


def bisect_root(c):
    lo, hi = 0.0, 3.0
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
    # the root's value is piecewise constant in c; its smooth part enters through c below
    return lo + c * lo


add(pair("r15_jax_while_bisection", lambda: revsrc.grad(bisect_root, backend="jax")(2.0),
         lambda: revsrc.grad(bisect_root)(2.0), tol=1e-12))


def newton_sqrt(a):
    x = a
    k = 0
    while abs(x * x - a) > 1e-12 and k < 50:
        x = 0.5 * (x + a / x)
        k += 1
    return x


add(pair("r15_jax_while_newton_sqrt", lambda: revsrc.grad(newton_sqrt, backend="jax")(7.0), lambda: 0.5 / math.sqrt(7.0), tol=1e-10))
add(pair("r15_jax_while_max_steps_exceeded", lambda: revsrc.grad(newton_sqrt, backend="jax", max_steps=2)(7.0), lambda: None, tol=0.0))


def traced_break(k, n=40):
    x = 1.0
    for i in range(n):
        x = x * (1.0 + 0.05 * k)
        if x > 3.0:
            break
    return x


add(pair("r15_jax_for_traced_break", lambda: revsrc.grad(traced_break, backend="jax")(1.3),
         lambda: revsrc.grad(traced_break)(1.3), tol=1e-12))


def dict_params_jax(p, X):
    h = np.tanh(X @ p["W"] + p["b"])
    return np.sum(h ** 2) + p["s"] * np.sum(h)


rng = np.random.default_rng(3)
PJ = {"W": rng.normal(size=(3, 2)), "b": np.zeros(2), "s": 0.5}
XJ = rng.normal(size=(4, 3))
add(pair("r15_jax_dict_params_value_and_grad", lambda: revsrc.value_and_grad(dict_params_jax, backend="jax")(PJ, XJ),
         lambda: revsrc.value_and_grad(dict_params_jax)(PJ, XJ), tol=1e-12))
add(pair("r15_jax_dict_params_x64_off", x64_off(lambda: revsrc.value_and_grad(dict_params_jax, backend="jax")(PJ, XJ)),
         lambda: revsrc.value_and_grad(dict_params_jax)(PJ, XJ), tol=1e-12))
add(pair("r15_jax_hessian_scan_x64_on", lambda: (jax(), revsrc.hessian(leaky_scan, backend="jax")(1.2, IN))[1],
         lambda: revsrc.hessian(leaky_scan)(1.2, IN), tol=1e-10))
add(pair("r15_jax_hessian_x64_off", x64_off(lambda: revsrc.hessian(leaky_scan, backend="jax")(1.2, IN)),
         lambda: revsrc.hessian(leaky_scan)(1.2, IN), tol=1e-10))

GAIN = 2.0


def uses_gain(x):
    return GAIN * np.sum(np.sin(x))


def _jax_global_change():
    global GAIN
    g = revsrc.grad(uses_gain, backend="jax")
    a = g(np.array([0.0, 1.0]))
    GAIN = -1.0
    try:
        b = g(np.array([0.0, 1.0]))
    finally:
        GAIN = 2.0
    return (a, b)


add(pair("r15_jax_global_rebound_between_calls", _jax_global_change,
         lambda: (2 * np.cos(np.array([0.0, 1.0])), -np.cos(np.array([0.0, 1.0]))), tol=1e-14))


def int_steps(x, n):
    for _ in range(n):
        x = x - 0.1 * np.sin(x)
    return np.sum(x)


add(pair("r15_jax_int_argument_two_values", lambda: (revsrc.grad(int_steps, backend="jax")(np.array([1.0, 2.0]), 3),
                                                      revsrc.grad(int_steps, backend="jax")(np.array([1.0, 2.0]), 5)),
         lambda: (revsrc.grad(int_steps)(np.array([1.0, 2.0]), 3), revsrc.grad(int_steps)(np.array([1.0, 2.0]), 5)), tol=1e-13))
add(pair("r15_jax_float32_input_dtype", lambda: str(np.asarray(revsrc.grad(int_steps, backend="jax")(np.array([1.0, 2.0], dtype=np.float32), 3)).dtype),
         lambda: "float32", tol=0.0))


def jac_fn(x):
    return np.array([x[0] * x[1], np.exp(x[0]) - x[1]])


add(pair("r15_jax_jacfwd", lambda: revsrc.jacfwd(jac_fn, backend="jax")(np.array([0.3, 2.0])),
         lambda: np.array([[2.0, 0.3], [math.exp(0.3), -1.0]]), tol=1e-13))


def has_aux_jax(x):
    y = np.sum(x ** 2)
    return y, {"norm": np.sqrt(y)}


add(pair("r15_jax_value_and_grad_has_aux", lambda: revsrc.value_and_grad(has_aux_jax, has_aux=True, backend="jax")(np.array([3.0, 4.0])),
         lambda: ((25.0, {"norm": 5.0}), np.array([6.0, 8.0])), tol=1e-14))


def has_aux_tuple(x):
    y = np.sum(x ** 2)
    return y, (np.sqrt(y),)


add(pair("r15_jax_value_and_grad_has_aux_tuple", lambda: revsrc.value_and_grad(has_aux_tuple, has_aux=True, backend="jax")(np.array([3.0, 4.0])),
         lambda: ((25.0, (5.0,)), np.array([6.0, 8.0])), tol=1e-14))
add(pair("r15_jax_hessian_scan_no_where", lambda: revsrc.hessian(lambda p: np.sum(leaky_plain(p, IN)), backend="jax")(1.2),
         lambda: revsrc.hessian(lambda p: np.sum(leaky_plain(p, IN)))(1.2), tol=1e-10))


def leaky_plain(p, I):
    v = 0.0
    acc = 0.0
    for t in range(40):
        v = v + 0.1 * (-v + p * I[t])
        acc = acc + v * v
    return acc


XV = np.array([[0.1, 0.5], [1.0, -0.3], [0.7, 0.2]])


def s2(x):
    return np.sum(np.sin(x) ** 2) + x[0] * x[1]


def vec2(x):
    return np.array([x[0] * x[1], np.sin(x[0])])


def sc1(x):
    return math.sin(x) * x


add(pair("r15_jax_vmap_value_and_grad_x64_off", x64_off(lambda: revsrc.vmap(revsrc.value_and_grad(s2, backend="jax"))(XV)),
         lambda: revsrc.vmap(revsrc.value_and_grad(s2))(XV), tol=1e-12))
add(pair("r15_jax_vmap_jacfwd_x64_off", x64_off(lambda: revsrc.vmap(revsrc.jacfwd(vec2, backend="jax"))(XV)),
         lambda: revsrc.vmap(revsrc.jacfwd(vec2))(XV), tol=1e-12))
add(pair("r15_jax_vmap_hessian_x64_off", x64_off(lambda: revsrc.vmap(revsrc.hessian(s2, backend="jax"))(XV)),
         lambda: revsrc.vmap(revsrc.hessian(s2))(XV), tol=1e-12))
add(pair("r15_jax_jit_grad_scalar", lambda: revsrc.jit(revsrc.grad(sc1, backend="jax"))(0.1), lambda: math.cos(0.1) * 0.1 + math.sin(0.1), tol=1e-14))
add(pair("r15_jax_grad_of_grad_scalar", lambda: revsrc.grad(revsrc.grad(sc1, backend="jax"))(0.1), lambda: 2 * math.cos(0.1) - 0.1 * math.sin(0.1), tol=1e-14))
add(pair("r15_jax_vmap_grad_scalar_x64_off", x64_off(lambda: revsrc.vmap(revsrc.grad(sc1, backend="jax"))(np.array([0.1, 0.2]))),
         lambda: np.array([math.cos(v) * v + math.sin(v) for v in (0.1, 0.2)]), tol=1e-14))
