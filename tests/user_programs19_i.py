"""Round 19, part i: acoustics and optics -- ray transfer (ABCD) matrices of lens systems,
Gaussian beam q-parameters, thin-film stacks by characteristic matrices with complex
indices, Fresnel coefficients at oblique incidence, Snell refraction through layers,
image-source room impulse responses with fractional delays, delay-and-sum and MVDR
beamforming with complex steering vectors, Sabine/Eyring reverberation, with helpers,
classes, closures and pytree parameters."""
import functools  # noqa: F401
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


# -- ABCD matrices ------------------------------------------------------------------------

def prop(d):
    return np.array([[1.0, d], [0.0, 1.0]])


def thin_lens(f):
    return np.array([[1.0, 0.0], [-1.0 / f, 1.0]])


def interface(n1, n2, R):
    return np.array([[1.0, 0.0], [(n1 - n2) / (R * n2), n1 / n2]])


def system_matrix(elements):
    M = np.eye(2)
    for E in elements:
        M = E @ M
    return M


def back_focal_length(params):
    f1, f2, d = params
    M = system_matrix([thin_lens(f1), prop(d), thin_lens(f2)])
    return -M[0, 0] / M[1, 0]


def _bfl_closed(params):
    f1, f2, d = params
    feff = f1 * f2 / (f1 + f2 - d)
    return feff * (f1 - d) / f1


add(G("r19i_two_lens_back_focal_length", back_focal_length, (np.array([50.0, -30.0, 10.0]),),
      ref=lambda: fd_checked(_bfl_closed, (np.array([50.0, -30.0, 10.0]),), h=1e-4)[0], tol=1e-7))
add(H("r19i_two_lens_bfl_hessian", back_focal_length, (np.array([50.0, -30.0, 10.0]),),
      ref="jax", tol=1e-9))


def thick_lens_power(R1, R2, n=1.5, t=5.0):
    M = system_matrix([interface(1.0, n, R1), prop(t), interface(n, 1.0, R2)])
    return -M[1, 0]


def _lensmaker(R1, R2, n=1.5, t=5.0):
    return (n - 1) * (1 / R1 - 1 / R2 + (n - 1) * t / (n * R1 * R2))


add(pair("r19i_thick_lens_power_vs_lensmaker",
         lambda: revsrc.grad(thick_lens_power, argnums=(0, 1, 2))(40.0, -60.0, 1.5),
         lambda: tuple(fd_checked(_lensmaker, (40.0, -60.0, 1.5), argnums=(0, 1, 2))), tol=1e-7))


def gaussian_beam_waist_after(w0, f, d, lam=1.064e-3):
    zr = math.pi * w0 ** 2 / lam
    q = complex(0.0, 1.0) * zr
    for A, B, C, D in ((1.0, d, 0.0, 1.0), (1.0, 0.0, -1.0 / f, 1.0), (1.0, 2 * f, 0.0, 1.0)):
        q = (A * q + B) / (C * q + D)
    inv = 1.0 / q
    return math.sqrt(-lam / (math.pi * inv.imag))


add(G("r19i_gaussian_beam_q_complex_ctor", gaussian_beam_waist_after, (0.5, 100.0, 30.0),
      argnums=(0, 1, 2), ref="fd", tol=1e-6, h=1e-4))


def gaussian_beam_waist_1j(w0, f, d, lam=1.064e-3):
    zr = math.pi * w0 ** 2 / lam
    q = 1j * zr
    for A, B, C, D in ((1.0, d, 0.0, 1.0), (1.0, 0.0, -1.0 / f, 1.0), (1.0, 2 * f, 0.0, 1.0)):
        q = (A * q + B) / (C * q + D)
    return math.sqrt(-lam / (math.pi * (1.0 / q).imag))


add(G("r19i_gaussian_beam_q_1j", gaussian_beam_waist_1j, (0.5, 100.0, 30.0),
      argnums=(0, 1, 2), ref="fd", tol=1e-6, h=1e-4))


# -- thin film stack by characteristic matrices ------------------------------------------

LAMS = np.linspace(450.0, 700.0, 6)


def layer_matrix(n, d, lam):
    delta = 2 * np.pi * n * d / lam
    return np.array([[np.cos(delta), 1j * np.sin(delta) / n],
                     [1j * n * np.sin(delta), np.cos(delta)]])


