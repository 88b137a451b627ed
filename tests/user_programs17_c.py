"""Round 17, part c: computer vision -- pinhole projection with Rodrigues rotations,
homographies, bundle-adjustment residuals over pytrees with robust losses, image filters
written with slicing, bilinear warps, lens distortion by fixed-point iteration, volume
rendering along rays, soft-argmax keypoints."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs7_harness import fd_hess_checked  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

K_CAM = np.array([[500.0, 0.0, 320.0], [0.0, 510.0, 240.0], [0.0, 0.0, 1.0]])
RNG = np.random.default_rng(17)
PTS = RNG.normal(size=(8, 3)) + np.array([0.0, 0.0, 6.0])


def skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def rodrigues(r):
    theta = math.sqrt(r[0] ** 2 + r[1] ** 2 + r[2] ** 2)
    if theta < 1e-8:
        return np.eye(3) + skew(r)
    k = r / theta
    Kx = skew(k)
    return np.eye(3) + math.sin(theta) * Kx + (1.0 - math.cos(theta)) * (Kx @ Kx)


def project(pose, X):
    R = rodrigues(pose[:3])
    Xc = X @ R.T + pose[3:]
    uvw = Xc @ K_CAM.T
    return uvw[:, :2] / uvw[:, 2:3]


POSE = np.array([0.05, -0.1, 0.02, 0.1, -0.2, 0.3])
OBS = project(POSE + 0.01, PTS) + 0.3 * RNG.normal(size=(8, 2))


def reproj_loss(pose, X, obs):
    r = project(pose, X) - obs
    return 0.5 * np.sum(r * r)


add(VG("r17_reprojection_rodrigues_vg", reproj_loss, (POSE, PTS, OBS), ref="fd", tol=1e-7))
add(G("r17_reprojection_wrt_points", reproj_loss, (POSE, PTS, OBS), argnums=1, ref="ag", tol=1e-9))
add(pair("r17_projection_jacfwd_pose", lambda: revsrc.jacfwd(project)(POSE, PTS),
         lambda: fdj(lambda p: project(p, PTS), POSE), tol=1e-6))
add(pair("r17_projection_jacrev_pose", lambda: revsrc.jacrev(project)(POSE, PTS),
         lambda: fdj(lambda p: project(p, PTS), POSE), tol=1e-6))
add(G("r17_rodrigues_small_angle_branch", reproj_loss, (np.array([0.0, 0.0, 0.0, 0.1, -0.2, 0.3]), PTS, OBS),
      ref="ag", tol=1e-9))


def gauss_newton_step(pose, X, obs, lam=1e-3):
    # one Levenberg-Marquardt step with the Jacobian from revsrc.jacfwd, then the new cost
    r = (project(pose, X) - obs).reshape(-1)
    J = revsrc.jacfwd(project)(pose, X).reshape(-1, 6)
    A = J.T @ J + lam * np.eye(6)
    step = np.linalg.solve(A, J.T @ r)
    return reproj_loss(pose - step, X, obs)


def gauss_newton_step_ref(pose, X, obs, lam=1e-3):
    r = (project(pose, X) - obs).reshape(-1)
    J = fdj(lambda p: project(p, X), pose, h=1e-7).reshape(-1, 6)
    A = J.T @ J + lam * np.eye(6)
    step = np.linalg.solve(A, J.T @ r)
    return reproj_loss(pose - step, X, obs)


add(pair("r17_lm_step_value_jacfwd_inside", lambda: gauss_newton_step(POSE, PTS, OBS),
         lambda: gauss_newton_step_ref(POSE, PTS, OBS), tol=1e-6))
add(pair("r17_lm_step_grad_through_jacfwd_wrt_obs", lambda: revsrc.grad(gauss_newton_step, argnums=2)(POSE, PTS, OBS),
         lambda: ag()[0].grad(lambda o: agify(gauss_newton_ag)(POSE, PTS, o))(OBS), tol=1e-6))


def gauss_newton_ag(pose, X, obs, lam=1e-3):
    import autograd
    r = (project(pose, X) - obs).reshape(-1)
    J = autograd.jacobian(project)(pose, X).reshape(-1, 6)
    A = J.T @ J + lam * np.eye(6)
    step = np.linalg.solve(A, J.T @ r)
    return reproj_loss(pose - step, X, obs)


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))


def bundle_cost(cams, points, obs_list):
    # cams: list of dicts {"r": 3, "t": 3, "f": float}; obs_list: (cam, point, uv)
    total = 0.0
    for ci, pi, uv in obs_list:
        cam = cams[ci]
        Xc = rodrigues(cam["r"]) @ points[pi] + cam["t"]
        u = cam["f"] * Xc[:2] / Xc[2]
        total = total + np.sum(huber(u - uv, 0.05))
    return total


CAMS = [{"r": np.array([0.01, 0.02, -0.01]), "t": np.array([0.0, 0.0, 5.0]), "f": 1.0},
        {"r": np.array([-0.05, 0.1, 0.02]), "t": np.array([0.5, 0.0, 5.2]), "f": 1.05}]
BPTS = RNG.normal(size=(4, 3))
BOBS = [(c, p, 0.2 * RNG.normal(size=2)) for c in range(2) for p in range(4)]
add(VG("r17_bundle_adjustment_pytree_cams_vg", bundle_cost, (CAMS, BPTS, BOBS), ref="ag", tol=1e-9))
add(G("r17_bundle_adjustment_wrt_points", bundle_cost, (CAMS, BPTS, BOBS), argnums=1, ref="ag", tol=1e-9))


def homography_transfer(hvec, src, dst):
    Hm = np.append(hvec, 1.0).reshape(3, 3)
    ph = np.hstack([src, np.ones((src.shape[0], 1))]) @ Hm.T
    proj = ph[:, :2] / ph[:, 2:]
    e = proj - dst
    return np.mean(np.sum(e * e, axis=1))


SRC = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.3]])
H8 = np.array([1.1, 0.05, 0.2, -0.03, 0.95, 0.1, 0.01, -0.02])
DST = SRC * 1.05 + 0.1
add(VG("r17_homography_transfer_append_vg", homography_transfer, (H8, SRC, DST), ref="ag", tol=1e-9))
add(H("r17_homography_transfer_hessian", homography_transfer, (H8, SRC, DST), ref="ag", tol=1e-7))


def epipolar_residual(pose, x1, x2):
    R = rodrigues(pose[:3])
    t = pose[3:] / np.linalg.norm(pose[3:])
    E = skew(t) @ R
    r = np.einsum("ni,ij,nj->n", x2, E, x1)
    return np.sum(r ** 2)


X1 = np.hstack([RNG.normal(size=(6, 2)) * 0.3, np.ones((6, 1))])
X2 = X1 + np.hstack([0.02 * RNG.normal(size=(6, 2)), np.zeros((6, 1))])
add(G("r17_epipolar_einsum_three_operands", epipolar_residual, (np.array([0.01, 0.02, 0.0, 1.0, 0.1, 0.05]), X1, X2),
      ref="ag", tol=1e-9))


IMG = RNG.random((9, 10))


def box_blur(im):
    out = np.zeros_like(im)
    out[1:-1, 1:-1] = (im[:-2, :-2] + im[:-2, 1:-1] + im[:-2, 2:] + im[1:-1, :-2] + im[1:-1, 1:-1]
                       + im[1:-1, 2:] + im[2:, :-2] + im[2:, 1:-1] + im[2:, 2:]) / 9.0
    return out


def sobel_energy(im):
    b = box_blur(im)
    gx = b[1:-1, 2:] - b[1:-1, :-2]
    gy = b[2:, 1:-1] - b[:-2, 1:-1]
    return np.sum(np.sqrt(gx * gx + gy * gy + 1e-6))


add(VG("r17_sobel_of_box_blur_slices_vg", sobel_energy, (IMG,), ref="fd", tol=1e-7))


def total_variation_denoise(u, f, lam=0.1):
    dx = np.diff(u, axis=1)
    dy = np.diff(u, axis=0)
    tv = np.sum(np.sqrt(dx[:-1, :] ** 2 + dy[:, :-1] ** 2 + 1e-4))
    return 0.5 * np.sum((u - f) ** 2) + lam * tv


add(VG("r17_tv_denoise_diff_axes_vg", total_variation_denoise, (IMG * 0.9, IMG), ref="ag", tol=1e-9))
add(pair("r17_tv_denoise_hvp", lambda: revsrc.hvp(total_variation_denoise, (IMG * 0.9, IMG), (np.ones_like(IMG), None)),
         lambda: fdj(lambda u: revsrc_free_tv_grad(u, IMG), IMG * 0.9, h=1e-5).reshape(IMG.size, IMG.size) @ np.ones(IMG.size),
         tol=1e-5))


def revsrc_free_tv_grad(u, f):
    return ag()[0].grad(agify(total_variation_denoise))(u, f)


def separable_gauss(im, sigma):
    k = np.exp(-0.5 * (np.arange(-2.0, 3.0) / sigma) ** 2)
    k = k / np.sum(k)
    tmp = np.zeros((im.shape[0], im.shape[1] - 4))
    for c in range(tmp.shape[1]):
        tmp[:, c] = im[:, c:c + 5] @ k
    out = np.zeros((im.shape[0] - 4, tmp.shape[1]))
    for r in range(out.shape[0]):
        out[r, :] = k @ tmp[r:r + 5, :]
    return np.sum(out * out)


add(G("r17_separable_gauss_column_writes_wrt_sigma", separable_gauss, (IMG, 1.2), argnums=1, ref="fd", tol=1e-7))
add(G("r17_separable_gauss_column_writes_wrt_image", separable_gauss, (IMG, 1.2), argnums=0, ref="fd", tol=1e-7))


def bilinear_sample(im, x, y):
    x0 = int(math.floor(x))
    y0 = int(math.floor(y))
    ax, ay = x - x0, y - y0
    return ((1 - ax) * (1 - ay) * im[y0, x0] + ax * (1 - ay) * im[y0, x0 + 1]
            + (1 - ax) * ay * im[y0 + 1, x0] + ax * ay * im[y0 + 1, x0 + 1])


def warp_ssd(shift, im, template, coords):
    e = 0.0
    for (x, y), t in zip(coords, template):
        v = bilinear_sample(im, x + shift[0], y + shift[1])
        e += (v - t) ** 2
    return e


COORDS = [(2.3, 3.1), (4.7, 2.2), (5.5, 5.9), (3.2, 6.4)]
TPL = [0.5, 0.2, 0.7, 0.4]
add(VG("r17_bilinear_warp_floor_int_vg", warp_ssd, (np.array([0.31, -0.27]), IMG, TPL, COORDS), ref="fd", tol=1e-7))


def undistort(uv, k1, k2, iters_max=50):
    # invert radial distortion by fixed-point iteration until the update is tiny
    x = uv.copy()
    it = 0
    delta = 1.0
    while delta > 1e-13 and it < iters_max:
        r2 = np.sum(x * x)
        x_new = uv / (1.0 + k1 * r2 + k2 * r2 * r2)
        delta = np.max(np.abs(x_new - x))
        x = x_new
        it += 1
    return x


add(pair("r17_undistort_while_jacfwd", lambda: revsrc.jacfwd(undistort)(np.array([0.3, -0.2]), 0.1, -0.02),
         lambda: fdj(lambda u: undistort(u, 0.1, -0.02), np.array([0.3, -0.2])), tol=1e-7))
add(pair("r17_undistort_while_grad_k1", lambda: revsrc.grad(lambda k: np.sum(undistort(np.array([0.3, -0.2]), k, -0.02)))(0.1),
         lambda: fd_checked(lambda k: np.sum(undistort(np.array([0.3, -0.2]), k, -0.02)), (0.1,))[0], tol=1e-7))


def render_ray(sigma, colors, t):
    # NeRF-style compositing: transmittance by cumsum, weights, expected color and depth
    delta = np.diff(t)
    tau = sigma[:-1] * delta
    T = np.exp(-np.concatenate([np.zeros(1), np.cumsum(tau)[:-1]]))
    alpha = 1.0 - np.exp(-tau)
    w = T * alpha
    rgb = w @ colors[:-1]
    depth = np.sum(w * t[:-1])
    return np.sum((rgb - np.array([0.8, 0.3, 0.1])) ** 2) + 0.01 * depth


SIG = np.abs(RNG.normal(size=12))
COLS = RNG.random((12, 3))
TS = np.linspace(2.0, 6.0, 12)
add(VG("r17_volume_render_cumsum_vg", render_ray, (SIG, COLS, TS), ref="ag", tol=1e-9))
add(G("r17_volume_render_wrt_colors_and_t", render_ray, (SIG, COLS, TS), argnums=(1, 2), ref="ag", tol=1e-9))


def soft_argmax_loss(heat, target, beta=5.0):
    h, w = heat.shape
    e = np.exp(beta * (heat - np.max(heat)))
    p = e / np.sum(e)
    ys, xs = np.mgrid[0:h, 0:w]
    kp = np.array([np.sum(p * xs), np.sum(p * ys)])
    return np.sum((kp - target) ** 2)


add(VG("r17_soft_argmax_keypoint_vg", soft_argmax_loss, (IMG, np.array([4.0, 3.0])), ref="fd", tol=1e-7))


def pyramid_loss(im):
    # 2x2 average pooling by reshape, a Laplacian residual, written back into a copy
    h, w = (im.shape[0] // 2) * 2, (im.shape[1] // 2) * 2
    small = im[:h, :w].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    up = np.repeat(np.repeat(small, 2, axis=0), 2, axis=1)
    lap = im.copy()
    lap[:h, :w] -= up
    return np.sum(lap ** 2)


add(VG("r17_pyramid_reshape_pool_inplace_vg", pyramid_loss, (IMG,), ref="fd", tol=1e-7))
add(pair("r17_vmap_reproj_per_point_grad",
         lambda: revsrc.vmap(revsrc.grad(lambda p, X, o: reproj_loss(p, X[None, :], o[None, :])), in_axes=(None, 0, 0))(POSE, PTS, OBS),
         lambda: np.array([fd_checked(lambda p: reproj_loss(p, PTS[i:i + 1], OBS[i:i + 1]), (POSE,))[0] for i in range(8)]),
         tol=1e-6))


def flip_augment_loss(im, w):
    # data augmentation written with views: a mirrored copy, a column scaled in place,
    # rows written through a transposed view
    aug = im.copy()
    aug[:, ::-1] += 0.5 * im
    aug[:, 1] *= w[0]
    aug.T[2, :] = w[1] * im[:, 2]
    return np.sum(aug ** 2) / aug.size


add(VG("r17_augment_negative_stride_transposed_view_vg", flip_augment_loss, (IMG, np.array([1.3, 0.7])), argnums=(0, 1),
       ref="fd", tol=1e-7))


def nms_soft_score(boxes_xy, scores):
    # soft-NMS over boxes: decay scores by overlap with higher-scoring boxes (sorted order)
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    s = list(scores)
    for a_i, i in enumerate(order):
        for j in order[a_i + 1:]:
            d2 = np.sum((boxes_xy[i] - boxes_xy[j]) ** 2)
            s[j] = s[j] * (1.0 - math.exp(-d2 / 0.5))
    return sum(v for v in s if v > 0.05)


BXY = np.array([[0.0, 0.0], [0.3, 0.1], [2.0, 2.0], [2.1, 1.8], [5.0, 0.0]])
SC = np.array([0.9, 0.8, 0.7, 0.95, 0.3])
add(VG("r17_soft_nms_sorted_key_generator_filter_vg", nms_soft_score, (BXY, SC), argnums=(0, 1), ref="fd", tol=1e-7))


def nms_soft_score2(boxes_xy, scores):
    # the same with the order from np.argsort (no lambda)
    order = [int(i) for i in np.argsort(-scores)]
    s = list(scores)
    for a_i, i in enumerate(order):
        for j in order[a_i + 1:]:
            d2 = np.sum((boxes_xy[i] - boxes_xy[j]) ** 2)
            s[j] = s[j] * (1.0 - math.exp(-d2 / 0.5))
    return sum(v for v in s if v > 0.05)


add(VG("r17_soft_nms_argsort_generator_filter_vg", nms_soft_score2, (BXY, SC), argnums=(0, 1), ref="fd", tol=1e-7))


def triangulate_dlt(P1, P2, x1, x2):
    A = np.stack([x1[0] * P1[2] - P1[0], x1[1] * P1[2] - P1[1],
                  x2[0] * P2[2] - P2[0], x2[1] * P2[2] - P2[1]])
    _, _, Vt = np.linalg.svd(A)
    X = Vt[-1]
    return X[:3] / X[3]


P1C = np.hstack([np.eye(3), np.zeros((3, 1))])
P2C = np.hstack([np.eye(3), np.array([[-1.0], [0.0], [0.0]])])
XW = np.array([0.3, -0.2, 4.0, 1.0])
x1c = (P1C @ XW)[:2] / (P1C @ XW)[2] + np.array([0.001, -0.002])
x2c = (P2C @ XW)[:2] / (P2C @ XW)[2] + np.array([-0.001, 0.0015])
add(pair("r17_triangulate_dlt_svd_jacfwd", lambda: revsrc.jacfwd(triangulate_dlt, argnums=2)(P1C, P2C, x1c, x2c),
         lambda: fdj(lambda u: triangulate_dlt(P1C, P2C, u, x2c), x1c), tol=1e-6))

# ---- the same programs under backend="jax"
add(pair("r17_augment_views_backend_jax", lambda: revsrc.grad(flip_augment_loss, argnums=1, backend="jax")(IMG, np.array([1.3, 0.7])),
         lambda: fd_checked(flip_augment_loss, (IMG, np.array([1.3, 0.7])), argnums=1)[0], tol=1e-7))
# lap = im.copy(); lap[:h, :w] -= up with h, w from im.shape
add(pair("r17_pyramid_copy_write_backend_jax", lambda: revsrc.grad(pyramid_loss, backend="jax")(IMG),
         lambda: fd_checked(pyramid_loss, (IMG,))[0], tol=1e-7))
add(pair("r17_separable_gauss_backend_jax", lambda: revsrc.grad(separable_gauss, argnums=1, backend="jax")(IMG, 1.2),
         lambda: fd_checked(separable_gauss, (IMG, 1.2), argnums=1)[0], tol=1e-7))
add(pair("r17_undistort_while_backend_jax", lambda: revsrc.grad(lambda k: np.sum(undistort(np.array([0.3, -0.2]), k, -0.02)), backend="jax")(0.1),
         lambda: fd_checked(lambda k: np.sum(undistort(np.array([0.3, -0.2]), k, -0.02)), (0.1,))[0], tol=1e-7))
add(pair("r17_bilinear_int_floor_backend_jax", lambda: revsrc.grad(warp_ssd, backend="jax")(np.array([0.31, -0.27]), IMG, TPL, COORDS),
         lambda: fd_checked(warp_ssd, (np.array([0.31, -0.27]), IMG, TPL, COORDS))[0], tol=1e-7))


def fft2_blur_loss(im, sigma):
    # Gaussian blur in the frequency domain with np.fft.fft2 / ifft2
    h, w = im.shape
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.fftfreq(w)[None, :]
    Hk = np.exp(-2.0 * (math.pi * sigma) ** 2 * (fx ** 2 + fy ** 2))
    out = np.real(np.fft.ifft2(np.fft.fft2(im) * Hk))
    return np.sum((out - 0.5) ** 2)


add(G("r17_fft2_gaussian_blur_wrt_sigma", fft2_blur_loss, (IMG, 1.1), argnums=1, ref="fd", tol=1e-7))


def fft_rows_blur_loss(im, sigma):
    # the same blur done with 1-D FFTs along each axis
    h, w = im.shape
    kx = np.exp(-2.0 * (math.pi * sigma) ** 2 * np.fft.fftfreq(w) ** 2)
    ky = np.exp(-2.0 * (math.pi * sigma) ** 2 * np.fft.fftfreq(h) ** 2)
    a = np.fft.ifft(np.fft.fft(im, axis=1) * kx[None, :], axis=1)
    b = np.fft.ifft(np.fft.fft(a, axis=0) * ky[:, None], axis=0)
    return np.sum((np.real(b) - 0.5) ** 2)


add(G("r17_fft_axis_blur_wrt_sigma", fft_rows_blur_loss, (IMG, 1.1), argnums=1, ref="fd", tol=1e-7))
add(G("r17_fft_axis_blur_wrt_image", fft_rows_blur_loss, (IMG, 1.1), argnums=0, ref="fd", tol=1e-7))


def qr_pose_orthonormalize(M, target):
    # re-orthonormalize a noisy rotation by QR with a sign fix, compare to a target rotation
    Q, R = np.linalg.qr(M)
    Q = Q * np.sign(np.diag(R))[None, :]
    return np.sum((Q - target) ** 2)


add(G("r17_qr_orthonormalize_rotation", qr_pose_orthonormalize, (rodrigues(np.array([0.1, 0.2, 0.3])) + 0.05, np.eye(3)),
      ref="fd", tol=1e-7))


def trimmed_photometric_loss(gain, im, ref_im):
    # robust photometric alignment: residuals sorted in place, the largest 20% dropped
    r = ((gain * im - ref_im) ** 2).reshape(-1)
    r.sort()
    keep = int(0.8 * r.shape[0])
    return np.mean(r[:keep])


def trimmed_photometric_loss_np(gain, im, ref_im):
    r = np.sort(((gain * im - ref_im) ** 2).reshape(-1))
    keep = int(0.8 * r.shape[0])
    return np.mean(r[:keep])


REFIM = IMG * 1.2 + 0.05 * np.cos(np.arange(90.0)).reshape(9, 10)
add(G("r17_trimmed_loss_np_sort", trimmed_photometric_loss_np, (1.15, IMG, REFIM), ref="fd", tol=1e-7))
add(G("r17_trimmed_loss_in_place_sort", trimmed_photometric_loss, (1.15, IMG, REFIM), ref="fd", tol=1e-7))
# rodrigues() returns early (a 3x3 array) on a traced small-angle test
add(pair("r17_reprojection_rodrigues_backend_jax", lambda: revsrc.grad(reproj_loss, backend="jax")(POSE, PTS, OBS),
         lambda: fd_checked(reproj_loss, (POSE, PTS, OBS))[0], tol=1e-7))
add(pair("r17_reprojection_rodrigues_hessian_backend_jax", lambda: revsrc.hessian(reproj_loss, backend="jax")(POSE, PTS, OBS),
         lambda: fd_hess_checked(reproj_loss, (POSE, PTS, OBS))[0], tol=1e-4))


def rodrigues_nobranch(r):
    theta = math.sqrt(r[0] ** 2 + r[1] ** 2 + r[2] ** 2)
    Kx = skew(r / theta)
    return np.eye(3) + math.sin(theta) * Kx + (1.0 - math.cos(theta)) * (Kx @ Kx)


def reproj_loss_nobranch(pose, X, obs):
    Xc = X @ rodrigues_nobranch(pose[:3]).T + pose[3:]
    uvw = Xc @ K_CAM.T
    r = uvw[:, :2] / uvw[:, 2:3] - obs
    return 0.5 * np.sum(r * r)


add(pair("r17_reprojection_nobranch_backend_jax", lambda: revsrc.grad(reproj_loss_nobranch, backend="jax")(POSE, PTS, OBS),
         lambda: fd_checked(reproj_loss, (POSE, PTS, OBS))[0], tol=1e-7))
add(pair("r17_epipolar_rodrigues_backend_jax",
         lambda: revsrc.grad(epipolar_residual, backend="jax")(np.array([0.01, 0.02, 0.0, 1.0, 0.1, 0.05]), X1, X2),
         lambda: fd_checked(epipolar_residual, (np.array([0.01, 0.02, 0.0, 1.0, 0.1, 0.05]), X1, X2))[0], tol=1e-6))
