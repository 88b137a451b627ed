"""Round 17, part b: chemistry -- Lennard-Jones and Morse potentials over particle arrays
(broadcast, double loops with cutoffs, minimum image, np.add.at), bond angles and
dihedrals, force-field classes, reaction networks stepped in time, Newton equilibria."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs7_harness import fd_hess_checked  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

EPS_LJ = 1.0
SIG_LJ = 1.0
R_CUT = 2.5

X7 = np.array([[0.0, 0.0, 0.0], [1.12, 0.0, 0.0], [0.56, 0.97, 0.0], [0.56, 0.32, 0.91],
               [-0.6, 0.9, 0.4], [1.7, 0.95, 0.3], [0.1, -1.05, 0.2]])


def lj_broadcast(X):
    d = X[:, None, :] - X[None, :, :]
    r2 = np.sum(d * d, axis=-1)
    i, j = np.triu_indices(X.shape[0], k=1)
    s6 = (SIG_LJ ** 2 / r2[i, j]) ** 3
    return float(np.sum(4.0 * EPS_LJ * (s6 * s6 - s6)))


add(VG("r17_lj_broadcast_triu_vg", lj_broadcast, (X7,), ref="fd", tol=1e-7))
add(H("r17_lj_broadcast_triu_hessian", lj_broadcast, (X7[:4],), ref="fd", tol=1e-4))


def lj_shift(r):
    s6 = (SIG_LJ / r) ** 6
    sc6 = (SIG_LJ / R_CUT) ** 6
    return 4.0 * EPS_LJ * (s6 * s6 - s6) - 4.0 * EPS_LJ * (sc6 * sc6 - sc6)


def lj_loops_cutoff(X, box=None):
    n = len(X)
    e = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            d = X[i] - X[j]
            if box is not None:
                d = d - box * np.round(d / box)
            r = math.sqrt(d @ d)
            if r < R_CUT:
                e += lj_shift(r)
    return e


add(VG("r17_lj_loops_cutoff_vg", lj_loops_cutoff, (X7,), ref="ag", tol=1e-9))
add(G("r17_lj_loops_minimum_image", lj_loops_cutoff, (X7, 3.0), ref="fd", tol=1e-7))


def per_atom_energy_weighted(X, w):
    # per-atom energies accumulated with np.add.at over a pair list, then weighted
    n = X.shape[0]
    i, j = np.triu_indices(n, k=1)
    d = X[i] - X[j]
    r = np.sqrt(np.sum(d * d, axis=1))
    e_pair = 4.0 * ((1.0 / r) ** 12 - (1.0 / r) ** 6)
    e_atom = np.zeros(n)
    np.add.at(e_atom, i, 0.5 * e_pair)
    np.add.at(e_atom, j, 0.5 * e_pair)
    return float(np.sum(w * e_atom))


WAT = np.linspace(0.5, 1.5, 7)
add(VG("r17_lj_add_at_per_atom_vg", per_atom_energy_weighted, (X7, WAT), ref="fd", tol=1e-7))
add(G("r17_lj_add_at_wrt_weights", per_atom_energy_weighted, (X7, WAT), argnums=1, ref="fd", tol=1e-7))


def morse_chain(x, De=4.7, a=1.9, re=0.74):
    r = np.diff(x)
    return np.sum(De * (1.0 - np.exp(-a * (r - re))) ** 2)


XC = np.array([0.0, 0.8, 1.5, 2.31, 3.0])
add(VG("r17_morse_chain_diff_vg", morse_chain, (XC,), ref="ag", tol=1e-10))
add(H("r17_morse_chain_hessian", morse_chain, (XC,), ref="ag", tol=1e-8))
add(G("r17_morse_chain_wrt_params", morse_chain, (XC, 4.7, 1.9, 0.74), argnums=(1, 2, 3), ref="ag", tol=1e-10))


def bond_angle(a, b, c):
    u, v = a - b, c - b
    cosang = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
    return math.acos(max(-1.0, min(1.0, cosang)))


def dihedral(p0, p1, p2, p3):
    b0 = p0 - p1
    b1 = p2 - p1
    b2 = p3 - p2
    b1 = b1 / np.linalg.norm(b1)
    v = b0 - np.dot(b0, b1) * b1
    w = b2 - np.dot(b2, b1) * b1
    x = np.dot(v, w)
    y = np.dot(np.cross(b1, v), w)
    return math.atan2(y, x)


class Term:
    k = 1.0

    def energy(self, X):
        return self.k * self.deviation(X) ** 2


class AngleTerm(Term):
    def __init__(self, idx, theta0, k):
        self.idx, self.theta0, self.k = idx, theta0, k

    def deviation(self, X):
        i, j, l = self.idx
        return bond_angle(X[i], X[j], X[l]) - self.theta0


class BondTerm(Term):
    def __init__(self, i, j, r0, k=300.0):
        self.i, self.j, self.r0, self.k = i, j, r0, k

    def deviation(self, X):
        return np.linalg.norm(X[self.i] - X[self.j]) - self.r0


class TorsionTerm(Term):
    def __init__(self, idx, n, phase, k):
        self.idx, self.n, self.phase, self.k = idx, n, phase, k

    def energy(self, X):
        phi = dihedral(*[X[q] for q in self.idx])
        return self.k * (1.0 + math.cos(self.n * phi - self.phase))


class ForceField:
    def __init__(self, terms):
        self.terms = terms

    def __call__(self, X):
        return sum(t.energy(X) for t in self.terms)


BUTANE = np.array([[0.0, 0.0, 0.0], [1.53, 0.0, 0.0], [2.04, 1.44, 0.0], [3.55, 1.47, 0.35]])
FF = ForceField([BondTerm(0, 1, 1.53), BondTerm(1, 2, 1.53), BondTerm(2, 3, 1.53),
                 AngleTerm((0, 1, 2), 1.91, 60.0), AngleTerm((1, 2, 3), 1.91, 60.0),
                 TorsionTerm((0, 1, 2, 3), 3, 0.0, 1.4)])
add(pair("r17_forcefield_classes_callable_grad", lambda: revsrc.grad(FF)(BUTANE),
         lambda: fd_checked(FF, (BUTANE,))[0], tol=1e-7))
add(pair("r17_forcefield_hessian_normal_modes", lambda: np.linalg.eigvalsh(revsrc.hessian(FF)(BUTANE).reshape(12, 12))[-3:],
         lambda: np.linalg.eigvalsh(fd_hess_checked(FF, (BUTANE,))[0].reshape(12, 12))[-3:], tol=1e-4))
add(G("r17_dihedral_star_args", dihedral, tuple(BUTANE), argnums=(0, 1, 2, 3), ref="fd", tol=1e-8))
add(G("r17_bond_angle_near_linear_clip", bond_angle, (np.array([-1.0, 1e-3, 0.0]), np.zeros(3), np.array([1.0, 0.0, 0.0])),
      argnums=0, ref="fd", tol=1e-6))


def abc_network(rates, conc0, dt=0.01, steps=300):
    # A + B -> C (k1), C -> A + B (k2), C -> D (k3); explicit Euler, species in an array
    c = np.array(conc0, dtype=float)
    for _ in range(steps):
        r1 = rates["k1"] * c[0] * c[1]
        r2 = rates["k2"] * c[2]
        r3 = rates["k3"] * c[2]
        dc = np.array([-r1 + r2, -r1 + r2, r1 - r2 - r3, r3])
        c = c + dt * dc
    return c[3]


RATES = {"k1": 2.0, "k2": 0.5, "k3": 0.8}
add(VG("r17_reaction_network_dict_rates_vg", abc_network, (RATES, [1.0, 0.8, 0.0, 0.0]), ref="ag", tol=1e-10))


def abc_network_inplace(k, c0, dt=0.01, steps=200):
    c = c0.copy()
    hist = np.zeros((steps, 4))
    for t in range(steps):
        r1 = k[0] * c[0] * c[1]
        r2 = k[1] * c[2]
        r3 = k[2] * c[2]
        c[0] += dt * (-r1 + r2)
        c[1] += dt * (-r1 + r2)
        c[2] += dt * (r1 - r2 - r3)
        c[3] += dt * r3
        hist[t, :] = c
    # time-averaged concentration of C
    return np.mean(hist[:, 2])


K3 = np.array([2.0, 0.5, 0.8])
C0 = np.array([1.0, 0.8, 0.0, 0.0])
add(VG("r17_reaction_network_inplace_history_vg", abc_network_inplace, (K3, C0), ref="fd", tol=1e-8))
add(G("r17_reaction_network_inplace_wrt_c0", abc_network_inplace, (K3, C0), argnums=1, ref="fd", tol=1e-8))


def arrhenius_k(T, A, Ea, R=8.314):
    return A * math.exp(-Ea / (R * T))


def batch_reactor_time(T, target=0.5, dt=0.5):
    # first-order decay at temperature T; stop when the conversion passes target
    k = arrhenius_k(T, 1e7, 6.0e4)
    conv = 0.0
    t = 0.0
    heat = 0.0
    while conv < target:
        rate = k * (1.0 - conv)
        conv = conv + dt * rate
        heat += rate * dt * 4.2
        t += dt
    return heat / t


add(VG("r17_batch_reactor_while_stop_vg", batch_reactor_time, (330.0,), ref="fd", tol=1e-7))


def equilibrium_newton(K, c_tot=1.0):
    # dimerisation 2M <-> D, K = D / M^2, mass balance M + 2D = c_tot; Newton on M
    M = 0.5 * c_tot
    for it in range(50):
        f = M + 2.0 * K * M * M - c_tot
        df = 1.0 + 4.0 * K * M
        step = f / df
        M = M - step
        if abs(step) < 1e-14:
            break
    return M


def eq_closed(K, c_tot=1.0):
    return (-1.0 + math.sqrt(1.0 + 8.0 * K * c_tot)) / (4.0 * K)


add(VG("r17_equilibrium_newton_break_vg", equilibrium_newton, (3.0,),
       ref=lambda: fd_checked(eq_closed, (3.0,))[0], tol=1e-8))
add(pair("r17_equilibrium_newton_jit_grad", lambda: revsrc.jit(revsrc.grad(equilibrium_newton))(3.0),
         lambda: fd_checked(eq_closed, (3.0,))[0], tol=1e-8))


def kabsch_rmsd(P, Q):
    Pc = P - P.mean(axis=0)
    Qc = Q - Q.mean(axis=0)
    Hm = Pc.T @ Qc
    U, S, Vt = np.linalg.svd(Hm)
    d = np.sign(np.linalg.det(Vt.T @ U.T))
    D = np.diag(np.array([1.0, 1.0, d]))
    R = Vt.T @ D @ U.T
    diff = Pc @ R.T - Qc
    return math.sqrt(np.sum(diff * diff) / P.shape[0])


QREF = X7 + 0.05 * np.sin(np.arange(21.0)).reshape(7, 3)
add(G("r17_kabsch_rmsd_svd", kabsch_rmsd, (X7 @ np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]]), QREF), ref="fd", tol=1e-6))


def verlet_md(X0, V0, dt=0.002, steps=15):
    X, V = X0.copy(), V0.copy()
    F = -revsrc.grad(lj_broadcast)(X)
    for _ in range(steps):
        V = V + 0.5 * dt * F
        X = X + dt * V
        F = -revsrc.grad(lj_broadcast)(X)
        V = V + 0.5 * dt * F
    return 0.5 * np.sum(V * V)


def verlet_md_plain(X0, V0, dt=0.002, steps=15):
    X, V = X0.copy(), V0.copy()
    F = -lj_force_closed(X)
    for _ in range(steps):
        V = V + 0.5 * dt * F
        X = X + dt * V
        F = -lj_force_closed(X)
        V = V + 0.5 * dt * F
    return 0.5 * np.sum(V * V)


def lj_force_closed(X):
    d = X[:, None, :] - X[None, :, :]
    r2 = np.sum(d * d, axis=-1) + np.eye(X.shape[0])
    s6 = 1.0 / r2 ** 3
    coef = (48.0 * s6 * s6 - 24.0 * s6) / r2
    coef = coef * (1.0 - np.eye(X.shape[0]))
    return -np.sum(coef[:, :, None] * d, axis=1)


V07 = 0.1 * np.cos(np.arange(21.0)).reshape(7, 3)
add(pair("r17_verlet_grad_inside_grad_wrt_v0", lambda: revsrc.grad(verlet_md, argnums=1)(X7, V07),
         lambda: fd_checked(verlet_md_plain, (X7, V07), argnums=1)[0], tol=1e-6))
add(pair("r17_verlet_grad_inside_value", lambda: verlet_md(X7, V07), lambda: verlet_md_plain(X7, V07), tol=1e-10))


def lowest_conformers(phis, k=3):
    # torsion scan: energies of conformers, mean of the k lowest (sorted)
    es = [1.4 * (1.0 + math.cos(3.0 * p)) + 0.6 * (1.0 - math.cos(p)) for p in phis]
    low = sorted(es)[:k]
    return sum(low) / k


PHIS = np.array([0.3, 1.2, 2.2, 3.0, -1.0, -2.5])
add(VG("r17_lowest_conformers_sorted_vg", lowest_conformers, (PHIS,), ref="fd", tol=1e-8))


def coulomb_lj(params, X):
    # charges and LJ epsilons per atom in a dict; Lorentz-Berthelot mixing
    q, eps = params["q"], params["eps"]
    e = 0.0
    for i, j in zip(*np.triu_indices(len(q), k=1)):
        r = np.linalg.norm(X[i] - X[j])
        eij = math.sqrt(eps[i] * eps[j])
        e = e + q[i] * q[j] / r + 4.0 * eij * ((1.0 / r) ** 12 - (1.0 / r) ** 6)
    return e


PQ = {"q": np.array([0.4, -0.8, 0.4, 0.1, -0.1, 0.2, -0.2]), "eps": np.linspace(0.5, 1.1, 7)}
add(VG("r17_coulomb_lj_dict_params_vg", coulomb_lj, (PQ, X7), ref="ag", tol=1e-9))
add(G("r17_coulomb_lj_wrt_positions", coulomb_lj, (PQ, X7), argnums=1, ref="fd", tol=1e-7))
add(pair("r17_lj_float32_positions", lambda: revsrc.grad(lj_broadcast)(X7.astype(np.float32)),
         lambda: fd_checked(lj_broadcast, (X7,))[0], tol=2e-3))


def butane_energy(X, kb=300.0, kt=1.4):
    # the same force field built inside the function, where its objects are followed
    ff = ForceField([BondTerm(0, 1, 1.53, kb), BondTerm(1, 2, 1.53, kb), BondTerm(2, 3, 1.53, kb),
                     AngleTerm((0, 1, 2), 1.91, 60.0), AngleTerm((1, 2, 3), 1.91, 60.0),
                     TorsionTerm((0, 1, 2, 3), 3, 0.0, kt)])
    return ff(X)


add(VG("r17_forcefield_built_inside_vg", butane_energy, (BUTANE,), ref="fd", tol=1e-7))
add(G("r17_forcefield_built_inside_wrt_k", butane_energy, (BUTANE, 300.0, 1.4), argnums=(1, 2), ref="fd", tol=1e-7))


class TorsionTerm2(TorsionTerm):
    def energy(self, X):
        a, b, c, d = self.idx
        phi = dihedral(X[a], X[b], X[c], X[d])
        return self.k * (1.0 + math.cos(self.n * phi - self.phase))


def butane_energy2(X, kb=300.0, kt=1.4):
    ff = ForceField([BondTerm(0, 1, 1.53, kb), BondTerm(1, 2, 1.53, kb), BondTerm(2, 3, 1.53, kb),
                     AngleTerm((0, 1, 2), 1.91, 60.0), AngleTerm((1, 2, 3), 1.91, 60.0),
                     TorsionTerm2((0, 1, 2, 3), 3, 0.0, kt)])
    return ff(X)


add(VG("r17_forcefield_inside_subclass_vg", butane_energy2, (BUTANE,), ref="fd", tol=1e-7))
add(H("r17_forcefield_inside_subclass_hessian", butane_energy2, (BUTANE,), ref="fd", tol=1e-4))


def bond_forces_fancy_iadd(X, bonds_i, bonds_j, k=100.0, r0=1.0):
    # per-atom "strain" with fancy-index += (repeated atoms: NumPy keeps one add per index)
    d = X[bonds_i] - X[bonds_j]
    r = np.sqrt(np.sum(d * d, axis=1))
    strain = np.zeros(X.shape[0])
    strain[bonds_i] += k * (r - r0) ** 2
    return np.sum(strain * np.arange(1.0, X.shape[0] + 1))


BI = np.array([0, 0, 1, 2, 3])
BJ = np.array([1, 2, 2, 3, 4])
add(VG("r17_fancy_index_iadd_repeated_atoms_vg", bond_forces_fancy_iadd, (X7[:5], BI, BJ), ref="fd", tol=1e-7))


def closest_contact(X, probe):
    # the nearest atom to a probe chosen with min(key=...), then a Morse term to it
    pairs = [(i, np.linalg.norm(X[i] - probe)) for i in range(X.shape[0])]
    i_best, r_best = min(pairs, key=lambda p: p[1])
    far = sorted((r for _, r in pairs), reverse=True)[:2]
    return morse_chain(np.array([0.0, r_best])) + 0.1 * sum(far)


add(VG("r17_min_key_sorted_reverse_vg", closest_contact, (X7, np.array([0.4, 0.4, 0.4])), ref="fd", tol=1e-7))
add(G("r17_min_key_wrt_probe", closest_contact, (X7, np.array([0.4, 0.4, 0.4])), argnums=1, ref="fd", tol=1e-7))


def median_bond(X):
    d = np.linalg.norm(X[1:] - X[:-1], axis=1)
    s = np.sort(d)
    return 0.5 * (s[2] + s[3]) + np.sum(d[d > 1.0] - 1.0) ** 2


add(VG("r17_sort_median_boolean_mask_vg", median_bond, (X7,), ref="fd", tol=1e-7))


def rxn_tridiag_view(k, steps=30, dt=0.05):
    # reversible chain A0 <-> A1 <-> ... with the rate matrix filled through diagonal views
    n = k.shape[0] + 1
    Kt = np.zeros((n, n))
    Kt.T[0, 0] = 0.0
    for i in range(n - 1):
        Kt[i + 1, i] += k[i]
        Kt[i, i] -= k[i]
        Kt[i, i + 1] += 0.5 * k[i]
        Kt[i + 1, i + 1] -= 0.5 * k[i]
    c = np.zeros(n)
    c[0] = 1.0
    flat = Kt.reshape(-1)
    flat[-1] -= 0.05
    for _ in range(steps):
        c = c + dt * (Kt @ c)
    return c[-1]


add(VG("r17_rate_matrix_reshape_view_write_vg", rxn_tridiag_view, (np.array([1.0, 0.7, 0.4]),), ref="fd", tol=1e-7))

# ---- the same programs under backend="jax"
add(pair("r17_fancy_iadd_repeated_backend_jax", lambda: revsrc.grad(bond_forces_fancy_iadd, backend="jax")(X7[:5], BI, BJ),
         lambda: fd_checked(bond_forces_fancy_iadd, (X7[:5], BI, BJ))[0], tol=1e-7))
add(pair("r17_add_at_per_atom_backend_jax", lambda: revsrc.grad(per_atom_energy_weighted, backend="jax")(X7, WAT),
         lambda: fd_checked(per_atom_energy_weighted, (X7, WAT))[0], tol=1e-7))
add(pair("r17_lj_loops_cutoff_backend_jax", lambda: revsrc.grad(lj_loops_cutoff, backend="jax")(X7),
         lambda: fd_checked(lj_loops_cutoff, (X7,))[0], tol=1e-7))
add(pair("r17_median_bond_mask_backend_jax", lambda: revsrc.grad(median_bond, backend="jax")(X7),
         lambda: fd_checked(median_bond, (X7,))[0], tol=1e-7))
add(pair("r17_rate_matrix_reshape_view_backend_jax", lambda: revsrc.grad(rxn_tridiag_view, backend="jax")(np.array([1.0, 0.7, 0.4])),
         lambda: fd_checked(rxn_tridiag_view, (np.array([1.0, 0.7, 0.4]),))[0], tol=1e-7))


def gauss_pivot_solve(A, b):
    # Gaussian elimination with partial pivoting; rows swapped with fancy indexing
    A = A.astype(float)
    b = b.astype(float)
    n = len(b)
    for k in range(n - 1):
        p = k + int(np.argmax(np.abs(A[k:, k])))
        if p != k:
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            m = A[i, k] / A[k, k]
            A[i, k:] -= m * A[k, k:]
            b[i] -= m * b[k]
    x = np.zeros(n)
    for i in reversed(range(n)):
        x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    return x


def stoich_fit(k, target):
    # steady-state concentrations of a linear network (rate matrix from k) by pivoted elimination
    Km = np.array([[-(k[0] + 0.1), k[1], 0.0], [k[0], -(k[1] + k[2]), 0.3], [0.1, k[2], -1.3]])
    c = gauss_pivot_solve(Km, np.array([-1.0, 0.0, 0.0]))
    return np.sum((c - target) ** 2)


add(VG("r17_gauss_pivot_fancy_row_swap_vg", stoich_fit, (np.array([0.5, 2.0, 0.8]), np.array([1.0, 0.5, 0.2])), ref="fd", tol=1e-7))
add(H("r17_gauss_pivot_fancy_row_swap_hessian", stoich_fit, (np.array([0.5, 2.0, 0.8]), np.array([1.0, 0.5, 0.2])), ref="fd", tol=1e-4))


def gauss_pivot_tuple_swap(A, b):
    # the same with A[k], A[p] = A[p], A[k]: NumPy's views make both rows A[p] (a classic bug);
    # the derivative must follow what NumPy computes
    A = A.astype(float)
    n = len(b)
    for k in range(n - 1):
        p = k + int(np.argmax(np.abs(A[k:, k])))
        if p != k:
            A[k], A[p] = A[p], A[k]
    return np.sum(A * np.arange(1.0, A.size + 1).reshape(A.shape))


add(VG("r17_tuple_row_swap_numpy_semantics_vg", gauss_pivot_tuple_swap, (np.array([[0.1, 2.0, 1.0], [3.0, 1.0, 0.5], [1.0, 0.2, 4.0]]), np.ones(3)),
       ref="fd", tol=1e-7))


import collections  # noqa: E402

MorseParams = collections.namedtuple("MorseParams", ["De", "a", "re"])


def morse_fit_loss(p, r, e_ref):
    e = p.De * (1.0 - np.exp(-p.a * (r - p.re))) ** 2
    return np.mean((e - e_ref) ** 2)


RS = np.linspace(0.55, 2.0, 9)
EREF = 4.5 * (1.0 - np.exp(-2.0 * (RS - 0.75))) ** 2
MP0 = MorseParams(4.7, 1.9, 0.74)


def _morse_fit_ref():
    g = fd_checked(lambda De, a, re: morse_fit_loss(MorseParams(De, a, re), RS, EREF), tuple(MP0), argnums=(0, 1, 2))
    return MorseParams(*g)


add(pair("r17_morse_fit_namedtuple_params", lambda: revsrc.grad(morse_fit_loss)(MP0, RS, EREF), _morse_fit_ref, tol=1e-7))


class Molecule:
    # a registered container: positions are leaves, the element list is static
    def __init__(self, X, elements):
        self.X = X
        self.elements = elements


revsrc.register_pytree(Molecule, lambda m: ((m.X,), tuple(m.elements)),
                       lambda aux, ch: Molecule(ch[0], list(aux)))

EPS_EL = {"C": 0.8, "H": 0.2, "O": 1.0}


def molecule_energy(mol):
    X = mol.X
    e = 0.0
    for i in range(len(mol.elements)):
        for j in range(i + 1, len(mol.elements)):
            eij = math.sqrt(EPS_EL[mol.elements[i]] * EPS_EL[mol.elements[j]])
            r2 = np.sum((X[i] - X[j]) ** 2)
            e += 4.0 * eij * (r2 ** -6 - r2 ** -3)
    return e


MOL = Molecule(X7[:4].copy(), ["C", "H", "O", "H"])
add(pair("r17_registered_molecule_pytree_grad", lambda: revsrc.grad(molecule_energy)(MOL).X,
         lambda: fd_checked(lambda X: molecule_energy(Molecule(X, ["C", "H", "O", "H"])), (X7[:4].copy(),))[0], tol=1e-7))
add(pair("r17_lowest_conformers_sorted_backend_jax", lambda: revsrc.grad(lowest_conformers, backend="jax")(PHIS),
         lambda: fd_checked(lowest_conformers, (PHIS,))[0], tol=1e-7))
