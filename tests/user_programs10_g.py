"""Round 10, compositions on new domains: grad of grad, hessian, jacfwd/jacrev, jvp,
vjp, linearize, hvp, vmap (in_axes, per-example gradients), jit of scalar loops and of
grad, argnums tuples, has_aux, value_and_grad, memory= for long loops, backend="jax",
derivatives kept and called later, rebinding a global between calls."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1007)
SIG = rng.normal(size=16)


def iir(a, x):
    y = 0.0
    e = 0.0
    for v in x:
        y = a * y + v
        e += y * y
    return e


def d2_iir():
    return revsrc.grad(revsrc.grad(iir))(0.6, SIG)


CASES.append(pair("r10_grad_of_grad_iir", d2_iir, lambda: jax().grad(jax().grad(jaxify(iir)))(0.6, SIG)))


def arrhenius_sum(logA, Ea, T):
    return np.sum(np.exp(logA - Ea / (8.314 * T)))


TT = np.array([300.0, 320.0, 340.0])
CASES.append(pair("r10_hessian_two_argnums", lambda: revsrc.hessian(arrhenius_sum, argnums=(0, 1))(1.0, 2e4, TT),
                  lambda: jax().hessian(jaxify(arrhenius_sum), argnums=(0, 1))(1.0, 2e4, TT), tol=1e-6))


def sir_traj(theta):
    beta, gamma = theta[0], theta[1]
    s, i = 0.99, 0.01
    out = []
    for _ in range(30):
        ds = -beta * s * i
        di = beta * s * i - gamma * i
        s, i = s + ds, i + di
        out.append(i)
    return np.array(out)


TH = np.array([0.5, 0.15])
CASES.append(pair("r10_jacfwd_sir_trajectory", lambda: revsrc.jacfwd(sir_traj)(TH),
                  lambda: jax().jacfwd(jaxify(sir_traj))(TH)))
CASES.append(pair("r10_jacrev_sir_trajectory", lambda: revsrc.jacrev(sir_traj)(TH),
                  lambda: jax().jacrev(jaxify(sir_traj))(TH)))


def blur1d(x, k):
    return np.convolve(x, k, mode="same")


K3 = np.array([0.25, 0.5, 0.25])
CASES.append(pair("r10_jvp_blur_kernel", lambda: revsrc.jvp(blur1d, (SIG, K3), (np.ones_like(SIG), np.array([1.0, 0, -1]))),
                  lambda: jax().jvp(jaxify(blur1d), (SIG, K3), (np.ones_like(SIG), np.array([1.0, 0, -1])))))


def vjp_blur():
    out, fn = revsrc.vjp(blur1d, SIG, K3)
    return fn(np.arange(16.0))


CASES.append(pair("r10_vjp_blur_pullback", vjp_blur,
                  lambda: jax().vjp(jaxify(blur1d), SIG, K3)[1](np.arange(16.0))))


def lin_later():
    y, f_jvp = revsrc.linearize(sir_traj, TH)
    a = f_jvp(np.array([1.0, 0.0]))
    b = f_jvp(np.array([0.0, 1.0]))
    return np.stack([a, b], axis=1)


CASES.append(pair("r10_linearize_called_twice", lin_later, lambda: jax().jacfwd(jaxify(sir_traj))(TH)))


def tv(u):
    return np.sum(np.sqrt(np.diff(u) ** 2 + 1e-2))


CASES.append(pair("r10_hvp_total_variation", lambda: revsrc.hvp(tv, (SIG,), (np.cos(np.arange(16.0)),)),
                  lambda: jax().jvp(jax().grad(jaxify(tv)), (SIG,), (np.cos(np.arange(16.0)),))[1]))


def erlang_b(a, c):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


LOADS = np.linspace(1.0, 8.0, 6)
CASES.append(pair("r10_vmap_erlang_b_scalar_loop", lambda: revsrc.vmap(erlang_b, in_axes=(0, None))(LOADS, 6),
                  lambda: np.array([erlang_b(a, 6) for a in LOADS]), tol=1e-12))
CASES.append(pair("r10_vmap_of_grad_erlang_b", lambda: revsrc.vmap(revsrc.grad(erlang_b), in_axes=(0, None))(LOADS, 6),
                  lambda: np.array([float(jax().grad(jaxify(erlang_b))(a, 6)) for a in LOADS])))


def logistic_nll(w, x, y):
    z = np.dot(w, x)
    return np.log1p(np.exp(-y * z))


XS = rng.normal(size=(7, 3))
YS = np.sign(rng.normal(size=7))
WV = rng.normal(size=3)


def per_example():
    return revsrc.vmap(revsrc.grad(logistic_nll), in_axes=(None, 0, 0))(WV, XS, YS)


CASES.append(pair("r10_per_example_grads_vmap", per_example,
                  lambda: jax().vmap(jax().grad(jaxify(logistic_nll)), in_axes=(None, 0, 0))(WV, XS, YS)))


def lindley(s, a, n):
    w = 0.0
    tot = 0.0
    for k in range(n):
        w = max(0.0, w + s * (1.0 + 0.1 * math.sin(k)) - a)
        tot += w
    return tot / n


CASES.append(pair("r10_jit_scalar_lindley", lambda: revsrc.jit(lindley)(0.9, 1.0, 200), lambda: lindley(0.9, 1.0, 200), tol=0.0))
CASES.append(pair("r10_jit_of_grad_lindley", lambda: revsrc.jit(revsrc.grad(lindley, argnums=(0, 1)))(0.9, 1.0, 200),
                  lambda: fd_checked(lindley, (0.9, 1.0, 200), argnums=(0, 1))))


def loss_with_aux(w, x):
    pred = np.tanh(x @ w)
    loss = np.mean(pred ** 2)
    return loss, {"pred_mean": np.mean(pred), "n": x.shape[0]}


def aux_case():
    (l, aux), g = revsrc.value_and_grad(loss_with_aux, has_aux=True)(WV, XS)
    return l, aux["pred_mean"], g


def aux_ref():
    f = jaxify(loss_with_aux)
    (l, aux), g = jax().value_and_grad(f, has_aux=True)(WV, XS)
    return l, aux["pred_mean"], g


CASES.append(pair("r10_value_and_grad_has_aux_dict", aux_case, aux_ref))


def grad_has_aux_only():
    g, aux = revsrc.grad(loss_with_aux, has_aux=True)(WV, XS)
    return g, aux["n"]


CASES.append(pair("r10_grad_has_aux_int_aux", grad_has_aux_only,
                  lambda: (jax().grad(jaxify(loss_with_aux), has_aux=True)(WV, XS)[0], 7)))


def long_leaky_integrator(tau, x):
    v = 0.0
    acc = 0.0
    for xn in x:
        v = v + (xn - v) / tau
        acc += v * v
    return acc


LONG = rng.normal(size=3000)
CASES.append(pair("r10_memory_checkpointed_long_loop",
                  lambda: revsrc.grad(long_leaky_integrator, memory=64)(4.0, LONG),
                  lambda: revsrc.grad(long_leaky_integrator)(4.0, LONG), tol=0.0))
CASES.append(pair("r10_memory_vs_jax_long_loop",
                  lambda: revsrc.grad(long_leaky_integrator, memory="1KB")(4.0, LONG[:400]),
                  lambda: jax().grad(jaxify(long_leaky_integrator))(4.0, LONG[:400])))


def gmm_ll(mu, x):
    d = x[:, None] - mu[None, :]
    return np.sum(np.log(np.sum(np.exp(-0.5 * d * d), axis=1)))


XG = rng.normal(size=20)
CASES.append(pair("r10_backend_jax_gmm", lambda: revsrc.grad(gmm_ll, backend="jax")(np.array([-1.0, 0.5, 2.0]), XG),
                  lambda: jax().grad(jaxify(gmm_ll))(np.array([-1.0, 0.5, 2.0]), XG)))


def newton_sqrt(c):
    x = c
    while abs(x * x - c) > 1e-12 * c:
        x = 0.5 * (x + c / x)
    return x


CASES.append(pair("r10_backend_jax_while_newton", lambda: revsrc.grad(newton_sqrt, backend="jax")(7.0),
                  lambda: 0.5 / math.sqrt(7.0), tol=1e-8))

RATE = 0.05


def discount(cfs):
    return sum(cf / (1 + RATE) ** (t + 1) for t, cf in enumerate(cfs))


def rebinding_global():
    global RATE
    g = revsrc.grad(discount)
    RATE = 0.05
    a = g([10.0, 10.0, 110.0])
    RATE = 0.10
    try:
        b = g([10.0, 10.0, 110.0])
    finally:
        RATE = 0.05
    return a, b


CASES.append(pair("r10_rebind_global_rate_between_calls", rebinding_global,
                  lambda: ([1.05 ** -k for k in (1, 2, 3)], [1.10 ** -k for k in (1, 2, 3)])))


def make_grad_later():
    fns = {name: revsrc.grad(f) for name, f in [("tv", tv), ("iir_a", lambda a: iir(a, SIG))]}
    return fns["tv"](SIG[:5]), fns["iir_a"](0.3)


CASES.append(pair("r10_derivatives_stored_in_dict", make_grad_later,
                  lambda: (jax().grad(jaxify(tv))(SIG[:5]), jax().grad(jaxify(iir))(0.3, SIG))))


def grad_inside_objective(a):
    # an outer objective using the inner derivative: (d iir / d a)^2
    g = revsrc.grad(iir)(a, SIG[:6])
    return g * g


CASES.append(G("r10_grad_called_inside_grad", grad_inside_objective, (0.4,), ref=lambda: float(
    jax().grad(lambda a: jax().grad(jaxify(iir))(a, SIG[:6]) ** 2)(0.4))))


def jacobian_of_softmax(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


Z5 = rng.normal(size=5)
CASES.append(pair("r10_jacobian_softmax_closed_form", lambda: revsrc.jacobian(jacobian_of_softmax)(Z5),
                  lambda: np.diag(jacobian_of_softmax(Z5)) - np.outer(jacobian_of_softmax(Z5), jacobian_of_softmax(Z5))))


def hessian_rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


CASES.append(H("r10_hessian_rosenbrock_5d", hessian_rosen, (rng.normal(size=5),), ref="jax"))


def vjp_with_memory():
    out, fn = revsrc.vjp(lambda a: long_leaky_integrator(a, LONG[:500]), 3.0, memory=32)
    return out, fn(1.0)


CASES.append(pair("r10_vjp_memory_scalar", vjp_with_memory,
                  lambda: jax().value_and_grad(lambda a: jaxify(long_leaky_integrator)(a, LONG[:500]))(3.0)))


def jacfwd_argnums_tuple(k, y0):
    a, b = y0[0], y0[1]
    for _ in range(20):
        a, b = a - 0.05 * k[0] * a, b + 0.05 * (k[0] * a - k[1] * b)
    return np.array([a, b])


CASES.append(pair("r10_jacfwd_argnums_tuple", lambda: revsrc.jacfwd(jacfwd_argnums_tuple, argnums=(0, 1))(TH, np.array([1.0, 0.0])),
                  lambda: jax().jacfwd(jaxify(jacfwd_argnums_tuple), argnums=(0, 1))(TH, np.array([1.0, 0.0]))))
CASES.append(H("r10_hessian_total_variation_diff", tv, (SIG[:6],), ref="jax"))


def tv_slices(u):
    return np.sum(np.sqrt((u[1:] - u[:-1]) ** 2 + 1e-2))


CASES.append(pair("r10_hvp_total_variation_slices", lambda: revsrc.hvp(tv_slices, (SIG,), (np.cos(np.arange(16.0)),)),
                  lambda: jax().jvp(jax().grad(jaxify(tv_slices)), (SIG,), (np.cos(np.arange(16.0)),))[1]))


# -- backend="jax" on the new domains' programs (the reference: JAX itself, or the default backend) --

def jax_backend(name, f, args, argnums=0, ref=None, tol=1e-9):
    CASES.append(pair(name, lambda: revsrc.grad(f, argnums=argnums, backend="jax")(*args),
                      ref if ref is not None else (lambda: revsrc.grad(f, argnums=argnums)(*args)), tol=tol))


def jb_comb_series(p, n):
    return sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) * k for k in range(n + 1))


jax_backend("r10_jax_backend_math_comb", jb_comb_series, (0.3, 12), ref=lambda: 12.0, tol=1e-9)


def jb_dict_mode(params, mode):
    if mode == "sir":
        return params["beta"] / params["gamma"]
    return params["beta"] * params["gamma"]


jax_backend("r10_jax_backend_dict_str_mode", jb_dict_mode, ({"beta": 0.4, "gamma": 0.1}, "sir"),
            ref=lambda: {"beta": 10.0, "gamma": -40.0})


def jb_list_append(a, n):
    xs = []
    y = 1.0
    for _ in range(n):
        y = a * y + 1.0
        xs.append(y)
    return np.sum(np.array(xs) ** 2)


jax_backend("r10_jax_backend_list_append_loop", jb_list_append, (0.7, 10))


def jb_inplace_index(k, n=8):
    u = np.zeros(n)
    u[0] = 1.0
    for i in range(1, n):
        u[i] = u[i - 1] * k + 0.1 * i
    return np.sum(u ** 2)


jax_backend("r10_jax_backend_inplace_index_loop", jb_inplace_index, (0.9,))


def jb_while_newton(c):
    x = 1.0
    while abs(x * x * x - c) > 1e-13:
        x = x - (x * x * x - c) / (3 * x * x)
    return x


jax_backend("r10_jax_backend_while_cuberoot", jb_while_newton, (5.0,), ref=lambda: (1 / 3) * 5.0 ** (-2 / 3), tol=1e-8)


def jb_float32(w, x):
    return np.sum(np.tanh(x @ w))


X32 = np.asarray(rng.normal(size=(4, 3)), dtype=np.float32)
W32 = np.asarray(rng.normal(size=3), dtype=np.float32)
jax_backend("r10_jax_backend_float32", jb_float32, (W32, X32), tol=1e-5)


def jb_add_at(w, idx):
    b = np.zeros(3)
    np.add.at(b, idx, w)
    return np.sum(b ** 2)


jax_backend("r10_jax_backend_add_at", jb_add_at, (np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 2, 0, 1])))


def jb_recursion(n, x):
    if n == 0:
        return 1.0
    return x * jb_recursion(n - 1, x) + 1.0


jax_backend("r10_jax_backend_int_recursion", jb_recursion, (6, 0.8), argnums=1)


def jb_try_domain(x):
    try:
        return math.log(x - 1.0)
    except ValueError:
        return 0.0


jax_backend("r10_jax_backend_try_math_domain", jb_try_domain, (3.0,), ref=lambda: 0.5)


def jb_int_div_zero(x, n):
    return x / n


# guide/jax.md: under backend="jax" JAX's semantics apply where they differ from Python's:
# 1.0 / 0 is inf there (Python raises ZeroDivisionError)
CASES.append(pair("r10_jax_backend_division_by_int_zero",
                  lambda: revsrc.grad(jb_int_div_zero, backend="jax")(1.0, 0), lambda: math.inf, tol=0.0))
