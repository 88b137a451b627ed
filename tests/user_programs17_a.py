"""Round 17, part a: quantum mechanics and optics -- small complex Hamiltonians, expm by a
Taylor series (with scaling and squaring) or by eigh, Hellmann-Feynman ground states,
thin-film transfer matrices, Jones calculus with classes, ABCD Gaussian beams."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

SX = np.array([[0.0, 1.0], [1.0, 0.0]], dtype=complex)
SY = np.array([[0.0, -1j], [1j, 0.0]])
SZ = np.array([[1.0, 0.0], [0.0, -1.0]], dtype=complex)
I2 = np.eye(2, dtype=complex)
HBAR = 1.0


def expm_taylor(A, terms=18):
    out = np.eye(A.shape[0], dtype=complex)
    term = np.eye(A.shape[0], dtype=complex)
    for k in range(1, terms):
        term = term @ A / k
        out = out + term
    return out


def rabi_transition(params, t=2.0):
    # two-level atom, detuning and Rabi frequency; P(|0> -> |1>) after time t
    delta, omega = params[0], params[1]
    Hm = 0.5 * delta * SZ + 0.5 * omega * SX
    U = expm_taylor(-1j * Hm * t / HBAR, terms=30)
    amp = U[1, 0]
    return float(np.real(amp * np.conj(amp)))


def rabi_closed_grad(params, t=2.0):
    d, o = params
    W = math.sqrt(d * d + o * o)

    def P(d, o):
        W = math.sqrt(d * d + o * o)
        return (o / W) ** 2 * math.sin(W * t / 2) ** 2
    h = 1e-6
    return np.array([(P(d + h, o) - P(d - h, o)) / (2 * h), (P(d, o + h) - P(d, o - h)) / (2 * h)]) * 0 + \
        np.array([_dP(d, o, t, 0), _dP(d, o, t, 1)]) if W > 0 else None


def _dP(d, o, t, which):
    W = math.sqrt(d * d + o * o)
    s, c = math.sin(W * t / 2), math.cos(W * t / 2)
    dW = (d if which == 0 else o) / W
    r = (o / W) ** 2
    dr = (-2 * o * o / W ** 3 * dW) if which == 0 else (2 * o / W ** 2 - 2 * o * o / W ** 3 * dW)
    return dr * s * s + r * 2 * s * c * t / 2 * dW


P0 = np.array([0.3, 1.1])
add(VG("r17_rabi_taylor_expm_vg", rabi_transition, (P0,), ref=lambda: rabi_closed_grad(P0), tol=1e-9))
add(H("r17_rabi_taylor_expm_hessian", rabi_transition, (P0,), ref="fd", tol=1e-5))


def expm_scaling_squaring(A):
    # scale until the norm is small (data-dependent while), Taylor, then square back
    s = 0
    nrm = np.max(np.sum(np.abs(A), axis=1))
    while nrm > 0.5:
        A = A / 2.0
        nrm = nrm / 2.0
        s += 1
    E = expm_taylor(A, terms=12)
    for _ in range(s):
        E = E @ E
    return E


def spin_echo_fidelity(theta):
    # pulse sequence: x-rotation, free precession, pi pulse, free precession
    Hx = 0.5 * theta[0] * SX
    Hz = 0.5 * theta[1] * SZ + 0.1 * theta[2] * SY
    U = expm_scaling_squaring(-1j * Hx * 1.0)
    U = expm_scaling_squaring(-1j * Hz * 3.0) @ U
    U = expm_scaling_squaring(-1j * 0.5 * math.pi * SX) @ U
    U = expm_scaling_squaring(-1j * Hz * 3.0) @ U
    tr = np.trace(U)
    return float(np.abs(tr) ** 2 / 4.0)


TH = np.array([0.7, 1.3, 0.4])
add(VG("r17_spin_echo_scaling_squaring_vg", spin_echo_fidelity, (TH,), ref="fd", tol=1e-7))
add(JV("r17_spin_echo_scaling_squaring_jvp", spin_echo_fidelity, (TH,), (np.array([1.0, -0.5, 2.0]),), ref="fd", tol=1e-7))


def evolve_eigh(h_onsite, hop=1.0, t=1.5):
    # tight-binding chain: evolve a site-0 excitation with exp(-i H t) built from eigh,
    # return the probability of reaching the last site
    n = h_onsite.shape[0]
    Hm = np.diag(h_onsite)
    for i in range(n - 1):
        Hm[i, i + 1] = -hop
        Hm[i + 1, i] = -hop
    w, V = np.linalg.eigh(Hm)
    phase = np.exp(-1j * w * t)
    U = (V * phase) @ V.T
    return float(np.abs(U[n - 1, 0]) ** 2)


HON = np.array([0.1, -0.3, 0.25, 0.05])
add(VG("r17_chain_transfer_eigh_vg", evolve_eigh, (HON,), ref="fd", tol=1e-8))
add(G("r17_chain_transfer_eigh_wrt_hop", evolve_eigh, (HON, 0.8), argnums=1, ref="fd", tol=1e-7))


def ground_energy(v, hop=1.0):
    n = v.shape[0]
    Hm = np.diag(v) - hop * (np.eye(n, k=1) + np.eye(n, k=-1))
    return np.linalg.eigvalsh(Hm)[0]


def hellmann_feynman(v, hop=1.0):
    n = v.shape[0]
    Hm = np.diag(v) - hop * (np.eye(n, k=1) + np.eye(n, k=-1))
    w, V = np.linalg.eigh(Hm)
    return V[:, 0] ** 2


VPOT = np.array([0.4, -0.2, 0.1, 0.3, -0.5])
add(pair("r17_ground_state_hellmann_feynman", lambda: revsrc.grad(ground_energy)(VPOT),
         lambda: hellmann_feynman(VPOT), tol=1e-10))


def oscillator_levels(k, n=40, L=8.0):
    # finite-difference harmonic oscillator, the first three levels (exact: 0.5, 1.5, 2.5 * sqrt(k))
    x = np.linspace(-L / 2, L / 2, n)
    dx = x[1] - x[0]
    T = (2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)) / (2 * dx * dx)
    V = np.diag(0.5 * k * x ** 2)
    e = np.linalg.eigvalsh(T + V)
    return e[0] + e[1] + e[2]


add(G("r17_oscillator_three_levels_wrt_k", oscillator_levels, (1.3,), ref="fd", tol=1e-7))
add(pair("r17_oscillator_vmap_grad_over_k", lambda: revsrc.vmap(revsrc.grad(oscillator_levels))(np.array([0.5, 1.0, 2.0])),
         lambda: np.array([fd_checked(oscillator_levels, (k,))[0] for k in (0.5, 1.0, 2.0)]), tol=1e-6))


def rayleigh_quotient(a, b, Hm):
    psi = a + 1j * b
    num = np.vdot(psi, Hm @ psi)
    den = np.vdot(psi, psi)
    return float(np.real(num / den))


HC = np.array([[1.0, 0.2 - 0.1j, 0.0], [0.2 + 0.1j, -0.5, 0.3j], [0.0, -0.3j, 0.7]])
A0, B0 = np.array([0.6, -0.2, 0.4]), np.array([0.1, 0.3, -0.2])
add(G("r17_rayleigh_complex_psi_wrt_re_im", rayleigh_quotient, (A0, B0, HC), argnums=(0, 1), ref="fd", tol=1e-8))


def rayleigh_sum(a, b, Hm):
    # the same quotient with conj and @ instead of np.vdot
    psi = a + 1j * b
    num = np.sum(np.conj(psi) * (Hm @ psi))
    den = np.sum(np.abs(psi) ** 2)
    return np.real(num / den)


def rayleigh_grad_closed(a, b, Hm):
    psi = a + 1j * b
    n2 = np.sum(np.abs(psi) ** 2)
    E = np.real(np.conj(psi) @ Hm @ psi) / n2
    g = 2.0 * (Hm @ psi - E * psi) / n2
    return (np.real(g), np.imag(g))


add(G("r17_rayleigh_conj_sum_wrt_re_im", rayleigh_sum, (A0, B0, HC), argnums=(0, 1),
      ref=lambda: rayleigh_grad_closed(A0, B0, HC), tol=1e-10))
add(pair("r17_rayleigh_conj_sum_hvp", lambda: revsrc.hvp(rayleigh_sum, (A0, B0, HC), (np.array([1.0, 0.0, -1.0]), None, None)),
         lambda: ag()[0].hessian(agify(rayleigh_sum), 0)(A0, B0, HC) @ np.array([1.0, 0.0, -1.0]), tol=1e-8))


# ---- thin-film optics: characteristic matrices
def film_reflectance(d, n_layers, lam=550.0, n0=1.0, ns=1.52):
    M = np.eye(2, dtype=complex)
    for n_j, d_j in zip(n_layers, d):
        delta = 2.0 * math.pi * n_j * d_j / lam
        Mj = np.array([[math.cos(delta), 1j * math.sin(delta) / n_j],
                       [1j * n_j * math.sin(delta), math.cos(delta)]])
        M = M @ Mj
    B = M[0, 0] + M[0, 1] * ns
    C = M[1, 0] + M[1, 1] * ns
    r = (n0 * B - C) / (n0 * B + C)
    return abs(r) ** 2


NL = (1.38, 2.1, 1.38)
DL = np.array([99.6, 65.5, 99.6])
add(VG("r17_thin_film_reflectance_vg", film_reflectance, (DL, NL), ref="fd", tol=1e-8))
add(G("r17_thin_film_reflectance_ag", film_reflectance, (DL, NL), ref="ag", tol=1e-10))
add(G("r17_thin_film_reflectance_wrt_lam", film_reflectance, (DL, NL, 600.0), argnums=2, ref="ag", tol=1e-10))
add(pair("r17_thin_film_spectrum_vmap_lam",
         lambda: revsrc.vmap(revsrc.grad(film_reflectance, argnums=2), in_axes=(None, None, 0))(DL, NL, np.array([450.0, 550.0, 650.0])),
         lambda: np.array([ag()[0].grad(agify(film_reflectance), 2)(DL, NL, l) for l in (450.0, 550.0, 650.0)]), tol=1e-9))


# ---- Jones calculus with classes
class Element:
    def matrix(self):
        raise NotImplementedError

    def apply(self, E):
        return self.matrix() @ E


class Polarizer(Element):
    def __init__(self, angle):
        self.angle = angle

    def matrix(self):
        c, s = math.cos(self.angle), math.sin(self.angle)
        return np.array([[c * c, c * s], [c * s, s * s]], dtype=complex)


class WavePlate(Element):
    def __init__(self, angle, retard):
        self.angle = angle
        self.retard = retard

    @property
    def rot(self):
        c, s = math.cos(self.angle), math.sin(self.angle)
        return np.array([[c, -s], [s, c]])

    def matrix(self):
        D = np.array([[1.0, 0.0], [0.0, np.exp(1j * self.retard)]])
        R = self.rot
        return R @ D @ R.T


def transmitted_power(angles):
    # polarizer, quarter-wave plate, polarizer: output intensity of horizontal light
    E = np.array([1.0 + 0j, 0.0 + 0j])
    chain = [Polarizer(angles[0]), WavePlate(angles[1], 0.5 * math.pi), Polarizer(angles[2])]
    for el in chain:
        E = el.apply(E)
    return float(np.sum(np.abs(E) ** 2))


ANG = np.array([0.3, 0.9, 1.4])
add(VG("r17_jones_classes_chain_vg", transmitted_power, (ANG,), ref="fd", tol=1e-8))
add(H("r17_jones_classes_chain_hessian", transmitted_power, (ANG,), ref="fd", tol=1e-5))


def malus_cascade(thetas):
    # N polarizers, Malus's law; intensities kept in an array written in place
    n = thetas.shape[0]
    I = np.zeros(n + 1)
    I[0] = 1.0
    prev = 0.0
    for k, th in enumerate(thetas):
        I[k + 1] = I[k] * math.cos(th - prev) ** 2
        prev = th
    return I[-1]


THS = np.linspace(0.1, 0.5 * math.pi, 7)
add(VG("r17_malus_cascade_inplace_vg", malus_cascade, (THS,), ref="fd", tol=1e-8))


def gate_fidelity(theta, target):
    # a sequence of single-qubit rotations exp(-i th/2 n.sigma) in closed form
    axes = (SX, SY, SZ, SX)
    U = I2
    for th, S in zip(theta, axes):
        U = (math.cos(th / 2) * I2 - 1j * math.sin(th / 2) * S) @ U
    ov = np.trace(np.conj(target).T @ U)
    return 1.0 - float(np.abs(ov) ** 2) / 4.0


HADAMARD = np.array([[1, 1], [1, -1]], dtype=complex) / math.sqrt(2)
THG = np.array([0.4, 1.2, -0.3, 0.8])
add(VG("r17_gate_fidelity_hadamard_vg", gate_fidelity, (THG, HADAMARD), ref="fd", tol=1e-8))
add(H("r17_gate_fidelity_hadamard_hessian", gate_fidelity, (THG, HADAMARD), ref="fd", tol=1e-5))


def two_qubit_energy(p, J=1.0, hx=0.7):
    # product ansatz, then CNOT; energy of a transverse-field Ising pair
    def qubit(a, b):
        return np.array([math.cos(a / 2), np.exp(1j * b) * math.sin(a / 2)])
    psi = np.kron(qubit(p[0], p[1]), qubit(p[2], p[3]))
    CNOT = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]], dtype=complex)
    psi = CNOT @ psi
    Hm = -J * np.kron(SZ, SZ) - hx * (np.kron(SX, I2) + np.kron(I2, SX))
    return float(np.real(np.conj(psi) @ (Hm @ psi)))


P4 = np.array([0.9, 0.2, 1.7, -0.4])
add(VG("r17_two_qubit_cnot_energy_vg", two_qubit_energy, (P4,), ref="fd", tol=1e-8))
add(pair("r17_two_qubit_cnot_jacfwd_jacrev", lambda: revsrc.jacfwd(revsrc.jacrev(two_qubit_energy))(P4),
         lambda: fd_hess_checked(two_qubit_energy, (P4,)), tol=1e-5))


def entanglement_entropy(p):
    a, b = math.cos(p[0]), math.sin(p[0])
    psi = np.array([a * math.cos(p[1]), a * math.sin(p[1]), b * math.sin(p[1]), b * math.cos(p[1])])
    M = psi.reshape(2, 2)
    rho_a = M @ M.T
    lam = np.linalg.eigvalsh(rho_a)
    lam = np.clip(lam, 1e-300, 1.0)
    return float(-np.sum(lam * np.log(lam)))


add(G("r17_entanglement_entropy_eigvalsh", entanglement_entropy, (np.array([0.4, 0.3]),), ref="fd", tol=1e-7))


def gaussian_beam_waist(f, w0=1e-3, lam=1.064e-6):
    # ABCD propagation of the complex beam parameter q through lenses f[k] spaced 0.2 m
    q = 1j * math.pi * w0 ** 2 / lam
    for fk in f:
        q = q + 0.2
        q = q / (1.0 - q / fk)
    q = q + 0.3
    inv_q = 1.0 / q
    return math.sqrt(-lam / (math.pi * np.imag(inv_q)))


FL = np.array([0.5, -0.3, 0.4])
add(VG("r17_gaussian_beam_abcd_vg", gaussian_beam_waist, (FL,), ref="fd", tol=1e-7))


def snell_stack(theta0, ns):
    # ray through a stack of slabs; total internal reflection ends the trace early
    s = math.sin(theta0) * ns[0]
    path = 0.0
    for k in range(1, len(ns)):
        sin_t = s / ns[k]
        if sin_t >= 1.0:
            return path + 10.0
        path += 1.0 / math.sqrt(1.0 - sin_t * sin_t)
    return path


NS = [1.5, 1.3, 1.2, 1.0]
add(G("r17_snell_stack_no_tir", snell_stack, (0.5, NS), ref="ag", tol=1e-10))
add(G("r17_snell_stack_tir_early_return", snell_stack, (0.8, NS), ref="ag", tol=1e-10))


def crank_nicolson_x(a, n=12, steps=8, dt=0.05):
    # 1D Schrodinger with a tilted potential a*x, Crank-Nicolson steps, <x> at the end
    x = np.linspace(-1.0, 1.0, n)
    dx = x[1] - x[0]
    Hm = (2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)) / (2 * dx * dx) + np.diag(a * x)
    A = np.eye(n) + 0.5j * dt * Hm
    B = np.eye(n) - 0.5j * dt * Hm
    psi = np.exp(-x ** 2 / 0.1).astype(complex)
    psi = psi / np.linalg.norm(psi)
    for _ in range(steps):
        psi = np.linalg.solve(A, B @ psi)
    p = np.abs(psi) ** 2
    return float(np.sum(p * x) / np.sum(p))


add(VG("r17_crank_nicolson_complex_solve_vg", crank_nicolson_x, (0.7,), ref="fd", tol=1e-7))
add(JV("r17_crank_nicolson_jvp", crank_nicolson_x, (0.7,), (1.0,), ref="fd", tol=1e-7))
add(H("r17_two_qubit_cnot_hessian", two_qubit_energy, (P4,), ref="fd", tol=1e-5))


def phase_mask_focus(phi, amp):
    # a phase-only SLM: field written in place with complex phases, focal intensity by a DFT row
    n = phi.shape[0]
    field = amp.astype(complex)
    for k in range(n):
        field[k] = field[k] * np.exp(1j * phi[k])
    kernel = np.exp(-2j * math.pi * np.arange(n) * 1.0 / n)
    focus = np.sum(field * kernel)
    return float(np.abs(focus) ** 2)


PHI = np.linspace(-0.4, 0.9, 6)
AMP = np.array([0.5, 0.8, 1.0, 1.0, 0.8, 0.5])
add(VG("r17_slm_complex_inplace_phases_vg", phase_mask_focus, (PHI, AMP), ref="fd", tol=1e-8))
add(G("r17_slm_complex_inplace_wrt_amp", phase_mask_focus, (PHI, AMP), argnums=1, ref="fd", tol=1e-8))


def herm_evolution(p, t=1.3):
    # complex Hermitian 3-level Hamiltonian; U = V exp(-i w t) V^H from eigh; population of level 2
    Hm = np.array([[p[0], p[1] * np.exp(1j * p[2]), 0.2],
                   [p[1] * np.exp(-1j * p[2]), -p[0], 0.3j],
                   [0.2, -0.3j, 0.5]])
    w, V = np.linalg.eigh(Hm)
    U = V @ np.diag(np.exp(-1j * w * t)) @ V.conj().T
    return float(np.abs(U[2, 0]) ** 2)


def herm_evolution_series(p, t=1.3):
    Hm = np.array([[p[0], p[1] * np.exp(1j * p[2]), 0.2],
                   [p[1] * np.exp(-1j * p[2]), -p[0], 0.3j],
                   [0.2, -0.3j, 0.5]])
    U = expm_taylor(-1j * Hm * t, terms=40)
    return float(np.abs(U[2, 0]) ** 2)


PH3 = np.array([0.4, 0.7, 0.9])
add(VG("r17_complex_hermitian_eigh_evolution_vg", herm_evolution, (PH3,),
       ref=lambda: fd_checked(herm_evolution_series, (PH3,))[0], tol=1e-7))
add(G("r17_complex_hermitian_expm_series", herm_evolution_series, (PH3,), ref="fd", tol=1e-7))


def herm_levels(p):
    Hm = np.array([[p[0], p[1] * np.exp(1j * p[2])], [p[1] * np.exp(-1j * p[2]), -p[0]]])
    w = np.linalg.eigvalsh(Hm)
    return w[1] - w[0]


add(pair("r17_complex_hermitian_eigvalsh_gap", lambda: revsrc.grad(herm_levels)(PH3),
         lambda: np.array([2 * PH3[0], 2 * PH3[1], 0.0]) / math.hypot(PH3[0], PH3[1]), tol=1e-10))


def dos_green(eps, E=0.3, eta=0.05):
    # local density of states from the retarded Green's function inv(E + i eta - H)
    n = eps.shape[0]
    Hm = np.diag(eps) - np.eye(n, k=1) - np.eye(n, k=-1)
    G_ = np.linalg.inv((E + 1j * eta) * np.eye(n) - Hm)
    return -np.imag(np.trace(G_)) / math.pi


add(VG("r17_green_function_complex_inv_vg", dos_green, (np.array([0.1, -0.2, 0.3, 0.0]),), ref="fd", tol=1e-7))
add(H("r17_green_function_complex_inv_hessian", dos_green, (np.array([0.1, -0.2, 0.3, 0.0]),), ref="fd", tol=1e-4))


def landauer_T(eps, E=0.2, gamma_l=0.5, gamma_r=0.5):
    # transmission through a chain between wide-band leads: T = G_L G_R |G_1N|^2
    n = eps.shape[0]
    Hm = np.diag(eps).astype(complex) - np.eye(n, k=1) - np.eye(n, k=-1)
    Hm[0, 0] -= 0.5j * gamma_l
    Hm[n - 1, n - 1] -= 0.5j * gamma_r
    e1 = np.zeros(n)
    e1[0] = 1.0
    g = np.linalg.solve(E * np.eye(n) - Hm, e1)
    return gamma_l * gamma_r * abs(g[n - 1]) ** 2


add(VG("r17_landauer_complex_solve_inplace_vg", landauer_T, (np.array([0.1, -0.2, 0.3, 0.0, 0.15]),), ref="fd", tol=1e-7))


import cmath  # noqa: E402


def fresnel_absorbing(n_r, k_ext, theta=0.6):
    # s-polarised reflectance of an absorbing medium, complex index via cmath
    n2 = complex(n_r, k_ext)
    cos_i = math.cos(theta)
    sin_t = math.sin(theta) / n2
    cos_t = cmath.sqrt(1.0 - sin_t * sin_t)
    rs = (cos_i - n2 * cos_t) / (cos_i + n2 * cos_t)
    return abs(rs) ** 2


def fresnel_absorbing_np(n_r, k_ext, theta=0.6):
    n2 = n_r + 1j * k_ext
    cos_i = math.cos(theta)
    sin_t = math.sin(theta) / n2
    cos_t = np.sqrt(1.0 - sin_t * sin_t)
    rs = (cos_i - n2 * cos_t) / (cos_i + n2 * cos_t)
    return abs(rs) ** 2


add(G("r17_fresnel_cmath_complex_ctor", fresnel_absorbing, (0.2, 3.4), argnums=(0, 1), ref="fd", tol=1e-8))
add(G("r17_fresnel_np_complex_sqrt", fresnel_absorbing_np, (0.2, 3.4), argnums=(0, 1), ref="fd", tol=1e-8))


def fp_cavity_holo(z):
    # complex round-trip gain of a Fabry-Perot cavity; holomorphic in z
    r = 0.9
    return (1.0 - r * r) / (1.0 - r * r * np.exp(2j * z))


Z0 = 0.3 + 0.05j
add(pair("r17_fabry_perot_holomorphic_grad", lambda: revsrc.grad(fp_cavity_holo, holomorphic=True)(Z0),
         lambda: (1.0 - 0.81) * 0.81 * 2j * np.exp(2j * Z0) / (1.0 - 0.81 * np.exp(2j * Z0)) ** 2, tol=1e-10))


def phase_unwrap_slope(phi_raw):
    # unwrap a wrapped phase trace by hand, then the least-squares slope
    out = [phi_raw[0]]
    off = 0.0
    for a, b in zip(phi_raw[:-1], phi_raw[1:]):
        d = b - a
        if d > math.pi:
            off -= 2 * math.pi
        elif d < -math.pi:
            off += 2 * math.pi
        out.append(b + off)
    u = np.array(out)
    t = np.arange(len(u)) - (len(u) - 1) / 2.0
    return np.sum(t * u) / np.sum(t * t)


WR = np.angle(np.exp(1j * (1.9 * np.arange(8.0) + 0.3)))
add(VG("r17_phase_unwrap_branches_list_vg", phase_unwrap_slope, (WR,), ref="fd", tol=1e-8))


def angle_of_field(theta):
    E = np.array([math.cos(theta), 1j * math.sin(theta)]) @ np.array([[1, 1j], [1j, 1]]) / math.sqrt(2)
    return float(np.angle(E[0]) - np.angle(E[1]))


add(G("r17_np_angle_of_jones_field", angle_of_field, (0.4,), ref="fd", tol=1e-8))

# ---- the same programs under backend="jax"
add(pair("r17_malus_cascade_backend_jax", lambda: revsrc.grad(malus_cascade, backend="jax")(THS),
         lambda: fd_checked(malus_cascade, (THS,))[0], tol=1e-8))
add(pair("r17_slm_phases_backend_jax", lambda: revsrc.grad(phase_mask_focus, backend="jax")(PHI, AMP),
         lambda: fd_checked(phase_mask_focus, (PHI, AMP))[0], tol=1e-8))
# a write H[n-1, n-1] -= ... into a matrix the function made
add(pair("r17_landauer_backend_jax", lambda: revsrc.grad(landauer_T, backend="jax")(np.array([0.1, -0.2, 0.3, 0.0, 0.15])),
         lambda: fd_checked(landauer_T, (np.array([0.1, -0.2, 0.3, 0.0, 0.15]),))[0], tol=1e-7))
add(pair("r17_spin_echo_backend_jax", lambda: revsrc.grad(spin_echo_fidelity, backend="jax")(TH),
         lambda: fd_checked(spin_echo_fidelity, (TH,))[0], tol=1e-7))


# ---- second derivatives of |sum of complex phasors|
add(H("r17_slm_focus_hessian", phase_mask_focus, (PHI, AMP), ref="fd", tol=1e-5))
add(pair("r17_slm_focus_hessian_jax_ref", lambda: revsrc.hessian(phase_mask_focus)(PHI, AMP),
         lambda: jax().hessian(lambda p: jax().numpy.abs(jax().numpy.sum(
             AMP * jax().numpy.exp(1j * p) * jax().numpy.exp(-2j * math.pi * jax().numpy.arange(6) / 6))) ** 2)(PHI), tol=1e-8))


def kuramoto_order(theta):
    # Kuramoto order parameter r = |mean(exp(i theta))| of a set of oscillator phases
    return np.abs(np.mean(np.exp(1j * theta)))


def kuramoto_order_real(theta):
    return math.sqrt(np.mean(np.cos(theta)) ** 2 + np.mean(np.sin(theta)) ** 2)


THK = np.array([0.3, -0.4, 0.9, 1.4])
add(G("r17_kuramoto_order_grad", kuramoto_order, (THK,), ref=lambda: fd_checked(kuramoto_order_real, (THK,))[0], tol=1e-8))
add(pair("r17_kuramoto_order_hessian", lambda: revsrc.hessian(kuramoto_order)(THK),
         lambda: revsrc.hessian(kuramoto_order_real)(THK), tol=1e-8))
add(pair("r17_kuramoto_order_hessian_fd", lambda: revsrc.hessian(kuramoto_order)(THK),
         lambda: fd_hess_checked(kuramoto_order_real, (THK,))[0], tol=1e-5))


def array_factor_db(steer, n=6, d=0.5):
    # phased array: beam power toward 0.2 rad when steered at `steer`
    k = np.arange(n)
    w = np.exp(-2j * math.pi * d * k * math.sin(steer))
    af = np.sum(w * np.exp(2j * math.pi * d * k * math.sin(0.2)))
    return 10.0 * math.log10(abs(af) ** 2 / n ** 2 + 1e-12)


add(G("r17_phased_array_grad", array_factor_db, (0.25,), ref="fd", tol=1e-7))
add(pair("r17_phased_array_grad_grad", lambda: revsrc.grad(revsrc.grad(array_factor_db))(0.25),
         lambda: fd_hess_checked(array_factor_db, (0.25,))[0], tol=1e-5))
add(JV("r17_kuramoto_order_jvp", kuramoto_order, (THK,), (np.array([1.0, 0.5, -1.0, 2.0]),), ref="fd", tol=1e-8))
add(pair("r17_kuramoto_order_vmap_grad", lambda: revsrc.vmap(revsrc.grad(kuramoto_order))(np.stack([THK, 2 * THK])),
         lambda: np.array([fd_checked(kuramoto_order_real, (t,))[0] for t in (THK, 2 * THK)]), tol=1e-8))
add(H("r17_thin_film_reflectance_hessian", film_reflectance, (DL, NL), ref="fd", tol=1e-5))
add(H("r17_gaussian_beam_abcd_hessian", gaussian_beam_waist, (FL,), ref="fd", tol=1e-4))
add(H("r17_landauer_complex_solve_hessian", landauer_T, (np.array([0.1, -0.2, 0.3, 0.0, 0.15]),), ref="fd", tol=1e-4))


def aperture_farfield(tilt, n=4):
    # 2-D phased aperture: far-field amplitude toward the axis for a tilted wavefront
    yy, xx = np.meshgrid(np.arange(n) - 1.5, np.arange(n) - 1.5, indexing="ij")
    phase = tilt[0] * xx + tilt[1] * yy + 0.05 * (xx ** 2 + yy ** 2)
    return np.abs(np.sum(np.exp(1j * phase))) / n ** 2


def aperture_farfield_axes(tilt, n=4):
    # the same with the sum taken axis by axis
    yy, xx = np.meshgrid(np.arange(n) - 1.5, np.arange(n) - 1.5, indexing="ij")
    phase = tilt[0] * xx + tilt[1] * yy + 0.05 * (xx ** 2 + yy ** 2)
    return np.abs(np.sum(np.sum(np.exp(1j * phase), axis=0), axis=0)) / n ** 2


TILT = np.array([0.2, -0.15])
add(G("r17_aperture_farfield_grad", aperture_farfield, (TILT,), ref="fd", tol=1e-8))
add(H("r17_aperture_farfield_hessian", aperture_farfield, (TILT,), ref="fd", tol=1e-5))
add(H("r17_aperture_farfield_axes_hessian", aperture_farfield_axes, (TILT,), ref="fd", tol=1e-5))
add(pair("r17_aperture_farfield_hessian_backend_jax", lambda: revsrc.hessian(aperture_farfield, backend="jax")(TILT),
         lambda: fd_hess_checked(aperture_farfield_axes, (TILT,))[0], tol=1e-5))
# Hm = np.diag(h_onsite) then Hm[i, i + 1] = -hop in a loop
add(pair("r17_chain_transfer_eigh_hop_backend_jax", lambda: revsrc.grad(evolve_eigh, argnums=1, backend="jax")(HON, 0.8),
         lambda: fd_checked(evolve_eigh, (HON, 0.8), argnums=1)[0], tol=1e-7))
