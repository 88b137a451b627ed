"""Round 9, geometry and graphics: polygon area and perimeter (shoelace, pairwise
loops), ray-sphere intersection, barycentric coordinates, Bezier curves by de
Casteljau, B-spline evaluation by de Boor, signed distance functions and their
smooth unions."""
import itertools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []

_poly = np.array([[0.0, 0.0], [2.0, 0.1], [2.5, 1.5], [1.0, 2.2], [-0.3, 1.0]])


def shoelace(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


CASES.append(G("r9_shoelace_roll", shoelace, (_poly,), ref="jax"))


def area_loop(P):
    n = len(P)
    a = 0.0
    for i in range(n):
        x1, y1 = P[i]
        x2, y2 = P[(i + 1) % n]
        a += x1 * y2 - x2 * y1
    return abs(a) / 2


CASES.append(G("r9_shoelace_modulo_index_unpack_rows", area_loop, (_poly,), ref="jax"))


def perimeter_pairwise(P):
    pts = [tuple(p) for p in P] + [tuple(P[0])]
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(pts))


CASES.append(G("r9_perimeter_itertools_pairwise", perimeter_pairwise, (_poly,), ref="ag"))


def perimeter_zip(P):
    Q = np.vstack([P[1:], P[:1]])
    return sum(np.linalg.norm(q - p) for p, q in zip(P, Q))


CASES.append(G("r9_perimeter_zip_rows_norm", perimeter_zip, (_poly,), ref="jax"))


def ray_sphere_t(c, r=1.0):
    o = np.array([0.0, 0.0, -5.0])
    d = np.array([0.1, 0.05, 1.0])
    d = d / np.linalg.norm(d)
    oc = o - c
    b = np.dot(oc, d)
    disc = b * b - (np.dot(oc, oc) - r * r)
    if disc < 0:
        return 1e3
    return -b - np.sqrt(disc)


CASES.append(G("r9_ray_sphere_hit_distance_center", ray_sphere_t, (np.array([0.2, 0.1, 0.0]),), ref="jax"))
CASES.append(G("r9_ray_sphere_hit_distance_radius", ray_sphere_t, (np.array([0.2, 0.1, 0.0]), 1.3), argnums=1, ref="jax"))
CASES.append(G("r9_ray_sphere_miss_constant", ray_sphere_t, (np.array([5.0, 0.1, 0.0]),),
               ref=lambda: np.zeros(3)))


def barycentric(p, a=np.array([0.0, 0.0]), b=np.array([1.0, 0.0]), c=np.array([0.2, 1.0])):
    v0, v1, v2 = b - a, c - a, p - a
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    den = d00 * d11 - d01 * d01
    v = (d11 * d20 - d01 * d21) / den
    w = (d00 * d21 - d01 * d20) / den
    u = 1.0 - v - w
    return u * 1.0 + v * 2.0 + w * 5.0


CASES.append(G("r9_barycentric_interp_wrt_point", barycentric, (np.array([0.3, 0.4]),), ref="jax"))
CASES.append(G("r9_barycentric_interp_wrt_vertex", barycentric,
               (np.array([0.3, 0.4]), np.array([0.0, 0.0]), np.array([1.0, 0.0]), np.array([0.2, 1.0])),
               argnums=3, ref="jax"))


def de_casteljau(ctrl, t):
    pts = [np.asarray(p) for p in ctrl]
    while len(pts) > 1:
        pts = [(1 - t) * p + t * q for p, q in zip(pts[:-1], pts[1:])]
    return pts[0]


_ctrl = np.array([[0.0, 0.0], [0.5, 1.5], [1.5, 1.7], [2.0, 0.3]])


def bezier_len(ctrl):
    ts = np.linspace(0, 1, 30)
    pts = [de_casteljau(ctrl, t) for t in ts]
    return sum(np.linalg.norm(b - a) for a, b in zip(pts[:-1], pts[1:]))


CASES.append(G("r9_de_casteljau_while_list_shrinks", bezier_len, (_ctrl,), ref="jax"))


def bezier_point_y(t):
    return de_casteljau(_ctrl, t)[1]


CASES.append(G("r9_de_casteljau_wrt_t", bezier_point_y, (0.37,), ref="jax"))
CASES.append(H("r9_de_casteljau_wrt_t_hessian", bezier_point_y, (0.37,), ref="jax"))


def bernstein_bezier(ctrl, t=0.6):
    n = len(ctrl) - 1
    out = np.zeros(2)
    for k, p in enumerate(ctrl):
        out = out + math.comb(n, k) * t ** k * (1 - t) ** (n - k) * p
    return out[0] * out[1]


CASES.append(G("r9_bernstein_math_comb_enumerate", bernstein_bezier, (_ctrl,), ref="fd"))

KNOTS = [0.0, 0.0, 0.0, 0.0, 0.3, 0.6, 1.0, 1.0, 1.0, 1.0]


