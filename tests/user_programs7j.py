"""User programs, corpus 7j: NumPy float64 scalars where the scalar engine runs -- their
IEEE arithmetic (x / 0 -> inf, x % 0 -> nan, 0 ** -1 -> inf, overflow -> inf, all
with a warning) is what the plain call returns, under grad, value_and_grad, jvp, jit
and vmap; plus backend="jax" on programs with loops and branches, vmap of scalar
programs whose loops run a different number of times per element, stop_gradient in a
loop, and Hessians of dict arguments.  References: the plain call, JAX x64, autograd,
closed forms and self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, ag, agify, fd_checked, jax, jaxify, pair

CASES = []


def pow_overflow(x):
    return np.exp(x) ** 2.0


def mod_zero(x):
    return np.float64(x) % 0.0 + x


def floordiv_zero(x):
    return np.sin(x) // 0.0 + x


def zero_pow_neg(x):
    return np.sin(x) ** -1.0


def div_int_zero(x):
    return np.sin(x) / 0


for nm, fn, x0 in (("pow_overflow", pow_overflow, 400.0), ("mod_zero", mod_zero, 1.5),
                   ("floordiv_zero", floordiv_zero, 1.5), ("zero_pow_negative", zero_pow_neg, 0.0),
                   ("div_int_zero", div_int_zero, 1.0)):
    CASES.append(pair("r7_npscalar_" + nm + "_value_and_grad",
                      (lambda fn=fn, x0=x0: revsrc.value_and_grad(fn)(x0)),
                      (lambda fn=fn, x0=x0: revsrc.value_and_grad(fn, backend="python")(x0)), tol=0.0))
    CASES.append(pair("r7_npscalar_" + nm + "_jit", (lambda fn=fn, x0=x0: revsrc.jit(fn)(x0)),
                      (lambda fn=fn, x0=x0: fn(x0)), tol=0.0))
# the values by hand, so the python backend above is itself checked once
CASES.append(pair("r7_npscalar_python_backend_by_hand",
                  lambda: [revsrc.value_and_grad(f, backend="python")(x) for f, x in
                           ((pow_overflow, 400.0), (zero_pow_neg, 0.0), (div_int_zero, 1.0))],
                  lambda: [(math.inf, math.inf), (math.inf, -math.inf), (math.inf, math.inf)], tol=0.0))

# -- backend="jax" --------------------------------------------------------------------------


def jx_newton_cbrt(a):
    x = 1.0
    for _ in range(40):
        x = x - (x ** 3 - a) / (3.0 * x * x)
    return x


CASES.append(pair("r7_backend_jax_newton_cbrt", lambda: revsrc.grad(jx_newton_cbrt, backend="jax")(5.0),
                  lambda: (1.0 / 3.0) * 5.0 ** (-2.0 / 3.0), tol=1e-10))


def jx_branchy(x):
    s = 0.0
    for i in range(6):
        if x * i > 1.0:
            s = s + math.sin(x * i)
        else:
            s = s - x * x * i
    return s


CASES.append(pair("r7_backend_jax_branch_in_loop", lambda: revsrc.grad(jx_branchy, backend="jax")(0.45),
                  lambda: ag()[0].grad(agify(jx_branchy))(0.45), tol=1e-10))


def jx_early_return(x):
    y = x
    for i in range(50):
        y = y * 1.1 + 0.01
        if y > 3.0:
            return y * i
    return y


CASES.append(pair("r7_backend_jax_early_return_in_loop", lambda: revsrc.grad(jx_early_return, backend="jax")(0.5),
                  lambda: ag()[0].grad(agify(jx_early_return))(0.5), tol=1e-10))


def jx_array_while(w):
    v = np.array([1.0, 0.5])
    k = 0
    while np.linalg.norm(v) < 10.0:
        v = v * w + np.array([0.1, 0.2])
        k += 1
    return np.sum(v) + k


CASES.append(pair("r7_backend_jax_array_while_norm", lambda: revsrc.grad(jx_array_while, backend="jax")(1.3),
                  lambda: ag()[0].grad(agify(jx_array_while))(1.3), tol=1e-10))


def jx_list_append(x):
    xs = []
    for i in range(5):
        xs.append(np.sin(x * i))
    return np.sum(np.array(xs) ** 2)


CASES.append(pair("r7_backend_jax_list_append_stack", lambda: revsrc.grad(jx_list_append, backend="jax")(0.7),
                  lambda: jax().grad(jaxify(jx_list_append))(0.7), tol=1e-10))


def jx_setitem(x):
    y = np.zeros(4)
    for i in range(4):
        y[i] = x ** (i + 1)
    return np.sum(y * np.arange(1.0, 5.0))


CASES.append(pair("r7_backend_jax_setitem_loop", lambda: revsrc.grad(jx_setitem, backend="jax")(0.7),
                  lambda: sum((i + 1) ** 2 * 0.7 ** i for i in range(4)), tol=1e-10))

# -- vmap of scalar programs with per-element trip counts ----------------------------------------


def collatz_like(x):
    n = 0
    while x > 1.0:
        if n % 2 == 0:
            x = x / 2.0
        else:
            x = x * 0.9 + 0.05
        n += 1
    return x + n


XS = np.array([0.5, 1.7, 3.9, 12.0, 100.0])
CASES.append(pair("r7_vmap_while_trip_count_per_element", lambda: revsrc.vmap(collatz_like)(XS),
                  lambda: np.array([collatz_like(float(v)) for v in XS]), tol=0.0))
CASES.append(pair("r7_vmap_grad_while_trip_count", lambda: revsrc.vmap(revsrc.grad(collatz_like))(XS),
                  lambda: np.array([ag()[0].grad(agify(collatz_like))(float(v)) for v in XS]), tol=1e-12))


def int_steps(x, n):
    for _ in range(n):
        x = math.cos(x)
    return x


CASES.append(pair("r7_vmap_int_array_loop_bound", lambda: revsrc.vmap(int_steps)(np.full(4, 0.3), np.array([0, 1, 5, 9])),
                  lambda: np.array([int_steps(0.3, n) for n in (0, 1, 5, 9)]), tol=0.0))
CASES.append(pair("r7_vmap_grad_int_array_loop_bound",
                  lambda: revsrc.vmap(revsrc.grad(int_steps))(np.full(4, 0.3), np.array([0, 1, 5, 9])),
                  lambda: np.array([ag()[0].grad(agify(int_steps))(0.3, n) for n in (0, 1, 5, 9)]), tol=1e-12))

# -- stop_gradient in a loop, Hessians of dicts ---------------------------------------------------


def ema_target(x):
    target = 0.0
    loss = 0.0
    for _ in range(5):
        pred = x * x
        loss = loss + (pred - revsrc.stop_gradient(target)) ** 2
        target = 0.5 * target + 0.5 * pred
    return loss


def ema_ref(x):
    t, g = 0.0, 0.0
    for _ in range(5):
        p = x * x
        g += 2.0 * (p - t) * 2.0 * x
        t = 0.5 * t + 0.5 * p
    return g


CASES.append(G("r7_stop_gradient_ema_target_loop", ema_target, (0.8,), ref=lambda: ema_ref(0.8), tol=1e-12))
CASES.append(pair("r7_jvp_stop_gradient_ema_target", lambda: revsrc.jvp(ema_target, (0.8,), (1.0,))[1],
                  lambda: ema_ref(0.8), tol=1e-12))


def dict_energy(p):
    return np.sum(p["a"] ** 2 * p["b"]) + np.sin(p["b"]) * np.sum(p["a"])


PD = {"a": np.array([0.3, -0.7]), "b": 1.2}
CASES.append(pair("r7_hessian_dict_blocks", lambda: revsrc.hessian(dict_energy)(PD),
                  lambda: jax().hessian(jaxify(dict_energy))(PD), tol=1e-10))


def list_energy(p):
    return p[0] * p[1] ** 2 + np.sum(p[2] ** 3) * p[0]


PL = [0.5, -1.5, np.array([0.2, 0.4])]
CASES.append(pair("r7_hessian_list_blocks", lambda: revsrc.hessian(list_energy)(PL),
                  lambda: jax().hessian(jaxify(list_energy))(PL), tol=1e-10))
CASES.append(pair("r7_jvp_dict_tangent", lambda: revsrc.jvp(dict_energy, (PD,), ({"a": np.ones(2), "b": 0.5},)),
                  lambda: jax().jvp(jaxify(dict_energy), (PD,), ({"a": np.ones(2), "b": 0.5},)), tol=1e-10))
CASES.append(pair("r7_vjp_list_primal", lambda: revsrc.vjp(list_energy, PL)[1](2.0),
                  lambda: jax().vjp(jaxify(list_energy), PL)[1](2.0), tol=1e-10))