def stack_reflectance(thick, ns=(1.38, 2.1, 1.46), n_sub=1.52, lam=550.0):
    M = np.eye(2, dtype=complex)
    for n, d in zip(ns, thick):
        M = M @ layer_matrix(n, d, lam)
    B = M[0, 0] + M[0, 1] * n_sub
    C = M[1, 0] + M[1, 1] * n_sub
    r = (B - C) / (B + C)
    return abs(r) ** 2


def ar_coating_merit(thick):
    return sum(stack_reflectance(thick, lam=lam) for lam in LAMS) / len(LAMS)


TH0 = np.array([100.0, 60.0, 90.0])
add(G("r19i_thin_film_ar_merit", ar_coating_merit, (TH0,), ref="fd", tol=1e-7, h=1e-3))
add(G("r19i_thin_film_ar_merit_ag", ar_coating_merit, (TH0,), ref="ag", tol=1e-10))
add(H("r19i_thin_film_hessian", ar_coating_merit, (TH0,), ref="ag", tol=1e-8))


def absorbing_film_R(params, lam=600.0):
    n, k, d = params
    N = n - 1j * k
    r01 = (1.0 - N) / (1.0 + N)
    r12 = (N - 1.5) / (N + 1.5)
    beta = 2 * np.pi * N * d / lam
    ph = np.exp(-2j * beta)
    r = (r01 + r12 * ph) / (1 + r01 * r12 * ph)
    return np.abs(r) ** 2


add(G("r19i_absorbing_film_airy", absorbing_film_R, (np.array([2.0, 0.3, 80.0]),), ref="jax",
      tol=1e-10))


# -- Fresnel at oblique incidence -------------------------------------------------------

def fresnel_rs_rp(theta, n1, n2):
    ci = np.cos(theta)
    st = n1 / n2 * np.sin(theta)
    ct = np.sqrt(1 - st ** 2 + 0j)
    rs = (n1 * ci - n2 * ct) / (n1 * ci + n2 * ct)
    rp = (n2 * ci - n1 * ct) / (n2 * ci + n1 * ct)
    return np.abs(rs) ** 2, np.abs(rp) ** 2


def unpolarized_R(theta, n2=1.5):
    Rs, Rp = fresnel_rs_rp(theta, 1.0, n2)
    return 0.5 * (Rs + Rp)


add(G("r19i_fresnel_unpolarized_oblique", unpolarized_R, (0.7,), ref="fd", tol=1e-8))
add(G("r19i_fresnel_wrt_index", unpolarized_R, (0.7, 1.5), argnums=1, ref="jax", tol=1e-10))
add(G("r19i_fresnel_tir_beyond_critical", lambda th: fresnel_rs_rp(th, 1.5, 1.0)[1], (0.9,),
      ref="fd", tol=1e-8))


def brewster_residual(theta, n2):
    _, Rp = fresnel_rs_rp(theta, 1.0, n2)
    return Rp


add(JV("r19i_fresnel_jvp_near_brewster", brewster_residual, (0.95, 1.5), (1.0, 0.2), ref="fd",
       tol=1e-8))


# -- Snell refraction through a layered medium (ray tracing) ----------------------------

def ray_offset(theta0, ns, ts):
    s = math.sin(theta0)
    x = 0.0
    for n, t in zip(ns, ts):
        st = s / n
        x += t * st / math.sqrt(1.0 - st * st)
    return x


NS_L = (1.0, 1.33, 1.5, 1.2)
TS_L = np.array([1.0, 2.0, 0.5, 1.5])
add(G("r19i_snell_layers_offset_theta", ray_offset, (0.4, NS_L, TS_L), ref="fd", tol=1e-8))
add(G("r19i_snell_layers_offset_thickness", ray_offset, (0.4, NS_L, TS_L), argnums=2,
      ref="fd", tol=1e-8))


# -- image-source room impulse response -------------------------------------------------

C_SND = 343.0
FS = 8000.0


