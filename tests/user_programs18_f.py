"""Round 18, part f: compositions, state between calls and misuse across finance, robotics,
PDEs, signals and chemistry -- rebinding globals and attributes between calls, mutating an
argument array between calls, Generators advancing, jit(grad), grad(grad), jacfwd(jacrev),
vmap(grad) with in_axes, hvp, has_aux, backend="jax", and user errors revsrc must refuse."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

RATE = 0.03
SQRT2 = math.sqrt(2.0)


def ncdf(x):
    return 0.5 * (1.0 + math.erf(x / SQRT2))


def call_price(S, sigma, K=100.0, T=1.0):
    v = sigma * math.sqrt(T)
    d1 = (math.log(S / K) + (RATE + 0.5 * sigma * sigma) * T) / v
    return S * ncdf(d1) - K * math.exp(-RATE * T) * ncdf(d1 - v)


def _delta(S, sigma, r, K=100.0, T=1.0):
    v = sigma * math.sqrt(T)
    return ncdf((math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / v)


def global_rebind_between_calls():
    global RATE
    df = revsrc.grad(call_price)
    out = []
    old = RATE
    try:
        for r in (0.0, 0.05, 0.1):
            RATE = r
            out.append(df(100.0, 0.2))
    finally:
        RATE = old
    return out


add(pair("r18f_global_rate_rebound_between_calls", global_rebind_between_calls,
         lambda: [_delta(100.0, 0.2, r) for r in (0.0, 0.05, 0.1)], tol=1e-12))


def jit_global_rebind():
    global RATE
    df = revsrc.jit(revsrc.grad(call_price))
    out = []
    old = RATE
    try:
        for r in (0.0, 0.05, 0.1):
            RATE = r
            out.append(df(100.0, 0.2))
    finally:
        RATE = old
    return out


add(pair("r18f_jit_grad_global_rate_rebound", jit_global_rebind,
         lambda: [_delta(100.0, 0.2, r) for r in (0.0, 0.05, 0.1)], tol=1e-12))


class HeatModel:
    def __init__(self, kappa, n=16):
        self.kappa = kappa
        self.n = n
        self.x = np.linspace(0, 1, n)

    @property
    def dx(self):
        return self.x[1] - self.x[0]

    def step(self, u, dt=1e-4):
        lap = np.zeros_like(u)
        lap[1:-1] = (u[2:] - 2 * u[1:-1] + u[:-2]) / self.dx ** 2
        return u + dt * self.kappa * lap

    def loss(self, u0, steps=20):
        u = u0
        for _ in range(steps):
            u = self.step(u)
        return np.sum(u ** 2)


HM = HeatModel(0.5)
UH = np.exp(-50 * (HM.x - 0.5) ** 2)


def attr_rebind_between_calls():
    m = HeatModel(0.5)
    g = revsrc.grad(m.loss)
    a = g(UH)
    m.kappa = 1.5
    b = g(UH)
    return a, b


def _attr_ref():
    return (fd_checked(HeatModel(0.5).loss, (UH,)), fd_checked(HeatModel(1.5).loss, (UH,)))


add(pair("r18f_bound_method_attribute_rebound", attr_rebind_between_calls, _attr_ref, tol=1e-7))


def arg_mutated_between_calls():
    obs = np.linspace(0.0, 1.0, 16)

    def loss(u0, obs):
        return np.sum((HM.step(u0) - obs) ** 2)
    g = revsrc.grad(loss)
    a = g(UH, obs)
    obs[:] = 0.5
    b = g(UH, obs)
    return a, b


def _arg_mut_ref():
    def loss(u0, obs):
        return np.sum((HM.step(u0) - obs) ** 2)
    return (fd_checked(loss, (UH, np.linspace(0.0, 1.0, 16))), fd_checked(loss, (UH, np.full(16, 0.5))))


add(pair("r18f_argument_array_mutated_between_calls", arg_mutated_between_calls, _arg_mut_ref, tol=1e-7))


def mc_loss(sigma, rng, n=1000):
    z = rng.standard_normal(n)
    return np.mean(np.maximum(100.0 * np.exp(sigma * z - 0.5 * sigma ** 2) - 100.0, 0.0))


def gen_advances():
    rng = np.random.default_rng(21)
    g = revsrc.grad(mc_loss)
    return g(0.2, rng), g(0.2, rng)


def _gen_ref():
    rng = np.random.default_rng(21)
    out = []
    for _ in range(2):
        z = rng.standard_normal(1000)
        S = 100.0 * np.exp(0.2 * z - 0.02)
        out.append(np.mean((S > 100.0) * S * (z - 0.2)))
    return tuple(out)


add(pair("r18f_generator_argument_advances", gen_advances, _gen_ref, tol=1e-11))


def plain_and_grad_share_stream():
    rng = np.random.default_rng(5)
    v = mc_loss(0.3, rng)
    g = revsrc.grad(mc_loss)(0.3, rng)
    return v, g


def _share_ref():
    rng = np.random.default_rng(5)
    v = mc_loss(0.3, rng)
    z = rng.standard_normal(1000)
    S = 100.0 * np.exp(0.3 * z - 0.045)
    return v, np.mean((S > 100.0) * S * (z - 0.3))


add(pair("r18f_plain_then_grad_generator_state", plain_and_grad_share_stream, _share_ref, tol=1e-11))


def ik_cost(q, target):
    x = math.cos(q[0]) + 0.7 * math.cos(q[0] + q[1])
    y = math.sin(q[0]) + 0.7 * math.sin(q[0] + q[1])
    return (x - target[0]) ** 2 + (y - target[1]) ** 2


QS = np.array([[0.1, 0.5], [0.8, -0.3], [1.2, 0.9], [-0.4, 1.4]])
TGTS = np.array([[1.0, 0.9], [0.5, 1.2], [0.2, 1.0], [1.3, 0.1]])
add(pair("r18f_vmap_grad_in_axes_0_0", lambda: revsrc.vmap(revsrc.grad(ik_cost), in_axes=(0, 0))(QS, TGTS),
         lambda: np.stack([jax().grad(jaxify(ik_cost))(q, t) for q, t in zip(QS, TGTS)]), tol=1e-12))
add(pair("r18f_vmap_grad_in_axes_0_None", lambda: revsrc.vmap(revsrc.grad(ik_cost), in_axes=(0, None))(QS, TGTS[0]),
         lambda: np.stack([jax().grad(jaxify(ik_cost))(q, TGTS[0]) for q in QS]), tol=1e-12))
add(pair("r18f_jit_of_vmap_hessian_each",
         lambda: revsrc.vmap(revsrc.hessian(ik_cost), in_axes=(0, None))(QS, TGTS[1]),
         lambda: np.stack([jax().hessian(jaxify(ik_cost))(q, TGTS[1]) for q in QS]), tol=1e-10))
add(pair("r18f_grad_of_grad_component", lambda: revsrc.grad(lambda q: revsrc.grad(ik_cost)(q, TGTS[0])[0])(QS[0]),
         lambda: jax().hessian(jaxify(ik_cost))(QS[0], TGTS[0])[0], tol=1e-10))
add(pair("r18f_jacfwd_jacrev_ik", lambda: revsrc.jacfwd(revsrc.jacrev(ik_cost))(QS[2], TGTS[2]),
         lambda: jax().hessian(jaxify(ik_cost))(QS[2], TGTS[2]), tol=1e-10))
add(pair("r18f_hvp_ik", lambda: revsrc.hvp(ik_cost, (QS[3], TGTS[3]), (np.array([1.0, -2.0]), np.zeros(2))),
         lambda: jax().jvp(jax().grad(jaxify(ik_cost)), (QS[3], TGTS[3]), (np.array([1.0, -2.0]), np.zeros(2)))[1], tol=1e-10))
add(G("r18f_ik_backend_jax_argnums_both", ik_cost, (QS[1], TGTS[1]), argnums=(0, 1), ref="jax", tol=1e-12, backend="jax"))


def damped_newton_ik(target, q0=np.array([0.3, 0.3]), iters=25):
    q = q0.copy()
    for _ in range(iters):
        g = revsrc.grad(ik_cost)(q, target)
        Hm = revsrc.hessian(ik_cost)(q, target)
        q = q - np.linalg.solve(Hm + 1e-3 * np.eye(2), g)
    return q


def ik_solution_loss(target):
    q = damped_newton_ik(target)
    return q[0] ** 2 + q[1] ** 2


add(G("r18f_grad_through_inner_grad_and_hessian_newton", ik_solution_loss, (np.array([1.1, 0.8]),), ref="fd", tol=1e-5))


def spectral_aux(x):
    X = np.fft.rfft(x)
    P = np.abs(X) ** 2
    return np.sum(P[3:]) / np.sum(P), {"peak": np.argmax(P), "total": np.sum(P)}


XS = np.sin(np.arange(32) * 0.4) + 0.1 * np.cos(np.arange(32) * 2.1)


def _aux_ref():
    v, aux = spectral_aux(XS)
    g = jax().grad(lambda x: jaxify(spectral_aux)(x)[0])(XS)
    return (v, aux), g


add(pair("r18f_value_and_grad_has_aux_int_in_aux", lambda: revsrc.value_and_grad(spectral_aux, has_aux=True)(XS), _aux_ref, tol=1e-11))


def eos_energy(V, B0=0.6, V0=16.5):
    return 0.5 * B0 * (V - V0) ** 2 / V0


def pressure(V):
    return -revsrc.grad(eos_energy)(V)


add(pair("r18f_grad_of_pressure_bulk_modulus", lambda: revsrc.grad(pressure)(15.0), lambda: -0.6 / 16.5, tol=1e-12))
add(pair("r18f_partial_eos_grad", lambda: revsrc.grad(functools.partial(eos_energy, B0=0.9))(15.0), lambda: 0.9 * (15.0 - 16.5) / 16.5, tol=1e-12))

# ---- misuse ----
add(G("r18f_misuse_grad_wrt_int_steps", lambda u0, steps: HM.loss(u0, steps), (UH, 5), argnums=1, ref=lambda: 0.0))
add(G("r18f_misuse_grad_vector_output_fk", lambda q: np.array([math.cos(q[0]), math.sin(q[0])]), (np.array([0.3, 0.1]),), ref=lambda: 0.0))
add(G("r18f_misuse_argnums_past_params", ik_cost, (QS[0], TGTS[0]), argnums=2, ref=lambda: 0.0))
add(pair("r18f_misuse_hvp_wrong_tangent_shape", lambda: revsrc.hvp(ik_cost, (QS[0], TGTS[0]), (np.ones(3), np.zeros(2))), lambda: 0.0))
add(pair("r18f_misuse_vmap_mismatched_sizes", lambda: revsrc.vmap(revsrc.grad(ik_cost))(QS, TGTS[:3]), lambda: 0.0))
add(G("r18f_misuse_complex_output_grad", lambda x: np.sum(np.fft.fft(x)), (XS,), ref=lambda: 0.0))


def writes_argument(u):
    u[0] = 0.0
    return np.sum(u ** 2)


add(G("r18f_misuse_write_into_argument", writes_argument, (UH.copy(),), ref=lambda: 0.0))


def global_cache_loss(x):
    CACHE["last"] = x
    return x * x


CACHE = {}
add(G("r18f_misuse_write_global_cache", global_cache_loss, (2.0,), ref=lambda: 4.0))


def nan_price_edge(S):
    return call_price(S, 0.2)


add(G("r18f_nan_spot_propagates", nan_price_edge, (float("nan"),), ref=lambda: float("nan")))
add(G("r18f_deep_otm_tiny_spot_edge", lambda S: call_price(S, 0.2), (1e-3,), ref=lambda: 0.0, tol=1e-12))


def portfolio_loss(params, R, target):
    # params is a dict pytree; per-sample loss mapped over (R, target) with params shared
    w = params["w"] / np.sum(params["w"])
    pred = R @ w + params["b"]
    return (pred - target) ** 2 + 0.01 * np.sum(params["w"] ** 2)


PARAMS = {"w": np.array([0.3, 0.5, 0.2]), "b": 0.01}
RS = np.random.default_rng(8).normal(0.0, 0.05, (5, 3))
TS = np.linspace(-0.02, 0.03, 5)


def _vmap_dict_ref():
    gs = [jax().grad(jaxify(portfolio_loss))(PARAMS, r, t) for r, t in zip(RS, TS)]
    return {"b": np.array([g["b"] for g in gs]), "w": np.stack([g["w"] for g in gs])}


add(pair("r18f_vmap_grad_dict_params_in_axes_None_0_0",
         lambda: revsrc.vmap(revsrc.grad(portfolio_loss), in_axes=(None, 0, 0))(PARAMS, RS, TS), _vmap_dict_ref, tol=1e-12))


def mutable_default_weights(x, w=np.array([1.0, 2.0, 3.0])):
    return np.sum(w * np.sin(x))


def default_mutated_between_calls():
    g = revsrc.grad(mutable_default_weights)
    x = np.array([0.1, 0.2, 0.3])
    a = g(x)
    mutable_default_weights.__defaults__[0][:] = [3.0, 2.0, 1.0]
    try:
        b = g(x)
    finally:
        mutable_default_weights.__defaults__[0][:] = [1.0, 2.0, 3.0]
    return a, b


add(pair("r18f_default_array_mutated_between_calls", default_mutated_between_calls,
         lambda: (np.array([1.0, 2.0, 3.0]) * np.cos([0.1, 0.2, 0.3]), np.array([3.0, 2.0, 1.0]) * np.cos([0.1, 0.2, 0.3])), tol=1e-12))


def jit_grad_while_newton(P):
    # jit(grad) of a scalar Newton solve with a data-dependent while (cube root by Newton)
    z = 1.0
    step = 1.0
    while abs(step) > 1e-14:
        step = (z ** 3 - P) / (3 * z * z)
        z = z - step
    return z


add(pair("r18f_jit_grad_while_cube_root", lambda: revsrc.jit(revsrc.grad(jit_grad_while_newton))(5.0),
         lambda: 1.0 / (3.0 * 5.0 ** (2.0 / 3.0)), tol=1e-10))


def sorted_quantile_loss(x):
    s = np.sort(x)
    w = np.cumsum(np.ones_like(s)) / s.shape[0]
    return np.sum(w * s ** 2)


XQ = np.array([0.3, -1.2, 0.8, 2.0, -0.1])
add(H("r18f_hessian_np_sort_cumsum_weights", sorted_quantile_loss, (XQ,), ref="ag", tol=1e-10))


def aux_tuple_arrays(x):
    y = np.tanh(x)
    return np.sum(y ** 2), (y, np.argmax(y))


add(pair("r18f_grad_has_aux_tuple_of_array_and_int",
         lambda: revsrc.grad(aux_tuple_arrays, has_aux=True)(XQ),
         lambda: (2 * np.tanh(XQ) * (1 - np.tanh(XQ) ** 2), (np.tanh(XQ), np.argmax(np.tanh(XQ)))), tol=1e-12))


def inf_barrier(x):
    # a log barrier that is inf outside; the user's np.where picks a finite branch
    inside = x < 1.0
    val = np.where(inside, -np.log(np.where(inside, 1.0 - x, 1.0)), np.inf)
    return np.sum(np.where(np.isfinite(val), val, 0.0))


XB = np.array([0.2, 0.5, 1.5, 0.9])
add(G("r18f_log_barrier_inf_where_masked", inf_barrier, (XB,), ref=lambda: np.where(XB < 1.0, 1.0 / (1.0 - XB), 0.0), tol=1e-12))


def empty_batch_loss(x, batch):
    return np.sum(x) * 0.0 + np.sum((batch - x[0]) ** 2)


add(G("r18f_empty_batch_array", empty_batch_loss, (np.array([1.0, 2.0]), np.zeros(0)), ref=lambda: np.zeros(2), tol=1e-15))


def int_array_positions(x, idx):
    return np.sum(x[idx] ** 2)


add(G("r18f_int_index_array_argument", int_array_positions, (np.array([1.0, 2.0, 3.0]), np.array([0, 2, 2])),
      ref=lambda: np.array([2.0, 0.0, 12.0]), tol=1e-15))


def float32_heat(k):
    u = np.linspace(0, 1, 8, dtype=np.float32)
    return np.sum((u * k) ** 2)


add(pair("r18f_float32_internal_array", lambda: revsrc.grad(float32_heat)(np.float32(2.0)),
         lambda: 2.0 * 2.0 * np.sum(np.linspace(0, 1, 8) ** 2), tol=1e-5))


def generator_backend_jax(sigma, rng):
    z = rng.standard_normal(50)
    return np.mean(np.exp(sigma * z))


add(G("r18f_generator_argument_backend_jax", generator_backend_jax, (0.3, np.random.default_rng(1)),
      ref=lambda: np.mean(np.random.default_rng(1).standard_normal(50) * np.exp(0.3 * np.random.default_rng(1).standard_normal(50))),
      backend="jax", tol=1e-12))


def jvp_of_grad_vs_hvp():
    f = lambda q: ik_cost(q, TGTS[0])  # noqa: E731
    return revsrc.jvp(revsrc.grad(f), (QS[0],), (np.array([0.5, 1.0]),))[1]


add(pair("r18f_jvp_of_grad_lambda", jvp_of_grad_vs_hvp,
         lambda: jax().hessian(jaxify(ik_cost))(QS[0], TGTS[0]) @ np.array([0.5, 1.0]), tol=1e-10))


def linearize_reuse():
    y, f_jvp = revsrc.linearize(lambda q: ik_cost(q, TGTS[2]), QS[2])
    return y, f_jvp(np.array([1.0, 0.0])), f_jvp(np.array([0.0, 1.0]))


def _lin_ref():
    g = jax().grad(jaxify(ik_cost))(QS[2], TGTS[2])
    return ik_cost(QS[2], TGTS[2]), g[0], g[1]


add(pair("r18f_linearize_called_twice", linearize_reuse, _lin_ref, tol=1e-12))


def vjp_pytree_out():
    def fk(q):
        return {"x": math.cos(q[0]) + math.cos(q[0] + q[1]), "y": math.sin(q[0]) + math.sin(q[0] + q[1])}
    out, vjp_fn = revsrc.vjp(fk, QS[1])
    return out, vjp_fn({"x": 1.0, "y": 0.0}), vjp_fn({"x": 0.0, "y": 1.0})


def _vjp_ref():
    q = QS[1]
    a, b = q[0], q[0] + q[1]
    return ({"x": math.cos(a) + math.cos(b), "y": math.sin(a) + math.sin(b)},
            (np.array([-math.sin(a) - math.sin(b), -math.sin(b)]),),
            (np.array([math.cos(a) + math.cos(b), math.cos(b)]),))


add(pair("r18f_vjp_dict_output_two_cotangents", vjp_pytree_out, _vjp_ref, tol=1e-12))


# ---- pytrees through second-order compositions (a small model whose params are a dict)
def mlp_energy(p, x):
    h = np.tanh(x @ p["W"] + p["b"])
    return np.sum(h ** 2) * p["s"]


MP = {"W": np.array([[0.1, -0.2], [0.3, 0.4], [0.5, -0.1]]), "b": np.array([0.05, -0.02]), "s": 1.3}
MX = np.array([[1.0, 2.0, -1.0], [0.5, -0.3, 0.8]])
add(pair("r18f_hessian_dict_params", lambda: revsrc.hessian(mlp_energy)(MP, MX),
         lambda: jax().hessian(jaxify(mlp_energy))(MP, MX), tol=1e-11))
add(pair("r18f_jacrev_jacfwd_dict_params", lambda: revsrc.jacrev(revsrc.jacfwd(mlp_energy))(MP, MX),
         lambda: jax().hessian(jaxify(mlp_energy))(MP, MX), tol=1e-11))
add(pair("r18f_hvp_dict_params_none_tangent",
         lambda: revsrc.hvp(mlp_energy, (MP, MX), ({"W": np.ones((3, 2)), "b": np.array([1.0, -1.0]), "s": 0.5}, None)),
         lambda: jax().jvp(lambda p: jax().grad(jaxify(mlp_energy))(p, MX), (MP,), ({"W": np.ones((3, 2)), "b": np.array([1.0, -1.0]), "s": 0.5},))[1], tol=1e-11))


def mlp_energy_aux(p, x):
    return mlp_energy(p, x), {"n": np.sum(x)}


add(pair("r18f_value_and_grad_argnums_tuple_has_aux",
         lambda: revsrc.value_and_grad(mlp_energy_aux, argnums=(0, 1), has_aux=True)(MP, MX),
         lambda: jax().value_and_grad(jaxify(mlp_energy_aux), argnums=(0, 1), has_aux=True)(MP, MX), tol=1e-11))
add(pair("r18f_hessian_argnums_both_dict_and_array", lambda: revsrc.hessian(mlp_energy, argnums=(0, 1))(MP, MX),
         lambda: jax().hessian(jaxify(mlp_energy), argnums=(0, 1))(MP, MX), tol=1e-11))


def fk_dict(q):
    return {"pos": np.array([np.cos(q[0]), np.sin(q[0] * q[1])]), "e": q[0] ** 2}


add(pair("r18f_jacrev_dict_output", lambda: revsrc.jacrev(fk_dict)(np.array([0.3, 1.7])),
         lambda: jax().jacrev(jaxify(fk_dict))(np.array([0.3, 1.7])), tol=1e-12))


# ---- NumPy aliasing a user meets in place updates
def swap_rows_gotcha(x):
    # `a[0], a[1] = a[1], a[0]` on rows: a[1] is a view, so both rows end up the old a[1]
    a = np.outer(np.array([1.0, 2.0]), x)
    a[0], a[1] = a[1], a[0]
    return np.sum(a * np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))


XR = np.array([0.3, -0.7, 1.1])
add(G("r18f_row_swap_view_gotcha", swap_rows_gotcha, (XR,), ref="fd", tol=1e-8))
add(G("r18f_row_swap_view_gotcha_backend_jax", swap_rows_gotcha, (XR,), ref="fd", tol=1e-8, backend="jax"))


def alias_then_iadd(x):
    y = x * 2.0
    z = y
    z += 1.0
    z[0] = x[2] ** 2
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


add(G("r18f_alias_iadd_and_write", alias_then_iadd, (XR,), ref="fd", tol=1e-8))
add(G("r18f_alias_iadd_and_write_backend_jax", alias_then_iadd, (XR,), ref="fd", tol=1e-8, backend="jax"))


def row_view_before_scale(x):
    A = np.outer(x, np.array([1.0, 2.0, 3.0]))
    row = A[1]
    A *= 2.0
    return np.sum(row ** 2) + A[0, 0]


add(H("r18f_row_view_before_iscale_hessian", row_view_before_scale, (XR,), ref="fd", tol=1e-5))
add(G("r18f_row_view_before_iscale_backend_jax", row_view_before_scale, (XR,), ref="fd", tol=1e-8, backend="jax"))


def overlapping_diff_inplace(x):
    y = np.sort(x)[::-1]
    y[1:] -= y[:-1]
    return np.sum(y ** 2 * np.array([1.0, 2.0, 3.0]))


add(G("r18f_overlapping_slices_isub", overlapping_diff_inplace, (XR,), ref="fd", tol=1e-8))


# ---- state between calls under backend="jax" (jax.jit caches; revsrc must see the changes)
STRIKE_W = np.array([1.0, 2.0, 3.0])


def weighted_vega_book(sig):
    return np.sum(STRIKE_W * np.sin(sig))


class Book:
    def __init__(self):
        self.w = np.array([1.0, 2.0, 3.0])
        self.lev = 1.0

    def pnl(self, sig):
        return self.lev * np.sum(self.w * np.sin(sig))


SIGS = np.array([0.1, 0.2, 0.3])


def jax_state_global_array_mutated():
    g = revsrc.grad(weighted_vega_book, backend="jax")
    a = g(SIGS)
    old = STRIKE_W.copy()
    STRIKE_W[:] = [5.0, 6.0, 7.0]
    try:
        b = g(SIGS)
    finally:
        STRIKE_W[:] = old
    return a, b


add(pair("r18f_backend_jax_global_array_mutated_in_place", jax_state_global_array_mutated,
         lambda: (np.array([1.0, 2.0, 3.0]) * np.cos(SIGS), np.array([5.0, 6.0, 7.0]) * np.cos(SIGS)), tol=1e-13))


def jax_state_attribute_changes():
    bk = Book()
    g = revsrc.grad(bk.pnl, backend="jax")
    a = g(SIGS)
    bk.w[:] = [5.0, 6.0, 7.0]
    b = g(SIGS)
    bk.w = np.array([-1.0, 0.0, 1.0])
    bk.lev = 2.0
    c = g(SIGS)
    return a, b, c


add(pair("r18f_backend_jax_attribute_mutated_and_rebound", jax_state_attribute_changes,
         lambda: (np.array([1.0, 2.0, 3.0]) * np.cos(SIGS), np.array([5.0, 6.0, 7.0]) * np.cos(SIGS),
                  2.0 * np.array([-1.0, 0.0, 1.0]) * np.cos(SIGS)), tol=1e-13))


def jax_state_partial_array_mutated():
    w = np.array([1.0, 2.0, 3.0])
    g = revsrc.grad(functools.partial(lambda_free_book, w=w), backend="jax")
    a = g(SIGS)
    w[:] = [5.0, 6.0, 7.0]
    return a, g(SIGS)


def lambda_free_book(sig, w):
    return np.sum(w * np.sin(sig))


add(pair("r18f_backend_jax_partial_array_mutated", jax_state_partial_array_mutated,
         lambda: (np.array([1.0, 2.0, 3.0]) * np.cos(SIGS), np.array([5.0, 6.0, 7.0]) * np.cos(SIGS)), tol=1e-13))


def jit_state_bound_method_attr():
    class Spring:
        def __init__(self, k, x0):
            self.k, self.x0 = k, x0

        def energy(self, x):
            return 0.5 * self.k * (x - self.x0) ** 2
    s = Spring(2.0, 1.0)
    jg = revsrc.jit(revsrc.grad(s.energy))
    a = jg(3.0)
    s.k = 5.0
    b = jg(3.0)
    s.x0 = 0.0
    return a, b, jg(3.0)


add(pair("r18f_jit_grad_bound_method_attribute_rebound", jit_state_bound_method_attr, lambda: (4.0, 10.0, 15.0), tol=0.0))
