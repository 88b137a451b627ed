"""Round 8 user programs, batch d: finance (Black-Scholes, antithetic Monte Carlo with a
seeded Generator passed in, Heston-like Euler paths, barrier masks) and Python around
the numbers (dataclass configs, functools.partial, lambdas, closures over arrays,
dict pytrees), checked against closed forms, JAX x64 or self-checked central
differences."""
import dataclasses
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append


def ncdf(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def black_scholes(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * ncdf(d1) - K * math.exp(-r * T) * ncdf(d2)


def _bs_greeks():
    S, K, T, r, s = 100.0, 95.0, 0.5, 0.02, 0.25
    d1 = (math.log(S / K) + (r + 0.5 * s ** 2) * T) / (s * math.sqrt(T))
    d2 = d1 - s * math.sqrt(T)
    pdf = math.exp(-d1 * d1 / 2) / math.sqrt(2 * math.pi)
    delta = ncdf(d1)
    vega = S * pdf * math.sqrt(T)
    rho = K * T * math.exp(-r * T) * ncdf(d2)
    return (delta, vega, rho)


add(pair("r8_black_scholes_erf_greeks_closed_form",
         lambda: revsrc.grad(black_scholes, argnums=(0, 4, 3))(100.0, 95.0, 0.5, 0.02, 0.25),
         _bs_greeks, tol=1e-10))


def _gamma_ref():
    S, K, T, r, s = 100.0, 95.0, 0.5, 0.02, 0.25
    d1 = (math.log(S / K) + (r + 0.5 * s ** 2) * T) / (s * math.sqrt(T))
    return math.exp(-d1 * d1 / 2) / math.sqrt(2 * math.pi) / (S * s * math.sqrt(T))


add(pair("r8_black_scholes_gamma_hessian", lambda: revsrc.hessian(black_scholes)(100.0, 95.0, 0.5, 0.02, 0.25),
         _gamma_ref, tol=1e-10))


def mc_call_antithetic(S0, sigma, K, T, rng, n):
    z = rng.standard_normal(n)
    z = np.concatenate([z, -z])
    ST = S0 * np.exp((-0.5 * sigma ** 2) * T + sigma * np.sqrt(T) * z)
    return np.mean(np.maximum(ST - K, 0.0))


def _mc_ref(argnum):
    def f(S0, sigma):
        return mc_call_antithetic(S0, sigma, 100.0, 1.0, np.random.default_rng(5), 500)
    return fd_checked(f, (100.0, 0.2), argnums=argnum, h=1e-4)


add(pair("r8_mc_antithetic_generator_arg_delta",
         lambda: revsrc.grad(mc_call_antithetic)(100.0, 0.2, 100.0, 1.0, np.random.default_rng(5), 500),
         lambda: _mc_ref(0), tol=1e-6))
add(pair("r8_mc_antithetic_generator_arg_vega",
         lambda: revsrc.grad(mc_call_antithetic, argnums=1)(100.0, 0.2, 100.0, 1.0, np.random.default_rng(5), 500),
         lambda: _mc_ref(1), tol=1e-6))


def heston_euler(v0, kappa, theta, xi, Z, dt):
    S = np.full(Z.shape[1], 100.0)
    v = np.full(Z.shape[1], v0)
    for t in range(Z.shape[0]):
        vp = np.maximum(v, 0.0)
        S = S * np.exp(-0.5 * vp * dt + np.sqrt(vp * dt) * Z[t, :, 0])
        v = v + kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * Z[t, :, 1]
    return np.mean(np.maximum(S - 100.0, 0.0))


ZH = np.random.default_rng(3).standard_normal((20, 64, 2))
add(G("r8_heston_full_truncation_paths", heston_euler, (0.04, 1.5, 0.04, 0.3, ZH, 0.05), argnums=(0, 1, 2, 3), h=1e-6, tol=1e-5))


def barrier_option(S0, sigma, Z, barrier):
    n_steps, n_paths = Z.shape
    dt = 1.0 / n_steps
    logS = np.full(n_paths, np.log(S0))
    alive = np.ones(n_paths, dtype=bool)
    for t in range(n_steps):
        logS = logS - 0.5 * sigma ** 2 * dt + sigma * math.sqrt(dt) * Z[t]
        alive &= np.exp(logS) < barrier
    return np.mean(np.where(alive, np.maximum(np.exp(logS) - 100.0, 0.0), 0.0))


ZB = np.random.default_rng(4).standard_normal((12, 200))
add(G("r8_barrier_bool_mask_iand", barrier_option, (100.0, 0.2, ZB, 130.0), argnums=(0, 1), h=1e-6, tol=1e-5))


def asian_call(S0, sigma, Z):
    dt = 1.0 / Z.shape[1]
    inc = -0.5 * sigma ** 2 * dt + sigma * np.sqrt(dt) * Z
    paths = S0 * np.exp(np.cumsum(inc, axis=1))
    return np.mean(np.maximum(paths.mean(axis=1) - S0, 0.0))


add(G("r8_asian_cumsum_paths", asian_call, (100.0, 0.3, np.random.default_rng(6).standard_normal((100, 16))), argnums=(0, 1), ref="jax"))


@dataclasses.dataclass
class Config:
    lr: float = 0.1
    steps: int = 10
    l2: float = 0.01


def train_with_config(w, X, y, cfg):
    for _ in range(cfg.steps):
        g = X.T @ (X @ w - y) / len(y) + cfg.l2 * w
        w = w - cfg.lr * g
    return np.sum((X @ w - y) ** 2)


rng = np.random.default_rng(83)
XD = rng.normal(size=(8, 3))
YD = rng.normal(size=8)
add(G("r8_dataclass_config_static_ints", train_with_config, (np.zeros(3) + 0.1, XD, YD, Config(lr=0.2, steps=6)), ref="jax"))


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


def dc_params_loss(p, X, y):
    return np.mean((X @ p.w + p.b - y) ** 2)


def _dc_ref():
    g = jax().grad(jaxify(lambda w, b, X, y: np.mean((X @ w + b - y) ** 2)), argnums=(0, 1))
    return g(np.array([0.1, 0.2, -0.3]), 0.5, XD, YD)


add(pair("r8_dataclass_params_grad_structure",
         lambda: (lambda g: (g.w, g.b))(revsrc.grad(dc_params_loss)(Params(np.array([0.1, 0.2, -0.3]), 0.5), XD, YD)),
         _dc_ref, tol=1e-10))


def scaled_loss(w, X, y, scale, act):
    return scale * np.sum(act(X @ w) - y) ** 2


loss_tanh = functools.partial(scaled_loss, scale=0.5, act=np.tanh)
add(pair("r8_partial_kwargs_with_np_function",
         lambda: revsrc.grad(loss_tanh)(np.array([0.1, -0.2, 0.3]), XD, YD),
         lambda: fd_checked(loss_tanh, (np.array([0.1, -0.2, 0.3]), XD, YD)), tol=1e-7))


def make_loss(X, y):
    Xc = X - X.mean(axis=0)

    def loss(w):
        return np.sum((Xc @ w - y) ** 2) / len(y)
    return loss


closure_loss = make_loss(XD, YD)
add(pair("r8_closure_over_centered_array", lambda: revsrc.grad(closure_loss)(np.ones(3)),
         lambda: 2 * (XD - XD.mean(0)).T @ ((XD - XD.mean(0)) @ np.ones(3) - YD) / 8, tol=1e-10))
add(pair("r8_closure_hessian", lambda: revsrc.hessian(closure_loss)(np.ones(3)),
         lambda: 2 * (XD - XD.mean(0)).T @ (XD - XD.mean(0)) / 8, tol=1e-10))


def lambdas_inside(x):
    sq = lambda t: t * t  # noqa: E731
    cube = lambda t: t * sq(t)  # noqa: E731
    return sq(math.sin(x)) + cube(x) / 3


add(pair("r8_lambdas_calling_lambdas", lambda: revsrc.grad(lambdas_inside)(0.8),
         lambda: 2 * math.sin(0.8) * math.cos(0.8) + 0.8 ** 2, tol=1e-12))


def map_lambda_sum(xs):
    return sum(map(lambda v: v ** 2, xs)) + sum([math.exp(v) for v in xs if v > 0])


add(pair("r8_map_lambda_and_filtered_comprehension", lambda: revsrc.grad(map_lambda_sum)([0.5, -1.0, 2.0]),
         lambda: [2 * 0.5 + math.exp(0.5), -2.0, 4.0 + math.exp(2.0)], tol=1e-12))


def dict_pytree_perlayer(params, x):
    h = x
    for name in sorted(params):
        layer = params[name]
        h = np.tanh(h @ layer["W"] + layer["b"])
    return np.sum(h)


PT = {"l1": {"W": rng.normal(size=(3, 4)), "b": np.zeros(4)}, "l2": {"W": rng.normal(size=(4, 2)), "b": np.ones(2) * 0.1}}


def _pt_ref():
    def f(W1, b1, W2, b2):
        return np.sum(np.tanh(np.tanh(XD @ W1 + b1) @ W2 + b2))
    g = jax().grad(jaxify(f), argnums=(0, 1, 2, 3))(PT["l1"]["W"], PT["l1"]["b"], PT["l2"]["W"], PT["l2"]["b"])
    return {"l1": {"W": g[0], "b": g[1]}, "l2": {"W": g[2], "b": g[3]}}


add(pair("r8_nested_dict_pytree_sorted_keys", lambda: revsrc.grad(dict_pytree_perlayer)(PT, XD), _pt_ref, tol=1e-10))


def sgd_on_dict(params, x, lr, steps):
    p = dict(params)
    for _ in range(steps):
        g = revsrc.grad(lambda_loss)(p, x)
        p = {k: p[k] - lr * g[k] for k in p}
    return lambda_loss(p, x)


def lambda_loss(p, x):
    return np.sum((x * p["a"] + p["c"]) ** 2)


add(pair("r8_dict_sgd_value_with_inner_grad",
         lambda: sgd_on_dict({"a": np.array([0.5, 1.0]), "c": np.array([0.1, -0.1])}, np.array([1.0, 2.0]), 0.05, 3),
         lambda: _sgd_dict_ref(), tol=1e-12))


def _sgd_dict_ref():
    a, c, x = np.array([0.5, 1.0]), np.array([0.1, -0.1]), np.array([1.0, 2.0])
    for _ in range(3):
        r = x * a + c
        a, c = a - 0.05 * 2 * r * x, c - 0.05 * 2 * r
    return np.sum((x * a + c) ** 2)


add(pair("r8_grad_through_dict_sgd_with_inner_grad",
         lambda: revsrc.grad(sgd_on_dict, argnums=2)({"a": np.array([0.5, 1.0]), "c": np.array([0.1, -0.1])}, np.array([1.0, 2.0]), 0.05, 3),
         lambda: fd_checked(lambda lr: _sgd_lr(lr), (0.05,)), tol=1e-7))


def _sgd_lr(lr):
    a, c, x = np.array([0.5, 1.0]), np.array([0.1, -0.1]), np.array([1.0, 2.0])
    for _ in range(3):
        r = x * a + c
        a, c = a - lr * 2 * r * x, c - lr * 2 * r
    return np.sum((x * a + c) ** 2)


def value_and_grad_aux(w, X, y):
    pred = X @ w
    loss = np.mean((pred - y) ** 2)
    return loss, {"max_abs": np.max(np.abs(pred)), "n": len(y)}


def _vga_ref():
    pred = XD @ np.ones(3)
    return ((np.mean((pred - YD) ** 2), {"max_abs": np.max(np.abs(pred)), "n": 8}), 2 * XD.T @ (pred - YD) / 8)


add(pair("r8_value_and_grad_has_aux_dict", lambda: revsrc.value_and_grad(value_and_grad_aux, has_aux=True)(np.ones(3), XD, YD),
         _vga_ref, tol=1e-10))


class Poly:
    def __init__(self, c):
        self.c = np.asarray(c, float)

    def __call__(self, x):
        return np.polyval(self.c, x)

    def loss(self, x):
        return np.sum(self(x) ** 2)


POLY = Poly([1.0, -2.0, 0.5])
add(pair("r8_bound_method_calling_self_call_polyval", lambda: revsrc.grad(POLY.loss)(np.array([0.3, 1.2])),
         lambda: fd_checked(POLY.loss, (np.array([0.3, 1.2]),)), tol=1e-8))


def staticmethod_user(x):
    return Units.to_kelvin(x) ** 0.5


class Units:
    @staticmethod
    def to_kelvin(c):
        return c + 273.15


add(pair("r8_staticmethod_call", lambda: revsrc.grad(staticmethod_user)(20.0), lambda: 0.5 / math.sqrt(293.15), tol=1e-12))


def kwargs_defaults(x, *, scale=2.0, power=3):
    return scale * x ** power


add(pair("r8_keyword_only_defaults", lambda: revsrc.grad(kwargs_defaults)(1.5, power=2), lambda: 2 * 2.0 * 1.5, tol=1e-12))


def star_args_sum(*xs):
    return sum(x * x for x in xs)


add(pair("r8_star_args_generator_sum", lambda: revsrc.grad(star_args_sum, argnums=(0, 2))(1.0, 2.0, 3.0), lambda: (2.0, 6.0), tol=1e-12))
