"""Round 19, part e: computer vision -- image warps by bilinear sampling (affine and
homography), photometric alignment losses, Horn-Schunck optical-flow energies with
finite-difference gradients, SSIM-like losses with box filters by cumsum, image pyramids
by slicing, total-variation denoising, camera projection and bundle-adjustment residuals."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

N = 12
yy, xx = np.mgrid[0:N, 0:N].astype(float)
IMG = np.sin(0.5 * xx) * np.cos(0.4 * yy) + 0.3 * np.exp(-((xx - 6) ** 2 + (yy - 5) ** 2) / 8.0)


def bilinear(img, x, y):
    # sample img at float coordinates (arrays), clamped to the border
    h, w = img.shape
    x = np.clip(x, 0.0, w - 1.001)
    y = np.clip(y, 0.0, h - 1.001)
    x0 = np.floor(x).astype(int)
    y0 = np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    Ia = img[y0, x0]
    Ib = img[y0, x0 + 1]
    Ic = img[y0 + 1, x0]
    Id = img[y0 + 1, x0 + 1]
    return (1 - fy) * ((1 - fx) * Ia + fx * Ib) + fy * ((1 - fx) * Ic + fx * Id)


# ---------------------------------------------------------------- affine alignment
TARGET = bilinear(IMG, 0.97 * xx + 0.05 * yy + 0.4, -0.03 * xx + 1.02 * yy - 0.3)
INNER = (slice(2, N - 2), slice(2, N - 2))


def affine_ssd(a):
    u = a[0] * xx + a[1] * yy + a[2]
    v = a[3] * xx + a[4] * yy + a[5]
    warped = bilinear(IMG, u, v)
    d = (warped - TARGET)[INNER]
    return np.sum(d ** 2)


A0 = np.array([1.0, 0.0, 0.1, 0.0, 1.0, 0.05])
add(VG("r19e_affine_bilinear_ssd_vg", affine_ssd, (A0,), ref="jax", tol=1e-9))
add(JV("r19e_affine_bilinear_ssd_jvp", affine_ssd, (A0,), (np.array([0.01, 0, 0.2, 0, -0.01, 0.1]),), ref="jax", tol=1e-9))


# ---------------------------------------------------------------- homography
def apply_homography(Hm, pts):
    ph = np.concatenate([pts, np.ones((pts.shape[0], 1))], axis=1) @ Hm.T
    return ph[:, :2] / ph[:, 2:3]


SRC = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 8.0], [0.0, 8.0], [5.0, 4.0], [2.0, 7.0]])
H_TRUE = np.array([[1.02, 0.03, 0.5], [-0.02, 0.98, -0.3], [1e-3, -2e-3, 1.0]])
DST = apply_homography(H_TRUE, SRC) + 0.01 * np.array([[1, -1], [0, 1], [-1, 0], [1, 1], [0, 0], [-1, 1]])


def homography_reproj(h8):
    Hm = np.ones((3, 3))
    Hm.reshape(-1)[:8] = h8          # write through a reshape view
    r = apply_homography(Hm, SRC) - DST
    return np.sum(r ** 2)


def _homography_reproj_ref(h8):
    Hm = np.concatenate([h8, np.ones(1)]).reshape(3, 3)
    r = apply_homography(Hm, SRC) - DST
    return np.sum(r ** 2)


H8 = np.array([1.0, 0.0, 0.4, 0.0, 1.0, -0.2, 0.0, 0.0])
add(G("r19e_homography_reshape_view_write", homography_reproj, (H8,), ref=lambda: jax().grad(jaxify(_homography_reproj_ref))(H8), tol=1e-9))
add(H("r19e_homography_reproj_hessian_concat", _homography_reproj_ref, (H8,), ref="fd", tol=1e-5))


def dlt_normalized(h8):
    # homography normalised by its Frobenius norm; residual of the algebraic DLT form
    Hm = np.append(h8, 1.0).reshape(3, 3)
    Hm = Hm / np.linalg.norm(Hm)
    res = 0.0
    for (x, y), (u, v) in zip(SRC, DST):
        p = Hm @ np.array([x, y, 1.0])
        res += (u * p[2] - p[0]) ** 2 + (v * p[2] - p[1]) ** 2
    return res


add(G("r19e_dlt_algebraic_append_norm", dlt_normalized, (H8,), ref="jax", tol=1e-9))


# ---------------------------------------------------------------- Horn-Schunck optical flow
I1 = IMG
I2 = bilinear(IMG, xx - 0.3, yy - 0.2)


def grads(img):
    Ix = np.zeros_like(img)
    Iy = np.zeros_like(img)
    Ix[:, 1:-1] = 0.5 * (img[:, 2:] - img[:, :-2])
    Iy[1:-1, :] = 0.5 * (img[2:, :] - img[:-2, :])
    return Ix, Iy


def horn_schunck_energy(flow, alpha=0.5):
    u, v = flow[0], flow[1]
    Ix, Iy = grads(0.5 * (I1 + I2))
    It = I2 - I1
    data = (Ix * u + Iy * v + It) ** 2
    smooth = np.sum(np.diff(u, axis=0) ** 2) + np.sum(np.diff(u, axis=1) ** 2) + \
        np.sum(np.diff(v, axis=0) ** 2) + np.sum(np.diff(v, axis=1) ** 2)
    return np.sum(data) + alpha ** 2 * smooth


FLOW0 = 0.1 * np.stack([np.cos(0.3 * xx), np.sin(0.2 * yy)])
add(G("r19e_horn_schunck_energy", horn_schunck_energy, (FLOW0,), ref="fd", tol=1e-7))
add(G("r19e_horn_schunck_wrt_alpha", horn_schunck_energy, (FLOW0, 0.5), argnums=1, ref="fd", tol=1e-7))


def warp_flow_energy(flow, eps=1e-3):
    # nonlinear data term by warping I2 with the flow, Charbonnier penalties
    u, v = flow[0], flow[1]
    w = bilinear(I2, xx + u, yy + v)
    rho = np.sqrt((w - I1) ** 2 + eps ** 2)
    tv = np.sqrt(np.diff(u, axis=1)[:-1, :] ** 2 + np.diff(u, axis=0)[:, :-1] ** 2 + eps ** 2)
    return np.sum(rho[INNER]) + 0.2 * np.sum(tv)


add(G("r19e_warped_flow_charbonnier", warp_flow_energy, (FLOW0,), ref="jax", tol=1e-9))


# ---------------------------------------------------------------- SSIM with box filters by cumsum
def box_filter(img, r=1):
    # integral image by cumsum, then 4 corner reads, valid region only
    S = np.cumsum(np.cumsum(np.pad(img, ((1, 0), (1, 0))), axis=0), axis=1)
    k = 2 * r + 1
    return (S[k:, k:] - S[:-k, k:] - S[k:, :-k] + S[:-k, :-k]) / (k * k)


def ssim_loss(x, y=IMG, C1=1e-4, C2=9e-4):
    mx, my = box_filter(x), box_filter(y)
    sxx = box_filter(x * x) - mx ** 2
    syy = box_filter(y * y) - my ** 2
    sxy = box_filter(x * y) - mx * my
    s = ((2 * mx * my + C1) * (2 * sxy + C2)) / ((mx ** 2 + my ** 2 + C1) * (sxx + syy + C2))
    return 1.0 - np.mean(s)


XN = IMG + 0.1 * np.cos(1.3 * xx + 0.7 * yy)
add(VG("r19e_ssim_integral_image_vg", ssim_loss, (XN,), ref="jax", tol=1e-9))
add(pair("r19e_ssim_at_identity_grad_zero", lambda: revsrc.grad(ssim_loss)(IMG.copy()), lambda: np.zeros_like(IMG), tol=1e-12))


# ---------------------------------------------------------------- image pyramid by slicing
def downsample(img):
    return 0.25 * (img[0::2, 0::2] + img[1::2, 0::2] + img[0::2, 1::2] + img[1::2, 1::2])


def pyramid_loss(x, levels=3, weights=(1.0, 0.5, 0.25)):
    a, b = x, IMG
    total = 0.0
    for lvl in range(levels):
        total += weights[lvl] * np.mean((a - b) ** 2)
        if a.shape[0] < 4:
            break
        a, b = downsample(a), downsample(b)
    return total


add(G("r19e_pyramid_stride_slices_break", pyramid_loss, (XN,), ref="ag", tol=1e-12))
add(G("r19e_pyramid_float32_input", pyramid_loss, (XN.astype(np.float32),),
      ref=lambda: ag()[0].grad(agify(pyramid_loss))(XN), tol=1e-5))


# ---------------------------------------------------------------- TV denoising with in-place gradient images
def tv_denoise_energy(u, f=XN, lam=0.2, eps=1e-2):
    gx = np.zeros_like(u)
    gy = np.zeros_like(u)
    gx[:, :-1] = u[:, 1:] - u[:, :-1]
    gy[:-1, :] = u[1:, :] - u[:-1, :]
    return 0.5 * np.sum((u - f) ** 2) + lam * np.sum(np.sqrt(gx ** 2 + gy ** 2 + eps ** 2))


add(VG("r19e_tv_denoise_in_place_gradients_vg", tv_denoise_energy, (IMG,), ref="fd", tol=1e-7))
add(pair("r19e_tv_denoise_hvp", lambda: revsrc.hvp(tv_denoise_energy, (IMG,), (XN,)),
         lambda: jax().jvp(jax().grad(lambda u: _tv_jax(u)), (IMG,), (XN,))[1], tol=1e-8))


def _tv_jax(u, lam=0.2, eps=1e-2):
    jnp = jax().numpy
    gx = jnp.zeros_like(u).at[:, :-1].set(u[:, 1:] - u[:, :-1])
    gy = jnp.zeros_like(u).at[:-1, :].set(u[1:, :] - u[:-1, :])
    return 0.5 * jnp.sum((u - XN) ** 2) + lam * jnp.sum(jnp.sqrt(gx ** 2 + gy ** 2 + eps ** 2))


def tv_gradient_descent(f_img, steps=5, tau=0.1):
    # unrolled denoiser: the loss of its output w.r.t. the noisy input
    u = f_img.copy()
    for _ in range(steps):
        g = revsrc.grad(tv_denoise_energy)(u, f_img)
        u -= tau * g
    return np.sum((u - IMG) ** 2)


def _unrolled_jax(f_img, steps=5, tau=0.1):
    j = jax()
    u = f_img
    for _ in range(steps):
        u = u - tau * j.grad(_tv_jax_f)(u, f_img)
    return j.numpy.sum((u - IMG) ** 2)


def _tv_jax_f(u, f, lam=0.2, eps=1e-2):
    jnp = jax().numpy
    gx = jnp.zeros_like(u).at[:, :-1].set(u[:, 1:] - u[:, :-1])
    gy = jnp.zeros_like(u).at[:-1, :].set(u[1:, :] - u[:-1, :])
    return 0.5 * jnp.sum((u - f) ** 2) + lam * jnp.sum(jnp.sqrt(gx ** 2 + gy ** 2 + eps ** 2))


add(G("r19e_unrolled_denoiser_grad_inside", tv_gradient_descent, (XN,), ref=lambda: jax().grad(_unrolled_jax)(XN), tol=1e-9))
add(pair("r19e_unrolled_denoiser_directional_fd", lambda: np.array([np.sum(revsrc.grad(tv_gradient_descent)(XN) * d) for d in _dirs()]),
         lambda: fd_dirs(tv_gradient_descent, (XN,)), tol=1e-5))


def _dirs():
    from user_programs7_harness import directions
    return directions(XN)


# ---------------------------------------------------------------- camera projection / bundle adjustment
def rodrigues(w):
    th = np.sqrt(np.sum(w ** 2) + 1e-30)
    k = w / th
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * (K @ K)


class PinholeCamera:
    def __init__(self, f, c):
        self.f = f
        self.c = c

    def project(self, R, t, X):
        Xc = X @ R.T + t
        return self.f * Xc[:, :2] / Xc[:, 2:3] + self.c


class DistortedCamera(PinholeCamera):
    def __init__(self, f, c, k1):
        super().__init__(f, c)
        self.k1 = k1

    def project(self, R, t, X):
        Xc = X @ R.T + t
        xn = Xc[:, :2] / Xc[:, 2:3]
        r2 = np.sum(xn ** 2, axis=1, keepdims=True)
        return self.f * xn * (1 + self.k1 * r2) + self.c


PTS3 = np.array([[0.1, 0.2, 4.0], [-0.5, 0.3, 5.0], [0.4, -0.6, 6.0], [0.0, 0.0, 3.5], [1.0, 0.5, 7.0]])
OBS2 = np.array([[105.0, 112.0], [52.0, 106.0], [133.0, 38.0], [100.0, 100.0], [170.0, 133.0]])


def ba_residual(pose, k1=-0.1):
    cam = DistortedCamera(500.0, np.array([100.0, 100.0]), k1)
    R = rodrigues(pose[:3])
    uv = cam.project(R, pose[3:], PTS3)
    r = uv - OBS2
    return np.sum(np.log1p(np.sum(r ** 2, axis=1) / 4.0))


POSE = np.array([0.02, -0.01, 0.03, 0.05, -0.02, 0.1])
add(VG("r19e_bundle_adjust_subclass_super_vg", ba_residual, (POSE,), ref="fd", tol=1e-6))
add(G("r19e_bundle_adjust_wrt_k1", ba_residual, (POSE, -0.1), argnums=1, ref="fd", tol=1e-6))
add(pair("r19e_bundle_adjust_rotation_zero_rodrigues",
         lambda: revsrc.grad(ba_residual)(np.array([0.0, 0.0, 0.0, 0.05, -0.02, 0.1])),
         lambda: fd_checked(ba_residual, (np.array([0.0, 0.0, 0.0, 0.05, -0.02, 0.1]),))[0], tol=1e-5))


# ---------------------------------------------------------------- census-like soft rank and np.sort
def sorted_patch_loss(x):
    # robust loss on the sorted absolute errors (a trimmed mean of the 75% smallest)
    e = np.sort(np.abs(x - IMG).ravel())
    k = int(0.75 * e.size)
    return np.mean(e[:k] ** 2)


add(G("r19e_trimmed_sorted_errors", sorted_patch_loss, (XN,), ref="ag", tol=1e-12))


# ---------------------------------------------------------------- vmap of a per-patch gradient
PATCHES = np.stack([IMG[i:i + 4, j:j + 4] for i, j in ((0, 0), (3, 5), (6, 2), (8, 8))])
TPL = IMG[3:7, 5:9]


def ncc_loss(scale, patch, tpl=TPL):
    a = scale * patch - np.mean(scale * patch)
    b = tpl - np.mean(tpl)
    return -np.sum(a * b) / (np.sqrt(np.sum(a * a) * np.sum(b * b)) + 1e-12) + 0.01 * scale ** 2


add(pair("r19e_vmap_grad_ncc_over_patches", lambda: revsrc.vmap(revsrc.grad(ncc_loss), in_axes=(None, 0))(1.3, PATCHES),
         lambda: np.array([fd_checked(ncc_loss, (1.3, p))[0] for p in PATCHES]), tol=1e-6))


# ---------------------------------------------------------------- more: Lucas-Kanade with a 2x2 inverse
def lucas_kanade_flow(img2, img1=IMG, win=(slice(3, 9), slice(3, 9))):
    Ix, Iy = np.gradient(img1)[1], np.gradient(img1)[0]
    It = img2 - img1
    ix, iy, it = Ix[win].ravel(), Iy[win].ravel(), It[win].ravel()
    A = np.array([[ix @ ix, ix @ iy], [ix @ iy, iy @ iy]])
    b = -np.array([ix @ it, iy @ it])
    return np.linalg.inv(A) @ b


def lk_loss(img2):
    uv = lucas_kanade_flow(img2)
    return (uv[0] - 0.3) ** 2 + (uv[1] - 0.2) ** 2


add(G("r19e_lucas_kanade_np_gradient_inv", lk_loss, (I2,), ref="fd", tol=1e-7))
add(pair("r19e_lucas_kanade_jacfwd_flow", lambda: revsrc.jacfwd(lucas_kanade_flow)(I2),
         lambda: fdj(lucas_kanade_flow, I2), tol=1e-6))


# ---------------------------------------------------------------- separable Gaussian blur by row and column writes
KER = np.array([0.25, 0.5, 0.25])


def blur(img):
    tmp = np.zeros_like(img)
    for i in range(img.shape[0]):
        tmp[i, :] = np.convolve(img[i], KER, mode="same")
    out = np.zeros_like(img)
    for j in range(img.shape[1]):
        out[:, j] = np.convolve(tmp[:, j], KER, mode="same")
    return out


def harris_response(img, k=0.05):
    Iy, Ix = np.gradient(img)
    Sxx, Syy, Sxy = blur(Ix * Ix), blur(Iy * Iy), blur(Ix * Iy)
    R = Sxx * Syy - Sxy ** 2 - k * (Sxx + Syy) ** 2
    return np.sum(R[INNER] ** 2)


add(VG("r19e_harris_blur_row_col_writes_vg", harris_response, (XN,), ref="fd", tol=1e-7))


# ---------------------------------------------------------------- soft-argmax keypoint
def soft_argmax(heat, beta=5.0):
    p = np.exp(beta * (heat - np.max(heat)))
    p = p / np.sum(p)
    return np.array([np.sum(p * xx), np.sum(p * yy)])


def keypoint_loss(heat, target=np.array([6.0, 5.0])):
    return np.sum((soft_argmax(heat) - target) ** 2)


add(G("r19e_soft_argmax_keypoint", keypoint_loss, (IMG,), ref="ag", tol=1e-12))
add(pair("r19e_soft_argmax_jacrev", lambda: revsrc.jacrev(soft_argmax)(IMG),
         lambda: ag()[0].jacobian(agify(soft_argmax))(IMG), tol=1e-12))


# ---------------------------------------------------------------- occlusion-masked photometric loss
def photometric(depth_scale, baseline=1.5):
    disp = baseline / (depth_scale * (1.0 + 0.1 * yy / N))
    xs = xx - disp
    valid = xs >= 0.0
    warped = bilinear(IMG, xs, yy)
    err = np.where(valid, np.abs(warped - I2) + 0.1 * (warped - I2) ** 2, 0.0)
    return np.sum(err) / np.maximum(np.sum(valid), 1)


add(G("r19e_photometric_where_mask", photometric, (2.0,), ref="fd", tol=1e-7))
add(pair("r19e_photometric_vmap_grad_scales", lambda: revsrc.vmap(revsrc.grad(photometric))(np.array([1.7, 2.3, 3.0])),
         lambda: np.array([fd_checked(photometric, (s,))[0] for s in (1.7, 2.3, 3.0)]), tol=1e-7))


# ---------------------------------------------------------------- homography from 4 points by solving the DLT system
def homography_from_points(dst, src=SRC[:4]):
    A = np.zeros((8, 8))
    b = np.zeros(8)
    for k in range(4):
        x, y = src[k]
        u, v = dst[k]
        A[2 * k] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        A[2 * k + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
        b[2 * k], b[2 * k + 1] = u, v
    h = np.linalg.solve(A, b)
    return h


def center_map_loss(dst):
    h = homography_from_points(dst)
    Hm = np.append(h, 1.0).reshape(3, 3)
    p = Hm @ np.array([5.0, 4.0, 1.0])
    return (p[0] / p[2] - 5.3) ** 2 + (p[1] / p[2] - 3.8) ** 2


add(G("r19e_dlt_solve_row_list_writes", center_map_loss, (DST[:4],), ref="fd", tol=1e-7))
add(pair("r19e_dlt_jacrev_h_wrt_corners", lambda: revsrc.jacrev(homography_from_points)(DST[:4]),
         lambda: fdj(homography_from_points, DST[:4]), tol=1e-6))


# ---------------------------------------------------------------- backend="jax" of the warp loss and a jvp of ssim
add(pair("r19e_affine_ssd_backend_jax", lambda: revsrc.grad(affine_ssd, backend="jax")(A0),
         lambda: jax().grad(jaxify(affine_ssd))(A0), tol=1e-9))
add(JV("r19e_ssim_jvp", ssim_loss, (XN,), (np.cos(xx * yy),), ref="jax", tol=1e-9))
