"""Round 12, part c: molecular dynamics and chemistry -- Lennard-Jones with pair loops and
broadcasting, Morse, velocity Verlet, Ewald-like sums, reaction kinetics."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append

R6 = np.array([[0.0, 0.0, 0.0], [1.1, 0.1, 0.0], [0.2, 1.05, 0.1], [1.0, 1.2, 0.3],
               [0.5, 0.4, 1.0], [1.4, 0.6, 1.1]])


def lj_pairs(x, eps=1.0, sig=1.0):
    n = x.shape[0]
    E = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            r2 = np.sum((x[i] - x[j]) ** 2)
            if r2 > 2.5 ** 2:
                continue
            s6 = (sig * sig / r2) ** 3
            E += 4 * eps * (s6 * s6 - s6)
    return E


def lj_bcast(x, eps=1.0, sig=1.0):
    d = x[:, None, :] - x[None, :, :]
    r2 = (d ** 2).sum(-1) + np.eye(x.shape[0])
    s6 = (sig ** 2 / r2) ** 3
    e = 4 * eps * (s6 ** 2 - s6)
    e = np.where(r2 < 2.5 ** 2, e, 0.0)
    return 0.5 * (e.sum() - np.trace(e))


add(G("r12_lj_pair_loop", lj_pairs, (R6,), ref="ag", tol=1e-9))
add(G("r12_lj_broadcast", lj_bcast, (R6,), ref="fd", tol=1e-6))
add(pair("r12_lj_loop_vs_bcast_value", lambda: revsrc.value_and_grad(lj_bcast)(R6)[0], lambda: lj_pairs(R6), tol=1e-12))
add(G("r12_lj_eps_sigma", lj_pairs, (R6, 1.2, 0.95), argnums=(1, 2), ref="fd", tol=1e-6))
add(H("r12_lj_hessian_loop", lj_pairs, (R6[:3],), ref="ag", tol=1e-8))


def morse(r, De=4.7, a=1.9, re=0.74):
    return De * (1 - np.exp(-a * (r - re))) ** 2


def morse_chain(x):
    bonds = np.diff(x)
    return np.sum(morse(bonds))


XC = np.array([0.0, 0.8, 1.5, 2.31, 3.0])
add(G("r12_morse_chain_diff", morse_chain, (XC,), ref="ag", tol=1e-10))
add(H("r12_morse_chain_hessian", morse_chain, (XC,), ref="ag", tol=1e-9))
# force constant at the minimum: 2 De a^2
add(pair("r12_morse_force_constant", lambda: revsrc.hessian(morse)(0.74), lambda: 2 * 4.7 * 1.9 ** 2, tol=1e-10))


# velocity Verlet of a harmonic-plus-quartic chain, differentiated w.r.t. the initial velocities
def verlet_chain(v0, k=1.0, g=0.1, dt=0.05, n=30):
    x = np.zeros(4)
    v = v0
    def force(x):
        ext = np.concatenate(([0.0], x, [0.0]))
        d = np.diff(ext)
        f = k * d + g * d ** 3
        return f[1:] - f[:-1]
    a = force(x)
    for _ in range(n):
        x = x + dt * v + 0.5 * dt * dt * a
        an = force(x)
        v = v + 0.5 * dt * (a + an)
        a = an
    return 0.5 * v @ v + x[0] * x[3]


V4 = np.array([0.3, -0.1, 0.2, 0.4])
add(G("r12_verlet_chain_nested_def", verlet_chain, (V4,), ref="ag", tol=1e-9))
add(pair("r12_verlet_chain_jacfwd_vs_grad", lambda: revsrc.jacfwd(verlet_chain)(V4),
         lambda: ag()[0].grad(agify(verlet_chain))(V4), tol=1e-9))


# velocity Verlet written with in-place updates on copies
def verlet_inplace(x0, dt=0.02, n=25):
    x = x0.copy()
    v = np.zeros_like(x)
    f = -x ** 3 + 0.5 * x
    for _ in range(n):
        v += 0.5 * dt * f
        x += dt * v
        f = -x ** 3 + 0.5 * x
        v += 0.5 * dt * f
    return np.sum(x ** 2) + np.sum(v)


add(G("r12_verlet_inplace_copy", verlet_inplace, (np.array([0.5, 1.2, -0.7]),), ref="fd", tol=1e-7))


# Ewald-like: real-space erfc sum with a cutoff loop and reciprocal cosine sum
def ewald_like(q, pos, alpha=1.2, L=3.0):
    n = len(q)
    E = 0.0
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            d = pos[i] - pos[j]
            d = d - L * np.round(d / L)
            r = math.sqrt(float(d @ d)) if False else np.sqrt(d @ d)
            E += 0.5 * q[i] * q[j] * math.erfc(alpha * r) / r
    ks = 2 * np.pi / L * np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
    for kv in ks:
        S = np.sum(q * np.cos(pos @ kv)) ** 2 + np.sum(q * np.sin(pos @ kv)) ** 2
        k2 = kv @ kv
        E += 2 * np.pi / L ** 3 * np.exp(-k2 / (4 * alpha ** 2)) / k2 * S
    E -= alpha / math.sqrt(math.pi) * np.sum(q ** 2)
    return E


Q4 = np.array([1.0, -1.0, 0.5, -0.5])
POS4 = R6[:4] * 1.3
add(G("r12_ewald_positions", ewald_like, (Q4, POS4), argnums=1, ref="fd", tol=1e-6))
add(G("r12_ewald_charges", ewald_like, (Q4, POS4), argnums=0, ref="fd", tol=1e-6))


# reaction kinetics A -> B -> C with explicit Euler, rates in a dict
def kinetics(k, c0=np.array([1.0, 0.0, 0.0]), dt=0.01, n=100):
    c = c0
    for _ in range(n):
        r1 = k["k1"] * c[0]
        r2 = k["k2"] * c[1]
        c = c + dt * np.array([-r1, r1 - r2, r2])
    return c[1]


def kinetics_closed_ref():
    return ag()[0].grad(agify(kinetics))({"k1": 2.0, "k2": 0.7})


add(pair("r12_kinetics_dict_rates", lambda: revsrc.grad(kinetics)({"k1": 2.0, "k2": 0.7}), kinetics_closed_ref, tol=1e-10))


# Arrhenius fit: log-rate residuals, value_and_grad in (logA, Ea)
TEMPS = np.array([300.0, 320.0, 340.0, 360.0, 380.0])
LNK = np.log(1e7) - 50e3 / (8.314 * TEMPS) + 0.02 * np.cos(TEMPS)


def arrhenius_sse(lnA, Ea):
    pred = lnA - Ea / (8.314 * TEMPS)
    return np.sum((pred - LNK) ** 2)


add(VG("r12_arrhenius_vg", arrhenius_sse, (16.0, 49e3), argnums=(0, 1), ref="ag", tol=1e-9))


# radial distribution-ish smooth histogram (Gaussian kernels)
def soft_rdf(x, centers=np.linspace(0.8, 2.0, 7), w=0.1):
    d = x[:, None, :] - x[None, :, :]
    iu = np.triu_indices(x.shape[0], 1)
    r = np.sqrt(np.sum(d ** 2, axis=-1))[iu]
    h = np.exp(-((r[:, None] - centers[None, :]) / w) ** 2).sum(axis=0)
    return np.sum(h * np.arange(7.0))


add(G("r12_soft_rdf_triu", soft_rdf, (R6,), ref="ag", tol=1e-9))


# bond angles via arccos of normalised dot products
def angle_energy(x, theta0=1.9, k=2.0):
    E = 0.0
    for i in range(1, x.shape[0] - 1):
        a = x[i - 1] - x[i]
        b = x[i + 1] - x[i]
        c = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
        E += k * (np.arccos(c) - theta0) ** 2
    return E


add(G("r12_bond_angles_norm", angle_energy, (R6,), ref="ag", tol=1e-9))


# dihedral by atan2 of cross products
def dihedral(p):
    b0, b1, b2 = p[0] - p[1], p[2] - p[1], p[3] - p[2]
    n1 = np.cross(b0, b1)
    n2 = np.cross(b1, b2)
    m = np.cross(n1, b1 / np.linalg.norm(b1))
    return np.arctan2(m @ n2, n1 @ n2)


add(G("r12_dihedral_cross_atan2", dihedral, (R6[:4],), ref="ag", tol=1e-10))
