"""Round 12, part a: orbital mechanics and astronomy -- Kepler's equation by Newton,
two-body propagation, n-body energies, light curves, as an astronomy student writes them."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


# -- Kepler's equation M = E - e sin E by Newton with a tolerance (a while loop) ----------

def kepler_E(M, e, tol=1e-13):
    E = M if e < 0.8 else math.pi
    while True:
        dE = (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
        E -= dE
        if abs(dE) < tol:
            break
    return E


def true_anomaly(M, e):
    E = kepler_E(M, e)
    return 2.0 * math.atan2(math.sqrt(1 + e) * math.sin(E / 2), math.sqrt(1 - e) * math.cos(E / 2))


def dE_dM_closed(M, e):
    E = kepler_E(M, e)
    return 1.0 / (1.0 - e * math.cos(E))


def dE_de_closed(M, e):
    E = kepler_E(M, e)
    return math.sin(E) / (1.0 - e * math.cos(E))


add(pair("r12_kepler_dE_dM", lambda: revsrc.grad(kepler_E)(1.3, 0.4), lambda: dE_dM_closed(1.3, 0.4), tol=1e-10))
add(pair("r12_kepler_dE_de", lambda: revsrc.grad(kepler_E, argnums=1)(1.3, 0.4),
         lambda: dE_de_closed(1.3, 0.4), tol=1e-10))
add(pair("r12_kepler_high_e_branch", lambda: revsrc.grad(kepler_E, argnums=(0, 1))(0.5, 0.9),
         lambda: (dE_dM_closed(0.5, 0.9), dE_de_closed(0.5, 0.9)), tol=1e-9))
add(VG("r12_true_anomaly_vg", true_anomaly, (2.1, 0.3), argnums=(0, 1), ref="fd", tol=1e-6))
add(pair("r12_kepler_jit_grad", lambda: revsrc.jit(revsrc.grad(kepler_E))(1.3, 0.4),
         lambda: dE_dM_closed(1.3, 0.4), tol=1e-10))
MS = np.linspace(0.1, 3.0, 6)
add(pair("r12_kepler_vmap_grad", lambda: revsrc.vmap(revsrc.grad(kepler_E), in_axes=(0, None))(MS, 0.4),
         lambda: np.array([dE_dM_closed(m, 0.4) for m in MS]), tol=1e-10))
# second derivative d2E/dM2 = -e sin E E'^3 / ... closed: E'' = -e sinE * E'^3
add(pair("r12_kepler_hessian_M", lambda: revsrc.hessian(kepler_E)(1.3, 0.4),
         lambda: -0.4 * math.sin(kepler_E(1.3, 0.4)) * dE_dM_closed(1.3, 0.4) ** 3, tol=1e-9))


# -- two-body propagation with velocity Verlet on a small state array ---------------------

def two_body(v0, r0=np.array([1.0, 0.0]), mu=1.0, dt=0.05, n=40):
    r, v = r0.copy(), v0.copy()
    a = -mu * r / np.linalg.norm(r) ** 3
    for _ in range(n):
        r = r + dt * v + 0.5 * dt * dt * a
        a_new = -mu * r / np.linalg.norm(r) ** 3
        v = v + 0.5 * dt * (a + a_new)
        a = a_new
    return np.sum((r - np.array([0.0, 1.0])) ** 2)


V0 = np.array([0.05, 1.1])
add(G("r12_two_body_verlet", two_body, (V0,), ref="fd"))
add(VG("r12_two_body_verlet_mu", two_body, (V0, np.array([1.0, 0.0]), 1.2), argnums=2, ref="fd"))


def specific_energy(state, mu=1.0):
    x, y, vx, vy = state
    return 0.5 * (vx * vx + vy * vy) - mu / math.sqrt(x * x + y * y)


S4 = np.array([0.9, 0.3, -0.2, 1.05])
add(H("r12_orbit_energy_hessian", specific_energy, (S4,), ref="ag", tol=1e-9))


def orbital_elements(state, mu=1.0):
    x, y, vx, vy = state
    r = math.hypot(x, y)
    h = x * vy - y * vx
    eps = 0.5 * (vx * vx + vy * vy) - mu / r
    a = -mu / (2 * eps)
    e = math.sqrt(max(0.0, 1 + 2 * eps * h * h / (mu * mu)))
    return np.array([a, e, h])


add(pair("r12_orbital_elements_jacfwd", lambda: revsrc.jacfwd(orbital_elements)(S4),
         lambda: fdj(orbital_elements, S4), tol=1e-6))
add(pair("r12_orbital_elements_jacrev", lambda: revsrc.jacrev(orbital_elements)(S4),
         lambda: fdj(orbital_elements, S4), tol=1e-6))


# -- n-body potential energy with pair loops and with broadcasting -------------------------

def nbody_energy_loops(pos, masses):
    n = len(masses)
    U = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            U -= masses[i] * masses[j] / np.sqrt(d @ d + 1e-3)
    return U


def nbody_energy_bcast(pos, masses):
    d = pos[:, None, :] - pos[None, :, :]
    r = np.sqrt(np.sum(d * d, axis=-1) + 1e-3)
    mm = masses[:, None] * masses[None, :]
    iu = np.triu_indices(len(masses), 1)
    return -np.sum((mm / r)[iu])


P5 = np.random.default_rng(1).normal(size=(5, 3))
M5 = np.array([1.0, 0.5, 0.8, 1.2, 0.3])
add(G("r12_nbody_loops", nbody_energy_loops, (P5, M5), ref="ag"))
add(G("r12_nbody_bcast", nbody_energy_bcast, (P5, M5), ref="ag"))
add(G("r12_nbody_masses", nbody_energy_bcast, (P5, M5), argnums=1, ref="ag"))
add(pair("r12_nbody_forces_agree", lambda: revsrc.grad(nbody_energy_loops)(P5, M5),
         lambda: revsrc.grad(nbody_energy_bcast)(P5, M5), tol=1e-12))
add(pair("r12_nbody_hvp", lambda: revsrc.hvp(lambda p: nbody_energy_bcast(p, M5), (P5,), (np.ones_like(P5),)),
         lambda: ag()[0].hessian_vector_product(lambda p: agify(nbody_energy_bcast)(p, M5))(P5, np.ones_like(P5))))


# -- light curves: a transit with a smooth-step limb, fit by least squares -----------------

def transit_flux(t, t0, depth, width):
    z = (t - t0) / width
    return 1.0 - depth * np.exp(-0.5 * z ** 4)


TT = np.linspace(-1.0, 1.0, 25)
FLUX = transit_flux(TT, 0.1, 0.02, 0.3) + 0.001 * np.sin(7 * TT)


def transit_chi2(p):
    t0, depth, width = p
    r = transit_flux(TT, t0, depth, width) - FLUX
    return np.sum(r * r) / 1e-6


PT = np.array([0.05, 0.018, 0.33])
add(VG("r12_transit_chi2", transit_chi2, (PT,), ref="ag", tol=1e-8))
add(H("r12_transit_hessian", transit_chi2, (PT,), ref="ag", tol=1e-8))


# -- a variable star's magnitude: a Fourier series by a list of (amp, phase) tuples ---------

def cepheid_mag(phase, coeffs):
    m = 0.0
    for k, (a, ph) in enumerate(coeffs, start=1):
        m += a * math.cos(2 * math.pi * k * phase + ph)
    return m


CO = [(0.4, 0.1), (0.15, -0.7), (0.05, 1.3)]
add(G("r12_cepheid_phase", cepheid_mag, (0.37, CO), ref="fd"))
add(G("r12_cepheid_coeffs", cepheid_mag, (0.37, CO), argnums=1,
      ref=lambda: [(math.cos(2 * math.pi * k * 0.37 + ph), -a * math.sin(2 * math.pi * k * 0.37 + ph))
                   for k, (a, ph) in enumerate(CO, start=1)], tol=1e-12))


# -- Lambert-ish: shoot the initial angle of a ballistic hop until it lands at the target ---

def hop_range(theta, v=1.0, g=1.0):
    return v * v * math.sin(2 * theta) / g


def shoot_angle(target, v):
    th = 0.3
    for _ in range(30):
        r = hop_range(th, v) - target
        if abs(r) < 1e-14:
            break
        th -= r / (2 * v * v * math.cos(2 * th))
    return th


# theta = asin(target g / v^2) / 2: d/dtarget = 1 / (2 v^2 sqrt(1 - (t/v^2)^2))
add(pair("r12_shoot_angle_target", lambda: revsrc.grad(shoot_angle)(0.6, 1.0),
         lambda: 1.0 / (2 * math.sqrt(1 - 0.36)), tol=1e-9))
add(pair("r12_shoot_angle_v", lambda: revsrc.grad(shoot_angle, argnums=1)(0.6, 1.1),
         lambda: 0.5 / math.sqrt(1 - (0.6 / 1.21) ** 2) * (-2 * 0.6 / 1.1 ** 3), tol=1e-9))
