"""Round 10, signal and image processing: convolutions written as loops, FIR and IIR
filters, moving averages, spectral sums without an FFT, autocorrelation, envelope
detection, box and Gaussian blurs, finite-difference image gradients, total-variation
denoising steps and a Sobel edge energy, as DSP and imaging people write them."""
import math

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1001)
SIG = rng.normal(size=24)
TAPS = rng.normal(size=5) * 0.3
IMG = rng.uniform(size=(8, 9))


def conv_loop(h, x):
    n, m = len(x), len(h)
    out = 0.0
    for i in range(n - m + 1):
        acc = 0.0
        for k in range(m):
            acc += h[k] * x[i + k]
        out += acc * acc
    return out


CASES.append(G("r10_conv_loop_taps", conv_loop, (TAPS, SIG), ref="jax"))
CASES.append(G("r10_conv_loop_signal", conv_loop, (TAPS, SIG), argnums=1, ref="jax"))


def fir_np_convolve(h, x):
    y = np.convolve(x, h, mode="valid")
    return np.sum(y ** 2) / len(y)


CASES.append(G("r10_np_convolve_valid", fir_np_convolve, (TAPS, SIG), argnums=(0, 1), ref="jax"))


def iir_first_order(a, x):
    y = 0.0
    energy = 0.0
    for xn in x:
        y = a * y + (1.0 - a) * xn
        energy += y * y
    return energy


CASES.append(G("r10_iir_one_pole", iir_first_order, (0.8, SIG), ref="jax"))
CASES.append(G("r10_iir_one_pole_input", iir_first_order, (0.8, SIG), argnums=1, ref="jax"))


def biquad(coefs, x):
    b0, b1, b2, a1, a2 = coefs
    x1 = x2 = y1 = y2 = 0.0
    ys = []
    for xn in x:
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        ys.append(yn)
    return np.mean(np.array(ys) ** 2)


BQ = np.array([0.2, 0.3, 0.2, -0.5, 0.2])
CASES.append(G("r10_biquad_df1", biquad, (BQ, SIG), ref="jax"))


def biquad_tuple_state(coefs, x):
    b0, b1, b2, a1, a2 = coefs
    state = (0.0, 0.0)
    out = 0.0
    for xn in x:
        # transposed direct form II
        yn = b0 * xn + state[0]
        state = (b1 * xn - a1 * yn + state[1], b2 * xn - a2 * yn)
        out += abs(yn)
    return out


CASES.append(G("r10_biquad_tdf2_abs", biquad_tuple_state, (BQ, SIG), ref="jax"))


def moving_average_cumsum(x, w):
    c = np.cumsum(np.concatenate([[0.0], x]))
    ma = (c[w:] - c[:-w]) / w
    return np.sum(np.sin(ma))


CASES.append(G("r10_moving_average_cumsum", moving_average_cumsum, (SIG, 4)))


def dft_power(x, k):
    n = len(x)
    re = 0.0
    im = 0.0
    for t in range(n):
        ang = 2.0 * math.pi * k * t / n
        re += x[t] * math.cos(ang)
        im -= x[t] * math.sin(ang)
    return (re * re + im * im) / n


CASES.append(G("r10_dft_bin_power_loop", dft_power, (SIG, 3), ref="jax"))


def spectral_centroid(x):
    n = len(x)
    t = np.arange(n)
    ks = np.arange(1, n // 2)
    ang = 2 * np.pi * np.outer(ks, t) / n
    re = np.cos(ang) @ x
    im = -np.sin(ang) @ x
    p = re ** 2 + im ** 2
    return np.sum(ks * p) / np.sum(p)


CASES.append(G("r10_spectral_centroid_matrix", spectral_centroid, (SIG,), ref="jax"))


def autocorr_lag(x, lag):
    xm = x - x.mean()
    num = np.dot(xm[:-lag], xm[lag:])
    return num / np.dot(xm, xm)


CASES.append(G("r10_autocorrelation_lag2", autocorr_lag, (SIG, 2), ref="jax"))


def goertzel(x, k):
    n = len(x)
    w = 2.0 * math.pi * k / n
    coeff = 2.0 * math.cos(w)
    s1 = s2 = 0.0
    for xn in x:
        s0 = xn + coeff * s1 - s2
        s2 = s1
        s1 = s0
    return s1 * s1 + s2 * s2 - coeff * s1 * s2


CASES.append(G("r10_goertzel", goertzel, (SIG, 5), ref="jax"))
CASES.append(pair("r10_goertzel_matches_dft",
                  lambda: goertzel(SIG, 5) / len(SIG),
                  lambda: dft_power(SIG, 5), tol=1e-9))


def envelope_peak_hold(x, decay):
    env = 0.0
    total = 0.0
    for xn in x:
        a = abs(xn)
        if a > env:
            env = a
        else:
            env = decay * env
        total += env
    return total


CASES.append(G("r10_envelope_peak_hold_decay", envelope_peak_hold, (SIG, 0.9), argnums=1, ref="ag"))
CASES.append(G("r10_envelope_peak_hold_signal", envelope_peak_hold, (SIG, 0.9), argnums=0, ref="ag"))


def windowed_energy(x):
    n = len(x)
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / (n - 1))
    return np.sum((w * x) ** 2)