def de_boor(c, x, p=3):
    k = max(i for i in range(len(KNOTS) - 1) if KNOTS[i] <= x < KNOTS[i + 1])
    d = [c[j + k - p] for j in range(p + 1)]
    for r in range(1, p + 1):
        for j in range(p, r - 1, -1):
            a = (x - KNOTS[j + k - p]) / (KNOTS[j + 1 + k - r] - KNOTS[j + k - p])
            d[j] = (1.0 - a) * d[j - 1] + a * d[j]
    return d[p]


_cb = np.array([0.0, 1.0, -0.5, 2.0, 1.5, 0.2])
CASES.append(G("r9_de_boor_bspline_wrt_coeffs", de_boor, (_cb, 0.45), ref="jax"))
CASES.append(G("r9_de_boor_bspline_wrt_x", de_boor, (_cb, 0.45), argnums=1, ref="ag"))


def sdf_circle_box(p):
    c = np.linalg.norm(p - np.array([0.5, 0.0])) - 0.7
    q = np.abs(p) - np.array([0.4, 0.6])
    box = np.linalg.norm(np.maximum(q, 0.0)) + min(max(q[0], q[1]), 0.0)
    k = 0.2
    h = np.clip(0.5 + 0.5 * (box - c) / k, 0.0, 1.0)
    return box * (1 - h) + c * h - k * h * (1 - h)


CASES.append(G("r9_sdf_smooth_union_clip_max_min", sdf_circle_box, (np.array([0.3, 0.9]),), ref="jax"))
CASES.append(G("r9_sdf_smooth_union_inside", sdf_circle_box, (np.array([0.1, 0.1]),), ref="fd"))


def sdf_torus(p, R=1.0, r=0.3):
    qx = math.sqrt(p[0] ** 2 + p[2] ** 2) - R
    return math.sqrt(qx * qx + p[1] ** 2) - r


CASES.append(G("r9_sdf_torus_math_on_array_items", sdf_torus, (np.array([1.2, 0.4, 0.3]),), ref="jax"))


def sphere_trace(offset):
    # march a ray to a sphere of radius 1 at (offset, 0, 3)
    t = 0.0
    for _ in range(60):
        p = np.array([0.0, 0.0, t])
        dist = np.linalg.norm(p - np.array([offset, 0.0, 3.0])) - 1.0
        if dist < 1e-12:
            break
        t = t + dist
    return t


def _trace_ref():
    a = 0.3
    # t = 3 - sqrt(1 - a^2): dt/da = a / sqrt(1 - a^2)
    return a / math.sqrt(1 - a * a)


CASES.append(G("r9_sphere_tracing_loop_break", sphere_trace, (0.3,), ref=_trace_ref, tol=1e-6))


def triangle_angles_sum(P):
    A, B, C = P
    def ang(u, v):
        return math.acos(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))
    return ang(B - A, C - A) * 1.0 + ang(A - B, C - B) * 2.0 + ang(A - C, B - C) * 3.0


CASES.append(G("r9_triangle_angles_nested_def", triangle_angles_sum,
               (np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 0.9]]),), ref="jax"))


def point_segment_distance(p):
    a = np.array([0.0, 0.0])
    b = np.array([2.0, 1.0])
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t * ab))


CASES.append(G("r9_point_segment_clip_interior", point_segment_distance, (np.array([1.0, 1.5]),), ref="jax"))
CASES.append(G("r9_point_segment_clip_endpoint", point_segment_distance, (np.array([3.0, 2.5]),), ref="jax"))


def centroid_polygon(P):
    x, y = P[:, 0], P[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cr = x * yn - xn * y
    A = 0.5 * np.sum(cr)
    cx = np.sum((x + xn) * cr) / (6 * A)
    cy = np.sum((y + yn) * cr) / (6 * A)
    return cx ** 2 + cy


CASES.append(G("r9_polygon_centroid", centroid_polygon, (_poly,), ref="jax"))
CASES.append(JV("r9_jvp_de_casteljau_point", lambda t: de_casteljau(_ctrl, t), (0.4,), (1.0,)))


def catmull_rom(pts, t=0.35):
    p0, p1, p2, p3 = pts
    t2, t3 = t * t, t * t * t
    return 0.5 * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2 + (-p0 + 3 * p1 - 3 * p2 + p3) * t3)


CASES.append(pair("r9_catmull_rom_jacrev_wrt_points",
                  lambda: revsrc.jacrev(catmull_rom)(np.array([0.0, 1.0, 0.5, 2.0])),
                  lambda: np.array([0.5 * (-0.35 + 2 * 0.35 ** 2 - 0.35 ** 3),
                                    0.5 * (2 - 5 * 0.35 ** 2 + 3 * 0.35 ** 3),
                                    0.5 * (0.35 + 4 * 0.35 ** 2 - 3 * 0.35 ** 3),
                                    0.5 * (-0.35 ** 2 + 0.35 ** 3)])))
