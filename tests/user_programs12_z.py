"""Round 12, part z: compositions on while loops and recursion -- jvp/hvp/hessian of
Newton iterations, vmap of loops whose trip count differs per element, jit of int recursion,
linearize of a loop with branches, vmap(jacfwd) of small-array loops."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked, ag, agify  # noqa: F401
import user_programs12_a as pa
import user_programs12_x as px

CASES = []
add = CASES.append


def collatz_like(x):
    # trip count depends on x; the derivative of the final value w.r.t. x
    k = 0
    while x > 1.0 and k < 50:
        x = x / 2 if k % 2 == 0 else 0.9 * x + 0.05
        k += 1
    return x * k


XS = np.array([0.5, 3.0, 17.0, 100.0])


def _collatz_d(x):
    d = 1.0
    k = 0
    while x > 1.0 and k < 50:
        if k % 2 == 0:
            x, d = x / 2, d / 2
        else:
            x, d = 0.9 * x + 0.05, 0.9 * d
        k += 1
    return d * k


add(pair("r12_vmap_grad_variable_trip_count", lambda: revsrc.vmap(revsrc.grad(collatz_like))(XS),
         lambda: np.array([_collatz_d(v) for v in XS]), tol=1e-14))
add(pair("r12_vmap_value_variable_trip_count", lambda: revsrc.vmap(collatz_like)(XS), lambda: np.array([collatz_like(v) for v in XS]), tol=0.0))
add(pair("r12_jit_grad_variable_trip_count", lambda: [revsrc.jit(revsrc.grad(collatz_like))(v) for v in XS],
         lambda: [_collatz_d(v) for v in XS], tol=1e-14))


def kep(M):
    return pa.kepler_E(M, 0.6)


def _kep_d1(M):
    E = kep(M)
    return 1 / (1 - 0.6 * math.cos(E))


add(pair("r12_jvp_newton_while", lambda: revsrc.jvp(kep, (1.1,), (2.0,)), lambda: (kep(1.1), 2 * _kep_d1(1.1)), tol=1e-10))
add(pair("r12_hvp_newton_while", lambda: revsrc.hvp(kep, (1.1,), (2.0,)), lambda: 2 * fd_checked(_kep_d1, (1.1,))[0], tol=1e-6))
add(pair("r12_hessian_jit_newton_while", lambda: revsrc.jit(revsrc.hessian(kep))(1.1), lambda: fd_checked(_kep_d1, (1.1,))[0], tol=1e-6))
add(pair("r12_vmap_hessian_newton_while", lambda: revsrc.vmap(revsrc.hessian(kep))(np.array([0.3, 1.1, 2.5])),
         lambda: np.array([fd_checked(_kep_d1, (m,))[0] for m in (0.3, 1.1, 2.5)]), tol=1e-6))
add(pair("r12_jit_recursion_int", lambda: revsrc.jit(px.legendre)(5, 0.3), lambda: px.legendre(5, 0.3), tol=0.0))
add(pair("r12_jit_grad_recursion_int", lambda: revsrc.jit(revsrc.grad(px.legendre, argnums=1))(5, 0.3),
         lambda: (315 * 0.3 ** 4 - 210 * 0.3 ** 2 + 15) / 8, tol=1e-13))
add(pair("r12_vmap_recursion_int", lambda: revsrc.vmap(px.legendre, in_axes=(None, 0))(3, np.array([0.1, 0.5])),
         lambda: np.array([px.legendre(3, 0.1), px.legendre(3, 0.5)]), tol=0.0))


def piecewise_loop(x):
    y = x
    for k in range(6):
        if y > 0.5:
            y = y * y - 0.3
        else:
            y = math.sin(y) + 0.4
    return y


def lin_piecewise():
    y, f = revsrc.linearize(piecewise_loop, 0.8)
    return [y, f(1.0), f(-3.0)]


add(pair("r12_linearize_branchy_loop", lin_piecewise,
         lambda: [piecewise_loop(0.8), fd_checked(piecewise_loop, (0.8,))[0], -3 * fd_checked(piecewise_loop, (0.8,))[0]], tol=1e-7))


def damped_spring_state(p):
    s = np.array([1.0, 0.0])
    for _ in range(25):
        a = -p[0] * s[0] - p[1] * s[1]
        s = s + 0.05 * np.array([s[1], a])
    return s


PS = np.array([[2.0, 0.1], [4.0, 0.5], [1.0, 0.0]])
add(pair("r12_vmap_jacfwd_small_array_loop", lambda: revsrc.vmap(revsrc.jacfwd(damped_spring_state))(PS),
         lambda: np.stack([fd_checked(lambda q, i=i: damped_spring_state(q)[i], (p,))[0] for p in PS for i in (0, 1)]).reshape(3, 2, 2),
         tol=1e-7))
add(pair("r12_vmap_jacrev_small_array_loop", lambda: revsrc.vmap(revsrc.jacrev(damped_spring_state))(PS),
         lambda: revsrc.vmap(revsrc.jacfwd(damped_spring_state))(PS), tol=1e-13))


# -- second derivatives of array loops whose step is scaled by an int sign the loop index picks
def alt_sign_int(x):
    for k in range(30):
        sgn = 1 if k % 3 else -1
        x = x + 0.01 * np.tanh(x) * sgn
    return np.sum(x ** 2)


def alt_sign_float(x):
    for k in range(30):
        sgn = 1.0 if k % 3 else -1.0
        x = x + 0.01 * np.tanh(x) * sgn
    return np.sum(x ** 2)


X3 = np.array([0.3, -0.2, 0.1])
add(pair("r12_hessian_float_sign_array_loop", lambda: revsrc.hessian(alt_sign_float)(X3),
         lambda: ag()[0].hessian(agify(alt_sign_float))(X3), tol=1e-10))
add(pair("r12_hessian_int_sign_array_loop", lambda: revsrc.hessian(alt_sign_int)(X3),
         lambda: ag()[0].hessian(agify(alt_sign_float))(X3), tol=1e-10))
add(pair("r12_grad_int_sign_array_loop", lambda: revsrc.grad(alt_sign_int)(X3),
         lambda: ag()[0].grad(agify(alt_sign_float))(X3), tol=1e-12))
add(pair("r12_hvp_int_sign_array_loop", lambda: revsrc.hvp(alt_sign_int, (X3,), (np.ones(3),)),
         lambda: ag()[0].hessian(agify(alt_sign_float))(X3) @ np.ones(3), tol=1e-10))


def alt_series_pow_sign(x):
    y = x
    for k in range(3):
        y = np.tanh(y) * (-1) ** k
    return np.sum(y ** 2)


def scale_by_int_max(x):
    y = x
    for k in range(3):
        y = np.tanh(y) * max(k, 1)
    return np.sum(y ** 2)


def scale_by_int_plus_one(x):
    y = x
    for k in range(3):
        y = np.tanh(y) * (k + 1)
    return np.sum(y ** 2)


for _n, _f in (("r12_hessian_pow_int_sign_array_loop", alt_series_pow_sign), ("r12_hessian_int_max_scale_array_loop", scale_by_int_max),
               ("r12_hessian_int_plus_one_scale_array_loop", scale_by_int_plus_one)):
    add(pair(_n, (lambda f: lambda: revsrc.hessian(f)(X3))(_f), (lambda f: lambda: ag()[0].hessian(agify(f))(X3))(_f), tol=1e-10))
