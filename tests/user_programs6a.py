"""User programs, corpus 6a: memory= on long loops (for, while, break, nested, arrays),
hessians and value_and_grad / vjp through them.  Each memory= result is checked
against central differences (or JAX), and against the stored gradient bit for bit."""
import math

import numpy as np

import revsrc
from user_programs6_harness import case, fd_grad, fd_hess, jax, jaxify, pair

CASES = []


def mem(name, f, args, argnums=0, memory=512, tol=1e-6, h=None, kw=None, bits=True, ref="fd"):
    kw = kw or {}

    def got():
        return revsrc.grad(f, argnums=argnums, memory=memory)(*args, **kw)

    def fd():
        return fd_grad(f, args, kw, argnums, h)

    def jx():   # the branches switch near the point: central differences cross them
        return jax().grad(jaxify(f), argnums=argnums)(*args, **kw)
    CASES.append(pair("mem_" + name, got, jx if ref == "jax" else fd, tol=tol))
    if bits:
        CASES.append(pair("mem_" + name + "_bits", got,
                          lambda: revsrc.grad(f, argnums=argnums)(*args, **kw), tol=0.0))


# -- scalar for loops ------------------------------------------------------------------

def logistic_sum(r, n=3000):
    x = 0.3
    s = 0.0
    for _ in range(n):
        x = r * x * (1.0 - x)
        s += x
    return s / n


mem("logistic_sum", logistic_sum, (2.6,), tol=1e-5)


def damped_oscillator(k, c, steps=4000, dt=1e-3):
    x, v = 1.0, 0.0
    for _ in range(steps):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
    return x * x + 0.5 * v * v


mem("damped_osc_two_args", damped_oscillator, (3.0, 0.4), argnums=(0, 1), tol=1e-5)


def running_sine(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * s + i * 1e-3) * 0.01 + x * 1e-3
    return s


mem("running_sine_5000", running_sine, (0.7, 5000), tol=1e-5)
mem("running_sine_n0", running_sine, (0.7, 0), bits=False)
mem("running_sine_n1", running_sine, (0.7, 1), bits=False)
mem("running_sine_mem_string", running_sine, (0.7, 2000), memory="1KB", tol=1e-5)
mem("running_sine_mem_inf", running_sine, (0.7, 2000), memory=math.inf, tol=1e-5)
mem("running_sine_mem_1byte", running_sine, (0.7, 700), memory=1, tol=1e-5)
mem("running_sine_mem_float", running_sine, (0.7, 700), memory=300.0, tol=1e-5)


def loop_with_break(x, n=3000):
    s = 0.0
    for i in range(n):
        s = s + x * math.cos(s * 0.001)
        if s > 50.0:
            break
    return s * s


mem("for_break", loop_with_break, (0.037,), tol=1e-5)


def loop_with_continue(x, n=2000):
    s = 0.0
    for i in range(n):
        if i % 3 == 0:
            continue
        s = s + math.tanh(x * s * 0.01 + 0.1)
    return s


mem("for_continue", loop_with_continue, (0.8,), tol=1e-5)


def loop_branch_on_value(x, n=2500):
    s = x
    for i in range(n):
        if s > 1.0:
            s = s * 0.999 - 0.0001 * x
        else:
            s = s + 0.002 * x * x
    return s


mem("for_branch_on_value", loop_branch_on_value, (0.9,), tol=1e-7, ref="jax")


def nested_loops(x, outer=60, inner=80):
    s = 0.0
    for i in range(outer):
        t = 0.0
        for j in range(inner):
            t = t + math.sin(x * (j + 1) * 1e-2) * 1e-2
        s = s + t * math.exp(-i * 0.01)
    return s


mem("nested_for", nested_loops, (0.5,), tol=1e-5)


def two_loops(x, n=1500):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x + s * 1e-3)
    t = s
    for j in range(n):
        t = t * 0.999 + math.cos(x * t * 1e-4) * 1e-3
    return t


mem("two_consecutive_loops", two_loops, (0.3,), tol=1e-5)


def loop_step_two(x, n=3000):
    s = 0.0
    for i in range(0, n, 2):
        s = s + math.exp(-x * i * 1e-4) * 1e-3
    return s


mem("for_range_step", loop_step_two, (1.3,), tol=1e-5)


