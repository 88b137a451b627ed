"""Round 13, part d: signal processing -- np.convolve, FIR/IIR filters in loops, windows,
np.fft magnitudes, autocorrelation, cumsum/diff."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
rng = np.random.default_rng(4)
SIG = np.sin(np.linspace(0, 6, 16)) + 0.2 * rng.normal(size=16)
TAPS = np.array([0.25, 0.5, 0.25])


def fir_convolve(h, x):
    y = np.convolve(x, h, mode="same")
    return np.sum((y - x) ** 2)


add(VG("r13_fir_convolve_taps", fir_convolve, (TAPS, SIG), ref="fd"))
add(G("r13_fir_convolve_signal", fir_convolve, (TAPS, SIG), argnums=1, ref="fd"))
add(G("r13_convolve_valid", lambda h, x: np.sum(np.convolve(x, h, mode="valid") ** 2), (TAPS, SIG), ref="fd"))


def fir_loop(h, x):
    n, m = len(x), len(h)
    y = np.zeros(n)
    for i in range(n):
        for k in range(m):
            if i - k >= 0:
                y[i] += h[k] * x[i - k]
    return y @ y


add(pair("r13_fir_loop_vs_convolve", lambda: revsrc.grad(fir_loop)(TAPS, SIG),
         lambda: revsrc.grad(lambda h, x: np.sum(np.convolve(x, h)[:len(x)] ** 2))(TAPS, SIG), tol=1e-10))
add(G("r13_fir_loop_fd", fir_loop, (TAPS, SIG), ref="fd"))


def iir_lowpass(a, x):
    y = 0.0
    out = []
    for v in x:
        y = a * y + (1 - a) * v
        out.append(y)
    return np.sum(np.array(out) ** 2)


add(VG("r13_iir_list_append", iir_lowpass, (0.8, SIG), ref="ag", tol=1e-9))
add(H("r13_iir_hessian", iir_lowpass, (0.8, SIG), ref="ag", tol=1e-8))


def biquad(coef, x):
    b0, b1, b2, a1, a2 = coef
    x1 = x2 = y1 = y2 = 0.0
    y = np.empty_like(x)
    for n in range(len(x)):
        y[n] = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, y[n]
    return np.sum(y[4:] ** 2)


BQ = np.array([0.2, 0.4, 0.2, -0.5, 0.2])
add(G("r13_biquad_coefs", biquad, (BQ, SIG), ref="fd"))


def windowed_power(x, kind="hann"):
    n = len(x)
    if kind == "hann":
        w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / (n - 1))
    elif kind == "hamming":
        w = np.hamming(n)
    else:
        w = np.ones(n)
    X = np.fft.rfft(w * x)
    return np.sum(np.abs(X[1:5]) ** 2)


add(G("r13_fft_hann_power", windowed_power, (SIG,), ref="fd", tol=1e-6))
add(G("r13_fft_hamming_power", windowed_power, (SIG, "hamming"), ref="fd", tol=1e-6))
add(G("r13_fft_rect_power_jax", windowed_power, (SIG, "rect"),
      ref=lambda: jax().grad(lambda x: jax().numpy.sum(jax().numpy.abs(jax().numpy.fft.rfft(x)[1:5]) ** 2))(SIG), tol=1e-9))


def spectral_peak_freq(x):
    X = np.abs(np.fft.rfft(x))
    k = int(np.argmax(X[1:])) + 1
    return X[k] / len(x)


add(G("r13_fft_argmax_peak", spectral_peak_freq, (SIG,), ref="fd", tol=1e-6))


def autocorr(x, maxlag=4):
    x = x - x.mean()
    r0 = x @ x
    return sum((x[:-k] @ x[k:]) / r0 for k in range(1, maxlag + 1))


add(VG("r13_autocorr_sum_gen", autocorr, (SIG,), ref="ag", tol=1e-9))


def total_variation(x, eps=1e-6):
    return np.sum(np.sqrt(np.diff(x) ** 2 + eps))


add(G("r13_total_variation_diff", total_variation, (SIG,), ref="ag", tol=1e-9))
add(G("r13_cumsum_integrator", lambda x: np.sum(np.cumsum(x) ** 2) / len(x), (SIG,), ref="ag", tol=1e-9))
add(G("r13_diff_n2", lambda x: np.sum(np.diff(x, n=2) ** 2), (SIG,), ref="ag", tol=1e-9))


def zero_cross_energy(x):
    e = 0.0
    for i in range(1, len(x)):
        if x[i - 1] * x[i] < 0:
            e += abs(x[i] - x[i - 1])
    return e


add(G("r13_zero_crossings_abs", zero_cross_energy, (SIG,), ref="ag", tol=1e-12))


def downsample_decimate(x):
    y = np.convolve(x, np.ones(4) / 4, mode="same")[::2]
    return np.sum(y ** 2)


add(G("r13_decimate_strided", downsample_decimate, (SIG,), ref="fd"))


def fft_roundtrip(x):
    X = np.fft.fft(x)
    X[3:-2] = 0.0
    y = np.fft.ifft(X).real
    return np.sum(y * x)


add(G("r13_fft_lowpass_roundtrip", fft_roundtrip, (SIG,), ref="fd", tol=1e-6))
add(JV("r13_iir_jvp_a", lambda a: iir_lowpass(a, SIG), (0.7,), (1.0,)))
