"""Round 20, part b: solid mechanics and FEM -- 1-D bar and Euler-Bernoulli beam elements
assembled by slice and np.ix_ writes and solved by np.linalg.solve, 2-D trusses assembled
with np.add.at, CST plane-stress topology compliance (SIMP), plasticity return mapping
with branches over a strain history, J2 radial return, neo-Hookean stresses against the
closed-form Piola stress, damage with a max history, penalty contact, modal frequencies."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

# ---------------------------------------------------------------- 1-D bar
N_EL = 6
L_BAR = 3.0


def bar_element(EA, le):
    return EA / le * np.array([[1.0, -1.0], [-1.0, 1.0]])


def assemble_bar(EA):
    n = len(EA)
    K = np.zeros((n + 1, n + 1))
    le = L_BAR / n
    for e in range(n):
        dofs = [e, e + 1]
        K[np.ix_(dofs, dofs)] += bar_element(EA[e], le)
    return K


def bar_tip_compliance(EA, P=2.0):
    K = assemble_bar(EA)
    f = np.zeros(len(EA) + 1)
    f[-1] = P
    u = np.zeros(len(EA) + 1)
    u[1:] = np.linalg.solve(K[1:, 1:], f[1:])
    return f @ u


EA0 = np.array([2.0, 1.8, 1.5, 1.2, 1.0, 0.9])
add(VG("r20b_bar_ix_assembly_compliance", bar_tip_compliance, (EA0,), ref="fd", tol=1e-6))
# closed form: C = P^2 sum le / EA_e, dC/dEA_e = -P^2 le / EA_e^2
add(pair("r20b_bar_compliance_closed_form", lambda: revsrc.grad(bar_tip_compliance)(EA0),
         lambda: -4.0 * (L_BAR / N_EL) / EA0 ** 2, tol=1e-10))
add(H("r20b_bar_compliance_hessian", bar_tip_compliance, (EA0[:4],), ref="fd", tol=1e-5))


def bar_distributed_load(EA, q):
    # body load q per element (a pytree of two arrays), stored energy
    K = assemble_bar(EA)
    le = L_BAR / len(EA)
    f = np.zeros(len(EA) + 1)
    for e, qe in enumerate(q):
        f[e:e + 2] += 0.5 * qe * le
    u = np.linalg.solve(K[1:, 1:], f[1:])
    return 0.5 * u @ f[1:]


Q0 = np.array([1.0, 0.5, 0.0, -0.2, 0.3, 0.7])
add(G("r20b_bar_distributed_load_two_args", bar_distributed_load, (EA0, Q0), argnums=(0, 1), ref="fd", tol=1e-6))


# ---------------------------------------------------------------- Euler-Bernoulli beam
def beam_ke(EI, le):
    c = EI / le ** 3
    return c * np.array([[12, 6 * le, -12, 6 * le],
                         [6 * le, 4 * le * le, -6 * le, 2 * le * le],
                         [-12, -6 * le, 12, -6 * le],
                         [6 * le, 2 * le * le, -6 * le, 4 * le * le]])


def cantilever_tip(EI, P=1.0, L=2.0, n=4):
    le = L / n
    ndof = 2 * (n + 1)
    K = np.zeros((ndof, ndof))
    for e in range(n):
        K[2 * e:2 * e + 4, 2 * e:2 * e + 4] += beam_ke(EI[e] if np.ndim(EI) else EI, le)
    F = np.zeros(ndof)
    F[-2] = P
    free = np.arange(2, ndof)
    u = np.linalg.solve(K[np.ix_(free, free)], F[free])
    return u[-2]


add(pair("r20b_cantilever_tip_closed_form", lambda: revsrc.grad(cantilever_tip)(3.0),
         lambda: -1.0 * 2.0 ** 3 / (3 * 3.0 ** 2), tol=1e-10))
add(pair("r20b_cantilever_tip_second_derivative", lambda: revsrc.grad(revsrc.grad(cantilever_tip))(3.0),
         lambda: 2.0 * 2.0 ** 3 / (3 * 3.0 ** 3), tol=1e-9))
add(G("r20b_cantilever_tip_per_element_EI", cantilever_tip, (np.array([3.0, 2.5, 2.0, 1.5]),), ref="fd", tol=1e-6))
add(pair("r20b_cantilever_tip_jvp_wrt_load_int", lambda: revsrc.jvp(lambda P: cantilever_tip(3.0, P), (2.0,), (1.0,)),
         lambda: (cantilever_tip(3.0, 2), 2.0 ** 3 / (3 * 3.0)), tol=1e-10))


# ---------------------------------------------------------------- 2-D truss, np.add.at
NODES = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.5, 0.8], [1.5, 0.8]])
BARS = np.array([[0, 1], [1, 2], [0, 3], [1, 3], [1, 4], [2, 4], [3, 4]])
FIXED = np.array([0, 1, 5])
E_STEEL = 200.0


def truss_stiffness(A):
    ndof = 2 * len(NODES)
    K = np.zeros((ndof, ndof))
    for b, (i, j) in enumerate(BARS):
        d = NODES[j] - NODES[i]
        L = np.sqrt(d @ d)
        c, s = d / L
        T = np.array([c, s])
        kloc = E_STEEL * A[b] / L * np.outer(np.concatenate([T, -T]), np.concatenate([T, -T]))
        dofs = np.array([2 * i, 2 * i + 1, 2 * j, 2 * j + 1])
        np.add.at(K, (dofs[:, None], dofs[None, :]), kloc)
    return K


def truss_compliance(A):
    K = truss_stiffness(A)
    F = np.zeros(2 * len(NODES))
    F[7] = -1.0
    F[9] = -0.5
    free = np.setdiff1d(np.arange(2 * len(NODES)), FIXED)
    u = np.linalg.solve(K[np.ix_(free, free)], F[free])
    return F[free] @ u


A0 = np.array([1.0, 1.2, 0.8, 0.5, 0.5, 0.9, 1.1])
add(VG("r20b_truss_add_at_compliance", truss_compliance, (A0,), ref="fd", tol=1e-6))
add(H("r20b_truss_compliance_hessian", truss_compliance, (A0,), ref="fd", tol=1e-4))
# compliance is homogeneous of degree -1 in A: A . grad = -C
add(pair("r20b_truss_euler_homogeneity", lambda: A0 @ revsrc.grad(truss_compliance)(A0),
         lambda: -truss_compliance(A0), tol=1e-10))


def truss_first_frequency(A, rho=7.8):
    K = truss_stiffness(A)
    free = np.setdiff1d(np.arange(2 * len(NODES)), FIXED)
    m = np.zeros(2 * len(NODES))
    for b, (i, j) in enumerate(BARS):
        L = np.linalg.norm(NODES[j] - NODES[i])
        m[[2 * i, 2 * i + 1, 2 * j, 2 * j + 1]] += 0.5 * rho * A[b] * L
    mi = 1.0 / np.sqrt(m[free])
    Kt = K[np.ix_(free, free)] * mi[:, None] * mi[None, :]
    return np.sqrt(np.linalg.eigvalsh(Kt)[0])


add(G("r20b_truss_first_frequency_eigvalsh", truss_first_frequency, (A0,), ref="fd", tol=1e-6))


# ---------------------------------------------------------------- CST plane stress, SIMP
NX_Q, NY_Q = 3, 2


def cst_B(xy):
    x1, y1 = xy[0]
    x2, y2 = xy[1]
    x3, y3 = xy[2]
    area2 = (x2 - x1) * (y3 - y1) - (x3 - x1) * (y2 - y1)
    b = np.array([y2 - y3, y3 - y1, y1 - y2]) / area2
    c = np.array([x3 - x2, x1 - x3, x2 - x1]) / area2
    B = np.zeros((3, 6))
    B[0, 0::2] = b
    B[1, 1::2] = c
    B[2, 0::2] = c
    B[2, 1::2] = b
    return B, 0.5 * area2


def plane_stress_D(E, nu):
    return E / (1 - nu ** 2) * np.array([[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu) / 2]])


def mesh():
    pts = np.array([[i, j] for j in range(NY_Q + 1) for i in range(NX_Q + 1)], dtype=float)
    tris = []
    for j in range(NY_Q):
        for i in range(NX_Q):
            n0 = j * (NX_Q + 1) + i
            tris.append((n0, n0 + 1, n0 + NX_Q + 2))
            tris.append((n0, n0 + NX_Q + 2, n0 + NX_Q + 1))
    return pts, tris


PTS, TRIS = mesh()


def simp_compliance(dens, penal=3.0, nu=0.3):
    ndof = 2 * len(PTS)
    K = np.zeros((ndof, ndof))
    for e, tri in enumerate(TRIS):
        E = 1e-3 + dens[e] ** penal * (1.0 - 1e-3)
        B, area = cst_B(PTS[list(tri)])
        ke = area * B.T @ plane_stress_D(E, nu) @ B
        dofs = np.array([[2 * n, 2 * n + 1] for n in tri]).reshape(-1)
        K[np.ix_(dofs, dofs)] += ke
    left = [2 * n + d for n in range(len(PTS)) if PTS[n, 0] == 0.0 for d in (0, 1)]
    free = np.array([k for k in range(ndof) if k not in left])
    F = np.zeros(ndof)
    F[2 * NX_Q + 1] = -1.0
    u = np.linalg.solve(K[np.ix_(free, free)], F[free])
    return F[free] @ u


DENS = np.linspace(0.4, 0.9, len(TRIS))
add(VG("r20b_simp_cst_compliance", simp_compliance, (DENS,), ref="fd", tol=1e-6))
add(G("r20b_simp_cst_compliance_wrt_nu", simp_compliance, (DENS, 3.0, 0.3), argnums=2, ref="fd", tol=1e-6))


def sensitivity_filter(dens, rmin=1.5):
    centers = np.array([PTS[list(t)].mean(axis=0) for t in TRIS])
    out = np.zeros_like(dens)
    for e in range(len(dens)):
        w = np.maximum(0.0, rmin - np.linalg.norm(centers - centers[e], axis=1))
        out[e] = np.sum(w * dens) / np.sum(w)
    return simp_compliance(out)


add(G("r20b_simp_density_filter_maximum", sensitivity_filter, (DENS,), ref="fd", tol=1e-6))


# ---------------------------------------------------------------- 1-D plasticity, return mapping
STRAIN_PATH = np.array([0.0, 0.001, 0.002, 0.004, 0.006, 0.004, 0.001, -0.002, -0.004, 0.0])


def return_map_1d(eps, eps_p, alpha, E, sy, Hk):
    sig_tr = E * (eps - eps_p)
    f_tr = abs(sig_tr) - (sy + Hk * alpha)
    if f_tr <= 0.0:
        return sig_tr, eps_p, alpha
    dg = f_tr / (E + Hk)
    sgn = 1.0 if sig_tr > 0 else -1.0
    return sig_tr - E * dg * sgn, eps_p + dg * sgn, alpha + dg


def plasticity_fit(mat, sig_obs):
    E, sy, Hk = mat
    eps_p, alpha = 0.0, 0.0
    loss = 0.0
    for eps, so in zip(STRAIN_PATH, sig_obs):
        sig, eps_p, alpha = return_map_1d(eps, eps_p, alpha, E, sy, Hk)
        loss += (sig - so) ** 2
    return loss


SIG_OBS = np.array([0.0, 0.2, 0.31, 0.36, 0.41, 0.0, -0.6, -0.5, -0.45, 0.3])
add(VG("r20b_return_map_1d_history_tuple", plasticity_fit, ((200.0, 0.3, 10.0), SIG_OBS), ref="fd", tol=1e-6))
add(pair("r20b_return_map_1d_history_vs_ag", lambda: revsrc.grad(plasticity_fit)((200.0, 0.3, 10.0), SIG_OBS),
         lambda: ag()[0].grad(agify(plasticity_fit))((200.0, 0.3, 10.0), SIG_OBS), tol=1e-9))


def j2_radial_return(deps, G_mod=80.0, K_mod=160.0, sy=0.25, h=2.0):
    # one strain increment from a prestressed state; returns the stress after return
    sig_old = np.array([[0.1, 0.02, 0.0], [0.02, -0.05, 0.01], [0.0, 0.01, 0.0]])
    tr = np.trace(deps)
    dev = deps - tr / 3.0 * np.eye(3)
    sig_tr = sig_old + 2 * G_mod * dev + K_mod * tr * np.eye(3)
    s = sig_tr - np.trace(sig_tr) / 3.0 * np.eye(3)
    q = math.sqrt(1.5 * np.einsum("ij,ij->", s, s))
    if q > sy:
        dgam = (q - sy) / (3 * G_mod + h)
        s = s * (1.0 - 3 * G_mod * dgam / q)
    sig = s + np.trace(sig_tr) / 3.0 * np.eye(3)
    return np.sum(sig * np.array([[1.0, 0.5, 0.2], [0.5, -1.0, 0.3], [0.2, 0.3, 0.7]]))


DEPS_EL = np.array([[1e-4, 2e-5, 0.0], [2e-5, -5e-5, 0.0], [0.0, 0.0, 1e-5]])
add(G("r20b_j2_radial_return_elastic", j2_radial_return, (DEPS_EL,), ref="jax", tol=1e-9))
add(G("r20b_j2_radial_return_plastic", j2_radial_return, (DEPS_EL * 30,), ref="fd", tol=1e-6, h=1e-7))
add(G("r20b_j2_radial_return_wrt_yield", j2_radial_return, (DEPS_EL * 30, 80.0, 160.0, 0.25), argnums=(1, 3),
      ref="ag", tol=1e-9))


# ---------------------------------------------------------------- hyperelasticity
def neo_hookean(F, mu=1.0, lam=2.0):
    C = F.T @ F
    J = np.linalg.det(F)
    lnJ = np.log(J)
    return 0.5 * mu * (np.trace(C) - 3) - mu * lnJ + 0.5 * lam * lnJ ** 2


F0 = np.array([[1.1, 0.1, 0.0], [0.05, 0.95, 0.02], [0.0, -0.03, 1.02]])


def piola_closed(F, mu=1.0, lam=2.0):
    Finv_T = np.linalg.inv(F).T
    return mu * (F - Finv_T) + lam * np.log(np.linalg.det(F)) * Finv_T


add(pair("r20b_neo_hookean_piola_closed_form", lambda: revsrc.grad(neo_hookean)(F0), lambda: piola_closed(F0), tol=1e-12))
add(pair("r20b_neo_hookean_tangent_jacfwd_jacrev", lambda: revsrc.jacfwd(revsrc.jacrev(neo_hookean))(F0),
         lambda: ag()[0].hessian(agify(neo_hookean))(F0), tol=1e-10))
add(pair("r20b_neo_hookean_tangent_vs_piola_jacobian", lambda: revsrc.hessian(neo_hookean)(F0),
         lambda: fdj(piola_closed, F0), tol=1e-7))


def damage_history(params, strains):
    # isotropic damage: kappa keeps the largest equivalent strain seen so far
    E, k0, kc = params["E"], params["k0"], params["kc"]
    kappa = k0
    work = 0.0
    for eps in strains:
        kappa = max(kappa, abs(eps))
        d = 0.0 if kappa <= k0 else min(1.0, (kappa - k0) / (kc - k0) * kc / kappa)
        work += 0.5 * (1 - d) * E * eps ** 2
    return work


add(G("r20b_damage_max_min_history_dict", damage_history,
      ({"E": 30.0, "k0": 1e-3, "kc": 1e-2}, [5e-4, 2e-3, 1.5e-3, 4e-3, 3e-3, 6e-3]), ref="ag", tol=1e-9))


def contact_penalty_energy(u, k_pen=1e3, gaps=np.array([0.02, 0.0, -0.01, 0.05])):
    # springs chain pushed into a rigid wall with penalty np.maximum(0, -gap)
    ks = np.array([1.0, 2.0, 1.5, 1.0])
    stretch = np.diff(np.concatenate([[0.0], u]))
    spring = 0.5 * np.sum(ks * stretch ** 2)
    pen = np.maximum(0.0, u - gaps - 0.03)
    return spring + 0.5 * k_pen * np.sum(pen ** 2) - 0.1 * u[-1]


add(G("r20b_contact_penalty_maximum", contact_penalty_energy, (np.array([0.01, 0.04, 0.05, 0.09]),), ref="fd", tol=1e-6))


def newton_spring_chain(k, f_ext=0.3):
    # nonlinear (cubic) springs in series, solved by Newton with a residual test
    u = 0.0
    for _ in range(30):
        r = k * u + 2.0 * u ** 3 - f_ext
        if abs(r) < 1e-14:
            break
        u -= r / (k + 6.0 * u ** 2)
    return u


# implicit: du/dk = -u / (k + 6 u^2)
add(pair("r20b_newton_spring_implicit_closed_form", lambda: revsrc.grad(newton_spring_chain)(1.5),
         lambda: -newton_spring_chain(1.5) / (1.5 + 6 * newton_spring_chain(1.5) ** 2), tol=1e-10))


def stress_recovery(u_flat):
    # nodal displacements reshaped, element strains written column by column
    U = u_flat.reshape(-1, 2)
    out = np.zeros((3, len(TRIS)))
    for e, tri in enumerate(TRIS):
        B, _ = cst_B(PTS[list(tri)])
        out[:, e] = plane_stress_D(1.0, 0.3) @ B @ U[list(tri)].reshape(-1)
    vm = np.sqrt(out[0] ** 2 - out[0] * out[1] + out[1] ** 2 + 3 * out[2] ** 2 + 1e-12)
    return np.sum(vm ** 3)


U0 = np.sin(np.arange(2 * len(PTS)) * 0.7) * 0.01
add(G("r20b_stress_recovery_column_writes", stress_recovery, (U0,), ref="fd", tol=1e-6, h=1e-6))


class Material:
    def __init__(self, E, nu):
        self.E = E
        self.nu = nu

    @property
    def lame(self):
        return self.E * self.nu / ((1 + self.nu) * (1 - 2 * self.nu)), self.E / (2 * (1 + self.nu))

    def energy(self, eps):
        lam, mu = self.lame
        return 0.5 * lam * np.trace(eps) ** 2 + mu * np.sum(eps * eps)


class ThermalMaterial(Material):
    def __init__(self, E, nu, alpha):
        super().__init__(E, nu)
        self.alpha = alpha

    def energy(self, eps, dT=10.0):
        return super().energy(eps - self.alpha * dT * np.eye(3))


def thermal_energy(E, nu, eps):
    return ThermalMaterial(E, nu, 1.2e-5).energy(eps)


add(G("r20b_thermal_material_super_property", thermal_energy, (200.0, 0.3, DEPS_EL), argnums=(0, 1, 2), ref="ag",
      tol=1e-9))


# ---------------------------------------------------------------- more: local Newton, reshape view, buckling, Kirsch
def nonlinear_hardening_return(eps_total, E=200.0, sy=0.3, K=20.0, n=0.4):
    # return mapping with power-law hardening: local Newton on dgam with a tolerance
    sig_tr = E * eps_total
    if abs(sig_tr) <= sy:
        return sig_tr
    dg = 0.0
    res = abs(sig_tr) - sy
    it = 0
    while abs(res) > 1e-13 and it < 50:
        res = abs(sig_tr) - E * dg - (sy + K * (dg + 1e-8) ** n)
        dres = -E - K * n * (dg + 1e-8) ** (n - 1)
        dg = dg - res / dres
        it += 1
    return sig_tr - E * dg * math.copysign(1.0, sig_tr)


add(G("r20b_power_hardening_local_newton", nonlinear_hardening_return, (0.004, 200.0, 0.3, 20.0), argnums=(0, 2, 3),
      ref="fd", tol=1e-6, h=1e-7))
add(G("r20b_power_hardening_compression_fd", nonlinear_hardening_return, (-0.004,), ref="fd", tol=1e-6, h=1e-7))


def truss_disp_reshape_write(A):
    K = truss_stiffness(A)
    free = np.setdiff1d(np.arange(2 * len(NODES)), FIXED)
    F = np.zeros(2 * len(NODES))
    F[7] = -1.0
    u = np.zeros(2 * len(NODES))
    u[free] = np.linalg.solve(K[np.ix_(free, free)], F[free])
    U = u.reshape(-1, 2)
    U[:, 1] *= 10.0   # exaggerate vertical displacement (a write through the view)
    return np.sum(u ** 2)


add(G("r20b_truss_reshape_view_write", truss_disp_reshape_write, (A0,), ref="fd", tol=1e-6))


def buckling_load(EI, L=2.0, n=4):
    # generalized eigenproblem K v = lam Kg v via Cholesky of Kg
    le = L / n
    ndof = 2 * (n + 1)
    K = np.zeros((ndof, ndof))
    Kg = np.zeros((ndof, ndof))
    kg = 1 / (30 * le) * np.array([[36, 3 * le, -36, 3 * le], [3 * le, 4 * le * le, -3 * le, -le * le],
                                   [-36, -3 * le, 36, -3 * le], [3 * le, -le * le, -3 * le, 4 * le * le]])
    for e in range(n):
        s = slice(2 * e, 2 * e + 4)
        K[s, s] += beam_ke(EI[e], le)
        Kg[s, s] += kg
    fr = np.arange(2, ndof)
    Lc = np.linalg.cholesky(Kg[np.ix_(fr, fr)])
    Li = np.linalg.inv(Lc)
    return np.linalg.eigvalsh(Li @ K[np.ix_(fr, fr)] @ Li.T)[0]


add(VG("r20b_buckling_cholesky_eigvalsh_slices", buckling_load, (np.array([3.0, 2.5, 2.0, 1.5]),), ref="fd", tol=1e-6))
# uniform EI: the load is linear in EI (pi^2 EI / (4 L^2) in the continuum), so EI . grad = lam
add(pair("r20b_buckling_homogeneity", lambda: np.full(4, 3.0) @ revsrc.grad(buckling_load)(np.full(4, 3.0)),
         lambda: buckling_load(np.full(4, 3.0)), tol=1e-9))


def kirsch_peak(sxx, syy, a=1.0):
    # hole in a plate: hoop stress on the hole boundary, its max over a theta grid
    th = np.linspace(0.0, np.pi, 181)
    hoop = (sxx + syy) - 2 * (sxx - syy) * np.cos(2 * th)
    return np.max(hoop) / np.max(np.abs(np.array([sxx, syy])))


add(pair("r20b_kirsch_peak_max_closed_form", lambda: revsrc.grad(kirsch_peak, argnums=(0, 1))(1.0, 0.3),
         lambda: (0.3 / 1.0 ** 2, -1.0 / 1.0), tol=1e-12))
