"""Round 15, part d: audio and DSP -- biquad filters as loops over samples,
np.convolve with windows, envelope followers with attack/release branches, np.fft.rfft
magnitudes."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(15)
SIG = np.sin(0.3 * np.arange(48)) + 0.3 * _rng.normal(size=48)


def biquad(coef, x):
    b0, b1, b2, a1, a2 = coef
    x1 = x2 = y1 = y2 = 0.0
    out = []
    for n in range(x.shape[0]):
        y = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, y
        out.append(y)
    return np.array(out)


def biquad_energy(coef, x):
    y = biquad(coef, x)
    return np.sum(y * y) / x.shape[0]


BQ = np.array([0.2, 0.4, 0.2, -0.5, 0.3])
add(VG("r15_biquad_loop_energy_vg", biquad_energy, (BQ, SIG), ref="ag", tol=1e-10))
add(G("r15_biquad_loop_wrt_signal", biquad_energy, (BQ, SIG), argnums=1, ref="ag", tol=1e-10))
add(H("r15_biquad_hessian_coefs", biquad_energy, (BQ, SIG[:16]), ref="ag", tol=1e-8))
add(pair("r15_biquad_jacfwd_output", lambda: revsrc.jacfwd(biquad)(BQ, SIG[:6]),
         lambda: ag()[0].jacobian(agify(biquad))(BQ, SIG[:6]), tol=1e-10))


def biquad_inplace(coef, x):
    y = np.zeros_like(x)
    for n in range(x.shape[0]):
        acc = coef[0] * x[n]
        if n >= 1:
            acc += coef[1] * x[n - 1] - coef[3] * y[n - 1]
        if n >= 2:
            acc += coef[2] * x[n - 2] - coef[4] * y[n - 2]
        y[n] = acc
    return np.mean(np.abs(y))


add(VG("r15_biquad_item_assign_abs", biquad_inplace, (BQ, SIG), ref="fd", tol=1e-7))
add(pair("r15_biquad_item_assign_same_bits_twice", lambda: revsrc.grad(biquad_inplace)(BQ, SIG),
         lambda: revsrc.grad(biquad_inplace)(BQ, SIG), tol=0.0))


def one_pole_scalar(a, x0=1.0, n=64):
    # scalar impulse response with a float state: the engine's scalar path
    y = 0.0
    e = 0.0
    x = x0
    for k in range(n):
        y = a * y + (1 - a) * x
        x = 0.0
        e += y * y * (k + 1)
    return e


add(VG("r15_one_pole_impulse_scalar", one_pole_scalar, (0.7,), ref=lambda: ag()[0].grad(agify(one_pole_scalar))(0.7), tol=1e-10))
add(pair("r15_one_pole_jit_vmap_bits", lambda: revsrc.jit(revsrc.vmap(one_pole_scalar))(np.array([0.1, 0.5, 0.9])),
         lambda: np.array([one_pole_scalar(a) for a in (0.1, 0.5, 0.9)]), tol=0.0))


def envelope(params, x):
    att, rel = params
    env = 0.0
    s = 0.0
    for v in x:
        r = abs(v)
        if r > env:
            env = att * env + (1 - att) * r
        else:
            env = rel * env + (1 - rel) * r
        s += env
    return s


add(VG("r15_envelope_attack_release", envelope, ((0.3, 0.9), SIG), ref="ag", tol=1e-10))
add(G("r15_envelope_wrt_signal", envelope, ((0.3, 0.9), SIG), argnums=1, ref="ag", tol=1e-10))


def compressor(thresh, x, ratio=4.0):
    g_db = 0.0
    out = 0.0
    for v in x:
        lvl = 20.0 * math.log10(abs(v) + 1e-6)
        over = lvl - thresh
        target = -over * (1 - 1 / ratio) if over > 0 else 0.0
        coeff = 0.5 if target < g_db else 0.95
        g_db = coeff * g_db + (1 - coeff) * target
        y = v * 10.0 ** (g_db / 20.0)
        out += y * y
    return out


add(VG("r15_compressor_log10_pow_branches", compressor, (-6.0, SIG), ref="ag", tol=1e-9))


def windowed_conv(w, x):
    win = np.hanning(w.shape[0])
    k = w * win
    y = np.convolve(x, k, mode="same")
    return np.sum(y[4:-4] ** 2)


W7 = np.array([0.1, -0.2, 0.5, 1.0, 0.5, -0.2, 0.1])
add(VG("r15_hanning_convolve_same", windowed_conv, (W7, SIG), ref="fd", tol=1e-7))
add(G("r15_hanning_convolve_wrt_x", windowed_conv, (W7, SIG), argnums=1, ref="fd", tol=1e-7))


def conv_valid_full(w, x):
    return np.sum(np.convolve(x, w, mode="valid") ** 2) + 0.5 * np.sum(np.convolve(w, x) * np.arange(54.0))


add(G("r15_convolve_valid_full_modes", conv_valid_full, (W7, SIG), ref="fd", tol=1e-7))


def spectrum_peak(f0, n=32):
    t = np.arange(n)
    x = np.cos(2 * np.pi * f0 * t / n) * np.hamming(n)
    X = np.fft.rfft(x)
    mag = np.abs(X)
    return mag[5] ** 2 + 0.1 * np.sum(mag)


add(VG("r15_rfft_magnitude_bin", spectrum_peak, (5.3,), ref="fd", tol=1e-7))
add(JV("r15_rfft_magnitude_jvp", spectrum_peak, (5.3,), (1.0,), tol=1e-7))


def spectral_loss(x, target):
    X = np.fft.rfft(x)
    P = np.real(X * np.conj(X))
    return np.sum((np.log(P + 1e-3) - target) ** 2)


TGT = np.linspace(0.0, 1.0, 25)
add(G("r15_rfft_power_log_conj", spectral_loss, (SIG, TGT), ref="fd", tol=1e-7))


def irfft_roundtrip(g, x):
    X = np.fft.rfft(x)
    X = X * g
    y = np.fft.irfft(X, n=x.shape[0])
    return np.sum(y ** 2 * np.linspace(1.0, 2.0, x.shape[0]))


G25 = np.linspace(1.0, 0.2, 25)
add(G("r15_rfft_gain_irfft", irfft_roundtrip, (G25, SIG), ref="fd", tol=1e-7))


def zero_crossings_rate(a, x):
    y = np.tanh(a * x)
    zc = np.sum(np.abs(np.diff(np.sign(y)))) / 2
    return np.sum(y ** 2) * (1.0 + 0.0 * zc)


add(G("r15_sign_diff_zero_crossings", zero_crossings_rate, (1.5, SIG), ref="ag", tol=1e-10))


def allpass_chain(g, x):
    y = x
    for stage in range(3):
        out = np.zeros_like(y)
        prev_in = 0.0
        prev_out = 0.0
        for n in range(y.shape[0]):
            o = -g[stage] * y[n] + prev_in + g[stage] * prev_out
            prev_in = y[n]
            prev_out = o
            out[n] = o
        y = out
    return np.sum(y[:10] ** 2)


add(VG("r15_allpass_nested_loops_item_assign", allpass_chain, (np.array([0.3, -0.4, 0.6]), SIG[:20]), ref="fd", tol=1e-7))


def delay_feedback(fb, x, D=5):
    buf = [0.0] * D
    idx = 0
    s = 0.0
    for v in x:
        d = buf[idx]
        y = v + fb * d
        buf[idx] = y
        idx = (idx + 1) % D
        s += y * y
    return s


add(VG("r15_circular_delay_list_buffer", delay_feedback, (0.6, SIG), ref="ag", tol=1e-10))
add(pair("r15_circular_delay_vmap_grad_fb", lambda: revsrc.vmap(revsrc.grad(delay_feedback), in_axes=(0, None))(np.array([0.2, 0.6]), SIG),
         lambda: np.array([ag()[0].grad(agify(delay_feedback))(f, SIG) for f in (0.2, 0.6)]), tol=1e-10))
