"""Round 14, part c: structural and continuum mechanics -- truss stiffness assembly with
np.add.at and loops, spring-mass chains, beam deflection by solve, strain energy by einsum."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

NODES = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.5, 0.8], [1.5, 0.8]])
BARS = [(0, 1), (1, 2), (0, 3), (1, 3), (1, 4), (2, 4), (3, 4)]
FIXED = [0, 1, 5]   # node 0 pinned, node 2 roller (y)


def truss_K(areas, nodes=NODES):
    n = nodes.shape[0]
    K = np.zeros((2 * n, 2 * n))
    for e, (i, j) in enumerate(BARS):
        d = nodes[j] - nodes[i]
        L = math.sqrt(d[0] ** 2 + d[1] ** 2)
        c, s = d[0] / L, d[1] / L
        k = areas[e] / L * np.outer([c, s, -c, -s], [c, s, -c, -s])
        idx = [2 * i, 2 * i + 1, 2 * j, 2 * j + 1]
        for a in range(4):
            for b in range(4):
                K[idx[a], idx[b]] += k[a, b]
    return K


FREE = [d for d in range(10) if d not in FIXED]
LOAD = np.zeros(10)
LOAD[7] = -1.0
LOAD[9] = -0.5


def compliance(areas):
    K = truss_K(areas)
    Kf = K[np.ix_(FREE, FREE)]
    u = np.linalg.solve(Kf, LOAD[FREE])
    return LOAD[FREE] @ u


AREAS = np.array([1.0, 1.2, 0.8, 0.9, 1.1, 0.7, 1.0])
add(VG("r14_truss_compliance_loops_ix", compliance, (AREAS,), ref="fd", tol=1e-6))


def truss_K_addat(areas, nodes):
    n = nodes.shape[0]
    K = np.zeros((2 * n, 2 * n))
    I = np.array([i for i, _ in BARS])
    J = np.array([j for _, j in BARS])
    d = nodes[J] - nodes[I]
    L = np.linalg.norm(d, axis=1)
    cs = d / L[:, None]
    v = np.concatenate([cs, -cs], axis=1)                 # (m, 4)
    ke = (areas / L)[:, None, None] * v[:, :, None] * v[:, None, :]
    dofs = np.stack([2 * I, 2 * I + 1, 2 * J, 2 * J + 1], axis=1)
    np.add.at(K, (dofs[:, :, None], dofs[:, None, :]), ke)
    return K


def compliance_addat(areas, nodes):
    K = truss_K_addat(areas, nodes)
    Kf = K[np.ix_(FREE, FREE)]
    u = np.linalg.solve(Kf, LOAD[FREE])
    return LOAD[FREE] @ u


add(pair("r14_truss_addat_matches_loops", lambda: truss_K_addat(AREAS, NODES), lambda: truss_K(AREAS), tol=1e-13))
add(VG("r14_truss_addat_compliance", compliance_addat, (AREAS, NODES), ref="fd", tol=1e-6))
add(G("r14_truss_addat_wrt_nodes", compliance_addat, (AREAS, NODES), argnums=1, ref="fd", tol=1e-6))
# compliance is homogeneous of degree -1 in the areas: a . grad = -compliance
add(pair("r14_truss_euler_homogeneity", lambda: AREAS @ revsrc.grad(compliance_addat)(AREAS, NODES),
         lambda: -compliance_addat(AREAS, NODES), tol=1e-10))


def chain_energy(x, k=np.array([1.0, 2.0, 1.5, 3.0]), rest=1.0, m=1.0):
    # masses at x[0..3] hanging from a wall at 0, springs between neighbours, gravity along x
    e = 0.0
    prev = 0.0
    for i in range(len(x)):
        ext = x[i] - prev - rest
        e += 0.5 * k[i] * ext * ext - m * 9.81 * x[i]
        prev = x[i]
    return e


XC = np.array([1.2, 2.5, 3.9, 5.0])
add(VG("r14_spring_chain_energy", chain_energy, (XC,), ref="ag", tol=1e-10))
add(H("r14_spring_chain_hessian_tridiagonal", chain_energy, (XC,), ref="ag", tol=1e-10))


def chain_equilibrium(k):
    # minimise the chain energy by Newton: H is tridiagonal and constant
    x = np.arange(1.0, 5.0)
    for _ in range(3):
        g = revsrc.grad(chain_energy)(x, k)
        Hm = revsrc.hessian(chain_energy)(x, k)
        x = x - np.linalg.solve(Hm, g)
    return x[-1]


def _chain_eq_closed(k):
    # tension in spring i = m g * (number of masses below incl.) => ext_i = 9.81 * (4 - i) / k_i
    return 4 * 1.0 + np.sum(9.81 * np.array([4.0, 3.0, 2.0, 1.0]) / k)


KC = np.array([1.0, 2.0, 1.5, 3.0])
add(pair("r14_chain_newton_value", lambda: chain_equilibrium(KC), lambda: _chain_eq_closed(KC), tol=1e-10))
add(pair("r14_chain_newton_grad_through_grad_hessian", lambda: revsrc.grad(chain_equilibrium)(KC),
         lambda: -9.81 * np.array([4.0, 3.0, 2.0, 1.0]) / KC ** 2, tol=1e-8))


def beam_deflection(EI, n=6, Lb=1.0, q=1.0):
    # clamped-free beam by finite differences on the 4th derivative, np.linalg.solve
    h = Lb / n
    A = np.zeros((n, n))
    for i in range(n):
        A[i, i] = 6.0
        if i >= 1:
            A[i, i - 1] = -4.0
        if i >= 2:
            A[i, i - 2] = 1.0
        if i + 1 < n:
            A[i, i + 1] = -4.0
        if i + 2 < n:
            A[i, i + 2] = 1.0
    A[0, 0] = 7.0
    A[n - 1, n - 1] = 2.0
    A[n - 2, n - 1] = -3.0 if n > 2 else A[n - 2, n - 1]
    w = np.linalg.solve(EI * A / h ** 4, q * np.ones(n))
    return w[-1]


# w is proportional to 1/EI: dw/dEI = -w/EI
add(pair("r14_beam_solve_grad_EI", lambda: revsrc.grad(beam_deflection)(2.5), lambda: -beam_deflection(2.5) / 2.5, tol=1e-10))
add(pair("r14_beam_solve_grad_q", lambda: revsrc.grad(beam_deflection, argnums=3)(2.5, 6, 1.0, 1.0), lambda: beam_deflection(2.5), tol=1e-10))


def strain_energy(F, mu=1.0, lam=2.0):
    E = 0.5 * (np.einsum("ki,kj->ij", F, F) - np.eye(3))
    return mu * np.einsum("ij,ij->", E, E) + 0.5 * lam * np.einsum("ii->", E) ** 2


FM = np.array([[1.1, 0.1, 0.0], [0.05, 0.95, 0.02], [0.0, -0.03, 1.02]])


def _pk1(F, mu=1.0, lam=2.0):
    E = 0.5 * (F.T @ F - np.eye(3))
    S = 2 * mu * E + lam * np.trace(E) * np.eye(3)
    return F @ S


add(VG("r14_svk_strain_energy_einsum", strain_energy, (FM,), ref=lambda: _pk1(FM), tol=1e-12))
add(H("r14_svk_einsum_hessian", strain_energy, (FM,), ref="fd", tol=1e-5))
add(pair("r14_svk_jacfwd_of_grad", lambda: revsrc.jacfwd(revsrc.grad(strain_energy))(FM),
         lambda: fdj(_pk1, FM), tol=1e-6))


def neo_hookean(F, mu=1.0, kappa=10.0):
    J = np.linalg.det(F)
    C = F.T @ F
    I1 = np.trace(C) * J ** (-2.0 / 3.0)
    return 0.5 * mu * (I1 - 3.0) + 0.5 * kappa * (J - 1.0) ** 2


add(G("r14_neo_hookean_det_trace", neo_hookean, (FM,), ref="ag", tol=1e-10))
add(pair("r14_neo_hookean_rotation_invariance", lambda: revsrc.grad(lambda t: neo_hookean(
    np.array([[math.cos(t), -math.sin(t), 0.0], [math.sin(t), math.cos(t), 0.0], [0.0, 0.0, 1.0]]) @ FM))(0.4),
    lambda: 0.0, tol=1e-10))
add(pair("r14_neo_hookean_vmap_grad", lambda: revsrc.vmap(revsrc.grad(neo_hookean))(np.stack([FM, FM.T, np.eye(3) * 1.1])),
         lambda: np.stack([ag()[0].grad(agify(neo_hookean))(F) for F in (FM, FM.T, np.eye(3) * 1.1)]), tol=1e-10))
