"""Round 18, part d: complex numbers and signals -- complex arithmetic, np.fft, np.abs,
np.angle, phase unwrapping, magnitude and spectral losses, filters' frequency responses,
Hessians of real functions of complex intermediates."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

FS = 64.0
T = np.arange(64) / FS
SIG = np.sin(2 * np.pi * 5 * T) + 0.5 * np.cos(2 * np.pi * 12 * T + 0.3)


def freq_response(b, a, w):
    z = np.exp(-1j * w)
    num = sum(bk * z ** k for k, bk in enumerate(b))
    den = sum(ak * z ** k for k, ak in enumerate(a))
    return num / den


W = np.linspace(0.01, np.pi, 40)
TARGET_MAG = np.where(W < 1.0, 1.0, 0.05)


def filter_design_loss(b, a=np.array([1.0, -0.5, 0.2])):
    H_ = freq_response(b, a, W)
    return np.mean((np.abs(H_) - TARGET_MAG) ** 2)


B0 = np.array([0.3, 0.4, 0.2, 0.1])
add(G("r18d_fir_iir_mag_response_sum_generator", filter_design_loss, (B0,), ref="jax", tol=1e-11))
add(H("r18d_fir_iir_mag_response_hessian", filter_design_loss, (B0,), ref="jax", tol=1e-9))
add(G("r18d_iir_denominator_wrt_a", filter_design_loss, (B0, np.array([1.0, -0.5, 0.2])), argnums=1, ref="jax", tol=1e-11))


def group_delay_loss(b):
    H_ = freq_response(b, np.array([1.0]), W)
    ph = np.unwrap(np.angle(H_))
    gd = -np.diff(ph) / np.diff(W)
    return np.var(gd)


add(G("r18d_group_delay_unwrap_angle", group_delay_loss, (np.array([0.2, 0.5, 0.3, -0.1]),), ref="fd", tol=1e-6))


def manual_unwrap(p):
    out = p.copy()
    for i in range(1, p.shape[0]):
        d = out[i] - out[i - 1]
        while d > np.pi:
            out[i:] -= 2 * np.pi
            d -= 2 * np.pi
        while d < -np.pi:
            out[i:] += 2 * np.pi
            d += 2 * np.pi
    return out


def phase_slope(b):
    H_ = freq_response(b, np.array([1.0]), W)
    ph = manual_unwrap(np.angle(H_))
    A = np.stack([W, np.ones_like(W)], axis=1)
    coef = np.linalg.lstsq(A, ph, rcond=None)[0]
    return coef[0]


add(G("r18d_manual_unwrap_while_slice_write_lstsq", phase_slope, (np.array([0.2, 0.5, 0.3, -0.1]),), ref="fd", tol=1e-6))


def spectral_peak_loss(params):
    amp, f0, ph = params[0], params[1], params[2]
    x = amp * np.sin(2 * np.pi * f0 * T + ph)
    X = np.fft.rfft(x)
    P = np.abs(X) ** 2 / x.shape[0]
    target = np.abs(np.fft.rfft(SIG)) ** 2 / SIG.shape[0]
    return np.sum((np.sqrt(P + 1e-9) - np.sqrt(target + 1e-9)) ** 2)


PRM = np.array([0.9, 5.3, 0.1])
add(G("r18d_rfft_power_spectrum_match", spectral_peak_loss, (PRM,), ref="jax", tol=1e-9))
add(H("r18d_rfft_power_spectrum_hessian", spectral_peak_loss, (PRM,), ref="jax", tol=1e-7))


def fft_lowpass(x, cutoff=8):
    X = np.fft.fft(x)
    k = np.fft.fftfreq(x.shape[0], d=1.0 / FS)
    X = np.where(np.abs(k) <= cutoff, X, 0.0)
    return np.real(np.fft.ifft(X))


def denoise_loss(x):
    y = fft_lowpass(x)
    return np.sum((y - np.sin(2 * np.pi * 5 * T)) ** 2) + 0.01 * np.sum(np.diff(x) ** 2)


add(G("r18d_fft_where_mask_ifft_real", denoise_loss, (SIG,), ref="jax", tol=1e-11))


def fft_inplace_mask(x, cutoff=8):
    X = np.fft.fft(x)
    k = np.fft.fftfreq(x.shape[0], d=1.0 / FS)
    X[np.abs(k) > cutoff] = 0.0
    return np.sum(np.real(np.fft.ifft(X)) ** 2)


add(G("r18d_fft_boolean_mask_write_complex", fft_inplace_mask, (SIG,), ref="fd", tol=1e-7))


def complex_poly_roots_energy(c):
    # roots of z^2 + c0 z + c1 via complex sqrt, energy = sum |root|^2 + phase penalty
    disc = np.sqrt(c[0] ** 2 - 4 * c[1] + 0j)
    r1 = (-c[0] + disc) / 2
    r2 = (-c[0] - disc) / 2
    return np.abs(r1) ** 2 + np.abs(r2) ** 2 + np.angle(r1) ** 2


add(G("r18d_complex_roots_sqrt_plus_0j", complex_poly_roots_energy, (np.array([0.6, 0.5]),), ref="jax", tol=1e-11))
add(H("r18d_complex_roots_hessian", complex_poly_roots_energy, (np.array([0.6, 0.5]),), ref="jax", tol=1e-9))


def holo_f(z):
    return np.sum(z ** 3 - 2 * z + np.exp(0.3 * z))


ZC = np.array([0.5 + 0.2j, -0.3 + 1.1j])
add(pair("r18d_holomorphic_grad_complex_array", lambda: revsrc.grad(holo_f, holomorphic=True)(ZC),
         lambda: 3 * ZC ** 2 - 2 + 0.3 * np.exp(0.3 * ZC), tol=1e-12))


def mag_of_complex_arg(z):
    return np.sum(np.abs(z * np.conj(z) + z) ** 2)


add(pair("r18d_real_of_complex_arg_convention", lambda: revsrc.grad(mag_of_complex_arg)(ZC),
         lambda: np.conj(jax().grad(jaxify(mag_of_complex_arg))(ZC)) if False else jax().grad(jaxify(mag_of_complex_arg))(ZC), tol=1e-11))


class Resonator:
    def __init__(self, f0, q):
        self.f0 = f0
        self.q = q

    def response(self, f):
        return 1.0 / (1.0 + 1j * self.q * (f / self.f0 - self.f0 / f))


class CoupledResonator(Resonator):
    def __init__(self, f0, q, k):
        super().__init__(f0, q)
        self.k = k

    def response(self, f):
        base = super().response(f)
        return base / (1.0 + self.k * base)


FREQ = np.linspace(0.8, 1.2, 30)
MEAS = np.abs(CoupledResonator(1.01, 25.0, 0.2).response(FREQ))


def fit_resonator(p):
    r = CoupledResonator(p[0], p[1], p[2])
    return np.sum((np.abs(r.response(FREQ)) - MEAS) ** 2)


P0 = np.array([0.99, 20.0, 0.25])
add(G("r18d_resonator_subclass_super_complex", fit_resonator, (P0,), ref="fd", tol=1e-6))


def stft_energy(x, win=16, hop=8):
    w = np.hanning(win)
    frames = [x[i:i + win] * w for i in range(0, x.shape[0] - win + 1, hop)]
    S = np.stack([np.abs(np.fft.rfft(f)) for f in frames])
    return np.sum(np.log1p(S))


add(G("r18d_stft_list_frames_log_mag", stft_energy, (SIG,), ref="jax", tol=1e-10))


def chirp_phase_loss(k, f0=3.0):
    ph = 2 * np.pi * (f0 * T + 0.5 * k * T ** 2)
    z = np.exp(1j * ph)
    inst = np.diff(np.unwrap(np.angle(z))) * FS / (2 * np.pi)
    return np.sum((inst - (f0 + 10 * T[:-1])) ** 2)


add(G("r18d_chirp_inst_freq_unwrap", chirp_phase_loss, (8.0,), ref="fd", tol=1e-6))


def cross_corr_delay(shift, x=SIG):
    # fractional delay by a phase ramp in the frequency domain
    n = x.shape[0]
    k = np.fft.fftfreq(n)
    y = np.real(np.fft.ifft(np.fft.fft(x) * np.exp(-2j * np.pi * k * shift)))
    return -np.sum(y * np.roll(x, 3))


add(G("r18d_fractional_delay_phase_ramp", cross_corr_delay, (2.4,), ref="jax", tol=1e-10))
add(H("r18d_fractional_delay_hessian", cross_corr_delay, (2.4,), ref="jax", tol=1e-9))
add(G("r18d_fractional_delay_backend_jax", cross_corr_delay, (2.4,), ref="jax", tol=1e-10, backend="jax"))


def jacfwd_complex_map(p):
    z = p[0] + 1j * p[1]
    w = z * z + np.exp(z)
    return np.array([np.real(w), np.imag(w), np.abs(w)])


add(pair("r18d_jacfwd_real_view_of_complex_map", lambda: revsrc.jacfwd(jacfwd_complex_map)(np.array([0.3, 0.7])),
         lambda: jax().jacfwd(jaxify(jacfwd_complex_map))(np.array([0.3, 0.7])), tol=1e-11))
add(pair("r18d_jacrev_real_view_of_complex_map", lambda: revsrc.jacrev(jacfwd_complex_map)(np.array([0.3, 0.7])),
         lambda: jax().jacrev(jaxify(jacfwd_complex_map))(np.array([0.3, 0.7])), tol=1e-11))


def angle_zero_edge(x):
    z = x + 0j
    return np.angle(z) + np.abs(z)


add(G("r18d_angle_positive_real_axis", angle_zero_edge, (2.0,), ref=lambda: 1.0, tol=1e-12))


def dft_matrix_loss(x):
    n = x.shape[0]
    k = np.arange(n)
    F = np.exp(-2j * np.pi * np.outer(k, k) / n)
    X = F @ x
    return np.sum(np.abs(X[1:n // 2]) ** 2 * k[1:n // 2])


X16 = SIG[:16]
add(G("r18d_dft_matrix_outer_vs_weighted", dft_matrix_loss, (X16,), ref="jax", tol=1e-10))


def fft_float32_input(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2)


add(pair("r18d_parseval_float32_input", lambda: revsrc.grad(fft_float32_input)(SIG[:16].astype(np.float32)),
         lambda: 2 * 16 * SIG[:16], tol=1e-5))


def empty_signal_energy(x):
    return np.sum(np.abs(np.fft.rfft(x)) ** 2) if x.shape[0] > 0 else 0.0 * np.sum(x)


add(G("r18d_parseval_rfft", empty_signal_energy, (SIG[:10],), ref="jax", tol=1e-10))


def centered_spectrum_moment(x):
    # spectral centroid on the fftshift-ed (centered) frequency axis
    n = x.shape[0]
    P = np.fft.fftshift(np.abs(np.fft.fft(x)) ** 2)
    f = np.fft.fftshift(np.fft.fftfreq(n))
    return np.sum(f ** 2 * P) / np.sum(P)


add(G("r18d_spectral_spread_fftshift", centered_spectrum_moment, (SIG,), ref="jax", tol=1e-11))


def ortho_padded_energy(x):
    X = np.fft.rfft(x, n=96, norm="ortho")
    return np.sum(np.abs(X[5:20]) ** 3)


add(G("r18d_rfft_ortho_zero_padded", ortho_padded_energy, (SIG,), ref="jax", tol=1e-10))
add(H("r18d_rfft_ortho_zero_padded_hessian", ortho_padded_energy, (SIG[:20],), ref="jax", tol=1e-9))


def irfft_odd_length(x):
    return np.sum(np.fft.irfft(np.fft.rfft(x) * np.exp(-0.1 * np.arange(x.shape[0] // 2 + 1)), n=x.shape[0]) ** 3)


add(G("r18d_irfft_odd_length_filter", irfft_odd_length, (SIG[:15],), ref="jax", tol=1e-11))

# ---- backend="jax"
add(G("r18d_manual_unwrap_backend_jax", phase_slope, (np.array([0.2, 0.5, 0.3, -0.1]),), ref="fd", tol=1e-6, backend="jax"))
add(G("r18d_fft_boolean_mask_write_backend_jax", fft_inplace_mask, (SIG,), ref="fd", tol=1e-7, backend="jax"))
add(G("r18d_rfft_power_spectrum_backend_jax", spectral_peak_loss, (PRM,), ref="jax", tol=1e-9, backend="jax"))
add(G("r18d_resonator_subclass_backend_jax", fit_resonator, (P0,), ref="fd", tol=1e-6, backend="jax"))
add(G("r18d_stft_list_frames_backend_jax", stft_energy, (SIG,), ref="jax", tol=1e-10, backend="jax"))


def log_spectrum_floor(a, x=np.ones(16)):
    # log-power spectrum with a floor where a bin is empty: np.where(P > 0, log P, -20);
    # every bin but the DC one is exactly zero for a constant signal
    P = np.abs(np.fft.fft(a * x)) ** 2
    L = np.where(P > 0, np.log(np.where(P > 0, P, 1.0)), -20.0)
    return np.sum(L)


def log_spectrum_naive(a, x=np.ones(16)):
    # the naive form a user writes first: the log of an empty bin is -inf in the arm not
    # taken (a NumPy warning), and the result is still finite
    P = np.abs(np.fft.fft(a * x)) ** 2
    with np.errstate(divide="ignore"):
        L = np.where(P > 1e-20, np.log(P), -20.0)
    return np.sum(L)


add(G("r18d_log_spectrum_double_where", log_spectrum_floor, (1.5,), ref=lambda: 2 / 1.5, tol=1e-9))
add(G("r18d_log_spectrum_double_where_backend_jax", log_spectrum_floor, (1.5,), ref=lambda: 2 / 1.5, tol=1e-9, backend="jax"))
add(G("r18d_log_spectrum_where_inf_arm", log_spectrum_naive, (1.5,), ref=lambda: 2 / 1.5, tol=1e-9))
add(G("r18d_log_spectrum_where_inf_arm_backend_jax", log_spectrum_naive, (1.5,), ref=lambda: 2 / 1.5, tol=1e-9, backend="jax"))


def sinc_interp(t_shift, x=SIG[:12]):
    # band-limited (sinc) interpolation at shifted sample times; the user guards x == 0
    n = np.arange(x.shape[0])
    arg = np.pi * (n - t_shift - 4.0)
    k = np.where(arg == 0.0, 1.0, np.sin(arg) / np.where(arg == 0.0, 1.0, arg))
    return np.sum(k * x)


def sinc_interp_naive(t_shift, x=SIG[:12]):
    n = np.arange(x.shape[0])
    arg = np.pi * (n - t_shift - 4.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(arg == 0.0, 1.0, np.sin(arg) / arg)
    return np.sum(k * x)


def _sinc_ref(t, x=SIG[:12]):
    # d/dt sinc(pi u), u = n - t - 4: -(cos(pi u) / u - sin(pi u) / (pi u^2)), 0 at u = 0
    u = np.arange(12) - t - 4.0
    safe = np.where(u == 0.0, 1.0, u)
    d = np.where(u == 0.0, 0.0, np.cos(np.pi * safe) / safe - np.sin(np.pi * safe) / (np.pi * safe ** 2))
    return -np.sum(d * x)


add(G("r18d_sinc_interp_double_where_at_sample", sinc_interp, (0.0,), ref=lambda: _sinc_ref(0.0), tol=1e-10))
add(G("r18d_sinc_interp_naive_where_at_sample", sinc_interp_naive, (0.0,), ref=lambda: _sinc_ref(0.0), tol=1e-10))
add(G("r18d_sinc_interp_naive_where_backend_jax", sinc_interp_naive, (0.0,), ref=lambda: _sinc_ref(0.0), tol=1e-10, backend="jax"))
add(G("r18d_sinc_interp_off_sample_fd", sinc_interp_naive, (0.3,), ref="fd", tol=1e-7))
