"""Round 15, part j: compositions on this round's programs -- vmap with pytree in_axes /
out_axes, in_axes=1, axis_size, per-example gradients, grad of a sum of a mapped
function, vmap of vmap, vmap of jacfwd / hessian, hessian with an argnums tuple, jacfwd
/ jacrev of array functions, hvp, linearize, jvp / vjp, jit with grad, derivatives
called inside differentiated functions, backend="jax"."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj, x64_off  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(515)

X = rng.normal(size=(6, 3))
Y = rng.normal(size=6)
P = {"w": rng.normal(size=3), "b": 0.3}


def loss(p, x, y):
    r = np.tanh(x @ p["w"] + p["b"]) - y
    return r * r


def _per_example_ag():
    g = ag()[0].grad(agify(loss))
    gs = [g(P, X[i], Y[i]) for i in range(6)]
    return {"b": np.array([q["b"] for q in gs]), "w": np.stack([q["w"] for q in gs])}


add(pair("r15_vmap_grad_dict_params_per_example", lambda: revsrc.vmap(revsrc.grad(loss), in_axes=(None, 0, 0))(P, X, Y),
         _per_example_ag, tol=1e-10))
add(pair("r15_vmap_loss_in_axes_dict_prefix", lambda: revsrc.vmap(loss, in_axes=({"w": None, "b": 0}, 0, 0))(
    {"w": P["w"], "b": np.linspace(0, 1, 6)}, X, Y),
    lambda: np.array([loss({"w": P["w"], "b": b}, X[i], Y[i]) for i, b in enumerate(np.linspace(0, 1, 6))]), tol=1e-12))
add(pair("r15_vmap_in_axes_1_columns", lambda: revsrc.vmap(lambda x, y: loss(P, x, y), in_axes=(1, 0))(X.T, Y),
         lambda: np.array([loss(P, X[i], Y[i]) for i in range(6)]), tol=1e-12))
add(pair("r15_grad_of_sum_of_vmap", lambda: revsrc.grad(lambda p: np.sum(revsrc.vmap(loss, in_axes=(None, 0, 0))(p, X, Y)))(P),
         lambda: ag()[0].grad(lambda p: sum(agify(loss)(p, X[i], Y[i]) for i in range(6)))(P), tol=1e-10))


def pair_energy(a, b):
    d = a - b
    return 1.0 / math.sqrt(d * d + 0.1)


PTS = np.array([0.0, 0.4, 1.1, 2.0])
add(pair("r15_vmap_vmap_pairwise_matrix", lambda: revsrc.vmap(revsrc.vmap(pair_energy, in_axes=(None, 0)), in_axes=(0, None))(PTS, PTS),
         lambda: np.array([[pair_energy(a, b) for b in PTS] for a in PTS]), tol=0.0))
add(pair("r15_vmap_vmap_grad_pairwise", lambda: revsrc.vmap(revsrc.vmap(revsrc.grad(pair_energy), in_axes=(None, 0)), in_axes=(0, None))(PTS, PTS),
         lambda: np.array([[-(a - b) / (((a - b) ** 2 + 0.1) ** 1.5) for b in PTS] for a in PTS]), tol=1e-12))


def traj(theta):
    # 3-float state, 40 Euler steps
    s = np.array([1.0, 0.0, 0.5])
    for _ in range(40):
        s = s + 0.05 * np.array([theta[0] * s[1], -theta[1] * s[0] - 0.1 * s[1], s[0] * s[1] - theta[2] * s[2]])
    return s


TH3 = np.array([1.0, 1.5, 0.3])
add(pair("r15_jacfwd_array_traj", lambda: revsrc.jacfwd(traj)(TH3), lambda: ag()[0].jacobian(agify(traj))(TH3), tol=1e-10))
add(pair("r15_jacrev_array_traj", lambda: revsrc.jacrev(traj)(TH3), lambda: ag()[0].jacobian(agify(traj))(TH3), tol=1e-10))
add(pair("r15_vmap_jacfwd_traj_batch", lambda: revsrc.vmap(revsrc.jacfwd(traj))(np.stack([TH3, TH3 * 0.5])),
         lambda: np.stack([ag()[0].jacobian(agify(traj))(t) for t in (TH3, TH3 * 0.5)]), tol=1e-10))


def traj_cost(theta):
    s = traj(theta)
    return s @ s


add(pair("r15_vmap_hessian_traj_cost", lambda: revsrc.vmap(revsrc.hessian(traj_cost))(np.stack([TH3, TH3 * 0.5])),
         lambda: np.stack([ag()[0].hessian(agify(traj_cost))(t) for t in (TH3, TH3 * 0.5)]), tol=1e-9))
add(pair("r15_hvp_traj_cost", lambda: revsrc.hvp(traj_cost, (TH3,), (np.array([1.0, -1.0, 0.5]),)),
         lambda: ag()[0].hessian(agify(traj_cost))(TH3) @ np.array([1.0, -1.0, 0.5]), tol=1e-9))


def lin_then_eval():
    out, f_jvp = revsrc.linearize(traj, TH3)
    return out, f_jvp(np.array([0.0, 1.0, 0.0])), f_jvp(np.array([1.0, 0.0, 1.0]))


def _lin_ref():
    J = ag()[0].jacobian(agify(traj))(TH3)
    return traj(TH3), J[:, 1], J[:, 0] + J[:, 2]


add(pair("r15_linearize_traj_two_tangents", lin_then_eval, _lin_ref, tol=1e-10))


def vjp_then_pull():
    out, back = revsrc.vjp(traj, TH3)
    return out, back(np.array([1.0, 0.0, 0.0])), back(np.array([0.0, 2.0, -1.0]))


def _vjp_ref():
    J = ag()[0].jacobian(agify(traj))(TH3)
    return traj(TH3), (J[0],), (J.T @ np.array([0.0, 2.0, -1.0]),)


add(pair("r15_vjp_traj_two_cotangents", vjp_then_pull, _vjp_ref, tol=1e-10))
add(JV("r15_jvp_traj", traj, (TH3,), (np.array([0.2, 0.1, -0.3]),), tol=1e-7))


def two_arg(a, b):
    return np.sum(np.sin(a * b[0]) + a ** 2 * b[1])


A2 = np.array([0.3, -0.7])
B2 = np.array([1.5, 0.4])


def _h_blocks():
    Hf = ag()[0].hessian(lambda v: agify(two_arg)(v[:2], v[2:]))(np.concatenate([A2, B2]))
    return ((Hf[:2, :2], Hf[:2, 2:]), (Hf[2:, :2], Hf[2:, 2:]))


add(pair("r15_hessian_argnums_tuple_blocks", lambda: revsrc.hessian(two_arg, argnums=(0, 1))(A2, B2), _h_blocks, tol=1e-10))


def scalar_prog(x, k=3.0):
    y = x
    for i in range(20):
        if y > 1.0:
            y = y - 0.1 * math.sin(k * y)
        else:
            y = y + 0.05 * y * y
    return y * k


add(pair("r15_jit_grad_scalar_branchy", lambda: revsrc.jit(revsrc.grad(scalar_prog))(0.9),
         lambda: ag()[0].grad(agify(scalar_prog))(0.9), tol=1e-12))
add(pair("r15_grad_jit_scalar_branchy", lambda: revsrc.grad(revsrc.jit(scalar_prog))(0.9),
         lambda: ag()[0].grad(agify(scalar_prog))(0.9), tol=1e-12))
add(pair("r15_jit_vmap_value_bits", lambda: revsrc.jit(revsrc.vmap(scalar_prog))(np.array([0.5, 0.9, 1.3])),
         lambda: np.array([scalar_prog(v) for v in (0.5, 0.9, 1.3)]), tol=0.0))
add(pair("r15_vmap_grad_argnums1", lambda: revsrc.vmap(revsrc.grad(scalar_prog, argnums=1), in_axes=(None, 0))(0.9, np.array([1.0, 3.0])),
         lambda: np.array([ag()[0].grad(agify(scalar_prog), 1)(0.9, k) for k in (1.0, 3.0)]), tol=1e-12))
add(pair("r15_vmap_axis_size_no_mapped_arg", lambda: revsrc.vmap(lambda p: loss(p, X[0], Y[0]), in_axes=None, axis_size=3)(P),
         lambda: np.full(3, loss(P, X[0], Y[0])), tol=1e-12))


def out_axes_fn(x):
    return np.array([x, 2 * x, x * x])


add(pair("r15_vmap_out_axes_1", lambda: revsrc.vmap(out_axes_fn, out_axes=1)(np.array([1.0, 2.0])),
         lambda: np.array([[1.0, 2.0], [2.0, 4.0], [1.0, 4.0]]), tol=1e-12))


def inner_newton(c):
    # solve x^3 + x = c by Newton with a revsrc derivative inside; then differentiate wrt c
    g = lambda x: x ** 3 + x - c  # noqa: E731
    dg = revsrc.grad(g)
    x = 1.0
    for _ in range(8):
        x = x - g(x) / dg(x)
    return x


add(pair("r15_grad_through_inner_newton_with_grad", lambda: revsrc.grad(inner_newton)(3.0),
         lambda: 1.0 / (3 * inner_newton(3.0) ** 2 + 1), tol=1e-8))


def energy_force(q):
    E = lambda r: np.sum((r[1:] - r[:-1] - 1.0) ** 2) + 0.1 * np.sum(r ** 4)  # noqa: E731
    F = -revsrc.grad(E)(q)
    return np.sum(F ** 2)


Q5 = np.array([0.0, 1.1, 1.9, 3.2, 4.0])
add(G("r15_grad_of_force_norm_grad_inside", energy_force, (Q5,), ref="fd", tol=1e-7))


def hvp_inside_grad(x):
    h = revsrc.hvp(lambda z: np.sum(np.sin(z) * z), (x,), (np.ones_like(x),))
    return np.sum(h ** 2)


add(G("r15_grad_of_hvp_inside", hvp_inside_grad, (np.array([0.3, 1.0]),), ref="fd", tol=1e-7))
add(pair("r15_traj_cost_backend_jax", lambda: revsrc.grad(traj_cost, backend="jax")(TH3),
         lambda: ag()[0].grad(agify(traj_cost))(TH3), tol=1e-10))
# JAX's default configuration (x64 off), as a user has it
add(pair("r15_vmap_grad_backend_jax_per_example",
         x64_off(lambda: revsrc.vmap(revsrc.grad(loss, backend="jax"), in_axes=(None, 0, 0))(P, X, Y)),
         _per_example_ag, tol=1e-10))
add(pair("r15_vmap_grad_backend_jax_x64_on",
         lambda: (jax(), revsrc.vmap(revsrc.grad(loss, backend="jax"), in_axes=(None, 0, 0))(P, X, Y))[1],
         _per_example_ag, tol=1e-10))
add(pair("r15_grad_backend_jax_x64_off_single", x64_off(lambda: revsrc.grad(loss, backend="jax")(P, X[1], Y[1])),
         lambda: ag()[0].grad(agify(loss))(P, X[1], Y[1]), tol=1e-10))
add(pair("r15_value_and_grad_has_aux", lambda: revsrc.value_and_grad(lambda t: (traj_cost(t), traj(t)), has_aux=True)(TH3),
         lambda: ((traj_cost(TH3), traj(TH3)), ag()[0].grad(agify(traj_cost))(TH3)), tol=1e-10))


def cubic_res(x, c):
    return x ** 3 + x - c


def inner_newton_module(c):
    # the documented rewrite: the residual at module level, its grad made inside
    dg = revsrc.grad(cubic_res)
    x = 1.0
    for _ in range(8):
        x = x - cubic_res(x, c) / dg(x, c)
    return x


add(pair("r15_grad_through_inner_newton_module_level", lambda: revsrc.grad(inner_newton_module)(3.0),
         lambda: 1.0 / (3 * inner_newton_module(3.0) ** 2 + 1), tol=1e-8))


def chain_energy(r):
    return np.sum((r[1:] - r[:-1] - 1.0) ** 2) + 0.1 * np.sum(r ** 4)


def force_norm(q):
    F = -revsrc.grad(chain_energy)(q)
    return np.sum(F ** 2)


add(G("r15_grad_of_force_norm_module_level", force_norm, (Q5,), ref="fd", tol=1e-7))
add(pair("r15_jit_grad_module_newton", lambda: revsrc.jit(revsrc.grad(inner_newton_module))(3.0),
         lambda: 1.0 / (3 * inner_newton_module(3.0) ** 2 + 1), tol=1e-8))
