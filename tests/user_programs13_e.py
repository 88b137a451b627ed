"""Round 13, part e: geometry and meshes -- triangle areas, normals, cotangent weights,
polygon perimeters, signed distances with maximum/minimum/clip, norms with axis/ord."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append

V = np.array([[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [0.2, 1.1, 0.1], [1.2, 1.0, 0.4], [0.5, 0.4, 1.0]])
F = np.array([[0, 1, 2], [1, 3, 2], [0, 1, 4], [1, 3, 4]])


def mesh_area(V, F):
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    n = np.cross(b - a, c - a)
    return 0.5 * np.sum(np.linalg.norm(n, axis=1))


add(VG("r13_mesh_area", mesh_area, (V, F), ref="ag", tol=1e-9))
add(H("r13_mesh_area_hessian", lambda v: mesh_area(v.reshape(5, 3), F), (V.ravel(),), ref="ag", tol=1e-7))


def cross_hess(u):
    return np.sum(np.cross(u, np.array([0.3, -1.0, 2.0])) ** 2)


# |u x c|^2 = |u|^2|c|^2 - (u.c)^2: hessian 2(|c|^2 I - c c^T)
CC = np.array([0.3, -1.0, 2.0])
add(pair("r13_cross_hessian_minimal", lambda: revsrc.hessian(cross_hess)(np.array([1.0, 0.5, -0.2])),
         lambda: 2 * (CC @ CC * np.eye(3) - np.outer(CC, CC)), tol=1e-10))


def vertex_normals_energy(V, F):
    N = np.zeros_like(V)
    for f in F:
        n = np.cross(V[f[1]] - V[f[0]], V[f[2]] - V[f[0]])
        for i in f:
            N[i] += n
    N = N / np.linalg.norm(N, axis=1, keepdims=True)
    return np.sum(N[:, 2] ** 2)


add(G("r13_vertex_normals_loop", vertex_normals_energy, (V, F), ref="fd"))


def vertex_normals_add_at(V, F):
    n = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
    N = np.zeros_like(V)
    for k in range(3):
        np.add.at(N, F[:, k], n)
    N = N / np.linalg.norm(N, axis=1, keepdims=True)
    return np.sum(N[:, 2] ** 2)


add(pair("r13_vertex_normals_add_at", lambda: revsrc.grad(vertex_normals_add_at)(V, F),
         lambda: fd_checked(vertex_normals_energy, (V, F))[0], tol=1e-6))


def cot_weights(V, F):
    E = 0.0
    for f in F:
        for k in range(3):
            i, j, o = f[k], f[(k + 1) % 3], f[(k + 2) % 3]
            u, w = V[i] - V[o], V[j] - V[o]
            cot = (u @ w) / np.linalg.norm(np.cross(u, w))
            E += 0.5 * cot * np.sum((V[i] - V[j]) ** 2)
    return E


add(G("r13_cotangent_dirichlet", cot_weights, (V, F), ref="ag", tol=1e-9))

POLY = np.array([[0.0, 0.0], [2.0, 0.1], [2.2, 1.5], [1.0, 2.0], [-0.3, 1.2]])


def perimeter(P):
    return np.sum(np.linalg.norm(np.roll(P, -1, axis=0) - P, axis=1))


def shoelace(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


add(G("r13_polygon_perimeter_roll", perimeter, (POLY,), ref="ag", tol=1e-9))
add(G("r13_polygon_shoelace_abs", shoelace, (POLY,), ref="ag", tol=1e-9))
add(G("r13_isoperimetric_ratio", lambda P: 4 * math.pi * shoelace(P) / perimeter(P) ** 2, (POLY,), ref="fd"))


def sdf_box(p, b):
    q = np.abs(p) - b
    return np.linalg.norm(np.maximum(q, 0.0)) + min(max(q[0], max(q[1], q[2])), 0.0)


B = np.array([1.0, 0.5, 0.7])
add(G("r13_sdf_box_outside", sdf_box, (np.array([1.5, 0.2, -1.0]), B), argnums=(0, 1), ref="fd"))
add(G("r13_sdf_box_inside", sdf_box, (np.array([0.3, 0.1, -0.2]), B), argnums=(0, 1), ref="fd"))


def sdf_smooth_union(p, c1, c2, k=0.3):
    d1 = np.linalg.norm(p - c1) - 0.5
    d2 = np.linalg.norm(p - c2) - 0.4
    h = np.clip(0.5 + 0.5 * (d2 - d1) / k, 0.0, 1.0)
    return d2 * (1 - h) + d1 * h - k * h * (1 - h)


C1, C2 = np.array([0.0, 0.0, 0.0]), np.array([0.7, 0.1, 0.0])
add(G("r13_sdf_smooth_union_clip", sdf_smooth_union, (np.array([0.35, 0.5, 0.1]), C1, C2), argnums=(0, 1, 2), ref="fd"))
add(G("r13_sdf_smooth_union_clamped", sdf_smooth_union, (np.array([-0.8, 0.1, 0.0]), C1, C2), argnums=0, ref="fd"))


def norms_mix(A):
    return (np.linalg.norm(A, ord=1) + np.linalg.norm(A, ord=np.inf) + np.linalg.norm(A, "fro")
            + np.sum(np.linalg.norm(A, ord=3, axis=0)) + np.linalg.norm(A[0], ord=1))


AN = np.array([[1.0, -2.0, 0.5], [0.3, 0.8, -1.5], [2.0, 0.1, 0.2]])
add(G("r13_norm_ord_axis_mix", norms_mix, (AN,), ref="fd"))
add(G("r13_norm_ord2_matrix", lambda A: np.linalg.norm(A, ord=2), (AN,), ref="fd"))
add(G("r13_norm_nuclear", lambda A: np.linalg.norm(A, ord="nuc"), (AN,), ref="fd"))


def point_segment_dist(p, a, b):
    ab = b - a
    t = np.clip((p - a) @ ab / (ab @ ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t * ab))


PA, PB = np.array([0.0, 0.0]), np.array([2.0, 1.0])
add(G("r13_point_segment_interior", point_segment_dist, (np.array([1.0, 1.5]), PA, PB), argnums=(0, 1, 2), ref="fd"))
add(G("r13_point_segment_endpoint", point_segment_dist, (np.array([3.0, 2.5]), PA, PB), argnums=(0, 1, 2), ref="fd"))


def tri_angles(P):
    out = []
    for i in range(3):
        u = P[(i + 1) % 3] - P[i]
        w = P[(i + 2) % 3] - P[i]
        out.append(math.acos(u @ w / (np.linalg.norm(u) * np.linalg.norm(w))))
    return np.array(out)


TP = np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 0.9]])
add(pair("r13_triangle_angles_jacobian", lambda: revsrc.jacobian(tri_angles)(TP), lambda: fdj(tri_angles, TP), tol=1e-7))
add(pair("r13_triangle_angle_sum_grad_zero", lambda: revsrc.grad(lambda P: np.sum(tri_angles(P)))(TP),
         lambda: np.zeros((3, 2)), tol=1e-10))
