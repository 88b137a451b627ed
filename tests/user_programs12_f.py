"""Round 12, part f: audio and sound synthesis -- oscillators, ADSR envelopes with
branches, biquad filters in loops, FM synthesis, as an audio programmer writes them."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append
SR = 800.0


def adsr(t, a=0.05, d=0.1, s=0.6, r=0.2, note_off=0.4):
    if t < a:
        return t / a
    elif t < a + d:
        return 1.0 - (1.0 - s) * (t - a) / d
    elif t < note_off:
        return s
    elif t < note_off + r:
        return s * (1.0 - (t - note_off) / r)
    return 0.0


add(G("r12_adsr_attack_time", adsr, (0.03, 0.05), argnums=1, ref="fd", tol=1e-7))
add(G("r12_adsr_decay_sustain", adsr, (0.1, 0.05, 0.1, 0.6), argnums=(2, 3), ref="fd", tol=1e-7))
add(G("r12_adsr_release", adsr, (0.5, 0.05, 0.1, 0.6, 0.2), argnums=(3, 4), ref="fd", tol=1e-7))
TS = np.array([0.01, 0.08, 0.3, 0.5, 0.7])
add(pair("r12_adsr_vmap_grad_t", lambda: revsrc.vmap(revsrc.grad(adsr))(TS),
         lambda: np.array([1 / 0.05, -(0.4) / 0.1, 0.0, -0.6 / 0.2, 0.0]), tol=1e-12))
add(pair("r12_adsr_jit_value", lambda: revsrc.jit(adsr)(0.45), lambda: adsr(0.45), tol=0.0))


def fm_tone(index, ratio, n=64, fc=110.0):
    out = 0.0
    for k in range(n):
        t = k / SR
        mod = index * math.sin(2 * math.pi * fc * ratio * t)
        out += math.sin(2 * math.pi * fc * t + mod) ** 2
    return out / n


add(VG("r12_fm_synth_index_ratio", fm_tone, (2.0, 1.5), argnums=(0, 1), ref="ag", tol=1e-10))
add(pair("r12_fm_synth_jit_grad", lambda: revsrc.jit(revsrc.grad(fm_tone, argnums=(0, 1)))(2.0, 1.5),
         lambda: tuple(ag()[0].grad(agify(fm_tone), argnum=i)(2.0, 1.5) for i in (0, 1)), tol=1e-10))


def biquad_lowpass(fc, q, x):
    w0 = 2 * math.pi * fc / SR
    alpha = math.sin(w0) / (2 * q)
    c = math.cos(w0)
    b0, b1, b2 = (1 - c) / 2, 1 - c, (1 - c) / 2
    a0, a1, a2 = 1 + alpha, -2 * c, 1 - alpha
    x1 = x2 = y1 = y2 = 0.0
    energy = 0.0
    for xn in x:
        yn = (b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2) / a0
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        energy += yn * yn
    return energy


NOISE = np.random.default_rng(4).normal(size=80)
add(G("r12_biquad_fc_q", biquad_lowpass, (120.0, 0.9, NOISE), argnums=(0, 1), ref="ag", tol=1e-9))
add(G("r12_biquad_input", biquad_lowpass, (120.0, 0.9, NOISE), argnums=2, ref="ag", tol=1e-9))


def biquad_state_array(coef, x):
    b = coef[:3]
    a = coef[3:]
    z = np.zeros(2)
    y = np.zeros_like(x)
    for n in range(len(x)):
        y[n] = b[0] * x[n] + z[0]
        z[0] = b[1] * x[n] - a[0] * y[n] + z[1]
        z[1] = b[2] * x[n] - a[1] * y[n]
    return np.sum(y ** 2)


COEF = np.array([0.2, 0.4, 0.2, -0.3, 0.2])
add(G("r12_biquad_df2t_itemassign", biquad_state_array, (COEF, NOISE[:40]), ref="fd", tol=1e-7))


def karplus_strong(decay, n=60, L=7):
    buf = [math.sin(0.9 * k) for k in range(L)]
    out = 0.0
    for i in range(n):
        nxt = decay * 0.5 * (buf[0] + buf[1])
        out += nxt * nxt
        buf = buf[1:] + [nxt]
    return out


add(G("r12_karplus_strong_list_rotate", karplus_strong, (0.98,), ref="ag", tol=1e-10))


def osc_bank(freqs, amps, n=50):
    t = np.arange(n) / SR
    sig = amps[None, :] * np.sin(2 * np.pi * freqs[None, :] * t[:, None])
    mix = sig.sum(axis=1)
    return np.sqrt(np.mean(mix ** 2))


FR = np.array([55.0, 110.0, 165.0])
AM = np.array([1.0, 0.5, 0.25])
add(G("r12_osc_bank_rms_freqs", osc_bank, (FR, AM), ref="ag", tol=1e-9))
add(pair("r12_osc_bank_jacfwd_amps", lambda: revsrc.jacfwd(osc_bank, argnums=1)(FR, AM),
         lambda: ag()[0].grad(agify(osc_bank), argnum=1)(FR, AM), tol=1e-10))


def soft_clip_distortion(gain, x):
    y = np.tanh(gain * x)
    y = np.where(np.abs(y) > 0.8, np.sign(y) * (0.8 + 0.2 * np.tanh((np.abs(y) - 0.8) * 5)), y)
    return np.sum(y ** 2)


add(G("r12_soft_clip_sign_where", soft_clip_distortion, (1.7, NOISE), ref="ag", tol=1e-9))


def compressor(thresh, ratio, x, attack=0.3):
    env = 0.0
    out = 0.0
    for s in x:
        lvl = abs(s)
        if lvl > env:
            env = env + attack * (lvl - env)
        else:
            env = env * 0.95
        if env > thresh:
            g = (thresh + (env - thresh) / ratio) / env
        else:
            g = 1.0
        out += (g * s) ** 2
    return out


add(G("r12_compressor_branches", compressor, (0.8, 4.0, NOISE), argnums=(0, 1), ref="fd", tol=1e-7))


def wavetable_lookup(table, phase_inc, n=40):
    N = len(table)
    ph = 0.0
    acc = 0.0
    for _ in range(n):
        i = int(ph) % N
        frac = ph - math.floor(ph)
        acc += (1 - frac) * table[i] + frac * table[(i + 1) % N]
        ph += phase_inc
    return acc


TAB = np.sin(2 * np.pi * np.arange(16) / 16)
add(G("r12_wavetable_linear_interp_table", wavetable_lookup, (TAB, 1.37), ref="ag", tol=1e-12))
add(G("r12_wavetable_phase_inc", wavetable_lookup, (TAB, 1.37), argnums=1, ref="fd", tol=1e-6))


def spectral_centroid(x):
    X = np.fft.rfft(x)
    mag = np.abs(X)
    k = np.arange(len(mag))
    return np.sum(k * mag) / np.sum(mag)


add(G("r12_spectral_centroid_rfft", spectral_centroid, (NOISE[:32],), ref="fd", tol=1e-6))


def pitch_glide(f0, f1, T=0.1, n=40):
    phase = 0.0
    out = 0.0
    for k in range(n):
        t = k * T / n
        f = f0 * (f1 / f0) ** (t / T)
        phase += 2 * math.pi * f * T / n
        out += math.cos(phase)
    return out


add(G("r12_pitch_glide_exp_sweep", pitch_glide, (200.0, 400.0), argnums=(0, 1), ref="ag", tol=1e-9))
