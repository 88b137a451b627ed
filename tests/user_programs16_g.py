"""Round 16, part g: compositions -- vmap of scalar functions that build arrays inside,
vmap(grad), vmap(jacfwd), in_axes tuples / None / axis_size, holomorphic hessian and
jacrev on complex inputs, vjp with pytree cotangents, jvp / linearize, second derivatives
through solve / det / slogdet / cholesky, backend="jax" with x64 on and off."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj, x64_off  # noqa: F401

CASES = []
add = CASES.append


def scalar_builds_array(t):
    v = np.array([math.cos(t), math.sin(t), t])
    M = np.outer(v, v) + np.eye(3)
    return float(np.linalg.det(M))


TS = np.array([0.1, 0.7, 1.5, 2.2])
add(pair("r16_vmap_scalar_builds_array_det", lambda: revsrc.vmap(scalar_builds_array)(TS),
         lambda: np.array([scalar_builds_array(t) for t in TS]), tol=1e-13))
# det(I + v v^T) = 1 + |v|^2 = 2 + t^2: derivative 2t
add(pair("r16_vmap_grad_scalar_builds_array", lambda: revsrc.vmap(revsrc.grad(scalar_builds_array))(TS),
         lambda: 2 * TS, tol=1e-12))


def rot_apply(theta, p):
    R = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    return R @ p


P2 = np.array([1.0, 0.5])
add(pair("r16_vmap_jacfwd_in_axes_none", lambda: revsrc.vmap(revsrc.jacfwd(rot_apply), in_axes=(0, None))(TS, P2),
         lambda: np.array([[-math.sin(t) * 1.0 - math.cos(t) * 0.5, math.cos(t) * 1.0 - math.sin(t) * 0.5] for t in TS]),
         tol=1e-12))
add(pair("r16_vmap_rot_in_axes_none_0", lambda: revsrc.vmap(rot_apply, in_axes=(None, 0))(0.3, np.eye(2)),
         lambda: np.array([rot_apply(0.3, e) for e in np.eye(2)]), tol=1e-14))
add(pair("r16_vmap_rot_in_axes_1", lambda: revsrc.vmap(rot_apply, in_axes=(None, 1))(0.3, np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]])),
         lambda: np.array([rot_apply(0.3, c) for c in np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]]).T]), tol=1e-14))


def const_fn(a):
    return 2.0 * a


add(pair("r16_vmap_axis_size_all_none", lambda: revsrc.vmap(const_fn, in_axes=None, axis_size=3)(1.5),
         lambda: np.array([3.0, 3.0, 3.0]), tol=0.0))


def dot_scaled(x, y, s):
    return s * np.dot(x, y)


XB = np.arange(6.0).reshape(3, 2)
YB = np.array([[1.0, -1.0], [0.5, 0.5], [2.0, 0.0]])
add(pair("r16_vmap_grad_tuple_in_axes", lambda: revsrc.vmap(revsrc.grad(dot_scaled, argnums=(0, 2)), in_axes=(0, 0, None))(XB, YB, 2.0),
         lambda: (2.0 * YB, np.sum(XB * YB, axis=1)), tol=1e-14))


def poly_c(z):
    return np.sum(z ** 3 + 2j * z * z[::-1])


ZC = np.array([1.0 + 0.5j, -0.3 + 1.2j])
add(pair("r16_hessian_holomorphic_complex", lambda: revsrc.hessian(poly_c, holomorphic=True)(ZC),
         lambda: np.diag(6 * ZC) + 2j * np.array([[2.0, 2.0], [2.0, 2.0]]) * 0 + 4j * np.fliplr(np.eye(2)), tol=1e-12))


def vec_c(z):
    return np.array([z[0] * z[1], np.exp(z[0]), z[1] ** 2])


add(pair("r16_jacrev_holomorphic_complex", lambda: revsrc.jacrev(vec_c, holomorphic=True)(ZC),
         lambda: np.array([[ZC[1], ZC[0]], [np.exp(ZC[0]), 0.0], [0.0, 2 * ZC[1]]]), tol=1e-12))
add(pair("r16_jacfwd_holomorphic_complex", lambda: revsrc.jacfwd(vec_c, holomorphic=True)(ZC),
         lambda: np.array([[ZC[1], ZC[0]], [np.exp(ZC[0]), 0.0], [0.0, 2 * ZC[1]]]), tol=1e-12))


def tree_out(p):
    return {"e": p["a"] * p["b"], "v": np.array([p["a"] ** 2, math.sin(p["b"])])}, p["a"] - p["b"]


PA = {"a": 1.5, "b": 0.4}


def _vjp_tree():
    out, fn = revsrc.vjp(tree_out, PA)
    return fn(({"e": 1.0, "v": np.array([2.0, -1.0])}, 3.0))


add(pair("r16_vjp_pytree_cotangent_dict_tuple", _vjp_tree,
         lambda: ({"a": 0.4 + 2 * 2 * 1.5 + 3.0, "b": 1.5 - math.cos(0.4) - 3.0},), tol=1e-12))


def _vjp_tree_bad():
    out, fn = revsrc.vjp(tree_out, PA)
    return fn(({"e": 1.0, "v": np.array([2.0, -1.0, 0.0])}, 3.0))


add(pair("r16_vjp_pytree_cotangent_bad_shape", _vjp_tree_bad, lambda: None))


def solve_loss(a):
    A = np.array([[2.0 + a[0], 0.3, a[1]], [0.3, 3.0, 0.1], [a[1], 0.1, 1.5 + a[2] ** 2]])
    b = np.array([1.0, -1.0, 0.5])
    x = np.linalg.solve(A, b)
    return x @ x + np.linalg.det(A) + np.linalg.slogdet(A)[1]


A3 = np.array([0.2, -0.4, 0.7])
add(H("r16_hessian_solve_det_slogdet", solve_loss, (A3,), ref="ag", tol=1e-8))
add(pair("r16_jacrev_grad_solve_det_slogdet", lambda: revsrc.jacrev(revsrc.grad(solve_loss))(A3),
         lambda: ag()[0].hessian(agify(solve_loss))(A3), tol=1e-8))
add(pair("r16_jacfwd_grad_solve_det_slogdet", lambda: revsrc.jacfwd(revsrc.grad(solve_loss))(A3),
         lambda: ag()[0].hessian(agify(solve_loss))(A3), tol=1e-8))


def chol_quad(a):
    A = np.array([[2.0 + a[0] ** 2, 0.3 * a[1]], [0.3 * a[1], 1.0 + math.exp(a[2])]])
    L = np.linalg.cholesky(A)
    return np.sum(L ** 3) + np.sum(np.log(np.diag(L)))


add(H("r16_hessian_cholesky_entries", chol_quad, (A3,), ref="ag", tol=1e-8))
add(pair("r16_hvp_cholesky", lambda: revsrc.hvp(chol_quad, (A3,), (np.array([1.0, 2.0, -1.0]),)),
         lambda: ag()[0].hessian(agify(chol_quad))(A3) @ np.array([1.0, 2.0, -1.0]), tol=1e-8))
add(pair("r16_jacrev_grad_cholesky_refused_E104", lambda: revsrc.jacrev(revsrc.grad(chol_quad))(A3),
         lambda: ag()[0].hessian(agify(chol_quad))(A3), tol=1e-8))


def traj(x0, k):
    x = x0
    for _ in range(30):
        x = x + 0.05 * np.array([x[1], -k * x[0] - 0.1 * x[1]])
    return x


X0 = np.array([1.0, 0.0])
add(JV("r16_jvp_traj_both_args", traj, (X0, 2.0), (np.array([0.5, -0.2]), 1.0), tol=1e-8))


def _lin_traj():
    y, fl = revsrc.linearize(traj, X0, 2.0)
    return y, fl(np.array([1.0, 0.0]), 0.0), fl(np.array([0.0, 0.0]), 1.0)


add(pair("r16_linearize_traj_two_tangents", _lin_traj,
         lambda: (traj(X0, 2.0), fdj(lambda v: traj(v, 2.0), X0)[:, 0], fdj(lambda k: traj(X0, float(k)), 2.0)), tol=1e-7))
add(pair("r16_jacfwd_traj_backend_jax", lambda: revsrc.jacfwd(traj, backend="jax")(X0, 2.0),
         lambda: fdj(lambda v: traj(v, 2.0), X0), tol=1e-7))


def energy32(x):
    return np.sum(np.sin(x) * x ** 2)


X3 = np.array([0.3, -1.2, 2.0])
add(pair("r16_grad_backend_jax_x64_off", x64_off(lambda: revsrc.grad(energy32, backend="jax")(X3)),
         lambda: np.cos(X3) * X3 ** 2 + 2 * X3 * np.sin(X3), tol=1e-12))
add(pair("r16_value_and_grad_backend_jax_x64_off_value", x64_off(lambda: revsrc.value_and_grad(energy32, backend="jax")(X3)[0]),
         lambda: energy32(X3), tol=0.0))
add(pair("r16_hessian_backend_jax_x64_on", lambda: (jax(), revsrc.hessian(energy32, backend="jax")(X3))[1],
         lambda: np.diag(-np.sin(X3) * X3 ** 2 + 4 * X3 * np.cos(X3) + 2 * np.sin(X3)), tol=1e-12))


def kepler_like(M):
    E = M
    for _ in range(20):
        E = E - (E - 0.3 * math.sin(E) - M) / (1 - 0.3 * math.cos(E))
    return E


add(pair("r16_vmap_grad_grad_scalar_newton", lambda: revsrc.vmap(revsrc.grad(revsrc.grad(kepler_like)))(np.array([0.5, 1.5])),
         lambda: np.array([(kepler_like(m + 1e-4) - 2 * kepler_like(m) + kepler_like(m - 1e-4)) / 1e-8 for m in (0.5, 1.5)]),
         tol=1e-5))
add(pair("r16_jit_vmap_grad_compose", lambda: revsrc.vmap(revsrc.jit(revsrc.grad(kepler_like)))(np.array([0.5, 1.5])),
         lambda: np.array([1 / (1 - 0.3 * math.cos(kepler_like(m))) for m in (0.5, 1.5)]), tol=1e-12))
add(pair("r16_grad_of_vmap_sum", lambda: revsrc.grad(lambda x: np.sum(revsrc.vmap(kepler_like)(x)))(np.array([0.5, 1.5])),
         lambda: np.array([1 / (1 - 0.3 * math.cos(kepler_like(m))) for m in (0.5, 1.5)]), tol=1e-12))


def vsum_kepler(x):
    return np.sum(revsrc.vmap(kepler_like)(x))


add(pair("r16_grad_of_named_vmap_sum", lambda: revsrc.grad(vsum_kepler)(np.array([0.5, 1.5])),
         lambda: np.array([1 / (1 - 0.3 * math.cos(kepler_like(m))) for m in (0.5, 1.5)]), tol=1e-12))


def literal_2d(a):
    return np.sum(np.array([[a[0], 0.3], [0.3, a[1]]]) ** 3)


A2 = np.array([0.2, -0.4])
add(pair("r16_jacrev_grad_2d_array_literal", lambda: revsrc.jacrev(revsrc.grad(literal_2d))(A2),
         lambda: np.diag(6 * A2), tol=1e-12))
add(pair("r16_grad_grad_item_2d_array_literal", lambda: revsrc.grad(lambda a: revsrc.grad(literal_2d)(a)[0])(A2),
         lambda: np.array([6 * A2[0], 0.0]), tol=1e-12))
add(pair("r16_hessian_2d_array_literal", lambda: revsrc.hessian(literal_2d)(A2), lambda: np.diag(6 * A2), tol=1e-12))
