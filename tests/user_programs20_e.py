"""Round 20, part e: audio and music synthesis -- feedback FM operators, glide oscillators
by np.cumsum, PolyBLEP sawtooth with phase branches, Chamberlin state-variable and Moog
ladder filters in sample loops, a wavefolder with data-dependent whiles, an envelope
follower with attack/release branches, fractional-delay chorus, inharmonic piano partials,
mel filterbanks built by index writes, multi-scale and convergence spectral losses."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

SR = 8000.0
N = 256
T = np.arange(N) / SR


# ---------------------------------------------------------------- FM with operator feedback
def fm_feedback(params, n=N):
    index, ratio, fb = params
    f0 = 220.0
    y_prev = 0.0
    out = np.zeros(n)
    for k in range(n):
        mod = math.sin(2 * math.pi * f0 * ratio * k / SR + fb * y_prev)
        y_prev = mod
        out[k] = math.sin(2 * math.pi * f0 * k / SR + index * mod)
    return out


TARGET_FM = np.abs(np.fft.rfft(fm_feedback((2.0, 2.0, 0.3))))


def fm_spectral_loss(params):
    S = np.abs(np.fft.rfft(fm_feedback(params) * np.hanning(N)))
    return np.mean((np.log1p(S) - np.log1p(TARGET_FM * np.mean(np.hanning(N)))) ** 2)


add(VG("r20e_fm_feedback_operator_spectral_loss", fm_spectral_loss, ((1.6, 2.0, 0.2),), ref="fd", tol=1e-6))


def fm_out_energy(index, ratio, fb):
    return np.sum(fm_feedback((index, ratio, fb), 64) ** 2)


add(pair("r20e_fm_feedback_ag", lambda: revsrc.grad(fm_out_energy, argnums=(0, 1, 2))(1.6, 2.0, 0.2),
         lambda: ag()[0].grad(agify(_fm_energy_ag), argnum=(0, 1, 2))(1.6, 2.0, 0.2), tol=1e-9))


def _fm_energy_ag(index, ratio, fb):
    y_prev = 0.0
    tot = 0.0
    for k in range(64):
        mod = np.sin(2 * np.pi * 220.0 * ratio * k / SR + fb * y_prev)
        y_prev = mod
        tot = tot + np.sin(2 * np.pi * 220.0 * k / SR + index * mod) ** 2
    return tot


# ---------------------------------------------------------------- glide oscillator
def glide_osc(f_start, f_end, vib_depth, vib_rate=5.0):
    f = f_start + (f_end - f_start) * (T / T[-1]) + vib_depth * np.sin(2 * np.pi * vib_rate * T)
    phase = 2 * np.pi * np.cumsum(f) / SR
    return np.sin(phase)


def glide_loss(f_start, f_end, vib_depth, target):
    return np.sum((glide_osc(f_start, f_end, vib_depth) - target) ** 2)


TGT_GLIDE = glide_osc(300.0, 450.0, 4.0)
add(G("r20e_glide_cumsum_phase", glide_loss, (310.0, 440.0, 3.0, TGT_GLIDE), argnums=(0, 1, 2), ref="jax", tol=1e-9))


# ---------------------------------------------------------------- PolyBLEP saw
def poly_blep(t, dt):
    if t < dt:
        t = t / dt
        return t + t - t * t - 1.0
    elif t > 1.0 - dt:
        t = (t - 1.0) / dt
        return t * t + t + t + 1.0
    return 0.0


def blep_saw(freq, n=120):
    dt = freq / SR
    phase = 0.0
    out = []
    for _ in range(n):
        out.append(2.0 * phase - 1.0 - poly_blep(phase, dt))
        phase += dt
        if phase >= 1.0:
            phase -= 1.0
    return np.array(out)


def blep_saw_loss(freq):
    y = blep_saw(freq)
    return np.sum(y * np.cos(2 * np.pi * 440.0 * T[:120]))


add(pair("r20e_polyblep_saw_branches_ag", lambda: revsrc.grad(blep_saw_loss)(437.0),
         lambda: ag()[0].grad(agify(blep_saw_loss))(437.0), tol=1e-9))
add(G("r20e_polyblep_saw_fd", blep_saw_loss, (437.0,), ref="fd", tol=1e-5, h=1e-4))


# ---------------------------------------------------------------- filters
NOISE = np.random.default_rng(5).normal(size=N)


def svf_lowpass(x, fc, q):
    f = 2 * math.sin(math.pi * fc / SR)
    low = band = 0.0
    y = np.zeros_like(x)
    for i, xi in enumerate(x):
        low += f * band
        high = xi - low - band / q
        band += f * high
        y[i] = low
    return y


def svf_energy_ratio(fc, q):
    y = svf_lowpass(NOISE, fc, q)
    return np.sum(y ** 2) / np.sum(NOISE ** 2)


add(VG("r20e_chamberlin_svf_inplace", svf_energy_ratio, (800.0, 0.9), argnums=(0, 1), ref="fd", tol=1e-6))
add(H("r20e_chamberlin_svf_hessian", lambda p: svf_energy_ratio(p[0], p[1]), (np.array([800.0, 0.9]),), ref="fd", tol=1e-4,
      h=1e-3))


def moog_ladder(x, cutoff, res):
    g = 1 - math.exp(-2 * math.pi * cutoff / SR)
    stage = [0.0, 0.0, 0.0, 0.0]
    out = np.zeros(len(x))
    for n_, xn in enumerate(x):
        u = math.tanh(xn - 4 * res * stage[3])
        for k in range(4):
            inp = u if k == 0 else stage[k - 1]
            stage[k] = stage[k] + g * (math.tanh(inp) - math.tanh(stage[k]))
        out[n_] = stage[3]
    return out


def moog_loss(cutoff, res):
    return np.sum(moog_ladder(NOISE[:100], cutoff, res) ** 2)


add(G("r20e_moog_ladder_list_state", moog_loss, (1000.0, 0.4), argnums=(0, 1), ref="fd", tol=1e-6))


def one_pole_dc_blocker(x, drive, r=0.995):
    y = np.tanh(drive * x)
    out = np.zeros_like(y)
    prev_x = prev_y = 0.0
    for i in range(len(y)):
        out[i] = y[i] - prev_x + r * prev_y
        prev_x, prev_y = y[i], out[i]
    return np.sum(out ** 2)


add(G("r20e_waveshaper_dc_blocker_wrt_signal", one_pole_dc_blocker, (NOISE[:64], 2.0), argnums=(0, 1), ref="fd", tol=1e-6))


# ---------------------------------------------------------------- wavefolder / envelope follower
def fold(x):
    while x > 1.0 or x < -1.0:
        if x > 1.0:
            x = 2.0 - x
        else:
            x = -2.0 - x
    return x


def folder_out(gain, bias):
    return sum(fold(gain * math.sin(2 * math.pi * k / 32) + bias) ** 2 for k in range(32))


add(pair("r20e_wavefolder_while_branches_ag", lambda: revsrc.grad(folder_out, argnums=(0, 1))(3.3, 0.2),
         lambda: ag()[0].grad(agify(folder_out), argnum=(0, 1))(3.3, 0.2), tol=1e-10))
add(G("r20e_wavefolder_fd", folder_out, (3.3, 0.2), argnums=0, ref="fd", tol=1e-6))


def env_follower(x, attack, release):
    a = math.exp(-1.0 / (attack * SR))
    r = math.exp(-1.0 / (release * SR))
    env = 0.0
    out = np.zeros(len(x))
    for i, v in enumerate(np.abs(x)):
        coef = a if v > env else r
        env = coef * env + (1 - coef) * v
        out[i] = env
    return out


def compressor_gain_loss(attack, release, x=NOISE * np.exp(-T * 20)):
    env = env_follower(x, attack, release)
    gain_db = np.minimum(0.0, -0.5 * (20 * np.log10(env + 1e-6) + 12.0))
    return np.mean(gain_db ** 2)


add(G("r20e_env_follower_attack_release", compressor_gain_loss, (0.002, 0.05), argnums=(0, 1), ref="fd", tol=1e-6,
      h=1e-8, check=1e-3))


def chorus(x, depth, rate, base=12.0):
    y = np.zeros_like(x)
    for n_ in range(len(x)):
        d = base + depth * math.sin(2 * math.pi * rate * n_ / SR)
        pos = n_ - d
        i = int(math.floor(pos))
        frac = pos - i
        if i >= 0 and i + 1 < len(x):
            y[n_] = x[n_] + (1 - frac) * x[i] + frac * x[i + 1]
        else:
            y[n_] = x[n_]
    return np.sum(y * NOISE[:len(x)][::-1])


add(G("r20e_chorus_fractional_delay_floor", chorus, (NOISE[:80], 3.0, 2.0), argnums=(1, 2), ref="fd", tol=1e-6))
add(G("r20e_chorus_wrt_input", chorus, (NOISE[:80], 3.0, 2.0), argnums=0, ref="fd", tol=1e-6))


# ---------------------------------------------------------------- partials, spectra
def piano_partials(f0, B, n_partials=8, t=T):
    y = np.zeros_like(t)
    for k in range(1, n_partials + 1):
        fk = k * f0 * math.sqrt(1 + B * k * k)
        y += np.exp(-t * 3.0 * k) / k * np.sin(2 * np.pi * fk * t)
    return y


def stft_mag(y, frame=64):
    frames = y[: len(y) // frame * frame].reshape(-1, frame) * np.hanning(frame)
    return np.abs(np.fft.rfft(frames, axis=1))


TGT_PIANO = piano_partials(261.6, 4e-4)


def multiscale_loss(f0, B):
    y = piano_partials(f0, B)
    loss = 0.0
    for frame in (32, 64, 128):
        S, Tm = stft_mag(y, frame), stft_mag(TGT_PIANO, frame)
        loss += np.mean(np.abs(np.log(S + 1e-4) - np.log(Tm + 1e-4))) + np.linalg.norm(S - Tm) / np.linalg.norm(Tm)
    return loss


add(VG("r20e_multiscale_stft_piano_partials", multiscale_loss, (258.0, 3e-4), argnums=(0, 1), ref="fd", tol=1e-5,
       h=1e-6))


def mel_filterbank(n_mels=6, n_fft=N):
    freqs = np.fft.rfftfreq(n_fft, 1 / SR)
    mel = lambda f: 2595 * np.log10(1 + f / 700.0)  # noqa: E731
    edges = 700 * (10 ** (np.linspace(mel(0.0), mel(SR / 2), n_mels + 2) / 2595) - 1)
    fb = np.zeros((n_mels, len(freqs)))
    for m in range(n_mels):
        lo, c, hi = edges[m], edges[m + 1], edges[m + 2]
        for k, f in enumerate(freqs):
            if lo <= f <= c:
                fb[m, k] = (f - lo) / (c - lo)
            elif c < f <= hi:
                fb[m, k] = (hi - f) / (hi - c)
    return fb


MELFB = mel_filterbank()


def mel_loss(f0, B):
    S = np.abs(np.fft.rfft(piano_partials(f0, B))) ** 2
    T_ = np.abs(np.fft.rfft(TGT_PIANO)) ** 2
    return np.sum((np.log(MELFB @ S + 1e-6) - np.log(MELFB @ T_ + 1e-6)) ** 2)


add(G("r20e_mel_filterbank_loss", mel_loss, (258.0, 3e-4), argnums=(0, 1), ref="jax", tol=1e-8))


def harmonic_salience(f0, x=TGT_PIANO, n_h=5):
    # DFT evaluated at the harmonics of a continuous f0 (complex exponentials)
    total = 0.0
    for h in range(1, n_h + 1):
        z = np.sum(x * np.exp(-2j * np.pi * h * f0 * T))
        total += np.abs(z) ** 2 / h
    return total


add(G("r20e_harmonic_salience_complex_dft", harmonic_salience, (262.0,), ref="jax", tol=1e-9))


def loudness_db(gain, x):
    rms = math.sqrt(np.mean((gain * x) ** 2))
    if rms < 1e-8:
        return -120.0
    return 20.0 * math.log10(rms)


add(pair("r20e_loudness_db_closed_form", lambda: revsrc.grad(loudness_db)(0.5, NOISE), lambda: 20.0 / (0.5 * math.log(10)),
         tol=1e-12))
add(pair("r20e_loudness_silence_branch", lambda: revsrc.grad(loudness_db)(0.5, np.zeros(8)), lambda: 0.0, tol=0.0))


# ---------------------------------------------------------------- classes, partial
class Oscillator:
    def __init__(self, freq, amp):
        self.freq = freq
        self.amp = amp

    @property
    def omega(self):
        return 2 * np.pi * self.freq

    def render(self, t):
        return self.amp * np.sin(self.omega * t)


class SoftSquare(Oscillator):
    def __init__(self, freq, amp, hardness):
        super().__init__(freq, amp)
        self.hardness = hardness

    def render(self, t):
        return self.amp * np.tanh(self.hardness * super().render(t) / self.amp)


def voice_loss(freq, amp, hardness, target):
    osc = SoftSquare(freq, amp, hardness)
    return np.mean((osc.render(T[:128]) - target) ** 2)


TGT_SQ = np.sign(np.sin(2 * np.pi * 200.0 * T[:128])) * 0.5
add(G("r20e_softsquare_subclass_super_render", voice_loss, (198.0, 0.45, 3.0, TGT_SQ), argnums=(0, 1, 2), ref="fd",
      tol=1e-6))

spectral_convergence = functools.partial(multiscale_loss, B=4e-4)
add(G("r20e_partial_multiscale_keyword_bound", spectral_convergence, (258.0,), ref="fd", tol=1e-5, h=1e-6))
add(pair("r20e_empty_signal_loudness", lambda: revsrc.grad(one_pole_dc_blocker, argnums=1)(np.zeros(0), 2.0),
         lambda: 0.0, tol=0.0))
add(G("r20e_float32_signal_dc_blocker", one_pole_dc_blocker, (NOISE[:32].astype(np.float32), 2.0), argnums=1, ref="fd",
      tol=1e-3, h=1e-3, check=1e-2))


def harmonic_salience_real(f0, x=TGT_PIANO, n_h=5):
    # the same with the real and imaginary parts written out
    total = 0.0
    for h in range(1, n_h + 1):
        ph = 2 * np.pi * h * f0 * T
        total += (np.sum(x * np.cos(ph)) ** 2 + np.sum(x * np.sin(ph)) ** 2) / h
    return total


add(G("r20e_harmonic_salience_real_imag", harmonic_salience_real, (262.0,), ref="jax", tol=1e-9))


def additive_einsum(amps, decays, n_partials=6):
    k = np.arange(1, n_partials + 1)
    basis = np.sin(2 * np.pi * 110.0 * k[:, None] * T[None, :128])
    env = np.exp(-np.outer(decays, T[:128]))
    y = np.einsum("k,kn,kn->n", amps, env, basis)
    return np.sum((y - TGT_PIANO[:128]) ** 2)


add(G("r20e_additive_einsum_three_operands", additive_einsum, (np.linspace(1.0, 0.2, 6), np.linspace(3.0, 18.0, 6)),
      argnums=(0, 1), ref="ag", tol=1e-9))


def adsr_np(params, t=T):
    a, d, s, r, gate = params
    att = np.clip(t / a, 0.0, 1.0)
    dec = 1.0 - (1.0 - s) * np.clip((t - a) / d, 0.0, 1.0)
    held = np.where(t < a, att, dec)
    rel = held * np.exp(-np.maximum(t - gate, 0.0) / r)
    return np.where(t < gate, held, rel)


add(pair("r20e_adsr_clip_where_jacfwd", lambda: revsrc.jacfwd(adsr_np)(np.array([0.00413, 0.0081, 0.6, 0.0052, 0.0203]))[::16],
         lambda: fdj(adsr_np, np.array([0.00413, 0.0081, 0.6, 0.0052, 0.0203]), h=1e-8)[::16], tol=1e-5))


def make_tremolo(rate, depth):
    def lfo(t):
        return 1.0 - depth * 0.5 * (1 + np.sin(2 * np.pi * rate * t))
    return lfo


def tremolo_loss(rate, depth):
    lfo = make_tremolo(rate, depth)
    y = lfo(T) * np.sin(2 * np.pi * 330.0 * T)
    return np.sum(y ** 2)


add(G("r20e_tremolo_closure_factory", tremolo_loss, (6.0, 0.4), argnums=(0, 1), ref="jax", tol=1e-9))


def filtfilt_onepole(x, a):
    # zero-phase: forward then backward over reversed indices
    y = np.zeros_like(x)
    prev = 0.0
    for i in range(len(x)):
        prev = a * prev + (1 - a) * x[i]
        y[i] = prev
    z = np.zeros_like(x)
    prev = 0.0
    for i in reversed(range(len(x))):
        prev = a * prev + (1 - a) * y[i]
        z[i] = prev
    return np.sum((z - 0.3 * x) ** 2)


add(G("r20e_filtfilt_reversed_loop", filtfilt_onepole, (NOISE[:60], 0.7), argnums=(0, 1), ref="fd", tol=1e-6))


def grain_mix(offsets, amps):
    # grains placed in time order (sorted by constant start index)
    starts = [40, 5, 22, 70]
    out = np.zeros(120)
    win = np.hanning(32)
    for s, off, a in sorted(zip(starts, offsets, amps), key=lambda g: g[0]):
        out[s:s + 32] += a * win * np.sin(2 * np.pi * (440.0 + off) * T[:32])
    return np.sum(out ** 2)


add(G("r20e_grains_sorted_zip_key_lambda", grain_mix, (np.array([0.0, 5.0, -3.0, 2.0]), np.array([1.0, 0.5, 0.8, 0.3])),
      argnums=(0, 1), ref="fd", tol=1e-6))
add(pair("r20e_vmap_grad_glide_in_axes_0_none", lambda: revsrc.vmap(revsrc.grad(glide_loss), in_axes=(0, None, None, None))(
    np.array([305.0, 310.0]), 440.0, 3.0, TGT_GLIDE),
         lambda: np.array([fd_checked(glide_loss, (v, 440.0, 3.0, TGT_GLIDE))[0] for v in (305.0, 310.0)]), tol=1e-6))
