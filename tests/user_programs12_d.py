"""Round 12, part d: computer graphics -- soft rasterisation, barycentric coordinates,
ray-sphere intersection with branches, Phong shading, Bezier and spline curves."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


def barycentric(p, a, b, c):
    v0, v1, v2 = b - a, c - a, p - a
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    den = d00 * d11 - d01 * d01
    v = (d11 * d20 - d01 * d21) / den
    w = (d00 * d21 - d01 * d20) / den
    return np.array([1.0 - v - w, v, w])


TRI = (np.array([0.0, 0.0]), np.array([1.0, 0.1]), np.array([0.3, 0.9]))
PP = np.array([0.4, 0.3])
add(pair("r12_barycentric_jacrev", lambda: revsrc.jacrev(barycentric)(PP, *TRI), lambda: fdj(lambda p: barycentric(p, *TRI), PP), tol=1e-7))
add(pair("r12_barycentric_jacfwd_vertex", lambda: revsrc.jacfwd(barycentric, argnums=2)(PP, *TRI),
         lambda: fdj(lambda b: barycentric(PP, TRI[0], b, TRI[2]), TRI[1]), tol=1e-7))


def soft_raster(verts, res=8, sigma=0.02):
    a, b, c = verts[0], verts[1], verts[2]
    img = np.zeros((res, res))
    for i in range(res):
        for j in range(res):
            p = np.array([(j + 0.5) / res, (i + 0.5) / res])
            e0 = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
            e1 = (c[0] - b[0]) * (p[1] - b[1]) - (c[1] - b[1]) * (p[0] - b[0])
            e2 = (a[0] - c[0]) * (p[1] - c[1]) - (a[1] - c[1]) * (p[0] - c[0])
            m = min(e0, e1, e2)
            img[i, j] = 1.0 / (1.0 + math.exp(-m / sigma))
    return img


VT = np.array([[0.1, 0.1], [0.85, 0.2], [0.35, 0.9]])
TARGET = soft_raster(VT + 0.05)


def raster_loss(verts):
    return np.sum((soft_raster(verts) - TARGET) ** 2)


add(G("r12_soft_raster_itemassign", raster_loss, (VT,), ref="fd", tol=1e-6))


def soft_raster_vec(verts, res=8, sigma=0.02):
    g = (np.arange(res) + 0.5) / res
    px, py = np.meshgrid(g, g) if False else (g[None, :] * np.ones((res, 1)), g[:, None] * np.ones((1, res)))
    es = []
    for k in range(3):
        a, b = verts[k], verts[(k + 1) % 3]
        es.append((b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]))
    m = np.minimum(np.minimum(es[0], es[1]), es[2])
    return 1.0 / (1.0 + np.exp(-m / sigma))


add(pair("r12_soft_raster_vec_vs_loop", lambda: revsrc.grad(lambda v: np.sum((soft_raster_vec(v) - TARGET) ** 2))(VT),
         lambda: revsrc.grad(raster_loss)(VT), tol=1e-10))


def ray_sphere(o, d, center, radius):
    oc = o - center
    b = oc @ d
    c = oc @ oc - radius * radius
    disc = b * b - c
    if disc < 0:
        return 10.0
    t = -b - math.sqrt(disc)
    if t < 0:
        t = -b + math.sqrt(disc)
    return t


O3 = np.array([0.0, 0.0, -3.0])
D3 = np.array([0.1, 0.05, 1.0]) / np.linalg.norm([0.1, 0.05, 1.0])
CEN = np.array([0.2, -0.1, 0.5])


def ray_t_ref(argn):
    return fd_checked(ray_sphere, (O3, D3, CEN, 1.0), argnums=argn)


add(pair("r12_ray_sphere_hit_center", lambda: revsrc.grad(ray_sphere, argnums=2)(O3, D3, CEN, 1.0), lambda: ray_t_ref(2), tol=1e-6))
add(pair("r12_ray_sphere_radius", lambda: revsrc.grad(ray_sphere, argnums=3)(O3, D3, CEN, 1.0), lambda: ray_t_ref(3), tol=1e-6))
# from inside the sphere: the second root
add(pair("r12_ray_sphere_inside", lambda: revsrc.grad(ray_sphere, argnums=0)(CEN + 0.1, D3, CEN, 1.0),
         lambda: fd_checked(ray_sphere, (CEN + 0.1, D3, CEN, 1.0), argnums=0), tol=1e-6))
# a miss: gradient zero
add(pair("r12_ray_sphere_miss", lambda: revsrc.grad(ray_sphere, argnums=2)(O3, D3, CEN + np.array([5.0, 0, 0]), 1.0),
         lambda: np.zeros(3), tol=0.0))


def phong(n, l, v, kd=0.7, ks=0.3, shininess=16.0):
    n = n / np.linalg.norm(n)
    l = l / np.linalg.norm(l)
    v = v / np.linalg.norm(v)
    diff = max(n @ l, 0.0)
    r = 2 * (n @ l) * n - l
    spec = max(r @ v, 0.0) ** shininess
    return kd * diff + ks * spec


NN = np.array([0.1, 0.2, 1.0])
LL = np.array([0.5, 0.3, 1.0])
VV = np.array([-0.2, 0.1, 1.0])
add(G("r12_phong_normal", phong, (NN, LL, VV), ref="ag", tol=1e-9))
add(G("r12_phong_shininess", phong, (NN, LL, VV, 0.7, 0.3, 16.0), argnums=5, ref="fd", tol=1e-7))
add(G("r12_phong_backfacing", phong, (NN, -LL, VV), ref="fd", tol=1e-7))


def bezier(ctrl, t):
    pts = [ctrl[i] for i in range(len(ctrl))]
    while len(pts) > 1:
        pts = [(1 - t) * pts[i] + t * pts[i + 1] for i in range(len(pts) - 1)]
    return pts[0]


CTRL = np.array([[0.0, 0.0], [0.3, 1.0], [0.7, 1.2], [1.0, 0.1]])


def bezier_len(ctrl, n=16):
    L = 0.0
    prev = bezier(ctrl, 0.0)
    for k in range(1, n + 1):
        p = bezier(ctrl, k / n)
        L += np.linalg.norm(p - prev)
        prev = p
    return L


add(G("r12_bezier_casteljau_while", bezier_len, (CTRL,), ref="ag", tol=1e-9))
add(pair("r12_bezier_tangent_jacfwd", lambda: revsrc.jacfwd(bezier, argnums=1)(CTRL, 0.3),
         lambda: 3 * ((1 - 0.3) ** 2 * (CTRL[1] - CTRL[0]) + 2 * 0.7 * 0.3 * (CTRL[2] - CTRL[1]) + 0.09 * (CTRL[3] - CTRL[2])),
         tol=1e-12))


def catmull_rom(P, t):
    i = int(t)
    u = t - i
    p0, p1, p2, p3 = P[i], P[i + 1], P[i + 2], P[i + 3]
    return 0.5 * ((2 * p1) + (-p0 + p2) * u + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u ** 2 + (-p0 + 3 * p1 - 3 * p2 + p3) * u ** 3)


PCR = np.array([0.0, 1.0, 0.5, 2.0, 1.5, 0.2])
add(G("r12_catmull_rom_int_index_t", catmull_rom, (PCR, 1.4), argnums=1, ref="fd", tol=1e-7))
add(G("r12_catmull_rom_points", catmull_rom, (PCR, 1.4), argnums=0, ref="ag", tol=1e-12))


def sdf_smooth_union(p, c1, c2, k=0.3):
    d1 = np.linalg.norm(p - c1) - 0.5
    d2 = np.linalg.norm(p - c2) - 0.4
    h = np.clip(0.5 + 0.5 * (d2 - d1) / k, 0.0, 1.0)
    return d2 * (1 - h) + d1 * h - k * h * (1 - h)


def sphere_trace(o, d, c1, c2):
    t = 0.0
    for _ in range(64):
        dist = sdf_smooth_union(o + t * d, c1, c2)
        if dist < 1e-10:
            break
        t += dist
    return t


C1 = np.array([0.0, 0.0, 0.0])
C2 = np.array([0.5, 0.2, 0.1])
add(G("r12_sphere_trace_center", sphere_trace, (O3, D3, C1, C2), argnums=2, ref="fd", tol=1e-5))


def gamma_tonemap(rgb, exposure):
    x = rgb * exposure
    y = x / (1.0 + x)
    return np.where(y <= 0.0031308, 12.92 * y, 1.055 * y ** (1 / 2.4) - 0.055)


RGB = np.array([0.001, 0.2, 0.9])
add(pair("r12_tonemap_srgb_where_jacrev", lambda: revsrc.jacrev(gamma_tonemap)(RGB, 1.5), lambda: fdj(lambda r: gamma_tonemap(r, 1.5), RGB), tol=1e-6))
add(pair("r12_tonemap_vmap_exposure", lambda: revsrc.vmap(revsrc.grad(lambda e: np.sum(gamma_tonemap(RGB, e))))(np.array([0.5, 1.0, 2.0])),
         lambda: np.array([fd_checked(lambda e: np.sum(gamma_tonemap(RGB, e)), (e,))[0] for e in (0.5, 1.0, 2.0)]), tol=1e-6))
