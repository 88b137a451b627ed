"""Round 12, part n: small-array loops and while loops with memory bounds (checkpointing),
float32 state, jvp/linearize/jacfwd on containers, across the domains above."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


def rk4_lorenz(s0, sigma=10.0, rho=28.0, beta=8 / 3, dt=0.005, n=200):
    def f(s):
        x, y, z = s[0], s[1], s[2]
        return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])
    s = s0
    for _ in range(n):
        k1 = f(s)
        k2 = f(s + 0.5 * dt * k1)
        k3 = f(s + 0.5 * dt * k2)
        k4 = f(s + dt * k3)
        s = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s[2]


S0 = np.array([1.0, 1.0, 20.0])
add(G("r12_rk4_lorenz_stored", rk4_lorenz, (S0,), ref="fd", tol=1e-6, h=1e-6, check=1e-3))
add(pair("r12_rk4_lorenz_memory_bound_bits", lambda: revsrc.grad(rk4_lorenz, memory="16KB")(S0),
         lambda: revsrc.grad(rk4_lorenz)(S0), tol=0.0))
add(pair("r12_rk4_lorenz_rho_memory", lambda: revsrc.grad(rk4_lorenz, argnums=2, memory=8192)(S0, 10.0, 28.0),
         lambda: fd_checked(rk4_lorenz, (S0, 10.0, 28.0), argnums=2, h=1e-6, check=1e-3)[0], tol=1e-5))


def damped_newton_while(p, tol=1e-12):
    # solve x^3 + p0 x - p1 = 0 by Newton with a while loop on the residual
    x = 1.0
    while abs(x ** 3 + p[0] * x - p[1]) > tol:
        x -= (x ** 3 + p[0] * x - p[1]) / (3 * x * x + p[0])
    return x


def _dn_ref(p):
    x = damped_newton_while(p)
    d = 3 * x * x + p[0]
    return np.array([-x / d, 1 / d])


PQ = np.array([0.5, 2.0])
add(pair("r12_newton_while_residual_test", lambda: revsrc.grad(damped_newton_while)(PQ), lambda: _dn_ref(PQ), tol=1e-10))
add(pair("r12_newton_while_memory_bound", lambda: revsrc.grad(damped_newton_while, memory=512)(PQ), lambda: _dn_ref(PQ), tol=1e-10))


def bisect_root(a):
    lo, hi = 0.0, 2.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if mid * mid - a > 0:
            hi = mid
        else:
            lo = mid
    return lo


# bisection has zero derivative almost everywhere (the iterates do not depend on a smoothly)
add(pair("r12_bisection_zero_derivative", lambda: revsrc.grad(bisect_root)(2.0), lambda: 0.0, tol=0.0))


def pendulum_energy_drift(th0, dt=0.01, n=300):
    th, w = th0, 0.0
    E0 = 0.5 * w * w - math.cos(th)
    for _ in range(n):
        w -= dt * math.sin(th)
        th += dt * w
    return 0.5 * w * w - math.cos(th) - E0


add(G("r12_symplectic_euler_scalar", pendulum_energy_drift, (1.2,), ref="ag", tol=1e-9))
add(pair("r12_symplectic_euler_memory_bits", lambda: revsrc.grad(pendulum_energy_drift, memory=1024)(1.2),
         lambda: revsrc.grad(pendulum_energy_drift)(1.2), tol=0.0))
add(pair("r12_symplectic_hessian_memory", lambda: revsrc.hessian(pendulum_energy_drift, memory=512)(1.2, 0.01, 100),
         lambda: ag()[0].grad(ag()[0].grad(agify(pendulum_energy_drift)))(1.2, 0.01, 100), tol=1e-8))


def float32_loop(x):
    y = x
    for _ in range(10):
        y = y - 0.1 * np.tanh(y)
    return np.sum(y * y)


X32 = np.array([0.5, -1.0, 2.0], dtype=np.float32)


def _f32_ref():
    return fd_checked(float32_loop, (X32.astype(np.float64),))[0]


add(pair("r12_float32_small_array_loop", lambda: revsrc.grad(float32_loop)(X32), _f32_ref, tol=1e-5))
add(pair("r12_float32_small_array_loop_dtype", lambda: str(revsrc.grad(float32_loop)(X32).dtype), lambda: "float32", tol=0.0))


def sir_model(beta_gamma, n=60, dt=0.5):
    beta, gamma = beta_gamma["beta"], beta_gamma["gamma"]
    s = np.array([0.99, 0.01, 0.0])
    peak = 0.0
    for _ in range(n):
        inf = beta * s[0] * s[1]
        rec = gamma * s[1]
        s = s + dt * np.array([-inf, inf - rec, rec])
        peak = max(peak, s[1])
    return peak


def _sir_flat(b, g):
    return sir_model({"beta": b, "gamma": g})


add(pair("r12_sir_max_peak_dict", lambda: revsrc.grad(sir_model)({"beta": 0.4, "gamma": 0.1}),
         lambda: dict(zip(["beta", "gamma"], [fd_checked(_sir_flat, (0.4, 0.1), argnums=i)[0] for i in (0, 1)])), tol=1e-6))
add(pair("r12_sir_jvp_dict_tangent", lambda: revsrc.jvp(sir_model, ({"beta": 0.4, "gamma": 0.1},), ({"beta": 1.0, "gamma": -2.0},)),
         lambda: (sir_model({"beta": 0.4, "gamma": 0.1}),
                  fd_checked(_sir_flat, (0.4, 0.1), argnums=0)[0] - 2 * fd_checked(_sir_flat, (0.4, 0.1), argnums=1)[0]), tol=1e-6))


def traj(p):
    x = np.array([p["x0"], 0.0])
    out = []
    for k in range(4):
        x = np.array([x[0] + 0.1 * x[1], x[1] - 0.1 * p["k"] * x[0]])
        out.append(x[0])
    return np.array(out)


add(pair("r12_jacfwd_dict_input", lambda: revsrc.jacfwd(traj)({"x0": 1.0, "k": 2.0}),
         lambda: {"x0": fdj(lambda v: traj({"x0": v[0], "k": 2.0}), np.array([1.0]))[:, 0],
                  "k": fdj(lambda v: traj({"x0": 1.0, "k": v[0]}), np.array([2.0]))[:, 0]}, tol=1e-7))
add(pair("r12_jacrev_dict_input", lambda: revsrc.jacrev(traj)({"x0": 1.0, "k": 2.0}),
         lambda: {"x0": fdj(lambda v: traj({"x0": v[0], "k": 2.0}), np.array([1.0]))[:, 0],
                  "k": fdj(lambda v: traj({"x0": 1.0, "k": v[0]}), np.array([2.0]))[:, 0]}, tol=1e-7))


def linearize_reuse():
    y, lin = revsrc.linearize(traj, {"x0": 1.0, "k": 2.0})
    a = lin({"x0": 1.0, "k": 0.0})
    b = lin({"x0": 0.0, "k": 1.0})
    return [y, a, b]


add(pair("r12_linearize_dict_reuse", linearize_reuse,
         lambda: [traj({"x0": 1.0, "k": 2.0}), fdj(lambda v: traj({"x0": v[0], "k": 2.0}), np.array([1.0]))[:, 0],
                  fdj(lambda v: traj({"x0": 1.0, "k": v[0]}), np.array([2.0]))[:, 0]], tol=1e-7))


def vjp_dict_out(x):
    return {"sq": x * x, "sin": np.sin(x)}


add(pair("r12_vjp_dict_output", lambda: revsrc.vjp(vjp_dict_out, np.array([0.3, 0.6]))[1]({"sq": np.ones(2), "sin": np.array([2.0, 0.0])}),
         lambda: (2 * np.array([0.3, 0.6]) + np.array([2 * np.cos(0.3), 0.0]),), tol=1e-15))


def heat_explicit(u0, kappa, n=40):
    u = u0.copy()
    for _ in range(n):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + kappa * lap
    return np.sum(u ** 2)


U0 = np.sin(np.linspace(0, np.pi, 8)) + 0.1 * np.arange(8)
add(G("r12_heat_explicit_kappa_memory", heat_explicit, (U0, 0.2), argnums=1, ref="fd", tol=1e-7, memory="2KB"))
add(pair("r12_heat_explicit_memory_bits", lambda: revsrc.grad(heat_explicit, memory="2KB")(U0, 0.2),
         lambda: revsrc.grad(heat_explicit)(U0, 0.2), tol=0.0))


def while_small_array(v):
    x = v.copy()
    k = 0
    while np.linalg.norm(x) > 0.1 and k < 100:
        x = 0.9 * x + 0.01 * np.sin(x)
        k += 1
    return np.sum(x) * k


VW = np.array([1.0, -0.5, 0.7])
add(G("r12_while_norm_small_array", while_small_array, (VW,), ref="fd", tol=1e-7))
add(pair("r12_while_norm_memory_bits", lambda: revsrc.grad(while_small_array, memory=256)(VW),
         lambda: revsrc.grad(while_small_array)(VW), tol=0.0))


def value_and_grad_memory_value(x):
    return rk4_lorenz(x, n=50)


add(pair("r12_value_and_grad_memory_value", lambda: revsrc.value_and_grad(value_and_grad_memory_value, memory=1000)(S0)[0],
         lambda: value_and_grad_memory_value(S0), tol=0.0))


def jit_memory_scalar(x):
    s = 0.0
    for k in range(2000):
        x = x - 0.001 * math.sin(x) + 0.0001 * k ** 0.5 * 0.0
        s += x * 1e-3
    return s


add(pair("r12_jit_grad_memory_bits", lambda: revsrc.jit(revsrc.grad(jit_memory_scalar, memory=2048))(0.8),
         lambda: revsrc.grad(jit_memory_scalar)(0.8), tol=0.0))
