"""Round 17, part d: audio and DSP synthesis -- phase-accumulating oscillators with wrap,
RBJ biquads run sample by sample (in place, second-order sections), ADSR envelopes with
branches, DFT spectra by matrices and framed multi-resolution spectral losses, FM and
additive synths as classes, Karplus-Strong ring buffers, comb reverbs, compressors."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs7_harness import fd_hess_checked  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

SR = 8000.0
TWO_PI = 2.0 * math.pi
N = 64
TGRID = np.arange(N) / SR
TARGET = np.sin(TWO_PI * 440.0 * TGRID) * np.exp(-TGRID * 30.0)


def phase_osc(freq, n=N, sr=SR):
    out = np.zeros(n)
    phase = 0.0
    for i in range(n):
        out[i] = math.sin(phase)
        phase += TWO_PI * freq / sr
        if phase > TWO_PI:
            phase -= TWO_PI
    return out


def osc_loss(freq, amp):
    y = amp * phase_osc(freq) * np.exp(-TGRID * 30.0)
    return np.mean((y - TARGET) ** 2)


add(VG("r17_phase_wrap_oscillator_vg", osc_loss, (452.0, 0.9), argnums=(0, 1), ref="fd", tol=1e-7))
add(H("r17_phase_wrap_oscillator_hessian", osc_loss, (452.0, 0.9), argnums=1, ref="fd", tol=1e-5))


def rbj_lowpass(fc, Q, sr=SR):
    w0 = TWO_PI * fc / sr
    alpha = math.sin(w0) / (2.0 * Q)
    c = math.cos(w0)
    b = np.array([(1 - c) / 2, 1 - c, (1 - c) / 2])
    a = np.array([1 + alpha, -2 * c, 1 - alpha])
    return b / a[0], a / a[0]


def biquad(x, b, a):
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(len(x)):
        y[n] = b[0] * x[n] + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, y[n]
    return y


NOISE = np.random.default_rng(3).normal(size=N)


def filter_match(params, x, target):
    b, a = rbj_lowpass(params[0], params[1])
    y = biquad(x, b, a)
    return np.sum((y - target) ** 2)


TGT_F = biquad(NOISE, *rbj_lowpass(900.0, 0.9))
add(VG("r17_rbj_biquad_in_place_vg", filter_match, (np.array([1000.0, 0.707]), NOISE, TGT_F), ref="fd", tol=1e-7))
add(G("r17_rbj_biquad_wrt_input_signal", filter_match, (np.array([1000.0, 0.707]), NOISE, TGT_F), argnums=1, ref="fd", tol=1e-7))


def sos_filter(x, sections):
    # cascade of second-order sections given as a list of (b, a) tuples
    for b, a in sections:
        x = biquad(x, b, a)
    return x


def sos_energy(g, x):
    secs = [rbj_lowpass(600.0 * g, 0.6), rbj_lowpass(1500.0 * g, 1.3)]
    return np.sum(sos_filter(x, secs) ** 2)


add(G("r17_sos_cascade_list_of_tuples", sos_energy, (1.1, NOISE), ref="fd", tol=1e-7))


def adsr(n, sr, a, d, s, r, note_off):
    env = np.zeros(n)
    for i in range(n):
        t = i / sr
        if t < a:
            v = t / a
        elif t < a + d:
            v = 1.0 - (1.0 - s) * (t - a) / d
        elif t < note_off:
            v = s
        else:
            v = s * math.exp(-(t - note_off) / r)
        env[i] = v
    return env


def adsr_loss(p):
    env = adsr(N, SR, p[0], p[1], p[2], p[3], 0.005)
    ref = np.exp(-TGRID * 200.0)
    return np.sum((env - ref) ** 2)


ADSR_P = np.array([0.0011, 0.0017, 0.55, 0.0021])
add(VG("r17_adsr_if_elif_envelope_vg", adsr_loss, (ADSR_P,), ref="fd", h=1e-8, tol=1e-6))
add(H("r17_adsr_if_elif_envelope_hessian", adsr_loss, (ADSR_P,), ref="fd", h=1e-7, tol=1e-4))


def dft_mats(n):
    k = np.arange(n // 2 + 1)[:, None]
    t = np.arange(n)[None, :]
    ang = TWO_PI * k * t / n
    return np.cos(ang), -np.sin(ang)


C64, S64 = dft_mats(N)


def spectrum_loss(amps, freqs):
    y = np.zeros(N)
    for a_k, f_k in zip(amps, freqs):
        y = y + a_k * np.sin(TWO_PI * f_k * TGRID)
    re, im = C64 @ y, S64 @ y
    mag = np.sqrt(re * re + im * im + 1e-9)
    tre, tim = C64 @ TARGET, S64 @ TARGET
    tmag = np.sqrt(tre * tre + tim * tim + 1e-9)
    return np.sum((np.log(mag) - np.log(tmag)) ** 2)


AMPS = np.array([0.8, 0.2, 0.1])
FRQ = np.array([430.0, 880.0, 1320.0])
add(VG("r17_dft_matrix_log_spectrum_vg", spectrum_loss, (AMPS, FRQ), ref="fd", tol=1e-6))
add(G("r17_dft_matrix_log_spectrum_ag", spectrum_loss, (AMPS, FRQ), argnums=(0, 1), ref="ag", tol=1e-9))


def frames(x, size, hop):
    n = 1 + (len(x) - size) // hop
    idx = np.arange(size)[None, :] + hop * np.arange(n)[:, None]
    return x[idx]


def multires_stft_loss(y, target):
    total = 0.0
    for size in (16, 32):
        hop = size // 2
        win = 0.5 - 0.5 * np.cos(TWO_PI * np.arange(size) / size)
        C, S = dft_mats(size)
        Fy = frames(y, size, hop) * win
        Ft = frames(target, size, hop) * win
        my = np.sqrt((Fy @ C.T) ** 2 + (Fy @ S.T) ** 2 + 1e-7)
        mt = np.sqrt((Ft @ C.T) ** 2 + (Ft @ S.T) ** 2 + 1e-7)
        total += np.linalg.norm(my - mt) / np.linalg.norm(mt) + np.mean(np.abs(np.log(my) - np.log(mt)))
    return total


add(VG("r17_multires_stft_fancy_index_frames_vg", multires_stft_loss, (0.9 * TARGET + 0.05 * NOISE, TARGET), ref="ag", tol=1e-9))


class Voice:
    sr = SR

    def __init__(self, amp):
        self.amp = amp

    def render(self, n):
        t = np.arange(n) / self.sr
        return self.amp * self.wave(t)


class FMVoice(Voice):
    def __init__(self, amp, fc, fm, index):
        super().__init__(amp)
        self.fc, self.fm, self.index = fc, fm, index

    def wave(self, t):
        return np.sin(TWO_PI * self.fc * t + self.index * np.sin(TWO_PI * self.fm * t))


class AdditiveVoice(Voice):
    def __init__(self, amp, f0, rolloff, n_harm=6):
        super().__init__(amp)
        self.f0, self.rolloff, self.n_harm = f0, rolloff, n_harm

    @property
    def partial_amps(self):
        k = np.arange(1, self.n_harm + 1)
        return k ** (-self.rolloff)

    def wave(self, t):
        out = np.zeros_like(t)
        for k, a in enumerate(self.partial_amps, start=1):
            out += a * np.sin(TWO_PI * k * self.f0 * t)
        return out


def fm_loss(p):
    v = FMVoice(p[0], 440.0, p[1], p[2])
    return np.mean((v.render(N) - TARGET) ** 2)


add(VG("r17_fm_voice_subclass_super_vg", fm_loss, (np.array([0.7, 220.0, 1.5]),), ref="fd", tol=1e-7))


def additive_loss(f0, rolloff):
    v = AdditiveVoice(0.5, f0, rolloff)
    return np.mean((v.render(N) - TARGET) ** 2)


add(G("r17_additive_voice_property_enumerate", additive_loss, (441.0, 1.2), argnums=(0, 1), ref="fd", tol=1e-7))


def karplus_strong(decay, burst, n_out=N):
    # a ring buffer with in-place writes; averaging lowpass in the feedback
    L = burst.shape[0]
    buf = burst.copy()
    out = np.zeros(n_out)
    idx = 0
    for i in range(n_out):
        nxt = (idx + 1) % L
        out[i] = buf[idx]
        buf[idx] = decay * 0.5 * (buf[idx] + buf[nxt])
        idx = nxt
    return np.sum(out[L:] ** 2)


BURST = np.random.default_rng(5).uniform(-1, 1, 9)
add(VG("r17_karplus_strong_ring_buffer_vg", karplus_strong, (0.996, BURST), ref="fd", tol=1e-7))
add(G("r17_karplus_strong_wrt_burst", karplus_strong, (0.996, BURST), argnums=1, ref="fd", tol=1e-7))


def comb_reverb(x, gains, delays=(7, 11, 13)):
    # Schroeder: parallel feedback combs, summed
    out = np.zeros_like(x)
    for g, D in zip(gains, delays):
        y = np.zeros_like(x)
        for n in range(len(x)):
            fb = y[n - D] if n >= D else 0.0
            y[n] = x[n] + g * fb
        out += y
    return np.sum(out ** 2) / len(x)


add(VG("r17_comb_reverb_zip_delays_vg", comb_reverb, (NOISE, np.array([0.7, 0.6, 0.5])), argnums=1, ref="fd", tol=1e-7))


def compressor(x, thresh_db, ratio, att=0.3, rel=0.05):
    env = 0.0
    y = np.zeros_like(x)
    for n, s in enumerate(x):
        lvl = abs(s)
        coef = att if lvl > env else rel
        env = env + coef * (lvl - env)
        db = 20.0 * math.log10(max(env, 1e-6))
        over = max(db - thresh_db, 0.0)
        gain_db = -over * (1.0 - 1.0 / ratio)
        y[n] = s * 10.0 ** (gain_db / 20.0)
    return np.sum(y ** 2)


add(VG("r17_compressor_envelope_branches_vg", compressor, (NOISE, -6.0, 4.0), argnums=(1, 2), ref="fd", tol=1e-7))


def soft_clip(x, drive):
    return np.sum(np.tanh(drive * x) / np.tanh(drive) if drive > 1e-3 else x)


add(G("r17_soft_clip_drive", soft_clip, (NOISE, 2.0), argnums=1, ref="fd", tol=1e-7))
add(G("r17_soft_clip_drive_zero_branch", soft_clip, (NOISE, 0.0), argnums=1, ref=lambda: 0.0, tol=0.0))


def chirp_phase(f0, f1, n=N):
    # instantaneous frequency sweep integrated with np.cumsum
    finst = f0 + (f1 - f0) * np.arange(n) / n
    phase = TWO_PI * np.cumsum(finst) / SR
    return np.sum(np.sin(phase) * TARGET)


add(pair("r17_chirp_cumsum_grad", lambda: revsrc.grad(chirp_phase, argnums=(0, 1))(300.0, 600.0),
         lambda: tuple(fd_checked(chirp_phase, (300.0, 600.0), argnums=(0, 1))), tol=1e-7))


def note_energy(freq):
    # scalar synth of one note, for jit and vmap
    e = 0.0
    ph = 0.0
    for i in range(200):
        env = math.exp(-i / 60.0)
        s = env * math.sin(ph)
        e += s * s
        ph += TWO_PI * freq / SR
    return e / 200.0


add(pair("r17_note_energy_jit_grad", lambda: revsrc.jit(revsrc.grad(note_energy))(440.0),
         lambda: ag()[0].grad(agify(note_energy))(440.0), tol=1e-10))
add(pair("r17_note_energy_vmap_grad", lambda: revsrc.vmap(revsrc.grad(note_energy))(np.array([110.0, 220.0, 440.0, 880.0])),
         lambda: np.array([ag()[0].grad(agify(note_energy))(f) for f in (110.0, 220.0, 440.0, 880.0)]), tol=1e-10))
add(pair("r17_note_energy_grad_grad", lambda: revsrc.grad(revsrc.grad(note_energy))(440.0),
         lambda: ag()[0].grad(ag()[0].grad(agify(note_energy)))(440.0), tol=1e-9))


def autocorr_pitch(x, lags=np.arange(8, 30), beta=40.0):
    ac = np.array([np.sum(x[:-L] * x[L:]) for L in lags])
    ac = ac / np.sum(x * x)
    w = np.exp(beta * (ac - np.max(ac)))
    return SR / (np.sum(w * lags) / np.sum(w))


add(VG("r17_autocorr_soft_pitch_vg", autocorr_pitch, (TARGET + 0.1 * NOISE,), ref="fd", tol=1e-6))


def wavetable(phase_inc, table):
    n = table.shape[0]
    pos = 0.0
    acc = 0.0
    for _ in range(40):
        i = int(pos)
        frac = pos - i
        v = table[i % n] * (1 - frac) + table[(i + 1) % n] * frac
        acc += v * v
        pos = (pos + phase_inc) % n
    return acc


TABLE = np.sin(TWO_PI * np.arange(16) / 16) + 0.3 * np.sin(2 * TWO_PI * np.arange(16) / 16)
add(VG("r17_wavetable_modulo_interp_vg", wavetable, (1.37, TABLE), argnums=(0, 1), ref="fd", tol=1e-7))
add(pair("r17_empty_signal_biquad", lambda: revsrc.grad(lambda fc: np.sum(biquad(np.zeros(0), *rbj_lowpass(fc, 0.7)) ** 2))(500.0),
         lambda: 0.0, tol=0.0))

# ---- the same programs under backend="jax"
# buf = burst.copy(); buf[idx] = ... with idx = (idx + 1) % L, L = burst.shape[0]
add(pair("r17_karplus_strong_backend_jax", lambda: revsrc.grad(karplus_strong, backend="jax")(0.996, BURST),
         lambda: fd_checked(karplus_strong, (0.996, BURST))[0], tol=1e-7))
add(pair("r17_comb_reverb_backend_jax", lambda: revsrc.grad(comb_reverb, argnums=1, backend="jax")(NOISE, np.array([0.7, 0.6, 0.5])),
         lambda: fd_checked(comb_reverb, (NOISE, np.array([0.7, 0.6, 0.5])), argnums=1)[0], tol=1e-7))
add(pair("r17_phase_wrap_osc_backend_jax", lambda: revsrc.grad(osc_loss, argnums=(0, 1), backend="jax")(452.0, 0.9),
         lambda: tuple(fd_checked(osc_loss, (452.0, 0.9), argnums=(0, 1))), tol=1e-7))
add(pair("r17_wavetable_int_pos_backend_jax", lambda: revsrc.grad(wavetable, backend="jax")(1.37, TABLE),
         lambda: fd_checked(wavetable, (1.37, TABLE))[0], tol=1e-7))
add(pair("r17_adsr_backend_jax", lambda: revsrc.grad(adsr_loss, backend="jax")(ADSR_P),
         lambda: fd_checked(adsr_loss, (ADSR_P,), h=1e-8)[0], tol=1e-6))


def fmod_osc_loss(freq):
    # the phase wrapped with math.fmod, as C programmers write it
    ph = 0.0
    out = np.zeros(N)
    for i in range(N):
        out[i] = math.sin(ph)
        ph = math.fmod(ph + TWO_PI * freq / SR, TWO_PI)
    return np.mean((out * np.exp(-TGRID * 30.0) - TARGET) ** 2)


add(G("r17_fmod_phase_wrap_oscillator", fmod_osc_loss, (452.0,), ref="fd", tol=1e-7))


def fft_spectral_centroid(x):
    # spectral centroid from np.fft.rfft, with an fftshift-ed window applied first
    win = np.fft.fftshift(np.hanning(len(x)))
    mag = np.abs(np.fft.rfft(x * np.fft.ifftshift(win)))
    freqs = np.fft.rfftfreq(len(x), 1.0 / SR)
    return np.sum(freqs * mag) / np.sum(mag)


add(G("r17_fftshift_window_spectral_centroid", fft_spectral_centroid, (TARGET + 0.1 * NOISE,), ref="fd", tol=1e-6))


def rfft_centroid(x):
    mag = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    freqs = np.fft.rfftfreq(len(x), 1.0 / SR)
    return np.sum(freqs * mag) / np.sum(mag)


add(VG("r17_rfft_spectral_centroid_vg", rfft_centroid, (TARGET + 0.1 * NOISE,), ref="fd", tol=1e-6))
add(H("r17_rfft_spectral_centroid_hessian", rfft_centroid, (TARGET[:16] + 0.1 * NOISE[:16],), ref="fd", tol=1e-4))


def dft_bin_power(w, x):
    # power of a single DFT bin at angular frequency w (a Goertzel-style pitch probe)
    n = np.arange(x.shape[0])
    return np.abs(np.sum(x * np.exp(-1j * w * n))) ** 2


def dft_bin_power_real(w, x):
    n = np.arange(x.shape[0])
    return np.sum(x * np.cos(w * n)) ** 2 + np.sum(x * np.sin(w * n)) ** 2


W0 = TWO_PI * 430.0 / SR
add(G("r17_dft_bin_power_grad", dft_bin_power, (W0, TARGET), ref=lambda: fd_checked(dft_bin_power_real, (W0, TARGET))[0], tol=1e-7))
add(pair("r17_dft_bin_power_newton_curvature", lambda: revsrc.grad(revsrc.grad(dft_bin_power))(W0, TARGET),
         lambda: revsrc.grad(revsrc.grad(dft_bin_power_real))(W0, TARGET), tol=1e-8))
add(pair("r17_dft_bin_power_hessian_fd", lambda: revsrc.hessian(dft_bin_power)(W0, TARGET),
         lambda: fd_hess_checked(dft_bin_power_real, (W0, TARGET))[0], tol=1e-5))
# the lags default is an int array: `for L in lags` then x[:-L] under backend="jax"
add(pair("r17_autocorr_lags_array_backend_jax", lambda: revsrc.grad(autocorr_pitch, backend="jax")(TARGET + 0.1 * NOISE),
         lambda: fd_checked(autocorr_pitch, (TARGET + 0.1 * NOISE,))[0], tol=1e-6))
add(pair("r17_autocorr_lags_tuple_backend_jax",
         lambda: revsrc.grad(autocorr_pitch, backend="jax")(TARGET + 0.1 * NOISE, tuple(range(8, 30))),
         lambda: fd_checked(autocorr_pitch, (TARGET + 0.1 * NOISE, tuple(range(8, 30))))[0], tol=1e-6))
add(pair("r17_sos_cascade_backend_jax", lambda: revsrc.grad(sos_energy, backend="jax")(1.1, NOISE),
         lambda: fd_checked(sos_energy, (1.1, NOISE))[0], tol=1e-7))
