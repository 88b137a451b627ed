"""Round 10, forward mode and second derivatives of new-domain programs: Hessians,
hvps, jvps and jacfwd of programs with in-place slice updates, loops with branches,
clip/where/maximum, sort, cumsum, solve and cholesky, dict and list parameters,
against JAX, autograd or self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, ag, agify, fd_checked, fd_hess_checked, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1010)
V = rng.normal(size=5)


def diffusion_inplace(k, u0):
    u = u0.copy()
    for _ in range(10):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u[1:-1] += 0.2 * k * lap[1:-1]
    return np.sum(u ** 3)


U0 = np.sin(np.linspace(0, 3, 7))
CASES.append(H("r10_hessian_inplace_diffusion_k", diffusion_inplace, (0.8, U0)))
CASES.append(H("r10_hessian_inplace_diffusion_u0", diffusion_inplace, (0.8, U0), argnums=1))
CASES.append(JV("r10_jvp_inplace_diffusion", diffusion_inplace, (0.8, U0), (1.0, np.cos(np.arange(7.0)))))


def clipped_loss(w):
    z = np.clip(w * 2.0, -1.0, 1.0)
    return np.sum(z ** 3 + np.maximum(w, 0.1) ** 2)


CASES.append(H("r10_hessian_clip_maximum", clipped_loss, (np.array([0.2, -0.8, 0.05, 0.4]),), ref="jax"))


def sorted_weights(x):
    s = np.sort(x)
    return np.sum(s * np.arange(1.0, len(x) + 1) * s)


CASES.append(H("r10_hessian_sort_weighted", sorted_weights, (V,), ref="jax"))


def cumsum_quad(x):
    c = np.cumsum(x)
    return np.sum(c ** 2 * np.exp(-c))


CASES.append(H("r10_hessian_cumsum", cumsum_quad, (V,), ref="jax"))


def gp_nll(log_ell, x, y):
    ell = np.exp(log_ell)
    d = x[:, None] - x[None, :]
    K = np.exp(-0.5 * d * d / ell ** 2) + 0.1 * np.eye(len(x))
    L = np.linalg.cholesky(K)
    a = np.linalg.solve(K, y)
    return 0.5 * y @ a + np.sum(np.log(np.diag(L)))


XG = np.linspace(0, 2, 6)
YG = np.sin(3 * XG)
CASES.append(H("r10_hessian_gp_lengthscale", gp_nll, (0.1, XG, YG), ref="jax"))
CASES.append(G("r10_grad_gp_targets", gp_nll, (0.1, XG, YG), argnums=2, ref="jax"))


def branchy_loop(a, x):
    s = 0.0
    for v in x:
        if v * a > 0.3:
            s += math.log(v * a)
        else:
            s += (v * a) ** 2
    return s


CASES.append(H("r10_hessian_branchy_loop", branchy_loop, (1.3, np.array([0.5, -0.2, 1.1, 0.1])), ref="ag"))


def dict_params_energy(p):
    k, m, c = p["k"], p["m"], p["c"]
    x, v = 1.0, 0.0
    for _ in range(50):
        a = -(k * x + c * v) / m
        v = v + 0.02 * a
        x = x + 0.02 * v
    return x * x + v * v


PD = {"k": 2.0, "m": 1.5, "c": 0.3}
CASES.append(pair("r10_hessian_dict_params", lambda: revsrc.hessian(dict_params_energy)(PD),
                  lambda: jax().hessian(jaxify(dict_params_energy))(PD), tol=1e-6))


def list_params(ws):
    h = np.array([0.5, -0.3])
    for W in ws:
        h = np.tanh(W @ h)
    return np.sum(h ** 2)


WS = [rng.normal(size=(2, 2)) for _ in range(3)]
CASES.append(pair("r10_hvp_list_of_matrices", lambda: revsrc.hvp(list_params, (WS,), ([np.ones((2, 2))] * 3,)),
                  lambda: jax().jvp(jax().grad(jaxify(list_params)), (WS,), ([np.ones((2, 2))] * 3,))[1], tol=1e-7))


def arrhenius_fit(theta, T, k):
    lnA, Ea = theta
    pred = lnA - Ea / (8.314 * T)
    return np.sum((pred - np.log(k)) ** 2)


TK = np.array([300.0, 320.0, 340.0, 360.0])
KK = 1e7 * np.exp(-5e4 / (8.314 * TK)) * (1 + 0.05 * rng.normal(size=4))
CASES.append(H("r10_hessian_arrhenius_tuple", arrhenius_fit, ((16.0, 5.0e4), TK, KK),
               ref=lambda: jax().hessian(jaxify(arrhenius_fit))((16.0, 5.0e4), TK, KK), tol=1e-6))


def softmax_attention_jac(q, K):
    s = K @ q
    e = np.exp(s - s.max())
    return e / e.sum()


KM = rng.normal(size=(4, 3))
CASES.append(pair("r10_jacfwd_attention_weights", lambda: revsrc.jacfwd(softmax_attention_jac)(V[:3], KM),
                  lambda: jax().jacfwd(jaxify(softmax_attention_jac))(V[:3], KM)))
CASES.append(pair("r10_jacfwd_wrt_keys", lambda: revsrc.jacfwd(softmax_attention_jac, argnums=1)(V[:3], KM),
                  lambda: jax().jacfwd(jaxify(softmax_attention_jac), argnums=1)(V[:3], KM)))


def where_grid(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x) + 1e-3), -x ** 3))


CASES.append(H("r10_hessian_where_sqrt_cubic", where_grid, (V,), ref="jax"))


def fixed_point_hessian(a):
    x = 1.0
    for _ in range(60):
        x = math.cos(a * x)
    return x


CASES.append(H("r10_hessian_fixed_point_cos", fixed_point_hessian, (0.7,)))


def leapfrog_energy(q0, p0, dt):
    q, p = q0, p0
    for _ in range(30):
        p = p - 0.5 * dt * np.sin(q)
        q = q + dt * p
        p = p - 0.5 * dt * np.sin(q)
    return 0.5 * p * p - np.cos(q)


CASES.append(H("r10_hessian_pendulum_leapfrog", leapfrog_energy, (1.0, 0.2, 0.1), argnums=(0, 1),
               ref=lambda: jax().hessian(jaxify(leapfrog_energy), argnums=(0, 1))(1.0, 0.2, 0.1)))


def lj_pairs(xs):
    e = 0.0
    n = len(xs)
    for i in range(n):
        for j in range(i + 1, n):
            r = abs(xs[i] - xs[j])
            e += 4 * ((1 / r) ** 12 - (1 / r) ** 6)
    return e


CASES.append(H("r10_hessian_lj_chain_1d", lj_pairs, (np.array([0.0, 1.12, 2.3, 3.35]),), ref="jax"))


def quat_rotate_energy(q, v):
    w, x, y, z = q / np.linalg.norm(q)
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    return (R @ v)[2]


CASES.append(H("r10_hessian_quaternion_rotation", quat_rotate_energy, (np.array([0.9, 0.1, -0.3, 0.2]), np.array([1.0, 0.5, -0.2])),
               ref="jax"))


def lin_then_vmap():
    out, f = revsrc.linearize(lambda k: diffusion_inplace(k, U0), 0.8)
    return np.array([f(t) for t in (1.0, 2.0, -0.5)])


CASES.append(pair("r10_linearize_inplace_many_tangents", lin_then_vmap,
                  lambda: fd_checked(diffusion_inplace, (0.8, U0)) * np.array([1.0, 2.0, -0.5]), tol=1e-6))


def two_arg_energy(q, p):
    return np.sum(0.5 * p ** 2 + 1 - np.cos(q)) + 0.1 * np.sum(q * p)


QQ = np.array([0.3, -0.4])
PP = np.array([0.1, 0.7])


def hvp_argnums_tuple():
    return revsrc.hvp(two_arg_energy, (QQ, PP), (np.ones(2), np.array([1.0, -1.0])), argnums=(0, 1))


def hvp_argnums_ref():
    def g(q, p):
        return jax().grad(jaxify(two_arg_energy), argnums=(0, 1))(q, p)
    return jax().jvp(g, (QQ, PP), (np.ones(2), np.array([1.0, -1.0])))[1]


CASES.append(pair("r10_hvp_argnums_tuple_hamiltonian", hvp_argnums_tuple, hvp_argnums_ref, tol=1e-12))


def jac_of_grad():
    return revsrc.jacfwd(revsrc.grad(two_arg_energy, argnums=1), argnums=0)(QQ, PP)


CASES.append(pair("r10_jacfwd_of_grad_mixed_partials", jac_of_grad,
                  lambda: jax().jacfwd(jax().grad(jaxify(two_arg_energy), argnums=1), argnums=0)(QQ, PP), tol=1e-12))


def jacobian_generic():
    return revsrc.jacobian(lambda q: np.array([np.sum(np.sin(q)), np.prod(q), q[0] / q[1]]))(QQ)


CASES.append(pair("r10_jacobian_mixed_rows", jacobian_generic,
                  lambda: np.array([np.cos(QQ), [QQ[1], QQ[0]], [1 / QQ[1], -QQ[0] / QQ[1] ** 2]]), tol=1e-12))
