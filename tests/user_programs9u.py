"""Round 9, geometry and graphics (2): triangle mesh areas and normals by cross
products, Laplacian smoothing energy, Phong shading, a pinhole camera projection,
Kabsch alignment by SVD, algebraic circle fit, Rodrigues rotations, haversine
great-circle distances, curvature of a parametric curve, spherical coordinates."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(55)
VERTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.1], [0.0, 1.0, 0.2], [1.0, 1.0, -0.1], [0.5, 0.5, 0.6]])
FACES = np.array([[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]])


def mesh_area(V):
    a, b, c = V[FACES[:, 0]], V[FACES[:, 1]], V[FACES[:, 2]]
    n = np.cross(b - a, c - a)
    return 0.5 * np.sum(np.linalg.norm(n, axis=1))


CASES.append(G("r9_mesh_area_cross_products", mesh_area, (VERTS,), ref="jax"))


def mesh_volume_like(V):
    a, b, c = V[FACES[:, 0]], V[FACES[:, 1]], V[FACES[:, 2]]
    return np.sum(np.einsum("ij,ij->i", a, np.cross(b, c))) / 6.0


CASES.append(G("r9_signed_volume_einsum_cross", mesh_volume_like, (VERTS,), ref="jax"))

EDGES = [(0, 1), (1, 3), (3, 2), (2, 0), (0, 4), (1, 4), (2, 4), (3, 4)]


def laplacian_energy(V):
    e = 0.0
    for i, j in EDGES:
        d = V[i] - V[j]
        e += d @ d
    return e


CASES.append(G("r9_edge_list_laplacian_energy", laplacian_energy, (VERTS,), ref="jax"))


def phong(n):
    n = n / np.linalg.norm(n)
    L = np.array([0.3, 0.4, 0.866])
    Vd = np.array([0.0, 0.0, 1.0])
    diff = max(n @ L, 0.0)
    R = 2 * (n @ L) * n - L
    spec = max(R @ Vd, 0.0) ** 16
    return 0.7 * diff + 0.3 * spec


CASES.append(G("r9_phong_shading_normal", phong, (np.array([0.1, 0.2, 1.0]),), ref="jax"))


def project(points, f=800.0):
    X, Y, Z = points[:, 0], points[:, 1], points[:, 2] + 5.0
    u = f * X / Z + 320
    v = f * Y / Z + 240
    target = np.array([[330.0, 250.0], [480.0, 245.0], [325.0, 400.0], [470.0, 380.0], [400.0, 330.0]])
    return np.sum((u - target[:, 0]) ** 2 + (v - target[:, 1]) ** 2)


CASES.append(G("r9_pinhole_reprojection_error", project, (VERTS,), ref="jax"))


def kabsch_rmsd(P):
    Q = VERTS
    Pc = P - P.mean(axis=0)
    Qc = Q - Q.mean(axis=0)
    H_ = Pc.T @ Qc
    U, S, Vt = np.linalg.svd(H_)
    d = np.sign(np.linalg.det(Vt.T @ U.T))
    D = np.diag([1.0, 1.0, d])
    R = Vt.T @ D @ U.T
    return np.sum((Pc @ R.T - Qc) ** 2)


_P = VERTS @ np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]) + 0.05 * _rng.normal(size=(5, 3))
CASES.append(G("r9_kabsch_svd_rmsd", kabsch_rmsd, (_P,), ref="fd", tol=1e-5))


def circle_fit(pts):
    x, y = pts[:, 0], pts[:, 1]
    A = np.column_stack([x, y, np.ones_like(x)])
    b = x ** 2 + y ** 2
    c = np.linalg.solve(A.T @ A, A.T @ b)
    cx, cy = c[0] / 2, c[1] / 2
    r = np.sqrt(c[2] + cx ** 2 + cy ** 2)
    return r


_th = np.linspace(0, 2.5, 7)
_circ = np.column_stack([1 + 2 * np.cos(_th), -1 + 2 * np.sin(_th)]) + 0.02 * _rng.normal(size=(7, 2))
CASES.append(G("r9_algebraic_circle_fit_radius", circle_fit, (_circ,), ref="jax"))


def rodrigues(axis_angle):
    theta = np.linalg.norm(axis_angle)
    k = axis_angle / theta
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    R = np.eye(3) + math.sin(theta) * K + (1 - math.cos(theta)) * K @ K
    return np.sum(R @ np.array([1.0, 2.0, 3.0]))


CASES.append(G("r9_rodrigues_axis_angle", rodrigues, (np.array([0.3, -0.2, 0.5]),), ref="jax"))


def haversine(latlon):
    R = 6371.0
    lat1, lon1, lat2, lon2 = np.radians(latlon)
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * R * np.arcsin(np.sqrt(a))


CASES.append(G("r9_haversine_radians_unpack", haversine, (np.array([48.85, 2.35, 51.5, -0.12]),), ref="jax"))


def curve_curvature(a):
    t = np.linspace(0, 1, 50)
    x = np.cos(a * t)
    y = np.sin(2 * a * t)
    dx, dy = np.gradient(x, t), np.gradient(y, t)
    ddx, ddy = np.gradient(dx, t), np.gradient(dy, t)
    k = (dx * ddy - dy * ddx) / (dx ** 2 + dy ** 2) ** 1.5
    return np.mean(k ** 2)


CASES.append(G("r9_curvature_np_gradient_twice", curve_curvature, (2.0,), ref="fd", tol=1e-5))


def spherical(r_th_ph):
    r, th, ph = r_th_ph
    x = r * np.sin(th) * np.cos(ph)
    y = r * np.sin(th) * np.sin(ph)
    z = r * np.cos(th)
    return np.array([x, y, z])


CASES.append(pair("r9_spherical_jacobian_det",
                  lambda: np.linalg.det(revsrc.jacfwd(spherical)(np.array([2.0, 0.7, 0.4]))),
                  lambda: 2.0 ** 2 * math.sin(0.7)))


def polar_area_element(p):
    return np.linalg.det(revsrc.jacobian(lambda q: np.array([q[0] * np.cos(q[1]), q[0] * np.sin(q[1])]))(p))


CASES.append(pair("r9_jacobian_of_lambda_inside_plain_function", lambda: polar_area_element(np.array([1.5, 0.3])), lambda: 1.5))


def bbox_soft(P):
    t = 50.0
    mx = np.log(np.sum(np.exp(t * P[:, 0]))) / t
    mn = -np.log(np.sum(np.exp(-t * P[:, 0]))) / t
    return mx - mn


CASES.append(G("r9_soft_bounding_box_logsumexp", bbox_soft, (VERTS,), ref="jax"))


def line_intersection(p):
    # intersection of line through p[0],p[1] with line through p[2],p[3]
    (x1, y1), (x2, y2), (x3, y3), (x4, y4) = p
    den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    px = ((x1 * y2 - y1 * x2) * (x3 - x4) - (x1 - x2) * (x3 * y4 - y3 * x4)) / den
    return px


CASES.append(G("r9_line_intersection_nested_unpack", line_intersection,
               (np.array([[0.0, 0.0], [2.0, 1.0], [0.0, 1.5], [2.0, -0.5]]),), ref="jax"))
