"""Round 20, part g: geometry processing and graphics -- mesh smoothing energies with
uniform and cotangent Laplacians (np.add.at, in-place scatter), triangle areas and
normals, ray marching of signed distance functions with data-dependent while loops,
Bezier curves by de Casteljau, B-spline bases by Cox-de Boor, arc lengths, mesh
classes with properties and inheritance, and compositions over them."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(2007)

# a small fan mesh: a hexagon around a centre vertex, plus a quad strip
V0 = np.array([[0.0, 0.0, 0.0],
               [1.0, 0.0, 0.1], [0.5, 0.87, -0.05], [-0.5, 0.86, 0.08],
               [-1.0, 0.02, -0.1], [-0.48, -0.87, 0.05], [0.52, -0.85, -0.02]])
FACES = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5], [0, 5, 6], [0, 6, 1]])
EDGES = np.array([[0, k] for k in range(1, 7)] + [[k, k % 6 + 1] for k in range(1, 7)])


def triangle_areas(V, F=FACES):
    a = V[F[:, 1]] - V[F[:, 0]]
    b = V[F[:, 2]] - V[F[:, 0]]
    n = np.cross(a, b)
    return 0.5 * np.sqrt(np.sum(n * n, axis=1))


def total_area(V):
    return np.sum(triangle_areas(V))


add(G("r20g_total_area_grad", total_area, (V0,), ref="ag", tol=1e-10))
add(H("r20g_two_triangle_area_hessian", lambda V: np.sum(triangle_areas(V, FACES[:2])), (V0[:4],), ref="fd", tol=1e-5))


def uniform_laplacian_energy(V, E=EDGES):
    # sum over vertices of |L v|^2 with L the umbrella operator, built by np.add.at
    n = V.shape[0]
    acc = np.zeros_like(V)
    deg = np.zeros(n)
    np.add.at(acc, E[:, 0], V[E[:, 1]])
    np.add.at(acc, E[:, 1], V[E[:, 0]])
    np.add.at(deg, E[:, 0], 1.0)
    np.add.at(deg, E[:, 1], 1.0)
    Lv = acc / deg[:, None] - V
    return np.sum(Lv ** 2)


add(VG("r20g_umbrella_energy_add_at_vg", uniform_laplacian_energy, (V0,), ref="fd", tol=1e-8))
add(H("r20g_umbrella_energy_hessian", uniform_laplacian_energy, (V0,), ref="fd", tol=1e-6))


def cotangent(a, b):
    # cot of the angle between a and b
    return np.dot(a, b) / np.linalg.norm(np.cross(a, b))


def cotan_weights(V, F=FACES):
    n = V.shape[0]
    W = np.zeros((n, n))
    for f in F:
        for k in range(3):
            i, j, o = f[k], f[(k + 1) % 3], f[(k + 2) % 3]
            c = 0.5 * cotangent(V[i] - V[o], V[j] - V[o])
            W[i, j] += c
            W[j, i] += c
    return W


def dirichlet_energy(V, U):
    # 0.5 sum_ij w_ij |u_i - u_j|^2 / 2 of a scalar field U over the mesh V (the cotan formula)
    W = cotan_weights(V)
    D = U[:, None] - U[None, :]
    return 0.25 * np.sum(W * D * D)


U0 = np.array([0.3, 1.0, -0.2, 0.5, 0.1, -0.4, 0.8])
add(G("r20g_cotan_dirichlet_wrt_field", dirichlet_energy, (V0, U0), argnums=1, ref="ag", tol=1e-10))
add(G("r20g_cotan_dirichlet_wrt_vertices", dirichlet_energy, (V0, U0), argnums=0, ref="fd", tol=1e-7))
add(pair("r20g_cotan_dirichlet_field_hessian_is_laplacian",
         lambda: revsrc.hessian(dirichlet_energy, argnums=1)(V0, U0),
         lambda: (lambda W: np.diag(W.sum(1)) - W)(cotan_weights(V0)), tol=1e-10))


class TriMesh:
    def __init__(self, faces, rest):
        self.faces = faces
        self.rest = rest

    @property
    def rest_areas(self):
        return triangle_areas(self.rest, self.faces)

    def area_energy(self, V):
        a = triangle_areas(V, self.faces)
        r = a / self.rest_areas - 1.0
        return np.sum(r * r)


class StretchMesh(TriMesh):
    def __init__(self, faces, rest, edges, k_edge):
        super().__init__(faces, rest)
        self.edges = edges
        self.k_edge = k_edge

    def edge_lengths(self, V):
        d = V[self.edges[:, 0]] - V[self.edges[:, 1]]
        return np.sqrt(np.sum(d * d, axis=1))

    def energy(self, V):
        L = self.edge_lengths(V)
        L0 = self.edge_lengths(self.rest)
        return super().area_energy(V) + self.k_edge * np.sum((L - L0) ** 2)


MESH = StretchMesh(FACES, V0, EDGES, 0.7)
VDEF = V0 + 0.05 * _rng.normal(size=V0.shape)
add(VG("r20g_stretch_mesh_bound_method_super", MESH.energy, (VDEF,), ref="fd", tol=1e-7))
add(JV("r20g_stretch_mesh_jvp", MESH.energy, (VDEF,), (_rng.normal(size=V0.shape),), ref="fd", tol=1e-7))


def smooth_steps(V, lam, steps=4):
    # explicit Laplacian smoothing, vertices moved in place row by row, boundary fixed
    V = V.copy()
    n = V.shape[0]
    nbrs = [[int(e[1]) for e in EDGES if e[0] == i] + [int(e[0]) for e in EDGES if e[1] == i] for i in range(n)]
    for _ in range(steps):
        new = V.copy()
        for i in range(n):
            if i == 0:
                m = np.mean(V[nbrs[i]], axis=0)
                new[i] += lam * (m - V[i])
        V = new
    return V


def smoothed_height(V, lam):
    return smooth_steps(V, lam)[0, 2] ** 2 + np.sum(smooth_steps(V, lam)[:, 2])


add(G("r20g_smooth_steps_wrt_lambda", smoothed_height, (VDEF, 0.4), argnums=1, ref="fd", tol=1e-8))
add(G("r20g_smooth_steps_wrt_vertices", smoothed_height, (VDEF, 0.4), argnums=0, ref="fd", tol=1e-8))


# -- signed distance functions and ray marching ----------------------------------------

def sd_sphere(p, c, r):
    return np.linalg.norm(p - c) - r


def sd_box(p, b):
    q = np.abs(p) - b
    return np.linalg.norm(np.maximum(q, 0.0)) + min(max(q[0], max(q[1], q[2])), 0.0)


def smooth_union(d1, d2, k=0.3):
    h = min(max(0.5 + 0.5 * (d2 - d1) / k, 0.0), 1.0)
    return d2 * (1 - h) + d1 * h - k * h * (1.0 - h)


def scene(p, params):
    c = params[:3]
    r = params[3]
    return smooth_union(sd_sphere(p, c, r), sd_box(p - np.array([0.0, -1.0, 0.0]), np.array([1.5, 0.2, 1.5])))


def march(origin, direction, params, max_steps=64, eps=1e-9):
    t = 0.0
    for _ in range(max_steps):
        d = scene(origin + t * direction, params)
        if d < eps:
            return t
        t += d
        if t > 20.0:
            return 20.0
    return t


ORIG = np.array([0.0, 0.3, -4.0])
DIR = np.array([0.05, -0.02, 1.0]) / np.linalg.norm([0.05, -0.02, 1.0])
SPH = np.array([0.1, 0.4, 0.2, 0.9])


def hit_distance(params):
    return march(ORIG, DIR, params)


# exact answer via the implicit function theorem at the hit: dt/dp = -(dS/dp)/(dS/dp . dir)
def _ift_ref():
    t = hit_distance(SPH)
    p = ORIG + t * DIR
    gp = fd_checked(lambda q: scene(q, SPH), (p,), h=1e-6)[0]
    gth = fd_checked(lambda th: scene(p, th), (SPH,), h=1e-6)[0]
    return -gth / np.dot(gp, DIR)


add(pair("r20g_sphere_trace_hit_distance_ift", lambda: revsrc.grad(hit_distance)(SPH), _ift_ref, tol=1e-4))


def march_while(params, origin=ORIG, direction=DIR):
    t, d, steps = 0.0, 1.0, 0
    while d > 1e-10 and steps < 200:
        d = sd_sphere(origin + t * direction, params[:3], params[3])
        t = t + d
        steps += 1
    return t


def _sphere_hit_closed(params):
    c, r = params[:3], params[3]
    oc = ORIG - c
    b = np.dot(oc, DIR)
    disc = b * b - (np.dot(oc, oc) - r * r)
    return -b - math.sqrt(disc)


add(pair("r20g_march_while_sphere_closed_form", lambda: revsrc.grad(march_while)(SPH),
         lambda: ag()[0].grad(agify(_sphere_hit_closed))(SPH), tol=1e-7))
add(pair("r20g_march_while_sphere_value", lambda: march_while(SPH), lambda: _sphere_hit_closed(SPH), tol=1e-9))


def sdf_normal(p, params, h=1e-4):
    # a finite-difference normal, as shaders compute it; the shading is then Lambertian
    ex = np.array([h, 0.0, 0.0])
    ey = np.array([0.0, h, 0.0])
    ez = np.array([0.0, 0.0, h])
    n = np.array([scene(p + ex, params) - scene(p - ex, params),
                  scene(p + ey, params) - scene(p - ey, params),
                  scene(p + ez, params) - scene(p - ez, params)])
    return n / np.linalg.norm(n)


LIGHT = np.array([0.3, 0.8, -0.5]) / np.linalg.norm([0.3, 0.8, -0.5])


def shade_pixel(params):
    t = march(ORIG, DIR, params)
    p = ORIG + t * DIR
    return max(np.dot(sdf_normal(p, params), LIGHT), 0.0)


add(G("r20g_shade_pixel_lambert", shade_pixel, (SPH,), ref="fd", tol=2e-4, h=1e-5, check=1e-3))


def soft_shadow(params, p=np.array([1.2, -0.79, 0.3]), k=8.0):
    # Inigo Quilez's soft shadow: the smallest k d / t along the ray to the light
    res = 1.0
    t = 0.05
    for i in range(40):
        h = sd_sphere(p + t * LIGHT, params[:3], params[3])
        res = min(res, k * h / t)
        if res < 1e-3:
            break
        t += min(max(h, 0.02), 0.5)
    return res


add(G("r20g_soft_shadow_min_loop", soft_shadow, (np.array([0.4, 0.6, 0.1, 0.5]),), ref="fd", tol=1e-6))


# -- curves ------------------------------------------------------------------------------

def de_casteljau(P, t):
    pts = [p for p in P]
    while len(pts) > 1:
        pts = [(1 - t) * a + t * b for a, b in zip(pts[:-1], pts[1:])]
    return pts[0]


CTRL = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 3.0], [4.0, 0.5], [5.0, 1.0]])


def bezier_fit_loss(P, ts, targets):
    return sum(np.sum((de_casteljau(P, t) - y) ** 2) for t, y in zip(ts, targets))


TS = np.linspace(0.0, 1.0, 6)
TGT = np.stack([TS * 5.0, np.sin(3.0 * TS)], axis=1)
add(VG("r20g_bezier_de_casteljau_fit_vg", bezier_fit_loss, (CTRL, TS, TGT), ref="ag", tol=1e-10))
add(G("r20g_bezier_fit_wrt_params_t", bezier_fit_loss, (CTRL, TS, TGT), argnums=1, ref="ag", tol=1e-10))


def bezier_tangent(P, t):
    return revsrc.jacfwd(de_casteljau, argnums=1)(P, t)


def bezier_curvature(P, t):
    d1 = revsrc.jacfwd(de_casteljau, argnums=1)(P, t)
    d2 = revsrc.jacfwd(bezier_tangent, argnums=1)(P, t)
    return (d1[0] * d2[1] - d1[1] * d2[0]) / (d1[0] ** 2 + d1[1] ** 2) ** 1.5


def _bez_curv_ref(P, t):
    n = P.shape[0] - 1
    d = n * np.diff(P, axis=0)
    dd = (n - 1) * np.diff(d, axis=0)
    d1 = de_casteljau(d, t)
    d2 = de_casteljau(dd, t)
    return (d1[0] * d2[1] - d1[1] * d2[0]) / (d1[0] ** 2 + d1[1] ** 2) ** 1.5


add(pair("r20g_bezier_curvature_by_nested_jacfwd", lambda: bezier_curvature(CTRL, 0.37),
         lambda: _bez_curv_ref(CTRL, 0.37), tol=1e-10))


def bspline_basis(i, k, t, knots):
    # Cox-de Boor recursion on int degree k (unrolled on ints)
    if k == 0:
        return 1.0 if knots[i] <= t < knots[i + 1] else 0.0
    left = 0.0
    right = 0.0
    d1 = knots[i + k] - knots[i]
    d2 = knots[i + k + 1] - knots[i + 1]
    if d1 > 0:
        left = (t - knots[i]) / d1 * bspline_basis(i, k - 1, t, knots)
    if d2 > 0:
        right = (knots[i + k + 1] - t) / d2 * bspline_basis(i + 1, k - 1, t, knots)
    return left + right


KNOTS = (0.0, 0.0, 0.0, 0.0, 0.3, 0.55, 1.0, 1.0, 1.0, 1.0)
CP1 = np.array([0.0, 0.8, 1.5, 0.4, -0.3, 0.2])


def bspline_eval(c, t, knots=KNOTS, k=3):
    return sum(c[i] * bspline_basis(i, k, t, knots) for i in range(len(c)))


def bspline_smoothness(c):
    # data fit plus a second-difference roughness penalty
    fit = sum((bspline_eval(c, t) - math.sin(4.0 * t)) ** 2 for t in (0.1, 0.25, 0.4, 0.6, 0.8, 0.95))
    return fit + 0.01 * np.sum(np.diff(c, 2) ** 2)


add(G("r20g_bspline_cox_de_boor_fit", bspline_smoothness, (CP1,), ref="ag", tol=1e-10))
add(G("r20g_bspline_eval_wrt_t", bspline_eval, (CP1, 0.42), argnums=1, ref="fd", tol=1e-7))
add(H("r20g_bspline_fit_hessian", bspline_smoothness, (CP1,), ref="fd", tol=1e-5))


def arc_length(P, n=40):
    ts = np.linspace(0.0, 1.0, n + 1)
    pts = np.array([de_casteljau(P, t) for t in ts])
    seg = np.diff(pts, axis=0)
    return np.sum(np.sqrt(np.sum(seg ** 2, axis=1)))


add(G("r20g_bezier_polyline_arc_length", arc_length, (CTRL,), ref="ag", tol=1e-10))


def catmull_rom_loss(pts, alpha=0.5):
    # centripetal Catmull-Rom: knot spacing |p_i - p_{i-1}|^alpha, summed segment chords
    total = 0.0
    t = [0.0]
    for a, b in zip(pts[:-1], pts[1:]):
        t.append(t[-1] + np.linalg.norm(b - a) ** alpha)
    for j in range(1, len(pts) - 2):
        p0, p1, p2, p3 = pts[j - 1], pts[j], pts[j + 1], pts[j + 2]
        t0, t1, t2, t3 = t[j - 1], t[j], t[j + 1], t[j + 2]
        u = 0.5 * (t1 + t2)
        A1 = (t1 - u) / (t1 - t0) * p0 + (u - t0) / (t1 - t0) * p1
        A2 = (t2 - u) / (t2 - t1) * p1 + (u - t1) / (t2 - t1) * p2
        A3 = (t3 - u) / (t3 - t2) * p2 + (u - t2) / (t3 - t2) * p3
        B1 = (t2 - u) / (t2 - t0) * A1 + (u - t0) / (t2 - t0) * A2
        B2 = (t3 - u) / (t3 - t1) * A2 + (u - t1) / (t3 - t1) * A3
        C = (t2 - u) / (t2 - t1) * B1 + (u - t1) / (t2 - t1) * B2
        total = total + np.sum(C ** 2)
    return total


add(G("r20g_catmull_rom_centripetal_midpoints", catmull_rom_loss, (CTRL,), ref="ag", tol=1e-10))


# -- rotations, transforms, projections ---------------------------------------------------

def rodrigues(w):
    th = np.linalg.norm(w)
    if th < 1e-12:
        return np.eye(3)
    k = w / th
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * (K @ K)


def icp_residual(w, src, dst):
    R = rodrigues(w)
    moved = src @ R.T
    return np.sum((moved - dst) ** 2)


SRC = V0[1:]
W_TRUE = np.array([0.1, -0.2, 0.3])
DST = SRC @ rodrigues(W_TRUE).T + 0.01
add(VG("r20g_icp_rodrigues_vg", icp_residual, (np.array([0.05, 0.0, 0.1]), SRC, DST), ref="ag", tol=1e-10))
add(H("r20g_icp_rodrigues_hessian", icp_residual, (np.array([0.05, 0.0, 0.1]), SRC, DST), ref="ag", tol=1e-8))
# at w = 0 the guard returns the constant eye(3): the derivative of the path taken is 0 (autograd agrees)
add(G("r20g_icp_rodrigues_at_zero_guard", icp_residual, (np.zeros(3), SRC, DST), ref="ag", tol=1e-12))


def project_points(cam, X):
    # pinhole with radial distortion; cam = {"f": f, "c": (cx, cy), "k": k1}
    x = X[:, 0] / X[:, 2]
    y = X[:, 1] / X[:, 2]
    r2 = x * x + y * y
    s = 1.0 + cam["k"] * r2
    return np.stack([cam["f"] * s * x + cam["c"][0], cam["f"] * s * y + cam["c"][1]], axis=1)


def reprojection(cam, X, obs):
    return np.sum((project_points(cam, X) - obs) ** 2)


XPTS = V0 + np.array([0.0, 0.0, 5.0])
CAM = {"f": 500.0, "c": (320.0, 240.0), "k": -0.05}
OBS = project_points({"f": 505.0, "c": (318.0, 241.0), "k": -0.04}, XPTS)


def _cam_ref():
    gf = fd_checked(lambda f: reprojection({"f": f, "c": CAM["c"], "k": CAM["k"]}, XPTS, OBS), (500.0,), h=1e-4)[0]
    gk = fd_checked(lambda k: reprojection({"f": CAM["f"], "c": CAM["c"], "k": k}, XPTS, OBS), (-0.05,), h=1e-6)[0]
    gcx = fd_checked(lambda c: reprojection({"f": CAM["f"], "c": (c, 240.0), "k": CAM["k"]}, XPTS, OBS), (320.0,), h=1e-4)[0]
    gcy = fd_checked(lambda c: reprojection({"f": CAM["f"], "c": (320.0, c), "k": CAM["k"]}, XPTS, OBS), (240.0,), h=1e-4)[0]
    return {"c": (gcx, gcy), "f": gf, "k": gk}


add(pair("r20g_camera_dict_of_tuple_grad", lambda: revsrc.grad(reprojection)(CAM, XPTS, OBS), _cam_ref, tol=1e-6))
add(G("r20g_camera_wrt_points", reprojection, (CAM, XPTS, OBS), argnums=1, ref="fd", tol=1e-6))


def barycentric_interp(uv, tri, vals):
    a, b, c = tri
    v0, v1, v2 = b - a, c - a, uv - a
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    den = d00 * d11 - d01 * d01
    l1 = (d11 * d20 - d01 * d21) / den
    l2 = (d00 * d21 - d01 * d20) / den
    return (1.0 - l1 - l2) * vals[0] + l1 * vals[1] + l2 * vals[2]


TRI = (np.array([0.0, 0.0]), np.array([1.0, 0.1]), np.array([0.2, 1.0]))
add(G("r20g_barycentric_wrt_tuple_triangle", barycentric_interp, (np.array([0.3, 0.3]), TRI, np.array([1.0, 2.0, -1.0])),
      argnums=1, ref="ag", tol=1e-10))
add(pair("r20g_barycentric_jacrev_of_lambda_wrt_uv",
         lambda: revsrc.jacrev(lambda u: barycentric_interp(u, TRI, np.array([1.0, 2.0, -1.0])))(np.array([0.3, 0.3])),
         lambda: fdj(lambda u: barycentric_interp(u, TRI, np.array([1.0, 2.0, -1.0])), np.array([0.3, 0.3])), tol=1e-8))


def winding_angle(P, q):
    # sum of signed angles a closed polygon subtends at q (atan2 of cross and dot)
    tot = 0.0
    n = len(P)
    for i in range(n):
        a = P[i] - q
        b = P[(i + 1) % n] - q
        tot += math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1])
    return tot


POLY = np.array([[1.0, 0.0], [0.0, 1.2], [-1.1, 0.1], [0.1, -0.9]])
add(G("r20g_winding_angle_constant_inside", winding_angle, (POLY, np.array([0.1, 0.05])), argnums=1, ref="fd", tol=1e-8))
add(G("r20g_winding_angle_wrt_polygon", lambda P: winding_angle(P, np.array([2.0, 0.5])), (POLY,), ref="ag", tol=1e-10))


def polygon_area_shoelace(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


add(pair("r20g_shoelace_area_jit_grad_compose", lambda: revsrc.jit(revsrc.grad(polygon_area_shoelace))(POLY),
         lambda: ag()[0].grad(agify(polygon_area_shoelace))(POLY), tol=1e-12))
add(G("r20g_shoelace_backend_jax", polygon_area_shoelace, (POLY,), ref="ag", tol=1e-12, backend="jax"))
add(G("r20g_umbrella_energy_backend_jax", uniform_laplacian_energy, (V0,), ref="fd", tol=1e-8, backend="jax"))