CASES.append(G("r10_hann_window_energy", windowed_energy, (SIG,), ref="jax"))


def box_blur(img):
    h, w = img.shape
    out = np.zeros((h - 2, w - 2))
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            out[i - 1, j - 1] = np.mean(img[i - 1:i + 2, j - 1:j + 2])
    return np.sum(out ** 2)


CASES.append(G("r10_box_blur_loops", box_blur, (IMG,)))


def blur_by_slices(img):
    b = (img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2] + img[1:-1, 2:] + 4 * img[1:-1, 1:-1]) / 8.0
    return np.sum(b ** 3)


CASES.append(G("r10_cross_blur_slices", blur_by_slices, (IMG,), ref="jax"))


def gaussian_blur_separable(img, sigma):
    r = np.arange(-2, 3)
    k = np.exp(-0.5 * (r / sigma) ** 2)
    k = k / k.sum()
    rows = np.array([np.convolve(row, k, mode="valid") for row in img])
    cols = np.array([np.convolve(col, k, mode="valid") for col in rows.T])
    return np.sum(cols * cols)


CASES.append(G("r10_gaussian_blur_sigma", gaussian_blur_separable, (IMG, 1.2), argnums=1, ref="jax"))
CASES.append(G("r10_gaussian_blur_image", gaussian_blur_separable, (IMG, 1.2), argnums=0, ref="jax"))


def image_gradient_energy(img):
    gx = np.diff(img, axis=1)
    gy = np.diff(img, axis=0)
    return np.sum(gx ** 2) + np.sum(gy ** 2)


CASES.append(G("r10_image_gradient_diff", image_gradient_energy, (IMG,), ref="jax"))


def tv_smooth(img, eps):
    gx = img[:, 1:] - img[:, :-1]
    gy = img[1:, :] - img[:-1, :]
    return np.sum(np.sqrt(gx[:-1, :] ** 2 + gy[:, :-1] ** 2 + eps))


CASES.append(G("r10_total_variation_smooth", tv_smooth, (IMG, 1e-3), ref="jax"))


def tv_denoise_steps(u0, f, lam, steps):
    u = u0.copy()
    for _ in range(steps):
        gx = np.zeros_like(u)
        gy = np.zeros_like(u)
        gx[:, :-1] = u[:, 1:] - u[:, :-1]
        gy[:-1, :] = u[1:, :] - u[:-1, :]
        mag = np.sqrt(gx ** 2 + gy ** 2 + 1e-2)
        px, py = gx / mag, gy / mag
        div = px.copy()
        div[:, 1:] -= px[:, :-1]
        div += py
        div[1:, :] -= py[:-1, :]
        u = u - 0.1 * ((u - f) - lam * div)
    return np.sum((u - f) ** 2) + lam * np.sum(mag)


CASES.append(G("r10_tv_denoise_unrolled_lam", tv_denoise_steps, (IMG, IMG[::-1], 0.3, 4), argnums=2))
CASES.append(GD("r10_tv_denoise_unrolled_image", tv_denoise_steps, (IMG, IMG[::-1], 0.3, 4), argnums=1))


SOBEL_X = np.array([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])


def sobel_energy(img):
    h, w = img.shape
    tot = 0.0
    for i in range(h - 2):
        for j in range(w - 2):
            patch = img[i:i + 3, j:j + 3]
            gx = np.sum(patch * SOBEL_X)
            gy = np.sum(patch * SOBEL_X.T)
            tot = tot + math.sqrt(gx * gx + gy * gy + 1e-6)
    return tot


CASES.append(G("r10_sobel_magnitude_loops", sobel_energy, (IMG,), ref="jax"))


def unsharp_mask(img, amount):
    blur = (np.roll(img, 1, 0) + np.roll(img, -1, 0) + np.roll(img, 1, 1) + np.roll(img, -1, 1)) / 4
    sharp = img + amount * (img - blur)
    return np.sum(np.clip(sharp, 0.0, 1.0))


CASES.append(G("r10_unsharp_mask_clip", unsharp_mask, (IMG, 0.7), argnums=(0, 1), ref="jax"))


def median_of_three_filter(x):
    out = 0.0
    for i in range(1, len(x) - 1):
        out += sorted([x[i - 1], x[i], x[i + 1]])[1] ** 2
    return out


CASES.append(G("r10_median3_sorted", median_of_three_filter, (SIG,), ref="ag"))
CASES.append(JV("r10_iir_jvp", iir_first_order, (0.7, SIG), (1.0, np.zeros_like(SIG))))