def loop_reversed_range(x, n=2000):
    s = 1.0
    for i in range(n - 1, -1, -1):
        s = s * (1.0 + x * 1e-4 * math.cos(i * 0.01))
    return s


mem("for_range_negative_step", loop_reversed_range, (0.6,), tol=1e-5)


def helper_step(s, x, i):
    return s + math.sin(x * s * 1e-3 + i * 1e-3) * 1e-2


def loop_calls_helper(x, n=3000):
    s = 0.1
    for i in range(n):
        s = helper_step(s, x, i)
    return s


mem("for_calls_helper", loop_calls_helper, (1.1,), tol=1e-5)


def loop_in_helper(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.log1p(x * x * 1e-3 + s * 1e-4)
    return s


def outer_calls_loop(x):
    return loop_in_helper(x, 2000) + x


mem("loop_inside_inlined_helper", outer_calls_loop, (0.4,), tol=1e-5)


def loop_kwargs(x, *, n=1500, rate=0.01):
    s = 0.0
    for i in range(n):
        s = s + rate * math.tanh(x - s)
    return s


mem("for_keyword_only_args", loop_kwargs, (2.0,), kw={"n": 1800, "rate": 0.005}, tol=1e-5)


# -- scalar while loops ------------------------------------------------------------------

def while_integrate(x):
    t, y = 0.0, 1.0
    while t < 3.0:
        y = y + 1e-3 * (-x * y + math.sin(t))
        t += 1e-3
    return y


mem("while_time_integration", while_integrate, (0.8,), tol=1e-5)


def while_counter(x, n=4000):
    i = 0
    s = 0.0
    while i < n:
        s = s + x * math.exp(-s * 1e-3) * 1e-3
        i += 1
    return s


mem("while_counter", while_counter, (1.5,), tol=1e-5)


def while_with_break(x):
    s, i = 0.0, 0
    while True:
        s = s + x * 1e-3 * (1.0 + math.cos(s))
        i += 1
        if i >= 2500:
            break
    return s


mem("while_true_break", while_with_break, (0.9,), tol=1e-5)


def while_value_condition(x):
    s = 1.0
    k = 0
    while s < 40.0:
        s = s * (1.0 + 1e-3 * x) + 1e-3
        k += 1
    return s + k * 0.0


mem("while_value_condition", while_value_condition, (2.0,), tol=1e-4)


def for_inside_while(x):
    s, it = 0.0, 0
    while it < 40:
        for j in range(50):
            s = s + math.sin(x + j * 0.1 + s * 1e-3) * 1e-3
        it += 1
    return s


mem("for_nested_in_while", for_inside_while, (0.2,), tol=1e-5)


def while_nested_in_for(x):
    total = 0.0
    for i in range(30):
        y = 1.0 + i * 0.1
        while y > 0.01:
            y = y * 0.9 - 0.001 * x
        total = total + y * x
    return total


mem("while_nested_in_for", while_nested_in_for, (0.5,), tol=1e-5)


# -- array loops -------------------------------------------------------------------------

RNG = np.random.default_rng(6)
X_SEQ = RNG.normal(size=(300, 3))
W0 = RNG.normal(size=(3, 3)) * 0.4
U0 = RNG.normal(size=(3, 3)) * 0.4


def rnn_loss(W, U, X):
    h = np.zeros(3)
    for t in range(X.shape[0]):
        h = np.tanh(W @ h + U @ X[t])
    return np.sum(h * h)


mem("rnn_300_steps", rnn_loss, (W0, U0, X_SEQ), argnums=(0, 1), memory=2000, tol=1e-5)


def rnn_loss_rows(W, X):
    h = np.zeros(3)
    for x in X:
        h = np.tanh(W @ h + x)
    return np.sum(h)


mem("rnn_iter_rows", rnn_loss_rows, (W0, X_SEQ), memory=2000, tol=1e-5)


def heat_explicit(u0, steps=400, r=0.2):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u = u + r * lap
    return np.sum(u ** 3)


mem("heat_eq_item_writes", heat_explicit, (np.sin(np.linspace(0, 3, 12)),), memory=4000, tol=1e-5)


def heat_concat(u0, steps=500, r=0.2):
    u = u0
    for _ in range(steps):
        lap = np.concatenate(([0.0], u[:-2] - 2.0 * u[1:-1] + u[2:], [0.0]))
        u = u + r * lap
    return np.sum(u * u)


mem("heat_eq_concatenate", heat_concat, (np.cos(np.linspace(0, 2, 10)),), memory=3000, tol=1e-5)


def gd_inner_loop(theta, A, b, steps=600, lr=0.01):
    x = np.zeros(3)
    for _ in range(steps):
        g = A.T @ (A @ x - b) + theta * x
        x = x - lr * g
    return np.sum(x)


A3 = RNG.normal(size=(5, 3))
B5 = RNG.normal(size=5)
mem("unrolled_gd_hyper", gd_inner_loop, (0.5, A3, B5), memory=1500, tol=1e-5)


def array_while(v):
    x = v.copy()
    n = 0
    while n < 500:
        x = x - 0.01 * np.sin(x) * np.cos(v)
        n += 1
    return np.sum(x ** 2)


mem("array_while_counter", array_while, (np.array([0.3, 1.2, -0.7, 2.0]),), memory=1000, tol=1e-5)


def array_break(v):
    x = v * 1.0
    for i in range(2000):
        x = 0.99 * x + 0.01 * np.tanh(v)
        if np.max(np.abs(x - np.tanh(v))) < 1e-3:
            break
    return np.sum(x * v)


mem("array_for_break", array_break, (np.array([2.0, -1.0, 0.5]),), memory=1000, tol=1e-5)


def params_dict_loop(p, X):
    h = np.zeros(2)
    for t in range(X.shape[0]):
        h = np.tanh(p["W"] @ h + p["U"] @ X[t] + p["b"])
    return np.sum(h ** 2)


P2 = {"U": RNG.normal(size=(2, 3)) * 0.5, "W": RNG.normal(size=(2, 2)) * 0.5, "b": np.array([0.1, -0.2])}
mem("dict_params_rnn", params_dict_loop, (P2, X_SEQ[:200]), memory=1500, tol=1e-5)


def float32_loop(v):
    x = v
    for _ in range(300):
        x = x * np.float32(0.99) + np.float32(0.01) * np.sin(x)
    return np.sum(x)


mem("float32_array_loop", float32_loop, (np.array([0.5, 1.0, 1.5], dtype=np.float32),),
    memory=500, tol=2e-2, h=1e-2, bits=True)


def list_append_loop(x, n=1200):
    xs = []
    s = x
    for i in range(n):
        s = s * 0.999 + 1e-3 * math.sin(s)
        xs.append(s)
    return sum(xs) / n


mem("for_list_append", list_append_loop, (0.8,), tol=1e-5)


# -- value_and_grad, vjp, hessian, jit under memory= ------------------------------------------

def vag_mem():
    v, g = revsrc.value_and_grad(running_sine, memory="2KB")(0.7, 3000)
    return [v, g]


def vag_ref():
    return [running_sine(0.7, 3000)] + fd_grad(running_sine, (0.7, 3000), {}, 0)


CASES.append(pair("mem_value_and_grad", vag_mem, vag_ref, tol=1e-5))


def vjp_mem():
    out, pull = revsrc.vjp(lambda W: rnn_loss(W, U0, X_SEQ), W0, memory=2000)
    return [out, pull(2.0)]


def vjp_ref():
    return [rnn_loss(W0, U0, X_SEQ)] + [2.0 * g for g in fd_grad(rnn_loss, (W0, U0, X_SEQ), {}, 0)]


CASES.append(pair("mem_vjp_rnn", vjp_mem, vjp_ref, tol=1e-5))


def osc_energy(x):
    q, p = x, 0.0
    for _ in range(1000):
        p = p - 0.01 * math.sin(q)
        q = q + 0.01 * p
    return q * q + p * p


CASES.append(pair("mem_hessian_scalar_loop",
                  lambda: revsrc.hessian(osc_energy, memory=256)(0.9),
                  lambda: fd_hess(osc_energy, (0.9,), {}, 0, 1e-4), tol=1e-4))
CASES.append(pair("mem_hessian_scalar_loop_bits",
                  lambda: revsrc.hessian(osc_energy, memory=256)(0.9),
                  lambda: revsrc.hessian(osc_energy)(0.9), tol=0.0))


def while_energy(x):
    q, p, t = x, 0.0, 0.0
    while t < 5.0:
        p = p - 0.01 * q * q * q
        q = q + 0.01 * p
        t += 0.01
    return q * p


CASES.append(pair("mem_hessian_while_loop",
                  lambda: revsrc.hessian(while_energy, memory=128)(0.8),
                  lambda: fd_hess(while_energy, (0.8,), {}, 0, 1e-4), tol=1e-4))


def arr_loop_h(v):
    x = v
    for _ in range(200):
        x = x + 0.01 * np.tanh(x[::-1] * v)
    return np.sum(x ** 3)


V4 = np.array([0.2, -0.5, 0.9, 0.1])


def _jax_hess(f, *args):
    return jax().hessian(jaxify(f))(*args)


CASES.append(pair("mem_hessian_array_loop",
                  lambda: revsrc.hessian(arr_loop_h, memory=800)(V4),
                  lambda: _jax_hess(arr_loop_h, V4), tol=1e-7))
CASES.append(pair("mem_hessian_array_loop_bits",
                  lambda: revsrc.hessian(arr_loop_h, memory=800)(V4),
                  lambda: revsrc.hessian(arr_loop_h)(V4), tol=0.0))

D_SINE = revsrc.grad(running_sine, memory=512)


def newton_like(x):
    for _ in range(3):
        x = x - 0.1 * D_SINE(x, 400)
    return x


CASES.append(pair("mem_grad_called_in_jit",
                  lambda: revsrc.jit(newton_like)(0.7),
                  lambda: newton_like(0.7), tol=0.0))


def jit_with_memory(x):
    return revsrc.jit(loop_branch_on_value, memory=256)(x)


CASES.append(pair("mem_jit_keyword",
                  lambda: jit_with_memory(0.9),
                  lambda: loop_branch_on_value(0.9), tol=0.0))


def grad_of_mem_grad(x):
    return revsrc.grad(lambda y: D_SINE(y, 300))(x)


def fd_of_mem_grad(x):
    h = 1e-5
    return (revsrc.grad(running_sine)(x + h, 300) - revsrc.grad(running_sine)(x - h, 300)) / (2 * h)


CASES.append(pair("mem_grad_of_memory_grad", lambda: grad_of_mem_grad(0.7),
                  lambda: fd_of_mem_grad(0.7), tol=1e-5))


def hmc_leapfrog(q0, p0, eps=0.01, L=800):
    q, p = q0, p0
    p = p - 0.5 * eps * q
    for _ in range(L):
        q = q + eps * p
        p = p - eps * (q + 0.1 * q ** 3)
    p = p + 0.5 * eps * (q + 0.1 * q ** 3)
    return np.sum(q ** 2) + np.sum(p ** 2)


mem("hmc_leapfrog_arrays", hmc_leapfrog, (np.array([0.5, -0.3]), np.array([0.1, 0.4])),
    argnums=(0, 1), memory=700, tol=1e-5)


def random_walk_loss(x, seed=0):
    rng = np.random.default_rng(seed)
    s = x
    for _ in range(500):
        s = s + 0.01 * rng.normal() * s
    return s


mem("random_draws_in_loop", random_walk_loss, (1.0,), bits=False, tol=1e-5)


def kalman_scalar(q, r, ys):
    m, P = 0.0, 1.0
    nll = 0.0
    for y in ys:
        P = P + q
        S = P + r
        K = P / S
        nll = nll + 0.5 * (math.log(S) + (y - m) ** 2 / S)
        m = m + K * (y - m)
        P = (1.0 - K) * P
    return nll


YS = [float(v) for v in np.cumsum(RNG.normal(size=800)) * 0.1]
mem("kalman_scalar_iter_list", kalman_scalar, (0.05, 0.3, YS), argnums=(0, 1), tol=1e-5)


def kalman_scalar_range(q, r, ys):
    m, P = 0.0, 1.0
    nll = 0.0
    for t in range(len(ys)):
        P = P + q
        S = P + r
        nll = nll + 0.5 * (math.log(S) + (ys[t] - m) ** 2 / S)
        m = m + P / S * (ys[t] - m)
        P = P - P * P / S
    return nll


mem("kalman_scalar_range_array", kalman_scalar_range, (0.05, 0.3, np.array(YS)),
    argnums=(0, 1), memory=300, tol=1e-5)