def image_sources(src, room, order=1):
    L = np.asarray(room)
    out = []
    for i in range(-order, order + 1):
        for j in range(-order, order + 1):
            if abs(i) + abs(j) > order:
                continue
            x = i * L[0] + (src[0] if i % 2 == 0 else L[0] - src[0])
            y = j * L[1] + (src[1] if j % 2 == 0 else L[1] - src[1])
            out.append((np.array([x, y]), abs(i) + abs(j)))
    return out


def rir_energy(src, mic=np.array([1.3, 2.1]), room=(5.0, 4.0), beta=0.8, n=200):
    h = np.zeros(n)
    t = np.arange(n)
    for pos, k in image_sources(src, room):
        dist = np.linalg.norm(pos - mic)
        delay = dist / C_SND * FS
        amp = beta ** k / (4 * np.pi * dist)
        h = h + amp * np.exp(-0.5 * ((t - delay) / 1.5) ** 2)   # a Gaussian fractional delay
    return np.sum(h ** 2 * np.exp(-t / 80.0))


SRC = np.array([3.2, 1.1])
add(G("r19i_image_source_rir_wrt_source", rir_energy, (SRC,), ref="fd", tol=1e-6, h=1e-4))
add(G("r19i_image_source_rir_wrt_beta", rir_energy, (SRC, np.array([1.3, 2.1]), (5.0, 4.0), 0.8),
      argnums=3, ref="fd", tol=1e-7))


def sinc_delay_rir(dist, n=64):
    delay = dist / C_SND * FS
    t = np.arange(n)
    h = np.sinc(t - delay) * np.hanning(n) / dist
    return np.sum(h * np.cos(0.3 * t))


add(G("r19i_sinc_fractional_delay", sinc_delay_rir, (1.37,), ref="fd", tol=1e-7))


def sabine_eyring(alphas, areas=np.array([20.0, 20.0, 16.0, 16.0, 12.5, 12.5]), V=50.0):
    S = np.sum(areas)
    abar = areas @ alphas / S
    t_sab = 0.161 * V / (S * abar)
    t_eyr = 0.161 * V / (-S * np.log(1 - abar))
    return t_sab - t_eyr


add(G("r19i_sabine_minus_eyring", sabine_eyring, (np.array([0.1, 0.2, 0.05, 0.3, 0.6, 0.15]),),
      ref="jax", tol=1e-12))


# -- beamforming ----------------------------------------------------------------------

MICS = np.column_stack([np.linspace(-0.15, 0.15, 6), np.zeros(6)])
FREQ = 1500.0


def steering(theta, mics=MICS, f=FREQ):
    u = np.array([np.cos(theta), np.sin(theta)])
    tau = mics @ u / C_SND
    return np.exp(-2j * np.pi * f * tau)


def das_power(weights_re, theta):
    a = steering(theta)
    w = weights_re / np.sum(weights_re)
    return np.abs(np.vdot(w, a)) ** 2


W_TAPER = np.hanning(8)[1:-1]
add(G("r19i_das_beam_pattern_wrt_weights", das_power, (W_TAPER, 1.1), ref="fd", tol=1e-8))
add(G("r19i_das_beam_pattern_wrt_angle", das_power, (W_TAPER, 1.1), argnums=1, ref="fd",
      tol=1e-8))


def das_power_conj(weights_re, theta):
    a = steering(theta)
    w = weights_re / np.sum(weights_re)
    y = np.conj(w) @ a
    return (y * np.conj(y)).real


add(G("r19i_das_conj_matmul_wrt_weights", das_power_conj, (W_TAPER, 1.1), ref="fd", tol=1e-8))
add(G("r19i_das_conj_matmul_wrt_angle", das_power_conj, (W_TAPER, 1.1), argnums=1, ref="jax",
      tol=1e-10))
add(H("r19i_das_conj_matmul_hessian_weights", das_power_conj, (W_TAPER, 1.1), ref="jax",
      tol=1e-9))


def mvdr_output_power(theta, noise=0.1):
    a0 = steering(1.2)
    a1 = steering(0.5)
    R = np.outer(a0, np.conj(a0)) + 0.5 * np.outer(a1, np.conj(a1)) + noise * np.eye(6)
    a = steering(theta)
    Ria = np.linalg.solve(R, a)
    return 1.0 / np.real(np.sum(np.conj(a) * Ria))


