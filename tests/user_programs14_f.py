"""Round 14, part f: graphics and geometry -- bilinear interpolation with floor and int
indices, barycentric weights, quaternion rotations, signed distance fields."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

IMG = np.array([[0.0, 1.0, 4.0, 9.0], [1.0, 2.0, 5.0, 10.0], [4.0, 5.0, 8.0, 13.0], [9.0, 10.0, 13.0, 18.0]])


def bilinear(p, img=IMG):
    x, y = p[0], p[1]
    i = int(math.floor(x))
    j = int(math.floor(y))
    i = min(max(i, 0), img.shape[0] - 2)
    j = min(max(j, 0), img.shape[1] - 2)
    fx, fy = x - i, y - j
    return ((1 - fx) * (1 - fy) * img[i, j] + fx * (1 - fy) * img[i + 1, j]
            + (1 - fx) * fy * img[i, j + 1] + fx * fy * img[i + 1, j + 1])


def _bil_grad(p):
    x, y = p
    i, j = int(math.floor(x)), int(math.floor(y))
    fx, fy = x - i, y - j
    gx = (1 - fy) * (IMG[i + 1, j] - IMG[i, j]) + fy * (IMG[i + 1, j + 1] - IMG[i, j + 1])
    gy = (1 - fx) * (IMG[i, j + 1] - IMG[i, j]) + fx * (IMG[i + 1, j + 1] - IMG[i + 1, j])
    return np.array([gx, gy])


P2 = np.array([1.3, 2.6])
add(VG("r14_bilinear_floor_int", bilinear, (P2,), ref=lambda: _bil_grad(P2), tol=1e-12))
add(pair("r14_bilinear_vmap_grad_points", lambda: revsrc.vmap(revsrc.grad(bilinear))(np.array([[0.5, 0.5], [1.3, 2.6], [2.2, 0.1]])),
         lambda: np.array([_bil_grad(np.array(p)) for p in ([0.5, 0.5], [1.3, 2.6], [2.2, 0.1])]), tol=1e-12))


def bilinear_vec(pts, img=IMG):
    i = np.clip(np.floor(pts[:, 0]).astype(int), 0, img.shape[0] - 2)
    j = np.clip(np.floor(pts[:, 1]).astype(int), 0, img.shape[1] - 2)
    fx = pts[:, 0] - i
    fy = pts[:, 1] - j
    v = ((1 - fx) * (1 - fy) * img[i, j] + fx * (1 - fy) * img[i + 1, j]
         + (1 - fx) * fy * img[i, j + 1] + fx * fy * img[i + 1, j + 1])
    return np.sum(v ** 2)


PTS = np.array([[0.5, 0.5], [1.3, 2.6], [2.2, 0.1]])
add(G("r14_bilinear_vectorized_astype_fancy", bilinear_vec, (PTS,), ref="fd", tol=1e-7))
add(G("r14_bilinear_grad_wrt_image", bilinear_vec, (PTS, IMG), argnums=1, ref="fd", tol=1e-7))


def barycentric(p, tri):
    a, b, c = tri[0], tri[1], tri[2]
    v0, v1, v2 = b - a, c - a, p - a
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    den = d00 * d11 - d01 * d01
    v = (d11 * d20 - d01 * d21) / den
    w = (d00 * d21 - d01 * d20) / den
    return np.array([1.0 - v - w, v, w])


TRI = np.array([[0.0, 0.0], [2.0, 0.2], [0.5, 1.5]])
add(pair("r14_barycentric_jacrev_point", lambda: revsrc.jacrev(barycentric)(np.array([0.7, 0.4]), TRI),
         lambda: fdj(lambda p: barycentric(p, TRI), np.array([0.7, 0.4])), tol=1e-7))
add(pair("r14_barycentric_jacfwd_triangle", lambda: revsrc.jacfwd(barycentric, argnums=1)(np.array([0.7, 0.4]), TRI),
         lambda: fdj(lambda t: barycentric(np.array([0.7, 0.4]), t), TRI), tol=1e-7))
# the weights reproduce the point: sum_i w_i(p) tri_i = p, so d/dp of that is the identity
add(pair("r14_barycentric_reproduction", lambda: revsrc.jacfwd(lambda p: barycentric(p, TRI) @ TRI)(np.array([0.7, 0.4])),
         lambda: np.eye(2), tol=1e-12))


def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def qrotate(q, v):
    q = q / np.linalg.norm(q)
    qv = np.concatenate([[0.0], v])
    qc = q * np.array([1.0, -1.0, -1.0, -1.0])
    return qmul(qmul(q, qv), qc)[1:]


def _rotmat(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


QQ = np.array([0.9, 0.1, -0.3, 0.2])
VV3 = np.array([1.0, 2.0, -0.5])
add(pair("r14_quaternion_rotate_jacobian_v", lambda: revsrc.jacrev(qrotate, argnums=1)(QQ, VV3), lambda: _rotmat(QQ), tol=1e-12))
add(pair("r14_quaternion_rotate_jacfwd_q", lambda: revsrc.jacfwd(qrotate)(QQ, VV3), lambda: fdj(lambda q: _rotmat(q) @ VV3, QQ), tol=1e-7))
# a rotation keeps length: d|R v|^2/dq = 0
add(pair("r14_quaternion_norm_preserved", lambda: revsrc.grad(lambda q: np.sum(qrotate(q, VV3) ** 2))(QQ), lambda: np.zeros(4), tol=1e-12))


def slerp_angle(t, q0, q1):
    c = q0 @ q1
    th = math.acos(c)
    q = (math.sin((1 - t) * th) * q0 + math.sin(t * th) * q1) / math.sin(th)
    return q


Q0 = np.array([1.0, 0.0, 0.0, 0.0])
Q1 = np.array([math.cos(0.4), math.sin(0.4), 0.0, 0.0])
add(pair("r14_slerp_tangent_speed", lambda: revsrc.jacfwd(slerp_angle)(0.3, Q0, Q1),
         lambda: 0.4 * np.array([-math.sin(0.12), math.cos(0.12), 0.0, 0.0]), tol=1e-12))


def sdf_scene(p):
    # union of a sphere and a box, minus a smaller sphere
    d_sphere = np.linalg.norm(p - np.array([0.0, 0.0, 0.0])) - 1.0
    q = np.abs(p - np.array([1.5, 0.0, 0.0])) - np.array([0.5, 0.5, 0.5])
    d_box = np.linalg.norm(np.maximum(q, 0.0)) + min(max(q[0], max(q[1], q[2])), 0.0)
    d = np.minimum(d_sphere, d_box)
    d_hole = np.linalg.norm(p - np.array([0.0, 0.0, 1.0])) - 0.4
    return np.maximum(d, -d_hole)


for nm, pt in [("sphere", [0.3, 0.4, -1.2]), ("box_face", [2.4, 0.1, 0.2]), ("box_corner", [2.3, 0.9, 0.8]),
               ("box_inside", [1.6, 0.1, 0.2]), ("hole", [0.05, 0.1, 0.9])]:
    add(G("r14_sdf_" + nm, sdf_scene, (np.array(pt),), ref="fd", tol=1e-7))
add(pair("r14_sdf_eikonal_vmap", lambda: np.linalg.norm(revsrc.vmap(revsrc.grad(sdf_scene))(
    np.array([[0.3, 0.4, -1.2], [2.4, 0.1, 0.2], [2.3, 0.9, 0.8]])), axis=1), lambda: np.ones(3), tol=1e-12))


def smooth_min_sdf(p, k=8.0):
    a = np.linalg.norm(p, ord=2) - 1.0
    b = np.linalg.norm(p - 1.0, ord=np.inf) - 0.5
    return -np.log(np.exp(-k * a) + np.exp(-k * b)) / k


add(G("r14_sdf_smooth_min_norm_ord", smooth_min_sdf, (np.array([0.8, 0.5, 0.9]),), ref="fd", tol=1e-7))
add(H("r14_sdf_smooth_min_hessian", smooth_min_sdf, (np.array([0.8, 0.5, 0.9]),), ref="fd", tol=1e-4))


def polygon_area(xy):
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)


POLY = np.array([[0.0, 0.0], [2.0, 0.1], [2.2, 1.5], [0.8, 2.0], [-0.3, 1.0]])
add(VG("r14_polygon_area_roll", polygon_area, (POLY,),
       ref=lambda: 0.5 * np.stack([np.roll(POLY[:, 1], -1) - np.roll(POLY[:, 1], 1), np.roll(POLY[:, 0], 1) - np.roll(POLY[:, 0], -1)], axis=1), tol=1e-12))
