"""Round 17, part j: geometry processing and graphics -- triangle meshes (areas,
normals, enclosed volume, cotangent Laplacian assembled with np.add.at and in-place
writes, angle defects), splines (Catmull-Rom, de Casteljau by int recursion, B-spline
basis), ray-sphere and ray-triangle intersections with hit/miss branches, Phong shading
with clamps, checked against autograd, JAX with x64 or central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

# an octahedron, slightly perturbed
V_OCT = np.array([[1.0, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]])
V_OCT = V_OCT + 0.05 * np.random.default_rng(3).normal(size=V_OCT.shape)
F_OCT = np.array([[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]])


def face_areas(V, F):
    e1 = V[F[:, 1]] - V[F[:, 0]]
    e2 = V[F[:, 2]] - V[F[:, 0]]
    return 0.5 * np.linalg.norm(np.cross(e1, e2), axis=1)


def surface_area(V, F=F_OCT):
    return np.sum(face_areas(V, F))


add(G("r17j_surface_area_cross_norm", surface_area, (V_OCT,), ref="ag", tol=1e-12))
add(H("r17j_surface_area_hessian", surface_area, (V_OCT,), ref="jax", tol=1e-9))


def enclosed_volume(V, F=F_OCT):
    vol = 0.0
    for a, b, c in F:
        vol += np.dot(V[a], np.cross(V[b], V[c])) / 6.0
    return vol


add(G("r17j_volume_loop_over_face_rows", enclosed_volume, (V_OCT,), ref="ag", tol=1e-12))


def isoperimetric(V):
    return surface_area(V) ** 1.5 / enclosed_volume(V)


add(G("r17j_isoperimetric_ratio", isoperimetric, (V_OCT,), ref="ag", tol=1e-11))


def vertex_normals_loss(V, F=F_OCT):
    N = np.zeros_like(V)
    fn = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
    for k in range(3):
        np.add.at(N, F[:, k], fn)
    N = N / np.linalg.norm(N, axis=1, keepdims=True)
    target = V / np.linalg.norm(V, axis=1, keepdims=True)
    return np.sum((N - target) ** 2)


add(G("r17j_vertex_normals_add_at", vertex_normals_loss, (V_OCT,), ref="fd", tol=1e-7))


def cot_laplacian(V, F):
    n = V.shape[0]
    L = np.zeros((n, n))
    for tri in F:
        for k in range(3):
            i, j, o = tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]
            u, v = V[i] - V[o], V[j] - V[o]
            cot = np.dot(u, v) / np.linalg.norm(np.cross(u, v))
            L[i, j] += 0.5 * cot
            L[j, i] += 0.5 * cot
            L[i, i] -= 0.5 * cot
            L[j, j] -= 0.5 * cot
    return L


def dirichlet_energy(V, F=F_OCT):
    L = cot_laplacian(V, F)
    return -np.trace(V.T @ L @ V)


add(G("r17j_cot_laplacian_inplace_dirichlet", dirichlet_energy, (V_OCT,), ref="fd", tol=1e-7))
# Dirichlet energy of the coordinates equals twice the area for any mesh: compare gradients
add(pair("r17j_dirichlet_equals_twice_area_grad", lambda: revsrc.grad(dirichlet_energy)(V_OCT),
         lambda: 2.0 * ag()[0].grad(agify(surface_area))(V_OCT), tol=1e-10))


def angle_defect(V, F=F_OCT):
    n = V.shape[0]
    ang = np.zeros(n)
    for f in F:
        for k in range(3):
            i, j, l = f[k], f[(k + 1) % 3], f[(k + 2) % 3]
            a, b = V[j] - V[i], V[l] - V[i]
            ang[i] += math.atan2(np.linalg.norm(np.cross(a, b)), np.dot(a, b))
    K = 2 * math.pi - ang
    return np.sum(K ** 2)


add(G("r17j_angle_defect_atan2", angle_defect, (V_OCT,), ref="fd", tol=1e-7))


def laplacian_smooth_loss(V, lam=0.3, iters=3, F=F_OCT):
    n = V.shape[0]
    A = np.zeros((n, n))
    for f in F:
        for a, b in ((f[0], f[1]), (f[1], f[2]), (f[2], f[0])):
            A[a, b] = 1.0
            A[b, a] = 1.0
    D = A.sum(axis=1)
    W = A / D[:, None]
    X = V.copy()
    for _ in range(iters):
        X = X + lam * (W @ X - X)
    return np.sum((X - V_OCT) ** 2) + np.sum(X[:, 2] ** 2)


add(G("r17j_umbrella_smoothing_copy", laplacian_smooth_loss, (V_OCT,), ref="fd", tol=1e-7))


# -- splines ------------------------------------------------------------------------------

def catmull_rom(P, t):
    n = len(P) - 3
    seg = min(int(t * n), n - 1)
    u = t * n - seg
    p0, p1, p2, p3 = P[seg], P[seg + 1], P[seg + 2], P[seg + 3]
    return 0.5 * ((2 * p1) + (-p0 + p2) * u + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u ** 2
                  + (-p0 + 3 * p1 - 3 * p2 + p3) * u ** 3)


CTRL = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 0.5], [3.0, 1.5], [4.0, -0.5], [5.0, 0.0]])


def spline_fit_loss(P, ts, targets):
    err = 0.0
    for t, y in zip(ts, targets):
        err += np.sum((catmull_rom(P, t) - y) ** 2)
    return err


TS = np.array([0.05, 0.3, 0.5, 0.77, 0.999])
TG = np.array([[0.8, 1.0], [2.0, 1.0], [2.5, 1.1], [3.5, 0.2], [4.0, -0.5]])
add(G("r17j_catmull_rom_fit_int_segment", spline_fit_loss, (CTRL, TS, TG), ref="ag", tol=1e-12))
add(G("r17j_catmull_rom_wrt_t", lambda t: np.sum(catmull_rom(CTRL, t) ** 2), (0.41,), ref="fd", tol=1e-7))


def de_casteljau(P, t, n):
    if n == 1:
        return P[0]
    Q = [(1 - t) * P[i] + t * P[i + 1] for i in range(n - 1)]
    return de_casteljau(Q, t, n - 1)


def bezier_length(P, m=16):
    pts = [de_casteljau(list(P), k / m, len(P)) for k in range(m + 1)]
    return sum(np.linalg.norm(b - a) for a, b in zip(pts[:-1], pts[1:]))


B4 = np.array([[0.0, 0.0], [0.3, 1.0], [0.9, 1.1], [1.2, 0.1]])
add(G("r17j_de_casteljau_int_recursion", bezier_length, (B4,), ref="ag", tol=1e-12))


def bezier_length_const(P, m=16):
    pts = [de_casteljau([P[0], P[1], P[2], P[3]], k / m, 4) for k in range(m + 1)]
    return sum(np.linalg.norm(b - a) for a, b in zip(pts[:-1], pts[1:]))


add(G("r17j_de_casteljau_const_depth", bezier_length_const, (B4,), ref="ag", tol=1e-12))


def bezier_curvature_at(P, t):
    d1 = 3 * ((1 - t) ** 2 * (P[1] - P[0]) + 2 * (1 - t) * t * (P[2] - P[1]) + t ** 2 * (P[3] - P[2]))
    d2 = 6 * ((1 - t) * (P[2] - 2 * P[1] + P[0]) + t * (P[3] - 2 * P[2] + P[1]))
    return (d1[0] * d2[1] - d1[1] * d2[0]) / np.linalg.norm(d1) ** 3


add(H("r17j_bezier_curvature_hessian_t", lambda t: bezier_curvature_at(B4, t), (0.35,), ref="fd", tol=1e-5))
add(pair("r17j_bezier_curvature_vmap_grad", lambda: revsrc.vmap(revsrc.grad(lambda t: bezier_curvature_at(B4, t)))(np.array([0.1, 0.5, 0.9])),
         lambda: np.array([fd_checked(lambda t: bezier_curvature_at(B4, t), (t,))[0] for t in (0.1, 0.5, 0.9)]), tol=1e-7))


def bspline_basis(i, k, t, knots):
    if k == 0:
        return 1.0 if knots[i] <= t < knots[i + 1] else 0.0
    left = 0.0
    if knots[i + k] > knots[i]:
        left = (t - knots[i]) / (knots[i + k] - knots[i]) * bspline_basis(i, k - 1, t, knots)
    right = 0.0
    if knots[i + k + 1] > knots[i + 1]:
        right = (knots[i + k + 1] - t) / (knots[i + k + 1] - knots[i + 1]) * bspline_basis(i + 1, k - 1, t, knots)
    return left + right


KNOTS = (0.0, 0.0, 0.0, 0.0, 0.4, 0.7, 1.0, 1.0, 1.0, 1.0)


def bspline_eval(c, t):
    return sum(c[i] * bspline_basis(i, 3, t, KNOTS) for i in range(len(c)))


CB = np.array([0.0, 1.0, -0.5, 2.0, 1.0, 0.3])
add(G("r17j_bspline_cox_de_boor_recursion_t", lambda t: bspline_eval(CB, t), (0.55,), ref="fd", tol=1e-7))
add(G("r17j_bspline_coeffs", bspline_eval, (CB, 0.55), ref=lambda: np.array([bspline_basis(i, 3, 0.55, KNOTS) for i in range(6)]), tol=1e-12))


# -- ray tracing ------------------------------------------------------------------------------

LIGHT = np.array([0.3, 1.0, -0.5]) / np.linalg.norm([0.3, 1.0, -0.5])


def ray_sphere(o, d, c, r):
    oc = o - c
    b = np.dot(oc, d)
    disc = b * b - (np.dot(oc, oc) - r * r)
    if disc < 0:
        return None
    s = math.sqrt(disc)
    t = -b - s
    if t < 1e-9:
        t = -b + s
        if t < 1e-9:
            return None
    return t


def shade(center, radius, rays, origin=np.zeros(3)):
    total = 0.0
    for d in rays:
        t = ray_sphere(origin, d, center, radius)
        if t is None:
            total += 0.05  # background
            continue
        p = origin + t * d
        n = (p - center) / radius
        total += max(0.0, float(np.dot(n, -LIGHT))) + 0.2 * t
    return total


RAYS = np.array([[0.0, 0.0, 1.0], [0.1, 0.05, 1.0], [0.4, 0.0, 1.0], [-0.05, 0.2, 1.0]])
RAYS = RAYS / np.linalg.norm(RAYS, axis=1, keepdims=True)
C0 = np.array([0.0, 0.1, 3.0])
add(G("r17j_ray_sphere_none_branch_continue", shade, (C0, 0.6, RAYS), argnums=(0, 1), ref="fd", tol=1e-7))
# a sphere that the third ray misses
add(G("r17j_ray_sphere_partial_miss", shade, (np.array([-0.3, 0.1, 3.0]), 0.5, RAYS), argnums=(0, 1), ref="fd", tol=1e-7))
# origin inside the sphere: the second root is taken
add(G("r17j_ray_sphere_inside", shade, (np.array([0.0, 0.0, 0.2]), 1.0, RAYS), argnums=(0, 1), ref="fd", tol=1e-7))


def moller_trumbore(o, d, v0, v1, v2):
    e1, e2 = v1 - v0, v2 - v0
    p = np.cross(d, e2)
    det = np.dot(e1, p)
    if abs(det) < 1e-12:
        return math.inf
    inv = 1.0 / det
    s = o - v0
    u = np.dot(s, p) * inv
    if u < 0.0 or u > 1.0:
        return math.inf
    q = np.cross(s, e1)
    v = np.dot(d, q) * inv
    if v < 0.0 or u + v > 1.0:
        return math.inf
    return np.dot(e2, q) * inv


def depth_map_loss(V, rays, F=F_OCT, origin=np.array([0.1, 0.05, -4.0])):
    loss = 0.0
    for d in rays:
        tmin = min(moller_trumbore(origin, d, V[a], V[b], V[c]) for a, b, c in F)
        if tmin < math.inf:
            loss += (tmin - 3.2) ** 2
    return loss


RAYS2 = np.array([[0.0, 0.0, 1.0], [0.05, 0.1, 1.0], [-0.1, 0.02, 1.0], [2.0, 0.0, 1.0]])
RAYS2 = RAYS2 / np.linalg.norm(RAYS2, axis=1, keepdims=True)
add(G("r17j_moller_trumbore_min_generator", depth_map_loss, (V_OCT, RAYS2), ref="fd", tol=1e-7))


def phong(n_raw, view, shininess):
    n = n_raw / np.linalg.norm(n_raw)
    diff = np.maximum(0.0, n @ LIGHT)
    r = 2 * (n @ LIGHT) * n - LIGHT
    spec = np.maximum(0.0, r @ view) ** shininess
    return diff + 0.5 * spec


VIEW = np.array([0.0, 0.6, 0.8])
add(G("r17j_phong_maximum_power", phong, (np.array([0.2, 1.0, -0.1]), VIEW, 8.0), argnums=(0, 2), ref="jax", tol=1e-10))
# back-facing: both clamps at zero, the gradient is zero (as JAX)
add(G("r17j_phong_backfacing_zero", phong, (np.array([0.0, -1.0, 0.3]), VIEW, 8.0), argnums=(0, 2), ref="jax", tol=1e-12))


def soft_silhouette(center, sigma, pix):
    d = np.linalg.norm(pix - center[None, :], axis=1)
    return np.sum(1.0 / (1.0 + np.exp((d - 0.5) / sigma)))


PIX = np.stack(np.meshgrid(np.linspace(-1, 1, 6), np.linspace(-1, 1, 6)), axis=-1).reshape(-1, 2)
add(G("r17j_soft_rasterizer_sigmoid", soft_silhouette, (np.array([0.1, -0.2]), 0.1, PIX), argnums=(0, 1), ref="ag", tol=1e-11))
add(G("r17j_soft_rasterizer_backend_jax", soft_silhouette, (np.array([0.1, -0.2]), 0.1, PIX), argnums=(0, 1),
      ref="ag", tol=1e-11, backend="jax"))


def barycentric_interp(p, tri, vals):
    T = np.column_stack([tri[1] - tri[0], tri[2] - tri[0]])
    lam12 = np.linalg.solve(T, p - tri[0])
    lam = np.concatenate([[1.0 - lam12.sum()], lam12])
    return lam @ vals


TRI = np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 1.0]])
add(pair("r17j_barycentric_jacfwd_tri", lambda: revsrc.jacfwd(barycentric_interp, argnums=1)(np.array([0.3, 0.3]), TRI, np.array([1.0, 2.0, -1.0])),
         lambda: fdj(lambda T: barycentric_interp(np.array([0.3, 0.3]), T, np.array([1.0, 2.0, -1.0])), TRI), tol=1e-7))
# collinear vertices: the norm of a zero cross product, subgradient 0 (api.md: a norm at 0 gives 0)
add(G("r17j_degenerate_triangle_zero_area", surface_area, (np.array([[0.0, 0, 0], [1, 0, 0], [2, 0, 0]]), np.array([[0, 1, 2]])),
      ref=lambda: np.zeros((3, 3)), tol=0.0))


# -- polygons and more library calls ---------------------------------------------------------------

def shoelace_area(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def polygon_loss(P, target_area=1.0):
    per = np.sum(np.linalg.norm(np.roll(P, -1, axis=0) - P, axis=1))
    return (shoelace_area(P) - target_area) ** 2 + 0.1 * per ** 2 / (4 * math.pi * shoelace_area(P))


HEX = np.array([[math.cos(k * math.pi / 3), math.sin(k * math.pi / 3)] for k in range(6)]) * np.array([1.0, 0.8])
add(G("r17j_shoelace_roll_isoperimetric", polygon_loss, (HEX,), ref="jax", tol=1e-11))
add(H("r17j_shoelace_roll_hessian", lambda p: polygon_loss(p.reshape(6, 2)), (HEX.ravel(),), ref="jax", tol=1e-9))


def texture_lookup(uv, tex_x, tex_v):
    return np.sum(np.interp(uv, tex_x, tex_v) ** 2)


TX = np.linspace(0.0, 1.0, 9)
TVAL = np.sin(3 * TX) + 0.2
add(G("r17j_np_interp_query_and_values", texture_lookup, (np.array([0.13, 0.47, 0.77]), TX, TVAL), argnums=(0, 2), ref="fd", tol=1e-7))


def procrustes_residual(theta, X):
    R = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    Y = X @ R.T + np.array([0.3, -0.1])
    Xc, Yc = X - X.mean(axis=0), Y - Y.mean(axis=0)
    M = Xc.T @ (Yc + 0.05 * Yc ** 2)
    return np.linalg.norm(M, "nuc") - np.linalg.norm(M, "fro") + np.linalg.norm(M, 2)


add(G("r17j_matrix_norms_nuc_fro_spectral", procrustes_residual, (0.4, HEX), ref="fd", tol=1e-7))


def signed_orientation(P):
    tot = 0.0
    for a, b, c in zip(P, np.roll(P, -1, axis=0), np.roll(P, -2, axis=0)):
        tot += np.linalg.det(np.stack([b - a, c - a]))
    return tot


add(G("r17j_det_of_stacked_edges_zip_roll", signed_orientation, (HEX,), ref="jax", tol=1e-11))


def kron_lattice(a):
    M = np.kron(np.array([[1.0, a[0]], [a[1], 1.0]]), np.eye(2) + a[2] * np.ones((2, 2)))
    return np.sum(np.triu(M) ** 2) - np.trace(np.tril(M, -1) @ M)


add(G("r17j_kron_triu_tril", kron_lattice, (np.array([0.3, -0.2, 0.5]),), ref="jax", tol=1e-11))
add(H("r17j_kron_triu_tril_hessian", kron_lattice, (np.array([0.3, -0.2, 0.5]),), ref="jax", tol=1e-10))
add(H("r17j_np_interp_values_hessian", lambda v: texture_lookup(np.array([0.13, 0.47, 0.77]), TX, v), (TVAL,), ref="jax", tol=1e-10))