add(G("r19i_mvdr_complex_solve_wrt_theta", mvdr_output_power, (0.9,), ref="fd", tol=1e-7))
add(G("r19i_mvdr_complex_solve_wrt_noise", mvdr_output_power, (0.9, 0.1), argnums=1, ref="fd",
      tol=1e-7))


class ULA:
    def __init__(self, spacing, n):
        self.spacing, self.n = spacing, n

    @property
    def positions(self):
        return self.spacing * (np.arange(self.n) - (self.n - 1) / 2)

    def array_factor(self, theta, k):
        ph = k * self.positions * np.sin(theta)
        return np.abs(np.sum(np.exp(1j * ph))) / self.n


def sidelobe_metric(spacing):
    arr = ULA(spacing, 8)
    thetas = np.linspace(0.3, 1.4, 12)
    k = 2 * np.pi * FREQ / C_SND
    return sum(arr.array_factor(t, k) ** 2 for t in thetas)


add(G("r19i_ula_class_property_sidelobes", sidelobe_metric, (0.09,), ref="fd", tol=1e-7))
add(G("r19i_ula_sidelobes_backend_jax", sidelobe_metric, (0.09,), ref="fd", tol=1e-7,
      backend="jax"))
add(G("r19i_thin_film_backend_jax", ar_coating_merit, (TH0,), ref="ag", tol=1e-10,
      backend="jax"))


# -- more: room modes, Helmholtz resonators, comb filters ----------------------------------

def room_modes_lowest(stiff, n=6):
    K = np.zeros((n, n))
    for i in range(n - 1):
        k = stiff[i]
        K[i, i] += k
        K[i + 1, i + 1] += k
        K[i, i + 1] -= k
        K[i + 1, i] -= k
    K[0, 0] += 1.0
    ev = np.linalg.eigvalsh(K)
    return np.sum(np.sqrt(ev[:3]))


add(G("r19i_duct_modes_eigvalsh_assembly", room_modes_lowest, (np.linspace(1.0, 2.0, 5),),
      ref="fd", tol=1e-7))


def helmholtz_freq(params, c=C_SND):
    neck_r, neck_l, vol = params
    A = np.pi * neck_r ** 2
    L_eff = neck_l + 1.7 * neck_r
    return c / (2 * np.pi) * np.sqrt(A / (vol * L_eff))


add(H("r19i_helmholtz_resonator_hessian", helmholtz_freq, (np.array([0.01, 0.05, 0.002]),),
      ref="jax", tol=1e-9))


def comb_filter_response(g, delay=5, n=64):
    x = np.zeros(n)
    x[0] = 1.0
    y = np.zeros(n)
    for t in range(n):
        y[t] = x[t] + (g * y[t - delay] if t >= delay else 0.0)
    H_ = np.fft.rfft(y)
    return np.sum(np.abs(H_) ** 2) / n


add(G("r19i_feedback_comb_rfft_energy", comb_filter_response, (0.6,), ref="fd", tol=1e-7))


def schroeder_decay(h_energy):
    edc = np.cumsum(h_energy[::-1])[::-1]
    edc_db = 10 * np.log10(edc / edc[0])
    t = np.arange(len(h_energy))
    mask = (edc_db < -5.0) & (edc_db > -25.0)
    slope = np.polyfit(t[mask], edc_db[mask], 1)[0]
    return -60.0 / slope


HE = np.exp(-np.arange(40) / 6.0) * (1 + 0.1 * np.sin(np.arange(40.0)))
add(G("r19i_schroeder_edc_polyfit_rt60", schroeder_decay, (HE,), ref="fd", tol=1e-6))


def lens_aberration_trace(curv, heights=np.linspace(0.5, 5.0, 6), n=1.5):
    # exact meridional ray trace through one spherical surface then to the paraxial focus
    c = curv
    f_par = 1.0 / ((n - 1) * c) * n
    spread = 0.0
    for h in heights:
        sin_i = h * c
        i = math.asin(sin_i)
        r = math.asin(sin_i / n)
        u = i - r
        sag = (1 - math.cos(i)) / c
        z_cross = sag + h / math.tan(u)
        spread += (z_cross - f_par) ** 2
    return spread


add(G("r19i_spherical_aberration_ray_trace", lens_aberration_trace, (0.02,), ref="fd", tol=1e-6,
      h=1e-7))
